"""Runs a case through offlab's Pipeline, the same bridge and frames as the
real OVS gets."""

from __future__ import annotations

from .. import _core
from .result import COUNTERS, CaseResult, FrameResult
from .spec import Case, Frame, SpecError
from .underlay import Tunnel

# The underlay's physical port sits in offlab's one bridge: a number no case
# port uses and no flow of the case's bridge can name (OFPP_MAX is 0xff00).
_UNDERLAY_OFPORT = 0xFEFF
_UDP_PORTS = {"vxlan": 4789, "geneve": 6081}


def _underlay_flows(case: Case) -> list[str]:
    """What the underlay bridge does with a frame on its physical port: the
    tunnel endpoint decapsulates a tunnel frame for one of its addresses
    (ofproto-dpif-xlate.c terminate_native_tunnel, tnl_port_map_lookup), and
    nothing else reaches the tunnels' bridge. These rules come before the
    case's (equal priority keeps the order rules were added in)."""
    u = case.underlay
    assert u is not None
    out = []
    for t in case.tunnels:
        local = u.local_ip(t.ipv6)
        v6 = "6" if t.ipv6 else ""
        src, dst = ("ipv6_src", "ipv6_dst") if t.ipv6 else ("nw_src", "nw_dst")
        if t.type == "gre":
            match = f"{'ipv6' if t.ipv6 else 'ip'},nw_proto=47"
        else:
            match = f"udp{v6},tp_dst={_UDP_PORTS[t.type]}"
        out.append(
            f"priority=65535,in_port={u.port},{match},{src}={t.remote_ip},{dst}={local},"
            f"actions=tnl_pop:{t.name}"
        )
    out.append(f"priority=65535,in_port={u.port},actions=drop")
    return out


def _tunnel_config(case: Case, t: Tunnel) -> _core.TunnelConfig:
    """The outer headers OVS's route and neighbour lookups give the tunnel
    (ofproto-dpif-xlate.c native_tunnel_output: source address of the route's
    device, the bridge's MAC, the neighbour's MAC)."""
    u = case.underlay
    assert u is not None
    return _core.TunnelConfig(
        t.type,
        remote_ip=t.remote_ip,
        local_ip=u.local_ip(t.ipv6) or "",
        key=t.key or 0,
        csum=t.csum,
        eth_src=u.hwaddr,
        eth_dst=u.neighbors[t.remote_ip],
        gre_key=t.key is not None,
    )


def build(case: Case) -> _core.Pipeline:
    """The case's bridge as an offlab Pipeline; raises SpecError on a port or
    flow offlab refuses."""
    # Every frame is an upcall on the real side (real.py deletes the datapath
    # flows after each): none takes dpif-netdev's simple-match path, which
    # skips the packet hash a tunnel's source port comes from.
    br = _core.Pipeline(simple_match=False)
    for p in case.ports:
        try:
            br.add_port(p.name, options=p.options, ofport=p.ofport)
        except _core.OfflabError as e:
            raise SpecError(f"offlab refuses port {p.name}: {e}") from e
    flows = list(case.flows)
    if case.underlay:
        br.add_port(case.underlay.port, ofport=_UNDERLAY_OFPORT)
        for t in case.tunnels:
            try:
                br.add_port(
                    t.name, ofport=t.ofport, tunnel=_tunnel_config(case, t),
                    underlay=case.underlay.port,
                )  # fmt: skip
            except _core.OfflabError as e:
                raise SpecError(f"offlab refuses tunnel port {t.name}: {e}") from e
        flows = _underlay_flows(case) + flows
    for flow in flows:
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
    names = case.observed_ports()
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
