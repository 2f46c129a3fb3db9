"""Lost Ranks scoring (Jacks, the Spy by variant) and every way the game can end."""

from __future__ import annotations

import numpy as np
import pytest
from lost_ranks_helpers import deal, new_env, play, play_round

from feral_envs.core import DRAW
from feral_envs.lost_ranks import rules
from feral_envs.lost_ranks.rules import AGENTS

# Deals whose round points are known whatever the players do after the scripted tricks.
# red_0 holds every spade but the Trump Card 2S, so it wins every trick it leads except the
# one it leads with the JS (void: no other spade exists), and leads the Spy last (void).
SPADES = "3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS"
ZERO = deal("2S", red_0="SPY " + SPADES)  # the Active JC is black_1's: captured by red, 0
RED_2 = deal("2S", red_0="SPY " + SPADES, red_1="JC 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD")
# BOTH: red rescues its JC in trick 1; black_0 wins trick 2 with a heart and black_1's Spy.
BOTH = deal(
    "2S",
    red_0=SPADES + " 2H",
    black_0="3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH 2D",
    red_1="JC 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
)


def play_deal(env, which):
    """Play the round of a deal above; returns the round points it scored."""
    if which is BOTH:
        play(env, "3S", "3H", "JC", "2C")  # red_1's Active JC rescued: red +2
        play(env, "2H", "4H", "3D", "SPY")  # black_0's 4H wins the Spy: black +2
        assert env.game.round_points == [2, 2]
    if which is RED_2:
        play_round(env, prefer={"red_1": ["JC"]})
    else:
        play_round(env)


@pytest.mark.parametrize(("hands", "points"), [(ZERO, (0, 0)), (RED_2, (2, 0)), (BOTH, (2, 2))])
def test_the_test_deals_score_what_they_should(hands, points):
    env = new_env("2S", hands, reward="points")
    returns = dict.fromkeys(AGENTS, 0.0)
    while env.game.round == 1:
        play_deal(env, hands)
        for agent in AGENTS:
            returns[agent] += env.rewards[agent]
    assert env.scores == {"red": points[0], "black": points[1]}
    diff = points[0] - points[1]
    assert returns == {"red_0": diff, "black_0": -diff, "red_1": diff, "black_1": -diff}


def test_inactive_jacks_score_nothing():
    # as the Active JC rescue above, but the JD is Inactive under a spade Trump Card
    hands = deal(
        "7S",
        red_0="2S 3S 4S 5S 6S 8S 9S TS JS QS KS AS AH",
        red_1="JD 2D 3D 4D 5D 6D 7D 8D 9D TD JC QD KD",
    )
    env = new_env("7S", hands)
    play(env, "2S", "AD", "JD", "2C")
    assert env.game.captured[rules.RED, rules.DECK.card("JD")]
    assert env.game.round_points == [0, 0]


def _spy_deal(trump_letter: str, capturer: int) -> tuple[str, dict]:
    """A first trick where black_0 sheds the Spy and ``capturer``'s army wins it."""
    if capturer == rules.RED:
        hands = deal(
            "7S",
            red_0="2S 3S 4S 5S 6S 8S 9S TS JS QS KS AS 2H",
            black_0="SPY 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
        )
    else:
        hands = deal(
            "7S",
            red_0="2S 4S 5S 6S 8S 9S TS JS QS KS AS 2H 3H",
            black_0="SPY 4H 5H 6H 7H 8H 9H TH JH QH KH AH 2D",
            black_1="3S 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC",
        )
    if trump_letter == "H":  # the same deal with spades and hearts swapped
        swap = str.maketrans({"S": "H", "H": "S"})
        hands = {a: [c if c == "SPY" else c.translate(swap) for c in h] for a, h in hands.items()}
    return f"7{trump_letter}", hands


SPY_POINTS = {
    # (variant, trump colour, capturing army): (red points, black points)
    ("standard", "black", "red"): (2, 0),
    ("standard", "black", "black"): (0, 2),
    ("standard", "red", "red"): (2, 0),
    ("standard", "red", "black"): (0, 2),
    ("master_of_spies", "black", "red"): (0, 0),
    ("master_of_spies", "black", "black"): (0, 2),
    ("master_of_spies", "red", "red"): (2, 0),
    ("master_of_spies", "red", "black"): (0, 0),
    ("turncoat", "black", "red"): (1, 0),
    ("turncoat", "black", "black"): (0, 2),
    ("turncoat", "red", "red"): (2, 0),
    ("turncoat", "red", "black"): (0, 1),
}


