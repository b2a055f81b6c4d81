"""The kernel half of `offlab verify`: extract per (configuration, NIC
profile), prove every kernel property with Z3, and write each
counterexample as a trace (the operation sequence replayed on a concrete
witness)."""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import re

from offlab import kernel as k
from offlab import trace as trace_format

from ..prove import Result
from .abstraction import KState
from .extract import Extraction, TooCoarse, extract, kernel_profiles
from .hazards import applicable, without
from .ops import Config
from .properties import KERNEL_PROPERTIES
from .prove import prove_kernel

# The kernels the seed setups ran and the lab's; the VXLAN options that change
# checksum behaviour (outer UDP checksum, remote checksum offload).
CONFIGS: tuple[Config, ...] = (
    Config("6.18", udp_csum=True),
    Config("6.18", udp_csum=False),
    Config("6.18", udp_csum=True, remcsum=True),
    Config("rhel7", udp_csum=True),
    Config("4.0", udp_csum=False),
)


def _one(
    profile: str, cfg: Config, method: str = "search"
) -> tuple[list[Result], Extraction | None, str]:
    """Extract and prove one (profile, setting); the failures the kernel's
    documented hazards explain become HAZARD."""
    try:
        ex = extract(cfg, profile)
    except TooCoarse as e:
        return [], None, f"abstraction too coarse: {e}"
    got = prove_kernel(ex.init, ex.trans, KERNEL_PROPERTIES, profile, cfg.name, method)
    pairs = zip(KERNEL_PROPERTIES, got, strict=True)
    failed = [p for p, r in pairs if r.verdict == "FAILED"]
    hazards = applicable(cfg.kv)
    if failed and hazards:
        # A failure counts as the kernel's documented hazard only if the
        # property is proved once the hazard's transitions are gone.
        edges = without(ex.trans, hazards)
        again = prove_kernel(ex.init, edges, tuple(failed), profile, cfg.name, method)
        for p, r2 in zip(failed, again, strict=True):
            if r2.verdict == "PROVED":
                r = next(r for r in got if r.property == p.key)
                hit = [h.key for h in hazards if any(h.edge(s, op) for s, op in
                       _trace_edges(r.trace))]  # fmt: skip
                r.verdict = "HAZARD"
                r.invariant = ",".join(hit) or ",".join(h.key for h in hazards)
    return got, ex, ""


def one_light(
    profile: str, cfg: Config, method: str = "search"
) -> tuple[list[Result], Extraction | None, str]:
    """_one in a worker process: witnesses (compiled-core objects) stay there;
    counterexample writing extracts that pair again."""
    got, ex, err = _one(profile, cfg, method)
    if ex is not None:
        records = {
            r.property: counterexample_records(ex, r.trace)
            for r in got
            if r.verdict in ("FAILED", "HAZARD") and r.trace
        }
        ex = dataclasses.replace(ex, witnesses={}, records=records)
    return got, ex, err


def _one_job(job: tuple[str, Config, str]) -> tuple[list[Result], Extraction | None, str]:
    return one_light(*job)


Work = list[tuple[str, Config]]


def kernel_work(
    profiles: list[str] | None = None, configs: tuple[Config, ...] = CONFIGS
) -> tuple[dict[str, list[str]], Work]:
    """The (profile, setting) pairs to extract, one per group of profiles with
    the same Linux driver view (twins share its relation)."""
    same = _same_drivers(profiles or kernel_profiles())
    work = [(profile, cfg) for profile in same for cfg in configs]
    return same, work


def kernel_collect(
    same: dict[str, list[str]], work: Work, outs: list[tuple[list[Result], Extraction | None, str]]
) -> tuple[list[Result], list[Extraction], list[str]]:
    """The results of `work` (in its order), copied to each profile's twins."""
    results: list[Result] = []
    extractions: list[Extraction] = []
    errors: list[str] = []
    for (profile, _cfg), (got, ex, err) in zip(work, outs, strict=True):
        if err:
            errors.append(err)
            continue
        assert ex is not None
        results.extend(got)
        extractions.append(ex)
        # Profiles whose Linux driver view is identical have the same
        # relation (the profile only enters through its kernel view).
        for twin in same[profile]:
            results.extend(dataclasses.replace(r, profile=twin) for r in got)
            extractions.append(dataclasses.replace(ex, profile=twin))
    return results, extractions, errors


