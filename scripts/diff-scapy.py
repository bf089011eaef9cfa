#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Differential campaign: libornicproto (ornic-decode --json) against Scapy's scapy.contrib.roce (Debian's
python3-scapy) on mutated RoCEv2 frames (issue 32, docs/FUZZING.md "Differential campaigns").

    scripts/diff-scapy.py --bin build/bin --frames 100000 [--seed 1] [--batch 20000] [--work DIR]
                          [--repro DIR] [--known FILE] [--ipv6]

The batches are scripts/diff-wireshark.py's (scripts/lib/diff_campaign.py: the same seeds and mutations for
the same --seed and --batch). Per frame: Scapy dissects BTH at all (its UDP 4791 binding), opcode, PSN,
destination QP, PadCnt, the AETH's syndrome and MSN where Scapy binds an AETH (RC and RD Acknowledge), and the
iCRC verdict: Scapy's `BTH.compute_icrc` against the frame's last 4 bytes, beside ours (`icrc.ok`);
ornic-mutate breaks the iCRC of --icrc-break of the frames (default 0.3) so both verdicts occur. --ipv6
adds the seeds over IPv6 (scripts/lib/diff_campaign.py); Scapy computes the iCRC over IPv6 from 2.6 on
(Debian 13's 2.6.1; 2.5.0's compute_icrc returns 0 there), so the IPv6 verdict is compared only when a
probe frame shows this Scapy computes one, and the title says so. --known FILE (one class a line): exit 1
if another class shows up (CTest `diff_scapy`). Exit 77 without Scapy."""
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
    from scapy.layers.inet import IP, UDP
    from scapy.layers.inet6 import IPv6
    from scapy.contrib.roce import BTH, AETH
    import scapy.config
    scapy.config.conf.logLevel = 40  # compute_icrc warns per non-IPv4 frame; the class says it
except ImportError:
    Ether = None


def icrc_ipv6_supported():
    """Whether this Scapy's compute_icrc covers IPv6: on an IPv6 frame 2.5.0 returns the iCRC 0."""
    probe = Ether(bytes(Ether() / IPv6() / UDP(dport=4791) / BTH()))
    return probe[BTH].compute_icrc(b"") != b"\0\0\0\0"


def compare(o, frame, ipv6_icrc=False):
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
    if (p.getlayer(IP) is not None or (ipv6_icrc and p.getlayer(IPv6) is not None)) and icrc is not None:
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
    ap.add_argument("--ipv6", action="store_true", help="seeds over IPv6 too (after the IPv4 ones)")
    a = ap.parse_args()
    if Ether is None:
        print("SKIP: scapy.contrib.roce not importable")
        return 77
    work = a.work or tempfile.mkdtemp(prefix="ornic-diff-scapy-")
    # A share of wrong iCRCs, so that both verdicts are compared.
    c = Campaign(a.bin, work, a.seed, a.batch, ["--icrc", f"break={a.icrc_break}"], ipv6=a.ipv6)
    c.make_seeds()
    ipv6_icrc = icrc_ipv6_supported()
    tally, t0, index, saved, icrc_bad = Tally(), time.monotonic(), 0, set(), 0
    ipv6_frames = ipv6_bad = 0
    while tally.frames < a.frames:
        name, path, log, _ = c.mutate(index)
        recs = read_pcap(path)[2]
        for o in c.ours(path):
            if tally.frames >= a.frames:
                break
            n = o["frame"]
            if o.get("icrc"):
                icrc_bad += not o["icrc"]["ok"]
            if o.get("l3") == "ipv6":
                ipv6_frames += 1
                ipv6_bad += bool(o.get("icrc")) and not o["icrc"]["ok"]
            tally.add(compare(o, recs[n - 1][1], ipv6_icrc),
                      {"batch": index, "frame": n, "profile": name, "log": log[n - 1]})
        if a.repro:
            os.makedirs(a.repro, exist_ok=True)
            for k, cl in tally.classes.items():
                frames = [e["frame"] for e in cl["examples"] if e["batch"] == index]
                if k not in saved and frames:
                    slug = re.sub(r"[^a-z0-9]+", "-", k.lower()).strip("-")[:100]
                    write_repro(os.path.join(a.repro, f"scapy-{slug}.pcap"), path, frames)
                    saved.add(k)
        index += 1
    v6 = ", IPv4 and IPv6 seeds" if a.ipv6 else ""
    v6 += "" if ipv6_icrc else " (this Scapy computes no iCRC over IPv6: not compared there)"
    print(tally.table(f"Scapy {scapy.config.conf.version}, seed {a.seed}, {index} batches{v6}", time.monotonic() - t0))
    checked = "each checked against Scapy's" if ipv6_icrc else "those over IPv4 checked against Scapy's"
    print(f"\n{icrc_bad} frames with a wrong iCRC by ours, {checked}; {ipv6_frames} frames over IPv6, "
          f"{ipv6_bad} of them with a wrong iCRC by ours")
    if a.known:
        return check_known(tally, a.known)
    return 0


if __name__ == "__main__":
    sys.exit(main())
