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
# With "ird" it accepts a revision 2 request with an ORD of 16383, more
# than any initiator's IRD, and expects what RFC 6581 asks of an
# initiator that cannot take it: a TERMINATE FPDU (RFC 5040: queue 2,
# MSN 1, MO 0, layer LLP, type MPA, code 0x06 "insufficient IRD", no
# header attached; RFC 5044 framing, CRC word as zero), then the close.
#
# usage: mpa_peer.py ADDR PORT [v1|ird]

import socket
import struct
import sys

KEY_REQ = b"MPA ID Req Frame"
KEY_REP = b"MPA ID Rep Frame"
FLAG_M, FLAG_C, FLAG_H = 0x80, 0x40, 0x10
DDP_LAST_V1 = 0x41		# untagged, last segment, DDP version 1
RDMAP_SEND_V1 = 0x43		# RDMAP version 1, opcode SEND
RDMAP_TERM_V1 = 0x47		# RDMAP version 1, opcode TERMINATE
QN_TERMINATE = 2
TERM_INSUFF_IRD = 0x20060000	# layer LLP, type MPA, code 0x06; no M/D/R
IRD_ORD_MAX = 0x3fff
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


def unacceptable_ord(s, flags, rev):
    if rev != 2 or not flags & FLAG_H:
        print("no IRD/ORD word to answer", flush=True)
        return 1
    rep_pd = struct.pack(">HH", 1, IRD_ORD_MAX)
    s.sendall(KEY_REP + bytes([FLAG_H, 2]) + struct.pack(">H", len(rep_pd)) +
              rep_pd)
    print(f"sent a reply with ORD {IRD_ORD_MAX}", flush=True)
    try:
        f = recv_exact(s, 28)
    except (EOFError, ConnectionResetError) as e:
        print(f"no TERMINATE: {e}", flush=True)
        return 1
    ulen, ddp, rdmap, _rsvd, qn, msn, mo, term = struct.unpack(">HBBIIIII",
                                                                f[:24])
    print(f"got an FPDU: ulpdu {ulen} ddp {ddp:#x} rdmap {rdmap:#x} "
          f"qn {qn} msn {msn} mo {mo} terminate {term:#010x} "
          f"crc {f[24:].hex()}", flush=True)
    if (ulen, ddp, rdmap, qn, msn, mo, term) != (22, DDP_LAST_V1,
                                                 RDMAP_TERM_V1, QN_TERMINATE,
                                                 1, 0, TERM_INSUFF_IRD):
        print("not the TERMINATE expected", flush=True)
        return 1
    try:
        rest = s.recv(64)
    except ConnectionResetError:
        rest = b""
    s.close()
    if rest:
        print(f"more after the TERMINATE: {rest.hex()}", flush=True)
        return 1
    print("ok", flush=True)
    return 0


def main():
    addr, port = sys.argv[1], int(sys.argv[2])
    v1_only = sys.argv[3:] == ["v1"]
    ird = sys.argv[3:] == ["ird"]
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

    if ird:
        return unacceptable_ord(s, flags, rev)

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
