"""The kernel half of `offlab verify`: extract per (configuration, NIC
profile), prove every kernel property with Z3, and write each
counterexample as a trace (the operation sequence replayed on a concrete
witness)."""

from __future__ import annotations

import os
import re
import time

from offlab import trace as trace_format
from offlab._core import kernel as k

from ..prove import Result, prove_all
from .abstraction import KState
from .extract import Extraction, TooCoarse, extract, kernel_profiles
from .ops import Config
from .properties import KERNEL_PROPERTIES

# The kernels the seed setups ran and the lab's; the VXLAN options that change
# checksum behaviour (outer UDP checksum, remote checksum offload).
CONFIGS: tuple[Config, ...] = (
    Config("6.18", udp_csum=True),
    Config("6.18", udp_csum=False),
    Config("6.18", udp_csum=True, remcsum=True),
    Config("rhel7", udp_csum=True),
    Config("4.0", udp_csum=False),
)


def verify_kernel(
    profiles: list[str] | None = None,
    configs: tuple[Config, ...] = CONFIGS,
    timeout_ms: int = 20000,
) -> tuple[list[Result], list[Extraction], list[str]]:
    """Results for every property x profile x configuration; extraction
    errors (abstraction too coarse) are returned as messages."""
    results: list[Result] = []
    extractions: list[Extraction] = []
    errors: list[str] = []
    for profile in profiles or kernel_profiles():
        for cfg in configs:
            try:
                ex = extract(cfg, profile)
            except TooCoarse as e:
                errors.append(f"abstraction too coarse: {e}")
                continue
            extractions.append(ex)
            edges = {key: t for key, t in ex.trans.items()}
            results.extend(
                prove_all(ex.init, edges, KERNEL_PROPERTIES, profile, cfg.name, timeout_ms)
            )
    return results, extractions, errors


def counterexample_records(ex: Extraction, trace: list[tuple[str, KState]]) -> list:
    """Replays a failing trace on a witness of its first state: a step record
    per operation (the skb's bytes and state), and the wire frames."""
    from .extract import _apply  # the same application the extraction used
    from .ops import GENERIC_OPS, Device, op_xmit

    first = trace[0][1]
    w = ex.witnesses[first][0]
    dev = k.kernel_device_features(ex.profile)
    ops = dict(GENERIC_OPS)
    ops[f"xmit:{ex.profile}"] = op_xmit(Device(ex.profile, dev.features, dev.hw_enc_features))
    recs = []
    if w.origin:
        recs.append(trace_format.Record(w.origin, {"op": "receive", "role": "step"}))
    cur = w
    state = first
    assert cur.skb is not None
    recs.append(
        trace_format.Record(
            cur.skb.frame, {"op": "skb", "role": "step", "skb": cur.skb.describe(),
                            "state": state.describe()}  # fmt: skip
        )
    )
    for op, expected in trace[1:]:
        obj, state = _apply(op, cur, state, ex.config, ops)
        meta = {"op": op, "role": "step", "state": state.describe(), "expected": expected.describe()}
        if isinstance(obj, list):
            for f in obj:
                recs.append(trace_format.Record(f, {**meta, "op": "wire", "role": "wire"}))
            break
        if obj is None:
            break
        recs.append(trace_format.Record(obj.frame, {**meta, "skb": obj.describe()}))
        from .extract import Witness

        cur = Witness(obj, [], (), w.origin)
    return recs


def write_counterexamples(
    results: list[Result], extractions: list[Extraction], out_dir: str
) -> list[str]:
    paths = []
    by_key = {(ex.profile, ex.config.name): ex for ex in extractions}
    for r in results:
        if r.verdict != "FAILED" or not r.trace:
            continue
        ex = by_key[(r.profile, r.config)]
        name = re.sub(r"[^A-Za-z0-9_.-]+", "-", f"{r.property}-{r.profile}-{r.config}")
        path = os.path.join(out_dir, f"kernel-{name}.pcapng")
        trace_format.write(path, counterexample_records(ex, r.trace))
        paths.append(path)
    return paths


def main_table(results: list[Result]) -> str:
    """property x profile: PROVED when every configuration proves it."""
    props = [p.key for p in KERNEL_PROPERTIES]
    profiles = sorted({r.profile for r in results})
    lines = ["kernel property  " + "  ".join(f"{p:>14}" for p in profiles)]
    for key in props:
        cells = []
        for prof in profiles:
            rs = [r for r in results if r.property == key and r.profile == prof]
            bad = [r for r in rs if r.verdict != "PROVED"]
            cells.append(f"{'PROVED' if not bad else bad[0].verdict:>14}")
        lines.append(f"{key:<16} " + "  ".join(cells))
    return "\n".join(lines)


if __name__ == "__main__":  # pragma: no cover - manual use
    t0 = time.perf_counter()
    res, exs, errs = verify_kernel()
    print(main_table(res))
    for e in errs:
        print(e)
    for r in res:
        if r.verdict != "PROVED":
            print(r.property, r.profile, r.config, r.verdict, [op for op, _ in r.trace])
    print(f"{time.perf_counter() - t0:.1f} s")
