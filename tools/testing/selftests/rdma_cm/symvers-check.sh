#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Check that our rdma_cm.ko and iw_cm.ko export every symbol of the stock
# modules with the same MODVERSIONS CRC and export type.  A mismatch makes
# stock ULPs fail to load with "disagrees about version of symbol".
#
# One KTAP test per stock export of drivers/infiniband/core/{rdma_cm,iw_cm},
# plus one test per symbol that only our modules export: it passes only
# for iw_cm's host-integrated provider interface (include/rdma/iw_host.h),
# exported in symbol namespace IW_HOST, which no stock module can bind to
# by accident.  Any other export of ours alone fails.
#
# usage: symvers-check.sh OURS_SYMVERS STOCK_SYMVERS
set -euo pipefail

usage() {
	echo "usage: $0 OURS_SYMVERS STOCK_SYMVERS" >&2
	exit 2
}

[ $# -eq 2 ] || usage
ours=$1
stock=$2
for f in "$ours" "$stock"; do
	[ -r "$f" ] || { echo "$0: cannot read $f" >&2; exit 2; }
done

# Module.symvers: CRC <TAB> symbol <TAB> module path <TAB> export type
# <TAB> namespace.  Our module paths are absolute (M= build), the stock
# ones relative to the kernel tree, so modules are compared by base name.
awk -F'\t' '
function base(path) { sub(/.*\//, "", path); return path }
function ours_mod(m) { return m == "rdma_cm" || m == "iw_cm" }

FNR == NR {
	m = base($3)
	if (ours_mod(m)) {
		crc[$2] = $1; mod[$2] = m; type[$2] = $4; ns[$2] = $5
		order[++n_ours] = $2
	}
	next
}
$3 ~ /^drivers\/infiniband\/core\/(rdma_cm|iw_cm)$/ {
	n++
	sym[n] = $2; scrc[n] = $1; smod[n] = base($3); stype[n] = $4
	in_stock[$2] = 1
}

END {
	for (i = 1; i <= n_ours; i++)
		if (!(order[i] in in_stock))
			extra[++n_extra] = order[i]

	print "KTAP version 1"
	if (n == 0) {
		print "Bail out! no rdma_cm/iw_cm exports in the stock file"
		exit 1
	}
	printf "1..%d\n", n + n_extra
	fail = 0
	for (i = 1; i <= n; i++) {
		s = sym[i]
		why = ""
		if (!(s in crc))
			why = "missing from our " smod[i]
		else if (mod[s] != smod[i])
			why = "exported by our " mod[s] ", stock " smod[i]
		else if (crc[s] != scrc[i])
			why = "ours " crc[s] " stock " scrc[i]
		else if (type[s] != stype[i])
			why = "ours " type[s] " stock " stype[i]
		if (why == "") {
			printf "ok %d %s\n", i, s
		} else {
			printf "not ok %d %s # %s\n", i, s, why
			fail++
		}
	}
	stock_fail = fail
	for (i = 1; i <= n_extra; i++) {
		s = extra[i]
		if (mod[s] == "iw_cm" && ns[s] == "IW_HOST" && s ~ /^iw_host_/) {
			printf "ok %d %s # ours only: namespace IW_HOST\n", n + i, s
			continue
		}
		printf "not ok %d %s # exported by our %s only\n", n + i, s, mod[s]
		fail++
	}
	printf "# %d/%d stock exports match\n", n - stock_fail, n
	exit fail != 0
}
' "$ours" "$stock"
