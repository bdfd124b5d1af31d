#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# `make profile`'s report: the instructions of one traced call on the
# stock stack and on ours, per function (the symbol each executed
# address falls in, from that boot's /proc/kallsyms), the functions
# whose counts differ first.
#
# usage: insn_report.py NAME STOCK-KALLSYMS STOCK-TRACE OURS-KALLSYMS
#                       OURS-TRACE

import bisect
import collections
import sys


def load_symbols(path):
    syms = []
    with open(path) as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 3 and fields[1] in 'tTwW':
                syms.append((int(fields[0], 16), fields[2]))
    syms.sort()
    return [a for a, _ in syms], [n for _, n in syms]


def profile(kallsyms, trace):
    addrs, names = load_symbols(kallsyms)
    counts = collections.Counter()
    with open(trace) as f:
        for line in f:
            i = bisect.bisect_right(addrs, int(line, 16)) - 1
            counts[names[i] if i >= 0 else '?'] += 1
    return counts


def main():
    if len(sys.argv) != 6:
        sys.exit('usage: insn_report.py NAME STOCK-KALLSYMS STOCK-TRACE '
                 'OURS-KALLSYMS OURS-TRACE')
    name = sys.argv[1]
    stock = profile(sys.argv[2], sys.argv[3])
    ours = profile(sys.argv[4], sys.argv[5])
    funcs = set(stock) | set(ours)
    rows = sorted(funcs, key=lambda f: (-abs(ours[f] - stock[f]),
                                        -max(ours[f], stock[f]), f))
    print('instructions of %s, per function' % name)
    print('%-40s %8s %8s %8s' % ('function', 'stock', 'ours', 'diff'))
    for f in rows:
        print('%-40s %8d %8d %+8d' % (f, stock[f], ours[f],
                                      ours[f] - stock[f]))
    total_s, total_o = sum(stock.values()), sum(ours.values())
    print('%-40s %8d %8d %+8d' % ('total', total_s, total_o,
                                  total_o - total_s))


main()
