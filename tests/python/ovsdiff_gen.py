"""Hypothesis strategies for `offlab ovs-diff` cases: a bridge of dummy ports, a
flow table drawn from the actions offlab supports (field rewrites, dec_ttl,
outputs by name, number and `output:`, resubmit, ct with and without
commit/nat/table, NORMAL) and frames (TCP/UDP/ICMP over IPv4/IPv6, good and bad
checksums, IPv4 options, small and odd sizes). Frames are built with scapy.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from scapy.layers.inet import ICMP, IP, TCP, UDP, IPOption_RR
from scapy.layers.inet6 import ICMPv6EchoRequest, IPv6
from scapy.layers.l2 import Ether

from offlab.ovsdiff.spec import Case, case_from_dict

PORTS = ("p1", "p2", "p3")
MACS = ("0a:00:00:00:00:01", "0a:00:00:00:00:02", "0a:00:00:00:00:03", "ff:ff:ff:ff:ff:ff")
V4 = ("10.0.0.1", "10.0.0.2", "192.168.1.1")
V6 = ("2001:db8::1", "2001:db8::2", "fe80::1")


@st.composite
def frames(draw: st.DrawFn) -> tuple[str, str, bytes]:
    """(l3, l4, frame bytes): l3 'ip' or 'ipv6', l4 'tcp', 'udp' or 'icmp'."""
    v6 = draw(st.booleans())
    l4 = draw(st.sampled_from(("tcp", "udp", "icmp")))
    src, dst = draw(st.sampled_from(MACS[:3])), draw(st.sampled_from(MACS))
    if v6:
        l3 = IPv6(src=draw(st.sampled_from(V6)), dst=draw(st.sampled_from(V6)),
                  hlim=draw(st.integers(0, 255)), fl=draw(st.integers(0, 0xFFFFF)))  # fmt: skip
    else:
        opts = [IPOption_RR(routers=["10.9.9.9"])] if draw(st.booleans()) else []
        l3 = IP(src=draw(st.sampled_from(V4)), dst=draw(st.sampled_from(V4)),
                ttl=draw(st.integers(0, 255)), tos=draw(st.integers(0, 255)),
                id=draw(st.integers(0, 0xFFFF)), options=opts)  # fmt: skip
    sport, dport = draw(st.integers(1, 65535)), draw(st.integers(1, 65535))
    if l4 == "tcp":
        l4p: Any = TCP(sport=sport, dport=dport, flags=draw(st.sampled_from(("S", "A", "PA"))),
                       seq=draw(st.integers(0, 2**32 - 1)))  # fmt: skip
    elif l4 == "udp":
        l4p = UDP(sport=sport, dport=dport)
    else:
        l4p = ICMPv6EchoRequest(id=sport, seq=dport) if v6 else ICMP(type=8, id=sport, seq=dport)
    payload = draw(st.binary(min_size=0, max_size=64))
    raw = bytearray(bytes(Ether(src=src, dst=dst) / l3 / l4p / payload))
    if draw(st.integers(0, 3)) == 0:
        # A wrong checksum: IPv4 header or L4 (the byte after the L4 header start).
        ihl = 0 if v6 else (raw[14] & 0xF) * 4
        l4_off = 14 + (40 if v6 else ihl)
        csum_off = {"tcp": 16, "udp": 6, "icmp": 2}[l4]
        if not v6 and draw(st.booleans()):
            raw[14 + 10] ^= 0x01
        elif not (l4 == "udp" and not v6 and raw[l4_off + 6 : l4_off + 8] == b"\0\0"):
            raw[l4_off + csum_off + 1] ^= 0x5A
    return ("ipv6" if v6 else "ip", l4, bytes(raw))


def _rewrite(draw: st.DrawFn, l3: str, l4: str) -> str:
    """A field rewrite valid for a flow that matches l3/l4."""
    v6 = l3 == "ipv6"
    choices = ["mod_dl_src", "mod_dl_dst", "dec_ttl", "mod_nw_src", "mod_nw_dst"]
    choices += ["mod_nw_tos", "mod_nw_ttl"]  # IPv4 TOS/TTL or IPv6 traffic class/hop limit
    if l4 in ("tcp", "udp"):
        choices += ["mod_tp_src", "mod_tp_dst", "set_field_tp"]
    kind = draw(st.sampled_from(choices))
    if kind in ("mod_dl_src", "mod_dl_dst"):
        return f"{kind}:{draw(st.sampled_from(MACS[:3]))}"
    if kind == "dec_ttl":
        return "dec_ttl"
    if kind in ("mod_nw_src", "mod_nw_dst"):
        addr = draw(st.sampled_from(V6 if v6 else V4))
        if v6:
            return f"set_field:{addr}->ipv6_{kind[-3:]}"
        return f"{kind}:{addr}" if draw(st.booleans()) else f"set_field:{addr}->ip_{kind[-3:]}"
    if kind == "mod_nw_tos":
        return f"mod_nw_tos:{draw(st.integers(0, 63)) * 4}"  # the ECN bits must be 0
    if kind == "mod_nw_ttl":
        return f"mod_nw_ttl:{draw(st.integers(0, 255))}"
    port = draw(st.integers(0, 65535))
    if kind == "set_field_tp":
        return f"set_field:{port}->{l4}_{draw(st.sampled_from(('src', 'dst')))}"
    return f"{kind}:{port}"


def _output(draw: st.DrawFn, in_port: str) -> str:
    port = draw(st.sampled_from([p for p in PORTS if p != in_port]))
    form = draw(st.sampled_from(("name", "number", "output")))
    number = PORTS.index(port) + 1
    return {"name": port, "number": str(number), "output": f"output:{port}"}[form]


@st.composite
def cases(draw: st.DrawFn) -> Case:
    l3, l4, frame = draw(frames())
    proto = l4 + ("6" if l3 == "ipv6" else "")
    match = draw(st.sampled_from((proto, l3)))
    # A flow matching only the L3 type may rewrite only L3 and L2 fields:
    # ovs-ofctl refuses set_field without its prerequisites.
    rw_l4 = l4 if match == proto else "none"
    acts: list[str] = [_rewrite(draw, l3, rw_l4) for _ in range(draw(st.integers(0, 3)))]
    flows = []
    shape = draw(st.sampled_from(("plain", "resubmit", "ct", "ct_table", "normal")))
    if shape == "resubmit":
        acts.append("resubmit(,1)")
        tail = [_rewrite(draw, l3, rw_l4) for _ in range(draw(st.integers(0, 2)))]
        flows.append(f"table=1,{match},actions={','.join([*tail, _output(draw, 'p1')])}")
        if draw(st.booleans()):
            acts.append(_output(draw, "p1"))
    elif shape in ("ct", "ct_table"):
        ct = ["commit"] if draw(st.booleans()) else []
        nat = draw(st.sampled_from(("", "nat", "nat_dst")))
        if nat == "nat":
            ct.append("nat")
        elif nat == "nat_dst":
            addr = draw(st.sampled_from(V6 if l3 == "ipv6" else V4))
            ct.append(f"nat(dst={'[' + addr + ']' if l3 == 'ipv6' else addr})")
            if "commit" not in ct:
                ct.insert(0, "commit")  # nat with an address needs commit
        if shape == "ct_table":
            ct.append("table=1")
            after = draw(st.sampled_from(("NORMAL", _output(draw, "p1"))))
            flows.append(f"table=1,{match},ct_state=+trk,actions={after}")
        acts.append(f"ct({','.join(ct)})")
        acts.append(_output(draw, "p1"))
    elif shape == "normal":
        acts.append("NORMAL")
    else:
        acts.extend(_output(draw, "p1") for _ in range(draw(st.integers(1, 2))))
    flows.insert(0, f"in_port=p1,{match},actions={','.join(acts)}")
    if shape == "normal" and draw(st.booleans()):
        flows.append("priority=0,actions=NORMAL")
    n_frames = draw(st.integers(1, 3))
    frame_list = [{"port": "p1", "hex": frame.hex()}]
    for _ in range(n_frames - 1):
        _, _, more = draw(frames())
        frame_list.append({"port": draw(st.sampled_from(PORTS)), "hex": more.hex()})
    raw = {
        "name": f"generated: {flows[0]}",
        "source": "tests/python/ovsdiff_gen.py",
        "ports": {p: {"ofport": i + 1} for i, p in enumerate(PORTS)},
        "flows": flows,
        "frames": frame_list,
    }
    return case_from_dict(raw, "generated")
