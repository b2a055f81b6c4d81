"""Frames the datapath refuses for their length, seen from the Python API.

Expected values are OVS's (docs/robustness.md cites the source, OVS d6a632a9b):
dfc_processing drops frames shorter than ETH_HEADER_LEN (14) as
datapath_drop_rx_invalid_packet; netdev_dummy_send refuses frames longer than
mtu + 14 (EMSGSIZE), netdev-dpdk those longer than mtu + 18
(tx_mtu_exceeded_drops); miniflow_extract counts an IPv4 total length beyond
the frame as miniflow_extract_ipv4_pkt_len_error and forwards the packet with
an L2-only key. Frames are built with scapy.
"""

from __future__ import annotations

import pytest
from scapy.layers.inet import IP, TCP, UDP
from scapy.layers.l2 import Ether
from scapy.packet import Raw

import offlab

MACS = {"src": "02:00:00:00:00:01", "dst": "02:00:00:00:00:02"}
IPS = {"src": "10.0.0.1", "dst": "10.0.0.2"}


def bridge(**p2: object) -> offlab.Pipeline:
    br = offlab.Pipeline()
    br.add_port("p1")
    br.add_port("p2", **p2)
    br.add_flow("in_port=p1,actions=output:p2")
    return br


def tcp_frame(size: int) -> bytes:
    """An Ethernet/IPv4/TCP frame of exactly `size` bytes (54 bytes of headers)."""
    return bytes(Ether(**MACS) / IP(**IPS) / TCP() / Raw(b"x" * (size - 54)))


@pytest.mark.parametrize("size", [0, 1, 13])
def test_a_frame_shorter_than_an_ethernet_header_is_dropped_with_a_reason(size: int) -> None:
    br = bridge()
    assert br.receive("p1", bytes(size)) == []
    assert br.counters["datapath_drop_rx_invalid_packet"] == 1
    assert br.events == [
        f"drop: frame of {size} byte{'' if size == 1 else 's'} is shorter than an Ethernet "
        "header (14 bytes)"
    ]


def test_a_14_byte_frame_is_forwarded() -> None:
    br = bridge()
    assert len(br.receive("p1", bytes(Ether(**MACS)))) == 1
    assert "datapath_drop_rx_invalid_packet" not in br.counters


def test_the_70000_byte_frame_is_dropped_at_the_mtu() -> None:
    br = bridge()
    frame = bytes(Ether(**MACS, type=0x88B5)) + bytes(70000 - 14)
    assert br.receive("p1", frame) == []
    assert br.counters["tx_mtu_exceeded_drops"] == 1
    assert br.events == [
        "drop on p2: frame of 70000 bytes exceeds MTU 1500 (at most 1514 bytes without TSO)"
    ]


@pytest.mark.parametrize(
    ("kwargs", "largest"),
    [({}, 1514), ({"mtu": 9000}, 9014), ({"profile": "e810"}, 1518), ({"profile": "virtio"}, 1518)],
)
def test_the_largest_frame_a_port_sends(kwargs: dict[str, object], largest: int) -> None:
    br = bridge(**kwargs)
    assert len(br.receive("p1", tcp_frame(largest))) == 1
    assert br.receive("p1", tcp_frame(largest + 1)) == []
    assert br.counters["tx_mtu_exceeded_drops"] == 1


@pytest.mark.parametrize("mtu", [0, 67, 65536])
def test_an_mtu_outside_68_to_65535_is_refused(mtu: int) -> None:
    br = offlab.Pipeline()
    with pytest.raises(offlab.OfflabError, match=f"port p: mtu {mtu} outside 68..65535"):
        br.add_port("p", mtu=mtu)


def test_an_ip_length_beyond_the_frame_is_counted_and_forwarded_as_l2() -> None:
    br = offlab.Pipeline()
    for port in ("p1", "p2", "p3"):
        br.add_port(port)
    br.add_flow("priority=10,in_port=p1,udp,actions=output:p2")
    br.add_flow("priority=0,in_port=p1,actions=output:p3")
    whole = bytes(Ether(**MACS) / IP(**IPS) / UDP() / Raw(b"abcdefgh"))
    assert [s.port for s in br.receive("p1", whole)] == ["p2"]
    cut = whole[:-4]  # the IPv4 total length still says 36 bytes
    assert [s.port for s in br.receive("p1", cut)] == ["p3"]
    assert br.counters["miniflow_extract_ipv4_pkt_len_error"] == 1
    assert br.events == [
        "parse: ipv4: total length inconsistent with frame: no L3/L4 fields "
        "(miniflow_extract_ipv4_pkt_len_error)"
    ]
