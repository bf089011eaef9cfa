# SPDX-License-Identifier: MIT
"""Shared helpers of the dissector tests: tshark with and without the ORNIC
plugin, field extraction, ornic-decode JSON, pcap rewriting.

Wireshark ignores personal plugins when run as root, so as root every tshark
runs as `nobody` (runuser) with HOME set to a private folder holding the
plugin; every file it reads is copied into that folder first. Before anything
else, `tshark -G plugins` must list the plugin from that folder, so no test can
pass with the plugin silently missing."""
import json
import re
import os
import shutil
import struct
import subprocess
import sys
import tempfile

# Opcodes the plugin decodes itself: ORNIC's space 0xC0-0xDF (0xCB-0xDF reserved) and the CNP.
OWN_OPCODES = set(range(0xC0, 0xE0)) | {0x81}


class Fail(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Fail(msg)


def tshark_version():
    """"4.4" for the tshark on PATH: the personal plugin folder is named after
    the release line (plugins/4.4/epan)."""
    out = subprocess.run(["tshark", "--version"], stdout=subprocess.PIPE, text=True,
                         check=True).stdout
    m = re.search(r"\b(\d+)\.(\d+)\.\d+", out.splitlines()[0])
    check(m, f"tshark --version: no version in {out.splitlines()[0]!r}")
    return f"{m.group(1)}.{m.group(2)}"


class Tshark:
    def __init__(self, plugin, ws_version=None):
        ws_version = ws_version or tshark_version()
        self.ws_version = ws_version
        self.tmp = tempfile.mkdtemp(prefix="ornic-dissector-")
        os.chmod(self.tmp, 0o755)
        self.home = os.path.join(self.tmp, "home")
        self.empty = os.path.join(self.tmp, "empty-home")
        pdir = os.path.join(self.home, ".local/lib/wireshark/plugins", ws_version, "epan")
        os.makedirs(pdir)
        os.makedirs(self.empty)
        self.plugin = os.path.join(pdir, "ornic.so")
        shutil.copy(plugin, self.plugin)
        for root, dirs, files in os.walk(self.tmp):
            for d in dirs:
                os.chmod(os.path.join(root, d), 0o777)
            for f in files:
                os.chmod(os.path.join(root, f), 0o755)
        self.as_root = os.geteuid() == 0

    def path(self, name):
        return os.path.join(self.tmp, name)

    def adopt(self, src, name=None):
        """Copy a file into the private folder, readable by tshark's user."""
        dst = self.path(name or os.path.basename(src))
        if os.path.abspath(src) != dst:
            shutil.copy(src, dst)
        os.chmod(dst, 0o644)
        return dst

    def cmd(self, args, plugin=True):
        env = ["env", "HOME=" + (self.home if plugin else self.empty),
               "WIRESHARK_ABORT_ON_DISSECTOR_BUG=1", "LC_ALL=C.UTF-8"]
        # Sanitizer builds: the plugin needs clang's ASan+UBSan runtime, which the
        # distribution's tshark does not have: preloaded (tests/dissector/CMakeLists.txt).
        # tshark and GLib keep memory until exit, so leaks are not reported. The
        # preload would reach tshark's extcap helpers too (androiddump then hangs):
        # they are pointed at an empty folder.
        preload = os.environ.get("ORNIC_TSHARK_PRELOAD")
        if preload and plugin:
            env += ["LD_PRELOAD=" + preload, "ASAN_OPTIONS=detect_leaks=0:abort_on_error=1",
                    "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1",
                    "WIRESHARK_EXTCAP_DIR=" + self.empty]
        pre = ["runuser", "-u", "nobody", "--"] if self.as_root else []
        return pre + env + ["tshark"] + list(args)

    def run(self, args, plugin=True, ok_rc=(0,)):
        p = subprocess.run(self.cmd(args, plugin), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, cwd=self.tmp)
        if p.returncode not in ok_rc:
            raise Fail(f"tshark {' '.join(args)} exited {p.returncode}: {p.stderr[-2000:]}")
        return p.stdout

    def check_loaded(self, stock_too=False):
        """tshark lists the plugin from the private folder; stock_too: and the stock
        run (HOME without the plugin) does not see it."""
        out = self.run(["-G", "plugins"])
        line = [l for l in out.splitlines() if l.startswith("ornic.so")]
        check(line and self.plugin in line[0],
              f"tshark -G plugins does not list {self.plugin}:\n{out}")
        if stock_too:
            out = self.run(["-G", "plugins"], plugin=False)
            check("ornic.so" not in out, "the stock tshark run sees the ORNIC plugin")
        return line[0]

    def trace(self, name, frames):
        """A classic pcap of Ethernet frames in the private folder, readable by tshark's user."""
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
        from e2e_common import write_pcap
        cap = self.path(name)
        write_pcap(cap, frames)
        os.chmod(cap, 0o644)
        return cap

    def col(self, kind):
        """The field of a standard column: "_ws.col.info" ("protocol", ...) on the
        versions that name column fields by type (4.6 knows no other), "_ws.col.Info"
        (by title) on 4.0."""
        if not hasattr(self, "_col_by_type"):
            out = self.run(["-G", "fields"], plugin=False)
            self._col_by_type = "\t_ws.col.info\t" in out
        return f"_ws.col.{kind}" if self._col_by_type else f"_ws.col.{kind.capitalize()}"

    def columns(self, args):
        """The packet list as tshark prints it for the given arguments (-T psml): a list
        of {column title: text}. Custom columns have no field of their own on 4.6."""
        import xml.etree.ElementTree as ET
        root = ET.fromstring(self.run(list(args) + ["-T", "psml"]))
        titles = [s.text or "" for s in root.find("structure").findall("section")]
        return [dict(zip(titles, [(s.text or "").strip() for s in p.findall("section")]))
                for p in root.findall("packet")]

    def registered_fields(self):
        out = self.run(["-G", "fields"])
        names = set()
        for l in out.splitlines():
            parts = l.split("\t")
            if parts[0] in ("F", "P") and len(parts) > 2 and (parts[2] == "ornic" or
                                                            parts[2].startswith("ornic.")):
                names.add(parts[2])
        return names

    def fields(self, capture, names, extra=(), plugin=True):
        """{frame: {field: [values...]}} for the given fields."""
        args = ["-r", capture, "-T", "fields", "-E", "header=y", "-E", "occurrence=a",
                "-E", "aggregator=|", "-E", "separator=/t", "-e", "frame.number"]
        for n in names:
            args += ["-e", n]
        out = self.run(list(extra) + args, plugin=plugin)
        lines = out.splitlines()
        head = lines[0].split("\t")
        res = {}
        for l in lines[1:]:
            cols = l.split("\t")
            fr = int(cols[0])
            res[fr] = {head[i]: cols[i].split("|") for i in range(1, len(head))
                       if i < len(cols) and cols[i] != ""}
        return res

    def json(self, capture, extra=(), plugin=True):
        return json.loads(self.run(list(extra) + ["-r", capture, "-T", "json"], plugin=plugin))

    def close(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


def value(s):
    """A tshark -T fields value as a Python number (or bool as 0/1)."""
    if s in ("True", "False"):
        return int(s == "True")
    try:
        return int(s, 0)
    except ValueError:
        return s


def ornic_decode(decoder, capture):
    p = subprocess.run([decoder, "--json", capture], stdout=subprocess.PIPE, text=True)
    check(p.returncode == 0, f"ornic-decode {capture} exited {p.returncode}")
    return {j["frame"]: j for j in map(json.loads, p.stdout.splitlines()) if "bth" in j}


def expected_fields(j):
    """The ornic.* fields the plugin must show for one ornic-decode --json object."""
    e = {}
    b = j["bth"]
    own = b["opcode"] in OWN_OPCODES
    # Field names follow stock's (infiniband.bth.p_key, reserved7); under stock's tree the
    # ORNIC item shows only the BTH bits stock lacks (FECN, BECN, the 6 reserved bits).
    names = {"pkey": "p_key", "resv6": "reserved6", "resv7": "reserved7"}
    keys = ("opcode", "se", "m", "padcnt", "tver", "pkey", "fecn", "becn", "resv6", "destqp", "a",
            "resv7", "psn") if own else ("fecn", "becn", "resv6")
    for k in keys:
        e["ornic.bth." + names.get(k, k)] = [b[k]]
    hx = lambda s: int(s, 16)
    if own:
        if "reth" in j:
            r = j["reth"]
            e.update({"ornic.reth.va": [hx(r["va"])], "ornic.reth.r_key": [r["r_key"]],
                      "ornic.reth.dmalen": [r["dmalen"]]})
        if "offeth" in j:
            e["ornic.offeth.offset"] = [j["offeth"]["offset"]]
        if "aeth" in j:
            e["ornic.aeth.syndrome"] = [j["aeth"]["syndrome"]]
            e["ornic.aeth.msn"] = [j["aeth"]["msn"]]
        if "oacketh" in j:
            o = j["oacketh"]
            e.update({"ornic.oacketh.flags": [o["flags"]],
                      "ornic.oacketh.addr_cached": [int(o["addr_cached"])],
                      "ornic.oacketh.wqe_done": [int(o["wqe_done"])],
                      "ornic.oacketh.count": [o["count"]]})
        if "naketh" in j:
            n = j["naketh"]
            e.update({"ornic.naketh.reason": [n["reason"]],
                      "ornic.naketh.trigger_psn": [n["trigger_psn"]],
                      "ornic.naketh.nblocks": [n["nblocks"]],
                      "ornic.naketh.base_psn": [n["base_psn"]],
                      "ornic.naketh.limit_psn": [n["limit_psn"]],
                      "ornic.naketh.block": n["blocks"],
                      "ornic.nak.missing_psn": n["missing_psns"]})
        if "immdt" in j:
            e["ornic.immdt"] = [j["immdt"]]
        if "payload_len" in j:
            e["ornic.payload_len"] = [j["payload_len"]]
    if "xrceth" in j:
        e["ornic.xrceth.xrcsrq"] = [j["xrceth"]["xrcsrq"]]
    if "feth" in j:
        e["ornic.feth.value"] = [j["feth"]["value"]]
    if "cnp" in j:
        e["ornic.cnp.resv"] = ["0" * 32]
    ic = j.get("icrc") or {}
    if ic.get("value"):
        v = hx(ic["value"])  # ornic-decode: the CRC-32 value; the field: wire order (stock's)
        e["ornic.invariant.crc"] = [int.from_bytes(v.to_bytes(4, "little"), "big")]
        if ic.get("ok") is not None:
            e["ornic.invariant.crc.crc32"] = [v]
    if ic.get("ok") is not None:
        e["ornic.invariant.crc.status"] = [1 if ic["ok"] else 0]
    return e


def compare_frame(frame, exp, got):
    errs = []
    for k, v in exp.items():
        g = got.get(k)
        if g is None:
            errs.append(f"frame {frame}: {k} missing (ornic-decode: {v})")
            continue
        gv = [value(x) if k != "ornic.cnp.resv" else x.replace(":", "") for x in g]
        if gv != v:
            errs.append(f"frame {frame}: {k} = {gv[:8]}, ornic-decode says {v[:8]}")
    return errs


def pcap_records(path):
    """(header bytes, [(record header, data)]) of a classic pcap file."""
    with open(path, "rb") as f:
        data = f.read()
    check(len(data) >= 24, f"{path}: not a pcap")
    magic = struct.unpack("<I", data[:4])[0]
    check(magic in (0xA1B2C3D4, 0xA1B23C4D), f"{path}: not a little-endian pcap")
    recs, off = [], 24
    while off + 16 <= len(data):
        incl = struct.unpack("<I", data[off + 8:off + 12])[0]
        recs.append((data[off:off + 16], bytearray(data[off + 16:off + 16 + incl])))
        off += 16 + incl
    return data[:24], recs


def write_records(path, head, recs):
    with open(path, "wb") as f:
        f.write(head)
        for h, d in recs:
            f.write(h)
            f.write(bytes(d))


def run_pcapgen(bindir, out, args):
    """ornic-pcapgen -o OUT -q ARGS from BINDIR; the file made readable for tshark's user."""
    cmd = [os.path.join(bindir, "ornic-pcapgen"), "-o", out, "-q"] + list(args)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    check(p.returncode == 0, f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()}")
    os.chmod(out, 0o644)
    return out


def run_main(fn):
    try:
        fn()
    except Fail as e:
        print("FAIL:", e, file=sys.stderr)
        sys.exit(1)
    print("PASS")
