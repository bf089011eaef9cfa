#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The Wireshark configuration profile ORNIC (dissector/profile/ORNIC) and the GUI.

  test_gui.py --plugin ornic.so --bin BUILD/bin --profile dissector/profile/ORNIC \
              --install-script dissector/install_personal.cmake [--build BUILD] MODE

MODE is one of
  profile  tshark, deterministic: the profile installed by install_personal.cmake (what
           `install-wireshark-plugin` runs) is found by `tshark -C ORNIC`; its columns are
           the documented ones and show the fields they name; its ornic.* preferences are
           the plugin's defaults (no unknown name); every ornic.* name it uses is a
           registered field; the coloring rules compile and apply (a NAK, a
           retransmission, a corrupted iCRC, OOO arrivals: pcapgen's truth and the
           fields); `-z help` lists the ornic statistics; the shipped I/O graphs give
           PSN-over-time data per path (`-z io,stat`); and the profile installed as a
           global one (`cmake --install --component wireshark-plugin`, or a copy) is found
           through Wireshark's data folder.
  screens  the GUI under Xvfb, as PNG files in --out (copied to --docs if given; SHOTS):
           wireshark -C ORNIC on a pcapgen trace with a loss: the packet list, a NAK's
           details, Statistics > ORNIC conversations, Analyze > Follow > ORNIC Stream (4.2
           on; 4.0 has no such menu entry: a note); on a two-way RC trace (standard
           opcodes): the packet list with its Rel PSN column, Statistics > Service Response
           Time > ORNIC; with no personal profile (the global one must be copied): an I/O
           Graph of PSN against time per path (4.0: a 0.1 Gb/s trace at 1 ms; 4.4 on: a
           100 Gb/s trace at 10 us, the profile's Rel PSN rows). Menus are walked by
           mnemonics and keys, each dialog checked by its title. A screenshot step that
           fails prints NOT TAKEN and leaves NAME-failed.png (--strict: the test fails).
           Exits 77 (skipped) when Xvfb, wireshark, xdotool or ImageMagick's import is
           missing, and fails, saying which step, when a main window never appears.
           --out gets the Wireshark they were taken with too (VERSION_FILE). With
           --expect DIR (docs/screenshots): when DIR's VERSION_FILE names this Wireshark,
           every screenshot taken must be byte for byte the one in DIR (they are: the
           traces, the GUI steps and the window size are fixed), so the committed
           screenshots show what the current plugin, profile and library show.

Everything runs as `nobody` when run as root (Wireshark ignores personal plugins for root)
with HOME in a private temporary folder. Every process the test starts is killed at its
end, and runs under timeout(1) so that it dies with the budget even if the test is killed."""
import argparse
import hashlib
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from dissector_common import (Fail, Tshark, check, pcap_records, run_pcapgen,  # noqa: E402
                              write_records)

PROFILE = "ORNIC"
COLUMNS = [("No.", "%m"), ("Time", "%t"), ("Source", "%s"), ("Destination", "%d"),
           ("Protocol", "%p"), ("Length", "%L"),
           ("QP", "%Cus:ornic.bth.destqp || infiniband.bth.destqp:0:R"),
           ("PSN", "%Cus:ornic.bth.psn || infiniband.bth.psn:0:R"),
           ("Rel PSN", "%Cus:ornic.analysis.psn_relative:0:R"),
           ("OOO distance", "%Cus:ornic.analysis.ooo_distance:0:R"),
           ("WQE time", "%Cus:ornic.analysis.wqe_time:0:R"), ("Info", "%i")]
# Named by the profile before the plugin registers them: their column stays empty.
PENDING_FIELDS = {"ornic.analysis.wqe_time"}


def yes(v):
    return v not in ("", "0", "False")


# The profile's ORNIC coloring rules in their order, as predicates on -T fields values:
# the first that holds names the rule a frame gets; an ORNIC frame without any: "ORNIC".
RULES = [
    ("ORNIC bad iCRC", lambda f: f["ornic.invariant.crc.status"] == "0" or yes(f["ornic.malformed"])),
    ("ORNIC NAK", lambda f: yes(f["ornic.analysis.nak"])),
    ("ORNIC retransmission", lambda f: yes(f["ornic.analysis.retransmission"])),
    ("ORNIC duplicate", lambda f: yes(f["ornic.analysis.duplicate"])),
    ("ORNIC loss", lambda f: yes(f["ornic.analysis.loss"])),
    ("ORNIC not captured", lambda f: yes(f["ornic.analysis.not_captured"])),
    ("ORNIC CNP/ECN", lambda f: yes(f["ornic.cnp"]) or yes(f["ornic.analysis.ecn"]) or
     yes(f["ornic.bth.fecn"]) or yes(f["ornic.bth.becn"])),
    ("ORNIC OTD exceeded", lambda f: yes(f["ornic.analysis.otd_exceeded"])),
    ("ORNIC stale ACK", lambda f: yes(f["ornic.analysis.ack_stale"])),
    ("ORNIC OOO", lambda f: yes(f["ornic.analysis.ooo"])),
]
RULE_FIELDS = ["ornic.invariant.crc.status", "ornic.malformed", "ornic.analysis.nak",
               "ornic.analysis.retransmission", "ornic.analysis.duplicate", "ornic.analysis.loss",
               "ornic.analysis.not_captured", "ornic.cnp", "ornic.analysis.ecn", "ornic.bth.fecn",
               "ornic.bth.becn", "ornic.analysis.otd_exceeded", "ornic.analysis.ack_stale",
               "ornic.analysis.ooo"]

SCREEN_W, SCREEN_H = 1600, 1000
UPPER_PANE = 330  # packet list height in the screenshots (test-only `recent`)
SHOTS = ["ornic-packet-list.png", "ornic-nak-details.png", "ornic-conversations.png",
         "ornic-follow.png", "ornic-rc-packet-list.png", "ornic-srt.png", "ornic-psn-io-graph.png"]
# Analyze > Follow lists plugins' followers from 4.2 on (4.0's menu is a fixed list).
FOLLOW_SINCE = (4, 2)
# The I/O Graph's Interval offers 1 us .. 10 min from 4.4 on (4.0: 1 ms .. 10 min): the PSN
# graph is then of a trace at 100 Gb/s at 10 us, with the profile's "Rel PSN" rows.
MICRO_INTERVALS_SINCE = (4, 4)
# Statistics > Service Response Time lists the SRT tables by name: ORNIC's place in it,
# counted from the first item, as seen on each version (the test corrects a wrong guess
# from the title of the dialog that opens, the list being sorted).
SRT_DOWNS = {"4.0": 12, "4.4": 15, "4.6": 15}


class Budget:
    def __init__(self, seconds):
        self.total = seconds
        self.end = time.monotonic() + seconds

    def left(self):
        return max(0.0, self.end - time.monotonic())

    def cap(self, seconds):
        return min(seconds, self.left())


# ---- setup ---------------------------------------------------------------------------


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def pcapgen(a, ts, name, args):
    return run_pcapgen(a.bin, ts.path(name), args)


def make_traces(a, ts):
    """ornic-loss.pcap: 3 x 64 KiB WRITEs over 4 paths, one drop (a NAK, its retransmission,
    OOO arrivals), and the payload of one data frame before the NAK corrupted (bad iCRC).
    ornic-psn.pcap: 6 x 128 KiB at 0.1 Gb/s over 4 paths 500-6500 us apart (150 ms: enough
    1 ms intervals for the I/O Graph), PSNs from 0, one drop."""
    import json
    loss = pcapgen(a, ts, "ornic-loss.pcap",
                   ["--pmtu", "1024", "--wqes", "3", "--wqe-size", "64K", "--loss", "0",
                    "--base-delay-us", "10", "--delay-spread-us", "4", "--drop", "0:37",
                    "--summary-json", ts.path("loss.json")])
    with open(ts.path("loss.json")) as f:
        truth = json.load(f)["truth"]
    check(len(truth["naks"]) == 1 and len(truth["retransmissions"]) == 1,
          f"pcapgen truth: expected one NAK and one retransmission, got {truth}")
    nak = truth["naks"][0]
    head, recs = pcap_records(loss)
    bad = next((n for n in range(nak - 2, 0, -1) if len(recs[n - 1][1]) > 1000), None)
    check(bad is not None, "no data frame before the NAK to corrupt")
    recs[bad - 1][1][-40] ^= 0xFF  # a payload byte: the iCRC no longer matches
    write_records(loss, head, recs)
    psn = pcapgen(a, ts, "ornic-psn.pcap",
                  ["--pmtu", "1024", "--wqes", "6", "--wqe-size", "128K", "--loss", "0",
                   "--rate-gbps", "0.1", "--base-delay-us", "500", "--delay-spread-us", "6000",
                   "--drop", "1:40", "--seed", "3", "--start-psn", "0"])
    return loss, psn, {"nak": nak, "retrans": truth["retransmissions"][0], "bad": bad}


def open_up(top):
    """Wireshark runs as nobody and writes into its configuration folder."""
    for root, dirs, files in os.walk(top):
        for d in dirs:
            os.chmod(os.path.join(root, d), 0o777)
        for f in files:
            os.chmod(os.path.join(root, f), 0o666)


def install_personal(a, home):
    """What `cmake --build BUILD --target install-wireshark-plugin` runs, with HOME=home."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("WIRESHARK_CONFIG_DIR", "XDG_CONFIG_HOME", "ORNIC_PROFILE_OVERWRITE")}
    env["HOME"] = home
    p = run([a.cmake, f"-DPLUGIN={a.plugin}", f"-DSUBDIR={a.subdir}", f"-DPROFILE={a.profile}",
             "-P", a.install_script], env=env)
    check(p.returncode == 0, f"install_personal.cmake failed: {p.stdout}{p.stderr}")
    dest = os.path.join(home, ".config", "wireshark", "profiles", PROFILE)
    want = sorted(f for f in os.listdir(a.profile) if os.path.isfile(os.path.join(a.profile, f)))
    got = sorted(os.listdir(dest)) if os.path.isdir(dest) else []
    check(got == want, f"install_personal.cmake put {got} into {dest}, expected {want}")
    open_up(os.path.join(home, ".config"))
    return dest


def tshark(ts, args, env=(), ok_rc=(0,)):
    """(stdout, stderr) of tshark as the Tshark helper runs it, with extra NAME=VALUE env."""
    cmd = ts.cmd(args)
    i = cmd.index("env") + 1
    cmd[i:i] = list(env)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       cwd=ts.tmp, timeout=120)
    if p.returncode not in ok_rc:
        raise Fail(f"tshark {' '.join(args)} exited {p.returncode}: {p.stderr[-2000:]}")
    return p.stdout, p.stderr


