#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Make a runnable copy of rdma-core's pyverbs tests for soft devices.

Debian ships the tests partly gzipped under /usr/share/doc/rdma-core/tests.
This copies them to DEST, gunzips the .gz files and patches the copy's
base.py: rdma-core v44 finds a device's netdev only through
/sys/class/infiniband/<dev>/device/net/, which rxe and siw (no parent
device) lack, so every rdmacm test is skipped with "Device rxe0 doesn't
have net interface".  rdma-core v47 (c6696389b, a7e2b08d0) falls back to
the `netdev` field of `rdma -j link show <dev>/<port>`; the patch appended
to base.py does the same by replacing RDMATestCase._get_ip_mac and
get_net_name after the class is defined.  Nothing is skipped or removed.

usage: prepare.py [--src DIR] DEST [--check NAME...] [--self-test]
  --check NAME...  run `run_tests.py --list-tests` in DEST and verify each
                   tests.test_rdmacm.CMTestCase.NAME is listed
  --self-test      exercise the patched lookup with a fake `rdma` that
                   reports netdev "lo" (needs `ip` and a loopback address)
Exit status 0 on success; the reason for a failure is on stderr.
"""

import argparse
import gzip
import os
import shutil
import subprocess
import sys
import tempfile

PY = '/usr/bin/python3'
SRC = '/usr/share/doc/rdma-core/tests'
MARKER = '# --- rdma_cm selftests: netdev lookup through rdma link (v47) ---'

PATCH = MARKER + r'''
# Appended by the rdma_cm selftests (pyverbs preparation).
# Backport of rdma-core v47: a device without /sys/class/infiniband/<dev>/
# device/net (rxe, siw) gets its netdev from `rdma -j link show dev/port`.


def _rdmacm_st_link_netdev(dev, port):
    """Return the netdev of RDMA port dev/port, or None."""
    cmd = ['rdma', '-j', 'link', 'show', '{}/{}'.format(dev, port)]
    try:
        out = subprocess.check_output(cmd, stderr=subprocess.DEVNULL)
        links = json.loads(out.decode())
    except (OSError, ValueError, subprocess.CalledProcessError):
        return None
    if not isinstance(links, list):
        return None
    for link in links:
        if not isinstance(link, dict):
            continue
        if link.get('ifname') != dev or str(link.get('port')) != str(port):
            continue
        if link.get('netdev'):
            return link['netdev']
    return None


def _rdmacm_st_has_sysfs_net(dev):
    return os.path.exists('/sys/class/infiniband/{}/device/net/'.format(dev))


_rdmacm_st_orig_get_ip_mac = RDMATestCase._get_ip_mac
_rdmacm_st_orig_get_net_name = RDMATestCase.get_net_name


def _rdmacm_st_get_ip_mac(self, dev, port, idx):
    if _rdmacm_st_has_sysfs_net(dev):
        return _rdmacm_st_orig_get_ip_mac(self, dev, port, idx)
    net_name = _rdmacm_st_link_netdev(dev, port)
    if not net_name:
        self.args.append([dev, port, idx, None, None])
        return
    try:
        ip_addr, mac_addr = self.get_ip_mac_address(net_name)
    except (KeyError, IndexError, ValueError, subprocess.CalledProcessError):
        self.args.append([dev, port, idx, None, None])
    else:
        self.args.append([dev, port, idx, ip_addr, mac_addr])


def _rdmacm_st_get_net_name(dev, port=1):
    if _rdmacm_st_has_sysfs_net(dev):
        return _rdmacm_st_orig_get_net_name(dev)
    return _rdmacm_st_link_netdev(dev, port) or ''


RDMATestCase._get_ip_mac = _rdmacm_st_get_ip_mac
RDMATestCase.get_net_name = staticmethod(_rdmacm_st_get_net_name)
'''

# What the patch relies on in v44's base.py.
REQUIRED = ('import subprocess', 'import json', 'import os',
            'class RDMATestCase(', 'def _get_ip_mac(self, dev, port, idx)',
            'def get_net_name(dev)', 'def get_ip_mac_address(ifname)')


def die(msg):
    print('prepare.py: ' + msg, file=sys.stderr)
    sys.exit(1)


def copy_tests(src, dest):
    if not os.path.isfile(os.path.join(src, 'run_tests.py')):
        die('no run_tests.py in ' + src)
    if os.path.exists(dest):
        shutil.rmtree(dest)
    shutil.copytree(src, dest)
    for root, _, files in os.walk(dest):
        for name in files:
            if not name.endswith('.gz'):
                continue
            gz = os.path.join(root, name)
            plain = gz[:-3]
            with gzip.open(gz, 'rb') as fin, open(plain, 'wb') as fout:
                shutil.copyfileobj(fin, fout)
            os.unlink(gz)


def patch_base(dest):
    path = os.path.join(dest, 'base.py')
    with open(path, encoding='utf-8') as f:
        text = f.read()
    if MARKER in text:
        return
    missing = [s for s in REQUIRED if s not in text]
    if missing:
        die('base.py does not look like rdma-core v44, missing: ' +
            ', '.join(repr(s) for s in missing))
    if not text.endswith('\n'):
        text += '\n'
    with open(path, 'w', encoding='utf-8') as f:
        f.write(text + '\n\n' + PATCH)


def check_list(dest, names):
    res = subprocess.run([PY, 'run_tests.py', '--list-tests'], cwd=dest,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         check=False)
    out = res.stdout.decode(errors='replace')
    listed = set(out.split())
    missing = [n for n in names
               if 'tests.test_rdmacm.CMTestCase.' + n not in listed]
    if res.returncode != 0 or missing:
        sys.stderr.write(out[-3000:])
        die('--list-tests rc {}, missing: {}'.format(res.returncode,
                                                     ' '.join(missing)))


SELF_TEST = r'''
import os, sys
from importlib.machinery import SourceFileLoader
sys.path.insert(0, os.getcwd())
from args_parser import parser
sys.argv[1:] = []
parser.parse_args()
init = os.path.join(os.getcwd(), '__init__.py')
tests = SourceFileLoader('tests', init).load_module()
base = sys.modules['tests.base']
cls = base.RDMATestCase
assert cls._get_ip_mac.__name__ == '_rdmacm_st_get_ip_mac', cls._get_ip_mac
assert cls.get_net_name('fakedev0') == 'lo', cls.get_net_name('fakedev0')
class Fake:
    get_ip_mac_address = staticmethod(cls.get_ip_mac_address)
    args = []
cls._get_ip_mac(Fake, 'fakedev0', 1, 3)
cls._get_ip_mac(Fake, 'nodev0', 1, 4)
print(Fake.args)
assert Fake.args[0][:4] == ['fakedev0', 1, 3, '127.0.0.1'], Fake.args
assert Fake.args[1] == ['nodev0', 1, 4, None, None], Fake.args
print('self-test ok')
'''

FAKE_RDMA = '''#!/bin/sh
# fake rdma: only fakedev0/1 exists, its netdev is lo
[ "$1" = -j ] && [ "$2" = link ] && [ "$3" = show ] || exit 1
case "$4" in
fakedev0/1) echo '[{"ifindex":7,"ifname":"fakedev0","port":1,''' \
    '''"state":"ACTIVE","physical_state":"LINK_UP","netdev":"lo",''' \
    '''"netdev_index":1}]' ;;
*) echo "error: no device $4" >&2; exit 1 ;;
esac
'''


def self_test(dest):
    with tempfile.TemporaryDirectory() as tmp:
        fake = os.path.join(tmp, 'rdma')
        with open(fake, 'w', encoding='utf-8') as f:
            f.write(FAKE_RDMA)
        os.chmod(fake, 0o755)
        env = dict(os.environ)
        env['PATH'] = tmp + ':/usr/sbin:/usr/bin:/sbin:/bin'
        res = subprocess.run([PY, '-c', SELF_TEST], cwd=dest, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             check=False)
        out = res.stdout.decode(errors='replace')
        sys.stdout.write(out)
        if res.returncode != 0:
            die('self-test failed')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--src', default=SRC)
    ap.add_argument('dest')
    ap.add_argument('--check', nargs='*', metavar='NAME')
    ap.add_argument('--self-test', action='store_true')
    args = ap.parse_args()
    copy_tests(args.src, args.dest)
    patch_base(args.dest)
    if args.check is not None:
        check_list(args.dest, args.check)
    if args.self_test:
        self_test(args.dest)


if __name__ == '__main__':
    main()
