"""Lost Heir through the PettingZoo env: bad input, hidden information, rewards, rendering."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import feral_envs
from feral_envs import lost_heir_v0
from feral_envs.lost_heir import CORE
from feral_envs.lost_heir.encoding import CARD, DECK, OBS
from feral_envs.lost_heir.rules import Phase
from feral_envs.lost_heir_v0 import env as make_env
from feral_envs.lost_heir_v0 import raw_env

DOC = Path(__file__).resolve().parents[2] / "docs" / "lost_heir.md"
DEAL = {
    "north": ["T7", "T6", "T5", "T4", "M7", "M6", "W7", "W0"],
    "east": ["T3", "T2", "T1", "M5", "M4", "H7", "H6", "W6"],
    "south": ["T0", "M3", "M2", "M1", "H5", "H4", "W5", "W4"],
    "west": ["M0", "H3", "H2", "H1", "H0", "W3", "W2", "W1"],
}


def test_make_and_metadata():
    env = feral_envs.make("lost_heir_v0")
    assert env.metadata["name"] == "lost_heir_v0"
    assert type(env.unwrapped) is raw_env
    assert env.possible_agents == ["north", "east", "south", "west"]
    assert f"Discrete({CORE.n_actions})" in lost_heir_v0.__doc__
    assert f"({OBS.size},)" in lost_heir_v0.__doc__
    assert set(CORE.keyword_defaults) == {"reward", "target_score", "take_a_lead", "max_hands"}


# --- bad input -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("keywords", "named"),
    [
        ({"reward": "score"}, "reward"),
        ({"take_a_lead": "never"}, "take_a_lead"),
        ({"target_score": 0}, "target_score"),
        ({"target_score": 40.0}, "target_score"),
        ({"target_score": True}, "target_score"),
        ({"max_hands": 0}, "max_hands"),
        ({"max_hands": "5"}, "max_hands"),
        ({"render_mode": "rgb_arrays"}, "render_mode"),
    ],
)
def test_bad_keywords(keywords, named):
    with pytest.raises(ValueError, match=named):
        raw_env(**keywords)


def test_unknown_keyword_is_a_value_error_naming_the_keywords():
    with pytest.raises(ValueError, match=r"unknown keyword.*'variant'.*take_a_lead"):
        raw_env(variant="x")


def _hands(**changes):
    hands = {seat: list(cards) for seat, cards in DEAL.items()}
    hands.update(changes)
    return hands


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"dealer": "nobody"}, "dealer: unknown seat 'nobody'"),
        ({"dealer": 2}, "dealer: unknown seat 2"),
        ({"hands": "T7 T6"}, "hands must be a dict"),
        (
            {"hands": _hands(north=DEAL["north"][:7])},
            "'north'.* has 7 cards; each hand must have 8",
        ),
        ({"hands": _hands(north=[*DEAL["north"][:7], "T3"])}, "T3 is given twice"),
        ({"hands": _hands(north=[*DEAL["north"][:7], "X9"])}, "unknown card 'X9'"),
        ({"hands": _hands(north=[*DEAL["north"][:7], "T8"])}, "unknown card 'T8'"),
        ({"hands": {**_hands(), "up": DEAL["north"]}}, "hands: unknown seat 'up'"),
        ({"hands": {k: v for k, v in DEAL.items() if k != "west"}}, "no hand given for west"),
        ({"hands": _hands(east="T3 T2 T1 M5 M4 H7 H6 W6")}, "must be a list of card names"),
        ({"scores": {"north_south": 1}}, "scores must be a dict with exactly the keys"),
        ({"scores": {"north_south": 1, "east_west": 2.5}}, "'east_west'.*must be an integer"),
        ({"scores": {"north_south": 40, "east_west": 0}}, "below target_score=40"),
        ("dealer", "reset options must be a dict"),
    ],
)
def test_bad_reset_options_and_the_env_keeps_working(options, message):
    env = make_env()
    env.reset(seed=1, options={"dealer": "west", "hands": DEAL})
    env.step(env.unwrapped.string_to_action("bid 5"))
    with pytest.raises(ValueError, match=message):
        env.reset(options=options)
    assert env.agent_selection == "east"  # the game goes on where it was
    assert env.unwrapped.game.high_bid == 5
    env.step(env.unwrapped.string_to_action("pass"))
    assert env.agent_selection == "south"


def test_card_names_are_case_insensitive_in_reset():
    env = raw_env()
    env.reset(options={"hands": {seat: [c.lower() for c in cards] for seat, cards in DEAL.items()}})
    assert DECK.hand_names(env.game.hands[0]) == sorted(DEAL["north"], key=DECK.card)


def test_illegal_actions_raise_and_change_nothing():
    env = make_env()
    env.reset(seed=1, options={"dealer": "west", "hands": DEAL})
    before = env.observe("north")["observation"].copy()
    for bad in (CARD, 10, 47, -1, 2.0, None, True, "pass"):  # a card, accept, out of range...
        with pytest.raises(ValueError, match=r"for north; legal: 0 \(pass\), 1 \(bid 4\)"):
            env.step(bad)
    assert env.agent_selection == "north"
    assert np.array_equal(env.observe("north")["observation"], before)
    with pytest.raises(ValueError, match=r"'bid 3' names no action.*legal: pass, bid 4"):
        env.unwrapped.string_to_action("bid 3")
    with pytest.raises(ValueError, match="'accept' is not legal now"):
        env.unwrapped.string_to_action("accept")
    env.step(env.unwrapped.string_to_action("Bid 4"))
    assert env.agent_selection == "east"


# --- one seat to act, rewards, hidden information -------------------------------------------


@pytest.mark.parametrize("take_a_lead", ["after_first_trick", "after_second_trick"])
def test_random_games_through_the_env(take_a_lead):
    rng = np.random.default_rng(3)
    for game in range(20):
        env = make_env(reward="points", target_score=20, max_hands=10, take_a_lead=take_a_lead)
        env.reset(seed=game)
        totals = dict.fromkeys(env.agents, 0.0)
        scores_before = env.unwrapped.scores
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            masks = {a: env.observe(a)["action_mask"] for a in env.agents}
            assert [a for a, m in masks.items() if m.any()] == [agent]  # exactly one to act
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(rng.choice(legal)))
            rewards = env.rewards
            assert rewards["north"] == rewards["south"] == -rewards["east"] == -rewards["west"]
            for a in rewards:
                totals[a] += rewards[a]
        scores = env.unwrapped.scores
        diff = (scores["north_south"] - scores_before["north_south"]) - (
            scores["east_west"] - scores_before["east_west"]
        )
        assert totals["north"] == diff and totals["east"] == -diff
        assert sum(totals.values()) == 0


def test_win_rewards_sum_to_zero_and_match_the_winner():
    rng = np.random.default_rng(4)
    seen = set()
    for game in range(30):
        env = raw_env(target_score=8, max_hands=6)
        env.reset(seed=game)
        while not (any(env.terminations.values()) or any(env.truncations.values())):
            env.step(int(rng.choice(env.legal_actions())))
        if any(env.terminations.values()):
            winner = env.game.winner
            assert env.rewards == {
                a: 1 if env.team_of_seat[s] == winner else -1 for s, a in enumerate(env.agents)
            }
            seen.add("won")
        else:
            assert env.rewards == dict.fromkeys(env.agents, 0)
            seen.add("truncated")
    assert seen == {"won", "truncated"}


def _swap_hidden(hands: dict, observer: str, rng: np.random.Generator, n: int):
    """``hands`` with ``n`` card swaps between two seats other than ``observer``."""
    hands = {seat: list(cards) for seat, cards in hands.items()}
    others = [s for s in hands if s != observer]
    swapped = set()
    for _ in range(n):
        a, b = rng.choice(others, size=2, replace=False)
        i, j = rng.integers(8), rng.integers(8)
        hands[a][i], hands[b][j] = hands[b][j], hands[a][i]
        swapped |= {hands[a][i], hands[b][j]}
    return hands, swapped


def test_no_hidden_information():
    """Two deals differing only in cards the observer cannot see give it identical
    observations along the same actions, until one of the swapped cards is played."""
    rng = np.random.default_rng(11)
    agents = ["north", "east", "south", "west"]
    compared = 0
    in_play = 0
    for trial in range(400):
        observer = agents[trial % 4]
        order = rng.permutation(32)
        deal = {s: [DECK.names[c] for c in order[8 * i : 8 * i + 8]] for i, s in enumerate(agents)}
        other, swapped = _swap_hidden(deal, observer, rng, n=int(rng.integers(1, 4)))
        env_a, env_b = raw_env(max_hands=1), raw_env(max_hands=1)
        env_a.reset(seed=trial, options={"dealer": agents[trial % 3], "hands": deal})
        env_b.reset(seed=trial, options={"dealer": agents[trial % 3], "hands": other})
        if np.array_equal(env_a.game.hands, env_b.game.hands):
            continue  # the swaps undid each other
        assert not np.array_equal(env_a.state(), env_b.state())  # the full states do differ
        swapped_actions = {CARD + DECK.card(c) for c in swapped}
        while True:
            obs_a = env_a.observe(observer)
            obs_b = env_b.observe(observer)
            assert np.array_equal(obs_a["observation"], obs_b["observation"]), (
                f"trial {trial}: {observer} can tell the deals apart"
            )
            assert np.array_equal(obs_a["action_mask"], obs_b["action_mask"])
            compared += 1
            in_play += env_a.game.phase == Phase.PLAY
            if any(env_a.truncations.values()):
                break
            assert env_a.agent_selection == env_b.agent_selection
            # play actions legal in both games, keeping the swapped cards back while possible
            common = set(np.flatnonzero(env_a.game.mask & env_b.game.mask).tolist())
            choices = sorted(common - swapped_actions)
            if not choices:
                break
            action = int(rng.choice(choices))
            env_a.step(action)
            env_b.step(action)
    assert compared > 6000 and in_play > 3000, (compared, in_play)


def test_observer_hand_differs_when_its_own_cards_differ():
    env_a, env_b = raw_env(), raw_env()
    env_a.reset(options={"dealer": "west", "hands": DEAL})
    swapped = _hands(north=[*DEAL["north"][:7], "T3"], east=["W0", *DEAL["east"][1:]])
    env_b.reset(options={"dealer": "west", "hands": swapped})
    assert not np.array_equal(
        env_a.observe("north")["observation"], env_b.observe("north")["observation"]
    )
    assert np.array_equal(
        env_a.observe("south")["observation"], env_b.observe("south")["observation"]
    )


# --- render ----------------------------------------------------------------------------------


def test_render_ansi_shows_only_the_acting_seats_hand():
    env = make_env(render_mode="ansi")
    env.reset(seed=1, options={"dealer": "west", "hands": DEAL})
    for name in ("bid 5", "pass", "pass", "accept", "W7"):
        env.step(env.unwrapped.string_to_action(name))
    text = env.render()
    assert env.agent_selection == "east"
    assert "T3 T2 T1" in text  # east's own hand
    assert "T7 T6 T5" not in text and "7 cards" in text  # north's hidden
    assert "contract: 5 by north" in text and "trump: Winnipeg" in text
    assert "W7" in text and "dealer" in text and "north_south 0" in text
    referee = CORE.render_ansi(env.unwrapped.game, None)
    assert "T6 T5 T4" in referee and "M0" in referee


def test_render_shows_the_duel():
    env = raw_env(render_mode="ansi")
    env.reset(seed=1, options={"dealer": "west", "hands": DEAL})
    for name in ("bid 5", "pass", "pass", "refuse", "raise", "refuse", "concede"):
        env.step(env.string_to_action(name))
    text = env.render()
    assert "north bid 5, east pass, south pass, west refuse" in text
    assert "duel: 2 refusal(s), 1 raise(s), north conceded" in text
    assert "contract: 6 by west (east_west)" in text


def test_render_human_prints(capsys):
    env = make_env(render_mode="human")
    env.reset(seed=1)
    env.step(env.unwrapped.string_to_action("pass"))
    assert "Lost Heir" in capsys.readouterr().out


def test_render_at_game_over():
    env = raw_env(render_mode="ansi", max_hands=1)
    env.reset(seed=1, options={"dealer": "west", "hands": DEAL})
    for _ in range(4):
        env.step(env.string_to_action("pass"))
    assert "truncated after 1 hands" in env.render()


def test_docs_usage_example_runs():
    code = re.search(r"## Usage\n\n```python\n(.*?)```", DOC.read_text(), re.S).group(1)
    exec(compile(code, "docs/lost_heir.md", "exec"), {})
