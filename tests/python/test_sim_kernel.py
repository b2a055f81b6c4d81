"""Kernel hosts and packet generators through `offlab sim`: the seed setups'
mechanisms in results.json. Each expectation is a kernel rule (cited where
the core implements it, docs/kernel-model.md) or line-rate arithmetic, not
earlier output."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from test_replay import TSHARK_BAD, tshark_checksums

from offlab import sim

SHORT = 0.12


def run(name: str, duration: float = SHORT) -> dict:
    return sim.run(name, duration=duration)


def kern(r: dict, host: int) -> dict:
    return r["hosts"][host]["kernel"]


def test_kernel_results_show_the_mechanism() -> None:
    r = run("ixgbe-kernel-ovs-vxlan-csum")
    rx = r["hosts"][1]
    assert rx["kind"] == "kernel"
    for key in (
        "gro_merges_per_s",
        "not_validated_per_s",
        "softirq_busy_pct",
        "sw_csum_bytes_per_s",
        "frames_per_skb",
        "napi_polls_per_s",
    ):
        assert key in rx["kernel"], key
    assert len(rx["softirq_cpu_pct"]) == 4 and len(rx["vhost_cpu_pct"]) == 2
    # ixgbe hashes UDP on addresses only: all VXLAN lands on one queue.
    assert sum(1 for v in rx["softirq_cpu_pct"] if v > 0) == 1


def test_82599_vxlan_gro_hinges_on_the_outer_checksum_under_rhel7() -> None:
    on, off = run("ixgbe-kernel-ovs-vxlan-csum"), run("ixgbe-kernel-ovs-vxlan-nocsum")
    assert kern(on, 1)["frames_per_skb"] > 4
    assert kern(on, 1)["not_validated_per_s"] == 0
    assert kern(off, 1)["frames_per_skb"] == 1
    assert kern(off, 1)["not_validated_per_s:udp_tunnel_csum_unvalidated"] > 1e4
    # Every frame through the stack alone: the one busy softirq core is the limit.
    assert max(off["hosts"][1]["softirq_cpu_pct"]) > 95
    assert off["goodput_gbps"] < on["goodput_gbps"]


def test_ibmveth_trunk_frag_list_segmented_or_linearized() -> None:
    v411 = run("ibmveth-kernel-trunk-largesend-4.11")
    v419 = run("ibmveth-kernel-trunk-largesend-4.19")
    assert kern(v411, 1)["sw_segments_per_s"] > 1e4
    assert kern(v419, 1)["sw_segments_per_s"] == 0
    assert v419["hosts"][1]["counters"].get("ibmveth_tx_linearize", 0) > 0
    off = run("ibmveth-kernel-trunk-no-offload-4.19")
    # No checksum offload: descriptors without CSUM_GOOD, GRO cannot validate.
    assert kern(off, 1)["not_validated_per_s"] > 1e4


@pytest.mark.parametrize("offload", [False, True])
def test_bluefield2_from_a_generator(offload: bool) -> None:
    name = "bluefield2-tc-flower-offload" if offload else "bluefield2-kernel-datapath"
    r = run(name, duration=0.008)
    gen, dut = r["hosts"][0], r["hosts"][1]
    assert gen["kind"] == "generator"
    # 64-byte frames at 100 Gbit/s: 100e9 / ((64 + 20) * 8) = 148.8 Mpps.
    assert gen["kernel"]["tx_pps"] == pytest.approx(148.8e6, rel=0.01)
    if offload:
        # The eSwitch forwards at line rate; the Arm cores idle.
        assert gen["kernel"]["rx_pps"] == pytest.approx(148.8e6, rel=0.02)
        assert max(dut["softirq_cpu_pct"]) < 1
    else:
        # The kernel datapath saturates its cores and the ring drops the rest.
        assert min(dut["softirq_cpu_pct"]) > 95
        assert dut["kernel"]["rx_ring_drops"] > 0
        assert gen["kernel"]["rx_pps"] < 0.5 * gen["kernel"]["tx_pps"]


def test_linux_vxlan_checksum_modes_on_the_wire() -> None:
    none, csum = run("linux-vxlan-nocsum"), run("linux-vxlan-udpcsum")
    rco = run("linux-vxlan-rco")
    for r in (none, csum, rco):
        assert r["goodput_gbps"] > 1, r["scenario"]
    # Without the outer checksum (kernel 4.0) GRO cannot validate the inner
    # packets, so the receiver checks each one in software.
    assert kern(none, 1)["not_validated_per_s"] > 0
    assert kern(none, 1)["sw_csum_bytes_per_s"] > kern(csum, 1)["sw_csum_bytes_per_s"]


def _kernel_scenarios() -> list[str]:
    out = []
    for name in sim.builtin_scenarios():
        doc = yaml.safe_load((sim.data_dir() / "scenarios" / f"{name}.yaml").read_text())
        if doc.get("host", {}).get("kind") == "kernel":
            out.append(name)
    return out


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark missing")
@pytest.mark.parametrize("scenario", _kernel_scenarios())
def test_kernel_host_wire_checksums_per_tshark(tmp_path: Path, scenario: str) -> None:
    # Whatever a kernel host puts on the wire carries correct checksums (or a
    # zero UDP checksum, "not present"), by tshark's own verification; only
    # remote checksum offload leaves the inner TCP field for the receiver
    # (draft-herbert-vxlan-rco: it holds the pseudo-header sum), and an
    # ibmveth hands the hypervisor a CHECKSUM_PARTIAL packet with its TCP
    # field zeroed and the descriptor's no-checksum flag instead
    # (ibmveth_start_xmit), which the receiving partition takes as good.
    r = sim.run(scenario, out_dir=tmp_path / "sim", pcap=True, duration=0.003)
    rco = "rco" in scenario or r["nic"] == "ibmveth_trunk"
    frames = 0
    for pcap in r["pcaps"]:
        for row in tshark_checksums(Path(pcap)):
            frames += 1
            assert TSHARK_BAD not in row["ip"], (pcap, frames, row)
            assert TSHARK_BAD not in row["udp"], (pcap, frames, row)
            if not rco:
                assert TSHARK_BAD not in row["tcp"], (pcap, frames, row)
    assert frames > 10
