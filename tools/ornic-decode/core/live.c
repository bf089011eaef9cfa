/* SPDX-License-Identifier: MIT */
/* Live capture. pcap_create + pcap_activate rather than pcap_open_live:
 * only they tell "no such interface" from "permission denied" by code, and
 * set immediate mode (each packet handed over as it arrives, not when a
 * kernel block fills: someone watching a link wants each line at once) and
 * the timestamp precision before the capture starts.
 * Stopping: dec_live_stop (from a signal handler) breaks the blocking read;
 * the packets the kernel had already buffered are then read without
 * blocking, so a Ctrl-C right after the traffic loses none of it. */
#include "live.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linktype.h"

typedef struct {
  int code;
  const char *name;
} pcap_code_name;

/* pcap_statustostr gives prose; the macro names are what a user searches
 * libpcap's documentation and issues for. */
static const pcap_code_name pcap_codes[] = {
    {PCAP_ERROR, "PCAP_ERROR"},
    {PCAP_ERROR_BREAK, "PCAP_ERROR_BREAK"},
    {PCAP_ERROR_NOT_ACTIVATED, "PCAP_ERROR_NOT_ACTIVATED"},
    {PCAP_ERROR_ACTIVATED, "PCAP_ERROR_ACTIVATED"},
    {PCAP_ERROR_NO_SUCH_DEVICE, "PCAP_ERROR_NO_SUCH_DEVICE"},
    {PCAP_ERROR_RFMON_NOTSUP, "PCAP_ERROR_RFMON_NOTSUP"},
    {PCAP_ERROR_NOT_RFMON, "PCAP_ERROR_NOT_RFMON"},
    {PCAP_ERROR_PERM_DENIED, "PCAP_ERROR_PERM_DENIED"},
    {PCAP_ERROR_IFACE_NOT_UP, "PCAP_ERROR_IFACE_NOT_UP"},
    {PCAP_ERROR_CANTSET_TSTAMP_TYPE, "PCAP_ERROR_CANTSET_TSTAMP_TYPE"},
    {PCAP_ERROR_PROMISC_PERM_DENIED, "PCAP_ERROR_PROMISC_PERM_DENIED"},
    {PCAP_ERROR_TSTAMP_PRECISION_NOTSUP, "PCAP_ERROR_TSTAMP_PRECISION_NOTSUP"},
    {PCAP_WARNING, "PCAP_WARNING"},
    {PCAP_WARNING_PROMISC_NOTSUP, "PCAP_WARNING_PROMISC_NOTSUP"},
    {PCAP_WARNING_TSTAMP_TYPE_NOTSUP, "PCAP_WARNING_TSTAMP_TYPE_NOTSUP"},
};

static const char *pcap_code_name_of(int code) {
  for (size_t i = 0; i < sizeof pcap_codes / sizeof pcap_codes[0]; i++)
    if (pcap_codes[i].code == code) return pcap_codes[i].name;
  return "an unknown libpcap code";
}

/* libpcap's text for the last activate result: pcap_geterr when it wrote
 * one (it does not for every code), else the generic prose. */
static const char *activate_text(pcap_t *p, int code) {
  const char *e = pcap_geterr(p);
  return e && e[0] ? e : pcap_statustostr(code);
}

/* The program's own path, for a setcap command that can be pasted as it
 * is; a generic one when /proc is not mounted. */
static void self_path(char *buf, size_t len) {
  ssize_t n = readlink("/proc/self/exe", buf, len - 1);
  if (n > 0) {
    buf[n] = 0;
    return;
  }
  snprintf(buf, len, "$(command -v ornic-decode)");
}

static void activate_error(pcap_t *p, const char *iface, int rc, char *err, size_t errlen) {
  const char *name = pcap_code_name_of(rc), *text = activate_text(p, rc);
  char self[PATH_MAX];
  switch (rc) {
  case PCAP_ERROR_NO_SUCH_DEVICE:
    snprintf(err, errlen, "no such interface: %s (%s)", iface, name);
    return;
  case PCAP_ERROR_PERM_DENIED:
    self_path(self, sizeof self);
    snprintf(err, errlen,
             "%s: permission denied (%s: %s): capturing needs the CAP_NET_RAW capability; "
             "run as root, or give it to the program: setcap cap_net_raw+ep %s",
             iface, name, text, self);
    return;
  case PCAP_ERROR_PROMISC_PERM_DENIED:
    snprintf(err, errlen,
             "%s: promiscuous mode not permitted (%s: %s): it needs CAP_NET_RAW; "
             "or capture without it: --no-promiscuous-mode",
             iface, name, text);
    return;
  case PCAP_ERROR_IFACE_NOT_UP:
    snprintf(err, errlen, "%s: the interface is down (%s): ip link set %s up", iface, name, iface);
    return;
  default: snprintf(err, errlen, "%s: cannot capture (%s: %s)", iface, name, text);
  }
}

