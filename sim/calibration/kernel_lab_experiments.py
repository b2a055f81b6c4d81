"""The experiments of kernel_lab_costs.py: what each one varies, and how its
work items are counted from the kernel's own counters.

Every experiment runs in fresh namespaces (kernel_lab_rig.py) and changes one
thing against a neighbour: an `ethtool -K` feature, a send size, a topology or a
VXLAN checksum mode, so that the eight counts move differently between them.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

import kernel_lab_rig as rig

COUNTS = (
    "polls",
    "rx_frames",
    "gro_merges",
    "packets",
    "tx_frames",
    "segments",
    "csum_bytes",
    "copy_bytes",
)
# The experiments' own endpoints: socket calls, and TCP's protocol work per skb
# (write queue, ACKs, receive queue). They are not the kernel host's costs (the
# simulator prices a socket application's TCP on its own core), but the fit must
# carry them or they leak into the eight: fitted alongside, reported apart.
# A sleep and its wakeup (voluntary context switches of the endpoints) costs
# more in a VM than on a host (the IPI and the idle vCPU's exits): counted apart too.
ENDPOINT = ("socket_calls", "tcp_skbs", "wakeups")
VETHS = ("s0", "r0", "w0", "w1")

TSO_OFF = ("s", "s0", "tso off")
CSUM_OFF = ("s", "s0", "tx off")  # drops TSO too (netdev_fix_features)
GRO_R = ("r", "r0", "gro on")
USEG_OFF = ("s", "s0", "tso off tx-udp-segmentation off")


@dataclass(frozen=True)
class Exp:
    name: str
    what: str
    topo: str = "veth"
    proto: str = "udp"
    size: int = 1400  # bytes per send()
    gso: int = 0  # UDP_SEGMENT size
    udp_gro: bool = False  # UDP_GRO on the receiving socket
    feats: tuple[tuple[str, str, str], ...] = ()  # (role, device, `ethtool -K` words)
    vxlan: tuple[str, ...] = ()
    gso_at: tuple[str, ...] = ()  # "role:dev" whose transmit segments in software
    csum_passes: int = 0  # software checksums over each data frame's L4 bytes
    tap: str = ""  # "inject": a guest writes into TAP t0; "sink": a guest reads t0
    quick: bool = False


# What each experiment varies, and why its counts are what counts() says
# (torvalds/linux v6.18.19 = 6952350/linux-6.18.y f3fce0151d48, the kernel here):
# - veth uses NAPI (and GRO) only when GRO is on at the receiver and the sender
#   has no TSO; otherwise netif_rx and the backlog NAPI
#   (drivers/net/veth.c:338-345 veth_skb_is_eligible_for_gro, :373 veth_xmit).
# - a device without TSO makes validate_xmit_skb segment in software
#   (net/core/dev.c:4061-4064); without tx checksum the segments' checksums are
#   computed there too (net/core/skbuff.c:5072-5080 skb_segment).
# - UDP copies and checksums in one pass when the device has no checksum offload
#   (net/ipv4/ip_output.c:1001-1005 __ip_append_data, :942 ip_generic_getfrag),
#   and the receiver checksums once: in GRO (net/ipv4/udp_offload.c:888
#   udp4_gro_receive) or while copying (net/ipv4/udp.c:2095-2103 udp_recvmsg);
#   TCP once in GRO (net/ipv4/tcp_offload.c:427) or tcp_v4_rcv.
# - UDP GSO needs checksum offload (net/ipv4/udp.c:1150-1168 udp_send_skb) and
#   a UDP_GRO socket lets GRO merge (net/ipv4/udp_offload.c:811).
# - VXLAN remote checksum offload computes no checksum at either end: the
#   sender's segments keep a partial outer one (net/ipv4/udp_offload.c:236-239),
#   the receiver points the inner checksum at its partial state
#   (drivers/net/vxlan/vxlan_core.c:1541-1551 vxlan_remcsum, skb_remcsum_process
#   without REMCSUM_NOPARTIAL: include/linux/skbuff.h:4940-4942).
# - a TAP write reaches netif_receive_skb from the writer's context, no NAPI
#   (drivers/net/tun.c:1482-1486 tun_rx_batched), and is no driver rx frame; a
#   TAP read counts the device's tx packet (tun.c:2110 tun_put_user).
EXPERIMENTS = (
    Exp(
        "udp64",
        "small datagrams by the backlog path: per-packet and per-frame costs",
        size=64,
        quick=True,
    ),
    Exp("udp512", "mid-size datagrams", size=512),
    Exp("udp1400", "full-size datagrams", quick=True),
    Exp(
        "udp1400-napi",
        "veth NAPI with GRO on, nothing to merge: GRO's per-frame lookup",
        feats=(TSO_OFF, GRO_R),
    ),
    Exp(
        "udp64-csum",
        "software checksums of small datagrams",
        size=64,
        feats=(CSUM_OFF,),
        csum_passes=2,
    ),
    Exp(
        "udp1400-csum",
        "software checksums (tx with the copy, rx on receipt)",
        feats=(CSUM_OFF,),
        csum_passes=2,
        quick=True,
    ),
    Exp(
        "udpgso-whole",
        "64000-byte UDP GSO skbs cross veth whole to a UDP_GRO socket: copies",
        size=64000,
        gso=1400,
        udp_gro=True,
        quick=True,
    ),
    Exp(
        "udpgso-seg-gro",
        "software UDP GSO into 46 segments, veth GRO merges them back",
        size=64000,
        gso=1400,
        udp_gro=True,
        feats=(USEG_OFF, GRO_R),
        gso_at=("s:s0",),
        quick=True,
    ),
    Exp(
        "udpgso2-seg-gro",
        "software UDP GSO into 2 segments that GRO merges: half the frames merge",
        size=2800,
        gso=1400,
        udp_gro=True,
        feats=(USEG_OFF, GRO_R),
        gso_at=("s:s0",),
    ),
    Exp(
        "udpgso-seg",
        "software UDP GSO, no GRO: 46 datagrams each",
        size=64000,
        gso=1400,
        feats=(USEG_OFF,),
        gso_at=("s:s0",),
    ),
    Exp("tcp-tso", "TCP, 64 KB skbs cross veth whole", proto="tcp", size=65536, quick=True),
    Exp("tcp-4k", "TCP with 4 KB writes", proto="tcp", size=4096),
    Exp(
        "tcp-gso",
        "TCP, software GSO at the sender, no GRO",
        proto="tcp",
        size=65536,
        feats=(TSO_OFF,),
        gso_at=("s:s0",),
    ),
    Exp(
        "tcp-gso-gro",
        "TCP, software GSO, GRO at the receiver",
        proto="tcp",
        size=65536,
        feats=(TSO_OFF, GRO_R),
        gso_at=("s:s0",),
    ),
    Exp(
        "tcp-gso-gro-csum",
        "TCP, software GSO and checksums, GRO validates",
        proto="tcp",
        size=65536,
        feats=(CSUM_OFF, GRO_R),
        gso_at=("s:s0",),
        csum_passes=2,
    ),
    Exp("br-tcp-tso", "bridge forwarding TCP, 64 KB skbs", topo="bridge", proto="tcp", size=65536),
    Exp(
        "br-tcp-gso-gro",
        "bridge: GRO at the ingress port, software GSO again at the egress",
        topo="bridge",
        proto="tcp",
        size=65536,
        gso_at=("s:s0", "w:w1"),
        feats=(TSO_OFF, ("w", "w0", "gro on"), ("w", "w1", "tso off"), GRO_R),
    ),
    Exp("br-udp512", "bridge forwarding mid-size datagrams", topo="bridge", size=512),
    Exp(
        "vx-udp512",
        "VXLAN (no outer checksum), datagrams: encap and decap per packet",
        topo="vxlan",
        size=512,
        vxlan=("noudpcsum",),
    ),
    Exp(
        "vx-udp512-udpcsum",
        "VXLAN with outer UDP checksum, datagrams",
        topo="vxlan",
        size=512,
        vxlan=("udpcsum",),
    ),
    Exp(
        "vx-tcp",
        "VXLAN TCP, tunnel GSO skbs cross veth whole",
        topo="vxlan",
        proto="tcp",
        size=65536,
        vxlan=("noudpcsum",),
    ),
    Exp(
        "vx-tcp-gso-gro",
        "VXLAN TCP, software tunnel GSO, GRO through the VXLAN socket",
        topo="vxlan",
        proto="tcp",
        size=65536,
        vxlan=("noudpcsum",),
        feats=(TSO_OFF, GRO_R),
        gso_at=("s:s0",),
    ),
    Exp(
        "vx-tcp-udpcsum-gso-gro",
        "as vx-tcp-gso-gro with outer UDP checksums",
        topo="vxlan",
        proto="tcp",
        size=65536,
        vxlan=("udpcsum",),
        feats=(TSO_OFF, GRO_R),
        gso_at=("s:s0",),
    ),
    Exp(
        "vx-tcp-rco-gso-gro",
        "as vx-tcp-udpcsum-gso-gro with remote checksum offload",
        topo="vxlan",
        proto="tcp",
        size=65536,
        vxlan=("udpcsum", "remcsumtx", "remcsumrx"),
        feats=(TSO_OFF, GRO_R),
        gso_at=("s:s0",),
    ),
    Exp(
        "vx-tcp-csum-gso-gro",
        "VXLAN TCP, underlay without checksum offload",
        topo="vxlan",
        proto="tcp",
        size=65536,
        vxlan=("udpcsum",),
        feats=(CSUM_OFF, GRO_R),
        gso_at=("s:s0",),
        csum_passes=2,
    ),
    Exp(
        "tap-inject512",
        "a guest writes datagrams into TAP t0, bridged out: tun_get_user's copy and skb",
        topo="tap",
        size=512,
        tap="inject",
    ),
    Exp("tap-inject1400", "as tap-inject512, full-size", topo="tap", tap="inject", quick=True),
    Exp(
        "tap-sink512",
        "datagrams bridged into TAP t0, a guest reads them: a transmit with no receive",
        topo="tap",
        size=512,
        tap="sink",
    ),
    Exp("tap-sink1400", "as tap-sink512, full-size", topo="tap", tap="sink", quick=True),
)


def counts(exp: Exp, d: dict[str, float], bg: dict[str, float]) -> dict[str, float]:
    """The work items one run did, from its counter deltas `d`; `bg` holds the idle
    machine's rates of the global counters, subtracted over the run's window."""
    win = d["all:time_s"]

    def glob(k: str) -> float:
        return max(d[f"all:{k}"] - bg[k] * win, 0.0)

    def total(pattern: str) -> float:
        return sum(v for k, v in d.items() if re.fullmatch(pattern, k))

    rx_frames = total(r"\w:dev\.(" + "|".join(VETHS) + r")\.rx_packets")
    # processed counts every skb into __netif_receive_skb_core (net/core/dev.c:6019);
    # a decapsulated VXLAN skb comes in again (gro_cells, vxlan_core.c:1800), one
    # per vx0 rx packet (vxlan_core.c:1798). Frames in less skbs out is what GRO merged.
    processed = glob("processed")
    decap = total(r"\w:dev\.vx0\.rx_packets")
    l4_ofs = 14 + 20 + (50 if exp.topo == "vxlan" else 0)
    data_frames, data_bytes = d["s:dev.s0.tx_packets"], d["s:dev.s0.tx_bytes"]
    return {
        # NET_RX softirq runs (kernel/softirq.c:619), as the simulator counts a
        # NIC queue's poll; a second device polled in the same run (VXLAN's
        # gro_cells, a bridge's next hop) is not one (docs/kernel-costs.md).
        "polls": glob("NET_RX"),
        "rx_frames": rx_frames,
        "gro_merges": max(rx_frames - (processed - decap), 0.0),
        # skbs into the stack plus skbs a socket or tunnel sends through IP
        # output (Ip:OutRequests, net/ipv4/ip_output.c:106 __ip_local_out)
        "packets": processed + total(r"\w:Ip\.OutRequests"),
        "tx_frames": total(r"\w:dev\.\w+\.tx_packets") - total(r"\w:dev\.lo\.tx_packets"),
        "segments": sum(
            d[f"{g.split(':')[0]}:dev.{g.split(':')[1]}.tx_packets"] for g in exp.gso_at
        ),
        "csum_bytes": exp.csum_passes * max(data_bytes - l4_ofs * data_frames, 0.0),
        "copy_bytes": d["tx_bytes"] + d["rx_bytes"],
        "socket_calls": d["tx_calls"] + d["rx_calls"],
        "wakeups": d["tx_wakeups"] + d["rx_wakeups"],
        # TCP's skbs: what it sends through IP output, less the tunnel's outer sends
        "tcp_skbs": total(r"\w:Ip\.OutRequests") - total(r"\w:dev\.vx0\.tx_packets")
        if exp.proto == "tcp"
        else 0.0,
    }


def measure(exp: Exp, duration: float, bg: dict[str, float]) -> dict[str, object]:
    """One run of `exp` in fresh namespaces: its counts, CPU seconds and load."""
    with rig.Rig() as r:
        topo = r.topology(exp.topo, exp.vxlan)
        for role, dev, words in exp.feats:
            rig.set_features(topo.ns[role], dev, words.split())
        d = rig.traffic(r, topo, exp.proto, exp.size, exp.gso, exp.udp_gro, duration, exp.tap)
    win = d["all:time_s"]
    ksoft = max(d["all:ksoftirqd_s"] - bg["ksoftirqd_s"] * win, 0.0)
    cpu = d["tx_sys"] + d["rx_sys"] + ksoft
    ours = cpu + d["tx_user"] + d["rx_user"]
    return {
        **{k: round(v) for k, v in counts(exp, d, bg).items()},
        "sends": int(d["tx_calls"]),
        "cpu_s": round(cpu, 4),
        "window_s": round(win, 3),
        "others_busy_s": round(max(d["all:busy_s"] - ours, 0.0), 3),
        "steal_s": round(d["all:steal_s"], 3),
    }


def background(seconds: float = 2.0) -> dict[str, float]:
    """Rates of the global counters on the idle rig (other users' traffic)."""
    a = rig.global_counters()
    time.sleep(seconds)
    b = rig.global_counters()
    dt = b["time_s"] - a["time_s"]
    return {k: (b[k] - a[k]) / dt for k in ("NET_RX", "processed", "ksoftirqd_s", "busy_s")}
