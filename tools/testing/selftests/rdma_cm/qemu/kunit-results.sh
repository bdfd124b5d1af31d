#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Turn the KUnit KTAP found in a kernel log into one line per test case:
#   ok - kunit.<suite>.<case>   /   not ok - kunit.<suite>.<case>
# A suite that failed without a failing case (say, its init failed) gets a
# line of its own.  A "KTAP version" header with no result is a failure too:
# a suite that crashed mid-way must not vanish from the count.
set -euo pipefail

sed -e 's/^\[[^]]*\] //' "${1:?usage: kunit-results.sh DMESG}" | awk '
/^    # Subtest: / { suite = $3; cases = 0; bad = 0; open = 1; next }
/^        / { next }			# parameterised sub-cases
/^    (not )?ok [0-9]+ / && open {
	not = ($1 == "not"); name = not ? $4 : $3
	skip = ($0 ~ /# SKIP/)
	cases++
	if (not) bad++
	printf "%sok - kunit.%s.%s%s\n", not ? "not " : "", suite, name,
		skip ? " # SKIP" : ""
	next
}
/^(not )?ok [0-9]+ / && open {
	if ($1 == "not" && bad == 0)
		printf "not ok - kunit.%s (suite failed)\n", suite
	open = 0
	next
}
END { if (open) printf "not ok - kunit.%s (no suite result: crashed?)\n", suite }
'