/* Everything that must be set before activation. Only the precision may be
 * refused (by a platform without nanosecond stamps): then microseconds,
 * scaled in dec_live_next. */
static int set_options(dec_capture *c, const dec_live_cfg *cfg) {
  bool any = strcmp(cfg->iface, "any") == 0;
  unsigned kib = cfg->buffer_kib ? cfg->buffer_kib : DEC_LIVE_BUFFER_KIB;
  unsigned snap = cfg->snaplen ? cfg->snaplen : DEC_LIVE_SNAPLEN; /* tcpdump's -s 0 too */
  /* These fail only on an activated handle (PCAP_ERROR_ACTIVATED); newer
   * libpcap headers make their results must-use. */
  int rc = pcap_set_snaplen(c->pcap, (int)snap);
  if (!rc) rc = pcap_set_buffer_size(c->pcap, (int)(kib * 1024u));
  if (!rc) rc = pcap_set_promisc(c->pcap, cfg->promisc && !any); /* "any" would only warn */
  if (!rc) rc = pcap_set_immediate_mode(c->pcap, 1);
  c->usec = pcap_set_tstamp_precision(c->pcap, PCAP_TSTAMP_PRECISION_NANO) != 0;
  return rc;
}

/* LINKTYPE_LINUX_SLL2 over SLL where offered (Linux "any"), as tcpdump
 * chooses: it also names the interface each packet came from. */
static void prefer_sll2(dec_capture *c) {
  int *dlts = NULL;
  int n = pcap_list_datalinks(c->pcap, &dlts);
  for (int i = 0; c->dlt == DLT_LINUX_SLL && i < n; i++)
    if (dlts[i] == DLT_LINUX_SLL2 && pcap_set_datalink(c->pcap, DLT_LINUX_SLL2) == 0)
      c->dlt = DLT_LINUX_SLL2;
  if (n > 0) pcap_free_datalinks(dlts);
}

static int check_link(const dec_capture *c, char *err, size_t errlen) {
  if (dec_link_supported(c->dlt)) return 0;
  const char *name = pcap_datalink_val_to_name(c->dlt);
  snprintf(err, errlen,
           "%s: unsupported link type %d (%s): ornic-decode reads Ethernet, raw IP, "
           "Linux SLL and SLL2, native InfiniBand and ERF",
           c->in.name, c->dlt, name ? name : "unknown");
  return -1;
}

/* Compiled for the link type just chosen; the netmask only matters to
 * "ip broadcast", which RoCE filters have no use for. */
static int set_filter(dec_capture *c, const char *filter, char *err, size_t errlen) {
  struct bpf_program prog;
  int rc = pcap_compile(c->pcap, &prog, filter, 1, PCAP_NETMASK_UNKNOWN);
  if (rc == 0) {
    rc = pcap_setfilter(c->pcap, &prog);
    pcap_freecode(&prog);
  }
  if (rc < 0)
    snprintf(err, errlen, "%s: bad filter '%s': %s", c->in.name, filter, pcap_geterr(c->pcap));
  return rc < 0 ? -1 : 0;
}

static int activate(dec_capture *c, const dec_live_cfg *cfg, char *err, size_t errlen, char *warn,
                    size_t warnlen) {
  char pe[PCAP_ERRBUF_SIZE] = "";
  c->pcap = pcap_create(cfg->iface, pe);
  if (!c->pcap) {
    snprintf(err, errlen, "%s: cannot capture: %s", cfg->iface, pe);
    return -1;
  }
  int rc = set_options(c, cfg);
  if (rc != 0) {
    snprintf(err, errlen, "%s: cannot set capture options: %s", cfg->iface, pcap_statustostr(rc));
    return -1;
  }
  rc = pcap_activate(c->pcap);
  if (rc < 0) {
    activate_error(c->pcap, cfg->iface, rc, err, errlen);
    return -1;
  }
  if (rc > 0)
    snprintf(warn, warnlen, "%s: %s: %s", cfg->iface, pcap_code_name_of(rc),
             activate_text(c->pcap, rc));
  return 0;
}

/* Room for the largest packet the capture can hand over. */
static int alloc_buffer(dec_capture *c, char *err, size_t errlen) {
  int snap = pcap_snapshot(c->pcap);
  c->live_buf_len = snap > 0 ? (size_t)snap : DEC_LIVE_SNAPLEN;
  c->live_buf = malloc(c->live_buf_len);
  if (c->live_buf) return 0;
  snprintf(err, errlen, "%s: out of memory for the packet buffer", c->in.name);
  return -1;
}

