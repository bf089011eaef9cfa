/* SPDX-License-Identifier: MIT */
#include "incast_report.h"

#include "incast.h"

static double us(uint64_t ps) { return (double)ps / 1e6; }

void incast_report_text(FILE *f, const stats *st, const options *o) {
  const incast_result *r = st->incast;
  const sim_incast *c = &o->sim.incast;
  if (!r) return;
  fprintf(f, "  incast             %u senders, switch buffer %llu bytes, ECN ", r->senders,
          (unsigned long long)c->buffer_bytes);
  if (c->ecn)
    fprintf(f, "Kmin %llu Kmax %llu Pmax %g", (unsigned long long)c->kmin,
            (unsigned long long)c->kmax, c->pmax);
  else
    fprintf(f, "off");
  fprintf(f, ", DCQCN %s, PFC %s", c->dcqcn ? "on" : "off", c->pfc ? "on" : "off");
  if (c->pfc)
    fprintf(f, " (Xoff %llu, Xon %llu)", (unsigned long long)c->xoff, (unsigned long long)c->xon);
  fprintf(f,
          "\n  switch queue       peak %llu bytes, mean %.0f over the last half of "
          "%.3f-%.3f us (all senders active)\n",
          (unsigned long long)r->peak_queue, r->mean_queue_last_half, us(r->active_start_ps),
          us(r->active_end_ps));
  fprintf(f, "  switch             %llu ECN marks, %llu tail drops, PFC %llu XOFF / %llu XON\n",
          (unsigned long long)r->marks, (unsigned long long)r->drops,
          (unsigned long long)r->xoff_sent, (unsigned long long)r->xon_sent);
  fprintf(f, "  fairness           Jain's index %.4f over the last half\n", r->jain_last_half);
  for (uint32_t k = 0; k < r->senders; k++) {
    const stats *s = &r->st[k];
    fprintf(f,
            "  sender %-3u         %.3f Gb/s (last half %.3f), %llu CNPs, %llu pause frames, "
            "%llu retransmissions, %llu dropped\n",
            k + 1, r->goodput_gbps[k], r->goodput_last_half_gbps[k],
            (unsigned long long)s->cnps_received, (unsigned long long)s->pauses_received,
            (unsigned long long)s->retx, (unsigned long long)s->drops_switch);
  }
}

static void u64_array(FILE *f, const uint64_t *a, size_t n, size_t stride, size_t off) {
  fputc('[', f);
  for (size_t i = 0; i < n; i++)
    fprintf(f, "%s%llu", i ? ", " : "", (unsigned long long)a[i * stride + off]);
  fputc(']', f);
}

/* The timeline: per sample its time, queue bytes, and per sender the rate
 * it delivered since the previous sample (accepted packets x PMTU) and its
 * DCQCN rate. */
static void json_timeline(FILE *f, const incast_result *r, uint32_t pmtu) {
  const incast_timeline *tl = &r->tl;
  fprintf(f, "    \"timeline\": {\"interval_us\": %.3f, \"queue_bytes\": ", us(tl->interval_ps));
  u64_array(f, tl->queue, tl->n, 1, 0);
  fputs(", \"delivered_gbps\": [", f);
  for (uint32_t k = 0; k < r->senders; k++) {
    fprintf(f, "%s[", k ? ", " : "");
    for (size_t i = 0; i < tl->n; i++) {
      uint64_t d =
          i ? tl->accepted[i * r->senders + k] - tl->accepted[(i - 1) * r->senders + k] : 0;
      fprintf(f, "%s%.3f", i ? ", " : "",
              (double)d * pmtu * 8.0 / (double)tl->interval_ps * 1000.0);
    }
    fputc(']', f);
  }
  fputs("], \"dcqcn_rate_gbps\": [", f);
  for (uint32_t k = 0; k < r->senders; k++) {
    fprintf(f, "%s[", k ? ", " : "");
    for (size_t i = 0; i < tl->n; i++)
      fprintf(f, "%s%.4f", i ? ", " : "", tl->rate[i * r->senders + k]);
    fputc(']', f);
  }
  fputs("]}\n", f);
}

void incast_report_json(FILE *f, const stats *st, const options *o) {
  const incast_result *r = st->incast;
  const sim_incast *c = &o->sim.incast;
  if (!r) return;
  fprintf(f,
          "  \"incast\": {\"senders\": %u, \"buffer_bytes\": %llu, \"ecn\": %s, \"kmin\": %llu, "
          "\"kmax\": %llu, \"pmax\": %.6f, \"dcqcn\": %s, \"pfc\": %s, \"pfc_xoff\": %llu, "
          "\"pfc_xon\": %llu, \"switch_delay_us\": %.6f,\n",
          r->senders, (unsigned long long)c->buffer_bytes, c->ecn ? "true" : "false",
          (unsigned long long)c->kmin, (unsigned long long)c->kmax, c->pmax,
          c->dcqcn ? "true" : "false", c->pfc ? "true" : "false", (unsigned long long)c->xoff,
          (unsigned long long)c->xon, c->switch_delay_us);
  fprintf(f,
          "    \"switch\": {\"peak_queue_bytes\": %llu, \"mean_queue_bytes_last_half\": %.1f, "
          "\"ecn_marks\": %llu, \"tail_drops\": %llu, \"pfc_xoff_sent\": %llu, "
          "\"pfc_xon_sent\": %llu},\n",
          (unsigned long long)r->peak_queue, r->mean_queue_last_half, (unsigned long long)r->marks,
          (unsigned long long)r->drops, (unsigned long long)r->xoff_sent,
          (unsigned long long)r->xon_sent);
  fprintf(f,
          "    \"active_start_us\": %.6f, \"active_end_us\": %.6f, \"jain_last_half\": %.6f,\n"
          "    \"senders_detail\": [\n",
          us(r->active_start_ps), us(r->active_end_ps), r->jain_last_half);
  for (uint32_t k = 0; k < r->senders; k++) {
    const stats *s = &r->st[k];
    fprintf(f,
            "      {\"sender\": %u, \"goodput_gbps\": %.6f, \"goodput_last_half_gbps\": %.6f, "
            "\"cnps_received\": %llu, \"cnps_sent_to\": %llu, \"pause_frames_received\": %llu, "
            "\"retransmissions\": %llu, \"tail_drops\": %llu, \"ce_marked\": %llu, "
            "\"timeouts\": %llu, \"wqes_completed\": %llu}%s\n",
            k + 1, r->goodput_gbps[k], r->goodput_last_half_gbps[k],
            (unsigned long long)s->cnps_received, (unsigned long long)s->cnps_sent,
            (unsigned long long)s->pauses_received, (unsigned long long)s->retx,
            (unsigned long long)s->drops_switch, (unsigned long long)s->ce_marked,
            (unsigned long long)s->timeouts, (unsigned long long)s->wqes_done,
            k + 1 < r->senders ? "," : "");
  }
  fputs("    ],\n", f);
  json_timeline(f, r, o->sim.workload.pmtu);
  fputs("  },\n", f);
}
