"""The properties, each as the set of bad abstract states (a Z3 formula over
the state's fields): a property holds when no bad state is reachable."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import z3

from .abstraction import BAD, DATAPATH, GOOD, WIRE

Vars = dict[str, z3.ArithRef]


class _Concrete:
    """The same connectives over plain integers, to classify extracted states fast."""

    @staticmethod
    def If(c: bool, a: int, b: int) -> int:
        return a if c else b

    @staticmethod
    def And(*xs: bool) -> bool:
        return all(xs)

    @staticmethod
    def Or(*xs: bool) -> bool:
        return any(xs)


L = z3  # the connectives a formula is built with; swapped for _Concrete in holds()


def _orig(v: Vars, inner: str, outer: str) -> z3.ArithRef:
    return L.If(v["encap"] == 1, v[inner], v[outer])


def _p1(v: Vars) -> z3.BoolRef:
    on_wire = v["phase"] == WIRE
    return L.Or(
        v["v_fixbad"] == 1,
        L.And(on_wire, v["g_ip"] == 1, _orig(v, "ok_ip_i", "ok_ip_o") == 1),
        L.And(on_wire, v["g_l4"] == 1, _orig(v, "ok_l4_i", "ok_l4_o") == 1),
        L.And(on_wire, v["encap"] == 1, v["g_oip"] == 1, v["ok_ip_o"] == 1),
        L.And(on_wire, v["encap"] == 1, v["g_ol4"] == 1, v["ok_l4_o"] == 1),
    )


def _p2(v: Vars) -> z3.BoolRef:
    on_wire = v["phase"] == WIRE
    return L.Or(
        v["v_assert"] == 1,
        L.And(on_wire, v["g_ip"] == 0, _orig(v, "ok_ip_i", "ok_ip_o") == 0),
        L.And(on_wire, v["g_l4"] == 0, _orig(v, "ok_l4_i", "ok_l4_o") == 0),
        L.And(on_wire, v["encap"] == 1, v["g_oip"] == 0, v["ok_ip_o"] == 0),
        L.And(on_wire, v["encap"] == 1, v["g_ol4"] == 0, v["ok_l4_o"] == 0),
        L.And(on_wire, v["ok_quoted"] == 0),
    )


def _p3(v: Vars) -> z3.BoolRef:
    in_dp = v["phase"] == DATAPATH
    pairs = (("ip_o", "ok_ip_o"), ("l4_o", "ok_l4_o"), ("ip_i", "ok_ip_i"), ("l4_i", "ok_l4_i"))
    return L.Or(*[L.And(in_dp, v[st] == GOOD, v[ok] == 0) for st, ok in pairs])


def _p7(v: Vars) -> z3.BoolRef:
    in_dp = v["phase"] == DATAPATH
    return L.Or(
        L.And(in_dp, v["k_ip"] == 1, _orig(v, "ip_i", "ip_o") != BAD),
        L.And(in_dp, v["k_l4"] == 1, _orig(v, "l4_i", "l4_o") != BAD),
    )


@dataclass(frozen=True)
class Property:
    key: str
    title: str
    bad: Callable[[Vars], z3.BoolRef]
    gate: bool = True  # counts for the exit status


PROPERTIES: tuple[Property, ...] = (
    Property("P1", "never fixes bad (status, and incorrect on the wire)", _p1),
    Property("P2", "always fixes partial (correct on the wire)", _p2),
    Property("P3", "good implies correct bytes", _p3),
    Property("P4", "unknown is never trusted (decap, conntrack)", lambda v: v["v_untrusted"] == 1),
    Property("P5", "nothing stale survives decap", lambda v: v["v_stale"] == 1),
    Property("P6", "offload requests within NIC capabilities", lambda v: v["v_nic"] == 1),
    Property("P7", "bad stays flagged from the source (compose, NIC)", _p7),
    Property("P8", "each check by its stage (ipf: fragments only)", lambda v: v["v_stage"] == 1),
    Property(
        "P9",
        "a merged packet is never valid unless every merged segment was (rx coalescing)",
        lambda v: v["v_merge"] == 1,
    ),
    Property(
        "PREMISE", "a TSO packet's L4 is partial, its IP trusted", lambda v: v["v_premise"] == 1
    ),
)


def is_bad(prop: Property, state_fields: dict[str, int]) -> bool:
    """Evaluates the property's bad-state formula on one concrete abstract state."""
    global L
    saved, L = L, _Concrete
    try:
        return bool(prop.bad(state_fields))  # type: ignore[arg-type]
    finally:
        L = saved
