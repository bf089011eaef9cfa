# SPDX-License-Identifier: MIT
# Statistics of the ORNIC Wireshark plugin (dissector/ornic_stats.c): test_stats.py, label
# "dissector". Included from CMakeLists.txt here; skips itself as the other dissector tests do.

set(ORNIC_STATS_CHECKS conv filter paths csv tree)

# Why the tests cannot run here, if they cannot (the same reasons as CMakeLists.txt's).
set(stats_skip "")
set(stats_env "")
if(NOT TARGET ornic_wireshark)
  set(stats_skip "the Wireshark plugin is not built (no Wireshark development files, or ORNIC_BUILD_DISSECTOR=OFF)")
elseif(ORNIC_SANITIZE)
  # The instrumented plugin runs inside the distribution's tshark with clang's
  # shared ASan+UBSan runtime preloaded (dissector/CMakeLists.txt).
  if(ORNIC_TSHARK_PRELOAD AND EXISTS "${ORNIC_TSHARK_PRELOAD}")
    set(stats_env "ORNIC_TSHARK_PRELOAD=${ORNIC_TSHARK_PRELOAD}")
  else()
    set(stats_skip "sanitizer build without clang's shared ASan runtime (build with -DCMAKE_C_COMPILER=clang)")
  endif()
endif()

foreach(c ${ORNIC_STATS_CHECKS})
  set(name "dissector_stats_${c}")
  if(stats_skip)
    add_test(NAME ${name} COMMAND sh -c "echo \"SKIP: $1\"; exit 77" sh "${stats_skip}")
  else()
    add_test(NAME ${name}
             COMMAND ${ORNIC_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_stats.py
                     --plugin $<TARGET_FILE:ornic_wireshark> --bin ${CMAKE_RUNTIME_OUTPUT_DIRECTORY}
                     ${c})
  endif()
  set_tests_properties(${name} PROPERTIES LABELS dissector TIMEOUT 300 SKIP_RETURN_CODE 77)
  if(stats_env)
    set_tests_properties(${name} PROPERTIES ENVIRONMENT "${stats_env}")
  endif()
endforeach()
