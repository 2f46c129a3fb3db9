"""Random-play invariants of Lost Ranks, on the rules core (thousands of games), and the
Trump Card flip."""

from __future__ import annotations

import numpy as np
import pytest

from feral_envs.engine.rng import StreamGenerator, seed_words
from feral_envs.lost_ranks import CORE, rules
from feral_envs.lost_ranks.rules import JACKS, N_CARDS, SPY, Phase


def _check(state: rules.State) -> None:
    """Every invariant of a running (or just finished) game."""
    # the 53 cards: hands, choices waiting for the exchange, the trick, the piles, Trump Card
    count = state.hands.sum(axis=0, dtype=np.int64) + state.captured.sum(axis=0) + state.void_pile
    count[state.trump_card] += 1
    for card in state.trick[: state.n_in_trick]:
        count[card] += 1
    if state.phase == Phase.PASS:
        for card in state.pass_choice.ravel():
            if card >= 0:
                count[card] += 1
    assert (count == 1).all(), np.flatnonzero(count != 1)
    assert state.trump_card != SPY and state.trump_card not in JACKS
    assert all(0 <= p <= 6 for p in state.round_points) and sum(state.round_points) <= 6
    assert 1 <= state.round <= rules.MAX_ROUND
    held = state.hands.sum(axis=1)
    if state.phase == Phase.PLAY:
        base = 13 - state.tricks_done
        for i in range(4):
            seat = (state.leader + i) % 4
            assert held[seat] == base - (i < state.n_in_trick)
    elif state.phase == Phase.PASS:
        for seat in range(4):
            done = 3 if seat < state.to_act else state.pass_step if seat == state.to_act else 0
            assert held[seat] == 13 - done


def _expected_legal(state: rules.State) -> list[int]:
    """The legal cards by RULES.md, recomputed here: suits are ``card // 13``, the Spy (52)
    has none; the holder of the lowest trump Infantry leads it first; the Spy leads only as
    the player's last card; a follower holding the led suit (its Jack too) plays one."""
    hand = np.flatnonzero(state.hands[state.to_act]).tolist()
    if state.phase == Phase.PASS:
        return hand
    if state.n_in_trick == 0:
        if state.tricks_done == 0:  # the first lead of the round
            trump = state.trump_card // 13
            infantry = [c for c in range(13 * trump, 13 * trump + 13) if c not in JACKS]
            lowest = next(c for c in infantry if c != state.trump_card)
            assert lowest in hand
            return [lowest]
        return [c for c in hand if c != SPY or len(hand) == 1]
    led = state.trick[0]
    if led == SPY:
        return hand
    same = [c for c in hand if c != SPY and c // 13 == led // 13]
    return same or hand


def _play_games(n_games: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    configs = [CORE.make_config(variant=v) for v in rules.VARIANTS]
    stats = {"rounds": 0, "void": 0, "winners": {0: 0, 1: 0, -1: 0}, "tiebreakers": 0}
    for game in range(n_games):
        state = CORE.new_game(configs[game % 3], rng, {})
        round_number, scores = state.round, state.scores.copy()
        for _ in range(10_000):
            terminated, truncated, winner = CORE.status(state)
            assert not truncated
            if terminated:
                break
            seat = CORE.seat_to_act(state)
            mask = CORE.legal_mask(state)
            assert mask.dtype == np.int8 and mask.any(), "a running game always has a move"
            assert not (mask.astype(bool) & ~state.hands[seat]).any(), "only own cards"
            legal_cards = np.flatnonzero(mask)
            assert legal_cards.tolist() == _expected_legal(state)
            CORE.apply(state, int(legal_cards[rng.integers(legal_cards.size)]), rng)
            _check(state)
            if state.round != round_number or CORE.status(state)[0]:
                gained = state.scores - scores
                assert (gained >= 0).all() and (gained <= 6).all() and gained.sum() <= 6
                stats["rounds"] += 1
                round_number, scores = state.round, state.scores.copy()
            stats["void"] += state.void_pile.any()
        else:
            pytest.fail("game did not end")
        stats["winners"][winner] += 1
        stats["tiebreakers"] += state.tiebreaker
        _check_end(state, winner)
    return stats


def _check_end(state: rules.State, winner: int) -> None:
    red, black = (int(s) for s in state.scores)
    if winner == -1:
        assert red == black and state.tiebreaker
    else:
        assert (red > black) == (winner == rules.RED) and red != black
        assert state.tiebreaker or max(red, black) >= rules.TARGET or state.round == 6


def test_random_games_keep_every_invariant():
    stats = _play_games(250, seed=0)
    assert stats["winners"][0] > 60 and stats["winners"][1] > 60
    assert stats["rounds"] > 1000 and stats["void"] > 0


@pytest.mark.slow
def test_2000_random_games_keep_every_invariant():
    # about 40 s on a shared 2-core machine: `pytest -m slow`
    stats = _play_games(2000, seed=1)
    assert stats["winners"][0] > 500 and stats["winners"][1] > 500
    assert stats["winners"][-1] > 0 and stats["tiebreakers"] > 0


def _first_flips(words: np.ndarray, n: int) -> list[np.ndarray]:
    """The first ``n`` decks that a game drawn from ``words`` shuffles (as the engine does)."""
    stream = StreamGenerator(words)
    return [stream.permutation(N_CARDS) for _ in range(n)]


def test_a_flipped_jack_or_spy_goes_back_and_the_deck_is_reshuffled():
    found = set()
    for seed in range(400):
        words = seed_words(seed)
        decks = _first_flips(words, 4)
        bad = [d[0] in JACKS or d[0] == SPY for d in decks]
        if not bad[0] or all(bad):
            continue
        kept = decks[bad.index(False)]  # the first deck whose top card is Infantry
        state = CORE.new_game(CORE.make_config(), words, {})
        assert state.trump_card == kept[0], seed
        assert rules.DECK.names[decks[0][0]] not in {rules.DECK.names[state.trump_card]}
        for seat in range(4):
            assert set(np.flatnonzero(state.hands[seat])) == set(
                kept[1 + 13 * seat : 14 + 13 * seat].tolist()
            )
        suit_colour = rules.SUIT_COLOUR[rules.DECK.suit_of[state.trump_card]]
        same_colour = [j for j in JACKS if rules.SUIT_COLOUR[rules.DECK.suit_of[j]] == suit_colour]
        assert state.active_jacks == tuple(same_colour)
        found.add("spy" if decks[0][0] == SPY else "jack")
        found.add(f"flips {bad.index(False) + 1}")
    assert {"jack", "spy", "flips 2"} <= found


def test_seeded_flips_never_give_a_jack_or_the_spy_and_cover_the_infantry():
    seen = set()
    for seed in range(600):
        state = CORE.new_game(CORE.make_config(), np.random.default_rng(seed), {})
        seen.add(state.trump_card)
    assert seen == set(range(N_CARDS)) - set(JACKS) - {SPY}
