"""The ``pimc`` bot of Lost Heir (``agents/search/lost_heir.py``): its spec, legal play over
whole games, determinism, and its calls on hands whose call is clear."""

from __future__ import annotations

import numpy as np
import pytest

import feral_envs
from agents.registry import load_policy
from agents.search.lost_heir import LostHeirPimc
from feral_envs.lost_heir.encoding import BID, PASS

SHORT = {"target_score": 10, "max_hands": 3}  # short games: one to three hands


def play_game(specs, seed, keywords=SHORT):
    """One game, seat i played by ``specs[i % 2]``: the actions and the policies."""
    env = feral_envs.make("lost_heir", **keywords)
    env.reset(seed=seed)
    policies = {
        agent: load_policy(specs[i % 2], "lost_heir", 100 * seed + i, keywords)
        for i, agent in enumerate(env.possible_agents)
    }
    for i, policy in enumerate(policies.values()):
        policy.reset(1000 * seed + i)
    actions = []
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = policies[agent].act(obs["observation"], obs["action_mask"])
        assert obs["action_mask"][action] == 1, f"{agent} chose illegal action {action}"
        actions.append(int(action))
        env.step(action)
    return actions, policies


def test_the_spec_parses_and_refuses_bad_arguments():
    policy = load_policy("pimc:worlds=3", "lost_heir", 0)
    assert isinstance(policy, LostHeirPimc)
    assert (policy.worlds, policy.seconds) == (3, None)
    policy = load_policy("pimc:time=0.25,worlds=5", "lost_heir", 0)
    assert (policy.worlds, policy.seconds) == (5, 0.25)
    policy = load_policy("pimc", "lost_heir", 0, {"take_a_lead": "after_second_trick"})
    assert policy.worlds == 16 and policy.caution == 1.5  # the measured defaults
    assert policy.config.take_a_lead == "after_second_trick"
    assert load_policy("pimc:caution=0", "lost_heir", 0).caution == 0
    for bad, named in [
        ("pimc:worlds=0", "worlds"),
        ("pimc:worlds=2.5", "worlds"),
        ("pimc:worlds=many", "worlds"),
        ("pimc:time=0", "time"),
        ("pimc:time=-1", "time"),
        ("pimc:time=soon", "time"),
        ("pimc:caution=-1", "caution"),
        ("pimc:caution=lots", "caution"),
        ("pimc:depth=3", "unknown argument"),
        ("pimc:worlds", "key=value"),
    ]:
        with pytest.raises(ValueError, match=named):
            load_policy(bad, "lost_heir", 0)


@pytest.mark.parametrize("take_a_lead", ["after_first_trick", "after_second_trick"])
def test_legal_over_whole_games(take_a_lead):
    keywords = dict(SHORT, take_a_lead=take_a_lead)
    for seed in range(2):
        actions, policies = play_game(["pimc:worlds=1", "heuristic"], seed, keywords)
        pimc = policies["north"]
        assert pimc.decisions >= 9 and pimc.mean_seconds > 0  # 8 cards and a call at least
        assert len(actions) >= 40  # a hand at least: 32 cards and the calls


def test_deterministic_given_its_seed():
    a, _ = play_game(["pimc:worlds=2", "random"], seed=5)
    b, _ = play_game(["pimc:worlds=2", "random"], seed=5)
    assert a == b


def _first_call(hands, worlds=4, caution=None):
    env = feral_envs.make("lost_heir")
    env.reset(seed=0, options={"dealer": "west", "hands": hands})
    assert env.agent_selection == "north"
    obs = env.observe("north")
    spec = f"pimc:worlds={worlds}" + (f",caution={caution}" if caution is not None else "")
    policy = load_policy(spec, "lost_heir", 0)
    policy.reset(0)
    return policy.act(obs["observation"], obs["action_mask"])


def test_bids_a_strong_hand_and_passes_a_weak_one():
    strong = {
        "north": ["W7", "W6", "W5", "W4", "W3", "W0", "M7", "H7"],
        "east": ["T0", "T1", "T2", "T3", "M1", "M2", "H1", "H2"],
        "south": ["T4", "T5", "T6", "M3", "M4", "M5", "H3", "H4"],
        "west": ["T7", "M0", "M6", "H0", "H5", "H6", "W1", "W2"],
    }
    assert _first_call(strong) == BID  # bid 4, the lowest
    assert _first_call(strong, caution=1) == BID
    # a caution of the whole hand's 10 points: no declarer can make anything, so it passes
    assert _first_call(strong, caution=10) == PASS
    weak = {
        "north": ["T1", "T2", "M0", "M1", "M2", "H0", "H1", "H2"],
        "east": ["T7", "T6", "T5", "M7", "M6", "H7", "W7", "W6"],
        "south": ["T0", "T3", "T4", "M3", "M4", "H3", "H4", "W0"],
        "west": ["M5", "H5", "H6", "W1", "W2", "W3", "W4", "W5"],
    }
    assert _first_call(weak) == PASS


def test_reads_only_its_observation():
    """The same observation and seed give the same action, whatever the hidden cards."""
    hands = {
        "north": ["W7", "W6", "W5", "M3", "M2", "H7", "H1", "T6"],
        "east": ["T0", "T1", "T2", "T3", "M1", "M0", "H0", "H2"],
        "south": ["T4", "T5", "W4", "W3", "M4", "M5", "H3", "H4"],
        "west": ["T7", "M7", "M6", "W0", "H5", "H6", "W1", "W2"],
    }
    other = dict(hands)
    other["east"], other["south"] = hands["south"], hands["east"]
    rng_actions = []
    for deal in (hands, other):
        env = feral_envs.make("lost_heir")
        env.reset(seed=0, options={"dealer": "west", "hands": deal})
        obs = env.observe("north")
        policy = load_policy("pimc:worlds=3", "lost_heir", 0)
        policy.reset(3)
        rng_actions.append(
            (policy.act(obs["observation"], obs["action_mask"]), policy.rng.random())
        )
    assert rng_actions[0] == rng_actions[1]
    assert np.isfinite(rng_actions[0][1])
