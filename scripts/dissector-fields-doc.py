#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Rewrites the field table of dissector/README.md ("## Fields", from its
first "| field |" row to the end of the table) from `tshark -G fields` with
the plugin loaded, in registration order: `name` | type | "Name. blurb".
CTest dissector_plugin checks the table against the registered fields; this
script is how the table is made.

Usage: scripts/dissector-fields-doc.py PLUGIN.so [README]
Runs tshark as nobody with a temporary HOME holding the plugin (root ignores
personal plugins)."""
import os
import re
import shutil
import subprocess
import sys
import tempfile


def registered(plugin):
    home = tempfile.mkdtemp(prefix="ornic-fields-")
    try:
        # The personal plugin folder is named after tshark's release line.
        first = subprocess.run(["tshark", "--version"], stdout=subprocess.PIPE, text=True,
                               check=True).stdout.splitlines()[0]
        line = re.search(r"\b(\d+\.\d+)\.\d+", first).group(1)
        dst = os.path.join(home, ".local/lib/wireshark/plugins", line, "epan")
        os.makedirs(dst)
        shutil.copy(plugin, dst)
        for d, _, fs in os.walk(home):
            os.chmod(d, 0o755)
            for f in fs:
                os.chmod(os.path.join(d, f), 0o644)
        cmd = ["tshark", "-G", "fields"]
        if os.geteuid() == 0:
            cmd = ["runuser", "-u", "nobody", "--", "env", f"HOME={home}"] + cmd
        out = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=home).stdout
    finally:
        shutil.rmtree(home)
    rows = []
    for line in out.splitlines():
        p = line.split("\t")
        if p[0] == "P" and p[2] == "ornic":
            rows.append(("ornic", "protocol", p[1]))
        elif p[0] == "F" and p[4] == "ornic":
            text = p[1] + (f". {p[7]}" if len(p) > 7 and p[7] else "")
            rows.append((p[2], p[3], text))
    return rows


def main():
    plugin = sys.argv[1]
    readme = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "dissector", "README.md")
    text = open(readme).read()
    head, fields = text.split("\n## Fields\n", 1)
    start = fields.index("| field |")
    end = fields.find("\n\n", start)
    end = len(fields) if end < 0 else end
    table = ["| field | type | description |", "|---|---|---|"]
    table += [f"| `{n}` | {t} | {d.replace('|', '/')} |" for n, t, d in registered(plugin)]
    fields = fields[:start] + "\n".join(table) + ("\n" if end == len(fields) else "") + fields[end:]
    with open(readme, "w") as f:
        f.write(head + "\n## Fields\n" + fields)
    print(f"{readme}: {len(table) - 2} rows")


if __name__ == "__main__":
    main()
