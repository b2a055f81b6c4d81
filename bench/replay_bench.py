#!/usr/bin/env python3
"""Packets/s of hw-replay against dpdk-testpmd over the same frames, in one run;
prints the ratio.

pcap rows: hw-replay sends a trace of packets with partial checksums (the core
completes them in software once, then every frame is sent by reference) on
DPDK's pcap PMD writing to /dev/null; testpmd io-forwards the already completed
frames read from a pcap (infinite_rx=1: from memory), its baseline for a
replay. TAP PMD row (as root, with /dev/net/tun): both send on the same
net_tap0 port, which computes the checksums in its own software and writes
every frame into the kernel TAP device; hw-replay hands it the trace's packet
with the offload requests, testpmd's csum engine (`--forward-mode=csum`,
`csum set ip|tcp|udp hw`) forwards the same packet from a pcap port in memory to
it with the same requests. Usage: bench/replay_bench.py [--seconds S]."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import offlab
from offlab import hw_replay, samples, tap_port, trace

EAL = ["--no-huge", "-m", "512", "--no-pci", "--no-shconf"]
COPIES = 256


def hw_replay_pps(trace_path: Path, loop: int) -> tuple[float, int]:
    cmd = hw_replay.command(
        "tx", str(trace_path), [*EAL, "--vdev", "net_pcap0,tx_pcap=/dev/null"], loop=loop
    )
    res = subprocess.run(cmd, capture_output=True, text=True, check=True)
    m = re.search(r"sent (\d+) frames in ([\d.]+) s", res.stdout)
    if not m:
        raise RuntimeError(f"hw-replay printed no rate:\n{res.stdout}{res.stderr}")
    sent, secs = int(m.group(1)), float(m.group(2))
    return sent / secs, sent


def testpmd_pps(pcap: Path, seconds: float) -> tuple[float, int]:
    cmd = ["dpdk-testpmd", *EAL]
    cmd += ["--vdev", f"net_pcap0,rx_pcap={pcap},infinite_rx=1,tx_pcap=/dev/null", "--"]
    cmd += ["-i", "--no-flush-rx", "--total-num-mbufs=32768", "--port-topology=loop"]
    cmd += ["--forward-mode=io"]
    p = subprocess.Popen(
        cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    assert p.stdin is not None
    time.sleep(2.0)  # EAL and port start-up
    p.stdin.write("start\n")
    p.stdin.flush()
    t0 = time.monotonic()
    time.sleep(seconds)
    p.stdin.write("stop\n")
    p.stdin.flush()
    elapsed = time.monotonic() - t0  # includes the command latency: favours testpmd
    out, _ = p.communicate("quit\n", timeout=60)
    tx = [int(x) for x in re.findall(r"TX-packets:\s+(\d+)", out)]
    if not tx:
        raise RuntimeError(f"testpmd printed no statistics:\n{out}")
    return tx[-1] / elapsed, tx[-1]


def testpmd_tap_csum_pps(port: tap_port.TapPort, pcap: Path, seconds: float) -> tuple[float, int]:
    """testpmd csum forwarding from a pcap port (in memory) to the TAP PMD port,
    which computes the checksums; packets/s sent on the TAP port."""
    cmd = ["dpdk-testpmd", *port.eal("--vdev", f"net_pcap0,rx_pcap={pcap},infinite_rx=1"), "--"]
    cmd += ["-i", "--no-flush-rx", "--total-num-mbufs=32768", "--port-topology=chained"]
    cmd += ["--forward-mode=csum"]
    p = port.popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert p.stdin is not None
    # The TAP port is 0 (--vdev order: net_tap0 first), the pcap port 1; the
    # csum engine requests the checksums of the port it transmits on.
    for c in ("port stop all", "csum set ip hw 0", "csum set tcp hw 0", "csum set udp hw 0",
              "port start all"):  # fmt: skip
        p.stdin.write(c + "\n")
    p.stdin.flush()
    time.sleep(3.0)  # EAL and port start-up, the commands above
    p.stdin.write("start\n")
    p.stdin.flush()
    t0 = time.monotonic()
    time.sleep(seconds)
    p.stdin.write("stop\n")
    p.stdin.flush()
    elapsed = time.monotonic() - t0
    out, _ = p.communicate("quit\n", timeout=60)
    # The per-port statistics of `stop`: the TAP port's (port 0) TX count.
    m = re.findall(r"Forward statistics for port 0.*?TX-packets:\s+(\d+)", out, re.S)
    if not m:
        raise RuntimeError(f"testpmd printed no statistics:\n{out[-3000:]}")
    return int(m[-1]) / elapsed, int(m[-1])  # elapsed includes the command latency


def tap_row(name: str, d: Path, seconds: float) -> str:
    """hw-replay tx and testpmd csum forwarding on one TAP PMD port, same packet."""
    tpath, ppath, per_record, size = workload(name, d, raw_partial=True)
    with tap_port.TapPort(capture=False) as port:
        cmd = hw_replay.command("tx", str(tpath), port.eal(), loop=50)
        res = port.run(cmd)
        m = re.search(r"sent (\d+) frames in ([\d.]+) s", res.stdout)
        if res.returncode != 0 or not m:
            raise RuntimeError(f"hw-replay on the TAP PMD failed:\n{res.stdout}{res.stderr}")
        rate = int(m.group(1)) / float(m.group(2))
        loop = max(1, int(rate * seconds / (per_record * COPIES)))
        res = port.run(hw_replay.command("tx", str(tpath), port.eal(), loop=loop))
        m = re.search(r"sent (\d+) frames in ([\d.]+) s", res.stdout)
        if res.returncode != 0 or not m:
            raise RuntimeError(f"hw-replay on the TAP PMD failed:\n{res.stdout}{res.stderr}")
        ours = int(m.group(1)) / float(m.group(2))
        theirs, _ = testpmd_tap_csum_pps(port, ppath, seconds)
    label = f"{name} (TAP PMD)"
    return f"{label:<22} {size:>7} {ours:>14,.0f} {theirs:>12,.0f} {ours / theirs:>5.2f}x"


def workload(name: str, d: Path, raw_partial: bool = False) -> tuple[Path, Path, int, int]:
    """A trace of COPIES copies of sample `name`, and the pcap of its wire
    frames (with raw_partial, the packet itself, checksums still to compute)."""
    records = samples.sample_records(name)
    tx = records[0]
    frames = [f.bytes() for f in trace.predict(tx, offlab.builtin_profile("pcap"))[0]]
    if raw_partial:
        frames = [tx.frame]
    tpath, ppath = d / f"{name}.pcapng", d / f"{name}.pcap"
    trace.write(tpath, [tx] * COPIES)
    trace.write_frames_pcap(ppath, frames * COPIES)
    return tpath, ppath, len(frames), len(frames[0])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=float, default=3.0, help="length of each measurement")
    args = ap.parse_args()
    if hw_replay.binary_path() is None:
        print("replay_bench: hw-replay is not built", file=sys.stderr)
        return 2
    print(f"{'workload':<22} {'frame B':>7} {'hw-replay pps':>14} {'testpmd pps':>12} {'ratio':>6}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("tcp-partial", "vxlan-tso-partial"):
            tpath, ppath, per_record, size = workload(name, Path(tmp))
            # Calibrate the loop count so that hw-replay runs about as long as testpmd.
            rate, _ = hw_replay_pps(tpath, 200)
            loop = max(1, int(rate * args.seconds / (per_record * COPIES)))
            ours, _ = hw_replay_pps(tpath, loop)
            theirs, _ = testpmd_pps(ppath, args.seconds)
            print(f"{name:<22} {size:>7} {ours:>14,.0f} {theirs:>12,.0f} {ours / theirs:>5.2f}x")
        why = tap_port.unavailable()
        if why:
            print(f"{'tcp-partial (TAP PMD)':<22} skipped: {why}")
        else:
            print(tap_row("tcp-partial", Path(tmp), args.seconds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
