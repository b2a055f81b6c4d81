"""`offlab lab`: runs cases on the running kernel, predicts each with the
model, compares key by key, prints a table and optionally writes JSON."""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import sys
from dataclasses import dataclass, field

from .case import Case, ModelMissing, Result
from .model import Refused
from .nsutil import Lab, LabError, LabInterrupted, capability_problem, guard_signals, reap_stale

AGREE, DISAGREE, AWAIT, SKIP, ERROR = "agree", "DISAGREE", "await-model", "skip", "ERROR"
# A difference between the running kernel and the model run for another
# kernel (--kernel): expected, not a failure.
VERSION_DIFF = "version difference"


class LabUsageError(Exception):
    """Bad input to `offlab lab` (unknown case, bad version, no privileges)."""


@dataclass
class Outcome:
    case: Case
    observation: Result = field(default_factory=dict)
    prediction: Result | None = None
    verdict: str = AWAIT
    detail: str = ""
    diff: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {
            "case": self.case.name,
            "topology": self.case.topology,
            "description": self.case.desc,
            "rule": self.case.rule,
            "verdict": self.verdict,
            "detail": self.detail,
            "differences": self.diff,
            "observation": self.observation,
            "prediction": self.prediction,
        }


def running_kernel() -> str:
    m = re.match(r"(\d+)\.(\d+)", platform.release())
    return f"{m.group(1)}.{m.group(2)}" if m else platform.release()


def parse_kernel(text: str | None) -> object:
    """A model KernelVersion (the running kernel's by default)."""
    version = text or running_kernel()
    if not re.fullmatch(r"\d+\.\d+|rhel7(\.\d+)?", version):
        raise LabUsageError(f"not a kernel version: {version!r} (e.g. 6.18, 4.0, rhel7)")
    try:
        from offlab import _core

        return _core.kernel.parse_kernel_version(version)
    except AttributeError:
        return version  # no kernel model bound: predictions will await it
    except _core.OfflabError as e:
        raise LabUsageError(str(e)) from e


def select(registry: dict[str, Case], names: list[str]) -> list[Case]:
    if not names:
        return list(registry.values())
    topologies = {c.topology for c in registry.values()}
    out: list[Case] = []
    for n in names:
        if n in registry:
            out.append(registry[n])
        elif n in topologies:
            out.extend(c for c in registry.values() if c.topology == n)
        else:
            raise LabUsageError(f"unknown lab case or topology: {n} (offlab lab --list)")
    return list({c.name: c for c in out}.values())


def compare(case: Case, obs: Result, pred: Result) -> list[str]:
    """Keys whose values differ. A features case compares the features the
    model knows (the prediction's keys), and a feature the running kernel has
    no name for (e.g. tx-lockless, a flag since 6.12) can only be off; every
    other case compares all keys."""
    if case.topology == "features":
        keys = list(pred)
        obs = {**{k: "off" for k in pred if k not in obs}, **obs}
    else:
        keys = list(dict.fromkeys([*obs, *pred]))
    return [difference(k, obs.get(k), pred.get(k)) for k in keys if obs.get(k) != pred.get(k)]


def difference(key: str, kernel: str | None, model: str | None) -> str:
    """One differing value; for frames the skb states and the first
    differing byte, so the line stays short."""
    kp, mp = (kernel or "").split(" | "), (model or "").split(" | ")
    if len(kp) == 3 and len(mp) == 3:
        head = f"{key}: kernel {kp[0]} [{kp[1]}] / model {mp[0]} [{mp[1]}]"
        if kp[2] == mp[2]:
            return head + ", same bytes"
        a, b = bytes.fromhex(kp[2]), bytes.fromhex(mp[2])
        at = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
        return (f"{head}, bytes differ at {at} (len {len(a)} / {len(b)}): "
                f"{a[at:at + 8].hex()} / {b[at:at + 8].hex()}")  # fmt: skip
    return f"{key}: kernel {short(kernel)} / model {short(model)}"


def short(v: str | None) -> str:
    if v is None:
        return "<absent>"
    p = v.split(" | ")
    return f"{p[0]} [{p[1]}] {len(p[2]) // 2} bytes" if len(p) == 3 else v


def same_kernel(kv: object) -> bool:
    """Whether the model version is the running kernel's (major.minor)."""
    return str(kv) == running_kernel()


