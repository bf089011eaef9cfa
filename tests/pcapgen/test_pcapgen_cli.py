#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""End-to-end tests of ornic-pcapgen, the command line: bad options and unwritable outputs,
--bench, scenario files (and the examples in pcapgen/scenarios), --plot, and the one number
parser.

Usage: test_pcapgen_cli.py --case NAME --pcapgen BIN [--decoder BIN] --workdir DIR
(pcapgen_common.py). Exit 0 pass, 1 fail, 77 skip (a required tool is missing)."""
import os
import subprocess
import sys

from pcapgen_common import check, main, need, run_bounded


def case_errors(env):
    """Bad options and unwritable outputs: non-zero exit, a message, no file."""
    for i, opts in enumerate([["--pmtu", 1000], ["--loss", 3], ["--drop", "x"], ["--spray", "nope"],
                              ["--bogus"], ["--profile", "nope"], ["--qps", 2, "--drop", "2:0:0"]]):
        name = f"bad{i}.pcap"
        _, p = env.run(name, *opts, rc=2)
        check("ornic-pcapgen:" in p.stderr, f"{name}: message on stderr: {p.stderr.strip()[:80]}")
        check(not os.path.exists(env.path(name)), f"{name}: no output file")
    open(env.path("plainfile"), "w").close()
    _, p = env.run("plainfile/x.pcap", rc=1)
    check("plainfile/x.pcap" in p.stderr, f"unwritable path named: {p.stderr.strip()[:100]}")
    for name in ["full.pcap", "full.pcapng", "full.pcap.gz"]:
        _, p = env.run(name, "--wqes", 64, rc=1, limit_fsize=200000)
        check(not os.path.exists(env.path(name)), f"{name}: file-size limit leaves no file")
        check("File too large" in p.stderr, f"{name}: says why: {p.stderr.strip()[:100]}")
    if os.path.exists("/dev/full"):
        p = subprocess.run([env.gen, "-q", "-o", "/dev/full"], capture_output=True, text=True)
        check(p.returncode == 1 and "No space left" in p.stderr, "/dev/full: disk full is an error")
    check(not env.leftovers(), f"no temporary files left: {env.leftovers()}")


def case_bench(env):
    """--bench reports packets/s and MB/s."""
    p = subprocess.run([env.gen, "-q", "--bench", "50000"], capture_output=True, text=True, timeout=300)
    check(p.returncode == 0 and "packets/s" in p.stdout and "MB/s" in p.stdout,
          f"bench output: {p.stdout.strip()}")


def case_scenario(env):
    """A scenario file sets options and each QP's list of WQEs (docs/SCENARIOS.md)."""
    need(env.decoder)
    scn = env.path("mix.scn")
    with open(scn, "w") as f:
        f.write("# three QPs, mixed sizes\n"
                "qps 3\n"
                "paths 8          # overridden on the command line below\n"
                "loss 0\n"
                "pmtu 1024\n"
                "wqe 16K x3              # every QP\n"
                "wqe 100K x2 qp=1-2\n"
                "wqe 5000 qp=0\n")
    s, _ = env.run("mix.pcap", "--scenario", scn, "--paths", 2, "--capture", "requester")
    want = {0: [16384] * 3 + [5000], 1: [16384] * 3 + [102400] * 2, 2: [16384] * 3 + [102400] * 2}
    check(s["wqes_total"] == 14 and s["wqes_verified"] == 14, f"14 WQEs run and verified: {s['wqes_total']}")
    pkts = env.decode("mix.pcap")
    # Each WQE's first packet (FSpot, or Last with Address for one packet) carries its RETH.
    firsts = {}
    for p in pkts:
        if "reth" in p and "offeth" in p and p["offeth"]["offset"] == 0:
            firsts.setdefault(p["bth"]["destqp"] - 0x200, {})[p["reth"]["va"]] = p["reth"]["dmalen"]
    got = {q: [firsts[q][va] for va in sorted(firsts[q])] for q in firsts}
    check(got == want, f"WQE sizes per QP on the wire follow the file: {got}")
    sports = {p["udp_sport"] for p in pkts}
    check(len(sports) <= 2, f"--paths 2 after --scenario overrides 'paths 8': ports {sorted(sports)}")
    bad = [("nope.scn", "bogus 1\n", "nope.scn:1"), ("qp.scn", "qps 2\nwqe 1M qp=4\n", "qp.scn:2"),
           ("val.scn", "\n\npmtu 1000\n", "val.scn:3"), ("size.scn", "wqe 12Q\n", "size.scn:1")]
    for name, text, where in bad:
        with open(env.path(name), "w") as f:
            f.write(text)
        _, p = env.run(name + ".pcap", "--scenario", env.path(name), rc=2)
        check(where in p.stderr, f"{name}: the message names {where}: {p.stderr.strip()[:120]}")
        check(not os.path.exists(env.path(name + ".pcap")), f"{name}: no capture written")
    _, p = env.run("both.pcap", "--scenario", scn, "--wqes", 3, rc=2)
    check("--wqes" in p.stderr, f"--wqes with wqe lines is refused: {p.stderr.strip()[:100]}")
    # The example scenarios shipped with pcapgen keep working.
    examples = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../pcapgen/scenarios")
    names = sorted(f for f in os.listdir(examples) if f.endswith(".scn"))
    check(len(names) >= 3, f"example scenarios found: {names}")
    for n in names:
        s, _ = env.run(n + ".pcap", "--scenario", os.path.join(examples, n))
        check(s is not None and s["wqes_verified"] == s["wqes_total"], f"{n}: runs and verifies")


