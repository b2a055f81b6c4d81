"""Property-based cross-check of the core against scapy.

Random packets and random operation sequences: after every operation, each
checksum the core calls good must verify with scapy and each it calls bad must
not; and on the wire, after the NIC, a checksum that was correct (or partial)
on ingress is correct and one that was bad on ingress is still incorrect.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("scapy")

from scapy.layers.inet import IP, TCP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether

import offlab
from offlab import CsumStatus, Level
from scapy_oracle import verdict_of

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@dataclass
class Frame:
    data: bytes
    ipv6: bool
    proto: str  # "tcp" | "udp"
    ip_ok: bool
    l4_ok: bool


@st.composite
def frames(draw: st.DrawFn, min_payload: int = 0, max_payload: int = 300) -> Frame:
    ipv6 = draw(st.booleans())
    proto = draw(st.sampled_from(["tcp", "udp"]))
    payload = draw(st.binary(min_size=min_payload, max_size=max_payload))
    sport = draw(st.integers(1, 65535))
    dport = draw(st.integers(1, 65535))
    if ipv6:
        l3 = IPv6(
            src="2001:db8::1",
            dst=f"2001:db8::{draw(st.integers(2, 0xFFFF)):x}",
            hlim=draw(st.integers(2, 255)),
        )
    else:
        l3 = IP(
            src="10.0.0.1",
            dst=f"10.0.{draw(st.integers(0, 255))}.{draw(st.integers(1, 254))}",
            ttl=draw(st.integers(2, 255)),
            id=draw(st.integers(0, 65535)),
        )
    l4 = (
        TCP(sport=sport, dport=dport, flags="A", seq=draw(st.integers(0, 2**32 - 1)))
        if proto == "tcp"
        else UDP(sport=sport, dport=dport)
    )
    data = bytearray(
        bytes(Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02") / l3 / l4 / payload)
    )
    ip_ok = l4_ok = True
    if not ipv6 and draw(st.booleans()):
        data[14 + 10] ^= draw(st.integers(1, 255))
        ip_ok = False
    l3_len = 40 if ipv6 else 20
    csum_at = 14 + l3_len + (16 if proto == "tcp" else 6)
    if draw(st.booleans()):
        data[csum_at] ^= draw(st.integers(1, 255))
        l4_ok = data[csum_at : csum_at + 2] == b"\x00\x00" and proto == "udp"
    return Frame(bytes(data), ipv6, proto, ip_ok, l4_ok)


def truthful_status(draw: st.DrawFn, ok: bool) -> CsumStatus | None:
    """What an honest NIC may report: nothing, or the truth."""
    if draw(st.booleans()):
        return None
    return CsumStatus.GOOD if ok else CsumStatus.BAD


def check_status(pkt: offlab.Packet) -> None:
    frame = pkt.bytes()
    tunnelled = pkt.offloads.tunnel != offlab.TunnelType.NONE
    # After the payload-independent outer UDP checksum OVS marks the outer L4
    # good while inner checksums are still partial: it is correct once they are
    # finished, so that claim is checked on a finished copy.
    finished = pkt.copy()
    try:
        offlab.send_prepare(finished, 0)
    except offlab.OfflabError:
        finished = pkt
    inner_pending = tunnelled and CsumStatus.PARTIAL in (
        pkt.offloads.status(Level.INNER, offlab.Csum.IP),
        pkt.offloads.status(Level.INNER, offlab.Csum.L4),
    )
    levels = [(Level.OUTER, 0)] + ([(Level.INNER, 1)] if tunnelled else [])
    for level, depth in levels:
        for which, layer_names in ((offlab.Csum.IP, ["ip"]), (offlab.Csum.L4, ["tcp", "udp"])):
            s = pkt.offloads.status(level, which)
            if s not in (CsumStatus.GOOD, CsumStatus.BAD):
                continue
            deferred = inner_pending and level == Level.OUTER and which == offlab.Csum.L4
            seen = finished.bytes() if deferred else frame
            v = next(
                (
                    verdict_of(seen, n, depth)
                    for n in layer_names
                    if verdict_of(seen, n, depth) is not None
                ),
                None,
            )
            if v is None or v.correct is None:
                continue
            if s == CsumStatus.GOOD:
                assert v.correct, f"{level} {which} called good but scapy disagrees: {frame.hex()}"
            else:
                assert not v.correct, f"{level} {which} called bad but verifies: {frame.hex()}"


@given(data=st.data())
@SETTINGS
def test_status_agrees_with_scapy_after_each_operation(data: st.DataObject) -> None:
    f = data.draw(frames())
    pkt = offlab.Packet(f.data)
    offlab.parse(pkt)
    ip_s = truthful_status(data.draw, f.ip_ok) if not f.ipv6 else None
    l4_s = truthful_status(data.draw, f.l4_ok)
    if ip_s is not None:
        pkt.offloads.set_status(Level.OUTER, offlab.Csum.IP, ip_s)
    if l4_s is not None:
        pkt.offloads.set_status(Level.OUTER, offlab.Csum.L4, l4_s)
    check_status(pkt)
    ops = data.draw(
        st.lists(
            st.sampled_from(
                [
                    "set_dst",
                    "set_port",
                    "push_vxlan",
                    "push_geneve",
                    "push_gre",
                    "prepare0",
                    "prepare_l4",
                    "prepare_all",
                ]
            ),
            max_size=5,
        )
    )
    for op in ops:
        if op == "set_dst":
            if f.ipv6:
                offlab.set_ipv6(pkt, dst="2001:db8::99")
            else:
                offlab.set_ipv4(pkt, dst="192.168.7.7", ttl=9)
        elif op == "set_port":
            offlab.set_l4_ports(pkt, dst=4242)
        elif op.startswith("push_"):
            if pkt.offloads.tunnel != offlab.TunnelType.NONE:
                continue
            csum = data.draw(st.booleans())
            v6 = data.draw(st.booleans())
            tnl = offlab.TunnelConfig(
                op[5:],
                remote_ip="2001:db8:1::2" if v6 else "1.1.2.92",
                local_ip="2001:db8:1::1" if v6 else "1.1.2.88",
                key=5,
                csum=csum,
            )
            batch, _ = offlab.push_header([pkt], tnl)
            pkt = batch[0]
        elif op == "prepare0":
            offlab.send_prepare(pkt, 0)
        elif op == "prepare_l4":
            offlab.send_prepare(pkt, offlab.caps.TCP_CKSUM | offlab.caps.UDP_CKSUM)
        else:
            offlab.send_prepare(pkt, offlab.caps.ALL)
        check_status(pkt)


@given(data=st.data())
@SETTINGS
def test_wire_never_fixes_bad_always_fixes_partial(data: st.DataObject) -> None:
    f = data.draw(frames())
    ip_s = truthful_status(data.draw, f.ip_ok) if not f.ipv6 else None
    l4_s = truthful_status(data.draw, f.l4_ok)
    if data.draw(st.booleans()) and f.l4_ok is False:
        # An honest "partial": integrity verified, field not final.
        l4_s = CsumStatus.PARTIAL
    meta = offlab.RxMeta(ip=ip_s, l4=l4_s)
    br = offlab.Pipeline()
    br.add_port("p1")
    tx_opts = {
        k: "true"
        for k in data.draw(
            st.lists(
                st.sampled_from(
                    ["ol_ip_tx_csum", "ol_l4_tx_csum", "ol_out_ip_tx_csum", "ol_out_udp_tx_csum"]
                ),
                unique=True,
            )
        )
    }
    br.add_port("p2", options=tx_opts)
    tunnel = data.draw(st.sampled_from([None, "vxlan", "geneve", "gre"]))
    actions = data.draw(
        st.sampled_from(["", "mod_tp_dst:4242,", "dec_ttl,", "mod_tp_src:9,dec_ttl,"])
    )
    if tunnel:
        v6 = data.draw(st.booleans())
        tnl = offlab.TunnelConfig(
            tunnel,
            remote_ip="2001:db8:1::2" if v6 else "1.1.2.92",
            local_ip="2001:db8:1::1" if v6 else "1.1.2.88",
            key=9,
            csum=data.draw(st.booleans()),
        )
        br.add_port("t1", tunnel=tnl, underlay="p2")
        br.add_flow(f"in_port=p1,actions={actions}output:t1")
    else:
        br.add_flow(f"in_port=p1,actions={actions}output:p2")
    sent = br.receive("p1", f.data, meta)
    assert len(sent) == 1, br.events
    wire = sent[0].frame
    depth = 1 if tunnel else 0
    ip_trusted_bad = not f.ip_ok and ip_s != CsumStatus.GOOD
    l4_truth = f.l4_ok or l4_s == CsumStatus.PARTIAL
    if not f.ipv6:
        v = verdict_of(wire, "ip", depth)
        assert v is not None and v.correct == (not ip_trusted_bad), wire.hex()
    v = verdict_of(wire, f.proto, depth)
    assert v is not None
    if v.correct is not None:
        assert v.correct == l4_truth, (wire.hex(), f, l4_s)
    if tunnel:
        if tunnel != "gre":
            ov = verdict_of(wire, "udp", 0)
            assert ov is not None and ov.correct in (True, None), wire.hex()
        if not v6:
            ov = verdict_of(wire, "ip", 0)
            assert ov is not None and ov.correct, wire.hex()
