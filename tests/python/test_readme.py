# SPDX-License-Identifier: MIT
"""python/README.md's examples are real: every ```python block runs (one namespace, in a
temporary directory) and must print exactly the ```text block after it; a text block marked
<!-- command: PROGRAM ARGS --> is that program's output there. `python3 test_readme.py --write`
rewrites the outputs in the README instead."""
import contextlib
import io
import os
import re
import shlex
import subprocess
import sys
import tempfile
import unittest

from helpers import ROOT, program

README = os.path.join(ROOT, "python", "README.md")
BLOCK = re.compile(r"(?:<!-- command: (.*?) -->\n)?```(\w+)\n(.*?)```", re.S)


class _Cd:
    """chdir for a with block (contextlib.chdir is Python 3.11's)."""

    def __init__(self, path):
        self.path, self.old = path, os.getcwd()

    def __enter__(self):
        os.chdir(self.path)

    def __exit__(self, *exc):
        os.chdir(self.old)


def outputs(text):
    """[(span of a text block's body, what it should hold)] for every text block the README runs."""
    found, ns, last_out = [], {}, None
    with tempfile.TemporaryDirectory() as tmp, _Cd(tmp):
        for m in BLOCK.finditer(text):
            command, lang, body = m.groups()
            if lang == "python":
                buf = io.StringIO()
                with contextlib.redirect_stdout(buf):
                    exec(compile(body, README, "exec"), ns)  # noqa: S102 (the README's own examples)
                last_out = buf.getvalue()
            elif lang == "text" and command:
                args = shlex.split(command)
                found.append((m.span(3), subprocess.run([program(args[0])] + args[1:], capture_output=True,
                                                        text=True, check=True).stdout))
            elif lang == "text" and last_out is not None:
                found.append((m.span(3), last_out))
                last_out = None
    return found


class ReadmeExamples(unittest.TestCase):
    def test_outputs_are_current(self):
        with open(README, encoding="utf-8") as f:
            text = f.read()
        found = outputs(text)
        self.assertGreaterEqual(len(found), 5)
        for (start, end), want in found:
            with self.subTest(line=text.count("\n", 0, start) + 1):
                self.assertEqual(text[start:end], want)


def write():
    with open(README, encoding="utf-8") as f:
        text = f.read()
    for (start, end), out in reversed(outputs(text)):
        text = text[:start] + out + text[end:]
    with open(README, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        write()
    else:
        unittest.main()
