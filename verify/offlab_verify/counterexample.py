"""Counterexamples as offlab traces (docs/trace-format.md): the received frame,
the packet after every operation (``step`` records), the packet handed to the
egress (a ``tx`` record that hw-replay replays) and what the NIC put on the wire
(``wire`` records), each with a JSON comment (`offlab {...}`) holding the
operation, the offloads word, tso_segsz and the coverage counters it moved, so
that Wireshark shows them and
offlab's simulator and replayer can read them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import offlab
from offlab import trace as trace_format

from .abstraction import State
from .extract import Extraction
from .operations import Config, apply_counted
from .receive import RX_OPS, apply_rx
from .witnesses import Witness


@dataclass
class Step:
    label: str
    frame: bytes
    offloads: int
    tso_segsz: int
    state: str
    role: str = "step"
    # tx records: the layer offsets of the packet (trace.offsets).
    ofs: dict[str, int | None] = field(default_factory=dict)
    # The coverage counters the operation moved (OVS lib/coverage.h names).
    counters: dict[str, int] = field(default_factory=dict)


def witness_trace(ex: Extraction, trace: list[tuple[str, State]]) -> list[tuple[str, State]]:
    """The trace as the directed witness behind its first ``op@corner``
    transition went: that witness may have reached the state by another
    path than the shortest one, and the value it carries is the path's
    result. Unchanged when the trace has no such transition."""
    k = next((i for i, (op, _) in enumerate(trace) if i and "@" in op), None)
    if k is None:
        return trace
    tag, here = trace[k][0].split("@", 1)[1], trace[k - 1][1]
    w = next((x for x in ex.witnesses.get(here, []) if x.corner == tag), None)
    if w is None:
        return trace
    # The same frame starts in one initial state per status claim: the one
    # whose path under the witness's labels ends here is its own.
    for start in sorted(ex.init):
        if not any(x.origin == w.origin and x.corner == tag for x in ex.witnesses[start]):
            continue
        out, cur = [("receive", start)], start
        for label in w.ops:
            cur = ex.trans.get((cur, label))  # type: ignore[assignment]
            if cur is None:
                break
            out.append((label, cur))
        if cur == here:
            return out + trace[k:]
    return trace


def replay(
    ex: Extraction,
    trace: list[tuple[str, State]],
    nic: offlab.NicTx | None,
    vnet: bool = False,
    profile: offlab.NicProfile | None = None,
) -> list[Step]:
    """Runs the trace again on a concrete witness of its initial state
    (`profile`: the receiving NIC of `rx` and `gro` steps)."""
    first = trace[0][1]
    # A trace through a directed witness's own transition (op@corner) starts
    # from that corner's witness, as the value it was solved for is the point.
    tags = [op.split("@", 1)[1] for op, _ in trace[1:] if "@" in op]
    ws = ex.witnesses[first]
    w = next((x for x in ws if tags and x.corner == tags[0] and not x.ops), ws[0])
    pkt = w.packet.copy()
    steps = [Step("receive", w.origin, pkt.offloads.word, pkt.tso_segsz, first.describe())]
    state = first
    for label, expected in trace[1:]:
        op = label.split("@", 1)[0]
        if op == "send":
            assert nic is not None
            sent = Step(
                "send",
                pkt.bytes(),
                pkt.offloads.word,
                pkt.tso_segsz,
                state.describe(),
                role="tx",
                ofs=trace_format.offsets(pkt),
            )
            steps.append(sent)
            ready, errors = offlab.netdev_send([pkt.copy()], nic.caps)
            for e in errors:
                steps.append(
                    Step(
                        f"send: dropped ({e})",
                        pkt.bytes(),
                        pkt.offloads.word,
                        0,
                        expected.describe(),
                    )
                )
            for q in ready:
                if vnet:
                    # A tap: the kernel finishes what the vnet header asks for.
                    offlab.vnet_complete(q, offlab.vnet_transmit(q))
                    frames = [q]
                else:
                    try:
                        frames, _ = offlab.nic_transmit(q, nic)
                    except offlab.OfflabError as e:
                        steps.append(
                            Step(
                                f"send: the NIC cannot finish it ({e})",
                                q.bytes(),
                                q.offloads.word,
                                q.tso_segsz,
                                expected.describe(),
                            )
                        )
                        continue
                for f in frames:
                    steps.append(
                        Step(
                            "wire",
                            f.bytes(),
                            q.offloads.word,
                            q.tso_segsz,
                            expected.describe(),
                            role="wire",
                        )
                    )
            break
        if op in RX_OPS:
            assert profile is not None
            q, nxt = apply_rx(op, Witness(pkt, w.origin, ()), state, profile)
            counts: dict[str, int] = {}
        else:
            q, nxt, counts = apply_counted(op, pkt, state, ex.config)
        if q is None:
            steps.append(
                Step(
                    f"{op}: dropped",
                    pkt.bytes(),
                    pkt.offloads.word,
                    pkt.tso_segsz,
                    nxt.describe(),
                    counters=counts,
                )
            )
            break
        pkt, state = q, nxt
        steps.append(
            Step(
                label,
                pkt.bytes(),
                pkt.offloads.word,
                pkt.tso_segsz,
                nxt.describe(),
                counters=counts,
            )
        )
    return steps


def to_records(steps: list[Step], header: dict[str, str]) -> list[trace_format.Record]:
    """The steps as trace records; wire records point at the tx record before them."""
    records = []
    tx_index: int | None = None
    for i, s in enumerate(steps):
        meta: dict[str, Any] = {
            "role": s.role,
            "step": i,
            "op": s.label,
            "offloads": s.offloads,
            "tso_segsz": s.tso_segsz,
            "state": s.state,
        }
        if s.counters:
            meta["counters"] = s.counters
        if s.role == "tx":
            tx_index = i
            meta["ofs"] = s.ofs
            meta["mbuf"] = trace_format.mbuf_lengths(s.frame, s.offloads, s.ofs)
        elif s.role == "wire":
            if tx_index is not None:
                meta["of"] = tx_index
            if "profile" in header:
                meta["profile"] = header["profile"]
            meta["csum"] = trace_format.csum_verdicts(s.frame)
        if i == 0:
            meta.update(header)
        records.append(trace_format.Record(s.frame, meta))
    return records


def write_pcapng(path: str, steps: list[Step], header: dict[str, str]) -> None:
    """Writes atomically: a half-written file never appears under `path`."""
    trace_format.write(path, to_records(steps, header))


def read_comments(path: str) -> list[tuple[bytes, dict]]:
    """(frame, metadata) of every packet of an offlab pcapng."""
    return [(r.frame, r.meta) for r in trace_format.read(path)]


__all__ = ["Config", "Step", "read_comments", "replay", "to_records", "write_pcapng"]
