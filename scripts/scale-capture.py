#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Captures with many conversations for the analysis' scale benchmark (bench-scale.sh).

    scale-capture.py PCAPGEN CONVS QPS_PER_PAIR FRAMES OUT.pcap

ornic-pcapgen makes one host pair's capture: QPS_PER_PAIR QP pairs between 10.0.0.1 and 10.0.0.2
(`--qps`), each carrying FRAMES / CONVS frames (one WRITE of 256-byte packets, one path, no loss:
a conversation that does not reorder, every request ACKed). This script then writes that capture
CONVS / QPS_PER_PAIR times over, each copy on its own host pair 10.H.L.1 <-> 10.H.L.2 (H.L = the
copy's number), the copies interleaved frame by frame (frame j of every copy, then frame j+1): the
conversations of all host pairs run at once, as on a fabric. Only the IPv4 addresses change; the
IPv4 header checksum and the iCRC (docs/PROTOCOL.md 2.6, python/ornicproto/icrc.py) are
recomputed, so every frame still checks. "16 QPs per host pair" and "4096 QPs per host pair" are
QPS_PER_PAIR 16 and 4096 (pcapgen's --qps is at most 4096). Prints the frames written."""
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from ornicproto.icrc import icrc, wire  # noqa: E402

ETH = 14


def base_capture(pcapgen, qps, frames_per_qp, path):
    """One host pair's capture: a WRITE of frames_per_qp / 2 packets per QP (each ACKed)."""
    pkts = max(1, frames_per_qp // 2)
    subprocess.run([pcapgen, "-q", "-o", path, "--qps", str(qps), "--wqes", "1",
                    "--wqe-size", str(pkts * 256), "--pmtu", "256", "--loss", "0",
                    "--paths", "1"], check=True)


def read_pcap(path):
    with open(path, "rb") as f:
        data = f.read()
    head, pos, recs = data[:24], 24, []
    endian = "<" if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    while pos + 16 <= len(data):
        incl = struct.unpack_from(endian + "I", data, pos + 8)[0]
        recs.append((data[pos:pos + 16], data[pos + 16:pos + 16 + incl]))
        pos += 16 + incl
    return head, recs


def ipv4_checksum(hdr):
    s = sum(struct.unpack("!%dH" % (len(hdr) // 2), hdr))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def rewrite(frame, copy):
    """frame with both IPv4 addresses' middle bytes set to the copy's number."""
    m = bytearray(frame)
    ihl = (m[ETH] & 0x0F) * 4
    for off in (ETH + 12, ETH + 16):
        m[off + 1], m[off + 2] = copy >> 8, copy & 0xFF
    m[ETH + 10:ETH + 12] = b"\0\0"
    m[ETH + 10:ETH + 12] = struct.pack("!H", ipv4_checksum(bytes(m[ETH:ETH + ihl])))
    m[-4:] = wire(icrc(bytes(m[ETH:])))
    return bytes(m)


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    pcapgen, convs, qps, frames, out = sys.argv[1], *map(int, sys.argv[2:5]), sys.argv[5]
    if convs % qps or convs // qps > 65536:
        sys.exit("CONVS must be a multiple of QPS_PER_PAIR, at most 65536 host pairs")
    pairs = convs // qps
    with tempfile.TemporaryDirectory() as tmp:
        base = os.path.join(tmp, "base.pcap")
        base_capture(pcapgen, qps, frames // convs, base)
        head, recs = read_pcap(base)
    n = 0
    with open(out, "wb") as f:
        f.write(head)
        for rec_head, frame in recs:
            if pairs == 1:
                f.write(rec_head + frame)
                n += 1
                continue
            for copy in range(pairs):
                f.write(rec_head + rewrite(frame, copy))
                n += 1
    print(n)


if __name__ == "__main__":
    main()
