# SPDX-License-Identifier: MIT
# Service Response Time (-z ornic,srt) and Follow ORNIC QP stream (-z follow,ornic) of the ORNIC
# Wireshark plugin (dissector/ornic_srt.c, ornic_follow.c): test_srt_follow.py, label "dissector".
# Included from CMakeLists.txt here; skips itself as the other dissector tests do (skip and env:
# set by CMakeLists.txt before it includes this file).

foreach(c srt follow)
  set(name "dissector_${c}")
  if(skip)
    add_test(NAME ${name} COMMAND sh -c "echo \"SKIP: $1\"; exit 77" sh "${skip}")
  else()
    add_test(NAME ${name}
             COMMAND ${ORNIC_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_srt_follow.py
                     --plugin $<TARGET_FILE:ornic_wireshark> --bin ${CMAKE_RUNTIME_OUTPUT_DIRECTORY}
                     ${c})
  endif()
  set_tests_properties(${name} PROPERTIES LABELS dissector TIMEOUT 300 SKIP_RETURN_CODE 77)
  if(env)
    set_tests_properties(${name} PROPERTIES ENVIRONMENT "${env}")
  endif()
endforeach()
