"""Model compositions for the device-feature and conntrack cases
(cases_misc.py)."""

from __future__ import annotations

from typing import Any

from . import cases_misc as C
from . import model as M
from .case import Result
from .predict import predicts, veth_link
from .traffic import TUN_F_CSUM, TUN_F_TSO4, TUN_F_TSO6

DEV_NAME = {"veth": "v0", "vxlan": "x0", "bridge": "br0", "tap": "t0", "tap-offloads": "t0"}


@predicts(C.features_result)
def features_result(kv: Any, kind: str) -> Result:
    """The model's device features as `ethtool -k` names: every feature the
    model has a bit for (on / off), and the ones it lists as on without a
    bit. Names neither covers are not compared (main.compare)."""
    k = M.kernel()
    dev = DEV_NAME[kind]
    base = "tap" if kind.startswith("tap") else kind
    device = M.fn(f"{base}_device")(kv)
    feats = device.dev
    if kind == "tap-offloads":
        feats = M.tap_device(TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6, kv)
    on = set(k.feature_names(feats.features))
    out = {f"{dev} {n}": "on" if n in on else "off" for n in k.feature_names((1 << 26) - 1)}
    for n in device.unmodelled_on:
        out[f"{dev} {n}"] = "on"
    return out


@predicts(C.conntrack_pre_routing)
def conntrack_pre_routing(kv: Any, frames: list[bytes]) -> Result:
    """Each frame crosses the veth pair and reaches nf_conntrack_in at
    PRE_ROUTING (priority -200, before the lab's -150 chain). `ct state
    invalid` matches a packet conntrack left without an entry; `ct state new`
    one with ctinfo NEW (net/netfilter/nft_ct.c nft_ct_get_eval)."""
    a0 = M.device("veth", kv)
    b0 = M.device("veth", kv)
    _sent, got = veth_link(kv, [M.packet_snd(f, None) for f in frames], a0, b0)
    states = {"invalid": 0, "new": 0}
    for skb in got:
        # nf_conntrack_checksum is 1 by default (the namespace's sysctl).
        r = M.fn("nf_conntrack_in")(skb.copy(), 14, hook="pre_routing", checksum=True)
        if not r["tracked"]:
            states["invalid"] += 1
        elif str(r["ctinfo"]).lower() == "new":
            states["new"] += 1
    return {f"ct state {s} packets": str(n) for s, n in states.items()}
