/* SPDX-License-Identifier: MIT */
/* The discrete-event core: simulated time in picoseconds, an event queue, two
 * NICs (requester = node 0, responder = node 1) joined by the fabric (net.h),
 * and a tap that captures what one NIC's port sees.
 *
 * A NIC sends one frame at a time at its link rate. Control frames (ACK, NAK,
 * READ requests) wait in a FIFO and go first; data frames are pulled from the
 * node's protocol engine (endpoint_ops.next_tx) at the moment the link is
 * free, so every opcode decision is taken at send time, as PROTOCOL.md 4.2
 * requires, and only frames actually on the wire occupy memory. A frame is
 * encoded once by its sender and decoded by its receiver with libornicproto,
 * exactly as bytes cross a real link (its iCRC is not checked again there:
 * sim.c, arrive, says why).
 *
 * Everything a run simulates comes from one sim_config (sim_config.h); the
 * engines of a profile (profiles/profile.h) read the same one. */
#ifndef PCAPGEN_SIM_H
#define PCAPGEN_SIM_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "ornic/ornic.h"
#include "framer.h"
#include "packet_pool.h"
#include "sim_config.h"
#include "stats.h"
#include "writer.h"

typedef struct sim sim;

/* A protocol engine at one node. next_tx and timer may be NULL: a WRITE
 * responder only answers what arrives, through sim_send. */
typedef struct {
  pkt *(*next_tx)(void *self);                          /* next data frame, or NULL */
  void (*rx)(void *self, pkt *p, const ornic_frame *f); /* a frame arrived (decoded) */
  void (*timer)(void *self, uint32_t arg);              /* an event of sim_timer_at */
} endpoint_ops;

/* Times both ends derive from the configuration (PROTOCOL.md 4.1 timers). */
typedef struct {
  uint64_t frame_ps; /* NIC serialization of a full-PMTU data frame */
  uint64_t rtt_ps;   /* nominal round trip over the slowest path, full frame out, ACK back,
                          plus the --reorder-max emulator's longest hold each way (sizing.h) */
  uint64_t otd_ps;   /* OTD / B: time to send OTD packets on one QP (QPs share the NIC) */
} sim_timing;

/* NULL with a message in err. The sim uses cfg, st and w but does not own
 * them: cfg must outlive it. */
sim *sim_new(const sim_config *cfg, stats *st, writer *w, char *err, size_t errlen);
void sim_free(sim *s);

void sim_set_endpoint(sim *s, int node, const endpoint_ops *ops, void *self);

/* Called every 4096 events with the run's counters and the bytes written so
 * far (a progress display). */
typedef void (*sim_progress_fn)(void *ctx, const stats *st, uint64_t bytes_written);

/* Runs until every WQE completed and the fabric is quiet. 0 done, 1 stopped
 * early (*stop set, or cfg->bench_packets written), -1 failed (sim_error).
 * progress may be NULL. */
int sim_run(sim *s, volatile sig_atomic_t *stop, sim_progress_fn progress, void *ctx);

uint64_t sim_now(const sim *s);
const sim_timing *sim_times(const sim *s);
stats *sim_stats(sim *s);

/* A frame preset with this node's addresses (Ethernet, IPv4, UDP dport,
 * P_Key): every field an encoder reads, link through payload_len (payload
 * NULL, no extension header set). The fields after payload_len, which decode
 * alone fills (offsets, iCRC, ...), are left as they were: ornic_frame_encode
 * reads none of them (ornic/frame.h; test_frame's encode_ignores_decode_outputs). */
void sim_frame(const sim *s, int node, ornic_frame *f);

/* Chooses the path and the IP ID, sets the UDP source port (--udp-sport:
 * 0xC000 + path by default, or the sending QP's number, or one port),
 * encodes f into a fresh buffer. NULL after sim_fail on an encoding error. f comes
 * from sim_frame: of its Ethernet, IP and UDP fields only ip.tos may be
 * changed (framer.h). */
pkt *sim_encode(sim *s, int node, ornic_frame *f, const pkt_meta *m);

/* Same on a path the caller chose (path < --paths), for transports that pin
 * or echo paths; SIM_PATH_SPRAY lets the spraying policy pick, as sim_encode.
 * With --udp-sport path (the default) a path's UDP source port is
 * SIM_UDP_SPORT_BASE + path; an engine takes an arriving frame's path from
 * its pkt, never from the port. */
#define SIM_PATH_SPRAY 0xffffffffu
#define SIM_UDP_SPORT_BASE 0xC000u

