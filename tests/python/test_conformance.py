"""The conformance fuzzer of the verifier's abstraction: the exported relation,
the checker on a hand-made case, the seeded value-dependent bug that
`offlab verify` proves away from its random witnesses alone and the fuzzer
finds, and the directed witnesses' ``op@corner`` transitions, which the
exported relation holds and the checker accepts (docs/verification.md,
"Conformance fuzzing")."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import offlab

pytest.importorskip("offlab_verify")

from offlab_verify import corners
from offlab_verify.abstraction import UNKNOWN, State
from offlab_verify.conformance import Case, Checker
from offlab_verify.extract import DATAPATH_OPS, base_op
from offlab_verify.relation import OPERATIONS, Setting, load_relation, write_relation
from offlab_verify.run import user_job
from offlab_verify.witnesses import wire_frame

scapy = pytest.importorskip("scapy.all")

ROOT = Path(__file__).resolve().parents[2]
OFFLAB = [sys.executable, "-m", "offlab.cli"]
BUG = "tcp-zero-csum-taken-as-absent"
FUZZER = ROOT / "fuzz" / "conformance_fuzz.py"


def run_verify(tmp: Path, *args: str) -> subprocess.CompletedProcess:
    r = subprocess.run(
        [*OFFLAB, "verify", "--profile", "pcap", "--csum", "off", "--no-kernel", "--no-lemmas",
         "--jobs", "1", "--out", str(tmp / "out"), *args],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert "Traceback" not in r.stderr, r.stderr
    return r


@pytest.fixture(scope="module")
def relation(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The relation `offlab verify --profile pcap --csum off` extracts with the
    seeded bug on, without the one directed witness that carries a TCP
    checksum of 0x0000 (every other corner kept, so the relation is complete
    but for the seeded bug): it proves every property, as no random witness
    has such a checksum. (With every directed witness removed, the fuzzer may
    first find another corner the random ones miss, the UDP zero checksum
    over IPv6 that conntrack reads as a value.)"""
    tmp = tmp_path_factory.mktemp("rel")
    path = tmp / "relation.json"
    real = corners.directed

    def without_tcp_zero(proto: int, *args: Any, **kwargs: Any) -> Iterator[tuple[str, bytes, int]]:
        for corner, frame, segsz in real(proto, *args, **kwargs):
            if not (proto == 6 and "l4-csum-0000" in corner.split("+")):
                yield corner, frame, segsz

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(corners, "directed", without_tcp_zero)
        _, results, written, rel = user_job(
            False, ["pcap"], [BUG], str(tmp), 20000, "search", export=True
        )
    assert {r.verdict for r in results} == {"PROVED"} and not written
    assert rel is not None
    write_relation(str(path), [BUG], [rel])
    return path


def test_exported_relation_is_the_one_verify_proved(relation: Path) -> None:
    doc = json.loads(relation.read_text())
    assert doc["format"] == "offlab-relation" and doc["faults"] == [BUG]
    (st,) = doc["settings"]
    assert st["config"] == "csum=off" and list(st["profiles"]) == ["pcap"]
    n = len(st["states"])
    rows = st["transitions"] + st["profiles"]["pcap"]
    # Operations, some at a directed witness's corner ("set_l3@l4-csum-ffff").
    assert all(0 <= a < n and 0 <= b < n and base_op(op) in OPERATIONS for a, op, b in rows)
    assert {base_op(op) for _, op, _ in st["transitions"]} == set(DATAPATH_OPS)
    # pcap: no LRO/GRO.
    assert {base_op(op) for _, op, _ in st["profiles"]["pcap"]} == {"rx", "send"}
    # A function: one successor per (state, operation).
    assert len({(a, op) for a, op, _ in rows}) == len(rows)
    rel = load_relation(str(relation))
    assert rel.faults == [BUG] and len(rel.settings[0].trans) == len(st["transitions"])


