"""Runs simulator scenarios (the ns-3 `offload` module's `offlab-sim` runner)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ._core import OfflabError

_PKG = Path(__file__).resolve().parent
_REPO = _PKG.parents[1]


def _first(*candidates: Path) -> Path | None:
    return next((c for c in candidates if c.exists()), None)


def runner_path() -> Path:
    """The installed runner, or the one in a source tree's build/."""
    found = _first(_PKG / "bin" / "offlab-sim", _REPO / "build" / "bin" / "offlab-sim")
    if found is None:
        raise OfflabError("offlab-sim is not built (it needs ns-3: run ./scripts/setup.sh)")
    return found


def data_dir() -> Path:
    found = _first(_PKG / "data", _REPO / "sim")
    if found is None or not (found / "scenarios").is_dir():
        raise OfflabError("the simulator's scenario library is missing")
    return found


def cost_model_path() -> Path:
    d = data_dir()
    return _first(d / "cost-model.yaml", d / "data" / "cost-model.yaml") or d / "cost-model.yaml"


def builtin_scenarios() -> list[str]:
    return sorted(p.stem for p in (data_dir() / "scenarios").glob("*.yaml"))


def resolve_scenario(name: str) -> Path:
    """A file path, or the name of a built-in scenario."""
    if name.endswith((".yaml", ".yml")) or os.sep in name:
        p = Path(name)
        if not os.path.lexists(p):
            raise OfflabError(f"{name}: no such scenario file")
        return p
    p = data_dir() / "scenarios" / f"{name}.yaml"
    if not p.is_file():
        known = ", ".join(builtin_scenarios())
        raise OfflabError(f"unknown scenario '{name}' (built-in: {known})")
    return p


def run(
    scenario: str | Path,
    out_dir: str | Path | None = None,
    *,
    pcap: bool = False,
    duration: float | None = None,
    mode: str | None = None,
    progress: Callable[[float], None] | None = None,
) -> dict[str, Any]:
    """Runs one scenario; returns its results (also written to out_dir/results.json)."""
    path = resolve_scenario(str(scenario))
    from .sim_limits import check_scenario

    check_scenario(path, duration)
    tmp = None
    if out_dir is None:
        tmp = tempfile.TemporaryDirectory(prefix="offlab-sim-")
        out_dir = tmp.name
    cmd = [str(runner_path()), str(path), "--cost", str(cost_model_path()), "--out", str(out_dir)]
    cmd += ["--progress"]
    if pcap:
        cmd.append("--pcap")
    if duration is not None:
        cmd += ["--duration", str(duration)]
    if mode is not None:
        cmd += ["--mode", mode]
    try:
        proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
        errors = []
        assert proc.stderr is not None
        for line in proc.stderr:
            if line.startswith("progress "):
                if progress:
                    progress(float(line.split()[1]))
            else:
                errors.append(line.strip())
        if proc.wait() != 0:
            msg = next((e for e in errors if "error:" in e), "; ".join(errors) or "failed")
            raise OfflabError(msg.replace("offlab-sim: error: ", ""))
        with open(Path(out_dir) / "results.json") as f:
            return json.load(f)
    finally:
        if tmp is not None:
            tmp.cleanup()


def replay(
    trace: str | Path,
    out_dir: str | Path | None = None,
    *,
    nic: str | None = None,
    rx_nic: str | None = None,
    inject: Sequence[str] = (),
    gro: bool = False,
) -> dict[str, Any]:
    """Replays a trace in the simulator: each tx record goes to a simulated
    `nic` (default: the profile its wire records name) as recorded, onto a
    cable to a receiving `rx_nic` (default: the same). Returns the results
    (also out_dir/replay.json, with the sender's pcap out_dir/replay.pcapng);
    ``result["table"]`` is the text report."""
    from . import trace as trace_format

    try:
        # The runner reads the trace itself; reading it here first applies offlab's
        # bounds (regular file, size, record count) and gives the one-line error.
        trace_format.read(trace)
    except trace_format.TraceError as e:
        raise OfflabError(str(e)) from None
    tmp = None
    if out_dir is None:
        tmp = tempfile.TemporaryDirectory(prefix="offlab-replay-")
        out_dir = tmp.name
    cmd = [str(runner_path()), "--replay", str(trace), "--out", str(out_dir)]
    if nic:
        cmd += ["--nic", nic]
    if rx_nic:
        cmd += ["--rx-nic", rx_nic]
    for fault in inject:
        cmd += ["--inject", fault]
    if gro:
        cmd.append("--gro")
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            err = proc.stderr.strip().splitlines()
            msg = next((e for e in err if "error:" in e), "; ".join(err) or "replay failed")
            raise OfflabError(msg.replace("offlab-sim: error: ", ""))
        with open(Path(out_dir) / "replay.json") as f:
            result: dict[str, Any] = json.load(f)
        result["table"] = proc.stdout
        return result
    finally:
        if tmp is not None:
            tmp.cleanup()


def progress_bar(label: str) -> Callable[[float], None]:
    """A one-line text progress bar on stderr."""

    def show(f: float) -> None:
        n = int(f * 30)
        sys.stderr.write(f"\r{label} [{'#' * n}{'.' * (30 - n)}] {f * 100:3.0f}%")
        if f >= 1:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return show


# --- The text report -------------------------------------------------------
# results.json keeps every core; the report summarises, so that one row per
# host stays readable for 1 to 64 VMs. Every key is read with .get: OVS-DPDK,
# kernel and generator runs fill different parts of the document.


# The report and the listing live in sim_report; `sim.format_table` etc. stay.
from .sim_report import (  # noqa: E402
    format_listing,
    format_table,
    listing_width,
    scenario_descriptions,
)

__all__ = [
    "builtin_scenarios",
    "cost_model_path",
    "data_dir",
    "format_listing",
    "format_table",
    "listing_width",
    "progress_bar",
    "replay",
    "resolve_scenario",
    "run",
    "runner_path",
    "scenario_descriptions",
]
