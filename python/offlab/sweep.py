"""``offlab sweep``: the cartesian product of scenario parameters, run through
the simulator on a local pool or a Dask cluster, as a tidy table and plots.

A sweep file::

    name: nic-matrix               # optional, default: the file's stem
    base: default                  # a built-in scenario, or a scenario file
                                   # (relative to the sweep file), or a mapping
    set: {duration_s: 0.3, warmup_s: 0.1}   # fixed for every point
    vary:                          # each key a scenario field ("guest.vms" for
      nic: [connectx6dx, x710]     # a nested one), each value a non-empty list
      outer_udp_csum: [false, true]

``vary`` may also list ``base`` scenarios, to compare setups that differ in
more than one field. Each point is identified by a hash of its whole scenario, and its result is
written to ``OUT/points/ID.json`` as soon as it finishes; a re-run reuses every
finished point and runs only the missing or failed ones.
"""

from __future__ import annotations

import concurrent.futures as cf
import copy
import hashlib
import itertools
import json
import math
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from . import safeio, sim
from ._core import OfflabError
from .sweep_metrics import METRICS, metrics, summary  # noqa: F401  (sweep.summary is public)

_TOP_KEYS = {"name", "description", "base", "set", "vary"}


@dataclass
class Point:
    params: dict[str, Any]  # the varied parameters, in the sweep's order
    scenario: dict[str, Any]  # the whole scenario document
    id: str = ""

    def __post_init__(self) -> None:
        canonical = json.dumps(self.scenario, sort_keys=True, separators=(",", ":"))
        self.id = hashlib.sha256(canonical.encode()).hexdigest()[:16]

    def label(self) -> str:
        return ", ".join(f"{k}={_show(v)}" for k, v in self.params.items())


@dataclass
class Sweep:
    name: str
    description: str
    vary: dict[str, list[Any]]
    points: list[Point] = field(default_factory=list)


def _show(v: Any) -> str:
    if isinstance(v, bool):
        return "on" if v else "off"
    return str(v)


def builtin_sweeps() -> list[str]:
    d = sim.data_dir() / "sweeps"
    return sorted(p.stem for p in d.glob("*.yaml")) if d.is_dir() else []


def resolve(name: str | Path) -> Path:
    """A sweep file, or the name of a built-in sweep."""
    s = str(name)
    if s.endswith((".yaml", ".yml")) or os.sep in s:
        p = Path(s)
        if not os.path.lexists(p):
            raise OfflabError(f"{s}: no such sweep file")
        return p
    p = sim.data_dir() / "sweeps" / f"{s}.yaml"
    if not p.is_file():
        raise OfflabError(f"unknown sweep '{s}' (built-in: {', '.join(builtin_sweeps())})")
    return p


def _set_path(doc: dict[str, Any], key: str, value: Any, where: str) -> None:
    parts = key.split(".")
    node = doc
    for part in parts[:-1]:
        child = node.setdefault(part, {})
        if not isinstance(child, dict):
            raise OfflabError(f"{where}: '{key}': '{part}' is not a mapping in the base scenario")
        node = child
    node[parts[-1]] = value


def _load_yaml(path: Path, what: str = "sweep") -> Any:
    return safeio.load_yaml(path, what)


def _base_doc(base: Any, sweep_file: Path) -> dict[str, Any]:
    """A base scenario: a mapping, a built-in name, or a file next to the sweep."""
    if isinstance(base, dict):
        return copy.deepcopy(base)
    if not isinstance(base, str):
        raise OfflabError(f"{sweep_file}: 'base' must be a scenario name, file or mapping")
    if base.endswith((".yaml", ".yml")) and (os.path.isabs(base) or ".." in Path(base).parts):
        # A shared sweep file reads its base from beside itself, never from elsewhere.
        raise OfflabError(f"{sweep_file}: 'base' {base!r} must be a file beside the sweep file")
    candidate = sweep_file.parent / base
    if base.endswith((".yaml", ".yml")) and candidate.is_file():
        base_path = candidate
    else:
        base_path = sim.resolve_scenario(base)
    scenario = _load_yaml(base_path, "scenario")
    if not isinstance(scenario, dict):
        raise OfflabError(f"{base_path}: expected a mapping")
    return scenario


