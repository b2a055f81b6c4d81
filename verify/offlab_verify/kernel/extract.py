"""Extraction of the kernel model's transition relation: every abstract state
keeps several concrete witnesses (different payloads and lengths); every
operation runs on each, and if their abstract results disagree the
abstraction is too coarse and extraction stops rather than pick one."""

from __future__ import annotations

import functools
import struct
from collections import deque
from dataclasses import dataclass, field

import offlab
from offlab import kernel as k

from ..evolve import evolve
from .abstraction import STACK, KState, abstract_skb
from .frames import PAYLOADS, Spec, frame, inner_frame, pseudo4, pseudo6, specs
from .ops import GENERIC_OPS, Config, Device, Step, enabled, op_xmit

WITNESSES_PER_STATE = 3


class TooCoarse(Exception):
    """Concrete packets of one abstract state disagree on an operation's result."""


@dataclass
class Witness:
    skb: k.SkBuff | None
    frames: list[bytes]  # on the wire (phase WIRE)
    ops: tuple[str, ...]
    origin: bytes


@dataclass
class Extraction:
    config: Config
    profile: str
    init: set[KState] = field(default_factory=set)
    trans: dict[tuple[KState, str], KState] = field(default_factory=dict)
    witnesses: dict[KState, list[Witness]] = field(default_factory=dict)
    # Counterexample trace records per property, replayed where the witnesses
    # are (a worker process), so the parent need not extract again.
    records: dict[str, list] = field(default_factory=dict)

    def states(self) -> set[KState]:
        out = set(self.init)
        for (s, _), t in self.trans.items():
            out.add(s)
            out.add(t)
        return out


def _ghost(spec: Spec) -> KState:
    return KState(
        encap=int(spec.encap),
        ipv6=int(spec.ipv6),
        transport=spec.transport,
        g_ip=int(spec.bad_ip),
        g_l4=int(spec.bad_l4),
        g_oip=int(spec.bad_oip),
        g_ol4=int(spec.bad_ol4),
    )