def verify_kernel(
    profiles: list[str] | None = None,
    configs: tuple[Config, ...] = CONFIGS,
    jobs: int | None = None,
    method: str = "search",
) -> tuple[list[Result], list[Extraction], list[str]]:
    """Results for every property x profile x configuration; extraction
    errors (abstraction too coarse) are returned as messages. Pairs run on
    `jobs` processes (default: one per core, at most 4)."""
    same, work = kernel_work(profiles, configs)
    jobs = jobs if jobs is not None else min(4, os.cpu_count() or 1)
    if jobs > 1 and len(work) > 1:
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(jobs) as pool:
            outs = pool.map(_one_job, [(p, c, method) for p, c in work])
    else:
        outs = [_one(p, c, method) for p, c in work]
    return kernel_collect(same, work, outs)


def _same_drivers(profiles: list[str]) -> dict[str, list[str]]:
    """Each profile whose kernel view (driver, features, receive checksum
    rules, quirks) another earlier one already has is that one's twin."""
    groups: dict[str, list[str]] = {}
    seen: dict[tuple, str] = {}
    for name in profiles:
        v = k.kernel_view(name)
        key = (v.driver, tuple(v.features), tuple(v.hw_enc_features), v.rx_csum,
               v.tunnel_csum_level, tuple(v.tunnels), v.rx_page_frags, v.csum_err_stat,
               tuple(sorted(v.quirks.items())))  # fmt: skip
        if key in seen:
            groups[seen[key]].append(name)
        else:
            seen[key] = name
            groups[name] = []
    return groups


def _trace_edges(trace: list[tuple[str, KState]]) -> list[tuple[KState, str]]:
    """(state, op) pairs of a trace: each op applied to the state before it."""
    return [(trace[i - 1][1], trace[i][0]) for i in range(1, len(trace))]


def counterexample_records(ex: Extraction, trace: list[tuple[str, KState]]) -> list:
    """Replays a failing trace on a witness of its first state: a step record
    per operation (the skb's bytes and state), and the wire frames."""
    from .extract import _apply  # the same application the extraction used
    from .ops import GENERIC_OPS, Device, op_xmit

    first = trace[0][1]
    if first not in ex.witnesses:  # extracted in a worker process: again here
        ex = dataclasses.replace(ex, witnesses=extract(ex.config, ex.profile).witnesses)
    w = ex.witnesses[first][0]
    ops = dict(GENERIC_OPS)
    for op, _ in trace:
        if op.startswith("xmit:"):
            dev = k.kernel_device_features(op[5:])
            ops[op] = op_xmit(Device(op[5:], dev.features, dev.hw_enc_features))
    recs = []
    if w.origin:
        recs.append(trace_format.Record(w.origin, {"op": "receive", "role": "step"}))
    cur = w
    state = first
    assert cur.skb is not None
    recs.append(
        trace_format.Record(
            cur.skb.frame,
            {"op": "skb", "role": "step", "skb": cur.skb.describe(), "state": state.describe()},
        )
    )
    for op, expected in trace[1:]:
        obj, state = _apply(op, cur, state, ex.config, ops)
        meta = {
            "op": op,
            "role": "step",
            "state": state.describe(),
            "expected": expected.describe(),
        }
        if isinstance(obj, list):
            for f in obj:
                recs.append(trace_format.Record(f, {**meta, "op": "wire", "role": "wire"}))
            break
        if obj is None:
            break
        recs.append(trace_format.Record(obj.frame, {**meta, "skb": obj.describe()}))
        from .extract import Witness

        cur = Witness(obj, [], (), w.origin)
    return recs


def write_counterexamples(
    results: list[Result], extractions: list[Extraction], out_dir: str
) -> list[str]:
    """Every failure's trace, and one example of each documented hazard."""
    paths = []
    by_key = {(ex.profile, ex.config.name): ex for ex in extractions}
    shown: set[str] = set()
    for r in results:
        if r.verdict not in ("FAILED", "HAZARD") or not r.trace:
            continue
        if r.verdict == "HAZARD":
            if r.invariant in shown:
                continue
            shown.add(r.invariant)
        ex = by_key[(r.profile, r.config)]
        name = re.sub(r"[^A-Za-z0-9_.-]+", "-", f"{r.property}-{r.profile}-{r.config}")
        path = os.path.join(out_dir, f"kernel-{name}.pcapng")
        recs = ex.records.get(r.property) or counterexample_records(ex, r.trace)
        trace_format.write(path, recs)
        paths.append(path)
        r.counterexample = path
    return paths
