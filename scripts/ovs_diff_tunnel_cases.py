"""The tunnel cases of `offlab ovs-diff` (python/offlab/ovsdiff/cases/tunnel-*.yaml),
written by scripts/make_ovs_diff_cases.py.

`testsuite()`: OVS's tests/tunnel-push-pop.at and tunnel-push-pop-ipv6.at at
v3.1.0, each with the test and line it comes from. A test's `ofproto/trace` flow
becomes a frame composed field by field as `ovs-ofctl compose-packet` would; the
frames the tests inject are used as they are. Where a test sets the key or the
remote address from the flow (`out_key=flow`, `remote_ip=flow`, `set_tunnel`,
`set_field:...->tun_dst`), which offlab's tunnel port does not model, the case
gives the port the value the flow sets, and says so.

`hand()`: the push and pop matrix the tests leave out: VXLAN and Geneve with the
outer UDP checksum on and off, GRE with and without its checksum, over IPv4 and
IPv6 underlays; decapsulation of good frames, a bad outer IPv4 or UDP checksum,
a zero UDP checksum and a bad inner checksum.
"""

from __future__ import annotations

from typing import Any

from scapy.contrib.geneve import GENEVE
from scapy.layers.inet import ICMP, IP, TCP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import GRE, Ether
from scapy.layers.vxlan import VXLAN

V31 = "openvswitch/ovs v3.1.0"
PUSH_POP = f"{V31} tests/tunnel-push-pop.at"
PUSH_POP6 = f"{V31} tests/tunnel-push-pop-ipv6.at"
BR_MAC = "aa:55:aa:55:00:00"
PEER = "f8:bc:12:44:34:b6"
PEER2 = "f8:bc:12:44:34:b7"
# The frames tests/tunnel-push-pop*.at inject come from this MAC.
TEST_SRC = "00:1b:21:3c:ab:64"


def underlay(neighbors: dict[str, str], routes: list[str] | None = None) -> dict[str, Any]:
    """The tests' br0: 1.1.2.88/24 and 2001:cafe::88/24, routes to .92."""
    return {
        "hwaddr": BR_MAC,
        "addresses": ["1.1.2.88/24", "2001:cafe::88/24"],
        "routes": routes or ["1.1.2.92/24", "2001:cafe::92/24"],
        "neighbors": neighbors,
    }


def tnl(kind: str, ofport: int, remote: str, key: int | None = None,
        csum: bool | None = None) -> dict[str, Any]:  # fmt: skip
    opts: dict[str, Any] = {"remote_ip": remote}
    if key is not None:
        opts["key"] = key
    if csum is not None:
        opts["csum"] = csum
    return {"type": kind, "ofport": ofport, "options": opts}


def traced() -> str:
    """The tests' trace flow eth(src=f8:bc:12:44:34:b6,dst=aa:55:aa:55:00:00),
    ipv4(src=1.1.3.88,dst=1.1.3.112,proto=47,tos=0,ttl=64,frag=no)."""
    ip = IP(src="1.1.3.88", dst="1.1.3.112", proto=47, ttl=64, id=0, flags=0)
    return bytes(Ether(src=PEER, dst=BR_MAC) / ip).hex()


def case(name: str, source: str, tunnels: dict[str, Any], ul: dict[str, Any],
         flows: list[str], frames: list[dict[str, str]],
         ports: dict[str, Any] | None = None, notes: str = "") -> dict[str, Any]:  # fmt: skip
    out: dict[str, Any] = {"name": name, "source": source}
    if notes:
        out["notes"] = notes
    out.update({"ports": ports or {"p1": {"ofport": 10}}, "underlay": ul, "tunnels": tunnels,
                "flows": flows, "frames": frames})  # fmt: skip
    return out


