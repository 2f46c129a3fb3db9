"""``view.decode``: the engine's row read as the rules state's fields (what text, pictures,
the terminal app and tests read): fields of the documented types, new arrays that cannot
change the game."""

from __future__ import annotations

import numpy as np
from common import assert_field_types

from feral_envs.engine.rng import seed_words
from feral_envs.lost_heir import engine, rules, view


def test_decoded_fields_have_their_types_at_every_step():
    config = rules.make_config(max_hands=3, target_score=8)
    rng = np.random.default_rng(0)
    mask = np.zeros(engine.N_ACTIONS, np.int8)
    for seed in range(10):
        row = np.zeros(engine.ROW_SIZE, np.int32)
        row[:4] = seed_words(seed)
        engine.start(row, config, {})
        while True:
            decoded = view.decode(row, config)
            assert_field_types(decoded)
            assert type(decoded.phase) is rules.Phase
            engine.legal_mask(row, mask)
            assert np.array_equal(decoded.mask, mask)
            if decoded.terminated or decoded.truncated:
                break
            engine.apply(row, int(rng.choice(np.flatnonzero(mask))))


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
