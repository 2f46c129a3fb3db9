"""Lost Heir random-play invariants, driving ``CORE`` directly for speed.

Each trick's winner and each hand's score are recomputed here from the cards played, by
code written from RULES.md independently of ``feral_envs.cards``/``rules``.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from feral_envs.lost_heir import CORE, rules
from feral_envs.lost_heir.encoding import BID, CARD, DECK, MIN_BID, N_ACTIONS, PASS, TAKE_A_LEAD

HEIR, BOY = DECK.card("W0"), DECK.card("T0")


def oracle_trick_winner(cards: list[int], trump: int) -> int:
    """Position of the winning card: highest trump, else highest of the led city."""
    led = cards[0] // 8

    def key(card):
        city, rank = divmod(card, 8)
        return (2, rank) if city == trump else (1, rank) if city == led else (0, 0)

    return max(range(4), key=lambda pos: key(cards[pos]))


def play_random_game(config, rng):
    """One game of uniformly random legal actions, checked at every step; the final state."""
    state = CORE.new_game(config, rng, {})
    while not (state.terminated or state.truncated):
        mask = CORE.legal_mask(state)
        legal = np.flatnonzero(mask)
        assert mask.dtype == np.int8 and mask.shape == (N_ACTIONS,) and len(legal) > 0
        assert 0 <= CORE.seat_to_act(state) < 4
        # 32 cards: each in exactly one hand or played by exactly one seat
        assert (state.hands.sum(axis=0) + state.played.sum(axis=0) == 1).all()
        if state.phase == rules.Phase.PLAY:
            check_play_mask(state, config, legal)
        action = int(rng.choice(legal))
        finishing = None
        if state.phase == rules.Phase.PLAY and action >= CARD and state.trick_len == 3:
            cards = [*state.trick[:3].tolist(), action - CARD]
            winner = (state.leader + oracle_trick_winner(cards, state.trump)) % 4
            team = winner % 2
            won = 1 + 5 * (HEIR in cards) - 3 * (BOY in cards)
            points = state.team_points.tolist()
            points[team] += won
            finishing = (state.tricks_done, winner, points, state.contract, state.declarer)
        before = state.scores.copy()
        hands_before = state.hands_played
        CORE.apply(state, action, rng)
        if finishing is not None:
            k, winner, points, contract, declarer = finishing
            if k < 7:
                assert state.trick_winners[k] == winner
                assert state.team_points.tolist() == points
                assert state.team_tricks.sum() == k + 1
            else:  # the hand was scored
                check_hand_score(before, state, points, contract, declarer)
        if state.hands_played != hands_before:
            assert state.hands_played == hands_before + 1
            if finishing is None:  # thrown in: no score change
                assert action == PASS and (state.scores == before).all()
    assert state.mask.sum() == 0 and state.phase == rules.Phase.OVER
    if state.terminated:
        reached = state.scores >= config.target_score
        assert reached.any() and reached[state.winner]
    else:
        assert state.hands_played == config.max_hands and state.winner == -1
    return state


def check_play_mask(state, config, legal):
    """Cards: follow the led city if able, else any; `take a lead` only where allowed."""
    seat = state.to_act
    hand = np.flatnonzero(state.hands[seat]).tolist()
    assert len(hand) == 8 - state.tricks_done
    expected = hand
    if state.trick_len:
        led = int(state.trick[0]) // 8
        expected = [c for c in hand if c // 8 == led] or hand
    assert (legal[legal >= CARD] - CARD).tolist() == expected
    # a leader that did not win the previous trick was handed the lead
    handed = (
        state.trick_len == 0
        and state.tricks_done > 0
        and (state.trick_winners[state.tricks_done - 1] != seat)
    )
    allowed = (
        state.trick_len == 0
        and not handed
        and state.tricks_done >= (1 if config.take_a_lead == "after_first_trick" else 2)
    )
    assert (TAKE_A_LEAD in legal) == allowed
    assert legal.min() >= TAKE_A_LEAD


def check_hand_score(before, state, points, contract, declarer):
    change = (state.scores - before).tolist()
    assert change == state.last_hand.tolist()
    decl, other = declarer % 2, 1 - declarer % 2
    assert sum(points) == 10 and all(-2 <= p <= 12 for p in points)
    assert 4 <= contract <= 12
    if points[decl] >= contract:
        assert change[decl] == points[decl] and contract <= change[decl] <= 12
    else:
        assert change[decl] == -contract and -12 <= change[decl] <= -4
    assert change[other] == max(points[other], 0) and 0 <= change[other] <= 12


def random_config(rng, i):
    return rules.make_config(
        target_score=int(rng.integers(1, 41)),
        max_hands=int(rng.integers(1, 13)),
        take_a_lead=rules.TAKE_A_LEAD_CHOICES[i % 2],
    )


CHUNK = 500


@pytest.mark.parametrize(
    "chunk",
    [0, 1, pytest.param(2, marks=pytest.mark.slow), pytest.param(3, marks=pytest.mark.slow)],
)
def test_random_games_invariants_2000(chunk):
    """2,000 complete games with varied keywords (short caps keep this fast), in four chunks
    of 500 that the test workers share: the default run plays the first two (1,000 games),
    `-m slow` (CI) the other two."""
    rng = np.random.default_rng(2024 + chunk)
    ended = {"terminated": 0, "truncated": 0}
    for i in range(chunk * CHUNK, (chunk + 1) * CHUNK):
        state = play_random_game(random_config(rng, i), np.random.default_rng(i))
        ended["terminated" if state.terminated else "truncated"] += 1
    assert ended["terminated"] > 25 and ended["truncated"] > 25, ended


@pytest.mark.slow
def test_random_games_invariants_default_keywords_2000():
    """2,000 complete games with the default keywords (100 hands each when truncated)."""
    for i in range(2000):
        play_random_game(rules.make_config(), np.random.default_rng(10_000 + i))


def game_digest(config, seed):
    rng = np.random.default_rng(seed)
    state = CORE.new_game(config, rng, {})
    h = hashlib.sha256()
    while not (state.terminated or state.truncated):
        action = int(rng.choice(np.flatnonzero(state.mask)))
        CORE.apply(state, action, rng)
        h.update(bytes([action]))
        h.update(CORE.observe(state, state.to_act).tobytes())
    h.update(state.scores.tobytes())
    return h.hexdigest()


def test_same_seed_same_game():
    config = rules.make_config(max_hands=5)
    for seed in range(5):
        assert game_digest(config, seed) == game_digest(config, seed)
    assert game_digest(config, 0) != game_digest(config, 1)


def test_bid_ranges_are_exactly_the_documented_ones():
    assert BID == 1 and MIN_BID == 4
    rng = np.random.default_rng(5)
    seen = set()
    for _ in range(300):
        state = CORE.new_game(rules.make_config(max_hands=1), rng, {})
        while state.phase in (rules.Phase.BID, rules.Phase.DEALER):
            legal = np.flatnonzero(state.mask)
            bids = [a - BID + MIN_BID for a in legal if BID <= a < BID + 9]
            if bids:
                assert bids == list(range(max(state.high_bid + 1, 4), 13))
            seen.add(state.phase)
            CORE.apply(state, int(rng.choice(legal)), rng)
    assert seen == {rules.Phase.BID, rules.Phase.DEALER}
