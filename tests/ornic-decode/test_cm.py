#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""RDMA-CM in the analysis (docs/PROTOCOL.md 8.10), shown by taking the CM frames away.

ornic-pcapgen --rc-cm sets each RC QP pair up with a CM REQ, REP and RTU before its data. The tap
then misses the first two requests of QP pair 1's A->B direction (--capture-drop-frames). With the
CM frames in the capture, the engine knows where that direction starts: the two PSNs are missing
(the ACK that covers them says so), every completion counts from MSN 0, and the pair is paired by
the REP before any data. The same capture with its CM frames removed (this script rewrites the
pcap without them) has only the packets to go by: the direction seems to start two PSNs later,
nothing is said missing, the first completion is the MSN's base, and the pair is paired by its
first response. The truth is pcapgen's: the first PSN and the WQEs of each direction of the full
capture.

Usage: test_cm.py ORNIC-DECODE ORNIC-PCAPGEN WORKDIR"""
import json
import os
import shutil
import struct
import subprocess
import sys

RC_REQ = set(range(0x00, 0x0D)) | {0x13, 0x14, 0x16, 0x17}  # RC requests (SEND/WRITE/READ/atomic)
UD_SEND_ONLY = (0x64, 0x65)
WQES = 8

failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def run(*cmd):
    return subprocess.run(cmd, stdout=subprocess.PIPE, check=True, text=True).stdout


def frames(decode, cap):
    return [json.loads(line) for line in run(decode, "--json", cap).splitlines()]


def stats(decode, cap):
    return json.loads(run(decode, "--stats", "--json", cap))


def without_cm(src, dst, cm):
    """Copies the classic pcap src to dst without the frames numbered in cm (1-based)."""
    with open(src, "rb") as f:
        data = f.read()
    magic = data[:4]
    end = "<" if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    out, off, n = [data[:24]], 24, 0
    while off < len(data):
        incl = struct.unpack(end + "I", data[off + 8:off + 12])[0]
        n += 1
        if n not in cm:
            out.append(data[off:off + 16 + incl])
        off += 16 + incl
    with open(dst, "wb") as f:
        f.write(b"".join(out))


def conv_of(st, qp_a, qp_b):
    for c in st["conversations"]:
        if {c["qp_a"], c["qp_b"]} == {qp_a, qp_b}:
            return c
    return None


def main():
    decode, pcapgen, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    base = [pcapgen, "-q", "--profile", "rc", "--rc-cm", "--loss", "0", "--wqes", str(WQES),
            "--wqe-size", "16K", "--qps", "2", "--pmtu", "1024", "--rc-ops", "write", "--seed", "5",
            "--rc-ack-every", "1000", "--format", "pcap"]  # an ACK per message: its MSN counts it
    full = os.path.join(work, "full.pcap")
    run(*base, "-o", full)
    fr = frames(decode, full)
    cm = [j["frame"] for j in fr if j["bth"]["destqp"] == 1 and j["bth"]["opcode"] in UD_SEND_ONLY]
    check(len(cm) == 6, f"the full capture holds 2 x (REQ, REP, RTU): CM frames {cm}")
    # QP pair 1's A->B direction: the first data request's destination QP is B's QP.
    data = [j for j in fr if j["bth"]["opcode"] in RC_REQ and j["bth"]["destqp"] != 1]
    first = data[0]
    qp_b, src_a = first["bth"]["destqp"], first["src"]
    dir_reqs = [j for j in data if j["bth"]["destqp"] == qp_b and j["src"] == src_a]
    start = dir_reqs[0]["bth"]["psn"]
    reply = [j for j in fr if j["bth"]["opcode"] not in RC_REQ and j["src"] != src_a and
             j["bth"]["destqp"] not in (1, qp_b)]
    qp_a = reply[0]["bth"]["destqp"]
    drop = [dir_reqs[0]["frame"], dir_reqs[1]["frame"]]

    cap = os.path.join(work, "cm.pcap")
    run(*base, "--capture-drop-frames", ",".join(map(str, drop)), "-o", cap)
    nocm = os.path.join(work, "nocm.pcap")
    # The capture lacks the dropped frames: its CM frames keep their numbers (they come first).
    without_cm(cap, nocm, set(cm))
    with_st, no_st = stats(decode, cap), stats(decode, nocm)
    c1, n1 = conv_of(with_st, qp_a, qp_b), conv_of(no_st, qp_a, qp_b)
    check(c1 is not None and n1 is not None, f"QP pair {qp_a:#x} <-> {qp_b:#x} in both analyses")
    if c1 is None or n1 is None:
        return
    ab = "a_to_b" if c1["qp_b"] == qp_b else "b_to_a"
    nab = "a_to_b" if n1["qp_b"] == qp_b else "b_to_a"
    check(c1["qp_a"] == qp_a and c1["qp_b"] == qp_b and ab == "a_to_b",
          f"with CM: A is the active side (the REQ's sender), QP {c1['qp_a']:#x}")

    # Start PSNs: the CM's, equal to the truth; without it, the first PSN captured.
    check(c1["cm"] is not None and c1["cm"]["start_psn"]["a_to_b"] == start,
          f"with CM: A->B starts at {c1['cm'] and c1['cm']['start_psn']['a_to_b']}, truth {start}")
    check(n1["cm"] is None, "without CM: no CM set-up")
    for c, d in ((c1, ab), (n1, nab)):
        check(c["directions"][d]["psn_first"] == (start + 2) & 0xFFFFFF,
              f"A->B's first request captured: PSN {c['directions'][d]['psn_first']} ({start} + 2)")
    span, nspan = c1["report"][ab]["capture_quality"]["psn_span"], n1["report"][nab]["capture_quality"]["psn_span"]
    check(span == nspan + 2, f"A->B is judged from the CM's first PSN: {span} PSNs with CM, {nspan} without")

    # The two PSNs the tap missed: missing with CM, before the capture without.
    q, nq = c1["report"][ab]["capture_quality"], n1["report"][nab]["capture_quality"]
    check(q["acked_unseen"] == 2 and q["psn_missing"] == 2,
          f"with CM: the 2 PSNs the tap missed are acknowledged unseen ({q['acked_unseen']}) and "
          f"missing ({q['psn_missing']})")
    check(nq["acked_unseen"] == 0 and nq["psn_missing"] == 0,
          f"without CM: they are before the capture, not judged ({nq['acked_unseen']}, "
          f"{nq['psn_missing']})")

    # Completions: every one from MSN 0 with CM; the first is only the base without.
    done, ndone = c1["directions"][ab]["wqes_completed"], n1["directions"][nab]["wqes_completed"]
    check(done == WQES, f"with CM: {done} completions counted, truth {WQES}")
    check(ndone == WQES - 1, f"without CM: {ndone} completions counted (the first MSN is the base)")
    for c, what in ((c1, "with"), (n1, "without")):
        for d in ("a_to_b", "b_to_a"):
            if d == (ab if c is c1 else nab):
                continue
            got = c["directions"][d]["wqes_completed"]
            # The other direction's first request is captured: its first completion counts either way.
            check(got == WQES, f"{what} CM: the other direction completes {got} of {WQES}")

    # Pairing: by the REP, before any data; without CM, by the first response that fits.
    fc, fn = frames(decode, cap), frames(decode, nocm)
    paired = [j["frame"] for j in fc if "paired" in j.get("analysis", {}).get("flags", [])]
    rep = [j for j in fc if "cm" in j.get("analysis", {}).get("flags", []) and
           "paired" in j["analysis"]["flags"]]
    check(len(rep) == 2 and all(j["bth"]["destqp"] == 1 for j in rep),
          f"with CM: the two REPs pair their QPs: frames {[j['frame'] for j in rep]}")
    check(set(paired) == {j["frame"] for j in rep}, f"with CM: nothing else pairs: {paired}")
    npaired = [j for j in fn if "paired" in j.get("analysis", {}).get("flags", [])]
    check(npaired and all(j["bth"]["destqp"] != 1 for j in npaired),
          f"without CM: data packets pair the QPs: frames {[j['frame'] for j in npaired]}")
    # No false flags either way.
    for f, what in ((fc, "with"), (fn, "without")):
        bad = [j["frame"] for j in f if set(j.get("analysis", {}).get("flags", [])) &
               {"retransmission", "duplicate", "loss", "nak", "prev_not_captured"}]
        check(not bad, f"{what} CM: no problem flag but the unseen PSNs: {bad[:8]}")


if __name__ == "__main__":
    main()
    if failures:
        print(f"test_cm: {len(failures)} failed")
        sys.exit(1)
    print("test_cm: all passed")
