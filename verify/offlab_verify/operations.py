"""The datapath operations of the alphabet and the NIC boundary, each run on
a copy of one concrete packet with its abstract successor (abstraction.py):
what extract.py explores and the conformance fuzzer replays."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import offlab
from offlab import Csum, Level

from .abstraction import (
    BAD,
    DATAPATH,
    GOOD,
    PARTIAL,
    UNKNOWN,
    State,
    abstract,
    dropped,
    orig_status,
    wire,
)
from .evolve import evolve
from .witnesses import ST, _icmp_error


@dataclass(frozen=True)
class Config:
    csum: bool  # outer UDP / GRE checksum on encapsulation
    ipv6_underlay: bool = False

    @property
    def name(self) -> str:
        return f"csum={'on' if self.csum else 'off'}" + (" ipv6" if self.ipv6_underlay else "")


Op = Callable[[offlab.Packet, State, Config], tuple[offlab.Packet | None, State]]


def premise_holds(s: State) -> bool:
    """The proof's premise: a TSO packet's L4 checksum is partial and its IP trusted."""
    if not s.tso:
        return True
    ip, l4 = orig_status(s)
    # IPv6 has no header checksum: nothing there to trust.
    return l4 == PARTIAL and (ip in (GOOD, PARTIAL) or bool(s.ipv6))


def _enabled(op: str, s: State) -> bool:
    if s.phase != DATAPATH or s.v_premise:
        return False
    if op in ("parse", "parse_simple"):
        return True
    if op == "compose_bad":
        # netdev-dummy/receive --bad-csum: a dummy port without an IP receive
        # option composes an IPv4 packet whose header it then breaks on purpose.
        return (
            not s.parsed
            and not s.encap
            and not s.ipv6
            and not s.tso
            and s.ip_o == UNKNOWN
            and s.ok_ip_o == 1
            and not s.k_ip
        )
    if not s.parsed:
        return False
    if op == "set_l3":
        return True
    if op in ("set_l4", "push_vxlan", "push_geneve", "push_gre", "ct", "ct_nat"):
        return not s.encap
    if op == "icmp_error":
        return not s.encap and not s.ipv6 and s.transport in (1, 2) and not s.tso
    if op == "pop":
        # Only what arrived encapsulated is decapsulated: a packet this datapath
        # encapsulated leaves by the wire first.
        return bool(s.encap) and s.tun == 0
    return False


def _validation_breach(s: State, with_gre: bool) -> bool:
    """A checksum a validating operation must refuse: flagged bad, or unknown and wrong."""
    ip = s.ip_o == BAD or (s.ip_o == UNKNOWN and not s.ok_ip_o)
    l4 = s.l4_o == BAD or (s.l4_o == UNKNOWN and not s.ok_l4_o)
    return ip or l4 or (with_gre and not s.ok_gre)


Counts = dict[str, int]


def apply(op: str, p: offlab.Packet, s: State, cfg: Config) -> tuple[offlab.Packet | None, State]:
    """Runs one datapath operation on a copy of `p`; returns (packet or None, successor).
    A partial checksum the datapath cannot finish (OVS asserts) ends the packet."""
    q, t, _ = apply_counted(op, p, s, cfg)
    return q, t


def apply_counted(
    op: str, p: offlab.Packet, s: State, cfg: Config
) -> tuple[offlab.Packet | None, State, Counts]:
    """As apply(), with the coverage counters the operation moved."""
    counts: Counts = {}
    try:
        q, t = _apply(op, p, s, cfg, counts)
    except offlab.OfflabError:
        return None, evolve(dropped(s), v_assert=1), counts
    return q, t, counts


def _add(into: Counts, more: dict[str, int]) -> None:
    for k, n in more.items():
        into[k] = into.get(k, 0) + n


def _misjudged(s: State, counts: Counts) -> bool:
    """P8 on one conntrack run over a packet that is not a fragment (the alphabet
    has none): ipf (ipf_is_valid_v4_frag) must leave it alone, and when its IPv4
    checksum is one conntrack has to refuse, conntrack must be the one counting it."""
    if any(k.startswith("ipf_") for k in counts):
        return True
    refuse = not s.ipv6 and (s.ip_o == BAD or (s.ip_o == UNKNOWN and not s.ok_ip_o))
    return refuse and not counts.get("conntrack_l3csum_err")


def _apply(
    op: str, p: offlab.Packet, s: State, cfg: Config, counts: Counts
) -> tuple[offlab.Packet | None, State]:
    q = p.copy()
    encap = s.encap
    if op == "set_l3":
        offlab.set_ipv4(q, dst="192.0.2.99", ttl=33)
    elif op == "set_l4":
        offlab.set_l4_ports(q, dst=4242)
    elif op.startswith("push_"):
        remote, local = (
            ("2001:db8::2", "2001:db8::1") if cfg.ipv6_underlay else ("1.1.2.92", "1.1.2.88")
        )
        tnl = offlab.TunnelConfig(op[5:], remote_ip=remote, local_ip=local, key=9, csum=cfg.csum)
        (q,), c = offlab.push_header([q], tnl)
        _add(counts, c)
        encap = 1
        s = evolve(s, g_oip=0, g_ol4=0)
    elif op == "pop":
        ok, _, c = offlab.pop_header(q)
        _add(counts, c)
        breach = _validation_breach(s, True)
        if not ok:
            return None, dropped(s)
        stale = q.offloads.word != 0
        s = evolve(
            s,
            v_untrusted=int(s.v_untrusted or breach),
            v_stale=int(s.v_stale or stale),
            g_oip=0,
            g_ol4=0,
        )
        offlab.parse(q)  # decapsulation always recirculates
        encap = 0
    elif op in ("ct", "ct_nat"):
        ct = offlab.Conntrack()
        out, c = ct.execute(q, commit=True, nat_dst="10.0.0.9" if op == "ct_nat" else None)
        _add(counts, c)
        s = evolve(s, v_stage=int(s.v_stage or _misjudged(s, c)))
        if not out or offlab.ct_state(out[0]) & (1 << 4):  # invalid: the flow drops it
            return None, dropped(s)
        q = out[0]
        s = evolve(s, v_untrusted=int(s.v_untrusted or _validation_breach(s, False)))
    elif op == "icmp_error":
        # The packet is committed with destination NAT and leaves; the server
        # answers with an ICMP error quoting it, received with this packet's IP
        # status claim, and ct(nat) translates the quoted headers back.
        ct = offlab.Conntrack()
        out, c = ct.execute(q, commit=True, nat_dst="10.0.0.9")
        _add(counts, c)
        s = evolve(s, v_stage=int(s.v_stage or _misjudged(s, c)))
        if not out or offlab.ct_state(out[0]) & (1 << 4):
            return None, dropped(s)
        sent = out[0]
        offlab.send_prepare(sent, 0)
        err = offlab.Packet(_icmp_error(sent.bytes()))
        offlab.parse(err)
        err.offloads.set_status(Level.OUTER, Csum.IP, ST[s.ip_o])
        err_state = abstract(err, State(), 0, 1)
        back, c = ct.execute(err, commit=False, nat=True)
        _add(counts, c)
        s = evolve(s, v_stage=int(s.v_stage or _misjudged(err_state, c)))
        if not back or not offlab.ct_state(back[0]) & (1 << 2):  # must be related
            return None, dropped(s)
        q = back[0]
        s = evolve(s, g_ip=0, g_l4=0, k_ip=0, k_l4=0)
    elif op == "compose_bad":
        offlab.compose_bad_ip_csum(q)
        s = evolve(s, g_ip=1, k_ip=1)
    elif op == "parse":
        offlab.parse(q)
    elif op == "parse_simple":
        offlab.parse_simple(q)
    nxt = abstract(q, s, encap, 1 if op in ("parse", "parse_simple", "pop") else s.parsed)
    if s.v_fixbad:
        return q, nxt
    (b_ip, b_l4), (a_ip, a_l4) = orig_status(s), orig_status(nxt)
    fixbad = (b_ip == BAD and a_ip in (GOOD, PARTIAL)) or (b_l4 == BAD and a_l4 in (GOOD, PARTIAL))
    return q, evolve(nxt, v_fixbad=1) if fixbad else nxt


DATAPATH_OPS = (
    "set_l3",
    "set_l4",
    "push_vxlan",
    "push_geneve",
    "push_gre",
    "pop",
    "ct",
    "ct_nat",
    "parse",
    "parse_simple",
    "icmp_error",
    "compose_bad",
)


# Ports netdev-linux drives through a vnet header: the kernel finishes NEEDS_CSUM.
VNET_DRIVERS = ("tun", "ibmveth")


def send(p: offlab.Packet, s: State, nic: offlab.NicTx, vnet: bool = False) -> State:
    """The NIC boundary: netdev_send (TSO policy + send-prepare), then the NIC, or
    for a tap the vnet header and the kernel's completion of it."""
    ready, errors = offlab.netdev_send([p.copy()], nic.caps)
    if errors:
        return evolve(dropped(s), v_assert=1)
    frames: list[bytes] = []
    violation = False
    for q in ready:
        if vnet:
            hdr = offlab.vnet_transmit(q)
            offlab.vnet_complete(q, hdr)
            frames.append(q.bytes())
            continue
        try:
            out, v = offlab.nic_transmit(q, nic)
        except offlab.OfflabError:
            # The NIC cannot finish a partial checksum it was handed (no such header).
            return evolve(dropped(s), v_assert=1)
        violation |= bool(v)
        frames.extend(f.bytes() for f in out)
    return wire(frames, s, s.encap, violation)
