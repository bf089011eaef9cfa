/* SPDX-License-Identifier: MIT */
#include "fabric_options.h"

#include <string.h>

#include "cli.h"
#include "cli_num.h"
#include "profile.h"
#include "sizing.h"

#define PROG "ornic-pcapgen"
#define MAX_SENDERS 256u
#define QPN_MAX 0xfffffeu /* as options.c's */

/* The defaults, each with its source (pcapgen/fabric/README.md has the table). */
#define DEF_BUFFER (2ull << 20) /* 2 MiB: ours (pcapgen/fabric/README.md) */
#define DEF_KMIN (5ull << 10)   /* DCQCN paper (SIGCOMM 2015) section 5: Kmin 5 KB, */
#define DEF_KMAX (200ull << 10) /* Kmax 200 KB, */
#define DEF_PMAX 0.01           /* Pmax 1% */
#define DEF_XOFF (32ull << 10)  /* ours (pcapgen/fabric/README.md) */
#define DEF_XON (16ull << 10)   /* ours: Xoff / 2 */
#define DEF_HOP_US 1.0          /* ours: the switch-receiver cable and forwarding */

static int fail(FILE *err, const char *opt, const char *value, const char *why) {
  cli_usage_error(err, PROG, "%s: '%s': %s", opt, value, why);
  return -1;
}

static int size_arg(FILE *err, const char *opt, const char *s, uint64_t lo, uint64_t hi,
                    uint64_t *v) {
  char why[200];
  return cli_parse_size(s, lo, hi, v, why, sizeof why) < 0 ? fail(err, opt, s, why) : 0;
}

static int onoff(FILE *err, const char *opt, const char *s, bool *v) {
  if (strcmp(s, "on") == 0 || strcmp(s, "off") == 0) {
    *v = s[1] == 'n';
    return 0;
  }
  return fail(err, opt, s, "expected on or off");
}

/* --ecn KMIN,KMAX,PMAX or off. */
static int parse_ecn(options *o, FILE *err, const char *s) {
  static const char want[] = "expected KMIN,KMAX,PMAX (sizes with K or M, 0 < PMAX <= 1) or off";
  sim_incast *c = &o->sim.incast;
  char buf[3][32], why[200];
  if (strcmp(s, "off") == 0) {
    c->ecn = false;
    return 0;
  }
  const char *p = s;
  for (int i = 0; i < 3; i++) {
    size_t len = strcspn(p, ",");
    if (len == 0 || len >= sizeof buf[i] || (i < 2) != (p[len] == ','))
      return fail(err, "--ecn", s, want);
    memcpy(buf[i], p, len);
    buf[i][len] = 0;
    p += len + (i < 2);
  }
  if (cli_parse_size(buf[0], 0, 1ull << 30, &c->kmin, why, sizeof why) < 0 ||
      cli_parse_size(buf[1], 1, 1ull << 30, &c->kmax, why, sizeof why) < 0 ||
      cli_parse_double(buf[2], 0, 1, &c->pmax, why, sizeof why) < 0)
    return fail(err, "--ecn", s, why);
  if (c->kmin >= c->kmax) return fail(err, "--ecn", s, "KMIN must be below KMAX");
  if (c->pmax <= 0) return fail(err, "--ecn", s, "PMAX must be above 0 (--ecn off: no marking)");
  c->ecn = true;
  return 0;
}

int fabric_option_apply(options *o, int c, const char *a, FILE *err) {
  sim_incast *f = &o->sim.incast;
  char why[200];
  uint64_t v;
  switch (c) {
  case FO_SENDERS:
    if (cli_parse_u64(a, 1, MAX_SENDERS, &v, why, sizeof why) < 0)
      return fail(err, "--senders", a, why);
    f->senders = (uint32_t)v;
    return 0;
  case FO_SWITCH_BUFFER:
    o->incast_given |= FO_GIVEN_BUFFER;
    return size_arg(err, "--switch-buffer", a, 1u << 12, 1ull << 32, &f->buffer_bytes);
  case FO_ECN: o->incast_given |= FO_GIVEN_ECN; return parse_ecn(o, err, a);
  case FO_DCQCN: o->incast_given |= FO_GIVEN_DCQCN; return onoff(err, "--dcqcn", a, &f->dcqcn);
  case FO_PFC: o->incast_given |= FO_GIVEN_PFC; return onoff(err, "--pfc", a, &f->pfc);
  case FO_PFC_XOFF:
    o->incast_given |= FO_GIVEN_XOFF;
    return size_arg(err, "--pfc-xoff", a, 1, 1ull << 32, &f->xoff);
  case FO_PFC_XON:
    o->incast_given |= FO_GIVEN_XON;
    return size_arg(err, "--pfc-xon", a, 0, 1ull << 32, &f->xon);
  case FO_SWITCH_DELAY:
    o->incast_given |= FO_GIVEN_DELAY;
    if (cli_parse_double(a, 0, 1e6, &f->switch_delay_us, why, sizeof why) < 0)
      return fail(err, "--switch-delay-us", a, why);
    return 0;
  }
  return 1;
}

static void defaults(options *o) {
  sim_incast *f = &o->sim.incast;
  unsigned g = o->incast_given;
  if (!(g & FO_GIVEN_BUFFER)) f->buffer_bytes = DEF_BUFFER;
  if (!(g & FO_GIVEN_ECN)) {
    f->ecn = true;
    f->kmin = DEF_KMIN;
    f->kmax = DEF_KMAX;
    f->pmax = DEF_PMAX;
  }
  if (!(g & FO_GIVEN_DCQCN)) f->dcqcn = true;
  if (!(g & FO_GIVEN_XOFF)) f->xoff = DEF_XOFF;
  if (!(g & FO_GIVEN_XON)) f->xon = f->xoff < DEF_XON * 2 ? f->xoff / 2 : DEF_XON;
  if (!(g & FO_GIVEN_DELAY)) f->switch_delay_us = DEF_HOP_US;
}

