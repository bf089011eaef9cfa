#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""scripts/sweep.py: one row per combination, statistics that agree with the
runs it kept (recomputed here with the statistics module), output that does
not depend on -j, and exit 2 on a bad command line.
Usage: test_sweep.py PCAPGEN WORKDIR"""
import csv
import json
import math
import os
import shutil
import statistics
import subprocess
import sys

pcapgen, work = sys.argv[1], sys.argv[2]
sweep = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../scripts/sweep.py")
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
failures = 0


def check(cond, what):
    global failures
    print(("ok: " if cond else "FAIL: ") + what)
    failures += not cond


def run(*args):
    return subprocess.run([sys.executable, sweep, "--pcapgen", pcapgen, *args],
                          capture_output=True, text=True)


base = ["--vary", "profile=ornic,roce", "--vary", "loss=0,0.02", "--seeds", "4",
        "--metrics", "goodput_gbps,retransmissions"]
extra = ["--", "--wqes", "2", "--wqe-size", "32K", "--pmtu", "1024"]
raw = os.path.join(work, "raw.jsonl")
p1 = run(*base, "-j", "1", "--raw", raw, "-o", os.path.join(work, "j1.csv"), *extra)
p2 = run(*base, "-j", "2", "-o", os.path.join(work, "j2.csv"), *extra)
check(p1.returncode == 0 and p2.returncode == 0, f"both sweeps exit 0 ({p1.returncode}, {p2.returncode}) {p1.stderr}")
rows = list(csv.DictReader(open(os.path.join(work, "j1.csv"))))
check(open(os.path.join(work, "j1.csv")).read() == open(os.path.join(work, "j2.csv")).read(),
      "-j 1 and -j 2 write the same bytes")
check(len(rows) == 4, f"4 combinations, got {len(rows)}")
check({(r["profile"], r["loss"]) for r in rows} ==
      {("ornic", "0"), ("ornic", "0.02"), ("roce", "0"), ("roce", "0.02")}, "every combination once")
runs = [json.loads(line) for line in open(raw)]
check(len(runs) == 16, f"16 runs kept, got {len(runs)}")
check(sorted({r["seed"] for r in runs}) == [1, 2, 3, 4], "seeds 1..4")
for r in rows:
    mine = [x["summary"] for x in runs if x["params"] == {"profile": r["profile"], "loss": r["loss"]}]
    check(all(x["profile"] == r["profile"] for x in mine), f"{r['profile']}/{r['loss']}: runs used the profile")
    for m in ("goodput_gbps", "retransmissions"):
        v = [x[m] for x in mine]
        mean, sd = statistics.mean(v), statistics.stdev(v)
        half = 3.182 * sd / math.sqrt(4)  # t(0.975, 3 df)
        ok = (math.isclose(float(r[f"{m}.mean"]), mean, abs_tol=1e-5) and
              math.isclose(float(r[f"{m}.sd"]), sd, abs_tol=1e-5) and
              math.isclose(float(r[f"{m}.ci95_lo"]), mean - half, abs_tol=1e-5) and
              math.isclose(float(r[f"{m}.ci95_hi"]), mean + half, abs_tol=1e-5) and
              float(r[f"{m}.min"]) == min(v) and float(r[f"{m}.max"]) == max(v))
        check(ok, f"{r['profile']}/{r['loss']} {m}: mean {mean:.4g}, sd {sd:.4g}, 95% CI as recomputed")
# Go-back-N retransmits more than selective repeat under loss: the sweep sees the profiles differ.
by = {(r["profile"], r["loss"]): float(r["retransmissions.mean"]) for r in rows}
check(by[("roce", "0.02")] > by[("ornic", "0.02")], "roce retransmits more than ornic at 2% loss")
jl = run("--vary", "pmtu=1024,4096", "--seeds", "2", "--format", "jsonl", "--", "--wqes", "1", "--wqe-size", "16K")
lines = [json.loads(x) for x in jl.stdout.splitlines()]
check(jl.returncode == 0 and [x["pmtu"] for x in lines] == ["1024", "4096"] and all(x["runs"] == 2 for x in lines),
      "JSON lines: one object per combination")
for bad in (["--vary", "loss"], ["--seeds", "0"], ["--seed-list", "x"], ["--nope"]):
    check(run(*bad).returncode == 2, f"{' '.join(bad)}: exit 2")
bad_run = run("--vary", "pmtu=999", "--seeds", "1")
check(bad_run.returncode == 1 and "run failed" in bad_run.stderr, "a failing run: exit 1, its command shown")
print(f"{failures} failed")
sys.exit(1 if failures else 0)
