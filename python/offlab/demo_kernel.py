"""The demo's kernel-host step: seed 1 (an 82599 under RHEL 7's kernel, VMs on
openvswitch.ko over VXLAN) with and without the outer UDP checksum, the
mechanism from the results: whether receive GRO merges, and which core limits."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .report import Report, Table

SCENARIOS = ("ixgbe-kernel-ovs-vxlan-csum", "ixgbe-kernel-ovs-vxlan-nocsum")


def _row(r: dict[str, Any]) -> list[str]:
    rx = r["hosts"][1]
    k = rx.get("kernel", {})
    return [
        r["scenario"],
        "on" if r["outer_udp_csum"] else "off",
        f"{r['goodput_gbps']:.2f}",
        f"{k.get('frames_per_skb', 0):.1f}",
        f"{k.get('not_validated_per_s', 0) / 1e3:.0f}",
        f"{max(rx.get('softirq_cpu_pct', [0])):.0f}",
    ]


def kernel_seed(rep: Report, out: Path, duration: float = 0.3) -> bool:
    """Runs seed 1 both ways; True when GRO merged only with the checksum."""
    from . import sim

    runs = [sim.run(name, out / "kernel" / name, duration=duration) for name in SCENARIOS]
    head = ["scenario", "outer csum", "Gbit/s", "frames/skb", "not validated k/s", "rx softirq %"]
    rows = [_row(r) for r in runs]
    sec = rep.add("Simulator: a kernel host (seed 1)")
    sec.paragraphs.append(
        "Two Linux hosts on RHEL 7's kernel: an 82599 NIC with NAPI polls on softirq cores, "
        "openvswitch.ko with a VXLAN vport, VMs behind TAPs with vhost-net cores. The 82599 "
        "cannot look inside VXLAN; with the outer UDP checksum its verdict lets RHEL 7's GRO "
        "take the tunnel and merge the inner TCP, without it every frame crosses the "
        "receiver's stack alone and its softirq core saturates. Every step is the core's "
        "kernel model on real bytes; the kernel cores' costs were measured on this machine "
        "(docs/simulator.md, Kernel hosts)."
    )
    sec.blocks.append(Table(head, rows))
    for row in rows:
        print("  ".join(f"{c:>12}" for c in row))
    with_csum, without = (r["hosts"][1].get("kernel", {}) for r in runs)
    return with_csum.get("frames_per_skb", 0) > 1 and without.get("frames_per_skb", 0) == 1
