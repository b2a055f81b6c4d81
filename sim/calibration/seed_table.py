#!/usr/bin/env python3
"""Runs the seed setups' scenarios and prints docs/simulator.md's table of them:
each setup, what limits it (the saturated core, or the wire) and the predicted
numbers, straight from the simulator with the committed cost model.

    .venv/bin/python sim/calibration/seed_table.py [--runner build/bin/offlab-sim]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SIM = HERE.parent
REPO = SIM.parent

# (seed, scenario) in the order of the table.
SEEDS = [
    ("1", "ixgbe-kernel-ovs-vxlan-csum"),
    ("1", "ixgbe-kernel-ovs-vxlan-nocsum"),
    ("2", "ibmveth-kernel-trunk-largesend-4.11"),
    ("2", "ibmveth-kernel-trunk-largesend-4.19"),
    ("2", "ibmveth-kernel-trunk-no-offload-4.19"),
    ("3", "bluefield2-kernel-datapath"),
    ("3", "bluefield2-tc-flower-offload"),
    ("4", "linux-vxlan-nocsum"),
    ("4", "linux-vxlan-udpcsum"),
    ("4", "linux-vxlan-rco"),
]
SATURATED = 95.0


def simulate(runner: Path, scenario: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="offlab-seed-") as out:
        cmd = [str(runner), str(SIM / "scenarios" / f"{scenario}.yaml")]
        cmd += ["--cost", str(SIM / "data" / "cost-model.yaml"), "--out", out]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        return json.loads((Path(out) / "results.json").read_text())


def limit(r: dict[str, Any]) -> str:
    """The first saturated core, receiver first, or else the wire."""
    names = {0: "sender", 1: "receiver"}
    if r["hosts"][0].get("kind") in ("generator", "tester"):
        names = {0: "tester", 1: "DUT"}
    for h in (1, 0):
        host = r["hosts"][h]
        for key, what in (
            ("softirq_cpu_pct", "softirq core"),
            ("vhost_cpu_pct", "vhost-net core"),
            ("guest_cpu_pct", "guest/app core"),
            ("pmd_cpu_pct", "PMD"),
        ):
            if any(v >= SATURATED for v in host.get(key, [])):
                return f"{names[h]} {what}"
    return "the wire"


def cpu(host: dict[str, Any], key: str) -> str:
    v = host.get(key, [])
    return f"{max(v):.0f}" if v else "-"


def row(seed: str, scenario: str, r: dict[str, Any]) -> str:
    tx, rx = r["hosts"]
    k = rx.get("kernel", {})
    if tx.get("kind") == "generator":
        g = tx["kernel"]
        rate = f"{g['rx_pps'] / 1e6:.1f} of {g['generator_pps_set'] / 1e6:.1f} Mpps back"
    else:
        rate = f"{r['goodput_gbps']:.2f} Gbit/s"
    mech = (
        f"{k.get('frames_per_skb', 0):.1f} frames/skb, "
        f"{k.get('not_validated_per_s', 0) / 1e3:.0f} k/s not validated, "
        f"{k.get('sw_csum_bytes_per_s', 0) / 1e6:.0f} MB/s sw csum"
    )
    cores = ", ".join(
        f"{what} {cpu(tx, key)}/{cpu(rx, key)}"
        for what, key in (
            ("softirq", "softirq_cpu_pct"),
            ("vhost", "vhost_cpu_pct"),
            ("guest/app", "guest_cpu_pct"),
        )
        if tx.get(key) or rx.get(key)
    )
    return f"| {seed} | `{scenario}` | {limit(r)} | {rate} | {cores} | {mech} |"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runner", type=Path, default=REPO / "build" / "bin" / "offlab-sim")
    args = ap.parse_args()
    if not args.runner.is_file():
        print(f"seed_table: {args.runner} is not built", file=sys.stderr)
        return 2
    print("| seed | scenario | limit | predicted | busiest cores % (tx/rx side) | receiver |")
    print("|---|---|---|---|---|---|")
    for seed, scenario in SEEDS:
        print(row(seed, scenario, simulate(args.runner, scenario)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
