#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""Write the in-tree patch series against pristine linux-source-6.1.

usage: mkseries.py TARBALL OUTDIR

Builds OUTDIR/git, a repository holding the parts of the tarball the
series touches, commits each patch there with the author and date of
this tree's HEAD, and writes OUTDIR/patches/ with git format-patch,
cover letter included.  The series is a function of this tree's files,
the tarball and HEAD's identity only: no temporary path, no clock.
"""

import glob
import os
import re
import shutil
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.join(TOP, 'scripts', 'series')
CORE = 'drivers/infiniband/core'
SWIW = 'drivers/infiniband/sw/swiw'
SELF = 'tools/testing/selftests/rdma_cm'

# Parts of the kernel tree the series touches, extracted from the tarball.
BASE_PATHS = ['MAINTAINERS', 'Documentation/infiniband', 'drivers/infiniband',
              'include/rdma', 'tools/testing/selftests/Makefile']

# Files of this tree that belong to the out-of-tree build only.
OUT_OF_TREE = {
    'Kbuild', 'Makefile', 'MAINTAINERS', 'README',
    CORE + '/Kbuild',            # obj-m lists, IBPRIV, -include cma_abi.h
    CORE + '/cma_abi.h',         # genksyms include context (export CRCs)
    SWIW + '/Kbuild',            # option defaults, -I include/
    'Documentation/infiniband/index.rst',   # merged into the kernel's
}


def die(msg):
    sys.stderr.write('mkseries: %s\n' % msg)
    sys.exit(1)


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE,
                          universal_newlines=True, **kw).stdout


def kbuild_var(kbuild, var, config=()):
    """Value of @var after reading our Kbuild file, as make sees it."""
    mk = 'src := .\n' + ''.join('%s := m\n' % c for c in config) + \
         'include %s\n$(info $(%s))\nall: ;\n' % (os.path.basename(kbuild), var)
    out = run(['make', '-s', '--no-print-directory', '-f', '-'], input=mk,
              cwd=os.path.dirname(kbuild))
    return out.split()


def objs_to_src(d, objs):
    return ['%s/%s' % (d, o[:-2] + '.c') for o in objs]


def wrap(head, words, indent):
    """Kbuild-style assignment: @head then @words wrapped at 80 columns."""
    lines, cur = [], head
    for w in words:
        col = len(cur.expandtabs(8))
        if col + 1 + len(w) > 78 and cur != head:
            lines.append(cur + ' \\')
            cur = indent + w
        else:
            cur += ('' if cur.endswith(('\t', ' ')) else ' ') + w
    lines.append(cur)
    return '\n'.join(lines) + '\n'


def sub(path, old, new, count=1):
    t = open(path).read()
    if t.count(old) != count:
        die('%s: expected %d of %r' % (path, count, old))
    open(path, 'w').write(t.replace(old, new))


def sub_re(path, pattern, new):
    t = open(path).read()
    t2, n = re.subn(pattern, new, t, count=1, flags=re.M | re.S)
    if n != 1:
        die('%s: no match for %r' % (path, pattern))
    open(path, 'w').write(t2)


def maint_entry(path, title, body):
    """Insert a MAINTAINERS section in alphabetical order."""
    t = open(path).read()
    start = t.index('\n\n3C59X NETWORK DRIVER') + 2
    entries = t[start:].split('\n\n')
    new = title + '\n' + body
    pos = next(i for i, e in enumerate(entries)
               if e.split('\n', 1)[0] > title)
    entries.insert(pos, new.rstrip('\n'))
    open(path, 'w').write(t[:start] + '\n\n'.join(entries))


class Series:
    def __init__(self, work, ident):
        self.work = work
        self.ident = ident
        self.used = set()

    def add(self, files):
        for f in files:
            if f in self.used:
                die('%s in two patches' % f)
            self.used.add(f)
            dst = os.path.join(self.work, f)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy(os.path.join(TOP, f), dst)

    def rm(self, files):
        for f in files:
            os.unlink(os.path.join(self.work, f))

    def path(self, f):
        return os.path.join(self.work, f)

    def commit(self, msgfile):
        msg = open(os.path.join(HERE, 'patches', msgfile)).read().rstrip('\n')
        msg += '\n\nSigned-off-by: %s <%s>\n' % (self.ident['name'],
                                                  self.ident['email'])
        run(['git', 'add', '-A'], cwd=self.work)
        run(['git', 'commit', '-q', '-F', '-'], input=msg, cwd=self.work,
            env=self.ident['env'])


def ours(pattern):
    """This tree's tracked files matching @pattern, but for the glue."""
    fs = run(['git', 'ls-files', '-z', '--', pattern], cwd=TOP).split('\0')
    return sorted(f for f in fs if f and f not in OUT_OF_TREE)


