"""``view.decode``: the engine's row read as the rules state's fields (what text, pictures,
the terminal app and tests read): new arrays that cannot change the game."""

from __future__ import annotations

import numpy as np

from feral_envs.engine.rng import seed_words
from feral_envs.lost_heir import engine, rules, view


def test_writing_a_decoded_field_leaves_the_game_alone():
    config = rules.make_config()
    row = np.zeros(engine.ROW_SIZE, np.int32)
    row[:4] = seed_words(1)
    engine.start(row, config, {})
    before = row.copy()
    decoded = view.decode(row, config)
    decoded.hands[:] = False
    decoded.scores[:] = 99
    decoded.trick_of_card[:] = 3
    assert np.array_equal(row, before)
