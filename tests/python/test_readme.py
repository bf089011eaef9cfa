# SPDX-License-Identifier: MIT
"""python/README.md's examples are real: every ```python block runs (one namespace, in a
temporary directory) and must print exactly the ```text block after it; a text block marked
<!-- command: PROGRAM ARGS --> is that program's output there. `python3 test_readme.py --write`
rewrites the outputs in the README instead. Also README.md's own Python example (section "Python:
Scapy layers") runs."""
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


class TopReadmeExample(unittest.TestCase):
    def test_python_section_example(self):
        """README.md's ```python block (section "Python: Scapy layers") runs as written from the source
        tree (here a temporary directory whose python/ is the tree's) and writes the FSpot it builds."""
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
            text = f.read()
        section = text[text.index("### Python: Scapy layers"):]
        code = re.search(r"^```python\n(.*?)^```", section, re.S | re.M).group(1)
        with tempfile.TemporaryDirectory() as tmp:
            os.symlink(os.path.join(ROOT, "python"), os.path.join(tmp, "python"))
            subprocess.run([sys.executable, "-c", code], cwd=tmp, check=True, capture_output=True)
            line = subprocess.run([program("ornic-decode"), "--no-analysis", os.path.join(tmp, "fspot.pcap")],
                                  check=True, capture_output=True, text=True).stdout
        self.assertRegex(line, r"^1 \S+ \S+ > 10\.0\.0\.2 ORNIC_OOO_WRITE_FSPOT qp=0x000012 psn=7 "
                               r"va=0x00007f0000000000 rkey=0x1234abcd dmalen=4096 offset=0 len=1024 icrc=ok\n$")


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
