/* SPDX-License-Identifier: MIT */
/* The simulation both responder harnesses run (fuzz_responder, which plays
 * the requester, and fuzz_responder_frames, fed frames as a NIC is):
 * pcapgen's ORNIC responder (ornic_resp.h) inside its simulator (sim.h),
 * configured from 4 input bytes without pcapgen's command line; frames
 * injected at it and pauses on the simulated clock; the checks that hold for
 * every frame the responder sends, whatever it received; and the option that
 * records what a run injected as frame records (the input of
 * fuzz_responder_frames; the format is the mutator's, ornic_mutator.h).
 *
 * Environment, read once: FUZZ_RESPONDER_VERBOSE=1 prints what each input
 * achieved (2: also every frame injected and sent); FUZZ_RESPONDER_RECORD=FILE
 * writes each input's configuration bytes, then every frame injected and
 * every pause, as frame records to FILE (the last input replayed wins):
 * replayed by fuzz_responder_frames, they drive the responder the same way. */
#ifndef ORNIC_FUZZ_RESPONDER_SIM_H
#define ORNIC_FUZZ_RESPONDER_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <ornic/ornic.h>

#include "ornic_resp.h"
#include "sim.h"
#include "sim_config.h"
#include "stats.h"

#define RSIM_CONFIG_LEN 4 /* the configuration bytes that start every input */
#define RSIM_FRAME_CAP 8192

/* Sees every frame the responder sends, after rsim's own checks. */
typedef void (*rsim_rx_fn)(void *ctx, const ornic_frame *f);

typedef struct {
  sim *s;
  oresp *resp;
  const sim_timing *t;
  sim_config cfg; /* the simulator keeps a pointer to it: the rsim must not move */
  stats st;
  rsim_rx_fn rx;
  void *ctx;
  FILE *record; /* FUZZ_RESPONDER_RECORD's file during a run, or NULL */
} rsim;

/* Once per process, from LLVMFuzzerInitialize: pcapgen's defaults and the
 * environment. */
void rsim_setup(void);
int rsim_verbose(void);

/* Starts a run configured from c[0..RSIM_CONFIG_LEN-1]: PMTU and QPs, ACK
 * policy, window and PSN wrap, OTD, bitmap pool (configure() in
 * responder_sim.c). rx may be NULL. */
void rsim_start(rsim *r, const uint8_t *c, rsim_rx_fn rx, void *ctx);

/* Hands the frame to the responder as it arrives off the wire (sim_inject:
 * decoded, dropped if it does not decode), then runs the simulation on for
 * one frame time, so the responder's NIC sends what the frame triggered. */
void rsim_inject(rsim *r, const uint8_t *frame, size_t len);

/* A pause from the bytes of a short record (n < 14): n = 0, one frame time;
 * else (p[0] + 1) * (p[1] + 1) units of (RTT + OTD time) / 16384 (p[1] = 0
 * when n = 1; further bytes are ignored), up to four times RTT + OTD, so
 * that every timer of the responder can fire. */
void rsim_pause(rsim *r, const uint8_t *p, size_t n);

/* Whether a frame that decoded may be injected at all: a WRITE or READ's
 * DMA length the simulator can allocate (it keeps a WQE's memory to verify
 * it; a real NIC writes in place). */
bool rsim_admissible(const ornic_frame *f);

/* Every timer the run left running fires once more, then the outcome: a
 * failed simulation fails the input, unless it is the responder's integrity
 * check of a WQE on a QP whose traffic was not honest: foreign(ctx, q), or
 * every QP when foreign is NULL. */
void rsim_end(rsim *r, bool (*foreign)(void *ctx, unsigned q));

/* FUZZ_RESPONDER_VERBOSE: the run's counters, on one line the caller ends. */
void rsim_report(const rsim *r);

void rsim_free(rsim *r);

/* One frame on stderr, `dir` "->" (to the responder) or "<-" (from it). */
void rsim_trace(const char *dir, uint64_t now, const ornic_frame *f);

#endif
