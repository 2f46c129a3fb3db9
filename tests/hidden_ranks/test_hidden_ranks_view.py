"""The decoded view of an engine row (``feral_envs.hidden_ranks.view.decode``) against the pure
core's ``State``, field for field, at every step of random games.

Both cores start from the same stream words (the pure core through ``rng.StreamGenerator``), so
their random setups are the same. Every field must be equal in value and type (numpy arrays
with the same dtype and shape, ``phase`` a ``rules.Phase``, bools as bools, ints as ints), with
no exception.
"""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest

from feral_envs.engine.rng import StreamGenerator, seed_words
from feral_envs.hidden_ranks import engine, rules, view

FIELDS = tuple(f.name for f in dataclasses.fields(rules.State))
ENDS = {rules.END_FLAG, rules.END_NO_MOVE, rules.END_NEITHER_CAN_MOVE, rules.END_MOVE_LIMIT}


def same(a, b) -> bool:
    """Equal in value and type, arrays with the same dtype and shape."""
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
    return a == b


def random_setup(seat: int, mode: str, rng: np.random.Generator) -> dict:
    """A valid setup of ``seat``'s army, as reset options take it."""
    home = [rules.ego_square(seat, e) for e in range(rules.N_HOME)]
    order = rules.SETUP_ORDER[mode]
    squares = rng.permutation(home)[: len(order)]
    return {rules.SQUARE_NAMES[s]: rules.RANK_NAMES[r] for s, r in zip(squares, order, strict=True)}


def random_position(mode: str, rng: np.random.Generator) -> dict:
    """Reset options of a position: a random part of each army on random squares (often a
    few pieces, so that a side or both run out of moves), a random seat to move or none."""
    free = [s for s in range(rules.N_SQUARES) if s not in rules.LAKE_SQUARES]
    rng.shuffle(free)
    army = list(rules.SETUP_ORDER[mode])
    sides = {}
    for agent in rules.AGENTS:
        size = rng.integers(0, 4) if rng.random() < 0.6 else rng.integers(0, min(len(army), 10) + 1)
        ranks = rng.permutation(army)[:size]
        squares, free = free[: len(ranks)], free[len(ranks) :]
        sides[agent] = {
            rules.SQUARE_NAMES[s]: rules.RANK_NAMES[r] for s, r in zip(squares, ranks, strict=True)
        }
    options: dict = {"position": sides}
    if rng.random() < 0.8:
        options["to_move"] = rules.AGENTS[rng.integers(2)]
    return options


def duel(rng: np.random.Generator) -> dict:
    """A position of one moving piece a side, of the same rank, and the Flags: a strike
    between the two removes both, and neither player can move."""
    rank = rules.RANK_NAMES[rng.choice([rules.SCOUT, rules.MINER, 9, rules.MARSHAL])]
    column = "abefij"[rng.integers(6)]
    return {
        "position": {
            "gold": {f"{column}4": rank, "a1": "F"},
            "silver": {f"{column}7": rank, "j10": "F"},
        },
        "to_move": rules.AGENTS[rng.integers(2)],
    }


def start_for(mode: str, k: int, rng: np.random.Generator) -> tuple[dict, int]:
    """Reset options (none, a given setup of one seat or both, or a position) and the turn
    limit of game ``k``: small ones and the default for whole armies, a few moves to a few
    hundred for positions."""
    pick = rng.random()
    limits = LIMITS[mode]
    if pick < 0.25:
        return {}, limits[k % len(limits)]
    if pick < 0.5:
        seats = ((0,), (1,), (0, 1))[rng.integers(3)]
        setups = {rules.AGENTS[s]: random_setup(s, mode, rng) for s in seats}
        return {"setup": setups}, limits[k % len(limits)]
    position = duel(rng) if pick < 0.62 else random_position(mode, rng)
    return position, int(rng.choice([3, 30, 300]))


def check_game(seed: int, config: rules.Config, options: dict, actions) -> tuple:
    """A game of random actions in both cores, the view checked at every step: the pure
    core's final state, the steps of the setup phase and the highest shuttle count seen
    (None, 0, 0 for a start both cores refuse)."""
    words = seed_words(seed)
    stream = StreamGenerator(words)
    row = np.zeros(engine.ROW_SIZE, dtype=np.int32)
    row[: len(words)] = words
    try:
        old = rules.new_game(config, stream, dict(options))
    except ValueError:  # the side to move of a position has no legal move
        with pytest.raises(ValueError):
            engine.start(row, config, dict(options))
        return None, 0, 0
    engine.start(row, config, dict(options))
    placed = shuttle = 0
    for step in range(100_000):
        got = view.decode(row, config)
        for name in FIELDS:
            want = getattr(old, name)
            if not same(want, getattr(got, name)):
                raise AssertionError(
                    f"seed {seed}, {config}, options {options}, step {step}: field {name}: "
                    f"core {want!r}, view {getattr(got, name)!r}"
                )
        if old.terminated:
            return old, placed, shuttle
        placed += old.phase == rules.Phase.SETUP
        shuttle = max(shuttle, int(old.shuttle.max()))
        legal = np.flatnonzero(rules.legal_mask(old))
        action = int(legal[actions.integers(len(legal))])
        rules.apply(old, action)
        engine.apply(row, action)
    raise AssertionError(f"seed {seed}: the game did not end")


COMBOS = list(itertools.product(rules.MODES, rules.SETUPS))
LIMITS = {"quick": (1, 2, 6, 30, 300, 2000), "full": (1, 3, 12, 40, 2000)}
GAMES = {"quick": 200, "full": 150}


@pytest.mark.parametrize(("mode", "setup"), COMBOS, ids=lambda v: v)
def test_the_view_is_the_pure_state_at_every_step(mode, setup):
    """Random games from random reset options (none, given setups, positions with and
    without ``to_move``) under small and large turn limits: every ending, every winner and a
    shuttle ban (shuttle 3) come up in each mode and setup, and setup-phase steps where the
    setup is chosen."""
    rng = np.random.default_rng(COMBOS.index((mode, setup)))
    ends, winners, shuttles, played, placed = set(), set(), 0, 0, 0
    for k in range(GAMES[mode]):
        options, limit = start_for(mode, k, rng)
        config = rules.make_config(mode=mode, setup=setup, max_moves=limit)
        old, steps, shuttle = check_game(
            1000 * COMBOS.index((mode, setup)) + k, config, options, rng
        )
        if old is None:
            continue
        played += 1
        placed += steps
        ends.add(old.end)
        winners.add(old.winner)
        shuttles = max(shuttles, shuttle)
    assert ends == ENDS
    assert winners == {rules.GOLD, rules.SILVER, rules.DRAW}
    assert (placed > 0) == (setup == "choose")
    assert shuttles == 3 and played > GAMES[mode] // 2


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
