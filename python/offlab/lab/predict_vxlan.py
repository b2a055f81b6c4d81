"""Model compositions for the VXLAN cases (cases_vxlan.py):

  AF_PACKET send on a's vx0 (or raw underlay frames on a0)
  -> validate_xmit_skb with vx0's features -> vxlan_xmit (the outer headers,
     UDP checksum / LCO / RCO) -> ip_local_out -> validate_xmit_skb with a0's
     features; a0's taps -> veth_xmit -> b0 (GRO with the VXLAN socket's
     gro_receive when veth uses b0's NAPI) -> the outer IP/UDP receive and
     vxlan_rcv (vxlan_rcv) -> b's vx0 -> b's vx0 taps -> the inner stack.

b's vx0 hands the decapsulated skb to gro_cells_receive, which passes a
cloned skb to netif_rx without GRO (v6.18.19 net/core/gro_cells.c:25-26)
and runs GRO on vx0's cell otherwise. The lab's capture on a0 clones every
underlay skb (dev_queue_xmit_nit, net/core/dev.c) and keeps the clone until
it is read, after the case's traffic; veth forwards that same skb. Through
netif_rx (b0 without NAPI) it is still cloned at vx0, so vx0's GRO does not
run; through b0's NAPI veth unclones it first (drivers/net/veth.c:936), so it
does. Each b0 poll hands up at most one skb in these cases (one frame per
send, one held packet per timer flush), and vx0's cell polls after it and
completes what it holds (no gro_flush_timeout on vx0): one receive and one
flush per skb.
"""

from __future__ import annotations

from typing import Any

from . import cases_vxlan as C
from . import model as M
from . import topology as T
from .case import Result
from .observe import VnetHdr
from .predict import captured, gro_config, gro_receive, predicts, veth_link, veth_uses_napi

VX_MTU = 1500  # no underlay device given: vxlan_config_apply keeps ETH_DATA_LEN


def vxlan_config(side: str, opts: tuple[str, ...], v6: bool) -> Any:
    """`ip link add vx0 ... type vxlan` as topology.vxlan runs it on `side`."""
    k = M.kernel()
    a = side == "a"
    if v6:
        local, remote = (T.IP6_A, T.IP6_B) if a else (T.IP6_B, T.IP6_A)
    else:
        local, remote = (T.IP_A, T.IP_B) if a else (T.IP_B, T.IP_A)
    flags = {
        "udp_csum": True if "udpcsum" in opts else False if "noudpcsum" in opts else None,
        "udp6_zero_csum_tx": "udp6zerocsumtx" in opts,
        "udp6_zero_csum_rx": "udp6zerocsumrx" in opts,
        "remcsum_tx": "remcsumtx" in opts,
        "remcsum_rx": "remcsumrx" in opts,
    }
    return M.fn("VxlanConfig")(
        name="vx0", mac=T.MAC_VA if a else T.MAC_VB, vni=T.VNI, dstport=4789,
        port_min=T.VXLAN_SRC_PORT, port_max=T.VXLAN_SRC_PORT + 1, local=local, remote=remote,
        ttl=64, df=k.VxlanDf.UNSET if v6 else k.VxlanDf.SET, **flags,
    )  # fmt: skip


@predicts(C.through_vxlan)
def through_vxlan(kv: Any, inner: list[bytes], a_opts: tuple[str, ...] = (),
                  b_opts: tuple[str, ...] = (), v6: bool = False, hdr: VnetHdr | None = None,
                  underlay: list[bytes] | None = None, tcp: bool = False,
                  gro: bool = False, a_features: dict[str, bool] | None = None,
                  record_tx: bool = True) -> Result:  # fmt: skip
    cfg_a, cfg_b = vxlan_config("a", a_opts, v6), vxlan_config("b", b_opts, v6)
    a0 = M.device("veth", kv, T.NO_TSO if gro else a_features)
    b0 = M.device("veth", kv, T.GRO_ON if gro else None)
    if underlay is not None:
        outer = [M.packet_snd(f, None) for f in underlay]
    else:
        vx = M.device("vxlan", kv)
        route = M.fn("UnderlayRoute")(src_mac=T.MAC_A, dst_mac=T.MAC_B, ip_id=0, hop_limit=64)
        outer = []
        for f in inner:
            for skb in M.dev_xmit(M.packet_snd(f, hdr, mtu=VX_MTU), vx, kv):
                sent, _reason, out_skb, _c = M.fn("vxlan_xmit")(skb, cfg_a, route, kv)
                if sent:
                    outer.append(out_skb)
    sock = M.fn("GroVxlanSocket")(4789, remcsum_rx=cfg_b.remcsum_rx)
    wire, arrived = veth_link(kv, outer, a0, b0, gro_config(kv, b0, vxlan=[sock]))
    # gro_cells: GRO on b's vx0 only when the skb is no longer cloned.
    vx_gro = gro_config(kv, M.device("vxlan", kv)) if veth_uses_napi(a0, b0) else None
    counters = M.Counters()
    decapsulated = []
    for skb in arrived:
        ok, _reason, inner_skb, _pkt_type, c = M.fn("vxlan_rcv")(skb.copy(), cfg_b, kv)
        counters.add(c)
        if ok:
            decapsulated += gro_receive(vx_gro, [inner_skb]) if vx_gro else [inner_skb]
    out = captured("a0.out", wire, outgoing=True, tunnel=True) if record_tx else {}
    out |= captured("vx0.in", decapsulated, outgoing=False)
    ports = () if tcp else (C.UPORT,)
    delivered = sum(M.stack_rcv(s, kv, counters, dev_mac=T.MAC_VB, udp_ports=ports)[0]
                    for s in decapsulated)  # fmt: skip
    if not tcp:
        out["socket"] = f"{delivered} datagram(s)"
    counters.record(out, C.counter_names(v6, tcp))
    stats = [counters.get(f"vx0:{n}", 0) for n in ("rx_packets", "rx_errors", "rx_dropped")]
    out["vx0 rx_packets/rx_errors/rx_dropped"] = "/".join(map(str, stats))
    return out
