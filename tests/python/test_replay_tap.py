"""hw-replay through DPDK's TAP PMD, a driver that acts on offload requests:
it computes the IPv4, TCP and UDP checksums and segments TSO packets in its
own software before the frame reaches the kernel TAP device, and checks the
checksums of frames it reads back (drivers/net/tap/rte_eth_tap.c, Debian's
DPDK 22.11.11).

Every sample trace and verifier counterexample is sent with the port's real
capabilities; the frames the kernel receives on the TAP device (AF_PACKET) must
equal, byte for byte, the core's prediction for the `dpdk_tap` profile. Check
mode then reads those frames back through the PMD, and its RX flags must be
the ones the profile predicts. Frames made wrong by a seeded fault (the
unseeded outer UDP checksum of DPDK before f876dbef0809; OVS's wrong IPv6 UDP
pseudo-header base) must show as mismatches, the PMD itself flagging the bad
checksum.

Oracles: the bytes the kernel received from the driver and the driver's own RX
verdicts; the prediction is computed in this process through the bindings."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

import offlab
from offlab import hw_replay, kernel_tap, tap_port, trace

REPO = Path(__file__).resolve().parents[2]
SAMPLES = sorted((REPO / "traces").glob("*.pcapng"))
PROFILE = "dpdk_tap"
ETH_MAX_FRAME = 1514  # an Ethernet header and a 1500-byte MTU

if (REPO / "build" / "bin" / "offlab-hw-replay").is_file():
    os.environ.setdefault("OFFLAB_HW_REPLAY", str(REPO / "build" / "bin" / "offlab-hw-replay"))

_why = (
    "hw-replay not built (DPDK absent or switched off)"
    if hw_replay.binary_path() is None
    else tap_port.unavailable()
)
pytestmark = pytest.mark.skipif(_why is not None, reason=f"TAP PMD replay: {_why}")


@pytest.fixture
def port() -> Iterator[tap_port.TapPort]:
    with tap_port.TapPort() as p:
        yield p
    assert not (tap_port.DPDK_RUN_DIR / p.prefix).exists()
    assert (
        p.ns.name
        not in subprocess.run(
            ["ip", "netns", "list"], capture_output=True, text=True, check=True
        ).stdout
    )


def predicted(records: list[trace.Record], profile: str = PROFILE) -> list[bytes]:
    nic = offlab.builtin_profile(profile)
    out: list[bytes] = []
    for r in records:
        if r.role == "tx":
            frames, errors = trace.predict(r, nic)
            assert not errors, errors
            out += [f.bytes() for f in frames]
    return out


def replay_tx(port: tap_port.TapPort, path: Path) -> list[bytes]:
    port.drain()
    res = port.run(hw_replay.command("tx", str(path), port.eal()))
    assert res.returncode == 0, res.stdout + res.stderr
    assert "port 0 (net_tap0)" in res.stdout, res.stdout
    return port.received()


def replay_check(
    port: tap_port.TapPort, path: Path, frames: list[bytes], tx_profile: str = PROFILE
) -> subprocess.CompletedProcess[str]:
    """Runs check mode on the PMD and, once it listens, sends `frames` to it."""
    cmd = hw_replay.command(
        "check", str(path), port.eal(), profile=PROFILE, tx_profile=tx_profile, timeout_ms=1500
    )
    p = port.popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert p.stdout is not None
        first = p.stdout.readline()
        assert first.startswith("check: receiving"), first + (p.stderr.read() if p.stderr else "")
        if max(map(len, frames), default=0) > ETH_MAX_FRAME:
            # The PMD set the device's MTU to its own 1500 when it attached
            # (rte_eth_tap.c:2089-2091); the kernel sends nothing longer.
            port.ns.ip("link", "set", port.iface, "mtu", "9000")
        port.send(frames)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    return subprocess.CompletedProcess(cmd, p.returncode, first + out, err)


def all_traces(counterexamples: list[Path]) -> list[Path]:
    return [*SAMPLES, *counterexamples]


def test_profile_matches_the_port(port: tap_port.TapPort) -> None:
    """The capabilities hw-replay reads from the PMD are the profile's."""
    res = port.run(hw_replay.command("tx", str(SAMPLES[0]), port.eal()))
    assert res.returncode == 0, res.stderr
    caps = offlab.caps.to_string(offlab.builtin_profile(PROFILE).tx_caps)
    assert f"port caps: {caps})" in res.stdout, res.stdout


