"""The kernel-cost measurement (sim/calibration/kernel_lab_costs.py): its fit on
synthetic data whose costs are chosen here, its counting rules on counter deltas
worked out by hand, the YAML round trip, and (root only) a --quick run on the
running kernel that must leave no namespace or link behind."""

from __future__ import annotations

import importlib
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import yaml

from offlab.lab import nsutil

ROOT = Path(__file__).resolve().parents[2]
CAL = ROOT / "sim" / "calibration"
sys.path.insert(0, str(CAL))
costs = importlib.import_module("kernel_lab_costs")
lab = importlib.import_module("kernel_lab_experiments")

CLOCK = 2.0e9
# Chosen costs (cycles): poll, rx frame, GRO merge, packet, tx frame, segment,
# csum byte, copy byte, socket call, TCP skb, wakeup.
TRUE = np.array([1800.0, 500.0, 250.0, 2200.0, 900.0, 400.0, 0.4, 0.25, 1500.0, 6000.0, 4000.0])


def synthetic(noise: float = 0.0, zero_col: int | None = None, seed: int = 7) -> list[dict]:
    """Experiments whose CPU seconds are exactly counts . TRUE / CLOCK (times a
    random factor within +-noise), three repeats each."""
    rng = np.random.default_rng(seed)
    exps = []
    for i in range(30):
        # Sparse, as the real experiments are: each kind of work in about half.
        scale = np.array([20, 40, 40, 40, 40, 40, 6e4, 1e5, 10, 10, 10])
        base = rng.uniform(0.1, 1, len(TRUE)) * scale * (rng.uniform(0, 1, len(TRUE)) < 0.5)
        if zero_col is not None:
            base[zero_col] = 0.0
        reps = []
        for _ in range(3):
            sends = int(rng.integers(10_000, 50_000))
            c = base * sends
            cpu = float(c @ TRUE) / CLOCK * (1 + rng.uniform(-noise, noise))
            counts = {k: float(v) for k, v in zip(costs.COLS, c, strict=True)}
            reps.append({**counts, "sends": sends, "cpu_s": cpu, "window_s": 2.0,
                         "others_busy_s": 0.5})  # fmt: skip
        exps.append({"name": f"e{i}", "what": "synthetic", "reps": reps})
    return exps


def fitted(doc: dict) -> np.ndarray:
    every = {**doc["costs"], **doc["endpoint_costs"]}
    return np.array([every[k] for k in costs.KEYS])


def test_exact_data_gives_back_the_costs_put_in() -> None:
    doc = costs.fit(synthetic(), CLOCK, ridge=1e-9, boot=5)
    np.testing.assert_allclose(fitted(doc), TRUE, rtol=1e-3)
    assert all(abs(r) < 0.1 for r in doc["residual_pct"].values())
    assert doc["costs"]["clock_hz"] == 2.6e9


def test_noisy_repeats_stay_near_the_costs_put_in() -> None:
    # +-2 % per repeat, the median of three: each cost within 10 %, the
    # residuals within the noise (and the ridge's small pull), and the repeats
    # give each cost a spread.
    doc = costs.fit(synthetic(noise=0.02), CLOCK, boot=50)
    np.testing.assert_allclose(fitted(doc), TRUE, rtol=0.10)
    assert all(abs(r) <= 4.0 for r in doc["residual_pct"].values())
    for k in costs.KEYS:
        lo, hi = doc["spread_16_84"][k]
        assert lo < hi


def test_a_cost_no_experiment_exercises_is_its_prior() -> None:
    # No segments anywhere: the data cannot say, the ridge returns the prior
    # and says so (prior weight 1); the others are still recovered.
    doc = costs.fit(synthetic(zero_col=5), CLOCK, ridge=1e-6, boot=5)
    assert doc["costs"]["cycles_per_segment"] == pytest.approx(costs.PRIORS["cycles_per_segment"])
    assert doc["prior_weight"]["cycles_per_segment"] == pytest.approx(1.0)
    assert doc["prior_weight"]["cycles_per_packet"] < 0.01
    np.testing.assert_allclose(np.delete(fitted(doc), 5), np.delete(TRUE, 5), rtol=1e-3)


