"""The decoded view of an engine row (``feral_envs.lost_ranks.view.decode``): what text,
pictures, the terminal app and tests read. Its fields have the documented types (numpy arrays,
lists and tuples of plain ints, ints, bools, ``phase`` a ``rules.Phase``) and are new objects:
writing them changes nothing in the game."""

from __future__ import annotations

import dataclasses

import numpy as np
from common import assert_field_types

from feral_envs.engine.rng import seed_words
from feral_envs.lost_ranks import engine, rules, view

FIELDS = tuple(f.name for f in dataclasses.fields(rules.State))


def same(a, b) -> bool:
    """Equal in value and type, arrays with the same dtype and shape."""
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
    if isinstance(a, (list, tuple)):  # of ints here: equal, and their types one by one
        return a == b and list(map(type, a)) == list(map(type, b))
    return a == b


def test_decoded_fields_have_their_types_at_every_step():
    rng = np.random.default_rng(0)
    mask = np.zeros(engine.N_ACTIONS, np.int8)
    for seed, variant in enumerate(rules.VARIANTS * 2):
        config = rules.make_config(variant)
        options = {"round": 6, "scores": {"red": 15, "black": 15}} if seed % 2 else {}
        row = np.zeros(engine.ROW_SIZE, np.int32)
        row[:4] = seed_words(seed)
        engine.start(row, config, options)
        while True:
            decoded = view.decode(row, config)
            assert_field_types(decoded)
            assert type(decoded.phase) is rules.Phase
            engine.legal_mask(row, mask)
            assert np.array_equal(decoded.mask, mask)
            if decoded.phase == rules.GAME_OVER:
                break
            engine.apply(row, int(rng.choice(np.flatnonzero(mask))))


def test_writing_to_the_view_changes_nothing_in_the_row():
    config = rules.make_config("turncoat")
    row = np.zeros(engine.ROW_SIZE, dtype=np.int32)
    row[:4] = seed_words(3)
    engine.start(row, config, {})
    mask = np.zeros(engine.N_ACTIONS, dtype=np.int8)
    for _ in range(12 + 4 * 5 + 2):  # the pass, five tricks and two cards of the sixth
        engine.legal_mask(row, mask)
        engine.apply(row, int(np.flatnonzero(mask)[-1]))
    before = row.copy()
    first = view.decode(row, config)
    again = view.decode(row, config)
    for name in FIELDS:
        value = getattr(first, name)
        if isinstance(value, np.ndarray):
            value[...] = 1 if value.dtype != bool else ~value
        elif isinstance(value, list):
            value[:] = [7] * len(value)
    np.testing.assert_array_equal(row, before)
    fresh = view.decode(row, config)
    for name in FIELDS:
        assert same(getattr(fresh, name), getattr(again, name)), name
