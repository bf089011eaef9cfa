#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Capture variants for the reader identity test (run_identity.sh).

    variants.py OUTDIR [--damage] CAPTURE.pcap[.gz]...
    variants.py OUTDIR --mixed A.pcap B.pcap

Rewrites each classic pcap in the other forms the two readers of
ornic-decode (its own, core/reader.c, and libpcap) must agree on, and with
--damage also damages it in the ways each check of theirs reports. Every file is named after
what it is or its defect: NAME.be.pcap, NAME.ng-multi.pcapng,
NAME.dmg-ng-trailer.pcapng, ... One file per line on stdout.

Forms: byte-swapped (big-endian) pcap; microsecond pcap; Kuznetzov's 24-byte
records; a header snaplen below the records' caplen (libpcap reads and cuts
them); pcapng in both byte orders; with options, comments and blocks that
are not packets (NRB, ISB, custom, unknown); several interfaces of one link
type with different if_tsresol (10^-9, 10^-6, 10^-3, 2^-30, 2^-10) and an
if_tsoffset; Simple Packet Blocks; the obsolete Packet Block; a second
section; gzip of some of these.

--mixed writes the two files on which the readers differ by design:
mixed-link.pcapng, A's and B's packets alternating on two interfaces of
their own link types, and mixed-snaplen.pcapng, A's packets alternating on
two interfaces whose snaplens differ. libpcap refuses a second interface
unlike the first; the tool's reader decodes each packet by its interface.

Damage: cuts inside the file header, a record header, a record's data, a
block; a gzip of a cut file; pcap caplen beyond the snaplen, the maximum and
2^32; pcapng block lengths below 12, not a multiple of 4, beyond 16 MiB, with
a trailer that disagrees; EPB/SPB/PB/IDB/SHB bodies too short; a packet on
an interface never described; caplen above the interface's snaplen; every
if_tsresol / if_tsoffset / opt_endofopt error; a section with a bad
byte-order magic or major version; no IDB; a packet
before the first IDB; an unsupported link type.
"""
import gzip
import os
import struct
import sys

NS = 10**9


def read_pcap(path):
    d = open(path, "rb").read()
    if d[:2] == b"\x1f\x8b":
        d = gzip.decompress(d)
    if len(d) < 24:
        return None
    magic = struct.unpack("<I", d[:4])[0]
    e = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    magic = struct.unpack(e + "I", d[:4])[0]
    if magic not in (0xA1B2C3D4, 0xA1B23C4D):
        return None
    _, _, _, _, snaplen, linktype = struct.unpack(e + "HHiIII", d[4:24])
    nano = magic == 0xA1B23C4D
    recs, o = [], 24
    while o + 16 <= len(d):
        sec, frac, caplen, wire = struct.unpack(e + "IIII", d[o:o + 16])
        if o + 16 + caplen > len(d):
            break
        ns = sec * NS + (frac if nano else frac * 1000)
        recs.append((ns, wire, d[o + 16:o + 16 + caplen]))
        o += 16 + caplen
    return {"snaplen": snaplen, "linktype": linktype, "nano": nano, "recs": recs}


# ---- classic pcap -----------------------------------------------------------

def pcap_bytes(cap, e="<", nano=True, snaplen=None, kuz=False, linktype=None):
    magic = 0xA1B2CD34 if kuz else (0xA1B23C4D if nano else 0xA1B2C3D4)
    out = bytearray(struct.pack(e + "IHHiIII", magic, 2, 4, 0, 0,
                                cap["snaplen"] if snaplen is None else snaplen,
                                cap["linktype"] if linktype is None else linktype))
    for ns, wire, data in cap["recs"]:
        sec, frac = divmod(ns, NS)
        if not nano:
            frac //= 1000
        out += struct.pack(e + "IIII", sec & 0xFFFFFFFF, frac, len(data), wire)
        if kuz:
            out += struct.pack(e + "IHBB", 1, 0x0800, 0, 0)
        out += data
    return bytes(out)


def record_offsets(cap, hdr=16):
    offs, o = [], 24
    for _, _, data in cap["recs"]:
        offs.append(o)
        o += hdr + len(data)
    return offs


# ---- pcapng -----------------------------------------------------------------

def opt(e, code, value):
    return struct.pack(e + "HH", code, len(value)) + value + b"\0" * (-len(value) % 4)


def opts(e, *items):
    if not items:
        return b""
    return b"".join(opt(e, c, v) for c, v in items) + struct.pack(e + "HH", 0, 0)


def block(e, btype, body, trailer=None):
    body += b"\0" * (-len(body) % 4)
    n = 12 + len(body)
    return struct.pack(e + "II", btype, n) + body + struct.pack(e + "I", n if trailer is None else trailer)


def shb(e, options=b"", major=1, minor=0, bom=0x1A2B3C4D):
    return block(e, 0x0A0D0D0A, struct.pack(e + "IHHq", bom, major, minor, -1) + options)


def idb(e, linktype, snaplen, options=b""):
    return block(e, 1, struct.pack(e + "HHI", linktype, 0, snaplen) + options)


def ticks_of(ns, res):
    """ns since 1970 in units of an if_tsresol byte's resolution."""
    if res & 0x80:
        return ns * (1 << (res & 0x7F)) // NS
    return ns * 10**res // NS


