"""Receive in the verifier's alphabet: every profile's NIC receive (`rx`)
and, for NICs that coalesce, receive coalescing (`gro`) are operations whose
successors the properties cover; P9 (a merged packet is never valid unless
every merged segment was) is proved; and a NIC that lies is caught."""

from __future__ import annotations

import struct

import pytest

import offlab

pytest.importorskip("offlab_verify")


from offlab_verify import receive
from offlab_verify.abstraction import DATAPATH, PARTIAL
from offlab_verify.extract import Config, base_op, extract, extract_send
from offlab_verify.properties import PROPERTIES
from offlab_verify.prove import prove_all
from offlab_verify.witnesses import frames
from scapy_oracle import verdicts

COALESCING = {"bluefield2", "connectx5", "connectx6dx", "ixgbe_82599", "ibmveth_trunk"}


@pytest.fixture(scope="module")
def ex():
    return extract(Config(csum=True))


def _prove(ex, prof: offlab.NicProfile):
    arrivals = receive.arriving_witnesses()
    rx = receive.extract_receive(ex, prof, arrivals)
    edges = {**ex.trans, **rx}
    edges.update({(s, "send"): t for s, t in extract_send(ex, prof).items()})
    return rx, prove_all(ex.init | set(arrivals), edges, PROPERTIES, prof.name, "csum=on")


def test_successor_segment_keeps_each_checksum_right_or_wrong() -> None:
    """scapy (not offlab) recomputes every checksum of the next segment: each
    is right exactly when it was in the original frame, and the TCP sequence
    number moved on by the payload."""
    seen = 0
    for w in frames():
        if w.proto != 6 or w.segsz or w.corner.endswith("l4-csum-ffff"):
            # A TCP field of 0xffff is the other one's-complement zero: right
            # by the sum, wrong by scapy's field comparison.
            continue
        nxt = receive.successor(w.frame, w.payload)
        before = [(v.layer, v.depth, v.correct) for v in verdicts(w.frame)]
        after = [(v.layer, v.depth, v.correct) for v in verdicts(nxt)]
        assert before == after
        # The original packet's TCP header: the last 20 bytes before the payload.
        at = len(w.frame) - w.payload - 20 + 4
        (seq0,), (seq1,) = struct.unpack_from("!I", w.frame, at), struct.unpack_from("!I", nxt, at)
        assert seq1 == seq0 + w.payload
        assert nxt[:at] == w.frame[:at] or w.encap  # only checksums outside the TCP header move
        seen += 1
    assert seen > 20


def test_receive_and_coalescing_are_proved_for_every_profile(ex) -> None:
    for name in offlab.builtin_profile_names():
        prof = offlab.builtin_profile(name)
        rx, results = _prove(ex, prof)
        assert {r.property: r.verdict for r in results} == {p.key: "PROVED" for p in PROPERTIES}
        ops = {op for _, op in rx}
        assert {base_op(op) for op in ops} == ({"rx", "gro"} if name in COALESCING else {"rx"})
        if name in COALESCING - {"ibmveth_trunk"}:
            # Some segments are merged: a TSO packet whose L4 is partial. (The
            # ibmveth profile's receive validates no checksum, so Coalesce, which
            # merges only validated segments, merges none of its frames.)
            merged = [t for (s, op), t in rx.items() if op == "gro" and t.tso]
            assert merged and all(t.phase == DATAPATH and t.l4_o == PARTIAL for t in merged)
            # A segment without payload is not (the directed witness's own label).
            assert "gro@min-size" in ops, name


def test_a_lying_nic_is_caught(ex, monkeypatch: pytest.MonkeyPatch) -> None:
    """Negative control: a NIC that reports every checksum good. Its receive
    hands OVS a good status over a wrong field (P3), and its coalescing merges
    segments whose checksum is wrong (P9)."""
    real = offlab.nic_receive
    good = offlab.CsumStatus.GOOD

    def lying(frame: bytes, prof):
        p, st = real(frame, prof)
        p.offloads.set_status(offlab.Level.OUTER, offlab.Csum.L4, good)
        st.l4 = st.inner_l4 = good
        return p, st

    monkeypatch.setattr(receive.offlab, "nic_receive", lying)
    _, results = _prove(ex, offlab.builtin_profile("connectx6dx"))
    failed = {r.property: r for r in results if r.verdict == "FAILED"}
    assert "P3" in failed and "P9" in failed
    assert [op for op, _ in failed["P9"].trace] == ["receive", "gro"]
    assert failed["P9"].trace[-1][1].v_merge == 1
