"""The abstract state of an skb (or of frames on the wire), computed from the
concrete one: the checksum state fields, and for every checksum in the bytes
whether it is correct there (the independent dissector decides, never the
kernel model), plus ghost bits for what was wrong on ingress."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import offlab
from offlab import kernel as k

from ..evolve import cached_eq, cached_hash, evolve
from .frames import fold, ones_sum, pseudo4, pseudo6

# Phases of a packet's life.
STACK, WIRE, DROPPED, DELIVERED = 0, 1, 2, 3
PHASES = ("stack", "wire", "dropped", "delivered")
SUMMED = ("NONE", "UNNECESSARY", "COMPLETE", "PARTIAL")
_SUMMED = {
    k.IpSummed.NONE: 0,
    k.IpSummed.UNNECESSARY: 1,
    k.IpSummed.COMPLETE: 2,
    k.IpSummed.PARTIAL: 3,
}
ABSENT = 2  # an outer UDP checksum of 0 (none sent)


@dataclass(frozen=True, order=True)
class KState:
    """One abstract state; every field a small non-negative integer."""

    __hash__ = cached_hash
    __eq__ = cached_eq

    phase: int = STACK
    encap: int = 0  # the bytes carry VXLAN (the original packet at depth 1)
    rco: int = 0  # the VXLAN header carries the remote-checksum-offload flag
    ipv6: int = 0  # the original packet is IPv6
    transport: int = 1  # the original packet's transport: 1 TCP, 2 UDP
    summed: int = 0  # ip_summed
    level: int = 0  # csum_level (UNNECESSARY only)
    encapsulation: int = 0  # skb->encapsulation
    gso: int = 0
    ok_ip_o: int = 1  # checksum fields correct in the bytes: depth 0 / depth 1
    ok_l4_o: int = 1  # (ABSENT: an outer UDP checksum of 0)
    ok_ip_i: int = 1
    ok_l4_i: int = 1
    sum_ok: int = 1  # COMPLETE: skb->csum is the bytes' sum; PARTIAL: the field holds the seed
    g_ip: int = 0  # ghosts: wrong on ingress (original IP / L4, outer IP / L4)
    g_l4: int = 0
    g_oip: int = 0
    g_ol4: int = 0
    v_trust: int = 0  # the skb vouches for a checksum that is wrong in the bytes
    v_merge: int = 0  # GRO merged a packet with a wrong checksum
    g_hw: int = 0  # the receiving driver vouched for a checksum wrong on the wire

    def describe(self) -> str:
        if self.phase != STACK:
            return (
                f"{PHASES[self.phase]} {'vxlan ' if self.encap else ''}"
                f"ok(ip={self.ok_ip_o}/{self.ok_ip_i} l4={self.ok_l4_o}/{self.ok_l4_i})"
            )
        s = SUMMED[self.summed] + (f"/{self.level}" if self.summed == 1 else "")
        return (
            f"{s}{' gso' if self.gso else ''}{' encap' if self.encapsulation else ''}"
            f"{' vxlan' if self.encap else ''}{' rco' if self.rco else ''}"
            f" ok(ip={self.ok_ip_o}/{self.ok_ip_i} l4={self.ok_l4_o}/{self.ok_l4_i}"
            f" sum={self.sum_ok})"
        )


@functools.lru_cache(maxsize=8192)
def _verdicts(frame: bytes) -> dict[tuple[str, int], int]:
    """Per distinct frame (the dissection is a function of the bytes, and the
    same bytes recur across witnesses and operations); callers only read it."""
    out: dict[tuple[str, int], int] = {}
    for c in offlab.dissect(frame).checksums:
        layer = "l4" if c.layer in ("tcp", "udp") else c.layer
        if layer not in ("ipv4", "l4"):
            continue
        if c.verdict == offlab.Verdict.CORRECT:
            out[(layer, c.depth)] = 1
        elif c.verdict == offlab.Verdict.ABSENT:
            out[(layer, c.depth)] = ABSENT
        else:
            out[(layer, c.depth)] = 0
    return out


def vxlan_rco(frame: bytes) -> bool:
    """The VXLAN header's RCO flag (VXLAN_HF_RCO, bit 21 of the flags word)."""
    return (
        len(frame) >= 50
        and frame[23] == 17
        and frame[36:38] == b"\x12\xb5"
        and bool(frame[43] & 0x20)
    )


def _rco_inner_ok(frame: bytes) -> int:
    """An RCO frame's inner L4 checksum is complete once the receiver resolves
    it from the outer UDP checksum (draft-herbert-vxlan-rco): correct iff the
    outer UDP checksum is correct and the inner field holds the folded
    pseudo-header sum the sender left there."""
    v = _verdicts(frame)
    if v.get(("l4", 0)) != 1:
        return 0
    inner = frame[50:]
    if len(inner) < 14 + 40:
        return 0
    if inner[12:14] == b"\x08\x00":
        ihl = (inner[14] & 15) * 4
        proto, src, dst = inner[23], inner[26:30], inner[30:34]
        l4 = 14 + ihl
        plen = int.from_bytes(inner[16:18], "big") - ihl
        seed = pseudo4(src, dst, proto, plen)
    elif inner[12:14] == b"\x86\xdd":
        proto, src, dst = inner[20], inner[22:38], inner[38:54]
        l4 = 54
        plen = int.from_bytes(inner[18:20], "big")
        seed = pseudo6(src, dst, proto, plen)
    else:
        return 0
    ofs = l4 + (16 if proto == 6 else 6)
    if len(inner) < ofs + 2:
        return 0
    return int(int.from_bytes(inner[ofs : ofs + 2], "big") == fold(seed))


