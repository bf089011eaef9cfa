#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes FILE to stdout in pieces of 1 to 70000 bytes (seeded), flushing
each: a reader on the other end of the pipe gets reads that end anywhere,
inside record headers and blocks included.    pieces.py FILE"""
import random
import sys

data = open(sys.argv[1], "rb").read()
rng = random.Random(len(data))
out, o = sys.stdout.buffer, 0
try:
    while o < len(data):
        n = rng.choice((1, 3, 7, 16, 100, 1500, rng.randint(1, 70000)))
        out.write(data[o:o + n])
        out.flush()
        o += n
except BrokenPipeError:
    pass