def epb(e, iface, ticks, data, wire, options=b""):
    return block(e, 6, struct.pack(e + "IIIII", iface, ticks >> 32, ticks & 0xFFFFFFFF, len(data), wire)
                 + data + b"\0" * (-len(data) % 4) + options)


def spb(e, data, wire):
    return block(e, 3, struct.pack(e + "I", wire) + data)


def pb(e, iface, ticks, data, wire):
    return block(e, 2, struct.pack(e + "HHIIII", iface, 0, ticks >> 32, ticks & 0xFFFFFFFF, len(data), wire)
                 + data)


def ng_simple(cap, e="<", res=9, snaplen=None):
    """One section, one interface, every packet an EPB."""
    tsres = opts(e, (9, bytes([res]))) if res != 6 else b""
    out = shb(e) + idb(e, cap["linktype"], cap["snaplen"] if snaplen is None else snaplen, tsres)
    for ns, wire, data in cap["recs"]:
        out += epb(e, 0, ticks_of(ns, res), data, wire)
    return out


def ng_options(cap, e="<"):
    """Options everywhere, and blocks that carry no packet between the packets."""
    out = shb(e, opts(e, (1, b"a comment"), (2, b"x86_64"), (3, b"Linux"), (4, b"variants.py")))
    out += block(e, 4, struct.pack(e + "HH", 1, 8) + bytes([10, 0, 0, 1]) + b"host\0" + b"\0" * 3
                 + struct.pack(e + "HH", 0, 0))  # NRB
    out += idb(e, cap["linktype"], cap["snaplen"],
               opts(e, (2, b"eth0"), (3, b"a port mirror"), (9, bytes([9])), (12, b"Linux"), (13, bytes([4]))))
    for i, (ns, wire, data) in enumerate(cap["recs"]):
        out += epb(e, 0, ticks_of(ns, 9), data, wire,
                   opts(e, (1, b"packet %d" % i), (2, struct.pack(e + "I", 1))) if i % 2 else b"")
        if i % 3 == 0:
            out += block(e, 0x00000BAD, struct.pack(e + "I", 32473) + b"custom")
            out += block(e, 0x40000BAD, struct.pack(e + "I", 32473) + b"no copy")
        if i % 4 == 1:
            out += block(e, 5, struct.pack(e + "III", 0, ticks_of(ns, 9) >> 32, ticks_of(ns, 9) & 0xFFFFFFFF)
                         + opts(e, (4, struct.pack(e + "Q", i))))  # ISB
        if i % 5 == 2:
            out += block(e, 0x12345678, b"an unknown block type")
    return out


MULTI_RES = [(9, 0), (6, 0), (0x80 | 30, 0), (3, 0), (0x80 | 10, 1000)]


def ng_multi(cap, e="<"):
    """Five interfaces of one link type, each with its own resolution (one
    with an offset), the packets dealt round-robin."""
    out = shb(e)
    for res, off in MULTI_RES:
        o = [(9, bytes([res]))] if res != 6 else []
        if off:
            o.append((14, struct.pack(e + "q", off)))
        out += idb(e, cap["linktype"], cap["snaplen"], opts(e, *o))
    for i, (ns, wire, data) in enumerate(cap["recs"]):
        k = i % len(MULTI_RES)
        res, off = MULTI_RES[k]
        out += epb(e, k, ticks_of(ns - off * NS, res), data, wire)
    return out


