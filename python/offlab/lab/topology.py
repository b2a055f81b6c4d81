"""The lab's topologies, each in fresh namespaces of one Lab: fixed MACs,
addresses and static neighbours, so every capture holds only the case's frames.

  veth:   ns a [a0 10.0.0.1] <-veth-> ns b [b0 10.0.0.2]
  vxlan:  veth underlay (IPv4 10.0.0.x or IPv6 fd00::x) and vx0 in each
          namespace, VNI 42, UDP 4789, source port fixed (srcport P P+1),
          DF set; overlay 192.168.0.1 / .2
  tap:    ns a [t0 (TAP, vnet hdr) + a0 in bridge br0] <-veth-> ns b [b0 10.0.0.2]
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import ethtool
from .nsutil import Lab, Netns
from .traffic import Tap

MAC_A = "02:00:00:00:00:0a"
MAC_B = "02:00:00:00:00:0b"
MAC_T = "02:00:00:00:00:0c"  # the "guest" behind the TAP device
MAC_VA = "02:00:00:00:01:0a"
MAC_VB = "02:00:00:00:01:0b"
IP_A, IP_B, IP_T = "10.0.0.1", "10.0.0.2", "10.0.0.3"
IP6_A, IP6_B = "fd00::1", "fd00::2"
OV_A, OV_B = "192.168.0.1", "192.168.0.2"
VNI = 42
VXLAN_SRC_PORT = 40000

# `ethtool -K` option sets the cases use. Checksum off lists the TSO features
# with it: netdev_fix_features would drop them anyway ("Dropping TSO features
# since no CSUM feature"), and naming them keeps what the device ends up with
# exactly what the model is given (set_features checks every one took).
GRO_ON = {"rx-gro": True}
NO_TSO = {
    f: False
    for f in (
        "tx-tcp-segmentation",
        "tx-tcp-ecn-segmentation",
        "tx-tcp-mangleid-segmentation",
        "tx-tcp6-segmentation",
        "tx-tcp-accecn-segmentation",
    )
}
NO_CSUM = {"tx-checksum-ip-generic": False, **NO_TSO}


@dataclass
class Topo:
    a: Netns
    b: Netns
    tap: Tap | None = None
    notes: list[str] = field(default_factory=list)


def _neigh(ns: Netns, dev: str, ip: str, lladdr: str) -> None:
    ns.ip("neigh", "replace", ip, "lladdr", lladdr, "dev", dev, "nud", "permanent")


def veth(lab: Lab, ipv6: bool = False, b_features: dict[str, bool] | None = None,
         a_features: dict[str, bool] | None = None) -> Topo:  # fmt: skip
    a = lab.netns("a", ipv6=ipv6)
    b = lab.netns("b", ipv6=ipv6)
    a.ip("link", "add", "name", "a0", "address", MAC_A, "type", "veth",
         "peer", "name", "b0", "address", MAC_B, "netns", b.name)  # fmt: skip
    for ns, dev, ip4, ip6, peer4, peer6, peer_mac in (
        (a, "a0", IP_A, IP6_A, IP_B, IP6_B, MAC_B),
        (b, "b0", IP_B, IP6_B, IP_A, IP6_A, MAC_A),
    ):
        ns.ip("addr", "add", f"{ip4}/24", "dev", dev)
        if ipv6:
            ns.ip("addr", "add", f"{ip6}/64", "dev", dev, "nodad")
            _neigh(ns, dev, peer6, peer_mac)
        _neigh(ns, dev, peer4, peer_mac)
    if a_features:
        ethtool.set_features(a, "a0", a_features)
    if b_features:
        ethtool.set_features(b, "b0", b_features)
    a.ip("link", "set", "a0", "up")
    b.ip("link", "set", "b0", "up")
    return Topo(a, b)


def vxlan(
    lab: Lab,
    ipv6: bool = False,
    a_opts: tuple[str, ...] = (),
    b_opts: tuple[str, ...] = (),
    b_features: dict[str, bool] | None = None,
) -> Topo:
    """VXLAN over the veth underlay; a_opts/b_opts are `ip link` VXLAN options
    such as "noudpcsum", "remcsumtx", "udp6zerocsumrx"."""
    t = veth(lab, ipv6=ipv6, b_features=b_features)
    for ns, local, remote, mac, ov, peer_ov, peer_mac, opts in (
        (t.a, IP_A, IP_B, MAC_VA, OV_A, OV_B, MAC_VB, a_opts),
        (t.b, IP_B, IP_A, MAC_VB, OV_B, OV_A, MAC_VA, b_opts),
    ):
        if ipv6:
            local, remote = (IP6_A, IP6_B) if ns is t.a else (IP6_B, IP6_A)
        ns.ip("link", "add", "name", "vx0", "address", mac, "type", "vxlan", "id", str(VNI),
              "local", local, "remote", remote, "dstport", "4789",
              "srcport", str(VXLAN_SRC_PORT), str(VXLAN_SRC_PORT + 1),
              *(() if ipv6 else ("df", "set")), "ttl", "64", *opts)  # fmt: skip
        if ipv6:
            ns.sysctl("net.ipv6.conf.vx0.disable_ipv6", "1")  # IPv4 overlay only
        ns.ip("addr", "add", f"{ov}/24", "dev", "vx0")
        _neigh(ns, "vx0", peer_ov, peer_mac)
        ns.ip("link", "set", "vx0", "up")
    return t


def tap(lab: Lab, offloads: int = 0, a_features: dict[str, bool] | None = None,
        b_features: dict[str, bool] | None = None) -> Topo:  # fmt: skip
    """A TAP device bridged to the veth: frames written into t0 leave on a0."""
    t = veth(lab, a_features=a_features, b_features=b_features)
    t.a.ip("addr", "flush", "dev", "a0")
    t.tap = Tap(lab, t.a, "t0", offloads)
    t.a.ip("link", "set", "t0", "address", "02:00:00:00:00:0d")
    t.a.ip("link", "add", "name", "br0", "address", "02:00:00:00:00:0e", "type", "bridge")
    for dev in ("a0", "t0"):
        t.a.ip("link", "set", dev, "master", "br0")
        t.a.ip("link", "set", dev, "up")
    t.a.ip("link", "set", "br0", "up")
    # The bridge must forward at once: no learning delay, MAC_T known on t0.
    t.a.ip("link", "set", "br0", "type", "bridge", "forward_delay", "0", "stp_state", "0")
    _neigh(t.b, "b0", IP_T, MAC_T)
    run_bridge_fdb(t.a)
    return t


def run_bridge_fdb(ns: Netns) -> None:
    ns.ip("link", "set", "br0", "type", "bridge", "ageing_time", "100000")
    from .nsutil import run

    run(["bridge", "-n", ns.name, "fdb", "replace", MAC_T, "dev", "t0", "master", "static"])
    run(["bridge", "-n", ns.name, "fdb", "replace", MAC_B, "dev", "a0", "master", "static"])
