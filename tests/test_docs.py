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
