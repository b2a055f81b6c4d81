#!/usr/bin/env python3
"""Simulator speed: offlab-sim beside plain ns-3 on the same traffic, in one run.

The traffic: one bulk TCP flow VM to VM over VXLAN on a 10 Gbit/s wire
(scenario x710-vxlan-nocsum). offlab-sim carries each TSO packet as one
segment train; the reference is stock ns-3 (point-to-point link, one event per
frame, bench/plain_ns3_tcp_baseline.cc) with the same TCP (Cubic, 1398-byte
segments) and the same wire bytes per segment, with 256 KB socket buffers,
which give plain ns-3 the same goodput fastest. With --same-buffers it also
runs with the simulator's 16 MB (like for like, but ns-3's send buffer then
walks about 12000 segments per ACK: minutes per simulated second).

One more run is ns-3's TCP alone at the granularity the simulator's guests use
(45-segment TSO packets, 16 MB buffers, no per-frame work at all). No
simulator whose guests run ns-3's TCP can be faster than that, so it bounds
the ratio any such simulator can reach. Prints wall-time ratios and goodput
differences; absolute times on a shared machine mean little.

Then (unless --no-kernel) the same flow between two kernel hosts beside the
OVS-DPDK hosts, as wall time per wire frame, and a packet generator at
100 Gbit/s line rate through a TC-flower DUT at 64 and 1500-byte frames, as
frames per wall second.

    python bench/sim_speed_bench.py [--seconds 10] [--same-buffers] [--build build]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SCENARIO = REPO / "sim" / "scenarios" / "x710-vxlan-nocsum.yaml"
WARMUP_S = 0.3  # as the scenario's warmup_s
# The guests' TSO packet: (64000 // MSS) segments (sim/helper/vm-tunnel-helper.cc).
GUEST_SEGMENTS = 64000 // 1398


def run_sim(build: Path, seconds: float) -> tuple[float, float]:
    with tempfile.TemporaryDirectory(prefix="offlab-bench-") as out:
        cmd = [str(build / "bin" / "offlab-sim"), str(SCENARIO), "--duration", str(seconds)]
        cmd += ["--cost", str(REPO / "sim" / "data" / "cost-model.yaml"), "--out", out]
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - t0
        return json.loads((Path(out) / "results.json").read_text())["goodput_gbps"], wall


def run_plain(
    build: Path, seconds: float, buffer: int, segments_per_packet: int = 1
) -> tuple[float, float]:
    cmd = [str(build / "bench" / "plain_ns3_tcp_baseline"), str(seconds), str(WARMUP_S)]
    cmd += [str(buffer), str(segments_per_packet)]
    t0 = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    wall = time.perf_counter() - t0
    m = re.search(r"goodput_gbps=([0-9.]+)", out)
    if not m:
        raise SystemExit(f"sim_speed_bench: unexpected output from the reference: {out!r}")
    return float(m.group(1)), wall


def run_derived(build: Path, base: str, changes: dict, seconds: float) -> tuple[dict, float]:
    """A library scenario with some fields changed (None: removed), run once: results and
    wall time."""
    import yaml

    doc = yaml.safe_load((REPO / "sim" / "scenarios" / f"{base}.yaml").read_text())
    for key, value in changes.items():
        node = doc
        *path, last = key.split(".")
        for part in path:
            node = node.setdefault(part, {})
        if value is None:
            node.pop(last, None)
        else:
            node[last] = value
    with tempfile.TemporaryDirectory(prefix="offlab-bench-") as out:
        scenario = Path(out) / "scenario.yaml"
        scenario.write_text(yaml.safe_dump(doc))
        cmd = [str(build / "bin" / "offlab-sim"), str(scenario), "--duration", str(seconds)]
        cmd += ["--cost", str(REPO / "sim" / "data" / "cost-model.yaml"), "--out", out]
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - t0
        return json.loads((Path(out) / "results.json").read_text()), wall


def wire_frames(r: dict) -> int:
    return sum(h["nic"]["tx_frames"] for h in r["hosts"])


def kernel_and_generator_rows(build: Path, seconds: float) -> None:
    """The kernel host on the same traffic, and a generator's frames per wall second."""
    ovs, ovs_wall = run_derived(build, "x710-vxlan-nocsum", {}, seconds)
    kern, kern_wall = run_derived(
        build,
        "x710-vxlan-nocsum",
        {"ovs": None, "host": {"kind": "kernel", "datapath": "ovs"}},
        seconds,
    )
    print(f"\nthe same flow, {seconds:g} simulated s: wall time per wire frame")
    print(f"{'host':40} {'goodput Gb/s':>12} {'wall s':>9} {'us/frame':>10}")
    for label, r, wall in (("OVS-DPDK host", ovs, ovs_wall), ("kernel host", kern, kern_wall)):
        us = wall / max(1, wire_frames(r)) * 1e6
        print(f"{label:40} {r['goodput_gbps']:12.3f} {wall:9.1f} {us:10.2f}")
    print("\na packet generator at line rate through a TC-flower DUT (100 Gbit/s, 10 ms)")
    print(f"{'frames':40} {'Mpps back':>12} {'wall s':>9} {'frames/wall s':>14}")
    for size in (64, 1500):
        r, wall = run_derived(
            build, "bluefield2-tc-flower-offload", {"generator.frame_size": size}, 0.01
        )
        frames = wire_frames(r)
        print(
            f"{f'{size} B':40} {r['hosts'][0]['kernel']['rx_pps'] / 1e6:12.2f} {wall:9.2f} "
            f"{frames / wall:14.3g}"
        )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=10.0, help="simulated seconds per run")
    ap.add_argument(
        "--same-buffers",
        action="store_true",
        help="also run plain ns-3 with the simulator's 16 MB buffers (slow)",
    )
    ap.add_argument("--build", type=Path, default=REPO / "build")
    ap.add_argument(
        "--no-kernel", action="store_true", help="skip the kernel-host and generator rows"
    )
    args = ap.parse_args()
    if args.seconds <= WARMUP_S:
        print(f"sim_speed_bench: --seconds must exceed the {WARMUP_S} s warm-up", file=sys.stderr)
        return 2
    for exe in ("bin/offlab-sim", "bench/plain_ns3_tcp_baseline"):
        if not (args.build / exe).is_file():
            print(f"sim_speed_bench: {args.build / exe} is not built", file=sys.stderr)
            return 2

    sim_gbps, sim_wall = run_sim(args.build, args.seconds)
    rows = [("offlab-sim (segment trains)", sim_gbps, sim_wall)]
    references = [
        ("plain ns-3, 256 KB buffers (tuned)", 256 << 10, 1),
        ("ns-3 TCP alone, 64 KB packets (floor)", 16 << 20, GUEST_SEGMENTS),
    ]
    if args.same_buffers:
        references.append(("plain ns-3, 16 MB buffers (same TCP)", 16 << 20, 1))
    for label, buffer, k in references:
        gbps, wall = run_plain(args.build, args.seconds, buffer, k)
        rows.append((label, gbps, wall))

    print(f"{args.seconds:g} simulated seconds of one VXLAN TCP flow on a 10 Gbit/s wire")
    print(
        f"{'run':40} {'goodput Gb/s':>12} {'wall s':>9} {'offlab-sim is':>14} {'goodput diff':>13}"
    )
    for label, gbps, wall in rows:
        speed = wall / sim_wall
        diff = (sim_gbps - gbps) / gbps * 100
        print(f"{label:40} {gbps:12.3f} {wall:9.1f} {speed:13.1f}x {diff:+12.2f}%")
    tuned, floor = rows[1][2], rows[2][2]
    print(
        f"ceiling for a simulator whose guests run ns-3's TCP: {tuned / floor:.1f}x the tuned "
        f"per-frame run; {(sim_wall - floor) / sim_wall:.0%} of offlab-sim's time is above "
        "that floor"
    )
    if not args.no_kernel:
        kernel_and_generator_rows(args.build, min(args.seconds, 2.0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
