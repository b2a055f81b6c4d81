"""The kernel operations of the verifier's alphabet, each a call into the
compiled kernel model (offlab._core.kernel) on a concrete skb."""

from __future__ import annotations

import functools
import struct
from collections.abc import Callable
from dataclasses import dataclass

from offlab import kernel as k

from ..evolve import evolve
from .abstraction import DELIVERED, DROPPED, STACK, KState, abstract_skb, abstract_wire, ended
from .frames import MAC_B, VTEP_A, VTEP_B, fold, ones_sum

Step = tuple[k.SkBuff | list[bytes] | None, KState]


@dataclass(frozen=True)
class Device:
    """A transmitting device: its features as the kernel model sees them."""

    name: str
    features: int
    hw_enc_features: int

    def dev(self) -> k.DeviceFeatures:
        return k.DeviceFeatures(features=self.features, hw_enc_features=self.hw_enc_features)


@dataclass(frozen=True)
class Config:
    """One extraction: a kernel version and the VXLAN device's options."""

    kernel: str = "6.18"
    udp_csum: bool = True  # vxlan udpcsum on encapsulation
    remcsum: bool = False  # remcsumtx on the sender, remcsumrx on the receiver

    @property
    def kv(self) -> k.KernelVersion:
        return _kernel_version(self.kernel)

    @property
    def name(self) -> str:
        return (
            f"kernel={self.kernel} csum={'on' if self.udp_csum else 'off'}"
            + (" rco" if self.remcsum else "")
        )


@functools.cache
def _kernel_version(name: str) -> k.KernelVersion:
    """Parsed once per name: the operations ask for it on every call."""
    return k.parse_kernel_version(name)


@functools.cache
def _vxlan_cfg(cfg: Config, local: bytes, remote: bytes) -> k.VxlanConfig:
    """One per setting and direction (the core only reads it)."""
    ip = ".".join(str(b) for b in local)
    rip = ".".join(str(b) for b in remote)
    return k.VxlanConfig(
        name="vxlan0",
        mac="02:00:00:00:00:02",
        vni=42,
        dstport=4789,
        port_min=49152,
        port_max=49153,
        local=ip,
        remote=rip,
        ttl=64,
        udp_csum=cfg.udp_csum,
        remcsum_tx=cfg.remcsum,
        remcsum_rx=cfg.remcsum,
        remcsum_nopartial=False,
    )


# ---- operations ---------------------------------------------------------------------


def op_stack(skb: k.SkBuff, s: KState, cfg: Config) -> Step:
    """The local stack receives the (plain) packet."""
    delivered, _reason, _out, _info, _ctr = k.stack_rcv(
        skb.copy(), dev_mac="02:00:00:00:00:02", udp_ports=[5201], kv=cfg.kv
    )
    return None, ended(s, DELIVERED if delivered else DROPPED)


def op_decap(skb: k.SkBuff, s: KState, cfg: Config) -> Step:
    vx = _vxlan_cfg(cfg, VTEP_B, VTEP_A)
    delivered, _reason, inner, _pt, _ctr = k.vxlan_rcv(skb.copy(), vx, cfg.kv)
    if not delivered:
        return None, ended(s, DROPPED)
    ghost = evolve(s, encap=0, g_oip=0, g_ol4=0)
    return inner, abstract_skb(inner, ghost)


def op_encap(skb: k.SkBuff, s: KState, cfg: Config) -> Step:
    vx = _vxlan_cfg(cfg, VTEP_A, VTEP_B)
    route = k.UnderlayRoute(
        src_mac="02:00:00:00:00:01", dst_mac="02:00:00:00:00:02", ip_id=99, flow_hash=0
    )
    sent, _reason, outer, _ctr = k.vxlan_xmit(skb.copy(), vx, route, cfg.kv)
    if not sent:
        return None, ended(s, DROPPED)
    ghost = evolve(s, encap=1, g_oip=0, g_ol4=0)
    return outer, abstract_skb(outer, ghost)


def _ovs(skb: k.SkBuff, act: Callable[[k.OvsSkb], object]) -> k.SkBuff:
    o = k.ovs_vport_receive(skb.copy())
    act(o)
    return o.skb


def op_set_ip(skb: k.SkBuff, s: KState, cfg: Config) -> Step:
    if s.ipv6 and not s.encap:
        out = _ovs(skb, lambda o: k.ovs_set_ipv6(o, dst="fd00::9", kv=cfg.kv))
    else:
        out = _ovs(skb, lambda o: k.ovs_set_ipv4(o, dst="10.0.0.9", ttl=33))
    return out, abstract_skb(out, s)


def op_set_tp(skb: k.SkBuff, s: KState, cfg: Config) -> Step:
    if s.encap:
        out = _ovs(skb, lambda o: k.ovs_set_udp(o, src=50000))
    elif s.transport == 1:
        out = _ovs(skb, lambda o: k.ovs_set_tcp(o, dst=8080))
    else:
        out = _ovs(skb, lambda o: k.ovs_set_udp(o, dst=8080))
    return out, abstract_skb(out, s)


def op_ct(skb: k.SkBuff, s: KState, cfg: Config) -> Step:
    o = k.ovs_vport_receive(skb.copy())
    r = k.ovs_ct(o, zone=0, commit=True, checksum=True, kv=cfg.kv)
    ct = r["ct"]
    out = o.skb
    state = abstract_skb(out, s)
    # nf_conntrack validates the checksum it can see (the outer one when
    # tunnelled): tracking a packet whose checksum was wrong vouches for it.
    bad = (s.g_ol4 or s.g_oip) if s.encap else (s.g_l4 or s.g_ip)
    if ct.get("tracked") and bad and ct.get("checksum_checked"):
        state = evolve(state, v_trust=1)
    if not ct.get("tracked"):
        return None, ended(state, DROPPED)  # +inv: an OVS flow drops it
    return out, state


