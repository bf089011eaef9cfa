# SPDX-License-Identifier: MIT
# FindISAL: Intel ISA-L (libisal), libornicproto's fast CRC-32 backend.
# Installed beside ornicprotoConfig.cmake, which finds ISA-L with it for the
# static library's consumers. pkg-config is used for hints when present but
# is not required (libisal ships a .pc file, no CMake package).
#
# Result: ISAL_FOUND, ISAL_INCLUDE_DIR, ISAL_LIBRARY, ISAL_VERSION (when
# pkg-config knows it) and the imported target ISAL::ISAL.
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(PC_ISAL QUIET libisal)
endif()
find_path(ISAL_INCLUDE_DIR isa-l/crc.h HINTS ${PC_ISAL_INCLUDE_DIRS})
find_library(ISAL_LIBRARY NAMES isal HINTS ${PC_ISAL_LIBRARY_DIRS})
if(PC_ISAL_VERSION)
  set(ISAL_VERSION ${PC_ISAL_VERSION})
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(ISAL REQUIRED_VARS ISAL_LIBRARY ISAL_INCLUDE_DIR VERSION_VAR ISAL_VERSION)
mark_as_advanced(ISAL_INCLUDE_DIR ISAL_LIBRARY)

if(ISAL_FOUND AND NOT TARGET ISAL::ISAL)
  add_library(ISAL::ISAL UNKNOWN IMPORTED)
  set_target_properties(ISAL::ISAL PROPERTIES
    IMPORTED_LOCATION "${ISAL_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${ISAL_INCLUDE_DIR}")
endif()