def case_plot(env):
    """--plot draws an SVG with gnuplot; without gnuplot the run says so and writes nothing."""
    need("gnuplot")
    svg = env.path("p.svg")
    s, p = env.run("p.pcap", "--wqes", 4, "--plot", svg)
    text = open(svg).read() if os.path.exists(svg) else ""
    check(text.lstrip().startswith("<?xml") and "</svg>" in text, "p.svg is a complete SVG")
    for label in ["path 0", "path 3", "retransmission", "Out-of-order distance"]:
        check(label in text, f"p.svg shows '{label}'")
    check(not env.leftovers() and not [f for f in os.listdir("/tmp") if f.startswith("ornic-pcapgen-")
                                       and str(os.getpid()) in f], "no temporary plot files left")
    env.run("png.pcap", "--wqes", 2, "--plot", env.path("p.png"))
    check(open(env.path("p.png"), "rb").read(8) == b"\x89PNG\r\n\x1a\n", "a .png name gives a PNG")
    cmd = [os.path.abspath(env.gen), "-q", "-o", env.path("nognu.pcap"), "--plot", env.path("n.svg")]
    p = subprocess.run(cmd, capture_output=True, text=True, env={"PATH": "/nonexistent"}, timeout=60)
    check(p.returncode == 1 and "gnuplot" in p.stderr and "apt-get install gnuplot-nox" in p.stderr,
          f"without gnuplot: exit 1 and a clear message: {p.stderr.strip()[:120]}")
    check(not os.path.exists(env.path("nognu.pcap")) and not os.path.exists(env.path("n.svg")),
          "without gnuplot nothing is written")


def case_numbers(env):
    """Issue 13 item 5: one number parser (decimal or 0x, never octal, overflow-checked,
    'expected ..., got ...'), WQE totals that overflow, and 'wqes' beside 'wqe' lines."""
    s10, _ = env.run("otd010.pcap", "--otd", "010", "--wqes", 2)
    s10b, _ = env.run("otd10.pcap", "--otd", "10", "--wqes", 2)
    s8, _ = env.run("otd8.pcap", "--otd", "8", "--wqes", 2)
    same = open(env.path("otd010.pcap"), "rb").read() == open(env.path("otd10.pcap"), "rb").read()
    differ = open(env.path("otd010.pcap"), "rb").read() != open(env.path("otd8.pcap"), "rb").read()
    check(same and differ, "--otd 010 is ten, not octal eight (same capture as --otd 10)")
    env.run("otdhex.pcap", "--otd", "0xA", "--wqes", 2)
    check(open(env.path("otdhex.pcap"), "rb").read() == open(env.path("otd10.pcap"), "rb").read(),
          "--otd 0xA is ten")
    for opts, want in [(["--seed", "18446744073709551616"], "--seed: expected a number from 0 to"),
                       (["--wqes", "1e3"], "--wqes: expected"), (["--loss", "0x1"], "--loss: expected"),
                       (["--qps", " 4"], "--qps: expected"), (["--wqe-size", "2G"], "got '2G'"),
                       (["--otd", "-1"], "--otd: expected")]:
        _, p = env.run("num.pcap", *opts, rc=2)
        check(want in p.stderr, f"{' '.join(opts)}: {p.stderr.strip()[:120]}")
    scn = env.path("over.scn")
    with open(scn, "w") as f:
        f.write("qps 4096\n" + "wqe 4K x1099511627776\n" * 3000)
    p = run_bounded([env.gen, "-q", "-o", "/dev/null", "--scenario", scn], 20)
    check(p is not None and p.returncode == 2, f"overflowing WQE count refused ({p and p.returncode})")
    check(p is not None and "over.scn:" in p.stderr and "overflows" in p.stderr,
          f"overflow named by line: {p and p.stderr.strip()[:160]}")
    scn = env.path("both.scn")
    with open(scn, "w") as f:
        f.write("qps 2\nwqes 5\nwqe 4K x2\n")
    _, p = env.run("both.pcap", "--scenario", scn, rc=2)
    check("both.scn:2:" in p.stderr and "wqes" in p.stderr, f"wqes beside wqe lines: {p.stderr.strip()[:160]}")
    scn = env.path("octal.scn")
    with open(scn, "w") as f:
        f.write("qps 010\nwqe 4K x010\n")
    s, _ = env.run("octal.pcap", "--scenario", scn)
    check(s is not None and s["qps"] == 10 and s["wqes_total"] == 100, "scenario numbers are decimal too")


if __name__ == "__main__":
    sys.exit(main(globals()))
