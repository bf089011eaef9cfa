# SPDX-License-Identifier: MIT
"""What the differential campaigns (scripts/diff-wireshark.py, scripts/diff-scapy.py) share: seed captures
from ornic-pcapgen, mutated batches from ornic-mutate with their logs, libornicproto's verdict per frame
from `ornic-decode --json`, pcap records, and the summary table of disagreement classes.

Every batch is a function of (campaign seed, batch index) only, so a run is reproducible from its seed and
a class's example frame is found again by (batch, frame). With ipv6, the seeds are also written over IPv6
(after the IPv4 ones, so the batches of an IPv4-only run keep their numbers): ornic-pcapgen writes IPv4
only, so its frames are moved onto IPv6 here and ornic-mutate, which re-encodes every variant, makes the
UDP checksum and the iCRC right."""
import json
import os
import struct
import subprocess

# (name, ornic-pcapgen arguments): several transports, so the mutator swaps opcodes across all of them.
SEED_PROFILES = [
    ("ornic", ["-p", "ornic"]),
    ("roce", ["-p", "roce"]),
    ("irn", ["-p", "irn"]),
    ("mprdma", ["-p", "mprdma"]),
    ("rc", ["-p", "rc", "--rc-ops", "send,write,read"]),
]
SEED_COMMON = ["-q", "--wqes", "4", "--wqe-size", "8K", "--pmtu", "1024", "--loss", "0.05"]


class Campaign:
    """Seeds in WORK, batches of about BATCH frames each, numbered from 0; MUTATE_ARGS go to ornic-mutate."""

    def __init__(self, bindir, work, seed, batch, mutate_args=(), ipv6=False):
        self.bin = bindir
        self.ipv6 = ipv6
        self.mutate_args = list(mutate_args)
        self.work = work
        self.seed = seed
        self.batch = batch
        self.seeds = []
        os.makedirs(work, exist_ok=True)

    def make_seeds(self):
        for name, args in SEED_PROFILES:
            out = os.path.join(self.work, f"seed-{name}.pcap")
            cmd = [os.path.join(self.bin, "ornic-pcapgen"), *args, *SEED_COMMON, "--seed", str(self.seed),
                   "-o", out]
            subprocess.run(cmd, check=True)
            self.seeds.append((name, out, len(read_pcap(out)[2])))
        for name, out, n in list(self.seeds) if self.ipv6 else []:
            out6 = os.path.join(self.work, f"seed-{name}-ipv6.pcap")
            write_ipv6(out6, out)
            self.seeds.append((f"{name}-ipv6", out6, n))

    def mutate(self, index):
        """Batch INDEX: (profile, path, log lines by output frame number)."""
        name, src, n_in = self.seeds[index % len(self.seeds)]
        n = max(1, self.batch // max(1, n_in))
        out = os.path.join(self.work, "batch.pcap")
        log = os.path.join(self.work, "batch.log")
        cmd = [os.path.join(self.bin, "ornic-mutate"), "-n", str(n), "--seed", str(self.seed * 100003 + index),
               "--log", log, *self.mutate_args, src, out]
        subprocess.run(cmd, check=True)
        with open(log) as f:
            lines = [line.rstrip("\n") for line in f]
        return name, out, lines, cmd

    def ours(self, path):
        """libornicproto's decode of each frame, by frame number."""
        p = subprocess.run([os.path.join(self.bin, "ornic-decode"), "--json", "--no-analysis", path],
                           capture_output=True, text=True)
        if p.returncode not in (0, 1):
            raise SystemExit(f"ornic-decode failed ({p.returncode}): {p.stderr[:300]}")
        return [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]


def read_pcap(path):
    """(magic, link type, [(header bytes, data bytes)]) of a classic pcap."""
    with open(path, "rb") as f:
        data = f.read()
    magic, = struct.unpack_from("<I", data, 0)
    link, = struct.unpack_from("<I", data, 20)
    recs, off = [], 24
    while off + 16 <= len(data):
        incl, = struct.unpack_from("<I", data, off + 8)
        recs.append((data[off:off + 16], data[off + 16:off + 16 + incl]))
        off += 16 + incl
    return magic, link, recs, data[:24]


def ipv4_to_ipv6(frame):
    """An Ethernet/IPv4 frame (no 802.1Q tag, no IPv4 options) over IPv6: traffic class from the TOS, hop
    limit from the TTL, addresses 2001:db8::a.b.c.d (RFC 3849's documentation prefix), flow label 0; the
    UDP checksum and the iCRC are left for ornic-mutate to recompute. Other frames come back unchanged."""
    if frame[12:14] != b"\x08\x00" or frame[14] != 0x45:
        return frame
    ip, rest = frame[14:34], frame[34:]
    total = int.from_bytes(ip[2:4], "big")
    prefix = bytes.fromhex("20010db8") + bytes(8)
    v6 = struct.pack(">IHBB", 6 << 28 | ip[1] << 20, total - 20, ip[9], ip[8]) + prefix + ip[12:16] + prefix + ip[16:20]
    return frame[:12] + b"\x86\xdd" + v6 + rest


def write_ipv6(path, src):
    """Capture SRC with every frame through ipv4_to_ipv6, into PATH."""
    _, _, recs, head = read_pcap(src)
    with open(path, "wb") as f:
        f.write(head)
        for hdr, data in recs:
            out = ipv4_to_ipv6(data)
            grow = len(out) - len(data)
            ts, incl, orig = hdr[:8], *struct.unpack_from("<II", hdr, 8)
            f.write(ts + struct.pack("<II", incl + grow, orig + grow) + out)


def write_repro(path, src, frames):
    """FRAMES (1-based numbers) of capture SRC into a new capture PATH."""
    _, _, recs, head = read_pcap(src)
    with open(path, "wb") as f:
        f.write(head)
        for n in frames:
            f.write(recs[n - 1][0] + recs[n - 1][1])


class Tally:
    """Agreements and disagreement classes, each with its count and first example."""

    def __init__(self):
        self.frames = 0
        self.agree = 0
        self.classes = {}

    def add(self, diffs, example):
        self.frames += 1
        if not diffs:
            self.agree += 1
            return
        for d in diffs:
            c = self.classes.setdefault(d, {"count": 0, "examples": []})
            c["count"] += 1
            if len(c["examples"]) < 3:
                c["examples"].append(example)

    def table(self, title, seconds):
        lines = [f"{title}: {self.frames} frames compared, {self.agree} agree, "
                 f"{self.frames - self.agree} disagree ({seconds:.0f} s)", "",
                 "| class | frames | first example (batch, frame) | its mutation log line |", "|---|---|---|---|"]
        for k in sorted(self.classes, key=lambda k: -self.classes[k]["count"]):
            c = self.classes[k]
            ex = c["examples"][0]
            lines.append(f"| `{k}` | {c['count']} | {ex['batch']}, {ex['frame']} | `{ex['log']}` |")
        return "\n".join(lines)


def check_known(tally, path):
    """0 when every class seen is listed in PATH (one a line, `#` starts a comment), else 1 naming the new."""
    with open(path) as f:
        known = {line.split("#")[0].strip() for line in f} - {""}
    new = [k for k in tally.classes if k not in known]
    if new:
        print(f"FAIL: disagreement classes not in {path}: {new}")
        return 1
    print(f"ok: {len(tally.classes)} classes seen, all among the {len(known)} known")
    return 0
