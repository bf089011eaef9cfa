#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ornic-decode's time of an ERF record is its ERF header's (issue 30 item 1).

An ERF record (LINKTYPE_ERF, Endace DAG cards, ibdump) carries a 64-bit fixed-point timestamp: seconds
in the upper 32 bits, a binary fraction of a second (units of 2^-32 s, about 233 ps) in the lower.
Wireshark shows that time, in nanoseconds rounded to the nearest (wiretap/pcap-common.c); the pcap
record header's time (often microseconds) is not what a DAG card stamped. ornic-decode printed the
record header's time, so sub-microsecond ERF times lost their nanoseconds.

That is what tshark 4.0 does for a classic pcap; in pcapng it shows the Enhanced Packet Block's time
(whose resolution the interface gives), and so does ornic-decode.

The capture: ERF records of type ETH (2), each holding a RoCEv2 frame or an ARP frame, in a
microsecond pcap whose record times are the ERF times cut to the microsecond (as a converter writes
them), in a nanosecond pcap, and in pcapng; ERF fractions chosen at the edges of the rounding: 0,
exact halves of a nanosecond (bit 31 of fraction * 10^9 set), just below, 2^32 - 1 (rounds up into
the next second), random ones. One record is cut inside its ERF header: it keeps the record's time.

Oracle: stock tshark's frame.time_epoch of every frame, against ornic-decode -v's time column, through
both of ornic-decode's readers (its own, and libpcap: ORNIC_DECODE_READER=libpcap).
Exit 0 pass, 1 fail, 77 without tshark (a failure under CI=true).
Usage: erf_time.py ORNIC-DECODE WORKDIR
"""
import os
import random
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from e2e_common import tshark_fields  # noqa: E402
from test_native_ib import rocev2_frame  # noqa: E402

DEC, WORK = sys.argv[1], sys.argv[2]
LINKTYPE_ERF, ERF_TYPE_ETH = 197, 2
fails = []


def erf_eth(ts, frame):
    """An ERF ETH record: the 16-byte header (little-endian timestamp), 2 bytes offset/pad, the frame,
    padded to 8 bytes."""
    body = b"\0\0" + frame
    rlen = 16 + len(body)
    rlen += -rlen % 8
    rec = struct.pack("<Q", ts) + bytes([ERF_TYPE_ETH, 0x04]) + struct.pack("!HHH", rlen, 0, len(frame)) + body
    return rec + b"\0" * (rlen - len(rec))


def arp():
    return b"\xff" * 6 + bytes([2, 0, 0, 0, 0, 1]) + b"\x08\x06" + bytes(28)


def wireshark_ns(ts):
    """What the ERF time reads as in nanoseconds, written from the 32.32 definition: the nearest
    nanosecond, a half rounded up (the test's own arithmetic, exact in Python's integers)."""
    frac = ts & 0xFFFFFFFF
    ns = (frac * 10**9 + 2**31) >> 32
    return (ts >> 32) * 10**9 + ns


def fractions():
    rnd = random.Random(30)
    # frac * 10^9 / 2^32 has a remainder of exactly 2^31 (half a nanosecond) when frac is an odd
    # multiple of 2^31 / gcd(10^9, 2^32) = 2^31 / 2^9 = 2^22: the rounding's tie.
    edge = [0, 1, 2**22, 3 * 2**22, 2**22 - 1, 2**22 + 1, 2**31, 2**32 - 1, 2**32 - 2, 4294967, 4294968]
    return edge + [rnd.getrandbits(32) for _ in range(40)]


def records():
    """(pcap seconds, pcap nanoseconds, record bytes) per frame."""
    out = []
    for i, frac in enumerate(fractions()):
        ts = (1700000000 + i) << 32 | frac
        frame = rocev2_frame(i) if i % 3 else arp()
        ns = wireshark_ns(ts)
        usec_ns = ns % 10**9 // 1000 * 1000  # the record header: microseconds, as a converter keeps them
        out.append((ns // 10**9, usec_ns, erf_eth(ts, frame)))
    # cut inside its ERF header: no ERF time, the record's (tshark refuses such a record: left last)
    out.append((1800000000, 123456000, erf_eth(1, rocev2_frame(99))[:10]))
    return out


def write_pcap(path, recs, nsec):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B23C4D if nsec else 0xA1B2C3D4, 2, 4, 0, 0, 65535, LINKTYPE_ERF))
        for sec, ns, data in recs:
            f.write(struct.pack("<IIII", sec, ns if nsec else ns // 1000, len(data), len(data)) + data)


def block(btype, body):
    body += b"\0" * (-len(body) % 4)
    return struct.pack("<II", btype, 12 + len(body)) + body + struct.pack("<I", 12 + len(body))


def write_pcapng(path, recs):
    out = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    out += block(1, struct.pack("<HHI", LINKTYPE_ERF, 0, 0))  # microseconds
    for sec, ns, data in recs:
        t = sec * 10**6 + ns // 1000
        out += block(6, struct.pack("<IIIII", 0, t >> 32, t & 0xFFFFFFFF, len(data), len(data)) + data)
    with open(path, "wb") as f:
        f.write(out)


def ours(path, reader):
    env = dict(os.environ)
    if reader:
        env["ORNIC_DECODE_READER"] = reader
    r = subprocess.run([DEC, "-v", "--no-analysis", path], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        fails.append(f"{path} ({reader or 'own'} reader): exit {r.returncode}: {r.stderr.strip()[:200]}")
    return [line.split()[1] for line in r.stdout.splitlines()]


def main():
    os.makedirs(WORK, exist_ok=True)
    os.chmod(WORK, 0o755)  # tshark runs as nobody
    recs = records()
    want = [f"{wireshark_ns(struct.unpack_from('<Q', d)[0]) // 10**9}."
            f"{wireshark_ns(struct.unpack_from('<Q', d)[0]) % 10**9:09d}" for _, _, d in recs[:-1]]
    want.append(f"{recs[-1][0]}.{recs[-1][1]:09d}")
    # pcapng: the EPB's time (microseconds here), the ERF header's left alone, as tshark shows it
    want_ng = [f"{sec}.{ns:09d}" for sec, ns, _ in recs]
    have_tshark = True
    for name, write in (("usec.pcap", lambda p: write_pcap(p, recs, False)),
                        ("nsec.pcap", lambda p: write_pcap(p, recs, True)),
                        ("erf.pcapng", lambda p: write_pcapng(p, recs))):
        path = os.path.join(WORK, name)
        write(path)
        os.chmod(path, 0o644)
        # tshark: every whole record (the cut one, last, it refuses: the file is whole before it)
        whole = os.path.join(WORK, "whole-" + name)
        if name.endswith(".pcapng"):
            write_pcapng(whole, recs[:-1])
        else:
            write_pcap(whole, recs[:-1], name.startswith("nsec"))
        os.chmod(whole, 0o644)
        expect = want_ng if name.endswith(".pcapng") else want
        r = tshark_fields(whole, ["frame.time_epoch"])
        if r is None:
            have_tshark = False
        else:
            ts = r.stdout.split()
            if ts != expect[:-1]:
                bad = [(i + 1, a, b) for i, (a, b) in enumerate(zip(ts, expect)) if a != b][:3]
                fails.append(f"{name}: tshark's times are not the ones the test computed: {bad}"
                             f" ({len(ts)} frames)")
        for reader in (None, "libpcap"):
            got = ours(path, reader)
            if got != expect:
                bad = [(i + 1, a, b) for i, (a, b) in enumerate(zip(got, expect)) if a != b][:3]
                fails.append(f"{name} ({reader or 'own'} reader): {len(got)} times, first differences "
                             f"(frame, ornic-decode, tshark): {bad}")
            else:
                what = "the EPB's" if name.endswith(".pcapng") else "the ERF header's, in ns"
                print(f"ok: {name} ({reader or 'own'} reader): {len(got)} times as tshark's ({what})")
    if not have_tshark:
        if os.environ.get("CI") == "true":
            fails.append("tshark not installed (CI=true: a missing tool fails)")
        else:
            print("SKIP: tshark not installed")
            return 77
    for f in fails:
        print("FAIL:", f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
