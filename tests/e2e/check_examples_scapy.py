#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Checks the worked examples of docs/PROTOCOL.md against Scapy and an independent iCRC.

For every ```hex name=...``` block in the document:
  * the hex lines are well formed (offset column = running byte count, 16 bytes a line);
  * Scapy parses the bytes as Ether / [Dot1Q] / IP|IPv6 / UDP / BTH;
  * the iCRC in the frame equals the iCRC recomputed
      - for IPv4 by Scapy's BTH.compute_icrc (scapy.contrib.roce) and by the
        independent implementation below (both must agree),
      - for IPv6 by the independent implementation only (Scapy 2.5 in Debian
        has no IPv6 iCRC);
  * the "iCRC wire bytes: `..`" line after the block states the same 4 bytes;
  * the IPv4 header checksum, or the IPv6 UDP checksum, is correct.
If docs/examples.txt exists, the text between the EXAMPLES markers of the
document must equal it (the generator's output).

Prints one line per check and "N passed, N failed"; exits 1 if any failed.
Usage: check_examples_scapy.py [--doc PATH] [--examples PATH]
"""
import argparse
import logging
import os
import re
import struct
import sys
import zlib

logging.getLogger("scapy").setLevel(logging.ERROR)
from scapy.all import Ether, IP, IPv6, UDP, Dot1Q, raw  # noqa: E402
from scapy.contrib.roce import BTH  # noqa: E402,F401  (binds UDP dport 4791 -> BTH)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BEGIN, END = "<!-- EXAMPLES:BEGIN -->", "<!-- EXAMPLES:END -->"


def parse_blocks(text):
    """Yields (name, bytes, stated_icrc or None, problems) for every hex block."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^```hex name=(\S+)\s*$", lines[i])
        if not m:
            i += 1
            continue
        name, data, problems = m.group(1), bytearray(), []
        i += 1
        while i < len(lines) and lines[i].strip() != "```":
            toks = lines[i].split()
            if toks:
                if not re.fullmatch(r"[0-9a-f]{4}", toks[0]) or int(toks[0], 16) != len(data):
                    problems.append("offset column %r, expected %04x" % (toks[0], len(data)))
                body = toks[1:]
                if len(body) > 16 or (len(body) < 16 and i + 1 < len(lines) and lines[i + 1].strip() != "```"):
                    problems.append("line %r does not hold 16 bytes" % toks[0])
                for t in body:
                    if not re.fullmatch(r"[0-9a-f]{2}", t):
                        problems.append("bad byte %r" % t)
                    else:
                        data.append(int(t, 16))
            i += 1
        stated = None
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        if j < len(lines):
            m2 = re.match(r"^iCRC wire bytes: `([0-9a-f]{2}(?: [0-9a-f]{2}){3})`", lines[j])
            if m2:
                stated = bytes(int(x, 16) for x in m2.group(1).split())
        if stated is None:
            problems.append("no 'iCRC wire bytes: `xx xx xx xx`' line after the block")
        yield name, bytes(data), stated, problems
        i += 1


def l3_offset(frame):
    """Offset of the IP header: Ethernet II with at most one 802.1Q/802.1ad tag."""
    etype = struct.unpack("!H", frame[12:14])[0]
    off = 14
    if etype in (0x8100, 0x88A8):
        etype = struct.unpack("!H", frame[16:18])[0]
        off = 18
    return etype, off


def icrc_independent(frame):
    """iCRC per docs/PROTOCOL.md section 2.6, from the raw bytes. Returns (wire bytes in frame, computed)."""
    etype, off = l3_offset(frame)
    if etype == 0x0800:
        ihl = (frame[off] & 0x0F) * 4
        total = struct.unpack("!H", frame[off + 2:off + 4])[0]
        pkt = bytearray(frame[off:off + total])
        pkt[1] = 0xFF                       # TOS
        pkt[8] = 0xFF                       # TTL
        pkt[10:12] = b"\xff\xff"            # header checksum
        udp = ihl
    elif etype == 0x86DD:
        total = 40 + struct.unpack("!H", frame[off + 4:off + 6])[0]
        pkt = bytearray(frame[off:off + total])
        pkt[0] |= 0x0F                      # traffic class, high nibble
        pkt[1:4] = b"\xff\xff\xff"          # traffic class low nibble, flow label
        pkt[7] = 0xFF                       # hop limit
        udp = 40
    else:
        raise ValueError("EtherType 0x%04x is not IPv4/IPv6" % etype)
    pkt[udp + 6:udp + 8] = b"\xff\xff"      # UDP checksum
    pkt[udp + 8 + 4] = 0xFF                 # BTH byte 4: FECN, BECN, resv6
    crc = zlib.crc32(b"\xff" * 8)
    crc = zlib.crc32(bytes(pkt[:-4]), crc)
    return bytes(frame[off + total - 4:off + total]), struct.pack("<I", crc)


