"""The compiled Lost Heir engine replays the golden games recorded from the old pure-Python core.

``tests/fixtures/golden_lost_heir.json`` was written in commit 60971e7 by
``tests/fixtures/make_golden_lost_heir.py``, removed with the old core (read it with
``git show 60971e7:tests/fixtures/make_golden_lost_heir.py``): 36 games, each started by
``rules.new_game(config, StreamGenerator(seed_words(seed)), options)`` and played by uniform
random actions, by random actions that pass 80 % of the time when they may, or by the heuristic
bot on every seat. At every position (the start and after each action) it keeps the sha1 of
the seat to act's observation (``<f4``), the legal mask (int8) and the two scores (``<i8``),
and the final status. Only the engine and the game's keywords are used here.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from feral_envs.engine.rng import seed_words
from feral_envs.lost_heir import CORE, engine

GOLDEN = Path(__file__).resolve().parents[1] / "fixtures" / "golden_lost_heir.json"


def digest(row: np.ndarray) -> str:
    """sha1 of the actor's observation, its legal mask and the scores (the fixture's digest)."""
    observation = np.zeros(engine.OBS_SIZE, dtype="<f4")
    mask = np.zeros(engine.N_ACTIONS, dtype=np.int8)
    engine.observe(row, engine.to_act(row), observation)
    engine.legal_mask(row, mask)
    scores = np.array([engine.score(row, 0), engine.score(row, 1)], dtype="<i8")
    return hashlib.sha1(observation.tobytes() + mask.tobytes() + scores.tobytes()).hexdigest()


def test_the_engine_replays_the_golden_games():
    golden = json.loads(GOLDEN.read_text())
    assert golden["game"] == CORE.name and len(golden["games"]) >= 30
    for game in golden["games"]:
        config = CORE.make_config(**game["keywords"])
        row = np.zeros(engine.ROW_SIZE, dtype=np.int32)
        row[:4] = seed_words(game["seed"])
        engine.start(row, config, game["options"])
        digests, where = game["digests"], f"golden game seed {game['seed']}"
        assert len(digests) == len(game["actions"]) + 1
        for step, action in enumerate(game["actions"]):
            assert digest(row) == digests[step], f"{where}, step {step}"
            assert engine.is_legal(row, action), f"{where}, step {step}"
            engine.apply(row, action)
        assert digest(row) == digests[-1], f"{where}, the end"
        terminated, truncated, winner = engine.status(row)
        assert [terminated, truncated, winner] == game["status"], where