def no_config_warnings(err, what):
    bad = [l for l in err.splitlines()
           if re.search(r"WARNING|No such preference|Syntax error|Could not compile", l)]
    check(not bad, f"{what}: Wireshark complains about the profile:\n" + "\n".join(bad[:10]))


def read_profile(path):
    """{file: text} of the profile folder."""
    return {f: open(os.path.join(path, f)).read() for f in sorted(os.listdir(path))
            if os.path.isfile(os.path.join(path, f))}


def column_format(text):
    """[(title, format)] of the gui.column.format preference in a preferences text."""
    m = re.search(r"^gui\.column\.format:[ \t]*\n?((?:[ \t]*\".*\n?)+)", text, re.M)
    check(m, "no gui.column.format in the preferences")
    q = re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(1))
    return list(zip(q[0::2], q[1::2]))


def uat_rows(text):
    """Rows of a UAT file: lists of quoted strings."""
    return [re.findall(r'"((?:[^"\\]|\\.)*)"', l) for l in text.splitlines()
            if l.strip() and not l.startswith("#")]


def colorfilter_rules(text):
    """[(name, filter)] of a colorfilters text, in order."""
    rules = []
    for l in text.splitlines():
        if l.startswith("@"):
            parts = l.split("@")
            rules.append((parts[1], parts[2]))
    return rules


def used_fields(files):
    """ornic.* field names in the profile: its custom columns, filters and graph fields
    (not its ornic.* preference names)."""
    names = set()
    for fmt in (f for _, f in column_format(files["preferences"]) if f.startswith("%Cus:")):
        # "ornic.bth.psn || infiniband.bth.psn": the first field present shows
        names |= {f.strip() for f in fmt.split(":")[1].split("||") if f.strip().startswith("ornic")}
    for name, text in files.items():
        if name == "preferences":
            continue
        for l in text.splitlines():
            if not l.lstrip().startswith("#"):
                names |= set(re.findall(r"\bornic(?:\.[a-z0-9_]+)+", l))
    return names


# ---- profile (tshark) ----------------------------------------------------------------


