"""Device default features (what `ethtool -k` shows of a fresh device) and
nf_conntrack's verdict on a bad-checksum TCP segment."""

from __future__ import annotations

import shutil

from . import ethtool
from . import frames as F
from . import topology as T
from .case import Result, path_case
from .nsutil import Lab, LabError, run
from .traffic import TUN_F_CSUM, TUN_F_TSO4, TUN_F_TSO6, Sender, Tap


def modelled_feature_names() -> set[str]:
    """The ethtool names of the NETIF_F_* bits the model knows
    (models/include/offlab/linux/features.h); others are not compared."""
    try:
        from offlab import _core

        k = _core.kernel
        return set(k.feature_names((1 << 26) - 1))
    except (ImportError, AttributeError):
        from .case import ModelMissing

        raise ModelMissing("offlab._core.kernel.feature_names") from None


def features_result(lab: Lab, kind: str) -> Result:
    ns = lab.netns("f")
    dev = {"veth": "v0", "vxlan": "x0", "bridge": "br0", "tap": "t0", "tap-offloads": "t0"}[kind]
    if kind == "veth":
        ns.ip("link", "add", "name", "v0", "type", "veth", "peer", "name", "v1")
    elif kind == "vxlan":
        ns.ip("link", "add", "name", "x0", "type", "vxlan", "id", "1", "dstport", "4789",
              "local", "10.0.0.1", "remote", "10.0.0.2")  # fmt: skip
    elif kind == "bridge":
        ns.ip("link", "add", "name", "br0", "type", "bridge")
    else:
        Tap(lab, ns, "t0", TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 if kind == "tap-offloads" else 0)
    feats = ethtool.features(ns, dev)
    # Every named feature, modelled or not, is recorded; the comparison
    # keeps the modelled ones (see predict.py).
    return {f"{dev} {name}": "on" if f["active"] else "off" for name, f in sorted(feats.items())
            if name}  # fmt: skip


RULE_FEAT = "net/core/dev.c register_netdevice/netdev_fix_features; "
for _kind, _src in (
    ("veth", "drivers/net/veth.c veth_setup (VETH_FEATURES)"),
    ("vxlan", "drivers/net/vxlan/vxlan_core.c vxlan_setup"),
    ("bridge", "net/bridge/br_device.c br_dev_setup (COMMON_FEATURES)"),
    ("tap", "drivers/net/tun.c tun_set_iff / set_offload (TUNSETOFFLOAD 0)"),
    ("tap-offloads", "drivers/net/tun.c set_offload (TUN_F_CSUM|TSO4|TSO6)"),
):
    path_case(f"features-{_kind}", "features",
              f"default features of a fresh {_kind} device (ethtool -k) against DeviceFeatures",
              RULE_FEAT + _src, features_result, kind=_kind)  # fmt: skip


NFT_RULES = """table inet olab {
  chain pre {
    type filter hook prerouting priority -150; policy accept;
    tcp dport 5001 ct state invalid counter
    tcp dport 5001 ct state new counter
  }
}
"""


def conntrack_pre_routing(lab: Lab, frames: list[bytes]) -> Result:
    """Frames a0 -> b0 through an nftables prerouting chain (after conntrack)
    that counts `ct state invalid` and `ct state new` for TCP port 5001."""
    if shutil.which("nft") is None:
        raise LabError("nft (nftables) is not installed")
    t = T.veth(lab)
    path = f"{lab.tmpdir()}/rules.nft"
    with open(path, "w") as f:
        f.write(NFT_RULES)
    run(["ip", "netns", "exec", t.b.name, "nft", "-f", path])
    s = Sender(lab, t.a, "a0")
    for fr in frames:
        s.send(fr)
    listing = run(["ip", "netns", "exec", t.b.name, "nft", "list", "chain", "inet", "olab", "pre"])
    out: Result = {}
    for line in listing.stdout.splitlines():
        if "ct state" in line and "packets" in line:
            state = line.split("ct state", 1)[1].split()[0]
            out[f"ct state {state} packets"] = line.split("packets", 1)[1].split()[0]
    return out


def syn(csum: str, sport: int) -> bytes:
    return F.tcp4_frame(T.MAC_A, T.MAC_B, T.IP_A, T.IP_B, sport, 5001, b"", csum=csum, flags=0x02)


path_case("conntrack-bad-tcp-csum", "conntrack",
          "nf_conntrack in PRE_ROUTING verifies the TCP checksum (nf_conntrack_checksum=1): a "
          "bad-checksum SYN is INVALID, a good one NEW",
          "net/netfilter/nf_conntrack_proto_tcp.c tcp_error / nf_checksum", conntrack_pre_routing,
          needs=("nft",), frames=[syn("bad", 4000), syn("good", 4001)])  # fmt: skip