def build(s):
    kb = os.path.join(TOP, CORE, 'Kbuild')
    mk = s.path(CORE + '/Makefile')
    me = '%s <%s>' % (s.ident['name'], s.ident['email'])

    # 1: iw_cm
    iw = kbuild_var(kb, 'iw_cm-y')
    s.add(objs_to_src(CORE, iw) + ours(CORE + '/iwcm_*.h') +
          ours('include/rdma/*.h'))
    s.rm([CORE + '/' + f for f in ('iwcm.c', 'iwcm.h', 'iwpm_msg.c',
                                   'iwpm_util.c', 'iwpm_util.h')])
    sub_re(mk, r'^iw_cm-y :=.*?\n', wrap('iw_cm-y :=\t\t\t', iw, '\t\t\t\t'))
    # iwcm_mpa.c's TERMINATE FPDU takes its CRC32c from lib/crc32.c.
    sub(s.path('drivers/infiniband/Kconfig'), '\tselect DIMLIB\n',
        '\tselect DIMLIB\n\tselect CRC32\n')
    maint_entry(s.path('MAINTAINERS'), 'IWARP CONNECTION MANAGER (iw_cm)',
                'M:\t%s\nL:\tlinux-rdma@vger.kernel.org\nS:\tMaintained\n'
                'F:\tdrivers/infiniband/core/iwcm_*\n'
                'F:\tinclude/rdma/iw_host.h\n' % me)
    s.commit('01-iw_cm.txt')

    # 2: rdma_cm
    cm = kbuild_var(kb, 'rdma_cm-y')
    s.add(objs_to_src(CORE, cm) + [CORE + '/cma_configfs.c'] +
          [f for f in ours(CORE + '/cma_*.h') if f not in s.used])
    s.rm([CORE + '/cma.c'])
    sub_re(mk, r'^rdma_cm-y :=.*?\n', wrap('rdma_cm-y :=\t\t\t', cm, '\t\t\t\t'))
    maint_entry(s.path('MAINTAINERS'), 'RDMA CONNECTION MANAGER (rdma_cm, rdma_ucm)',
                'M:\t%s\nL:\tlinux-rdma@vger.kernel.org\nS:\tMaintained\n'
                'F:\tdrivers/infiniband/core/cma_*\n' % me)
    s.commit('02-rdma_cm.txt')

    # 3: rdma_ucm
    ucm = kbuild_var(kb, 'rdma_ucm-y')
    s.add(objs_to_src(CORE, ucm) + ours(CORE + '/ucma_*.h'))
    s.rm([CORE + '/ucma.c'])
    sub_re(mk, r'^rdma_ucm-y :=.*?\n', wrap('rdma_ucm-y :=\t\t\t', ucm, '\t\t\t\t'))
    sub(s.path('MAINTAINERS'), 'F:\tdrivers/infiniband/core/cma_*\n',
        'F:\tdrivers/infiniband/core/cma_*\nF:\tdrivers/infiniband/core/ucma_*\n')
    s.commit('03-rdma_ucm.txt')

    # 4: KUnit suites of the three modules
    base = set(kbuild_var(kb, 'obj-m'))
    text = '\n'
    lists = ''
    for opt in ('RDMA_CM_KUNIT_TEST', 'RDMA_UCM_KUNIT_TEST'):
        cfg = ['CONFIG_' + opt]
        mods = [m for m in kbuild_var(kb, 'obj-m', cfg) if m not in base]
        text += wrap('obj-$(CONFIG_%s) +=' % opt, mods, '\t\t\t\t')
        for m in mods:
            objs = kbuild_var(kb, m[:-2] + '-y', cfg)
            s.add(objs_to_src(CORE, objs))
            lists += wrap('%s-y :=\t\t' % m[:-2], objs, '\t\t\t\t')
    sub(mk, '\nib_umad-y :=', text + '\n' + lists + '\nib_umad-y :=')
    s.add([CORE + '/Kconfig'] + ours(CORE + '/*_kunit*.h'))
    sub(s.path('drivers/infiniband/Kconfig'),
        '\nif INFINIBAND_USER_ACCESS || !INFINIBAND_USER_ACCESS\n',
        '\nsource "drivers/infiniband/core/Kconfig"\n'
        '\nif INFINIBAND_USER_ACCESS || !INFINIBAND_USER_ACCESS\n')
    sub(s.path('MAINTAINERS'), 'F:\tdrivers/infiniband/core/cma_*\n',
        'F:\tdrivers/infiniband/core/Kconfig\nF:\tdrivers/infiniband/core/cma_*\n')
    s.commit('04-kunit.txt')

    # 5: swiw
    s.add(ours(SWIW + '/*'))
    sub(s.path('drivers/infiniband/sw/Makefile'),
        'obj-$(CONFIG_RDMA_SIW)\t\t\t+= siw/\n',
        'obj-$(CONFIG_RDMA_SIW)\t\t\t+= siw/\nobj-$(CONFIG_RDMA_SWIW)\t\t\t+= swiw/\n')
    sub(s.path('drivers/infiniband/Kconfig'),
        'source "drivers/infiniband/sw/siw/Kconfig"\n',
        'source "drivers/infiniband/sw/siw/Kconfig"\n'
        'source "drivers/infiniband/sw/swiw/Kconfig"\n')
    maint_entry(s.path('MAINTAINERS'), 'SOFT-IWARP ON IW_CM DRIVER (swiw)',
                'M:\t%s\nL:\tlinux-rdma@vger.kernel.org\nS:\tMaintained\n'
                'F:\tDocumentation/infiniband/swiw.rst\n'
                'F:\tdrivers/infiniband/sw/swiw/\n' % me)
    s.commit('05-swiw.txt')

    # 6: documentation
    docs = ours('Documentation/infiniband/*.rst')
    s.add(docs)
    idx = s.path('Documentation/infiniband/index.rst')
    t = open(idx).read()
    m = re.search(r'(:maxdepth: 1\n\n)((?:   \S+\n)+)', t)
    names = set(m.group(2).split())
    names |= {os.path.basename(d)[:-4] for d in docs}
    t = t[:m.start(2)] + ''.join('   %s\n' % n for n in sorted(names)) + t[m.end(2):]
    open(idx, 'w').write(t)
    sub(s.path('MAINTAINERS'),
        'F:\tdrivers/infiniband/core/iwcm_*\n',
        'F:\tDocumentation/infiniband/iw_cm.rst\nF:\tdrivers/infiniband/core/iwcm_*\n')
    sub(s.path('MAINTAINERS'),
        'F:\tdrivers/infiniband/core/Kconfig\n',
        'F:\tDocumentation/infiniband/rdma_cm.rst\n'
        'F:\tDocumentation/infiniband/rdma_cm_testing.rst\n'
        'F:\tDocumentation/infiniband/rdma_ucm.rst\n'
        'F:\tdrivers/infiniband/core/Kconfig\n')
    s.commit('06-docs.txt')

    # 7: the selftests that run on any kernel with these modules; the
    # QEMU harness, the benchmarks and the packaging checks stay with
    # the out-of-tree tree, whose CI they are.
    s.add(['%s/%s' % (SELF, f) for f in (
        'Makefile', 'config', 'settings', 'run_tests.sh', 'lib.sh',
        'mpa_peer.py', 'cm_probe.c', 'rds_pump.c', 'swiw_flood.c',
        'srq_share.c', 'swiw_pump.c', 'swiw_ring_fuzz.c', 'ucma_fuzz.c')] +
        ours(SELF + '/tests/*') + ours(SELF + '/pyverbs/*') +
        ours(SELF + '/kclient/*'))
    sub(s.path('tools/testing/selftests/Makefile'),
        'TARGETS += openat2\n', 'TARGETS += openat2\nTARGETS += rdma_cm\n')
    sub(s.path('MAINTAINERS'),
        'F:\tdrivers/infiniband/core/ucma_*\n',
        'F:\tdrivers/infiniband/core/ucma_*\nF:\ttools/testing/selftests/rdma_cm/\n')
    s.commit('07-selftests.txt')

    # Every file of ours is in the series or is out-of-tree glue.
    left = [f for f in ours('drivers') + ours('include') if f not in s.used]
    if left:
        die('files in no patch: ' + ' '.join(left))


