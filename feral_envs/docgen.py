"""Regenerate the generated tables in ``docs/`` and ``README.md`` from the code.

Each page holds blocks between ``<!-- BEGIN GENERATED: key -->`` and
``<!-- END GENERATED: key -->``. In ``docs/<game>.md`` block ``key`` comes from the game
package's ``encoding.DOC_TABLES[key]()``, and block ``state`` from its engine's state row
(``engine.STATE``); the README's ``games`` block comes from :func:`games_table`, and the
``batch`` block of ``docs/vector.md`` from :func:`feral_envs.vector.batch_table`.
``python -m feral_envs.docgen`` rewrites them; ``python -m feral_envs.docgen --check`` exits 1
if any page is out of date (a test runs it).
"""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

import numpy as np

from feral_envs import GAMES
from feral_envs.vector import batch_table

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"

DECISIONS = {
    "lost_heir": "bids, the dealer's accept / refuse / bid over, raise or concede in the "
    "refusal duel, card plays (the first names trump), `take a lead`",
    "lost_ranks": "3 pass choices (2 to the partner, 1 to an enemy), card plays",
    "hidden_ranks": 'setup placements (`setup="choose"`), moves and Scout runs, strikes',
}
"""What the agents decide in each game, for the README's games table."""

STEPS_SAMPLE = 20
"""Seeded random games played to give the games table its mean steps per game."""
BLOCK = re.compile(
    r"(<!-- BEGIN GENERATED: (?P<key>[\w-]+) -->\n)(?P<body>.*?)(<!-- END GENERATED: (?P=key) -->)",
    re.S,
)


def render_page(game: str, text: str) -> str:
    """``text`` with every generated block of ``game``'s page rewritten from the code."""
    tables = {
        **importlib.import_module(f"feral_envs.{game}.encoding").DOC_TABLES,
        "state": lambda: importlib.import_module(f"feral_envs.{game}.engine").STATE.markdown(
            "field"
        ),
    }

    def fill(match: re.Match) -> str:
        key = match["key"]
        if key not in tables:
            raise KeyError(f"docs/{game}.md has a block {key!r} that {game}.encoding lacks")
        return f"{match.group(1)}{tables[key]().rstrip()}\n{match.group(4)}"

    return BLOCK.sub(fill, text)


def mean_random_steps(game: str, games: int = STEPS_SAMPLE) -> float:
    """Mean agent-steps of seeded uniform-random games on the rules core (default keywords)."""
    core = importlib.import_module(f"feral_envs.{game}").CORE
    config = core.make_config(**{k: v for k, v in core.keyword_defaults.items() if k != "reward"})
    rng = np.random.default_rng(0)
    total = 0
    for _ in range(games):
        state = core.new_game(config, rng, {})
        while not any(core.status(state)[:2]):
            legal = np.flatnonzero(core.legal_mask(state))
            core.apply(state, int(legal[rng.integers(len(legal))]), rng)
            total += 1
    return total / games


def games_table() -> str:
    """The README's table of the games, from each game's CORE."""
    rows = [
        "| game | players | decisions | actions | observation | steps per random game |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for game in GAMES:
        try:
            core = importlib.import_module(f"feral_envs.{game}").CORE
        except ModuleNotFoundError:
            continue
        shape = "×".join(map(str, core.obs_shape))
        rows.append(
            f"| [`{game}_v0`](docs/{game}.md) | {core.n_seats} | {DECISIONS[game]} | "
            f"{core.n_actions} | {shape} {np.dtype(core.obs_dtype).name} | "
            f"{mean_random_steps(game):,.0f} |"
        )
    return "\n".join(rows)


def stale_pages(write: bool) -> list[str]:
    stale = []
    old = README.read_text()
    new = BLOCK.sub(
        lambda m: f"{m.group(1)}{games_table()}\n{m.group(4)}" if m["key"] == "games" else m[0],
        old,
    )
    if new != old:
        stale.append(str(README))
        if write:
            README.write_text(new)
    vector_page = DOCS / "vector.md"
    old = vector_page.read_text()
    new = BLOCK.sub(
        lambda m: f"{m.group(1)}{batch_table()}\n{m.group(4)}" if m["key"] == "batch" else m[0],
        old,
    )
    if new != old:
        stale.append(str(vector_page))
        if write:
            vector_page.write_text(new)
    for game in GAMES:
        page = DOCS / f"{game}.md"
        try:
            importlib.import_module(f"feral_envs.{game}.encoding")
        except ModuleNotFoundError:
            continue
        if not page.exists():
            stale.append(f"{page} (missing)")
            continue
        old = page.read_text()
        new = render_page(game, old)
        if new != old:
            stale.append(str(page))
            if write:
                page.write_text(new)
    return stale


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = stale_pages(write=not check)
    for page in stale:
        print(("out of date: " if check else "rewrote: ") + page)
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
