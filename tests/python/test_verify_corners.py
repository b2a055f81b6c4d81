"""Directed witnesses: each corner frame has the property it claims (checked
with scapy on the bytes, not with the solver), and a value-dependent seeded
bug that the random witnesses miss is found through them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import offlab

pytest.importorskip("offlab_verify")

from scapy.layers.inet import IP, TCP, UDP, in4_chksum
from scapy.layers.inet6 import IPv6, in6_chksum
from scapy.layers.l2 import Ether

from offlab_verify import corners
from offlab_verify.abstraction import GOOD
from offlab_verify.counterexample import read_comments
from offlab_verify.run import user_job
from offlab_verify.witnesses import frames, initial_witnesses
from scapy_oracle import verdicts

OFFLAB = [sys.executable, "-m", "offlab.cli"]
BUG = "udp-update-zero-keeps-stale-csum"


def network(frame: bytes) -> IP | IPv6:
    pkt = Ether(frame)
    return pkt[IPv6] if IPv6 in pkt else pkt[IP]


def raw_l4_checksum(ip: IP | IPv6) -> int:
    """The L4 checksum scapy computes over the bytes with the field as zero,
    before UDP's mapping of a computed zero to 0xffff."""
    l4 = ip[TCP] if TCP in ip else ip[UDP]
    l4 = l4.copy()
    l4.chksum = 0
    if isinstance(ip, IPv6):
        return in6_chksum(ip.nh, ip, bytes(l4))
    return in4_chksum(ip.proto, ip, bytes(l4))


def rewritten(frame: bytes, op: str) -> IP | IPv6:
    """The frame after the alphabet's rewrite, as scapy writes the fields."""
    ip = network(frame)
    if op == "set_l3":
        ip.dst, ip.ttl = "192.0.2.99", 33
    else:
        ip.payload.dport = 4242
    return type(ip)(bytes(ip))


def ip_checksum(ip: IP) -> int:
    h = ip.copy()
    h.chksum = None
    del h.payload
    return IP(bytes(h)).chksum


def claims(w: corners.Corner | str, frame: bytes, segsz: int, proto: int) -> bool:
    """What each corner says about the frame, in scapy's words."""
    name = w if isinstance(w, str) else w.name
    ip = network(frame)
    v4 = isinstance(ip, IP)
    l4 = ip[TCP] if proto == 6 else ip[UDP]
    payload = len(bytes(l4.payload))
    return {
        "l4-csum-0000": l4.chksum == 0 and (proto == 17 or raw_l4_checksum(ip) == 0),
        "l4-csum-ffff": l4.chksum == 0xFFFF and raw_l4_checksum(ip) == 0,
        "set_l3-l4-update-0000": v4 and raw_l4_checksum(rewritten(frame, "set_l3")) == 0,
        "set_l4-l4-update-0000": raw_l4_checksum(rewritten(frame, "set_l4")) == 0,
        "set_l3-ip-update-0000": v4 and ip_checksum(rewritten(frame, "set_l3")) == 0,
        "min-size": payload == 0,
        "max-size": (ip.len if v4 else ip.plen + 40) == 1500,
        "ipv4-options": v4 and ip.ihl > 5 and len(ip.options) > 0,
        "tso-one-segment": 0 < payload <= segsz,
        "tso-multiple": segsz > 0 and payload % segsz == 0,
        "tso-remainder": segsz > 0 and payload % segsz != 0,
        "odd-length": len(bytes(l4)) % 2 == 1,
        "avx2-sum": len(bytes(l4)) >= 256,
    }[name]


def test_every_corner_witness_has_its_property() -> None:
    seen: set[str] = set()
    for w in frames():
        if not w.corner:
            continue
        # A tunnel's directed witness has its corners in the inner frame
        # (scapy's second Ethernet layer); its outer headers are the tunnel's.
        # A frame with several corners names them all, joined by "+".
        prefix = "inner-" if w.corner.startswith("inner-") else ""
        names = w.corner.removeprefix(prefix).split("+")
        seen |= {prefix + n for n in names}
        plain = bytes(Ether(w.frame).getlayer(Ether, 2)) if w.encap else w.frame
        for name in names:
            assert claims(name, plain, w.segsz, w.proto), (name, w.corner, w.frame.hex())
            # The classification of the coverage report finds it from the bytes too.
            assert prefix + name in corners.classify(w.frame, w.segsz)
        # Only what the family breaks on purpose is wrong (scapy recomputes).
        bad = {v.layer for v in verdicts(plain) if v.correct is False}
        if "l4-csum-ffff" in names and w.proto == 6:
            # scapy compares the field with the 0x0000 it computes; 0xffff is
            # the other one's-complement zero, which a receiver's sum accepts
            # (RFC 1624 section 3; claims() checked the sum above).
            bad.discard("tcp")
        if w.encap:
            want = set() if w.inner_ok else {"tcp"}
        elif w.ipv6:
            want = set() if w.l4_ok else {"tcp" if w.proto == 6 else "udp"}
        else:
            want = set() if w.ip_ok else {"ip"}
            want |= set() if w.l4_ok else {"tcp" if w.proto == 6 else "udp"}
        assert bad == want, (w.corner, bad, want)
    plain_corners = set(corners.NAMES) - {"odd-length", "avx2-sum", "tso-multiple",
                                          "tso-remainder"}  # fmt: skip
    tso = {"tso-one-segment"}
    assert seen == plain_corners | {f"inner-{n}" for n in plain_corners - tso}
    # Every initial state has directed witnesses, but a UDP checksum of 0
    # under a good L4 claim: that family's one corner is the field's value,
    # which a good status never reads (corners.relevant).
    init = initial_witnesses()
    bare = {s for s, ws in init.items() if not any(w.corner for w in ws)}
    assert bare and all(s.l4_absent and s.transport == 2 and s.l4_o == GOOD for s in bare)
    # Those four the random witnesses already have (classified from their bytes).
    randoms = [corners.classify(w.frame, w.segsz) for w in frames() if not w.corner]
    for name in ("odd-length", "tso-multiple", "tso-remainder"):
        assert any(name in c for c in randoms), name


