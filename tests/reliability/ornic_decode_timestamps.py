#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ornic-decode's capture times after 2038 (docs/RELIABILITY.md).

    ornic_decode_timestamps.py DECODER TESTGEN WORKDIR

A pcap record's seconds are an unsigned 32-bit number (1970 to 2106);
libpcap hands them over through a signed 32-bit field, so from 2^31 on they
arrived negative (-2147483627.226451000 for 2147483669.226451). pcapng's are
64-bit. Captures with seconds 0, 2^31-1, 2^31, 2^31+21, 2^32-1 (pcap: micro-
and nanosecond, both byte orders; pcapng: also past 2106) must print the
same time in the text lines, the JSON "time" and the --stats time range as
the oracle: the seconds written, and tshark's frame.time_epoch when tshark
is installed.
"""
import json
import os
import struct
import subprocess
import sys
from decimal import Decimal

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from e2e_common import tshark_fields  # noqa: E402

DEC, GEN, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(WORK, exist_ok=True)
os.chmod(WORK, 0o755)  # tshark runs as nobody (it refuses to run as root)
fails = []

# (seconds, fraction in nanoseconds): the 2038 edge, the reported value, 2106
PCAP_TIMES = [(0, 0), (0x7FFFFFFF, 1000), (0x80000000, 226451000), (0x80000015, 226451000),
              (0xFFFFFFFF, 999999000)]
PCAPNG_TIMES = PCAP_TIMES + [(0x100000000, 5000), (0x2540BE3FF, 123456000)]  # 2106, year 2286


def one_frame():
    """A RoCE frame (record 2 of the decoder's test capture: RC WRITE FIRST)."""
    path = os.path.join(WORK, "cases.pcap")
    subprocess.run([GEN, "cases", path], check=True, stderr=subprocess.DEVNULL)
    d = open(path, "rb").read()
    off = 24 + 16 + struct.unpack("<I", d[24 + 8:24 + 12])[0]
    caplen = struct.unpack("<I", d[off + 8:off + 12])[0]
    return d[off + 16:off + 16 + caplen]


def write_pcap(path, frame, nano, endian):
    magic = 0xA1B23C4D if nano else 0xA1B2C3D4
    out = struct.pack(endian + "IHHiIII", magic, 2, 4, 0, 0, 65535, 1)
    for sec, ns in PCAP_TIMES:
        frac = ns if nano else ns // 1000
        out += struct.pack(endian + "IIII", sec, frac, len(frame), len(frame)) + frame
    open(path, "wb").write(out)
    return PCAP_TIMES


def block(btype, body):
    body += b"\0" * (-len(body) % 4)
    n = 12 + len(body)
    return struct.pack("<II", btype, n) + body + struct.pack("<I", n)


def write_pcapng(path, frame):
    """Microsecond resolution (no if_tsresol): 64-bit microseconds since 1970."""
    out = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    out += block(1, struct.pack("<HHI", 1, 0, 65535))
    for sec, ns in PCAPNG_TIMES:
        t = sec * 1000000 + ns // 1000
        out += block(6, struct.pack("<IIIII", 0, t >> 32, t & 0xFFFFFFFF, len(frame), len(frame)) + frame)
    open(path, "wb").write(out)
    return PCAPNG_TIMES


def decode(path, *args):
    r = subprocess.run([DEC, *args, path], capture_output=True, text=True)
    if r.returncode != 0:
        fails.append(f"{path} {args}: exit {r.returncode}: {r.stderr.strip()}")
    return r.stdout


def tshark_times(path):
    """frame.time_epoch per frame, or None without tshark."""
    r = tshark_fields(path, ["frame.time_epoch"])
    if r is None:
        print(f"note: no tshark, {path} not compared with it")
        return None
    if r.returncode != 0:
        fails.append(f"tshark on {path}: exit {r.returncode}: {r.stderr.strip()[:200]}")
        return None
    return [Decimal(x) for x in r.stdout.split()]


def eq(what, got, want):
    if got != want:
        fails.append(f"{what}: got {got}, want {want}")


def check(path, times):
    want = [Decimal(s) + Decimal(ns) / Decimal(10**9) for s, ns in times]
    text = [Decimal(line.split()[1]) for line in decode(path).splitlines()]
    eq(f"{path}: text times", text, want)
    js = [Decimal(json.loads(line)["time"]) for line in decode(path, "--json").splitlines()]
    eq(f"{path}: JSON times", js, want)
    summary = json.loads(decode(path, "--stats", "--json"))
    st = summary["time"]
    eq(f"{path}: --stats --json time range", [Decimal(st["first"]), Decimal(st["last"])],
       [want[0], want[-1]])
    # every frame is a request of one conversation: its duration spans them all
    # (in ns an int64 overflows past 292 years; the pcapng spans 316)
    d = summary["conversations"][0]["directions"]["a_to_b"]
    eq(f"{path}: --stats --json duration", Decimal(d["duration"]), want[-1] - want[0])
    rng = [l for l in decode(path, "--stats").splitlines() if l.startswith("time ")]
    eq(f"{path}: --stats time line", rng, [f"time      {want[0]:.9f} .. {want[-1]:.9f}"])
    ts = tshark_times(path)
    if ts is not None:
        eq(f"{path}: tshark frame.time_epoch", ts, want)
        if ts == want:
            print(f"tshark agrees on {os.path.basename(path)}")


def main():
    frame = one_frame()
    for nano in (False, True):
        for endian in ("<", ">"):
            name = f"ts_{'ns' if nano else 'us'}_{'le' if endian == '<' else 'be'}.pcap"
            path = os.path.join(WORK, name)
            check(path, write_pcap(path, frame, nano, endian))
    path = os.path.join(WORK, "ts.pcapng")
    check(path, write_pcapng(path, frame))
    for f in fails:
        print("FAIL:", f)
    print(f"ornic_decode_timestamps: {len(fails)} failures")
    return 1 if fails else 0


sys.exit(main())
