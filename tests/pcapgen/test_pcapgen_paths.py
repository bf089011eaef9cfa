#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""End-to-end tests of ornic-pcapgen, the fabric as a list of paths and their events in time
(issue 31): --path gives each path its delay, rate and loss (seen in the capture's timestamps
and in the truth), a list equal to the uniform set changes nothing, --path-event fails a path
(a black hole) or degrades it for a while, the summary's per-path counts and goodput phases,
the option errors, and ornic-decode on captures of a failed path.

Usage: test_pcapgen_paths.py --case NAME --pcapgen BIN [--decoder BIN] --workdir DIR
(pcapgen_common.py). Exit 0 pass, 1 fail, 77 skip (a required tool is missing)."""
import json
import os
import subprocess
import sys
from decimal import Decimal

from pcapgen_common import HOST_A, check, data_pkts, main, need

SPORT_BASE = 0xC000
WIRE_EXTRA = 24  # preamble + SFD, FCS, inter-frame gap (sim/net.h)


def ns(p):
    """A decoded frame's timestamp in nanoseconds (exact: the text has nine decimals)."""
    return int(Decimal(p["time"]) * 10**9)


def same_file(env, a, b):
    return open(env.path(a), "rb").read() == open(env.path(b), "rb").read()


def summary_only(env, name, *opts):
    """A run to /dev/null (the capture of a long run is not needed): its --summary-json."""
    js = env.path(name + ".json")
    cmd = [env.gen, "-q", "-o", "/dev/null", "--summary-json", js] + [str(o) for o in opts]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    check(p.returncode == 0, f"{name}: exit status {p.returncode} {p.stderr.strip()[:200]}")
    return json.load(open(js)) if p.returncode == 0 else None


def case_path_delays(env):
    """Each --path's one-way delay and link rate, from the timestamps of the same run tapped
    at both ends: a data frame leaves the requester (stamped as it starts on the wire) and
    arrives at the responder (stamped at its last bit) NIC serialization + the path's link's
    serialization + the path's delay later, per UDP source port (--udp-sport path: 0xC000 +
    path). A rate given by a --path-event from time 0 is the same link: the same bytes."""
    need(env.decoder)
    paths = [(2, 100), (9.5, 100), (30, 50)]  # 50 Gb/s: a third of the frames, no queue
    spec = [a for d, r in paths for a in ("--path", f"delay={d}" + (f",rate={r}" if r != 100 else ""))]
    base = spec + ["--loss", 0, "--spray", "rr", "--wqes", 4, "--wqe-size", "256K",
                   "--udp-sport", "path"]
    s, _ = env.run("req.pcap", *base, "--capture", "requester")
    env.run("resp.pcap", *base, "--capture", "responder")
    if not s:
        return
    check(not s["truth"]["retransmissions"] and not s["truth"]["network_lost"],
          "no loss, no retransmission: every data frame crosses once")
    check([(p["delay_us"], p["rate_gbps"]) for p in s["path_list"]] == [(d, float(r)) for d, r in paths],
          f"the summary lists the paths as given: {s['path_list']}")
    check(s["paths"] == 3 and abs(s["mdd_us"] - 28) < 1e-9 and s["otd_eq3"] == 86,
          f"3 paths, MDD = 30 - 2 = 28 us, Eq. 3 = ceil(28 x 100e3 / 8 / 4096) = 86 "
          f"({s['paths']}, {s['mdd_us']}, {s['otd_eq3']})")
    sent = {(p["bth"]["psn"], p["bth"]["opcode"]): p for p in data_pkts(env.decode("req.pcap"))
            if p["src"] == HOST_A}
    got = {}
    for p in data_pkts(env.decode("resp.pcap")):
        q = sent.get((p["bth"]["psn"], p["bth"]["opcode"]))
        if q:
            got.setdefault(p["udp_sport"], []).append((ns(p) - ns(q), p["frame_len"]))
    check(sorted(got) == [SPORT_BASE + i for i in range(3)] and sum(map(len, got.values())) == 256,
          f"256 data frames matched at both ends, on ports {[hex(k) for k in sorted(got)]}")
    for i, (delay, rate) in enumerate(paths):
        # ps rounding of each serialization, ns truncation of each timestamp: within 2 ns
        off = [abs(t - (delay * 1000 + (n + WIRE_EXTRA) * 8 / 100 + (n + WIRE_EXTRA) * 8 / rate))
               for t, n in got.get(SPORT_BASE + i, [])]
        check(off and max(off) <= 2, f"path {i} (port {SPORT_BASE + i:#x}): {len(off)} frames "
              f"took {delay} us + serialization at 100 and {rate} Gb/s, within {max(off or [0])} ns")
    env.run("ev.pcap", *base[:4], "--path", "delay=30", "--path-event", "2:rate=50@0", *base[6:],
            "--capture", "responder")
    check(same_file(env, "resp.pcap", "ev.pcap"),
          "--path delay=30 --path-event 2:rate=50@0 writes the bytes of --path delay=30,rate=50")


