# SPDX-License-Identifier: MIT
"""Shared pieces of the ornicproto.scapy tests: the interpreter they need, where the programs are
(ORNIC_BIN_DIR, as tests/CMakeLists.txt's CMAKE_RUNTIME_OUTPUT_DIRECTORY), running ornic-decode, and
the fields ornic-decode --json prints, read from the Scapy layers instead.

The interpreter: Debian's /usr/bin/python3 with python3-scapy (CTest runs CMake's ORNIC_PYTHON, that one
by default). Without Scapy every test module reports itself skipped, naming the interpreter it ran on
and the one it needs; under CI=true (scripts/test.sh in CI) it fails instead, as does any other
missing prerequisite (require())."""
import json
import logging
import os
import socket
import subprocess
import sys
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))  # the package straight from the source tree
logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
NEEDS = ("Debian's /usr/bin/python3 with python3-scapy (apt-get install python3-scapy); CTest runs "
         "ORNIC_PYTHON from CMake's cache, /usr/bin/python3 unless set")


def require(ok, what):
    """A prerequisite of a test: skipped without it, but a failure under CI=true (where a skip would
    turn the suite green by running nothing). The skip's text starts with `ornic-python: skipped:`,
    which CTest's SKIP_REGULAR_EXPRESSION reports as a skipped test."""
    if ok:
        return
    if os.environ.get("CI") == "true":
        raise AssertionError("ornic-python: CI=true, so this fails instead of skipping: " + what)
    raise unittest.SkipTest("ornic-python: skipped: " + what)


try:
    import scapy
    del scapy  # only whether it imports
except ImportError as e:
    require(False, "%s (Python %s) cannot import Scapy (%s); these tests need %s" % (
        sys.executable, sys.version.split()[0], e, NEEDS))

from scapy.layers.inet import IP, UDP  # noqa: E402
from scapy.layers.inet6 import IPv6  # noqa: E402
from scapy.layers.l2 import Dot1Q  # noqa: E402

from ornicproto import opcodes  # noqa: E402
from ornicproto.scapy import BTH, GRH, NAKETH, Parts, icrc_check, syndrome_name  # noqa: E402

# ornic-decode --json keys of the extension headers (tools/ornic-decode/README.md, JSON lines).
JSON_KEY = {"RDETH": "rdeth", "DETH": "deth", "XRCETH": "xrceth", "FETH": "feth", "RETH": "reth",
            "OFFETH": "offeth", "ATOMICETH": "atomiceth", "AETH": "aeth", "ATOMICACKETH": "atomicacketh",
            "OACKETH": "oacketh", "NAKETH": "naketh", "IMMDT": "immdt", "IETH": "ieth", "CNP": "cnp"}
COMPARED = ("l3", "src", "dst", "vlan", "udp_sport", "bth", "payload_len", "icrc", "error") + tuple(JSON_KEY.values())
BTH_FIELDS = ("opcode", "se", "m", "padcnt", "tver", "pkey", "fecn", "becn", "resv6", "destqp", "ackreq",
              "resv7", "psn")
BIN_DIR = os.path.abspath(os.environ.get("ORNIC_BIN_DIR") or os.path.join(ROOT, "build", "bin"))
REASONS = {1: "OTD exceeded", 2: "timeout", 3: "Last seen, WQE incomplete"}


def program(name):
    """Path of a built program: $ORNIC_BIN_DIR/name, else build/bin/name. Under CTest
    (ORNIC_BIN_DIR set) a missing program fails the test; by hand it skips it (fails under CI=true)."""
    path = os.path.join(BIN_DIR, name)
    if os.access(path, os.X_OK):
        return path
    if os.environ.get("ORNIC_BIN_DIR"):
        raise AssertionError("%s not found in ORNIC_BIN_DIR=%s" % (name, BIN_DIR))
    require(False, "%s not built (set ORNIC_BIN_DIR to the build's bin directory)" % name)


def run(*args):
    """stdout of a program; a non-zero exit status fails with its stderr."""
    r = subprocess.run([program(args[0])] + list(args[1:]), capture_output=True, text=True)
    if r.returncode:
        raise AssertionError("%s exited %d: %s" % (" ".join(args), r.returncode, r.stderr.strip()))
    return r.stdout


def decode_json(pcap):
    """ornic-decode --json, without the conversation analysis: one dict per frame."""
    return [json.loads(line) for line in run("ornic-decode", "--json", "--no-analysis", pcap).splitlines()]


def decode_text(pcap):
    """ornic-decode's text lines without the frame number and time (what BTH.mysummary() prints)."""
    return [line.split(" ", 2)[2] for line in run("ornic-decode", "--no-analysis", pcap).splitlines()]