/* What an incast run cannot take: one reason each. NULL when none. */
static const char *refused(const options *o) {
  const sim_config *c = &o->sim;
  if (c->profile->caps & PROFILE_TWO_HOSTS)
    return "--profile rc (two hosts): the senders are requesters";
  if (c->workload.op == OP_READ) return "--op read (the data would flow away from the switch)";
  if (c->capture.start_us > 0) return "--capture-start";
  if (c->capture.drop > 0 || c->capture.ndrop_frames)
    return "--capture-drop / --capture-drop-frames";
  if (c->capture.tx_late_us > 0) return "--capture-tx-late";
  if (c->capture.rocev1) return "--capture-rocev1";
  if (c->capture.tap == TAP_REQUESTER)
    return "--capture requester (sender 1's port: --capture sender)";
  if (o->records) return "--records";
  if (c->bench_packets) return "--bench";
  if (c->fabric.path_list || c->fabric.nevents) return "--path / --path-event";
  return NULL;
}

/* PFC is lossless when every port that is paused can still land what it
 * has on the way: Xoff + headroom per port, headroom = 2 x the link's
 * bandwidth-delay product + 2 full frames (the 802.1Qbb headroom rule as
 * vendors state it: pcapgen/fabric/README.md). */
static uint64_t pfc_headroom(const sim_config *c) {
  double delay_us = sim_fabric_path(&c->fabric, 0).delay_us;
  double bdp = c->fabric.rate_gbps * 1e3 * delay_us / 8; /* bytes per direction */
  return (uint64_t)(2 * bdp) + 2 * (c->workload.pmtu + 100);
}

static int check(options *o, FILE *err) {
  sim_incast *f = &o->sim.incast;
  const sim_workload *wl = &o->sim.workload;
  if (f->xon >= f->xoff) {
    cli_usage_error(err, PROG, "--pfc-xon %llu must be below --pfc-xoff %llu",
                    (unsigned long long)f->xon, (unsigned long long)f->xoff);
    return -1;
  }
  for (int n = 0; n < 2; n++)
    if ((uint64_t)wl->qpn_base[n] + (uint64_t)f->senders * wl->qps - 1 > QPN_MAX) {
      cli_usage_error(err, PROG, "--senders %u x --qps %u: the QP numbers go past 0x%x", f->senders,
                      wl->qps, QPN_MAX);
      return -1;
    }
  uint64_t need = (uint64_t)f->senders * (f->xoff + pfc_headroom(&o->sim));
  if (f->pfc && f->buffer_bytes < need)
    fprintf(err,
            "ornic-pcapgen: warning: --pfc on: --switch-buffer %llu is below --senders %u x "
            "(--pfc-xoff %llu + headroom %llu) = %llu bytes: frames may still be dropped\n",
            (unsigned long long)f->buffer_bytes, f->senders, (unsigned long long)f->xoff,
            (unsigned long long)pfc_headroom(&o->sim), (unsigned long long)need);
  return 0;
}

int fabric_options_finish(options *o, bool loss_given, FILE *err) {
  sim_config *c = &o->sim;
  if (!c->incast.senders) {
    if (o->incast_given || c->incast.tap_sender) {
      cli_usage_error(err, PROG,
                      "the switch options (--switch-buffer, --ecn, --dcqcn, --pfc*, "
                      "--switch-delay-us, --capture sender) need --senders N");
      return -1;
    }
    return 0;
  }
  const char *why = refused(o);
  if (why) {
    cli_usage_error(err, PROG, "--senders: an incast run does not take %s", why);
    return -1;
  }
  defaults(o);
  /* A rack: one link per sender to its switch, lossless but for the switch's
   * own drops, unless the options say otherwise (ours). */
  if (!o->paths_given) c->fabric.paths = 1;
  if (!o->spread_given) c->fabric.delay_spread_us = 0;
  if (!loss_given) c->fabric.loss = 0;
  return check(o, err);
}

void fabric_options_usage(FILE *f) {
  fputs(
      "      --senders N        N:1 incast (1-256): N senders, each with its own --qps\n"
      "                         QPs and the workload, behind a switch whose egress\n"
      "                         queue feeds the receiver (pcapgen/fabric/README.md).\n"
      "                         Its defaults: --paths 1, --delay-spread-us 0, --loss 0;\n"
      "                         the tap at the receiver's port (--capture sender: at\n"
      "                         sender 1's)\n"
      "      --switch-buffer SIZE  the egress queue's buffer, suffixes K M (default\n"
      "                         2M): a frame that does not fit is dropped\n"
      "      --ecn KMIN,KMAX,PMAX|off  RED-style ECN marking on the bytes queued: none\n"
      "                         up to KMIN, probability rising to PMAX at KMAX, every\n"
      "                         ECT frame above (default 5K,200K,0.01: the DCQCN paper)\n"
      "      --dcqcn on|off     DCQCN: the receiver sends a CNP per QP at most every\n"
      "                         50 us for CE-marked data, the senders pace at its\n"
      "                         rate (default on)\n"
      "      --pfc on|off       802.1Qbb PFC of priority 3 (default off): the switch\n"
      "                         pauses a sender whose queued bytes pass --pfc-xoff\n"
      "                         and resumes it below --pfc-xon\n"
      "      --pfc-xoff SIZE    the pause threshold, per ingress port (default 32K)\n"
      "      --pfc-xon SIZE     the resume threshold, below Xoff (default 16K)\n"
      "      --switch-delay-us US  the switch-receiver hop (default 1)\n",
      f);
}
