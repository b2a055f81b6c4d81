"""Proofs over the kernel model's extracted relation. The default method
(``search``) computes the exact reachable set by breadth-first search, as for
the userspace relation (prove.py). The ``z3`` cross-check gives Reach(state)
as Horn clauses to Z3's datalog engine, solved bottom-up (the least fixpoint
is the same reachable set), one query per property; Spacer takes seconds per
query here once a hazard's transitions are removed, the datalog engine
milliseconds."""

from __future__ import annotations

import time

import z3

from ..properties import Property
from ..prove import METHODS, Result, bad_states, reachable, shortest_trace
from .abstraction import KState


class DatalogReach:
    def __init__(self, init: set[KState], edges: dict[tuple[KState, str], KState]):
        states = sorted(set(init) | set(edges.values()) | {s for s, _ in edges})
        self.ids = {s: i for i, s in enumerate(states)}
        bits = max(1, len(states).bit_length())
        self.sort = z3.BitVecSort(bits)
        self.fp = z3.Fixedpoint()
        self.fp.set(engine="datalog")
        self.reach = z3.Function("Reach", self.sort, z3.BoolSort())
        self.x = z3.Const("x", self.sort)
        self.fp.register_relation(self.reach)
        # Ground clauses, added before the query variable is declared so the
        # API does not wrap each in a quantifier; one per distinct (s, t): the
        # operation's name does not change what is reachable.
        for s in init:
            self.fp.add_rule(self.reach(self._id(s)))
        for s, t in {(s, t) for (s, _), t in edges.items()}:
            self.fp.add_rule(z3.Implies(self.reach(self._id(s)), self.reach(self._id(t))))
        self.fp.declare_var(self.x)
        self.n = 0

    def _id(self, s: KState) -> z3.BitVecNumRef:
        return z3.BitVecVal(self.ids[s], self.sort)

    def reachable(self, bad: set[KState]) -> bool:
        self.n += 1
        rel = z3.Function(f"Bad{self.n}", self.sort, z3.BoolSort())
        self.fp.register_relation(rel)
        for b in bad:
            if b in self.ids:
                self.fp.fact(rel(self._id(b)))
        return self.fp.query(z3.And(self.reach(self.x), rel(self.x))) == z3.sat


def prove_kernel(
    init: set[KState],
    edges: dict[tuple[KState, str], KState],
    props: tuple[Property, ...],
    profile: str,
    config: str,
    method: str = "search",
) -> list[Result]:
    if method not in METHODS:
        raise ValueError(f"unknown proof method {method!r} (one of {', '.join(METHODS)})")
    if method == "search":
        reach = reachable(init, edges)  # type: ignore[arg-type]
        states = reach
    else:
        solver = DatalogReach(init, edges)
        states = set(solver.ids)
    out = []
    for p in props:
        t0 = time.perf_counter()
        bad = bad_states(states, p)  # type: ignore[arg-type]
        failed = bool(bad) if method == "search" else solver.reachable(bad)
        res = Result(p.key, profile, config, "FAILED" if failed else "PROVED", 0.0)
        if failed:
            res.trace = shortest_trace(init, edges, bad)  # type: ignore[arg-type]
        res.seconds = time.perf_counter() - t0
        out.append(res)
    return out
