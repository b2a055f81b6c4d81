"""hw-replay on DPDK's pcap PMD (a port without offloads, so the core completes
everything in software): sample traces and verifier counterexamples replay to the
frames offlab predicts for the `pcap` profile, tshark agrees with every checksum,
check mode catches a corrupted frame and a wrong RX expectation, and bad input
fails with one line and leaves no output behind.

Oracles: the prediction is computed here, in this process, through the Python
bindings (NetdevSend + NicTransmit), not by the DPDK program under test; checksum
verdicts come from tshark; the bad checksum is the byte value the trace carries."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import offlab
from offlab import hw_replay, trace

REPO = Path(__file__).resolve().parents[2]
SAMPLES = sorted((REPO / "traces").glob("*.pcapng"))
VERIFY = [sys.executable, "-m", "offlab.cli", "verify"]
EAL = ["--no-huge", "-m", "512", "--no-pci", "--no-shconf"]

# Test the build tree's binary (scripts/test.sh has just rebuilt it) before an installed one.
if (REPO / "build" / "bin" / "offlab-hw-replay").is_file():
    os.environ.setdefault("OFFLAB_HW_REPLAY", str(REPO / "build" / "bin" / "offlab-hw-replay"))

pytestmark = pytest.mark.skipif(
    hw_replay.binary_path() is None, reason="hw-replay not built (DPDK absent or switched off)"
)

# tshark's checksum status values (epan/proto.h: PROTO_CHECKSUM_E_*).
TSHARK_BAD, TSHARK_GOOD, TSHARK_NOT_PRESENT = "0", "1", "3"


def replay(*args: str, eal: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "offlab.cli", "replay", *args, "--", *EAL, *eal],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def tx_to(trace_path: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return replay("tx", str(trace_path), eal=["--vdev", f"net_pcap0,tx_pcap={out}"])


def check_from(trace_path: Path, rx: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return replay(
        "check",
        str(trace_path),
        "--timeout",
        "200",
        *extra,
        eal=["--vdev", f"net_pcap0,rx_pcap={rx}"],
    )


def predicted(records: list[trace.Record]) -> list[bytes]:
    pcap = offlab.builtin_profile("pcap")
    out: list[bytes] = []
    for r in records:
        if r.role == "tx":
            frames, errors = trace.predict(r, pcap)
            assert not errors
            out += [f.bytes() for f in frames]
    return out


def tshark_checksums(path: Path) -> list[dict[str, list[str]]]:
    """Per frame, tshark's status of every IP/TCP/UDP checksum, outermost first."""
    fields = ["ip.checksum.status", "tcp.checksum.status", "udp.checksum.status"]
    cmd = ["tshark", "-r", str(path), "-T", "fields"]
    cmd += ["-o", "ip.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE"]
    cmd += ["-o", "udp.check_checksum:TRUE", "-E", "separator=|"]
    for f in fields:
        cmd += ["-e", f]
    res = subprocess.run(cmd, capture_output=True, text=True, check=True)
    rows = []
    for line in res.stdout.splitlines():
        cols = line.split("|")
        rows.append(
            {
                f.split(".")[0]: [v for v in c.split(",") if v]
                for f, c in zip(fields, cols, strict=True)
            }
        )
    return rows


def bad_on_ingress(r: trace.Record) -> bool:
    """A checksum status bad, or (verifier ghost state) a header bad on ingress."""
    o = offlab.Offloads(r.offloads)
    return "bad on ingress" in r.meta.get("state", "") or any(
        o.status(level, c) == offlab.CsumStatus.BAD
        for level in (offlab.Level.OUTER, offlab.Level.INNER)
        for c in (offlab.Csum.IP, offlab.Csum.L4)
    )


# offlab dissect verdicts as tshark statuses (ok, bad, absent: 0 in IPv4 / illegal in IPv6).
AS_TSHARK = {"ok": {TSHARK_GOOD}, "bad": {TSHARK_BAD}, "absent": {TSHARK_NOT_PRESENT, "4"}}


