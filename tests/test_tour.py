"""docs/tour.ipynb runs, every cell, in a real Jupyter kernel, offline."""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
TOUR = ROOT / "docs" / "tour.ipynb"


def test_the_tour_is_stored_without_outputs():
    notebook = nbformat.read(TOUR, as_version=4)
    nbformat.validate(notebook)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert not cell.outputs and cell.execution_count is None


@pytest.mark.slow
def test_the_tour_runs_every_cell_in_a_kernel(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # the kernel inherits it: no network
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    )
    notebook = nbformat.read(TOUR, as_version=4)
    NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    ).execute()  # raises CellExecutionError on the first failing cell
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert all(cell.execution_count for cell in code)
    shown = [o for cell in code for o in cell.outputs if "data" in o]  # results and displays
    figures = [o for o in shown if "application/vnd.plotly.v1+json" in o.get("data", {})]
    assert len(figures) >= 8  # every picture but the tokens (HTML)
    for output in figures:
        meta = output["data"]["application/vnd.plotly.v1+json"]["layout"]["meta"]
        assert meta["notice"]