def test_relation_allows_the_corner_successors_of_an_operation() -> None:
    # A directed witness's send@corner (per profile) and op@corner (datapath)
    # successors are allowed beside the plain one; other profiles' are not.
    a, b, c = State(), State(ip_o=2), State(ip_o=3)
    st = Setting(
        "csum=off",
        False,
        trans={(a, "set_l3"): b, (a, "set_l3@l4-csum-0000"): c},
        profiles={"pcap": {(a, "send"): b, (a, "send@min-size"): c}, "tap": {(a, "send"): b}},
    )
    assert st.successors("pcap", a, "set_l3") == (b, {b, c})
    assert st.successors("tap", a, "set_l3") == (b, {b, c})
    assert st.successors("pcap", a, "send") == (b, {b, c})
    assert st.successors("tap", a, "send") == (b, {b})
    assert st.successors("tap", b, "send") == (None, set())


def _tcp_frame_with_zero_checksum() -> bytes:
    """Ether/IPv4/TCP whose correct TCP checksum is 0x0000, by hand: with the
    first payload word 0 the checksum is c0 = ~S; putting c0 in that word makes
    the sum S + c0 = 0xffff, whose complement is 0. scapy checks the result."""

    def build(word: bytes) -> bytes:
        return bytes(
            scapy.Ether(dst="0a:8f:39:4f:e0:73", src="8a:bf:7e:2f:05:84")
            / scapy.IP(src="10.0.0.1", dst="10.0.0.2", id=7)
            / scapy.TCP(sport=40000, dport=5201, flags="A", seq=7)
            / (word + bytes(range(40)))
        )

    c0 = scapy.Ether(build(b"\0\0"))[scapy.TCP].chksum
    frame = build(c0.to_bytes(2, "big"))
    assert scapy.Ether(frame)[scapy.TCP].chksum == 0
    return frame


def _tcp_checksum_ok(frame: bytes) -> bool:
    pkt = scapy.Ether(frame)
    on_wire = pkt[scapy.TCP].chksum
    del pkt[scapy.TCP].chksum
    return scapy.Ether(bytes(pkt))[scapy.TCP].chksum == on_wire


@pytest.mark.parametrize("fault", [False, True])
def test_checker_flags_the_seeded_bug_on_a_zero_tcp_checksum(relation: Path, fault: bool) -> None:
    rel = load_relation(str(relation))
    checker = Checker(rel, [offlab.builtin_profile("pcap")])
    frame = _tcp_frame_with_zero_checksum()
    # Received with both statuses unknown; then the first enabled operation
    # (parse) and the first one after it (set_l3: the IPv4 destination and TTL).
    case = Case(0, 0, "received", wire_frame(frame, 0), (UNKNOWN, UNKNOWN), (0, 0), 41)
    offlab.clear_faults()
    if fault:
        offlab.enable_fault(BUG)
    try:
        found = checker.run(case)
    finally:
        offlab.clear_faults()
    if not fault:
        assert found is None
        return
    assert found is not None and found.op == "set_l3"
    line = found.line()
    assert line.startswith("abstraction unsound: set_l3 from [ip unknown l4 unknown] on pcap")
    assert "l4 unknown (wrong)" in line  # what the core did; the relation says right
    assert found.after.ok_l4_o == 0 and found.expected is not None
    assert found.expected.ok_l4_o == 1
    # scapy agrees: the set action left the TCP checksum stale.
    assert not _tcp_checksum_ok(found.steps[-1].frame)


