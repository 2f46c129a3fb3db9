"""Shared fixtures of the training tests: the toy cores and whichever real games exist."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from toy_core import TOY2, TOY4

import feral_envs

TOY_KEYWORDS = {"hand_len": 5, "target_score": 12, "max_hands": 4}
"""Short toy games that end both ways: about half by the target, half truncated."""


def masked_probs(logits: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The masked softmax of a batch of logits (what the policy samples from)."""
    logits = np.where(masks, logits, -np.inf)
    p = np.exp(logits - logits.max(1, keepdims=True))
    return p / p.sum(1, keepdims=True)


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


FAST_KEYWORDS = {
    "toy4": TOY_KEYWORDS,
    "toy2": TOY_KEYWORDS,
    "lost_heir": {"max_hands": 4, "target_score": 10},
    "lost_ranks": {},
    "hidden_ranks": {"mode": "quick", "setup": "random", "max_moves": 120},
}
"""Keywords for short test games (random play would not end Lost Heir or Hidden Ranks soon)."""


def keywords_of(core) -> dict:
    return dict(FAST_KEYWORDS[core.name])


@pytest.fixture(params=CORES, ids=lambda core: core.name)
def core(request):
    return request.param
