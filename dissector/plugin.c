/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Entry points Wireshark looks for in a plugin .so. */
#define WS_BUILD_DLL
#include "ornic_diss.h"

#include <ws_version.h>

#ifndef ORNIC_PLUGIN_VERSION
#define ORNIC_PLUGIN_VERSION "0.0.0"
#endif

void proto_register_ornic(void);
void proto_reg_handoff_ornic(void);

WS_DLL_PUBLIC_DEF const gchar plugin_version[] = ORNIC_PLUGIN_VERSION;
WS_DLL_PUBLIC_DEF const int plugin_want_major = WIRESHARK_VERSION_MAJOR;
WS_DLL_PUBLIC_DEF const int plugin_want_minor = WIRESHARK_VERSION_MINOR;

WS_DLL_PUBLIC void plugin_register(void);

void plugin_register(void) {
  static proto_plugin plug = {proto_register_ornic, proto_reg_handoff_ornic};
  proto_register_plugin(&plug);
  ornic_register_stats();
}
