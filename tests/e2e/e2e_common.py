# SPDX-License-Identifier: MIT
"""Shared pieces of the end-to-end tests: a reference iCRC written from
docs/IBA_NOTES.md section 5 with zlib.crc32 (independent of libornicproto), the
extension-header layouts from docs/IBA_NOTES.md section 4, a driver for the
ornic-test-icrc helper, pcap writing, and pass/fail bookkeeping."""
import json
import os
import shutil
import struct
import subprocess
import zlib

ROCE_PORT = 4791

# ---------------------------------------------------------------- reference iCRC

def ref_icrc(l3: bytes, kind: int) -> bytes:
    """iCRC wire bytes of a RoCE packet. l3 starts at the IPv4/IPv6 header (kind
    4/6) or the GRH (kind 1) and ends with the 4 iCRC bytes (ignored here)."""
    m = bytearray(l3[:-4])
    if kind == 4:
        ihl = (m[0] & 0x0F) * 4
        m[1] = 0xFF              # TOS (DSCP + ECN)
        m[8] = 0xFF              # TTL
        m[10] = m[11] = 0xFF     # header checksum
        m[ihl + 6] = m[ihl + 7] = 0xFF  # UDP checksum
        bth = ihl + 8
    else:
        m[0] |= 0x0F             # traffic class (high nibble in byte 0)
        m[1] = m[2] = m[3] = 0xFF  # traffic class low nibble + flow label
        m[7] = 0xFF              # hop limit
        if kind == 6:
            m[46] = m[47] = 0xFF  # UDP checksum
            bth = 48
        else:
            bth = 40
    m[bth + 4] = 0xFF            # BTH FECN, BECN, resv6
    crc = zlib.crc32(b"\xff" * 8 + bytes(m)) & 0xFFFFFFFF
    return crc.to_bytes(4, "little")  # least-significant byte first on the wire

# ---------------------------------------------------------------- layouts

HDR_ORDER = ["RDETH", "DETH", "XRCETH", "FETH", "RETH", "OFFETH", "ATOMICETH", "AETH",
             "ATOMICACKETH", "OACKETH", "NAKETH", "IMMDT", "IETH", "CNP"]
HDR_BIT = {name: 1 << i for i, name in enumerate(HDR_ORDER)}

# docs/IBA_NOTES.md section 4: operation code -> (RC-style headers, carries payload, request?)
_OPS = {
    0x00: ([], True, True), 0x01: ([], True, True), 0x02: ([], True, True),
    0x03: (["IMMDT"], True, True), 0x04: ([], True, True), 0x05: (["IMMDT"], True, True),
    0x06: (["RETH"], True, True), 0x07: ([], True, True), 0x08: ([], True, True),
    0x09: (["IMMDT"], True, True), 0x0A: (["RETH"], True, True),
    0x0B: (["RETH", "IMMDT"], True, True), 0x0C: (["RETH"], False, True),
    0x0D: (["AETH"], True, False), 0x0E: ([], True, False), 0x0F: (["AETH"], True, False),
    0x10: (["AETH"], True, False), 0x11: (["AETH"], False, False),
    0x12: (["AETH", "ATOMICACKETH"], False, False), 0x13: (["ATOMICETH"], False, True),
    0x14: (["ATOMICETH"], False, True), 0x15: ([], False, True),
    0x16: (["IETH"], True, True), 0x17: (["IETH"], True, True),
    0x1C: (["FETH", "RETH"], False, True), 0x1D: (["RETH"], True, True),
}


def dc_len(opcode, se):
    """Bytes between the BTH and the extension headers. Wireshark's
    packet-infiniband.c (4.0.17 here) decodes the whole RD block 0x40-0x5F as
    ConnectX's DC transport: its BTH is 8 bytes longer, and a DC connect
    (RESYNC 0x55 with SE clear) has a 16-byte DCCETH after it."""
    if opcode & 0xE0 != 0x40:
        return 0
    return 8 + (16 if opcode == 0x55 and not se else 0)


