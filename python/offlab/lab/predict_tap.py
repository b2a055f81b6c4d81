"""Model compositions for the TAP cases (cases_tap.py). The TAP t0 and the
veth end a0 are ports of bridge br0 in namespace a.

  guest -> t0: write() (tun_get_user) -> the bridge forwards to a0
  (br_dev_queue_push_xmit, v6.18.19 net/bridge/br_forward.c:33-60, pushes
  the Ethernet header back and calls dev_queue_xmit; the checksum state is
  left as it is) -> validate_xmit_skb with a0's features -> veth_xmit -> b0's
  taps -> b0's stack.

  b0 -> guest: AF_PACKET send on b0 -> validate_xmit_skb with b0's features
  -> veth_xmit -> a0 (GRO when veth uses a0's NAPI) -> the bridge forwards to
  t0 -> validate_xmit_skb with the TAP's features (TUNSETOFFLOAD) ->
  tun_net_xmit -> read() (tun_put_user's vnet header).
"""

from __future__ import annotations

from typing import Any

from . import cases_tap as C
from . import model as M
from . import topology as T
from .case import Result
from .observe import VnetHdr
from .predict import captured, gro_config, predicts, veth_link


@predicts(C.from_guest)
def from_guest(kv: Any, frames: list[bytes], hdr: VnetHdr,
               a_features: dict[str, bool] | None = None,
               counters: bool = True) -> Result:  # fmt: skip
    a0 = M.device("veth", kv, a_features)
    b0 = M.device("veth", kv)
    skbs = [M.tap_write(f, hdr) for f in frames]
    _sent, got = veth_link(kv, skbs, a0, b0)
    out = captured("b0.in", got, outgoing=False)
    if counters:
        c = M.Counters()
        n = sum(M.stack_rcv(s, kv, c, dev_mac=T.MAC_B, udp_ports=(C.UPORT,))[0] for s in got)
        out["socket"] = f"{n} datagram(s)"
        c.record(out, C.UDP_COUNTERS)
    return out


@predicts(C.to_guest)
def to_guest(kv: Any, offloads: int, frames: list[bytes], hdr: VnetHdr | None,
             gro: bool = False) -> Result:  # fmt: skip
    b0 = M.device("veth", kv, T.NO_TSO if gro else None)
    a0 = M.device("veth", kv, T.GRO_ON if gro else None)
    t0 = M.tap_device(offloads, kv)
    skbs = [M.packet_snd(f, hdr) for f in frames]
    _sent, at_a0 = veth_link(kv, skbs, b0, a0, gro_config(kv, a0))
    read: list[str] = []
    for skb in at_a0:
        for s in M.dev_xmit(skb, t0, kv):
            read.append(M.tap_read(s, t0))
    out = {"t0.read.count": str(len(read))}
    out.update({f"t0.read[{i}]": r for i, r in enumerate(read)})
    return out