int dec_live_open(dec_capture *c, const dec_live_cfg *cfg, char *err, size_t errlen, char *warn,
                  size_t warnlen) {
  memset(c, 0, sizeof *c);
  if (warnlen) warn[0] = '\0';
  c->live = true;
  c->in.name = cfg->iface;
  c->next_off = -1;
  if (activate(c, cfg, err, errlen, warn, warnlen) < 0) goto fail;
  c->dlt = pcap_datalink(c->pcap);
  prefer_sll2(c);
  if (check_link(c, err, errlen) < 0 || alloc_buffer(c, err, errlen) < 0) goto fail;
  if (cfg->filter && set_filter(c, cfg->filter, err, errlen) < 0) goto fail;
  return 0;
fail:
  dec_capture_close(c);
  return -1;
}

/* The kernel stamps each packet when it receives it: one stamped after the
 * stop arrived after it, and the drain ends there even if traffic goes on. */
static bool after_stop(const dec_capture *c) {
  const struct timeval *t = &c->hdr.ts; /* tv_usec holds nanoseconds, see keep_packet */
  if (t->tv_sec != c->stop_at.tv_sec) return t->tv_sec > c->stop_at.tv_sec;
  return t->tv_usec > c->stop_at.tv_nsec;
}

/* pcap_dispatch's callback. The packet is copied: its slot in the kernel's
 * ring is handed back as soon as this returns (pcap_next_ex copies too). */
static void keep_packet(u_char *user, const struct pcap_pkthdr *h, const u_char *data) {
  dec_capture *c = (dec_capture *)user;
  c->hdr = *h;
  if (c->hdr.caplen > c->live_buf_len) c->hdr.caplen = (bpf_u_int32)c->live_buf_len;
  memcpy(c->live_buf, data, c->hdr.caplen);
  if (c->usec) c->hdr.ts.tv_usec *= 1000; /* the decoder reads nanoseconds */
  c->got = true;
}

/* The stop was seen (PCAP_ERROR_BREAK): the first time, read on without
 * blocking up to the packets received before now; the second, or if the
 * handle cannot be made non-blocking, stop at once. */
static void note_stop(dec_capture *c) {
  char pe[PCAP_ERRBUF_SIZE];
  if (c->draining || pcap_setnonblock(c->pcap, 1, pe) < 0) {
    c->stopped = true;
    return;
  }
  clock_gettime(CLOCK_REALTIME, &c->stop_at);
  c->draining = true;
}

/* pcap_dispatch, not pcap_next_ex: when the stop comes while libpcap hands
 * over a packet, it returns PCAP_ERROR_BREAK after the callback ran, and
 * pcap_next_ex would drop that packet. */
int dec_live_next(dec_capture *c, const struct pcap_pkthdr **hdr, const uint8_t **data) {
  while (!c->stopped) {
    c->got = false;
    int rc = pcap_dispatch(c->pcap, 1, keep_packet, (u_char *)c);
    if (rc == PCAP_ERROR_BREAK) note_stop(c);
    if (c->got && c->draining && after_stop(c)) {
      c->stopped = true;
    } else if (c->got) {
      c->records++;
      *hdr = &c->hdr;
      *data = c->live_buf;
      return 1;
    }
    if (rc == PCAP_ERROR) return -1;
    if (rc == 0 && c->draining) c->stopped = true; /* drained */
    /* else a read timeout without packets, or the stop just seen: read on */
  }
  return 0;
}

void dec_live_stop(dec_capture *c) { pcap_breakloop(c->pcap); }

void dec_live_describe(const dec_capture *c, char *buf, size_t len) {
  const char *name = pcap_datalink_val_to_name(c->dlt);
  const char *desc = pcap_datalink_val_to_description(c->dlt);
  snprintf(buf, len, "listening on %s, link-type %s (%s), snapshot length %d bytes", c->in.name,
           name ? name : "?", desc ? desc : "?", pcap_snapshot(c->pcap));
}

int dec_live_counts(const dec_capture *c, uint64_t *recv, uint64_t *drop, uint64_t *ifdrop) {
  struct pcap_stat ps;
  if (pcap_stats(c->pcap, &ps) < 0) return -1;
  *recv = ps.ps_recv;
  *drop = ps.ps_drop;
  *ifdrop = ps.ps_ifdrop;
  return 0;
}

void dec_live_summary(const dec_capture *c, char *buf, size_t len) {
  struct pcap_stat ps;
  unsigned long long n = (unsigned long long)c->records;
  if (pcap_stats(c->pcap, &ps) < 0) {
    snprintf(buf, len, "%s: %llu packets captured (no kernel counters: %s)", c->in.name, n,
             pcap_geterr(c->pcap));
    return;
  }
  int k =
      snprintf(buf, len, "%s: %llu packets captured, %u received by filter, %u dropped by kernel",
               c->in.name, n, ps.ps_recv, ps.ps_drop);
  if (ps.ps_ifdrop && k > 0 && (size_t)k < len)
    snprintf(buf + k, len - (size_t)k, ", %u dropped by interface", ps.ps_ifdrop);
}
