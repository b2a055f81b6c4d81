"""Kernel behaviours the verifier finds that are the kernel's own (the model
reproduces them from the source, and they are not offlab's to fix). Each is a
set of transitions: a property that fails is reported as explained by a
hazard only if it is PROVED once those transitions are removed, so a hazard
can never hide a different failure."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from offlab import kernel as k

from .abstraction import KState


@dataclass(frozen=True)
class Hazard:
    key: str
    title: str
    source: str
    applies: Callable[[k.KernelVersion], bool]
    edge: Callable[[KState, str], bool]  # transitions that exhibit it


HAZARDS: tuple[Hazard, ...] = (
    Hazard(
        "H1",
        "OVS kernel set actions on an encapsulated CHECKSUM_PARTIAL skb (a VXLAN device's "
        "output reaching an OVS bridge) take skb->ip_summed, which describes the INNER "
        "checksum, for the outer UDP one: set_ipv4 updates the outer UDP checksum as a "
        "partial seed (a complete one goes out wrong, a zero one non-zero) and set_udp "
        "leaves a non-zero outer checksum stale",
        "torvalds/linux v6.18.19 net/openvswitch/actions.c:337-341 update_ip_l4_checksum "
        "(uh->check || skb->ip_summed == CHECKSUM_PARTIAL) and set_udp "
        "(uh->check && skb->ip_summed != CHECKSUM_PARTIAL); include/net/checksum.h "
        "inet_proto_csum_replace4",
        lambda kv: True,
        lambda s, op: op in ("set_ip", "set_tp") and s.encap == 1 and s.summed == 3,
    ),
    Hazard(
        "H3",
        "OVS kernel set_udp on a CHECKSUM_COMPLETE skb whose UDP checksum is zero rewrites "
        "the ports without updating skb->csum, which no longer sums the bytes",
        "torvalds/linux v6.18.19 net/openvswitch/actions.c set_udp (the 'Checksum is not "
        "set' branch does not call set_tp_port / inet_proto_csum_replace2)",
        lambda kv: True,
        lambda s, op: op == "set_tp" and s.summed == 2 and s.ok_l4_o == 2,
    ),
    Hazard(
        "H2",
        "inet_proto_csum_replace16 (OVS set_ipv6, IPv6 NAT) also moved a CHECKSUM_COMPLETE "
        "skb->csum by the address change, leaving it wrong; fixed in v5.5",
        "torvalds/linux 189c9b1e9453 'net: Fix skb->csum update in "
        "inet_proto_csum_replace16().' (v5.5)",
        lambda kv: not kv.at_least(5, 5),
        lambda s, op: op in ("set_ip", "ct") and s.ipv6 == 1 and s.encap == 0 and s.summed == 2,
    ),
)


def applicable(kv: k.KernelVersion) -> list[Hazard]:
    return [h for h in HAZARDS if h.applies(kv)]


def without(
    edges: dict[tuple[KState, str], KState], hazards: list[Hazard]
) -> dict[tuple[KState, str], KState]:
    return {
        (s, op): t for (s, op), t in edges.items() if not any(h.edge(s, op) for h in hazards)
    }
