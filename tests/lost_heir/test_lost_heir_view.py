"""``view.decode``: the engine's row read as the rules state's fields, equal to the pure
core's state at every step (what text, pictures, the terminal app and tests read)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from feral_envs.engine.rng import StreamGenerator, seed_words
from feral_envs.lost_heir import engine, rules, view


def _equal(a, b) -> bool:
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)
    return type(a) is type(b) and a == b


@pytest.mark.parametrize(
    "keywords",
    [{"max_hands": 3}, {"max_hands": 4, "target_score": 8, "take_a_lead": "after_second_trick"}],
)
def test_decode_equals_the_pure_core_at_every_step(keywords):
    config = rules.make_config(**keywords)
    rng = np.random.default_rng(0)
    fields = [f.name for f in dataclasses.fields(rules.State) if f.name != "rec"]
    steps = 0
    for seed in range(60):
        words = seed_words(seed)
        stream = StreamGenerator(words)
        old = rules.new_game(config, stream, {})
        row = np.zeros(engine.ROW_SIZE, np.int32)
        row[:4] = words
        engine.start(row, config, {})
        while True:
            decoded = view.decode(row, config)
            for name in fields:
                assert _equal(getattr(old, name), getattr(decoded, name)), (seed, steps, name)
            steps += 1
            if old.terminated or old.truncated:
                break
            legal = np.flatnonzero(old.mask)
            action = int(legal[rng.integers(len(legal))])
            rules.apply(old, action, stream)
            engine.apply(row, action)
    assert steps > 2000


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