def test_costs_are_never_negative() -> None:
    # Data that would want a negative per-packet cost: the bound holds it at 0.
    exps = synthetic()
    for e in exps:
        for r in e["reps"]:
            r["cpu_s"] -= r["packets"] * 3000 / CLOCK
            r["cpu_s"] = max(r["cpu_s"], 1e-9)
    doc = costs.fit(exps, CLOCK, boot=5)
    assert min(fitted(doc)) >= 0.0


def test_counts_of_a_vxlan_run_worked_out_by_hand() -> None:
    # 10 TCP sends of 64 KB through VXLAN, software GSO at s0 into 460 frames
    # of 1464 bytes each; 20 ACK frames back. GRO at r0 merged the 460 into 10
    # skbs; the background adds 1 NET_RX run and 1 processed skb per second
    # over the 2 s window.
    exp = next(e for e in lab.EXPERIMENTS if e.name == "vx-tcp-gso-gro")
    d = {
        "all:time_s": 2.0,
        "all:NET_RX": 32.0,
        # r: 10 outer + 10 inner skbs; s: 20 outer + 20 inner ACKs; 2 background
        "all:processed": 62.0,
        "s:dev.s0.tx_packets": 460.0,
        "s:dev.s0.tx_bytes": 460.0 * 1464,
        "s:dev.s0.rx_packets": 20.0,
        "s:dev.vx0.tx_packets": 10.0,
        "s:dev.vx0.rx_packets": 20.0,
        "r:dev.r0.rx_packets": 460.0,
        "r:dev.r0.tx_packets": 20.0,
        "r:dev.vx0.rx_packets": 10.0,
        "r:dev.vx0.tx_packets": 20.0,
        "r:dev.lo.tx_packets": 3.0,
        "s:Ip.OutRequests": 20.0,  # 10 inner + 10 outer
        "r:Ip.OutRequests": 40.0,  # 20 ACKs + 20 outer
        "tx_bytes": 655360.0,
        "rx_bytes": 655360.0,
        "tx_calls": 10.0,
        "rx_calls": 12.0,
        "tx_wakeups": 4.0,
        "rx_wakeups": 7.0,
    }
    c = lab.counts(exp, d, {"NET_RX": 1.0, "processed": 1.0})
    assert c["polls"] == 30
    assert c["rx_frames"] == 480  # 460 at r0 + 20 at s0
    # skbs out of the first GRO: processed 60 less 30 decapsulated re-entries
    assert c["gro_merges"] == 480 - 30
    assert c["packets"] == 60 + 60
    assert c["tx_frames"] == 460 + 10 + 20 + 20  # not lo
    assert c["segments"] == 460
    assert c["csum_bytes"] == 0
    assert c["copy_bytes"] == 2 * 655360
    assert c["socket_calls"] == 22
    assert c["tcp_skbs"] == 60 - 30
    assert c["wakeups"] == 11


def test_checksum_bytes_are_the_l4_bytes_of_each_data_frame_twice() -> None:
    # 100 UDP datagrams of 1400 payload bytes: frames of 14 + 20 + 8 + 1400.
    exp = next(e for e in lab.EXPERIMENTS if e.name == "udp1400-csum")
    d = {k: 0.0 for k in ("all:NET_RX", "all:processed", "tx_calls", "rx_calls")}
    d |= {"tx_wakeups": 0.0, "rx_wakeups": 0.0}
    d |= {"all:time_s": 1.0, "s:dev.s0.tx_packets": 100.0, "s:dev.s0.tx_bytes": 100.0 * 1442}
    d |= {"tx_bytes": 140000.0, "rx_bytes": 140000.0}
    c = lab.counts(exp, d, {"NET_RX": 0.0, "processed": 0.0})
    assert c["csum_bytes"] == 2 * 100 * 1408


