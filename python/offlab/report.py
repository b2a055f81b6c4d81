"""A self-contained report: sections of text, tables and figures, written as
one HTML file (figures embedded) and as markdown (figures beside it)."""

from __future__ import annotations

import base64
import html
import shutil
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Table:
    header: list[str]
    rows: list[list[str]]
    caption: str = ""


@dataclass
class Figure:
    path: Path  # a PNG
    caption: str


@dataclass
class Section:
    title: str
    paragraphs: list[str] = field(default_factory=list)
    blocks: list[Table | Figure | str] = field(default_factory=list)  # str: preformatted


@dataclass
class Report:
    title: str
    sections: list[Section] = field(default_factory=list)

    def add(self, title: str) -> Section:
        self.sections.append(Section(title))
        return self.sections[-1]


def _md_cell(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def to_markdown(r: Report, figure_dir: str) -> str:
    out = [f"# {r.title}", ""]
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
       color: #1d2530; }
h1 { border-bottom: 2px solid #3b6ea8; padding-bottom: .3rem; }
h2 { margin-top: 2.2rem; color: #24456d; }
table { border-collapse: collapse; margin: .8rem 0; font-size: .9rem; }
th, td { border: 1px solid #c9d2dc; padding: .25rem .6rem; text-align: left; }
th { background: #eef2f7; }
caption { caption-side: top; text-align: left; font-style: italic; padding: .3rem 0; }
pre { background: #f5f7fa; padding: .8rem; overflow-x: auto; font-size: .8rem; }
figure { margin: 1rem 0; } figure img { max-width: 100%; border: 1px solid #dde3ea; }
figcaption { font-style: italic; font-size: .9rem; }
"""


def to_html(r: Report) -> str:
    e = html.escape
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{e(r.title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{e(r.title)}</h1>",
    ]
    for s in r.sections:
        out.append(f"<h2>{e(s.title)}</h2>")
        out += [f"<p>{e(p)}</p>" for p in s.paragraphs]
        for b in s.blocks:
            if isinstance(b, Table):
                out.append("<table>")
                if b.caption:
                    out.append(f"<caption>{e(b.caption)}</caption>")
                out.append("<tr>" + "".join(f"<th>{e(h)}</th>" for h in b.header) + "</tr>")
                for row in b.rows:
                    out.append("<tr>" + "".join(f"<td>{e(c)}</td>" for c in row) + "</tr>")
                out.append("</table>")
            elif isinstance(b, Figure):
                data = base64.b64encode(b.path.read_bytes()).decode()
                out.append(
                    f'<figure><img alt="{e(b.caption)}" src="data:image/png;base64,{data}">'
                    f"<figcaption>{e(b.caption)}</figcaption></figure>"
                )
            else:
                out.append(f"<pre>{e(b)}</pre>")
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
