"""Shared test helpers (imported as `common`): the games present, their keyword combinations."""

from __future__ import annotations

import importlib
import itertools

import numpy as np
import pytest

from feral_envs import GAMES


def core_of(game: str):
    """The GameCore of ``game``, or None if its package has not been written."""
    try:
        return importlib.import_module(f"feral_envs.{game}").CORE
    except ModuleNotFoundError:
        return None


AVAILABLE = [g for g in GAMES if core_of(g) is not None]


def keyword_combinations(game: str) -> list[dict]:
    """Every combination of the game's enumerated keywords (``CORE.keyword_choices``)."""
    choices = core_of(game).keyword_choices
    names = sorted(choices)
    return [
        dict(zip(names, values, strict=True))
        for values in itertools.product(*(choices[n] for n in names))
    ]


def game_params() -> list:
    return [pytest.param(g, id=g) for g in AVAILABLE] or [
        pytest.param(None, marks=pytest.mark.skip(reason="no game package yet"))
    ]


def game_keyword_params() -> list:
    params = [
        pytest.param(g, kw, id=f"{g}-" + "-".join(f"{k}={v}" for k, v in kw.items()))
        for g in AVAILABLE
        for kw in keyword_combinations(g)
    ]
    return params or [pytest.param(None, None, marks=pytest.mark.skip(reason="no game yet"))]


def random_action(obs: dict, rng: np.random.Generator) -> int:
    legal = np.flatnonzero(obs["action_mask"])
    return int(legal[rng.integers(len(legal))])
