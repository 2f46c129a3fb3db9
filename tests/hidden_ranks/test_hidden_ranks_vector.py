"""Hidden Ranks through ``feral_envs.vector``: its legal-action caches (``engine.LEGAL``) never
change what ``random_actions`` draws, whatever was done to the games since the last step."""

from __future__ import annotations

import numpy as np

import feral_envs.vector
from feral_envs.hidden_ranks import engine as E


def _uncached(venv: feral_envs.vector.VectorEnv) -> np.ndarray:
    """What ``random_actions`` must return: the engine's draw without caches, from copies of
    the streams (the real call advances them the same way)."""
    out = np.zeros(venv.num_envs, dtype=np.int64)
    E.random_batch(venv.rows, venv.action_rows.copy(), out)
    return out


def _check(venv: feral_envs.vector.VectorEnv, what: str) -> np.ndarray:
    expected = _uncached(venv)
    actions = venv.random_actions()
    assert np.array_equal(actions, expected), what
    return actions


def test_random_actions_follow_every_way_the_rows_change():
    venv = feral_envs.vector.make("hidden_ranks", num_envs=32, seed=4, obs_dtype="int8")
    venv.reset()
    assert venv._legal and venv._legal[0].shape == (32, E.LEGAL_SIZE)
    for _ in range(30):
        venv.step(_check(venv, "after a step"))
    saved = venv.get_state()
    for _ in range(5):
        venv.step(venv.random_actions())
    venv.set_state(saved)
    _check(venv, "after set_state")
    _check(venv, "twice in a row")
    venv.reset_game(3, seed=11)
    _check(venv, "after reset_game")
    venv.reset(seed=5)
    _check(venv, "after reset")
    live = np.flatnonzero(venv.rows[:, E.TERMINATED] == 0)
    venv.rows[live[0], E.TO_MOVE] ^= 1  # the other seat to act, in place
    venv.rows[live[1], E.TERMINATED] = 1  # over, in place: 0 drawn
    actions = _check(venv, "after the rows changed in place")
    assert actions[live[1]] == 0
    venv.rows[live[0], E.TO_MOVE] ^= 1
    venv.rows[live[1], E.TERMINATED] = 0
    other = venv.clone()
    venv.step(venv.random_actions())
    _check(other, "a clone, after the original stepped")
    assert not np.shares_memory(other._legal[0], venv._legal[0])
