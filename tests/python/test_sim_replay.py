"""`offlab sim --replay`: a trace's tx records through a simulated NIC, cable
and receiving NIC. The simulator's pcap is itself a trace.

Oracles: tshark's checksum verdicts on the simulator's pcap; the wire records
a sample trace was written with (python/offlab/samples.py); the verifier's
counterexamples, whose violation tshark must see on the wire with the seeded
bug and not without it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from test_replay import SAMPLES, TSHARK_BAD, TSHARK_GOOD, tshark_checksums

from offlab import samples, sim, trace
from offlab.verification import verify

BUG = "intel-outer-udp-unseeded"
REPO_TRACES = Path(__file__).resolve().parents[2] / "traces"


def sim_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "offlab.cli", "sim", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def wire_rows(pcap: Path) -> list[dict[str, list[str]]]:
    """tshark's checksum statuses of the wire records (the tx records hold
    packets before the NIC, whose partial checksums are not yet written)."""
    roles = [r.role for r in trace.read(pcap)]
    return [row for row, role in zip(tshark_checksums(pcap), roles, strict=True) if role == "wire"]


@pytest.fixture(scope="module")
def counterexamples(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("cex")
    report = verify(profiles=["e810"], inject=[BUG], out=str(out), lemmas=False)
    assert not report.ok
    return {Path(p).stem: Path(p) for p in report.counterexamples}


@pytest.mark.parametrize("path", SAMPLES, ids=[p.stem for p in SAMPLES])
def test_sample_replays_to_its_recorded_wire_frames(tmp_path: Path, path: Path) -> None:
    records = trace.read(path)
    result = sim.replay(path, tmp_path)
    replayed = trace.read(tmp_path / "replay.pcapng")  # a valid trace
    assert [r.frame for r in replayed if r.role == "tx"] == [
        r.frame for r in records if r.role == "tx"
    ]
    profile = result["nic"]
    recorded = [r.frame for r in records if r.role == "wire" and r.meta["profile"] == profile]
    assert recorded, "the sample names the profile it was predicted for"
    assert [r.frame for r in replayed if r.role == "wire"] == recorded
    assert result["wire_frames"] == len(recorded)
    assert len(result["received"]) == len(recorded)  # no GRO: one packet per frame


def test_seeded_bug_shows_on_the_simulated_wire(
    tmp_path: Path, counterexamples: dict[str, Path]
) -> None:
    cex = counterexamples["P2-e810-csum-on"]
    broken = sim.replay(cex, tmp_path / "bug", inject=[BUG])
    fixed = sim.replay(cex, tmp_path / "fixed")
    assert broken["nic"] == fixed["nic"] == "e810"  # the profile the counterexample names
    assert broken["wrong_frames"] >= 1 and fixed["wrong_frames"] == 0
    bug_rows = wire_rows(tmp_path / "bug" / "replay.pcapng")
    fixed_rows = wire_rows(tmp_path / "fixed" / "replay.pcapng")
    # The outer UDP checksum is the first udp status tshark lists.
    assert all(row["udp"][0] == TSHARK_BAD for row in bug_rows)
    assert all(row["udp"][0] == TSHARK_GOOD for row in fixed_rows)
    assert all(s == TSHARK_GOOD for row in fixed_rows for v in row.values() for s in v)
    # The receiving E810 validates the outer UDP checksum and reports it.
    assert all("l4=bad" in r for r in broken["received"])
    assert not any("bad" in r for r in fixed["received"])
    assert "<- WRONG" in broken["table"] and "<- WRONG" not in fixed["table"]


def test_gre_counterexample_is_wrong_on_the_simulated_wire(
    tmp_path: Path, counterexamples: dict[str, Path]
) -> None:
    result = sim.replay(counterexamples["GRE-checksum-tso-fallback"], tmp_path)
    assert result["wire_frames"] > 1  # segmented in software
    assert result["wrong_frames"] == result["wire_frames"]
    pcap = tmp_path / "replay.pcapng"
    roles = [r.role for r in trace.read(pcap)]
    cmd = ["tshark", "-r", str(pcap), "-T", "fields", "-e", "gre.checksum.status"]
    statuses = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.split()
    wire = [s for s, role in zip(statuses, roles, strict=True) if role == "wire"]
    assert wire and all(s == TSHARK_BAD for s in wire)
    assert all(row["tcp"] == [TSHARK_GOOD] for row in wire_rows(pcap))


def test_another_nic_finishes_in_software_what_it_lacks(
    tmp_path: Path, counterexamples: dict[str, Path]
) -> None:
    # The X710 has no outer UDP checksum offload: OVS writes it in software,
    # so the seeded Intel driver bug (E810 hardware only) cannot show.
    result = sim.replay(
        counterexamples["P2-e810-csum-on"], tmp_path, nic="x710", rx_nic="connectx6dx", inject=[BUG]
    )
    assert (result["nic"], result["rx_nic"]) == ("x710", "connectx6dx")
    assert result["wrong_frames"] == 0
    rows = wire_rows(tmp_path / "replay.pcapng")
    assert rows and all(s == TSHARK_GOOD for row in rows for v in row.values() for s in v)


def test_cli_prints_the_table_and_writes_the_results(
    tmp_path: Path, counterexamples: dict[str, Path]
) -> None:
    out = tmp_path / "out"
    res = sim_cli(
        "--replay", str(counterexamples["P2-e810-csum-on"]), "--inject", BUG, "--out", str(out)
    )
    assert res.returncode == 0, res.stderr
    assert "on e810, fault intel-outer-udp-unseeded on" in res.stdout
    assert "<- WRONG" in res.stdout
    assert (out / "replay.json").stat().st_size > 0 and (out / "replay.pcapng").stat().st_size > 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--replay", "missing.pcapng"], "missing.pcapng: no such file"),
        (["--replay", "{sample}", "--nic", "nosuchnic"], "nosuchnic"),
        (["--replay", "{sample}", "--inject", "nosuchbug"], "nosuchbug"),
        (["--replay", "{truncated}"], "truncated.pcapng"),
        (["--replay", "{sample}", "default"], "not both"),
        (["default", "--nic", "e810"], "go with --replay"),
        (["--replay", "{sample}", "--duration", "1"], "not --replay"),
    ],
)
def test_bad_replay_input_is_one_clear_error(tmp_path: Path, args: list[str], message: str) -> None:
    sample = SAMPLES[0]
    truncated = tmp_path / "truncated.pcapng"
    truncated.write_bytes(sample.read_bytes()[:-7])
    out = tmp_path / "out"
    args = [a.format(sample=sample, truncated=truncated) for a in args]
    res = sim_cli(*args, "--out", str(out))
    assert res.returncode != 0
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("offlab: error:") and message in lines[0], lines
    assert not out.exists()


def test_a_record_the_nic_cannot_segment_is_named(tmp_path: Path) -> None:
    # A TSO request over UDP (IP protocol rewritten to 17 in the tcp-partial
    # sample): software GSO drops it, a NIC with hardware TSO cannot cut it.
    tx = samples.sample_records("tcp-partial")[0]
    frame = bytearray(tx.frame)
    frame[23] = 17
    meta = dict(tx.meta, tso_segsz=20, mbuf=dict(tx.meta["mbuf"], l4_len=8))
    bad = tmp_path / "tso-over-udp.pcapng"
    trace.write(bad, [trace.Record(bytes(frame), meta)])
    dropped = sim.replay(bad, tmp_path / "pcap", nic="pcap")
    assert dropped["dropped_packets"] == 1 and dropped["wire_frames"] == 0
    assert "TSO packet without a TCP header" in dropped["records"][0]["errors"][0]
    res = sim_cli("--replay", str(bad), "--nic", "e810", "--out", str(tmp_path / "e810"))
    assert res.returncode != 0
    assert "packet 1: gso: TSO packet without a TCP header" in res.stderr.strip()
    assert len(res.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "e810").exists()


def test_both_trace_readers_refuse_a_field_of_the_wrong_type(tmp_path: Path) -> None:
    # "send" and [1, 2] have the same length: the pcapng blocks stay valid.
    good = SAMPLES[0].read_bytes()
    assert b'"op": "send"' in good
    bad = tmp_path / "op-list.pcapng"
    bad.write_bytes(good.replace(b'"op": "send"', b'"op": [1, 2]', 1))
    with pytest.raises(trace.TraceError, match="packet 1: op must be a string"):
        trace.read(bad)
    # The CLI reads the trace in Python first (its bounds); the runner's own C++ reader,
    # used when offlab-sim runs directly, must refuse it as well.
    res = sim_cli("--replay", str(bad), "--out", str(tmp_path / "out"))
    assert res.returncode != 0
    assert "packet 1: op must be a string" in res.stderr
    assert not (tmp_path / "out").exists()
    runner = subprocess.run(
        [str(sim.runner_path()), "--replay", str(bad), "--out", str(tmp_path / "out2")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert runner.returncode != 0
    assert "packet 1: comment has a field of the wrong type" in runner.stderr
    assert not (tmp_path / "out2").exists()


@pytest.mark.parametrize("nic", ["connectx6dx", "x710"])
def test_the_receiver_coalesces_with_gro(tmp_path: Path, nic: str) -> None:
    # Three VXLAN segments of one TCP flow with the outer UDP checksum on: GRO
    # may merge them (a non-zero outer checksum lets the inner one be trusted),
    # keeping one copy of the 104 header bytes (eth, ipv4, udp, vxlan, eth,
    # ipv4, tcp: 14+20+8+8+14+20+20).
    path = REPO_TRACES / "vxlan-tso-partial.pcapng"
    wire = [r.frame for r in trace.read(path) if r.role == "wire"]
    assert len(wire) == 3
    result = sim.replay(path, tmp_path, nic=nic, gro=True)
    assert len(result["received"]) == 1
    merged = sum(len(f) for f in wire) - 2 * 104
    assert f" {merged} bytes, " in result["received"][0]
    assert "tunnel=vxlan" in result["received"][0]
