"""Per injected frame: the frames each port sent (bytes, in order), whether the
frame was dropped, and the coverage counters both sides report; and the
difference table with a byte diff."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .result import CaseResult
from .spec import Case


@dataclass
class Difference:
    frame: int  # 1-based index of the injected frame
    what: str  # "port p2", "dropped", "counter conntrack_l4csum_err"
    ovs: str
    offlab: str
    byte_diff: list[str] = field(default_factory=list)


@dataclass
class Verdict:
    case: Case
    differences: list[Difference]
    expected: bool  # the case lists an expected difference for this OVS version
    counters_compared: tuple[str, ...]

    @property
    def status(self) -> str:
        e = self.case.expected if self.expected else None
        if e is None:
            return "DIFFERENT" if self.differences else "agree"
        differing = {d.frame for d in self.differences}
        if not e.frames:
            return "expected difference" if differing else "EXPECTED DIFFERENCE NOT SEEN"
        if differing - set(e.frames):
            return "DIFFERENT"  # a frame the expectation does not name
        if set(e.frames) - differing:
            return "EXPECTED DIFFERENCE NOT SEEN"
        return "expected difference"

    @property
    def unexplained(self) -> bool:
        return self.status in ("DIFFERENT", "EXPECTED DIFFERENCE NOT SEEN")


def byte_diff(a: bytes, b: bytes) -> list[str]:
    """Runs of differing bytes: '@24-25 ovs bd3c offlab bd3d'; a length
    difference is one more line."""
    out: list[str] = []
    i, n = 0, min(len(a), len(b))
    while i < n:
        if a[i] == b[i]:
            i += 1
            continue
        j = i
        while j < n and a[j] != b[j]:
            j += 1
        span = f"@{i}" if j - i == 1 else f"@{i}-{j - 1}"
        out.append(f"{span} ovs {a[i:j].hex()} offlab {b[i:j].hex()}")
        i = j
    if len(a) != len(b):
        out.append(f"length ovs {len(a)} offlab {len(b)}")
    return out


def _frames(frames: list[bytes]) -> str:
    return " | ".join(f.hex() for f in frames) if frames else "(nothing)"


def compare(case: Case, ovs: CaseResult, model: CaseResult, version: tuple[int, ...]) -> Verdict:
    counters = tuple(c for c in ovs.counters_known if c in model.counters_known)
    diffs: list[Difference] = []
    for i, (o, m) in enumerate(zip(ovs.frames, model.frames, strict=True), 1):
        if o.dropped != m.dropped:
            diffs.append(Difference(i, "dropped", str(o.dropped), str(m.dropped)))
        for name in case.observed_ports():
            of, mf = o.sent.get(name, []), m.sent.get(name, [])
            if of == mf:
                continue
            d = Difference(i, f"port {name}", _frames(of), _frames(mf))
            for k, (a, b) in enumerate(zip(of, mf, strict=False)):
                d.byte_diff += [f"frame {k + 1}: {line}" for line in byte_diff(a, b)]
            if len(of) != len(mf):
                d.byte_diff.append(f"ovs sent {len(of)} frame(s), offlab {len(mf)}")
            diffs.append(d)
        for c in counters:
            if o.counters.get(c, 0) != m.counters.get(c, 0):
                diffs.append(
                    Difference(i, f"counter {c}", str(o.counters.get(c)), str(m.counters.get(c)))
                )
    return Verdict(case, diffs, case.expects_difference(version) is not None, counters)


def _clip(s: str, width: int) -> str:
    return s if len(s) <= width else s[: width - 3] + "..."


def table(verdicts: list[Verdict], verbose: bool = False) -> str:
    """One line per case; for each difference of an unexplained case (or every
    case with verbose) the frame, flows, both outputs and the byte diff."""
    lines = [f"{'case':<60} result"]
    for v in verdicts:
        lines.append(f"{_clip(v.case.name, 60):<60} {v.status}")
        if not (v.unexplained or (verbose and v.differences)):
            continue
        if v.expected and v.case.expected:
            e = v.case.expected
            lines.append(f"    expected: OVS commit {e.commit}: {e.reason}")
        if v.case.source:
            lines.append(f"    source: {v.case.source}")
        for f in v.case.flows:
            lines.append(f"    flow: {f}")
        for d in v.differences:
            fr = v.case.frames[d.frame - 1]
            label = f" ({fr.label})" if fr.label else ""
            lines.append(f"    frame {d.frame}{label} on {fr.port}: {fr.data.hex()}")
            lines.append(f"      {d.what}: ovs    {_clip(d.ovs, 200)}")
            lines.append(f"      {' ' * len(d.what)}  offlab {_clip(d.offlab, 200)}")
            for b in d.byte_diff:
                lines.append(f"        {b}")
    n_unexp = sum(v.unexplained for v in verdicts)
    n_exp = sum(v.status == "expected difference" for v in verdicts)
    lines.append(
        f"{len(verdicts)} cases: {len(verdicts) - n_unexp - n_exp} agree, "
        f"{n_exp} expected differences, {n_unexp} unexplained"
    )
    return "\n".join(lines)


def to_json(verdicts: list[Verdict], ovs_version: str) -> dict[str, Any]:
    return {
        "ovs_version": ovs_version,
        "cases": [
            {
                "name": v.case.name,
                "source": v.case.source,
                "status": v.status,
                "flows": v.case.flows,
                "counters_compared": list(v.counters_compared),
                "expected": None
                if not v.expected or not v.case.expected
                else {"commit": v.case.expected.commit, "reason": v.case.expected.reason},
                "differences": [
                    {
                        "frame": d.frame,
                        "frame_hex": v.case.frames[d.frame - 1].data.hex(),
                        "what": d.what,
                        "ovs": d.ovs,
                        "offlab": d.offlab,
                        "byte_diff": d.byte_diff,
                    }
                    for d in v.differences
                ],
            }
            for v in verdicts
        ],
        "unexplained": sum(v.unexplained for v in verdicts),
    }
