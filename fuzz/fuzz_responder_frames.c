/* SPDX-License-Identifier: MIT */
/* fuzz_responder_frames: pcapgen's ORNIC responder inside its simulator, as
 * fuzz_responder runs it (responder_sim.h), fed Ethernet frames as a NIC is:
 * no requester is modelled, the input's frames reach the responder as they
 * are, never re-encoded or repaired, so a frame with a wrong length or a bad
 * iCRC meets the receive path's own checks.
 *
 * Input, in frame records (the form fuzz/mutator mutates with
 * ORNIC_MUT_RECORDS=1 and ORNIC_MUT_SKIP=4: ornic_mutator.h): the 4
 * configuration bytes of fuzz_responder, then records of a 2-byte big-endian
 * length n and n bytes. n >= 14: an Ethernet frame, iCRC included, no FCS;
 * it is received (receive()), then the simulation runs on for one frame time.
 * n < 14: a pause (rsim_pause: n = 0 one frame time, else from the first two
 * bytes, as fuzz_responder's action 4). A last record that runs past the
 * end of the input is ignored. FUZZ_RESPONDER_RECORD writes fuzz_responder's
 * honest traffic in this form: the seeds (scripts/fuzz-corpus.sh).
 *
 * Checks: the sanitizers; every frame the responder sends carries a valid
 * iCRC, goes to a QP that exists, is an ACK, NAK, READ response or fatal NAK,
 * and its ACK and NAK headers keep the rules of PROTOCOL.md (responder_sim.c,
 * check_reply); the simulation fails only in the responder's integrity check
 * of a WQE, which arbitrary frames may well fail. What the requester sent
 * is unknown, so what fuzz_responder's model checks (ACKs cover data sent,
 * NAK bitmaps, READ bytes, no fatal NAK) cannot be asked here. */
#include <stdio.h>

#include <ornic/ornic.h>

#include "fuzz_driver.h"
#include "responder_sim.h"

#define RECORD_MIN_FRAME 14 /* an Ethernet header: shorter records are pauses */

static uint64_t dropped; /* FUZZ_RESPONDER_VERBOSE: frames receive() dropped */

int LLVMFuzzerInitialize(int *argc, char **argv[]) {
  (void)argc;
  (void)argv;
  rsim_setup();
  return 0;
}

/* The NIC's receive path. The simulator's own arrival does not check the
 * iCRC (its frames come from its encoder: sim.c, arrive), so the harness
 * does, as a RoCE NIC drops a packet whose iCRC does not match (Linux
 * rxe_icrc.c's rxe_icrc_check, whose failure rxe_rcv drops: [rxe-icrc],
 * ../shared/IBA_NOTES.md). A frame that does not decode goes on to the
 * simulator, which drops it for its lengths or headers (sim_inject). */
static void receive(rsim *r, const uint8_t *frame, size_t len) {
  ornic_frame f;
  if (ornic_frame_decode(&f, frame, len, ORNIC_LINK_ETHERNET, ORNIC_ROCEV2_UDP_PORT) == ORNIC_OK &&
      (ornic_icrc_verify(&f, frame) != ORNIC_OK || !rsim_admissible(&f))) {
    dropped++;
    rsim_pause(r, NULL, 0); /* it still took its time on the wire */
    return;
  }
  rsim_inject(r, frame, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < RSIM_CONFIG_LEN) return 0;
  static rsim r;
  rsim_start(&r, data, NULL, NULL);
  dropped = 0;
  size_t off = RSIM_CONFIG_LEN;
  while (!sim_failed(r.s) && size - off >= 2) {
    size_t n = (size_t)data[off] << 8 | data[off + 1];
    if (n > size - off - 2) break; /* runs past the end */
    const uint8_t *rec = data + off + 2;
    off += 2 + n;
    if (n < RECORD_MIN_FRAME)
      rsim_pause(&r, rec, n);
    else
      receive(&r, rec, n);
  }
  rsim_end(&r, NULL);
  if (rsim_verbose()) {
    rsim_report(&r);
    fprintf(stderr, " %llu dropped (iCRC, DMA length)\n", (unsigned long long)dropped);
  }
  rsim_free(&r);
  return 0;
}
