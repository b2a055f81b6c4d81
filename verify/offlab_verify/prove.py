"""Z3 proofs over unbounded operation sequences: the extracted relation as
constrained Horn clauses, solved with Spacer."""

from __future__ import annotations

import time
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
    from collections import deque

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


def prove_all(
    init: set[State],
    edges: dict[tuple[State, str], State],
    props: tuple[Property, ...],
    profile: str,
    config: str,
    timeout_ms: int = 20000,
) -> list[Result]:
    chc = Chc(init, edges, timeout_ms)
    states = set(chc.ids)
    out = []
    for p in props:
        t0 = time.perf_counter()
        bad = bad_states(states, p)
        verdict, info = chc.check(bad)
        res = Result(p.key, profile, config, verdict, time.perf_counter() - t0)
        if verdict == "FAILED":
            res.trace = shortest_trace(init, edges, bad)
        elif verdict == "PROVED":
            res.invariant = info
        out.append(res)
    return out
