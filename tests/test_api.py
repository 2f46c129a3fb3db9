"""The public contract of shared/API.md, for every game and every keyword combination."""

from __future__ import annotations

import numpy as np
import pytest
from common import core_of, game_keyword_params, game_params, random_action
from pettingzoo.test import api_test, seed_test
from pettingzoo.utils import wrappers

import feral_envs
from feral_envs import GAMES


@pytest.mark.parametrize(("game", "keywords"), game_keyword_params())
def test_pettingzoo_api_test(game, keywords):
    api_test(feral_envs.make(game, **keywords), num_cycles=300)


@pytest.mark.parametrize(("game", "keywords"), game_keyword_params())
def test_pettingzoo_seed_test(game, keywords):
    seed_test(lambda: feral_envs.make(game, **keywords), num_cycles=300)


def test_make_names_every_game_on_unknown_name():
    with pytest.raises(ValueError, match="unknown game 'chess'") as err:
        feral_envs.make("chess")
    for game in GAMES:
        assert game in str(err.value)


@pytest.mark.parametrize("game", game_params())
def test_make_accepts_v0_suffix_and_env_is_order_enforced_raw_env(game):
    env = feral_envs.make(f"{game}_v0")
    assert isinstance(env, wrappers.OrderEnforcingWrapper)
    assert not isinstance(env.env, wrappers.BaseWrapper), "only order enforcement wraps raw_env"
    module = feral_envs.env_module(game)
    assert env.unwrapped.metadata["name"] == f"{game}_v0" == module.__name__.split(".")[-1]
    assert env.unwrapped.possible_agents == list(core_of(game).agents)


@pytest.mark.parametrize("game", game_params())
def test_bad_keyword_values_name_the_allowed_values(game):
    core = core_of(game)
    for keyword, allowed in core.keyword_choices.items():
        with pytest.raises(ValueError, match=keyword) as err:
            feral_envs.make(game, **{keyword: "no-such-value"})
        for value in allowed:
            assert repr(value) in str(err.value)
    with pytest.raises(ValueError, match="render_mode"):
        feral_envs.make(game, render_mode="rgb_arrays")
    with pytest.raises(ValueError, match="'no_such_keyword'") as err:
        feral_envs.make(game, no_such_keyword=1)
    for keyword in core.keyword_defaults:
        assert keyword in str(err.value), "the message lists the keywords the game takes"
    with pytest.raises(ValueError, match="'bogus'"):
        feral_envs.env_module(game).raw_env(bogus=1)


@pytest.mark.parametrize("game", game_params())
def test_spaces_and_masks(game):
    env = feral_envs.make(game)
    env.reset(seed=3)
    n = env.action_space(env.agent_selection).n
    assert all(env.action_space(a).n == n for a in env.possible_agents)
    for agent in env.possible_agents:
        obs = env.observe(agent)
        space = env.observation_space(agent)
        assert space.contains(obs), agent
        assert obs["action_mask"].dtype == np.int8
        assert obs["action_mask"].any() == (agent == env.agent_selection)


@pytest.mark.parametrize("game", game_params())
def test_illegal_action_raises_and_changes_nothing(game):
    env = feral_envs.make(game)
    env.reset(seed=5)
    rng = np.random.default_rng(0)
    for _ in range(7):  # some way into the game
        env.step(random_action(env.observe(env.agent_selection), rng))
    agent = env.agent_selection
    before = {a: env.observe(a)["observation"].copy() for a in env.possible_agents}
    mask = env.observe(agent)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    for bad in (illegal, -1, mask.size, 2.5, "x", None):
        with pytest.raises(ValueError, match="legal") as err:
            env.step(bad)
        assert agent in str(err.value)
    assert env.agent_selection == agent
    for a in env.possible_agents:
        np.testing.assert_array_equal(env.observe(a)["observation"], before[a])
    env.step(random_action(env.observe(agent), rng))  # still usable