def case_path_uniform(env):
    """A --path list equal to the uniform set, and an event that never comes (after the run's
    end), change nothing in the capture: the list and the events are read only where they
    say something."""
    uniform = ["--paths", 3, "--delay-spread-us", 20, "--wqes", 4, "--loss", 0.002]
    env.run("uniform.pcap", *uniform)
    env.run("list.pcap", "--path", "delay=2", "--path", "delay=12", "--path", "delay=22",
            "--wqes", 4, "--loss", 0.002)
    check(same_file(env, "uniform.pcap", "list.pcap"),
          "--path delay=2/12/22 writes the bytes of --paths 3 --delay-spread-us 20")
    env.run("late.pcap", *uniform, "--path-event", "1:fail@1e9", "--path-event", "2:loss=0.3@1e9")
    check(same_file(env, "uniform.pcap", "late.pcap"), "events after the run's end change nothing")
    s, _ = env.run("scn.pcap", "--scenario", scenario(env, "uniform.scn", [
        "path delay=2", "path delay=12", "path delay=22", "wqes 4", "loss 0.002"]))
    check(same_file(env, "uniform.pcap", "scn.pcap"), "'path' lines of a scenario: the same list")


def scenario(env, name, lines):
    path = env.path(name)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def case_path_loss(env):
    """A path with loss=0.02 among loss-free ones: the truth's network losses are that path's,
    about 2% of the frames it carried (both directions), and every lost data packet left the
    requester on that path's port; a loss= event from time 0 loses the same frames."""
    need(env.decoder)
    lossy = 0.02
    opts = ["--path", "delay=2", "--path", "delay=8", "--path", "delay=14", "--path", "delay=20",
            "--loss", 0, "--pmtu", 1024, "--wqes", 16, "--capture", "requester"]
    s, _ = env.run("loss.pcap", *opts[:5], f"delay=14,loss={lossy}", *opts[6:])
    if not s:
        return
    pl = s["path_list"]
    share = pl[2]["lost"] / max(pl[2]["frames"], 1)
    check(0.015 <= share <= 0.025 and pl[2]["frames"] > 5000,
          f"path 2 lost {pl[2]['lost']} of {pl[2]['frames']} frames: {share:.4f}, about {lossy}")
    check(all(p["lost"] == 0 and p["frames"] == p["delivered"] > 5000 for i, p in enumerate(pl) if i != 2),
          f"the other paths lost nothing: {[(p['frames'], p['lost']) for p in pl]}")
    lost = s["truth"]["network_lost"]
    check(len(lost) == pl[2]["lost"] == s["drops_random"] and s["drops_path_down"] == 0,
          f"truth: {len(lost)} network losses = path 2's {pl[2]['lost']} = drops_random "
          f"{s['drops_random']}")
    on_port = {}
    for p in env.decode("loss.pcap"):
        if p["src"] == HOST_A:
            on_port.setdefault((p["bth"]["destqp"], p["bth"]["psn"], p["bth"]["opcode"]), set()).add(p["udp_sport"])
    data = [e for e in lost if e["qp"] == 0x200]
    check(data and all(SPORT_BASE + 2 in on_port.get((e["qp"], e["psn"], e["opcode"]), ()) for e in data),
          f"each of the {len(data)} lost data packets was sent on path 2's port {SPORT_BASE + 2:#x}")
    env.run("lossev.pcap", *opts, "--path-event", f"2:loss={lossy}@0")
    check(same_file(env, "loss.pcap", "lossev.pcap"),
          "--path-event 2:loss=0.02@0 loses the frames of --path delay=14,loss=0.02")


# The failed path of docs/SCENARIOS.md and docs/PROFILES.md: four equal paths (a leaf-spine
# fabric's spines: go-back-N works on it while nothing fails), path 1 down from 5 to 15 ms.
FAILED = ["--seed", 1, "--wqes", 256, "--delay-spread-us", 0,
          "--path-event", "1:fail@5000:recover@15000"]


def phases(s):
    """Goodput before, while the path is down and after it is back (Gb/s)."""
    ph = s["goodput_phases"]
    check(len(ph) == 3 and ph[0]["to_us"] == 5000 and ph[1]["from_us"] == 5000 and
          ph[1]["to_us"] == 15000 and ph[2]["from_us"] == 15000,
          f"three phases cut at 5000 and 15000 us: {[(p['from_us'], p['to_us']) for p in ph]}")
    return [p["goodput_gbps"] or 0 for p in ph]


