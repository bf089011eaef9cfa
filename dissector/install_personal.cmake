# SPDX-License-Identifier: GPL-2.0-or-later
# `cmake --build BUILD --target install-wireshark-plugin` runs this script
# (cmake -P), so that $ENV{HOME} is read when the target runs, in the
# environment of whoever runs it, not when the build was configured.
#   -DPLUGIN=<path of ornic.so> -DSUBDIR=<plugins/X.Y/epan>
#   -DPROFILE=<folder of the configuration profile to install> (optional)
#
# The profile goes where Wireshark looks for personal profiles (wsutil's
# get_persconffile_dir_no_profile): $WIRESHARK_CONFIG_DIR if set; else
# $XDG_CONFIG_HOME/wireshark (default ~/.config/wireshark) if it is a folder;
# else ~/.wireshark if that is one; else $XDG_CONFIG_HOME/wireshark. A profile
# file the user changed since (Wireshark rewrites `preferences` when a
# preference is changed in the profile) is kept, with a message; with the
# environment variable ORNIC_PROFILE_OVERWRITE=1 it is replaced and the old one
# kept as FILE.bak.
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

if(NOT PROFILE)
  return()
endif()
if(NOT IS_DIRECTORY "${PROFILE}")
  message(FATAL_ERROR "install_personal.cmake: PROFILE ${PROFILE} is not a folder")
endif()
if(NOT "$ENV{WIRESHARK_CONFIG_DIR}" STREQUAL "")
  set(conf "$ENV{WIRESHARK_CONFIG_DIR}")
else()
  if(NOT "$ENV{XDG_CONFIG_HOME}" STREQUAL "")
    set(conf "$ENV{XDG_CONFIG_HOME}/wireshark")
  else()
    set(conf "$ENV{HOME}/.config/wireshark")
  endif()
  if(NOT IS_DIRECTORY "${conf}" AND IS_DIRECTORY "$ENV{HOME}/.wireshark")
    set(conf "$ENV{HOME}/.wireshark")
  endif()
endif()
get_filename_component(name "${PROFILE}" NAME)
set(pdest "${conf}/profiles/${name}")
file(MAKE_DIRECTORY "${pdest}")
file(GLOB files RELATIVE "${PROFILE}" "${PROFILE}/*")
list(SORT files)
set(kept "")
foreach(f ${files})
  if(IS_DIRECTORY "${PROFILE}/${f}")
    continue()
  endif()
  if(EXISTS "${pdest}/${f}")
    file(SHA256 "${PROFILE}/${f}" new)
    file(SHA256 "${pdest}/${f}" old)
    if(new STREQUAL old)
      continue()
    endif()
    if("$ENV{ORNIC_PROFILE_OVERWRITE}" STREQUAL "1")
      file(RENAME "${pdest}/${f}" "${pdest}/${f}.bak")
    else()
      list(APPEND kept "${f}")
      continue()
    endif()
  endif()
  file(COPY "${PROFILE}/${f}" DESTINATION "${pdest}")
endforeach()
message(STATUS "installed the Wireshark configuration profile ${pdest}")
if(kept)
  string(REPLACE ";" ", " kept "${kept}")
  message(STATUS "  kept your changed ${kept} (ORNIC_PROFILE_OVERWRITE=1 replaces them, "
                 "keeping FILE.bak; the shipped files are in ${PROFILE})")
endif()
