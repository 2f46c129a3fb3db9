"""What the terminal game says after a decision besides its name (``play.terminal.news``):
trick winners, scored and thrown-in hands, strikes. Checked against the rules' own state."""

from __future__ import annotations

import re

import numpy as np
import pytest

import feral_envs
from play.terminal import hidden_action, news, snapshot


def _step(env, action: int) -> list[str]:
    raw = env.unwrapped
    before = snapshot(raw)
    env.step(action)
    return news(raw, before, action)


@pytest.mark.parametrize("game", ["lost_heir", "lost_ranks"])
def test_trick_winners_agree_with_the_rules(game):
    env = feral_envs.make(game)
    raw = env.unwrapped
    rng = np.random.default_rng(0)
    checked = 0
    for seed in range(3):
        env.reset(seed=seed)
        for _ in range(400):
            if not raw.agents or raw.terminations[raw.agent_selection]:
                break
            done_before = raw.game.tricks_done
            lines = _step(env, int(rng.choice(raw.legal_actions())))
            said = [line for line in lines if "trick" in line]
            if raw.game.tricks_done == done_before + 1:  # a trick ended, the hand goes on
                results = raw.game.trick_winners if game == "lost_heir" else raw.game.trick_results
                winner = int(results[done_before])
                expected = (
                    f"{raw.possible_agents[winner]} wins the trick"
                    if winner >= 0
                    else "a void trick"
                )
                assert len(said) == 1 and said[0].startswith(expected), (said, expected)
                checked += 1
            elif raw.game.tricks_done == done_before:
                assert not said, "a trick was said to end, but none did"
    assert checked > 20


def test_lost_heir_hand_scores_and_throw_ins():
    env = feral_envs.make("lost_heir")
    raw = env.unwrapped
    env.reset(seed=0)
    lines = []
    for _ in range(4):
        lines += _step(env, raw.string_to_action("pass"))
    assert lines == ["hand 1 is thrown in: nobody bid"]
    rng = np.random.default_rng(1)
    while raw.game.hands_played == 1:
        lines = _step(env, int(rng.choice(raw.legal_actions())))
    change = [int(x) for x in raw.game.last_hand]
    assert lines[-1] == (
        f"hand 2 scored: north_south {change[0]:+d}, east_west {change[1]:+d}; "
        f"scores: north_south {raw.scores['north_south']}, east_west {raw.scores['east_west']}"
    )


def test_lost_ranks_round_scores():
    env = feral_envs.make("lost_ranks")
    raw = env.unwrapped
    env.reset(seed=2, options={"scores": {"red": 3, "black": 5}})
    rng = np.random.default_rng(2)
    while raw.game.round == 1:
        lines = _step(env, int(rng.choice(raw.legal_actions())))
    red, black = raw.scores["red"], raw.scores["black"]
    assert lines[-1] == f"round 1 scored: red {red - 3:+d}, black {black - 5:+d}; " + (
        f"scores: red {red}, black {black}"
    )


def test_every_strike_is_told_even_the_same_one_twice():
    env = feral_envs.make("hidden_ranks")
    raw = env.unwrapped
    position = {"gold": {"a1": "F", "e4": "4", "f4": "4"}, "silver": {"j10": "F", "e5": "B"}}
    env.reset(options={"position": {**position, "silver": {**position["silver"], "a9": "3"}}})
    told = [_step(env, raw.string_to_action(m)) for m in ("e4-e5", "a9-a8", "f4-f5", "a8-a9")]
    told.append(_step(env, raw.string_to_action("f5-e5")))
    strike = ["strike on e5: gold 4 against silver B: defender wins"]
    assert told == [strike, [], [], [], strike]


def test_hidden_decisions():
    env = feral_envs.make("hidden_ranks", mode="quick")
    env.reset(seed=0)
    assert hidden_action(env.unwrapped) == "sets up its army (hidden from you)"
    env = feral_envs.make("lost_ranks")
    env.reset(seed=0)
    assert re.match("chooses the cards it passes", hidden_action(env.unwrapped))
    env.reset(seed=0, options={"start": "play"})
    assert hidden_action(env.unwrapped) is None
    env = feral_envs.make("lost_heir")
    env.reset(seed=0)
    assert hidden_action(env.unwrapped) is None
