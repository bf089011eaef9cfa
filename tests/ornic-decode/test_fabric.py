#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ornic-decode --stats: PFC/PAUSE frames and the capture-quality lines (stats_fabric.c).

    test_fabric.py DECODER PCAPGEN WORKDIR

Builds, by hand, captures of a pcapgen RoCEv2 conversation with 802.1Qbb PFC and 802.3x
PAUSE frames interleaved (untagged, one 802.1Q tag, 802.1ad + 802.1Q, unpadded, reserved
bits set, another destination, and an EPON GATE that is MAC Control but not flow control),
and a copy whose requester frames had their UDP source port rewritten to 4791 after the
iCRC was computed, with one frame cut by a snaplen. Asserts:

* --stats --json's pause rows (per sender and priority: frames, XOFF, XON, quanta total and
  max, pause_ns at --link-gbps, first and last time) against what was built and against
  stock tshark's macc.* fields (the independent oracle; tshark runs as nobody with an empty
  HOME, so without this project's plugin), at 100 and 25 Gb/s; the text table the same;
* the capture-quality counts and lines against the bytes (a reference iCRC written from
  docs/IBA_NOTES.md, tests/e2e/e2e_common.py) and tshark's frame lengths and UDP ports;
  a bad iCRC on another port turns the rewritten-port line off;
* the default text output is that of the RoCE capture alone (frame numbers aside), and
  -v adds one 'skipped: PFC/PAUSE' line per PFC/PAUSE frame ('not RoCE' for the GATE);
