"""Runs a case through a real ovs-vswitchd in an OvsSandbox: the bridge is made
anew for every case (one daemon serves many cases), flows go in through
ovs-ofctl, frames through `netdev-dummy/receive`, and what each port sent is
read back from its tx_pcap."""

from __future__ import annotations

import os
import struct
from pathlib import Path

from .result import COUNTERS, CaseResult, FrameResult
from .sandbox import OvsSandbox, OvsSandboxError
from .spec import BRIDGE, Case, SpecError
from .underlay import UNDERLAY_BRIDGE, Underlay


class FlowRejected(SpecError):
    """The real OVS refused a flow of the case."""


class _PcapTail:
    """Reads the records appended to a libpcap file since the last read
    (netdev-dummy writes and flushes one per transmitted packet:
    openvswitch/ovs v3.1.0 lib/netdev-dummy.c netdev_dummy_send)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.offset = 24  # the global header

    def read_new(self) -> list[bytes]:
        out: list[bytes] = []
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read()
        except FileNotFoundError:
            return out
        pos = 0
        while pos + 16 <= len(data):
            incl = struct.unpack_from("<I", data, pos + 8)[0]
            if pos + 16 + incl > len(data):
                break
            out.append(data[pos + 16 : pos + 16 + incl])
            pos += 16 + incl
        self.offset += pos
        return out


class RealOvs:
    """One sandbox, many cases."""

    def __init__(self, sandbox: OvsSandbox) -> None:
        self.sb = sandbox
        self.counters = tuple(c for c in COUNTERS if sandbox.counter(c) is not None)
        self._n = 0
        self._routes: list[str] = []  # routes the last case added (the table is global)

    @property
    def version(self) -> tuple[int, ...]:
        return self.sb.install.version_tuple()

    def _build(self, case: Case) -> dict[str, _PcapTail]:
        self._n += 1
        # The bridge goes in a transaction of its own: ovs-vswitchd keeps a
        # bridge whose name stays in the database (with its MAC table,
        # datapath flows and recirculation ids), so a case starts afresh only
        # if it is gone first (vswitchd/bridge.c add_del_bridges()).
        self.sb.vsctl("--if-exists", "del-br", BRIDGE)
        self.sb.vsctl("--if-exists", "del-br", UNDERLAY_BRIDGE)
        self._clear_underlay_state()
        args = ["--", "add-br", BRIDGE, "--", "set", "bridge", BRIDGE]
        args += ["datapath_type=dummy", "fail-mode=secure"]
        tails: dict[str, _PcapTail] = {}
        for p in case.ports:
            args += self._dummy_port(BRIDGE, p.name, p.ofport, tails)
            args += [f"options:{k}={v}" for k, v in sorted(p.options.items())]
        for t in case.tunnels:
            args += ["--", "add-port", BRIDGE, t.name, "--", "set", "interface", t.name]
            args += [f"type={t.type}", f"ofport_request={t.ofport}"]
            args += [f"options:{k}={v}" for k, v in t.ovs_options().items()]
        if case.underlay:
            args += self._underlay_bridge(case.underlay, tails)
        self.sb.vsctl(*args)
        listing = self.sb.vsctl(
            "--format=csv", "--no-headings", "--columns=name,ofport", "list", "interface"
        )
        given = dict(line.split(",", 1) for line in listing.split())
        for name, ofport in [(p.name, p.ofport) for p in case.ports] + [
            (t.name, t.ofport) for t in case.tunnels
        ]:
            # ofport_request is a request: OVS may have given another number.
            got = given.get(name)
            if got != str(ofport):
                raise SpecError(f"port {name}: OVS gave ofport {got}, not {ofport}")
        if case.underlay:
            self._underlay_state(case.underlay)
        self.sb.appctl("dpctl/flush-conntrack")
        self.sb.ofctl("del-flows", BRIDGE)
        try:
            self.sb.ofctl("add-flows", BRIDGE, "-", stdin="\n".join(case.flows) + "\n")
        except OvsSandboxError as e:
            # ovs-ofctl names the line: "ovs-ofctl: -:2: unknown action p3".
            msg = str(e)
            for i, flow in enumerate(case.flows, 1):
                if f"-:{i}:" in msg:
                    detail = msg.split(f"-:{i}:", 1)[1].strip()
                    raise FlowRejected(f"OVS rejects flow '{flow}': {detail}") from e
            raise FlowRejected(f"OVS rejects the flows of '{case.name}': {msg}") from e
        return tails

    def _dummy_port(
        self, bridge: str, name: str, ofport: int, tails: dict[str, _PcapTail]
    ) -> list[str]:
        pcap = os.path.join(self.sb.dir, f"c{self._n}-{name}.pcap")
        tails[name] = _PcapTail(pcap)
        return ["--", "add-port", bridge, name, "--", "set", "interface", name,
                "type=dummy", f"ofport_request={ofport}", f"options:tx_pcap={pcap}"]  # fmt: skip

    def _underlay_bridge(self, u: Underlay, tails: dict[str, _PcapTail]) -> list[str]:
        """The tunnel endpoint's bridge, as tests/tunnel-push-pop.at's br0:
        its MAC is the outer source of what the tunnels send."""
        args = ["--", "add-br", UNDERLAY_BRIDGE, "--", "set", "bridge", UNDERLAY_BRIDGE]
        args += ["datapath_type=dummy", "fail-mode=secure", f"other-config:hwaddr={u.hwaddr}"]
        return args + self._dummy_port(UNDERLAY_BRIDGE, u.port, 1, tails)

    def _underlay_state(self, u: Underlay) -> None:
        """Addresses first, then routes (the tunnel port map needs the
        device's address), neighbour entries, and the bridge's NORMAL flow."""
        for a in u.addresses:
            self.sb.appctl("netdev-dummy/ip6addr" if ":" in a else "netdev-dummy/ip4addr",
                           UNDERLAY_BRIDGE, a)  # fmt: skip
        for r in u.routes:
            self.sb.appctl("ovs/route/add", r, UNDERLAY_BRIDGE)
            self._routes.append(r)
        for ip, mac in u.neighbors.items():
            self.sb.appctl("tnl/neigh/set", UNDERLAY_BRIDGE, ip, mac)
        self.sb.ofctl("add-flow", UNDERLAY_BRIDGE, "actions=NORMAL")

    def _clear_underlay_state(self) -> None:
        """Routes and neighbour entries outlive the bridge they name."""
        while self._routes:
            self.sb.appctl("ovs/route/del", self._routes.pop())
        self.sb.appctl("tnl/neigh/flush")

    def run(self, case: Case) -> CaseResult:
        tails = self._build(case)
        results: list[FrameResult] = []
        before = {c: self.sb.counter(c) or 0 for c in self.counters}
        for fr in case.frames:
            for k, v in fr.options.items():
                self.sb.vsctl("set", "interface", fr.port, f"options:{k}={v}")
            self.sb.appctl("netdev-dummy/receive", fr.port, fr.data.hex())
            # Every frame is translated afresh (an upcall), as offlab runs it:
            # a datapath flow cached from an earlier frame would be revalidated
            # after a MAC learned or a rule changed only when the revalidator
            # threads get to it.
            self.sb.appctl("dpctl/del-flows")
            if fr.options:
                self.sb.vsctl("remove", "interface", fr.port, "options", *fr.options)
            # The next control connection is served after the datapath ran the
            # frame (unixctl.py): the counters and pcaps are complete now.
            after = {c: self.sb.counter(c) or 0 for c in self.counters}
            res = FrameResult(
                sent={name: t.read_new() for name, t in tails.items()},
                counters={c: after[c] - before[c] for c in self.counters},
            )
            before = after
            results.append(res)
        for t in tails.values():
            Path(t.path).unlink(missing_ok=True)
        return CaseResult(results, self.counters)
