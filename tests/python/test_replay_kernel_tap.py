"""Replay through the kernel TAP device with virtio-net headers (the `tap`
profile's path; offlab.kernel_tap, docs/hw-replay.md).

Every sample trace and verifier counterexample is written to a kernel TAP
device (IFF_TAP|IFF_NO_PI|IFF_VNET_HDR, TUNSETOFFLOAD as netdev-linux asks for
the profile) behind the headers the core writes; the bridge forwards the
frames out of a veth without checksum offload and TSO, so the kernel completes
NEEDS_CSUM and segments GSO frames itself, and the peer captures them. Those
frames must equal, byte for byte, the `tap` profile's prediction and the
kernel model's. Sent back from the peer, the frames reach the TAP reader with
the header the kernel writes (GRO on the bridge port), which must be the
kernel model's. Seeded faults that change what offlab writes must show as
mismatches.

Oracles: the running kernel's bytes and headers, and the independent
dissector's checksum verdicts on the captured frames."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import offlab
from offlab import _core, kernel_tap, trace
from offlab import kernel_tap_predict as KP
from offlab.lab.nsutil import lab_namespaces

REPO = Path(__file__).resolve().parents[2]
SAMPLES = sorted((REPO / "traces").glob("*.pcapng"))
NEEDS_CSUM, DATA_VALID = 1, 2
GSO_TCPV4, GSO_TCPV6 = 1, 4

_why = kernel_tap.unavailable()
pytestmark = pytest.mark.skipif(_why is not None, reason=f"kernel TAP replay: {_why}")


def no_lab_state_left(before: set[str] | None = None) -> None:
    """No namespace of this process's labs (or none new since `before`) is left."""
    left = set(lab_namespaces())
    mine = {n for n in left if n.startswith(f"olab-{os.getpid()}-")}
    assert not mine, mine
    if before is not None:
        assert not left - before, left - before


@pytest.fixture(scope="module")
def results(counterexamples: list[Path]) -> list[kernel_tap.Result]:
    out = kernel_tap.replay([*SAMPLES, *counterexamples])
    no_lab_state_left()
    return out


def test_every_trace_matches_the_tap_profile_and_the_kernel_model(
    results: list[kernel_tap.Result],
) -> None:
    for r in results:
        assert not r.rows, kernel_tap.report([r], "tap")
        want = sum(len(KP.profile_wire(rec, offlab.builtin_profile("tap")))
                   for rec in trace.read(r.path) if rec.role == "tx")  # fmt: skip
        assert len(r.wire) == want, r.path.name


def test_the_kernel_did_the_offload_work(results: list[kernel_tap.Result]) -> None:
    """The replay exercised what it is for: NEEDS_CSUM headers and GSO headers
    of both IP versions were written, the kernel segmented each GSO frame into
    gso_size pieces, and every checksum of the samples' wire frames verifies."""
    by_name = {r.path.name: r for r in results}
    for name, gso_type in (("tcp-tso-partial.pcapng", GSO_TCPV4),
                           ("tcp6-tso-partial.pcapng", GSO_TCPV6)):  # fmt: skip
        r = by_name[name]
        assert [(w.hdr.flags, w.hdr.gso_type, w.hdr.gso_size) for w in r.writes] == [
            (NEEDS_CSUM, gso_type, 1000)
        ]
        # 2500 payload bytes at MSS 1000: 1000 + 1000 + 500 (hand derivation).
        hdrs = 54 if gso_type == GSO_TCPV4 else 74
        assert [len(f) for f in r.wire] == [hdrs + 1000, hdrs + 1000, hdrs + 500]
    for r in results:
        if r.path not in SAMPLES or r.path.name == "tcp-bad-stays-bad.pcapng":
            continue  # wrong on purpose: a bad TCP checksum, the verifier's findings
        for f in r.wire:
            bad = {k: v for k, v in trace.csum_verdicts(f).items() if v not in ("ok", "absent")}
            assert not bad, (r.path.name, bad)
    bad_sample = trace.csum_verdicts(by_name["tcp-bad-stays-bad.pcapng"].wire[0])
    assert bad_sample["tcp"] == "bad"


