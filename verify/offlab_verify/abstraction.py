"""The abstract state of a packet, computed from a concrete one.

Statuses come from the offloads word; whether each checksum field is correct
comes from the bytes (the independent dissector); the ghost bits record what
was true of the original packet on ingress.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, fields

import offlab
from offlab import Csum, Level

from .evolve import cached_eq, cached_hash, evolve

# Phases of a packet's life in the abstraction. ARRIVING: a frame on the wire
# before a NIC of the profile receives it (the `rx` and `gro` operations).
DATAPATH, WIRE, DROPPED, ARRIVING = 0, 1, 2, 3

_STATUS = {
    offlab.CsumStatus.UNKNOWN: 0,
    offlab.CsumStatus.BAD: 1,
    offlab.CsumStatus.GOOD: 2,
    offlab.CsumStatus.PARTIAL: 3,
}
UNKNOWN, BAD, GOOD, PARTIAL = 0, 1, 2, 3
STATUS_NAMES = ("unknown", "bad", "good", "partial")
_TUNNEL = {
    offlab.TunnelType.NONE: 0,
    offlab.TunnelType.VXLAN: 1,
    offlab.TunnelType.GENEVE: 2,
    offlab.TunnelType.GRE: 3,
}
_PROTO = {
    offlab.L4Proto.NONE: 0,
    offlab.L4Proto.TCP: 1,
    offlab.L4Proto.UDP: 2,
    offlab.L4Proto.SCTP: 3,
}


@dataclass(frozen=True, order=True)
class State:
    """One abstract state; every field is a small non-negative integer."""

    __hash__ = cached_hash
    __eq__ = cached_eq

    phase: int = DATAPATH
    encap: int = 0  # bytes carry a tunnel header (original packet at depth 1)
    tun: int = 0  # tunnel type bits of the offloads word
    tso: int = 0
    parsed: int = 0  # layer offsets located
    ipv6: int = 0  # the original packet is IPv6
    transport: int = 0  # the original packet's transport in its bytes: 1 TCP, 2 UDP
    # The tunnel header in the bytes (1 VXLAN, 2 Geneve, 3 GRE, by the
    # dissector), and whether the depth-0 UDP or GRE checksum is absent (a zero
    # UDP checksum, a GRE header without the C bit). Before parse nothing else
    # tells a received tunnel frame's kind, and parse, the NICs' receive
    # validation and coalescing go different ways for each.
    tnl: int = 0
    l4_absent: int = 0
    p_o: int = 0  # L4 protocol bits, outer / inner
    p_i: int = 0
    ip_o: int = 0  # statuses, outer / inner
    l4_o: int = 0
    ip_i: int = 0
    l4_i: int = 0
    ok_ip_o: int = 1  # checksum fields correct in the bytes (depth 0 / 1)
    ok_l4_o: int = 1
    ok_ip_i: int = 1
    ok_l4_i: int = 1
    ok_gre: int = 1  # GRE checksum: checked concretely in gre.py, not abstracted
    ok_quoted: int = 1  # the IPv4 header quoted in an ICMP error verifies
    g_ip: int = 0  # ghost: the original IP / L4 checksum was bad on ingress (not trusted)
    g_l4: int = 0
    g_oip: int = 0  # ghost: the outer IP / L4 of a packet received encapsulated was bad
    g_ol4: int = 0
    k_ip: int = 0  # ghost: the ingress source knows the original IP / L4 checksum is bad
    k_l4: int = 0  # (a NIC flagged it bad, or the composer broke it on purpose)
    v_untrusted: int = 0  # sticky: a validating operation passed an unverified wrong checksum
    v_stale: int = 0  # sticky: decapsulation left offload bits behind
    v_nic: int = 0  # sticky: an offload was requested that the NIC does not advertise
    v_fixbad: int = 0  # sticky: a bad status became good or partial
    v_assert: int = 0  # sticky: a partial checksum the datapath could not finish
    v_premise: int = 0  # a TSO packet whose L4 is not partial or whose IP is not trusted
    v_stage: int = 0  # sticky: a checksum judged by a stage OVS does not give it to (ipf)
    v_merge: int = 0  # sticky: receive coalescing merged a segment with a wrong checksum

    def describe(self) -> str:
        if self.phase == DROPPED:
            return "dropped" + (", judged by the wrong stage" if self.v_stage else "")
        parts = []
        if self.phase == ARRIVING:
            parts.append("arriving from the wire")
        if self.phase == WIRE:
            parts.append("on the wire")
        names = ("outer", "inner") if self.encap else ("", "")
        for lvl, ip, l4, okip, okl4 in (
            (names[0], self.ip_o, self.l4_o, self.ok_ip_o, self.ok_l4_o),
            (names[1], self.ip_i, self.l4_i, self.ok_ip_i, self.ok_l4_i),
        ):
            if lvl == "" and parts and self.encap == 0 and ip == 0 and l4 == 0:
                continue
            parts.append(
                f"{lvl} ip {STATUS_NAMES[ip]}{'' if okip else ' (wrong)'}"
                f" l4 {STATUS_NAMES[l4]}{'' if okl4 else ' (wrong)'}".strip()
            )
        if self.tnl:
            kind = ("VXLAN", "Geneve", "GRE")[self.tnl - 1]
            parts.append(f"{kind}{' without outer checksum' if self.l4_absent else ''}")
        elif self.l4_absent:
            parts.append("UDP checksum absent")
        if self.tso:
            parts.append("TSO")
        if self.g_ip or self.g_l4:
            parts.append(
                "bad on ingress: "
                + "+".join(n for n, g in (("ip", self.g_ip), ("l4", self.g_l4)) if g)
            )
        if self.k_ip or self.k_l4:
            parts.append(
                "known bad at the source: "
                + "+".join(n for n, k in (("ip", self.k_ip), ("l4", self.k_l4)) if k)
            )
        if self.v_stage:
            parts.append("judged by the wrong stage")
        if self.v_merge:
            parts.append("coalesced over a wrong checksum")
        return ", ".join(parts)


FIELDS = tuple(f.name for f in fields(State))


def quoted_ok(frame: bytes) -> bool:
    """For an ICMPv4 error, whether the IPv4 header it quotes has a correct checksum."""
    if len(frame) < 14 + 20 + 8 + 20 or frame[12:14] != b"\x08\x00" or frame[23] != 1:
        return True
    ihl = (frame[14] & 0x0F) * 4
    icmp = 14 + ihl
    if frame[icmp] not in (3, 4, 5, 11, 12) or len(frame) < icmp + 8 + 20:
        return True
    q = icmp + 8
    qihl = (frame[q] & 0x0F) * 4
    if qihl < 20 or len(frame) < q + qihl:
        return True
    return offlab.checksum.verify(frame[q : q + qihl])


_LAYER = {"ipv4": "ip", "tcp": "l4", "udp": "l4", "sctp": "l4", "gre": "gre"}
_TUNNEL_LAYER = {"vxlan": 1, "geneve": 2, "gre": 3}


@dataclass(frozen=True)
class Facts:
    """What the independent dissector says about one frame's bytes."""

    ok: dict[tuple[str, int], bool]  # (layer, depth) -> checksum correct; absent: missing
    ipv6: tuple[bool, bool]  # an IPv6 header at depth 0 / 1
    transport: tuple[int, int]  # 1 TCP, 2 UDP, 0 none at depth 0 / 1
    quoted_ok: bool
    tunnel: int = 0  # the depth-0 tunnel header: 1 VXLAN, 2 Geneve, 3 GRE
    absent: bool = False  # the depth-0 UDP checksum is zero, or a GRE header has none

    @functools.cached_property
    def wire_bits(self) -> tuple[int, int, int, int, int]:
        """What wire() reads of a frame: IP and L4 checksums right (absent
        counts as right) at depth 0 and 1, and the quoted header's."""
        v = self.ok
        return (
            int(v.get(("ip", 0), True)),
            int(v.get(("l4", 0), True)),
            int(v.get(("ip", 1), True)),
            int(v.get(("l4", 1), True)),
            int(self.quoted_ok),
        )