def case_failed_path(env):
    """Issue 31's "Done when": a path that fails at T. While it is down every frame on it is
    lost (truth: drops_path_down, counted in network_lost), and no profile stops spraying into
    it, so a quarter of the packets are lost: ornic and irn keep going at a reduced rate
    (selective repeat), go-back-N (roce) all but stops (every hole sends it back). Once the
    path is back, all three return to their goodput before. Figures from --summary-json."""
    g = {}
    for prof in ("ornic", "irn", "roce"):
        s = summary_only(env, prof, "--profile", prof, *FAILED)
        if not s:
            return
        check(s["outcome"] == "complete" and s["wqes_verified"] == s["wqes_total"] == 256,
              f"{prof}: 256 of 256 WQEs verified")
        down = s["path_list"][1]["lost_down"]
        check(down > 1000 and down == s["drops_path_down"] and
              s["path_list"][1]["frames"] < 2 * s["path_list"][0]["frames"],
              f"{prof}: {down} frames lost on path 1 while it was down (= drops_path_down)")
        check(all(p["lost_down"] == 0 for i, p in enumerate(s["path_list"]) if i != 1),
              f"{prof}: the other paths lost nothing to the failure")
        check(sum(p["lost"] for p in s["path_list"]) == len(s["truth"]["network_lost"]),
              f"{prof}: the paths' losses are the truth's network_lost ({len(s['truth']['network_lost'])})")
        g[prof] = phases(s)
        print(f"  {prof}: before {g[prof][0]:.2f}, down {g[prof][1]:.2f}, after {g[prof][2]:.2f} Gb/s")
    for prof in ("ornic", "irn"):
        b, d, a = g[prof]
        check(b > 80 and d >= 0.10 * b and d >= 3 * g["roce"][1],
              f"{prof}: keeps going while the path is down: {d:.2f} Gb/s of {b:.2f} (>= 10%), "
              f">= 3x roce's {g['roce'][1]:.2f}")
    b, d, a = g["roce"]
    check(b > 80 and d <= 0.05 * b, f"roce (go-back-N): {d:.2f} Gb/s of {b:.2f} while the path is "
          "down (<= 5%): every hole sends it back")
    for prof, (b, d, a) in g.items():
        check(a >= 0.9 * b, f"{prof}: back to {a:.2f} Gb/s of {b:.2f} once the path recovered")


def case_failed_in_flight(env):
    """A path that fails loses what is on it, not only what enters it while it is down: one
    4 KiB WRITE over one path of 100 us enters the path at 0.34 us; a failure from 50 to 60 us
    loses it in flight (the requester's RTO probe then completes the WQE). A failure that ends
    before the frame enters the path (0 to 0.2 us) loses nothing."""
    one = ["--paths", 1, "--base-delay-us", 100, "--loss", 0, "--wqes", 1, "--wqe-size", "4K",
           "--capture", "requester"]
    s, _ = env.run("inflight.pcap", *one, "--path-event", "0:fail@50:recover@60")
    if s:
        lost = s["truth"]["network_lost"]
        check(s["drops_path_down"] == 1 and len(lost) == 1 and lost[0]["qp"] == 0x200 and
              s["wqes_verified"] == 1 and s["timeouts"] >= 1,
              f"the data frame in flight at 50 us is lost ({lost}), the RTO probe completes the WQE")
    s, _ = env.run("before.pcap", *one, "--path-event", "0:fail@0:recover@0.2")
    if s:
        check(s["drops_path_down"] == 0 and not s["truth"]["network_lost"] and s["timeouts"] == 0,
              "a failure over before the frame enters the path loses nothing")


def flagged(frames, flag):
    return [p for p in frames if flag in ((p.get("analysis") or {}).get("flags") or [])]


