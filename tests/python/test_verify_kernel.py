"""The verifier over the Linux kernel model: its properties hold where the
kernel keeps them, its findings name the kernel's own hazards, and it can fail."""

from __future__ import annotations

import dataclasses

import pytest

from offlab import kernel as k
from offlab import trace
from offlab_verify.kernel import extract as kextract
from offlab_verify.kernel import ops as kops
from offlab_verify.kernel.abstraction import DELIVERED, WIRE, ended
from offlab_verify.kernel.ops import Config
from offlab_verify.kernel.run import verify_kernel, write_counterexamples

CONFIGS = (Config("6.18", udp_csum=True), Config("6.18", udp_csum=False), Config("rhel7"))


@pytest.fixture(scope="module")
def results():
    return verify_kernel(["ixgbe_82599", "x710"], CONFIGS)


def _verdicts(res, prop: str, profile: str) -> set[str]:
    return {r.verdict for r in res if r.property == prop and r.profile == profile}


def test_gro_and_never_fixes_bad_are_proved(results) -> None:
    res, exs, errors = results
    assert not errors
    for prof in ("ixgbe_82599", "x710"):
        assert _verdicts(res, "K1", prof) == {"PROVED"}
        assert _verdicts(res, "K4", prof) == {"PROVED"}
    # The relation covers the operations the kernel model offers.
    ops = {op for ex in exs for _, op in ex.trans}
    assert {"gro", "decap", "encap", "set_ip", "ct", "stack", "xmit:x710", "rx:x710"} <= ops


def test_i40e_vouching_for_the_unchecked_outer_udp_checksum_is_reported(results) -> None:
    """i40e reports csum_level 1 for tunnels while the X710 does not check the
    outer UDP checksum (i40e_rx_checksum); the 82599 only vouches for what it
    checked (ixgbe_rx_checksum)."""
    res, _, _ = results
    assert _verdicts(res, "K0", "ixgbe_82599") == {"PROVED"}
    x710 = [r for r in res if r.property == "K0" and r.profile == "x710"]
    assert {r.verdict for r in x710} == {"FAILED"}
    assert [op for op, _ in x710[0].trace] == ["receive"]
    assert x710[0].trace[0][1].g_hw == 1 and x710[0].trace[0][1].g_ol4 == 1


def test_partial_completion_holds_except_for_the_ovs_outer_udp_hazard(results) -> None:
    res, _, _ = results
    k2 = [r for r in res if r.property == "K2"]
    assert {r.verdict for r in k2} <= {"PROVED", "HAZARD"}
    hazards = [r for r in k2 if r.verdict == "HAZARD"]
    assert hazards and all(r.invariant == "H1" for r in hazards)
    ops = [op for op, _ in hazards[0].trace]
    assert ops[-1].startswith("xmit:") and "set_ip" in ops and "encap" in ops


def test_counterexamples_are_traces(results, tmp_path) -> None:
    res, exs, _ = results
    paths = write_counterexamples(res, exs, str(tmp_path))
    assert paths
    for p in paths:
        recs = trace.read(p)
        assert recs and all(r.frame for r in recs)
    k0 = next(p for p in paths if "K0-x710" in p)
    # The X710 witness: an outer UDP checksum that is wrong in the received bytes.
    first = trace.read(k0)[0].frame
    import offlab

    udp = [c for c in offlab.dissect(first).checksums if c.layer == "udp" and c.depth == 0]
    assert udp and udp[0].verdict == offlab.Verdict.INCORRECT


def test_a_stack_that_accepts_bad_checksums_fails_k1(monkeypatch) -> None:
    """The property can fail: a local stack that delivers everything."""

    monkeypatch.setitem(kops.GENERIC_OPS, "stack", lambda skb, s, cfg: (None, ended(s, DELIVERED)))
    res, _, _ = verify_kernel(["ixgbe_82599"], (Config("6.18"),))
    k1 = [r for r in res if r.property == "K1"]
    assert {r.verdict for r in k1} == {"FAILED"}
    assert k1[0].trace[-1][0] == "stack"


def test_a_hazard_never_hides_another_failure(monkeypatch) -> None:
    """A wire that loses the outer checksum after any xmit is not H1's doing:
    leaving H1's transitions out does not prove K2, so it stays FAILED."""
    real = kops.op_xmit

    def broken(dev):
        run = real(dev)

        def wrapped(skb, s, cfg):
            obj, t = run(skb, s, cfg)
            if t.phase == WIRE and t.encap:
                t = dataclasses.replace(t, ok_l4_o=0)
            return obj, t

        return wrapped

    monkeypatch.setattr(kextract, "op_xmit", broken)
    res, _, _ = verify_kernel(["ixgbe_82599"], (Config("6.18"),))
    assert "FAILED" in _verdicts(res, "K2", "ixgbe_82599")


def test_kernel_versions_select_rule_variants() -> None:
    assert k.parse_kernel_version("rhel7.1").rhel7
    with pytest.raises(Exception, match="kernel version"):
        k.parse_kernel_version("2.6")