@functools.lru_cache(maxsize=8192)
def facts(frame: bytes) -> Facts:
    """Dissects once per distinct frame: the same bytes recur across witnesses,
    operations and NIC profiles, and the dissection is a function of the bytes."""
    d = offlab.dissect(frame)
    ok: dict[tuple[str, int], bool] = {}
    absent = False
    for c in d.checksums:
        if c.depth == 0 and c.layer in ("udp", "gre") and c.verdict == offlab.Verdict.ABSENT:
            absent = True
        layer = _LAYER.get(c.layer)
        if layer is None:
            continue
        good = c.verdict != offlab.Verdict.INCORRECT
        ok[(layer, c.depth)] = ok.get((layer, c.depth), True) and good
    ipv6 = [False, False]
    transport = [0, 0]
    tunnel = next((_TUNNEL_LAYER[x.name] for x in d.layers
                   if x.depth == 0 and x.name in _TUNNEL_LAYER), 0)  # fmt: skip
    # A GRE header without the C bit has no checksum entry at all.
    if tunnel == 3 and not any(c.layer == "gre" and c.depth == 0 for c in d.checksums):
        absent = True
    for lay in d.layers:
        if lay.depth > 1:
            continue
        if lay.name == "ipv6":
            ipv6[lay.depth] = True
        elif lay.name in ("tcp", "udp") and not transport[lay.depth]:
            transport[lay.depth] = 1 if lay.name == "tcp" else 2
    return Facts(
        ok, (ipv6[0], ipv6[1]), (transport[0], transport[1]), quoted_ok(frame), tunnel, absent
    )


