"""``offlab replay kernel-tap``: a trace through the Linux kernel's TAP device
with virtio-net headers, the path of an OVS netdev-linux tap port (the `tap`
profile; docs/hw-replay.md, "Through the kernel TAP device").

Topology (one throw-away network namespace pair, lab/topology.py ``tap``):

  ns a: t0 = TAP opened IFF_TAP|IFF_NO_PI|IFF_VNET_HDR, TUNSETVNETHDRSZ 10,
        TUNSETOFFLOAD as netdev-linux requests for the profile; t0 and a0 are
        ports of bridge br0 (learning off: every frame floods to the other port)
  ns b: b0, a0's veth peer, read with AF_PACKET sockets

Transmit: for each tx record, the core's header+frame pairs
(kernel_tap_predict.written) are written to t0; the frames b0 receives are
compared byte for byte with the `tap` profile's prediction and with the
kernel model's. a0 has no checksum offload and no TSO, so the kernel
completes NEEDS_CSUM and segments GSO frames before veth_xmit; b0 has rx-gro
off, so nothing is merged again before its capture.

Receive: the frames b0 received are sent back from b0 in one burst; a0 (rx-gro
on, gro_flush_timeout set) may merge them, the bridge forwards them to t0, and
the header and bytes read from t0 are compared with the kernel model's.
"""

from __future__ import annotations

import fcntl
import struct
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from . import _core
from . import kernel_tap_predict as KP
from . import trace as trace_format
from .closing import Closing
from .lab import topology as T
from .lab.cases_gro import FLUSH_TIMEOUT_NS, burst
from .lab.nsutil import Lab, run
from .lab.observe import Capture, VnetHdr
from .lab.traffic import Sender

TUNSETVNETHDRSZ = 0x400454D8  # _IOW('T', 216, int), include/uapi/linux/if_tun.h
# The devices' own addresses (lab/topology.py): frames they send themselves
# are not the trace's.
OWN_MACS = {
    bytes.fromhex(m.replace(":", ""))
    for m in (T.MAC_A, T.MAC_B, T.MAC_T, "02:00:00:00:00:0d", "02:00:00:00:00:0e")
}


def unavailable() -> str | None:
    """Why the kernel TAP path cannot be run here, or None."""
    from .tap_port import unavailable as tap_unavailable

    why = tap_unavailable()
    if why is None and not hasattr(_core, "kernel"):
        why = "the package has no kernel model (offlab._core.kernel)"
    return why


def _ours(frame: bytes) -> bool:
    return len(frame) >= 12 and frame[6:12] not in OWN_MACS


class KernelTapPort(Closing):
    """The topology above; a context manager that removes it all on exit."""

    def __init__(self, tun_f: int) -> None:
        self.tun_f = tun_f
        self.lab = Lab()
        try:
            t = T.tap(self.lab, offloads=tun_f, a_features=KP.A0_FEATURES,
                      b_features=KP.B0_FEATURES)  # fmt: skip
            assert t.tap is not None
            self.tap = t.tap
            fcntl.ioctl(self.tap.fd, TUNSETVNETHDRSZ, struct.pack("i", KP.VNET_HDR_SZ))
            for dev in ("t0", "a0"):
                run(["bridge", "-n", t.a.name, "link", "set", "dev", dev, "learning", "off"])
            run(["ip", "netns", "exec", t.a.name, "sh", "-c",
                 f"echo {FLUSH_TIMEOUT_NS} > /sys/class/net/a0/gro_flush_timeout"])  # fmt: skip
            self.capture = Capture(t.b, "b0")
            self.lab.on_close(self.capture.close)
            self.sender = Sender(self.lab, t.b, "b0")
            self.namespaces = [t.a.name, t.b.name]
            time.sleep(0.05)  # let the links' own start-up frames pass
            self.capture.clear()
            self.tap.read(wait=0)
        except BaseException:
            self.close()
            raise

    def transmit(self, writes: Sequence[KP.Written]) -> list[bytes]:
        """Writes header+frame pairs to t0; returns the frames b0 received."""
        self.capture.clear()
        for w in writes:
            self.tap.write(w.frame, w.hdr)
        return [f.data for f in self.capture.frames() if not f.outgoing and _ours(f.data)]

    def receive(self, frames: Sequence[bytes]) -> list[tuple[VnetHdr, bytes]]:
        """Sends frames from b0 in one burst; returns what reads of t0 give."""
        self.tap.read(wait=0)
        burst(self.sender, list(frames))
        return [(h, d) for h, d in self.tap.read() if _ours(d)]

    def close(self) -> None:
        self.lab.close()



@dataclass
class Row:
    """One mismatch: frame (1-based), what differs, expected and actual."""

    frame: int
    what: str
    expected: str
    actual: str


@dataclass
class Result:
    """One trace's replay."""

    path: Path
    writes: list[KP.Written] = field(default_factory=list)
    wire: list[bytes] = field(default_factory=list)
    reads: list[tuple[VnetHdr, bytes]] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)


def describe(frame: bytes | None) -> str:
    """Length and every checksum's verdict, as hw-replay's table shows them."""
    if frame is None:
        return "-"
    v = trace_format.csum_verdicts(frame)
    return f"{len(frame)} B " + " ".join(f"{k}:{s}" for k, s in v.items())


