"""The compiled Lost Ranks engine replays the golden games recorded from the old pure-Python core.

``tests/fixtures/golden_lost_ranks.json`` was written in commit e61c3de by
``tests/fixtures/make_golden_lost_ranks.py``, removed with the old core (read it with
``git show e61c3de:tests/fixtures/make_golden_lost_ranks.py``): 36 games, six from no options
(two per variant) and thirty from reset options of short games (late rounds, high or level
scores, a given Trump Card or deal, the pass skipped). Each was started by
``rules.new_game(config, StreamGenerator(seed_words(seed)), options)`` and played by uniform
random legal actions from ``np.random.default_rng(seed)``; before every action and once at the
end it keeps the sha1 of the seat to act's observation (``<f4``), the legal mask (int8) and
the scores (red, black; ``<i8``), and the final status. Only the engine and the game's
keywords are used here.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from feral_envs.engine.rng import seed_words
from feral_envs.lost_ranks import CORE, engine

GOLDEN = Path(__file__).resolve().parents[1] / "fixtures" / "golden_lost_ranks.json"


def view_digest(obs: np.ndarray, mask: np.ndarray, scores) -> str:
    """sha1 of an observation (float32), its mask (int8) and the scores (red, black; int64),
    little-endian: the fixture's digest."""
    data = (
        np.asarray(obs, dtype="<f4").tobytes()
        + np.asarray(mask, dtype="i1").tobytes()
        + np.asarray(scores, dtype="<i8").tobytes()
    )
    return hashlib.sha1(data).hexdigest()


def test_the_engine_reproduces_the_golden_games():
    golden = json.loads(GOLDEN.read_text())
    assert golden["game"] == CORE.name and len(golden["games"]) >= 24
    obs = np.zeros(engine.OBS_SIZE, dtype=np.float32)
    mask = np.zeros(engine.N_ACTIONS, dtype=np.int8)
    for game in golden["games"]:
        row = np.zeros(engine.ROW_SIZE, dtype=np.int32)
        row[:4] = seed_words(game["seed"])
        engine.start(row, CORE.make_config(**game["keywords"]), game["options"])
        digests = []
        for action in [*game["actions"], None]:
            engine.observe(row, engine.to_act(row), obs)
            engine.legal_mask(row, mask)
            digests.append(view_digest(obs, mask, [engine.score(row, 0), engine.score(row, 1)]))
            if action is not None:
                assert engine.is_legal(row, action)
                engine.apply(row, action)
        assert digests == game["digests"], f"seed {game['seed']}"
        assert list(engine.status(row)) == game["status"]
