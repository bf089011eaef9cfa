#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Scapy writing RoCEv2 frames to a pcap, the way a hand-rolled generator would:
Ethernet / IPv4 / UDP 4791 / BTH (RC WRITE Middle) / 1 KiB payload / iCRC, one
frame object per packet, written by PcapWriter with nanosecond timestamps.
These frames have the size and layers of ornic-pcapgen's --bench Spot frames.

Usage: scapy_gen_bench.py N OUTPUT.pcap   -> prints "FRAMES_PER_S MB_PER_S"."""
import os
import sys
import time

from scapy.all import IP, UDP, Ether, PcapWriter, Raw
from scapy.contrib.roce import BTH


def main():
    n, out = int(sys.argv[1]), sys.argv[2]
    payload = bytes(range(256)) * 4
    w = PcapWriter(out, nano=True)
    t0 = time.perf_counter()
    for i in range(n):
        w.write(Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02") /
                IP(src="10.0.0.1", dst="10.0.0.2", tos=0x6A, flags="DF") /
                UDP(sport=0xC000 + i % 4, dport=4791, chksum=0) /
                BTH(opcode=7, dqpn=0x200, psn=i & 0xFFFFFF) / Raw(payload))
    w.close()
    dt = time.perf_counter() - t0
    print(f"{n / dt:.1f} {os.path.getsize(out) / dt / 1e6:.2f}")


if __name__ == "__main__":
    main()
