"""The simulator against published measurements, with the one committed cost
model. Expected values are the numbers of D. Marchand's talk on OVS checksum
offloads (2025), section "Outer UDP checksum" (ConnectX-6 Dx, Geneve with the
outer UDP checksum, VM-to-VM iperf), and a line-rate bound derived by hand."""

from __future__ import annotations

import pytest

from offlab import sim

DURATION = 0.8  # simulated seconds; the scenarios measure after a 0.3 s warm-up
WINDOW = DURATION - 0.3

# scenario -> (Gbit/s, sending PMD busy fraction), from the talk's slides
# "Outer UDP checksum optimisation (cont)" and "Hardware segmentation: TSO (cont)".
TALK = {
    "cx6dx-geneve-csum-before": (6.08, 1.00),
    "cx6dx-geneve-csum-optimised": (7.31, 1.00),
    "cx6dx-geneve-csum-hw-tso": (10.4, 0.37),
}


@pytest.fixture(scope="module")
def runs() -> dict[str, dict]:
    return {name: sim.run(name, duration=DURATION) for name in TALK}


@pytest.mark.parametrize("scenario", sorted(TALK))
def test_connectx6dx_results_of_the_talk_within_15_percent(runs: dict, scenario: str) -> None:
    gbps, pmd = TALK[scenario]
    r = runs[scenario]
    assert r["goodput_gbps"] == pytest.approx(gbps, rel=0.15)
    assert r["hosts"][0]["pmd_cpu_pct"][0] / 100 == pytest.approx(pmd, rel=0.15)


def test_the_talks_improvements_in_order(runs: dict) -> None:
    # 6.08 -> 7.31 at full CPU, then 7.3 -> 10.4 with the CPU falling to 37 %.
    g = {k: r["goodput_gbps"] for k, r in runs.items()}
    assert g["cx6dx-geneve-csum-before"] < g["cx6dx-geneve-csum-optimised"]
    assert g["cx6dx-geneve-csum-optimised"] < g["cx6dx-geneve-csum-hw-tso"]


def test_hw_tso_limit_is_the_receiving_guest(runs: dict) -> None:
    # The talk's annex: the receiving PMD is 87 % busy and the vhost port
    # drops towards its guest (ovs_tx_failure_drops), so the guest is the limit.
    rx = runs["cx6dx-geneve-csum-hw-tso"]["hosts"][1]
    assert rx["pmd_cpu_pct"][0] / 100 == pytest.approx(0.87, rel=0.15)
    assert rx["guest_cpu_pct"][0] > 95


def test_software_segmentation_counter_matches_the_talk(runs: dict) -> None:
    # "netdev_soft_seg good 14302.8/sec" (dp_packet_gso since OVS 3.7) at
    # 7.31 Gbit/s: one per TSO packet. Per Gbit/s of goodput the rate depends
    # only on the TSO packet size (64 KB in both).
    r = runs["cx6dx-geneve-csum-optimised"]
    per_gbps = r["hosts"][0]["counters"]["dp_packet_gso"] / WINDOW / r["goodput_gbps"]
    assert per_gbps == pytest.approx(14302.8 / 7.31, rel=0.05)


def test_partial_segmentation_is_rare_with_hw_tso(runs: dict) -> None:
    # "netdev_partial_seg good 53.800/sec" at 10.4 Gbit/s, against ~20000
    # TSO packets per second: the guest's TSO packets are whole segments.
    r = runs["cx6dx-geneve-csum-hw-tso"]
    partial = r["hosts"][0]["counters"].get("dp_packet_partial_gso", 0) / WINDOW
    tso_packets = r["goodput_gbps"] * 1e9 / 8 / 64000
    assert partial < 0.01 * tso_packets


def test_a_10g_wire_caps_vxlan_at_its_line_rate() -> None:
    # X710 at 10 Gbit/s, VXLAN over IPv4, 1398-byte segments: each takes
    # 14+20+8+8 outer + 14+20+32 inner header bytes + 24 of preamble, FCS and
    # gap on the wire, so goodput is 10 * 1398 / 1538 Gbit/s.
    r = sim.run("x710-vxlan-nocsum", duration=DURATION)
    assert r["goodput_gbps"] == pytest.approx(10 * 1398 / 1538, rel=0.01)