def testsuite() -> list[dict[str, Any]]:
    v4 = underlay({"1.1.2.92": PEER, "1.1.2.93": PEER2}, ["1.1.2.92/24"])
    v6 = underlay({"2001:cafe::92": PEER, "2001:cafe::93": PEER2}, ["2001:cafe::92/24"])
    fr = [{"port": "p1", "hex": traced()}]
    flow_key = "key and remote from the flow (set_tunnel / set_field) given to the port instead"
    out = [
        case("VXLAN push", f"{PUSH_POP}:450", {"t2": tnl("vxlan", 2, "1.1.2.92", 123)}, v4,
             ["actions=2"], fr),
        case("VXLAN push with csum=true", f"{PUSH_POP}:464",
             {"t3": tnl("vxlan", 4, "1.1.2.93", 124, True)}, v4, ["actions=4"], fr, notes=flow_key),
        case("GRE push", f"{PUSH_POP}:471", {"t1": tnl("gre", 3, "1.1.2.92", 456)}, v4,
             ["actions=3"], fr),
        case("Geneve push", f"{PUSH_POP}:485", {"t4": tnl("geneve", 5, "1.1.2.92", 123)}, v4,
             ["actions=5"], fr, notes=flow_key),
        case("VXLAN push, IPv6 underlay (csum on by default)", f"{PUSH_POP6}:387",
             {"t2": tnl("vxlan", 2, "2001:cafe::92", 123)}, v6, ["actions=2"], fr),
        case("VXLAN push, IPv6 underlay, csum=true", f"{PUSH_POP6}:394",
             {"t3": tnl("vxlan", 4, "2001:cafe::93", 124, True)}, v6, ["actions=4"], fr,
             notes=flow_key),
        case("GRE push, IPv6 underlay", f"{PUSH_POP6}:401",
             {"t1": tnl("gre", 3, "2001:cafe::92", 456)}, v6, ["actions=3"], fr),
        case("Geneve push, IPv6 underlay", f"{PUSH_POP6}:408",
             {"t4": tnl("geneve", 5, "2001:cafe::92", 123)}, v6, ["actions=5"], fr, notes=flow_key),
        case("Geneve push of a non-IP frame (packet_out)", f"{PUSH_POP}:708",
             {"t2": tnl("geneve", 2, "1.1.2.92", 123)}, underlay({"1.1.2.92": PEER}),
             ["in_port=p1,actions=output:2"],
             [{"port": "p1", "hex": "50540000000a5054000000091234"}]),
    ]  # fmt: skip
    # Decapsulation: the frames the tests inject on p0 (from TEST_SRC, which
    # the case makes the neighbour, as OVS learns it from the frame).
    gre4 = ("aa55aa550000001b213cab6408004500007e79464000402fba550101025c0101025820006558000001c8"
            "fe71d883724fbeb6f4e1494a080045000054ba200000400184861e0000011e00000200004227e75400030af3"
            "195500000000f265010000000000101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d"
            "2e2f3031323334353637")  # fmt: skip
    gre6 = ("aa55aa550000001b213cab6486dd60000000006a2f402001cafe0000000000000000000000922001cafe"
            "00000000000000000000008820006558000001c8fe71d883724fbeb6f4e1494a080045000054ba2000004001"
            "84861e0000011e00000200004227e75400030af3195500000000f265010000000000101112131415161718191a"
            "1b1c1d1e1f202122232425262728292a2b2c2d2e2f3031323334353637")  # fmt: skip
    gen4 = ("aa55aa550000001b213cab64080045000096794640004011ba5b0101025c01010258308817c10082000004"
            "00655800007b00ffff80010000000affff00010000000bfe71d883724fbeb6f4e1494a080045000054ba2000"
            "00400184861e0000011e00000200004227e75400030af3195500000000f265010000000000101112131415161"
            "718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f3031323334353637")  # fmt: skip
    gen6 = ("aa55aa550000001b213cab6486dd60000000008211402001cafe0000000000000000000000922001cafe"
            "000000000000000000000088308817c1008200000400655800007b00ffff80010000000affff00010000000b"
            "fe71d883724fbeb6f4e1494a080045000054ba200000400184861e0000011e00000200004227e75400030af3"
            "195500000000f265010000000000101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d"
            "2e2f3031323334353637")  # fmt: skip
    t4 = {"1.1.2.92": TEST_SRC}
    t6 = {"2001:cafe::92": TEST_SRC}
    out += [
        case("GRE decapsulation", f"{PUSH_POP}:516", {"t1": tnl("gre", 3, "1.1.2.92", 456)},
             underlay(t4), ["in_port=t1,actions=p1"], [{"port": "p0", "hex": gre4}]),
        case("Geneve decapsulation, with options", f"{PUSH_POP}:591",
             {"t4": tnl("geneve", 5, "1.1.2.92", 123)}, underlay(t4), ["in_port=t4,actions=p1"],
             [{"port": "p0", "hex": gen4}]),
        case("GRE decapsulation, IPv6 underlay", f"{PUSH_POP6}:423",
             {"t1": tnl("gre", 3, "2001:cafe::92", 456)}, underlay(t6), ["in_port=t1,actions=p1"],
             [{"port": "p0", "hex": gre6}]),
        case("Geneve decapsulation with options, IPv6 underlay", f"{PUSH_POP6}:442",
             {"t4": tnl("geneve", 5, "2001:cafe::92", 123)}, underlay(t6),
             ["in_port=t4,actions=p1"], [{"port": "p0", "hex": gen6}]),
    ]  # fmt: skip
    # "no clone when is_last_action": a VXLAN port without a key on another
    # bridge pair; the traced flow in_port=p7 is an all-zero Ethernet frame.
    ul = {"port": "p8", "hwaddr": BR_MAC, "addresses": ["10.0.0.2/24"],
          "routes": ["10.0.0.11/24"], "neighbors": {"10.0.0.11": "aa:55:aa:66:00:00"}}  # fmt: skip
    zero = [{"port": "p7", "hex": "00" * 14}]
    for flows in (["in_port=p7,actions=tun0"], ["in_port=p7,actions=tun0,in_port"]):
        out.append(case(f"VXLAN push without a key: {flows[0].split('=', 2)[2]}",
                        f"{PUSH_POP}:939", {"tun0": {"type": "vxlan", "ofport": 1,
                        "options": {"remote_ip": "10.0.0.11"}}}, ul, flows, zero,
                        ports={"p7": {"ofport": 7}}))  # fmt: skip
    return out


