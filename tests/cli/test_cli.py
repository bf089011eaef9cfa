#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Bad command lines of ornic-examples, ornic-bitmap-sim and ornic-bench
(docs/RELIABILITY.md): each must exit with the documented status (2 for a bad
command line) and name the option and the bad value on stderr, printing
nothing on stdout. Also the behaviour the fix added: `ornic-examples --pcap -`
writes the capture to stdout (and refuses a terminal), write errors fail, and
every program's --help documents it.

Usage: test_cli.py [--examples BIN] [--sim BIN] [--bench BIN] --workdir DIR
Each given program is tested; the programs run with DIR as their working
directory, so a stray output file (a capture named '-') shows up there.
Exit 0 if every case passes, 1 otherwise (each failure is listed)."""
import argparse
import os
import pty
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from cli_common import Checks  # noqa: E402


# Small enough that a bad argument the program wrongly accepts costs a
# fraction of a second instead of the default ~30 s run.
SIM_SMALL = ["--qps", "96", "--active", "24", "--pool", "600", "--seeds", "1", "--sweep", "16",
             "--stream-pkts", "1024", "--delay-diffs", "2", "--otd", "16"]


CHECKS = Checks()
check = CHECKS.check


def run(binary, args, cwd, stdout=subprocess.PIPE, timeout=120):
    return subprocess.run([binary] + args, cwd=cwd, stdout=stdout, stderr=subprocess.PIPE,
                          timeout=timeout)


def bad_arg(name, binary, args, cwd, words, status=2, prefix=()):
    """prefix + args must fail with status, stderr naming every word, stdout
    empty. Messages show args only: the prefix is the same for every case."""
    p = run(binary, list(prefix) + args, cwd)
    err = p.stderr.decode(errors="replace")
    ok = check(name, p.returncode == status,
               f"{args!r}: exit {p.returncode}, expected {status}; stderr {err.strip()[:200]!r}")
    for w in words:
        ok &= check(name, w in err, f"{args!r}: stderr does not name {w!r}: {err.strip()[:200]!r}")
    ok &= check(name, p.stdout == b"", f"{args!r}: {len(p.stdout)} bytes on stdout")
    print(f"{'PASS' if ok else 'FAIL'} {name}")


# ---- ornic-examples -----------------------------------------------------------

EXAMPLE_CASES = [
    ("examples_unknown_option", ["--bogus"], ["--bogus"]),
    ("examples_unknown_short_option", ["-x"], ["-x"]),
    ("examples_unknown_name", ["no-such-example"], ["no-such-example"]),
    ("examples_unknown_name_after_good", ["fspot-ipv4", "bogus-name"], ["bogus-name"]),
    ("examples_pcap_without_file", ["--pcap"], ["'--pcap'", "needs a value"]),
    ("examples_pcap_empty_file", ["--pcap", ""], ["--pcap", "expected a file name"]),
    ("examples_pcap_option_as_file", ["--pcap", "--bogus"], ["--pcap", "--bogus"]),
    ("examples_pcap_twice", ["--pcap", "a.pcap", "--pcap", "b.pcap"], ["--pcap", "twice"]),
]


def examples_pcap_stdout(binary, cwd):
    """--pcap - writes the same bytes as --pcap FILE, to stdout, and no file '-'."""
    name = "examples_pcap_stdout"
    ref = os.path.join(cwd, "ref.pcap")
    p = run(binary, ["--pcap", ref], cwd)
    check(name, p.returncode == 0, f"--pcap FILE: exit {p.returncode}")
    p = run(binary, ["--pcap", "-"], cwd)
    ok = check(name, p.returncode == 0, f"--pcap -: exit {p.returncode}; {p.stderr!r}")
    want = open(ref, "rb").read() if os.path.exists(ref) else None
    ok &= check(name, p.stdout == want, f"--pcap -: {len(p.stdout)} bytes on stdout, not the capture")
    ok &= check(name, not os.path.exists(os.path.join(cwd, "-")), "--pcap - created a file named '-'")
    print(f"{'PASS' if ok else 'FAIL'} {name}")


def examples_pcap_tty(binary, cwd):
    """--pcap - with a terminal on stdout: refused, exit 2, nothing written."""
    name = "examples_pcap_terminal"
    master, slave = pty.openpty()
    try:
        p = run(binary, ["--pcap", "-"], cwd, stdout=slave)
    finally:
        os.close(slave)
    os.set_blocking(master, False)
    try:
        written = os.read(master, 65536)
    except OSError:  # EIO or EAGAIN: nothing was written
        written = b""
    os.close(master)
    err = p.stderr.decode(errors="replace")
    ok = check(name, p.returncode == 2, f"exit {p.returncode}, expected 2; stderr {err.strip()!r}")
    ok &= check(name, "--pcap" in err and "terminal" in err, f"stderr {err.strip()!r}")
    ok &= check(name, written == b"", f"{len(written)} bytes written to the terminal")
    print(f"{'PASS' if ok else 'FAIL'} {name}")


def examples_write_errors(binary, cwd):
    """A full disk fails (exit 1, message), for the text and for --pcap -."""
    name = "examples_stdout_write_error"
    if not os.path.exists("/dev/full"):
        print(f"SKIP {name}: no /dev/full")
        return
    ok = True
    for args in ([], ["--pcap", "-"]):
        with open("/dev/full", "wb") as full:
            p = run(binary, args, cwd, stdout=full)
        err = p.stderr.decode(errors="replace")
        ok &= check(name, p.returncode == 1, f"{args!r} > /dev/full: exit {p.returncode}, expected 1")
        ok &= check(name, "standard output" in err, f"{args!r} > /dev/full: stderr {err.strip()!r}")
    print(f"{'PASS' if ok else 'FAIL'} {name}")


def examples_help(binary, cwd):
    name = "examples_help_documents_arguments"
    p = run(binary, ["--help"], cwd)
    out = p.stdout.decode(errors="replace")
    ok = check(name, p.returncode == 0, f"--help: exit {p.returncode}")
    for w in ["--pcap FILE", "'-'", "standard output", "terminal", "NAME", "fspot-ipv4",
              "Exit status", "2 bad command line"]:
        ok &= check(name, w in out, f"--help does not mention {w!r}")
    print(f"{'PASS' if ok else 'FAIL'} {name}")


def test_examples(binary, cwd):
    for name, args, words in EXAMPLE_CASES:
        bad_arg(name, binary, args, cwd, words)
    examples_pcap_stdout(binary, cwd)
    examples_pcap_tty(binary, cwd)
    examples_write_errors(binary, cwd)
    examples_help(binary, cwd)
    # Still exit 1 (not 2) when the file cannot be created: not a usage error.
    bad_arg("examples_pcap_unwritable", binary, ["--pcap", "no/such/dir/x.pcap"], cwd,
            ["no/such/dir/x.pcap"], status=1)
    stray = sorted(set(os.listdir(cwd)) - {"ref.pcap"})
    ok = check("examples_no_stray_files", not stray, f"files left in the work directory: {stray}")
    print(f"{'PASS' if ok else 'FAIL'} examples_no_stray_files")


# ---- ornic-bitmap-sim ---------------------------------------------------------

SIM_CASES = [
    ("sim_models_duplicate", ["--models", "ornic,ornic"], ["--models", "'ornic' given twice"]),
    ("sim_models_trailing_comma", ["--models", "ornic,"], ["--models", "empty"]),
    ("sim_models_unknown", ["--models", "ornic,bogus"], ["--models", "'bogus'"]),
    ("sim_sweep_empty_element", ["--sweep", "1,,2"], ["--sweep", "element 2", "empty"]),
    ("sim_sweep_trailing_comma", ["--sweep", "64,"], ["--sweep", "element 2", "empty"]),
    ("sim_sweep_leading_comma", ["--sweep", ",64"], ["--sweep", "element 1", "empty"]),
    ("sim_sweep_duplicate", ["--sweep", "64,64"], ["--sweep", "'64'"]),
    ("sim_otd_empty_element", ["--otd", "16,,32"], ["--otd", "empty"]),
    ("sim_otd_out_of_range_element", ["--otd", "16,0"], ["--otd", "element 2", "got '0'"]),
    ("sim_delay_diffs_empty_element", ["--delay-diffs", "2,,5"], ["--delay-diffs", "empty"]),
    ("sim_delay_diffs_hex", ["--delay-diffs", "0x10"], ["--delay-diffs", "got '0x10'"]),
    ("sim_link_gbps_hex_float", ["--link-gbps", "0x1p3"], ["--link-gbps", "got '0x1p3'"]),
    ("sim_qps_plus_sign", ["--qps", "+5"], ["--qps", "got '+5'"]),
    ("sim_qps_leading_space", ["--qps", " 5"], ["--qps", "got ' 5'"]),
    ("sim_seed_leading_space", ["--seed", " 1"], ["--seed", "got ' 1'"]),
    ("sim_seed_overflow", ["--seed", "18446744073709551616"], ["--seed", "got '18446744073709551616'"]),
]


def sim_numbers_accepted(binary, cwd):
    """0x hex and leading zeros read as documented: the same run as decimal."""
    name = "sim_hex_and_leading_zero_accepted"
    ref = run(binary, SIM_SMALL + ["--json"], cwd)
    alt = run(binary, SIM_SMALL + ["--json", "--qps", "0x60", "--active", "024"], cwd)
    ok = check(name, ref.returncode == 0 and alt.returncode == 0,
               f"exit {ref.returncode} / {alt.returncode}; {alt.stderr.decode(errors='replace')[:200]!r}")
    ok &= check(name, ref.stdout == alt.stdout, "--qps 0x60 --active 024 differs from --qps 96 --active 24")
    print(f"{'PASS' if ok else 'FAIL'} {name}")


def sim_help(binary, cwd):
    name = "sim_help_documents_numbers_and_lists"
    out = run(binary, ["--help"], cwd).stdout.decode(errors="replace")
    ok = True
    for w in ["0x hex", "010 is ten", "given once", "Exit status", "2 bad command line"]:
        ok &= check(name, w in out, f"--help does not mention {w!r}")
    print(f"{'PASS' if ok else 'FAIL'} {name}")


def test_sim(binary, cwd):
    # The small run first: a bad argument that is wrongly accepted then runs
    # briefly and fails the case on its exit status, instead of timing out.
    for name, args, words in SIM_CASES:
        bad_arg(name, binary, args, cwd, words, prefix=SIM_SMALL)
    sim_numbers_accepted(binary, cwd)
    sim_help(binary, cwd)


# ---- ornic-bench --------------------------------------------------------------

def test_bench(binary, cwd):
    # ornic-bench takes no numbers; these guard what it already did right.
    bad_arg("bench_unknown_option", binary, ["--bogus"], cwd, ["'--bogus'"])
    bad_arg("bench_unexpected_argument", binary, ["--quick", "5"], cwd, ["'5'"])
    name = "bench_help_documents_exit_status"
    out = run(binary, ["--help"], cwd).stdout.decode(errors="replace")
    ok = check(name, "Exit status" in out and "2 bad command line" in out,
               f"--help does not document the exit status: {out!r}")
    print(f"{'PASS' if ok else 'FAIL'} {name}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--examples")
    ap.add_argument("--sim")
    ap.add_argument("--bench")
    ap.add_argument("--workdir", required=True)
    a = ap.parse_args()
    for label, binary, test in (("examples", a.examples, test_examples), ("sim", a.sim, test_sim),
                                ("bench", a.bench, test_bench)):
        if not binary:
            continue
        cwd = os.path.join(a.workdir, label)
        shutil.rmtree(cwd, ignore_errors=True)
        os.makedirs(cwd)
        test(os.path.abspath(binary), cwd)
    return CHECKS.report()


if __name__ == "__main__":
    sys.exit(main())