def std_layout(opcode):
    """(headers in wire order, payload allowed) for a standard IBA opcode, or None.
    RD requests carry RDETH+DETH, RD responses RDETH only; XRC requests carry
    XRCETH, responses none (Linux rxe_opcode.c and its XRC patch). The RD block
    is Wireshark's DC (dc_len): the same headers after the DC bytes, except the
    Acknowledge (AETH alone) and RESYNC (payload only)."""
    t, op = opcode & 0xE0, opcode & 0x1F
    if opcode == 0x81:
        return (["CNP"], False)
    if opcode in (0x64, 0x65):
        return (["DETH"] + (["IMMDT"] if opcode == 0x65 else []), True)
    if op not in _OPS:
        return None
    hdrs, payload, request = _OPS[op]
    if t == 0x00 and op != 0x15:
        return (list(hdrs), payload)
    if t == 0x20 and op <= 0x0B:
        return (list(hdrs), payload)
    if t == 0x40 and op == 0x11:
        return (["AETH"], False)  # DC Acknowledge: Wireshark's RDETH_AETH case parses the AETH only
    if t == 0x40 and op == 0x15:
        return ([], True)         # DC RESYNC: payload (after dc_len's bytes)
    if t == 0x40 and op <= 0x15:
        return ((["RDETH", "DETH"] if request else ["RDETH"]) + hdrs, payload)
    if t == 0xA0 and (op <= 0x14 or op in (0x16, 0x17)):
        return ((["XRCETH"] if request else []) + hdrs, payload)
    return None


# docs/PROTOCOL.md section 3.2: ORNIC opcode -> (headers in wire order, carries payload)
ORNIC_LAYOUTS = {
    0xC0: (["RETH", "OFFETH"], True), 0xC1: ([], True), 0xC2: ([], True), 0xC3: (["IMMDT"], True),
    0xC4: (["RETH", "OFFETH"], True), 0xC5: (["RETH", "OFFETH", "IMMDT"], True), 0xC6: (["RETH"], False),
    0xC7: ([], True), 0xC8: (["AETH"], True), 0xC9: (["AETH", "OACKETH"], False),
    0xCA: (["AETH", "NAKETH"], False),
}


def layout(opcode):
    """std_layout() for IBA opcodes, PROTOCOL.md 3.2 for ORNIC ones, else None."""
    return ORNIC_LAYOUTS.get(opcode) or std_layout(opcode)


