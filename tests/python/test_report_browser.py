"""The demo's report as a person sees it: rendered by headless Chromium at
1300 px, it has no horizontal overflow, every figure loads, every internal link
has its target and the summary with its links fits the first screen; the sweep
heatmap's column labels do not overlap.

The report is built here with the demo's own code (the OVS recipes step with its
long log, the property x NIC profile table for every built-in profile, a sweep
heatmap with the ovs-steps sweep's NICs and scenario names), not the whole
30 s demo. Oracles: the browser's layout (DOM geometry) and matplotlib's text
extents, not the report code. A screenshot is left in the test's folder."""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path

import pytest

import offlab
from offlab import demo, sweep, sweep_plots
from offlab.report import Figure, Report, Table, verdict_table, write
from offlab.verification import PROPERTIES

WIDTH, HEIGHT = 1300, 900
CHROMIUM = shutil.which("chromium")
DRIVER = shutil.which("chromedriver")


def ovs_steps_table():
    """A tidy table shaped as `offlab sweep ovs-steps` writes it (its NICs and
    scenario names); the numbers only colour the heatmap."""
    import pandas as pd

    spec = sweep.load("ovs-steps")
    rows = []
    for i, nic in enumerate(spec.vary["nic"]):
        for j, base in enumerate(spec.vary["base"]):
            rows.append(
                {
                    "nic": nic,
                    "base": base,
                    "goodput_gbps": 5.0 + i + 2 * j,
                    "sender_pmd_cpu_pct": 100.0 - 20 * j,
                    "receiver_pmd_cpu_pct": 80.0 - 10 * i,
                    "status": "ok",
                }
            )
    return pd.DataFrame(rows), list(spec.vary)


def build_report(out: Path) -> Path:
    rep = Report("offlab demo")
    summary = rep.add("Summary")
    rep_ok = demo._recipes(rep, verbose=False)
    proofs = rep.add("Proofs: never fixes a bad checksum, always fixes a partial one")
    keys = [p.key for p in PROPERTIES]
    profiles = offlab.builtin_profile_names()
    cell = {(k, n): "PROVED" for k in keys for n in profiles}
    proofs.blocks.append(verdict_table(cell, keys, profiles, "property x NIC profile"))
    proofs.blocks.append(Table(["property", "meaning"], [[p.key, p.title] for p in PROPERTIES]))
    table, vary = ovs_steps_table()
    (out / "sweep").mkdir(parents=True)
    sweep_plots.plot("ovs-steps", vary, table, out / "sweep")
    sw = rep.add("Sweep: ovs-steps")
    sw.blocks.append(Figure(out / "sweep" / "goodput.png", "goodput per NIC and OVS step"))
    sw.blocks.append(Figure(out / "sweep" / "cpu.png", "PMD CPU per NIC and OVS step"))
    summary.blocks.append(
        Table(["step", "result"], [["OVS recipes", "ok" if rep_ok else "FAILED"]])
    )
    html, _ = write(rep, out)
    return html


def test_heatmap_column_labels_do_not_overlap() -> None:
    table, vary = ovs_steps_table()
    for stem in sweep_plots.PANELS:
        fig = sweep_plots.figure("ovs-steps", vary, table, stem)
        renderer = fig.canvas.get_renderer()
        for ax in fig.axes[: len(sweep_plots.PANELS[stem])]:
            boxes = [t.get_window_extent(renderer) for t in ax.get_xticklabels()]
            assert len(boxes) == len(set(table["base"]))
            for a, b in itertools.pairwise(boxes):
                assert a.x1 < b.x0, f"{stem}: x labels overlap ({a.x1:.0f} >= {b.x0:.0f})"
            assert all(bx.x0 >= 0 and bx.x1 <= fig.bbox.width for bx in boxes)
        fig.clf()


@pytest.fixture
def browser(tmp_path: Path):
    if not CHROMIUM or not DRIVER:
        pytest.skip("Debian chromium and chromium-driver are not installed (scripts/setup.sh)")
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    # Offline machine: nothing that reaches out, or Chromium waits on it.
    for a in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        f"--user-data-dir={tmp_path / 'chromium-profile'}",
        f"--window-size={WIDTH},{HEIGHT}",
    ):
        opts.add_argument(a)
    driver = webdriver.Chrome(options=opts, service=Service(executable_path=DRIVER))
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


OVERFLOW = """
const doc = document.documentElement;
let right = 0;
for (const e of document.body.querySelectorAll('*')) {
  right = Math.max(right, e.getBoundingClientRect().right);
}
return [doc.scrollWidth, doc.clientWidth, right];
"""


def test_report_reads_well_in_chromium(tmp_path: Path, browser) -> None:
    html = build_report(tmp_path / "report")
    browser.get(html.as_uri())
    assert browser.execute_script("return document.readyState") == "complete"
    assert browser.execute_script("return window.innerWidth") <= WIDTH

    # The summary and the links to every section fit the first screen.
    nav_bottom, links = browser.execute_script(
        "const n = document.querySelector('nav.contents');"
        "return [n.getBoundingClientRect().bottom, n.querySelectorAll('a').length];"
    )
    assert links == 3 and nav_bottom <= browser.execute_script("return window.innerHeight")

    # Every internal link has its target.
    targets = browser.execute_script(
        "return [...document.querySelectorAll('a[href^=\"#\"]')].map(a => a.getAttribute('href'))"
        ".map(h => [h, !!document.getElementById(h.slice(1))]);"
    )
    assert len(targets) >= 3 and all(ok for _, ok in targets), targets

    # Every figure loaded.
    images = browser.execute_script(
        "return [...document.images].map(i => [i.alt, i.complete, i.naturalWidth]);"
    )
    assert len(images) == 2 and all(c and w > 0 for _, c, w in images), images

    # The long recipe log is folded; nothing runs off the right edge, also with it open.
    assert browser.execute_script("return document.querySelectorAll('details').length") >= 1
    for state in ("folded", "open"):
        scroll_w, client_w, right = browser.execute_script(OVERFLOW)
        assert scroll_w <= client_w and right <= client_w, (state, scroll_w, client_w, right)
        browser.execute_script("document.querySelectorAll('details').forEach(d => d.open = true)")
    # The property x profile table is all there: a row per profile.
    rows = browser.execute_script(
        "return [...document.querySelectorAll('table')].find(t => t.caption &&"
        " t.caption.textContent === 'property x NIC profile').rows.length;"
    )
    assert rows == len(offlab.builtin_profile_names()) + 1
    browser.execute_script("document.querySelectorAll('details').forEach(d => d.open = false)")
    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.set_window_size(WIDTH, min(int(height) + 200, 8000))
    browser.save_screenshot(str(tmp_path / "report.png"))
    assert (tmp_path / "report.png").stat().st_size > 10000

    # The overflow measure does see a page that is too wide.
    browser.execute_script(
        "const d = document.createElement('div'); d.style.width = '3000px';"
        "d.textContent = 'x'; document.body.appendChild(d);"
    )
    scroll_w, client_w, _ = browser.execute_script(OVERFLOW)
    assert scroll_w > client_w
