/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The Wireshark API differences between the release lines this plugin builds
 * for (4.0, 4.2, 4.4, 4.6), in one place: every other file of the plugin is
 * written once, against these names. Tested by scripts/wireshark-matrix.sh
 * (4.4, 4.6) and scripts/test.sh (the host's 4.0). The version macros are
 * Wireshark's own (ws_version.h). */
#ifndef ORNIC_COMPAT_H
#define ORNIC_COMPAT_H

#include <ws_version.h>

#define ORNIC_WS_AT_LEAST(maj, min)   \
  (WIRESHARK_VERSION_MAJOR > (maj) || \
   (WIRESHARK_VERSION_MAJOR == (maj) && WIRESHARK_VERSION_MINOR >= (min)))

/* 4.2 moved epan's boolean preferences and callbacks from gboolean to C's bool
 * (GCC 14 makes passing a gboolean * an error). */
#if ORNIC_WS_AT_LEAST(4, 2)
typedef bool ornic_ws_bool;
#else
typedef gboolean ornic_ws_bool;
#endif

/* 4.2 gave conversation filters a user_data argument, at registration and in
 * both callbacks. ORNIC_CONV_FILTER_ARGS is the callbacks' parameter list. */
#if ORNIC_WS_AT_LEAST(4, 2)
#define ORNIC_CONV_FILTER_ARGS packet_info *pinfo, void *user_data _U_
#define ornic_register_conversation_filter(proto, name, valid, build) \
  register_conversation_filter(proto, name, valid, build, NULL)
#else
#define ORNIC_CONV_FILTER_ARGS packet_info *pinfo
#define ornic_register_conversation_filter(proto, name, valid, build) \
  register_conversation_filter(proto, name, valid, build)
#endif

/* 4.6 lets a tap's init callback (-z NAME) report failure: it returns bool. */
#if ORNIC_WS_AT_LEAST(4, 6)
typedef bool ornic_tap_init_ret;
#define ORNIC_TAP_INIT_RETURN(ok) return (ok)
#else
typedef void ornic_tap_init_ret;
#define ORNIC_TAP_INIT_RETURN(ok) return
#endif

/* ---- Service Response Time and Follow (ornic_srt.c, ornic_follow.c) ------- */
/* The SRT framework (epan/srt_table.h) is the same from 4.0 to 4.6 but for
 * GLib type names. 4.2 gave register_follow_stream two more callbacks: the
 * number of streams (the Follow dialog's stream number range) and sub-stream
 * ids (HTTP/2, QUIC; NULL: none). 4.0 has no stream count: it is dropped. */
#if ORNIC_WS_AT_LEAST(4, 2)
#define ornic_register_follow_stream(proto, tap, conv, index, addr, port, handler, count) \
  register_follow_stream(proto, tap, conv, index, addr, port, handler, count, NULL)
#else
#define ornic_register_follow_stream(proto, tap, conv, index, addr, port, handler, count) \
  ((void)(count), register_follow_stream(proto, tap, conv, index, addr, port, handler))
#endif

#endif
