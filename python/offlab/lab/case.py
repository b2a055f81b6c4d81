"""A lab case: one kernel behaviour, run on the real kernel and predicted by
the model, as two flat dicts of strings compared key by key."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import observe
from .frames import checksum
from .nsutil import Lab, Netns
from .observe import Capture, Frame

Result = dict[str, str]


class ModelMissing(Exception):
    """The model piece a prediction needs is not bound (yet)."""


@dataclass
class Case:
    name: str
    topology: str  # veth | vxlan | vxlan6 | tap | features | conntrack
    desc: str
    rule: str  # the kernel source the behaviour comes from
    run: Callable[[Lab], Result]
    predict: Callable[[object], Result] | None = None  # (KernelVersion) -> Result
    needs: tuple[str, ...] = ()  # binaries beyond iproute2 (e.g. "nft")
    # The path the case runs (a function of (lab, **inputs)) and its inputs:
    # the prediction for the path gets the same inputs (predict.py).
    path: Callable[..., Result] | None = None
    inputs: dict[str, Any] = field(default_factory=dict)


REGISTRY: dict[str, Case] = {}


def case(name: str, topology: str, desc: str, rule: str, needs: tuple[str, ...] = ()
         ) -> Callable[[Callable[[Lab], Result]], Callable[[Lab], Result]]:  # fmt: skip
    def deco(fn: Callable[[Lab], Result]) -> Callable[[Lab], Result]:
        if name in REGISTRY:
            raise ValueError(f"duplicate lab case {name}")
        REGISTRY[name] = Case(name, topology, desc, rule, fn, needs=needs)
        return fn

    return deco


def path_case(name: str, topology: str, desc: str, rule: str, path: Callable[..., Result],
              needs: tuple[str, ...] = (), **inputs: Any) -> None:  # fmt: skip
    """Registers a case that runs `path(lab, **inputs)`; its prediction is the
    model's composition for that path with the same inputs."""
    if name in REGISTRY:
        raise ValueError(f"duplicate lab case {name}")
    REGISTRY[name] = Case(name, topology, desc, rule, lambda lab: path(lab, **inputs),
                          needs=needs, path=path, inputs=inputs)  # fmt: skip


def prediction(name: str) -> Callable[[Callable[[object], Result]], Callable[[object], Result]]:
    def deco(fn: Callable[[object], Result]) -> Callable[[object], Result]:
        REGISTRY[name].predict = fn
        return fn

    return deco


def frame_text(vnet: str, aux: str, data: bytes) -> str:
    return f"{vnet} | {aux} | {data.hex()}"


@dataclass
class Recorder:
    """Collects one case's observation under stable keys."""

    lab: Lab
    out: Result = field(default_factory=dict)
    caps: dict[str, Capture] = field(default_factory=dict)

    def capture(self, ns: Netns, dev: str) -> Capture:
        c = Capture(ns, dev)
        self.lab.on_close(c.close)
        self.caps[dev] = c
        return c

    def frames(self, dev: str, direction: str, frames: list[Frame] | None = None,
               tunnel: bool = False) -> None:  # fmt: skip
        """Records the frames seen on `dev` in one direction ("in" / "out").
        IPv6 control traffic (ICMPv6: MLD, ND) is left out. `tunnel`: the
        outer IPv4 ID, which the kernel picks at random, is normalised."""
        got = self.caps[dev].frames() if frames is None else frames
        sel = [f for f in got if f.outgoing == (direction == "out") and not is_ipv6_control(f.data)]
        self.out[f"{dev}.{direction}.count"] = str(len(sel))
        for i, f in enumerate(sel):
            vnet = f.vnet.summary() if f.vnet else "vnet-refused"
            data = normalize_ipv4_id(f.data) if tunnel else f.data
            self.out[f"{dev}.{direction}[{i}]"] = frame_text(vnet, f.aux(), data)

    def counters(self, before: dict[str, int], ns: Netns, names: list[str]) -> None:
        delta = observe.snmp_delta(before, observe.snmp(ns))
        for n in names:
            self.out[f"snmp {n}"] = str(delta.get(n, 0))


def is_ipv6_control(frame: bytes) -> bool:
    """Control traffic the namespaces make on their own: multicast frames
    (IGMP and MLD reports of a bridge) and IPv6 frames whose next header is
    ICMPv6 (58) or hop-by-hop (0, MLD). No case sends any of these."""
    if len(frame) >= 1 and frame[0] & 1:
        return True
    return len(frame) >= 21 and frame[12:14] == b"\x86\xdd" and frame[20] in (0, 58)


def normalize_ipv4_id(frame: bytes) -> bytes:
    """Sets the outer IPv4 ID to 0 and re-derives the header checksum, but only
    when that checksum was right (so a wrong one still shows). Tunnel
    transmit picks the outer ID with __ip_select_ident even with DF set
    (net/ipv4/ip_tunnel_core.c iptunnel_xmit), so it is not reproducible."""
    if len(frame) < 34 or frame[12:14] != b"\x08\x00" or frame[14] != 0x45:
        return frame
    hdr = bytearray(frame[14:34])
    if checksum(bytes(hdr)) != 0:
        return frame
    hdr[4:6] = b"\0\0"
    hdr[10:12] = b"\0\0"
    hdr[10:12] = checksum(bytes(hdr)).to_bytes(2, "big")
    return frame[:14] + bytes(hdr) + frame[34:]


def predicted_frames(dev: str, direction: str, frames: list[tuple[str, str, bytes]]) -> Result:
    """The Recorder.frames keys for model-predicted (vnet summary, aux, bytes)."""
    out = {f"{dev}.{direction}.count": str(len(frames))}
    for i, (vnet, aux, data) in enumerate(frames):
        out[f"{dev}.{direction}[{i}]"] = frame_text(vnet, aux, data)
    return out
