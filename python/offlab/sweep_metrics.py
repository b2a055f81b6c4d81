"""A sweep's metric columns from one run's results.json, and the short summary
`offlab sweep` prints (OVS hosts' PMD cores, kernel hosts' softirq cores)."""

from __future__ import annotations

from typing import Any

# Columns of the tidy table after the varied parameters.
METRICS = [
    "goodput_gbps",
    "sender_pmd_cpu_pct",
    "receiver_pmd_cpu_pct",
    "sender_guest_cpu_pct",
    "receiver_guest_cpu_pct",
    "sender_sw_segments_per_s",
    "sender_csum_bytes_per_s",
    "receiver_rx_frames_per_s",
    "receiver_gro_not_validated",
    # Kernel hosts (NaN for OVS-DPDK ones): the receiving side's softirq
    # cores, GRO's batching and what it could not validate, checksum bytes.
    "sender_softirq_cpu_pct",
    "receiver_softirq_cpu_pct",
    "sender_vhost_cpu_pct",
    "receiver_vhost_cpu_pct",
    "receiver_frames_per_skb",
    "receiver_gro_merges_per_s",
    "receiver_not_validated_per_s",
    "sender_sw_csum_bytes_per_s",
    "receiver_sw_csum_bytes_per_s",
    "wall_seconds",
]


def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs) if xs else float("nan")


def metrics(r: dict[str, Any]) -> dict[str, float]:
    """The tidy table's metric columns from one results.json."""
    tx, rx = r["hosts"][0], r["hosts"][1]
    tx_work = tx["pmd_load"][0]["per_s"] if tx.get("pmd_load") else {}
    rx_work = rx["pmd_load"][0]["per_s"] if rx.get("pmd_load") else {}
    tk, rk = tx.get("kernel", {}), rx.get("kernel", {})
    nan = float("nan")
    return {
        "goodput_gbps": r["goodput_gbps"],
        "sender_pmd_cpu_pct": _mean(tx["pmd_cpu_pct"]),
        "receiver_pmd_cpu_pct": _mean(rx["pmd_cpu_pct"]),
        "sender_guest_cpu_pct": _mean(tx["guest_cpu_pct"]),
        "receiver_guest_cpu_pct": _mean(rx["guest_cpu_pct"]),
        "sender_sw_segments_per_s": tx_work.get("sw_segments", float("nan")),
        "sender_csum_bytes_per_s": tx_work.get("csum_bytes", float("nan")),
        "receiver_rx_frames_per_s": rx_work.get("rx_frames", float("nan")),
        "receiver_gro_not_validated": rx["nic"]["gro_not_validated"],
        "sender_softirq_cpu_pct": _mean(tx.get("softirq_cpu_pct", [])),
        "receiver_softirq_cpu_pct": _mean(rx.get("softirq_cpu_pct", [])),
        "sender_vhost_cpu_pct": _mean(tx.get("vhost_cpu_pct", [])),
        "receiver_vhost_cpu_pct": _mean(rx.get("vhost_cpu_pct", [])),
        "receiver_frames_per_skb": rk.get("frames_per_skb", nan),
        "receiver_gro_merges_per_s": rk.get("gro_merges_per_s", nan),
        "receiver_not_validated_per_s": rk.get("not_validated_per_s", nan),
        "sender_sw_csum_bytes_per_s": tk.get("sw_csum_bytes_per_s", nan),
        "receiver_sw_csum_bytes_per_s": rk.get("sw_csum_bytes_per_s", nan),
        "wall_seconds": r["wall_seconds"],
    }


def summary(table: Any, vary: list[str]) -> str:
    cpu = ["sender_pmd_cpu_pct", "receiver_pmd_cpu_pct"]
    if table[cpu].isna().all().all() and len(table):
        # Kernel hosts: their softirq cores take the PMDs' place.
        cpu = ["sender_softirq_cpu_pct", "receiver_softirq_cpu_pct"]
    cols = [*vary, "goodput_gbps", *cpu, "status"]
    t = table[cols].copy()
    formats = {"goodput_gbps": "{:.2f}", cpu[0]: "{:.0f}", cpu[1]: "{:.0f}"}
    for c, fmt in formats.items():
        t[c] = t[c].map(lambda v, fmt=fmt: "" if v != v else fmt.format(v))
    t = t.rename(
        columns={
            "goodput_gbps": "Gbit/s",
            "sender_pmd_cpu_pct": "tx PMD %",
            "receiver_pmd_cpu_pct": "rx PMD %",
            "sender_softirq_cpu_pct": "tx softirq %",
            "receiver_softirq_cpu_pct": "rx softirq %",
        }
    )
    return t.to_string(index=False)
