#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# A bare MPA responder on a TCP socket (RFC 5044 framing, RFC 5041/5040
# untagged SEND), to show that an initiator takes an FPDU that arrives
# in the same segment as the MPA reply: the reply and a 100-byte SEND
# go out in one write, then the initiator's SEND (ucmatose's reply:
# queue 0, MSN 1, 100 bytes) must come back, and the stream is closed.
# Neither end asks for CRC or markers (the CRC word is sent as zero and
# not checked).  Prints one line per step; exits 0 only if all went.
# With "v1" it plays a peer that speaks only MPA revision 1 and, as RFC
# 5044 lets it, closes the stream on a request of another revision.
#
# usage: mpa_peer.py ADDR PORT [v1]

import socket
import struct
import sys

KEY_REQ = b"MPA ID Req Frame"
KEY_REP = b"MPA ID Rep Frame"
FLAG_M, FLAG_C, FLAG_H = 0x80, 0x40, 0x10
DDP_LAST_V1 = 0x41		# untagged, last segment, DDP version 1
RDMAP_SEND_V1 = 0x43		# RDMAP version 1, opcode SEND
DDP_UNTAGGED_HDR = 18		# the two control bytes, STag, QN, MSN, MO
SIZE = 100			# ucmatose's default message size


def recv_exact(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise EOFError(f"end of stream after {len(buf)} of {n} bytes")
        buf += chunk
    return buf


def fpdu_send(msn, payload):
    ulpdu = struct.pack(">BBIIII", DDP_LAST_V1, RDMAP_SEND_V1, 0, 0, msn, 0)
    ulpdu += payload
    pad = -(2 + len(ulpdu)) % 4
    return struct.pack(">H", len(ulpdu)) + ulpdu + bytes(pad) + bytes(4)


def main():
    addr, port = sys.argv[1], int(sys.argv[2])
    v1_only = sys.argv[3:] == ["v1"]
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((addr, port))
    ls.listen(1)
    print("listening", flush=True)
    ls.settimeout(120)
    s, peer = ls.accept()
    s.settimeout(60)

    hdr = recv_exact(s, 20)
    key, flags, rev = hdr[:16], hdr[16], hdr[17]
    pd_len = struct.unpack(">H", hdr[18:])[0]
    pdata = recv_exact(s, pd_len)
    print(f"request from {peer[0]}: flags {flags:#x} revision {rev} "
          f"private data {pdata.hex()}", flush=True)
    if key != KEY_REQ or flags & (FLAG_M | FLAG_C):
        print("not a request this responder takes", flush=True)
        return 1
    if v1_only and rev != 1:
        s.close()
        print(f"closed: revision {rev} is not 1", flush=True)
        return 1

    # Revision 2 (enhanced): IRD and ORD words, no peer-to-peer.
    rep_pd = struct.pack(">HH", 1, 1) if flags & FLAG_H else b""
    reply = KEY_REP + bytes([flags & FLAG_H, rev])
    reply += struct.pack(">H", len(rep_pd)) + rep_pd
    s.sendall(reply + fpdu_send(1, bytes([0x5a]) * SIZE))
    print("sent the reply and a SEND in one write", flush=True)

    f = recv_exact(s, 2 + DDP_UNTAGGED_HDR)
    ulen, ddp, rdmap, _stag, qn, msn, mo = struct.unpack(">HBBIIII", f)
    recv_exact(s, ulen - DDP_UNTAGGED_HDR + (-(2 + ulen) % 4) + 4)
    print(f"got an FPDU: ulpdu {ulen} ddp {ddp:#x} rdmap {rdmap:#x} "
          f"qn {qn} msn {msn} mo {mo}", flush=True)
    s.close()
    if (ddp, rdmap, qn, msn, mo, ulen) != (DDP_LAST_V1, RDMAP_SEND_V1, 0, 1, 0,
                                           DDP_UNTAGGED_HDR + SIZE):
        print("not the SEND expected", flush=True)
        return 1
    print("ok", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
