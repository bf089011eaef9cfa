#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ornic-mutate (tools/ornic-mutate) end to end, one subcommand per CTest entry:

  test_mutate.py icrc MUTATE PCAPGEN DECODE WORKDIR    --icrc keep and break=0.3 on two pcapgen captures,
                                                       the iCRC checked by ornic-decode and by zlib here
  test_mutate.py output MUTATE PCAPGEN WORKDIR         tshark reads it, same seed same bytes, -n 3,
                                                       --keep-original, --drop-other, timestamps
  test_mutate.py signal MUTATE PCAPGEN WORKDIR         SIGINT on an idle pipe: exit 130, OUT whole
  test_mutate.py errors MUTATE PCAPGEN WORKDIR         a truncated capture, not a capture, a missing one:
                                                       the message, exit 1, no output file

Exit 0 when every check passes, 1 otherwise (each failure listed)."""
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from cli_common import Checks  # noqa: E402

CHECKS = Checks()
check = CHECKS.check

# Two captures: the ORNIC profile (pcapgen's default) and two-way RC (SEND, WRITE, READ, ACK).
CAPTURES = {
    "ornic": ["--wqes", "2", "--wqe-size", "64K", "--pmtu", "1024"],
    "rc": ["-p", "rc", "--wqes", "4", "--wqe-size", "8K", "--pmtu", "1024"],
}


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120, **kw)


def read_pcap(path):
    """(magic, linktype, [(sec, nsec, bytes)]) of a classic pcap in little-endian order."""
    with open(path, "rb") as f:
        b = f.read()
    magic, _, _, _, _, _, link = struct.unpack_from("<IHHiIII", b, 0)
    recs, off = [], 24
    while off < len(b):
        sec, frac, cap, _ = struct.unpack_from("<IIII", b, off)
        recs.append((sec, frac, b[off + 16:off + 16 + cap]))
        off += 16 + cap
    return magic, link, recs


def read_log(path):
    """[(out, in, kind, what)] per line of --log."""
    rows = []
    with open(path) as f:
        for line in f:
            o, i, kind, what = line.rstrip("\n").split("\t")
            rows.append((int(o), int(i), kind, what))
    return rows


def ref_icrc(fr):
    """IBA's iCRC (InfiniBand Architecture Specification, Annex A17 "RoCEv2", A17.4.2; docs/PROTOCOL.md
    2.6), computed here independently of libornicproto: CRC-32 (zlib's) over 8 bytes of ones, then the
    IP header with the variant fields masked to ones (IPv4: TOS, TTL, header checksum; IPv6: traffic
    class, flow label, hop limit), the UDP header with its checksum masked, the BTH with byte 4 masked,
    and everything up to the iCRC. None for a frame that is not RoCEv2 (an optional 802.1Q tag)."""
    off, et = 12, None
    while len(fr) >= off + 2:
        et = struct.unpack_from(">H", fr, off)[0]
        if et != 0x8100:
            break
        off += 4
    l3 = bytearray(fr[off + 2:len(fr) - 4])
    if et == 0x0800 and len(l3) >= 20:
        ihl = (l3[0] & 0x0F) * 4
        if l3[9] != 17 or len(l3) < ihl + 8 + 12:
            return None
        l3[1] = l3[8] = 0xFF
        l3[10:12] = b"\xff\xff"
        udp = ihl
    elif et == 0x86DD and len(l3) >= 40:
        if l3[6] != 17 or len(l3) < 40 + 8 + 12:
            return None
        l3[0:4] = bytes([l3[0] | 0x0F, 0xFF, 0xFF, 0xFF])
        l3[7] = 0xFF
        udp = 40
    else:
        return None
    if struct.unpack_from(">H", l3, udp + 2)[0] != 4791:
        return None
    l3[udp + 6:udp + 8] = b"\xff\xff"
    l3[udp + 8 + 4] = 0xFF
    return struct.pack("<I", zlib.crc32(b"\xff" * 8 + bytes(l3)))


def headers_ok(fr):
    """The consistencies besides the iCRC that the mutator may break on purpose (fuzz/mutator,
    break_rate), checked here from RFC 791 and RFC 768/8200: the IPv4 header checksum (the one's
    complement sum of the header's 16-bit words is 0xffff), the IP length and the UDP length
    against the frame's size (an Ethernet frame padded to 60 bytes may carry more)."""
    off = 12
    while struct.unpack_from(">H", fr, off)[0] == 0x8100:
        off += 4
    et, l3 = struct.unpack_from(">H", fr, off)[0], fr[off + 2:]
    if et == 0x0800:
        ihl = (l3[0] & 0x0F) * 4
        s = sum(struct.unpack_from(f">{ihl // 2}H", l3, 0))
        while s > 0xFFFF:
            s = (s & 0xFFFF) + (s >> 16)
        ip_len, udp = struct.unpack_from(">H", l3, 2)[0], ihl
        ok = s == 0xFFFF
    else:
        ip_len, udp, ok = 40 + struct.unpack_from(">H", l3, 4)[0], 40, True
    udp_len = struct.unpack_from(">H", l3, udp + 4)[0]
    sized = ip_len == len(l3) or (len(fr) == 60 and ip_len < len(l3))
    return ok and sized and udp_len == ip_len - udp


def decode_icrc_ok(decode, path):
    """{frame number: ornic-decode's icrc.ok (True, False, None)} of every RoCE frame."""
    p = run([decode, "--json", path])
    out = {}
    for line in p.stdout.decode().splitlines():
        j = json.loads(line)
        if "frame" in j:
            out[j["frame"]] = (j.get("icrc") or {}).get("ok")
    return out


def gen(pcapgen, wd, name):
    path = os.path.join(wd, f"{name}.pcap")
    p = run([pcapgen, "-q", "-o", path] + CAPTURES[name])
    check(name, p.returncode == 0, f"ornic-pcapgen {CAPTURES[name]}: exit {p.returncode} {p.stderr!r}")
    return path


def mutate(mut, args, src, out, log=None):
    cmd = [mut] + args + ([f"--log={log}"] if log else []) + [src, out]
    p = run(cmd)
    check("mutate", p.returncode == 0, f"{cmd}: exit {p.returncode} {p.stderr!r}")
    return p


def validity(dec, out, log):
    """Per mutated output frame: (log kind, valid per ornic-decode, valid per ref_icrc)."""
    _, _, recs = read_pcap(out)
    ok = decode_icrc_ok(dec, out)
    rows = []
    for o, _, kind, _ in read_log(log):
        if kind in ("mutated", "broken"):
            fr = recs[o - 1][2]
            ref = ref_icrc(fr)
            rows.append((kind, ok.get(o) is True, ref is not None and ref == fr[-4:],
                         ref is not None and headers_ok(fr)))
    return rows


def case_icrc(mut, gen_, dec, wd):
    for name in CAPTURES:
        src = gen(gen_, wd, name)
        out, log = os.path.join(wd, f"{name}-keep.pcap"), os.path.join(wd, f"{name}-keep.log")
        mutate(mut, ["-n", "10", "--seed", "7", "--icrc", "keep"], src, out, log)
        rows = validity(dec, out, log)
        n = len(rows)
        by_dec = sum(r[1] for r in rows)
        by_ref = sum(r[2] for r in rows)
        check(name, n >= 500, f"keep: only {n} mutated frames")
        check(name, all(r[0] == "mutated" for r in rows), "keep: a frame logged broken")
        hdr = sum(r[3] for r in rows)
        check(name, n and hdr / n >= 0.99, f"keep: {hdr}/{n} with IPv4 checksum and lengths right, < 99%")
        check(name, n and by_dec / n >= 0.99, f"keep: {by_dec}/{n} valid iCRCs per ornic-decode, < 99%")
        check(name, n and by_ref / n >= 0.99, f"keep: {by_ref}/{n} valid iCRCs per zlib, < 99%")
        print(f"{name} keep: {n} mutated frames, iCRC valid: ornic-decode {by_dec}, zlib {by_ref}; "
              f"IPv4 checksum and lengths right: {hdr}")

        for mode in ("break", "break-any"):
            check_break(name, mode, mut, dec, src, wd)


def check_break(name, mode, mut, dec, src, wd):
    """--icrc MODE=0.3: break=0.3 gives a share 0.3 with a wrong iCRC and everything else right;
    break-any=0.3 a share 0.3 with one of the iCRC, an IP or UDP length or the IPv4 checksum broken
    (a length breaks the iCRC too; the iCRC does not cover the IPv4 checksum). The frames marked
    broken in the log are the ones the independent checks find broken, frame by frame."""
    out, log = os.path.join(wd, f"{name}-{mode}.pcap"), os.path.join(wd, f"{name}-{mode}.log")
    mutate(mut, ["-n", "10", "--seed", "7", "--icrc", f"{mode}=0.3"], src, out, log)
    rows = validity(dec, out, log)
    n = len(rows)
    marked = sum(r[0] == "broken" for r in rows)
    if mode == "break":
        bad = [not (r[1] and r[2]) for r in rows]
        check(name, all(r[3] for r in rows), f"{mode}=0.3: IPv4 checksum and lengths right in every frame")
        check(name, all(r[1] == r[2] for r in rows), f"{mode}=0.3: ornic-decode and zlib agree on every iCRC")
    else:
        bad = [not (r[1] and r[2] and r[3]) for r in rows]
    bad_icrc = sum(not (r[1] and r[2]) for r in rows)
    share = sum(bad) / n if n else 0
    check(name, abs(share - 0.3) <= 0.05, f"{mode}=0.3: {sum(bad)}/{n} = {share:.3f} broken")
    # Frame by frame: every frame marked broken is broken (per the independent checks), and no
    # more than the 1% that keep allows is broken without the mark.
    lied = sum(r[0] == "broken" and not b for r, b in zip(rows, bad))
    unmarked = sum(r[0] != "broken" and b for r, b in zip(rows, bad))
    check(name, lied == 0, f"{mode}=0.3: {lied} frames marked broken are consistent")
    check(name, unmarked <= 0.01 * n, f"{mode}=0.3: {unmarked} frames broken without the mark")
    print(f"{name} {mode}=0.3: {n} mutated frames, {marked} marked broken, {sum(bad)} broken "
          f"({share:.3f}), of them {bad_icrc} with an invalid iCRC ({bad_icrc / n:.3f}); "
          f"{lied} marked but consistent, {unmarked} broken unmarked")


def tshark_reads(path):
    """tshark -r path's exit status and stderr, or None without tshark. As root it runs as nobody
    (tshark refuses root) with a HOME of its own, reading the file on stdin (tests/ornic-decode/
    test_fabric.py: the build tree may be closed to nobody)."""
    exe = shutil.which("tshark")
    if not exe:
        return None
    home = tempfile.mkdtemp(prefix="ornic-tshark-home-")
    cmd = [exe, "-r", "-"]
    if os.geteuid() == 0:
        shutil.chown(home, "nobody")
        cmd = ["runuser", "-u", "nobody", "--", "env", f"HOME={home}"] + cmd
    else:
        cmd = ["env", f"HOME={home}"] + cmd
    with open(path, "rb") as f:
        p = subprocess.run(cmd, stdin=f, capture_output=True, text=True, timeout=120)
    shutil.rmtree(home, ignore_errors=True)
    return p.returncode, p.stderr, len(p.stdout.splitlines())


def case_output(mut, gen_, wd):
    src = gen(gen_, wd, "ornic")
    _, _, inrecs = read_pcap(src)
    a, b = os.path.join(wd, "a.pcap"), os.path.join(wd, "b.pcap")
    for name in ("ornic", "rc"):
        s = src if name == "ornic" else gen(gen_, wd, "rc")
        for icrc in ("keep", "break=0.3"):
            mutate(mut, ["-n", "3", "--icrc", icrc, "--seed", "11"], s, a)
            t = tshark_reads(a)
            if t is None:
                print("SKIP tshark: not installed")
            else:
                check("tshark", t[0] == 0 and "appears to" not in t[1],
                      f"{name} --icrc {icrc}: tshark exit {t[0]}: {t[1][:300]!r}")
    mutate(mut, ["-n", "3", "--seed", "11"], src, a)
    mutate(mut, ["-n", "3", "--seed", "11"], src, b)
    with open(a, "rb") as fa, open(b, "rb") as fb:
        check("seed", fa.read() == fb.read(), "the same seed gave different outputs")
    mutate(mut, ["-n", "3", "--seed", "12"], src, b)
    with open(a, "rb") as fa, open(b, "rb") as fb:
        check("seed", fa.read() != fb.read(), "seeds 11 and 12 gave the same output")
    magic, link, recs = read_pcap(a)
    check("format", magic == 0xA1B23C4D and link == 1, f"magic {magic:#x}, link type {link}")
    # pcapgen's captures are all RoCE: 3 variants of each, timestamps the original's + 0, 1, 2 ns.
    check("-n 3", len(recs) == 3 * len(inrecs), f"{len(recs)} frames from {len(inrecs)}")
    ts = lambda r: r[0] * 10**9 + r[1]  # noqa: E731
    check("-n 3", all(ts(recs[3 * i + v]) == ts(inrecs[i]) + v for i in range(len(inrecs)) for v in range(3)),
          "a variant's timestamp is not its original's + its index in ns")
    log = os.path.join(wd, "k.log")
    mutate(mut, ["-n", "2", "--keep-original"], src, a, log)
    _, _, recs = read_pcap(a)
    rows = read_log(log)
    check("--keep-original", len(recs) == 3 * len(inrecs) == len(rows), f"{len(recs)} frames, {len(rows)} log lines")
    check("--keep-original", all(recs[3 * i][2] == inrecs[i][2] for i in range(len(inrecs))),
          "the first of each three is not the original")
    check("--log", [r[0] for r in rows] == list(range(1, len(rows) + 1)) and
          [r[1] for r in rows] == [i // 3 + 1 for i in range(len(rows))],
          "output and input frame numbers do not run 1, 2, ... and 1, 1, 1, 2, ...")
    check("--log", all((r[2] == "original") == (k % 3 == 0) for k, r in enumerate(rows)), "kinds out of place")
    # The same capture as gzip'd pcapng: the same frames in, the same output out.
    ng = os.path.join(wd, "in.pcapng.gz")
    p = run([gen_, "-q", "-o", ng] + CAPTURES["ornic"])
    check("pcapng.gz", p.returncode == 0, f"ornic-pcapgen -o {ng}: exit {p.returncode}")
    mutate(mut, ["-n", "3", "--seed", "11"], ng, b)
    mutate(mut, ["-n", "3", "--seed", "11"], src, a)
    with open(a, "rb") as fa, open(b, "rb") as fb:
        check("pcapng.gz", fa.read() == fb.read(), "pcapng.gz input gave another output than pcap")
    # A frame that is not RoCE (ARP): copied unchanged, or left out with --drop-other.
    mixed = os.path.join(wd, "mixed.pcap")
    arp = bytes.fromhex("ffffffffffff02000000000108060001080006040001020000000001c0a80001000000000000c0a80002")
    with open(src, "rb") as f, open(mixed, "wb") as g:
        raw = f.read()
        g.write(raw[:24] + struct.pack("<IIII", 1, 0, len(arp), len(arp)) + arp + raw[24:])
    mutate(mut, [], mixed, a, log)
    _, _, recs = read_pcap(a)
    check("other", recs[0][2] == arp and read_log(log)[0][2] == "copied", "the ARP frame is not copied first")
    mutate(mut, ["--drop-other"], mixed, a)
    _, _, recs = read_pcap(a)
    check("--drop-other", len(recs) == len(inrecs) and arp not in [r[2] for r in recs], "the ARP frame is there")


def case_errors(mut, gen_, wd):
    src = gen(gen_, wd, "ornic")
    with open(src, "rb") as f:
        b = f.read()
    cut = os.path.join(wd, "cut.pcap")
    with open(cut, "wb") as f:
        f.write(b[:len(b) // 2])
    junk = os.path.join(wd, "junk.pcap")
    with open(junk, "wb") as f:
        f.write(b"this is not a capture file at all\n" * 4)
    cases = [(cut, "cut.pcap: ", "truncated"), (junk, "junk.pcap", "not a capture"),
             (os.path.join(wd, "missing.pcap"), "missing.pcap", "missing")]
    for path, names, what in cases:
        out = os.path.join(wd, f"out-{what.replace(' ', '-')}.pcap")
        log = out + ".log"
        p = run([mut, f"--log={log}", path, out])
        err = p.stderr.decode()
        check(what, p.returncode == 1, f"exit {p.returncode}, expected 1 ({err!r})")
        check(what, err.startswith("ornic-mutate: ") and names in err and err.count("\n") == 1,
              f"stderr {err!r} does not name the file on one line")
        if what == "truncated":
            check(what, "packet " in err and "offset " in err, f"stderr {err!r} names no packet and offset")
        left = [f for f in os.listdir(wd) if f.startswith((f".out-{what.replace(' ', '-')}", "out-"))]
        check(what, not os.path.exists(out) and not os.path.exists(log) and not left,
              f"output left behind: {left}")
        print(f"{what}: exit {p.returncode}: {err.strip()}")


def case_signal(mut, gen_, wd):
    """SIGINT while IN is an idle pipe (stdin): exit 130, the stop said on stderr, OUT a whole
    capture of what was written, no temporary file left."""
    src = gen(gen_, wd, "ornic")
    with open(src, "rb") as f:
        b = f.read()
    out = os.path.join(wd, "sig.pcap")
    p = subprocess.Popen([mut, "-n", "2", "-", out], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    _, _, recs = read_pcap(src)
    p.stdin.write(b[:24 + sum(16 + len(r[2]) for r in recs[:10])])  # ten whole records, then nothing
    p.stdin.flush()
    time.sleep(1.0)
    p.send_signal(signal.SIGINT)
    try:
        _, err = p.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        _, err = p.communicate()
    err = err.decode()
    check("sigint", p.returncode == 130, f"exit {p.returncode}, expected 130 ({err!r})")
    check("sigint", "stopped by signal 2" in err, f"stderr {err!r}")
    if os.path.exists(out):
        _, _, recs = read_pcap(out)
        check("sigint", len(recs) == 20 and all(len(r[2]) > 0 for r in recs),
              f"{len(recs)} records kept, expected 20 (ten frames, two variants each)")
    else:
        check("sigint", False, "no output file")
    left = [f for f in os.listdir(wd) if f.startswith(".")]
    check("sigint", not left, f"temporary files left: {left}")
    print(f"sigint: exit {p.returncode}: {err.strip()}")


def main(argv):
    cmd, args = argv[1], argv[2:]
    wd = args[-1]
    shutil.rmtree(wd, ignore_errors=True)
    os.makedirs(wd)
    if cmd == "icrc":
        case_icrc(*args[:3], wd)
    elif cmd == "output":
        case_output(*args[:2], wd)
    elif cmd == "signal":
        case_signal(*args[:2], wd)
    elif cmd == "errors":
        case_errors(*args[:2], wd)
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return CHECKS.report()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
