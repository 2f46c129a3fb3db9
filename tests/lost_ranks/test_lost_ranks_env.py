"""The Lost Ranks env: keywords, bad input, rendering, seeding, reward attribution."""

from __future__ import annotations

import numpy as np
import pytest
from lost_ranks_helpers import deal, new_env

from feral_envs import lost_ranks_v0, make
from feral_envs.lost_ranks import CORE

HANDS = deal("7S", red_0="2S 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH")


def test_keywords_and_metadata():
    env = lost_ranks_v0.env(variant="turncoat", reward="points", render_mode="ansi")
    assert env.unwrapped.config.variant == "turncoat"
    assert env.unwrapped.metadata["name"] == "lost_ranks_v0"
    assert env.possible_agents == ["red_0", "black_0", "red_1", "black_1"]
    assert CORE.keyword_choices == {
        "reward": ("win", "points"),
        "variant": ("standard", "master_of_spies", "turncoat"),
    }
    assert make("lost_ranks_v0").unwrapped.config.variant == "standard"
    with pytest.raises(ValueError, match=r"variant='spies'.*'standard', 'master_of_spies'"):
        lost_ranks_v0.env(variant="spies")
    with pytest.raises(ValueError, match="reward"):
        lost_ranks_v0.raw_env(reward="score")


BAD_OPTIONS = [
    ({"trump_card": "ZZ"}, "unknown card 'ZZ'"),
    ({"trump_card": "JS"}, "a Jack or the Spy cannot be the Trump Card"),
    ({"trump_card": "spy"}, "a Jack or the Spy cannot be the Trump Card"),
    ({"trump_card": 7}, "trump_card=7 must be a card name"),
    ({"hands": {"red_0": HANDS["red_0"]}}, "hands must be a dict with keys red_0"),
    ({"hands": {**HANDS, "red_0": HANDS["red_0"][:12]}}, "hands\\['red_0'\\] has 12 cards"),
    ({"hands": {**HANDS, "red_0": "2S 2H"}}, "must be a list of 13 card names"),
    ({"hands": {**HANDS, "red_0": [*HANDS["red_0"][:12], "2S"]}}, "more than once: 2S"),
    ({"hands": {**HANDS, "red_0": [*HANDS["red_0"][:12], "AC"]}}, "AC is in the hands of both"),
    (
        {"hands": {**HANDS, "red_0": [*HANDS["red_0"][:12], "7S"]}, "trump_card": "7S"},
        "the Trump Card 7S is in the hands of red_0",
    ),
    (
        {"hands": {**HANDS, "red_0": [c if c != "JH" else "7S" for c in HANDS["red_0"]]}},
        "the card left out of the hands, JH, would be the Trump Card",
    ),
    ({"hands": {**HANDS, "red_0": [*HANDS["red_0"][:12], "XX"]}}, "unknown card 'XX'"),
    ({"hands": {**HANDS}, "trump_card": "3S"}, "the Trump Card 3S is in the hands"),
    ({"round": 0}, "round=0 must be an integer 1..7"),
    ({"round": 8}, "round=8 must be"),
    ({"round": True}, "round=True must be"),
    ({"round": "2"}, "round='2' must be"),
    ({"scores": {"red": 3}}, "scores=.* must be a dict with keys 'red' and 'black'"),
    ({"scores": {"red": -1, "black": 0}}, "scores\\['red'\\]=-1 must be an integer >= 0"),
    ({"scores": {"red": 1.5, "black": 0}}, "scores\\['red'\\]=1.5"),
    ({"scores": {"red": 20, "black": 3}}, "the game is already over"),
    ({"round": 7, "scores": {"red": 4, "black": 3}}, "round 7 is only played as a tiebreaker"),
    ({"start": "middle"}, "start='middle' is not allowed; choose one of: 'pass', 'play'"),
    ("hands", "reset options must be a dict"),
]


