#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Differential test: stock tshark (Wireshark 4.0's InfiniBand/RRoCE
dissector, no plugin) against tools/ornic-decode --json, on a pcap of
standard-opcode frames (RC, UC, RD/DC, UD, XRC, CNP; IPv4 and IPv6; with and
without an 802.1Q tag) encoded by libornicproto through ornic-test-icrc, and on
a ConnectX DC capture of ornic-pcapgen --rc-dc (when built next to ornic-decode).

Three-way comparison, field by field:
  spec   the values this script asked the encoder for,
  tshark what Wireshark decodes,
  ornic  what ornic-decode --json prints.
spec == tshark checks the encoder against an independent decoder even when
ornic-decode is not built; ornic == tshark (and ornic == spec) is the
differential test proper.

tshark 4.0.17 quirks, each normalised explicitly (see TSHARK_QUIRKS below):
  Q1 number formats: opcode, se, m, padcnt, tver, p_key, a, psn, dmalen,
     syndrome, msn are decimal; destqp, reth.va, reth.r_key, deth.q_key (as a
     64-bit value), deth.srcqp and invariant.crc are 0x-prefixed hex;
     immdt and ieth are FT_BYTES printed as bare hex. Booleans print 1/0
     (newer Wiresharks print True/False; both are accepted).
  Q2 immdt and ieth appear twice per packet (header item + field share the
     name): -E occurrence=f takes the first.
  Q3 FECN/BECN have no field; BTH byte 4 is the first infiniband.reserved
     item ("Reserved: 00"), split here into F = bit 7, B = bit 6.
  Q4 the iCRC is shown as the big-endian value of the four wire bytes;
     libornicproto's ornic_frame.icrc is the little-endian value.
  Q5 payload bytes go to the "data" dissector and data.len INCLUDES the pad
     bytes: payload_len = data.len - padcnt.
  Q6 DestQP 0 and 1 are taken for QP0/QP1 management traffic and the payload
     is parsed as a MAD: this script uses DestQP >= 2.
  Q7 The RD block (0x40-0x5F) is decoded with ConnectX's DC layout: 8 more
     bytes after the BTH, 16 more on RESYNC with SE clear, the Acknowledge
     with its AETH alone. libornicproto follows that rule (docs/PROTOCOL.md
     2.8) and e2e_common.std_layout/dc_len describe it, so the block is
     compared in full; its frames are counted and must be many.
  Q8 XRC opcodes, CNP (0x81), RC FLUSH (0x1C) and RC ATOMIC WRITE (0x1D) are
     "Unknown OpCode": only the BTH is compared.
  Q9 SEND/UD packets with a short payload are offered to heuristic
     sub-dissectors, which may mark them Malformed and then show neither the
     data nor the iCRC: payload_len and iCRC are compared only when tshark
     shows them (and the number of such comparisons must be large).
  Q10 tshark reports the AtomicETH VA and R_Key under infiniband.reth.*; the
     contract's reth key is for RETH only, so RETH is compared only for
     opcodes that carry a RETH.
  Q11 UD SEND payloads of 64 bytes come out 4 bytes short in data.len; UD
     payload lengths are not compared with tshark.
  Q12 Wireshark gives UDP to the dissector of the lower port first: a low
     source port such as 434 (Mobile IP) wins over 4791. The frames use
     source ports 0xC000-0xFFFF, as RoCE NICs do (docs/IBA_NOTES.md section 1).

