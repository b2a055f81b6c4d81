#!/usr/bin/env python3
"""Packets/s of hw-replay against dpdk-testpmd io forwarding over the same frames,
both on DPDK's pcap PMD writing to /dev/null, in one run; prints the ratio.

hw-replay sends a trace of packets with partial checksums (the core completes
them in software once, then every frame is sent by reference); testpmd
forwards the already completed frames read from a pcap (infinite_rx=1: from
memory), its baseline for a replay. Usage: bench/replay_bench.py [--seconds S]."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import offlab
from offlab import hw_replay, samples, trace

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


def workload(name: str, d: Path) -> tuple[Path, Path, int, int]:
    """A trace of COPIES copies of sample `name`, and the pcap of its wire frames."""
    records = samples.sample_records(name)
    tx = records[0]
    frames = [f.bytes() for f in trace.predict(tx, offlab.builtin_profile("pcap"))[0]]
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
