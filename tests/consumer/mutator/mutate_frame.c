/* SPDX-License-Identifier: MIT */
/* The installed mutator from C (ornic/mutator/ornic_mutator.h): 1000
 * variants of one frame, each checked by libornicproto (decode and iCRC);
 * 1000 of a records input (the prefix kept); a damaged copy repaired.
 *   mutate_frame FILE SKIP   (FILE: a frame after SKIP leading bytes) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ornic/mutator/ornic_mutator.h>
#include <ornic/ornic.h>

static uint8_t frame[4096], out[70000], rec[9000], rout[70000];

/* Lengths that locate the iCRC, and the iCRC right. The mutator makes frames
 * the protocol calls malformed (a PadCnt against the payload, a header left
 * out) on purpose, so the decoder's verdict may be ORNIC_ERR_MALFORMED. */
static int consistent(const uint8_t *p, size_t n) {
  ornic_frame f;
  int rc = ornic_frame_decode(&f, p, n, ORNIC_LINK_ETHERNET, ORNIC_ROCEV2_UDP_PORT);
  return (rc == ORNIC_OK || rc == ORNIC_ERR_MALFORMED) && f.icrc_present &&
         ornic_icrc_verify(&f, p) == ORNIC_OK;
}

int main(int argc, char **argv) {
  FILE *fp = argc == 3 ? fopen(argv[1], "rb") : NULL;
  if (!fp) return 2;
  size_t skip = (size_t)atoi(argv[2]), len = fread(frame, 1, sizeof frame, fp);
  fclose(fp);
  if (len <= skip || len - skip > 2000 || !consistent(frame + skip, len - skip)) return 2;
  const uint8_t *in = frame + skip;
  len -= skip;
  ornic_mut_cfg cfg;
  ornic_mut_cfg_default(&cfg);
  cfg.seed = 1;
  ornic_mut *m = ornic_mut_new(&cfg);
  if (!m) return 1;
  int ok = 0, changed = 0, kept = 0;
  for (int i = 0; i < 1000; i++) {
    size_t n = ornic_mut_mutate(m, in, len, out, sizeof out);
    ok += consistent(out, n);
    changed += n != len || memcmp(out, in, n) != 0;
  }
  size_t rn = 4; /* a prefix, the frame twice, a pause of 2 bytes */
  memcpy(rec, "cfg!", 4);
  for (int k = 0; k < 3; k++) {
    size_t l = k == 2 ? 2 : len;
    rec[rn++] = (uint8_t)(l >> 8);
    rec[rn++] = (uint8_t)l;
    memcpy(rec + rn, k == 2 ? (const uint8_t *)"\x00\x01" : in, l);
    rn += l;
  }
  for (int i = 0; i < 1000; i++) {
    size_t n = ornic_mut_mutate_records(m, rec, rn, 4, rout, sizeof rout);
    kept += n >= 4 && memcmp(rout, "cfg!", 4) == 0 && ornic_mut_records_count(rout, n, 4, NULL) > 0;
  }
  memcpy(out, in, len);
  out[len - 1] ^= 0xff; /* the iCRC */
  int fixed = ornic_mut_fix(m, out, len) == 1 && consistent(out, len);
  printf(
      "%d of 1000 variants consistent, %d changed; records: %d of 1000 with the prefix; "
      "damaged iCRC %s\n",
      ok, changed, kept, fixed ? "repaired" : "NOT repaired");
  ornic_mut_free(m);
  return ok >= 990 && changed >= 950 && kept == 1000 && fixed ? 0 : 1;
}
