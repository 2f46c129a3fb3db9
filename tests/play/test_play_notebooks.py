"""The notebooks run top to bottom (nbclient, the python3 kernel of this interpreter) and are
stored without outputs."""

from __future__ import annotations

import os
import time
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
BUDGET_S = 60
"""Wall time allowed per notebook (kernel start included)."""


def test_every_notebook_is_here():
    assert [p.stem for p in NOTEBOOKS] == ["hidden_ranks", "lost_heir", "lost_ranks", "quickstart"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_stored_without_outputs(path):
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, path.name


HEURISTIC_BOTS = {
    "quickstart": "hidden_ranks",
    "lost_heir": "lost_heir",
    "lost_ranks": "lost_ranks",
    "hidden_ranks": "hidden_ranks",
}
"""The game whose heuristic bot each notebook plays (agents/heuristic/<game>.py)."""


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_runs_top_to_bottom(path, monkeypatch, tmp_path):
    bot = ROOT / "agents" / "heuristic" / f"{HEURISTIC_BOTS[path.stem]}.py"
    if not bot.exists():
        pytest.skip(f"{path.name} plays the heuristic bot: {bot.relative_to(ROOT)} is not here yet")
    # the kernel imports this checkout's packages, and writes nothing into it
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook,
        timeout=BUDGET_S,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    )
    started = time.perf_counter()
    client.execute()
    seconds = time.perf_counter() - started
    assert seconds < BUDGET_S, f"{path.name} took {seconds:.0f} s"
