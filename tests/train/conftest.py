"""Shared fixtures of the training tests: the toy cores and whichever real games exist."""

from __future__ import annotations

import importlib

import pytest
from toy_core import TOY2, TOY4

import feral_envs

TOY_KEYWORDS = {"hand_len": 5, "target_score": 12, "max_hands": 4}
"""Short toy games that end both ways: about half by the target, half truncated."""


def real_cores() -> list:
    """The rules cores of the games merged so far (each game lands on its own branch)."""
    cores = []
    for game in feral_envs.GAMES:
        try:
            cores.append(importlib.import_module(f"feral_envs.{game}").CORE)
        except ImportError:
            pass
    return cores


REAL_CORES = real_cores()
CORES = [TOY4, TOY2, *REAL_CORES]


def keywords_of(core) -> dict:
    """Keywords for fast test games: the toy's short games; real games' defaults."""
    return dict(TOY_KEYWORDS) if core in (TOY4, TOY2) else {}


@pytest.fixture(params=CORES, ids=lambda core: core.name)
def core(request):
    return request.param
