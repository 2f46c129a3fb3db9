"""The compiled Hidden Ranks engine replays the golden games recorded from the old pure-Python
core.

``tests/fixtures/golden_hidden_ranks.json`` was written in commit c19173d by
``tests/fixtures/make_golden_hidden_ranks.py``, removed with the old core (read it with
``git show c19173d:tests/fixtures/make_golden_hidden_ranks.py``): games over every mode, setup
and turn limit, from positions and given setups, each started by ``rules.new_game(config,
StreamGenerator(seed_words(seed)), options)`` and played by uniform random legal actions from
``numpy.random.default_rng(seed)``. Before every action and after the last one it keeps the
sha1 of the actor's observation (float32 bytes, C order), legal mask (int8) and the two scores
(int64), and the final status. Only the engine and the game's keywords are used here."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from feral_envs.engine.rng import seed_words
from feral_envs.hidden_ranks import CORE
from feral_envs.hidden_ranks import engine as E

GOLDEN = Path(__file__).resolve().parents[1] / "fixtures" / "golden_hidden_ranks.json"


def digest(obs: np.ndarray, mask: np.ndarray, scores) -> str:
    """sha1 of the actor's float32 observation, its int8 mask and the int64 scores (the
    fixture script's digest)."""
    data = np.asarray(obs, dtype=np.float32).tobytes() + np.asarray(mask, np.int8).tobytes()
    return hashlib.sha1(data + np.asarray(scores, dtype=np.int64).tobytes()).hexdigest()


def test_golden_fixture_is_reproduced():
    games = json.loads(GOLDEN.read_text())["games"]
    assert len(games) >= 24
    assert len({game["end"] for game in games}) == 4  # every way a game ends is in it
    obs = np.zeros(E.OBS_SIZE, dtype=np.float32)
    mask = np.zeros(E.N_ACTIONS, dtype=np.int8)
    for game in games:
        config = CORE.make_config(**game["keywords"])
        row = np.zeros(E.ROW_SIZE, dtype=np.int32)
        row[:4] = seed_words(game["seed"])
        E.start(row, config, game["options"])
        for step, action in enumerate([*game["actions"], None]):
            E.observe(row, E.to_act(row), obs)
            E.legal_mask(row, mask)
            scores = [E.score(row, team) for team in (0, 1)]
            assert digest(obs, mask, scores) == game["digests"][step], (game["seed"], step)
            if action is not None:
                assert E.is_legal(row, action)
                E.apply(row, action)
        terminated, truncated, winner = E.status(row)
        assert [bool(terminated), bool(truncated), int(winner)] == game["status"]
