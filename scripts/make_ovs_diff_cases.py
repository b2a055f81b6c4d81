#!/usr/bin/env python3
"""Writes the built-in `offlab ovs-diff` cases (python/offlab/ovsdiff/cases/)
from Open vSwitch's testsuite: tests/dpif-netdev.at at openvswitch/ovs
d6a632a9b16e, the checksum and conntrack cases; and the tunnel cases of
scripts/ovs_diff_tunnel_cases.py (tests/tunnel-push-pop*.at, and a push/pop
matrix). Each case names the test and line it comes from; frames are composed
with scapy field by field as `ovs-ofctl compose-packet --bare` composes the
test's flow strings (64-byte payload 00..3f, TTL/hop limit 0), and the test's
bad frames are made by the same byte edits.

Expected differences are added by hand after a run against the installed OVS
(docs/ovs-diff.md): this script only writes the cases.
Run: .venv/bin/python scripts/make_ovs_diff_cases.py
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ovs_diff_tunnel_cases as tunnels
import yaml
from scapy.layers.inet import IP, TCP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether


class _NoAliases(yaml.SafeDumper):
    """Writes shared values out in full: offlab's YAML readers refuse anchors and aliases
    (docs/security.md)."""

    def ignore_aliases(self, data: object) -> bool:
        return True


OUT = Path(__file__).resolve().parent.parent / "python/offlab/ovsdiff/cases"
SRC = "openvswitch/ovs d6a632a9b16e tests/dpif-netdev.at"
PAY = bytes(range(64))
ETH = {"dst": "0a:8f:39:4f:e0:73", "src": "8a:bf:7e:2f:05:84"}
RX = ("", "good", "bad", "partial")
NORMAL = "priority=0,actions=NORMAL"  # a standalone bridge's default flow (br1 in those tests)


def compose(l4: str, v6: bool = False, dst: str | None = None, dport: int = 5201) -> str:
    if v6:
        l3 = IPv6(src="fe80::2", dst=dst or "fe80::1", hlim=0)
    else:
        l3 = IP(src="192.168.123.2", dst=dst or "192.168.123.1", ttl=0, id=0, flags=0)
    if l4 == "tcp":
        l4p = TCP(sport=54392, dport=dport, flags="A", seq=0, ack=0, window=0)
    else:
        l4p = UDP(sport=54392, dport=dport)
    return bytes(Ether(**ETH) / l3 / l4p / PAY).hex()


def swap(frame: str, old: str, new: str) -> str:
    assert frame.count(old) >= 1, (old, frame)
    return frame.replace(old, new, 1)


def bad_ip(frame: str) -> str:
    """`compose-packet --bad-csum`: the IPv4 header checksum XOR 1."""
    b = bytearray.fromhex(frame)
    b[14 + 11] ^= 1
    return b.hex()


def bad_l4(frame: str, v6: bool, l4: str) -> str:
    """The tests' `sed s/GOOD/dead/` on the L4 checksum."""
    b = bytearray.fromhex(frame)
    off = 14 + (40 if v6 else 20) + (16 if l4 == "tcp" else 6)
    b[off : off + 2] = b"\xde\xad"
    return b.hex()