def test_directed_witnesses_find_the_seeded_bug_and_the_checker_accepts_it(
    tmp_path: Path,
) -> None:
    # With the directed witnesses (a TCP checksum of 0x0000 is a corner,
    # corners.py) plain verify fails a property through an op@corner
    # transition, and the relation it exports holds that transition: the
    # checker accepts the hand-made case it flagged on the random-only relation.
    path = tmp_path / "relation.json"
    r = run_verify(tmp_path, "--inject", BUG, "--json", "--export-relation", str(path))
    assert r.returncode == 1, r.stdout + r.stderr
    res = json.loads(r.stdout)
    failed = [x for x in res["results"] if x["verdict"] == "FAILED"]
    assert failed and all(any("@" in op for op in x["trace"]) for x in failed)
    doc = json.loads(path.read_text())
    (st,) = doc["settings"]
    labels = {op for _, op, _ in st["transitions"] + st["profiles"]["pcap"]}
    assert "set_l3@l4-csum-0000" in labels
    assert {base_op(op) for op in labels} <= set(OPERATIONS)
    checker = Checker(load_relation(str(path)), [offlab.builtin_profile("pcap")])
    frame = _tcp_frame_with_zero_checksum()
    case = Case(0, 0, "received", wire_frame(frame, 0), (UNKNOWN, UNKNOWN), (0, 0), 41)
    offlab.clear_faults()
    offlab.enable_fault(BUG)
    try:
        assert checker.run(case) is None
    finally:
        offlab.clear_faults()


@pytest.mark.skipif(not FUZZER.exists(), reason="fuzz/ not in this tree")
def test_fuzzer_finds_the_seeded_bug_that_verify_proves_away(
    relation: Path, tmp_path: Path
) -> None:
    pytest.importorskip("atheris")
    out = tmp_path / "witnesses"
    t0 = time.monotonic()
    r = subprocess.run(
        [sys.executable, str(FUZZER), "--relation", str(relation), "--witness-out", str(out),
         "-max_total_time=60", "-use_value_profile=1", "-seed=1", "-max_len=512",
         "-len_control=0"],
        capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    took = time.monotonic() - t0
    assert r.returncode == 1, r.stdout[-2000:] + r.stderr[-2000:]
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("abstraction unsound:")]
    assert len(lines) == 1, r.stdout
    assert " on pcap (csum=off)" in lines[0] and took < 90
    (path,) = out.glob("unsound-*.pcapng")
    assert str(path) in lines[0]
    records = offlab.trace.read(path)
    assert records[0].meta["witness"]["start"] in ("received", "arriving")
    # The operation ran on a TCP checksum of 0x0000 that scapy calls right and
    # left one scapy calls wrong.
    before, after = scapy.Ether(records[-2].frame), records[-1].frame
    assert before[scapy.TCP].chksum == 0 and _tcp_checksum_ok(records[-2].frame)
    assert not _tcp_checksum_ok(after)
    # The witness joins the extraction: with it, the same verify run no longer
    # proves anything; the abstraction cannot tell the witness from the others.
    r = run_verify(tmp_path, "--inject", BUG, "--witnesses", str(out))
    assert r.returncode == 2, r.stdout + r.stderr
    (err,) = r.stderr.splitlines()
    assert err.startswith("offlab: error: abstraction too coarse: ") and "disagree" in err


def test_bad_relation_and_witness_files_are_one_line_errors(tmp_path: Path) -> None:
    r = run_verify(tmp_path, "--export-relation", str(tmp_path / "no" / "r.json"))
    assert r.returncode == 2 and r.stderr.startswith("offlab: error: --export-relation")
    assert len(r.stderr.splitlines()) == 1
    r = run_verify(tmp_path, "--witnesses", str(tmp_path / "missing.pcapng"))
    assert r.returncode == 2 and "witness file" in r.stderr and len(r.stderr.splitlines()) == 1
    junk = tmp_path / "junk.json"
    junk.write_text("{}")
    r = subprocess.run([sys.executable, "-m", "offlab_verify.conformance", "--relation",
                        str(junk)], capture_output=True, text=True, timeout=60)  # fmt: skip
    if "atheris is not installed" not in r.stderr:
        assert r.returncode == 2 and r.stderr.startswith("offlab: error: relation")
    assert len(r.stderr.splitlines()) == 1