def assert_tshark_agrees(out: Path, records: list[trace.Record]) -> None:
    """tshark's verdict on every IP/TCP/UDP checksum of every frame is the one
    predicted; a bad one is only allowed if the trace's packet was bad on ingress."""
    bad_allowed = any(bad_on_ingress(r) for r in records if r.role == "tx")
    frames = predicted(records)
    rows = tshark_checksums(out)
    assert len(rows) == len(frames)
    for i, (row, frame) in enumerate(zip(rows, frames, strict=True)):
        expect: dict[str, list[str]] = {"ip": [], "tcp": [], "udp": []}
        for c in offlab.dissect(frame).checksums:
            layer = {"ipv4": "ip"}.get(c.layer, c.layer)
            if layer in expect:
                expect[layer].append(offlab.verdict_name(c.verdict))
        for layer, statuses in row.items():
            assert len(statuses) == len(expect[layer]), (i + 1, layer, statuses, expect)
            for s, v in zip(statuses, expect[layer], strict=True):
                assert s in AS_TSHARK[v], f"frame {i + 1}: {layer} tshark {s}, predicted {v}"
                assert s != TSHARK_BAD or bad_allowed, f"frame {i + 1}: {layer} became bad"


@pytest.mark.parametrize("path", SAMPLES, ids=[p.stem for p in SAMPLES])
def test_sample_replays_to_the_pcap_prediction(tmp_path: Path, path: Path) -> None:
    records = trace.read(path)
    out = tmp_path / "wire.pcap"
    res = tx_to(path, out)
    assert res.returncode == 0, res.stderr
    wire = trace.read_frames(out)
    assert wire == predicted(records)
    # The trace's own wire records were predicted for pcap too.
    assert wire == [r.frame for r in records if r.role == "wire"]
    assert_tshark_agrees(out, records)
    assert "port 0 (net_pcap0)" in res.stdout and f"tx {len(wire)} pkts" in res.stdout


def test_bad_checksum_stays_bad_byte_for_byte(tmp_path: Path) -> None:
    path = REPO / "traces" / "tcp-bad-stays-bad.pcapng"
    tx = trace.read(path)[0]
    out = tmp_path / "wire.pcap"
    assert tx_to(path, out).returncode == 0
    (frame,) = trace.read_frames(out)
    l4 = tx.meta["ofs"]["l4"]
    # The checksum field is the one the trace carries; tshark calls it bad.
    assert frame[l4 + 16 : l4 + 18] == tx.frame[l4 + 16 : l4 + 18]
    assert tshark_checksums(out)[0]["tcp"] == [TSHARK_BAD]
    assert tshark_checksums(out)[0]["ip"] == [TSHARK_GOOD]


