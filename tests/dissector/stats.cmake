# SPDX-License-Identifier: MIT
# Statistics of the ORNIC Wireshark plugin (dissector/ornic_stats.c): test_stats.py, label
# "dissector". Included from CMakeLists.txt here; skips itself as the other dissector tests do.

set(ORNIC_STATS_CHECKS conv filter paths csv tree)

# skip and env: why the tests cannot run here, and the sanitizer runtime to preload
# (set by CMakeLists.txt before it includes this file).
set(stats_skip "${skip}")
set(stats_env "${env}")

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
