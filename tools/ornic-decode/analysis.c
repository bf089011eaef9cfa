/* Packet -> engine input. The engine keys packets by the IP (or GRH)
 * addresses of the decoded frame and the BTH DestQP. */
#include "analysis.h"

/* Every extension header the opcode carries was read: a snaplen cut may end
 * inside them, and the engine must then not trust what is missing. */
static bool headers_complete(const dec_packet *pk) {
  if (pk->rc == ORNIC_OK) return true;
  const ornic_opcode_info *op = ornic_opcode_info_get(pk->f.bth.opcode);
  return op->name && (pk->f.decoded & op->hdrs) == op->hdrs;
}

void dec_analyse(ornic_analysis *a, dec_packet *pk) {
  pk->analysed = false;
  if (pk->cls != DEC_CLASS_ROCE || !pk->has_bth || pk->error) return;
  ornic_an_input in = {.frame = pk->frame,
                       .sec = pk->sec,
                       .nsec = pk->nsec,
                       .f = &pk->f,
                       .headers_complete = headers_complete(pk)};
  pk->analysed = ornic_analysis_add(a, &in, &pk->an) == ORNIC_OK;
}

const char *dec_an_dir_key(unsigned dir) { return dir == ORNIC_AN_DIR_BA ? "b_to_a" : "a_to_b"; }

const char *dec_an_role_key(unsigned role) {
  switch (role) {
  case ORNIC_AN_ROLE_REQUEST: return "request";
  case ORNIC_AN_ROLE_RESPONSE: return "response";
  case ORNIC_AN_ROLE_CNP: return "cnp";
  default: return "none";
  }
}