@pytest.mark.parametrize(("variant", "colour", "capturer"), list(SPY_POINTS))
def test_spy_scoring_by_variant(variant, colour, capturer):
    army = rules.ARMY_NAMES.index(capturer)
    trump, hands = _spy_deal("S" if colour == "black" else "H", army)
    env = new_env(trump, hands, variant=variant)
    first = "2S" if colour == "black" else "2H"
    play(env, first, "SPY")
    env.step(env.legal_actions()[0])
    env.step(env.legal_actions()[0])
    assert env.game.captured[army, rules.SPY]
    assert tuple(env.game.round_points) == SPY_POINTS[(variant, colour, capturer)]


# ---------------------------------------------------------------------------------------------
# The end of the game


def _finish(env):
    """Play on at random until the game ends."""
    rng = np.random.default_rng(0)
    while not env.terminations[env.agent_selection]:
        env.step(int(rng.choice(env.legal_actions())))


def _rewards(env):
    return [env._cumulative_rewards[a] for a in AGENTS]


def test_exactly_one_army_at_18_wins():
    env = new_env("2S", RED_2, round=3, scores={"red": 16, "black": 10})
    play_deal(env, RED_2)
    assert env.terminations["red_0"] and env.scores == {"red": 18, "black": 10}
    assert env.game.winner == rules.RED
    assert _rewards(env) == [1, -1, 1, -1]


def test_both_armies_at_18_the_higher_wins():
    env = new_env("2S", BOTH, round=4, scores={"red": 17, "black": 16})
    play_deal(env, BOTH)
    assert env.scores == {"red": 19, "black": 18}
    assert env.game.winner == rules.RED and all(env.terminations.values())


def test_level_at_18_or_more_brings_a_tiebreaker_round_numbered_on():
    env = new_env("2S", BOTH, round=4, scores={"red": 16, "black": 16})
    play_deal(env, BOTH)
    state = env.game
    assert not any(env.terminations.values())
    assert env.scores == {"red": 18, "black": 18}
    assert state.round == 5 and state.tiebreaker and state.pass_left
    assert state.phase == rules.Phase.PASS
    _finish(env)
    assert env.game.round == 5, "the game ends after the tiebreaker round"
    red, black = env.scores["red"], env.scores["black"]
    assert env.game.winner == (DRAW if red == black else int(black > red))


def test_below_18_the_game_goes_on_until_round_6():
    env = new_env("2S", ZERO, round=5, scores={"red": 10, "black": 8})
    play_deal(env, ZERO)
    assert not any(env.terminations.values()) and env.game.round == 6
    assert not env.game.tiebreaker and not env.game.pass_left


def test_after_round_6_the_higher_score_wins_below_18():
    env = new_env("2S", ZERO, round=6, scores={"red": 8, "black": 10})
    play_deal(env, ZERO)
    assert env.game.winner == rules.BLACK and all(env.terminations.values())
    assert _rewards(env) == [-1, 1, -1, 1]


def test_level_after_round_6_brings_round_7():
    env = new_env("2S", ZERO, round=6, scores={"red": 9, "black": 9})
    play_deal(env, ZERO)
    state = env.game
    assert not any(env.terminations.values())
    assert state.round == 7 and state.tiebreaker and state.pass_left


def test_level_after_the_tiebreaker_is_a_draw():
    env = new_env("2S", ZERO, round=7, scores={"red": 9, "black": 9})
    assert env.game.tiebreaker
    play_deal(env, ZERO)
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.game.winner == DRAW and _rewards(env) == [0, 0, 0, 0]


def test_the_tiebreaker_is_won_by_the_higher_score_even_below_18():
    env = new_env("2S", RED_2, round=7, scores={"red": 9, "black": 9})
    play_deal(env, RED_2)
    assert env.game.winner == rules.RED and env.scores == {"red": 11, "black": 9}


def test_a_tiebreaker_before_round_6_ends_the_game_too():
    env = new_env("2S", ZERO, round=3, scores={"red": 18, "black": 18})
    assert env.game.tiebreaker
    play_deal(env, ZERO)
    assert env.game.winner == DRAW and all(env.terminations.values())


def test_points_rewards_come_after_each_round_only():
    env = new_env("2S", RED_2, reward="points")
    nonzero = []
    steps = 0
    while env.game.round == 1:
        legal_cards = env.legal_actions()
        jc = rules.DECK.card("JC")
        env.step(jc if jc in legal_cards else legal_cards[0])
        steps += 1
        if any(env.rewards.values()):
            nonzero.append((steps, dict(env.rewards)))
    assert nonzero == [(52, {"red_0": 2.0, "black_0": -2.0, "red_1": 2.0, "black_1": -2.0})]
