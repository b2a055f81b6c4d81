"""What the core predicts for a replay through the kernel TAP device with
virtio-net headers (the `tap` profile's path, kernel_tap.py).

Transmit: OVS's egress for the profile's capabilities (NetdevSend) hands each
packet to netdev-linux, which writes the virtio-net header in front of it
(netdev_linux_prepend_vnet_hdr, the core's VnetTransmit: NEEDS_CSUM with
csum_start/csum_offset and the pseudo-header sum in the field, GSO type and
size). Those header+frame pairs are what offlab writes to the TAP. Two
predictions of the wire are compared with what the veth peer captures:

- the `tap` profile's (NicTransmit of the same packets: the "NIC" behind a
  tap port is the kernel, which completes the checksums and segments);
- the kernel model's, step by step: tun_get_user (TapWrite), the bridge
  (br_dev_queue_push_xmit leaves the checksum state as it is, v6.18.19
  net/bridge/br_forward.c:33-60), validate_xmit_skb with a0's features
  (no checksum, no TSO: skb_checksum_help and software GSO), veth_xmit.

Receive: frames sent from the veth peer cross a0 (GRO on its NAPI), the
bridge and the TAP's own validate_xmit_skb (its features from TUNSETOFFLOAD)
and are read with the header tun_put_user writes; the kernel model predicts
that header and the bytes.

Seeded faults act on the header offlab writes, never on the prediction: the
prediction is computed with every fault off."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from . import _core
from . import trace as trace_format
from .lab import model as M
from .lab import predict as P
from .lab import topology as T
from .lab.observe import VnetHdr

TUN_F_CSUM, TUN_F_TSO4, TUN_F_TSO6 = 0x01, 0x02, 0x04
VNET_HDR_SZ = 10  # sizeof(struct virtio_net_hdr): what netdev-linux uses

# a0, the bridge port towards the veth: without checksum offload and TSO its
# validate_xmit_skb completes every NEEDS_CSUM (skb_checksum_help) and
# segments every GSO skb (skb_gso_segment) before veth_xmit, so b0 sees wire
# frames (validate_xmit_skb, torvalds/linux 7d0a66e4bb90 (v6.18) net/core/dev.c
# :3994-4003 software GSO, :4013-4022 the checksum; models/src/linux/xmit.cc).
# rx-gro on:
# frames from b0 meet GRO there (veth NAPI, see lab/cases_gro.py).
A0_FEATURES = {**T.NO_CSUM, **T.GRO_ON}
# b0, the capturing peer: rx-gro off, so veth_xmit hands a0's frames to
# netif_rx and nothing is merged again before b0's packet taps; no TSO, so a0
# may use GRO for b0's frames (veth_skb_is_eligible_for_gro).
B0_FEATURES = {"rx-gro": False, **T.NO_TSO}


@dataclass(frozen=True)
class Written:
    """One write() to the TAP: the header and the frame behind it."""

    hdr: VnetHdr
    frame: bytes


def tun_offloads(profile: _core.NicProfile) -> int:
    """The TUNSETOFFLOAD flags netdev-linux requests for a tap port with the
    profile's capabilities: TUN_F_CSUM for TCP/UDP checksums, TSO4|TSO6 with
    TSO (OVS d6a632a9b1 lib/netdev-linux.c:1175-1187)."""
    caps = profile.tx_caps
    flags = 0
    if caps & (_core.caps.TCP_CKSUM | _core.caps.UDP_CKSUM):
        flags |= TUN_F_CSUM
    if caps & _core.caps.TCP_TSO:
        flags |= TUN_F_TSO4 | TUN_F_TSO6
    return flags


@contextmanager
def faults(names: Iterable[str]) -> Iterator[None]:
    """The named seeded faults on for the block, all off afterwards."""
    try:
        for n in names:
            _core.enable_fault(n)
        yield
    finally:
        _core.clear_faults()


def written(record: trace_format.Record, profile: _core.NicProfile) -> list[Written]:
    """What netdev-linux writes to the TAP for a trace's tx record."""
    ready, _errors = _core.netdev_send([record.packet()], profile.tx_caps)
    out = []
    for q in ready:
        h = _core.vnet_transmit(q)
        out.append(
            Written(VnetHdr(h.flags, h.gso_type, 0, h.gso_size, h.csum_start, h.csum_offset),
                    q.bytes())
        )  # fmt: skip
    return out


def profile_wire(record: trace_format.Record, profile: _core.NicProfile) -> list[bytes]:
    """The wire frames the `tap` profile predicts (NetdevSend + NicTransmit)."""
    frames, _errors = trace_format.predict(record, profile)
    return [f.bytes() for f in frames]


def kernel_version() -> Any:
    from .lab.main import parse_kernel

    return parse_kernel(None)


def model_wire(writes: list[Written], kv: Any) -> list[bytes]:
    """The kernel model's frames at b0 for the TAP writes."""
    a0 = M.device("veth", kv, A0_FEATURES)
    b0 = M.device("veth", kv, B0_FEATURES)
    skbs = [M.tap_write(w.frame, w.hdr) for w in writes]
    _sent, got = P.veth_link(kv, skbs, a0, b0)
    return [bytes(s.frame) for s in got]


def model_reverse(frames: list[bytes], tun_f: int, kv: Any) -> list[tuple[VnetHdr, bytes]]:
    """The kernel model's TAP reads for frames sent (one burst) from b0."""
    b0 = M.device("veth", kv, B0_FEATURES)
    a0 = M.device("veth", kv, A0_FEATURES)
    t0 = M.tap_device(tun_f, kv)
    skbs = [M.packet_snd(f, None) for f in frames]
    _sent, at_a0 = P.veth_link(kv, skbs, b0, a0, P.gro_config(kv, a0))
    out = []
    for skb in at_a0:
        for s in M.dev_xmit(skb, t0, kv):
            err, t = M.fn("tap_read")(s, t0)
            if err:
                raise M.Refused(f"the model's tap_read refuses the skb: {err}")
            h = t.hdr
            hdr = VnetHdr(h.flags, h.gso_type, h.hdr_len, h.gso_size, h.csum_start, h.csum_offset)
            out.append((hdr, bytes(s.frame)))
    return out


__all__ = [
    "A0_FEATURES",
    "B0_FEATURES",
    "VNET_HDR_SZ",
    "Written",
    "faults",
    "kernel_version",
    "model_reverse",
    "model_wire",
    "profile_wire",
    "tun_offloads",
    "written",
]
