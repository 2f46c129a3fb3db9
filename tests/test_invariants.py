"""Random-play invariants that hold for every game, checked through the PettingZoo env.

Each game's own folder checks its rules' invariants (card conservation, piece counts) over
thousands of games on the core; here a smaller number of whole games goes through the public
env for what the wrapper promises.
"""

from __future__ import annotations

import numpy as np
import pytest
from common import core_of, game_keyword_params, random_action

import feral_envs

GAMES_PER_COMBINATION = 12


@pytest.mark.parametrize(("game", "keywords"), game_keyword_params())
def test_random_games_keep_the_contract(game, keywords):
    core = core_of(game)
    rng = np.random.default_rng(0)
    env = feral_envs.make(game, **keywords)
    for episode in range(GAMES_PER_COMBINATION):
        env.reset(seed=episode)
        team_return = np.zeros(2)
        ended = False
        for agent in env.agent_iter(max_iter=200_000):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                ended = True
                env.step(None)
                continue
            # exactly one agent to act: its mask is non-empty, everyone else's is empty
            assert obs["action_mask"].any(), f"empty mask for {agent}"
            others = [a for a in env.agents if a != agent]
            assert not any(env.observe(a)["action_mask"].any() for a in others)
            env.step(random_action(obs, rng))
            step_rewards = env.unwrapped.rewards
            by_team = np.zeros(2)
            for a, r in step_rewards.items():
                by_team[core.team_of_seat[env.unwrapped.seat_of(a)]] += r
            # teammates get the same reward; the two sides' rewards cancel out
            members = np.bincount(core.team_of_seat, minlength=2)
            assert by_team[0] / members[0] == pytest.approx(-by_team[1] / members[1])
            team_return += by_team / members
        assert ended and not env.agents, "the game must end and every agent be removed"
        if keywords.get("reward", "win") == "win":
            assert set(np.abs(team_return)) <= {0.0, 1.0}