def test_a_random_frame_rarely_has_an_update_corner() -> None:
    # Negative control for the classification: the random witnesses do not
    # have the solved corners (a 1 in 65536 chance each).
    for w in frames():
        if not w.corner and w.l4_ok and not w.encap:
            assert not claims("set_l3-l4-update-0000", w.frame, w.segsz, w.proto)


def udp_set_l3(frame: bytes) -> bytes:
    p = offlab.Packet(frame)
    offlab.parse(p)
    offlab.set_ipv4(p, dst="192.0.2.99", ttl=33)
    return p.bytes()


def test_the_seeded_bug_is_value_dependent() -> None:
    solved = next(w for w in frames() if w.corner == "set_l3-l4-update-0000" and w.proto == 17
                  and w.ip_ok and w.l4_ok)  # fmt: skip
    plain = next(w for w in frames() if not w.corner and w.proto == 17 and w.ip_ok and w.l4_ok)
    offlab.clear_faults()
    try:
        offlab.enable_fault(BUG)
        wrong = [v.layer for v in verdicts(udp_set_l3(solved.frame)) if v.correct is False]
        assert wrong == ["udp"]
        assert all(v.correct is not False for v in verdicts(udp_set_l3(plain.frame)))
    finally:
        offlab.clear_faults()
    # Without the bug the solved frame's update comes out right (0xffff sent).
    out = Ether(udp_set_l3(solved.frame))
    assert out[UDP].chksum == 0xFFFF
    assert all(v.correct is not False for v in verdicts(bytes(out)))


def test_random_witnesses_miss_the_bug(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(corners, "directed", lambda *args, **kwargs: iter(()))
    _, results, written, _ = user_job(False, ["pcap"], [BUG], str(tmp_path), 20000, "search")
    assert {r.verdict for r in results} == {"PROVED"} and not written


def test_directed_witnesses_find_the_bug(tmp_path: Path) -> None:
    r = subprocess.run(
        [*OFFLAB, "verify", "--json", "--corners", "--out", str(tmp_path), "--inject", BUG,
         "--profile", "pcap", "--csum", "off", "--no-lemmas", "--no-kernel"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert r.returncode == 1, r.stderr
    res = json.loads(r.stdout)
    failed = {x["property"] for x in res["results"] if x["verdict"] == "FAILED"}
    assert failed == {"P2"}
    trace = next(x["trace"] for x in res["results"] if x["property"] == "P2")
    assert any(op.startswith(("set_l3@", "set_l4@")) and "update-0000" in op for op in trace)
    # The counterexample replays the solved frame: on the wire its UDP
    # checksum is wrong (scapy recomputes it).
    path = next(p for p in res["counterexamples"] if Path(p).name.startswith("P2-pcap"))
    steps = read_comments(path)
    wire = [f for f, meta in steps if meta["op"] == "wire"]
    assert wire and any(v.layer == "udp" and v.correct is False for v in verdicts(wire[-1]))
    # The report: the corners each state covered.
    cc = res["coverage"][0]["corners"]
    assert cc["by_corner"]["set_l3-l4-update-0000"]["initial_states"] > 0
    assert any(k.startswith(("set_l3@set_l3-l4", "set_l4@set_l4-l4"))
               for k in cc["value_dependent_transitions"])  # fmt: skip
    states = cc["states"]
    known = set(corners.NAMES) | {f"inner-{n}" for n in corners.NAMES}
    assert states and all(set(s["corners"]) <= known for s in states)
    # Initial states first; every IPv4 one has its directed witnesses' corners.
    n_init = res["coverage"][0]["initial_states"]
    assert all(s["initial"] for s in states[:n_init])
    assert sum("min-size" in s["corners"] for s in states[:n_init]) > 0