def case_failed_path_decode(env):
    """ornic-decode --stats --json of captures with a failed path (ornic, irn, roce; the
    responder's port, where lost packets never appear) raises no flag the truth does not
    justify: the NAK frames are the truth's, every frame flagged a retransmission is one,
    no duplicate and nothing not captured (the tap lost nothing), and every PSN a loss flag
    names was lost by the network. The analysis may see fewer losses than the network made
    (docs/PROTOCOL.md 8.6, 8.7): for ornic each lost data PSN is proven lost but those whose
    first copy at this tap was an RTO probe (an in-order arrival: nothing shows it was sent
    before); for irn and roce, sprayed RC, a first copy is taken for the original."""
    need(env.decoder)
    for prof in ("ornic", "irn", "roce"):
        name = f"{prof}-fail.pcap"
        s, _ = env.run(name, "--profile", prof, "--seed", 1, "--wqes", 32, "--delay-spread-us", 0,
                       "--path-event", "1:fail@1000:recover@2000")
        if not s:
            continue
        t = s["truth"]
        frames = env.decode(name)
        p = subprocess.run([env.decoder, "--stats", "--json", env.path(name)], capture_output=True,
                           text=True, timeout=600)
        st = json.loads(p.stdout)["conversations"][0]["directions"]["a_to_b"]
        lost = {e["psn"] for e in t["network_lost"] if e["qp"] == 0x200}
        check(s["drops_path_down"] > 100 and not t["capture_dropped"],
              f"{prof}: {s['drops_path_down']} frames lost to the failure, none by the tap")
        check([f["frame"] for f in flagged(frames, "nak")] == t["naks"],
              f"{prof}: the {len(t['naks'])} NAK frames are the truth's")
        retx = {f["frame"] for f in flagged(frames, "retransmission")}
        check(retx <= set(t["retransmissions"]),
              f"{prof}: {len(retx)} frames flagged retransmissions, all of them truth's "
              f"{len(t['retransmissions'])} (extra {sorted(retx - set(t['retransmissions']))[:5]})")
        check(st["duplicates"] == 0 == len(flagged(frames, "duplicate")) and st["not_captured"] == 0,
              f"{prof}: no duplicate, nothing not captured ({st['duplicates']}, {st['not_captured']})")
        named = set()
        for f in flagged(frames, "loss"):
            lo = f["analysis"]["loss"]
            named |= {(lo["first_psn"] + k) % (1 << 24) for k in range(lo["count"])}
        check(named <= lost and st["losses"] <= len(lost),
              f"{prof}: ornic-decode's {st['losses']} losses name only PSNs the network lost "
              f"({len(lost)} data PSNs lost; not lost: {sorted(named - lost)[:5]})")
        if prof == "ornic":
            missed = [f for f in frames if f["frame"] in set(t["retransmissions"]) - retx]
            by_probe = {f["bth"]["psn"] for f in missed if f["frame"] in set(t["probes"])}
            check(len(missed) == len(by_probe) and named | by_probe == lost and
                  st["losses"] == len(lost) - len(by_probe),
                  f"ornic: {st['losses']} losses = {len(lost)} lost data PSNs - {len(by_probe)} "
                  f"first seen as an RTO probe")


def case_path_errors(env):
    """Bad --path and --path-event values: exit 2, one line naming the option and the bad
    part, no output; --paths or --delay-spread-us beside a --path list."""
    for i, (opts, want) in enumerate([
            (["--path", "delay=x"], "--path: 'delay=x': delay: expected a number from 0 to"),
            (["--path", "loss=0.9"], "--path: 'loss=0.9': loss: expected a number from 0 to 0.5, got '0.9'"),
            (["--path", "speed=3"], "--path: 'speed=3': expected delay=US, rate=GBPS or loss=P"),
            (["--path", "delay=1,delay=2"], "--path: 'delay=1,delay=2': expected"),
            (["--path", ""], "--path: '': expected"),
            (["--path", "delay=2", "--paths", 3], "--paths: the --path list sets the paths (1 given)"),
            (["--delay-spread-us", 5, "--path", "delay=2"], "--delay-spread-us: the --path list"),
            (["--path-event", "9:fail@5"], "--path-event: '9:fail@5': path 9 does not exist (4 paths"),
            (["--path-event", "1:fail"], "--path-event: '1:fail': expected WHAT@US"),
            (["--path-event", "1:boom@5"], "expected fail, loss=P or rate=GBPS before '@', got 'boom'"),
            (["--path-event", "1:fail@x"], "--path-event: '1:fail@x': the time after '@': expected"),
            (["--path-event", "1:loss=2@5"], "--path-event: '1:loss=2@5': loss: expected a number from 0 to 0.5"),
            (["--path-event", "1:fail@5:heal@9"], "--path-event: '1:fail@5:heal@9': expected recover@US"),
            (["--path-event", "1:fail@5:recover@5"], "the path must recover after the event starts"),
            (["--path-event", "x:fail@5"], "--path-event: 'x:fail@5': PATH: expected a number"),
            (["--path-event", "1:rate=10@5", "--path-event", "1:rate=20@0:recover@6"],
             "--path-event: '1:rate=20@0:recover@6' overlaps '1:rate=10@5': two rate values for path 1"),
    ]):
        name = f"bad{i}.pcap"
        _, p = env.run(name, *opts, rc=2)
        check(want in p.stderr and len(p.stderr.strip().splitlines()) == 1,
              f"{' '.join(map(str, opts))}: {p.stderr.strip()[:160]}")
        check(not os.path.exists(env.path(name)), f"{name}: no output file")
    scn = scenario(env, "bad.scn", ["path delay=2", "path-event 1:fail@3"])
    _, p = env.run("badscn.pcap", "--scenario", scn, rc=2)
    check("path 1 does not exist (1 path," in p.stderr, f"a scenario's event checked against its "
          f"list: {p.stderr.strip()[:160]}")


if __name__ == "__main__":
    sys.exit(main(globals()))
