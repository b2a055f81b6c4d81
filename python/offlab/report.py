"""A self-contained report: sections of text, tables and figures, written as
one HTML file (figures embedded) and as markdown (figures beside it).

The HTML page is laid out for a browser window of about 1300 px: the first
section (the summary) is followed by links to every other section, tables
wrap their cells instead of running off the right edge, and long logs are
folded (``<details>``) so they do not fill the middle of the page.
tests/python/test_report_browser.py checks this in headless Chromium."""

from __future__ import annotations

import base64
import html
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

# Preformatted blocks longer than this many lines are folded in the HTML page.
FOLD_LINES = 12


@dataclass
class Table:
    header: list[str]
    rows: list[list[str]]
    caption: str = ""


def verdict_table(
    cell: dict[tuple[str, str], str],
    keys: list[str],
    profiles: list[str],
    caption: str,
    missing: str = "-",
) -> Table:
    """A property x NIC profile table with one row per profile and one column
    per property key: a dozen profiles side by side do not fit a page's width,
    a dozen rows do."""
    rows = [[n, *(cell.get((k, n), missing) for k in keys)] for n in profiles]
    return Table(["NIC profile", *keys], rows, caption)


@dataclass
class Figure:
    path: Path  # a PNG
    caption: str


@dataclass
class Section:
    title: str
    paragraphs: list[str] = field(default_factory=list)
    blocks: list[Table | Figure | str] = field(default_factory=list)  # str: preformatted

    @property
    def anchor(self) -> str:
        """The section's HTML id: its title in lower case, words joined by '-'."""
        return re.sub(r"[^a-z0-9]+", "-", self.title.lower()).strip("-") or "section"


@dataclass
class Report:
    title: str
    sections: list[Section] = field(default_factory=list)

    def add(self, title: str) -> Section:
        self.sections.append(Section(title))
        return self.sections[-1]

    def anchors(self) -> dict[int, str]:
        """Section index -> a unique id (a repeated title gets -2, -3, ...)."""
        seen: dict[str, int] = {}
        out = {}
        for i, s in enumerate(self.sections):
            base = s.anchor
            seen[base] = seen.get(base, 0) + 1
            out[i] = base if seen[base] == 1 else f"{base}-{seen[base]}"
        return out


def _md_cell(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def to_markdown(r: Report, figure_dir: str) -> str:
    out = [f"# {r.title}", ""]
    if len(r.sections) > 1:
        out += ["Sections: " + " · ".join(s.title for s in r.sections[1:]), ""]
    for s in r.sections:
        out += [f"## {s.title}", ""]
        for p in s.paragraphs:
            out += [p, ""]
        for b in s.blocks:
            if isinstance(b, Table):
                if b.caption:
                    out += [f"*{b.caption}*", ""]
                out.append("| " + " | ".join(_md_cell(h) for h in b.header) + " |")
                out.append("|" + "---|" * len(b.header))
                out += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in b.rows]
                out.append("")
            elif isinstance(b, Figure):
                out += [f"![{b.caption}]({figure_dir}/{b.path.name})", "", f"*{b.caption}*", ""]
            else:
                out += ["```", b.rstrip(), "```", ""]
    return "\n".join(out)


_CSS = """
body { font-family: system-ui, sans-serif; max-width: 72rem; margin: 2rem auto; padding: 0 1rem;
       color: #1d2530; overflow-wrap: anywhere; }
h1 { border-bottom: 2px solid #3b6ea8; padding-bottom: .3rem; }
h2 { margin-top: 2.2rem; color: #24456d; }
nav.contents { background: #eef2f7; padding: .5rem 1rem; border-radius: 4px; }
nav.contents ol { margin: .3rem 0; padding-left: 1.4rem; columns: 2; }
table { border-collapse: collapse; margin: .8rem 0; font-size: .9rem; max-width: 100%; }
th, td { border: 1px solid #c9d2dc; padding: .25rem .6rem; text-align: left;
         overflow-wrap: anywhere; }
th { background: #eef2f7; }
caption { caption-side: top; text-align: left; font-style: italic; padding: .3rem 0; }
pre { background: #f5f7fa; padding: .8rem; overflow-x: auto; font-size: .8rem; max-width: 100%; }
details { margin: .8rem 0; } summary { cursor: pointer; color: #24456d; }
figure { margin: 1rem 0; } figure img { max-width: 100%; height: auto; border: 1px solid #dde3ea; }
figcaption { font-style: italic; font-size: .9rem; }
"""


def _html_block(b: Table | Figure | str) -> list[str]:
    e = html.escape
    if isinstance(b, Table):
        out = ["<table>"]
        if b.caption:
            out.append(f"<caption>{e(b.caption)}</caption>")
        out.append("<tr>" + "".join(f"<th>{e(h)}</th>" for h in b.header) + "</tr>")
        out += ["<tr>" + "".join(f"<td>{e(c)}</td>" for c in row) + "</tr>" for row in b.rows]
        out.append("</table>")
        return out
    if isinstance(b, Figure):
        data = base64.b64encode(b.path.read_bytes()).decode()
        return [
            f'<figure><img alt="{e(b.caption)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{e(b.caption)}</figcaption></figure>"
        ]
    lines = b.rstrip().splitlines()
    if len(lines) <= FOLD_LINES:
        return [f"<pre>{e(b)}</pre>"]
    # A long log: its last line (usually the verdict) stays visible.
    return [
        f"<details><summary>log, {len(lines)} lines: {e(lines[-1].strip())}</summary>"
        f"<pre>{e(b)}</pre></details>"
    ]


def to_html(r: Report) -> str:
    e = html.escape
    anchors = r.anchors()
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{e(r.title)}</title><style>{_CSS}</style></head><body>",
        f'<h1 id="top">{e(r.title)}</h1>',
    ]
    for i, s in enumerate(r.sections):
        out.append(f'<h2 id="{anchors[i]}">{e(s.title)}</h2>')
        out += [f"<p>{e(p)}</p>" for p in s.paragraphs]
        for b in s.blocks:
            out += _html_block(b)
        if i == 0 and len(r.sections) > 1:
            # The summary is followed by a link to every other section.
            links = "".join(
                f'<li><a href="#{anchors[j]}">{e(t.title)}</a></li>'
                for j, t in enumerate(r.sections)
                if j > 0
            )
            out.append(f'<nav class="contents">Sections:<ol>{links}</ol></nav>')
    out.append('<p><a href="#top">back to the top</a></p>')
    out.append("</body></html>")
    return "\n".join(out)


def write(r: Report, out: Path) -> tuple[Path, Path]:
    """Writes out/report.html and out/report.md (+ out/figures/); each file
    appears whole or not at all."""
    figures = out / "figures"
    figures.mkdir(parents=True, exist_ok=True)
    for s in r.sections:
        for b in s.blocks:
            if isinstance(b, Figure) and b.path.parent.resolve() != figures.resolve():
                shutil.copyfile(b.path, figures / b.path.name)
    paths = []
    for name, text in (("report.html", to_html(r)), ("report.md", to_markdown(r, "figures"))):
        path = out / name
        tmp = out / f".{name}.tmp"
        tmp.write_text(text)
        tmp.replace(path)
        paths.append(path)
    return paths[0], paths[1]