def ng_spb_pb(cap, e="<"):
    """Simple Packet Blocks (whole frames only: an SPB has no caplen) and the
    obsolete Packet Block, with an if_tsoffset on the interface."""
    out = shb(e) + idb(e, cap["linktype"], cap["snaplen"], opts(e, (9, bytes([9])), (14, struct.pack(e + "q", 7))))
    for i, (ns, wire, data) in enumerate(cap["recs"]):
        if i % 3 == 0 and len(data) == wire:
            out += spb(e, data, wire)
        elif i % 3 == 1:
            out += pb(e, 0, ticks_of(ns - 7 * NS, 9), data, wire)
        else:
            out += epb(e, 0, ticks_of(ns - 7 * NS, 9), data, wire)
    return out


def ng_sections(cap, e="<"):
    """The packets split over two sections, each with its own interfaces."""
    half = len(cap["recs"]) // 2
    out = shb(e) + idb(e, cap["linktype"], cap["snaplen"], opts(e, (9, bytes([9]))))
    for ns, wire, data in cap["recs"][:half]:
        out += epb(e, 0, ticks_of(ns, 9), data, wire)
    out += shb(e, minor=2) + idb(e, cap["linktype"], cap["snaplen"]) + idb(e, cap["linktype"], cap["snaplen"], opts(e, (9, bytes([9]))))
    for ns, wire, data in cap["recs"][half:]:
        out += epb(e, 1, ticks_of(ns, 9), data, wire)
    return out


def ng_big_blocks(cap, e="<"):
    """Blocks larger than the reader's buffer: a 3 MiB custom block, an EPB
    with 700 KiB of options, the largest caplen."""
    out = shb(e) + idb(e, cap["linktype"], 0, opts(e, (9, bytes([9]))))
    recs = cap["recs"]
    for i, (ns, wire, data) in enumerate(recs):
        if i == 1:
            out += block(e, 0x00000BAD, struct.pack(e + "I", 32473) + bytes(3 << 20))
        if i == 2:
            out += epb(e, 0, ticks_of(ns, 9), data, wire, opts(e, *[(1, b"x" * 60000)] * 12))
            continue
        if i == 3:
            big = data + bytes(262144 - len(data))
            out += epb(e, 0, ticks_of(ns, 9), big, len(big))
            continue
        out += epb(e, 0, ticks_of(ns, 9), data, wire)
    return out


def pcap_big_records(cap, snaplen):
    """Records of the largest caplen (their frames padded with zeros); with a
    header snaplen below it, libpcap reads them whole and cuts them."""
    big = dict(cap, snaplen=snaplen, recs=[(ns, 262144, data + bytes(262144 - len(data)))
                                           if i % 3 == 1 else (ns, wire, data)
                                           for i, (ns, wire, data) in enumerate(cap["recs"])])
    return pcap_bytes(big)


# ---- damage -----------------------------------------------------------------

def cuts(name, data, points):
    for p in sorted(set(points)):
        if 0 < p < len(data):
            yield f"{name}.cut{p}", data[:p]


