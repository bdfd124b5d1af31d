#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Judge a `run_tests.py -v` log of rdma-core's test_rdmacm against stock.

usage: parse.py --transport rxe|siw --log LOG --outdir DIR NAME...

For each NAME (a CMTestCase method) prints one tab-separated line
    ok|skip|fail <TAB> NAME <TAB> text
and writes DIR/NAME.log with the test's own output (the child processes'
"Player ... got: ..." lines and the unittest traceback), for diagnostics.

  ok    the result is what the stock stack gives; text is empty, or for a
        test that fails on stock too, "fails as stock does: <matched text>"
  skip  the stock stack skips it too; text is the skip reason
  fail  anything else; text says what was expected and what happened

Expectations are rdma-core 44 on stock Linux 6.1 (stock-baseline.md 3.1):
rxe passes all 10; siw has 3 errors and 3 skips, each asserted by its
specific text below, so a different failure is still a failure.
"""

import argparse
import os
import re
import sys

# name -> (expected unittest status, regex on the test's output, label)
SIW = {
    # iWARP QPs have no IB ack timeout: query_qp() gives timeout 0 and the
    # passive side's bare `assert self.qp_timeout == attr.timeout` fails
    # right after accept(); a bare AssertionError prints an empty message.
    'test_rdmacm_async_traffic': (
        'ERROR', r'^Player passive got: *$',
        'Player passive got: <empty>, a bare AssertionError: '
        'qp.timeout != 21, iWARP has no IB ack timeout'),
    'test_rdmacm_async_multicast_traffic': (
        'skipped', r'^Multicast is not supported on this device$', None),
    'test_rdmacm_async_ex_multicast_traffic': (
        'skipped', r'^Multicast is not supported on this device$', None),
    'test_rdmacm_async_ex_leave_multicast_traffic': (
        'skipped', r'^Multicast is not supported on this device$', None),
    # iWARP: the active side gets ESTABLISHED, not CONNECT_RESPONSE (5).
    'test_rdmacm_async_traffic_external_qp': (
        'ERROR',
        r'^Player active got: (Expected this event: 5, got this event: '
        r'RDMA_CM_EVENT_ESTABLISHED)',
        None),
    # siw has no UD QPs.
    'test_rdmacm_async_udp_traffic': (
        'ERROR', r'^Player (?:active|passive) got: '
        r'(Failed to Create QP\. Errno: 95)', None),
}

EXPECT = {'rxe': {}, 'siw': SIW}

HDR = re.compile(r'^(test_\w+) \(tests\.test_rdmacm\.CMTestCase(?:\.\1)?\)'
                 r'(?:\n[^\n]*?)? \.\.\. ', re.M)
SUMMARY = re.compile(r'^(?:={70}|-{70}|Ran \d+ tests? in \S+)$', re.M)
RESULT = re.compile(r'(?:\A|\n)(ok|ERROR|FAIL|expected failure|'
                    r'unexpected success|skipped (["\'])(.*)\2)[ \t]*\Z',
                    re.S)
TRACE = re.compile(r'^={70}\n(ERROR|FAIL): (test_\w+) \([^\n]*\)\n-{70}\n'
                   r'(.*?)(?=^={70}$|^-{70}$|\Z)', re.M | re.S)


def split_results(text):
    """Return {name: (status, skip_reason, output)} found in the log."""
    heads = list(HDR.finditer(text))
    found = {}
    for i, head in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        summ = SUMMARY.search(text, head.end(), end)
        if summ:
            end = summ.start()
        seg = text[head.end():end].rstrip()
        res = RESULT.search(seg)
        if res is None:
            status, reason, body = None, None, seg
        else:
            status = 'skipped' if res.group(1).startswith('skipped') \
                else res.group(1)
            reason = res.group(3)
            body = seg[:res.start(1)]
        found[head.group(1)] = (status, reason, body.strip('\n'))
    traces = {}
    for m in TRACE.finditer(text):
        traces.setdefault(m.group(2), m.group(3).rstrip())
    return found, traces


def last_interesting(output):
    """A one-line hint: the last "Player ... got:" line or exception line."""
    lines = [ln.strip() for ln in output.splitlines() if ln.strip()]
    players = [ln for ln in lines if ln.startswith('Player ')]
    for ln in reversed(players):
        if not ln.endswith('got:'):
            return ln
    if players:
        return players[-1] + ' (empty message)'
    for ln in reversed(lines):
        if re.match(r'^[\w.]+(Error|Exception|Test)\b', ln):
            return ln
    return lines[-1] if lines else ''


# The active and passive processes print to one stdout without locking,
# so one line can hold both: "Player active got: Player passive got: ".
PLAYER = re.compile(r'(?<=\S)[ \t]*(?=Player (?:active|passive) got:)')


def unsplice(text):
    """Put every "Player ... got:" message on a line of its own."""
    return PLAYER.sub('\n', text)


def judge(name, expect, found, traces):
    """Return (verdict, text, output)."""
    if name not in found:
        return 'fail', 'no result for this test in the run_tests.py output', ''
    status, reason, body = found[name]
    body = unsplice(body)
    output = '\n'.join(p for p in (body, traces.get(name, '')) if p)
    want = expect.get(name, ('ok', None, None))
    wstatus, pattern, label = want
    if status is None:
        return 'fail', 'no unittest verdict (run killed or crashed?)', output
    got = status + (" '%s'" % reason if reason is not None else '')
    if wstatus == 'ok':
        if status == 'ok':
            return 'ok', '', output
        hint = last_interesting(output)
        return 'fail', 'stock passes, got %s%s' % (
            got, ': ' + hint if hint else ''), output
    if wstatus == 'skipped':
        if status == 'skipped' and re.search(pattern, reason or ''):
            return 'skip', reason, output
        return 'fail', "stock skips (%s), got %s" % (
            pattern.strip('^$'), got), output
    # An error the stock stack gives too, identified by its text.
    m = re.search(pattern, body, re.M)
    if status == wstatus and m:
        matched = label or (m.group(1) if m.groups() else m.group(0))
        return 'ok', 'fails as stock does: ' + matched.strip(), output
    if status == wstatus:
        return 'fail', 'stock %s is /%s/, not found; got: %s' % (
            wstatus, pattern, last_interesting(output)), output
    return 'fail', 'stock gives %s /%s/, got %s' % (
        wstatus, pattern, got), output


def clean(text):
    """Keep a verdict text usable as a KTAP description."""
    return re.sub(r'[\t\n#]+', ' ', text).strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--transport', required=True, choices=sorted(EXPECT))
    ap.add_argument('--log', required=True)
    ap.add_argument('--outdir', required=True)
    ap.add_argument('names', nargs='+')
    args = ap.parse_args()
    try:
        with open(args.log, encoding='utf-8', errors='replace') as f:
            text = f.read()
    except OSError as err:
        text = ''
        print('parse.py: %s' % err, file=sys.stderr)
    text = text.replace('\r\n', '\n')
    found, traces = split_results(text)
    os.makedirs(args.outdir, exist_ok=True)
    for name in args.names:
        verdict, msg, output = judge(name, EXPECT[args.transport], found,
                                     traces)
        with open(os.path.join(args.outdir, name + '.log'), 'w',
                  encoding='utf-8') as f:
            f.write(output + '\n')
        print('%s\t%s\t%s' % (verdict, name, clean(msg)))


if __name__ == '__main__':
    main()
