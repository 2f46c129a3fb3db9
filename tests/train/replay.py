"""Reference for the batched env's rewards: replay a recorded game through the PettingZoo env.

:class:`~train.vec_env.SelfPlayVecEnv` with ``record=True`` keeps each game's moves and the
state of its rng at the deal. Replaying those moves through ``TableEnv`` (a different code
path: the AEC reward bookkeeping of ``feral_envs.table_env``) with ``reward="points"`` and
``reward="win"`` gives every agent's reward after every move; the learner's reward for a
decision must be what its side received from that move up to its next decision.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from feral_envs.core import GameCore
from feral_envs.table_env import TableEnv


def replay(
    core: GameCore,
    keywords: dict[str, Any],
    trace: dict[str, Any],
    reward: str,
) -> tuple[list[float], list[np.ndarray], list[np.ndarray], np.ndarray]:
    """Learner rewards per decision (in ``reward`` mode), the observations and masks the
    PettingZoo env shows at each learner decision, and the final observation of the learner
    seat that decided last."""
    env = TableEnv(core, reward=reward, **keywords)
    env.np_random = np.random.default_rng()
    env.np_random.bit_generator.state = trace["rng_state"]
    env.reset()
    team = trace["learner_team"]
    rewards: list[float] = []
    observations, masks = [], []
    last_seat = None
    for seat, action in trace["moves"]:
        agent = env.agent_selection
        assert agent == core.agents[seat], (agent, seat)
        if core.team_of_seat[seat] == team:
            seen = env.observe(agent)
            observations.append(seen["observation"])
            masks.append(seen["action_mask"].astype(bool))
            rewards.append(0.0)
            last_seat = seat
        env.step(action)
        if rewards:  # points before the learner's first decision belong to the start
            rewards[-1] += env.rewards[core.agents[last_seat]]
    assert env.terminations[env.agents[0]] or env.truncations[env.agents[0]]
    final = env.observe(core.agents[last_seat])["observation"]
    return rewards, observations, masks, final


def expected_rewards(
    core: GameCore,
    keywords: dict[str, Any],
    trace: dict[str, Any],
    points_scale: float,
    win_reward: float,
) -> list[float]:
    """What the batched env should have given the learner for each decision of ``trace``."""
    total = np.zeros(
        len([m for m in trace["moves"] if core.team_of_seat[m[0]] == trace["learner_team"]])
    )
    if points_scale and "points" in core.keyword_choices["reward"]:  # else: no score to gain
        total += points_scale * np.array(replay(core, keywords, trace, "points")[0])
    if win_reward:
        total += win_reward * np.array(replay(core, keywords, trace, "win")[0])
    return total.tolist()
