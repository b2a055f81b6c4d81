"""Runs a case through offlab's Pipeline, the same bridge and frames as the
real OVS gets."""

from __future__ import annotations

from .. import _core
from .result import COUNTERS, CaseResult, FrameResult
from .spec import Case, Frame, SpecError


def build(case: Case) -> _core.Pipeline:
    """The case's bridge as an offlab Pipeline; raises SpecError on a port or
    flow offlab refuses."""
    br = _core.Pipeline()
    for p in case.ports:
        try:
            br.add_port(p.name, options=p.options, ofport=p.ofport)
        except _core.OfflabError as e:
            raise SpecError(f"offlab refuses port {p.name}: {e}") from e
    for flow in case.flows:
        try:
            br.add_flow(flow)
        except _core.OfflabError as e:
            raise SpecError(f"offlab refuses flow '{flow}': {e}") from e
    return br


_STATUS = {
    "good": _core.CsumStatus.GOOD,
    "bad": _core.CsumStatus.BAD,
    "partial": _core.CsumStatus.PARTIAL,
}


def rx_meta(frame: Frame) -> _core.RxMeta | None:
    """A frame's own receive options as the statuses netdev-dummy would set
    (ol_{ip,l4}_rx_csum_set_*), or None."""
    if not frame.options:
        return None
    chosen: dict[str, _core.CsumStatus] = {}
    # netdev-dummy's precedence when several are set: good, then bad, then
    # partial (offlab's ForcedRx, models/src/ovs/pipeline.cc).
    for status in ("partial", "bad", "good"):
        for layer in ("ip", "l4"):
            if frame.options.get(f"ol_{layer}_rx_csum_set_{status}") == "true":
                chosen[layer] = _STATUS[status]
    return _core.RxMeta(ip=chosen.get("ip"), l4=chosen.get("l4"))


def run(case: Case) -> CaseResult:
    br = build(case)
    results: list[FrameResult] = []
    before = dict(br.counters)
    names = [p.name for p in case.ports]
    for fr in case.frames:
        sent = br.receive(fr.port, fr.data, rx_meta(fr))
        after = dict(br.counters)
        res = FrameResult(
            sent={n: [bytes(s.frame) for s in sent if s.port == n] for n in names},
            counters={c: after.get(c, 0) - before.get(c, 0) for c in COUNTERS},
            notes=list(br.events),
        )
        before = after
        results.append(res)
    return CaseResult(results, COUNTERS)