def pcap_damage(name, cap):
    d = pcap_bytes(cap)
    offs = record_offsets(cap)
    if len(offs) < 4:
        return
    k = offs[len(offs) // 2]
    yield from cuts(name + ".dmg", d, [10, 23, 24 + 7, k, k + 7, k + 16, k + 40, len(d) - 1, len(d) - 17])

    def at(off, fmt, value):
        b = bytearray(d)
        struct.pack_into(fmt, b, off, value)
        return bytes(b)
    yield name + ".dmg-caplen-2e32", at(k + 8, "<I", 0xFFFFFFF0)
    yield name + ".dmg-caplen-max", at(k + 8, "<I", 262145)
    yield name + ".dmg-caplen-over-snaplen", at(k + 8, "<I", 70000)  # header snaplen 65535
    yield name + ".dmg-caplen-tail", at(offs[-1] + 8, "<I", 70000)
    yield name + ".dmg-version-2-3", at(6, "<H", 3)
    yield name + ".dmg-version-1-0", at(4, "<H", 1)
    yield name + ".dmg-linktype-ext-bits", at(20, "<I", cap["linktype"] | 0x04000000)
    yield name + ".dmg-linktype-usb", at(20, "<I", 189)
    yield name + ".dmg-snaplen-0", at(16, "<I", 0)
    kuz = pcap_bytes(cap, kuz=True)
    koffs = record_offsets(cap, 24)
    yield from cuts(name + ".kuz-dmg", kuz, [koffs[2] + 20, koffs[3] + 30])


def ng_damage(name, cap, e="<"):
    recs = cap["recs"][:6]
    if len(recs) < 6:
        return
    lt, snap = cap["linktype"], cap["snaplen"]
    head = shb(e) + idb(e, lt, snap, opts(e, (9, bytes([9]))))
    pk = [epb(e, 0, ticks_of(ns, 9), data, wire) for ns, wire, data in recs]
    good = head + b"".join(pk[:3])
    tail = b"".join(pk[3:])
    full = good + tail
    yield from cuts(f"{name}.dmg-ng-{e == '<' and 'le' or 'be'}", full,
                    [5, 11, 20, len(head) - 3, len(good) + 3, len(good) + 9, len(good) + 30, len(full) - 4])
    tag = f"{name}.dmg-ng-{'le' if e == '<' else 'be'}"
    ns0, wire0, data0 = recs[3]
    t0 = ticks_of(ns0, 9)

    def raw_block(btype, tlen, body, trailer=None):
        return struct.pack(e + "II", btype, tlen) + body + struct.pack(e + "I", tlen if trailer is None else trailer)
    yield tag + "-len-below-12", good + struct.pack(e + "II", 6, 8) + tail
    yield tag + "-len-not-4n", good + struct.pack(e + "II", 6, 30) + b"\0" * 30 + tail
    yield tag + "-len-over-16m", good + struct.pack(e + "II", 6, 17 << 20) + tail
    yield tag + "-trailer", good + block(e, 6, pk[3][8:-4], trailer=1234) + tail
    yield tag + "-epb-short", good + block(e, 6, b"\0" * 16) + tail
    yield tag + "-spb-short", good + raw_block(3, 12, b"") + tail
    yield tag + "-pb-short", good + block(e, 2, b"\0" * 8) + tail
    yield tag + "-idb-short", good + block(e, 1, b"\0" * 4) + tail
    yield tag + "-shb-short", good + block(e, 0x0A0D0D0A, struct.pack(e + "I", 0x1A2B3C4D) + b"\0" * 8) + tail
    yield tag + "-epb-data-short", good + block(e, 6, struct.pack(e + "IIIII", 0, t0 >> 32, t0 & 0xFFFFFFFF, 2000, 2000) + data0) + tail
    yield tag + "-unknown-iface", good + epb(e, 7, t0, data0, wire0) + tail
    yield tag + "-caplen-over-snaplen", shb(e) + idb(e, lt, 64, opts(e, (9, bytes([9])))) + b"".join(pk)
    for what, o in [("tsresol-len", opts(e, (9, b"\x09\x09"))),
                    ("tsresol-twice", opts(e, (9, b"\x09"), (9, b"\x06"))),
                    ("tsresol-2-64", opts(e, (9, b"\xc0"))),
                    ("tsresol-10-20", opts(e, (9, b"\x14"))),
                    ("tsoffset-len", opts(e, (14, b"\0\0\0\0"))),
                    ("tsoffset-twice", opts(e, (14, b"\0" * 8), (14, b"\0" * 8))),
                    ("endofopt-len", struct.pack(e + "HH", 0, 4) + b"\0" * 4),
                    ("option-overruns", struct.pack(e + "HH", 2, 200) + b"eth0")]:
        yield f"{tag}-idb-{what}", good + idb(e, lt, snap, o) + tail  # a second interface, mid-file
        yield f"{tag}-first-idb-{what}", shb(e) + idb(e, lt, snap, o) + b"".join(pk)
    # A section of the other byte order is no damage: the tool's reader reads it and libpcap does
    # not (a difference by design, pcapng_byte_order.py).
    yield tag + "-section-bad-bom", good + shb(e, bom=0x12345678) + tail
    yield tag + "-section-major-2", good + shb(e, major=2) + tail
    yield tag + "-section-no-idb", good + shb(e) + tail
    yield tag + "-open-version-1-1", shb(e, minor=1) + idb(e, lt, snap) + b"".join(pk)
    yield tag + "-open-no-idb", shb(e) + block(e, 0x12345678, b"x")
    yield tag + "-open-packet-first", shb(e) + pk[0] + idb(e, lt, snap) + tail
    yield tag + "-open-unsupported-link", shb(e) + idb(e, 105, snap) + b"".join(pk)
    yield tag + "-open-shb-len-20", struct.pack(e + "III", 0x0A0D0D0A, 20, 0x1A2B3C4D) + b"\0" * 8
    yield tag + "-open-shb-huge", struct.pack(e + "III", 0x0A0D0D0A, 2 << 20, 0x1A2B3C4D) + b"\0" * 20


def variants(path, outdir, damage):
    cap = read_pcap(path)
    if not cap or not cap["recs"]:
        return
    name = os.path.join(outdir, os.path.basename(path).split(".pcap")[0])
    lt = cap["linktype"]
    files = {
        name + ".be.pcap": pcap_bytes(cap, ">", cap["nano"]),
        name + ".usec.pcap": pcap_bytes(cap, "<", False),
        name + ".kuz.pcap": pcap_bytes(cap, kuz=True, nano=False),
        name + ".snap80.pcap": pcap_bytes(cap, snaplen=80),
        name + ".ng-le.pcapng": ng_simple(cap, "<", 9),
        name + ".ng-be.pcapng": ng_simple(cap, ">", 9),
        name + ".ng-usec.pcapng": ng_simple(cap, ">", 6),
        name + ".ng-options.pcapng": ng_options(cap, "<"),
        name + ".ng-options-be.pcapng": ng_options(cap, ">"),
        name + ".ng-spb-pb.pcapng": ng_spb_pb(cap, "<"),
    }
    # libpcap compares a later IDB's LINKTYPE_ value with the first one's
    # DLT_ value: for LINKTYPE_RAW (101 -> DLT_RAW 12) it refuses any second
    # interface. Those files are where the readers differ by design.
    if lt != 101:
        files[name + ".ng-multi.pcapng"] = ng_multi(cap, "<")
        files[name + ".ng-multi-be.pcapng"] = ng_multi(cap, ">")
        files[name + ".ng-sections.pcapng"] = ng_sections(cap, "<")
    for f in list(files):
        if f.endswith((".be.pcap", ".ng-options.pcapng", ".ng-multi-be.pcapng")):
            files[f + ".gz"] = gzip.compress(files[f], 1)
    if damage:
        files[name + ".ng-bigblocks.pcapng"] = ng_big_blocks(cap)
        files[name + ".big-records.pcap"] = pcap_big_records(cap, 262144)
        big = files[name + ".big-records-snap65535.pcap"] = pcap_big_records(cap, 65535)
        # damage after records libpcap cut to the snaplen: the offset must count their whole length
        files[name + ".big-records-snap65535.dmg-cut.pcap"] = big[:-7]
        for f, d in pcap_damage(name, cap):
            files[f + ".pcap"] = d
        for e in "<>":
            for f, d in ng_damage(name, cap, e):
                files[f + ".pcapng"] = d
    for f in [k for k in files if ".cut" in k][:6]:  # a cut file, gzipped: the damage is inside
        files[f + ".gz"] = gzip.compress(files[f], 1)
    for f, d in files.items():
        with open(f, "wb") as out:
            out.write(d)
        print(f)


def mixed(outdir, a_path, b_path, e="<"):
    a, b = read_pcap(a_path), read_pcap(b_path)
    out = shb(e) + idb(e, a["linktype"], a["snaplen"], opts(e, (9, b"\x09")))
    out += idb(e, b["linktype"], b["snaplen"], opts(e, (9, b"\x09")))
    for i in range(max(len(a["recs"]), len(b["recs"]))):
        for k, c in enumerate((a, b)):
            if i < len(c["recs"]):
                ns, wire, data = c["recs"][i]
                out += epb(e, k, ns, data, wire)
    open(os.path.join(outdir, "mixed-link.pcapng"), "wb").write(out)
    out = shb(e) + idb(e, a["linktype"], 65535) + idb(e, a["linktype"], 0, opts(e, (9, b"\x09")))
    for i, (ns, wire, data) in enumerate(a["recs"]):
        out += epb(e, i % 2, ns if i % 2 else ns // 1000, data, wire)
    open(os.path.join(outdir, "mixed-snaplen.pcapng"), "wb").write(out)


if __name__ == "__main__":
    out, args = sys.argv[1], sys.argv[2:]
    damage = "--damage" in args
    os.makedirs(out, exist_ok=True)
    if args[:1] == ["--mixed"]:
        mixed(out, args[1], args[2])
        sys.exit(0)
    for p in args:
        if p != "--damage":
            variants(p, out, damage)
