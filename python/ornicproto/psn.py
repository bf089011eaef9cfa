# SPDX-License-Identifier: MIT
"""24-bit PSN arithmetic (docs/PROTOCOL.md section 1), as libornicproto's ornic/psn.h."""

PSN_MASK = 0xFFFFFF
PSN_HALF = 0x800000


def psn_add(a, n):
    """a + n, wrapped to 24 bits (n may be negative)."""
    return (a + n) & PSN_MASK


def psn_diff(b, a):
    """Signed distance b - a in (-2^23, 2^23]: positive when b is after a."""
    d = (b - a) & PSN_MASK
    return d - (PSN_MASK + 1) if d > PSN_HALF else d


def psn_runs(psns):
    """Consecutive runs of a PSN list in its order: [(first, count), ...] (wrapping 0xFFFFFF -> 0)."""
    runs = []
    for p in psns:
        if runs and psn_add(runs[-1][0], runs[-1][1]) == p:
            runs[-1][1] += 1
        else:
            runs.append([p, 1])
    return [tuple(r) for r in runs]