def decoder_view(obj):
    """The keys of an ornic-decode --json object the tests compare (analysis and times left out)."""
    view = {k: obj[k] for k in COMPARED if k in obj}
    if "bth" in view:
        view["bth"] = dict(view["bth"], ackreq=view["bth"]["a"])
        del view["bth"]["a"]
    return view


def _hex16(v):
    return "0x%016x" % v


def _nak(h):
    return {"reason": h.reason, "reason_name": REASONS.get(h.reason, "reserved"), "trigger_psn": h.trigger_psn,
            "nblocks": h.nblocks, "base_psn": h.base(), "limit_psn": h.limit_psn, "blocks": list(h.blocks),
            "missing_psns": h.lost_psns()}


def _oack(h):
    flags = int(h.flags)
    return {"flags": flags, "addr_cached": bool(flags & 1), "wqe_done": bool(flags & 2), "count": h.count}


# Each header layer as ornic-decode --json prints it.
AS_JSON = {
    "RDETH": lambda h: {"een": h.een},
    "DETH": lambda h: {"q_key": h.qkey, "srcqp": h.srcqp},
    "XRCETH": lambda h: {"xrcsrq": h.xrcsrq},
    "FETH": lambda h: {"value": h.value},
    "RETH": lambda h: {"va": _hex16(h.va), "r_key": h.rkey, "dmalen": h.dmalen},
    "OFFETH": lambda h: {"offset": h.offset},
    "ATOMICETH": lambda h: {"va": _hex16(h.va), "r_key": h.rkey, "swap_add": _hex16(h.swap_add),
                            "compare": _hex16(h.compare)},
    "AETH": lambda h: {"syndrome": h.syndrome, "syndrome_name": syndrome_name(h.syndrome), "msn": h.msn},
    "ATOMICACKETH": lambda h: {"orig_rdata": _hex16(h.orig)},
    "OACKETH": _oack,
    "NAKETH": _nak,
    "IMMDT": lambda h: h.data,
    "IETH": lambda h: h.rkey,
    "CNP": lambda h: {},
}


def _v6(addr):
    """An IPv6 address or a 128-bit GID as inet_ntop writes it (ornic-decode's form)."""
    raw16 = addr.to_bytes(16, "big") if isinstance(addr, int) else socket.inet_pton(socket.AF_INET6, addr)
    return socket.inet_ntop(socket.AF_INET6, raw16)


def _l3(pkt, view):
    if GRH in pkt:  # RoCEv1: GIDs, no UDP
        view.update(l3="grh", src=_v6(pkt[GRH].sgid), dst=_v6(pkt[GRH].dgid))
    elif IP in pkt:
        view.update(l3="ipv4", src=pkt[IP].src, dst=pkt[IP].dst, udp_sport=pkt[UDP].sport)
    else:
        view.update(l3="ipv6", src=_v6(pkt[IPv6].src), dst=_v6(pkt[IPv6].dst), udp_sport=pkt[UDP].sport)
    if Dot1Q in pkt:
        view["vlan"] = pkt[Dot1Q].vlan


def layers_view(pkt):
    """decoder_view() of pkt, read from the ornicproto.scapy layers of the dissected packet."""
    bth = pkt[BTH]
    parts, view = Parts(bth), {"error": None}
    _l3(pkt, view)
    info = opcodes.info(bth.opcode)
    view["bth"] = dict({f: bth.getfieldval(f) for f in BTH_FIELDS}, opcode_name=info[0] if info else None)
    for name, h in parts.hdrs.items():
        view[JSON_KEY[name]] = AS_JSON[name](h)
    if parts.located:
        view["payload_len"] = len(parts.payload)
    got, want = icrc_check(pkt)
    view["icrc"] = {"value": "0x%08x" % got, "ok": got == want}
    if got != want:
        view["icrc"]["expected"] = "0x%08x" % want
    return view


def from_scratch(pkt):
    """A copy of pkt with every field the layers fill in on build left unset: rebuilding it must
    give the same bytes (lengths, checksums, IHL, PadCnt, pad, iCRC, nblocks, Base PSN)."""
    p = pkt.copy()
    auto = ((IP, ("ihl", "len", "chksum")), (IPv6, ("plen",)), (UDP, ("len", "chksum")),
            (GRH, ("paylen",)), (BTH, ("padcnt", "pad", "icrc")), (NAKETH, ("nblocks",)))
    for cls, names in auto:
        layer = p.getlayer(cls)
        if layer is None or (cls is UDP and isinstance(layer.underlayer, IP) and layer.chksum != 0):
            continue  # a non-zero IPv4 UDP checksum is not what the layers would put there
        for name in names:
            layer.delfieldval(name)
    if NAKETH in p and p[NAKETH].base_psn == p[BTH].psn:
        p[NAKETH].delfieldval("base_psn")
    return p
