"""Gaps of the extraction the conformance fuzzer found on the default core and
that the abstraction does not close yet (docs/verification.md, "Conformance
fuzzing"). A finding in one of these classes is reported once as a known gap
and the fuzzer goes on; any other finding stops it. Each class is matched on
the case's frame and the fields the two successors differ in, not on a
state: the seeded bugs the fuzzer is tested with fall outside every class."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..abstraction import FIELDS, PARTIAL
from .check import Finding

# The checksum-field bits and the status each one is judged under.
_OK_STATUS = {"ok_ip_o": "ip_o", "ok_l4_o": "l4_o", "ok_ip_i": "ip_i", "ok_l4_i": "l4_i"}


@dataclass(frozen=True)
class Gap:
    key: str
    why: str
    match: Callable[[Finding], bool]


def _differ(f: Finding) -> set[str]:
    """The fields the core's successor and the relation's differ in."""
    if f.expected is None:
        return set()
    return {k for k in FIELDS if getattr(f.after, k) != getattr(f.expected, k)}


def _tunnel_sample(f: Finding) -> bool:
    c = f.case
    return bool(c.frame.encap) and (c.frame.tunnel != "vxlan" or c.outer_csum)


def _partial_bytes(f: Finding) -> bool:
    d = _differ(f)
    if not d or f.expected is None or not d <= _OK_STATUS.keys():
        return False
    return all(
        getattr(f.after, _OK_STATUS[k]) == PARTIAL == getattr(f.expected, _OK_STATUS[k]) for k in d
    )


def _set_same_value(f: Finding) -> bool:
    return f.op in ("set_l3", "set_l4") and f.after == f.before


def _udp_zero(f: Finding) -> bool:
    w = f.case.frame  # Ethernet, IPv4 (20 bytes) or IPv6 (40), UDP: its checksum
    at = 60 if w.ipv6 else 40
    return not w.encap and w.proto == 17 and w.frame[at : at + 2] == b"\0\0"


def _no_payload(f: Finding) -> bool:
    return f.case.payload == 0


GAPS = (
    Gap(
        "tunnel-sample",
        "a tunnel frame before parse: its abstract state does not say the tunnel type or "
        "whether an outer checksum is present, and the state's witnesses (its first four "
        "generated frames) are VXLAN frames without an outer checksum (with one, where "
        "the outer UDP checksum is the wrong one); GRE, Geneve and VXLAN with a checksum "
        "go other ways through parse, rx and gro",
        _tunnel_sample,
    ),
    Gap(
        "partial-bytes",
        "a checksum under a partial status whose bytes happen to verify (or not): the "
        "field holds a stale value or a seed, which verifies for some packets only",
        _partial_bytes,
    ),
    Gap(
        "set-same-value",
        "a set action over a field that already holds the value (after an earlier set "
        "action, ct_nat or icmp_error): the core changes nothing, so a good status stays "
        "good; the state does not say which values its fields hold",
        _set_same_value,
    ),
    Gap(
        "udp-zero-csum",
        "a UDP checksum of 0 (none over IPv4; invalid over IPv6, RFC 8200 section 8.1): "
        "the dissector calls it absent and the abstraction correct, the witnesses never "
        "carry one, and NICs take it their own ways (dpdk_tap: partial over IPv4, bad "
        "over IPv6; bluefield2: good over IPv6)",
        _udp_zero,
    ),
    Gap(
        "no-payload",
        "a TCP segment without payload: the witnesses all carry payload, and Coalesce "
        "does not merge a segment without one",
        _no_payload,
    ),
)


def known_gap(f: Finding) -> Gap | None:
    """The known gap a finding falls in, if any."""
    return next((g for g in GAPS if g.match(f)), None)
