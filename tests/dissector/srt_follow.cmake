# SPDX-License-Identifier: MIT
# Service Response Time (-z ornic,srt) and Follow ORNIC QP stream (-z follow,ornic) of the ORNIC
# Wireshark plugin (dissector/ornic_srt.c, ornic_follow.c): test_srt_follow.py, label "dissector".
# Included from CMakeLists.txt here; skips itself as the other dissector tests do (skip and env:
# set by CMakeLists.txt before it includes this file).

ornic_dissector_script_tests("" test_srt_follow.py 300 CASES srt follow)
