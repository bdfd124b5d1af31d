#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make profile`'s host side, beside the guest of profile_guest.sh: for
# each stack, once the guest has published its kallsyms, attach gdb to
# the guest through QEMU's gdb server, trace the calls asked for
# (insn_trace.py), let the guest go on, and in the end print the
# instructions of each traced call per function, stock against ours
# (insn_report.py).
#
# usage: insn-profile.sh OUTDIR PORT TIMEOUT
#
# Environment:
#   PROFILE_CMD    the rdma_ucm command whose write() is traced: a name
#                  from rdma_user_cm.h's RDMA_USER_CM_CMD_* without the
#                  prefix, or its number (default RESOLVE_ROUTE)
#   PROFILE_SKIP   calls to let pass before each traced one (default
#                  150: past the figure's untimed start and first batch)
#   PROFILE_FUNCS  kernel functions to trace as well, after the command,
#                  space-separated; STOCK/OURS names a function that has
#                  another name on each stack
set -uo pipefail

out=$1 port=$2 tmo=$3
here=$(cd "$(dirname "$0")" && pwd)
cmd=${PROFILE_CMD:-RESOLVE_ROUTE} skip=${PROFILE_SKIP:-150}
funcs=${PROFILE_FUNCS:-}

# The command's number: the enum of rdma_user_cm.h counts from 0.
if [[ $cmd =~ ^[0-9]+$ ]]; then
	cmdnr=$cmd
else
	cmdnr=$(sed -n '/^enum {/,/^};/p' /usr/include/rdma/rdma_user_cm.h |
		grep -o 'RDMA_USER_CM_CMD_[A-Z_]*' |
		grep -nx "RDMA_USER_CM_CMD_$cmd" | cut -d: -f1)
	[ -n "$cmdnr" ] || { echo "insn-profile: no command $cmd" >&2; exit 2; }
	cmdnr=$((cmdnr - 1))
fi

addr_of() { # KALLSYMS NAME
	awk -v n="$2" '$3 == n && $2 ~ /^[tTwW]$/ { print $1; exit }' "$1"
}

rc=0
names=("write.$cmd")
for f in $funcs; do
	names+=("${f%%/*}")
done
for o in stock ours; do
	deadline=$((SECONDS + tmo))
	until [ -s "$out/kallsyms.$o" ]; do
		[ "$SECONDS" -lt "$deadline" ] ||
			{ echo "insn-profile: no kallsyms.$o" >&2; exit 1; }
		sleep 1
	done
	ks=$out/kallsyms.$o
	a=$(addr_of "$ks" ucma_write)
	[ -n "$a" ] || { echo "insn-profile: no ucma_write on $o" >&2; exit 1; }
	specs="write.$cmd@$a@$skip@*(unsigned int *)\$rsi == $cmdnr"
	for f in $funcs; do
		n=${f%%/*}
		[ "$o" = ours ] && n=${f##*/}
		a=$(addr_of "$ks" "$n")
		[ -n "$a" ] || { echo "insn-profile: no $n on $o" >&2; exit 1; }
		specs+=";${f%%/*}@$a@$skip@"
	done
	if ! TRACE_SPECS=$specs TRACE_OUT=$out/trace.$o TRACE_GO=$out/go.$o \
		timeout "$tmo" gdb -nx -batch -ex 'set architecture i386:x86-64' \
		-ex "target remote 127.0.0.1:$port" -x "$here/insn_trace.py" \
		-ex detach > "$out/gdb.$o.log" 2>&1; then
		echo "insn-profile: gdb failed on $o, see $out/gdb.$o.log" >&2
		rc=1
	fi
done
for n in "${names[@]}"; do
	echo
	"$here/insn_report.py" "$n" "$out/kallsyms.stock" "$out/trace.stock.$n" \
		"$out/kallsyms.ours" "$out/trace.ours.$n" || rc=1
done
exit $rc
