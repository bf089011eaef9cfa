# SPDX-License-Identifier: MIT
# Statistics of the ORNIC Wireshark plugin (dissector/ornic_stats.c): test_stats.py, label
# "dissector". Included from CMakeLists.txt here; skips itself as the other dissector tests do.

set(ORNIC_STATS_CHECKS conv filter paths csv tree)

# skip and env (set by CMakeLists.txt before it includes this file): the helper's.
ornic_dissector_script_tests(stats_ test_stats.py 300 CASES ${ORNIC_STATS_CHECKS})
