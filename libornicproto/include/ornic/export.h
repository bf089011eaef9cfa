/* SPDX-License-Identifier: MIT */
/* ORNIC_API marks the functions libornicproto exports from its shared
 * library. Everything else is compiled with hidden visibility
 * (-fvisibility=hidden), so that only the documented API can be linked
 * against and the ABI is exactly what the headers declare (README.md, "ABI
 * policy"). On ELF the same attribute is right for the static library and
 * for callers; no ORNIC_STATIC switch is needed. */
#ifndef ORNIC_EXPORT_H
#define ORNIC_EXPORT_H

#if defined(__GNUC__) && __GNUC__ >= 4
#define ORNIC_API __attribute__((visibility("default")))
#else
#define ORNIC_API
#endif

#endif
