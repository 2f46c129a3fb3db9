"""The search contract of every game (shared/API.md, "Search"): ``clone``, ``sample_world``.

Per-game details (which cards may move where, the solver's values) are tested beside each
game; here every game must keep the promises every search bot relies on.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from common import game_keyword_params, random_action

import feral_envs


def positions(game: str, keywords: dict, n_games: int, seed: int):
    """Raw envs at random points of random games (every phase comes up)."""
    rng = np.random.default_rng(seed)
    for g in range(n_games):
        env = feral_envs.make(game, **keywords).unwrapped
        env.reset(seed=seed * 1000 + g)
        stop = int(rng.integers(0, 120))
        for _ in range(stop):
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                break
            env.step(random_action(env.observe(agent), rng))
        yield env


def play_out(env, rng) -> None:
    for _ in range(100_000):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            return
        env.step(random_action(env.observe(agent), rng))
    raise AssertionError("the game did not end")


def same_observation(a, b, agent) -> None:
    oa, ob = a.observe(agent), b.observe(agent)
    np.testing.assert_array_equal(oa["observation"], ob["observation"])
    np.testing.assert_array_equal(oa["action_mask"], ob["action_mask"])


@pytest.mark.parametrize(("game", "keywords"), game_keyword_params())
def test_clone_is_independent_and_identical(game, keywords):
    for env in positions(game, keywords, 6, seed=2):
        twin = env.clone()
        assert type(twin) is type(env)
        np.testing.assert_array_equal(twin.state(), env.state())
        assert twin.agent_selection == env.agent_selection
        for agent in env.possible_agents:
            same_observation(env, twin, agent)
        before = env.state()
        # The clone plays on with the same future random stream as the original would.
        third = env.clone()
        play_out(twin, np.random.default_rng(9))
        np.testing.assert_array_equal(env.state(), before)  # the original did not move
        play_out(third, np.random.default_rng(9))
        np.testing.assert_array_equal(third.state(), twin.state())
        assert third._cumulative_rewards == twin._cumulative_rewards


def search_module(game: str):
    return importlib.import_module(feral_envs.make(game).unwrapped.core.search)


@pytest.mark.parametrize(("game", "keywords"), game_keyword_params())
def test_sample_world_keeps_the_view_and_hides_the_truth(game, keywords):
    search_module(game)
    for k, env in enumerate(positions(game, keywords, 8, seed=3)):
        if env.terminations[env.agent_selection]:
            continue
        for agent in env.possible_agents:
            world = env.sample_world(agent, np.random.default_rng(k))
            assert world is not env
            same_observation(env, world, agent)
            assert world.agent_selection == env.agent_selection
            # No leak: the world is a function of the agent's view and rng. A second world
            # that looks the same to the agent (the first sample) gives the same sample.
            again = world.sample_world(agent, np.random.default_rng(100 + k))
            direct = env.sample_world(agent, np.random.default_rng(100 + k))
            np.testing.assert_array_equal(again.state(), direct.state())
            # A world is a real game: it plays to its end under the rules.
            play_out(world, np.random.default_rng(k))


def test_search_calls_refuse_bad_input():
    env = feral_envs.make("lost_heir").unwrapped
    with pytest.raises(ValueError, match="reset"):
        env.sample_world(env.possible_agents[0], np.random.default_rng(0))
    env.reset(seed=0)
    with pytest.raises(ValueError, match="unknown agent"):
        env.sample_world("nobody", np.random.default_rng(0))