def verdicts(frame: bytes) -> dict[tuple[str, int], bool]:
    """(layer, depth) -> checksum correct, for IPv4/TCP/UDP/GRE; absent counts as correct."""
    return dict(facts(frame).ok)


@functools.lru_cache(maxsize=4096)
def _word_fields(word: int) -> dict[str, int]:
    """The state fields the offloads word decides: a handful of distinct words
    recur across the extraction, each read through seven binding calls."""
    o = offlab.Offloads(word)
    return {
        "tun": _TUNNEL[o.tunnel],
        "p_o": _PROTO[o.l4_proto(Level.OUTER)],
        "p_i": _PROTO[o.l4_proto(Level.INNER)],
        "ip_o": _STATUS[o.status(Level.OUTER, Csum.IP)],
        "l4_o": _STATUS[o.status(Level.OUTER, Csum.L4)],
        "ip_i": _STATUS[o.status(Level.INNER, Csum.IP)],
        "l4_i": _STATUS[o.status(Level.INNER, Csum.L4)],
    }


# abstract()'s results by what they depend on: the frame's facts at the
# packet's depth, the offloads word, TSO, parsed, the whole ghost state and
# the encapsulation. The same (facts, word, ghost) recur for every witness of
# a state and every profile.
_ABSTRACT: dict[tuple, State] = {}


