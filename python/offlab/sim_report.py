"""The text report of one simulator run and the scenario listing (`offlab sim`)."""

from __future__ import annotations

import shutil
import textwrap
from typing import Any

import yaml

from .sim import builtin_scenarios, data_dir

_GAP = "  "  # between columns, whatever the widths of the values
_FEW_CORES = 4  # up to this many cores are listed one by one, more are summarised
_SATURATED = 99.0  # a guest this busy is the bottleneck


def _pct(v: float) -> str:
    return f"{v:.0f}"


def _si(v: Any) -> str:
    """A count or rate in three significant digits with an SI prefix (1.23M)."""
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        return str(v)
    for div, unit in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(v) >= div:
            return f"{v / div:.3g}{unit}"
    return f"{v:.3g}" if isinstance(v, float) else str(v)


def _cores(pcts: list[float]) -> str:
    """Per-core busy % as 'a/b/c', or a summary when there are many."""
    if not pcts:
        return "-"
    if len(pcts) <= _FEW_CORES:
        return "/".join(_pct(v) for v in pcts)
    mean = sum(pcts) / len(pcts)
    return f"{len(pcts)} cores {_pct(min(pcts))}-{_pct(max(pcts))}, mean {_pct(mean)}"


def _table(columns: list[tuple[str, bool, list[str]]], indent: str = "  ") -> list[str]:
    """Rows of (header, right-aligned?, cells) columns, each as wide as its
    widest cell and separated by _GAP; an empty cell is shown as '-' so that
    every row has one field per column."""
    cols = [(h, right, [c or "-" for c in cells]) for h, right, cells in columns]
    widths = [max([len(h), *(len(c) for c in cells)]) for h, _, cells in cols]

    def row(fields: list[str]) -> str:
        out = [
            f.rjust(w) if right else f.ljust(w)
            for f, w, (_, right, _) in zip(fields, widths, cols, strict=True)
        ]
        return (indent + _GAP.join(out)).rstrip()

    n = len(cols[0][2]) if cols else 0
    return [row([h for h, _, _ in cols])] + [row([c[2][i] for c in cols]) for i in range(n)]


def _host_table(r: dict[str, Any], hosts: list[dict[str, Any]]) -> list[str]:
    def cell(h: dict[str, Any], section: str, key: str) -> str:
        v = (h.get(section) or {}).get(key)
        return "-" if v is None else str(v)

    names = [str(h.get("name", f"host{i}")) for i, h in enumerate(hosts)]
    kinds = [str(h.get("kind") or r.get("host_kind") or "ovs-dpdk") for h in hosts]
    cols: list[tuple[str, bool, list[str]]] = [("host", False, names), ("kind", False, kinds)]
    for key, header in (
        ("pmd_cpu_pct", "PMD CPU %"),
        ("softirq_cpu_pct", "softirq CPU %"),
        ("vhost_cpu_pct", "vhost CPU %"),
    ):
        if any(h.get(key) for h in hosts):
            cols.append((header, True, [_cores(h.get(key) or []) for h in hosts]))
    guests = [list(h.get("guest_cpu_pct") or []) for h in hosts]
    if any(guests):
        cols += [
            ("guests", True, [str(len(g)) for g in guests]),
            ("guest CPU % min", True, [_pct(min(g)) if g else "-" for g in guests]),
            ("mean", True, [_pct(sum(g) / len(g)) if g else "-" for g in guests]),
            ("max", True, [_pct(max(g)) if g else "-" for g in guests]),
            (
                f"guests >={_SATURATED:.0f}%",
                True,
                [str(sum(v >= _SATURATED for v in g)) for g in guests],
            ),
        ]
    cols.append(("tx frames", True, [cell(h, "nic", "tx_frames") for h in hosts]))
    cols.append(("rx frames", True, [cell(h, "nic", "rx_frames") for h in hosts]))
    return _table(cols)


# The kernel host's figures in a fixed order; any other key follows as it is.
_KERNEL_KEYS = {
    "softirq_busy_pct": "softirq busy %",
    "napi_polls_per_s": "NAPI polls/s",
    "rx_frames_per_s": "rx frames/s",
    "gro_merges_per_s": "GRO merges/s",
    "frames_per_skb": "frames per skb",
    "skbs_up_per_s": "skbs up the stack/s",
    "skbs_to_switch_per_s": "skbs to the switch/s",
    "not_validated": "not validated",
    "not_validated_per_s": "not validated/s",
    "sw_csum_bytes_per_s": "sw checksum bytes/s",
    "sw_segments_per_s": "sw segments/s",
    "copy_bytes_per_s": "copy bytes/s",
    "hw_switched_per_s": "eSwitch switched/s",
    "rx_ring_drops": "rx ring drops",
    "cpu_drops": "CPU drops",
}


def _kernel_label(key: str) -> str:
    """'not_validated_per_s:csum_none' (a figure split by reason) reads
    'not validated/s (csum_none)'."""
    base, _, why = key.partition(":")
    label = _KERNEL_KEYS.get(base, base.replace("_", " "))
    return f"{label} ({why})" if why else label


def _kernel_value(key: str, v: Any) -> str:
    if v is None:
        return "-"
    return _pct(v) if key.endswith("_pct") and isinstance(v, (int, float)) else _si(v)


