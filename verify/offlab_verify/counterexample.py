"""Counterexamples as pcapng: the received frame, the packet after every
operation, and what the NIC put on the wire, each with a JSON comment
(`offlab {...}`) holding the operation, the offloads word and tso_segsz, so
that Wireshark shows them and offlab's simulator and replayer can read them."""

from __future__ import annotations

import json
import os
import tempfile
import time
from dataclasses import dataclass

import dpkt

import offlab

from .abstraction import State
from .extract import Config, Extraction, apply


@dataclass
class Step:
    label: str
    frame: bytes
    offloads: int
    tso_segsz: int
    state: str


def replay(
    ex: Extraction, trace: list[tuple[str, State]], nic: offlab.NicTx | None, vnet: bool = False
) -> list[Step]:
    """Runs the trace again on a concrete witness of its initial state."""
    first = trace[0][1]
    w = ex.witnesses[first][0]
    pkt = w.packet.copy()
    steps = [Step("receive", w.origin, pkt.offloads.word, pkt.tso_segsz, first.describe())]
    state = first
    for op, expected in trace[1:]:
        if op == "send":
            assert nic is not None
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
                    frames, _ = offlab.nic_transmit(q, nic)
                for f in frames:
                    steps.append(
                        Step("wire", f.bytes(), q.offloads.word, q.tso_segsz, expected.describe())
                    )
            break
        q, nxt = apply(op, pkt, state, ex.config)
        if q is None:
            steps.append(
                Step(
                    f"{op}: dropped", pkt.bytes(), pkt.offloads.word, pkt.tso_segsz, nxt.describe()
                )
            )
            break
        pkt, state = q, nxt
        steps.append(Step(op, pkt.bytes(), pkt.offloads.word, pkt.tso_segsz, nxt.describe()))
    return steps


def write_pcapng(path: str, steps: list[Step], header: dict[str, str]) -> None:
    """Writes atomically: a half-written file never appears under `path`."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            writer = dpkt.pcapng.Writer(f, snaplen=262144)
            now = time.time()
            for i, s in enumerate(steps):
                comment = "offlab " + json.dumps(
                    {
                        "step": i,
                        "op": s.label,
                        "offloads": s.offloads,
                        "tso_segsz": s.tso_segsz,
                        "state": s.state,
                        **(header if i == 0 else {}),
                    }
                )
                epb = dpkt.pcapng.EnhancedPacketBlockLE(
                    pkt_data=s.frame,
                    pkt_len=len(s.frame),
                    cap_len=len(s.frame),
                    opts=[
                        dpkt.pcapng.PcapngOptionLE(
                            code=dpkt.pcapng.PCAPNG_OPT_COMMENT, text=comment.encode()
                        ),
                        dpkt.pcapng.PcapngOptionLE(code=dpkt.pcapng.PCAPNG_OPT_ENDOFOPT),
                    ],
                )
                writer.writepkt(epb, ts=now + i * 1e-6)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def read_comments(path: str) -> list[tuple[bytes, dict]]:
    """(frame, metadata) of every packet of an offlab pcapng."""
    out = []
    with open(path, "rb") as f:
        for _, buf in dpkt.pcapng.Reader(f):
            out.append((bytes(buf), {}))
    # dpkt's reader yields frames only; comments are read block by block.
    with open(path, "rb") as f:
        data = f.read()
    metas = []
    marker = b"offlab {"
    start = 0
    while (i := data.find(marker, start)) >= 0:
        end = data.find(b"}", i)
        depth, j = 0, i + len(b"offlab ")
        while j < len(data):
            if data[j : j + 1] == b"{":
                depth += 1
            elif data[j : j + 1] == b"}":
                depth -= 1
                if depth == 0:
                    end = j
                    break
            j += 1
        metas.append(json.loads(data[i + len(b"offlab ") : end + 1]))
        start = end + 1
    return [(frame, metas[k] if k < len(metas) else {}) for k, (frame, _) in enumerate(out)]


__all__ = ["Config", "Step", "read_comments", "replay", "write_pcapng"]