@pytest.mark.parametrize(("options", "message"), BAD_OPTIONS)
def test_bad_reset_options_raise_naming_the_problem_and_keep_the_game(options, message):
    env = lost_ranks_v0.env()
    env.reset(seed=3)
    env.step(env.unwrapped.legal_actions()[0])
    before = {a: env.observe(a)["observation"].copy() for a in env.possible_agents}
    agent = env.agent_selection
    with pytest.raises(ValueError, match=message):
        env.reset(options=options)
    assert env.agent_selection == agent
    for a in env.possible_agents:
        np.testing.assert_array_equal(env.observe(a)["observation"], before[a])
    env.step(env.unwrapped.legal_actions()[0])


def test_good_reset_options_are_accepted():
    env = new_env(None, HANDS, start="play", round=3, scores={"red": 5, "black": 2})
    assert env.unwrapped.scores == {"red": 5, "black": 2}
    assert env.game.trump_card == CORE.string_to_action(env.game, "7S"), "the card left out"
    assert env.game.round == 3 and env.agent_selection == "red_0"
    env = new_env("QD", start="pass")  # the hands are dealt from the seed around it
    assert env.game.trump_card == CORE.string_to_action(env.game, "qd")
    assert not env.game.hands[:, env.game.trump_card].any()


def test_illegal_actions_and_names_raise_listing_the_legal_cards():
    env = new_env("7S", HANDS)
    raw = env
    with pytest.raises(ValueError, match="illegal action 13 \\(2H\\) for red_0; legal: 0 \\(2S\\)"):
        env.step(13)  # the 2H: red_0 holds it, but must lead the 2S
    with pytest.raises(ValueError, match="'3H' is not legal now for red_0; legal: 2S"):
        raw.string_to_action("3H")
    with pytest.raises(ValueError, match="'joker' names no action for red_0; legal: 2S"):
        raw.string_to_action("joker")
    with pytest.raises(ValueError, match="out of range"):
        raw.action_to_string(53)
    for bad in (53, -1, 1.0, "2S", None):
        with pytest.raises(ValueError, match="legal: 0 \\(2S\\)"):
            env.step(bad)
    env.step(raw.string_to_action("2s"))  # still usable
    assert env.agent_selection == "black_0"


def test_render_ansi_shows_only_the_viewers_hand():
    env = lost_ranks_v0.env(render_mode="ansi")
    env.reset(options={"trump_card": "7S", "hands": HANDS, "start": "play"})
    text = env.render()
    assert "Trump Card 7S" in text and "Active Jacks JS JC" in text
    assert "2S 2H 3H" in text.replace(" | ", " "), "red_0's own hand is shown"
    assert text.count("13 cards") == 3
    assert "red_0" in text and "Red captures" in text


def test_render_human_prints(capsys):
    env = lost_ranks_v0.env(render_mode="human")
    env.reset(seed=1)
    env.step(env.unwrapped.legal_actions()[0])
    assert "Lost Ranks, round 1" in capsys.readouterr().out


def test_referee_render_shows_every_hand():
    env = new_env("7S", HANDS)
    text = CORE.render_ansi(env.game, None)
    assert "13 cards" not in text and "KH" in text


def test_same_seed_same_game_and_rewards_go_to_the_right_army():
    def run(seed):
        env = lost_ranks_v0.env(reward="points")
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        trace = []
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            trace.append((agent, obs["observation"].tobytes(), reward))
            if term or trunc:
                env.step(None)
            else:
                env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        return trace, env.unwrapped.scores

    (trace, scores), (again, _) = run(4), run(4)
    assert trace == again and trace != run(5)[0]
    totals = {}
    for agent, _, reward in trace:
        totals[agent] = totals.get(agent, 0) + reward
    diff = scores["red"] - scores["black"]
    assert totals == {"red_0": diff, "black_0": -diff, "red_1": diff, "black_1": -diff}
