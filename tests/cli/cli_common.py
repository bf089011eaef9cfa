# SPDX-License-Identifier: MIT
"""What the CLI tests share: named checks counted across a run, and the closing line."""
import sys


class Checks:
    def __init__(self):
        self.passed, self.failures = 0, []

    def check(self, name, cond, what):
        if cond:
            self.passed += 1
        else:
            self.failures.append(f"{name}: {what}")
        return cond

    def report(self):
        """Prints each failure and the 'N checks passed, N failed' line; 1 on a failure."""
        for f in self.failures:
            print("FAIL:", f, file=sys.stderr)
        print(f"{self.passed} checks passed, {len(self.failures)} failed")
        return 1 if self.failures else 0