def pack_header(name, v):
    """Wire bytes of one header from a dict of its values (docs/IBA_NOTES.md section 3,
    ORNIC headers per headers.h)."""
    u24 = lambda x: x.to_bytes(3, "big")
    if name == "RDETH":
        return bytes([v["resv"]]) + u24(v["een"])
    if name == "DETH":
        return struct.pack("!IB", v["qkey"], v["resv"]) + u24(v["srcqp"])
    if name == "XRCETH":
        return bytes([v["resv"]]) + u24(v["srq"])
    if name in ("FETH", "OFFETH", "IMMDT", "IETH"):
        return struct.pack("!I", v)
    if name == "RETH":
        return struct.pack("!QII", v["va"], v["rkey"], v["dmalen"])
    if name == "ATOMICETH":
        return struct.pack("!QIQQ", v["va"], v["rkey"], v["swap"], v["cmp"])
    if name == "AETH":
        return bytes([v["syndrome"]]) + u24(v["msn"])
    if name == "ATOMICACKETH":
        return struct.pack("!Q", v)
    if name == "OACKETH":
        return struct.pack("!BBH", v["flags"], v["resv"], v["count"])
    if name == "NAKETH":
        bm = bytes.fromhex(v["bitmap"])
        return (bytes([v["reason"]]) + u24(v["trigger"]) + bytes([len(bm) // 2]) + u24(v["base"]) +
                bytes([v["resv"]]) + u24(v["limit"]) + bm)
    if name == "CNP":
        return bytes.fromhex(v)
    raise KeyError(name)


def random_header(name, rng):
    r = rng.getrandbits
    if name == "RDETH":
        return {"resv": r(8), "een": r(24)}
    if name == "DETH":
        return {"qkey": r(32), "resv": r(8), "srcqp": r(24)}
    if name == "XRCETH":
        return {"resv": r(8), "srq": r(24)}
    if name in ("FETH", "OFFETH", "IMMDT", "IETH"):
        return r(32)
    if name == "RETH":
        return {"va": r(64), "rkey": r(32), "dmalen": r(32)}
    if name == "ATOMICETH":
        return {"va": r(64), "rkey": r(32), "swap": r(64), "cmp": r(64)}
    if name == "AETH":
        return {"syndrome": r(8), "msn": r(24)}
    if name == "ATOMICACKETH":
        return r(64)
    if name == "OACKETH":
        return {"flags": r(8), "resv": r(8), "count": r(16)}
    if name == "NAKETH":
        n = rng.randint(1, 9)
        return {"reason": r(8), "trigger": r(24), "base": r(24), "nblocks": n, "resv": r(8),
                "limit": r(24), "bitmap": bytes(rng.getrandbits(8) for _ in range(2 * n)).hex()}
    if name == "CNP":
        return bytes(rng.getrandbits(8) for _ in range(16)).hex()
    raise KeyError(name)


# helper JSON key and encode-spec keys for each header
JSON_KEY = {"RDETH": "rdeth", "DETH": "deth", "XRCETH": "xrceth", "FETH": "feth", "RETH": "reth",
            "OFFETH": "offeth", "ATOMICETH": "atomiceth", "AETH": "aeth",
            "ATOMICACKETH": "atomicacketh", "OACKETH": "oacketh", "NAKETH": "naketh",
            "IMMDT": "immdt", "IETH": "ieth", "CNP": "cnp"}
_SPEC = {"RDETH": {"resv": "rdeth.resv", "een": "rdeth.een"},
         "DETH": {"qkey": "deth.qkey", "resv": "deth.resv", "srcqp": "deth.srcqp"},
         "XRCETH": {"resv": "xrceth.resv", "srq": "xrceth.srq"},
         "FETH": "feth", "OFFETH": "offeth", "IMMDT": "immdt", "IETH": "ieth",
         "RETH": {"va": "reth.va", "rkey": "reth.rkey", "dmalen": "reth.dmalen"},
         "ATOMICETH": {"va": "atomic.va", "rkey": "atomic.rkey", "swap": "atomic.swap", "cmp": "atomic.cmp"},
         "AETH": {"syndrome": "aeth.syn", "msn": "aeth.msn"}, "ATOMICACKETH": "atomicack",
         "OACKETH": {"flags": "oack.flags", "resv": "oack.resv", "count": "oack.count"},
         "NAKETH": {"reason": "nak.reason", "trigger": "nak.trigger", "base": "nak.base", "resv": "nak.resv",
                    "limit": "nak.limit", "bitmap": "nak.bitmap"},
         "CNP": "cnp"}


def spec_tokens(name, v):
    s = _SPEC[name]
    if isinstance(s, str):
        return [f"{s}={v}"]
    return [f"{key}={v[field]}" for field, key in s.items()]


def header_json_matches(name, v, got):
    """Compare a random_header() value with the helper's JSON for that header."""
    if got is None:
        return False
    if name == "NAKETH":
        return all(got[k] == v[k] for k in ("reason", "trigger", "base", "nblocks", "resv", "limit", "bitmap"))
    if isinstance(v, dict):
        return all(got.get(k) == x for k, x in v.items())
    return got == v

# ---------------------------------------------------------------- helper

class Helper:
    """Drives tests/e2e/icrc_check.c (ornic-test-icrc) over a pipe."""

    def __init__(self, path):
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True, bufsize=1)

    def call(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        out = self.p.stdout.readline()
        if not out:
            raise RuntimeError("ornic-test-icrc exited")
        return out.rstrip("\n")

    def decode(self, frame: bytes, link="eth"):
        return json.loads(self.call(f"decode {link} {frame.hex()}"))

    def encode(self, tokens):
        out = self.call("encode " + " ".join(tokens))
        if out.startswith("ok "):
            return bytes.fromhex(out[3:])
        raise RuntimeError(f"encode failed: {out} for {' '.join(tokens)[:200]}")

    def opcodes(self):
        return json.loads(self.call("opcodes"))

    def close(self):
        self.p.stdin.close()
        rc = self.p.wait()
        if rc != 0:
            raise RuntimeError(f"ornic-test-icrc exited with {rc}")

# ---------------------------------------------------------------- pcap

def write_pcap(path, frames, linktype=1):
    """Classic pcap (microsecond), one record per frame."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, linktype))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", 1700000000 + i, 0, len(fr), len(fr)))
            f.write(fr)

# ---------------------------------------------------------------- tshark

def tshark_fields(path, fields):
    """Stock tshark's `-T fields` of a capture: the CompletedProcess (text), or None without
    tshark. tshark refuses root: as root it runs as nobody, reading the file on its standard
    input (the build tree may be in a folder nobody cannot enter)."""
    tshark = shutil.which("tshark")
    if not tshark:
        return None
    cmd = [tshark, "-r", "-", "-T", "fields"] + [a for f in fields for a in ("-e", f)]
    if os.geteuid() == 0:
        cmd = ["runuser", "-u", "nobody", "--"] + cmd
    with open(path, "rb") as f:
        return subprocess.run(cmd, stdin=f, capture_output=True, text=True)

# ---------------------------------------------------------------- results

class Results:
    def __init__(self, name, max_report=40):
        self.name, self.passed, self.failed, self.max_report = name, 0, 0, max_report

    def check(self, cond, msg):
        if cond:
            self.passed += 1
        else:
            self.failed += 1
            if self.failed <= self.max_report:
                print(f"FAIL: {msg}", flush=True)
            elif self.failed == self.max_report + 1:
                print("FAIL: (further failures not shown)", flush=True)
        return cond

    def finish(self):
        print(f"{self.passed} passed, {self.failed} failed")
        return 1 if self.failed else 0
