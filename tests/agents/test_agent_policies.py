"""Policies and the spec registry: legal actions only, seeding, clear errors."""

import importlib
import importlib.util

import numpy as np
import pytest
import toy_games

import feral_envs
from agents import registry
from agents.base import BasePolicy, Policy
from agents.random_policy import RandomPolicy
from agents.registry import load_policy, register_loader


@pytest.fixture
def toys(monkeypatch):
    """The toy games and their heuristic bots, reachable as if they were real."""
    toy_games.register(monkeypatch)
    toy_games.made_with.clear()
    return toy_games


def real_games():
    """The real games that have landed in this checkout."""
    landed = []
    for game in feral_envs.GAMES:
        try:
            feral_envs.env_module(game)
        except ModuleNotFoundError:
            continue
        landed.append(game)
    return landed


def play(env, policies, seed):
    """One game through the public API; returns the number of decisions taken."""
    env.reset(seed=seed)
    for i, policy in enumerate(policies.values()):
        policy.reset(seed * 10 + i)
    decisions = 0
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        mask = obs["action_mask"]
        action = policies[agent].act(obs["observation"], mask.copy())
        assert isinstance(action, int)
        assert mask[action] == 1, f"{policies[agent]!r} chose illegal action {action}"
        env.step(action)
        decisions += 1
    return decisions


@pytest.mark.parametrize("game", ["toy_cards", "toy_duel"])
@pytest.mark.parametrize("spec", ["random", "heuristic"])
def test_policies_choose_legal_actions_in_toy_games(toys, game, spec):
    env = feral_envs.make(game)
    policies = {
        agent: load_policy(spec, game, seed) for seed, agent in enumerate(env.possible_agents)
    }
    assert sum(play(env, policies, seed) for seed in range(300)) > 1000


@pytest.mark.parametrize("game", real_games())
def test_random_chooses_legal_actions_in_real_games(game):
    env = feral_envs.make(game)
    policies = {
        agent: load_policy("random", game, seed) for seed, agent in enumerate(env.possible_agents)
    }
    assert sum(play(env, policies, seed) for seed in range(10)) > 100


@pytest.mark.parametrize("game", real_games())
def test_heuristic_chooses_legal_actions_in_real_games(game):
    try:
        importlib.import_module(f"agents.heuristic.{game}")
    except ModuleNotFoundError:
        pytest.skip(f"no heuristic for {game} yet")
    env = feral_envs.make(game)
    policies = {
        agent: load_policy("heuristic", game, seed)
        for seed, agent in enumerate(env.possible_agents)
    }
    assert sum(play(env, policies, seed) for seed in range(10)) > 100


@pytest.mark.slow
@pytest.mark.parametrize("game", real_games())
@pytest.mark.parametrize("spec", ["random", "heuristic"])
def test_policies_choose_legal_actions_in_many_real_games(game, spec):
    if spec == "heuristic" and importlib.util.find_spec(f"agents.heuristic.{game}") is None:
        pytest.skip(f"no heuristic for {game} yet")
    env = feral_envs.make(game)
    policies = {
        agent: load_policy(spec, game, seed) for seed, agent in enumerate(env.possible_agents)
    }
    assert sum(play(env, policies, seed) for seed in range(200)) > 2000


def test_random_is_uniform_over_legal_actions():
    policy = RandomPolicy(seed=1)
    mask = np.zeros(20, dtype=np.int8)
    mask[[2, 5, 6, 19]] = 1
    counts = np.bincount([policy.act(np.zeros(3), mask) for _ in range(8000)], minlength=20)
    assert set(np.flatnonzero(counts)) == {2, 5, 6, 19}
    # 2000 expected each; 6 standard deviations is about 230.
    assert np.abs(counts[[2, 5, 6, 19]] - 2000).max() < 230


