"""Prediction glue: each case's path through the kernel, composed from the
kernel model's bindings (offlab._core.kernel). A path step whose binding is
not there yet raises ModelMissing naming it (and the helper writing it), so
`offlab lab` reports the case as await-model instead of guessing.

Bindings each family needs (names as the helpers' binding files list them;
adjust here when they land):
  features-*   default_features(kind) -> DeviceFeatures           (helper P)
  veth, tap    packet_snd(frame, vnet_hdr|None) -> SkBuff,
               tun_get_user(frame, vnet_hdr) -> SkBuff,
               virtio_net_hdr_from_skb(skb) -> (flags, gso_type, hdr_len, gso_size,
               csum_start, csum_offset), veth_xmit(skb, rx_features) (helper P);
               validate_xmit_skb(skb, DeviceFeatures) -> list[SkBuff]  (helper X);
               stack_receive(skb) -> dict counter name -> delta      (helper V)
  GRO          gro_receive(list[SkBuff], features) -> list[SkBuff]  (helper G)
  VXLAN        vxlan_xmit(skb, options) / vxlan_rcv(skb, options)   (helpers V, G)
  conntrack    nf_conntrack_in(skb) -> "new" | "invalid" | ...      (helper K)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .case import REGISTRY, ModelMissing, Result
from .observe import VnetHdr

HELPER = {
    "default_features": "P",
    "packet_snd": "P",
    "tun_get_user": "P",
    "virtio_net_hdr_from_skb": "P",
    "veth_xmit": "P",
    "validate_xmit_skb": "X",
    "stack_receive": "V",
    "gro_receive": "G",
    "vxlan_xmit": "V",
    "vxlan_rcv": "V",
    "nf_conntrack_in": "K",
}


def kernel_module() -> Any:
    try:
        from offlab import _core

        return _core.kernel
    except (ImportError, AttributeError):
        raise ModelMissing("offlab._core.kernel (the package is not built)") from None


def need(*names: str) -> list[Callable[..., Any]]:
    k = kernel_module()
    missing = [n for n in names if not hasattr(k, n)]
    if missing:
        raise ModelMissing(
            ", ".join(f"kernel.{n} (helper {HELPER.get(n, '?')})" for n in missing)
        )
    return [getattr(k, n) for n in names]


def vnet_summary(skb: Any) -> str:
    """The same text the lab prints for a captured vnet header."""
    (from_skb,) = need("virtio_net_hdr_from_skb")
    return VnetHdr(*from_skb(skb)).summary()


def predict_features(kind: str, dev: str) -> Result:
    (default_features,) = need("default_features")
    k = kernel_module()
    known = set(k.feature_names((1 << 26) - 1))
    on = set(k.feature_names(default_features(kind).features))
    return {f"{dev} {name}": "on" if name in on else "off" for name in sorted(known)}


def _bind_features() -> None:
    for kind, dev in (("veth", "v0"), ("vxlan", "x0"), ("bridge", "br0"), ("tap", "t0"),
                      ("tap-offloads", "t0")):  # fmt: skip
        name = f"features-{kind}"
        if name in REGISTRY:
            REGISTRY[name].predict = lambda kv, kind=kind, dev=dev: predict_features(kind, dev)


FAMILY_NEEDS = {
    "veth": ("packet_snd", "veth_xmit", "validate_xmit_skb", "virtio_net_hdr_from_skb",
             "stack_receive"),
    "gro": ("packet_snd", "veth_xmit", "gro_receive", "virtio_net_hdr_from_skb", "stack_receive"),
    "tap": ("tun_get_user", "validate_xmit_skb", "veth_xmit", "virtio_net_hdr_from_skb",
            "stack_receive"),
    "vxlan": ("packet_snd", "vxlan_xmit", "veth_xmit", "vxlan_rcv", "virtio_net_hdr_from_skb",
              "stack_receive"),
    "conntrack": ("packet_snd", "nf_conntrack_in"),
}


def family(name: str, topology: str) -> str:
    if "gro" in name and topology == "veth":
        return "gro"
    return {"vxlan6": "vxlan", "features": "features"}.get(topology, topology)


def _awaiting(needs: tuple[str, ...]) -> Callable[[object], Result]:
    def predict(kv: object) -> Result:
        need(*needs)
        # All bindings present: the composition for this family is still to
        # be written against their final signatures.
        raise ModelMissing("prediction glue for this path (bindings now present)")

    return predict


def bind_all() -> None:
    """Attaches a prediction to every registered case."""
    _bind_features()
    for c in REGISTRY.values():
        if c.predict is None:
            c.predict = _awaiting(FAMILY_NEEDS.get(family(c.name, c.topology), ()))
