# SPDX-License-Identifier: MIT
"""What tests/reliability's Python tests share: one line per check, and the
exit status they end with."""
import sys

fails = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        fails.append(what)


def finish():
    print(f"{len(fails)} failed" if fails else "all passed")
    sys.exit(1 if fails else 0)
