"""Deals consistent with one seat's view (feral_envs/lost_ranks/determinize.py): everything
the seat knows holds in every deal, and nothing it does not know changes the deal."""

from __future__ import annotations

import copy

import numpy as np
from lost_ranks_helpers import swap_hidden

from agents.registry import load_policy
from feral_envs.lost_ranks import CORE
from feral_envs.lost_ranks.determinize import sample_deal, voids_shown
from feral_envs.lost_ranks.rules import (
    DECK,
    FROM_ENEMY,
    FROM_PARTNER,
    TO_ENEMY,
    TO_PARTNER,
    Phase,
    partner,
    pass_enemy,
)

SUIT_OF = np.array(DECK.suit_of)


def bot_positions(games: int, seed: int = 3):
    """Every position of ``games`` bot games, as (state copy, seat to act)."""
    bot = load_policy("heuristic", "lost_ranks", seed=0, keywords={})
    rng = np.random.default_rng(seed)
    for _ in range(games):
        state = CORE.new_game(CORE.make_config(), rng, {})
        while not any(CORE.status(state)[:2]):
            seat = CORE.seat_to_act(state)
            yield copy.deepcopy(state), seat
            CORE.apply(state, bot.act(CORE.observe(state, seat), CORE.legal_mask(state)), rng)


def first_position(seed: int, tricks_done: int):
    """The first position of a bot game with ``tricks_done`` tricks played."""
    return next(
        (state, seat)
        for state, seat in bot_positions(1, seed)
        if state.phase == Phase.PLAY and state.tricks_done == tricks_done
    )


def test_every_deal_keeps_what_the_seat_knows():
    rng = np.random.default_rng(0)
    moved = checked = voids = 0
    for state, seat in bot_positions(3):
        deal = sample_deal(state, seat, rng)
        if state.phase != Phase.PLAY:
            assert deal is None
            continue
        checked += 1
        assert np.array_equal(deal.hands[seat], state.hands[seat])
        assert np.array_equal(deal.hands.sum(axis=1), state.hands.sum(axis=1))
        assert np.array_equal(deal.hands.any(axis=0), state.hands.any(axis=0))
        assert (deal.hands.sum(axis=0) <= 1).all()
        assert np.array_equal(deal.played, state.played)
        for kind, to in ((TO_PARTNER, partner(seat)), (TO_ENEMY, pass_enemy(seat, state.round))):
            unplayed = state.pass_record[seat, kind] & state.hands[to]
            assert (deal.hands[to] >= unplayed).all()  # the cards it passed stay put
        void = voids_shown(state)
        voids += int(void.sum())
        for other, suit in zip(*np.nonzero(void), strict=True):
            assert not (deal.hands[other] & (SUIT_OF == suit)).any()
        assert np.array_equal(deal.pass_record[seat], state.pass_record[seat])
        assert np.array_equal(CORE.observe(deal, seat), CORE.observe(state, seat))
        assert CORE.legal_mask(deal).tolist() == CORE.legal_mask(state).tolist()
        moved += not np.array_equal(deal.hands, state.hands)
    assert checked > 300 and voids > 50  # the constraints were exercised
    assert moved > 0.7 * checked  # and the hidden cards do move


def test_the_deal_depends_only_on_the_seats_view():
    """Swap two hidden cards between the other seats where the seat's view allows it: the
    same generator state must give the same deal."""
    swapped = 0
    for state, seat in bot_positions(2, seed=9):
        if state.phase != Phase.PLAY:
            continue
        a, b = (s for s in range(4) if s not in (seat, partner(seat)))  # the two enemies
        void = voids_shown(state)
        passed = state.pass_record[seat, TO_PARTNER] | state.pass_record[seat, TO_ENEMY]
        ca = [c for c in np.flatnonzero(state.hands[a] & ~passed) if not void[b, SUIT_OF[c]]]
        cb = [c for c in np.flatnonzero(state.hands[b] & ~passed) if not void[a, SUIT_OF[c]]]
        if not ca or not cb:
            continue
        other = swap_hidden(state, seat, (ca[0], cb[0]), clear_pass_of=(a, b))
        assert not np.array_equal(other.hands, state.hands)
        assert np.array_equal(CORE.observe(other, seat), CORE.observe(state, seat))
        one = sample_deal(state, seat, np.random.default_rng(swapped))
        two = sample_deal(other, seat, np.random.default_rng(swapped))
        assert np.array_equal(one.hands, two.hands)
        assert np.array_equal(one.pass_record, two.pass_record)
        swapped += 1
    assert swapped > 20


def test_the_copy_keeps_only_the_pass_records_the_seat_knows():
    state, seat = first_position(seed=4, tricks_done=2)
    deal = sample_deal(state, seat, np.random.default_rng(1))
    record = deal.pass_record
    enemy = pass_enemy(seat, state.round)
    giver = next(s for s in range(4) if s != seat and pass_enemy(s, state.round) == seat)
    assert np.array_equal(record[partner(seat), FROM_PARTNER], state.pass_record[seat, TO_PARTNER])
    assert np.array_equal(record[enemy, FROM_ENEMY], state.pass_record[seat, TO_ENEMY])
    assert np.array_equal(record[partner(seat), TO_PARTNER], state.pass_record[seat, FROM_PARTNER])
    assert np.array_equal(record[giver, TO_ENEMY], state.pass_record[seat, FROM_ENEMY])
    assert record.sum() == 4 * 3  # the seat's own 3 + 3 and their 6 mirror entries
    assert state.pass_record.sum() == 4 * 6  # the true game is untouched


def test_the_game_goes_on_from_a_deal():
    rng = np.random.default_rng(2)
    bot = load_policy("heuristic", "lost_ranks", seed=0, keywords={})
    state, seat = first_position(seed=5, tricks_done=5)
    deal = sample_deal(state, seat, rng)
    epoch = deal.epoch
    while deal.epoch == epoch and not any(CORE.status(deal)[:2]):
        mover = CORE.seat_to_act(deal)
        mask = CORE.legal_mask(deal)
        assert mask.any()
        CORE.apply(deal, bot.act(CORE.observe(deal, mover), mask), rng)
    assert deal.epoch == epoch + 1 or CORE.status(deal)[0]


def test_no_deal_in_the_pass():
    state = CORE.new_game(CORE.make_config(), np.random.default_rng(0), {})
    assert state.phase == Phase.PASS and sample_deal(state, 0, np.random.default_rng(0)) is None