def check_prefs(ts, files):
    out, err = tshark(ts, ["-G", "currentprefs", "-C", PROFILE])
    no_config_warnings(err, "tshark -C ORNIC -G currentprefs")
    shipped = column_format(files["preferences"])
    check([t for t, _ in shipped] == [t for t, _ in COLUMNS],
          f"the profile's columns are {[t for t, _ in shipped]}, documented {[t for t, _ in COLUMNS]}")
    check(shipped == COLUMNS, f"the profile's column formats {shipped} differ from {COLUMNS}")
    check(column_format(out) == COLUMNS,
          f"tshark -C ORNIC does not apply the profile's columns: {column_format(out)}")
    # The ornic.* preferences: every one the plugin registers, at its default.
    dflt, _ = tshark(ts, ["-G", "defaultprefs"])
    defaults = dict(re.findall(r"^#(ornic\.[a-z0-9_.]+):[ \t]*(.*?)\s*$", dflt, re.M))
    mine = dict(re.findall(r"^(ornic\.[a-z0-9_.]+):[ \t]*(.*?)\s*$", files["preferences"], re.M))
    check(defaults, "tshark -G defaultprefs lists no ornic.* preference")
    check(set(mine) == set(defaults),
          f"the profile sets {sorted(mine)}, the plugin has {sorted(defaults)}: update "
          "dissector/profile/ORNIC/preferences")
    for k, v in defaults.items():
        check(mine[k].lower() == v.lower(),
              f"the profile sets {k}: {mine[k]}, the plugin's default is {v}")
    print(f"ok: columns {', '.join(t for t, _ in COLUMNS)}; {', '.join(sorted(mine))} at their defaults")


def check_fields(ts, files):
    reg = ts.registered_fields()
    missing = used_fields(files) - reg
    unknown = sorted(missing - PENDING_FIELDS)
    check(not unknown, f"the profile names ornic.* fields the plugin does not register: {unknown}")
    for n in sorted(missing):
        print(f"note: {n} is not registered yet: its column stays empty")
    return reg


def check_colors(ts, files, loss, frames, reg):
    rules = colorfilter_rules(files["colorfilters"])
    names = [n for n, _ in rules]
    ornic_rules = [n for n in names if n.startswith("ORNIC ")]
    check(ornic_rules == [n for n, _ in RULES],
          f"the profile's ORNIC rules are {ornic_rules}; this test knows {[n for n, _ in RULES]}")
    check(names[:len(RULES)] == ornic_rules, "the ORNIC rules must come before the stock ones")
    check("ORNIC" in names and "UDP" in names and names.index("ORNIC") < names.index("UDP"),
          "the rule \"ORNIC\" must come before \"UDP\"")
    # A column names the plugin's field and stock's: ORNIC opcodes fill the first,
    # standard opcodes (every real capture's) the second.
    cols = [("_ws.col.QP", ("ornic.bth.destqp", "infiniband.bth.destqp")),
            ("_ws.col.PSN", ("ornic.bth.psn", "infiniband.bth.psn")),
            ("_ws.col.Rel PSN", ("ornic.analysis.psn_relative",)),
            ("_ws.col.OOO distance", ("ornic.analysis.ooo_distance",))]
    wqe_time = "ornic.analysis.wqe_time" in reg
    fields = ["frame.number", "frame.coloring_rule.name"] + \
        [f for _, fs in cols for f in fs] + RULE_FIELDS + (["ornic.analysis.wqe_time"] if wqe_time else [])
    args = ["-C", PROFILE, "--color", "-r", loss, "-T", "fields", "-E", "header=y",
            "-E", "separator=/t", "-E", "occurrence=f"]
    for f in fields:
        args += ["-e", f]
    out, err = tshark(ts, args)
    no_config_warnings(err, "tshark -C ORNIC --color")
    lines = out.splitlines()
    head = lines[0].split("\t")
    rows = [dict(zip(head, l.split("\t") + [""] * len(head))) for l in lines[1:]]
    add_columns(ts, rows, ["-C", PROFILE, "-r", loss])
    errs, seen = [], {}
    for r in rows:
        fr = r["frame.number"]
        got = r["frame.coloring_rule.name"]
        seen.setdefault(got, []).append(int(fr))
        for col, flds in cols:
            want = next((r[f] for f in flds if r[f]), "")
            if r[col] != want:
                errs.append(f"frame {fr}: column {col[8:]} shows {r[col]!r}, {flds} give {want!r}")
            if col in ("_ws.col.QP", "_ws.col.PSN") and r["frame.coloring_rule.name"] and not want:
                errs.append(f"frame {fr}: column {col[8:]} is blank")
        if wqe_time and bool(r["_ws.col.WQE time"]) != bool(r["ornic.analysis.wqe_time"]):
            errs.append(f"frame {fr}: column WQE time {r['_ws.col.WQE time']!r}, "
                        f"field {r['ornic.analysis.wqe_time']!r}")
        if not wqe_time and r["_ws.col.WQE time"]:
            errs.append(f"frame {fr}: column WQE time shows {r['_ws.col.WQE time']!r} "
                        "without the field")
        if not r["ornic.bth.psn"]:
            continue
        want = next((n for n, pred in RULES if pred(r)), "ORNIC")
        if got != want:
            errs.append(f"frame {fr}: coloring rule {got!r}, expected {want!r}")
    check(not errs, "\n".join(errs[:20]))
    truth = {"ORNIC NAK": frames["nak"], "ORNIC retransmission": frames["retrans"],
             "ORNIC bad iCRC": frames["bad"]}
    for rule, fr in truth.items():
        check(fr in seen.get(rule, []), f"frame {fr} is not colored {rule!r} (pcapgen truth)")
    for rule in ("ORNIC OOO", "ORNIC"):
        check(seen.get(rule), f"no frame colored {rule!r}")
    print("ok: coloring rules: " + ", ".join(f"{n} x{len(v)}" for n, v in sorted(seen.items())) +
          "; QP, PSN, Rel PSN and OOO distance columns equal their fields")


def add_columns(ts, rows, args):
    """Each row (by frame.number) gets the packet list's columns as "_ws.col.<title>": read
    from tshark -T psml, since 4.6 gives custom columns no field of their own."""
    cols = {c["No."]: c for c in ts.columns(args)}
    for r in rows:
        for title, text in cols.get(r["frame.number"], {}).items():
            r["_ws.col." + title] = text


def check_std_columns(a, ts):
    """On standard opcodes (pcapgen's two-way RC: every real capture is such), the QP and
    PSN columns show stock's BTH fields and Rel PSN the relative PSN: none is blank."""
    rc = pcapgen(a, ts, "rc-columns.pcap", ["--profile", "rc", "--wqes", "8", "--loss", "0"])
    out, err = tshark(ts, ["-C", PROFILE, "-r", rc, "-T", "fields", "-E", "separator=/t",
                           "-E", "occurrence=f", "-e", "frame.number", "-e", "infiniband.bth.destqp",
                           "-e", "infiniband.bth.psn", "-e", "ornic.analysis.psn_relative"])
    no_config_warnings(err, "tshark -C ORNIC (rc)")
    cols = {c["No."]: c for c in ts.columns(["-C", PROFILE, "-r", rc])}
    rows = [l.split("\t") for l in out.splitlines()]
    rows = [[r[0], cols[r[0]]["QP"], cols[r[0]]["PSN"], cols[r[0]]["Rel PSN"]] + r[1:] for r in rows]
    bad = [r for r in rows if r[1] != r[4] or r[2] != r[5] or r[3] != r[6] or not r[1] or not r[3]]
    check(rows and not bad, f"{len(bad)} of {len(rows)} RC frames with blank or wrong QP/PSN/Rel PSN "
          f"columns, first: {bad[:3]}")
    print(f"ok: QP, PSN and Rel PSN columns on {len(rows)} standard-opcode frames")


