#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A stop signal in the middle of a regular file read with --threads 2 (issue 33, "Both cores").

    test_decode_threads_signals.py DECODE PCAPGEN WORKDIR

With --threads 2 a file is read and decoded on a second thread, which may have read ahead of what
the main thread printed. A stop must still end the run as with one thread (tools/ornic-decode/
README.md, "Stopping a file, pipe or stdin"): the exit status 128 + the signal, stderr's
`interrupted by SIGINT after N packets`, and N the packets printed, no more, no fewer: stdout is the
first N lines of the uninterrupted run's, whole lines only.

The stop lands mid-file without timing: ornic-decode writes into a pipe this test does not read
until the signal is sent, so it is blocked in write(2) with most of a 20,000-frame capture unread
(a pipe holds 64 KiB, the output buffer 256 KiB, the reader's ring 1,024 packets). Exit 0 when every
check passes, 1 otherwise."""
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from cli_common import Checks  # noqa: E402

DEC, GEN, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
CHECKS = Checks()
check = CHECKS.check
NAMES = {signal.SIGINT: "SIGINT", signal.SIGTERM: "SIGTERM"}


def state(pid):
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0]


def wait_asleep(proc, timeout=20):
    """Until the process sleeps (blocked writing into the full pipe) three times 50 ms apart."""
    deadline, calm = time.monotonic() + timeout, 0
    while time.monotonic() < deadline and proc.poll() is None:
        calm = calm + 1 if state(proc.pid) == "S" else 0
        if calm == 3:
            return True
        time.sleep(0.05)
    return False


def case(name, args, path, sig, full):
    proc = subprocess.Popen([DEC, "--threads", "2", *args, path], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    blocked = wait_asleep(proc)
    if blocked:
        proc.send_signal(sig)
    out, err = proc.communicate(timeout=20)
    if not check(name, blocked, "never blocked on its output (exit %s)" % proc.returncode):
        return
    check(name, proc.returncode == 128 + sig, f"exit status {proc.returncode}, not {128 + sig}")
    words = err.decode().split()
    try:
        n = int(words[words.index("after") + 1])
    except (ValueError, IndexError):
        check(name, False, f"stderr does not count the packets: {err!r}")
        return
    want = f"ornic-decode: {path}: interrupted by {NAMES[sig]} after {n} packets\n"
    check(name, err.decode() == want, f"stderr {err!r}, not {want!r}")
    lines = out.split(b"\n")
    whole = out.endswith(b"\n")
    check(name, whole and len(lines) - 1 == n,
          f"{len(lines) - 1} lines (the last whole: {whole}) for {n} packets")
    check(name, 0 < n < len(full), f"{n} packets of {len(full)}: not stopped mid-file")
    check(name, lines[:-1] == full[:n], "stdout is not the first lines of the whole run's")


def main():
    os.makedirs(WORK, exist_ok=True)
    path = os.path.join(WORK, "frames.pcap")
    subprocess.run([GEN, "--bench", "20000", "-q", "-o", path], check=True, stdout=subprocess.DEVNULL)
    for args, sig in (([], signal.SIGINT), ([], signal.SIGTERM), (["--json"], signal.SIGINT),
                      (["--no-analysis", "-v"], signal.SIGINT)):
        full = subprocess.run([DEC, "--threads", "1", *args, path], stdout=subprocess.PIPE,
                              check=True).stdout.split(b"\n")[:-1]
        case(f"{' '.join(args) or 'text'}, {NAMES[sig]}", args, path, sig, full)
    return CHECKS.report()


if __name__ == "__main__":
    sys.exit(main())
