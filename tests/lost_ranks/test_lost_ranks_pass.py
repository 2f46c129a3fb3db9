"""The Lost Ranks pass: order of the choices, directions by round, the exchange."""

from __future__ import annotations

import numpy as np
import pytest
from lost_ranks_helpers import deal, hand, legal, new_env, play, to_act

from feral_envs.lost_ranks import CORE, rules
from feral_envs.lost_ranks.encoding import OBS
from feral_envs.lost_ranks.rules import AGENTS, DECK

HANDS = deal(
    "7S",
    red_0="2S 3S 4S 5S 6S 8S 9S TS JS QS KS AS 2H",
    black_0="3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH SPY",
    red_1="2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
)  # black_1: the 13 clubs


def _scores_for(round_number: int) -> dict:
    return {"red": 3, "black": 3} if round_number == 7 else {"red": 2, "black": 1}


@pytest.mark.parametrize("round_number", [1, 2, 3, 4, 5, 6, 7])
def test_pass_direction_by_round_and_hand_sizes_after_the_pass(round_number):
    env = new_env("7S", HANDS, start="pass", round=round_number, scores=_scores_for(round_number))
    chosen = {}
    for seat, agent in enumerate(AGENTS):
        cards = sorted(hand(env, agent), key=DECK.card)[:3]  # its three lowest cards
        for step, card in enumerate(cards):
            assert to_act(env) == agent and env.game.pass_step == step
            play(env, card)
        chosen[seat] = cards
    left = round_number % 2 == 1
    assert env.game.phase == rules.Phase.PLAY
    for seat, agent in enumerate(AGENTS):
        partner = (seat + 2) % 4
        enemy = (seat + 1) % 4 if left else (seat + 3) % 4
        from_enemy = (seat + 3) % 4 if left else (seat + 1) % 4
        held = hand(env, agent)
        assert len(held) == 13
        assert set(chosen[partner][:2]) <= held and chosen[enemy][2] not in held
        assert chosen[from_enemy][2] in held
        assert not set(chosen[seat]) & held
        assert chosen[seat][2] in hand(env, AGENTS[enemy])
        assert set(HANDS[agent]) - set(chosen[seat]) <= held


def test_directions_of_rounds_1_to_7():
    assert [rules.pass_enemy(0, r) for r in range(1, 8)] == [1, 3, 1, 3, 1, 3, 1]
    assert [rules.pass_enemy(1, r) for r in range(1, 8)] == [2, 0, 2, 0, 2, 0, 2]


def test_a_chosen_card_cannot_be_chosen_again_and_incoming_cards_arrive_after_all_choose():
    env = new_env("7S", HANDS, start="pass")
    play(env, "2H", "JS", "AS")  # red_0: 2H and JS to red_1, AS to black_0 (left, round 1)
    assert to_act(env) == "black_0"
    assert "AS" not in legal(env), "a card passed to black_0 is not in its hand yet"
    assert legal(env) == set(HANDS["black_0"])
    play(env, "SPY", "JH", "AH")  # the Spy and Jacks may be passed
    assert legal(env) == set(HANDS["red_1"])
    play(env, "2D", "3D", "4D")
    play(env, "2C", "3C", "4C")
    state = env.game
    assert state.phase == rules.Phase.PLAY
    assert {"AS", "2C", "3C"} <= hand(env, "black_0")
    assert {"2H", "JS", "AH"} <= hand(env, "red_1")
    assert {"SPY", "JH", "4D"} <= hand(env, "black_1")
    assert {"2D", "3D", "4C"} <= hand(env, "red_0")
    assert to_act(env) == "red_0" and legal(env) == {"2S"}


def test_choices_in_progress_are_in_the_hand_no_longer_and_shown_to_the_chooser():
    env = new_env("7S", HANDS, start="pass")
    play(env, "3S")
    obs = env.observe("red_0")["observation"]
    assert obs[OBS.pass_step.start + 1] == 1 and obs[OBS.pass_step.slice].sum() == 1
    assert obs[OBS.passed_to_partner.start + DECK.card("3S")] == 1
    assert obs[OBS.hand.start + DECK.card("3S")] == 0
    assert "3S" not in legal(env) and len(legal(env)) == 12
    play(env, "4S")
    obs = env.observe("red_0")["observation"]
    assert obs[OBS.pass_step.start + 2] == 1
    play(env, "5S")
    obs = env.observe("red_0")["observation"]
    assert obs[OBS.pass_step.slice].sum() == 0, "red_0 has made its three choices"
    assert obs[OBS.passed_to_enemy.start + DECK.card("5S")] == 1
    assert obs[OBS.hand.slice].sum() == 10
    assert env.observe("black_0")["observation"][OBS.pass_step.start] == 1


def test_start_play_skips_the_pass():
    env = new_env("7S", HANDS, start="play")
    assert env.game.phase == rules.Phase.PLAY
    assert all(hand(env, a) == set(HANDS[a]) for a in AGENTS)
    assert not env.game.pass_record.any()
    assert to_act(env) == "red_0" and legal(env) == {"2S"}


def test_later_rounds_start_with_a_pass_again():
    env = new_env(start="play")
    rng = np.random.default_rng(0)
    while env.game.round == 1:
        legal_cards = np.flatnonzero(CORE.legal_mask(env.game))
        env.step(int(legal_cards[rng.integers(len(legal_cards))]))
    assert env.game.phase == rules.Phase.PASS and to_act(env) == "red_0"
    assert env.game.hands.sum(axis=1).tolist() == [13, 13, 13, 13]
    assert not env.game.pass_left