def check_taps(ts):
    out, err = tshark(ts, ["-z", "help"])
    text = out + err
    for name in ("ornic,stat", "ornic,tree"):
        check(re.search(rf"^\s*{re.escape(name)}\s*$", text, re.M), f"tshark -z help lists no {name}")
    print("ok: tshark -z help lists ornic,stat and ornic,tree")


def check_io_graphs(ts, files, psn):
    """The shipped I/O graphs as tshark's -z io,stat at 1 ms: each path's MAX(PSN) rises over
    the whole transfer; the retransmission and the NAK appear; every filter of the profile
    (coloring rules, buttons, graphs) compiles."""
    graphs = []
    for row in uat_rows(files["io_graphs"]):
        check(len(row) == 9, f"io_graphs row with {len(row)} fields (4.0 has 9): {row}")
        en, name, flt, _color, _style, yaxis, yfield, _sma, _factor = row
        check(en in ("Enabled", "Disabled"), f"io_graphs: {name}: enabled is {en!r}")
        if en != "Enabled":
            continue
        m = re.match(r"(MAX|MIN|SUM|AVG)\(Y Field\)$", yaxis)
        check(m and yfield, f"io_graphs: {name}: an enabled graph is a calculation on a field")
        graphs.append((name, f"{m.group(1)}({yfield}){flt}"))
    paths = [n for n, _ in graphs if n.startswith("PSN path")]
    check(len(paths) >= 2, f"io_graphs: fewer than 2 PSN path graphs: {paths}")
    args = ["-C", PROFILE, "-r", psn, "-q", "-z", "io,stat,0.001," + ",".join(g for _, g in graphs)]
    out, err = tshark(ts, args)
    no_config_warnings(err, "tshark -z io,stat")
    vals = {n: [] for n, _ in graphs}
    for l in out.splitlines():
        cells = [c.strip() for c in l.split("|")]
        if len(cells) >= len(graphs) + 2 and "<>" in cells[1]:
            for (n, _), c in zip(graphs, cells[2:]):
                vals[n].append(int(c))
    check(vals[paths[0]], f"no interval in tshark -z io,stat:\n{out[:2000]}")
    top = max(max(v) for n, v in vals.items() if n in paths)
    for n in paths:
        nz = [v for v in vals[n] if v]
        check(len(nz) >= 50, f"I/O graph {n}: {len(nz)} 1-ms intervals with packets (< 50)")
        check(max(nz) >= 0.9 * top, f"I/O graph {n}: PSNs stop at {max(nz)}, others reach {top}")
    for n, _ in graphs:
        if n not in paths:
            check(any(vals[n]), f"I/O graph {n!r} is empty on a trace with a drop")
    print(f"ok: I/O graphs at 1 ms over {len(vals[paths[0]])} intervals: " +
          ", ".join(f"{n} {sum(1 for v in vals[n] if v)}" for n, _ in graphs))
    filters = [f for _, f in colorfilter_rules(files["colorfilters"]) if "ornic" in f]
    filters += [r[2] for r in uat_rows(files.get("dfilter_buttons", ""))]
    filters += [r[2] for r in uat_rows(files["io_graphs"]) if r[2]]
    tshark(ts, ["-C", PROFILE, "-r", psn, "-c", "1", "-T", "fields", "-e", "frame.number",
                "-Y", " || ".join(f"({f})" for f in filters)])
    print(f"ok: the profile's {len(filters)} ORNIC display filters compile")


def global_datadir(ts, a, base):
    """A copy of Wireshark's data folder (symbolic links) whose profiles/ holds ORNIC as the
    system install puts it: `cmake --install BUILD --component wireshark-plugin` into a
    scratch prefix when --build is given, else a copy of the source folder."""
    out, _ = tshark(ts, ["-G", "folders"])
    m = re.search(r"^Global configuration:\s*(\S.*)$", out, re.M)
    check(m, f"tshark -G folders: no global configuration folder:\n{out}")
    real = m.group(1).strip()
    src = a.profile
    if a.build:
        prefix = os.path.join(base, "prefix")
        p = run([a.cmake, "--install", a.build, "--component", "wireshark-plugin",
                 "--prefix", prefix])
        check(p.returncode == 0, f"cmake --install --component wireshark-plugin: {p.stdout}{p.stderr}")
        src = os.path.join(prefix, "share", "wireshark", "profiles", PROFILE)
        want = sorted(f for f in os.listdir(a.profile))
        got = sorted(os.listdir(src)) if os.path.isdir(src) else []
        check(got == want, f"the system install put {got} into {src}, expected {want}")
    data = os.path.join(base, "data")
    os.makedirs(os.path.join(data, "profiles"))
    for e in os.listdir(real):
        if e != "profiles":
            os.symlink(os.path.join(real, e), os.path.join(data, e))
    if os.path.isdir(os.path.join(real, "profiles")):
        for e in os.listdir(os.path.join(real, "profiles")):
            os.symlink(os.path.join(real, "profiles", e), os.path.join(data, "profiles", e))
    shutil.copytree(src, os.path.join(data, "profiles", PROFILE))
    for root, dirs, files in os.walk(data):
        os.chmod(root, 0o755)
        for f in files:
            if not os.path.islink(os.path.join(root, f)):
                os.chmod(os.path.join(root, f), 0o644)
    return data


def check_global(a, loss, frames):
    """With no personal ORNIC profile, tshark -C ORNIC takes the global one (copying it)."""
    ts = Tshark(a.plugin, a.ws_version)
    try:
        data = global_datadir(ts, a, ts.path("global"))
        open_up(ts.home)
        out, err = tshark(ts, ["-C", PROFILE, "--color", "-r", loss, "-T", "fields",
                               "-e", "frame.number", "-e", "frame.coloring_rule.name"],
                          env=[f"WIRESHARK_DATA_DIR={data}"])
        no_config_warnings(err, "tshark -C ORNIC (global profile)")
        got = dict(l.split("\t", 1) for l in out.splitlines())
        check(got.get(str(frames["nak"])) == "ORNIC NAK",
              f"global profile: frame {frames['nak']} colored {got.get(str(frames['nak']))!r}")
        copied = os.path.join(ts.home, ".config", "wireshark", "profiles", PROFILE, "preferences")
        check(os.path.exists(copied), f"tshark did not copy the global profile to {copied}")
        print(f"ok: the global profile (<data>/profiles/ORNIC{', cmake --install' if a.build else ''}) "
              "is found by tshark -C ORNIC and copied to the personal profiles")
    finally:
        ts.close()