def inet_csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def check_l3_checksums(frame):
    etype, off = l3_offset(frame)
    if etype == 0x0800:
        ihl = (frame[off] & 0x0F) * 4
        if inet_csum(bytes(frame[off:off + ihl])) != 0:
            return "IPv4 header checksum is wrong"
        return None
    plen = struct.unpack("!H", frame[off + 4:off + 6])[0]
    udp = bytes(frame[off + 40:off + 40 + plen])
    pseudo = frame[off + 8:off + 40] + struct.pack("!IxxxB", plen, 17)
    if udp[6:8] == b"\0\0":
        return "IPv6 UDP checksum is 0"
    if inet_csum(bytes(pseudo) + udp) != 0:
        return "IPv6 UDP checksum is wrong"
    return None


def check_one(name, frame, stated, problems):
    if problems:
        return problems
    errs = []
    pkt = Ether(frame)
    if BTH not in pkt or UDP not in pkt or (IP not in pkt and IPv6 not in pkt):
        return ["Scapy does not see Ether/IP|IPv6/UDP/BTH: %s" % pkt.summary()]
    wire, mine = icrc_independent(frame)
    if mine != wire:
        errs.append("iCRC in frame %s, independent computation %s" % (wire.hex(" "), mine.hex(" ")))
    if IP in pkt:
        bth = pkt[BTH]
        theirs = bth.compute_icrc(raw(bth))
        if theirs != wire:
            errs.append("iCRC in frame %s, Scapy computes %s" % (wire.hex(" "), theirs.hex(" ")))
    if stated != wire:
        errs.append("stated iCRC %s, frame has %s" % (stated.hex(" "), wire.hex(" ")))
    err = check_l3_checksums(frame)
    if err:
        errs.append(err)
    return errs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--doc", default=os.path.join(ROOT, "docs", "PROTOCOL.md"))
    ap.add_argument("--examples", default=os.path.join(ROOT, "docs", "examples.txt"))
    args = ap.parse_args()
    text = open(args.doc, encoding="utf-8").read()
    passed = failed = 0
    for name, frame, stated, problems in parse_blocks(text):
        try:
            errs = check_one(name, frame, stated, problems)
        except Exception as e:  # a frame Scapy or the parser chokes on is a failure, not a crash
            errs = ["%s: %s" % (type(e).__name__, e)]
        ipver = "IPv6" if l3_offset(frame)[0] == 0x86DD else "IPv4" if len(frame) > 14 else "?"
        if errs:
            failed += 1
            print("FAIL %s (%s, %d bytes): %s" % (name, ipver, len(frame), "; ".join(errs)))
        else:
            passed += 1
            print("ok   %s (%s, %d bytes, iCRC %s)" % (name, ipver, len(frame), stated.hex(" ")))
    if passed + failed == 0:
        failed += 1
        print("FAIL no ```hex name=...``` block in %s" % args.doc)
    if os.path.exists(args.examples):
        gen = open(args.examples, encoding="utf-8").read()
        if BEGIN in text and END in text:
            section = text.split(BEGIN, 1)[1].split(END, 1)[0]
            same = section.strip("\n") == gen.strip("\n")
        else:
            same = False
        if same:
            passed += 1
            print("ok   section 6 equals %s" % os.path.relpath(args.examples, ROOT))
        else:
            failed += 1
            print("FAIL section 6 (between %s and %s) differs from %s" % (BEGIN, END, args.examples))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