def inner(kind: str, v6: bool = False, bad: bool = False) -> bytes:
    """An inner frame: TCP, UDP or ICMP over IPv4 or IPv6, good or with a bad
    L4 checksum (XOR 1)."""
    l3: Any = (IPv6(src="2001:db8::1", dst="2001:db8::2", hlim=64) if v6
               else IP(src="10.0.0.1", dst="10.0.0.2", ttl=64, id=7))  # fmt: skip
    l4: Any = {"tcp": TCP(sport=40000, dport=5201, flags="A"), "udp": UDP(sport=40000, dport=53),
               "icmp": ICMP(type=8, id=1, seq=1)}[kind]  # fmt: skip
    eth = Ether(src="0a:00:00:00:00:01", dst="0a:00:00:00:00:02")
    raw = bytearray(bytes(eth / l3 / l4 / bytes(range(16))))
    if bad:
        ofs = 14 + (40 if v6 else 20) + {"tcp": 16, "udp": 6, "icmp": 2}[kind]
        raw[ofs + 1] ^= 1
    return bytes(raw)


_UDP = {"vxlan": 4789, "geneve": 6081}


def outer(kind: str, v6: bool, key: int, csum: bool, payload: bytes,
          damage: str = "") -> bytes:  # fmt: skip
    """A tunnel frame from the peer to the tests' br0; `damage` 'ip' or 'l4'
    corrupts the outer IPv4 header or UDP/GRE checksum (XOR 1)."""
    l3: Any = (IPv6(src="2001:cafe::92", dst="2001:cafe::88", hlim=64) if v6
               else IP(src="1.1.2.92", dst="1.1.2.88", ttl=64, id=0, flags="DF"))  # fmt: skip
    if kind == "gre":
        tun: Any = GRE(key_present=1, key=key, proto=0x6558, chksum_present=int(csum))
    else:
        hdr = VXLAN(vni=key) if kind == "vxlan" else GENEVE(vni=key, proto=0x6558)
        tun = UDP(sport=51283, dport=_UDP[kind]) / hdr
        if not csum:
            tun[UDP].chksum = 0
    raw = bytearray(bytes(Ether(src=PEER, dst=BR_MAC) / l3 / tun / payload))
    l4 = 14 + (40 if v6 else 20)
    if damage == "ip":
        raw[14 + 11] ^= 1
    elif damage == "l4":
        raw[l4 + (4 if kind == "gre" else 6) + 1] ^= 1
    return bytes(raw)