def load(path: str | Path) -> Sweep:
    """Reads and expands a sweep file; raises OfflabError naming what is wrong."""
    path = resolve(path)
    doc = _load_yaml(path)
    where = str(path)
    if not isinstance(doc, dict):
        raise OfflabError(f"{where}: expected a mapping")
    unknown = sorted(set(doc) - _TOP_KEYS)
    if unknown:
        known = ", ".join(sorted(_TOP_KEYS))
        raise OfflabError(f"{where}: unknown field '{unknown[0]}' (known: {known})")
    # The name names the default output folder (offlab-out/sweep/NAME).
    name = safeio.safe_name(doc.get("name") or path.stem, f"{where}: 'name'")
    fixed = doc.get("set") or {}
    if not isinstance(fixed, dict):
        raise OfflabError(f"{where}: 'set' must be a mapping of scenario fields")
    vary = doc.get("vary")
    if not isinstance(vary, dict) or not vary:
        raise OfflabError(f"{where}: empty product: 'vary' must map scenario fields to lists")
    for k, values in vary.items():
        if not isinstance(values, list) or not values:
            raise OfflabError(f"{where}: empty product: 'vary.{k}' must be a non-empty list")
        if len({json.dumps(v, sort_keys=True) for v in values}) != len(values):
            raise OfflabError(f"{where}: 'vary.{k}' lists a value twice")
    points = math.prod(len(v) for v in vary.values())
    if points > safeio.limit("sweep_points"):
        raise OfflabError(
            f"{where}: 'vary' makes {points} points, over the limit of "
            f"{safeio.limit('sweep_points')} (raise it with {safeio.LIMITS['sweep_points'][0]})"
        )
    sweep = Sweep(name, str(doc.get("description", "")), {str(k): v for k, v in vary.items()})
    bases: dict[str, dict[str, Any]] = {}
    for combo in itertools.product(*vary.values()):
        params = dict(zip(sweep.vary, combo, strict=True))
        base = params.get("base", doc.get("base", "default"))
        key = json.dumps(base, sort_keys=True)
        if key not in bases:
            bases[key] = _base_doc(base, path)
        s = copy.deepcopy(bases[key])
        for k, v in [*fixed.items(), *params.items()]:
            if k != "base":
                _set_path(s, str(k), v, where)
        s["name"] = name
        sweep.points.append(Point(params, s))
    return sweep


def check(sweep: Sweep) -> None:
    """Validates every point's scenario with the simulator's own parser."""
    runner = sim.runner_path()
    with tempfile.TemporaryDirectory(prefix="offlab-sweep-check-") as tmp:
        for p in sweep.points:
            f = Path(tmp) / f"{p.id}.yaml"
            f.write_text(yaml.safe_dump(p.scenario, sort_keys=False))
            r = subprocess.run([str(runner), str(f), "--check"], capture_output=True, text=True)
            if r.returncode != 0:
                msg = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "invalid"
                msg = msg.replace("offlab-sim: error: ", "").replace(f"{f}: ", "")
                raise OfflabError(f"sweep {sweep.name}: point {p.label()}: {msg}")


def run_point(scenario: dict[str, Any], work_dir: str | None = None) -> dict[str, Any]:
    """Runs one point; never raises: a failure is returned as {'error': ...}.

    Module-level so that Dask workers can import and run it."""
    tmp = tempfile.mkdtemp(prefix="offlab-point-", dir=work_dir)
    try:
        f = Path(tmp) / "scenario.yaml"
        f.write_text(yaml.safe_dump(scenario, sort_keys=False))
        return {"results": sim.run(f, out_dir=Path(tmp) / "out")}
    except Exception as e:  # a point's failure must not stop the sweep
        return {"error": str(e) or type(e).__name__}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _cost_model_digest() -> str:
    # A finished point is only reusable under the cost model it ran with.
    return hashlib.sha256(sim.cost_model_path().read_bytes()).hexdigest()[:16]


def _point_file(out: Path, p: Point) -> Path:
    # A resumed output folder may hold links planted in it: never write through one.
    return safeio.confined(out, "points", f"{p.id}.json")


def _finished(out: Path, p: Point) -> dict[str, Any] | None:
    f = _point_file(out, p)
    if not f.exists():
        return None
    try:
        rec = json.loads(safeio.read_bytes(f, "finished point", "yaml_bytes"))
    except (OfflabError, ValueError):
        return None
    if not isinstance(rec, dict):
        return None
    same = rec.get("scenario") == p.scenario and rec.get("cost_model") == _cost_model_digest()
    return rec if rec.get("status") == "ok" and same else None


def _save(out: Path, p: Point, outcome: dict[str, Any]) -> dict[str, Any]:
    rec = {
        "id": p.id,
        "params": p.params,
        "scenario": p.scenario,
        "cost_model": _cost_model_digest(),
        "status": "ok" if "results" in outcome else "failed",
        "error": outcome.get("error", ""),
        "results": outcome.get("results"),
    }
    f = _point_file(out, p)
    tmp = safeio.output_file(f.parent, f.name + ".tmp")
    tmp.write_text(json.dumps(rec, indent=1))
    tmp.replace(f)  # atomic: a killed sweep leaves whole points or none
    return rec


