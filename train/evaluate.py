"""Quick batched evaluation of a policy against one opponent, and Elo from a match score.

Used at checkpoints for the progress bar's "last rating" and the ``eval/`` TensorBoard keys;
the run's final rating comes from the arena (``agents.arena``). It plays exactly ``games``
games with the learner's side drawn at random per game, on :class:`SelfPlayVecEnv` (so a
whole batch of games moves at once). Only the first ``games`` games started are counted, so
short games are not favoured over long ones. A truncated game (a length cap the rules do
not have) is scored as the arena scores it: won by the side ahead on the game's scores when it
stops, drawn if they are level (:func:`match_outcome`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.networks.actor import Actor
from feral_envs.core import GameCore
from train.pool import Opponent, OpponentPool
from train.vec_env import SelfPlayVecEnv


@dataclass(frozen=True)
class MatchResult:
    wins: int
    draws: int
    losses: int
    truncated: int
    """Of all the games, how many were truncated (scored by the lead when they stopped)."""

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.games

    def elo(self) -> tuple[float, float, float]:
        """Elo difference implied by the score, with a 95% interval: the Wilson score
        interval of the mean score, mapped through the logistic curve. The estimate moves a
        perfect or null score half a game in, so it stays finite; the interval's end at a
        score of 1 (or 0) is open, ``+inf`` (``-inf``): a perfect record bounds the gap from
        one side only."""
        n, s, z = self.games, self.score, 1.96
        centre = (s + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(s * (1 - s) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        low, high = max(centre - half, 0.0), min(centre + half, 1.0)
        return elo_of_score(s, n), _elo_or_inf(low), _elo_or_inf(high)


def _elo_or_inf(score: float) -> float:
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return 400.0 * math.log10(score / (1.0 - score))


def elo_of_score(score: float, games: int) -> float:
    eps = 0.5 / max(games, 1)
    s = min(max(score, eps), 1.0 - eps)
    return 400.0 * math.log10(s / (1.0 - s))


def match_outcome(info: dict[str, Any]) -> str:
    """``"win"``, ``"draw"`` or ``"loss"`` for the learner of a finished game's ``info``
    (:class:`SelfPlayVecEnv`'s): the rules' result, or for a truncated game the sign of the
    learner side's score lead, as ``agents.arena`` scores it."""
    if info["result"] != "truncated":
        return info["result"]
    return "win" if info["lead"] > 0 else "loss" if info["lead"] < 0 else "draw"


def play_match(
    core: GameCore,
    keywords: dict[str, Any],
    actor: Actor,
    opponent: Opponent,
    games: int,
    seed: int,
    deterministic: bool = False,
    n_envs: int = 64,
) -> MatchResult:
    """``actor`` against ``opponent`` for exactly ``games`` games (module doc)."""
    env = SelfPlayVecEnv(
        core,
        keywords,
        min(n_envs, games),
        OpponentPool.only(opponent, seed),
        points_scale=0.0,
        win_reward=1.0,
        seed=seed,
    )
    rng = np.random.default_rng(seed)
    obs = env.reset()
    game_of_slot = list(range(env.num_envs))
    started = env.num_envs
    counts = {"win": 0, "draw": 0, "loss": 0}
    truncated = 0
    while sum(counts.values()) < games:
        actions = actor.act(obs, env.action_masks(), rng, deterministic)
        obs, _, dones, infos = env.step(actions)
        for i in np.flatnonzero(dones):
            if game_of_slot[i] < games:
                counts[match_outcome(infos[i])] += 1
                truncated += infos[i]["result"] == "truncated"
            game_of_slot[i] = started
            started += 1
    return MatchResult(counts["win"], counts["draw"], counts["loss"], truncated)
