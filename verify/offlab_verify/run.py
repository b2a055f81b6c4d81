"""One `offlab verify` run, spread over worker processes: each checksum
setting of the userspace relation (extraction, every profile's proofs and
counterexamples), each kernel (profile, setting) pair and the lemmas is one
job; jobs run on a fork pool, largest first, and their results are gathered
in a fixed order so the report does not depend on the schedule."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable
from typing import Any

import offlab
from offlab.safeio import safe_name

from .corner_report import corner_coverage
from .counterexample import replay, witness_trace, write_pcapng
from .extract import base_op, extract, extract_send
from .operations import VNET_DRIVERS, Config
from .properties import PROPERTIES
from .prove import BadCache, Result, prove_all
from .receive import arriving_witnesses, extract_receive
from .relation import setting_dict
from .witness_files import load_witnesses


def load_profiles(names: list[str] | None) -> list[offlab.NicProfile]:
    """Built-in profile names or .yaml files; all built-in ones by default.
    Raises OfflabError for a bad name or file."""
    if not names:
        return [offlab.builtin_profile(n) for n in offlab.builtin_profile_names()]
    out = []
    for n in names:
        if n.endswith((".yaml", ".yml")):
            prof = offlab.load_profile_file(n)
            # The name becomes part of counterexample file names.
            safe_name(prof.name, f"profile {n}: name")
            out.append(prof)
        else:
            out.append(offlab.builtin_profile(n))
    return out


def _send_key(prof: offlab.NicProfile) -> tuple:
    """What the send transition depends on: the NicTx built from the profile
    (NicTx::FromProfile, models/src/nic/nic.cc, reads exactly these fields)
    and whether the port is a vnet-header one. Profiles with equal keys share
    one send extraction."""
    return (
        prof.tx_caps,
        prof.outer_udp_needs_pseudo_seed,
        prof.outer_udp_left_as_is,
        prof.driver in VNET_DRIVERS,
    )


def user_job(
    csum: bool,
    names: list[str] | None,
    inject: list[str],
    out: str,
    timeout_ms: int,
    method: str,
    witness_paths: tuple[str, ...] = (),
    export: bool = False,
    corner_states: bool = False,
) -> tuple[dict, list[Result], list[str], dict | None]:
    """Extracts the userspace relation for one checksum setting with the
    seeded bugs `inject` on (and the pinned witnesses of the corpus and of
    `witness_paths`), proves every property for every profile and writes
    each counterexample. Returns (coverage, results, files written, the
    relation as relation.setting_dict when `export`); the coverage lists
    every state's corners with `corner_states`."""
    cfg = Config(csum=csum)
    offlab.clear_faults()
    try:
        for bug in inject:
            offlab.enable_fault(bug)
        pinned, pinned_arriving = load_witnesses(list(witness_paths))
        ex = extract(cfg, extra=pinned)
        coverage = {
            "config": cfg.name,
            "initial_states": len(ex.init),
            "states": len(ex.states()),
            "transitions": len(ex.trans),
            "operations": len({base_op(op) for _, op in ex.trans}),
        }
        results: list[Result] = []
        written: list[str] = []
        cache = BadCache()
        profs = load_profiles(names)
        # Receive first: it may reach datapath states the extraction has not
        # explored, and those need send transitions too.
        arrivals = arriving_witnesses(pinned_arriving)
        rx = {p.name: extract_receive(ex, p, arrivals) for p in profs}
        coverage["states"] = len(ex.states())
        coverage["transitions"] = len(ex.trans)
        coverage["arriving_states"] = len(arrivals)
        coverage["receive_transitions"] = {n: len(e) for n, e in rx.items()}
        coverage["corners"] = corner_coverage(ex, corner_states)
        sends: dict[tuple, tuple[dict, dict]] = {}
        own: dict[str, dict] = {}  # per profile: its receive and send transitions
        for prof in profs:
            key = _send_key(prof)
            if key not in sends:
                corner_sends: dict = {}
                sends[key] = (extract_send(ex, prof, corner_sends), corner_sends)
            own[prof.name] = dict(rx[prof.name])
            own[prof.name].update({(s, "send"): t for s, t in sends[key][0].items()})
            # send@corner: a directed witness the NIC sends elsewhere.
            own[prof.name].update(sends[key][1])
            for _, label in sends[key][1]:
                vd = coverage["corners"]["value_dependent_transitions"]
                vd[f"{label}[{prof.name}]"] = vd.get(f"{label}[{prof.name}]", 0) + 1
            edges = dict(ex.trans)
            edges.update(own[prof.name])
            init = ex.init | set(arrivals)
            for r in prove_all(
                init, edges, PROPERTIES, prof.name, cfg.name, timeout_ms, method, cache
            ):
                results.append(r)
                if r.verdict == "FAILED" and r.trace:
                    r.trace = witness_trace(ex, r.trace)
                    nic = offlab.NicTx.from_profile(prof)
                    steps = replay(ex, r.trace, nic, prof.driver in VNET_DRIVERS, prof)
                    path = os.path.join(
                        out, f"{r.property}-{prof.name}-{cfg.name.replace('=', '-')}.pcapng"
                    )
                    meta = {
                        "property": r.property,
                        "profile": prof.name,
                        "config": cfg.name,
                        "faults": ",".join(inject),
                    }
                    write_pcapng(path, steps, meta)
                    written.append(path)
                    r.counterexample = path
        relation = setting_dict(ex, set(arrivals), own) if export else None
        return coverage, results, written, relation
    finally:
        offlab.clear_faults()


def kernel_job(profile: str, cfg: Any, method: str) -> tuple:
    """One kernel (profile, setting) pair; the seeded bugs are OVS userspace
    ones and stay off here."""
    from .kernel.run import one_light

    offlab.clear_faults()
    return one_light(profile, cfg, method)


def lemmas_job(timeout_ms: int) -> list:
    from .lemmas import prove_lemmas

    return prove_lemmas(timeout_ms)


Job = tuple[Callable[..., Any], tuple]


def _call(job: Job) -> Any:
    fn, args = job
    return fn(*args)


def run_jobs(jobs: list[Job], workers: int) -> list[Any]:
    """Each job's result, in the order given; on `workers` fork processes
    (in this process when 1). Jobs should come largest first: the pool hands
    them out in order."""
    if workers <= 1 or len(jobs) <= 1:
        return [_call(j) for j in jobs]
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(min(workers, len(jobs))) as pool:
        return pool.map(_call, jobs, chunksize=1)


def default_workers() -> int:
    """One per core the process may use, at most 4."""
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:
        n = os.cpu_count() or 1
    return max(1, min(4, n))