def test_the_kernel_reports_what_the_model_predicts_on_the_way_back(
    results: list[kernel_tap.Result],
) -> None:
    """What reads of the TAP return for the frames sent back from the veth
    peer (compared field by field with the kernel model in `rows`): GRO on
    the bridge port merges the TSO samples' segments into one GSO frame
    (NEEDS_CSUM, gso_type of its IP version, gso_size the MSS), and a TCP or
    UDP checksum GRO verified arrives as DATA_VALID."""
    by_name = {r.path.name: r for r in results}
    for name, gso_type, hdrs in (("tcp-tso-partial.pcapng", GSO_TCPV4, 54),
                                 ("tcp6-tso-partial.pcapng", GSO_TCPV6, 74)):  # fmt: skip
        ((hdr, frame),) = by_name[name].reads
        assert (hdr.flags, hdr.gso_type, hdr.gso_size) == (NEEDS_CSUM, gso_type, 1000)
        assert (hdr.csum_start, hdr.csum_offset) == (hdrs - 20, 16)
        assert len(frame) == hdrs + 2500
    flags = {h.flags for r in results for h, _ in r.reads}
    assert DATA_VALID in flags and NEEDS_CSUM in flags
    for r in results:
        assert r.reads, r.path.name


def _written(path: Path, fault: str | None) -> list[KP.Written]:
    tap = offlab.builtin_profile("tap")
    with KP.faults([fault] if fault else []):
        return [w for rec in trace.read(path) if rec.role == "tx" for w in KP.written(rec, tap)]


def test_seeded_faults_that_change_the_wire_are_mismatches(counterexamples: list[Path]) -> None:
    """Every seeded fault that changes what netdev-linux writes to the TAP
    for some trace is replayed: the kernel completes the checksum from the
    wrong seed, and the frame on the veth differs from the prediction, with a
    checksum the dissector calls bad. OVS 5603b869a's IPv6 UDP pseudo-header
    base (the Geneve sample's inner IPv6/UDP) is one of them."""
    shown = set()
    for fault in _core.fault_names():
        for path in [*SAMPLES, *counterexamples]:
            if _written(path, fault) == _written(path, None):
                continue
            (r,) = kernel_tap.replay([path], inject=[fault], reverse=False)
            rows = [row for row in r.rows if row.what.startswith("bytes (tap,")]
            assert rows, (fault, path.name, kernel_tap.report([r], "tap"))
            assert all(":bad" in row.actual for row in rows), rows
            shown.add(fault)
    assert "vnet-ipv6-udp-wrong-pseudo-base" in shown
    no_lab_state_left()


def test_a_failure_midway_leaves_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(self: kernel_tap.KernelTapPort, writes: object) -> list[bytes]:
        raise RuntimeError("stop here")

    monkeypatch.setattr(kernel_tap.KernelTapPort, "transmit", boom)
    with pytest.raises(RuntimeError, match="stop here"):
        kernel_tap.replay(SAMPLES[:1])
    no_lab_state_left()


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "offlab.cli", "replay", *args],
                          capture_output=True, text=True, timeout=120, check=False)  # fmt: skip


def test_cli() -> None:
    before = set(lab_namespaces())
    res = cli("kernel-tap", str(REPO / "traces" / "tcp6-tso-partial.pcapng"))
    assert res.returncode == 0, res.stdout + res.stderr
    assert "kernel-tap: 1 traces, 0 mismatches" in res.stdout, res.stdout
    res = cli("kernel-tap", str(REPO / "traces" / "geneve-udp6-partial.pcapng"),
              "--inject", "vnet-ipv6-udp-wrong-pseudo-base")  # fmt: skip
    assert res.returncode == 1, res.stdout + res.stderr
    assert "udp@1:bad" in res.stdout, res.stdout
    for bad in (["kernel-tap", str(REPO / "no-such.pcapng")],
                ["kernel-tap", str(SAMPLES[0]), "--inject", "no-such-fault"],
                ["kernel-tap", str(SAMPLES[0]), "--", "--no-huge"]):  # fmt: skip
        res = cli(*bad)
        assert res.returncode == 2, (bad, res.stdout, res.stderr)
        assert res.stdout == "" and res.stderr.count("\n") == 1, (bad, res.stderr)
        assert res.stderr.startswith("offlab: error: "), res.stderr
    no_lab_state_left(before)