def main():
    if len(sys.argv) != 3:
        die('usage: mkseries.py TARBALL OUTDIR')
    tarball, out = sys.argv[1], os.path.abspath(sys.argv[2])
    cover = os.path.join(HERE, 'cover-letter.txt')
    if not os.path.isfile(cover):
        die('%s is missing: it holds the cover letter\'s subject (first '
            'line) and body' % os.path.relpath(cover, TOP))

    fmt = '%an%x00%ae%x00%ad'
    name, email, date = run(['git', 'log', '-1', '--date=raw', '--format=' + fmt],
                            cwd=TOP).strip('\n').split('\0')
    env = {'PATH': os.environ['PATH'], 'HOME': out, 'LC_ALL': 'C',
           'TZ': 'UTC', 'GIT_CONFIG_NOSYSTEM': '1',
           'GIT_AUTHOR_NAME': name, 'GIT_AUTHOR_EMAIL': email,
           'GIT_AUTHOR_DATE': date, 'GIT_COMMITTER_NAME': name,
           'GIT_COMMITTER_EMAIL': email, 'GIT_COMMITTER_DATE': date}
    ident = {'name': name, 'email': email, 'env': env}

    pristine = os.path.join(out, 'pristine')
    stamp = os.path.join(out, 'pristine.stamp')
    tstat = '%d %d' % (os.stat(tarball).st_size, os.stat(tarball).st_mtime)
    if not os.path.exists(stamp) or open(stamp).read() != tstat:
        shutil.rmtree(pristine, ignore_errors=True)
        os.makedirs(pristine)
        run(['tar', '-C', pristine, '--strip-components=1', '-xf', tarball] +
            ['linux-source-6.1/' + p for p in BASE_PATHS] +
            ['linux-source-6.1/scripts/checkpatch.pl',
             'linux-source-6.1/scripts/spelling.txt',
             'linux-source-6.1/scripts/const_structs.checkpatch'])
        open(stamp, 'w').write(tstat)

    work = os.path.join(out, 'git')
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    for p in BASE_PATHS:
        src = os.path.join(pristine, p)
        dst = os.path.join(work, p)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if os.path.isdir(src):
            shutil.copytree(src, dst)
        else:
            shutil.copyfile(src, dst)
    run(['git', 'init', '-q', '-b', 'linux-6.1'], cwd=work, env=env)
    run(['git', 'add', '-A'], cwd=work, env=env)
    run(['git', 'commit', '-q', '-m', 'linux-source-6.1 (the files the series touches)'],
        cwd=work, env=env)
    base = run(['git', 'rev-parse', 'HEAD'], cwd=work, env=env).strip()

    build(Series(work, ident))

    pdir = os.path.join(out, 'patches')
    shutil.rmtree(pdir, ignore_errors=True)
    run(['git', 'format-patch', '-q', '--cover-letter', '--no-renames',
         '--no-signature', '-o', pdir, base + '..HEAD'],
        cwd=work, env=env)
    subject, _, body = open(cover).read().partition('\n')
    body = body.strip('\n') + '\n'
    cl = glob.glob(os.path.join(pdir, '0000-cover-letter.patch'))[0]
    t = open(cl).read()
    if '*** SUBJECT HERE ***' not in t or '*** BLURB HERE ***' not in t:
        die('unexpected cover letter template')
    t = t.replace('*** SUBJECT HERE ***', subject.strip())
    t = t.replace('*** BLURB HERE ***', body.rstrip('\n'))
    open(cl, 'w').write(t)
    for p in sorted(os.listdir(pdir)):
        print(os.path.join(os.path.relpath(pdir, TOP), p))


if __name__ == '__main__':
    main()
