#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Differential campaign: libornicproto (ornic-decode --json) against stock Wireshark's InfiniBand dissector
(tshark -T fields), on mutated RoCE frames (issue 32, docs/FUZZING.md "Differential campaigns").

    scripts/diff-wireshark.py --bin build/bin --frames 1000000 [--seed 1] [--batch 50000] [--work DIR]
                              [--repro DIR] [--known FILE] [--tshark-root ROOT] [--ipv6] [--icrc-break P]

Seed captures come from ornic-pcapgen (profiles ornic, roce, irn, mprdma, rc with SEND/WRITE/READ, 5% loss
so NAKs and retransmissions are in them); ornic-mutate turns each into a batch of about --batch mutated
frames, iCRC kept valid (its default); tshark and ornic-decode read the same batch and each frame is
compared: decoded as InfiniBand BTH at all, opcode, PSN, destination QP, PadCnt, and malformed or not
(ours: the decoder's error; tshark's: `_ws.malformed` or an expert item of severity error), and the iCRC's
value where tshark shows one (`infiniband.invariant.crc`, for the opcodes it knows). Stock tshark 4.0, 4.4
and 4.6 show the iCRC of RoCEv2 without checking it: the verdict is compared (`icrc: ours ..., tshark ...`)
only with a tshark that registers a status field under it (`infiniband.invariant.crc.status`, as
proto_tree_add_checksum does), and the run's title says which; scripts/diff-scapy.py compares the verdict
with Scapy's. --icrc-break P breaks the iCRC of a share P of the frames (ornic-mutate --icrc break=P;
default 0: every iCRC right). The batches depend on --seed (and --ipv6, --icrc-break) alone.

--tshark-root ROOT runs the tshark of a root filesystem (scripts/wireshark-matrix.sh's cached Debian roots:
Wireshark 4.4, 4.6) through chroot, as nobody, the frames on its stdin. tshark runs as nobody with an empty
HOME, so no personal plugin loads, and the run stops if an ORNIC plugin is loaded at all: this campaign is
about stock Wireshark. --ipv6 adds the seeds over IPv6 (scripts/lib/diff_campaign.py).

