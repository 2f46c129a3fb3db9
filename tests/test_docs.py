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


def test_readme_default_runs_table_matches_the_defaults():
    # The README's table of default runs restates each game's recipe by hand: its figures
    # must be train.config's, so that a changed default cannot leave the table stale.
    from train.config import default_config

    readme = (ROOT / "README.md").read_text()
    rows = {
        game: next(line for line in readme.splitlines() if line.startswith(start))
        for game, start in (
            ("lost_heir", "| `make train` (`python -m train lost_heir`) |"),
            ("lost_ranks", "| `python -m train lost_ranks` |"),
            ("hidden_ranks", "| `python -m train hidden_ranks --mode quick` |"),
        )
    }
    heir = default_config("lost_heir")
    ranks = default_config("lost_ranks")
    board = default_config("hidden_ranks")
    expected = {
        "lost_heir": [
            f"{heir.imitation_decisions:,} {heir.imitation_teacher} decisions cloned "
            f"({heir.imitation_epochs} epochs, minibatches of {heir.imitation_batch_size})",
            f"a trunk of {heir.trunk[0]} and heads of {heir.heads[0]};",
            f"{heir.timesteps // 1_000_000}M decisions of PPO against a pool "
            f"{round(heir.weight_heuristic * 100)} % the bot",
            "step size and entropy coefficient falling linearly to 0",
        ],
        "lost_ranks": [f"Lost Heir's, with {ranks.timesteps // 1_000_000}M decisions"],
        "hidden_ranks": [
            f"{board.imitation_decisions:,} decisions of `{board.imitation_teacher}`",
            f"({board.imitation_epochs} epochs, minibatches of {board.imitation_batch_size})",
            f"{board.trained_timesteps:,} decisions of PPO against a pool half random",
        ],
    }
    assert board.weight_random == 0.5  # "half random"
    assert heir.learning_rate_end == heir.ent_coef_end == 0  # "falling linearly to 0"
    for field in ("imitation_decisions", "imitation_epochs", "imitation_batch_size", "trunk"):
        assert getattr(ranks, field) == getattr(heir, field), field  # "Lost Heir's"
    assert len(heir.trunk) == len(heir.heads) == 1
    for game, figures in expected.items():
        for figure in figures:
            assert figure in rows[game], (game, figure)
