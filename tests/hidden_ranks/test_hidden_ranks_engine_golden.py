"""The compiled Hidden Ranks engine replays the golden games that
``tests/fixtures/make_golden_hidden_ranks.py`` recorded from the old pure-Python core: every
step's digest of the actor's observation, mask and scores, and the final status. Only the
engine and the game's keywords are used here, so this stays valid once the old core is gone."""

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
