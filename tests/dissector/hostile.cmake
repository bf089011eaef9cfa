# SPDX-License-Identifier: MIT
# The plugin on hostile captures (issue 28): test_hostile.py, label "dissector". Included from
# CMakeLists.txt here; skips itself as the other dissector tests do. Its `cost` mode prints the
# CPU table of dissector/README.md and is no test (no timing assertions).

# skip and env: why the tests cannot run here, and the sanitizer runtime to preload
# (set by CMakeLists.txt before it includes this file).
foreach(c budget memory work)
  set(name "dissector_hostile_${c}")
  if(c STREQUAL "memory" AND ORNIC_SANITIZE AND NOT skip)
    # RSS under a sanitizer runtime says nothing of the plugin's: no such test in a
    # sanitizer build (a skip would fail scripts/test.sh under CI=true), as gui.cmake.
    continue()
  elseif(skip)
    add_test(NAME ${name} COMMAND sh -c "echo \"SKIP: $1\"; exit 77" sh "${skip}")
  else()
    add_test(NAME ${name}
             COMMAND ${ORNIC_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_hostile.py
                     --plugin $<TARGET_FILE:ornic_wireshark> --bin ${CMAKE_RUNTIME_OUTPUT_DIRECTORY}
                     --helper $<TARGET_FILE:ornic-test-icrc> ${c})
  endif()
  set_tests_properties(${name} PROPERTIES LABELS dissector TIMEOUT 600 SKIP_RETURN_CODE 77)
  if(env)
    set_tests_properties(${name} PROPERTIES ENVIRONMENT "${env}")
  endif()
endforeach()