/* The AETH syndrome of every ACK the engines send: type ACK with the credit
 * field 0x1F, "no credit information" (docs/PROTOCOL.md 2.3). NAK codes are
 * the library's (ORNIC_AETH_NAK_*, ornic/headers.h). */
#define SIM_AETH_ACK ORNIC_AETH_ACK_NO_CREDIT
pkt *sim_encode_on(sim *s, int node, ornic_frame *f, const pkt_meta *m, unsigned path);

/* Same, with f->payload_len bytes of payload generated straight into the
 * frame as gen says (the memory pattern of a data packet, after an optional
 * head) instead of copied from f->payload. */
pkt *sim_encode_gen(sim *s, int node, ornic_frame *f, const pkt_meta *m, unsigned path,
                    const framer_payload *gen);

/* Queues a control frame at the node's NIC (sent before any data). */
void sim_send(sim *s, int node, pkt *p);

/* The node's engine may have data to send: wake its NIC if idle. */
void sim_kick(sim *s, int node);

/* Calls the node's timer(arg) at time t (picoseconds). */
void sim_timer_at(sim *s, int node, uint64_t t, uint32_t arg);

/* Calls fn for every data frame (WRITE data, READ response) that arrives at
 * `node`, after it was decoded and before its engine sees it. One observer
 * per sim (--plot uses it). */
typedef void (*sim_observer_fn)(void *ctx, uint64_t now, const pkt *p, const ornic_frame *f);
void sim_observe_data(sim *s, int node, sim_observer_fn fn, void *ctx);

/* Stops the run with an error message (the first one is kept). */
void sim_fail(sim *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool sim_failed(const sim *s);
const char *sim_error(const sim *s);

/* A restartable timer on the shared event queue. Re-arming only moves the
 * deadline; at most one live event per timer is queued and early events
 * re-queue themselves, so a timer restarted on every packet costs no heap
 * traffic. */
typedef struct {
  uint64_t deadline;
  uint64_t pending; /* time of the queued event, UINT64_MAX when none */
  bool armed;
} ltimer;

void ltimer_init(ltimer *t);
void ltimer_arm(sim *s, ltimer *t, int node, uint32_t arg, uint64_t deadline);
static inline void ltimer_stop(ltimer *t) { t->armed = false; }
/* Call from the timer callback: true when the timer really expired now. */
bool ltimer_expired(sim *s, ltimer *t, int node, uint32_t arg);

/* Test hooks for fuzz/fuzz_responder.c, which plays the requester itself.
 * sim_inject hands `frame` to `node`'s engine now, as if it had just arrived
 * from the fabric: it is decoded like every arriving frame and, only if it
 * decodes, passed to the engine's rx (the frame is not captured). Returns
 * ornic_frame_decode's result. sim_run_until handles every event due up to
 * time t, then sets the clock to t; 0, or -1 once the run failed. */
int sim_inject(sim *s, int node, const uint8_t *frame, size_t len);
int sim_run_until(sim *s, uint64_t t);

/* Lockstep (pcapgen/fabric/: N sims share simulated time, the writer and a
 * switch). sim_next_time: the time of the next event, false when there is
 * none or the run failed. sim_step handles that one event; 0, or -1 once the
 * run failed. sim_finish: the end-of-run counters sim_run sets (end time,
 * buffer peak, unused --drop rules), for a run driven by sim_step. */
bool sim_next_time(sim *s, uint64_t *t);
int sim_step(sim *s);
void sim_finish(sim *s);

/* An incast run's switch (cfg->incast.senders > 0). Every data-direction
 * frame (NODE_REQ to NODE_RESP) that its path delivers is handed to fn at the
 * moment it reaches the switch (sim_now), instead of to the receiver; the
 * switch then forwards it (sim_switch_forward: it reaches the receiver at t)
 * or drops it (sim_switch_drop: a tail drop, counted in drops_switch). The
 * receiver's frames cross the switch unqueued (cfg->incast.switch_delay_us
 * added). sim_switch_pause: a PFC frame (PK_PAUSE) of the switch reaches
 * the sender's NIC at t; the NIC then pauses or resumes, the tap sees it. */
typedef void (*sim_switch_fn)(void *ctx, sim *s, pkt *p);
void sim_set_switch(sim *s, sim_switch_fn fn, void *ctx);
void sim_switch_forward(sim *s, pkt *p, uint64_t t);
void sim_switch_drop(sim *s, pkt *p);
void sim_switch_pause(sim *s, const uint8_t *frame, size_t len, uint64_t t);
/* The sender's DCQCN rate now (Rc; the link rate without DCQCN). */
double sim_rp_rate_gbps(sim *s);

#endif
