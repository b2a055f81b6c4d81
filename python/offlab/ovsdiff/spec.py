"""One description of a bridge and the frames injected into it, run by both
sides of the differential harness (docs/ovs-diff.md has the file format).

A case file is YAML: one case (a mapping) or `cases: [...]`, e.g.

    name: conntrack dnat, packet continues after ct(table=0)
    source: openvswitch/ovs v3.1.0 tests/dpif-netdev.at:...
    ports:
      p1: {}
      p2: {options: {ol_ip_rx_csum_set_good: "true"}}
    flows:
      - in_port=p1,ip,ct_state=-trk,actions=ct(commit,nat(dst=192.168.1.1),table=0),p2
    frames:
      - {port: p1, hex: "0a8f394f..."}
    expected_difference:            # optional: OVS versions older than `before`
      before: "3.6.0"
      commit: 585c8088e             # the OVS commit that explains it
      reason: netdev-dummy has no ol_* receive options before it
      frames: [2]                   # the frames that differ (default: any)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import safeio
from .._core import OfflabError
from . import underlay as ul
from .underlay import UNDERLAY_BRIDGE, Tunnel, Underlay, UnderlayError

BRIDGE = "br0"  # the harness's bridge: no port may take its name
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,14}$")  # IFNAMSIZ - 1


class SpecError(ValueError):
    """A case description that cannot be run; the message is one line."""


@dataclass
class Port:
    name: str
    ofport: int
    options: dict[str, str] = field(default_factory=dict)


# Receive options a frame may set on its port for itself alone (as OVS's
# CHECK_FWD_PACKET does with `ovs-vsctl set interface` around one receive).
FRAME_OPTIONS = tuple(
    f"ol_{layer}_rx_csum_set_{status}"
    for layer in ("ip", "l4")
    for status in ("good", "bad", "partial")
)


@dataclass
class Frame:
    port: str
    data: bytes
    label: str = ""
    options: dict[str, str] = field(default_factory=dict)  # FRAME_OPTIONS only


@dataclass
class ExpectedDifference:
    """OVS versions before `before` differ from offlab here, for the reason the
    OVS commit `commit` explains."""

    before: tuple[int, ...]
    commit: str
    reason: str
    frames: tuple[int, ...] = ()  # 1-based frames that differ; () = the case as a whole


@dataclass
class Case:
    name: str
    ports: list[Port]
    flows: list[str]
    frames: list[Frame]
    source: str = ""
    expected: ExpectedDifference | None = None
    tunnels: list[Tunnel] = field(default_factory=list)
    underlay: Underlay | None = None

    def observed_ports(self) -> list[str]:
        """Every port whose frames are compared: the case's ports and the
        underlay's physical port."""
        return [p.name for p in self.ports] + ([self.underlay.port] if self.underlay else [])

    def port(self, name: str) -> Port:
        for p in self.ports:
            if p.name == name:
                return p
        raise SpecError(f"case '{self.name}': unknown port '{name}'")

    def expects_difference(self, version: tuple[int, ...]) -> ExpectedDifference | None:
        return self.expected if self.expected and version < self.expected.before else None


def _version(text: str, where: str) -> tuple[int, ...]:
    if not re.fullmatch(r"\d+(\.\d+)*", text):
        raise SpecError(f"{where}: 'before' must be a version like 3.4.0, got '{text}'")
    return tuple(int(x) for x in text.split("."))


def _frame(raw: Any, where: str) -> Frame:
    if not isinstance(raw, dict) or "port" not in raw or "hex" not in raw:
        raise SpecError(f"{where}: a frame needs 'port' and 'hex'")
    text = re.sub(r"\s+", "", str(raw["hex"]))
    try:
        data = bytes.fromhex(text)
    except ValueError as e:
        raise SpecError(f"{where}: not a hex frame ({e})") from e
    if len(data) < 14:
        raise SpecError(f"{where}: a frame needs at least an Ethernet header (14 bytes)")
    opts = {str(k): str(v).lower() for k, v in (raw.get("options") or {}).items()}
    for k in opts:
        if k not in FRAME_OPTIONS:
            raise SpecError(f"{where}: option '{k}' cannot be set per frame")
    return Frame(str(raw["port"]), data, str(raw.get("label", "")), opts)


