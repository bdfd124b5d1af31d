#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The `make check` guest job: every mix of our and stock modules loads
# and unloads, our KUnit suites run, then the selftests run on the
# modules listed in RDMACM_OURS (stock for the others).
#
# Arguments (comma-separated by init): stock=0|1, tests=NAME+NAME...
set -u

stock=0 tests=
for a in "$@"; do
	case $a in
	stock=*) stock=${a#stock=} ;;
	tests=*) tests=${a#tests=} ;;
	esac
done

if [ "$stock" = 1 ]; then
	# The kernel API test client is a test tool, not one of our modules.
	export RDMACM_KCLIENT=${RDMACM_OURS_DIR:+$RDMACM_OURS_DIR/rdma_cm_kclient.ko}
	# Nothing of ours is loaded at all.
	export RDMACM_OURS='' RDMACM_OURS_DIR='' RDMACM_KUNIT=0 RDMACM_MIX=0
fi
[ -n "$tests" ] && export RDMACM_TESTS="${tests//+/ }"
# TCG with KASAN runs the tools several times slower than hardware.
export RDMACM_TIMEOUT_SCALE=${RDMACM_TIMEOUT_SCALE:-3}
export RDMACM_WORKDIR=/results/work
rm -rf "$RDMACM_WORKDIR"

exec "$(dirname "$0")/run_tests.sh"
