# SPDX-License-Identifier: GPL-2.0
#
# rdma-core's own rdmacm tests (pyverbs, tests/test_rdmacm.py), run from a
# patched copy of /usr/share/doc/rdma-core/tests (pyverbs/prepare.py: the
# netdev of a soft device comes from `rdma link`, as in rdma-core v47).
# Each test forks a passive and an active process on the same device and
# address.  Every test is one KTAP line; pyverbs/parse.py judges them
# against stock: rxe passes all 10; siw errors in 3 (asserted by their
# text) and skips 3 (no multicast), see parse.py.

PYVERBS_TESTS=(
	test_rdmacm_sync_traffic
	test_rdmacm_async_traffic
	test_rdmacm_async_reject_traffic
	test_rdmacm_async_multicast_traffic
	test_rdmacm_async_ex_multicast_traffic
	test_rdmacm_async_ex_leave_multicast_traffic
	test_rdmacm_async_traffic_external_qp
	test_rdmacm_async_udp_traffic
	test_rdmacm_async_read
	test_rdmacm_async_write
)
PYTHON=${RDMACM_PYTHON:-/usr/bin/python3}
PYVERBS_SRC=${RDMACM_PYVERBS_SRC:-/usr/share/doc/rdma-core/tests}

# Make the patched copy once per run, in $WORK/pyverbs-tests.
pyverbs_prepare() {
	local copy=$WORK/pyverbs-tests

	[ -f "$copy/.prepared" ] && return 0
	run prepare 120 "$PYTHON" "$SELFTEST_DIR/pyverbs/prepare.py" \
		--src "$PYVERBS_SRC" "$copy" --check "${PYVERBS_TESTS[@]}" || return 1
	touch "$copy/.prepared"
}

# Run the named tests (a case; results in $T_DIR/results.tsv).
pyverbs_run() { # NAME...
	local copy=$WORK/pyverbs-tests args=(--dev "$DEV") names=() n

	if ! pyverbs_prepare; then
		fail "cannot prepare the pyverbs tests: $(tail -n 1 prepare.out)"
		return
	fi
	# siw GIDs end in zeros, which v44 filters out: name the GID.
	[ "$T" = siw ] && args+=(--gid 0)
	for n in "$@"; do
		names+=("tests.test_rdmacm.CMTestCase.$n")
	done
	run pyverbs 900 "$PYTHON" -u "$copy/run_tests.py" "${args[@]}" -v "${names[@]}"
	[ "${RC[pyverbs]}" = 124 ] && info "run_tests.py timed out"
	"$PYTHON" "$SELFTEST_DIR/pyverbs/parse.py" --transport "$T" \
		--log pyverbs.out --outdir results "$@" > results.tsv ||
		fail "parse.py failed"
}
