/* SPDX-License-Identifier: MIT */
/* libornicproto: byte-exact codec for RoCEv2 and the ORNIC out-of-order extension.
 * The wire format is specified in docs/PROTOCOL.md. */
#ifndef ORNIC_ORNIC_H
#define ORNIC_ORNIC_H

#include "ornic/analysis.h"
#include "ornic/cm.h"
#include "ornic/errors.h"
#include "ornic/frame.h"
#include "ornic/headers.h"
#include "ornic/ib.h"
#include "ornic/icrc.h"
#include "ornic/layout.h"
#include "ornic/lint.h"
#include "ornic/opcode.h"
#include "ornic/pause.h"
#include "ornic/psn.h"
#include "ornic/sizing.h"
#include "ornic/version.h"

#endif
