#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Documentation that cannot drift: runs the examples of the Markdown files and compares what they show.

Two kinds of executable example (tests/docs/README.md has the whole convention):

* A transcript: a fenced block whose first line starts with `$ `. Every `$ COMMAND` line (a trailing `\\`
  continues it on the next line) is run with bash (pipefail) in a scratch directory of the document's own,
  shared by its blocks in order, with the build's programs on PATH; the lines after it, up to the next `$ `
  line, are its standard output, compared exactly. A comment right before the block changes that:

      <!-- doc-test: slow -->                  run by scripts/docs-regen.sh only (minutes, or gigabytes)
      <!-- doc-test: skip REASON -->           not run (needs root, a live interface, ...); REASON is shown
      <!-- doc-test: stderr -->                stderr is part of the output (the same pipe as stdout)
      <!-- doc-test: setup COMMAND -->         a command run first, its output not shown (several: one line each)

  several of them in one comment, one per line after `doc-test:`.

* A generated region: everything between `<!-- regen: COMMAND -->` and `<!-- /regen -->` is COMMAND's standard
  output (run the same way; tests/docs/ is on PATH, so its table generators are). When the region holds a
  fenced block, the output goes inside the fence. `<!-- regen slow: COMMAND -->` is for scripts/docs-regen.sh
  only. An indented marker indents the output as much (a table in a list item). On one line,
  `<!-- regen: COMMAND -->TEXT<!-- /regen -->` replaces TEXT with the output's one line.

Also checked, in every file: no text names a library version above this one (`library 2.0` in a 1.x tree).

  doc_check.py [--write] [--slow|--all] [--bin DIR] [--tool NAME=PATH]... [--version X.Y.Z] [FILE...]

--check (the default) prints a unified diff for every example whose output differs and exits 1; --write
puts the outputs in the files instead (scripts/docs-regen.sh). --list prints what would run."""
import argparse
import concurrent.futures
import difflib
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DOCS = ["README.md", "pcapgen/README.md", "tools/*/README.md", "python/README.md", "docs/*.md"]

FENCE = re.compile(r"^( *)(```+|~~~+)(.*)$")
DOC_TEST = re.compile(r"^\s*<!--\s*doc-test:?(.*?)-->\s*$", re.S)
REGEN_OPEN = re.compile(r"^\s*<!--\s*regen( slow)?:\s*(.*?)\s*-->\s*$")
REGEN_CLOSE = re.compile(r"^\s*<!--\s*/regen\s*-->\s*$")
REGEN_INLINE = re.compile(r"<!--\s*regen( slow)?:\s*(.*?)\s*-->(.*?)<!--\s*/regen\s*-->")
VERSION_MENTION = re.compile(r"\b(?:library|libornicproto) (\d+)\.(\d+)(?:\.(\d+))?\b")


class Example:
    """One executable example: a transcript or a regenerated region, and where it sits in its file."""

    def __init__(self, kind, path, line, slow=False):
        self.kind, self.path, self.line, self.slow = kind, path, line, slow
        self.skip = None  # reason
        self.stderr = False
        self.setup = []
        self.items = []  # transcript: [(command, [expected lines])]
        self.command = None  # regen
        self.span = None  # (first line index, end line index) of the text the example owns
        self.fence = None  # regen: (indent, fence, info) when the region is one fenced block
        self.inline = None  # inline regen: (line index, start, end) of TEXT
        self.indent = ""  # regen: the marker's indentation, given to every line of the output

    def where(self):
        return "%s:%d" % (os.path.relpath(self.path, ROOT), self.line)


def parse_doc_test(comment):
    """Options of a <!-- doc-test: ... --> comment."""
    opts = {"slow": False, "skip": None, "stderr": False, "setup": []}
    for raw in comment.strip().splitlines():
        word, _, rest = raw.strip().partition(" ")
        if not word:
            continue
        if word == "slow":
            opts["slow"] = True
        elif word == "stderr":
            opts["stderr"] = True
        elif word == "skip":
            opts["skip"] = rest.strip() or "no reason given"
        elif word == "setup":
            opts["setup"].append(rest.strip())
        else:
            raise ValueError("unknown doc-test option %r" % word)
    return opts


def parse_transcript(lines):
    """[(command, [expected output lines])] of a transcript's lines (fence removed, dedented)."""
    items, i = [], 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith("$ "):
            if not items:
                raise ValueError("a transcript starts with a `$ ` line")
            items[-1][1].append(line)
            i += 1
            continue
        cmd = line[2:]
        while cmd.endswith("\\") and i + 1 < len(lines):
            i += 1
            cmd = cmd + "\n" + lines[i]
        items.append((cmd, []))
        i += 1
    return items


