#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""SIGINT, SIGTERM and SIGHUP end ornic-decode's reading of a pipe cleanly (issue 28 item 5).

    test_decode_signals.py DECODE TESTGEN WORKDIR

`tcpdump -w - | ornic-decode --stats -` stopped with Ctrl-C printed nothing: the handlers were
installed for live capture only, so the signal killed the program with its 256 KiB output buffer
unwritten. Each case here writes a capture (ornic-decode-testgen's `cases`) into a pipe it leaves
open, waits until ornic-decode has read all of it and blocks in read(2) on the empty pipe, sends the
signal, and checks:
  - the exit status is 128 + the signal (130, 143, 129; tools/ornic-decode/README.md);
  - stdout is what the same capture read from its file prints: every line with text and --json,
    and with --stats the same summary, whose capture line says it was interrupted (--json:
    "interrupted": "SIGINT");
  - stderr says it was interrupted, by which signal, after how many packets;
  - through gzip, and through libpcap (ORNIC_DECODE_READER=libpcap), the same;
  - with -w FILE: FILE is a complete capture of every packet read (renamed into place; no temporary
    file left), as tcpdump leaves its -w file on Ctrl-C.
Exit 0 when every check passes, 1 otherwise."""
import fcntl
import json
import os
import signal
import struct
import subprocess
import sys
import termios
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from cli_common import Checks  # noqa: E402

DEC, TGEN, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
CHECKS = Checks()
check = CHECKS.check
NAMES = {signal.SIGINT: "SIGINT", signal.SIGTERM: "SIGTERM", signal.SIGHUP: "SIGHUP"}


def pipe_unread(fd):
    """Bytes written into the pipe that nobody has read yet (FIONREAD works on either end)."""
    buf = fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0")
    return struct.unpack("i", buf)[0]


def state(pid):
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0]


def wait_blocked(proc, wfd, timeout=20):
    """Until the pipe is empty and the process sleeps (in read: it has nothing else to wait for),
    three times in a row 50 ms apart. False on timeout or exit."""
    deadline, calm = time.monotonic() + timeout, 0
    while time.monotonic() < deadline and proc.poll() is None:
        calm = calm + 1 if pipe_unread(wfd) == 0 and state(proc.pid) == "S" else 0
        if calm == 3:
            return True
        time.sleep(0.05)
    return False


def interrupted_run(args, data, sig, env=None):
    """ornic-decode ARGS reading `data` from a pipe left open, then `sig`: (exit status, stdout,
    stderr), or None when it never blocked."""
    rfd, wfd = os.pipe()
    proc = subprocess.Popen([DEC, *args], stdin=rfd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=dict(os.environ, **(env or {})), cwd=WORK)
    os.close(rfd)
    os.write(wfd, data)
    blocked = wait_blocked(proc, wfd)
    if blocked:
        proc.send_signal(sig)
    try:
        out, err = proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        err += b"\n(killed: still running 20 s after the signal)"
    os.close(wfd)
    return proc.returncode, out.decode(errors="replace"), err.decode(errors="replace"), blocked


def from_file(args, path):
    r = subprocess.run([DEC, *args, path], capture_output=True, text=True)
    return r.stdout


def expect_stats(name, out, want, sig, json_out):
    """--stats: the file's summary, but the capture line (text) or key (JSON) says interrupted."""
    if json_out:
        try:
            got, ref = json.loads(out), json.loads(want)
        except ValueError as e:
            return check(name, False, f"--json --stats is not one JSON object ({e}): {out[:200]!r}")
        ok = check(name, got.pop("interrupted", None) == NAMES[sig], f"no \"interrupted\": \"{NAMES[sig]}\": {out[:300]}")
        for d in (got, ref):
            d.pop("capture", None)
        return check(name, got == ref, "the summary differs from the file's") and ok
    lines, ref = out.splitlines(), want.splitlines()
    ok = check(name, lines[:1] and f"interrupted by {NAMES[sig]}" in lines[0],
               f"the capture line does not say interrupted: {lines[:1]}")
    return check(name, lines[1:] == ref[1:], f"the summary differs from the file's:\n{out}") and ok


def case(name, args, data, sig, want, env=None, stats=False, json_out=False, npackets=None):
    rc, out, err, blocked = interrupted_run([*args, "-"], data, sig, env)
    if not check(name, blocked, f"ornic-decode never blocked on the empty pipe (exit {rc}): {err.strip()}"):
        return
    ok = check(name, rc == 128 + sig, f"exit {rc}, want {128 + sig}: {err.strip()}")
    if stats:
        ok &= expect_stats(name, out, want, sig, json_out)
    else:
        ok &= check(name, out == want, f"{len(out.splitlines())} lines, the file gives {len(want.splitlines())}")
    said = f"interrupted by {NAMES[sig]} after {npackets} packets"
    ok &= check(name, said in err, f"stderr does not say '{said}': {err.strip()}")
    print(f"{'ok' if ok else 'FAIL'}: {name}")


def write_case(data, path, want):
    """-w out.pcap from a pipe, SIGINT: out.pcap complete and in place, no temporary file."""
    name = "-w, SIGINT"
    out = os.path.join(WORK, "w-out.pcap")
    if os.path.exists(out):
        os.unlink(out)
    # -v: -w writes what the text output would show, skipped packets only with it
    rc, _, err, blocked = interrupted_run(["-v", "-w", out, "-"], data, signal.SIGINT)
    if not check(name, blocked, f"never blocked (exit {rc}): {err.strip()}"):
        return
    ok = check(name, rc == 130, f"exit {rc}: {err.strip()}")
    left = [f for f in os.listdir(WORK) if f.startswith(".w-out.pcap.tmp.")]
    ok &= check(name, not left, f"temporary files left: {left}")
    ok &= check(name, os.path.exists(out) and from_file(["-v"], out) == want,
                "the -w file is missing or does not hold every packet read")
    print(f"{'ok' if ok else 'FAIL'}: {name}")


def main():
    os.makedirs(WORK, exist_ok=True)
    path = os.path.join(WORK, "cases.pcap")
    subprocess.run([TGEN, "cases", path], check=True, stderr=subprocess.DEVNULL)
    data = open(path, "rb").read()
    n = sum(1 for _ in iter_records(data))
    z = zlib.compressobj(wbits=31)  # gzip, flushed so that every byte inflates without the end
    gz = z.compress(data) + z.flush(zlib.Z_SYNC_FLUSH)
    text, stats = from_file([], path), from_file(["--stats"], path)
    jstats = from_file(["--stats", "--json"], path)
    case("--stats, SIGINT", ["--stats"], data, signal.SIGINT, stats, stats=True, npackets=n)
    case("--stats, SIGTERM", ["--stats"], data, signal.SIGTERM, stats, stats=True, npackets=n)
    case("--stats --json, SIGTERM", ["--stats", "--json"], data, signal.SIGTERM, jstats, stats=True,
         json_out=True, npackets=n)
    case("text, SIGINT", [], data, signal.SIGINT, text, npackets=n)
    case("text, SIGTERM", [], data, signal.SIGTERM, text, npackets=n)
    case("text, SIGHUP", [], data, signal.SIGHUP, text, npackets=n)
    case("--json, SIGINT", ["--json"], data, signal.SIGINT, from_file(["--json"], path), npackets=n)
    case("text from gzip, SIGINT", [], gz, signal.SIGINT, text, npackets=n)
    case("text through libpcap, SIGINT", [], data, signal.SIGINT, text,
         env={"ORNIC_DECODE_READER": "libpcap"}, npackets=n)
    write_case(data, path, from_file(["-v"], path))
    return CHECKS.report()


def iter_records(data):
    """The records of a little-endian classic pcap."""
    off = 24
    while off + 16 <= len(data):
        caplen = struct.unpack("<I", data[off + 8:off + 12])[0]
        yield off
        off += 16 + caplen


if __name__ == "__main__":
    sys.exit(main())
