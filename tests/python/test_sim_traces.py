"""The simulator's pcaps are offlab traces (format v1): every library scenario's
trace replays through hw-replay on DPDK's pcap PMD to the frames the core
predicts for the `pcap` profile, tshark agrees with every checksum, and the
simulator's own wire frames are the core's prediction for the scenario's NIC.

Oracles: predictions come from the Python bindings (NetdevSend + NicTransmit) in
this process, checksum verdicts from tshark."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from test_replay import assert_tshark_agrees, predicted, tx_to

import offlab
from offlab import hw_replay, sim, trace


def _ovs_host(scenario: str) -> bool:
    # The traces' tx records are OVS's netdev_send calls: kernel hosts write
    # wire frames only (tests/python/test_sim_kernel.py checks theirs).
    doc = yaml.safe_load((sim.data_dir() / "scenarios" / f"{scenario}.yaml").read_text())
    return doc.get("host", {}).get("kind", "ovs-dpdk") == "ovs-dpdk"


SCENARIOS = [s for s in sim.builtin_scenarios() if _ovs_host(s)]
DURATION = 0.002  # simulated seconds: tens of TSO packets, a few MB of trace


def sim_traces(tmp_path: Path, scenario: str) -> list[Path]:
    r = sim.run(scenario, out_dir=tmp_path / "sim", pcap=True, duration=DURATION)
    paths = [Path(p) for p in r["pcaps"]]
    assert all(p.is_file() for p in paths)
    return paths


@pytest.mark.skipif(hw_replay.binary_path() is None, reason="hw-replay not built")
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_library_trace_replays_to_the_pcap_prediction(tmp_path: Path, scenario: str) -> None:
    for path in sim_traces(tmp_path, scenario):
        records = trace.read(path)  # validates every record against the format
        assert any(r.role == "tx" for r in records), path.name
        out = tmp_path / f"{path.stem}-replayed.pcap"
        res = tx_to(path, out)
        assert res.returncode == 0, res.stderr
        assert trace.read_frames(out) == predicted(records), path.name
        assert_tshark_agrees(out, records)


def default_ovs(scenario: str) -> bool:
    # trace.predict runs OVS's default egress (payload-independent outer UDP
    # checksum, partial GSO) for a port with the profile's offloads (as with
    # userspace-tso-enable); scenarios that switch those off predict otherwise.
    doc = yaml.safe_load((sim.data_dir() / "scenarios" / f"{scenario}.yaml").read_text())
    ovs = doc.get("ovs", {})
    keys = ("udp_tunnel_csum", "partial_gso", "userspace_tso")
    return all(ovs.get(k, True) for k in keys)


@pytest.mark.parametrize("scenario", [s for s in SCENARIOS if default_ovs(s)])
def test_simulated_wire_frames_are_the_cores_prediction(tmp_path: Path, scenario: str) -> None:
    checked = 0
    for path in sim_traces(tmp_path, scenario):
        records = trace.read(path)
        wires: dict[int, list[trace.Record]] = {}
        for r in records:
            if r.role == "wire" and "of" in r.meta:  # not a frame the NIC's eSwitch made
                wires.setdefault(r.meta["of"], []).append(r)
        for i, tx in enumerate(records):
            if tx.role != "tx":
                continue
            mine = wires.get(i, [])
            assert mine, (path.name, i)
            profile = offlab.builtin_profile(mine[0].meta["profile"])
            frames, errors = trace.predict(tx, profile)
            assert not errors
            assert [w.frame for w in mine] == [f.bytes() for f in frames], (path.name, i)
            assert [w.offloads for w in mine] == [f.offloads.word for f in frames]
            checked += 1
    assert checked > 10
