"""The decoded view of an engine row (``feral_envs.hidden_ranks.view.decode``): what text,
pictures, the terminal app and tests read. Its fields have the documented types (numpy arrays,
``phase`` a ``rules.Phase``, bools as bools, ints as ints) and are new objects: writing them
changes nothing in the game."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest
from common import assert_field_types

from feral_envs.engine.rng import seed_words
from feral_envs.hidden_ranks import engine, rules, view

FIELDS = tuple(f.name for f in dataclasses.fields(rules.State))


def same(a, b) -> bool:
    """Equal in value and type, arrays with the same dtype and shape."""
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
    return a == b


@pytest.mark.parametrize(("mode", "setup"), list(itertools.product(rules.MODES, rules.SETUPS)))
def test_decoded_fields_have_their_types_at_every_step(mode, setup):
    config = rules.make_config(mode=mode, setup=setup, max_moves=60)
    rng = np.random.default_rng(0)
    mask = np.zeros(engine.N_ACTIONS, np.int8)
    for seed in range(3):
        row = np.zeros(engine.ROW_SIZE, np.int32)
        row[:4] = seed_words(seed)
        engine.start(row, config, {})
        while True:
            decoded = view.decode(row, config)
            assert_field_types(decoded)
            assert type(decoded.phase) is rules.Phase and decoded.board.dtype == np.uint8
            engine.legal_mask(row, mask)
            assert np.array_equal(decoded.mask, mask)
            if decoded.terminated:
                break
            engine.apply(row, int(rng.choice(np.flatnonzero(mask))))


def test_writing_to_the_view_changes_nothing_in_the_row():
    config = rules.make_config(mode="quick", setup="random")
    row = np.zeros(engine.ROW_SIZE, dtype=np.int32)
    row[:4] = seed_words(3)
    engine.start(row, config, {})
    mask = np.zeros(engine.N_ACTIONS, dtype=np.int8)
    rng = np.random.default_rng(3)
    while row[engine.STATE.last_strike.start] < 0:  # play on to a strike: every field set
        engine.legal_mask(row, mask)
        engine.apply(row, int(rng.choice(np.flatnonzero(mask))))
    assert not row[engine.TERMINATED]
    before = row.copy()
    first = view.decode(row, config)
    again = view.decode(row, config)
    for name in FIELDS:
        value = getattr(first, name)
        if isinstance(value, np.ndarray):
            value[...] = 1
    np.testing.assert_array_equal(row, before)
    fresh = view.decode(row, config)
    for name in FIELDS:
        assert same(getattr(fresh, name), getattr(again, name)), name
