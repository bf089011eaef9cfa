#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The command-line convention of README.md "Command-line conventions" (libs/ornic-cli, cli.h), checked
on the real programs, and what ornic-decode does on top of it (-w, -f on files, the note on a capture
without RoCE). One subcommand per CTest entry, so a failure names what regressed:

  test_convention.py convention PROG BINARY VERSION WORKDIR   -h, --help, --version, every kind of usage error
  test_convention.py decode-write DECODE PCAPGEN WORKDIR      -r F -w out.pcap --qp Q, read back by tshark
  test_convention.py decode-no-roce DECODE WORKDIR            the note on a capture without RoCE, -q, --qp
  test_convention.py man MANDIR VERSION PROG=BINARY...        generated man pages hold every option of --help
  test_convention.py completion SCRIPT PROG=BINARY...         bash completion offers every option of --help
  test_convention.py install BUILDDIR WORKDIR                 cmake --install puts man pages and completions

Exit 0 when every check passes, 1 otherwise (each failure listed), 77 when a tool it needs is missing."""
import os
import re
import shutil
import signal
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
from cli_common import Checks  # noqa: E402
from e2e_common import write_pcap  # noqa: E402


# The convention's one line: "PROG: WHAT (see PROG --help)".
USAGE_LINE = "{prog}: {what} (see {prog} --help)\n"


CHECKS = Checks()
check = CHECKS.check


def run(cmd, cwd=None, stdin=subprocess.DEVNULL, env=None, timeout=120, **kw):
    return subprocess.run(cmd, cwd=cwd, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          env=env, timeout=timeout, **kw)


def text(b):
    return b.decode(errors="replace")


def report(name, ok):
    print(f"{'PASS' if ok else 'FAIL'} {name}")


# ---- convention ------------------------------------------------------------------

# Per program: an option that needs a value, a bad value (and the words its message starts with), an
# operand the program takes none of. ornic-bench has no option with a value: its missing-value case is
# a value given to a flag instead.
CASES = {
    "ornic-decode": {"missing": ["--qp"], "missing_short": ["-r"], "bad": (["--qp", "zz"], "--qp: expected "),
                     # every operand is a capture (several are read as one): none is unexpected
                     "unexpected": None},
    "ornic-pcapgen": {"missing": ["--seed"], "missing_short": ["-o"],
                      "bad": (["-o", "x.pcap", "--qps", "0"], "--qps: expected "),
                      "unexpected": (["-o", "x.pcap", "extra"], "extra")},
    "ornic-examples": {"missing": ["--pcap"], "bad": (["--pcap", ""], "--pcap: expected "),
                       "unexpected": None},  # NAMEs are its operands: an unknown one is its own error
    "ornic-bitmap-sim": {"missing": ["--seeds"], "bad": (["--seeds", "0"], "--seeds: expected "),
                         "unexpected": (["extra"], "extra")},
    "ornic-bench": {"flag_value": (["--json=1"], "option '--json' takes no value"),
                    "unexpected": (["extra"], "extra")},
    "ornic-mutate": {"missing": ["--seed"], "missing_short": ["-n"],
                     "bad": (["-n", "0", "in.pcap", "out.pcap"], "--variants: expected "),
                     "unexpected": (["in.pcap", "out.pcap", "extra"], "extra")},
}


def one_usage_error(name, prog, binary, args, what, cwd):
    """args must print exactly USAGE_LINE with `what` (a prefix when it ends in a space), exit 2."""
    p = run([binary] + args, cwd=cwd)
    err = text(p.stderr)
    ok = check(name, p.returncode == 2, f"{args!r}: exit {p.returncode}, expected 2 ({err.strip()[:200]!r})")
    ok &= check(name, p.stdout == b"", f"{args!r}: {len(p.stdout)} bytes on stdout")
    if what.endswith(" "):
        m = re.fullmatch(re.escape(f"{prog}: {what}") + r".* \(see " + re.escape(prog) + r" --help\)\n", err)
        ok &= check(name, m is not None, f"{args!r}: stderr {err!r} is not '{prog}: {what}... (see {prog} --help)'")
    else:
        want = USAGE_LINE.format(prog=prog, what=what)
        ok &= check(name, err == want, f"{args!r}: stderr {err!r}, expected {want!r}")
    return ok


def help_and_version(prog, binary, version, cwd):
    ok = True
    outs = []
    for opt in ("-h", "--help"):
        p = run([binary, opt], cwd=cwd)
        out = text(p.stdout)
        ok &= check(prog, p.returncode == 0, f"{opt}: exit {p.returncode}")
        ok &= check(prog, out.startswith(f"Usage: {prog} "), f"{opt}: stdout starts {out[:40]!r}")
        ok &= check(prog, p.stderr == b"", f"{opt}: stderr {text(p.stderr)[:200]!r}")
        outs.append(out)
    ok &= check(prog, outs[0] == outs[1], "-h and --help print different texts")
    for opt in ("-V", "--version"):
        p = run([binary, opt], cwd=cwd)
        lines = text(p.stdout).splitlines()
        ok &= check(prog, p.returncode == 0 and p.stderr == b"", f"{opt}: exit {p.returncode}, {p.stderr!r}")
        ok &= check(prog, lines[:1] == [f"{prog} {version}"], f"{opt}: first line {lines[:1]!r}")
        ok &= check(prog, len(lines) > 1 and re.fullmatch(r"libornicproto \d+\.\d+\.\d+ \(CRC-32: [\w-]+\)",
                                                          lines[1]) is not None,
                    f"{opt}: second line {lines[1:2]!r}")
    report(f"{prog}_help_and_version", ok)


def usage_errors(prog, binary, cwd):
    c = CASES[prog]
    ok = one_usage_error(prog, prog, binary, ["--no-such-option"], "unknown option '--no-such-option'", cwd)
    ok &= one_usage_error(prog, prog, binary, ["--no-such-option=1"], "unknown option '--no-such-option'", cwd)
    ok &= one_usage_error(prog, prog, binary, ["-Z"], "unknown option '-Z'", cwd)
    for key in ("missing", "missing_short"):
        if key in c:
            opt = c[key][0]
            ok &= one_usage_error(prog, prog, binary, c[key], f"option '{opt}' needs a value", cwd)
    if "bad" in c:
        ok &= one_usage_error(prog, prog, binary, c["bad"][0], c["bad"][1], cwd)
    if "flag_value" in c:
        ok &= one_usage_error(prog, prog, binary, c["flag_value"][0], c["flag_value"][1], cwd)
    ok &= one_usage_error(prog, prog, binary, ["--help=1"], "option '--help' takes no value", cwd)
    if c["unexpected"]:
        args, word = c["unexpected"]
        ok &= one_usage_error(prog, prog, binary, args, f"unexpected argument '{word}'", cwd)
    report(f"{prog}_usage_errors", ok)
    # A usage error writes nothing: no capture, no temporary file.
    stray = os.listdir(cwd)
    report(f"{prog}_usage_errors_write_nothing",
           check(prog, not stray, f"files left by usage errors: {stray}"))


def test_convention(prog, binary, version, workdir):
    fresh(workdir)
    help_and_version(prog, binary, version, workdir)
    usage_errors(prog, binary, workdir)
    if prog == "ornic-decode":
        decode_usage(binary, workdir)


def decode_usage(binary, cwd):
    """ornic-decode's own rules: tcpdump's letters, and what they refuse."""
    prog = "ornic-decode"
    ok = one_usage_error(prog, prog, binary, ["-s", "capture.pcap"], "--snaplen: expected ", cwd)
    p = run([binary, "-s", "capture.pcap"], cwd=cwd)
    ok &= check(prog, "--stats" in text(p.stderr), "-s with a file name does not point to --stats")
    ok &= one_usage_error(prog, prog, binary, ["-s", "100", "x.pcap"], "-s, -B and -p are for a live capture ", cwd)
    ok &= one_usage_error(prog, prog, binary, ["-p", "x.pcap"], "-s, -B and -p are for a live capture ", cwd)
    ok &= one_usage_error(prog, prog, binary, ["-r", "a.pcap", "b.pcap"], "give the capture either with -r ", cwd)
    ok &= one_usage_error(prog, prog, binary, ["-", "a.pcap", "-"], "standard input ('-') can be read only once", cwd)
    ok &= one_usage_error(prog, prog, binary, ["--st"], "ambiguous option '--st' (--stats, --strict)", cwd)
    ok &= one_usage_error(prog, prog, binary, ["-w", "-", "--stats", "x.pcap"], "-w - writes the capture ", cwd)
    report("decode_tcpdump_letters", ok)


def fresh(d):
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)


# ---- ornic-decode -w, -f --------------------------------------------------------------

def tshark_count(path, extra=()):
    p = run(["tshark", "-n", "-r", path] + list(extra))
    return p.returncode, len(text(p.stdout).splitlines()), text(p.stderr)


def written_count(err):
    m = re.search(r"^ornic-decode: (\d+) packets written to ", err, re.M)
    return int(m.group(1)) if m else None


def decode_write(dec, gen, workdir):
    if not shutil.which("tshark"):
        print("SKIP decode_write: no tshark")
        return 77
    fresh(workdir)
    cap = os.path.join(workdir, "one.pcap")
    p = run([gen, "-o", cap, "--loss", "0", "--drop", "0:37", "--pmtu", "1024", "--wqes", "2", "--wqe-size", "64K",
             "--spray", "rr", "-q"])
    if not check("setup", p.returncode == 0, f"ornic-pcapgen: {text(p.stderr)}"):
        return 1
    write_qp(dec, cap, workdir)
    write_stdout(dec, cap, workdir)
    write_failures(dec, gen, cap, workdir)
    filter_file(dec, cap, workdir)
    return 0


def write_qp(dec, cap, workdir):
    """-r F -w out.pcap --qp Q: the file tshark reads holds exactly the packets --qp prints."""
    name = "decode_write_qp"
    out = os.path.join(workdir, "qp.pcap")
    shown = run([dec, "--qp", "0x200", cap])
    n = len(text(shown.stdout).splitlines())
    p = run([dec, "-r", cap, "-w", out, "--qp", "0x200"], cwd=workdir)
    err = text(p.stderr)
    ok = check(name, p.returncode == 0, f"exit {p.returncode}: {err!r}")
    ok &= check(name, p.stdout == b"", f"-w printed {len(p.stdout)} bytes (tcpdump -w prints nothing)")
    ok &= check(name, n > 0 and written_count(err) == n, f"stderr says {written_count(err)} written, --qp shows {n}")
    rc, count, terr = tshark_count(out)
    ok &= check(name, rc == 0 and count == n, f"tshark -r: exit {rc}, {count} packets, want {n}: {terr[:200]!r}")
    # The same packets: ornic-decode's line for each, frame numbers and analysis aside.
    a = [l.split(" ", 1)[1] for l in text(run([dec, "--no-analysis", "--qp", "0x200", cap]).stdout).splitlines()]
    b = [l.split(" ", 1)[1] for l in text(run([dec, "--no-analysis", out]).stdout).splitlines()]
    ok &= check(name, a == b, "the written packets decode differently from the selected ones")
    left = [f for f in os.listdir(workdir) if f.startswith(".")]
    ok &= check(name, not left, f"temporary files left: {left}")
    p = run([dec, "-q", "-r", cap, "-w", out, "--qp", "0x200"], cwd=workdir)
    ok &= check(name, p.returncode == 0 and p.stderr == b"", f"-q: exit {p.returncode}, stderr {p.stderr!r}")
    p = run([dec, "-r", cap, "-w", out, "--qp", "0x200", "--print", "-c", "3"], cwd=workdir)
    ok &= check(name, len(text(p.stdout).splitlines()) == 3 and written_count(text(p.stderr)) == 3,
                f"--print -c 3: {len(text(p.stdout).splitlines())} lines, {written_count(text(p.stderr))} written")
    report(name, ok)


def write_stdout(dec, cap, workdir):
    """-w - into a pipe: tshark -r - reads the capture."""
    name = "decode_write_stdout"
    n = len(text(run([dec, "--qp", "0x100", cap]).stdout).splitlines())
    d = subprocess.Popen([dec, "-r", cap, "--qp", "0x100", "-w", "-"], stdout=subprocess.PIPE)
    t = subprocess.run(["tshark", "-n", "-r", "-"], stdin=d.stdout, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=120)
    d.stdout.close()
    rc = d.wait(timeout=120)
    count = len(text(t.stdout).splitlines())
    ok = check(name, rc == 0 and t.returncode == 0 and count == n, f"exit {rc}/{t.returncode}: {count} of {n}")
    report(name, ok)


def write_failures(dec, gen, cap, workdir):
    """No half file looks complete: a failed or killed run leaves the old file as it was."""
    name = "decode_write_atomic"
    old = os.path.join(workdir, "old.pcap")
    with open(old, "wb") as f:
        f.write(b"old contents")
    ok = True
    for args, status in (([dec, "-r", "missing.pcap", "-w", old], 1),
                         ([dec, "-r", cap, "-f", "no such filter", "-w", old], 1),
                         ([dec, "-r", cap, "-w", "/dev/full"], 1),
                         ([dec, "-r", cap, "-w", os.path.join(workdir, "no", "dir", "x.pcap")], 1)):
        p = run(args, cwd=workdir)
        ok &= check(name, p.returncode == status, f"{args[1:]}: exit {p.returncode}, want {status}: {p.stderr!r}")
    # Killed while writing (a file-size limit: SIGXFSZ): the old file is untouched, the partial capture
    # has only the temporary name.
    import resource
    p = run([dec, "-r", cap, "-w", old], cwd=workdir,
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (16384, 16384)))
    ok &= check(name, p.returncode != 0, f"a run past RLIMIT_FSIZE exited {p.returncode}")
    ok &= check(name, open(old, "rb").read() == b"old contents", "the old file changed")
    for f in os.listdir(workdir):
        if f.startswith(".old.pcap.tmp."):
            os.unlink(os.path.join(workdir, f))
    ok &= write_signalled(dec, gen, workdir, old)
    report(name, ok)


def write_signalled(dec, gen, workdir, old):
    """A signal while writing. SIGPIPE (`--print | head`) kills: the temporary file goes with the
    process, the old file stays. SIGTERM stops the reading (issue 28 item 5): exit 143, and the file
    is a complete capture of the packets before it, renamed into place, as tcpdump leaves its -w file
    (tools/ornic-decode/README.md)."""
    name = "decode_write_signal"
    big = os.path.join(workdir, "big.pcap")
    p = run([gen, "-o", big, "-q", "--wqes", "64", "--wqe-size", "1M", "--pmtu", "1024"])
    if not check(name, p.returncode == 0, f"ornic-pcapgen: {text(p.stderr)}"):
        return False
    ok = True
    for sig in (signal.SIGPIPE, signal.SIGTERM):
        pr = subprocess.Popen([dec, "-r", big, "-w", old, "--print"], cwd=workdir,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        pr.stdout.readline()
        if sig == signal.SIGPIPE:
            pr.stdout.close()  # the reader goes, as head does
            rc = pr.wait(timeout=60)
        else:
            pr.send_signal(sig)
            pr.communicate(timeout=60)  # the lines decoded before it are still written
            rc = pr.returncode
        left = [f for f in os.listdir(workdir) if f.startswith(".old.pcap.tmp.")]
        if sig == signal.SIGPIPE:
            ok &= check(name, rc == -sig and not left and open(old, "rb").read() == b"old contents",
                        f"{sig.name}: exit {rc}, temporary files left {left}")
            continue
        got, whole = run([dec, "--stats", old]), run([dec, "--stats", big])
        n = [int(text(r.stdout).split("\n")[1].split()[1]) if r.returncode == 0 else -1 for r in (got, whole)]
        ok &= check(name, rc == 128 + sig and not left and 0 < n[0] < n[1],
                    f"{sig.name}: exit {rc}, temporary files left {left}, {n[0]} of {n[1]} packets in the "
                    f"-w file: {text(got.stderr)}")
    os.unlink(big)
    return ok


def filter_file(dec, cap, workdir):
    """-f on a file: the packets tshark's equivalent display filter keeps; frame numbers stay the file's."""
    name = "decode_filter_file"
    p = run([dec, "-f", "src host 10.0.0.1", cap])
    lines = text(p.stdout).splitlines()
    rc, n, _ = tshark_count(cap, ["-Y", "ip.src == 10.0.0.1"])
    ok = check(name, p.returncode == 0 and rc == 0 and len(lines) == n and n > 0,
               f"exit {p.returncode}: {len(lines)} lines, tshark {n}")
    ok &= check(name, all(" 10.0.0.1 > " in l for l in lines), "a line from another source")
    frames = [int(l.split()[0]) for l in lines]
    ok &= check(name, frames and frames[-1] > len(frames), "frame numbers are renumbered, not the file's")
    p = run([dec, "-f", "tcpx", cap])
    ok &= check(name, p.returncode == 1 and "bad filter 'tcpx'" in text(p.stderr) and p.stdout == b"",
                f"bad filter: exit {p.returncode}, {p.stderr!r}")
    report(name, ok)


# ---- ornic-decode on a capture without RoCE ---------------------------------------

def eth_ipv4_udp(dport, payload=b"x" * 10):
    udp = struct.pack(">HHHH", 5000, dport, 8 + len(payload), 0) + payload
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 1, 0, 64, 17, 0, bytes([10, 0, 0, 1]),
                     bytes([10, 0, 0, 2]))
    return b"\x02" * 6 + b"\x04" * 6 + b"\x08\x00" + ip + udp


def arp():
    return b"\xff" * 6 + b"\x04" * 6 + b"\x08\x06" + bytes(28)


NOTE = ("ornic-decode: {n} frames read, none RoCE (UDP port {port} or EtherType 0x8915): {seen}; offloaded RDMA "
        "traffic does not reach tcpdump on most NICs: see README.md \"Capturing RoCE\"\n")


def decode_no_roce(dec, workdir):
    fresh(workdir)
    cap = os.path.join(workdir, "noroce.pcap")
    write_pcap(cap, [eth_ipv4_udp(53)] * 3 + [arp()] * 2)
    name = "decode_no_roce_note"
    p = run([dec, cap])
    want = NOTE.format(n=5, port=4791, seen="3 UDP to other ports, 2 other protocols")
    ok = check(name, p.returncode == 0, f"exit {p.returncode}")
    ok &= check(name, p.stdout == b"", f"stdout {p.stdout!r}")
    ok &= check(name, text(p.stderr) == want, f"stderr {text(p.stderr)!r}, expected {want!r}")
    p = run([dec, "--port", "53", "--stats", cap])
    ok &= check(name, "none RoCE" not in text(p.stderr), "--port 53 decodes the UDP frames, yet the note came")
    p = run([dec, "-f", "arp", cap])
    want = NOTE.format(n=5, port=4791, seen="2 other protocols").replace("5 frames read,",
                                                                        "5 frames read, 2 passed -f 'arp',")
    ok &= check(name, text(p.stderr) == want, f"-f arp: stderr {text(p.stderr)!r}, expected {want!r}")
    p = run([dec, "-q", cap])
    ok &= check(name, p.returncode == 0 and p.stderr == b"", f"-q: exit {p.returncode}, stderr {p.stderr!r}")
    empty = os.path.join(workdir, "empty.pcap")
    write_pcap(empty, [])
    p = run([dec, empty])
    ok &= check(name, p.returncode == 0 and text(p.stderr).startswith("ornic-decode: 0 frames read, none RoCE"),
                f"header-only capture: exit {p.returncode}, {p.stderr!r}")
    report(name, ok)
    # A capture with RoCE says nothing, unless --qp matches none of it.
    name = "decode_roce_no_note"
    roce = os.path.join(workdir, "roce.pcap")
    examples = os.path.join(os.path.dirname(dec), "ornic-examples")
    if os.path.exists(examples) and run([examples, "--pcap", roce]).returncode == 0:
        p = run([dec, roce])
        ok = check(name, p.returncode == 0 and p.stderr == b"", f"stderr {p.stderr!r}")
        p = run([dec, "--qp", "0xabcdef", roce])
        ok &= check(name, re.fullmatch(r"ornic-decode: none of the \d+ RoCE packets has DestQP 0xabcdef \(--qp\)\n",
                                       text(p.stderr)) is not None, f"--qp matching none: {p.stderr!r}")
        report(name, ok)
    setcap_hint(dec, workdir)
    return 0


def setcap_hint(dec, workdir):
    """Without CAP_NET_RAW the hint names this very program, not /path/to/ornic-decode."""
    name = "decode_setcap_hint"
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or not setpriv:
        print(f"SKIP {name}: needs root and setpriv to run as nobody")
        return
    # A copy nobody can reach: CI's clone sits in a folder only root may enter.
    import tempfile
    home = tempfile.mkdtemp(prefix="ornic-setcap-")
    os.chmod(home, 0o755)
    dec = shutil.copy(dec, os.path.join(home, "ornic-decode"))
    os.chmod(dec, 0o755)
    p = run([setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", dec, "-i", "lo", "-c", "1"])
    err = text(p.stderr)
    shutil.rmtree(home, ignore_errors=True)
    real = os.path.realpath(dec)
    ok = check(name, p.returncode == 1 and f"setcap cap_net_raw+ep {real}" in err,
               f"exit {p.returncode}, stderr {err!r}, expected the path {real}")
    report(name, ok)


# ---- man pages and completion -------------------------------------------------------

def help_options(binary):
    """Every option an option line of --help names (the lines the completion reads too)."""
    out = text(run([binary, "--help"]).stdout)
    opts = set()
    for line in out.splitlines():
        m = re.match(r"^( {1,8})(-.*)$", line)
        if not m:
            continue
        rest = m.group(2)
        while True:
            o = re.match(r"^(--?[A-Za-z0-9][A-Za-z0-9-]*)(, )?", rest)
            if not o:
                break
            opts.add(o.group(1))
            rest = rest[o.end():]
            if not o.group(2):
                break
    return opts


def test_man(mandir, version, progs):
    for prog, binary in progs:
        name = f"man_{prog}"
        page = os.path.join(mandir, f"{prog}.1")
        if not check(name, os.path.exists(page), f"{page} was not generated"):
            report(name, False)
            continue
        roff = open(page, encoding="utf-8", errors="replace").read()
        plain = re.sub(r"\\f[BIRP]|\\f\(..|\\/|\\,|\\&", "", roff).replace("\\-", "-")
        ok = check(name, re.search(rf'^\.TH {re.escape(prog.upper())} "1" ".*" "{re.escape(prog)} {version}"',
                                   roff, re.M) is not None, "no .TH line with the program and version")
        ok &= check(name, re.search(r"^\.SH SYNOPSIS", roff, re.M) is not None, "no SYNOPSIS")
        missing = sorted(o for o in help_options(binary) if not re.search(rf"(?<![\w-]){re.escape(o)}(?![\w-])",
                                                                          plain))
        ok &= check(name, not missing, f"options of --help missing from the page: {missing}")
        ok &= check(name, "SEE ALSO" in roff, "no SEE ALSO")
        if prog == "ornic-decode":
            ok &= check(name, "CAPTURING ROCE" in roff, "no CAPTURING ROCE section")
        report(name, ok)


def complete(script, prog, binary, words, env):
    """COMPREPLY of the completion function for the command line `words` (the last one being completed)."""
    line = " ".join([prog] + words)
    sh = (f'source "{script}"; COMP_WORDS=({prog} ' + " ".join(f"'{w}'" for w in words) +
          f'); COMP_CWORD={len(words)}; COMP_LINE="{line}"; COMP_POINT=${{#COMP_LINE}}; '
          f'_ornic_tools {prog} "{words[-1]}" "{words[-2] if len(words) > 1 else prog}"; '
          'printf "%s\\n" "${COMPREPLY[@]}"')
    p = run(["bash", "-c", sh], env=env)
    return set(text(p.stdout).split())


def test_completion(script, progs):
    for prog, binary in progs:
        name = f"completion_{prog}"
        env = dict(os.environ, PATH=os.path.dirname(os.path.abspath(binary)) + os.pathsep + os.environ["PATH"])
        want = help_options(binary)
        got = complete(script, prog, binary, ["-"], env) | complete(script, prog, binary, ["--"], env)
        ok = check(name, want and want <= got, f"not offered: {sorted(want - got)}")
        ok &= check(name, got <= want, f"offered but not in --help: {sorted(got - want)}")
        if prog == "ornic-pcapgen":
            ok &= check(name, {"ornic", "roce"} <= complete(script, prog, binary, ["--profile", ""], env),
                        "--profile does not complete the profiles of --list-profiles")
        if prog == "ornic-examples":
            ok &= check(name, "fspot-ipv4" in complete(script, prog, binary, ["fsp"], env),
                        "example names are not completed")
        if prog == "ornic-decode":
            ok &= check(name, "any" in complete(script, prog, binary, ["-i", ""], env), "-i does not complete 'any'")
        report(name, ok)


def test_install(builddir, workdir):
    """cmake --install: the man pages into share/man/man1, a completion per program."""
    name = "install_man_and_completion"
    fresh(workdir)
    p = run(["cmake", "--install", builddir, "--prefix", workdir], timeout=600)
    ok = check(name, p.returncode == 0, f"cmake --install: {text(p.stderr)[-300:]}")
    for prog in CASES:
        if prog == "ornic-mutate" and not os.path.exists(os.path.join(workdir, "bin", prog)):
            continue  # built only with fuzz/ (tools/ornic-mutate/CMakeLists.txt)
        comp = os.path.join(workdir, "share", "bash-completion", "completions", prog)
        ok &= check(name, os.path.exists(comp), f"no {comp}")
        page = os.path.join(workdir, "share", "man", "man1", f"{prog}.1")
        ok &= check(name, os.path.exists(page), f"no {page}")
        if shutil.which("man") and os.path.exists(page):
            r = run(["man", "-l", page], env=dict(os.environ, MANWIDTH="80", MAN_KEEP_FORMATTING="0"))
            ok &= check(name, r.returncode == 0 and prog in text(r.stdout), f"man -l {page}: {r.returncode}")
    report(name, ok)


def pairs(args):
    return [tuple(a.split("=", 1)) for a in args]


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    cmd, a = sys.argv[1], sys.argv[2:]
    rc = 0
    if cmd == "convention":
        test_convention(a[0], a[1], a[2], a[3])
    elif cmd == "decode-write":
        rc = decode_write(a[0], a[1], a[2])
    elif cmd == "decode-no-roce":
        rc = decode_no_roce(a[0], a[1])
    elif cmd == "man":
        test_man(a[0], a[1], pairs(a[2:]))
    elif cmd == "completion":
        test_completion(a[0], pairs(a[1:]))
    elif cmd == "install":
        test_install(a[0], a[1])
    else:
        print(__doc__)
        return 2
    return CHECKS.report() or rc


if __name__ == "__main__":
    sys.exit(main())