def scan(path):
    """The examples of one Markdown file, and its lines (with their ends)."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines(True)
    examples, i, pending, region = [], 0, None, None
    while i < len(lines):
        text = lines[i].rstrip("\n")
        if region is None:
            for m in REGEN_INLINE.finditer(text):
                ex = Example("regen", path, i + 1, slow=bool(m.group(1)))
                ex.command, ex.inline = m.group(2), (i, m.start(3), m.end(3))
                examples.append(ex)
        m = REGEN_OPEN.match(text)
        if m and region is None:
            region = Example("regen", path, i + 1, slow=bool(m.group(1)))
            region.command = m.group(2)
            region.indent = text[:len(text) - len(text.lstrip())]
            region.span = (i + 1, None)
            i += 1
            continue
        if REGEN_CLOSE.match(text):
            if region is None:
                raise ValueError("%s:%d: <!-- /regen --> without <!-- regen: ... -->" % (path, i + 1))
            region.span = (region.span[0], i)
            body = [ln.rstrip("\n") for ln in lines[region.span[0]:i]]
            fm = FENCE.match(body[0]) if body else None
            if fm and FENCE.match(body[-1]):
                region.fence = fm.groups()
            examples.append(region)
            region = None
            i += 1
            continue
        if text.lstrip().startswith("<!--") and "doc-test" in text:
            comment = text
            while "-->" not in comment and i + 1 < len(lines):
                i += 1
                comment += "\n" + lines[i].rstrip("\n")
            m = DOC_TEST.match(comment)
            if not m:
                raise ValueError("%s:%d: cannot read %r" % (path, i + 1, comment))
            if pending:
                raise ValueError("%s:%d: two doc-test comments before one block" % (path, i + 1))
            pending = (i + 1, parse_doc_test(m.group(1)))
            i += 1
            continue
        fm = FENCE.match(text)
        if fm:
            indent, fence = fm.group(1), fm.group(2)
            j = i + 1
            while j < len(lines) and not re.match(r"^ *" + re.escape(fence) + r"\s*$", lines[j].rstrip("\n")):
                j += 1
            body = [ln.rstrip("\n")[len(indent):] if ln.startswith(indent) else ln.rstrip("\n")
                    for ln in lines[i + 1:j]]
            opts = pending[1] if pending else None
            if region is None and body and body[0].startswith("$ "):
                ex = Example("transcript", path, i + 1, slow=bool(opts and opts["slow"]))
                if opts:
                    ex.skip, ex.stderr, ex.setup = opts["skip"], opts["stderr"], opts["setup"]
                ex.items = parse_transcript(body)
                ex.span = (i + 1, j)
                ex.fence = (indent, fence, fm.group(3))
                examples.append(ex)
            elif opts:
                raise ValueError("%s:%d: <!-- doc-test --> before a block that is not a `$ ` transcript"
                                 % (path, i + 1))
            pending = None
            i = j + 1
            continue
        if text.strip() and pending:
            raise ValueError("%s:%d: <!-- doc-test --> not followed by a block" % (path, pending[0]))
        i += 1
    if region is not None:
        raise ValueError("%s:%d: <!-- regen --> without <!-- /regen -->" % (path, region.line))
    return examples, lines


class Runner:
    def __init__(self, args):
        self.args = args
        self.scratch = tempfile.mkdtemp(prefix="doc-check-")
        tools = os.path.join(self.scratch, "tools")
        os.makedirs(tools)
        for spec in args.tool:
            name, _, target = spec.partition("=")
            os.symlink(os.path.abspath(target), os.path.join(tools, name))
        path = [tools, os.path.abspath(args.bin), HERE, os.environ.get("PATH", "/usr/bin:/bin")]
        self.env = dict(os.environ, PATH=os.pathsep.join(path), ORNIC_ROOT=ROOT, ORNIC_BIN=os.path.abspath(args.bin),
                        LC_ALL="C", TZ="UTC", ORNIC_PYTHON=args.python)
        self.env.pop("ORNIC_DECODE_READER", None)

    def workdir(self, path):
        d = os.path.join(self.scratch, os.path.relpath(path, ROOT).replace("/", "_"))
        os.makedirs(d, exist_ok=True)
        return d

    def sh(self, cmd, cwd, stderr=False):
        """(exit status, output) of one command."""
        r = subprocess.run(["bash", "-c", "set -o pipefail\n" + cmd], cwd=cwd, env=self.env, text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT if stderr else subprocess.PIPE,
                           timeout=self.args.timeout)
        return r.returncode, r.stdout, r.stdout if stderr else r.stderr

    def run(self, ex):
        """The text the example should own now, or raises RuntimeError."""
        cwd = self.workdir(ex.path)
        if ex.kind == "regen":
            rc, out, err = self.sh(ex.command, cwd)
            if rc:
                raise RuntimeError("`%s` exited %d: %s" % (ex.command, rc, err.strip()[-2000:]))
            if ex.inline:
                return out.strip("\n")
            if ex.fence:  # trailing blank lines left out, as a document's block would
                indent, fence, info = ex.fence
                return "%s%s%s\n%s%s%s\n" % (indent, fence, info, "".join(
                    indent + ln + "\n" if ln else "\n" for ln in out.rstrip("\n").splitlines()), indent, fence)
            # Indented as its marker (a table inside a list item).
            return "".join(ex.indent + ln + "\n" if ln else "\n" for ln in out.splitlines())
        for cmd in ex.setup:
            rc, _, err = self.sh(cmd, cwd)
            if rc:
                raise RuntimeError("setup `%s` exited %d: %s" % (cmd, rc, err.strip()[-2000:]))
        text = []
        for cmd, _ in ex.items:
            rc, out, err = self.sh(cmd, cwd, ex.stderr)
            if rc:
                raise RuntimeError("`%s` exited %d: %s" % (cmd, rc, err.strip()[-2000:]))
            text.append("$ " + cmd + "\n")
            text.append(out if out.endswith("\n") or not out else out + "\n")
        indent = ex.fence[0]
        return "".join(indent + ln + "\n" if ln else "\n" for ln in "".join(text).splitlines())


def selected(ex, args):
    if ex.skip:
        return False
    return args.all or (ex.slow if args.slow else not ex.slow)


def check_versions(path, lines, version):
    """Mentions of a library version above the tree's own."""
    bad = []
    for n, line in enumerate(lines, 1):
        for m in VERSION_MENTION.finditer(line):
            v = tuple(int(x or 0) for x in m.groups())
            if v > version:
                bad.append("%s:%d: names %s, above this tree's library %s" % (
                    os.path.relpath(path, ROOT), n, m.group(0), ".".join(map(str, version))))
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", help="Markdown files (default: %s)" % " ".join(DEFAULT_DOCS))
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"), help="the build's bin directory")
    ap.add_argument("--tool", action="append", default=[], help="NAME=PATH: one more program on PATH")
    ap.add_argument("--python", default="/usr/bin/python3", help="the Python the generators run with")
    ap.add_argument("--version", help="the library's version (CMake's PROJECT_VERSION) for the version check")
    ap.add_argument("--write", action="store_true", help="write the outputs into the files")
    ap.add_argument("--slow", action="store_true", help="only the slow examples")
    ap.add_argument("--all", action="store_true", help="fast and slow examples")
    ap.add_argument("--list", action="store_true", help="list the examples, run nothing")
    ap.add_argument("--jobs", "-j", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=1800)
    args = ap.parse_args()
    files = args.files or sorted({p for pat in DEFAULT_DOCS for p in glob.glob(os.path.join(ROOT, pat))})
    files = [os.path.abspath(f) for f in files]
    docs = {}
    for f in files:
        docs[f] = scan(f)
    problems = []
    if args.version:
        version = tuple(int(x) for x in args.version.split("."))
        for f, (_, lines) in docs.items():
            problems += check_versions(f, lines, version)
    if args.list:
        for f, (exs, _) in docs.items():
            for ex in exs:
                state = "skip (%s)" % ex.skip if ex.skip else ("slow" if ex.slow else "fast")
                what = ex.command if ex.kind == "regen" else " ; ".join(c for c, _ in ex.items)
                print("%-32s %-10s %-40s %s" % (ex.where(), ex.kind, state, what[:100]))
        return 0
    runner = Runner(args)
    todo = [(f, ex) for f, (exs, _) in docs.items() for ex in exs if selected(ex, args)]
    start = time.time()
    # A document's transcripts run in order (one may read a file an earlier one wrote); its generated regions
    # and other documents' examples run beside them, --jobs at a time.
    units = []
    for f in files:
        exs = [e for g, e in todo if g == f]
        if any(e.kind == "transcript" for e in exs):
            units.append([e for e in exs if e.kind == "transcript"])
        units += [[e] for e in exs if e.kind == "regen"]

    def run_unit(unit):
        out = []
        for ex in unit:
            t0 = time.time()
            try:
                out.append((ex, runner.run(ex), None, time.time() - t0))
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                out.append((ex, None, str(e), time.time() - t0))
        return out
    results = {f: [] for f in files}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for res in pool.map(run_unit, units):
            for item in res:
                results[item[0].path].append(item)
    nrun = ndiff = 0
    for f in files:
        exs, lines = docs[f]
        new = list(lines)
        edits = []
        for ex, text, err, secs in results[f]:
            nrun += 1
            if err:
                problems.append("%s: %s" % (ex.where(), err))
                continue
            if ex.inline:
                ln, a, b = ex.inline
                old = lines[ln][a:b]
                if old != text:
                    ndiff += 1
                    edits.append(("inline", ex, old, text))
                continue
            first, end = ex.span
            old = "".join(lines[first:end])
            if old != text:
                ndiff += 1
                edits.append(("block", ex, old, text))
            if args.write or os.environ.get("DOC_CHECK_TIMES"):
                print("  %5.1f s  %s" % (secs, ex.where()), file=sys.stderr)
        for kind, ex, old, text in edits:
            if not args.write:
                diff = difflib.unified_diff(old.splitlines(True), text.splitlines(True),
                                            "%s (in the document)" % ex.where(), "%s (now)" % ex.where())
                sys.stdout.write("".join(diff) + "\n")
        if args.write and edits:
            # From the end, so that earlier spans stay valid.
            def at(edit):
                ex = edit[1]
                return (ex.inline[0], ex.inline[1]) if ex.inline else (ex.span[0], 0)
            for kind, ex, old, text in sorted(edits, key=at, reverse=True):
                if kind == "inline":
                    ln, a, b = ex.inline
                    new[ln] = new[ln][:a] + text + new[ln][b:]
                else:
                    first, end = ex.span
                    new[first:end] = text.splitlines(True)
            with open(f, "w", encoding="utf-8") as fh:
                fh.write("".join(new))
            print("doc_check: rewrote %s (%d example(s))" % (os.path.relpath(f, ROOT), len(edits)))
    skipped = [ex for exs, _ in docs.values() for ex in exs if ex.skip]
    other = [ex for exs, _ in docs.values() for ex in exs if not ex.skip and not selected(ex, args)]
    for p in problems:
        print("FAIL " + p)
    print("doc_check: %d example(s) run in %.1f s, %d differ%s; %d not run here (%s), %d skipped by their "
          "documents" % (nrun, time.time() - start, ndiff, " (written)" if args.write else "", len(other),
                         "fast" if args.slow else "slow: scripts/docs-regen.sh", len(skipped)))
    shutil.rmtree(runner.scratch, ignore_errors=True)
    if problems or (ndiff and not args.write):
        if ndiff and not args.write:
            print("doc_check: regenerate with scripts/docs-regen.sh (or tests/docs/doc_check.py --write), "
                  "then read the diff")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
