"""The batch kernels of the self-play training env (``status_batch``, ``apply_batch``,
``scores_batch``): each game of the batch as its single-game kernel has it, in every game."""

from __future__ import annotations

import numpy as np
import pytest

import feral_envs.vector

CASES = [  # short games, so that finished games are met too
    pytest.param("lost_heir", {"max_hands": 2}, None, id="lost_heir"),
    pytest.param("lost_ranks", {}, {"round": 6}, id="lost_ranks"),
    pytest.param("hidden_ranks", {"mode": "quick", "max_moves": 40}, None, id="hidden_ranks"),
]


@pytest.mark.parametrize(("game", "keywords", "options"), CASES)
def test_batch_kernels_equal_the_single_game_kernels(game, keywords, options):
    venv = feral_envs.vector.make(game, num_envs=12, seed=5, **keywords)
    engine = venv.engine
    venv.reset(options=options)
    n = venv.num_envs
    finished = moved = 0
    for step in range(150):
        rows = venv.rows
        seats, winners = np.empty(n, np.int64), np.empty(n, np.int64)
        terminated, truncated = np.empty(n, bool), np.empty(n, bool)
        engine.status_batch(rows, seats, terminated, truncated, winners)
        scores = np.empty((n, 2), np.int64)
        engine.scores_batch(rows, scores)
        for i in range(n):
            assert seats[i] == engine.to_act(rows[i])
            assert (terminated[i], truncated[i], winners[i]) == engine.status(rows[i])
            assert scores[i].tolist() == [engine.score(rows[i], 0), engine.score(rows[i], 1)]
        over = terminated | truncated
        finished += int(over.sum())
        # Every third game (and every finished one) sits out: its row must not change.
        actions = np.where(over | (np.arange(n) % 3 == step % 3), -1, venv.random_actions())
        want = rows.copy()
        for i in np.flatnonzero(actions >= 0):
            engine.apply(want[i], actions[i])
        engine.apply_batch(rows, actions)
        np.testing.assert_array_equal(rows, want)
        moved += int((actions >= 0).sum())
        venv.step(venv.random_actions())  # on, restarting the finished games
    assert finished and moved
