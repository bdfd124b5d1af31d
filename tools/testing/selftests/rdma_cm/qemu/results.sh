# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Bookkeeping shared by the host drivers (check.sh, perf.sh): phases and
# their timings, ok/not ok lines, KTAP counts of a guest job, the scan of
# a guest's kernel log, and the closing "N passed, N failed" line.
# Sourced; sets pass, fail, skip and timings.

pass=0 fail=0 skip=0
timings=() failed_names=()

phase_start() { phase=$1; t0=$(date +%s); echo "=== $phase"; }
phase_end() { timings+=("$(printf '%-22s %5ss' "$phase" $(( $(date +%s) - t0 )))"); }

result() { # result ok|fail|skip NAME [diagnostic file]
	case $1 in
	ok) pass=$((pass + 1)); echo "ok - $2" ;;
	skip) skip=$((skip + 1)); echo "ok - $2 # SKIP" ;;
	*) fail=$((fail + 1)); echo "not ok - $2"; failed_names+=("$2")
	   [ -n "${3:-}" ] && [ -s "$3" ] && tail -n 40 "$3" | sed 's/^/#   /' ;;
	esac
}

count_ktap() { # KTAP_FILE [WHERE]: add its ok / not ok lines to the totals
	local line
	while IFS= read -r line; do
		case "$line" in
		"not ok "*) fail=$((fail + 1))
			failed_names+=("${2:+$2: }${line#not ok }") ;;
		"ok "*"# SKIP"*) skip=$((skip + 1)) ;;
		"ok "*) pass=$((pass + 1)) ;;
		esac
	done < <(sed -n 's/^[[:space:]]*\(\(not \)\{0,1\}ok [0-9-].*\)/\1/p' "$1")
}

# A CI log shows only the totals otherwise: name each failed case with
# the diagnostics printed before it, and the cases that took longest
# (a case that ran into its timeout shows there).
ktap_report() { # JOB_LOG NAME
	awk -v name="$2" '
		/^[[:space:]]*# / { d[n++ % 12] = $0; next }
		/^[[:space:]]*not ok [0-9]/ {
			k = n > 12 ? n - 12 : 0
			for (; k < n; k++)
				print "#   " name ": " d[k % 12]
			print "#   " name ": " $0
			n = 0
		}
		/^[[:space:]]*ok [0-9]/ { n = 0 }' "$1"
	sed -n 's/^# \(.*\) took \([0-9]*\) s$/\2 \1/p' "$1" | sort -rn |
		head -n 5 | awk -v name="$2" '
		{ l = l (l ? ", " : "") $2 " " $1 " s" }
		END { if (l) print "# " name ": slowest: " l }'
}

# Count a guest's job KTAP and fail on any splat in its kernel log,
# whatever the tests printed.
scan_guest() { # DIR NAME
	local dir=$1 name=$2 klog splats=$1/splats.txt

	if [ -f "$dir/job.log" ]; then
		count_ktap "$dir/job.log" "$name"
		ktap_report "$dir/job.log" "$name"
	fi
	[ -f "$dir/vm-time.txt" ] && echo "# $name: $(cat "$dir/vm-time.txt")"
	# The kernel log alone: the console also carries the tools' output.
	klog=$dir/dmesg.txt
	[ -f "$klog" ] || klog=$dir/console.log
	# "traps: prog[pid] general protection fault ip:..." is a process's
	# crash, which the test that ran it judges by its exit status.
	grep -E 'BUG:|WARNING:|KASAN|UBSAN|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|Kernel panic|general protection fault|Oops|blocked for more than|INFO: lockdep|DEBUG_LOCKS_WARN|trying to register non-static key|kmemleak: .* new suspected' \
		"$klog" 2>/dev/null |
		grep -Ev 'traps: .*general protection fault ip:' > "$splats"
	if [ -s "$dir/kmemleak.txt" ]; then
		echo "kmemleak:" >> "$splats"
		head -n 60 "$dir/kmemleak.txt" >> "$splats"
	fi
	if [ -s "$splats" ]; then
		result fail "$name: kernel log free of KASAN/lockdep/WARN/BUG/kmemleak reports" "$splats"
	else
		result ok "$name: kernel log free of KASAN/lockdep/WARN/BUG/kmemleak reports"
	fi
}

finish() {
	echo
	echo "=== timings"
	printf '  %s\n' "${timings[@]}"
	[ $skip = 0 ] || echo "($skip skipped, not counted as passed)"
	# Last, where a CI log that keeps only its head and tail shows it.
	if [ ${#failed_names[@]} -gt 0 ]; then
		echo "failed:"
		printf '  %.160s\n' "${failed_names[@]}" | head -n 20
	fi
	echo "$pass passed, $fail failed"
	[ $fail = 0 ]
	exit $?
}