def _rfc1624(hc: int, old: int, new: int) -> int:
    """RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m')."""
    x = (~hc & 0xFFFF) + (~old & 0xFFFF) + new
    while x >> 16:
        x = (x & 0xFFFF) + (x >> 16)
    return ~x & 0xFFFF


def _get(f: bytearray, ofs: int) -> int:
    return int(struct.unpack_from("!H", f, ofs)[0])


def _edit(f: bytearray, ofs: int, new: int, csums: list[int], outer_udp: int | None) -> None:
    """Changes the 16-bit word at `ofs` and every checksum covering it:
    `csums`, and the outer UDP checksum for words inside the UDP datagram
    (including each inner checksum word that changed)."""
    old = _get(f, ofs)
    struct.pack_into("!H", f, ofs, new)
    changes = [(old, new)] if outer_udp is not None and ofs >= 42 else []
    for c in csums:
        hc = _get(f, c)
        nc = _rfc1624(hc, old, new)
        struct.pack_into("!H", f, c, nc)
        if outer_udp is not None and c >= 42:
            changes.append((hc, nc))
    if outer_udp is not None:
        for o, n in changes:
            v = _rfc1624(_get(f, outer_udp), o, n)
            struct.pack_into("!H", f, outer_udp, v or 0xFFFF)


def _successor(skb: k.SkBuff, s: KState) -> k.SkBuff:
    """The next segment of the same flow: TCP sequence + payload length and
    IPv4 IDs + 1, every covering checksum updated by RFC 1624 so a wrong one
    stays wrong by the same amount; a COMPLETE sum keeps its error."""
    f = bytearray(skb.frame)
    base = 50 if s.encap else 0
    outer_udp = 40 if s.encap and _get(f, 40) else None
    if s.ipv6:
        l4 = base + 54
    else:
        l4 = base + 14 + (f[base + 14] & 15) * 4
        _edit(f, base + 18, (_get(f, base + 18) + 1) & 0xFFFF, [base + 24], outer_udp)
    if s.encap:
        _edit(f, 18, (_get(f, 18) + 1) & 0xFFFF, [24], None)
    seq = struct.unpack_from("!I", f, l4 + 4)[0]
    plen = len(f) - l4 - (f[l4 + 12] >> 4) * 4
    nseq = (seq + plen) & 0xFFFFFFFF
    _edit(f, l4 + 4, nseq >> 16, [l4 + 16], outer_udp)
    _edit(f, l4 + 6, nseq & 0xFFFF, [l4 + 16], outer_udp)
    nxt = skb.copy()
    nxt.frame = bytes(f)
    if skb.ip_summed == k.IpSummed.COMPLETE:
        err = (fold(skb.csum) - fold(ones_sum(skb.frame[skb.csum_from :]))) % 0xFFFF
        nxt.csum = fold(ones_sum(bytes(f[skb.csum_from :])) + err)
    return nxt


def op_gro(skb: k.SkBuff, s: KState, cfg: Config) -> Step:
    cell = k.GroCell(
        k.GroConfig(kv=cfg.kv, vxlan=[k.GroVxlanSocket(4789, remcsum_rx=cfg.remcsum)])
    )
    first, second = skb.copy(), _successor(skb, s)
    cell.receive(first, 1)
    cell.receive(second, 1)
    out = cell.flush()
    if len(out) == 1:
        merged = out[0]
        bad = s.g_ip or s.g_l4 or s.g_oip or s.g_ol4
        return merged, abstract_skb(merged, evolve(s, v_merge=int(s.v_merge or bad)))
    if not out:
        return None, ended(s, DROPPED)
    # Not merged: follow the first segment (the one this state describes).
    lead = skb.frame[:14]
    pick = next((o for o in out if o.frame[:14] == lead and len(o) == len(skb)), out[0])
    return pick, abstract_skb(pick, s)


def op_xmit(dev: Device) -> Callable[[k.SkBuff, KState, Config], Step]:
    def run(skb: k.SkBuff, s: KState, cfg: Config) -> Step:
        skbs, _ctr, _work = k.validate_xmit_skb(skb.copy(), dev.dev(), cfg.kv)
        if not skbs:
            return None, ended(s, DROPPED)
        frames: list[bytes] = []
        for seg in skbs:
            got, _c = k.device_transmit(seg, dev.dev())
            frames.extend(got)
        if not frames:
            return None, ended(s, DROPPED)
        return frames, abstract_wire(frames, s)

    return run


def enabled(op: str, s: KState) -> bool:
    if s.phase != STACK:
        return op.startswith("rx:") and s.phase == 1
    if op == "stack":
        return not s.encap
    if op == "decap":
        return bool(s.encap)
    if op == "encap":
        return not s.encap
    if op == "gro":
        return s.transport == 1 and not s.gso and s.summed != 3
    return not op.startswith("rx:")


GENERIC_OPS: dict[str, Callable[[k.SkBuff, KState, Config], Step]] = {
    "gro": op_gro,
    "decap": op_decap,
    "encap": op_encap,
    "set_ip": op_set_ip,
    "set_tp": op_set_tp,
    "ct": op_ct,
    "stack": op_stack,
}
__all__ = ["GENERIC_OPS", "MAC_B", "STACK", "Config", "Device", "enabled", "op_xmit"]
