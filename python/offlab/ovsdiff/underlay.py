"""Tunnel ports and the underlay they leave by, in a case description.

OVS's tunnel tests (tests/tunnel-push-pop.at) put the tunnel ports on one bridge
and the tunnel endpoint on another: a bridge with an IP address, a route and a
neighbour entry for the remote end, and one physical port. A case says the same:

    underlay:
      port: p0                               # the physical port (default p0)
      hwaddr: aa:55:aa:55:00:00              # the bridge's MAC: outer source
      addresses: [1.1.2.88/24, 2001:cafe::88/24]
      routes: [1.1.2.92/24, 2001:cafe::92/24]
      neighbors: {1.1.2.92: f8:bc:12:44:34:b6}
    tunnels:
      t1: {type: vxlan, ofport: 2, options: {remote_ip: 1.1.2.92, key: 123, csum: true}}

The real side builds exactly that (netdev-dummy/ip4addr, ovs/route/add,
tnl/neigh/set, a `NORMAL` flow on the underlay bridge); offlab's side gives each
tunnel port the outer addresses the route and neighbour entry resolve to, and
sends what it encapsulates out of the physical port (model.py).
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field
from typing import Any

UNDERLAY_BRIDGE = "br-ul"  # the harness's underlay bridge: no port may take its name
TUNNEL_TYPES = ("vxlan", "geneve", "gre")
# The options offlab's tunnel port models (TunnelConfig); any other is refused
# rather than run on one side only.
TUNNEL_OPTIONS = ("remote_ip", "key", "csum")
_MAC = re.compile(r"^[0-9a-f]{2}(:[0-9a-f]{2}){5}$")


class UnderlayError(ValueError):
    """A tunnel or underlay description that cannot be run; one line."""


@dataclass
class Tunnel:
    name: str
    ofport: int
    type: str
    remote_ip: str
    key: int | None = None
    csum: bool | None = None  # None: OVS's default

    @property
    def ipv6(self) -> bool:
        return ":" in self.remote_ip

    def ovs_options(self) -> dict[str, str]:
        out = {"remote_ip": self.remote_ip}
        if self.key is not None:
            out["key"] = str(self.key)
        if self.csum is not None:
            out["csum"] = "true" if self.csum else "false"
        return out


@dataclass
class Underlay:
    port: str = "p0"
    hwaddr: str = "aa:55:aa:55:00:00"
    addresses: list[str] = field(default_factory=list)  # "1.1.2.88/24"
    routes: list[str] = field(default_factory=list)  # "1.1.2.92/24"
    neighbors: dict[str, str] = field(default_factory=dict)  # IP -> MAC

    def local_ip(self, ipv6: bool) -> str | None:
        """The bridge's first address of the family: the outer source."""
        for a in self.addresses:
            if (":" in a) == ipv6:
                return a.split("/")[0]
        return None

    def routed(self, ip: str) -> bool:
        addr = ipaddress.ip_address(ip)
        return any(addr in ipaddress.ip_network(r, strict=False) for r in self.routes)


def _ip(text: Any, where: str) -> str:
    try:
        return str(ipaddress.ip_address(str(text)))
    except ValueError:
        raise UnderlayError(f"{where}: '{text}' is not an IP address") from None


def _prefix(text: Any, where: str) -> str:
    try:
        net = ipaddress.ip_interface(str(text))
    except ValueError:
        raise UnderlayError(f"{where}: '{text}' is not an address/prefix length") from None
    if "/" not in str(text):
        raise UnderlayError(f"{where}: '{text}' needs a prefix length")
    return f"{net.ip}/{net.network.prefixlen}"


def _mac(text: Any, where: str) -> str:
    mac = str(text).lower()
    if not _MAC.match(mac):
        raise UnderlayError(f"{where}: '{text}' is not a MAC address")
    return mac


def underlay_from_dict(raw: Any, where: str) -> Underlay:
    if not isinstance(raw, dict):
        raise UnderlayError(f"{where}: 'underlay' is a mapping")
    unknown = set(raw) - {"port", "hwaddr", "addresses", "routes", "neighbors"}
    if unknown:
        raise UnderlayError(f"{where}: underlay: unknown key(s) {', '.join(sorted(unknown))}")
    u = Underlay(
        port=str(raw.get("port", "p0")),
        hwaddr=_mac(raw.get("hwaddr", "aa:55:aa:55:00:00"), f"{where}: underlay hwaddr"),
        addresses=[_prefix(a, f"{where}: underlay address") for a in raw.get("addresses") or []],
        routes=[_prefix(r, f"{where}: underlay route") for r in raw.get("routes") or []],
    )
    neigh = raw.get("neighbors") or {}
    if not isinstance(neigh, dict):
        raise UnderlayError(f"{where}: underlay neighbors map IP addresses to MACs")
    for ip, mac in neigh.items():
        u.neighbors[_ip(ip, f"{where}: neighbor")] = _mac(mac, f"{where}: neighbor {ip}")
    if not u.addresses:
        raise UnderlayError(f"{where}: the underlay needs an address")
    return u