def test_every_trace_reaches_the_kernel_as_predicted(
    port: tap_port.TapPort, counterexamples: list[Path]
) -> None:
    for path in all_traces(counterexamples):
        records = trace.read(path)
        want = predicted(records)
        got = replay_tx(port, path)
        assert len(got) == len(want), (path.name, len(got), len(want))
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            assert g == w, (path.name, i + 1, offlab.dissect(g).checksums, g.hex(), w.hex())


def test_check_mode_reads_the_frames_back_with_the_predicted_rx_flags(
    port: tap_port.TapPort, counterexamples: list[Path]
) -> None:
    for path in all_traces(counterexamples):
        frames = replay_tx(port, path)
        res = replay_check(port, path, frames)
        assert res.returncode == 0, (path.name, res.stdout, res.stderr)
        assert f"all {len(frames)} frames match" in res.stdout, res.stdout


def test_seeded_unseeded_outer_udp_checksum_is_a_mismatch(
    port: tap_port.TapPort, counterexamples: list[Path]
) -> None:
    """The frames an E810 puts on the wire with DPDK's pre-f876dbef0809 driver
    (outer UDP checksum not seeded) differ from the prediction for the fixed
    driver, and the TAP PMD itself reports their outer UDP checksum bad."""
    shown = 0
    for path in counterexamples:
        records = trace.read(path)
        good = predicted(records, "e810")
        offlab.enable_fault("intel-outer-udp-unseeded")
        try:
            bad = predicted(records, "e810")
        finally:
            offlab.clear_faults()
        if bad == good:
            continue
        res = replay_check(port, path, bad, tx_profile="e810")
        assert res.returncode == 1, (path.name, res.stdout, res.stderr)
        rows = [ln for ln in res.stdout.splitlines() if ln[:1].isdigit()]
        differing = sum(g != b for g, b in zip(good, bad, strict=True))
        assert sum("bytes" in r and "udp:bad" in r for r in rows) == differing, res.stdout
        # The driver's own check calls them bad, as the profile predicts (no rx row).
        assert f"flagged {differing} frames with a bad checksum" in res.stdout, res.stdout
        assert not [r for r in rows if " rx " in f" {r} "], rows
        shown += 1
    assert shown >= 1


def test_ipv6_tso_is_sent_whole_as_the_profile_says(port: tap_port.TapPort) -> None:
    """rte_gso segments only IPv4 TCP, so the PMD writes the IPv6 TSO sample
    to the kernel as one frame of 74 header + 2500 payload bytes with its TCP
    checksum complete (the profile's tso_ipv4_only), and the IPv4 one as
    three segments; check mode reads the long frame back (RX scatter)."""
    v6 = REPO / "traces" / "tcp6-tso-partial.pcapng"
    got = replay_tx(port, v6)
    assert [len(g) for g in got] == [74 + 2500]
    assert trace.csum_verdicts(got[0]) == {"tcp": "ok"}
    assert got == predicted(trace.read(v6))
    v4 = replay_tx(port, REPO / "traces" / "tcp-tso-partial.pcapng")
    assert [len(g) for g in v4] == [54 + 1000, 54 + 1000, 54 + 500]
    res = replay_check(port, v6, got)
    assert res.returncode == 0, (res.stdout, res.stderr)
    assert "all 1 frames match" in res.stdout, res.stdout


def test_seeded_wrong_pseudo_header_is_a_mismatch(port: tap_port.TapPort) -> None:
    """Before OVS 5603b869a, a tap port seeded an IPv6 UDP partial checksum
    with a pseudo-header read from the L4 pointer, and the kernel completed
    the checksum from that seed. The frame such a port puts on the wire (made
    by the real kernel through offlab.kernel_tap) is read through the TAP PMD:
    a byte mismatch against the fixed OVS's prediction, with the inner UDP
    checksum bad; the PMD's flags stay as predicted (it checks only the outer
    headers of a tunnelled frame, which the bug leaves alone)."""
    why = kernel_tap.unavailable()
    if why is not None:
        pytest.skip(f"kernel TAP replay: {why}")
    path = REPO / "traces" / "geneve-udp6-partial.pcapng"
    (r,) = kernel_tap.replay([path], inject=["vnet-ipv6-udp-wrong-pseudo-base"], reverse=False)
    good = predicted(trace.read(path), "tap")
    assert len(r.wire) == len(good) == 1 and r.wire != good
    res = replay_check(port, path, r.wire, tx_profile="tap")
    assert res.returncode == 1, (res.stdout, res.stderr)
    rows = [ln for ln in res.stdout.splitlines() if ln[:1].isdigit()]
    assert len(rows) == 1 and "bytes" in rows[0] and "udp@1:bad" in rows[0], res.stdout
