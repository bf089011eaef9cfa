#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Feeds each FILE to `DECODER -v -` through a pipe in pieces of 1 to 70000
bytes (seeded by the file's length), flushing each, once per capture reader
(ORNIC_DECODE_READER=own, then libpcap): the reader gets reads that end
anywhere, inside record headers and blocks included. The two runs' stdout,
stderr and exit status must be byte-identical.
    pieces.py DECODER FILE...
Prints "FAIL: ..." per difference and "compared N" at the end. One Python
for every file: starting Python took 0.36-0.41 s on the 2-core development VM
(`time python3 -S -c pass`), and a start per file and reader (46 of them)
was most of the difference between the test's 42 s and 24 s there."""
import os
import random
import subprocess
import sys
import tempfile


def run(decoder, data, reader, tmp):
    """stdout, stderr and exit status of one decode fed in pieces."""
    env = dict(os.environ, ORNIC_DECODE_READER=reader)
    with open(os.path.join(tmp, "out"), "w+b") as out, open(os.path.join(tmp, "err"), "w+b") as err:
        p = subprocess.Popen([decoder, "-v", "-"], stdin=subprocess.PIPE, stdout=out, stderr=err,
                             env=env)
        rng, o = random.Random(len(data)), 0
        try:
            while o < len(data):
                n = rng.choice((1, 3, 7, 16, 100, 1500, rng.randint(1, 70000)))
                p.stdin.write(data[o:o + n])
                p.stdin.flush()
                o += n
            p.stdin.close()
        except BrokenPipeError:
            pass  # the decoder stopped reading (a damaged capture): its exit status says why
        rc = p.wait()
        out.seek(0)
        err.seek(0)
        return out.read(), err.read(), rc


def main():
    decoder, files = sys.argv[1], sys.argv[2:]
    compared = 0
    with tempfile.TemporaryDirectory() as tmp:
        for f in files:
            data = open(f, "rb").read()
            own, lib = run(decoder, data, "own", tmp), run(decoder, data, "libpcap", tmp)
            compared += 1
            if own != lib:
                what = [k for k, a, b in zip(("stdout", "stderr", "exit status"), own, lib) if a != b]
                print(f"FAIL: {f} [-v, from a pipe in pieces]: {', '.join(what)} differ "
                      f"(exit {own[2]} vs {lib[2]})")
    print(f"compared {compared}")


if __name__ == "__main__":
    main()
