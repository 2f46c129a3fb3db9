"""Lost Ranks trick play, rule by rule (RULES.md: first lead, following, winning a trick)."""

from __future__ import annotations

import numpy as np
import pytest
from lost_ranks_helpers import BLACK, RED, deal, hand, legal, names, new_env, play, to_act

from feral_envs.lost_ranks import CORE, rules


def test_worked_example_of_the_original():
    # Trump Card 7S: spades are trump, the black Jacks (JS, JC) Active. red_0 holds the 2S,
    # the lowest trump, and leads it; black_0 plays 5S, red_1 its Active JS (its only spade,
    # so it must), black_1 KS: black_1 wins, captures JS for nothing, and leads next.
    hands = deal(
        "7S",
        red_0="2S 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH",
        black_0="3S 4S 5S 6S 8S 9S TS KD AD 2C 3C 4C 5C",
        red_1="JS AH 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD",
    )
    env = new_env("7S", hands)
    assert to_act(env) == "red_0" and legal(env) == {"2S"}
    play(env, "2S", "5S")
    assert legal(env) == {"JS"}, "a lone Jack of the led suit must be played"
    play(env, "JS", "KS")
    state = env.game
    assert to_act(env) == "black_1"
    assert names(state.captured[BLACK]) == {"2S", "5S", "JS", "KS"}
    assert not state.captured[RED].any() and not state.void_pile.any()
    assert state.round_points == [0, 0], "the enemy captured the Active JS: +0 for both"
    assert legal(env) == hand(env, "black_1") - {"SPY"}


def test_rescued_active_jack_scores_for_the_army_that_played_it():
    hands = deal(
        "7S",
        red_0="2S 3S 4S 5S 6S 8S 9S TS QS KS AS 2H 3H",
        red_1="JS 4H 5H 6H 7H 8H 9H TH JH QH KH AH 2D",
    )
    env = new_env("7S", hands)
    play(env, "2S", "3D")
    assert legal(env) == {"JS"}
    play(env, "JS", "3C")
    assert to_act(env) == "red_0"
    assert names(env.game.captured[RED]) == {"2S", "3D", "JS", "3C"}
    assert env.game.round_points == [2, 0]


def test_active_jack_of_a_void_player_won_by_its_partner():
    # Trump spades: JC is Active although clubs are not trump. red_1, void in hearts, plays
    # it to red_0's AH; red_0 wins the trick, so the Red Army rescues its Jack: +2.
    hands = deal(
        "7S",
        red_0="2S 3S 4S 5S 6S 8S 9S TS JS QS KS AS AH",
        red_1="JC 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD",
    )
    env = new_env("7S", hands)
    play(env, "2S", "AD", "2D", "2C")  # trick 1: nobody else has a spade
    assert to_act(env) == "red_0"
    play(env, "AH", "2H")
    assert "JC" in legal(env), "void in hearts: any card"
    play(env, "JC", "3C")
    assert to_act(env) == "red_0"
    assert names(env.game.captured[RED]) >= {"AH", "2H", "JC", "3C"}
    assert env.game.round_points == [2, 0]


def test_jack_of_the_trump_suit_is_not_a_trump():
    # red_0, void in hearts, plays the JS (trump suit) to a heart trick: the highest heart,
    # red_1's 5H, wins; JS is ignored (and rescued: it was red's and red won).
    hands = deal(
        "7S",
        red_0="2S JS 2D 3D 4D 5D 6D 7D 8D 9D TD QD KD",
        black_0="3S 4S 5S 6S 8S 9S TS QS KS AS 2H AD JD",
    )
    env = new_env("7S", hands)
    play(env, "2S", "3S", "3H", "3C")  # black_0's 3S beats the 2S
    assert to_act(env) == "black_0"
    play(env, "2H", "5H", "4C", "JS")
    assert to_act(env) == "red_1"
    assert names(env.game.captured[RED]) == {"2H", "5H", "4C", "JS"}
    assert env.game.round_points == [2, 0]


