"""The kernel model's calls the predictions are composed of, behind one thin
adapter: each function here is one model binding (offlab._core.kernel), named
after the kernel step it stands for. A binding that is not there raises
ModelMissing naming it and the helper writing it, so the case reports
await-model instead of guessing.

Nothing here decides a kernel rule: the rules live in the C++ model the
bindings call. The glue only says which step follows which on a case's path
(predict_*.py) and converts values to the text the lab records.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .case import ModelMissing
from .observe import VnetHdr

# Which helper binds what (python/bindings/kernel_*_bindings.cc).
HELPER = {
    "packet_snd": "P",
    "PacketSocketConfig": "P",
    "VnetHdr": "P",
    "packet_rcv_vnet": "P",
    "packet_csum_status": "P",
    "tap_write": "P",
    "tap_read": "P",
    "tap_features": "P",
    "veth_xmit": "P",
    "veth_device": "P",
    "vxlan_device": "P",
    "bridge_device": "P",
    "tap_device": "P",
    "validate_xmit_skb": "X",
    "stack_rcv": "V",
    "vxlan_xmit": "V",
    "vxlan_rcv": "V",
    "GroCell": "G",
    "predict_conntrack": "K",
    "nf_conntrack_in": "K",
}

TP_STATUS_CSUMNOTREADY = 1 << 3
TP_STATUS_CSUM_VALID = 1 << 7


def kernel() -> Any:
    try:
        from offlab import _core

        return _core.kernel
    except (ImportError, AttributeError):
        raise ModelMissing("offlab._core.kernel (the package is not built)") from None


def fn(name: str) -> Any:
    k = kernel()
    if not hasattr(k, name):
        raise ModelMissing(f"kernel.{name} (helper {HELPER.get(name, '?')})")
    return getattr(k, name)


def need(*names: str) -> None:
    """Raises ModelMissing for every binding of `names` that is absent."""
    k = kernel()
    missing = [n for n in names if not hasattr(k, n)]
    if missing:
        raise ModelMissing(", ".join(f"kernel.{n} (helper {HELPER.get(n, '?')})" for n in missing))


# --- devices -----------------------------------------------------------


def device(kind: str, kv: Any, changes: dict[str, bool] | None = None) -> Any:
    """A fresh device's features (veth, vxlan, bridge, tap) with `ethtool -K`
    changes applied by name. A name the model has no bit for changes nothing
    in the model (it is a feature the model does not use)."""
    dev = fn(f"{kind}_device")(kv).dev
    return with_changes(dev, changes)


def tap_device(offloads: int, kv: Any) -> Any:
    """A TAP after TUNSETOFFLOAD `offloads` (tun.c set_offload)."""
    if not offloads:
        return fn("tap_device")(kv).dev
    return fn("tap_features")(offloads, kv)


def with_changes(dev: Any, changes: dict[str, bool] | None) -> Any:
    k = kernel()
    known = set(k.feature_names((1 << 26) - 1))
    out = k.DeviceFeatures(dev.features, dev.hw_enc_features, dev.gso_max_size,
                           dev.gso_max_segs, dev.mtu)  # fmt: skip
    for name, on in (changes or {}).items():
        if name not in known:
            continue
        bit = k.feature_from_name(name)
        out.features = (out.features | bit) if on else (out.features & ~bit)
    return out


def has(dev: Any, *names: str) -> bool:
    """Whether any of the named features (those the model has a bit for) is on."""
    k = kernel()
    known = set(k.feature_names((1 << 26) - 1))
    return any(dev.features & k.feature_from_name(n) for n in names if n in known)


# --- endpoints ---------------------------------------------------------


def _vnet(hdr: VnetHdr | None) -> Any:
    if hdr is None:
        return None
    return fn("VnetHdr")(hdr.flags, hdr.gso_type, hdr.hdr_len, hdr.gso_size, hdr.csum_start,
                         hdr.csum_offset)  # fmt: skip


class Refused(Exception):
    """The model refuses an input the lab's kernel accepted (a disagreement)."""


