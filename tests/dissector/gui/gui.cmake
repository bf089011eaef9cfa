# SPDX-License-Identifier: MIT
# Tests of the Wireshark configuration profile ORNIC (dissector/profile/ORNIC) and of the GUI,
# labels "dissector;gui"; included from tests/dissector/CMakeLists.txt. test_gui.py says more.
#
#   dissector_gui_profile  tshark, deterministic: the profile as install-wireshark-plugin
#                          installs it is found (-C ORNIC); columns, ornic.* preferences at
#                          the plugin's defaults, coloring rules on a NAK / retransmission /
#                          bad iCRC / OOO trace, -z help, the shipped I/O graphs' data, the
#                          system install's global profile (cmake --install, ORNIC_INSTALL)
#   dissector_gui_screens  Wireshark under Xvfb: screenshots in BUILD/tests/dissector/gui-artefacts
#                          (packet list, NAK details, ORNIC conversations, Follow ORNIC Stream
#                          from 4.2 on, RC packet list, Service Response Time, PSN I/O Graph);
#                          on the Wireshark docs/screenshots were taken with (its
#                          wireshark-version: 4.6, the matrix's sid root) each must equal the
#                          committed one byte for byte; skipped (77) without Xvfb, wireshark,
#                          xdotool or ImageMagick
#
# `cmake --build BUILD --target dissector-screenshots` runs the screens into docs/screenshots.

set(_gui_dir ${CMAKE_CURRENT_LIST_DIR})
set(_gui_out ${CMAKE_CURRENT_BINARY_DIR}/gui-artefacts)
# skip and env (tests/dissector/CMakeLists.txt, which includes this file): why the
# plugin's tests cannot run here, and the sanitizer runtime tshark preloads; in a
# sanitizer build tshark runs the instrumented plugin, the Qt GUI does not.
set(_gui_skip "${skip}")
set(_gui_env "${env}")
if(NOT _gui_skip AND NOT TARGET ornic-pcapgen)
  set(_gui_skip "ornic-pcapgen is not built (ORNIC_BUILD_TOOLS=OFF)")
endif()

if(ORNIC_WS_PLUGIN_SUBDIR)
  set(_gui_subdir ${ORNIC_WS_PLUGIN_SUBDIR})
else()
  set(_gui_subdir wireshark/plugins/4.0/epan)
endif()
string(REGEX REPLACE "^wireshark/plugins/([0-9.]+)/epan$" "\\1" _gui_wsver "${_gui_subdir}")
set(_gui_args
    --plugin $<TARGET_FILE:ornic_wireshark> --bin ${CMAKE_RUNTIME_OUTPUT_DIRECTORY}
    --profile ${PROJECT_SOURCE_DIR}/dissector/profile/ORNIC
    --install-script ${PROJECT_SOURCE_DIR}/dissector/install_personal.cmake
    --subdir ${_gui_subdir} --ws-version ${_gui_wsver} --cmake ${CMAKE_COMMAND})
set(_gui_install "")
if(ORNIC_INSTALL)
  set(_gui_install --build ${PROJECT_BINARY_DIR})
endif()

foreach(_gui_mode profile screens)
  set(_gui_name dissector_gui_${_gui_mode})
  if(_gui_skip)
    add_test(NAME ${_gui_name} COMMAND sh -c "echo \"SKIP: $1\"; exit 77" sh "${_gui_skip}")
  elseif(_gui_mode STREQUAL "screens" AND ORNIC_SANITIZE)
    # The Qt GUI does not run the instrumented plugin: no such test in a sanitizer build
    # (a skip would fail scripts/test.sh under CI=true).
    continue()
  else()
    set(_gui_expect)
    if(_gui_mode STREQUAL "screens")
      set(_gui_expect --expect ${PROJECT_SOURCE_DIR}/docs/screenshots)
    endif()
    add_test(NAME ${_gui_name}
             COMMAND ${ORNIC_PYTHON} ${_gui_dir}/test_gui.py ${_gui_args} ${_gui_install}
                     --out ${_gui_out} --budget 120 ${_gui_expect} ${_gui_mode})
  endif()
  # 130 s in all: the screens test keeps its own budget of 120 s (three Wireshark
  # instances, seven screenshots: about 40-50 s on this project's 2-core machine), and
  # every process it starts runs under timeout(1) with what is left of it.
  set_tests_properties(${_gui_name} PROPERTIES LABELS "dissector;gui" TIMEOUT 130
                       SKIP_RETURN_CODE 77)
  if(_gui_env)
    set_tests_properties(${_gui_name} PROPERTIES ENVIRONMENT "${_gui_env}")
  endif()
endforeach()

if(NOT _gui_skip AND NOT ORNIC_SANITIZE)
  add_custom_target(dissector-screenshots
    COMMAND ${ORNIC_PYTHON} ${_gui_dir}/test_gui.py ${_gui_args} --out ${_gui_out}
            --docs ${PROJECT_SOURCE_DIR}/docs/screenshots --strict screens
    DEPENDS ornic_wireshark ornic-pcapgen
    COMMENT "Wireshark screenshots (Xvfb) into docs/screenshots"
    VERBATIM)
endif()
