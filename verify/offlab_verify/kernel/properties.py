"""The kernel properties, each as the set of bad abstract states (a formula
over KState's fields that Z3 and plain Python can both evaluate)."""

from __future__ import annotations

from .. import properties as base
from ..properties import Property, Vars
from .abstraction import DELIVERED, STACK, WIRE


def _orig(v: Vars, inner: str, outer: str):
    return base.L.If(v["encap"] == 1, v[inner], v[outer])


def _k1(v: Vars):
    L = base.L
    wire = v["phase"] == WIRE
    return L.Or(
        v["v_trust"] == 1,
        v["v_merge"] == 1,
        L.And(v["phase"] == DELIVERED, L.Or(v["g_ip"] == 1, v["g_l4"] == 1)),
        L.And(wire, v["g_ip"] == 1, _orig(v, "ok_ip_i", "ok_ip_o") == 1),
        L.And(wire, v["g_l4"] == 1, _orig(v, "ok_l4_i", "ok_l4_o") == 1),
        L.And(wire, v["encap"] == 1, v["g_oip"] == 1, v["ok_ip_o"] == 1),
        L.And(wire, v["encap"] == 1, v["g_ol4"] == 1, v["ok_l4_o"] == 1),
    )


def _k2(v: Vars):
    L = base.L
    wire = v["phase"] == WIRE
    return L.Or(
        L.And(wire, v["g_ip"] == 0, _orig(v, "ok_ip_i", "ok_ip_o") == 0),
        L.And(wire, v["g_l4"] == 0, _orig(v, "ok_l4_i", "ok_l4_o") == 0),
        L.And(wire, v["encap"] == 1, v["g_oip"] == 0, v["ok_ip_o"] == 0),
        L.And(wire, v["encap"] == 1, v["g_ol4"] == 0, v["ok_l4_o"] == 0),
    )


def _k3(v: Vars):
    L = base.L
    return L.Or(
        v["v_trust"] == 1,
        L.And(v["phase"] == STACK, v["summed"] == 2, v["sum_ok"] == 0),
        L.And(v["phase"] == STACK, v["summed"] == 3, v["sum_ok"] == 0, v["gso"] == 0),
    )


def _truthful(f):  # noqa: ANN001
    """Under the assumption that the receiving driver reported only what it
    checked (K0 reports where it did not)."""
    return lambda v: base.L.And(v["g_hw"] == 0, f(v))


KERNEL_PROPERTIES: tuple[Property, ...] = (
    Property(
        "K0",
        "the receiving driver vouches only for checksums that are right on the wire "
        "(a hardware/driver fact, reported, not gating)",
        lambda v: v["g_hw"] == 1,
        gate=False,
    ),
    Property(
        "K1",
        "never fixes bad: no UNNECESSARY or GRO merge over a wrong checksum, "
        "the stack drops it, and it stays wrong on the wire",
        _truthful(_k1),
    ),
    Property(
        "K2",
        "always fixes partial: every CHECKSUM_PARTIAL is completed by the stack or a "
        "device feature before the wire",
        _truthful(_k2),
    ),
    Property(
        "K3",
        "the skb's checksum state is true of its bytes (UNNECESSARY levels, the "
        "COMPLETE sum, the PARTIAL seed)",
        _truthful(_k3),
    ),
    Property(
        "K4",
        "GRO never merges a packet whose checksum is wrong",
        _truthful(lambda v: v["v_merge"] == 1),
    ),
)
