"""Game keywords on a command line, derived from the games' cores (one source of truth).

The arena, ``play.terminal`` and ``play.recording`` take any game's keywords as
options (``--variant``, ``--mode``, ``--target-score``, ...). The names, their types and their
allowed values come from each ``CORE.keyword_defaults`` and ``CORE.keyword_choices``; each
game's ``make_config`` still validates the values it is given.
"""

from __future__ import annotations

import argparse
import importlib
from typing import Any

from feral_envs import GAMES


def _cores() -> list:
    return [importlib.import_module(f"feral_envs.{game}").CORE for game in GAMES]


def keyword_names() -> tuple[str, ...]:
    """Every game keyword but ``reward``, in game then declaration order, each once."""
    names: dict[str, None] = {}
    for core in _cores():
        names.update(dict.fromkeys(k for k in core.keyword_defaults if k != "reward"))
    return tuple(names)


def add_game_keywords(parser: argparse.ArgumentParser, title: str) -> None:
    """Add ``--name`` options for every game keyword (default: the game's own default)."""
    group = parser.add_argument_group(title)
    for name in keyword_names():
        games, allowed, kind = [], [], str
        for game, core in zip(GAMES, _cores(), strict=True):
            if name in core.keyword_defaults:
                games.append(game)
                kind = type(core.keyword_defaults[name])
                allowed += [v for v in core.keyword_choices.get(name, ()) if v not in allowed]
        values = f"{', '.join(map(str, allowed))}; " if allowed else ""
        group.add_argument(
            "--" + name.replace("_", "-"),
            dest=name,
            type=int if kind is int else str,
            help=f"{values}{', '.join(games)}",
        )


def game_keywords(args: argparse.Namespace) -> dict[str, Any]:
    """The game keywords given on the command line (those left out keep their defaults)."""
    return {k: getattr(args, k) for k in keyword_names() if getattr(args, k, None) is not None}
