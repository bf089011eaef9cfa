# SPDX-License-Identifier: MIT
"""What the end-to-end tests of ornic-pcapgen (test_pcapgen_*.py, one file per subject) share:
check() and the list of failures, Env (runs the generator into a work folder and reads a
capture back with ornic-decode --json), need() (skip, 77, without a tool), filters of decoded
packets, a pcap reader that knows nothing of RoCE, and the command line of every test file:

  test_pcapgen_SUBJECT.py --case NAME --pcapgen BIN [--decoder BIN] --workdir DIR

runs its function case_NAME (CTest pcapgen_NAME, tests/pcapgen/CMakeLists.txt). Exit 0 pass,
1 fail, 77 skip (a required tool is missing)."""
import argparse
import json
import os
import resource
import shutil
import struct
import subprocess
import sys

SKIP = 77
ROCE_OPS = {0x06, 0x07, 0x08, 0x0A, 0x11}
ETH_IP_UDP = 14 + 20 + 8
# The two hosts of every trace: host A requests (rc: both do), host A's port is the tap.
HOST_A, HOST_B = "10.0.0.1", "10.0.0.2"
FAILS = []


def check(cond, what):
    print(("PASS " if cond else "FAIL ") + what)
    if not cond:
        FAILS.append(what)
    return cond


class Env:
    def __init__(self, args):
        self.gen = os.path.abspath(args.pcapgen)
        self.decoder = args.decoder
        self.work = args.workdir
        shutil.rmtree(self.work, ignore_errors=True)
        os.makedirs(self.work)

    def path(self, name):
        return os.path.join(self.work, name)

    def run(self, name, *opts, rc=0, limit_fsize=None, json_out=True):
        """Runs the generator into work/name; returns (summary dict, proc)."""
        out = self.path(name)
        js = out + ".json"
        cmd = [self.gen, "-q", "-o", out] + (["--summary-json", js] if json_out else []) \
            + [str(o) for o in opts]
        pre = None
        if limit_fsize is not None:
            pre = lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit_fsize, limit_fsize))
        p = subprocess.run(cmd, capture_output=True, text=True, preexec_fn=pre, timeout=600)
        if rc is not None and p.returncode != rc:
            print("command:", " ".join(cmd), "\nstderr:", p.stderr)
        check(rc is None or p.returncode == rc, f"{name}: exit status {p.returncode} (want {rc})")
        summary = json.load(open(js)) if p.returncode == 0 and os.path.exists(js) else None
        return summary, p

    def decode(self, name):
        """ornic-decode --json lines of work/name."""
        p = subprocess.run([self.decoder, "--json", self.path(name)], capture_output=True,
                           text=True, timeout=600)
        check(p.returncode == 0, f"{name}: ornic-decode exit status {p.returncode} {p.stderr.strip()}")
        return [json.loads(line) for line in p.stdout.splitlines()]

    def leftovers(self):
        return [f for f in os.listdir(self.work) if ".tmp." in f]

    def profiles(self):
        """ornic-pcapgen --list-profiles, the one list of profiles: {name: set of
        capability words}, in the table's order."""
        p = subprocess.run([self.gen, "--list-profiles"], capture_output=True, text=True, timeout=60)
        check(p.returncode == 0 and p.stdout, f"--list-profiles: exit status {p.returncode}")
        return {line.split("\t")[0]: set(line.split("\t")[2].split())
                for line in p.stdout.splitlines()}


def need(tool):
    if not tool or not shutil.which(tool) and not os.access(tool, os.X_OK):
        print(f"SKIP: {tool or 'a required tool'} is not available")
        sys.exit(SKIP)


def data_pkts(pkts):
    return [p for p in pkts if p["bth"]["opcode"] in (0xC0, 0xC1, 0xC2, 0xC3, 0xC4, 0xC5, 0xC7,
                                                      0xC8, 0x06, 0x07, 0x08, 0x0A)]


def naks(pkts):
    return [p for p in pkts if p["bth"]["opcode"] == 0xCA]


def acks(pkts):
    return [p for p in pkts if p["bth"]["opcode"] == 0x11]


def is_request(p):
    return p["bth"]["opcode"] <= 0x0C


def psn_add(a, n):
    return (a + n) % (1 << 24)


def raw_frames(path):
    """The frames of a nanosecond pcap, read here without any RoCE code."""
    data = open(path, "rb").read()
    assert data[:4] == bytes.fromhex("4d3cb2a1"), "nanosecond pcap expected"
    off, out = 24, []
    while off + 16 <= len(data):
        incl = struct.unpack_from("<I", data, off + 8)[0]
        out.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return out


def run_bounded(cmd, timeout, **kw):
    """Runs cmd; None (and the process killed) when it outlives timeout seconds."""
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    except subprocess.TimeoutExpired:
        return None


def main(namespace):
    """The command line of a test file, whose globals() are namespace: runs its case_NAME."""
    cases = {n[5:]: f for n, f in namespace.items() if n.startswith("case_")}
    ap = argparse.ArgumentParser()
    ap.add_argument("--case", required=True, choices=sorted(cases))
    ap.add_argument("--pcapgen", required=True)
    ap.add_argument("--decoder")
    ap.add_argument("--workdir", required=True)
    args = ap.parse_args()
    if args.decoder and not os.access(args.decoder, os.X_OK):
        args.decoder = None
    cases[args.case](Env(args))
    print(f"{args.case}: {'FAILED' if FAILS else 'passed'} ({len(FAILS)} failures)")
    return 1 if FAILS else 0
