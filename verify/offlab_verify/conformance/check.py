"""Runs one case through the core and checks every abstract transition it
takes against the exported relation. The abstract states come from the
verifier's own abstraction (abstraction.abstract/wire, the independent
dissector's verdicts) and the operations are the extraction's own
(extract.step, receive.rx_step, operations.send), so nothing here is a second
copy of either: what differs from the relation is a transition no witness of
the extraction exercised."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field

import offlab
from offlab import trace as trace_format

from ..abstraction import DATAPATH, State
from ..counterexample import Step, to_records
from ..extract import step
from ..operations import DATAPATH_OPS, VNET_DRIVERS, Config, _enabled, send
from ..receive import RX_OPS, arriving, enabled, rx_step
from ..relation import Relation
from ..witness_files import witness_meta
from ..witnesses import Witness, received
from .cases import Case


@dataclass
class Finding:
    """A transition the core takes that the relation does not have."""

    op: str
    before: State
    after: State
    expected: State | None  # the relation's successor (None: none at all)
    profile: str
    config: str
    case: Case
    steps: list[Step] = field(default_factory=list)

    def line(self) -> str:
        said = (
            f"the relation has [{self.expected.describe()}]"
            if self.expected is not None
            else "the relation has no such transition"
        )
        if self.op == "start":
            return (
                f"abstraction unsound: initial state [{self.after.describe()}] on "
                f"{self.profile} ({self.config}) is not one the extraction starts from"
            )
        return (
            f"abstraction unsound: {self.op} from [{self.before.describe()}] on {self.profile} "
            f"({self.config}) goes to [{self.after.describe()}]; {said}"
        )


class Checker:
    """Checks cases against one relation; the faults it was extracted with must be on."""

    def __init__(self, rel: Relation, profiles: list[offlab.NicProfile]) -> None:
        self.rel = rel
        self.profiles = profiles
        self.nics = [offlab.NicTx.from_profile(p) for p in profiles]

    def run(self, case: Case) -> Finding | None:
        st = self.rel.settings[case.setting]
        prof = self.profiles[case.profile]
        cfg = Config(csum=st.csum)
        w = case.frame
        if case.start == "arriving":
            s = arriving(w)
            pkt = offlab.Packet(w.frame)
            known = st.arriving
        else:
            pkt, s = received(w, *case.claims)
            known = st.initial
        steps = [Step("receive", w.frame, pkt.offloads.word, pkt.tso_segsz, s.describe())]
        if s not in known:
            return Finding("start", s, s, None, prof.name, st.config, case, steps)
        for pick in case.ops:
            ops = self._enabled(s, prof)
            if not ops:
                return None
            op = ops[pick % len(ops)]
            if op == "send":
                q, t = None, send(pkt, s, self.nics[case.profile], prof.driver in VNET_DRIVERS)
            elif op in RX_OPS:
                q, t = rx_step(op, Witness(pkt, w.frame, ()), s, prof)
            else:
                q, t = step(op, pkt, s, cfg)
            if q is not None:
                steps.append(Step(op, q.bytes(), q.offloads.word, q.tso_segsz, t.describe()))
            # A directed witness's op@corner successor is the relation's too.
            # A step that leaves the abstract state as it was (a set action
            # writing the value a field already holds changes nothing) is no
            # transition the proofs need: every property is the reachability
            # of a bad state, and a state reaches nothing new by staying put.
            want, allowed = st.successors(prof.name, s, op)
            if t not in allowed and t != s:
                return Finding(op, s, t, want, prof.name, st.config, case, steps)
            if q is None or t.phase != DATAPATH or t.v_premise:
                return None
            pkt, s = q, t
        return None

    @staticmethod
    def _enabled(s: State, prof: offlab.NicProfile) -> list[str]:
        out = [op for op in RX_OPS if enabled(op, s, prof)]
        out += [op for op in DATAPATH_OPS if _enabled(op, s)]
        if s.phase == DATAPATH and not s.v_premise and s.parsed:
            out.append("send")
        return out


def write_witness(f: Finding, folder: str, faults: list[str]) -> str:
    """The finding as an offlab trace whose first record is a witness file
    (witness_files): the packet as it entered, then after each operation."""
    c = f.case
    digest = hashlib.sha1(c.frame.frame + repr(c).encode(), usedforsecurity=False).hexdigest()
    name = f"unsound-{f.profile}-{f.config.replace('=', '-')}-{f.op}-{digest[:10]}.pcapng"
    path = os.path.join(folder, name)
    header = {
        **witness_meta(c.start, c.frame.encap, c.claims, c.frame.segsz),
        "profile": f.profile,
        "config": f.config,
        "faults": ",".join(faults),
        "finding": f.line(),
    }
    trace_format.write(path, to_records(f.steps, header))
    return path
