#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""decode_io_floor_counts: the decode floor (tools/ornic-bench/floor_main.c,
the reference scripts/bench-decode-io.sh measures ornic-decode against)
does the work it claims: on an ornic-pcapgen capture with losses, one frame
of it with a damaged payload, and the capture's forms of variants.py
(byte orders, pcapng layouts and sections, Simple and obsolete Packet
Blocks, 24-byte records), through read() and both mmap modes, it counts
the records, the RoCE frames, the good and bad iCRCs and each opcode as
`ornic-decode --stats --json` (the library's full decoder) counts them, and
its per-QP packet counts add up to the RoCE frames.

    floor_counts.py FLOOR DECODE PCAPGEN WORKDIR
"""
import json
import os
import re
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def floor_counts(floor, path, mode):
    args = [floor] + ([mode] if mode else []) + [path]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    head = dict(kv.split("=") for kv in out.splitlines()[0].split())
    ops = {int(m.group(1), 16): int(m.group(2)) for m in re.finditer(r"^opcode 0x(\w+) (\d+)$", out, re.M)}
    qp_sum = sum(int(m.group(1)) for m in re.finditer(r"^qp .* packets=(\d+) ", out, re.M))
    return {"records": int(head["records"]), "roce": int(head["roce"]), "icrc_ok": int(head["icrc_ok"]),
            "icrc_bad": int(head["icrc_bad"]), "opcodes": ops}, qp_sum


def decode_counts(decode, path):
    d = json.loads(subprocess.run([decode, "--stats", "--json", path], check=True, capture_output=True,
                                  text=True).stdout)
    return {"records": d["packets"]["total"], "roce": d["packets"]["roce"], "icrc_ok": d["icrc"]["ok"],
            "icrc_bad": d["icrc"]["bad"], "opcodes": {o["opcode"]: o["count"] for o in d["opcodes"]}}


def damage_one_payload(src, dst):
    """Copies a classic little-endian pcap, flipping a byte near the end of
    its 100th record (inside the payload, before the iCRC)."""
    data = bytearray(open(src, "rb").read())
    off = 24
    for _ in range(99):
        off += 16 + struct.unpack_from("<I", data, off + 8)[0]
    caplen = struct.unpack_from("<I", data, off + 8)[0]
    data[off + 16 + caplen - 8] ^= 0x5A
    open(dst, "wb").write(data)


def main():
    floor, decode, pcapgen, work = sys.argv[1:5]
    os.makedirs(work, exist_ok=True)
    base = os.path.join(work, "floor.pcap")
    subprocess.run([pcapgen, "-o", base, "-q", "--pmtu", "1024", "--qps", "4", "--wqes", "4", "--wqe-size",
                    "64K", "--loss", "0.01", "--seed", "7"], check=True, stdout=subprocess.DEVNULL)
    bad = os.path.join(work, "floor-bad.pcap")
    damage_one_payload(base, bad)
    forms = subprocess.run([sys.executable, os.path.join(HERE, "variants.py"), work, base], check=True,
                           capture_output=True, text=True).stdout.split()
    files = [base, bad] + [f for f in forms if not f.endswith(".gz") and ".snap" not in f]
    failures = 0
    for path in files:
        want = decode_counts(decode, path)
        for mode in ("", "--mmap", "--mmap-populate"):
            got, qp_sum = floor_counts(floor, path, mode)
            ok = got == want and qp_sum == got["roce"] and got["records"] > 1000
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {os.path.basename(path)} {mode or 'read()'}: {got['records']} "
                  f"records, {got['roce']} RoCE, iCRC {got['icrc_ok']} ok {got['icrc_bad']} bad, per-QP sum {qp_sum}")
            if not ok:
                print(f"     floor {got}\n     ornic-decode {want}")
    if decode_counts(decode, bad)["icrc_bad"] != 1:
        print("FAIL the damaged copy does not hold exactly one bad iCRC")
        failures += 1
    print(f"{len(files) * 3 - failures} of {len(files) * 3} runs agree")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