def mode_profile(a):
    ts = Tshark(a.plugin, a.ws_version)
    try:
        ts.check_loaded()
        install_personal(a, ts.home)
        files = read_profile(a.profile)
        loss, psn, frames = make_traces(a, ts)
        check_prefs(ts, files)
        reg = check_fields(ts, files)
        check_colors(ts, files, loss, frames, reg)
        check_std_columns(a, ts)
        check_taps(ts)
        check_io_graphs(ts, files, psn)
        check_global(a, loss, frames)
    finally:
        ts.close()


# ---- screens (Xvfb) ------------------------------------------------------------------


class Gui:
    """Xvfb and the Wireshark instances, each in its own process group under timeout(1);
    close() kills them all (TERM, then KILL)."""

    def __init__(self, budget, out):
        self.budget, self.out, self.procs, self.display = budget, out, [], None
        self.as_root = os.geteuid() == 0

    def spawn(self, cmd, log, **kw):
        t = int(self.budget.left()) + 1
        p = subprocess.Popen(["timeout", "-k", "2", str(t)] + cmd, stdout=log, stderr=log,
                             start_new_session=True, **kw)
        self.procs.append(p)
        return p

    @staticmethod
    def leaves(pgid):
        """Processes of a group that are nobody's parent in it (wireshark, Xvfb)."""
        procs = {}
        for d in os.listdir("/proc"):
            try:
                with open(f"/proc/{d}/stat") as f:
                    st = f.read().rsplit(")", 1)[1].split()
                if int(st[2]) == pgid:
                    procs[int(d)] = int(st[1])
            except (OSError, ValueError, IndexError):
                continue
        return [q for q in procs if q not in procs.values()]

    def stop(self, p):
        """TERM to the leaf (wireshark, Xvfb): its parents (runuser, timeout) then exit after
        reaping it, nothing is orphaned; then KILL to the whole group if anything is left."""
        if p.poll() is None:
            for q in self.leaves(p.pid):
                try:
                    os.kill(q, signal.SIGTERM)
                except ProcessLookupError:
                    pass
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait()

    def close(self):
        for p in reversed(self.procs):
            self.stop(p)

    def start_x(self):
        r, w = os.pipe()
        log = open(os.path.join(self.out, "xvfb.log"), "w")
        # -noreset: no server reset (keymaps compiled again, connections refused meanwhile)
        # when the last client leaves, as between two Wireshark instances.
        self.spawn(["Xvfb", "-displayfd", str(w), "-screen", "0", f"{SCREEN_W}x{SCREEN_H}x24",
                    "-nolisten", "tcp", "-ac", "-noreset"],
                   log, pass_fds=(w,))
        os.close(w)
        buf = b""
        while b"\n" not in buf:
            ready, _, _ = select.select([r], [], [], self.budget.cap(15))
            chunk = os.read(r, 64) if ready else b""
            if not chunk:
                raise Fail("Xvfb did not start (no display number on -displayfd); see xvfb.log")
            buf += chunk
        os.close(r)
        self.display = ":" + buf.decode().strip()
        print(f"Xvfb on display {self.display}")

    def x(self, *args, check_rc=True):
        p = run(list(args), env=dict(os.environ, DISPLAY=self.display), timeout=20)
        if check_rc and p.returncode != 0:
            raise Fail(f"{' '.join(args)} exited {p.returncode}: {p.stderr.strip()}")
        return p.stdout

    def key(self, *keys):
        self.x("xdotool", "key", "--delay", "120", *keys)
        time.sleep(0.4)

    def focus(self, window):
        self.x("xdotool", "windowfocus", "--sync", window)

    def menu(self, main, opener, *keys, sub=None, confirm=True):
        """Open a menu of the main window (alt+LETTER), wait for its popup window, then walk
        it with keys (a letter: the item of that mnemonic); with sub, wait for the submenu
        those keys open (Right on an item without one goes to the next menu of the menu
        bar instead, closing this one: a Fail) and walk it with sub; then Return."""
        self.focus(main)
        popup = self.keys_then_popup([opener], f"the menu ({opener})")
        if sub is not None:
            what = f"the submenu ({opener} {' '.join(keys)})"
            self.keys_then_popup(keys, what)
            if not popup <= set(self.visible_class()):
                self.key("Escape", "Escape")
                raise Fail(f"{what}: not an item with a submenu")
            keys = sub
        self.key(*keys, *(["Return"] if confirm else []))

    def keys_then_popup(self, keys, what):
        """Press keys, then wait until a new window shows (a menu's popup): its windows."""
        before = set(self.visible_class())
        self.key(*keys)
        end = time.monotonic() + self.budget.cap(8)
        while not set(self.visible_class()) - before:
            if time.monotonic() > end:
                raise Fail(f"{what} did not open")
            time.sleep(0.2)
        return set(self.visible_class()) - before

    def geometry(self, window):
        """(x, y, width, height) of a window."""
        geo = dict(l.split("=", 1) for l in self.x("xdotool", "getwindowgeometry", "--shell",
                                                    window).split())
        return int(geo["X"]), int(geo["Y"]), int(geo["WIDTH"]), int(geo["HEIGHT"])

    def name(self, window):
        return self.x("xdotool", "getwindowname", window, check_rc=False).strip()

    def close_dialog(self, window):
        """Escape to a dialog (QDialog::reject), then wait until its window is gone."""
        self.focus(window)
        self.key("Escape")
        end = time.monotonic() + self.budget.cap(5)
        while window in self.visible_class() and time.monotonic() < end:
            time.sleep(0.2)

    def open_combo(self, dlg, tries=16):
        """Tab through a dialog until alt+Down opens a combo box's popup: a new window at
        least 100 px high (a tooltip is smaller). The popup of the dialog's only combo box
        is found so whatever the layout or the buttons a version has (alt+Down elsewhere:
        the I/O Graph pans its plot, reset after; F4 opens no popup under the roots' Xvfb).
        Returns its window."""
        self.focus(dlg)
        seen = set(self.visible_class())
        for _ in range(tries):
            self.x("xdotool", "key", "--delay", "60", "Tab", "alt+Down")
            time.sleep(0.3)
            new = [w for w in self.visible_class() if w not in seen]
            for w in new:
                try:
                    if self.geometry(w)[3] >= 100:
                        return w
                except Fail:  # gone again (a tooltip)
                    pass
            seen |= set(new)
        raise Fail(f"no combo box popup after {tries} x Tab, alt+Down")

    def wireshark(self, home, args, name, env=()):
        runtime = os.path.join(os.path.dirname(home), f"xdg-runtime-{name}")
        os.makedirs(runtime, exist_ok=True)
        os.chmod(runtime, 0o700)
        if self.as_root:
            import pwd
            nb = pwd.getpwnam("nobody")
            os.chown(runtime, nb.pw_uid, nb.pw_gid)
        cmd = (["runuser", "-u", "nobody", "--"] if self.as_root else []) + \
            ["env", f"HOME={home}", f"DISPLAY={self.display}", f"XDG_RUNTIME_DIR={runtime}",
             "LC_ALL=C.UTF-8", "NO_AT_BRIDGE=1"] + list(env) + ["wireshark"] + args
        log = open(os.path.join(self.out, f"wireshark-{name}.log"), "w")
        return self.spawn(cmd, log, cwd=os.path.dirname(home))

    def visible_class(self):
        """Wireshark's visible windows (a menu's popup has no name xdotool matches)."""
        out = self.x("xdotool", "search", "--onlyvisible", "--class", "wireshark", check_rc=False)
        return [w for w in out.split() if w.isdigit()]

    def windows(self, pattern):
        out = self.x("xdotool", "search", "--onlyvisible", "--name", pattern, check_rc=False)
        return [w for w in out.split() if w.isdigit()]

    def wait_window(self, pattern, proc, what, seconds, exclude=()):
        t0 = time.monotonic()
        end = t0 + self.budget.cap(seconds)
        while time.monotonic() < end:
            ws = [w for w in self.windows(pattern) if w not in exclude]
            if ws:
                return ws[0]
            if proc.poll() is not None:
                raise Fail(f"{what}: wireshark exited ({proc.returncode}) before its window "
                           f"appeared; {self.log_tail(proc)}")
            time.sleep(0.3)
        raise Fail(f"{what}: no window matching {pattern!r} after {time.monotonic() - t0:.0f} s "
                   f"(of the test's {self.budget.total:.0f} s); {self.log_tail(proc)}")

    def log_tail(self, _proc):
        try:
            logs = [f for f in os.listdir(self.out) if f.startswith("wireshark-")]
            tail = "".join(open(os.path.join(self.out, f)).read()[-600:] for f in sorted(logs))
            return "wireshark said:\n" + tail if tail.strip() else "wireshark said nothing"
        except OSError:
            return ""

    def grab(self, window="root"):
        try:
            p = subprocess.run(["import", "-window", window, "rgb:-"], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL,
                               env=dict(os.environ, DISPLAY=self.display), timeout=10)
            return hashlib.sha256(p.stdout).hexdigest()
        except subprocess.TimeoutExpired:
            return None

    def settle(self, window="root", seconds=8):
        """Wait until three captures 0.5 s apart are identical (rendering done)."""
        end = time.monotonic() + self.budget.cap(seconds)
        last, same = self.grab(window), 0
        while time.monotonic() < end:
            time.sleep(0.5)
            now = self.grab(window)
            same = same + 1 if now is not None and now == last else 0
            if same >= 2:
                return
            last = now

    def shot(self, name, window="root"):
        path = os.path.join(self.out, name)
        self.x("import", "-window", window, path)
        check(os.path.getsize(path) > 10000, f"{name}: the screenshot is (nearly) empty")
        print(f"screenshot {path}")
        return path


