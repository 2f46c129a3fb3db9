"""The decoded view of an engine row (``feral_envs.lost_ranks.view.decode``) against the pure
core's ``State``, field for field, at every step of random games.

Both cores are driven from the same stream words (the pure core through
``rng.StreamGenerator``), so they deal the same cards. Every field must be equal in value and
type (numpy arrays with the same dtype and shape, lists as lists, tuples as tuples, ints as
ints), with no exception.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from feral_envs.cards import NO_WINNER
from feral_envs.engine.rng import StreamGenerator, seed_words
from feral_envs.lost_ranks import engine, rules, view

INFANTRY = [c for c in range(rules.N_CARDS) if c != rules.SPY and c not in rules.JACKS]
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


def options_for(rng: np.random.Generator) -> dict:
    """Valid reset options, most of them for games that end early: late rounds, scores near
    or past the target (tiebreakers), a given Trump Card or deal, the pass skipped."""
    options: dict = {}
    if rng.random() < 0.85:
        options["round"] = int(rng.integers(1, rules.MAX_ROUND + 1))
    if options.get("round") == rules.MAX_ROUND or rng.random() < 0.25:
        level = int(rng.integers(0, 26))
        options["scores"] = {"red": level, "black": level}
    elif rng.random() < 0.9:
        red, black = (int(s) for s in rng.integers(8, rules.TARGET, size=2))
        options["scores"] = {"red": red, "black": black}
    trump = int(rng.choice(INFANTRY))
    if rng.random() < 0.3:
        options["trump_card"] = rules.DECK.names[trump]
    if rng.random() < 0.25:
        others = rng.permutation([c for c in range(rules.N_CARDS) if c != trump])
        options["hands"] = {
            agent: [rules.DECK.names[c] for c in others[13 * seat : 13 * seat + 13]]
            for seat, agent in enumerate(rules.AGENTS)
        }
    if rng.random() < 0.35:
        options["start"] = "play"
    return options


def check_game(seed: int, config: rules.Config, options: dict, actions) -> rules.State:
    """A game of random actions in both cores, the view checked at every step; the pure
    core's final state."""
    words = seed_words(seed)
    stream = StreamGenerator(words)
    old = rules.new_game(config, stream, dict(options))
    row = np.zeros(engine.ROW_SIZE, dtype=np.int32)
    row[: len(words)] = words
    engine.start(row, config, dict(options))
    for step in range(10_000):
        legal = np.flatnonzero(rules.legal_mask(old))  # sets old.mask, which the view decodes
        got = view.decode(row, config)
        for name in FIELDS:
            want = getattr(old, name)
            if not same(want, getattr(got, name)):
                raise AssertionError(
                    f"seed {seed}, {config.variant}, options {options}, step {step}: field "
                    f"{name}: core {want!r}, view {getattr(got, name)!r}"
                )
        if old.phase == rules.GAME_OVER:
            return old
        action = int(legal[actions.integers(len(legal))])
        rules.apply(old, action, stream)
        engine.apply(row, action)
    raise AssertionError(f"seed {seed}: the game did not end")


@pytest.mark.parametrize("variant", rules.VARIANTS)
def test_the_view_is_the_pure_state_at_every_step(variant):
    """100 games a variant: every tenth from no options (six rounds at least), the others
    from random reset options. Among them, games whose last round had a void trick, and games
    started at a later round (``epoch`` is not the round number)."""
    config = rules.make_config(variant)
    rng = np.random.default_rng(rules.VARIANTS.index(variant))
    phases, winners, tiebreakers, voids, late = set(), set(), 0, 0, 0
    for seed in range(100):
        options = {} if seed % 10 == 0 else options_for(rng)
        old = check_game(seed, config, options, rng)
        phases.add(int(old.phase))
        winners.add(old.winner)
        tiebreakers += old.tiebreaker
        voids += NO_WINNER in old.trick_results[: old.tricks_done]
        late += old.epoch != old.round
    assert phases == {rules.GAME_OVER}
    assert winners == {rules.RED, rules.BLACK, rules.DRAW}
    assert tiebreakers > 0 and voids > 0 and late > 0


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
