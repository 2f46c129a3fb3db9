"""Shared test helpers (imported as `common`): the games present, their keyword combinations."""

from __future__ import annotations

import dataclasses
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


_FIELD_TYPES = {"np.ndarray": np.ndarray, "int": int, "bool": bool, "list": list, "tuple": tuple}


def assert_field_types(state) -> None:
    """Every field of a decoded view (a game's ``rules.State``) has the type its annotation
    names: ``np.ndarray``, ``list[int]`` and ``tuple[int, ...]`` (of plain ints), ``bool``,
    and ``int`` (never a bool: a bool field is annotated ``bool``); others are not checked."""
    for field in dataclasses.fields(state):
        value = getattr(state, field.name)
        expected = _FIELD_TYPES.get(field.type.split("[")[0].split(" |")[0])
        if expected is None:
            continue
        assert isinstance(value, expected), (field.name, type(value))
        if expected is int:
            assert not isinstance(value, bool), field.name
        if expected in (list, tuple):
            assert all(type(v) is int for v in value), field.name