def test_highest_trump_beats_the_led_suit_and_off_suit_cards_never_win():
    hands = deal(
        "7S",
        red_0="2S 3S 4S 5S 6S 8S 9S TS JS QS KS 2H 3H",
        black_0="AS AH 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD",
    )
    env = new_env("7S", hands)
    play(env, "2S", "AS", "4H", "3C")
    assert to_act(env) == "black_0"
    play(env, "AH", "5H", "4C", "2H")  # the AH wins its suit; the 4C is off-suit
    assert to_act(env) == "black_0"
    play(env, "2D", "KD", "5C", "4S")  # red_0, void in diamonds, trumps the KD with 4S
    assert to_act(env) == "red_0"
    assert names(env.game.captured[RED]) == {"2D", "KD", "5C", "4S"}


def test_void_trick_jack_led_no_infantry_of_its_suit_no_trump():
    # red_0 holds every spade: after trick 1 it leads the JS; the others, void in spades,
    # play the Spy and off-suit cards. Nothing can win: the four cards go to the void pile,
    # nobody scores the Spy or the Active JS, and red_0 leads again.
    hands = deal(
        "2S",
        red_0="3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS 2H",
        black_0="SPY 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
    )
    env = new_env("2S", hands)
    play(env, "3S", "3H", "2D", "2C")
    assert to_act(env) == "red_0"
    play(env, "JS")
    assert env.game.led_suit == rules.DECK.suit_of[rules.DECK.card("JS")], "a Jack sets the suit"
    assert "SPY" in legal(env)
    play(env, "SPY", "3D", "3C")
    state = env.game
    assert names(state.void_pile) == {"JS", "SPY", "3D", "3C"}
    assert names(state.captured[RED]) == {"3S", "3H", "2D", "2C"}
    assert not state.captured[BLACK].any()
    assert state.round_points == [0, 0]
    assert to_act(env) == "red_0" and state.tricks_done == 2


def test_first_lead_is_the_lowest_trump_infantry():
    hands = deal("7H", black_1="2H AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S")
    env = new_env("7H", hands)
    assert to_act(env) == "black_1" and legal(env) == {"2H"}


def test_first_lead_when_the_two_of_trump_is_the_trump_card():
    hands = deal("2H", red_1="3H AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S")
    env = new_env("2H", hands)
    assert to_act(env) == "red_1" and legal(env) == {"3H"}
    play(env, "3H")
    assert to_act(env) == "black_1"


def test_first_lead_is_decided_after_the_pass():
    # red_0 is dealt the 2D (trump diamonds) and passes it to its partner first.
    hands = deal("9D", red_0="2D AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S")
    env = new_env("9D", hands, start="pass")
    assert env.game.phase == rules.Phase.PASS and to_act(env) == "red_0"
    play(env, "2D", "3S", "4S")
    for _ in range(9):
        env.step(int(np.flatnonzero(CORE.legal_mask(env.game))[0]))
    assert env.game.phase == rules.Phase.PLAY
    assert "2D" in hand(env, "red_1")
    assert to_act(env) == "red_1" and legal(env) == {"2D"}


def test_following_suit_with_the_jack_counts():
    # black_0 holds the JH and the 5H: either follows a heart lead, nothing else may.
    hands = deal(
        "7S",
        red_0="2S 3S 4S 5S 6S 8S 9S TS JS QS KS AS 2H",
        black_0="JH 5H SPY 2D 3D 4D 5D 6D 7D 8D 9D TD JD",
    )
    env = new_env("7S", hands)
    play(env, "2S")
    assert legal(env) == hand(env, "black_0"), "void in spades: anything, the Spy included"
    play(env, "2D", "3H", "2C")
    play(env, "2H")
    assert legal(env) == {"JH", "5H"}


@pytest.mark.parametrize(
    ("black_0", "expected"),
    [
        # holding the led suit: must follow, the Spy may not be played
        ("5S SPY 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD", {"5S"}),
        # the only card of the led suit is its Jack: the Jack must be played
        ("JS SPY 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD", {"JS"}),
        # void in the led suit: anything, the Spy included
        (
            "SPY 2H 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD",
            {"SPY", "2H", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "JD", "QD"},
        ),
    ],
    ids=["holds-led-suit", "holds-only-the-jack", "void"],
)
def test_spy_legality_when_following(black_0, expected):
    hands = deal("7S", red_0="2S 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH", black_0=black_0)
    env = new_env("7S", hands)
    play(env, "2S")
    assert to_act(env) == "black_0" and legal(env) == expected


