"""Lost Ranks search bots: ``pimc``, perfect-information Monte Carlo over sampled worlds.

``pimc[:worlds=N,time=SECONDS,nodes=N]``, per play decision:

1. draw worlds from the bot's own observation with its own seeded generator
   (:func:`feral_envs.lost_ranks.search.sample_from_observation`): ``worlds`` of them
   (default 8), or with ``time`` as many as fit in that many seconds (at least one, at most
   ``worlds`` when both are given);
2. value each legal card in each world with the open-card solver
   (:func:`feral_envs.lost_ranks.search.action_values`: the bot's army's points this round
   minus the enemy's, under optimal open-card play);
3. play the card of the best mean; among equal means, the heuristic's card if it is one of
   them, else the lowest card id.

Where a world's solve needs more than ``nodes`` search nodes (default 200000: the first
tricks of a round, where the open-card tree is too large for the time budget), the bot plays
the heuristic's card for that decision instead. The pass is the heuristic's pass
(``agents/heuristic/lost_ranks.py``, rules P1-P3), the documented cheaper rule the issue
allows. The seat's army is read from its observation (the Trump Card's colour and
``trump_army``); which of the army's two seats it is does not change the round's play.

Deterministic given its seed with ``worlds`` alone; with ``time`` the number of worlds (and
so the choice) depends on the machine's speed. ``stats`` gives the decisions made, their
mean time, how many were searched and the search nodes visited (the cost, whatever the
machine's load); ``mean_seconds`` the mean time per decision.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from agents.base import BasePolicy
from agents.heuristic.lost_ranks import LostRanksHeuristic
from feral_envs.lost_ranks import rules, search
from feral_envs.lost_ranks.encoding import OBS

ARGUMENTS = {
    "worlds": "worlds per decision, an integer >= 1 (default 8; with time: the most)",
    "time": "seconds per decision, a number > 0 (as many worlds as fit, at least one)",
    "nodes": "search nodes of the first world's exact solve before the decision is "
    "searched to the horizon instead, an integer >= 1 (default 200000)",
    "horizon": "tricks searched (the current one included) where the exact solve is too "
    "large, an integer >= 1 (default 3)",
    "weight": "points the horizon counts for an Active Jack still in a hand, to its "
    "holder's army: 0, 1 or 2 (default 1)",
}
DEFAULT_WORLDS = 8
DEFAULT_NODES = 200_000
DEFAULT_HORIZON = 3
DEFAULT_WEIGHT = 1
HORIZON_NODES = 5
"""A horizon search may use this many times ``nodes`` before the heuristic plays instead."""


def _positive_int(name: str, text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1 or str(value) != text.strip().lstrip("+"):
        raise ValueError(f"pimc argument {name}={text!r} must be an integer >= 1")
    return value


def _positive_float(name: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"pimc argument {name}={text!r} must be a number of seconds > 0")
    return value


def parse(arguments: dict[str, str]) -> tuple[int | None, float | None, int, int, int]:
    """``(worlds, time, nodes, horizon, weight)`` from the spec's arguments; ``ValueError``
    naming a bad or unknown one and the allowed ones."""
    unknown = sorted(set(arguments) - set(ARGUMENTS))
    if unknown:
        allowed = "; ".join(f"{k}: {v}" for k, v in ARGUMENTS.items())
        raise ValueError(f"pimc has no argument {unknown[0]!r}; its arguments: {allowed}")
    worlds = _positive_int("worlds", arguments["worlds"]) if "worlds" in arguments else None
    seconds = _positive_float("time", arguments["time"]) if "time" in arguments else None
    nodes = _positive_int("nodes", arguments["nodes"]) if "nodes" in arguments else DEFAULT_NODES
    horizon = (
        _positive_int("horizon", arguments["horizon"])
        if "horizon" in arguments
        else DEFAULT_HORIZON
    )
    weight = DEFAULT_WEIGHT
    if "weight" in arguments:
        if arguments["weight"].strip() not in ("0", "1", "2"):
            raise ValueError(f"pimc argument weight={arguments['weight']!r} must be 0, 1 or 2")
        weight = int(arguments["weight"])
    if worlds is None and seconds is None:
        worlds = DEFAULT_WORLDS
    return worlds, seconds, nodes, horizon, weight


class Pimc(BasePolicy):
    """The ``pimc`` bot (module doc)."""

    def __init__(
        self,
        spec: str,
        seed: int,
        keywords: dict[str, Any],
        worlds: int | None = DEFAULT_WORLDS,
        seconds: float | None = None,
        nodes: int = DEFAULT_NODES,
        horizon: int = DEFAULT_HORIZON,
        weight: int = DEFAULT_WEIGHT,
    ) -> None:
        super().__init__(spec, seed)
        self.config = rules.make_config(variant=keywords.get("variant", "standard"))
        self.heuristic = LostRanksHeuristic(seed, variant=self.config.variant)
        self.worlds, self.seconds, self.nodes = worlds, seconds, nodes
        self.horizon, self.weight = horizon, weight
        self.decisions = 0
        self.searched = 0
        self.exact = 0
        self.total_seconds = 0.0
        self.worlds_solved = 0
        self.counter = np.zeros(2, np.int64)  # search nodes visited, stopped flag

    def reset(self, seed: int) -> None:
        super().reset(seed)
        self.heuristic.reset(seed)

    @property
    def mean_seconds(self) -> float:
        """Mean time per decision so far (every call of ``act``), in seconds."""
        return self.total_seconds / max(self.decisions, 1)

    @property
    def stats(self) -> dict[str, float]:
        return {
            "decisions": self.decisions,
            "searched": self.searched,
            "exact": self.exact,
            "worlds_solved": self.worlds_solved,
            "nodes": int(self.counter[0]),
            "mean_seconds": self.mean_seconds,
        }

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        started = time.perf_counter()
        try:
            return self._act(observation, action_mask, started)
        finally:
            self.decisions += 1
            self.total_seconds += time.perf_counter() - started

    def _act(self, observation: np.ndarray, action_mask: np.ndarray, started: float) -> int:
        fallback = self.heuristic.act(observation, action_mask)
        legal = np.flatnonzero(action_mask)
        if observation[OBS.phase.start + rules.PLAY] < 0.5 or legal.size == 1:
            return fallback
        seat = army_of(observation)  # a seat of the bot's army: the round plays the same
        total = np.zeros(search.N_CARDS, np.float64)
        solved = 0
        exact = True
        while True:
            world = search.sample_from_observation(observation, self.config, seat, self.rng)
            values = None
            if exact:
                actions, values = search.action_values(world, self.nodes, self.counter)
                exact = values is not None  # one world too large: the horizon for all
            if values is None:
                actions, values = search.action_values(
                    world,
                    HORIZON_NODES * self.nodes,
                    self.counter,
                    horizon=self.horizon,
                    jack_weight=self.weight,
                )
            if values is None:
                return fallback
            total[actions] += values
            solved += 1
            if self.worlds is not None and solved >= self.worlds:
                break
            if self.seconds is not None and time.perf_counter() - started >= self.seconds:
                break
        self.searched += 1
        self.exact += exact
        self.worlds_solved += solved
        means = total[legal] / solved
        best = legal[means >= means.max() - 1e-9]
        return int(fallback) if fallback in best else int(best[0])


def army_of(observation: np.ndarray) -> int:
    """The observing seat's army (0 red, 1 black): the Trump Card's colour, or the other one
    when ``trump_army`` says the Trump Card's colour is the enemy's."""
    trump = int(np.argmax(observation[OBS.trump_card.slice]))
    colour = rules.SUIT_COLOUR[rules.DECK.suit_of[trump]]
    return colour if observation[OBS.trump_army.start] > 0.5 else 1 - colour


def pimc(arguments: dict[str, str], seed: int, keywords: dict[str, Any]) -> Pimc:
    """The ``pimc`` spec's factory (:mod:`agents.search`)."""
    worlds, seconds, nodes, horizon, weight = parse(arguments)
    shown = ",".join(f"{k}={v}" for k, v in arguments.items())
    spec = "pimc" + (":" + shown if shown else "")
    return Pimc(spec, seed, keywords, worlds, seconds, nodes, horizon, weight)


SPECS = {"pimc": pimc}