def ws_version(a):
    """(major, minor) of the Wireshark the plugin is built for."""
    return tuple(int(x) for x in a.ws_version.split(".")[:2])


def gui_home(a, ts, name, personal):
    """A HOME for one Wireshark instance: the plugin, a 1600x1000 main window, and (personal)
    the profile as install_personal.cmake installs it plus test-only `recent` lines (no bytes
    pane, a shorter packet list; Follow shows a hex dump) for the screenshots."""
    home = ts.path(name)
    pdir = os.path.join(home, ".local", "lib", "wireshark", "plugins", a.ws_version, "epan")
    os.makedirs(pdir)
    shutil.copy(a.plugin, pdir)
    conf = os.path.join(home, ".config", "wireshark")
    if personal:
        dest = install_personal(a, home)
        # Appended: the profile's own `recent` holds the columns' widths.
        with open(os.path.join(dest, "recent"), "a") as f:
            f.write("\n")
            f.write(f"gui.byte_view_show: FALSE\ngui.geometry_main_upper_pane: {UPPER_PANE}\n")
            if ws_version(a) >= FOLLOW_SINCE:
                f.write("gui.follow_show: HEX_DUMP\n")
    os.makedirs(conf, exist_ok=True)
    with open(os.path.join(conf, "recent_common"), "w") as f:
        f.write(f"gui.geometry_main_x: 0\ngui.geometry_main_y: 0\n"
                f"gui.geometry_main_width: {SCREEN_W}\ngui.geometry_main_height: {SCREEN_H}\n"
                "gui.geometry_main_maximized: FALSE\n")
    open_up(home)
    os.chmod(home, 0o777)
    return home


def screen_traces(a, ts):
    """The screens' own traces. ornic-rc.pcap: pcapgen's two-way RC (standard opcodes, as
    every real capture): 4 SEND / WRITE / READ WQEs of 8 KiB per host, 78 frames.
    ornic-psn-fast.pcap: 6 x 1 MiB WRITEs at pcapgen's 100 Gb/s over 4 paths of 5 to 65 us
    (1.1 ms captured), one drop: the PSN graph at 10 us where the I/O Graph offers it."""
    rc = pcapgen(a, ts, "ornic-rc.pcap", ["--profile", "rc", "--wqes", "4", "--wqe-size", "8K",
                                          "--pmtu", "1024", "--loss", "0"])
    fast = pcapgen(a, ts, "ornic-psn-fast.pcap",
                   ["--pmtu", "1024", "--wqes", "6", "--wqe-size", "1M", "--loss", "0",
                    "--base-delay-us", "5", "--delay-spread-us", "60", "--drop", "1:100",
                    "--seed", "3"])
    return rc, fast


# The Wireshark a folder's screenshots were taken with: `wireshark --version`'s first line.
VERSION_FILE = "wireshark-version"


