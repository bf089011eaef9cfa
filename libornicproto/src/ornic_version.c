/* SPDX-License-Identifier: MIT */
/* The library's version at run time (ornic/version.h). */
#include "ornic/version.h"

const char *ornic_version(void) { return ORNIC_VERSION_STRING; }

uint32_t ornic_version_number(void) { return (uint32_t)ORNIC_VERSION_NUMBER; }