def hand() -> list[dict[str, Any]]:
    """Push and pop, per tunnel type, underlay family and checksum setting."""
    out = []
    pushes = [("tcp", False, False), ("tcp", False, True), ("udp", False, False),
              ("icmp", False, False), ("tcp", True, False)]  # fmt: skip
    for v6 in (False, True):
        remote = "2001:cafe::92" if v6 else "1.1.2.92"
        for kind in ("vxlan", "geneve", "gre"):
            for csum in (None, True, False) if kind != "gre" else (False, True):
                key = 456 if kind == "gre" else 123
                frames = []
                for l4, inner6, bad in pushes:
                    label = f"push {l4}{'6' if inner6 else ''}{' bad csum' if bad else ''}"
                    frames.append({"port": "p1", "hex": inner(l4, inner6, bad).hex(),
                                   "label": label})  # fmt: skip
                on = csum if csum is not None else (v6 and kind != "gre")
                pops = [("", "pop", inner("tcp"))]
                pops.append(("", "pop, bad inner tcp csum", inner("tcp", bad=True)))
                if not v6:
                    pops.append(("ip", "pop, bad outer IPv4 csum", inner("tcp")))
                if on:
                    pops.append(("l4", f"pop, bad outer {'GRE' if kind == 'gre' else 'UDP'} csum",
                                 inner("tcp")))  # fmt: skip
                for damage, label, payload in pops:
                    data = outer(kind, v6, key, on, payload, damage)
                    frames.append({"port": "p0", "label": label, "hex": data.hex()})
                setting = "default" if csum is None else f"csum={str(csum).lower()}"
                name = f"{kind} {setting}, {'IPv6' if v6 else 'IPv4'} underlay: push and pop"
                if v6 and kind != "gre" and csum is False:
                    expected = {"expected_difference": {
                        "before": "3.4.0", "commit": "d7e77143f",
                        "reason": "OVS before it always sets the UDP checksum of an IPv6 "
                                  "tunnel: csum=false is ignored (lib/netdev-native-tnl.c "
                                  "udp_build_header, v3.1.0:332)",
                        "frames": list(range(1, len(pushes) + 1))}}  # fmt: skip
                else:
                    expected = {}
                out.append(case(
                    name, f"by hand, as {PUSH_POP}:201 sets up",
                    {"t1": tnl(kind, 2, remote, key, csum)},
                    underlay({remote: PEER}),
                    ["in_port=p1,tcp,actions=mod_tp_dst:2222,t1", "in_port=p1,actions=t1",
                     "in_port=t1,actions=p1"], frames) | expected)  # fmt: skip
    # The inner ECN bits in the outer header, CE as ECT(0) (ofproto/tunnel.c tnl_wc_init).
    ecn: list[tuple[str, Any]] = [
        (f"inner TOS {t:#04x}", IP(src="10.0.0.1", dst="10.0.0.2", tos=t)) for t in (3, 0xE1, 2)
    ]
    ecn.append(("inner IPv6 traffic class 0x03", IPv6(src="2001:db8::1", dst="2001:db8::2", tc=3)))
    eth = Ether(src="0a:00:00:00:00:01", dst="0a:00:00:00:00:02")
    out.append(case(
        "ECN of the inner header in the outer one", f"by hand, as {PUSH_POP}:201 sets up",
        {"t1": tnl("vxlan", 2, "1.1.2.92", 123), "t2": tnl("gre", 3, "2001:cafe::92", 456)},
        underlay({"1.1.2.92": PEER, "2001:cafe::92": PEER}), ["in_port=p1,actions=t1,t2"],
        [{"port": "p1", "label": label, "hex": bytes(eth / l3 / UDP(sport=20, dport=80)).hex()}
         for label, l3 in ecn]))  # fmt: skip
    return out
