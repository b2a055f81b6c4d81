"""Open vSwitch test recipes (tests/dpif-netdev.at, tests/tunnel-push-pop.at) as
offlab pipelines: each builds a bridge, injects frames and names the frames OVS
expects on the wire.

Source of every frame and expectation: openvswitch/ovs master d6a632a9b16e,
frames as composed by ``ovs-ofctl compose-packet --bare``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from . import _core

PAY = bytes(range(64)).hex()
ETH = "0a8f394fe0738abf7e2f05840800"
IPT = "45000068000000000006433cc0a87b02c0a87b01"
TCP = "d47814510000000000000000501000006b720000"
GOOD = ETH + IPT + TCP + PAY


def _swap(hexstr: str, old: str, new: str) -> str:
    assert old in hexstr, old
    return hexstr.replace(old, new, 1)


@dataclass
class Case:
    """One injected frame and the frame OVS puts on the wire for it."""

    label: str
    rx_port: str
    frame: str
    expect: list[str]  # hex of every frame sent, in order; '.' matches any digit
    meta: _core.RxMeta | None = None


@dataclass
class Recipe:
    name: str
    source: str
    build: Callable[[], _core.Pipeline]
    cases: list[Case] = field(default_factory=list)


def _bridge(flow: str, p1: dict[str, str], p2: dict[str, str]) -> _core.Pipeline:
    br = _core.Pipeline()
    br.add_port("p1", options=p1)
    br.add_port("p2", options=p2)
    br.add_flow(flow)
    return br


def _r1() -> list[Recipe]:
    flow = "in_port=p1,actions=mod_nw_dst:192.168.1.1,output:p2"
    gexp = (
        ETH + "45000068000000000006bd3cc0a87b02c0a80101"
        "d4781451000000000000000050100000e5720000" + PAY
    )
    bad = _swap(GOOD, "433c", "433d")
    out = []
    for rx in ("none", "good", "bad", "partial"):
        opts = {} if rx == "none" else {f"ol_ip_rx_csum_set_{rx}": "true"}
        trusted = rx in ("good", "partial")
        out.append(
            Recipe(
                f"R1 ip csum offload, rx {rx}",
                "tests/dpif-netdev.at: ip csum offload",
                lambda opts=opts: _bridge(flow, opts, {}),
                [
                    Case("good frame", "p1", GOOD, [gexp]),
                    Case(
                        "bad frame", "p1", bad, [gexp if trusted else _swap(gexp, "bd3c", "bd3d")]
                    ),
                ],
            )
        )
    return out


def _r2() -> list[Recipe]:
    flow = "in_port=p1,tcp,actions=mod_tp_dst:2222,output:p2"
    gexp = ETH + IPT + "d47808ae00000000000000005010000077150000" + PAY
    bad = _swap(GOOD, "6b72", "dead")
    out = []
    for rx in ("none", "good", "bad", "partial"):
        opts = {} if rx == "none" else {f"ol_l4_rx_csum_set_{rx}": "true"}
        trusted = rx in ("good", "partial")
        out.append(
            Recipe(
                f"R2 tcp csum offload, rx {rx}",
                "tests/dpif-netdev.at: tcp csum offload",
                lambda opts=opts: _bridge(flow, opts, {"ol_l4_tx_csum": "true"}),
                [
                    Case("good frame", "p1", GOOD, [gexp]),
                    Case(
                        "bad frame", "p1", bad, [gexp if trusted else _swap(gexp, "7715", "ea50")]
                    ),
                ],
            )
        )
    return out


def _outer(c: str) -> str:
    return (
        "aa66aa660001aa66aa6600000800"
        "4500009a000040004011339e010102580101025c"
        "e01312b50086" + c + "0800000000007b00"
    )


def _vxlan(csum: bool, rx: str | None, p2: dict[str, str]) -> _core.Pipeline:
    br = _core.Pipeline()
    br.add_port("p1", options={} if rx is None else {f"ol_l4_rx_csum_set_{rx}": "true"})
    br.add_port("p2", options=p2)
    tnl = _core.TunnelConfig(
        "vxlan",
        remote_ip="1.1.2.92",
        local_ip="1.1.2.88",
        key=123,
        csum=csum,
        eth_src="aa:66:aa:66:00:00",
        eth_dst="aa:66:aa:66:00:01",
        udp_src=57363,
    )
    br.add_port("t1", ofport=11, tunnel=tnl, underlay="p2")
    br.add_flow("in_port=p1,tcp,tp_dst=5201,actions=mod_tp_dst:2222,output:11")
    return br


def _r3() -> list[Recipe]:
    inner = ETH + IPT + "d47808ae00000000000000005010000077150000" + PAY
    bad = _swap(GOOD, "6b72", "dead")
    both_disabled = {
        "ol_l4_tx_csum": "true",
        "ol_l4_tx_csum_disabled": "true",
        "ol_out_udp_tx_csum": "true",
        "ol_out_udp_tx_csum_disabled": "true",
    }
    return [
        Recipe(
            "R3 vxlan csum=false, tcp csum offload",
            "tests/dpif-netdev.at: IPv4 vxlan tunnel - tcp csum offload",
            lambda: _vxlan(False, "good", {"ol_l4_tx_csum": "true"}),
            [
                Case("good frame", "p1", GOOD, [_outer("0000") + inner]),
                Case("bad frame, rx good", "p1", bad, [_outer("0000") + inner]),
            ],
        ),
        Recipe(
            "R3 vxlan csum=true, no offload",
            "tests/dpif-netdev.at: IPv4 vxlan tunnel - tcp csum offload",
            lambda: _vxlan(True, None, {}),
            [
                Case("good frame", "p1", GOOD, [_outer("bf4d") + inner]),
                Case("bad frame", "p1", bad, [_outer("4c12") + _swap(inner, "7715", "ea50")]),
            ],
        ),
        Recipe(
            "R3 vxlan csum=true, NIC fails both offloads",
            "tests/dpif-netdev.at: IPv4 vxlan tunnel - tcp csum offload",
            lambda: _vxlan(True, "good", both_disabled),
            [
                Case(
                    "bad frame, rx good", "p1", bad, [_outer("ffff") + _swap(inner, "7715", "dead")]
                )
            ],
        ),
    ]


def _r7() -> list[Recipe]:
    frame = (
        ETH + "450107f8000000004006fbaac0a87b02c0a87b01"
        "d47814510000000000000000501000004"
        "7e60000" + "00" * 2000
    )
    segs = []
    for k, (ipc, seq, tcpc) in enumerate(
        [
            ("0187", "00000000", "4dc2"),
            ("0186", "000001f4", "4bce"),
            ("0185", "000003e8", "49da"),
            ("0184", "000005dc", "47e6"),
        ]
    ):
        segs.append(
            ETH + f"4501021c000{k}00004006{ipc}c0a87b02c0a87b01"
            f"d4781451{seq}0000000050100000{tcpc}0000" + "00" * 500
        )

    def build() -> _core.Pipeline:
        br = _core.Pipeline(userspace_tso=True)
        br.add_port("p1", options={"ol_tso_segsz": "500"})
        br.add_port("p2")
        br.add_flow("in_port=p1,actions=output:p2")
        return br

    return [
        Recipe(
            "R7 tso, software segmentation",
            "tests/dpif-netdev.at: tso",
            build,
            [Case("2054-byte TSO frame, tso_segsz 500", "p1", frame, segs)],
        )
    ]


def all_recipes() -> list[Recipe]:
    """R1, R2, R3 and R7 of the reference, in order."""
    return _r1() + _r2() + _r3() + _r7()


def matches(expect: str, got: str) -> bool:
    return len(expect) == len(got) and all(e in (".", g) for e, g in zip(expect, got, strict=True))
