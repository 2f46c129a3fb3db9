"""Feral Envs: PettingZoo AEC environments for Lost Heir, Lost Ranks and Hidden Ranks.

>>> import feral_envs
>>> env = feral_envs.make("lost_heir")          # same as feral_envs.lost_heir_v0.env()
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

GAMES = ("lost_heir", "lost_ranks", "hidden_ranks")
"""The games, by the names that ``make`` and the command lines take."""


def env_module(name: str) -> Any:
    """The public module (``feral_envs.<game>_v0``) of ``name``, with or without ``_v0``."""
    game = name[:-3] if isinstance(name, str) and name.endswith("_v0") else name
    if game not in GAMES:
        raise ValueError(f"unknown game {name!r}; games: {', '.join(GAMES)}")
    return importlib.import_module(f"feral_envs.{game}_v0")


def game_core(game: str) -> Any:
    """``feral_envs.<game>.CORE``, the rules core that training and the bots drive;
    ``ValueError`` listing the games if ``game`` is unknown."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; games: {', '.join(GAMES)}")
    return importlib.import_module(f"feral_envs.{game}").CORE


def make(name: str, **kwargs: Any) -> Any:
    """``env(**kwargs)`` of the game ``name``; ``ValueError`` listing the games if unknown."""
    return env_module(name).env(**kwargs)


def make_raw(name: str, **kwargs: Any) -> Any:
    """``raw_env(**kwargs)`` of the game ``name`` (no order enforcement)."""
    return env_module(name).raw_env(**kwargs)