* --qp does not narrow the section (a PFC frame has no QP).
Without tshark the oracle part is skipped (reported), the rest runs.
"""
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
from decimal import Decimal

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from e2e_common import Results, ref_icrc  # noqa: E402

DEC, GEN, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(WORK, exist_ok=True)
R = Results("fabric")
RESERVED_DST = bytes.fromhex("0180c2000001")

# ---------------------------------------------------------------- pcap


def read_pcap(path):
    """(header bytes, endian, nano, [(sec, frac, caplen, wirelen, data)])"""
    d = open(path, "rb").read()
    magic = struct.unpack("<I", d[:4])[0]
    endian = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    magic = struct.unpack(endian + "I", d[:4])[0]
    nano = magic == 0xA1B23C4D
    recs, off = [], 24
    while off < len(d):
        sec, frac, cap, wire = struct.unpack(endian + "IIII", d[off:off + 16])
        recs.append([sec, frac, cap, wire, d[off + 16:off + 16 + cap]])
        off += 16 + cap
    return d[:24], endian, nano, recs


def write_pcap(path, head, endian, recs):
    with open(path, "wb") as f:
        f.write(head)
        for sec, frac, cap, wire, data in recs:
            f.write(struct.pack(endian + "IIII", sec, frac, len(data), wire) + data)


def ns_of(rec, nano):
    return rec[0] * 10**9 + (rec[1] if nano else rec[1] * 1000)


def time_text(ns):
    return f"{ns // 10**9}.{ns % 10**9:09d}"

# ---------------------------------------------------------------- MAC Control frames


def mac(last):
    return bytes([0x02, 0, 0, 0, 0, last])


def macc(src, opcode, fields, dst=RESERVED_DST, tags=(), pad=True):
    f = dst + src
    for tpid, tci in tags:
        f += struct.pack(">HH", tpid, tci)
    f += struct.pack(">HH", 0x8808, opcode) + fields
    if pad and len(f) < 60:
        f += bytes(60 - len(f))
    return f


def pfc(src, enable, quanta, **kw):
    return macc(src, 0x0101, struct.pack(">H8H", enable, *quanta), **kw)


def pause(src, q, **kw):
    return macc(src, 0x0001, struct.pack(">H", q), **kw)


def fabric_frames(rng):
    """[(frame bytes, what)]: 'what' is (src, opcode, enable, quanta, dst) for PFC and PAUSE,
    None for the GATE frame (not flow control)."""
    out = []
    s1, s2, s3 = mac(0x0A), mac(0x0B), mac(0x0C)

    def add(frame, src, opcode, enable, quanta, dst=RESERVED_DST):
        out.append((frame, (src, opcode, enable, list(quanta), dst)))

    # s1: PFC storms on classes 3 and 5: XOFF 0xffff, some in between, XON 0.
    for i in range(12):
        en = rng.choice([0x08, 0x20, 0x28])
        q = [rng.choice([0, 1, 0x100, 0xFFFF, rng.randrange(65536)]) for _ in range(8)]
        add(pfc(s1, en, q), s1, 0x0101, en, q)
    add(pfc(s1, 0x28, [7, 7, 7, 0, 7, 0, 7, 7]), s1, 0x0101, 0x28, [7, 7, 7, 0, 7, 0, 7, 7])  # XONs
    # s2: PFC behind one 802.1Q tag (PCP 3, VLAN 100), and behind 802.1ad + 802.1Q.
    for i in range(6):
        q = [0] * 8
        q[3] = rng.randrange(1, 65536)
        tags = [(0x8100, 0x6064)] if i % 2 == 0 else [(0x88A8, 0x000A), (0x8100, 0x6014)]
        add(pfc(s2, 0x08, q, tags=tags), s2, 0x0101, 0x08, q)
    # s2: reserved bits of the vector set (bit 8: no class), class 3 enabled; and a vector with
    # no class at all (a PFC frame, no row), captured unpadded.
    q = [9, 9, 9, 0x4000, 9, 9, 9, 9]
    add(pfc(s2, 0x0108, q), s2, 0x0101, 0x0108, q)
    q = [1, 2, 3, 4, 5, 6, 7, 8]
    add(pfc(s2, 0x0000, q, pad=False), s2, 0x0101, 0x0000, q)
    # s3: 802.3x PAUSE, XOFF and XON; one to the peer's own address (allowed for PAUSE).
    for q in (0x1234, 0xFFFF, 0, 0x0040):
        add(pause(s3, q), s3, 0x0001, 0, [q] + [0] * 7)
    add(pause(s3, 0x0200, dst=mac(0x01)), s3, 0x0001, 0, [0x0200] + [0] * 7, dst=mac(0x01))
    rng.shuffle(out)
    # EPON GATE (802.3 Annex 31A): MAC Control, not flow control: stays "not RoCE".
    out.insert(len(out) // 2, (macc(s3, 0x0002, struct.pack(">IB", 1, 0)), None))
    return out


def interleave(recs, nano, extra):
    """extra frames spread among recs, each stamped 1 ns after the record before it (time
    order kept: the RoCE record after it is at least as late)."""
    out, step = [], max(1, len(recs) // (len(extra) + 1))
    j = 0
    inserted = []
    for i, r in enumerate(recs):
        out.append(r)
        if (i + 1) % step == 0 and j < len(extra):
            ns = ns_of(r, nano) + 1 if nano else ns_of(r, nano)
            sec, sub = divmod(ns, 10**9)
            frac = sub if nano else sub // 1000
            frame = extra[j][0]
            out.append([sec, frac, len(frame), len(frame), frame])
            inserted.append((len(out), ns, extra[j][1]))  # frame number (1-based), time, what
            j += 1
    assert j == len(extra), "not every extra frame found a place"
    return out, inserted

# ---------------------------------------------------------------- running


def run(*args, ok=(0,)):
    p = subprocess.run([DEC, *args], capture_output=True, text=True)
    R.check(p.returncode in ok, f"ornic-decode {' '.join(args)}: exit {p.returncode}: {p.stderr}")
    return p.stdout


def stats_json(path, *args):
    return json.loads(run("--stats", "--json", *args, path))


def quanta_ns(q, gbps):
    return (q * 512 + gbps // 2) // gbps


def expected_rows(events, gbps):
    """events: [(time ns, src bytes, opcode, enable, quanta)] -> {(src text, priority): row}"""
    rows = {}
    for t, src, opcode, enable, quanta in events:
        if opcode == 0x0001:
            classes = [(None, quanta[0])]
        elif opcode == 0x0101:
            classes = [(i, quanta[i]) for i in range(8) if enable & (1 << i)]
        else:
            continue
        for prio, q in classes:
            key = (":".join(f"{b:02x}" for b in src), prio)
            r = rows.setdefault(key, {"frames": 0, "xoff": 0, "xon": 0, "quanta_total": 0,
                                      "quanta_max": 0, "pause_ns": 0, "first": t, "last": t})
            r["frames"] += 1
            r["xoff" if q else "xon"] += 1
            r["quanta_total"] += q
            r["quanta_max"] = max(r["quanta_max"], q)
            r["pause_ns"] += quanta_ns(q, gbps)
            r["last"] = t
    return rows


def got_rows(s):
    rows = {}
    for r in s["fabric"]["pause"]["rows"]:
        key = (r["src"], r["priority"])
        R.check(key not in rows, f"row {key} listed twice")
        R.check((r["kind"] == "pause") == (r["priority"] is None), f"row {key}: kind {r['kind']}")
        rows[key] = {k: r[k] for k in ("frames", "xoff", "xon", "quanta_total", "quanta_max",
                                       "pause_ns")}
        rows[key]["first"] = int(Decimal(r["time"]["first"]) * 10**9)
        rows[key]["last"] = int(Decimal(r["time"]["last"]) * 10**9)
    return rows


def compare_rows(got, want, what):
    R.check(sorted(got, key=str) == sorted(want, key=str),
            f"{what}: rows {sorted(got, key=str)}, want {sorted(want, key=str)}")
    for k in want:
        if k in got:
            R.check(got[k] == want[k], f"{what}: row {k}: {got[k]}, want {want[k]}")

# ---------------------------------------------------------------- tshark, the oracle


def tshark(path, fields):
    """Stock tshark's fields, one list per frame, or None without tshark. As root it runs as
    nobody (tshark refuses root), with a HOME of its own: no personal plugin (not ours)."""
    exe = shutil.which("tshark")
    if not exe:
        return None
    # In the system's temporary folder: the build tree may be in a folder nobody cannot enter
    # (a CI clone's), and tshark reads the capture on its standard input for the same reason.
    home = tempfile.mkdtemp(prefix="ornic-tshark-home-")
    cmd = [exe, "-r", "-", "-T", "fields", "-E", "separator=|", "-E", "occurrence=l"]
    cmd += [a for f in fields for a in ("-e", f)]
    if os.geteuid() == 0:
        shutil.chown(home, "nobody")
        cmd = ["runuser", "-u", "nobody", "--", "env", f"HOME={home}"] + cmd
    else:
        cmd = ["env", f"HOME={home}"] + cmd
    with open(path, "rb") as f:
        p = subprocess.run(cmd, stdin=f, capture_output=True, text=True)
    shutil.rmtree(home, ignore_errors=True)
    R.check(p.returncode == 0, f"tshark: exit {p.returncode}: {p.stderr}")
    return [line.split("|") for line in p.stdout.splitlines()]


MACC_FIELDS = (["frame.number", "frame.time_epoch", "eth.src", "eth.dst", "macc.opcode",
                "macc.pause_time", "macc.cbfc.enbv"] +
               [f"macc.cbfc.pause_time.c{i}" for i in range(8)])


def tshark_events(path):
    rows = tshark(path, MACC_FIELDS)
    if rows is None:
        return None
    events = []
    for r in rows:
        if not r[4]:
            continue
        opcode = int(r[4], 0)
        t = int(Decimal(r[1]) * 10**9)
        src, dst = bytes.fromhex(r[2].replace(":", "")), bytes.fromhex(r[3].replace(":", ""))
        if opcode == 0x0001:
            events.append((t, src, opcode, 0, [int(r[5], 0)] + [0] * 7, dst))
        elif opcode == 0x0101:
            events.append((t, src, opcode, int(r[6], 0), [int(x, 0) for x in r[7:15]], dst))
        else:
            events.append((t, src, opcode, 0, [0] * 8, dst))
    return events

# ---------------------------------------------------------------- the test


def text_table(text):
    """The text --stats 'pause' table as {(src, priority): row} (priority None: all)."""
    rows, inside = {}, False
    for line in text.splitlines():
        if line.startswith("pause     "):
            inside = True
            continue
        if inside and line.startswith("  sender"):
            continue
        if inside and line.startswith("  "):
            f = line.split()
            key = (f[0], None if f[1] == "all" else int(f[1]))
            rows[key] = {"frames": int(f[2]), "xoff": int(f[3]), "xon": int(f[4]),
                         "quanta_total": int(f[5]), "quanta_max": int(f[6]),
                         "pause_ns": int(f[7]), "first": int(Decimal(f[8]) * 10**9),
                         "last": int(Decimal(f[9]) * 10**9)}
        elif inside:
            inside = False
    return rows


def fabric_part(roce, head, endian, nano, recs):
    rng = random.Random(30)
    extra = fabric_frames(rng)
    merged, inserted = interleave(recs, nano, extra)
    path = os.path.join(WORK, "fabric.pcap")
    write_pcap(path, head, endian, merged)
    flow = [(t, w) for _, t, w in inserted if w]
    built = [(t, w[0], w[1], w[2], w[3]) for t, w in flow]
    n_pfc = sum(1 for _, w in flow if w[1] == 0x0101)
    n_pause = sum(1 for _, w in flow if w[1] == 0x0001)
    n_other_dst = sum(1 for _, w in flow if w[4] != RESERVED_DST)

    s = stats_json(path)
    fb = s["fabric"]
    R.check(fb["link_gbps"] == 100, f"default link speed {fb['link_gbps']}")
    p = fb["pause"]
    R.check((p["frames"], p["pfc_frames"], p["pause_frames"]) == (n_pfc + n_pause, n_pfc, n_pause),
            f"frame counts {p}")
    R.check(p["senders"] == 3 and p["untracked_frames"] == 0, f"senders {p}")
    R.check(p["not_reserved_dst"] == n_other_dst, f"not_reserved_dst {p['not_reserved_dst']}")
    R.check(s["skipped"]["pfc_pause"] == n_pfc + n_pause and s["skipped"]["not_roce"] == 1,
            f"skipped {s['skipped']}")
    R.check(s["packets"]["roce"] == len(recs) and s["packets"]["total"] == len(merged),
            f"packets {s['packets']}")
    compare_rows(got_rows(s), expected_rows(built, 100), "as built, 100 Gb/s")

    s25 = stats_json(path, "--link-gbps", "25")
    R.check(s25["fabric"]["link_gbps"] == 25, "--link-gbps 25 stated")
    compare_rows(got_rows(s25), expected_rows(built, 25), "as built, 25 Gb/s")

    # The oracle: stock tshark's reading of the same frames.
    ev = tshark_events(path)
    if ev is None:
        print("SKIP: tshark not installed: PFC/PAUSE fields not compared with tshark")
    else:
        R.check(len(ev) == len(extra), f"tshark sees {len(ev)} MAC Control frames, built {len(extra)}")
        R.check(sum(1 for e in ev if e[2] == 0x0101) == n_pfc, "tshark's PFC count")
        R.check(sum(1 for e in ev if e[2] == 0x0001) == n_pause, "tshark's PAUSE count")
        R.check(sum(1 for e in ev if e[2] in (1, 0x101) and e[5] != RESERVED_DST) == n_other_dst,
                "tshark's other destinations")
        tev = [e[:5] for e in ev]
        compare_rows(got_rows(s), expected_rows(tev, 100), "tshark, 100 Gb/s")
        compare_rows(got_rows(s25), expected_rows(tev, 25), "tshark, 25 Gb/s")
        tsrc = {(e[0], e[1]) for e in ev if e[2] == 0x0101}
        R.check(tsrc == {(t, w[0]) for t, w in flow if w[1] == 0x0101},
                "tshark reads every PFC frame's time and sender as built (tags included)")

    # Text: the same table, the link speed stated.
    text = run("--stats", path)
    R.check(f"pause     {n_pfc + n_pause} frames: {n_pfc} PFC (802.1Qbb), {n_pause} PAUSE (802.3x) "
            "from 3 senders; pause_ns at 100 Gb/s (--link-gbps)" in text, "text: pause line")
    compare_rows(text_table(text), expected_rows(built, 100), "text table")
    R.check("\nquality   " not in text, "text: no quality line for a clean capture")

    # --qp does not narrow it.
    qp = stats_json(path, "--qp", "0x000200")
    R.check(qp["fabric"]["pause"] == s["fabric"]["pause"], "--qp leaves the pause rows alone")

    # The default text output is the RoCE capture's, frame numbers aside; -v adds the skips.
    plain, alone = run(path).splitlines(), run(roce).splitlines()
    R.check([l.split(" ", 1)[1] for l in plain] == [l.split(" ", 1)[1] for l in alone],
            "default text output: the RoCE capture's lines")
    verbose = run("-v", path).splitlines()
    skips = [l for l in verbose if " skipped: " in l]
    want = [f"{n} {time_text(t)} skipped: {'PFC/PAUSE' if w else 'not RoCE'}" for n, t, w in inserted]
    R.check(skips == want, f"-v skipped lines: {skips[:3]}..., want {want[:3]}...")
    R.check([l for l in verbose if " skipped: " not in l] == plain, "-v: the rest unchanged")
    vj = [json.loads(l) for l in run("-v", "--json", path).splitlines()]
    R.check([o["skipped"] for o in vj if "skipped" in o] ==
            ["PFC/PAUSE" if w else "not RoCE" for _, _, w in inserted], "-v --json skipped")
    return text


def rewrite_part(head, endian, nano, recs):
    """Requester frames (10.0.0.1) get UDP source port 4791 after their iCRC: bad iCRC."""
    out, cut_at = [], None
    for r in recs:
        data = bytearray(r[4])
        assert data[12:14] == b"\x08\x00", "pcapgen frames are IPv4"
        ihl = (data[14] & 0x0F) * 4
        udp = 14 + ihl
        if data[26:30] == bytes([10, 0, 0, 1]):
            data[udp:udp + 2] = struct.pack(">H", 4791)  # IPv4 UDP checksum 0: nothing else
        rec = [r[0], r[1], r[2], r[3], bytes(data)]
        if cut_at is None and data[26:30] == bytes([10, 0, 0, 1]) and len(data) > 200:
            cut_at = len(out)
            rec[4] = rec[4][:128]  # the snaplen: 128 bytes of a 1102-byte frame
        out.append(rec)
    path = os.path.join(WORK, "rewritten.pcap")
    write_pcap(path, head, endian, out)

    # The bytes say: iCRC good or bad (reference iCRC), port, cut.
    want = {"bad4791": 0, "badother": 0, "ok4791": 0, "okother": 0, "cut": 0}
    for r in out:
        d = r[4]
        if len(d) < r[3]:
            want["cut"] += 1
            continue
        ihl = (d[14] & 0x0F) * 4
        udp_len = struct.unpack(">H", d[14 + ihl + 4:14 + ihl + 6])[0]
        l3 = d[14:14 + ihl + udp_len]
        good = ref_icrc(l3, 4) == l3[-4:]
        sport = struct.unpack(">H", d[14 + ihl:14 + ihl + 2])[0]
        want[("ok" if good else "bad") + ("4791" if sport == 4791 else "other")] += 1
    R.check(want["bad4791"] > 0 and want["badother"] == 0 and want["okother"] > 0 and
            want["cut"] == 1, f"the rewritten capture is what the test means: {want}")

    ts = tshark(path, ["frame.number", "frame.len", "frame.cap_len", "udp.srcport"])
    if ts is None:
        print("SKIP: tshark not installed: ports and lengths not compared with tshark")
    else:
        R.check(sum(1 for f in ts if int(f[2]) < int(f[1])) == 1, "tshark: one frame cut")
        R.check(sum(1 for f in ts if f[3] == "4791") == want["bad4791"] + 1,
                "tshark: the frames with UDP source port 4791")

    s = stats_json(path)
    q = s["fabric"]["capture_quality"]
    R.check(q["snaplen_cut"] == 1 and q["snaplen_kept"] == {"min": 128, "max": 128}, f"cut {q}")
    R.check((q["icrc_bad_sport_4791"], q["icrc_bad_other"], q["icrc_ok_sport_4791"],
             q["icrc_ok_sport_other"]) ==
            (want["bad4791"], want["badother"], want["ok4791"], want["okother"]), f"iCRCs {q}")
    R.check(q["sport_rewritten"] is True, "sport_rewritten")
    R.check(s["icrc"]["bad"] == want["bad4791"], "the icrc line agrees")
    R.check(s["fabric"]["pause"]["frames"] == 0 and s["fabric"]["pause"]["rows"] == [],
            "no pause frames")
    text = run("--stats", path)
    R.check(f"quality   1 RoCE frame cut by the snaplen (128 bytes kept: headers shown, payload and "
            f"iCRC not all captured); bad iCRCs: {want['bad4791']} with UDP source port 4791, 0 other"
            in text, "text: first quality line")
    R.check(f"quality   every bad iCRC has UDP source port 4791 ({want['bad4791']}) and every frame "
            f"from another source port has a good one ({want['okother']}): the capture path "
            "rewrote the source port after the iCRC was computed over the original, not "
            "corruption" in text, "text: the rewritten-port line")
    R.check("\npause " not in text, "text: no pause table without PFC/PAUSE frames")

    # One more bad iCRC, on another port: no longer the capture path's pattern.
    for r in out:
        d = r[4]
        if len(d) == r[3] and d[26:30] == bytes([10, 0, 0, 2]):
            ihl = (d[14] & 0x0F) * 4
            last = 14 + ihl + struct.unpack(">H", d[14 + ihl + 4:14 + ihl + 6])[0] - 5
            r[4] = d[:last] + bytes([d[last] ^ 0xFF]) + d[last + 1:]  # the byte before the iCRC
            break
    path2 = os.path.join(WORK, "rewritten-damaged.pcap")
    write_pcap(path2, head, endian, out)
    s = stats_json(path2)
    q = s["fabric"]["capture_quality"]
    R.check(q["icrc_bad_other"] == 1 and q["sport_rewritten"] is False, f"damaged: {q}")
    text = run("--stats", path2)
    R.check("bad iCRCs: %d with UDP source port 4791, 1 other" % want["bad4791"] in text and
            "capture path rewrote" not in text, "damaged: counts apart, no rewritten-port line")
    return run("--stats", path)


def main():
    roce = os.path.join(WORK, "roce.pcap")
    subprocess.run([GEN, "-o", roce, "--loss", "0", "--pmtu", "1024", "--wqes", "2",
                    "--wqe-size", "16K", "-q"], check=True)
    head, endian, nano, recs = read_pcap(roce)
    text = fabric_part(roce, head, endian, nano, recs)
    text2 = rewrite_part(head, endian, nano, recs)
    print("---- ornic-decode --stats fabric.pcap, from 'conversations' on:")
    print(text[text.index("conversations"):], end="")
    print("---- ornic-decode --stats rewritten.pcap, the quality lines:")
    print("".join(l + "\n" for l in text2.splitlines() if l.startswith("quality")), end="")
    return R.finish()


if __name__ == "__main__":
    sys.exit(main())