def _promised(skb: k.SkBuff, summed: k.IpSummed, frame: bytes) -> tuple[bytes, int]:
    """The bytes the skb stands for, and whether its state is true of them.
    A non-GSO CHECKSUM_PARTIAL is a promise: its bytes are those after the
    checksum is completed (a local checksum offload's outer UDP checksum, for
    one, is only right then), and the promise holds when that gives a right
    checksum at the field. COMPLETE holds when skb->csum is the bytes' sum."""
    if summed == k.IpSummed.COMPLETE:
        return frame, int(fold(ones_sum(frame[skb.csum_from :])) == fold(skb.csum))
    if summed == k.IpSummed.PARTIAL and not skb.gso_size:
        probe = skb.copy()
        if not k.skb_complete_partial(probe):
            return frame, 0
        ofs = skb.csum_start + skb.csum_offset
        done = probe.frame
        for c in offlab.dissect(done).checksums:
            if c.offset == ofs:
                return done, int(c.verdict == offlab.Verdict.CORRECT)
        return done, 0
    return frame, 1


def covered_wrong(
    frame: bytes, skb: k.SkBuff, encap: int, summed: k.IpSummed | None = None
) -> bool:
    """UNNECESSARY at level L vouches for the first L + 1 transport checksums,
    outermost first (a zero UDP checksum counts as one: __skb_checksum_
    validate_needed consumes a level for it)."""
    if (skb.ip_summed if summed is None else summed) != k.IpSummed.UNNECESSARY:
        return False
    v = _verdicts(frame)
    fields = [v.get(("l4", 0), 1)] + ([v.get(("l4", 1), 1)] if encap else [])
    return any(f == 0 for f in fields[: skb.csum_level + 1])


def abstract_skb(skb: k.SkBuff, ghost: KState) -> KState:
    # Each attribute read crosses into the core (skb.frame copies the bytes):
    # read each once.
    summed = skb.ip_summed
    raw = skb.frame
    frame, sum_ok = _promised(skb, summed, raw)
    encap = int(ghost.encap)
    v = _verdicts(frame)
    unnecessary = summed == k.IpSummed.UNNECESSARY
    return evolve(
        ghost,
        phase=STACK,
        rco=int(vxlan_rco(frame)),
        summed=_SUMMED[summed],
        level=skb.csum_level if unnecessary else 0,
        encapsulation=int(skb.encapsulation),
        gso=int(skb.gso_size != 0),
        ok_ip_o=v.get(("ipv4", 0), 1),
        ok_l4_o=v.get(("l4", 0), 1),
        ok_ip_i=v.get(("ipv4", 1), 1) if encap else 1,
        ok_l4_i=v.get(("l4", 1), 1) if encap else 1,
        sum_ok=sum_ok,
        v_trust=int(ghost.v_trust or (unnecessary and covered_wrong(raw, skb, encap, summed))),
    )


def abstract_wire(frames: list[bytes], ghost: KState) -> KState:
    """Frames a device put on the wire: every checksum must hold in every frame."""
    oks = {"ok_ip_o": 1, "ok_l4_o": 1, "ok_ip_i": 1, "ok_l4_i": 1}
    rco = 0
    for f in frames:
        v = _verdicts(f)
        rco |= int(vxlan_rco(f))
        vals = {
            "ok_ip_o": v.get(("ipv4", 0), 1),
            "ok_l4_o": v.get(("l4", 0), 1),
            "ok_ip_i": v.get(("ipv4", 1), 1) if ghost.encap else 1,
            "ok_l4_i": (_rco_inner_ok(f) if vxlan_rco(f) else v.get(("l4", 1), 1))
            if ghost.encap
            else 1,
        }
        for key, val in vals.items():
            # Any frame wrong makes the field wrong; else ABSENT if any lacks it.
            cur = oks[key]
            oks[key] = 0 if 0 in (cur, val) else (ABSENT if ABSENT in (cur, val) else 1)
    return evolve(
        ghost,
        phase=WIRE,
        rco=rco,
        summed=0,
        level=0,
        encapsulation=0,
        gso=0,
        sum_ok=1,
        **oks,
    )


def ended(ghost: KState, phase: int) -> KState:
    """Dropped or delivered: only the ghosts and the violations remain."""
    return KState(
        phase=phase,
        encap=ghost.encap,
        ipv6=ghost.ipv6,
        transport=ghost.transport,
        g_ip=ghost.g_ip,
        g_l4=ghost.g_l4,
        g_oip=ghost.g_oip,
        g_ol4=ghost.g_ol4,
        v_trust=ghost.v_trust,
        v_merge=ghost.v_merge,
        g_hw=ghost.g_hw,
    )
