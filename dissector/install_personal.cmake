# SPDX-License-Identifier: GPL-2.0-or-later
# `cmake --build BUILD --target install-wireshark-plugin` runs this script
# (cmake -P), so that $ENV{HOME} is read when the target runs, in the
# environment of whoever runs it, not when the build was configured.
#   -DPLUGIN=<path of ornic.so> -DSUBDIR=<plugins/X.Y/epan>
if(NOT PLUGIN OR NOT SUBDIR)
  message(FATAL_ERROR "install_personal.cmake: PLUGIN and SUBDIR are required")
endif()
if("$ENV{HOME}" STREQUAL "")
  message(FATAL_ERROR "install-wireshark-plugin: HOME is not set: no personal plugin folder")
endif()
set(dest "$ENV{HOME}/.local/lib/${SUBDIR}")
file(MAKE_DIRECTORY "${dest}")
file(COPY "${PLUGIN}" DESTINATION "${dest}")
message(STATUS "installed ${dest}/ornic.so")
