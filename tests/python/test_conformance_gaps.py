"""Cases of the classes the conformance fuzzer once reported as gaps of the
extracted relation, built by scapy and checked against the relation `offlab
verify` extracts for a coalescing NIC (connectx5) and DPDK's TAP PMD: tunnel
frames of every kind and outer checksum through receive, coalescing and parse
(the state says the tunnel and whether its outer checksum is absent), a UDP
checksum of 0 (its own state), a TCP segment without payload (not coalesced:
gro@min-size), and a set action writing the value a field already holds."""

from __future__ import annotations

import pytest

import offlab

pytest.importorskip("offlab_verify")

from offlab_verify.abstraction import UNKNOWN
from offlab_verify.conformance import Case, Checker
from offlab_verify.relation import load_relation, write_relation
from offlab_verify.run import user_job
from offlab_verify.witnesses import wire_frame

scapy = pytest.importorskip("scapy.all")
geneve = pytest.importorskip("scapy.contrib.geneve")

PROFILES = ["connectx5", "dpdk_tap"]
# Indices into the operations enabled at each step (check.Checker._enabled):
# on arrival rx, gro; unparsed parse first; parsed plain IPv4 set_l3, set_l4,
# push_vxlan, push_geneve, push_gre, ct, ct_nat, parse, ...
RX, GRO, PARSE, SET_L3, CT = 0, 1, 0, 0, 5


@pytest.fixture(scope="module")
def checker(tmp_path_factory: pytest.TempPathFactory) -> Checker:
    tmp = tmp_path_factory.mktemp("gaps")
    _, results, _, rel = user_job(False, PROFILES, [], str(tmp), 20000, "search", export=True)
    assert {r.verdict for r in results} == {"PROVED"} and rel is not None
    write_relation(str(tmp / "relation.json"), [], [rel])
    offlab.clear_faults()
    return Checker(load_relation(str(tmp / "relation.json")),
                   [offlab.builtin_profile(n) for n in sorted(PROFILES)])  # fmt: skip


def _inner(payload: bytes = bytes(range(64))) -> scapy.Packet:
    return (
        scapy.Ether(dst="0a:8f:39:4f:e0:73", src="8a:bf:7e:2f:05:84")
        / scapy.IP(src="10.0.0.1", dst="10.0.0.2", id=3)
        / scapy.TCP(sport=40000, dport=5201, flags="A", seq=7)
        / payload
    )


def _outer() -> scapy.Packet:
    return scapy.Ether(dst="aa:66:aa:66:00:01", src="aa:66:aa:66:00:00") / scapy.IP(
        src="1.1.2.88", dst="1.1.2.92"
    )


def _tunnel(kind: str, csum: bool) -> bytes:
    if kind == "gre":
        gre = scapy.GRE(proto=0x6558, chksum_present=int(csum), key_present=1, key=5)
        return bytes(_outer() / gre / _inner())
    udp = scapy.UDP(sport=50000, dport=4789 if kind == "vxlan" else 6081)
    tun = scapy.VXLAN(vni=5) if kind == "vxlan" else geneve.GENEVE(vni=5, proto=0x6558)
    frame = _outer() / udp / tun / _inner()
    if not csum:
        frame[scapy.UDP].chksum = 0
    return bytes(frame)


def _run(checker: Checker, frame: bytes, encap: int, profile: str, ops: tuple[int, ...],
         start: str = "arriving") -> None:  # fmt: skip
    prof = sorted(PROFILES).index(profile)
    case = Case(0, prof, start, wire_frame(frame, encap), (UNKNOWN, UNKNOWN), ops)
    found = checker.run(case)
    assert found is None, found.line()


@pytest.mark.parametrize("kind", ["vxlan", "geneve", "gre"])
@pytest.mark.parametrize("csum", [False, True])
@pytest.mark.parametrize("op", [RX, GRO])
def test_every_tunnel_kind_is_in_the_relation(checker: Checker, kind: str, csum: bool,
                                              op: int) -> None:  # fmt: skip
    frame = _tunnel(kind, csum)
    layers = [x.name for x in offlab.dissect(frame).layers]
    assert layers[3 if kind != "gre" else 2] == kind  # the dissector sees what scapy built
    _run(checker, frame, 1, "connectx5", (op, PARSE, 0, 0))
    _run(checker, frame, 1, "connectx5", (PARSE, 0, 0), start="received")


@pytest.mark.parametrize("v6", [False, True])
def test_a_zero_udp_checksum_is_in_the_relation(checker: Checker, v6: bool) -> None:
    ip = scapy.IPv6(src="2001:db8::1", dst="2001:db8::2") if v6 else scapy.IP(dst="10.0.0.2")
    frame = bytes(scapy.Ether() / ip / scapy.UDP(sport=40000, dport=53, chksum=0) / (b"x" * 40))
    # dpdk_tap: partial over IPv4, checked as a value (bad here) over IPv6.
    _run(checker, frame, 0, "dpdk_tap", (RX, PARSE, CT))
    _run(checker, frame, 0, "connectx5", (RX, PARSE, CT))


def test_a_segment_without_payload_is_not_coalesced_and_in_the_relation(checker: Checker) -> None:
    _run(checker, bytes(_inner(b"")), 0, "connectx5", (GRO, PARSE, SET_L3))


def test_a_set_action_writing_the_value_held_is_in_the_relation(checker: Checker) -> None:
    # set_l3 writes 192.0.2.99 and TTL 33: a frame that holds them already,
    # received with a good status, stays as it was (OVS changes nothing).
    frame = bytes(scapy.Ether() / scapy.IP(dst="192.0.2.99", ttl=33) / scapy.TCP() / (b"y" * 30))
    _run(checker, frame, 0, "connectx5", (RX, PARSE, SET_L3, SET_L3))