def _kernel_table(hosts: list[dict[str, Any]]) -> list[str]:
    """One row per kernel figure, one column per host that has any."""
    have = [(str(h.get("name", f"host{i}")), h.get("kernel") or {}) for i, h in enumerate(hosts)]
    have = [(n, k) for n, k in have if isinstance(k, dict) and k]
    if not have:
        return []
    present = {key for _, k in have for key in k}
    order = {k: i for i, k in enumerate(_KERNEL_KEYS)}
    # Known figures first, each followed by its split by reason; then the rest.
    keys = sorted(present, key=lambda k: (order.get(k.partition(":")[0], len(order)), k))
    labels = [_kernel_label(k) for k in keys]
    cols: list[tuple[str, bool, list[str]]] = [("kernel", False, labels)]
    for name, k in have:
        cols.append((name, True, [_kernel_value(key, k.get(key)) for key in keys]))
    return _table(cols)


def _traffic_table(r: dict[str, Any], hosts: list[dict[str, Any]]) -> list[str]:
    """A packet generator's offered load and what its sink got back."""
    rows: list[tuple[str, dict[str, Any]]] = []
    for owner, prefix in [(r, ""), *((h, f"{h.get('name', i)} ") for i, h in enumerate(hosts))]:
        for part in ("generator", "sink"):
            if isinstance(owner.get(part), dict):
                rows.append((prefix + part, owner[part]))
    if not rows:
        return []

    def gbps(d: dict[str, Any]) -> str:
        v = d.get("gbps")
        return "-" if v is None else f"{v:.2f}"

    return _table(
        [
            ("traffic", False, [n for n, _ in rows]),
            ("pps", True, [_si(d["pps"]) if "pps" in d else "-" for _, d in rows]),
            ("Gbit/s", True, [gbps(d) for _, d in rows]),
            ("lost", True, [str(d.get("lost", "-")) for _, d in rows]),
        ]
    )


def format_table(r: dict[str, Any]) -> str:
    """The results of one run as a small text report."""
    hosts = [h for h in r.get("hosts") or [] if isinstance(h, dict)]
    tunnel = r.get("tunnel", "?")
    path = "no tunnel" if tunnel == "none" else f"tunnel {tunnel} over {r.get('underlay', '?')}"
    csum = r.get("outer_udp_csum")
    csum = "?" if csum is None else "on" if csum else "off"
    lines = [
        f"scenario {r.get('scenario', '?')}: {r.get('description', '')}".rstrip(),
        f"  nic {r.get('nic', '?')}, {path}, outer UDP csum {csum}",
        f"  goodput {r.get('goodput_gbps', 0.0):.2f} Gbit/s "
        f"({r.get('sim_seconds', 0):g} simulated s in {r.get('wall_seconds', 0.0):.1f} s)",
    ]
    if hosts:
        lines += _host_table(r, hosts)
    lines += _kernel_table(hosts)
    lines += _traffic_table(r, hosts)
    width = shutil.get_terminal_size((100, 24)).columns
    for i, h in enumerate(hosts):
        counters = h.get("counters") or {}
        text = ", ".join(f"{k} {v}" for k, v in sorted(counters.items())) or "-"
        head = f"  {h.get('name', f'host{i}')} coverage: "
        lines += textwrap.wrap(
            text,
            max(width, 40),
            initial_indent=head,
            subsequent_indent="    ",
            break_on_hyphens=False,
            break_long_words=False,
        )
    lines += [f"  event: {e}" for e in (r.get("events") or [])[:5]]
    return "\n".join(lines)


# --- Listings ---------------------------------------------------------------


def listing_width() -> int:
    """The terminal's width, or 0 (no wrapping) when the output is not a
    terminal and COLUMNS is not set, so that `| grep` sees whole lines."""
    return shutil.get_terminal_size((0, 0)).columns


def format_listing(entries: list[tuple[str, list[str]]], width: int = 0) -> str:
    """`name  text` rows with the texts aligned; each of an entry's texts
    starts a line and is wrapped to `width` (0: not wrapped). When the names
    leave too little room the text goes below its name, indented."""
    if not entries:
        return ""
    name_w = max(len(n) for n, _ in entries)
    room = width - name_w - len(_GAP) if width else 0
    indent = " " * (name_w + len(_GAP))
    if width and room < 24:
        name_w, room, indent = 0, max(width - 4, 20), "    "
    lines = []
    for name, texts in entries:
        body = []
        for t in texts or [""]:
            # Words are not broken at hyphens, so that names in the text stay whole.
            wrapped = textwrap.wrap(t, room, break_on_hyphens=False) if room else [t]
            body += wrapped or [""]
        if name_w:
            lines.append((name.ljust(name_w) + _GAP + body[0]).rstrip())
            lines += [(indent + b).rstrip() for b in body[1:]]
        else:
            lines.append(name)
            lines += [(indent + b).rstrip() for b in body]
    return "\n".join(lines)


def scenario_descriptions() -> list[tuple[str, list[str]]]:
    """Each built-in scenario with its `description` (read from its YAML)."""
    out = []
    for name in builtin_scenarios():
        path = data_dir() / "scenarios" / f"{name}.yaml"
        try:
            doc = yaml.safe_load(path.read_text())
            text = str(doc.get("description", "")) if isinstance(doc, dict) else ""
        except (OSError, yaml.YAMLError) as e:
            text = f"(unreadable: {str(e).splitlines()[0]})"
        out.append((name, [text or "(no description)"]))
    return out
