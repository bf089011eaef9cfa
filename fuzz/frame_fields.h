/* SPDX-License-Identifier: MIT */
/* Every field of ornic_frame, one leaf at a time (padding is no field), and
 * the structs inside it: what the checks that compare two decodes of one
 * frame walk (tests/unit/test_frame.c: the fast path against the general
 * one, and that this list names every byte the decoders write; fuzz_frame:
 * the same comparison on fuzzed input). */
#ifndef ORNIC_FUZZ_FRAME_FIELDS_H
#define ORNIC_FUZZ_FRAME_FIELDS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <ornic/frame.h>

typedef struct {
  const char *name;
  size_t off, size;
} frame_field;

#define FF(x) \
  { #x, offsetof(ornic_frame, x), sizeof(((ornic_frame *)0)->x) }
static const frame_field frame_fields[] = {FF(link),
                                           FF(l3),
                                           FF(eth.dst),
                                           FF(eth.src),
                                           FF(eth.has_vlan),
                                           FF(eth.vlan_tpid),
                                           FF(eth.vlan_tci),
                                           FF(eth.ethertype),
                                           FF(ip.version),
                                           FF(ip.tos),
                                           FF(ip.ttl),
                                           FF(ip.flow_label),
                                           FF(ip.id),
                                           FF(ip.frag),
                                           FF(ip.next_proto),
                                           FF(ip.hdr_len),
                                           FF(ip.total_len),
                                           FF(ip.checksum),
                                           FF(ip.src),
                                           FF(ip.dst),
                                           FF(udp.sport),
                                           FF(udp.dport),
                                           FF(udp.len),
                                           FF(udp.checksum),
                                           FF(bth.opcode),
                                           FF(bth.se),
                                           FF(bth.m),
                                           FF(bth.padcnt),
                                           FF(bth.tver),
                                           FF(bth.pkey),
                                           FF(bth.fecn),
                                           FF(bth.becn),
                                           FF(bth.resv6),
                                           FF(bth.destqp),
                                           FF(bth.ackreq),
                                           FF(bth.resv7),
                                           FF(bth.psn),
                                           FF(ext.present),
                                           FF(ext.rdeth.resv),
                                           FF(ext.rdeth.een),
                                           FF(ext.deth.qkey),
                                           FF(ext.deth.resv),
                                           FF(ext.deth.srcqp),
                                           FF(ext.xrceth.resv),
                                           FF(ext.xrceth.xrcsrq),
                                           FF(ext.feth.value),
                                           FF(ext.reth.va),
                                           FF(ext.reth.rkey),
                                           FF(ext.reth.dmalen),
                                           FF(ext.offeth.offset),
                                           FF(ext.atomiceth.va),
                                           FF(ext.atomiceth.rkey),
                                           FF(ext.atomiceth.swap_add),
                                           FF(ext.atomiceth.compare),
                                           FF(ext.aeth.syndrome),
                                           FF(ext.aeth.msn),
                                           FF(ext.atomicacketh.orig),
                                           FF(ext.oacketh.flags),
                                           FF(ext.oacketh.resv),
                                           FF(ext.oacketh.count),
                                           FF(ext.naketh.reason),
                                           FF(ext.naketh.trigger_psn),
                                           FF(ext.naketh.nblocks),
                                           FF(ext.naketh.base_psn),
                                           FF(ext.naketh.resv),
                                           FF(ext.naketh.limit_psn),
                                           FF(ext.naketh.bitmap),
                                           FF(ext.immdt.data),
                                           FF(ext.ieth.rkey),
                                           FF(ext.cnp.resv),
                                           FF(payload),
                                           FF(payload_len),
                                           FF(payload_caplen),
                                           FF(pad_len),
                                           FF(icrc),
                                           FF(icrc_present),
                                           FF(l3_off),
                                           FF(l4_off),
                                           FF(bth_off),
                                           FF(ext_off),
                                           FF(payload_off),
                                           FF(icrc_off),
                                           FF(roce_end),
                                           FF(caplen),
                                           FF(malformed),
                                           FF(layers),
                                           FF(lrh.vl),
                                           FF(lrh.lver),
                                           FF(lrh.sl),
                                           FF(lrh.resv2),
                                           FF(lrh.lnh),
                                           FF(lrh.dlid),
                                           FF(lrh.resv5),
                                           FF(lrh.pktlen),
                                           FF(lrh.slid),
                                           FF(vcrc),
                                           FF(vcrc_present),
                                           FF(vcrc_off),
                                           FF(reserved)};

/* The structs inside ornic_frame: a struct assignment may write their padding. */
static const frame_field frame_parts[] = {FF(eth), FF(ip), FF(udp), FF(bth), FF(ext), FF(lrh)};

/* The first field in which a and b differ, or NULL. Bytes, not values: a
 * field the decoder left alone holds the caller's bytes, which need not be
 * a valid bool or pointer. */
static inline const char *frame_fields_diff(const ornic_frame *a, const ornic_frame *b) {
  for (size_t i = 0; i < sizeof frame_fields / sizeof frame_fields[0]; i++)
    if (memcmp((const uint8_t *)a + frame_fields[i].off, (const uint8_t *)b + frame_fields[i].off,
               frame_fields[i].size))
      return frame_fields[i].name;
  return NULL;
}

#endif
