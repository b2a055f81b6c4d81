"""`offlab sweep`: the cartesian product through the simulator, on a local pool
and on a Dask LocalCluster, resumable, with bad sweep files rejected.

Oracles: each row must equal a direct `sim.run` of that point's scenario (the
simulator is deterministic), and the Dask run must equal the local pool's."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml

from offlab import sim, sweep
from offlab.cli import main

SWEEP = """
name: small
base: default
set: {duration_s: 0.04, warmup_s: 0.01}
vary:
  nic: [connectx6dx, x710]
  outer_udp_csum: [false, true]
"""
METRICS = [m for m in sweep.METRICS if m != "wall_seconds"]


def write(tmp_path: Path, text: str, name: str = "sweep.yaml") -> Path:
    f = tmp_path / name
    f.write_text(text)
    return f


def test_local_sweep_rows_are_the_simulators_results(tmp_path: Path) -> None:
    f = write(tmp_path, SWEEP)
    out = tmp_path / "out"
    table = sweep.run(f, out, jobs=2)
    assert list(table["nic"]) == ["connectx6dx", "connectx6dx", "x710", "x710"]
    assert list(table["outer_udp_csum"]) == [False, True, False, True]
    assert (table["status"] == "ok").all()
    spec = sweep.load(f)
    for point, (_, row) in zip(spec.points, table.iterrows(), strict=True):
        assert point.scenario["nic"] == row["nic"]
        scenario = write(tmp_path, yaml.safe_dump(point.scenario), f"{point.id}.yaml")
        direct = sweep.metrics(sim.run(scenario))
        for m in METRICS:
            assert row[m] == pytest.approx(direct[m], rel=1e-9, nan_ok=True), (point.label(), m)
    csv = pd.read_csv(out / "results.csv")
    parquet = pd.read_parquet(out / "results.parquet")
    assert len(csv) == len(parquet) == 4
    assert list(parquet["goodput_gbps"]) == pytest.approx(list(table["goodput_gbps"]))
    for stem in ("goodput", "cpu"):
        for ext in ("png", "svg"):
            assert (out / f"{stem}.{ext}").stat().st_size > 5000, (stem, ext)
    assert not list(out.glob("*.tmp*"))


def test_dask_local_cluster_gives_the_local_pools_table(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    f = write(tmp_path, SWEEP)
    local = sweep.run(f, tmp_path / "local", jobs=2)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        on_dask = sweep.run(f, tmp_path / "dask", scheduler=cluster.scheduler_address)
    cols = ["point", "nic", "outer_udp_csum", "status", *METRICS]
    pd.testing.assert_frame_equal(local[cols], on_dask[cols])


def offlab_cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "offlab.cli", *args]


def test_a_killed_sweep_resumes_with_only_the_missing_points(tmp_path: Path) -> None:
    text = SWEEP.replace("[false, true]", "[false, true]\n  underlay: [ipv4, ipv6]")
    f = write(tmp_path, text)
    out = tmp_path / "out"
    points = out / "points"
    proc = subprocess.Popen(
        offlab_cli("sweep", str(f), "--out", str(out), "--jobs", "1", "-q"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(list(points.glob("*.json"))) < 3:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done = {p.name: p.stat().st_mtime_ns for p in points.glob("*.json")}
    assert 3 <= len(done) < 8, "the sweep must be killed halfway"
    assert not (out / "results.csv").exists()

    r = subprocess.run(
        offlab_cli("sweep", str(f), "--out", str(out), "-q"), capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr
    assert f"8 points, {len(done)} finished, {8 - len(done)} to run" in r.stderr
    after = {p.name: p.stat().st_mtime_ns for p in points.glob("*.json")}
    assert len(after) == 8
    assert all(after[name] == mtime for name, mtime in done.items())  # not run again
    assert len(pd.read_csv(out / "results.csv")) == 8


def test_a_failed_point_keeps_the_others_and_is_retried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    f = write(tmp_path, SWEEP)
    out = tmp_path / "out"
    real = sweep.run_point

    def flaky(scenario: dict, work_dir: str | None = None) -> dict:
        if scenario["nic"] == "x710" and scenario["outer_udp_csum"]:
            return {"error": "worker lost"}
        return real(scenario, work_dir)

    monkeypatch.setattr(sweep, "run_point", flaky)
    assert main(["sweep", str(f), "--out", str(out), "-q"]) == 1
    err = capsys.readouterr().err
    assert "point nic=x710, outer_udp_csum=on failed: worker lost" in err
    table = pd.read_csv(out / "results.csv")
    assert list(table["status"]) == ["ok", "ok", "ok", "failed"]
    assert table["goodput_gbps"][:3].notna().all() and pd.isna(table["goodput_gbps"][3])

    monkeypatch.setattr(sweep, "run_point", real)
    assert main(["sweep", str(f), "--out", str(out), "-q"]) == 0
    assert "4 points, 3 finished, 1 to run" in capsys.readouterr().err
    assert (pd.read_csv(out / "results.csv")["status"] == "ok").all()


BAD = {
    "unknown parameter": ("vary: {speed: [1, 2]}\n", "unknown field 'speed'"),
    "empty product": ("vary: {nic: []}\n", "empty product"),
    "no vary": ("base: default\n", "empty product"),
    "bad value": ("vary: {nic: [x710, nosuchnic]}\n", "point nic=nosuchnic"),
    "unknown top-level field": ("vary: {nic: [x710]}\nrepeat: 3\n", "unknown field 'repeat'"),
    "unknown base": ("base: nosuch\nvary: {nic: [x710]}\n", "unknown scenario 'nosuch'"),
    "not yaml": ("vary: [\n", "not valid YAML"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_sweep_files(tmp_path: Path, capsys: pytest.CaptureFixture, case: str) -> None:
    text, needle = BAD[case]
    f = write(tmp_path, text)
    out = tmp_path / "out"
    assert main(["sweep", str(f), "--out", str(out), "-q"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0], err
    assert not out.exists()


def test_an_unreachable_scheduler_keeps_finished_results(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    f = write(tmp_path, SWEEP)
    out = tmp_path / "out"
    assert main(["sweep", str(f), "--out", str(out), "-q"]) == 0
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    # A new point, so there is something to send to the scheduler.
    write(tmp_path, SWEEP.replace("[connectx6dx, x710]", "[connectx6dx, x710, e810]"))
    args = ["sweep", str(f), "--out", str(out), "-q", "--connect-timeout", "2"]
    assert main([*args, "--scheduler", "tcp://127.0.0.1:1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:1" in err[-1]
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_builtin_sweeps_expand() -> None:
    names = sweep.builtin_sweeps()
    assert {"nic-matrix", "ovs-steps"} <= set(names)
    for name in names:
        s = sweep.load(name)
        assert len(s.points) > 1
        sweep.check(s)
    steps = sweep.load("ovs-steps")
    assert {p.scenario["nic"] for p in steps.points} >= {"connectx6dx", "x710"}
    # A varied base brings its own OVS options; the varied NIC overrides its NIC.
    before = next(p for p in steps.points if p.params["base"].endswith("before"))
    assert before.scenario["ovs"] == {"udp_tunnel_csum": False, "partial_gso": False}
    assert json.dumps(before.scenario)  # plain data, shippable to Dask workers
