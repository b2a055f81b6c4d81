"""Proofs over unbounded operation sequences of the extracted relation.

The relation is finite and explicit, so the default method (``search``) is
complete: a breadth-first search computes the exact set of states reachable
from the initial ones by any number of operations. That set is closed under
every transition (an inductive invariant), so a property holds for sequences
of any length exactly when no state of it is bad; when one is, the search's
parent pointers give a shortest operation sequence to it. The ``z3`` method
(kept as a cross-check) gives the same relation to Z3 as constrained Horn
clauses solved with Spacer, which answers unsat with its own invariant."""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field

import z3

from .abstraction import State
from .properties import Property, is_bad


@dataclass
class Result:
    property: str
    profile: str
    config: str
    verdict: str  # PROVED | FAILED | UNKNOWN
    seconds: float
    trace: list[tuple[str, State]] = field(default_factory=list)  # ops from an initial state
    invariant: str = ""
    counterexample: str = ""  # the trace file written for it, if any


class Chc:
    """Reach(state) as constrained Horn clauses over the extracted relation.

    States are numbered; the clauses are the initial facts and one rule per
    transition, and the query asks whether a state the property calls bad is
    derivable. Spacer answers unsat with an inductive invariant (a proof for
    sequences of any length) or sat with a derivation.
    """

    def __init__(self, init: set[State], edges: dict[tuple[State, str], State], timeout_ms: int):
        states = sorted(set(init) | set(edges.values()) | {s for s, _ in edges})
        self.ids = {s: i for i, s in enumerate(states)}
        self.reach = z3.Function("Reach", z3.IntSort(), z3.BoolSort())
        self.x = z3.Int("x")
        self.fp = z3.Fixedpoint()
        self.fp.set(engine="spacer")
        self.fp.set("timeout", timeout_ms)
        self.fp.register_relation(self.reach)
        self.fp.declare_var(self.x)
        for s in init:
            self.fp.fact(self.reach(z3.IntVal(self.ids[s])))
        for (s, _), t in edges.items():
            self.fp.rule(self.reach(z3.IntVal(self.ids[t])), self.reach(z3.IntVal(self.ids[s])))

    def check(self, bad: set[State]) -> tuple[str, str]:
        members = [self.x == self.ids[s] for s in bad if s in self.ids]
        r = self.fp.query(
            z3.And(self.reach(self.x), z3.Or(*members) if members else z3.BoolVal(False))
        )
        if r == z3.unsat:
            return "PROVED", str(self.fp.get_answer())
        if r == z3.sat:
            return "FAILED", ""
        return "UNKNOWN", self.fp.reason_unknown()


def shortest_trace(
    init: set[State], edges: dict[tuple[State, str], State], bad: set[State]
) -> list[tuple[str, State]]:
    """A shortest operation sequence from an initial state into `bad`."""
    succ: dict[State, list[tuple[str, State]]] = {}
    for (s, op), t in edges.items():
        succ.setdefault(s, []).append((op, t))
    parent: dict[State, tuple[State | None, str]] = {s: (None, "receive") for s in init}
    # Among equally short traces, prefer one from a packet with fewer checksums that
    # were already bad on ingress: the counterexample then shows the bug, not noise.
    queue = deque(sorted(init, key=lambda s: (s.g_ip + s.g_l4 + s.g_oip + s.g_ol4, s)))
    while queue:
        s = queue.popleft()
        if s in bad:
            path = []
            cur: State | None = s
            while cur is not None:
                prev, op = parent[cur]
                path.append((op, cur))
                cur = prev
            return list(reversed(path))
        for op, t in succ.get(s, []):
            if t not in parent:
                parent[t] = (s, op)
                queue.append(t)
    return []


def bad_states(states: set[State], prop: Property) -> set[State]:
    return {s for s in states if is_bad(prop, vars(s))}


METHODS = ("search", "z3")


def reachable(init: set[State], edges: dict[tuple[State, str], State]) -> set[State]:
    """Every state reachable from `init` by any number of transitions."""
    succ: dict[State, list[State]] = {}
    for (s, _), t in edges.items():
        succ.setdefault(s, []).append(t)
    seen = set(init)
    queue = deque(init)
    while queue:
        for t in succ.get(queue.popleft(), ()):
            if t not in seen:
                seen.add(t)
                queue.append(t)
    return seen


def _closed(reach: set[State], edges: dict[tuple[State, str], State]) -> bool:
    """The reachable set is an inductive invariant: no transition leaves it."""
    return all(t in reach for (s, _), t in edges.items() if s in reach)


class BadCache:
    """is_bad per (property, state), shared by the NIC profiles of one
    extraction: their relations differ only in the send transitions."""

    def __init__(self) -> None:
        self.memo: dict[tuple[str, State], bool] = {}

    def bad(self, states: set[State], prop: Property) -> set[State]:
        out = set()
        memo = self.memo
        for s in states:
            key = (prop.key, s)
            b = memo.get(key)
            if b is None:
                b = memo[key] = is_bad(prop, vars(s))
            if b:
                out.add(s)
        return out


def prove_all(
    init: set[State],
    edges: dict[tuple[State, str], State],
    props: tuple[Property, ...],
    profile: str,
    config: str,
    timeout_ms: int = 20000,
    method: str = "search",
    cache: BadCache | None = None,
) -> list[Result]:
    """One Result per property. `method` is ``search`` (explicit reachable
    set, the default) or ``z3`` (Spacer over Horn clauses)."""
    if method not in METHODS:
        raise ValueError(f"unknown proof method {method!r} (one of {', '.join(METHODS)})")
    cache = cache or BadCache()
    if method == "search":
        return _search_all(init, edges, props, profile, config, cache)
    chc = Chc(init, edges, timeout_ms)
    states = set(chc.ids)
    out = []
    for p in props:
        t0 = time.perf_counter()
        bad = cache.bad(states, p)
        verdict, info = chc.check(bad)
        res = Result(p.key, profile, config, verdict, time.perf_counter() - t0)
        if verdict == "FAILED":
            res.trace = shortest_trace(init, edges, bad)
        elif verdict == "PROVED":
            res.invariant = info
        out.append(res)
    return out


def _search_all(
    init: set[State],
    edges: dict[tuple[State, str], State],
    props: tuple[Property, ...],
    profile: str,
    config: str,
    cache: BadCache,
) -> list[Result]:
    t0 = time.perf_counter()
    reach = reachable(init, edges)
    if not _closed(reach, edges):  # cannot happen for a correct search: checked, not assumed
        raise AssertionError("reachable set not closed under the relation")
    shared = (time.perf_counter() - t0) / max(1, len(props))
    out = []
    for p in props:
        t1 = time.perf_counter()
        bad = cache.bad(reach, p)
        res = Result(p.key, profile, config, "PROVED" if not bad else "FAILED", 0.0)
        if bad:
            res.trace = shortest_trace(init, edges, bad)
        else:
            res.invariant = (
                f"the {len(reach)} reachable states (closed under {len(edges)} transitions)"
                " contain no bad state"
            )
        res.seconds = shared + time.perf_counter() - t1
        out.append(res)
    return out