def run_case(case: Case, kv: object) -> Outcome:
    out = Outcome(case)
    missing = [b for b in case.needs if shutil.which(b) is None]
    if missing:
        out.verdict, out.detail = SKIP, f"needs {', '.join(missing)}"
        return out
    try:
        with Lab() as lab:
            out.observation = case.run(lab)
    except (LabError, OSError) as e:
        out.verdict, out.detail = ERROR, str(e)
        return out
    if case.predict is None:
        out.detail = "no prediction glue yet" if case.predict is None else "kernel model not built"
        return out
    try:
        out.prediction = case.predict(kv)
    except ModelMissing as e:
        out.detail = f"awaiting {e}"
        return out
    except Refused as e:
        # The model rejects an input the kernel took: a disagreement.
        out.prediction = {"model": f"refused: {e}"}
    except Exception as e:  # a binding raised: the prediction itself failed
        out.verdict, out.detail = ERROR, f"prediction failed: {type(e).__name__}: {e}"
        return out
    out.diff = compare(case, out.observation, out.prediction)
    if not out.diff:
        out.verdict = AGREE
    elif same_kernel(kv):
        out.verdict = DISAGREE
    else:
        out.verdict = VERSION_DIFF
        out.detail = f"model for {kv}, kernel {running_kernel()}"
    return out


def summary(r: Result | None) -> str:
    """A short line for the table: per capture point the skb states, then the
    non-zero counters."""
    if r is None:
        return "-"
    parts: list[str] = []
    for k, v in r.items():
        if k.endswith(".count"):
            point = k[: -len(".count")]
            states = [r[x].split(" | ")[0] for x in r if x.startswith(point + "[")]
            uniq = sorted(set(states), key=states.index)
            parts.append(f"{point}:{v}" + (f" {'/'.join(uniq)}" if uniq else ""))
        elif k.startswith("snmp ") and v != "0":
            parts.append(f"{k[5:]}={v}")
        elif k.startswith("ct state"):
            parts.append(f"{k.split()[2]}={v}")
    if not parts:
        on = sum(1 for v in r.values() if v == "on")
        parts.append(f"{on} features on" if on else f"{len(r)} values")
    return "; ".join(parts)


def table(outcomes: list[Outcome]) -> str:
    w = max([len(o.case.name) for o in outcomes] + [4])
    lines = [f"{'case':<{w}}  {'observation (kernel)':<44}  {'prediction (model)':<30}  verdict"]
    for o in outcomes:
        obs = summary(o.observation) if o.observation else "-"
        pred = summary(o.prediction) if o.prediction is not None else o.detail or "-"
        lines.append(f"{o.case.name:<{w}}  {obs[:44]:<44}  {pred[:30]:<30}  {o.verdict}")
        for d in o.diff[:6]:
            lines.append(f"{'':<{w}}    ! {d[:160]}")
        if o.verdict in (ERROR, SKIP, VERSION_DIFF):
            lines.append(f"{'':<{w}}    ! {o.detail}")
    return "\n".join(lines)


def list_cases(registry: dict[str, Case]) -> str:
    w = max(len(n) for n in registry)
    out = []
    for c in registry.values():
        out.append(f"{c.name:<{w}}  [{c.topology}] {c.desc}")
        out.append(f"{'':<{w}}    rule: {c.rule}")
    return "\n".join(out)


def run(args: argparse.Namespace) -> int:
    from . import load

    registry = load()
    if args.list:
        print(list_cases(registry))
        return 0
    cases = select(registry, args.cases)
    kv = parse_kernel(args.kernel)
    problem = capability_problem()
    if problem:
        raise LabUsageError(problem)
    reap_stale()
    outcomes = []
    with guard_signals():
        for c in cases:
            outcomes.append(run_case(c, kv))
            if args.verbose:
                o = outcomes[-1]
                for k, v in o.observation.items():
                    print(f"  {c.name} {k} = {v}", file=sys.stderr)
    note = "" if same_kernel(kv) else " (differences are version differences, not failures)"
    print(f"kernel {platform.release()}, model {kv}{note}")
    print(table(outcomes))
    verdicts = (AGREE, DISAGREE, VERSION_DIFF, AWAIT, SKIP, ERROR)
    counts = {v: sum(o.verdict == v for o in outcomes) for v in verdicts}
    print(", ".join(f"{n} {v}" for v, n in counts.items() if n))
    if args.json:
        tmp = args.json + ".tmp"
        with open(tmp, "w") as f:
            json.dump([o.to_json() for o in outcomes], f, indent=1)
        os.replace(tmp, args.json)
        print(f"results: {args.json}")
    return 1 if counts[DISAGREE] or counts[ERROR] else 0


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("cases", nargs="*", metavar="CASE", help="case or topology names (default all)")
    p.add_argument("--list", action="store_true", help="list the cases and the rules they check")
    p.add_argument("--json", metavar="FILE", help="write every observation and prediction")
    p.add_argument("--kernel", metavar="VERSION", help="model kernel (default: the running one)")
    p.add_argument("-v", "--verbose", action="store_true", help="print every observed value")


__all__ = ["LabInterrupted", "add_arguments", "run"]
