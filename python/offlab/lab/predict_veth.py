"""Model compositions for the veth cases (cases_veth.py, cases_gro.py):

AF_PACKET send on a0 (packet_snd, with or without a vnet header)
-> validate_xmit_skb with a0's features (GSO, checksum help); a0's taps
-> veth_xmit to b0 -> b0's NAPI GRO (when veth uses it) or netif_rx;
   b0's taps -> the local stack's receive and its counters.
"""

from __future__ import annotations

from typing import Any

from . import cases_gro as G
from . import cases_veth as V
from . import model as M
from . import topology as T
from .case import Result
from .observe import VnetHdr
from .predict import captured, gro_config, predicts, veth_link


def across_veth(kv: Any, frames_in: list[tuple[bytes, VnetHdr | None]],
                a_features: dict[str, bool] | None = None,
                b_features: dict[str, bool] | None = None,
                udp_ports: tuple[int, ...] = (),
                sock_gro: bool = False) -> tuple[list[Any], list[Any]]:  # fmt: skip
    """Frames sent on a0 by AF_PACKET: (skbs a0's taps see, skbs b0's see).
    `udp_ports`: b's UDP sockets (with UDP_GRO when `sock_gro`)."""
    a0 = M.device("veth", kv, a_features)
    b0 = M.device("veth", kv, b_features)
    skbs = [M.packet_snd(f, h) for f, h in frames_in]
    sockets = [M.fn("GroUdpSocket")(p, gro_enabled=sock_gro) for p in udp_ports]
    return veth_link(kv, skbs, a0, b0, gro_config(kv, b0, udp_sockets=sockets))


def deliver(kv: Any, skbs: list[Any], counters: M.Counters, udp_ports: tuple[int, ...] = ()
            ) -> int:  # fmt: skip
    """b0's stack receives each skb; returns how many reached a socket."""
    return sum(M.stack_rcv(s, kv, counters, dev_mac=T.MAC_B, udp_ports=udp_ports)[0]
               for s in skbs)  # fmt: skip


@predicts(V.udp_to_socket)
def udp_to_socket(kv: Any, frame: bytes, hdr: VnetHdr | None = None,
                  a_features: dict[str, bool] | None = None, ip_counters: bool = False,
                  v6: bool = False) -> Result:  # fmt: skip
    sent, got = across_veth(kv, [(frame, hdr)], a_features, udp_ports=(V.UPORT,))
    out = captured("a0.out", sent, outgoing=True) | captured("b0.in", got, outgoing=False)
    counters = M.Counters()
    out["socket"] = f"{deliver(kv, got, counters, (V.UPORT,))} datagram(s)"
    counters.record(out, V.udp_counter_names(ip_counters, v6))
    return out


@predicts(V.tcp_to_listener)
def tcp_to_listener(kv: Any, frame: bytes, v6: bool = False) -> Result:
    _sent, got = across_veth(kv, [(frame, None)])
    out = captured("b0.in", got, outgoing=False)
    counters = M.Counters()
    delivered = deliver(kv, got, counters)
    # A segment that fails its checksum is discarded without an answer
    # (net/ipv4/tcp_ipv4.c tcp_v4_rcv: csum_error -> discard_it, no
    # tcp_v4_send_reset). What the listener answers to an accepted SYN is
    # not modelled: a prediction saying so disagrees with the capture.
    out["b0.out.count"] = "0" if not delivered else "1"
    if delivered:
        out["b0.out[0]"] = "the listener's answer (not modelled)"
    counters.record(out, V.TCP_COUNTERS)
    return out


@predicts(V.gso_request)
def gso_request(kv: Any, frame: bytes, hdr: VnetHdr, a_features: dict[str, bool] | None
                ) -> Result:  # fmt: skip
    _sent, got = across_veth(kv, [(frame, hdr)], a_features)
    return captured("b0.in", got, outgoing=False)


@predicts(G.gro_tcp)
def gro_tcp(kv: Any, frames: list[bytes], gro: bool, eligible: bool = True,
            v6: bool = False) -> Result:  # fmt: skip
    a_features = T.NO_TSO if gro and eligible else None
    _sent, got = across_veth(kv, [(f, None) for f in frames], a_features,
                             T.GRO_ON if gro else None)  # fmt: skip
    out = captured("b0.in", got, outgoing=False)
    counters = M.Counters()
    deliver(kv, got, counters)
    counters.record(out, ["Tcp:InCsumErrors", "Tcp:InErrs"])
    return out


@predicts(G.gro_udp)
def gro_udp(kv: Any, frames: list[bytes], sock_gro: bool = False) -> Result:
    _sent, got = across_veth(kv, [(f, None) for f in frames], T.NO_TSO, T.GRO_ON,
                             udp_ports=(V.UPORT,), sock_gro=sock_gro)  # fmt: skip
    out = captured("b0.in", got, outgoing=False)
    counters = M.Counters()
    out["socket"] = f"{deliver(kv, got, counters, (V.UPORT,))} datagram(s)"
    counters.record(out, V.UDP_COUNTERS)
    return out
