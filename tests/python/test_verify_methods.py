"""The verifier's two proof methods agree (the explicit-state search, the
default, and Z3 Spacer / datalog, the cross-check) on every property x
profile x setting of the default core and with each seeded bug; and the CI
formats: --junit read back by a JUnit XML reader, --sarif, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import offlab

pytest.importorskip("offlab_verify")

from offlab_verify.extract import Config, extract, extract_send
from offlab_verify.kernel.extract import extract as kernel_extract
from offlab_verify.kernel.ops import Config as KernelConfig
from offlab_verify.kernel.properties import KERNEL_PROPERTIES
from offlab_verify.kernel.prove import prove_kernel
from offlab_verify.properties import PROPERTIES
from offlab_verify.prove import BadCache, prove_all
from offlab_verify.receive import arriving_witnesses, extract_receive

OFFLAB = [sys.executable, "-m", "offlab.cli"]


def _both(csum: bool, profiles: list[str]) -> list[tuple[str, str, str, str]]:
    """(property, profile, search verdict, Z3 verdict) over one extraction."""
    ex = extract(Config(csum=csum))
    arrivals = arriving_witnesses()
    profs = [offlab.builtin_profile(n) for n in profiles]
    rx = {p.name: extract_receive(ex, p, arrivals) for p in profs}
    out = []
    caches = {"search": BadCache(), "z3": BadCache()}
    for prof in profs:
        edges = dict(ex.trans)
        edges.update(rx[prof.name])
        edges.update({(s, "send"): t for s, t in extract_send(ex, prof).items()})
        init = ex.init | set(arrivals)
        got = {
            m: prove_all(init, edges, PROPERTIES, prof.name, "", 60000, m, caches[m])
            for m in ("search", "z3")
        }
        for a, b in zip(got["search"], got["z3"], strict=True):
            assert a.property == b.property
            out.append((a.property, prof.name, a.verdict, b.verdict))
            if a.verdict == "FAILED":
                # The search's counterexample is a real path of the relation.
                for (op, t), (_, s) in zip(a.trace[1:], a.trace, strict=False):
                    assert edges[(s, op)] == t
    return out


@pytest.mark.parametrize("csum", [False, True])
def test_search_and_spacer_agree_on_the_default_core(csum: bool) -> None:
    rows = _both(csum, list(offlab.builtin_profile_names()))
    assert len(rows) == len(offlab.builtin_profile_names()) * len(PROPERTIES)
    assert [r for r in rows if r[2] != r[3]] == []
    assert {r[2] for r in rows} == {"PROVED"}


# Each seeded bug on the profile whose counterexample the bug tests replay and
# on one other, with the outer checksum on (both settings for the DPDK bug,
# which fails differently with it off).
FAULT_CASES = [
    ("recirc-resets-inner-offsets", ["pcap", "connectx6dx"], [True]),
    ("simple-match-no-l4-proto", ["pcap", "x710"], [True]),
    ("vnet-ipv6-udp-wrong-pseudo-base", ["tap", "pcap"], [True]),
    ("ct-icmp-error-keeps-outer-status", ["pcap", "e810"], [True]),
    ("decap-rechecks-bad", ["pcap", "virtio"], [True]),
    ("ct-skips-unknown-ip-check", ["pcap", "tap"], [True]),
    ("intel-outer-udp-unseeded", ["e810", "x710"], [False, True]),
    ("compose-bad-csum-no-status", ["pcap", "ixgbe_82599"], [True]),
    ("ipf-checks-non-fragments", ["pcap", "dummy"], [True]),
]


@pytest.mark.parametrize(("bug", "profiles", "settings"), FAULT_CASES)
def test_search_and_spacer_agree_with_each_seeded_bug(
    bug: str, profiles: list[str], settings: list[bool]
) -> None:
    offlab.clear_faults()
    offlab.enable_fault(bug)
    try:
        rows = [r for csum in settings for r in _both(csum, profiles)]
    finally:
        offlab.clear_faults()
    assert [r for r in rows if r[2] != r[3]] == []
    assert any(r[2] == "FAILED" for r in rows)  # the bug is found


def test_search_and_datalog_agree_on_the_kernel_model() -> None:
    for cfg in (KernelConfig("6.18", udp_csum=True), KernelConfig("rhel7")):
        for prof in ("x710", "ixgbe_82599"):
            ex = kernel_extract(cfg, prof)
            a = prove_kernel(ex.init, ex.trans, KERNEL_PROPERTIES, prof, cfg.name, "search")
            b = prove_kernel(ex.init, ex.trans, KERNEL_PROPERTIES, prof, cfg.name, "z3")
            assert [r.verdict for r in a] == [r.verdict for r in b]
            assert "FAILED" in [r.verdict for r in a]  # K0 on the X710, the hazards


def _verify(*args: str) -> subprocess.CompletedProcess:
    r = subprocess.run([*OFFLAB, "verify", *args], capture_output=True, text=True, timeout=300)
    assert "Traceback" not in r.stderr, r.stderr
    return r


def test_junit_and_sarif_of_a_failing_run(tmp_path: Path) -> None:
    junitparser = pytest.importorskip("junitparser")
    xml, sarif = tmp_path / "v.xml", tmp_path / "v.sarif"
    r = _verify(
        "--profile", "e810", "--profile", "pcap", "--inject", "intel-outer-udp-unseeded",
        "--no-lemmas", "--no-kernel", "--out", str(tmp_path / "out"),
        "--junit", str(xml), "--sarif", str(sarif),
    )  # fmt: skip
    assert r.returncode == 1
    doc = junitparser.JUnitXml.fromfile(str(xml))
    cases = [(suite.name, case) for suite in doc for case in suite]
    # Every property x profile x setting is a test case.
    assert len(cases) == 2 * 2 * len(PROPERTIES)
    failed = {
        (suite, case.name)
        for suite, case in cases
        if any(isinstance(x, junitparser.Failure) for x in case.result)
    }
    p2 = next(p.title for p in PROPERTIES if p.key == "P2")
    assert failed == {
        ("userspace csum=off", f"P2 {p2} [e810]"),
        ("userspace csum=on", f"P2 {p2} [e810]"),
    }
    for suite, case in cases:
        if (suite, case.name) in failed:
            (fail,) = case.result
            # The counterexample as `offlab verify` prints it, and its trace file.
            ops, _ends, where = fail.text.splitlines()
            assert ops.startswith("receive -> ") and ops.endswith(" -> send")
            assert Path(where.removeprefix("counterexample: ")).is_file()
    assert doc.failures == 2 and doc.tests == len(cases)
    rep = json.loads(sarif.read_text())
    assert rep["version"] == "2.1.0"
    results = rep["runs"][0]["results"]
    assert sorted((x["ruleId"], x["properties"]["profile"]) for x in results) == [
        ("P2", "e810"),
        ("P2", "e810"),
    ]
    assert all(x["level"] == "error" for x in results)


def test_junit_of_a_proved_run_and_bad_output_path(tmp_path: Path) -> None:
    junitparser = pytest.importorskip("junitparser")
    xml = tmp_path / "ok.xml"
    r = _verify("--profile", "virtio", "--no-kernel", "--out", str(tmp_path / "o"),
                "--junit", str(xml))  # fmt: skip
    assert r.returncode == 0
    doc = junitparser.JUnitXml.fromfile(str(xml))
    names = [case.name for suite in doc for case in suite]
    assert len(names) == 2 * len(PROPERTIES) + 7  # and the seven lemmas
    assert doc.failures == 0 and doc.errors == 0
    r = _verify("--no-kernel", "--junit", str(tmp_path / "no" / "such" / "x.xml"))
    assert r.returncode == 2
    assert r.stderr.startswith("offlab: error: --junit") and r.stderr.count("\n") == 1


def test_help_documents_the_exit_codes() -> None:
    r = subprocess.run([*OFFLAB, "verify", "--help"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0
    for line in ("exit status:", "  0 ", "  1 ", "  2 ", "--method", "--junit"):
        assert line in r.stdout
