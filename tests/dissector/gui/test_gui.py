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
  screens  the GUI under Xvfb: wireshark -C ORNIC on a pcapgen trace with a loss; the packet
           list, a NAK's details, Statistics > ORNIC conversations, and an I/O Graph of PSN
           against time per path, as PNG files in --out (copied to --docs if given). The
           second instance has no personal profile: it must copy the global one. Exits 77
           (skipped) when Xvfb, wireshark, xdotool or ImageMagick's import is missing, and
           fails, saying which step, when a window never appears.

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
from dissector_common import Fail, Tshark, check, pcap_records, write_records  # noqa: E402

PROFILE = "ORNIC"
COLUMNS = [("No.", "%m"), ("Time", "%t"), ("Source", "%s"), ("Destination", "%d"),
           ("Protocol", "%p"), ("Length", "%L"), ("QP", "%Cus:ornic.bth.destqp:0:R"),
           ("PSN", "%Cus:ornic.bth.psn:0:R"),
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
         "ornic-psn-io-graph.png"]


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
    out = ts.path(name)
    cmd = [os.path.join(a.bin, "ornic-pcapgen"), "-o", out, "-q"] + args
    p = run(cmd)
    check(p.returncode == 0, f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()}")
    os.chmod(out, 0o644)
    return out


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
        names.add(fmt.split(":")[1])
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
    cols = [("_ws.col.QP", "ornic.bth.destqp"), ("_ws.col.PSN", "ornic.bth.psn"),
            ("_ws.col.OOO distance", "ornic.analysis.ooo_distance")]
    wqe_time = "ornic.analysis.wqe_time" in reg
    fields = ["frame.number", "frame.coloring_rule.name", "_ws.col.WQE time"] + \
        [x for c in cols for x in c] + RULE_FIELDS + (["ornic.analysis.wqe_time"] if wqe_time else [])
    args = ["-C", PROFILE, "--color", "-r", loss, "-T", "fields", "-E", "header=y",
            "-E", "separator=/t", "-E", "occurrence=f"]
    for f in fields:
        args += ["-e", f]
    out, err = tshark(ts, args)
    no_config_warnings(err, "tshark -C ORNIC --color")
    lines = out.splitlines()
    head = lines[0].split("\t")
    rows = [dict(zip(head, l.split("\t") + [""] * len(head))) for l in lines[1:]]
    errs, seen = [], {}
    for r in rows:
        fr = r["frame.number"]
        got = r["frame.coloring_rule.name"]
        seen.setdefault(got, []).append(int(fr))
        for col, fld in cols:
            if r[col] != r[fld]:
                errs.append(f"frame {fr}: column {col[8:]} shows {r[col]!r}, {fld} is {r[fld]!r}")
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
          "; QP, PSN and OOO distance columns equal their fields")


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
        self.spawn(["Xvfb", "-displayfd", str(w), "-screen", "0", f"{SCREEN_W}x{SCREEN_H}x24",
                    "-nolisten", "tcp", "-ac"],
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

    def menu(self, main, opener, *keys):
        """Open a menu of the main window (alt+LETTER), wait for its popup window, then walk
        it with keys and Return."""
        before = set(self.visible_class())
        self.focus(main)
        self.key(opener)
        end = time.monotonic() + self.budget.cap(8)
        while not set(self.visible_class()) - before:
            if time.monotonic() > end:
                raise Fail(f"the menu ({opener}) did not open")
            time.sleep(0.2)
        self.key(*keys, "Return")

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


def gui_home(a, ts, name, personal):
    """A HOME for one Wireshark instance: the plugin, a 1600x1000 main window, and (personal)
    the profile as install_personal.cmake installs it plus a test-only `recent` (no bytes
    pane, a shorter packet list) for the screenshots."""
    home = ts.path(name)
    pdir = os.path.join(home, ".local", "lib", "wireshark", "plugins", a.ws_version, "epan")
    os.makedirs(pdir)
    shutil.copy(a.plugin, pdir)
    conf = os.path.join(home, ".config", "wireshark")
    if personal:
        dest = install_personal(a, home)
        with open(os.path.join(dest, "recent"), "w") as f:
            f.write(f"gui.byte_view_show: FALSE\ngui.geometry_main_upper_pane: {UPPER_PANE}\n")
    os.makedirs(conf, exist_ok=True)
    with open(os.path.join(conf, "recent_common"), "w") as f:
        f.write(f"gui.geometry_main_x: 0\ngui.geometry_main_y: 0\n"
                f"gui.geometry_main_width: {SCREEN_W}\ngui.geometry_main_height: {SCREEN_H}\n"
                "gui.geometry_main_maximized: FALSE\n")
    open_up(home)
    os.chmod(home, 0o777)
    return home


def mode_screens(a):
    need = ["Xvfb", "wireshark", "xdotool", "import", "timeout"]
    missing = [t for t in need if not shutil.which(t)]
    if missing:
        print(f"SKIP: {', '.join(missing)} not installed (scripts/deps.sh test installs xvfb, "
              "wireshark-qt, xdotool, imagemagick)")
        sys.exit(77)
    budget = Budget(a.budget)
    os.makedirs(a.out, exist_ok=True)
    for f in SHOTS:
        if os.path.exists(os.path.join(a.out, f)):
            os.remove(os.path.join(a.out, f))
    ts = Tshark(a.plugin, a.ws_version)
    gui = Gui(budget, a.out)
    done, failed = [], []

    def step(name, fn):
        """A screenshot step after the window is up: best effort, reported (--strict: fatal)."""
        try:
            done.append(fn())
        except (Fail, subprocess.TimeoutExpired) as e:
            failed.append(name)
            print(f"WARN: screenshot {name} not taken: {e}")
            if a.strict:
                raise

    try:
        loss, psn, frames = make_traces(a, ts)
        home_a = gui_home(a, ts, "home-a", personal=True)
        home_b = gui_home(a, ts, "home-b", personal=False)
        data = global_datadir(ts, a, ts.path("global"))
        gui.start_x()

        # Instance A: personal profile; the list scrolled to show the NAK and its neighbours.
        nak = frames["nak"]
        t0 = time.monotonic()
        wa = gui.wireshark(home_a, ["-C", PROFILE, "-r", loss, "-g", str(nak + 7)], "a")
        main = gui.wait_window(r"^ornic-loss\.pcap$", wa, "wireshark -C ORNIC -r ornic-loss.pcap",
                               40)
        print(f"main window after {time.monotonic() - t0:.1f} s")
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
        gui.stop(wa)

        # Instance B: no personal profile, the global one (WIRESHARK_DATA_DIR); the I/O Graph.
        t0 = time.monotonic()
        wb = gui.wireshark(home_b, ["-C", PROFILE, "-r", psn], "b",
                           env=[f"WIRESHARK_DATA_DIR={data}"])
        main = gui.wait_window(r"^ornic-psn\.pcap$", wb, "wireshark -C ORNIC (global profile)",
                               40)
        print(f"main window after {time.monotonic() - t0:.1f} s")
        copied = os.path.join(home_b, ".config", "wireshark", "profiles", PROFILE, "io_graphs")
        check(os.path.exists(copied), f"the GUI did not copy the global profile ({copied} missing)")
        print("ok: the GUI took the global profile ORNIC (copied to the personal profiles)")
        gui.settle(seconds=15)

        def io_graph():
            gui.menu(main, "alt+s", *["Down"] * 6)  # Statistics > I/O Graphs
            dlg = gui.wait_window("I/O Graphs", wb, "Statistics > I/O Graphs", 15,
                                  exclude=(main,))
            gui.settle(dlg, 12)
            # Interval 1 ms (the dialog opens at 1 s and does not save it): the mouse wheel
            # up over its combo box, 56 px above the dialog's bottom and 415 px from its
            # left, walks to the first item; then Reset, at the right end of that row, fits
            # the axes to the 1 ms data.
            geo = dict(l.split("=", 1) for l in gui.x("xdotool", "getwindowgeometry",
                                                       "--shell", dlg).split())
            w, h = int(geo["WIDTH"]), int(geo["HEIGHT"])
            gui.x("xdotool", "mousemove", "--window", dlg, "415", str(h - 56),
                  "click", "--repeat", "12", "--delay", "60", "4")
            gui.settle(dlg, 15)
            gui.x("xdotool", "mousemove", "--window", dlg, str(w - 50), str(h - 56),
                  "click", "1")
            time.sleep(0.5)
            gui.settle(dlg, 8)
            return gui.shot("ornic-psn-io-graph.png", dlg)
        step("ornic-psn-io-graph.png", io_graph)
        gui.stop(wb)
    finally:
        gui.close()
        ts.close()
    print(f"screenshots: {len(done)} of {len(SHOTS)} in {a.out}" +
          (f"; NOT TAKEN: {', '.join(failed)}" if failed else ""))
    if a.docs:
        os.makedirs(a.docs, exist_ok=True)
        for p in done:
            shutil.copy(p, a.docs)
        print(f"copied {len(done)} screenshots to {a.docs}")


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
    ap.add_argument("--budget", type=float, default=80, help="screens: seconds for everything")
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
