# SPDX-License-Identifier: MIT
# The plugin on hostile captures (issue 28): test_hostile.py, label "dissector". Included from
# CMakeLists.txt here; skips itself as the other dissector tests do. Its `cost` mode prints the
# CPU table of dissector/README.md and is no test (no timing assertions).

# skip and env: why the tests cannot run here, and the sanitizer runtime to preload
# (set by CMakeLists.txt before it includes this file).
set(cases budget memory work)
if(ORNIC_SANITIZE AND NOT skip)
  # RSS under a sanitizer runtime says nothing of the plugin's: no such test in a
  # sanitizer build (a skip would fail scripts/test.sh under CI=true), as gui.cmake.
  list(REMOVE_ITEM cases memory)
endif()
ornic_dissector_script_tests(hostile_ test_hostile.py 600 HELPER CASES ${cases})