def test_spy_may_not_lead_while_other_cards_are_left():
    hands = deal(
        "7S",
        red_0="2S SPY 3S 4S 5S 6S 8S 9S TS JS QS KS AS",
    )
    env = new_env("7S", hands)
    play(env, "2S", "2H", "2D", "2C")
    assert to_act(env) == "red_0"
    assert legal(env) == hand(env, "red_0") - {"SPY"}


def _keep_the_spy_to_trick_13(env):
    """Play lowest-id legal cards until trick 13 is to be led."""
    while env.game.tricks_done < rules.N_TRICKS - 1 or env.game.n_in_trick:
        mask = CORE.legal_mask(env.game)
        env.step(int(np.flatnonzero(mask)[0]))


def test_trick_13_led_by_the_spy_without_a_trump_is_void():
    # red_0 holds the Spy and every spade: it wins trick after trick (its JS trick is void
    # and it leads again), and must lead the Spy last. Nobody has a trump left: void. (The
    # round is the tiebreaker, so the game ends with it and its piles stay in view.)
    hands = deal("2S", red_0="SPY 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS")
    env = new_env("2S", hands, round=7, scores={"red": 5, "black": 5})
    _keep_the_spy_to_trick_13(env)
    assert to_act(env) == "red_0" and legal(env) == {"SPY"}
    play(env, "SPY")
    assert env.game.led_suit == rules.NO_SUIT
    for _ in range(3):  # every other player may play its last card, whatever it is
        assert legal(env) == hand(env, to_act(env))
        env.step(env.legal_actions()[0])
    state = env.game
    assert state.phase == rules.Phase.GAME_OVER
    assert names(state.void_pile) >= {"SPY", "JS"}
    assert state.round_points == [0, 0] and env.scores == {"red": 5, "black": 5}


def _spy_led_last_tricks():
    """Random rounds played with the Spy kept to the end, whose trick 13 the Spy leads. Each
    is the tiebreaker round 7, so the piles stay in view when the game ends after it."""
    rng = np.random.default_rng(2024)
    config = CORE.make_config()
    options = {"round": 7, "scores": {"red": 0, "black": 0}}
    for _ in range(300):
        state = CORE.new_game(config, rng, options)
        while (
            state.tricks_done < rules.N_TRICKS - 1
            or state.n_in_trick
            or (state.phase == rules.Phase.PASS)
        ):
            mask = CORE.legal_mask(state)
            if mask.sum() > 1:
                mask[rules.SPY] = 0  # keep the Spy
            cards = np.flatnonzero(mask)
            CORE.apply(state, int(cards[rng.integers(len(cards))]), rng)
        if state.hands[state.to_act, rules.SPY]:
            yield state


def test_trick_13_led_by_the_spy_is_won_by_the_highest_trump_or_void():
    seen = set()
    for state in _spy_led_last_tricks():
        leader = state.to_act
        assert names(CORE.legal_mask(state)) == {"SPY"}
        last = {s: int(np.flatnonzero(state.hands[s])[0]) for s in range(4) if s != leader}
        CORE.apply(state, rules.SPY, None)
        assert state.led_suit == rules.NO_SUIT
        for i in (1, 2, 3):  # nobody has to follow anything: its last card is legal
            seat = (leader + i) % 4
            assert names(CORE.legal_mask(state)) == {rules.DECK.names[last[seat]]}
            CORE.apply(state, last[seat], None)
        assert state.phase == rules.Phase.GAME_OVER
        trumps = {
            s: c
            for s, c in last.items()
            if rules.DECK.suit_of[c] == state.trump_suit and c not in rules.JACKS
        }
        if trumps:
            winner = max(trumps, key=lambda s: rules.DECK.power_of[trumps[s]])
            assert state.captured[winner % 2, rules.SPY]
            assert state.trick_results[12] == winner
            seen.add("trump")
        else:
            assert state.void_pile[rules.SPY] and state.trick_results[12] == rules.NO_WINNER
            seen.add("void")
        if seen == {"trump", "void"}:
            return
    pytest.fail(f"only {seen} found")
