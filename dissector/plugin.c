/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Entry points Wireshark looks for in a plugin .so: up to 4.4 the exported
 * plugin_version / plugin_want_* / plugin_register (and, from 4.2,
 * plugin_describe); from 4.6 one module description registered by
 * WIRESHARK_PLUGIN_REGISTER_EPAN (wsutil/plugins.h). */
#define WS_BUILD_DLL
#include "ornic_diss.h"

/* 4.0's development files do not ship wsutil/plugins.h; from 4.2 it holds
 * WS_PLUGIN_DESC_DISSECTOR, and from 4.6 the module registration. */
#if ORNIC_WS_AT_LEAST(4, 2)
#include <wsutil/plugins.h>
#endif

#ifndef ORNIC_PLUGIN_VERSION
#define ORNIC_PLUGIN_VERSION "0.0.0"
#endif

void proto_register_ornic(void);
void proto_reg_handoff_ornic(void);

static void register_ornic(void) {
  static proto_plugin plug = {proto_register_ornic, proto_reg_handoff_ornic};
  proto_register_plugin(&plug);
  ornic_register_stats();
}

#ifdef WIRESHARK_PLUGIN_REGISTER
static struct ws_module module = {
    .flags = WS_PLUGIN_DESC_DISSECTOR,
    .version = ORNIC_PLUGIN_VERSION,
    .spdx_id = "GPL-2.0-or-later",
    .home_url = "",
    .blurb = "ORNIC out-of-order RDMA over RoCEv2: opcodes, iCRC, QP analysis",
    .register_cb = &register_ornic,
};
WIRESHARK_PLUGIN_REGISTER_EPAN(&module, 0)
#else
WS_DLL_PUBLIC_DEF const gchar plugin_version[] = ORNIC_PLUGIN_VERSION;
WS_DLL_PUBLIC_DEF const int plugin_want_major = WIRESHARK_VERSION_MAJOR;
WS_DLL_PUBLIC_DEF const int plugin_want_minor = WIRESHARK_VERSION_MINOR;
WS_DLL_PUBLIC void plugin_register(void);
void plugin_register(void) { register_ornic(); }
#ifdef WS_PLUGIN_DESC_DISSECTOR
WS_DLL_PUBLIC uint32_t plugin_describe(void);
uint32_t plugin_describe(void) { return WS_PLUGIN_DESC_DISSECTOR; }
#endif
#endif
