# SPDX-License-Identifier: GPL-2.0
#
# gdb script of `make profile` (insn-profile.sh): attached to QEMU's gdb
# server, stop at a kernel function and single-step it until it returns,
# writing the address of every instruction executed, callees included.
# Under TCG, QEMU steps with interrupts masked, so the trace is the
# function's own path.
#
# Environment: TRACE_SPECS, entries "NAME@ADDR@SKIP@COND" separated by
# ";" (COND, a gdb condition, may be empty); TRACE_OUT, the prefix of the
# trace files (one per NAME); TRACE_GO, a file to create once the first
# breakpoint is set (the guest job waits for it).

import os

import gdb

MAX_STEPS = 200000


def reg(expr):
    return int(gdb.parse_and_eval(expr)) & 0xffffffffffffffff


def trace_call(path):
    """Single-step from a function's first instruction to its return."""
    sp0 = reg('$sp')
    ret = reg('*(unsigned long *)$sp')
    with open(path, 'w') as out:
        out.write('%x\n' % reg('$pc'))
        for _ in range(MAX_STEPS):
            gdb.execute('stepi', to_string=True)
            pc = reg('$pc')
            out.write('%x\n' % pc)
            if pc == ret and reg('$sp') > sp0:
                return True
    return False


def main():
    prefix = os.environ['TRACE_OUT']
    go = os.environ.get('TRACE_GO')
    for spec in os.environ['TRACE_SPECS'].split(';'):
        name, addr, skip, cond = spec.split('@', 3)
        gdb.execute('delete', to_string=True)
        bp = gdb.Breakpoint('*0x' + addr)
        if cond:
            bp.condition = cond
        bp.ignore_count = int(skip)
        if go:
            open(go, 'w').close()
            go = None
        gdb.execute('continue')
        if not trace_call('%s.%s' % (prefix, name)):
            print('insn_trace: %s did not return in %d steps'
                  % (name, MAX_STEPS))
    gdb.execute('delete', to_string=True)


main()
