"""Plots of a sweep's tidy table: goodput and PMD CPU, as bars for one varied
parameter and as heatmaps (first parameter by the others) for more."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only; no display on a CI machine or a cluster worker
import matplotlib.pyplot as plt
import numpy as np

from . import safeio

# Heatmap column labels are wrapped to lines of at most this many characters.
LABEL_CHARS = 14

PANELS = {
    "goodput": [("goodput_gbps", "goodput (Gbit/s)")],
    "cpu": [
        ("sender_pmd_cpu_pct", "sender PMD CPU (%)"),
        ("receiver_pmd_cpu_pct", "receiver PMD CPU (%)"),
    ],
}


def _show(v: Any) -> str:
    if isinstance(v, bool):
        return "on" if v else "off"
    return str(v)


def _levels(table: Any, col: str) -> list[Any]:
    seen: list[Any] = []
    for v in table[col]:
        if v not in seen:
            seen.append(v)
    return seen


def _grid(table: Any, vary: list[str], metric: str) -> tuple[np.ndarray, list[str], list[str]]:
    rows = _levels(table, vary[0])
    rest = vary[1:]
    cols: list[tuple[Any, ...]] = []
    for _, r in table.iterrows():
        key = tuple(r[c] for c in rest)
        if key not in cols:
            cols.append(key)
    grid = np.full((len(rows), len(cols)), np.nan)
    for _, r in table.iterrows():
        i = rows.index(r[vary[0]])
        j = cols.index(tuple(r[c] for c in rest))
        grid[i, j] = r[metric]
    col_labels = ["\n".join(_wrap(_show(v)) for v in key) for key in cols]
    return grid, [_show(v) for v in rows], col_labels


def _wrap(label: str, width: int = LABEL_CHARS) -> str:
    """A long label (a scenario name) broken after '-' or '_' into lines of at
    most `width` characters, so heatmap columns can stay narrow."""
    lines: list[str] = []
    for part in re.findall(r"[^-_]+[-_]?|[-_]", label):
        if lines and len(lines[-1]) + len(part) <= width:
            lines[-1] += part
        else:
            lines.append(part)
    return "\n".join(lines) or label


def _label_width_in(labels: list[str]) -> float:
    """Inches a column needs for its x tick label at 8 pt (about 0.07 in per
    character of its longest line, plus a margin)."""
    longest = max((len(line) for lab in labels for line in lab.split("\n")), default=1)
    return max(1.1, 0.07 * longest + 0.35)


def _heatmap(ax: Any, table: Any, vary: list[str], metric: str, title: str) -> None:
    grid, row_labels, col_labels = _grid(table, vary, metric)
    masked = np.ma.masked_invalid(grid)
    cmap = plt.get_cmap("viridis").with_extremes(bad="#dddddd")
    im = ax.imshow(masked, cmap=cmap, aspect="auto")
    ax.set_xticks(range(len(col_labels)), col_labels, fontsize=8)
    if ax.figure.get_figwidth() - 3.0 < _label_width_in(col_labels) * len(col_labels):
        # Too many columns even for the widest figure: slant the labels.
        plt.setp(ax.get_xticklabels(), rotation=40, ha="right", rotation_mode="anchor")
    ax.set_yticks(range(len(row_labels)), row_labels)
    ax.set_ylabel(vary[0])
    ax.set_xlabel(" / ".join(vary[1:]), fontsize=8)
    ax.set_title(title)
    finite = grid[np.isfinite(grid)]
    mid = (finite.min() + finite.max()) / 2 if finite.size else 0
    for (i, j), v in np.ndenumerate(grid):
        text = "failed" if not np.isfinite(v) else f"{v:.1f}"
        colour = "black" if not np.isfinite(v) or v > mid else "white"
        ax.text(j, i, text, ha="center", va="center", fontsize=8, color=colour)
    ax.figure.colorbar(im, ax=ax, shrink=0.8)


def _bars(ax: Any, table: Any, vary: list[str], metric: str, title: str) -> None:
    labels = [_show(v) for v in table[vary[0]]]
    values = table[metric].to_numpy(dtype=float)
    ax.bar(range(len(values)), np.nan_to_num(values), color="#3b6ea8")
    ax.set_xticks(range(len(labels)), labels)
    ax.set_xlabel(vary[0])
    ax.set_title(title)
    for i, v in enumerate(values):
        ax.text(
            i,
            np.nan_to_num(v),
            "failed" if not np.isfinite(v) else f"{v:.1f}",
            ha="center",
            va="bottom",
            fontsize=8,
        )


def figure(name: str, vary: list[str], table: Any, stem: str) -> Any:
    """The matplotlib figure of one of PANELS (`goodput` or `cpu`), laid out."""
    if len(vary) == 1:
        n_cols, col_w = len(table), 1.1
    else:
        labels = _grid(table, vary, PANELS["goodput"][0][0])[2]
        n_cols, col_w = len(labels), _label_width_in(labels)
    width = min(24.0, max(6.0, col_w * n_cols + 3.0))
    panels = PANELS[stem]
    fig, axes = plt.subplots(
        len(panels), 1, figsize=(width, 3.2 * len(panels) + 0.6), squeeze=False
    )
    for ax, (metric, title) in zip(axes[:, 0], panels, strict=True):
        draw = _bars if len(vary) == 1 else _heatmap
        draw(ax, table, vary, metric, title)
    fig.suptitle(f"sweep {name}")
    fig.tight_layout()
    return fig


def plot(name: str, vary: list[str], table: Any, out: Path) -> list[Path]:
    """Writes goodput.{png,svg} and cpu.{png,svg} to out; returns the paths."""
    written = []
    for stem in PANELS:
        fig = figure(name, vary, table, stem)
        for ext in ("png", "svg"):
            path = safeio.output_file(out, f"{stem}.{ext}")
            tmp = safeio.output_file(out, f"{stem}.tmp.{ext}")
            fig.savefig(tmp, dpi=110)
            tmp.replace(path)
            written.append(path)
        plt.close(fig)
    return written