def test_yaml_round_trip_keeps_the_costs_and_refits_to_them(tmp_path: Path) -> None:
    exps = synthetic()
    doc = {"source": "test", "experiments": exps, **costs.fit(exps, CLOCK, ridge=1e-9, boot=5)}
    out = tmp_path / "k.yaml"
    costs.write_yaml(doc, out)
    back = yaml.safe_load(out.read_text())
    assert back["costs"] == doc["costs"]
    assert back["source"] == "test"
    again = costs.fit(back["experiments"], CLOCK, ridge=1e-9, boot=5)
    np.testing.assert_allclose(fitted(again), TRUE, rtol=1e-3)


def test_refit_of_a_stored_run_gives_back_the_costs_put_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    stored = {"source": "test", "clock_hz_measured": CLOCK, "experiments": synthetic()}
    path = tmp_path / "stored.yaml"
    costs.write_yaml(stored, path)
    monkeypatch.setattr(costs, "RIDGE", 1e-9)
    assert costs.main(["--refit", str(path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    np.testing.assert_allclose(fitted(doc), TRUE, rtol=1e-3)
    assert doc["others_busy_cpus_median"] == 0.25


def test_refit_of_something_else_is_one_line_and_exit_2(tmp_path: Path, capsys) -> None:
    path = tmp_path / "other.yaml"
    path.write_text("costs: {}\n")
    assert costs.main(["--refit", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"kernel_lab_costs: {path}: not a stored run (missing 'experiments')"]


def test_not_root_is_one_line_and_exit_2(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.setattr(costs.os, "geteuid", lambda: 1000)
    assert costs.main(["--quick"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["kernel_lab_costs: needs root (network namespaces, ethtool)"]


def _state() -> tuple[list[str], list[str]]:
    """Namespaces and root links, less the lab namespaces of a run still going
    beside this test (olab-PID-N-NAME of a live PID: another session, a
    benchmark), which are not this run's to clean up."""
    ns = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    names = [ln.split()[0] for ln in ns.splitlines() if ln.strip()]
    mine = [
        n
        for n in names
        if not (re.match(r"olab-\d+-", n) and nsutil.pid_alive(int(n.split("-")[1])))
    ]
    return sorted(mine), sorted(ln.split(":")[1] for ln in links.splitlines())


@pytest.mark.skipif(os.geteuid() != 0, reason="the --quick run needs root (network namespaces)")
def test_quick_run_measures_and_leaves_nothing_behind(tmp_path: Path) -> None:
    before = _state()
    out = tmp_path / "quick.yaml"
    t0 = time.monotonic()
    script = CAL / "kernel_lab_costs.py"
    r = subprocess.run([sys.executable, str(script), "--quick", "--json", "--write", "--out",
                        str(out)], capture_output=True, text=True, timeout=120)  # fmt: skip
    if r.returncode == 2:
        pytest.skip(r.stderr.strip())
    assert r.returncode == 0, r.stderr
    assert time.monotonic() - t0 < 60
    assert _state() == before
    doc = json.loads(r.stdout)
    assert yaml.safe_load(out.read_text())["costs"] == doc["costs"]
    assert set(costs.KERNEL) < set(doc["costs"])
    reps = {e["name"]: e["reps"][0] for e in doc["experiments"]}
    # One datagram: one frame each way of the veth, one skb into the stack and
    # one out of the socket.
    u = reps["udp64"]
    assert u["rx_frames"] == pytest.approx(u["sends"], rel=0.01)
    assert u["packets"] == pytest.approx(2 * u["sends"], rel=0.01)
    # 64000 bytes in 1400-byte segments: ceil(64000 / 1400) = 46 frames per
    # send, which GRO merges back into one skb (45 merges) for the UDP_GRO socket.
    g = reps["udpgso-seg-gro"]
    assert g["segments"] == 46 * g["sends"]
    assert 44 * g["sends"] <= g["gro_merges"] <= 45 * g["sends"]
    assert reps["udpgso-whole"]["segments"] == 0
    assert reps["udp1400-csum"]["csum_bytes"] > 0 == reps["udp1400"]["csum_bytes"]
