#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Differential campaign: libornicproto (ornic-decode --json) against Scapy's scapy.contrib.roce (Debian's
python3-scapy) on mutated RoCEv2 frames (issue 32, docs/FUZZING.md "Differential campaigns").

    scripts/diff-scapy.py --bin build/bin --frames 100000 [--seed 1] [--batch 20000] [--work DIR]
                          [--repro DIR] [--known FILE]

The batches are scripts/diff-wireshark.py's (scripts/lib/diff_campaign.py: the same seeds and mutations for
the same --seed and --batch). Per frame: Scapy dissects BTH at all (its UDP 4791 binding), opcode, PSN,
destination QP, PadCnt, the AETH's syndrome and MSN where Scapy binds an AETH (RC and RD Acknowledge), and the
iCRC verdict: Scapy's `BTH.compute_icrc` (IPv4 only) against the frame's last 4 bytes, beside ours
(`icrc.ok`); ornic-mutate breaks the iCRC of --icrc-break of the frames (default 0.3) so both verdicts
occur. --known FILE (one class a line): exit 1 if another class shows up (CTest `diff_scapy`). Exit 77 without Scapy."""
import argparse
import os
import re
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from diff_campaign import Campaign, Tally, check_known, read_pcap, write_repro  # noqa: E402

try:
    from scapy.layers.l2 import Ether
    from scapy.layers.inet import IP
    from scapy.contrib.roce import BTH, AETH
    import scapy.config
    scapy.config.conf.logLevel = 40  # compute_icrc warns per non-IPv4 frame; the class says it
except ImportError:
    Ether = None


def compare(o, frame):
    p = Ether(frame)
    ob = o.get("bth")
    sb = p.getlayer(BTH)
    if (ob is not None) != (sb is not None):
        return [f"bth: ours {'yes' if ob else 'no'}, scapy {'yes' if sb else 'no'}"]
    if ob is None:
        return []
    diffs = [name for name, a, b in (("opcode", ob["opcode"], sb.opcode), ("psn", ob["psn"], sb.psn),
                                     ("destqp", ob["destqp"], sb.dqpn), ("padcnt", ob["padcnt"], sb.padcount))
             if a != b]
    sa, oa = p.getlayer(AETH), o.get("aeth")
    if sa is not None and oa is not None and (sa.syndrome, sa.msn) != (oa["syndrome"], oa["msn"]):
        diffs.append("aeth")
    if sa is not None and oa is None:
        diffs.append("aeth: scapy only")
    icrc = o.get("icrc")
    if p.getlayer(IP) is not None and icrc is not None:
        scapy_ok = sb.compute_icrc(b"") == frame[-4:]
        if scapy_ok != icrc["ok"]:
            diffs.append(f"icrc: ours {'ok' if icrc['ok'] else 'bad'}, scapy {'ok' if scapy_ok else 'bad'}")
    return diffs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--frames", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--batch", type=int, default=20000)
    ap.add_argument("--work")
    ap.add_argument("--repro")
    ap.add_argument("--icrc-break", type=float, default=0.3, help="ornic-mutate --icrc break=P (default 0.3)")
    ap.add_argument("--known", help="file of the known classes, one a line (# comments)")
    a = ap.parse_args()
    if Ether is None:
        print("SKIP: scapy.contrib.roce not importable")
        return 77
    work = a.work or tempfile.mkdtemp(prefix="ornic-diff-scapy-")
    # A share of wrong iCRCs, so that both verdicts are compared.
    c = Campaign(a.bin, work, a.seed, a.batch, ["--icrc", f"break={a.icrc_break}"])
    c.make_seeds()
    tally, t0, index, saved, icrc_bad = Tally(), time.monotonic(), 0, set(), 0
    while tally.frames < a.frames:
        name, path, log, _ = c.mutate(index)
        recs = read_pcap(path)[2]
        for o in c.ours(path):
            if tally.frames >= a.frames:
                break
            n = o["frame"]
            if o.get("icrc"):
                icrc_bad += not o["icrc"]["ok"]
            tally.add(compare(o, recs[n - 1][1]), {"batch": index, "frame": n, "profile": name, "log": log[n - 1]})
        if a.repro:
            os.makedirs(a.repro, exist_ok=True)
            for k, cl in tally.classes.items():
                frames = [e["frame"] for e in cl["examples"] if e["batch"] == index]
                if k not in saved and frames:
                    slug = re.sub(r"[^a-z0-9]+", "-", k.lower()).strip("-")[:100]
                    write_repro(os.path.join(a.repro, f"scapy-{slug}.pcap"), path, frames)
                    saved.add(k)
        index += 1
    print(tally.table(f"Scapy {scapy.config.conf.version}, seed {a.seed}, {index} batches", time.monotonic() - t0))
    print(f"\n{icrc_bad} frames with a wrong iCRC by ours, each checked against Scapy's")
    if a.known:
        return check_known(tally, a.known)
    return 0


if __name__ == "__main__":
    sys.exit(main())
