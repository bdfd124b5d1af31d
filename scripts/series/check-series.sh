#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Bisectability of the in-tree series: apply the patches one by one to
# the test kernel's source and, after each, build every module of
# drivers/infiniband/core and drivers/infiniband/sw in-tree with the test
# kernel's configuration (Kconfig read by olddefconfig, the Makefiles as
# the kernel reads them, modpost against vmlinux.o and the other RDMA
# modules).  A compiler warning in one of our files fails the step too.
#
# usage: check-series.sh KCACHE PATCHDIR [WORKDIR]
#   KCACHE    a built test kernel: KCACHE/src (its source) and KCACHE/obj
#             (its O= build, .config, vmlinux.o, Module.symvers)
#   PATCHDIR  the series, as make series writes it
#
# Nothing in KCACHE is written: the source is copied as hard links (and
# every file a patch touches is copied before it is patched), the build
# directory as files, with the paths in its dependency files rewritten,
# so that only what a patch changes is rebuilt.
set -euo pipefail

kc=${1:?usage: check-series.sh KCACHE PATCHDIR [WORKDIR]}
pdir=$(readlink -f "${2:?usage: check-series.sh KCACHE PATCHDIR [WORKDIR]}")
work=${3:-$(dirname "$pdir")/check}
src0=$(readlink -f "$kc/src")
obj0=$(readlink -f "$kc/obj")
[ -f "$obj0/.config" ] && [ -f "$obj0/vmlinux.o" ] ||
	{ echo "check-series: $kc is not a built kernel (obj/.config, obj/vmlinux.o)" >&2; exit 1; }

# The options the series adds, for the build to enable once they exist.
new_opts="RDMA_CM_KUNIT_TEST RDMA_UCM_KUNIT_TEST RDMA_SWIW RDMA_SWIW_KUNIT_TEST"
# Our files, whose warnings fail a step.
ours_re='(cma|iwcm|ucma|swiw)[a-z0-9_]*\.[ch]:[0-9]+:[0-9]+: warning'

t0=$(date +%s)
rm -rf "$work"
mkdir -p "$work"
src=$work/src obj=$work/obj
cp -al "$src0" "$src"
cp -a "$obj0" "$obj"
rm -rf "$obj/vmlinux" "$obj/arch/x86/boot"
grep -rlIZF --exclude='*.o' --exclude='*.ko' --exclude='*.a' \
	-e "$src0" -e "$obj0" "$obj" |
	xargs -0 -r sed -i -e "s|$src0|$src|g" -e "s|$obj0|$obj|g"
echo "check-series: set up in $(( $(date +%s) - t0 ))s"

kmake() {
	nice -n 10 make -s -C "$src" O="$obj" -j"$(nproc)" "$@"
}

# Break the hard links of the files a patch touches, then apply it
# (patch(1): git apply would take the paths relative to an enclosing
# repository's top).
apply() {
	local p=$1 f
	git apply --numstat "$p" | cut -f3 | while read -r f; do
		if [ -f "$src/$f" ]; then
			cp -p "$src/$f" "$src/$f.series-tmp"
			mv "$src/$f.series-tmp" "$src/$f"
		fi
	done
	patch -d "$src" -p1 -s --batch --forward -i "$p"
}

n=0 fail=0
for p in "$pdir"/[0-9][0-9][0-9][0-9]-*.patch; do
	case $p in */0000-cover-letter.patch) continue ;; esac
	n=$((n + 1))
	t=$(date +%s)
	name=$(basename "$p")
	log=$work/$name.log
	if ! patch -d "$src" -p1 -s --batch --forward --dry-run -i "$p" > "$log" 2>&1; then
		echo "not ok $n $name # does not apply"; cat "$log"; exit 1
	fi
	apply "$p" >> "$log" 2>&1

	# A patch with nothing for the build (documentation) builds as
	# its predecessor did.
	if ! git apply --numstat "$p" | cut -f3 |
		grep -qvE '^(Documentation/|MAINTAINERS$|tools/)'; then
		echo "ok $n $name # nothing to build"
		continue
	fi
	for o in $new_opts; do
		sed -i "/^CONFIG_$o=/d; /^# CONFIG_$o is not set/d" "$obj/.config"
		echo "CONFIG_$o=m" >> "$obj/.config"
	done
	ok=1
	kmake olddefconfig >> "$log" 2>&1 || ok=0
	[ $ok = 1 ] && { kmake drivers/infiniband/core/ drivers/infiniband/sw/ >> "$log" 2>&1 || ok=0; }
	if [ $ok = 1 ]; then
		# rxe and siw need modules from net/: leave them out.
		kos=$(cat "$obj"/drivers/infiniband/core/modules.order \
			  $(ls "$obj"/drivers/infiniband/sw/swiw/modules.order 2> /dev/null))
		kmake $kos >> "$log" 2>&1 || ok=0
	fi
	warn=$(grep -cE "$ours_re" "$log" || true)
	[ "$warn" = 0 ] || ok=0
	enabled=$(grep -oE "^CONFIG_($(echo $new_opts | tr ' ' '|'))=m" "$obj/.config" |
		  sed 's/^CONFIG_//; s/=m//' | tr '\n' ' ' || true)
	secs=$(( $(date +%s) - t ))
	if [ $ok = 1 ]; then
		echo "ok $n $name # ${secs}s, $(echo $kos | wc -w) modules${enabled:+, $enabled}"
	else
		echo "not ok $n $name # ${secs}s, $warn warnings in our files; $log:"
		grep -E "error|warning|ERROR" "$log" | head -20
		fail=1
	fi
done
echo "check-series: $n patches in $(( $(date +%s) - t0 ))s"
exit $fail