Prints 'N passed, N failed'. Exit 0 pass, 1 fail, 77 skipped (ornic-decode
missing and --allow-missing-decoder given; the tshark-vs-spec part still ran)."""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_common import Helper, Results, random_header, spec_tokens, std_layout, write_pcap  # noqa: E402

TSHARK_FIELDS = [
    "frame.number", "infiniband.bth.opcode", "infiniband.bth.se", "infiniband.bth.m",
    "infiniband.bth.padcnt", "infiniband.bth.tver", "infiniband.bth.p_key", "infiniband.bth.destqp",
    "infiniband.bth.a", "infiniband.bth.reserved7", "infiniband.bth.psn", "infiniband.reserved",
    "infiniband.reth.va", "infiniband.reth.r_key", "infiniband.reth.dmalen",
    "infiniband.aeth.syndrome", "infiniband.aeth.msn", "infiniband.immdt", "infiniband.ieth",
    "infiniband.deth.q_key", "infiniband.deth.srcqp", "data.len", "infiniband.invariant.crc",
]


def num(v):
    """Normalise a decimal / 0x-hex / bool / True-False value to int (Q1)."""
    if v is None or v == "":
        return None
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int):
        return v
    s = str(v).strip()
    if s in ("True", "true"):
        return 1
    if s in ("False", "false"):
        return 0
    return int(s, 0)


def hexbytes(v):
    """FT_BYTES printed as bare hex ("cafebabe") -> int (Q1)."""
    return None if v in (None, "") else int(v.replace(":", ""), 16)


def run_tshark(pcap):
    cmd = ["tshark", "-r", pcap, "-T", "fields", "-E", "separator=|", "-E", "occurrence=f"]
    for f in TSHARK_FIELDS:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    rows = {}
    for line in out.splitlines():
        cols = line.split("|")
        if len(cols) != len(TSHARK_FIELDS):
            continue
        r = dict(zip(TSHARK_FIELDS, cols))
        t = {"frame": int(r["frame.number"])}
        bth = {"opcode": num(r["infiniband.bth.opcode"]), "se": num(r["infiniband.bth.se"]),
               "m": num(r["infiniband.bth.m"]), "padcnt": num(r["infiniband.bth.padcnt"]),
               "tver": num(r["infiniband.bth.tver"]), "pkey": num(r["infiniband.bth.p_key"]),
               "destqp": num(r["infiniband.bth.destqp"]), "a": num(r["infiniband.bth.a"]),
               "psn": num(r["infiniband.bth.psn"]), "resv7": num(r["infiniband.bth.reserved7"])}
        b4 = hexbytes(r["infiniband.reserved"])  # Q3
        bth["fecn"] = None if b4 is None else b4 >> 7
        bth["becn"] = None if b4 is None else (b4 >> 6) & 1
        t["bth"] = bth
        if r["infiniband.reth.va"]:
            t["reth"] = {"va": num(r["infiniband.reth.va"]), "r_key": num(r["infiniband.reth.r_key"]),
                         "dmalen": num(r["infiniband.reth.dmalen"])}
        if r["infiniband.aeth.syndrome"]:
            t["aeth"] = {"syndrome": num(r["infiniband.aeth.syndrome"]), "msn": num(r["infiniband.aeth.msn"])}
        if r["infiniband.immdt"]:
            t["immdt"] = hexbytes(r["infiniband.immdt"])  # Q1, Q2
        if r["infiniband.ieth"]:
            t["ieth"] = hexbytes(r["infiniband.ieth"])
        if r["infiniband.deth.q_key"]:
            t["deth"] = {"q_key": num(r["infiniband.deth.q_key"]), "srcqp": num(r["infiniband.deth.srcqp"])}
        if r["data.len"] and bth["padcnt"] is not None:
            t["payload_len"] = int(r["data.len"]) - bth["padcnt"]  # Q5
        if r["infiniband.invariant.crc"]:
            t["icrc_wire"] = num(r["infiniband.invariant.crc"]).to_bytes(4, "big")  # Q4
        rows[t["frame"]] = t
    return rows


def tshark_class(op):
    """Which extension headers tshark decodes faithfully for this opcode (Q7, Q8)."""
    t = op & 0xE0
    if t == 0xA0 or op in (0x81, 0x1C, 0x1D):
        return "bth-only"
    return "full"


def make_frames(helper, rng):
    """Standard opcodes x encapsulations x payload lengths; returns
    [(frame bytes, spec dict)]."""
    out = []
    encaps = [(4, None), (4, 0x8100), (6, None), (6, 0x8100)]
    ops = [op for op in range(256) if std_layout(op)]
    for op in ops:
        hdrs, payload_ok = std_layout(op)
        lengths = [0, 1, 3, 5, 16, 64, 200] if payload_ok else [0]
        for ipv, tpid in encaps:
            for paylen in lengths:
                r = rng.getrandbits
                spec = {"opcode": op, "se": r(1), "m": r(1), "tver": 0 if r(1) else r(4), "pkey": r(16),
                        "fecn": r(1), "becn": r(1), "resv6": r(6), "destqp": rng.randrange(2, 1 << 24),  # Q6
                        "a": r(1), "resv7": r(7), "psn": rng.choice([0, 0xFFFFFF, r(24)])}
                vals = {h: random_header(h, rng) for h in hdrs}
                payload = bytes(r(8) for _ in range(paylen))
                toks = [f"ipv={ipv}", f"tos={r(8)}", f"ttl={r(8)}", f"sport={rng.randrange(0xC000, 0x10000)}", f"flow={r(20)}",
                        f"id={r(16)}"] + [f"{k}={v}" for k, v in spec.items()]
                if tpid:
                    toks += [f"vlan={r(16)}", f"tpid={tpid}"]
                if paylen:
                    toks.append(f"payload={payload.hex()}")
                for h in hdrs:
                    toks += spec_tokens(h, vals[h])
                frame = helper.encode(toks)
                spec.update(vals=vals, hdrs=hdrs, paylen=paylen, ipv=ipv, tpid=tpid)
                out.append((frame, spec))
    return out


def compare_tshark_spec(res, frames, ts, helper):
    """spec == tshark: the encoder against Wireshark."""
    counts = {"payload_len": 0, "icrc": 0, "ext": 0, "dc": 0}
    for i, (frame, spec) in enumerate(frames, 1):
        t = ts.get(i)
        op = spec["opcode"]
        what = f"frame {i} opcode 0x{op:02x} IPv{spec['ipv']}{' vlan' if spec['tpid'] else ''} payload {spec['paylen']}"
        if not res.check(t is not None, f"{what}: tshark did not decode it as InfiniBand"):
            continue
        own = helper.decode(frame)  # for the derived PadCnt and the wire iCRC position
        b = t["bth"]
        for k in ("opcode", "se", "m", "tver", "pkey", "fecn", "becn", "destqp", "a", "resv7", "psn"):
            res.check(b[k] == spec[k], f"{what}: tshark bth.{k} = {b[k]}, encoded {spec[k]}")
        res.check(b["padcnt"] == own["pad_len"], f"{what}: tshark padcnt {b['padcnt']}, library {own['pad_len']}")
        res.check((spec["paylen"] + own["pad_len"] + own["payload_off"] - own["ext_off"]) % 4 == 0,
                  f"{what}: payload + pad + headers not a multiple of 4")
        if tshark_class(op) == "full":
            v = spec["vals"]
            counts["dc"] += (op & 0xE0) == 0x40
            if "RETH" in spec["hdrs"]:
                counts["ext"] += 1
                res.check(t.get("reth") == {"va": v["RETH"]["va"], "r_key": v["RETH"]["rkey"],
                                            "dmalen": v["RETH"]["dmalen"]}, f"{what}: tshark reth {t.get('reth')}")
            if "AETH" in spec["hdrs"]:
                counts["ext"] += 1
                res.check(t.get("aeth") == {"syndrome": v["AETH"]["syndrome"], "msn": v["AETH"]["msn"]},
                          f"{what}: tshark aeth {t.get('aeth')}")
            if "IMMDT" in spec["hdrs"]:
                counts["ext"] += 1
                res.check(t.get("immdt") == v["IMMDT"], f"{what}: tshark immdt {t.get('immdt')}")
            if "IETH" in spec["hdrs"]:
                counts["ext"] += 1
                res.check(t.get("ieth") == v["IETH"], f"{what}: tshark ieth {t.get('ieth')}")
            if "DETH" in spec["hdrs"]:
                counts["ext"] += 1
                res.check(t.get("deth") == {"q_key": v["DETH"]["qkey"], "srcqp": v["DETH"]["srcqp"]},
                          f"{what}: tshark deth {t.get('deth')}")
            if "payload_len" in t and (op & 0xE0) != 0x60:  # Q9, Q11
                counts["payload_len"] += 1
                res.check(t["payload_len"] == spec["paylen"], f"{what}: tshark payload {t['payload_len']}")
        if "icrc_wire" in t:  # Q9
            counts["icrc"] += 1
            res.check(t["icrc_wire"] == frame[-4:], f"{what}: tshark iCRC {t['icrc_wire'].hex()}, wire {frame[-4:].hex()}")
    # the quirk filters must not hollow the comparison out
    res.check(counts["ext"] > 300, f"spec/tshark: only {counts['ext']} extension headers compared")
    res.check(counts["payload_len"] > 300, f"spec/tshark: only {counts['payload_len']} payload lengths compared")
    res.check(counts["icrc"] > 500, f"spec/tshark: only {counts['icrc']} iCRCs compared")
    res.check(counts["dc"] > 300, f"spec/tshark: only {counts['dc']} DC (RD-block) frames compared in full")
    print(f"spec vs tshark: {len(frames)} frames ({counts['dc']} DC), {counts['ext']} headers, "
          f"{counts['payload_len']} payload lengths, {counts['icrc']} iCRCs", flush=True)


def run_decoder(decoder, pcap):
    p = subprocess.run([decoder, "--json", pcap], capture_output=True, text=True)
    objs = []
    for line in p.stdout.splitlines():
        line = line.strip()
        if line:
            objs.append(json.loads(line))
    return p.returncode, objs, p.stderr


def sub(o, key):
    v = o.get(key)
    return v if v not in (None, {}, "") else None


def compare_ornic(res, frames, ts, objs):
    """ornic-decode --json against tshark and the spec."""
    by_frame = {}
    for o in objs:
        by_frame[num(o.get("frame"))] = o
    res.check(len(by_frame) == len(frames), f"ornic-decode printed {len(by_frame)} packets, pcap has {len(frames)}")
    conventions = set()
    for i, (frame, spec) in enumerate(frames, 1):
        o = by_frame.get(i)
        t = ts.get(i)
        op = spec["opcode"]
        what = f"frame {i} opcode 0x{op:02x} IPv{spec['ipv']}{' vlan' if spec['tpid'] else ''} payload {spec['paylen']}"
        if not res.check(o is not None, f"{what}: missing from ornic-decode output"):
            continue
        res.check(not o.get("error"), f"{what}: ornic-decode error {o.get('error')}")
        ob = sub(o, "bth") or {}
        for k in ("opcode", "se", "m", "padcnt", "tver", "pkey", "destqp", "a", "psn", "fecn", "becn"):
            ov = num(ob.get(k))
            if t is not None:
                res.check(ov == t["bth"][k], f"{what}: bth.{k} ornic {ov}, tshark {t['bth'][k]}")
            if k in spec:
                res.check(ov == spec[k], f"{what}: bth.{k} ornic {ov}, encoded {spec[k]}")
        v = spec["vals"]
        # headers: against the spec always, against tshark where it decodes them
        want = {}
        if "RETH" in spec["hdrs"]:
            want["reth"] = {"va": v["RETH"]["va"], "r_key": v["RETH"]["rkey"], "dmalen": v["RETH"]["dmalen"]}
        if "AETH" in spec["hdrs"]:
            want["aeth"] = {"syndrome": v["AETH"]["syndrome"], "msn": v["AETH"]["msn"]}
        if "IMMDT" in spec["hdrs"]:
            want["immdt"] = v["IMMDT"]
        if "IETH" in spec["hdrs"]:
            want["ieth"] = v["IETH"]
        if "DETH" in spec["hdrs"]:
            want["deth"] = {"q_key": v["DETH"]["qkey"], "srcqp": v["DETH"]["srcqp"]}
        for key in ("reth", "aeth", "immdt", "ieth", "deth"):
            got = sub(o, key)
            if isinstance(got, dict):
                # only the contract's keys; the decoder may add others (names, ...)
                keys = want[key].keys() if key in want else got.keys()
                got = {k: num(got.get(k)) if not isinstance(got.get(k), str) or got.get(k)[:1].isdigit()
                       else got.get(k) for k in keys}
            else:
                got = num(got)
            if key in want:
                res.check(got == want[key], f"{what}: {key} ornic {got}, encoded {want[key]}")
                if t is not None and tshark_class(op) == "full" and key in t:
                    res.check(got == t[key], f"{what}: {key} ornic {got}, tshark {t[key]}")
            else:
                res.check(got is None, f"{what}: ornic prints {key} = {got} for an opcode without it")
        if isinstance(sub(o, "reth"), dict):
            va = o["reth"].get("va")
            res.check(isinstance(va, str) and va.startswith("0x"), f"{what}: reth.va must be a \"0x...\" string, got {va!r}")
        pl = num(o.get("payload_len"))
        res.check(pl == spec["paylen"], f"{what}: payload_len ornic {pl}, encoded {spec['paylen']}")
        if t is not None and "payload_len" in t and tshark_class(op) == "full" and (op & 0xE0) != 0x60:
            res.check(pl == t["payload_len"], f"{what}: payload_len ornic {pl}, tshark data.len - pad {t['payload_len']}")
        ic = sub(o, "icrc") or {}
        res.check(ic.get("ok") in (True, 1, "true"), f"{what}: icrc.ok {ic.get('ok')}")
        val = num(ic.get("value"))
        le, be = int.from_bytes(frame[-4:], "little"), int.from_bytes(frame[-4:], "big")
        if val == le and le != be:
            conventions.add("little-endian u32 (ornic_frame.icrc)")
        elif val == be and le != be:
            conventions.add("big-endian u32 (tshark's)")
        res.check(val in (le, be), f"{what}: icrc.value {ic.get('value')} is neither reading of wire {frame[-4:].hex()}")
        if t is not None and "icrc_wire" in t:
            res.check(t["icrc_wire"] == frame[-4:], f"{what}: tshark iCRC")
    res.check(len(conventions) <= 1, f"ornic-decode icrc.value mixes byte orders: {conventions}")
    print(f"ornic-decode vs tshark/spec: {len(by_frame)} packets; icrc.value convention: {conventions or 'n/a'}",
          flush=True)


def compare_dc_capture(res, pcapgen, decoder, workdir):
    """A ConnectX DC capture of ornic-pcapgen (--profile rc --rc-dc: SEND, WRITE and READ over
    the RD opcode block, docs/PROTOCOL.md 2.8): stock tshark shows every frame as DC without an
    expert item, and ornic-decode --json --strict exits 0, names each opcode as tshark's Info
    column does (case aside), and agrees with tshark on the BTH, AETH, DETH, RETH and payload
    length of every frame."""
    pcap = os.path.join(workdir, "dc.pcap")
    p = subprocess.run([pcapgen, "--profile", "rc", "--rc-dc", "--qps", "2", "--wqes", "6",
                        "--rc-ops", "send,write,read", "-o", pcap], capture_output=True, text=True)
    if not res.check(p.returncode == 0, f"ornic-pcapgen --rc-dc exited {p.returncode}: {p.stderr[-300:]}"):
        return
    ts = run_tshark(pcap)
    out = subprocess.run(["tshark", "-r", pcap, "-T", "fields", "-E", "separator=|", "-e", "frame.number",
                          "-e", "_ws.col.Info", "-e", "_ws.expert.severity", "-e", "_ws.malformed"],
                         capture_output=True, text=True, check=True).stdout
    info = {}
    for line in out.splitlines():
        fr, col, sev, mal = line.split("|")
        info[int(fr)] = col.split("QP=")[0].strip()
        res.check(sev == "" and mal == "", f"dc frame {fr}: stock tshark expert {sev!r} {mal!r}")
    p = subprocess.run([decoder, "--json", "--strict", pcap], capture_output=True, text=True)
    res.check(p.returncode == 0, f"ornic-decode --strict on the DC capture exited {p.returncode}")
    objs = [json.loads(x) for x in p.stdout.splitlines() if x.strip()]
    res.check(len(objs) == len(ts) == len(info) > 100, f"DC capture: ornic {len(objs)}, tshark {len(ts)} frames")
    fields = 0
    for o in objs:
        fr, t = o["frame"], ts.get(o["frame"])
        what = f"dc frame {fr}"
        if not res.check(t is not None and o.get("error") is None, f"{what}: ornic error {o.get('error')}"):
            continue
        name = o["bth"]["opcode_name"]
        res.check(name.startswith("DC ") and name.lower() == info[fr].lower(),
                  f"{what}: ornic names {name!r}, tshark {info[fr]!r}")
        for k in ("opcode", "se", "padcnt", "pkey", "destqp", "a", "psn"):
            res.check(o["bth"][k] == t["bth"][k], f"{what}: bth.{k} ornic {o['bth'][k]}, tshark {t['bth'][k]}")
        for key in ("aeth", "deth", "reth"):
            if key in t:
                fields += 1
                mine = {k: (int(v, 16) if isinstance(v, str) and v.startswith("0x") else v)
                        for k, v in (o.get(key) or {}).items() if k in t[key]}
                res.check(mine == t[key], f"{what}: {key} ornic {o.get(key)}, tshark {t[key]}")
            else:
                res.check(key not in o, f"{what}: ornic shows {key}, tshark does not")
        if "payload_len" in t:
            fields += 1
            res.check(o["payload_len"] == t["payload_len"], f"{what}: payload ornic {o['payload_len']}, "
                      f"tshark {t['payload_len']}")
    res.check(fields > 100, f"DC capture: only {fields} headers and payload lengths compared")
    names = sorted({info[f] for f in info})
    print(f"DC capture (ornic-pcapgen --rc-dc): {len(objs)} frames, {fields} headers and payload lengths "
          f"equal to tshark's, opcodes {names}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--helper", required=True, help="ornic-test-icrc")
    ap.add_argument("--decoder", required=True, help="tools/ornic-decode binary")
    ap.add_argument("--allow-missing-decoder", action="store_true",
                    help="skip (exit 77) instead of failing when the decoder binary does not exist")
    ap.add_argument("--workdir", default=None, help="where to keep the pcap (default: a temporary directory)")
    ap.add_argument("--seed", type=int, default=4791)
    args = ap.parse_args()

    res = Results("tshark diff")
    if not shutil.which("tshark"):
        print("tshark not found (Debian package tshark)")
        res.check(False, "tshark is required")
        return res.finish()
    workdir = args.workdir or __import__("tempfile").mkdtemp(prefix="ornic-tshark-")
    os.makedirs(workdir, exist_ok=True)
    pcap = os.path.join(workdir, "standard_opcodes.pcap")

    helper = Helper(args.helper)
    frames = make_frames(helper, random.Random(args.seed))
    write_pcap(pcap, [f for f, _ in frames])
    print(f"wrote {len(frames)} frames to {pcap}", flush=True)
    ts = run_tshark(pcap)
    res.check(len(ts) == len(frames), f"tshark decoded {len(ts)} of {len(frames)} frames as InfiniBand")
    compare_tshark_spec(res, frames, ts, helper)
    helper.close()

    if not os.path.exists(args.decoder):
        msg = f"ornic-decode not found at {args.decoder}"
        if args.allow_missing_decoder:
            print(f"SKIP: {msg}: the ornic-decode vs tshark comparison did not run "
                  "(the decoder target is not part of this build)")
            rc = res.finish()
            return rc if rc else 77
        res.check(False, f"{msg} (the build has the target, so the binary must exist)")
        return res.finish()
    rc, objs, err = run_decoder(args.decoder, pcap)
    res.check(rc == 0, f"ornic-decode --json exited {rc}: {err.strip()[:500]}")
    compare_ornic(res, frames, ts, objs)
    pcapgen = os.path.join(os.path.dirname(os.path.abspath(args.decoder)), "ornic-pcapgen")
    if os.path.exists(pcapgen):
        compare_dc_capture(res, pcapgen, args.decoder, workdir)
    else:
        print(f"note: {pcapgen} not built: the DC capture comparison did not run", flush=True)
    return res.finish()


if __name__ == "__main__":
    sys.exit(main())
