#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Parameter sweeps over ornic-pcapgen: every combination of the values given,
each run with several seeds, summarised per combination with the mean, the
sample standard deviation and a 95% confidence interval of the mean (Student's
t), as CSV or JSON lines.

    scripts/sweep.py --pcapgen build/bin/ornic-pcapgen \\
        --vary profile=ornic,roce --vary loss=0,0.001,0.01 --seeds 5 \\
        --metrics goodput_gbps,retransmissions -o sweep.csv -- --wqes 8 --wqe-size 256K

--vary NAME=V1,V2,... gives `--NAME Vi` to ornic-pcapgen (any of its options:
profile, loss, delay-spread-us, pmtu, wqe-size, otd, paths, reorder-max, ...).
Arguments after `--` go to every run. Seeds are 1..N (or --seed-list). Every
run's summary (ornic-pcapgen --summary-json, capture to /dev/null) can be kept
with --raw FILE (JSON lines: the parameters, the seed, the summary without its
per-frame "truth"). Runs go in parallel (-j, default the number of CPUs); the
output does not depend on -j. Exit: 0, 1 when a run failed (its stderr is
shown), 2 on a bad command line.
"""
import argparse
import csv
import itertools
import json
import math
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

# Two-sided 95% quantiles of Student's t for 1..30 degrees of freedom; beyond,
# the normal's 1.96 is within 2% of the exact value.
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
        2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
        2.060, 2.056, 2.052, 2.048, 2.045, 2.042]

DEFAULT_METRICS = ["goodput_gbps", "wqe_completion_us", "retransmissions", "naks", "timeouts",
                   "duplicates_received", "max_bitmap_blocks_per_qp"]


def t975(df):
    return T975[df - 1] if df <= len(T975) else 1.96


def summarise(values):
    """n, mean, sd, CI half-width, min, max of a list of numbers."""
    n = len(values)
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
    half = t975(n - 1) * sd / math.sqrt(n) if n > 1 else float("nan")
    return {"n": n, "mean": mean, "sd": sd, "ci95_lo": mean - half, "ci95_hi": mean + half,
            "min": min(values), "max": max(values)}


def parse_vary(items):
    grid = []
    for item in items:
        name, eq, values = item.partition("=")
        if not eq or not name or not values:
            raise SystemExit(f"sweep: --vary wants NAME=V1,V2,..., got '{item}'")
        grid.append((name.lstrip("-"), values.split(",")))
    return grid


def run_one(pcapgen, params, seed, extra, tmpdir):
    fd, path = tempfile.mkstemp(suffix=".json", dir=tmpdir)
    os.close(fd)
    cmd = [pcapgen, "-o", "/dev/null", "--summary-json", path, "--seed", str(seed)]
    for name, value in params:
        cmd += [f"--{name}", value]
    cmd += extra
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        if proc.returncode != 0:
            return cmd, None, proc.stderr
        with open(path) as f:
            summary = json.load(f)
        summary.pop("truth", None)
        return cmd, summary, None
    finally:
        os.unlink(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pcapgen", default="build/bin/ornic-pcapgen")
    ap.add_argument("--vary", action="append", default=[], metavar="NAME=V1,V2,...")
    ap.add_argument("--seeds", type=int, default=5, help="seeds 1..N (default 5)")
    ap.add_argument("--seed-list", help="comma-separated seeds instead of 1..N")
    ap.add_argument("--metrics", default=",".join(DEFAULT_METRICS),
                    help="summary keys to aggregate (numbers)")
    ap.add_argument("--format", choices=["csv", "jsonl"], default="csv")
    ap.add_argument("-o", "--output", help="file to write (default standard output)")
    ap.add_argument("--raw", help="also write every run's summary as JSON lines here")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("extra", nargs=argparse.REMAINDER, help="-- then options for every run")
    try:
        a = ap.parse_args()
    except SystemExit as e:
        sys.exit(2 if e.code else 0)
    extra = a.extra[1:] if a.extra[:1] == ["--"] else a.extra
    try:
        grid = parse_vary(a.vary)
        seeds = ([int(s, 0) for s in a.seed_list.split(",")] if a.seed_list
                 else list(range(1, a.seeds + 1)))
    except (SystemExit, ValueError) as e:
        print(e if isinstance(e, SystemExit) else f"sweep: bad seed list: {e}", file=sys.stderr)
        sys.exit(2)
    if not seeds or a.jobs < 1:
        print("sweep: need at least one seed and one job", file=sys.stderr)
        sys.exit(2)
    if not os.access(a.pcapgen, os.X_OK):
        print(f"sweep: {a.pcapgen}: not an executable (use --pcapgen)", file=sys.stderr)
        sys.exit(2)
    metrics = [m for m in a.metrics.split(",") if m]
    names = [n for n, _ in grid]
    combos = [list(zip(names, values)) for values in itertools.product(*[v for _, v in grid])]

    jobs = [(c, s) for c in combos for s in seeds]
    with tempfile.TemporaryDirectory(prefix="sweep-") as tmp, ThreadPoolExecutor(a.jobs) as pool:
        results = list(pool.map(lambda js: run_one(a.pcapgen, js[0], js[1], extra, tmp), jobs))
    failed = [(cmd, err) for cmd, summary, err in results if summary is None]
    for cmd, err in failed:
        print(f"sweep: run failed: {' '.join(cmd)}\n{err}", file=sys.stderr)

    if a.raw:
        with open(a.raw, "w") as f:
            for (combo, seed), (_, summary, _) in zip(jobs, results):
                if summary is not None:
                    f.write(json.dumps({"params": dict(combo), "seed": seed, "summary": summary}) + "\n")

    rows = []
    for combo in combos:
        runs = [summary for (c, _), (_, summary, _) in zip(jobs, results)
                if c == combo and summary is not None]
        row = dict(combo)
        row["runs"] = len(runs)
        for m in metrics:
            vals = [r[m] for r in runs if isinstance(r.get(m), (int, float))]
            if not vals:
                continue
            for k, v in summarise(vals).items():
                if k != "n":
                    row[f"{m}.{k}"] = round(v, 6) if isinstance(v, float) and math.isfinite(v) else v
        rows.append(row)

    out = open(a.output, "w", newline="") if a.output else sys.stdout
    try:
        if a.format == "jsonl":
            for row in rows:
                out.write(json.dumps(row) + "\n")
        else:
            keys = []
            for row in rows:
                keys += [k for k in row if k not in keys]
            w = csv.DictWriter(out, fieldnames=keys)
            w.writeheader()
            w.writerows(rows)
    finally:
        if a.output:
            out.close()
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