def _local(todo: list[Point], jobs: int) -> Iterator[tuple[Point, dict[str, Any]]]:
    # Each point is an offlab-sim process; threads only wait on them.
    with cf.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(run_point, p.scenario): p for p in todo}
        try:
            for fut in cf.as_completed(futures):
                yield futures[fut], fut.result()
        except BaseException:
            for fut in futures:
                fut.cancel()
            raise


def _dask(todo: list[Point], scheduler: str, timeout: float) -> Iterator[tuple[Point, dict]]:
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise OfflabError(
            "--scheduler needs dask.distributed (pip install 'dask[distributed]')"
        ) from None
    try:
        client = Client(scheduler, timeout=f"{timeout}s")
    except (OSError, TimeoutError, ValueError) as e:
        raise OfflabError(f"cannot reach the Dask scheduler at {scheduler}: {e}") from None
    try:
        futures = client.map(run_point, [p.scenario for p in todo], pure=False)
        by_key = {f.key: p for f, p in zip(futures, todo, strict=True)}
        for fut in as_completed(futures):
            try:
                outcome = fut.result()
            except Exception as e:  # a lost worker fails only its points
                outcome = {"error": f"dask: {e}"}
            yield by_key[fut.key], outcome
    finally:
        client.close()


def run(
    path: str | Path,
    out_dir: str | Path | None = None,
    *,
    jobs: int | None = None,
    scheduler: str | None = None,
    connect_timeout: float = 10.0,
    progress: Callable[[int, int], None] | None = None,
    log: Callable[[str], None] | None = None,
) -> Any:
    """Runs a sweep (resuming a previous run in out_dir); returns the table
    (pandas.DataFrame) and writes results.csv, results.parquet and plots."""
    sweep = load(path)
    check(sweep)
    out = Path(out_dir) if out_dir is not None else Path("offlab-out") / "sweep" / sweep.name
    (out / "points").mkdir(parents=True, exist_ok=True)
    records: dict[str, dict[str, Any]] = {}
    todo = []
    for p in sweep.points:
        rec = _finished(out, p)
        if rec is None:
            todo.append(p)
        else:
            records[p.id] = rec
    total = len(sweep.points)
    if log:
        log(f"sweep {sweep.name}: {total} points, {total - len(todo)} finished, {len(todo)} to run")
    done = total - len(todo)
    if progress:
        progress(done, total)
    if todo:
        if scheduler:
            results = _dask(todo, scheduler, connect_timeout)
        else:
            results = _local(todo, jobs or os.cpu_count() or 1)
        for p, outcome in results:
            records[p.id] = _save(out, p, outcome)
            done += 1
            if progress:
                progress(done, total)
            if log and "error" in outcome:
                log(f"point {p.label()} failed: {outcome['error']}")
    table = tidy(sweep, [records[p.id] for p in sweep.points])
    write_outputs(sweep, table, out)
    return table


def tidy(sweep: Sweep, records: list[dict[str, Any]]) -> Any:
    import pandas as pd

    rows = []
    for rec in records:
        row: dict[str, Any] = {"point": rec["id"], **rec["params"], "status": rec["status"]}
        row["error"] = rec["error"]
        m = metrics(rec["results"]) if rec["status"] == "ok" else {}
        for col in METRICS:
            row[col] = m.get(col, float("nan"))
        rows.append(row)
    return pd.DataFrame(rows, columns=["point", *sweep.vary, "status", "error", *METRICS])


def write_outputs(sweep: Sweep, table: Any, out: Path) -> None:
    """results.csv, results.parquet and the plots, each written whole or not at all."""
    _atomic(out / "results.csv", lambda f: table.to_csv(f, index=False))
    _atomic(out / "results.parquet", lambda f: _parquet(table, f))
    from . import sweep_plots

    sweep_plots.plot(sweep.name, list(sweep.vary), table, out)


def _parquet(table: Any, f: Path) -> None:
    # Varied values may mix types (e.g. a list of numbers and strings); Parquet
    # needs one type per column.
    t = table.copy()
    for col in t.columns:
        if t[col].dtype == object:
            t[col] = t[col].map(lambda v: v if v is None or isinstance(v, str) else str(v))
    t.to_parquet(f, index=False)


def _atomic(path: Path, write: Callable[[Path], None]) -> None:
    path = safeio.output_file(path.parent, path.name)
    tmp = safeio.output_file(path.parent, path.name + ".tmp")
    write(tmp)
    tmp.replace(path)