def first_difference(a: bytes, b: bytes) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y),
                min(len(a), len(b)))  # fmt: skip


def compare_frames(what: str, want: list[bytes], got: list[bytes]) -> list[Row]:
    rows = []
    for i in range(max(len(want), len(got))):
        w = want[i] if i < len(want) else None
        g = got[i] if i < len(got) else None
        if w == g:
            continue
        if g is None:
            rows.append(Row(i + 1, f"frame ({what})", describe(w), "not received"))
        elif w is None:
            rows.append(Row(i + 1, f"frame ({what})", "-", "unexpected " + describe(g)))
        else:
            at = first_difference(w, g)
            rows.append(Row(i + 1, f"bytes ({what}, first difference at {at})", describe(w),
                            describe(g)))  # fmt: skip
    return rows


def compare_reads(want: list[tuple[VnetHdr, bytes]], got: list[tuple[VnetHdr, bytes]]) -> list[Row]:
    rows = []
    for i in range(max(len(want), len(got))):
        w = want[i] if i < len(want) else None
        g = got[i] if i < len(got) else None
        if w is None or g is None:
            rows.append(Row(i + 1, "tap read", w[0].summary() if w else "-",
                            g[0].summary() if g else "not read"))  # fmt: skip
            continue
        if w[0] != g[0]:
            rows.append(Row(i + 1, "tap read vnet header", _hdr_text(w[0]), _hdr_text(g[0])))
        if w[1] != g[1]:
            at = first_difference(w[1], g[1])
            rows.append(Row(i + 1, f"tap read bytes (first difference at {at})",
                            describe(w[1]), describe(g[1])))  # fmt: skip
    return rows


def _hdr_text(h: VnetHdr) -> str:
    return f"{h.summary()} hdr_len={h.hdr_len}"


def replay_one(
    port: KernelTapPort,
    path: Path,
    profile: _core.NicProfile,
    kv: object,
    inject: Iterable[str] = (),
    reverse: bool = True,
) -> Result:
    """Replays one trace: every tx record forward, then the frames back."""
    res = Result(path)
    for rec in trace_format.read(path):
        if rec.role != "tx":
            continue
        with KP.faults(inject):
            writes = KP.written(rec, profile)
        want = KP.profile_wire(rec, profile)
        model = KP.model_wire(KP.written(rec, profile), kv)
        got = port.transmit(writes)
        base = len(res.wire)
        for r in compare_frames(profile.name, want, got) + compare_frames("kernel model", model,
                                                                          got):  # fmt: skip
            r.frame += base
            res.rows.append(r)
        res.writes += writes
        res.wire += got
    if reverse and res.wire:
        res.reads = port.receive(res.wire)
        res.rows += compare_reads(KP.model_reverse(res.wire, port.tun_f, kv), res.reads)
    return res


def replay(
    paths: Sequence[Path | str],
    profile: str = "tap",
    inject: Iterable[str] = (),
    reverse: bool = True,
) -> list[Result]:
    """Replays traces through one kernel TAP topology; raises OfflabError for
    bad input or a machine that cannot run it."""
    why = unavailable()
    if why is not None:
        raise _core.OfflabError(f"kernel-tap replay: {why}")
    names = list(inject)
    known = set(_core.fault_names())
    for n in names:
        if n not in known:
            raise _core.OfflabError(f"unknown fault {n!r} (offlab faults lists them)")
    prof = _core.builtin_profile(profile)
    for p in paths:
        try:
            trace_format.read(p)
        except trace_format.TraceError as e:
            raise _core.OfflabError(str(e)) from None
    kv = KP.kernel_version()
    with KernelTapPort(KP.tun_offloads(prof)) as port:
        return [replay_one(port, Path(p), prof, kv, names, reverse) for p in paths]


def report(results: Sequence[Result], profile: str) -> str:
    """The text `offlab replay kernel-tap` prints."""
    lines = []
    for r in results:
        gso = sum(1 for w in r.writes if w.hdr.gso_type)
        csum = sum(1 for w in r.writes if w.hdr.flags & 1)
        lines.append(f"{r.path.name}: wrote {len(r.writes)} frames to the TAP ({csum} NEEDS_CSUM, "
                     f"{gso} GSO); {len(r.wire)} frames on the veth; {len(r.reads)} TAP reads "
                     "back")  # fmt: skip
        if not r.rows:
            lines.append(f"  all {len(r.wire)} frames and {len(r.reads)} reads match "
                         f"({profile} profile and kernel model)")  # fmt: skip
            continue
        lines.append(f"  {'frame':>5}  {'what':<50} {'expected':<40} actual")
        for row in r.rows:
            lines.append(f"  {row.frame:>5}  {row.what:<50} {row.expected:<40} {row.actual}")
    bad = sum(len(r.rows) for r in results)
    lines.append(f"kernel-tap: {len(results)} traces, {bad} mismatches")
    return "\n".join(lines)


def run_cli(traces: Sequence[str], profile: str | None, inject: Sequence[str],
            reverse: bool) -> int:  # fmt: skip
    from .lab.nsutil import guard_signals

    with guard_signals():
        results = replay(traces, profile or "tap", inject, reverse)
    print(report(results, profile or "tap"))
    return 1 if any(r.rows for r in results) else 0


__all__ = ["KernelTapPort", "Result", "Row", "replay", "report", "run_cli", "unavailable"]