def test_verifier_counterexamples_replay_to_the_pcap_prediction(tmp_path: Path) -> None:
    vout = tmp_path / "verify"
    res = subprocess.run(
        [
            *VERIFY,
            "--profile",
            "e810",
            "--inject",
            "intel-outer-udp-unseeded",
            "--no-lemmas",
            "--no-kernel",  # kernel-model traces carry skb steps, not a DPDK tx record
            "--out",
            str(vout),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert res.returncode == 1, res.stdout + res.stderr  # the pre-fix DPDK seed quirk is found
    paths = sorted(vout.glob("*.pcapng"))
    assert len(paths) >= 2
    for path in paths:
        records = trace.read(path)
        assert [r for r in records if r.role == "tx"], path.name
        out = tmp_path / (path.stem + ".pcap")
        res = tx_to(path, out)
        assert res.returncode == 0, (path.name, res.stderr)
        assert trace.read_frames(out) == predicted(records), path.name
        assert_tshark_agrees(out, records)


@pytest.fixture
def vxlan_wire(tmp_path: Path) -> tuple[Path, Path]:
    path = REPO / "traces" / "vxlan-tso-partial.pcapng"
    out = tmp_path / "wire.pcap"
    assert tx_to(path, out).returncode == 0
    return path, out


def test_check_mode_accepts_the_replayed_frames(vxlan_wire: tuple[Path, Path]) -> None:
    path, out = vxlan_wire
    res = check_from(path, out)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "all 3 frames match" in res.stdout


def test_check_mode_detects_an_injected_wrong_checksum(
    tmp_path: Path, vxlan_wire: tuple[Path, Path]
) -> None:
    path, out = vxlan_wire
    frames = trace.read_frames(out)
    tx = trace.read(path)[0]
    inner_tcp = tx.meta["ofs"]["inner_l4"]
    broken = bytearray(frames[1])
    broken[inner_tcp + 16] ^= 0x01  # inner TCP checksum of the second segment
    rx = tmp_path / "broken.pcap"
    trace.write_frames_pcap(rx, [frames[0], bytes(broken), frames[2]])
    res = check_from(path, rx)
    assert res.returncode == 1
    rows = [line for line in res.stdout.splitlines() if line.startswith("2 ")]
    assert len(rows) == 1 and "bytes" in rows[0] and "tcp@1:bad" in rows[0], res.stdout


def test_check_mode_detects_a_wrong_rx_expectation(
    tmp_path: Path, vxlan_wire: tuple[Path, Path]
) -> None:
    path, out = vxlan_wire
    records = trace.read(path)
    # The trace claims the pcap PMD reports the outer IP checksum good: it reports nothing.
    records[1].meta["rx"]["pcap"]["ip"] = "good"
    wrong = tmp_path / "wrong-rx.pcapng"
    trace.write(wrong, records)
    res = check_from(wrong, out)
    assert res.returncode == 1
    assert "rx ip (trace)" in res.stdout and "good" in res.stdout
    # A profile whose NIC validates on receive does not describe this port either.
    res = check_from(path, out, "--profile", "connectx6dx")
    assert res.returncode == 1 and "rx ip (connectx6dx)" in res.stdout


def test_check_mode_reports_missing_frames(tmp_path: Path, vxlan_wire: tuple[Path, Path]) -> None:
    path, out = vxlan_wire
    rx = tmp_path / "short.pcap"
    trace.write_frames_pcap(rx, trace.read_frames(out)[:2])
    res = check_from(path, rx)
    assert res.returncode == 1 and "not received" in res.stdout


def assert_clean_failure(res: subprocess.CompletedProcess[str], words: list[str], d: Path) -> None:
    assert res.returncode == 2, res.stdout + res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    for w in words:
        assert w in lines[0], lines[0]
    assert not list(d.glob("*.pcap")) and not list(d.glob(".*tmp")), list(d.iterdir())


def test_bad_input_fails_with_one_line_and_writes_nothing(tmp_path: Path) -> None:
    sample = REPO / "traces" / "tcp-partial.pcapng"
    out = tmp_path / "o"
    out.mkdir()
    vdev = ["--vdev", f"net_pcap0,tx_pcap={out / 'wire.pcap'}"]

    res = replay("tx", str(tmp_path / "missing.pcapng"), eal=vdev)
    assert_clean_failure(res, ["missing.pcapng", "no such file"], out)

    corrupt = tmp_path / "corrupt.pcapng"
    corrupt.write_bytes(sample.read_bytes()[:-10])
    assert_clean_failure(replay("tx", str(corrupt), eal=vdev), ["corrupt.pcapng", "block"], out)

    garbage = tmp_path / "garbage.pcapng"
    garbage.write_bytes(b"not a capture at all")
    assert_clean_failure(replay("tx", str(garbage), eal=vdev), ["not a pcapng"], out)

    res = replay("tx", str(sample), "--port", "7", eal=vdev)
    assert_clean_failure(res, ["unknown port '7'", "net_pcap0"], out)

    res = replay("tx", str(sample), eal=["--vdev", "net_nosuch0"])
    assert_clean_failure(res, ["EAL initialisation failed", "net_nosuch0"], out)

    res = replay("tx", str(sample), eal=[*vdev, "--no-such-eal-option"])
    assert_clean_failure(res, ["EAL initialisation failed", "no-such-eal-option"], out)

    # A partial TCP checksum without the L4 protocol bits: OVS asserts, hw-replay refuses.
    records = trace.read(sample)
    records[0].meta["offloads"] &= ~(1 << 9)
    unhonourable = tmp_path / "no-proto.pcapng"
    trace.write(unhonourable, records[:1])
    res = replay("tx", str(unhonourable), eal=vdev)
    assert_clean_failure(res, ["packet 1", "cannot honour"], out)


def test_trace_reader_rejects_inconsistent_metadata(tmp_path: Path) -> None:
    records = trace.read(REPO / "traces" / "tcp-partial.pcapng")
    records[0].meta["mbuf"]["l3_len"] = 24
    with pytest.raises(trace.TraceError, match="packet 1: mbuf lengths"):
        trace.write(tmp_path / "x.pcapng", records)
    assert not list(tmp_path.iterdir())
