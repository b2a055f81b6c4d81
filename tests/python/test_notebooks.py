"""The notebooks in notebooks/ run top to bottom on the installed package, save
their figures, and are committed without outputs."""

from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = Path(__file__).parents[2] / "notebooks"
FIGURES = {
    "tour": ["walk.png"],
    "nic-matrix": ["matrix-heatmaps.png", "published-vs-simulated.png", "ovs-steps-lines.png"],
    "verification": ["proof-times.png"],
}


def test_every_notebook_is_listed() -> None:
    assert sorted(p.stem for p in NOTEBOOKS.glob("*.ipynb")) == sorted(FIGURES)


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_committed_without_outputs(name: str) -> None:
    nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, name


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_notebook_runs_and_saves_its_figures(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "figures"
    monkeypatch.setenv("OFFLAB_NOTEBOOK_OUT", str(out))
    nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()  # raises CellExecutionError naming the failing cell
    errors = [
        o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"
    ]
    assert not errors
    for fig in FIGURES[name]:
        assert (out / name / fig).stat().st_size > 5000, fig
