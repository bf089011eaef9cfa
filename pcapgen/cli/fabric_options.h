/* SPDX-License-Identifier: MIT */
/* The incast options (issue 31; pcapgen/fabric/README.md): N senders behind
 * a switch whose egress queue feeds the receiver.
 *
 *   --senders N          1-256: N:1 incast (sim_config.incast), 0 (default) none
 *   --switch-buffer SIZE the egress queue's buffer, suffixes K M
 *   --ecn KMIN,KMAX,PMAX RED-style ECN marking; --ecn off
 *   --dcqcn on|off       DCQCN at the NICs (default on)
 *   --pfc on|off         802.1Qbb pause of priority 3 (default off)
 *   --pfc-xoff SIZE, --pfc-xon SIZE   per ingress port
 *   --switch-delay-us US the switch-receiver hop
 *
 * They work as scenario lines too. Their codes are long_opts values of
 * options.c; options.c hands them here. */
#ifndef PCAPGEN_FABRIC_OPTIONS_H
#define PCAPGEN_FABRIC_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

#include "options.h"

/* The option codes (getopt_long values), past options.c's. */
enum {
  FO_SENDERS = 1000,
  FO_SWITCH_BUFFER,
  FO_ECN,
  FO_DCQCN,
  FO_PFC,
  FO_PFC_XOFF,
  FO_PFC_XON,
  FO_SWITCH_DELAY
};

/* options.incast_given: which were given (the others take their defaults). */
enum {
  FO_GIVEN_BUFFER = 1u << 0,
  FO_GIVEN_ECN = 1u << 1,
  FO_GIVEN_DCQCN = 1u << 2,
  FO_GIVEN_PFC = 1u << 3,
  FO_GIVEN_XOFF = 1u << 4,
  FO_GIVEN_XON = 1u << 5,
  FO_GIVEN_DELAY = 1u << 6,
  FO_GIVEN_ANY = 0x7f
};

/* Applies option c (an FO_* code) with its value: 0, -1 with the message on
 * err, or 1 when c is not one of them. */
int fabric_option_apply(options *o, int c, const char *value, FILE *err);

/* After every option: defaults, ranges against each other and against the
 * options an incast run cannot take. loss_given: --loss was given (an incast
 * run's default is 0). 0, or -1 with the message on err. */
int fabric_options_finish(options *o, bool loss_given, FILE *err);

/* --help's lines for them, in the Network group. */
void fabric_options_usage(FILE *f);

#endif