def _local_partial(spec: Spec, payload: bytes, gso_size: int) -> k.SkBuff:
    """A packet from a local socket or a guest's virtio NIC: CHECKSUM_PARTIAL
    with the pseudo-header sum in the field (tcp_v4_send_check), TSO when
    gso_size is set."""
    raw = bytearray(inner_frame(spec, payload))
    tcp = spec.transport == 1
    l3 = 14
    l4 = l3 + (40 if spec.ipv6 else 20)
    plen = len(raw) - l4
    proto = 6 if tcp else 17
    if spec.ipv6:
        seed = pseudo6(bytes(raw[22:38]), bytes(raw[38:54]), proto, plen)
    else:
        seed = pseudo4(bytes(raw[26:30]), bytes(raw[30:34]), proto, plen)
    ofs = 16 if tcp else 6
    struct.pack_into("!H", raw, l4 + ofs, seed)
    skb = k.SkBuff(bytes(raw))
    skb.l3_ofs, skb.l4_ofs = l3, l4
    skb.ip_summed = k.IpSummed.PARTIAL
    skb.csum_start, skb.csum_offset = l4, ofs
    if gso_size:
        skb.gso_size = gso_size
        skb.gso_type = k.gso.TCPV6 if spec.ipv6 else k.gso.TCPV4
        skb.gso_segs = -(-(plen - 20) // gso_size)
    return skb


@functools.cache
def _profile(name: str) -> offlab.NicProfile:
    """Parsed once: a profile name passed to the core is parsed on every call."""
    return offlab.builtin_profile(name)


def initial(cfg: Config, profile: str) -> dict[KState, list[Witness]]:
    """Packets entering the kernel: every witness frame received by the
    profile's driver, and local/guest packets with a partial checksum (and
    TSO for TCP)."""
    out: dict[KState, list[Witness]] = {}

    def add(skb: k.SkBuff, ghost: KState, origin: bytes) -> None:
        s = abstract_skb(skb, ghost)
        if s.v_trust:
            # The driver itself vouched for a wrong checksum (hardware that
            # does not check what it reports, or a hypervisor's word): an
            # assumption the kernel's software cannot repair. Property K0
            # reports it; K1-K4 are about what the kernel then does.
            s = evolve(s, v_trust=0, g_hw=1)
        ws = out.setdefault(s, [])
        if len(ws) < WITNESSES_PER_STATE:
            ws.append(Witness(skb, [], (), origin))

    nic = _profile(profile)
    for spec in specs():
        for payload in PAYLOADS:
            raw = frame(spec, payload)
            res, _ctr = k.driver_receive(raw, nic, cfg.kv)
            if not res.dropped:
                add(res.skb, _ghost(spec), raw)
    for spec in specs():
        if spec.encap or spec.bad_ip or spec.bad_l4:
            continue
        for i, payload in enumerate(PAYLOADS):
            add(_local_partial(spec, payload, 0), _ghost(spec), b"")
            if spec.transport == 1:
                big = payload * 4
                add(_local_partial(spec, big, 600 + 8 * i), _ghost(spec), b"")
    return out


def _apply(op: str, w: Witness, s: KState, cfg: Config, ops: dict) -> Step:
    if op.startswith("rx:"):
        res, _ctr = k.driver_receive(w.frames[0], _profile(op[3:]), cfg.kv)
        from .abstraction import DROPPED, ended

        if res.dropped:
            return None, ended(s, DROPPED)
        t = abstract_skb(res.skb, s)
        if t.v_trust and not s.v_trust:
            t = evolve(t, v_trust=0, g_hw=1)  # the driver vouched (see initial())
        return res.skb, t
    assert w.skb is not None
    return ops[op](w.skb, s, cfg)


def extract(cfg: Config, profile: str) -> Extraction:
    dev = k.kernel_device_features(profile)
    device = Device(profile, dev.features, dev.hw_enc_features)
    ops = dict(GENERIC_OPS)
    ops[f"xmit:{profile}"] = op_xmit(device)
    names = [*ops, f"rx:{profile}"]
    ex = Extraction(cfg, profile)
    ex.witnesses = initial(cfg, profile)
    ex.init = set(ex.witnesses)
    queue = deque(ex.init)
    checked: dict[KState, int] = {}  # witnesses of a state already run through every op
    while queue:
        s = queue.popleft()
        ws = ex.witnesses[s]
        start = checked.get(s, 0)
        if start >= len(ws):
            continue
        checked[s] = len(ws)
        for op in names:
            if not enabled(op, s) or (op.startswith("rx:") and s.phase != 1):
                continue
            results: list[tuple[KState, Witness]] = []
            for w in ws[start:]:
                if op.startswith("rx:") and len(w.frames) != 1:
                    continue  # a TSO burst re-enters frame by frame: not one state
                obj, t = _apply(op, w, s, cfg, ops)
                if isinstance(obj, list):
                    nw = Witness(None, obj, (*w.ops, op), w.origin)
                else:
                    nw = Witness(obj, [], (*w.ops, op), w.origin)
                results.append((t, nw))
            if not results:
                continue
            targets = {t for t, _ in results}
            known = ex.trans.get((s, op))
            if known is not None:
                targets.add(known)
            if len(targets) > 1:
                lines = "\n  ".join(f"{t.describe()} via {w.ops}" for t, w in results)
                raise TooCoarse(f"{op} from {s.describe()} ({cfg.name}, {profile}):\n  {lines}")
            t = results[0][0]
            ex.trans[(s, op)] = t
            have = ex.witnesses.setdefault(t, [])
            room = WITNESSES_PER_STATE - len(have)
            if room > 0:
                # A new state, or another way into a known one: the new
                # witnesses are run through every operation too.
                have.extend(w for _, w in results[:room])
                queue.append(t)
    return ex


def kernel_profiles() -> list[str]:
    """NIC profiles that describe a Linux driver."""
    out = []
    for name in offlab.builtin_profile_names():
        try:
            k.kernel_view(name)
        except offlab.OfflabError:
            continue
        out.append(name)
    return out


__all__ = ["STACK", "Extraction", "TooCoarse", "extract", "kernel_profiles"]
