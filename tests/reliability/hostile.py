#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Hostile captures for the analysis (issue 28, docs/RELIABILITY.md "Hostile captures").

    hostile.py ICRC_HELPER KIND COUNT OUT.pcap

Each KIND is a pattern that once cost far more memory or CPU per packet
than benign traffic; the frames are valid RoCEv2 (good iCRC, port 4791),
built by tests/e2e/icrc_check.c (ornic-test-icrc), so that every consumer
decodes and analyses them:

  grow      COUNT conversations (a QP each, from its own address), two RC SEND
            Only each: PSN 0, then PSN 16000 (the PSN window would span 16,001)
  read      one conversation, COUNT ORNIC READ requests of 2^32-1 bytes each
            20,000 PSNs after the previous (each reserves a whole window)
  nak       one conversation: 512 ORNIC FSpots, then COUNT ORNIC NAKs of 255
            blocks with alternating bits (2,040 runs each), bases all over
  ack       one conversation: 512 RC WRITEs, then COUNT ACKs whose PSN jumps
            by +-8M (each covers a whole window, or goes back)
  pair      COUNT conversations from one host to another (an RC SEND to each of
            COUNT QPs), then COUNT ACKs back to COUNT other QPs whose PSNs fit
            none of them: each ACK is a new half that looks for its pair among
            every unpaired conversation of the two hosts
  benign    the reference: COUNT packets of an in-order RC WRITE stream with
            an ACK every 8 packets
  time      two ORNIC FSpots, out of order in PSN, whose capture times step
            back by 2^63 ns (the reorder lag is a difference of them), pcapng
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from e2e_common import Helper  # noqa: E402

ADDR_A, ADDR_B = "0a000001", "0a000002"


def frame(h, **kv):
    kv.setdefault("src", ADDR_A)
    kv.setdefault("dst", ADDR_B)
    kv.setdefault("sport", 0xC000)
    kv.setdefault("dport", 4791)
    return h.encode(["link=eth", "ipv=4", "ttl=64"] + [f"{k.replace('_', '.')}={v}"
                                                         for k, v in kv.items()])


def grow(h, n):
    for i in range(n):
        src = "0b%06x" % (i + 1)
        for psn in (0, 16000):
            yield frame(h, src=src, opcode=0x04, destqp=0x100 + i, psn=psn, payload="00" * 8)


def read(h, n):
    for i in range(n):
        yield frame(h, opcode=0xC6, destqp=0x11, psn=(i * 20000) & 0xFFFFFF,
                    reth_va=0x10000, reth_rkey=7, reth_dmalen=0xFFFFFFFF)


def write_stream(h, n, opcode):
    for psn in range(n):
        kv = dict(opcode=opcode, destqp=0x11, psn=psn, payload="00" * 64)
        kv.update(reth_va=0x10000 + psn * 64, reth_rkey=7, reth_dmalen=64)
        if opcode == 0xC0:  # one 1 MiB WQE, this packet at its offset
            kv.update(reth_va=0x10000, reth_dmalen=1 << 20, offeth=psn * 64)
        yield frame(h, **kv)


def nak(h, n):
    yield from write_stream(h, 512, 0xC0)
    for i in range(n):
        base = (i * 40961) & 0xFFFFFF
        yield frame(h, src=ADDR_B, dst=ADDR_A, opcode=0xCA, destqp=0x22, psn=base, aeth_syn=0x60,
                    aeth_msn=0, nak_reason=1, nak_trigger=(base + 4100) & 0xFFFFFF, nak_base=base,
                    nak_limit=(base + 4080) & 0xFFFFFF, nak_bitmap="aaaa" * 255)


def ack(h, n):
    yield from write_stream(h, 512, 0x0A)
    for i in range(n):
        psn = (511 + (8 << 20) * (i + 1) * (1 if i % 3 else -1)) & 0xFFFFFF
        yield frame(h, src=ADDR_B, dst=ADDR_A, opcode=0x11, destqp=0x22, psn=psn, aeth_syn=0,
                    aeth_msn=i)


def pair(h, n):
    for i in range(n):
        yield frame(h, opcode=0x04, destqp=0x1000 + i, psn=i, payload="00" * 8)
    for i in range(n):
        yield frame(h, src=ADDR_B, dst=ADDR_A, opcode=0x11, destqp=0x100000 + i,
                    psn=(i + (1 << 22)) & 0xFFFFFF, aeth_syn=0, aeth_msn=0)


def benign(h, n):
    for psn in range(n):
        if psn % 9 == 8:
            yield frame(h, src=ADDR_B, dst=ADDR_A, opcode=0x11, destqp=0x22, psn=psn - 1,
                        aeth_syn=0, aeth_msn=psn // 9)
        else:
            yield frame(h, opcode=0x0A if psn % 9 else 0x06, destqp=0x11, psn=psn,
                        payload="00" * 64, **({"reth_va": 0x1000, "reth_rkey": 7,
                                              "reth_dmalen": 8 * 64} if psn % 9 == 0 else {}))


def write_pcap(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", 1700000000 + i // 1000, (i % 1000) * 1000, len(fr),
                                len(fr)))
            f.write(fr)


def write_pcapng_times(path, frames_times):
    def block(btype, body):
        body += b"\0" * (-len(body) % 4)
        return struct.pack("<II", btype, 12 + len(body)) + body + struct.pack("<I", 12 + len(body))
    # if_tsresol 9: nanoseconds, so 64 bits of timestamp reach 584 years
    idb_opts = struct.pack("<HHB3x", 9, 1, 9) + struct.pack("<HH", 0, 0)
    out = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    out += block(1, struct.pack("<HHI", 1, 0, 65535) + idb_opts)
    for fr, ts in frames_times:
        out += block(6, struct.pack("<IIIII", 0, ts >> 32, ts & 0xFFFFFFFF, len(fr), len(fr)) + fr)
    open(path, "wb").write(out)


def timestamps(h):
    """PSN 10 at 2^63 + 2^40 ns, then PSN 5 (out of order) at 2^40 ns: the
    clock steps back by 2^63 ns. The engine's times wrap to signed 64 bits
    (-2^63 + 2^40, then 2^40), so the lag of PSN 5 behind the window's top
    reaching it is a difference of 2^63: an overflow if computed signed."""
    kv = dict(opcode=0xC0, destqp=0x11, payload="00" * 64, reth_va=0x10000, reth_rkey=7,
              reth_dmalen=1 << 20)
    return [(frame(h, psn=10, offeth=640, **kv), (1 << 63) + (1 << 40)),
            (frame(h, psn=5, offeth=320, **kv), 1 << 40)]


def main():
    helper, kind, count, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    h = Helper(helper)
    if kind == "time":
        write_pcapng_times(out, timestamps(h))
    else:
        gen = {"grow": grow, "read": read, "nak": nak, "ack": ack, "pair": pair, "benign": benign}[kind]
        write_pcap(out, gen(h, count))
    h.close()


if __name__ == "__main__":
    main()