def case_from_dict(raw: Any, where: str) -> Case:
    """Checks and converts one case; raises SpecError naming the problem."""
    if not isinstance(raw, dict):
        raise SpecError(f"{where}: a case is a mapping")
    unknown = set(raw) - {"name", "source", "ports", "flows", "frames", "expected_difference"}
    unknown -= {"tunnels", "underlay"}
    unknown.discard("notes")
    if unknown:
        raise SpecError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    name = str(raw.get("name") or where)
    ports: list[Port] = []
    raw_ports = raw.get("ports") or {}
    if not isinstance(raw_ports, dict) or not raw_ports:
        raise SpecError(f"{where}: 'ports' must map port names to settings")
    used: set[int] = set()
    names: set[str] = set()
    for pname, settings in raw_ports.items():
        pname = str(pname)
        settings = settings or {}
        _check_name(pname, names, where)
        ofport = _ofport(pname, settings, used, where)
        opts = {str(k): str(v).lower() if isinstance(v, bool) else str(v)
                for k, v in (settings.get("options") or {}).items()}  # fmt: skip
        for k in opts:
            if k in ("tx_pcap", "rx_pcap", "pcap", "stream", "pstream"):
                raise SpecError(f"{where}: port '{pname}': option '{k}' belongs to the harness")
        ports.append(Port(pname, ofport, opts))
    flows = [str(f) for f in (raw.get("flows") or [])]
    if not flows:
        raise SpecError(f"{where}: no flows")
    frames = [_frame(f, f"{where}: frame {i + 1}") for i, f in enumerate(raw.get("frames") or [])]
    if not frames:
        raise SpecError(f"{where}: no frames")
    tunnels, underlay = _tunnels(raw, names, used, flows, where)
    receiving = {p.name for p in ports} | ({underlay.port} if underlay else set())
    for i, fr in enumerate(frames):
        if fr.port not in receiving:
            what = "a tunnel port receives nothing" if fr.port in names else "unknown port"
            raise SpecError(f"{where}: frame {i + 1}: {what} '{fr.port}'")
        if underlay and fr.port == underlay.port:
            try:
                ul.check_underlay_frame(underlay, fr.data, f"{where}: frame {i + 1}")
            except UnderlayError as e:
                raise SpecError(str(e)) from None
    expected = None
    if raw.get("expected_difference"):
        e = raw["expected_difference"]
        if not isinstance(e, dict) or not {"before", "commit", "reason"} <= set(e):
            raise SpecError(f"{where}: expected_difference needs before, commit and reason")
        nums = tuple(int(n) for n in e.get("frames") or ())
        if any(n < 1 or n > len(frames) for n in nums):
            raise SpecError(f"{where}: expected_difference names a frame the case lacks")
        expected = ExpectedDifference(
            _version(str(e["before"]), where), str(e["commit"]), str(e["reason"]), nums
        )
    return Case(
        name, ports, flows, frames, str(raw.get("source", "")), expected, tunnels, underlay
    )


def _check_name(name: str, names: set[str], where: str) -> None:
    if name in (BRIDGE, UNDERLAY_BRIDGE):
        raise SpecError(f"{where}: port name '{name}' clashes with the harness's bridge")
    if not _NAME.match(name) or name.isdigit():
        raise SpecError(f"{where}: port name '{name}' is not a valid interface name")
    if name.lower() in ("local", "normal", "flood", "all", "in_port", "controller", "none"):
        raise SpecError(f"{where}: port name '{name}' clashes with an OpenFlow port keyword")
    if name in names:
        raise SpecError(f"{where}: port name '{name}' used twice")
    names.add(name)


def _ofport(name: str, settings: dict[str, Any], used: set[int], where: str) -> int:
    ofport = int(settings.get("ofport", 0)) or next(n for n in range(1, 65280) if n not in used)
    if ofport in used:
        raise SpecError(f"{where}: port '{name}': ofport {ofport} already in use")
    used.add(ofport)
    return ofport


# Output actions that reach every port of offlab's one bridge, which holds the
# underlay's physical port too (OVS's reach only the tunnel ports' bridge).
_FLOODING = re.compile(r"(^|[,:=(])\s*(normal|flood|all)\s*($|[,)])", re.IGNORECASE)


def _tunnels(
    raw: dict[str, Any], names: set[str], used: set[int], flows: list[str], where: str
) -> tuple[list[Tunnel], Underlay | None]:
    """The case's tunnel ports and underlay, checked (underlay.py)."""
    try:
        underlay = ul.underlay_from_dict(raw["underlay"], where) if "underlay" in raw else None
        tunnels: list[Tunnel] = []
        raw_tunnels = raw.get("tunnels") or {}
        if not isinstance(raw_tunnels, dict):
            raise SpecError(f"{where}: 'tunnels' must map port names to settings")
        for tname, settings in raw_tunnels.items():
            _check_name(str(tname), names, where)
            ofport = _ofport(str(tname), settings or {}, used, where)
            tunnels.append(ul.tunnel_from_dict(str(tname), ofport, settings, where))
        if underlay:
            _check_name(underlay.port, names, where)
        ul.check(underlay, tunnels, where)
    except UnderlayError as e:
        raise SpecError(str(e)) from None
    if underlay:
        for f in flows:
            actions = f.split("actions=", 1)[-1]
            if _FLOODING.search(actions):
                raise SpecError(
                    f"{where}: flow '{f}': NORMAL, FLOOD and ALL are not modelled with an "
                    "underlay (offlab's one bridge holds the physical port too)"
                )
    return tunnels, underlay


def load(path: str | Path) -> list[Case]:
    """Every case in a case file; raises SpecError (one line) or OSError."""
    path = Path(path)
    try:
        # Case files travel with bug reports: bounded, alias-free YAML (docs/security.md).
        raw = safeio.load_yaml(path, "case file")
    except OfflabError as e:
        raise SpecError(str(e)) from None
    if isinstance(raw, dict) and "cases" in raw:
        items = raw["cases"]
        if not isinstance(items, list):
            raise SpecError(f"{path}: 'cases' must be a list")
        return [case_from_dict(c, f"{path}: case {i + 1}") for i, c in enumerate(items)]
    return [case_from_dict(raw, str(path))]


def builtin_dir() -> Path:
    return Path(__file__).parent / "cases"


def builtin_cases() -> list[Case]:
    """The cases shipped with offlab: OVS testsuite cases, named by source."""
    out: list[Case] = []
    for f in sorted(builtin_dir().glob("*.yaml")):
        out.extend(load(f))
    return out
