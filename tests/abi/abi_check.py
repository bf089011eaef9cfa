#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""libornicproto's ABI against the last release's (docs/ABI.md).

    abi_check.py BASELINE.abi LIBRARY.so INCLUDE_DIR [INCLUDE_DIR...]

INCLUDE_DIR: where <ornic/*.h> are found (the source tree's and the build
tree's, for version.h).

BASELINE.abi is `abidw` of the last release (tests/abi/README.md says how it
is made). Two checks, each with a self-check that plants an incompatible
change and must see it fail:

1. Layout, from the baseline alone: for every public struct (`ornic_*`,
   complete in the headers) a C file of _Static_asserts on its size and each
   member's offset is compiled against today's headers. The reserved-tail
   rule of docs/ABI.md is the one change allowed: a member named `reserved`
   may lose elements at its front to new fields (its end, the struct's size,
   stays). Structs only the library allocates and hands out by const pointer
   (ALLOC_ONLY) may grow at their end.
2. Symbols and signatures: `abidiff` of the baseline against LIBRARY.so;
   its exit status bit 8 (an incompatible change: a function removed, a
   parameter changed) or 1/2 (abidiff failed) fails the test. Compatible
   changes (new functions, reserved words taken) are printed for the record.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

BASELINE, LIB, INCLUDES = sys.argv[1], sys.argv[2], sys.argv[3:]
ALLOC_ONLY = {"ornic_opcode_info", "ornic_an_conv"}  # docs/ABI.md "Compatible"
OPAQUE = {"ornic_analysis"}  # declared, never defined in a public header
fails = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        fails.append(what)


def structs(xml_text):
    """{name: (size in bytes, [(member, offset in bytes, size in bytes or None)])} of the
    public structs (the last member's size is known only from the next offset or the end)."""
    root = ET.fromstring(xml_text)
    out = {}
    for c in root.iter("class-decl"):
        name = c.get("name", "")
        if not name.startswith("ornic_") or name in OPAQUE or c.get("is-declaration-only") == "yes":
            continue
        size = int(c.get("size-in-bits")) // 8
        members = []
        for dm in c.findall("data-member"):
            var = dm.find("var-decl")
            members.append((var.get("name"), int(dm.get("layout-offset-in-bits")) // 8))
        ends = [m[1] for m in members[1:]] + [size]
        out[name] = (size, [(n, off, end - off) for (n, off), end in zip(members, ends)])
    return out


def asserts(layout):
    """A C translation unit that compiles only if today's headers keep the layout."""
    lines = ["#include <stddef.h>", '#include "ornic/ornic.h"',
             '#include "ornic/analysis.h"', '#include "ornic/lint.h"', '#include "ornic/layout.h"']
    for name, (size, members) in sorted(layout.items()):
        op = ">=" if name in ALLOC_ONLY else "=="
        lines.append(f'_Static_assert(sizeof({name}) {op} {size}, "{name}: size {size}");')
        for member, off, span in members:
            if member == "reserved":  # the tail may give words to new fields: its end stays
                end = off + span
                lines.append(f"_Static_assert(offsetof({name}, reserved) >= {off} && "
                             f"offsetof({name}, reserved) + sizeof(((const {name} *)0)->reserved)"
                             f' == {end}, "{name}.reserved: ends at {end}");')
            elif member:
                lines.append(f'_Static_assert(offsetof({name}, {member}) == {off}, '
                             f'"{name}.{member}: offset {off}");')
    return "\n".join(lines) + "\n"


def compiles(source):
    with tempfile.NamedTemporaryFile("w", suffix=".c", delete=False) as f:
        f.write(source)
    cmd = ["cc", "-std=c11", "-fsyntax-only"] + [f"-I{d}" for d in INCLUDES] + [f.name]
    r = subprocess.run(cmd, capture_output=True, text=True)
    os.unlink(f.name)
    return r.returncode == 0, r.stderr


def abidiff(baseline_path):
    dirs = [os.path.join(d, "ornic") for d in INCLUDES]
    cmd = ["abidiff"] + [a for d in dirs for a in ("--headers-dir2", d)] + [baseline_path, LIB]
    r = subprocess.run(cmd, capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def planted_size_change(layout):
    """The baseline with one struct 8 bytes larger: the layout check must fail."""
    name = "ornic_frame"
    size, members = layout[name]
    return dict(layout, **{name: (size + 8, members)})


def planted_removal(xml_text):
    """The baseline with a copy of ornic_version under another name, which the library does not
    export: for abidiff that function was removed."""
    sym = re.search(r"<elf-symbol name='ornic_version' [^>]*/>", xml_text)[0]
    fn = re.search(r"<function-decl name='ornic_version' .*?</function-decl>", xml_text, re.S)[0]
    text = xml_text.replace(sym, sym + "\n" + sym.replace("ornic_version", "ornic_planted_removed"), 1)
    return text.replace(fn, fn + "\n" + fn.replace("'ornic_version'", "'ornic_planted_removed'"), 1)


def main():
    if not shutil.which("abidiff"):
        print("abidiff missing (apt-get install abigail-tools; scripts/deps.sh test)")
        return 1 if os.environ.get("CI") == "true" else 77
    xml_text = open(BASELINE).read()
    layout = structs(xml_text)
    check(len(layout) > 20, f"{len(layout)} public structs in the baseline")
    ok, err = compiles(asserts(layout))
    check(ok, "today's headers keep every public struct's size and offsets" +
          ("" if ok else ":\n" + "\n".join(re.findall(r"error: .*", err)[:20])))
    ok, err = compiles(asserts(planted_size_change(layout)))
    check(not ok and "ornic_frame: size" in err,
          "self-check: a struct 8 bytes larger fails the layout check, naming it")

    rc, report = abidiff(BASELINE)
    check(rc >= 0 and rc & 0b1011 == 0, f"abidiff: no incompatible change (exit {rc})")
    print(report.rstrip())
    with tempfile.NamedTemporaryFile("w", suffix=".abi", delete=False) as f:
        f.write(planted_removal(xml_text))
    rc, report = abidiff(f.name)
    os.unlink(f.name)
    check(rc > 0 and rc & 8 != 0,
          f"self-check: a removed function is an incompatible change (exit {rc})")
    print(f"{len(fails)} failed" if fails else "all passed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