def test_random_is_reproducible_and_reset_reseeds():
    mask = np.ones(50, dtype=np.int8)
    a, b = RandomPolicy(seed=7), RandomPolicy(seed=7)
    first = [a.act(None, mask) for _ in range(30)]
    assert first == [b.act(None, mask) for _ in range(30)]
    a.reset(7)
    assert [a.act(None, mask) for _ in range(30)] == first
    a.reset(8)
    assert [a.act(None, mask) for _ in range(30)] != first


def test_random_refuses_an_empty_mask():
    with pytest.raises(ValueError, match="no legal action"):
        RandomPolicy(seed=0).act(None, np.zeros(4, dtype=np.int8))


def test_loaded_policies_follow_the_protocol_and_carry_their_spec(toys):
    for spec in ("random", "heuristic"):
        policy = load_policy(spec, "toy_cards", seed=3)
        assert isinstance(policy, Policy)
        assert policy.spec == spec


def test_heuristic_gets_the_game_keywords(toys):
    load_policy("heuristic", "toy_cards_v0", seed=0, keywords={"variant": "low"})
    assert toys.made_with == [{"variant": "low"}]


def test_unknown_spec_lists_the_specs():
    with pytest.raises(
        ValueError,
        match=r"spec .nope.; specs: random, heuristic\[:guard=RANK\], ppo:PATH, ppo_argmax:PATH",
    ):
        load_policy("nope", "lost_heir", 0)
    with pytest.raises(ValueError, match="non-empty"):
        load_policy("", "lost_heir", 0)


def test_argument_to_a_spec_without_one_is_an_error():
    with pytest.raises(ValueError, match="'random' takes no argument"):
        load_policy("random:3", "lost_heir", 0)


def test_missing_heuristic_says_which_file_is_missing():
    with pytest.raises(ValueError, match=r"no heuristic policy for 'no_game'.*no_game\.py"):
        load_policy("heuristic", "no_game", 0)


def test_ppo_missing_checkpoint_says_so(tmp_path):
    missing = tmp_path / "nothing.zip"
    with pytest.raises(FileNotFoundError, match=r"nothing\.zip"):
        load_policy(f"ppo:{missing}", "lost_heir", 0)
    with pytest.raises(ValueError, match="needs a checkpoint path"):
        load_policy("ppo", "lost_heir", 0)


def test_ppo_without_a_loader_is_not_available(tmp_path, monkeypatch):
    checkpoint = tmp_path / "model.zip"
    checkpoint.write_bytes(b"")
    monkeypatch.setitem(registry.PLUGIN_MODULES, "ppo", "agents._no_such_plugin")
    monkeypatch.delitem(registry._LOADERS, "ppo", raising=False)
    with pytest.raises(ValueError, match="'ppo' policies are not available"):
        load_policy(f"ppo:{checkpoint}", "lost_heir", 0)


def test_registered_loader_is_used(tmp_path, monkeypatch):
    checkpoint = tmp_path / "model.zip"
    checkpoint.write_bytes(b"")
    monkeypatch.setattr(registry, "_LOADERS", dict(registry._LOADERS))
    monkeypatch.setattr(registry, "SPEC_FORMS", dict(registry.SPEC_FORMS))
    calls = []

    def loader(argument, game, seed, keywords):
        calls.append((argument, game, seed, keywords))
        return RandomPolicy(seed)

    register_loader("ppo", loader)
    policy = load_policy(f"ppo:{checkpoint}", "lost_ranks_v0", 5, {"variant": "turncoat"})
    assert calls == [(str(checkpoint), "lost_ranks", 5, {"variant": "turncoat"})]
    assert policy.spec == f"ppo:{checkpoint}"
    with pytest.raises(FileNotFoundError, match=r"gone\.zip"):
        load_policy(f"ppo:{tmp_path / 'gone.zip'}", "lost_ranks", 5)
    assert len(calls) == 1
    register_loader("greedy", loader, form="greedy[:N]")
    assert "greedy[:N]" in registry.known_specs()


def test_base_policy_reset_reseeds():
    policy = BasePolicy("x", seed=1)
    first = policy.rng.random()
    policy.reset(1)
    assert policy.rng.random() == first
    with pytest.raises(NotImplementedError):
        policy.act(None, None)