@pytest.mark.parametrize("game", game_params())
def test_action_names_round_trip_and_unknown_names_list_legal_ones(game):
    env = feral_envs.make(game)
    env.reset(seed=11)
    rng = np.random.default_rng(1)
    for _ in range(40):
        if not env.agents or env.terminations[env.agent_selection]:
            break
        raw = env.unwrapped
        for action in raw.legal_actions():
            name = raw.action_to_string(action)
            assert raw.string_to_action(name) == action
            assert raw.string_to_action(name.lower()) == action
        with pytest.raises(ValueError, match="names no action") as err:
            raw.string_to_action("no such action")
        assert raw.legal_action_names()[0] in str(err.value)
        env.step(random_action(env.observe(env.agent_selection), rng))


@pytest.mark.parametrize("game", game_params())
def test_bad_reset_options_raise_and_keep_the_game(game):
    env = feral_envs.make(game)
    env.reset(seed=2)
    agent, obs = env.agent_selection, env.observe(env.agent_selection)["observation"].copy()
    with pytest.raises(ValueError, match="must be a dict"):
        env.reset(options="dealer")
    assert env.agent_selection == agent
    np.testing.assert_array_equal(env.observe(agent)["observation"], obs)
    with pytest.warns(UserWarning, match="'no_such_option' ignored; allowed: ") as record:
        env.reset(seed=2, options={"no_such_option": 1})
    for key in core_of(game).reset_options:
        assert repr(key) in str(record[0].message)
    np.testing.assert_array_equal(env.observe(agent)["observation"], obs)


@pytest.mark.parametrize("game", game_params())
def test_seeded_reset_gives_the_same_game(game):
    def play(seed):
        env = feral_envs.make(game)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        trace = []
        for agent in env.agent_iter(max_iter=400):
            obs, reward, term, trunc, _ = env.last()
            trace.append((agent, obs["observation"].tobytes(), reward))
            env.step(None if term or trunc else random_action(obs, rng))
        return trace

    assert play(7) == play(7)
    assert play(7) != play(8)


@pytest.mark.parametrize("game", game_params())
def test_order_is_enforced_before_reset(game):
    env = feral_envs.make(game)
    for call in (lambda: env.step(0), env.last, lambda: env.observe("x"), env.agent_iter):
        with pytest.raises(Exception, match="reset"):
            call()
    for name in ("agents", "agent_selection", "rewards"):
        with pytest.raises(AttributeError, match="before reset"):
            getattr(env, name)


@pytest.mark.parametrize("game", game_params())
def test_core_keyword_table_matches_the_env_signature(game):
    """CORE.keyword_defaults/choices (what the CLIs and these tests use) agree with raw_env."""
    import inspect

    core = core_of(game)
    params = inspect.signature(feral_envs.env_module(game).raw_env.__init__).parameters
    signature = {
        n: p.default
        for n, p in params.items()
        if n not in ("self", "render_mode") and p.kind is not p.VAR_KEYWORD
    }
    assert signature == core.keyword_defaults
    for keyword, allowed in core.keyword_choices.items():
        assert allowed[0] == core.keyword_defaults[keyword], f"{keyword}: default first"


@pytest.mark.parametrize("game", game_params())
def test_action_id_maps_every_name_legal_or_not(game):
    env = feral_envs.make(game)
    env.reset(seed=5)
    raw = env.unwrapped
    for _ in range(3):
        for agent in raw.possible_agents:
            for action in range(raw.n_actions):
                name = raw.action_to_string(action, agent)
                if "off the board" in name:  # a move that leaves the board has no legal name
                    continue
                assert raw.action_id(name, agent) == action, (agent, name)
        env.step(raw.legal_actions()[-1])
    illegal = next(a for a in range(raw.n_actions) if a not in raw.legal_actions())
    name = raw.action_to_string(illegal)
    with pytest.raises(ValueError, match="not legal now"):
        raw.string_to_action(name)
    assert raw.action_id(name) == illegal
    with pytest.raises(ValueError, match="names no action") as err:
        raw.action_id("no such action")
    assert raw.legal_action_names()[0] in str(err.value)
    with pytest.raises(ValueError, match="unknown agent"):
        raw.action_id(name, "nobody")