def tunnel_from_dict(name: str, ofport: int, raw: Any, where: str) -> Tunnel:
    if not isinstance(raw, dict) or "type" not in raw:
        raise UnderlayError(f"{where}: tunnel {name}: needs a type")
    unknown = set(raw) - {"type", "ofport", "options"}
    if unknown:
        raise UnderlayError(f"{where}: tunnel {name}: unknown key(s) {', '.join(sorted(unknown))}")
    kind = str(raw["type"])
    if kind not in TUNNEL_TYPES:
        raise UnderlayError(
            f"{where}: tunnel {name}: type '{kind}' is not modelled "
            f"(one of {', '.join(TUNNEL_TYPES)})"
        )
    opts = raw.get("options") or {}
    if not isinstance(opts, dict) or "remote_ip" not in opts:
        raise UnderlayError(f"{where}: tunnel {name}: options need remote_ip")
    for k in opts:
        if k not in TUNNEL_OPTIONS:
            raise UnderlayError(f"{where}: tunnel {name}: option '{k}' is not modelled")
    t = Tunnel(name, ofport, kind, _ip(opts["remote_ip"], f"{where}: tunnel {name}"))
    if "key" in opts:
        limit = 0xFFFFFFFF if kind == "gre" else 0xFFFFFF
        try:
            t.key = int(str(opts["key"]), 0)
        except ValueError:
            t.key = -1
        if not 0 <= t.key <= limit:
            raise UnderlayError(f"{where}: tunnel {name}: key must be 0..{limit}")
    if "csum" in opts:
        v = str(opts["csum"]).lower()
        if v not in ("true", "false"):
            raise UnderlayError(f"{where}: tunnel {name}: csum must be true or false")
        t.csum = v == "true"
    return t


def check(underlay: Underlay | None, tunnels: list[Tunnel], where: str) -> None:
    """Every tunnel resolves, as OVS would resolve it, to an outer source
    address, a route and a neighbour: what OVS does without them (an ARP or
    neighbour solicitation instead of the frame) is not modelled."""
    if tunnels and underlay is None:
        raise UnderlayError(f"{where}: tunnel ports need an 'underlay'")
    seen: set[tuple[str, str]] = set()
    for t in tunnels:
        assert underlay is not None
        if underlay.local_ip(t.ipv6) is None:
            raise UnderlayError(f"{where}: tunnel {t.name}: no underlay address of its family")
        if not underlay.routed(t.remote_ip):
            raise UnderlayError(f"{where}: tunnel {t.name}: no underlay route to {t.remote_ip}")
        if t.remote_ip not in underlay.neighbors:
            raise UnderlayError(f"{where}: tunnel {t.name}: no neighbor entry for {t.remote_ip}")
        # After decapsulation OVS picks the port by remote address and key;
        # offlab's side by remote address alone.
        if (t.type, t.remote_ip) in seen:
            raise UnderlayError(f"{where}: tunnel {t.name}: another {t.type} port to {t.remote_ip}")
        seen.add((t.type, t.remote_ip))


def check_underlay_frame(underlay: Underlay, data: bytes, where: str) -> None:
    """A frame received on the physical port is for the tunnel endpoint: OVS
    decapsulates only what is addressed to the bridge's MAC (lib/tnl-ports.c
    matches dl_dst), and it learns the source MAC of what it decapsulates as
    the neighbour of the source IP (ofproto-dpif-xlate.c terminate_native_tunnel,
    tnl_neigh_set), which would change later pushes: the harness does not model
    either, so a case must not rely on them."""
    if data[0:6].hex(":") != underlay.hwaddr:
        raise UnderlayError(
            f"{where}: a frame on {underlay.port} must be addressed to the underlay bridge "
            f"({underlay.hwaddr})"
        )
    etype = data[12:14]
    src: str | None = None
    if etype == b"\x08\x00" and len(data) >= 34:
        src = str(ipaddress.IPv4Address(data[26:30]))
    elif etype == b"\x86\xdd" and len(data) >= 54:
        src = str(ipaddress.IPv6Address(data[22:38]))
    mac = data[6:12].hex(":")
    if src in underlay.neighbors and underlay.neighbors[src] != mac:
        raise UnderlayError(
            f"{where}: a frame from {src} must come from its neighbor MAC {underlay.neighbors[src]}"
        )