def abstract(p: offlab.Packet, ghost: State, encap: int, parsed: int) -> State:
    """The abstract state of `p` in the datapath, carrying ghost/sticky bits of `ghost`."""
    f = facts(p.bytes())
    depth = 1 if encap else 0
    word_value = p.offloads.word
    tso = int(p.tso_segsz > 0)
    key = (f.wire_bits, f.ipv6[depth], f.transport[depth], f.tunnel, f.absent, word_value, tso,
           parsed, ghost, encap)  # fmt: skip
    out = _ABSTRACT.get(key)
    if out is not None:
        return out
    word = _word_fields(word_value)
    ip0, l40, ip1, l41, quoted = f.wire_bits

    def ok(bit: int, status: str) -> int:
        # Under a partial status the field holds a stale value or a seed that
        # the datapath or the NIC overwrites before the frame leaves, so
        # whether it happens to verify is no fact about the packet (a set
        # action that restores an earlier value can make a stale one verify
        # again): the state does not record it. Witnesses that differ in it
        # and go different ways would still disagree (TooCoarse).
        return 1 if word[status] == PARTIAL else bit

    out = evolve(
        ghost,
        phase=DATAPATH,
        encap=encap,
        ipv6=int(f.ipv6[depth]),
        transport=f.transport[depth],
        tnl=f.tunnel,
        l4_absent=int(f.absent),
        tso=tso,
        parsed=parsed,
        **word,
        ok_ip_o=ok(ip0, "ip_o"),
        ok_l4_o=ok(l40, "l4_o"),
        ok_ip_i=ok(ip1, "ip_i"),
        ok_l4_i=ok(l41, "l4_i"),
        ok_quoted=quoted,
    )
    _ABSTRACT[key] = out
    return out


_BLANK = State()


# wire()'s results by what they depend on: the frames' bits, the whole ghost
# state (it carries more than wire() reads, so the key is only finer), the
# encapsulation and the violation. A send's frames repeat for every witness
# of a state, and building the state was most of wire()'s time.
_WIRE: dict[tuple, State] = {}


def wire(frames: list[bytes], ghost: State, encap: int, violation: bool) -> State:
    """The abstract state of what a NIC put on the wire (all frames must agree)."""
    ip0 = l40 = ip1 = l41 = quoted = 1
    for fr in frames:
        b = facts(fr).wire_bits
        ip0 &= b[0]
        l40 &= b[1]
        ip1 &= b[2]
        l41 &= b[3]
        quoted &= b[4]
    key = (ip0, l40, ip1, l41, quoted, ghost, encap, bool(violation))
    out = _WIRE.get(key)
    if out is None:
        # From the default state through evolve(): the fields not named keep
        # their defaults as State(...) would give them, and the result is the
        # interned object (see evolve.py).
        out = evolve(
            _BLANK,
            phase=WIRE,
            ok_quoted=quoted,
            encap=encap,
            ok_ip_o=ip0,
            ok_l4_o=l40,
            ok_ip_i=ip1,
            ok_l4_i=l41,
            g_ip=ghost.g_ip,
            g_l4=ghost.g_l4,
            g_oip=ghost.g_oip,
            g_ol4=ghost.g_ol4,
            v_untrusted=ghost.v_untrusted,
            v_stale=ghost.v_stale,
            v_nic=int(ghost.v_nic or violation),
            v_fixbad=ghost.v_fixbad,
            v_assert=ghost.v_assert,
            v_stage=ghost.v_stage,
            v_merge=ghost.v_merge,
        )
        _WIRE[key] = out
    return out


def dropped(ghost: State) -> State:
    return State(
        phase=DROPPED,
        g_ip=ghost.g_ip,
        g_l4=ghost.g_l4,
        v_untrusted=ghost.v_untrusted,
        v_stale=ghost.v_stale,
        v_nic=ghost.v_nic,
        v_fixbad=ghost.v_fixbad,
        v_assert=ghost.v_assert,
        v_stage=ghost.v_stage,
        v_merge=ghost.v_merge,
    )


def orig_status(s: State) -> tuple[int, int]:
    """Statuses (ip, l4) of the original packet's own headers."""
    return (s.ip_i, s.l4_i) if s.encap else (s.ip_o, s.l4_o)


def orig_ok(s: State) -> tuple[int, int]:
    """Whether the original packet's IP and L4 checksum fields are correct."""
    return (s.ok_ip_i, s.ok_l4_i) if s.encap else (s.ok_ip_o, s.ok_l4_o)