Prints the table of disagreement classes (count, first example as batch and frame, the mutation log line of
that frame). --repro DIR writes, per class, a capture of its first 3 example frames. --known FILE (one
class a line): exit 1 if a class outside that list shows up (CTest `diff_wireshark`). Exit 77 without tshark."""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from diff_campaign import Campaign, Tally, check_known, write_repro  # noqa: E402

FIELDS = ["frame.number", "infiniband.bth.opcode", "infiniband.bth.psn", "infiniband.bth.destqp",
          "infiniband.bth.padcnt", "infiniband.invariant.crc", "_ws.malformed", "_ws.expert.severity",
          "_ws.expert.message"]
SEVERITY_ERROR = 0x00800000  # Wireshark's PI_ERROR (epan/proto.h)
ICRC_STATUS = "infiniband.invariant.crc.status"
# proto_tree_add_checksum's status values (Wireshark epan/proto.h, PROTO_CHECKSUM_E_BAD, _GOOD).
STATUS_BAD, STATUS_GOOD = 0, 1


def tshark_base(root):
    """The command that runs tshark (its arguments follow) and the HOME made for it: as root, tshark runs
    as nobody with a HOME of its own, as tests/mutate does (tshark refuses to run its Lua as root, and the
    build tree may be closed to nobody); with ROOT, inside that root filesystem through chroot."""
    if root:
        if not os.path.isfile(os.path.join(root, "usr/bin/tshark")):
            return None, None
        home = tempfile.mkdtemp(prefix="ornic-diff-home-", dir=os.path.join(root, "tmp"))
        shutil.chown(home, "nobody")
        inside = "/" + os.path.relpath(home, root)
        return ["chroot", root, "runuser", "-u", "nobody", "--", "env", "-i", "PATH=/usr/bin:/bin",
                f"HOME={inside}", "tshark"], home
    exe = shutil.which("tshark")
    if not exe:
        return None, None
    home = tempfile.mkdtemp(prefix="ornic-diff-home-")
    if os.geteuid() == 0:
        shutil.chown(home, "nobody")
        return ["runuser", "-u", "nobody", "--", "env", f"HOME={home}", exe], home
    return ["env", f"HOME={home}", exe], home


def tshark_info(base):
    """(version line, checks the iCRC) of the tshark BASE runs; stops if an ORNIC plugin is loaded."""
    run = lambda *a: subprocess.run(base + list(a), capture_output=True, text=True).stdout  # noqa: E731
    version = run("-v").splitlines()[0].rstrip(".")
    plugins = [line for line in run("-G", "plugins").splitlines() if "ornic" in line.lower()]
    if plugins:
        raise SystemExit(f"an ORNIC plugin is loaded, this campaign is about stock tshark: {plugins}")
    fields = {line.split("\t")[2] for line in run("-G", "fields").splitlines() if line.startswith("F\t")}
    return version, ICRC_STATUS in fields


def fields_cmd(base, fields):
    cmd = base + ["-r", "-", "-T", "fields", "-E", "separator=/t", "-E", "occurrence=a", "-E", "aggregator=|"]
    for f in fields:
        cmd += ["-e", f]
    return cmd


def theirs(cmd, fields, path):
    with open(path, "rb") as f:
        p = subprocess.run(cmd, stdin=f, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"tshark failed ({p.returncode}): {p.stderr[:300]}")
    rows = []
    for line in p.stdout.splitlines():
        v = line.split("\t")
        v += [""] * (len(fields) - len(v))
        rows.append(dict(zip(fields, v)))
    return rows


def bswap32(v):
    return int.from_bytes(v.to_bytes(4, "little"), "big")


def norm(text):
    """A message with its numbers taken out, so one rule is one class."""
    return re.sub(r"\b(0x[0-9a-fA-F]+|\d+)\b", "N", text)


def tshark_malformed(t):
    sev = [int(s, 0) for s in t["_ws.expert.severity"].split("|") if s]
    msgs = t["_ws.expert.message"].split("|")
    errs = [m for s, m in zip(sev, msgs) if s >= SEVERITY_ERROR]
    if t["_ws.malformed"]:
        errs.append("Malformed Packet")
    return errs


def compare(o, t):
    """The disagreement classes of one frame: ours (JSON object) against theirs (tshark fields)."""
    ob = o.get("bth")
    tb = t["infiniband.bth.opcode"] != ""
    if (ob is not None) != tb:
        return [f"bth: ours {'yes' if ob else 'no'}, tshark {'yes' if tb else 'no'}"]
    diffs = []
    if ob is not None:
        pairs = [("opcode", ob["opcode"], t["infiniband.bth.opcode"]), ("psn", ob["psn"], t["infiniband.bth.psn"]),
                 ("destqp", ob["destqp"], t["infiniband.bth.destqp"]),
                 ("padcnt", ob["padcnt"], t["infiniband.bth.padcnt"])]
        for name, a, b in pairs:
            if str(a) != str(int(b.split("|")[0], 0)):
                diffs.append(name)
        # tshark shows the iCRC it located without checking it: compare where each side finds it. Ours is
        # the CRC's value, sent least significant byte first (docs/PROTOCOL.md 2.6); tshark shows the four
        # bytes as a big-endian number: a convention, so ours is byte-swapped before comparing.
        tc, oc = t["infiniband.invariant.crc"], o.get("icrc")
        if tc and oc is not None and int(tc.split("|")[0], 0) != bswap32(int(oc["value"], 16)):
            diffs.append("icrc value")
        elif tc and oc is None:
            diffs.append("icrc: tshark only")
        diffs += compare_verdict(oc, t.get(ICRC_STATUS, ""))
    errs = tshark_malformed(t)
    ours_bad = o.get("error") is not None
    if ours_bad and not errs:
        name = (ob or {}).get("opcode_name")
        err = o["error"].replace(name, "OPCODE") if name else o["error"]
        diffs.append(f"malformed: ours only ({norm(err)})")
    elif errs and not ours_bad:
        diffs.append(f"malformed: tshark only ({norm(errs[0])})")
    return diffs


def compare_verdict(oc, status):
    """Ours against tshark's checked iCRC, where tshark says good or bad (never with 4.0-4.6: no status)."""
    st = [int(v, 0) for v in status.split("|") if v]
    if oc is None or not st or st[0] not in (STATUS_BAD, STATUS_GOOD):
        return []
    theirs_ok = st[0] == STATUS_GOOD
    if theirs_ok == oc["ok"]:
        return []
    return [f"icrc: ours {'ok' if oc['ok'] else 'bad'}, tshark {'ok' if theirs_ok else 'bad'}"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True, help="directory of ornic-pcapgen, ornic-mutate, ornic-decode")
    ap.add_argument("--frames", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--batch", type=int, default=50000)
    ap.add_argument("--work")
    ap.add_argument("--repro")
    ap.add_argument("--known", help="file of the known classes, one a line (# comments)")
    ap.add_argument("--tshark-root", help="run the tshark of this root filesystem (chroot, as nobody)")
    ap.add_argument("--ipv6", action="store_true", help="seeds over IPv6 too (after the IPv4 ones)")
    ap.add_argument("--icrc-break", type=float, default=0, help="ornic-mutate --icrc break=P (default 0: none)")
    a = ap.parse_args()
    base, home = tshark_base(a.tshark_root)
    if base is None:
        print("SKIP: tshark not installed")
        return 77
    try:
        return campaign(a, base)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def campaign(a, base):
    version, checks_icrc = tshark_info(base)
    fields = FIELDS + ([ICRC_STATUS] if checks_icrc else [])
    cmd = fields_cmd(base, fields)
    work = a.work or tempfile.mkdtemp(prefix="ornic-diff-ws-")
    os.makedirs(work, exist_ok=True)
    os.chmod(work, 0o755)
    # An iCRC-break share only when asked: without it the batches are those of the runs before the option.
    c = Campaign(a.bin, work, a.seed, a.batch, ["--icrc", f"break={a.icrc_break}"] if a.icrc_break else [],
                 ipv6=a.ipv6)
    c.make_seeds()
    tally, t0, index, saved = Tally(), time.monotonic(), 0, set()
    while tally.frames < a.frames:
        name, path, log, _ = c.mutate(index)
        os.chmod(path, 0o644)
        ours, their = c.ours(path), theirs(cmd, fields, path)
        if len(ours) != len(their):
            raise SystemExit(f"batch {index}: ornic-decode {len(ours)} frames, tshark {len(their)}")
        for o, t in zip(ours, their):
            if tally.frames >= a.frames:
                break
            n = o["frame"]
            tally.add(compare(o, t), {"batch": index, "frame": n, "profile": name, "log": log[n - 1]})
        if a.repro:
            save_repros(a.repro, tally, index, path, saved)
        index += 1
    verdict = "iCRC verdict compared" if checks_icrc else f"iCRC not checked by this tshark (no {ICRC_STATUS})"
    print(tally.table(f"{version}, seed {a.seed}, {index} batches{', IPv4 and IPv6 seeds' if a.ipv6 else ''}, "
                      f"{verdict}", time.monotonic() - t0))
    if a.known:
        return check_known(tally, a.known)
    return 0


def save_repros(outdir, tally, index, path, saved):
    """Each class first seen in batch INDEX (PATH): a capture of its examples from this batch."""
    os.makedirs(outdir, exist_ok=True)
    for k, c in tally.classes.items():
        frames = [e["frame"] for e in c["examples"] if e["batch"] == index]
        if k not in saved and frames:
            slug = re.sub(r"[^a-z0-9]+", "-", k.lower()).strip("-")[:100]
            write_repro(os.path.join(outdir, f"{slug}.pcap"), path, frames)
            saved.add(k)


if __name__ == "__main__":
    sys.exit(main())