def gui_version():
    p = subprocess.run(["wireshark", "--version"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       text=True, timeout=60)
    line = next((x for x in p.stdout.splitlines() if x.startswith("Wireshark ")), "")
    check(line, f"wireshark --version names no version: {p.stdout[:200]!r}")
    return line.strip()


def compare_shots(a, done, version):
    """--expect: the screenshots taken against the committed ones, when they were taken with
    this Wireshark (other versions draw other pixels: their files are not compared)."""
    stamp = os.path.join(a.expect, VERSION_FILE)
    check(os.path.exists(stamp), f"{stamp} is missing: which Wireshark took {a.expect}?")
    with open(stamp) as f:
        theirs = f.read().strip()
    if theirs != version:
        print(f"note: {a.expect} was taken with {theirs}, this is {version}: not compared")
        return
    differ = []
    for p in done:
        with open(p, "rb") as f, open(os.path.join(a.expect, os.path.basename(p)), "rb") as g:
            if f.read() != g.read():
                differ.append(os.path.basename(p))
    check(not differ, f"not the bytes of {a.expect}'s copy: {', '.join(differ)} (the plugin, the "
          f"profile or the library changed what {version} shows). If that is meant, commit the "
          f"new ones, which are in {a.out} (dissector/README.md, GUI tests)")
    print(f"ok: {len(done)} screenshots equal to {a.expect}'s, byte for byte ({version})")


def mode_screens(a):
    need = ["Xvfb", "wireshark", "xdotool", "import", "timeout"]
    missing = [t for t in need if not shutil.which(t)]
    if missing:
        print(f"SKIP: {', '.join(missing)} not installed (scripts/deps.sh test installs xvfb, "
              "wireshark-qt, xdotool, imagemagick)")
        sys.exit(77)
    budget = Budget(a.budget)
    os.makedirs(a.out, exist_ok=True)
    for f in SHOTS + [s.replace(".png", "-failed.png") for s in SHOTS]:
        if os.path.exists(os.path.join(a.out, f)):
            os.remove(os.path.join(a.out, f))
    ts = Tshark(a.plugin, a.ws_version)
    gui = Gui(budget, a.out)
    ver = ws_version(a)
    micro = ver >= MICRO_INTERVALS_SINCE
    # The shots this version's GUI has the feature of.
    shots = [s for s in SHOTS if s != "ornic-follow.png" or ver >= FOLLOW_SINCE]
    done, failed = [], []

    def step(name, fn):
        """A screenshot step after the window is up: best effort, reported (--strict: fatal);
        the screen as the step left it in NAME-failed.png."""
        try:
            done.append(fn())
        except (Fail, subprocess.TimeoutExpired) as e:
            failed.append(name)
            print(f"WARN: screenshot {name} NOT TAKEN: {e}")
            bad = os.path.join(a.out, name.replace(".png", "-failed.png"))
            try:
                gui.x("import", "-window", "root", bad, check_rc=False)
            except subprocess.TimeoutExpired:
                pass
            if os.path.exists(bad):
                print(f"the screen then: {bad}")
            if a.strict:
                raise

    def start(home, trace, name, what, args=(), env=()):
        t0 = time.monotonic()
        proc = gui.wireshark(home, ["-C", PROFILE, "-r", trace] + list(args), name, env=env)
        win = gui.wait_window("^" + re.escape(os.path.basename(trace)) + "$", proc, what, 40)
        print(f"main window after {time.monotonic() - t0:.1f} s")
        return proc, win

    try:
        loss, psn, frames = make_traces(a, ts)
        rc, fast = screen_traces(a, ts)
        home_a = gui_home(a, ts, "home-a", personal=True)
        home_b = gui_home(a, ts, "home-b", personal=False)
        data = global_datadir(ts, a, ts.path("global"))
        gui.start_x()

        # Instance A: personal profile; the list scrolled to show the NAK and its neighbours.
        nak = frames["nak"]
        wa, main = start(home_a, loss, "a", "wireshark -C ORNIC -r ornic-loss.pcap",
                         ["-g", str(nak + 7)])
        gui.settle(seconds=15)
        step("ornic-packet-list.png", lambda: gui.shot("ornic-packet-list.png"))

        def nak_details():
            # Go to packet NAK; click the details' first row; the last top-level item (ORNIC)
            # expanded with its subtrees, then its first child (the BTH) collapsed.
            gui.focus(main)
            gui.key("ctrl+g")
            gui.x("xdotool", "type", "--delay", "80", str(nak))
            gui.key("Return")
            gui.x("xdotool", "mousemove", "--window", main, "300", str(UPPER_PANE + 103),
                  "click", "1")
            time.sleep(0.4)
            gui.key("End", "shift+Right", "Down", "Left")
            gui.settle()
            return gui.shot("ornic-nak-details.png")
        step("ornic-nak-details.png", nak_details)

        def conversations():
            gui.menu(main, "alt+s", "Up")  # Statistics > ORNIC conversations: the last item
            dlg = gui.wait_window("ORNIC", wa, "Statistics > ORNIC conversations (the "
                                  "Statistics menu's last item)", 15, exclude=(main,))
            gui.settle(dlg)
            return gui.shot("ornic-conversations.png", dlg)
        step("ornic-conversations.png", conversations)

        def follow():
            # Analyze > Follow: second from the bottom (Up wraps to the last item), third when
            # Show Packet Bytes below it is enabled (a field is selected, as the NAK's BTH
            # here: Right there goes to the next menu, which menu() detects). Its submenu
            # opens at the first enabled follower: on an ORNIC packet (the NAK, selected)
            # ORNIC Stream, whose only enabled neighbour is UDP Stream.
            for ups in (2, 3):
                try:
                    gui.menu(main, "alt+a", *["Up"] * ups, "Right", sub=[])
                    break
                except Fail as e:
                    print(f"note: Analyze, {ups} x Up: {e}; one up")
            else:
                raise Fail("Analyze > Follow not found")
            dlg = gui.wait_window("Follow", wa, "Analyze > Follow > ORNIC Stream", 15,
                                  exclude=(main,))
            name = gui.name(dlg)
            check("Follow ORNIC Stream" in name, f"Analyze > Follow opened {name!r}")
            gui.x("xdotool", "windowsize", "--sync", dlg, "1000", "700")
            gui.settle(dlg, 10)
            return gui.shot("ornic-follow.png", dlg)
        if ver >= FOLLOW_SINCE:
            step("ornic-follow.png", follow)  # last: it filters the packet list
        else:
            print(f"note: ornic-follow.png not taken: Wireshark {a.ws_version}'s Analyze > "
                  "Follow lists a fixed set of protocols, not plugins' followers (4.2 on)")
        gui.stop(wa)

        # Instance C: the same personal profile on standard opcodes (two-way RC): the Rel PSN
        # column, and Statistics > Service Response Time > ORNIC. Frame 52, host B's SEND Last,
        # is among host A's READ responses and ACKs: both PSN spaces show.
        wc, main = start(home_a, rc, "c", "wireshark -C ORNIC -r ornic-rc.pcap",
                         ["-g", "52"])
        gui.settle(seconds=15)
        step("ornic-rc-packet-list.png", lambda: gui.shot("ornic-rc-packet-list.png"))

        def srt():
            # Statistics > Service Response Time (mnemonic R) > ORNIC: the submenu is sorted;
            # a dialog of another protocol says which way ORNIC is.
            downs = SRT_DOWNS.get(a.ws_version, 15)
            for _ in range(4):
                gui.menu(main, "alt+s", "r", sub=["Down"] * downs)
                dlg = gui.wait_window("Service Response Time", wc, "Statistics > Service "
                                      "Response Time > ORNIC", 15, exclude=(main,))
                m = re.search(r"([^·]*?)\s*Service Response Time", gui.name(dlg))
                proto = m.group(1).strip() if m else ""
                if proto == "ORNIC":
                    break
                print(f"note: item {downs + 1} of Service Response Time is {proto!r}, not ORNIC")
                gui.close_dialog(dlg)
                downs += 1 if proto.upper() < "ORNIC" else -1
            else:
                raise Fail("Statistics > Service Response Time: no ORNIC item found")
            gui.x("xdotool", "windowsize", "--sync", dlg, "760", "440")
            gui.settle(dlg, 10)
            return gui.shot("ornic-srt.png", dlg)
        step("ornic-srt.png", srt)
        gui.stop(wc)

        # Instance B: no personal profile, the global one (WIRESHARK_DATA_DIR); the I/O Graph.
        trace = fast if micro else psn
        wb, main = start(home_b, trace, "b", "wireshark -C ORNIC (global profile)",
                         env=[f"WIRESHARK_DATA_DIR={data}"])
        copied = os.path.join(home_b, ".config", "wireshark", "profiles", PROFILE, "io_graphs")
        check(os.path.exists(copied), f"the GUI did not copy the global profile ({copied} missing)")
        print("ok: the GUI took the global profile ORNIC (copied to the personal profiles)")
        gui.settle(seconds=15)

        def io_graph():
            gui.menu(main, "alt+s", "i", confirm=False)  # Statistics > I/O Graphs (mnemonic I)
            dlg = gui.wait_window("I/O Graphs", wb, "Statistics > I/O Graphs", 15,
                                  exclude=(main,))
            gui.settle(dlg, 12)
            h = gui.geometry(dlg)[3]
            if micro:
                # The profile's "Rel PSN" rows (ornic.analysis.psn_relative) instead of the
                # absolute ones: a click in the graph list's first row, right of its Enabled
                # check box (113 px above the dialog's bottom on 4.4 and 4.6), then Space on
                # each row whose Enabled changes, Down to the next.
                gui.x("xdotool", "mousemove", "--window", dlg, "80", str(h - 113), "click", "1")
                time.sleep(0.3)
                keys = []
                with open(os.path.join(a.profile, "io_graphs")) as f:
                    rows = uat_rows(f.read())
                for i, row in enumerate(rows):
                    keys += ["Down"] if i else []
                    if (row[0] == "Enabled") != row[1].startswith("Rel "):
                        keys.append("space")
                gui.key(*keys)
                gui.settle(dlg, 15)  # the retap of the graphs enabled
            # Park the pointer outside the dialog: a tracer follows it over the plot.
            gui.x("xdotool", "mousemove", "5", str(SCREEN_H - 60))
            # Interval (the dialog opens at 1 s and does not save it): its popup, by keyboard
            # (Home: 1 us on 4.4 and 4.6, 1 ms on 4.0). Then 0 on the next widget (a check
            # box, which passes it on) resets the axes, which the probe's alt+Down panned;
            # twice: the first one can come before the new data (4.0).
            popup = gui.open_combo(dlg)
            height = gui.geometry(popup)[3]
            print(f"Interval list: {height} px, about {height / 22:.0f} items")
            check(micro == (height > 20 * 22), f"the Interval list has about {height / 22:.0f} "
                  f"items: {'no ' if micro else ''}microseconds on Wireshark {a.ws_version}?")
            gui.key("Home", *(["Down"] * 3 if micro else []), "Return")  # 10 us or 1 ms
            gui.settle(dlg, 15)
            gui.key("Tab", "0")
            gui.settle(dlg, 8)
            gui.key("0")
            gui.settle(dlg, 8)
            return gui.shot("ornic-psn-io-graph.png", dlg)
        step("ornic-psn-io-graph.png", io_graph)
        gui.stop(wb)
    finally:
        gui.close()
        ts.close()
    print(f"screenshots: {len(done)} of {len(shots)} in {a.out}" +
          (f"; NOT TAKEN: {', '.join(failed)}" if failed else ""))
    version = gui_version()
    with open(os.path.join(a.out, VERSION_FILE), "w") as f:
        f.write(version + "\n")
    if a.docs:
        os.makedirs(a.docs, exist_ok=True)
        for p in done + [os.path.join(a.out, VERSION_FILE)]:
            shutil.copy(p, a.docs)
        print(f"copied {len(done)} screenshots and {VERSION_FILE} to {a.docs}")
    if a.expect:
        compare_shots(a, done, version)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--bin", required=True, help="folder of ornic-pcapgen")
    ap.add_argument("--profile", required=True, help="dissector/profile/ORNIC")
    ap.add_argument("--install-script", required=True, help="dissector/install_personal.cmake")
    ap.add_argument("--subdir", default="wireshark/plugins/4.0/epan")
    ap.add_argument("--ws-version", default="4.0")
    ap.add_argument("--cmake", default="cmake")
    ap.add_argument("--build", help="build folder with ORNIC_INSTALL: check the system install")
    ap.add_argument("--out", default="gui-artefacts", help="screens: where the PNGs go")
    ap.add_argument("--docs", help="screens: also copy the PNGs here (docs/screenshots)")
    ap.add_argument("--expect", help="screens: the committed screenshots (docs/screenshots): "
                    "those taken with the same Wireshark must be the same bytes")
    ap.add_argument("--budget", type=float, default=120, help="screens: seconds for everything")
    ap.add_argument("--strict", action="store_true",
                    help="screens: a screenshot not taken fails the test (else reported)")
    ap.add_argument("mode", choices=["profile", "screens"])
    a = ap.parse_args()
    a.plugin, a.profile = os.path.abspath(a.plugin), os.path.abspath(a.profile)
    a.out = os.path.abspath(a.out)

    def stop(signum, _frame):
        raise SystemExit(f"stopped by signal {signum}")
    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(s, stop)
    t0 = time.monotonic()
    try:
        (mode_profile if a.mode == "profile" else mode_screens)(a)
    except Fail as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)
    except subprocess.TimeoutExpired as e:
        print(f"FAIL: timed out: {e}", file=sys.stderr)
        sys.exit(1)
    print(f"PASS ({time.monotonic() - t0:.1f} s)")


if __name__ == "__main__":
    main()
