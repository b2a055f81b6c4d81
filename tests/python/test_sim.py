"""The simulator through `offlab sim`: the default scenario, the scenario
library's directions, pcaps checked by tshark against the core's statuses,
and bad scenario files. Expected directions come from how the hardware and
OVS work (what each option removes from the CPU), not from earlier output."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from offlab import Csum, CsumStatus, Level, Offloads, sim
from offlab.cli import main

SHORT = 0.12  # simulated seconds: enough for TCP to leave slow start at these rates


def run(name: str, **kw: object) -> dict:
    return sim.run(name, duration=kw.pop("duration", SHORT), **kw)  # type: ignore[arg-type]


def test_default_scenario_from_the_cli(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["sim", "default", "--out", str(tmp_path), "-q"]) == 0
    out = capsys.readouterr().out
    assert "goodput" in out and "coverage" in out
    r = json.loads((tmp_path / "results.json").read_text())
    assert r["scenario"] == "default"
    assert r["goodput_gbps"] > 1
    # A bound against a hang only: speed is bench/sim_speed_bench.py's, measured as a ratio
    # (this run took 10.6 s on a loaded 2-core machine where it usually takes 3 s).
    assert 0 < r["wall_seconds"] < 120
    assert {h["name"] for h in r["hosts"]} == {"host0", "host1"}


def test_every_library_scenario_runs() -> None:
    names = sim.builtin_scenarios()
    assert len(names) >= 10
    for name in names:
        r = run(name, duration=0.05)
        assert r["goodput_gbps"] > 0.5, name
        assert not r["events"], (name, r["events"])


def pmd_cycles_per_bit(r: dict) -> float:
    return r["hosts"][0]["pmd_cpu_pct"][0] / r["goodput_gbps"]


def test_each_ovs_step_takes_work_off_the_sender_pmd() -> None:
    # Payload-independent outer checksum: no pass over the bytes; partial GSO:
    # the NIC segments instead of the CPU. Each step lowers PMD cost per bit.
    before = pmd_cycles_per_bit(run("cx6dx-geneve-csum-before"))
    optimised = pmd_cycles_per_bit(run("cx6dx-geneve-csum-optimised"))
    hw_tso = pmd_cycles_per_bit(run("cx6dx-geneve-csum-hw-tso"))
    assert before > optimised > hw_tso


@pytest.mark.parametrize(
    "scenario",
    ["cx6dx-geneve-nocsum", "e810-vxlan-csum", "gre-connectx6dx", "x710-vxlan-csum"],
)
def test_hardware_tunnel_tso_leaves_no_software_segmentation(scenario: str) -> None:
    # Each NIC segments these tunnels itself (tunnel TSO; the E810 also
    # finishes the outer UDP checksum, the X710 keeps the one OVS computed from
    # the headers): OVS segments nothing, and the sending PMD spends far less
    # per bit than with software GSO and software checksums.
    r = run(scenario)
    assert "dp_packet_gso" not in r["hosts"][0]["counters"]
    assert pmd_cycles_per_bit(r) < pmd_cycles_per_bit(run("cx6dx-geneve-csum-before")) / 2


def test_an_ipv6_underlay_costs_more_frames_per_bit() -> None:
    # The outer IPv6 header is 20 bytes longer than IPv4's, so on a 1500-byte
    # underlay the overlay MTU, and every segment, is 20 bytes shorter: more
    # frames reach the receiving datapath for the same goodput.
    def frames_per_bit(r: dict) -> float:
        return r["hosts"][1]["pmd_load"][0]["per_s"]["rx_frames"] / r["goodput_gbps"]

    v4, v6 = run("default"), run("vxlan-ipv6-underlay")
    assert frames_per_bit(v6) == pytest.approx(frames_per_bit(v4) * 1398 / 1378, rel=0.02)


def test_a_jumbo_underlay_sends_bigger_frames(tmp_path: Path) -> None:
    # MTU 9000 leaves 9000-20-16-14 = 8950 bytes for the guest: segments of at
    # most 8950-52 = 8898 payload bytes instead of 1398. Only the last segment
    # of a TSO packet is short, so the average stays near the MSS; and the X710
    # line-rate bound 10 * mss / (mss + 52 + 50 + 24) rises from 9.09 to 9.86.
    base = "name: j\nnic: x710\ntunnel: vxlan\nduration_s: 0.12\nwarmup_s: 0.05\n"
    (tmp_path / "std.yaml").write_text(base)
    (tmp_path / "jumbo.yaml").write_text(base + "mtu: 9000\n")
    std, jumbo = sim.run(tmp_path / "std.yaml"), sim.run(tmp_path / "jumbo.yaml")
    assert jumbo["mtu"] == 9000 and std["mtu"] == 1500

    def bytes_per_frame(r: dict) -> float:
        return r["goodput_gbps"] * 1e9 / 8 / r["hosts"][1]["pmd_load"][0]["per_s"]["rx_frames"]

    assert 0.95 * 1398 < bytes_per_frame(std) <= 1398 * 1.001
    assert 0.85 * 8898 < bytes_per_frame(jumbo) <= 8898 * 1.001
    assert jumbo["goodput_gbps"] > std["goodput_gbps"]
    assert jumbo["goodput_gbps"] <= 10 * 8898 / (8898 + 126) * 1.005


def test_flow_offload_takes_small_packets_off_the_pmd() -> None:
    # 256-byte segments from eight guests: one PMD thread per host cannot keep
    # up with the software datapath; with the eSwitch running the flows the
    # PMD is idle (only each flow's first packet was an upcall) and the guests
    # become the limit.
    sw = run("cx6dx-vxlan-small-packets-software", duration=0.06)
    hw = run("cx6dx-vxlan-small-packets-flow-offload", duration=0.06)
    assert sw["hosts"][0]["pmd_cpu_pct"][0] > 95
    assert "offlab_hw_offloaded" not in sw["hosts"][0]["counters"]
    for h in hw["hosts"]:
        assert h["pmd_cpu_pct"][0] < 1
        assert h["counters"]["offlab_hw_offloaded"] > 1000
        assert h["pmd_load"][0]["per_s"]["packets"] == 0  # in the window: none in software
    assert min(hw["hosts"][0]["guest_cpu_pct"]) > 95
    assert hw["goodput_gbps"] > 1.1 * sw["goodput_gbps"]


def test_a_trunk_port_without_userspace_tso_leaves_everything_to_software() -> None:
    # Without userspace-tso-enable a netdev-linux port advertises no offload
    # and vhost offers the guests no TSO: segments of at most 1448 bytes
    # (1500 - 20 - 32) instead of 64 KB TSO packets, each TCP checksum summed
    # by OVS; with it the adapter finishes them (only IPv4 header checksums in
    # software). Packets here count the returning ACKs too.
    on, off = run("ibmveth-trunk-offload"), run("ibmveth-trunk-no-offload")

    def per_byte(r: dict, what: str) -> float:
        return r["hosts"][0]["pmd_load"][0]["per_s"][what] / (r["goodput_gbps"] * 1e9 / 8)

    assert per_byte(off, "packets") > 10 * per_byte(on, "packets")
    assert 1 / per_byte(off, "packets") < 1448
    assert per_byte(off, "csum_bytes") > 0.95  # every payload byte, plus headers
    assert per_byte(on, "csum_bytes") < 0.01
    assert off["goodput_gbps"] < on["goodput_gbps"] / 2


def test_vxlan_without_udp_csum_loses_gro_on_a_nic_without_inner_validation() -> None:
    with_csum = run("ixgbe-vxlan-gro-csum")
    without = run("ixgbe-vxlan-gro-nocsum")
    rx_with, rx_without = with_csum["hosts"][1]["nic"], without["hosts"][1]["nic"]
    assert rx_with["gro_not_validated"] == 0
    assert rx_with["gro_out"] < rx_with["gro_in"] / 4  # coalesced
    assert rx_without["gro_not_validated"] > 0
    assert rx_without["gro_out"] == rx_without["gro_in"]  # nothing merged
    # More packets reach the receiver's datapath: more PMD cycles per bit.
    per_bit = lambda r: r["hosts"][1]["pmd_cpu_pct"][0] / r["goodput_gbps"]  # noqa: E731
    assert per_bit(without) > per_bit(with_csum)


TSHARK_FIELDS = [
    "frame.comment",
    "ip.checksum.status",
    "udp.checksum.status",
    "tcp.checksum.status",
]


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark missing")
@pytest.mark.parametrize("scenario", ["default", "x710-vxlan-csum", "vxlan-ipv6-underlay"])
def test_pcap_checksum_marks_match_the_core_statuses(tmp_path: Path, scenario: str) -> None:
    r = run(scenario, out_dir=tmp_path, pcap=True, duration=0.01)
    cmd = ["tshark", "-n", "-o", "ip.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE"]
    cmd += ["-o", "tcp.check_checksum:TRUE", "-T", "fields", "-E", "separator=|"]
    for f in TSHARK_FIELDS:
        cmd += ["-e", f]
    checked = 0
    for pcap in r["pcaps"]:
        out = subprocess.run([*cmd, "-r", pcap], capture_output=True, text=True, check=True)
        for line in out.stdout.splitlines():
            comment, ip, udp, tcp = line.split("|")
            meta = json.loads(comment.removeprefix("offlab "))
            if meta.get("role", "wire") != "wire":
                continue  # a tx record's partial checksums are requests, not computed yet
            o = Offloads(meta["offloads"])
            tunnelled = udp != "" or o.tunnel() != o.tunnel().__class__.NONE
            # tshark: 0 bad, 1 good, 2 not checked/present.
            marks = {
                (Level.OUTER, Csum.IP): ip.split(",")[0],
                (Level.INNER if tunnelled else Level.OUTER, Csum.L4): tcp,
            }
            if len(ip.split(",")) > 1:
                marks[(Level.INNER, Csum.IP)] = ip.split(",")[1]
            if udp:
                marks[(Level.OUTER, Csum.L4)] = udp
            for (level, csum), mark in marks.items():
                status = o.status(level, csum)
                if mark in ("", "2") or status == CsumStatus.UNKNOWN:
                    continue
                expected = "0" if status == CsumStatus.BAD else "1"
                assert mark == expected, (pcap, meta, level, csum, mark)
                checked += 1
    assert checked > 100


BAD = {
    "unknown NIC": ("name: x\nnic: nosuchnic\n", "nosuchnic"),
    "missing field": ("name: x\ntunnel: vxlan\n", "missing field 'nic'"),
    "impossible rate": ("name: x\nnic: x710\nlink_gbps: -5\n", "link_gbps"),
    "unknown field": ("name: x\nnic: x710\nspeed: 3\n", "unknown field 'speed'"),
    "not yaml": ("name: [x\n", "not valid YAML"),
    "repeated field": ("name: x\nnic: x710\nnic: e810\n", "field 'nic' appears twice"),
    "impossible mtu": ("name: x\nnic: x710\nmtu: 100\n", "'mtu' = 100"),
    "flow offload without an eSwitch": (
        "name: x\nnic: x710\novs: {hw_offload: true}\n",
        "ovs.hw_offload needs a NIC with an eSwitch",
    ),
    "packet larger than the MSS": (
        "name: x\nnic: x710\nguest: {packet_size: 1500}\n",
        "larger than the guests' MSS 1398",
    ),
    "unknown host kind": ("name: x\nnic: x710\nhost: {kind: vpp}\n", "unknown host kind 'vpp'"),
    "unknown kernel version": (
        "name: x\nnic: x710\nhost: {kind: kernel, kernel: banana}\n",
        "banana",
    ),
    "generator above the line rate": (
        "name: x\nnic: x710\ntopology: loopback\ntunnel: none\nhost: {kind: kernel}\n"
        "generator: {frame_size: 64, rate_gbps: 120}\n",
        "rate_gbps",
    ),
    "generator with zero flows": (
        "name: x\nnic: x710\ntopology: loopback\ntunnel: none\nhost: {kind: kernel}\n"
        "generator: {flows: 0}\n",
        "'flows' = 0",
    ),
    "generator frame too small": (
        "name: x\nnic: x710\ntopology: loopback\ntunnel: none\nhost: {kind: kernel}\n"
        "generator: {frame_size: 40}\n",
        "frame_size",
    ),
    "generator without a loopback": (
        "name: x\nnic: x710\nhost: {kind: kernel}\ngenerator: {frame_size: 64}\n",
        "loopback",
    ),
    "unknown NIC feature": (
        "name: x\nnic: x710\nhost: {kind: kernel, ethtool_off: [warp-drive]}\n",
        "warp-drive",
    ),
    "ovs options on a kernel host": (
        "name: x\nnic: x710\nhost: {kind: kernel}\novs: {pmd_threads: 2}\n",
        "field 'ovs' applies to host kind ovs-dpdk",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_scenario_files(tmp_path: Path, capsys: pytest.CaptureFixture, case: str) -> None:
    text, needle = BAD[case]
    f = tmp_path / "bad.yaml"
    f.write_text(text)
    out = tmp_path / "out"
    assert main(["sim", str(f), "--out", str(out), "-q"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0], err
    assert not (out / "results.json").exists()
    assert not list(out.glob("*.pcapng")) if out.exists() else True


def test_unknown_builtin_scenario(capsys: pytest.CaptureFixture) -> None:
    assert main(["sim", "nosuch", "-q"]) == 2
    assert "unknown scenario 'nosuch'" in capsys.readouterr().err