def packet_snd(frame: bytes, hdr: VnetHdr | None, mtu: int = 1500) -> Any:
    """An AF_PACKET SOCK_RAW send (packet_snd) -> the skb handed to dev_queue_xmit."""
    cfg = fn("PacketSocketConfig")(mtu=mtu)
    err, skb = fn("packet_snd")(frame, _vnet(hdr), cfg)
    if err:
        raise Refused(f"the model's packet_snd refuses the frame: {err}")
    return skb


def tap_write(frame: bytes, hdr: VnetHdr) -> Any:
    """A write() of a vnet header + frame to a TAP (tun_get_user)."""
    err, skb, _counters = fn("tap_write")(frame, _vnet(hdr))
    if err:
        raise Refused(f"the model's tap_write refuses the frame: {err}")
    return skb


def _summary(h: Any) -> str:
    return VnetHdr(h.flags, h.gso_type, h.hdr_len, h.gso_size, h.csum_start,
                   h.csum_offset).summary()  # fmt: skip


def tap_read(skb: Any, tap: Any) -> str:
    """What a read() of the TAP returns for `skb` (tun_put_user), as
    `case.frame_text` prints it."""
    err, h = fn("tap_read")(skb, tap)
    vnet = f"tap-read-error {err}" if err else _summary(h.hdr)
    return f"{vnet} | - | {bytes(skb.frame).hex()}"


def seen(skb: Any, outgoing: bool) -> tuple[str, str, bytes]:
    """What the lab's two packet sockets on a device record for `skb`: the
    vnet header (packet_rcv_vnet; refused -> "vnet-refused"), the
    PACKET_AUXDATA checksum status and the bytes."""
    err, h = fn("packet_rcv_vnet")(skb)
    vnet = "vnet-refused" if err else _summary(h)
    status = fn("packet_csum_status")(skb, outgoing)
    if status & TP_STATUS_CSUMNOTREADY:
        aux = "csum-not-ready"
    elif status & TP_STATUS_CSUM_VALID:
        aux = "csum-valid"
    else:
        aux = "-"
    return vnet, aux, bytes(skb.frame)


# --- transmit / receive steps -------------------------------------------


def dev_xmit(skb: Any, dev: Any, kv: Any) -> list[Any]:
    """dev_queue_xmit's validate_xmit_skb: what the driver's ndo_start_xmit
    gets (software GSO, checksum help), in order."""
    skbs, _counters, _work = fn("validate_xmit_skb")(skb, dev, kv)
    return list(skbs)


def veth_xmit(skb: Any, peer: Any, kv: Any) -> Any:
    """veth_xmit's change to the skb it forwards to the peer."""
    fn("veth_xmit")(skb, peer, kv)
    return skb


class Counters(dict[str, int]):
    """Counter deltas of one namespace, under the lab's names
    ("Udp:InErrors", "Udp6:InErrors", "vx0:rx_packets")."""

    def add(self, counters: dict[str, int]) -> None:
        for name, v in counters.items():
            key = lab_counter_name(name)
            self[key] = self.get(key, 0) + int(v)

    def record(self, out: dict[str, str], names: Iterable[str]) -> None:
        for n in names:
            out[f"snmp {n}"] = str(self.get(n, 0))


def lab_counter_name(name: str) -> str:
    """The model writes snmp6 keys as in /proc/net/snmp6 ("Udp6InErrors");
    the lab records them "Udp6:InErrors"."""
    for group in ("Udp6", "UdpLite6", "Ip6", "Icmp6"):
        if name.startswith(group) and not name.startswith(group + ":"):
            return f"{group}:{name[len(group) :]}"
    return name


def stack_rcv(
    skb: Any,
    kv: Any,
    counters: Counters,
    dev_mac: str | None = None,
    udp_ports: Iterable[int] = (),
    no_check6_rx: bool = False,
) -> tuple[bool, str]:
    """The local stack's receive (eth_type_trans, IP, UDP/TCP checksum rules,
    socket delivery incl. UDP's check at recvmsg) with its counters."""
    delivered, reason, _skb, _info, c = fn("stack_rcv")(
        skb.copy(),
        dev_mac=dev_mac,
        udp_ports=list(udp_ports),
        udp_no_check6_rx=no_check6_rx,
        kv=kv,
    )
    counters.add(c)
    return bool(delivered), str(reason)