def fr(hexstr: str, label: str, rx_layer: str = "", rx: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {"port": "p1", "label": label, "hex": hexstr}
    if rx:
        out["options"] = {f"ol_{rx_layer}_rx_csum_set_{rx}": "true"}
    return out


def check_set(good: str, bad: str, layer: str) -> list[dict[str, Any]]:
    """CHECK_IP_CHECKSUMS / CHECK_L4_CHECKSUMS: good then bad, each with no Rx
    flag and Rx good, bad, partial (dpif-netdev.at:995-1015, 1106-1126)."""
    return [
        fr(frame, f"{name} frame, rx {rx or 'none'}", layer, rx)
        for name, frame in (("good", good), ("bad", bad))
        for rx in RX
    ]


# OVS before 585c8088e (v3.6.0) has no ol_{ip,l4}_rx_csum_set_* and ol_*_tx_csum*
# options in netdev-dummy and ignores them: a frame flagged on receive is handled as
# unflagged (docs/ovs-diff.md). The frames of each case where that shows are listed.
RX_FLAGS = {
    "before": "3.6.0",
    "commit": "585c8088e",
    "reason": "netdev-dummy has no ol_*_rx_csum_set_* / ol_*_tx_csum options before it "
    "and ignores them: the frame is handled as unflagged",
}


def case(name: str, line: int, ports: dict[str, Any], flows: list[str], frames: list[Any],
         differ: tuple[int, ...] = ()) -> Any:  # fmt: skip
    out = {
        "name": name,
        "source": f"{SRC}:{line}",
        "ports": ports,
        "flows": flows,
        "frames": frames,
    }
    if differ:
        out["expected_difference"] = {**RX_FLAGS, "frames": list(differ)}
    return out


# In check_set(): the bad frame flagged good (6) or partial (8) is trusted by
# offlab, as by OVS since 585c8088e; older OVS updates the bad checksum.
BAD_TRUSTED = (6, 8)


def ip_csum() -> list[Any]:
    flow = "in_port=p1,actions=mod_nw_dst:192.168.1.1,output:p2"
    good = compose("tcp")
    bad = bad_ip(good)
    opt_pkt = (
        "aaaaaaaaaaaabbbbbbbbbbbb0800"
        "4f000044abab00004001eeee0a0000010a000002"
        "07270c010203040a000003000000000000000000"
        "0000000000000000000000000000000000000000"
        "08003e2fb6d00000"
    )
    micro = "aaaaaaaaaaaabbbbbbbbbbbb0800" "4f000044abab00004001eeee0a0000010a000002"
    name = "ip csum offload"
    return [
        case(f"{name}, tx offload off", 1017, {"p1": {}, "p2": {}}, [flow],
             check_set(good, bad, "ip"), BAD_TRUSTED),
        case(f"{name}, ol_ip_tx_csum", 1017, {"p1": {}, "p2": {"options": {"ol_ip_tx_csum": True}}},
             [flow], check_set(good, bad, "ip"), BAD_TRUSTED),
        case(f"{name}, ol_ip_tx_csum disabled in the driver", 1054,
             {"p1": {}, "p2": {"options": {"ol_ip_tx_csum": True, "ol_ip_tx_csum_disabled": True}}},
             [flow], [fr(bad, "bad frame, rx good", "ip", "good")], (1,)),
        # The option packet's dummy checksum is replaced by a valid one only
        # when the frame is flagged good.
        case(f"{name}, IPv4 options and a header without them", 1066, {"p1": {}, "p2": {}}, [flow],
             [fr(opt_pkt, "record-route option, rx good", "ip", "good"),
              fr(micro, "IHL 15 without the options, rx good", "ip", "good")], (1,)),
    ]  # fmt: skip


def l4_csum(l4: str, v6: bool, line: int) -> list[Any]:
    proto = f"{l4}6" if v6 else l4
    flow = f"in_port=p1,{proto},actions=mod_tp_dst:2222,output:p2"
    good = compose(l4, v6)
    bad = bad_l4(good, v6, l4)
    name = f"{'IPv6 ' if v6 else ''}{l4} csum offload"
    tx = {"ol_l4_tx_csum": True}
    return [
        case(f"{name}, tx offload off", line, {"p1": {}, "p2": {}}, [flow],
             check_set(good, bad, "l4"), BAD_TRUSTED),
        case(f"{name}, ol_l4_tx_csum", line, {"p1": {}, "p2": {"options": tx}}, [flow],
             check_set(good, bad, "l4"), BAD_TRUSTED),
        case(f"{name}, ol_l4_tx_csum disabled in the driver", line,
             {"p1": {}, "p2": {"options": {**tx, "ol_l4_tx_csum_disabled": True}}}, [flow],
             [fr(bad, "bad frame, rx good", "l4", "good")], (1,)),
    ]  # fmt: skip


def simple_match() -> list[Any]:
    bad = bad_l4(compose("tcp"), False, "tcp")
    frames = [fr(bad, "bad frame, rx none"), fr(bad, "bad frame again, rx none")] + [
        fr(bad, f"bad frame, rx {rx}", "l4", rx) for rx in RX[1:]
    ]
    return [
        # Flagged partial, the bad checksum is computed on transmit.
        case("tcp csum offload (simple match)", 1181, {"p1": {}, "p2": {}},
             ["in_port=p1,actions=output:p2"], frames, (5,)),
    ]  # fmt: skip


def conntrack() -> list[Any]:
    flow = "in_port=p1,ip,ct_state=-trk,actions=ct(commit,nat(dst=192.168.1.1),table=0),p2"
    good = compose("tcp")
    bad = bad_ip(good)
    icmp = (
        "0a8f393fe0738abf7e2f05840800450000440001000040010364c0a87b02c0a87b01"
        "0303746c0000000045000028000100004006037bc0a87b01c0a87b021451d478"
        "0000000000000000500220002fc40000"
    )
    out = []
    for tx in ("off", "on"):
        p2 = {"options": {"ol_ip_tx_csum": True}} if tx == "on" else {}
        out.append(
            # Conntrack checks the IP checksum unless the frame is flagged: the
            # good frame flagged bad (3) is invalid to offlab, the bad frame
            # flagged good or partial (6, 8) is valid and NATed.
            case(f"conntrack dnat with ct(table=0) and NORMAL, ip tx offload {tx}", 3130,
                 {"p1": {}, "p2": p2}, [flow, NORMAL], check_set(good, bad, "ip"), (3, 6, 8))
        )  # fmt: skip
    out.append(
        case("conntrack dnat of an ICMP error (embedded packet), rx good", 3249,
             {"p1": {}, "p2": {}},
             ["in_port=p1,icmp,ct_state=-trk,actions=ct(commit,nat(dst=192.168.1.1)),p2", NORMAL],
             [fr(icmp, "ICMP port unreachable quoting TCP", "ip", "good")])
    )  # fmt: skip
    return out


def reserved_ports() -> list[Any]:
    """Hand-written: the action words offlab took differently from ovs-ofctl
    (bare ports, NORMAL, the ct(table=N) fork, mod_nw_tos); the C++ test
    tests/cpp/pipeline_reserved_ports_test.cc expects what OVS sends here."""
    g = compose("tcp")
    back = g[12:24] + g[0:12] + g[24:]
    stp, bcast = "0180c2000000" + g[12:], "ffffffffffff" + g[12:]
    tos = swap(swap(g, "45000068", "45530068"), "433c", "42e9")
    v6 = bytes(
        Ether(src="0a:00:00:00:00:01", dst="0a:00:00:00:00:02")
        / IPv6(src="2001:db8::1", dst="2001:db8::2", hlim=64, tc=0x03)
        / UDP(sport=1, dport=2)
        / b"abcd"
    ).hex()
    three = {"p1": {}, "p2": {}, "p3": {}}
    ct = "in_port=p1,ip,ct_state=-trk,actions=ct(commit,nat(dst=192.168.1.1),table=0),p2"
    xlate = "openvswitch/ovs v3.1.0 ofproto/ofproto-dpif-xlate.c"
    cases = [
        ("bare port name and number as output", "lib/ofp-actions.c:9433 (ofpacts_parse__)",
         ["in_port=p1,actions=p2,3"], [{"port": "p1", "hex": g}]),
        ("ct(table=0) forks, no rule for the clone", f"{xlate}:6395 (compose_conntrack_action)",
         [ct], [{"port": "p1", "hex": g}]),
        ("ct(table=0) forks, the clone meets NORMAL", f"{xlate}:6395 (compose_conntrack_action)",
         [ct, NORMAL], [{"port": "p1", "hex": g}]),
        ("NORMAL learns, floods unknown destinations, drops to the input port",
         f"{xlate}:3003 (xlate_normal)", ["actions=NORMAL"],
         [{"port": "p1", "hex": g}, {"port": "p2", "hex": back}, {"port": "p1", "hex": g},
          {"port": "p2", "hex": g}]),
        ("NORMAL drops reserved multicast, floods broadcast", f"{xlate}:2596 (is_admissible)",
         ["actions=NORMAL"], [{"port": "p1", "hex": stp}, {"port": "p1", "hex": bcast}]),
        ("mod_nw_tos keeps the ECN bits", f"{xlate}:7142 (OFPACT_SET_IP_DSCP)",
         ["in_port=p1,actions=mod_nw_tos:84,p2"], [{"port": "p1", "hex": tos}]),
        ("mod_nw_tos sets an IPv6 traffic class's DSCP", f"{xlate}:7142 (OFPACT_SET_IP_DSCP)",
         ["in_port=p1,ipv6,actions=mod_nw_tos:84,p2"], [{"port": "p1", "hex": v6}]),
        ("mod_nw_ttl sets an IPv6 hop limit", f"{xlate}:7158 (OFPACT_SET_IP_TTL)",
         ["in_port=p1,ipv6,actions=mod_nw_ttl:7,p2"], [{"port": "p1", "hex": v6}]),
    ]  # fmt: skip
    out = []
    for n, src, flows, frames in cases:
        where = src if src.startswith("openvswitch") else f"openvswitch/ovs v3.1.0 {src}"
        out.append({"name": n, "source": where, "ports": three, "flows": flows, "frames": frames})
    return out


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    files = {
        "dpif-netdev-csum.yaml": ip_csum()
        + l4_csum("tcp", False, 1128)
        + simple_match()
        + l4_csum("udp", False, 1237)
        + l4_csum("tcp", True, 1290)
        + l4_csum("udp", True, 1343),
        "dpif-netdev-conntrack.yaml": conntrack(),
        "reserved-ports.yaml": reserved_ports(),
        "tunnel-push-pop.yaml": tunnels.testsuite(),
        "tunnel-matrix.yaml": tunnels.hand(),
    }
    origins = {
        "reserved-ports.yaml": "by hand",
        "tunnel-push-pop.yaml": f"from {tunnels.PUSH_POP}*.at",
        "tunnel-matrix.yaml": "by hand",
    }
    for name, cases in files.items():
        origin = origins.get(name, f"from {SRC}")
        head = f"# Written by scripts/make_ovs_diff_cases.py {origin}; see docs/ovs-diff.md.\n"
        text = yaml.dump({"cases": cases}, Dumper=_NoAliases, sort_keys=False, width=200)
        (OUT / name).write_text(head + text)
        print(f"{OUT / name}: {len(cases)} cases")


if __name__ == "__main__":
    main()
