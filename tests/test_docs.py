"""The docs agree with the code: generated tables are current and the README example runs."""

from __future__ import annotations

import re
from pathlib import Path

from feral_envs import docgen

ROOT = Path(__file__).resolve().parent.parent


def test_generated_doc_tables_are_current():
    stale = docgen.stale_pages(write=False)
    assert not stale, f"run `python -m feral_envs.docgen` to update: {stale}"


def test_readme_usage_example_runs(capsys):
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    assert blocks, "the README has a python example"
    example = blocks[0]
    assert len(example.strip().splitlines()) <= 12, "the usage example stays short"
    exec(compile(example, "README.md", "exec"), {})


def test_hand_written_observation_shapes_match_the_code():
    # The summary tables at the top of each game's page and env module are written by hand:
    # every observation shape they give must be the core's (they went stale once).
    import importlib

    import feral_envs

    for game in feral_envs.GAMES:
        shape = importlib.import_module(f"feral_envs.{game}").CORE.obs_shape
        for path in (ROOT / "docs" / f"{game}.md", ROOT / "feral_envs" / f"{game}_v0.py"):
            text = path.read_text()
            given = re.findall(r"Box\(-inf, inf, (\([\d, ]+\))", text)
            assert given, f"{path.name} names no observation Box"
            assert set(given) == {str(tuple(shape))}, (path.name, given, shape)


def _extras() -> dict[str, list[str]]:
    import pytest

    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return project["optional-dependencies"]


def test_every_extra_the_docs_name_exists():
    # `pip install "feral-envs[render]"` and `pip install -e ".[train,web]"` in the docs, the
    # notebooks and the error messages of the code must name extras that pyproject defines.
    extras = _extras()
    paths = [ROOT / "README.md", *(ROOT / "docs").rglob("*.md"), *(ROOT / "notebooks").glob("*")]
    paths += [*(ROOT / "play").rglob("*.py"), *(ROOT / "feral_envs").rglob("*.py")]
    named = {}
    for path in paths:
        if path.is_file():
            text = path.read_text()
            for group in re.findall(r"(?:feral-envs|\.)\[([a-z_, ]+)\]", text):
                for extra in group.split(","):
                    named.setdefault(extra.strip(), set()).add(path.name)
    assert {"render", "web", "notebooks", "train"} <= set(named), named
    unknown = {extra: sorted(where) for extra, where in named.items() if extra not in extras}
    assert not unknown, f"extras named but not in pyproject.toml: {unknown}"


def test_the_extras_hold_what_the_docs_promise():
    extras = _extras()
    names = {k: {re.split(r"[<>=;\[ ]", r)[0].lower() for r in v} for k, v in extras.items()}
    assert "pillow" in names["render"]
    assert {"starlette", "uvicorn"} <= names["web"]
    assert "jupyterlab" in names["notebooks"]
    play = (ROOT / "docs" / "play.md").read_text()
    assert '".[train,notebooks]"' in play and "jupyter lab notebooks/" in play
    assert "README section" not in play
