"""One self-play game as an RLlib ``MultiAgentEnv`` over the game's rules core.

**Agents are sides.** Each game draws, when it starts, which side (team) the learner plays
and who plays the other side, from the pool's weights (:class:`~train.config.TrainConfig`,
as the SB3 pool draws them; :mod:`train.pool`):

* ``random`` and ``heuristic`` (the ``agents`` bot, one instance per seat) are played inside
  the env, as the SB3 env plays them: RLlib never sees their moves;
* a snapshot is one of the frozen RLlib modules ``snap0 .. snap{pool_size-1}``: the other
  side is then the agent of that name, mapped to that module (``agent_to_module``).

The learner side is the agent ``learner`` (mapped to the trained module ``learner``). A side
of a card game holds two seats; both act through the side's one agent, as in the SB3 env
(the observation is ego-centric, so one policy serves both seats), so the agent's
trajectory is its side's decisions in order.

**Rewards** are those of the SB3 env (:mod:`train.vec_env`): ``points_scale`` times the
change of the side's score lead, plus ``win_reward`` times the result at the end; what an
agent earns while others move is handed over with its next observation (or at the end).
A length cap the rules do not have (Lost Heir's ``max_hands``) ends the episode as a
truncation.

**The pool's state** (which snapshot slots hold a snapshot, which is newest) lives in the env
runner process (:data:`POOL`); the driver sets it on every env runner with
:func:`set_pool` after it copies the learner into a slot. The observation is the env's
``Dict(observation, action_mask)`` (int8 mask), as the PettingZoo env gives it.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from feral_envs import game_core
from feral_envs.core import DRAW

LEARNER = "learner"

POOL: dict[str, int] = {"filled": 0, "newest": -1}
"""Snapshot slots ``snap0 .. snap{filled-1}`` hold snapshots; ``snap{newest}`` is the newest."""


def set_pool(filled: int, newest: int) -> None:
    POOL["filled"], POOL["newest"] = int(filled), int(newest)


def snapshot_module(slot: int) -> str:
    return f"snap{slot}"


def agent_to_module(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    """The module of each agent: agents are named after their module."""
    return agent_id


def observation_space(core: Any) -> gym.spaces.Dict:
    if np.issubdtype(core.obs_dtype, np.floating):
        low, high = -np.inf, np.inf
    else:
        low, high = np.iinfo(core.obs_dtype).min, np.iinfo(core.obs_dtype).max
    return gym.spaces.Dict(
        {
            "observation": gym.spaces.Box(low, high, core.obs_shape, core.obs_dtype),
            "action_mask": gym.spaces.Box(0, 1, (core.n_actions,), np.int8),
        }
    )


class SelfPlayMultiAgentEnv(MultiAgentEnv):
    """One game at a time against the pool (module doc). ``config`` keys: ``game``,
    ``keywords``, ``points_scale``, ``win_reward``, ``weights`` (snapshot, heuristic,
    random), ``pool_size``, ``seed``."""

    def __init__(self, config: dict[str, Any]) -> None:
        super().__init__()
        self.core = core = game_core(config["game"])
        self.keywords = dict(config.get("keywords", {}))
        self.game_config = core.make_config(**self.keywords)
        self.points_scale = float(config["points_scale"])
        self.win_reward = float(config["win_reward"])
        self.weights = dict(config["weights"])
        self.pool_size = int(config["pool_size"])
        index = getattr(config, "worker_index", 0) * 1000 + getattr(config, "vector_index", 0)
        self.rng = np.random.default_rng([int(config.get("seed", 0)), index])
        self.team_of_seat = np.asarray(core.team_of_seat)
        self.possible_agents = [LEARNER] + [snapshot_module(k) for k in range(self.pool_size)]
        self.agents = list(self.possible_agents)
        space = observation_space(core)
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = dict.fromkeys(
            self.possible_agents, gym.spaces.Discrete(core.n_actions)
        )
        self.heuristic = None
        if self.weights.get("heuristic", 0) > 0:
            from agents.registry import load_policy

            try:
                load_policy("heuristic", core.name, 0, self.keywords)
                self.heuristic = lambda seed: load_policy(
                    "heuristic", core.name, seed, self.keywords
                )
            except ValueError:  # the game has no heuristic bot: its weight is dropped
                self.heuristic = None
        self.state: Any = None
        self.replaced_games = 0
        """Games that ended before any agent's first decision, replaced by :meth:`reset`."""

    # ------------------------------------------------------------------ the pool draw

    def _draw_opponent(self) -> str:
        w = {
            "snapshot": self.weights["snapshot"] if POOL["filled"] > 0 else 0.0,
            "heuristic": self.weights["heuristic"] if self.heuristic is not None else 0.0,
            "random": self.weights["random"],
        }
        kinds = [k for k, v in w.items() if v > 0]
        p = np.array([w[k] for k in kinds]) / sum(w[k] for k in kinds)
        kind = kinds[int(self.rng.choice(len(kinds), p=p))]
        if kind != "snapshot":
            return kind
        if self.rng.random() < 0.5:
            return snapshot_module(POOL["newest"])
        return snapshot_module(int(self.rng.integers(POOL["filled"])))

    # ------------------------------------------------------------------ the game

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """A new game, advanced to the first decision of an RLlib agent. A game the in-env
        opponents end before any agent has decided (Hidden Ranks: a random move can take
        the flag or leave a side without a move) is replaced, as the SB3 env replaces it:
        no decision, no episode (:attr:`replaced_games` counts them)."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        while True:
            obs, over = self._new_game()
            if not over:
                return obs, {}
            self.replaced_games += 1

    def _new_game(self) -> tuple[dict[str, Any], bool]:
        core = self.core
        self.state = core.new_game(self.game_config, self.rng, {})
        self.learner_team = int(self.rng.integers(2))
        self.opponent = self._draw_opponent()
        self.players: dict[int, Any] = {}
        if self.opponent == "heuristic":
            for seat in np.flatnonzero(self.team_of_seat != self.learner_team):
                player = self.heuristic(0)
                player.reset(int(self.rng.integers(2**31)))
                self.players[int(seat)] = player
        self.pending = {LEARNER: 0.0, self.opponent: 0.0}
        self.last_seat: dict[str, int] = {}
        self.learner_decisions = 0
        self.lead = self._lead()
        return self._advance()

    def _lead(self) -> float:
        scores = self.core.scores(self.state)
        return float(scores[self.learner_team] - scores[1 - self.learner_team])

    def _agent_of_seat(self, seat: int) -> str:
        return LEARNER if self.team_of_seat[seat] == self.learner_team else self.opponent

    def _observation(self, seat: int, to_act: bool) -> dict[str, np.ndarray]:
        mask = (
            self.core.legal_mask(self.state).astype(np.int8, copy=False)
            if to_act
            else np.zeros(self.core.n_actions, np.int8)
        )
        return {"observation": self.core.observe(self.state, seat), "action_mask": mask}

    def _credit(self) -> None:
        """Hand the change of the score lead since the last call to both sides."""
        if self.points_scale:
            lead = self._lead()
            gained, self.lead = lead - self.lead, lead
            self.pending[LEARNER] += self.points_scale * gained
            self.pending[self.opponent] -= self.points_scale * gained

    def _advance(self) -> tuple[dict[str, Any], bool]:
        """Play the in-env opponents until an agent is to act or the game is over; the
        observation dict of that agent (or of every agent that played, at the end)."""
        core = self.core
        while True:
            terminated, truncated, winner = core.status(self.state)
            if terminated or truncated:
                return self._final(terminated, winner), True
            seat = int(core.seat_to_act(self.state))
            agent = self._agent_of_seat(seat)
            if agent in ("random", "heuristic"):
                mask = core.legal_mask(self.state)
                if agent == "random":
                    action = int(self.rng.choice(np.flatnonzero(mask)))
                else:
                    action = int(self.players[seat].act(core.observe(self.state, seat), mask))
                core.apply(self.state, action, self.rng)
                continue
            self._credit()
            self.current = (agent, seat)
            return {agent: self._observation(seat, True)}, False

    def _final(self, terminated: bool, winner: int) -> dict[str, Any]:
        self._credit()
        if terminated and winner != DRAW:
            outcome = 1.0 if winner == self.learner_team else -1.0
        else:
            outcome = 0.0
        if terminated:
            self.pending[LEARNER] += self.win_reward * outcome
            self.pending[self.opponent] -= self.win_reward * outcome
        self.result = (
            "truncated" if not terminated else {1.0: "win", -1.0: "loss", 0.0: "draw"}[outcome]
        )
        self.terminated = terminated
        return {agent: self._observation(seat, False) for agent, seat in self.last_seat.items()}

    def step(self, action_dict: dict[str, Any]):
        agent, seat = self.current
        action = int(action_dict[agent])
        mask = self.core.legal_mask(self.state)
        if not mask[action]:
            raise ValueError(f"{agent} played illegal action {action} in {self.core.name}")
        self.last_seat[agent] = seat
        if agent == LEARNER:
            self.learner_decisions += 1
        self.core.apply(self.state, action, self.rng)
        obs, over = self._advance()
        rewards = {a: self.pending[a] for a in obs}
        for a in obs:
            self.pending[a] = 0.0
        if not over:
            return obs, rewards, {"__all__": False}, {"__all__": False}, {}
        done = dict.fromkeys(obs, True)
        info = {
            "result": self.result,
            "opponent": self.opponent,
            "lead": self._lead(),
            "decisions": self.learner_decisions,
        }
        infos = {LEARNER: info} if LEARNER in obs else {}
        if self.terminated:
            return obs, rewards, {**done, "__all__": True}, {"__all__": False}, infos
        return obs, rewards, {"__all__": False}, {**done, "__all__": True}, infos
