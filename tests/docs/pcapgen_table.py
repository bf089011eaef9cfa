#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A Markdown table of ornic-pcapgen runs, from their --summary-json: the tables of pcapgen/README.md and
docs/PROFILES.md are this script's output (tests/docs/doc_check.py regenerates and checks them).

  pcapgen_table.py [--profiles LIST|plot] [--run [LABEL]=OPTIONS]... --metrics M1,M2,... [--transpose]
                   [--first HEADER] [--cross LABEL=OPTIONS]... [-- COMMON OPTIONS]

One run per profile of --profiles (`--profile P`; `plot`: every profile ornic-pcapgen --list-profiles marks
`plot`) and per --run (its OPTIONS split as a shell would; no LABEL: the options in backticks), each with
COMMON OPTIONS first and `-q -o /dev/null`:

* by default a row per run and a column per metric;
* --transpose: a row per metric and a column per run (docs/PROFILES.md's layout);
* --cross: a row per --cross (its OPTIONS added to every run) and a column per run, one metric.

--metrics names (see METRICS): goodput, sim_time, mean, p99, max, mean_p99, packets, bytes, bytes_per_byte,
overhead, overhead_pct, data, retx, acks, naks, timeouts, lost, receiver_drops, dups, blocks, verified,
bytes_per_frame. A metric may be given a header: `goodput=goodput (Gb/s)`."""
import argparse
import json
import shlex
import subprocess
import sys
import tempfile


def caps_of(listing):
    return {line.split("\t")[0]: line.split("\t")[2].split() for line in listing.splitlines() if line}


# name: (default header, formatter of (summary, capabilities of its profile))
METRICS = {
    "goodput": ("goodput (Gb/s)", lambda r, c: "%.2f" % r["goodput_gbps"]),
    "sim_time": ("simulated time (us)", lambda r, c: "%.0f" % r["sim_time_us"]),
    "mean": ("WQE completion mean (us)", lambda r, c: "%.1f" % r["wqe_completion_us"]["mean"]),
    "p99": ("WQE completion p99 (us)", lambda r, c: "%.1f" % r["wqe_completion_us"]["p99"]),
    "max": ("WQE completion max (us)", lambda r, c: "%.1f" % r["wqe_completion_us"]["max"]),
    "mean_p99": ("WQE completion mean / p99 us",
                 lambda r, c: "%.1f / %.1f" % (r["wqe_completion_us"]["mean"], r["wqe_completion_us"]["p99"])),
    "packets": ("packets on the wire", lambda r, c: "%d" % r["packets_on_wire"]),
    "bytes": ("bytes on the wire", lambda r, c: "%d" % r["bytes_on_wire"]),
    "bytes_per_byte": ("bytes on the wire per byte written",
                       lambda r, c: "%.3f" % (r["bytes_on_wire"] / r["bytes_completed"])),
    "overhead": ("header overhead (%)", lambda r, c: "%.2f" % r["header_overhead_pct"]),
    "overhead_pct": ("header overhead", lambda r, c: "%.2f%%" % r["header_overhead_pct"]),
    "data": ("data packets sent", lambda r, c: "%d" % r["data_packets"]),
    "retx": ("retransmissions", lambda r, c: "%d" % r["retransmissions"]),
    "acks": ("ACKs", lambda r, c: "%d" % r["acks"]),
    "naks": ("NAKs / NACKs", lambda r, c: "%d" % r["naks"]),
    "timeouts": ("timeouts", lambda r, c: "%d" % r["timeouts"]),
    "lost": ("packets lost in the fabric", lambda r, c: "%d" % (r["drops_random"] + r["drops_rule"])),
    "receiver_drops": ("dropped by the receiver",
                       lambda r, c: "%d" % r["receiver_drops"] if "receiver-drops" in c else "-"),
    "dups": ("duplicates received", lambda r, c: "%d" % r["duplicates_received"]),
    "blocks": ("most bitmap blocks one QP held",
               lambda r, c: "%d" % r["max_bitmap_blocks_per_qp"] if "bitmap-pool" in c else "-"),
    "verified": ("WQEs verified", lambda r, c: "%d of %d" % (r["wqes_verified"], r["wqes_total"])),
    "bytes_per_frame": ("bytes per captured frame",
                        lambda r, c: "%.1f" % (r["bytes_captured"] / r["packets_captured"])),
    "packets_captured": ("packets captured", lambda r, c: "%d" % r["packets_captured"]),
    "otd": ("OTD", lambda r, c: "%d" % r["otd"]),
}


def main():
    argv = sys.argv[1:]
    common = []
    if "--" in argv:
        common = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pcapgen", default="ornic-pcapgen")
    ap.add_argument("--profiles", help="comma-separated profiles, or `plot`")
    ap.add_argument("--run", action="append", default=[], help="LABEL=OPTIONS")
    ap.add_argument("--cross", action="append", default=[], help="LABEL=OPTIONS")
    ap.add_argument("--metrics", required=True)
    ap.add_argument("--transpose", action="store_true")
    ap.add_argument("--first", default="", help="header of the first column")
    ap.add_argument("--align", default="", help="`right`: numbers right-aligned (---:)")
    args = ap.parse_args(argv)

    listing = subprocess.run([args.pcapgen, "--list-profiles"], check=True, capture_output=True,
                             text=True).stdout
    caps = caps_of(listing)
    runs = []  # (label, options)
    if args.profiles:
        names = [p for p in caps if "plot" in caps[p]] if args.profiles == "plot" else args.profiles.split(",")
        runs += [("`%s`" % p if args.transpose or args.cross else p, ["--profile", p]) for p in names]
    for spec in args.run:
        label, _, opts = spec.partition("=")
        runs.append((label or "`%s`" % opts, shlex.split(opts)))
    metrics = []
    for spec in args.metrics.split(","):
        name, _, header = spec.partition("=")
        metrics.append((header or METRICS[name][0], METRICS[name][1]))
    crosses = [(label, shlex.split(opts)) for label, _, opts in (c.partition("=") for c in args.cross)] or [("", [])]

    def summary(opts):
        with tempfile.NamedTemporaryFile(suffix=".json") as tmp:
            subprocess.run([args.pcapgen, "-q", "-o", "/dev/null"] + common + opts + ["--summary-json", tmp.name],
                           check=True, stdout=subprocess.DEVNULL)
            with open(tmp.name, encoding="utf-8") as f:
                r = json.load(f)
        return r, caps.get(r["profile"], [])

    sep = "---:|" if args.align == "right" else "---|"
    first = " %s " % args.first if args.first else " "
    if args.cross:
        header, fmt = metrics[0]
        print("|%s| %s |" % (first, " | ".join(label for label, _ in runs)))
        print("|---|" + sep * len(runs))
        for clabel, copts in crosses:
            cells = [fmt(*summary(opts + copts)) for _, opts in runs]
            print("| %s | %s |" % (clabel, " | ".join(cells)))
    elif args.transpose:
        results = [summary(opts) for _, opts in runs]
        print("|%s| %s |" % (first, " | ".join(label for label, _ in runs)))
        print("|---|" + sep * len(runs))
        for header, fmt in metrics:
            print("| %s | %s |" % (header, " | ".join(fmt(*r) for r in results)))
    else:
        print("|%s| %s |" % (first, " | ".join(h for h, _ in metrics)))
        print("|---|" + sep * len(metrics))
        for label, opts in runs:
            r = summary(opts)
            print("| %s | %s |" % (label, " | ".join(fmt(*r) for _, fmt in metrics)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
