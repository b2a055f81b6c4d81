"""Prediction glue: each case's path through the kernel, composed of the
kernel model's calls (model.py) with the inputs the case ran with. The
per-topology compositions are in predict_veth.py, predict_tap.py,
predict_vxlan.py and predict_misc.py; this module holds the steps they share
and attaches a prediction to every registered case.

A step whose binding is not there yet raises ModelMissing naming it, so
`offlab lab` reports the case as await-model instead of guessing.

The order of the steps is the kernel's (torvalds/linux v6.18; "v6.18.19" is
the stable tree 6952350/linux-6.18.y at f3fce0151d48, the same networking
code): __dev_queue_xmit calls validate_xmit_skb before dev_hard_start_xmit,
whose xmit_one hands each resulting skb to the packet taps
(dev_queue_xmit_nit) and then to the driver (net/core/dev.c). A receiving
device's taps see the skb in __netif_receive_skb_core, after GRO.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import model as M
from .case import REGISTRY, ModelMissing, Result

Predictor = Callable[..., Result]
PREDICTORS: dict[Callable[..., Result], Predictor] = {}


def predicts(path: Callable[..., Result]) -> Callable[[Predictor], Predictor]:
    """Registers the model composition for a case path (same keyword inputs,
    the kernel version first instead of the lab)."""

    def deco(fn: Predictor) -> Predictor:
        PREDICTORS[path] = fn
        return fn

    return deco


def veth_uses_napi(tx: Any, rx: Any) -> bool:
    """Whether veth_xmit hands the skb to the peer's NAPI (and so GRO) or to
    netif_rx: the model's rule (linux/devices.h VethUsesNapi). The lab's
    frames come from AF_PACKET or a TAP, not a local TCP socket."""
    return bool(M.fn("veth_uses_napi")(tx, rx, False, False))


def veth_link(kv: Any, skbs: list[Any], tx: Any, rx: Any, gro: Any = None
              ) -> tuple[list[Any], list[Any]]:  # fmt: skip
    """dev_queue_xmit on one veth end for each skb: validate_xmit_skb with
    the sender's features, the taps see the result (returned first), then
    veth_xmit to the peer, whose receive goes through GRO (a GroConfig,
    when veth uses its NAPI) or netif_rx. Returns (sent, received).

    The NAPI path unclones each skb before napi_gro_receive (v6.18.19
    drivers/net/veth.c:936 skb_unclone), so the clones the sender's taps
    took no longer share its data afterwards (see predict_vxlan.py)."""
    sent: list[Any] = []
    for skb in skbs:
        sent += M.dev_xmit(skb, tx, kv)
    arrived = [M.veth_xmit(s.copy(), rx, kv) for s in sent]
    if gro is None or not veth_uses_napi(tx, rx):
        return sent, arrived
    return sent, gro_receive(gro, arrived)


def gro_receive(config: Any, skbs: list[Any]) -> list[Any]:
    """napi_gro_receive of each skb on one NAPI instance, then its flush.
    The lab sends a burst within one jiffy to a device with
    gro_flush_timeout set, so the poll ends keep the held packets and one
    timer flush completes them all (net/core/dev.c napi_complete_done)."""
    cell = M.fn("GroCell")(config)
    for s in skbs:
        cell.receive(s.copy())
    return list(cell.flush())


def gro_config(kv: Any, dev: Any, **kw: Any) -> Any:
    return M.fn("GroConfig")(kv=kv, features=dev.features, **kw)


def captured(point: str, skbs: list[Any], outgoing: bool, tunnel: bool = False) -> Result:
    """The Recorder.frames keys for the skbs a capture point sees."""
    from .case import frame_text, normalize_ipv4_id

    out = {f"{point}.count": str(len(skbs))}
    for i, skb in enumerate(skbs):
        vnet, aux, data = M.seen(skb, outgoing)
        out[f"{point}[{i}]"] = frame_text(vnet, aux, normalize_ipv4_id(data) if tunnel else data)
    return out


def _attach(c: Any) -> None:
    if c.path is None:
        return
    fn = PREDICTORS.get(c.path)
    if fn is None:
        c.predict = _missing(f"prediction glue for path {c.path.__name__}")
        return
    c.predict = lambda kv, fn=fn, inputs=c.inputs: fn(kv, **inputs)


def _missing(what: str) -> Callable[[object], Result]:
    def predict(kv: object) -> Result:
        raise ModelMissing(what)

    return predict


def bind_all() -> None:
    """Attaches a prediction to every registered case."""
    from . import predict_misc, predict_tap, predict_veth, predict_vxlan  # noqa: F401

    for c in REGISTRY.values():
        _attach(c)
