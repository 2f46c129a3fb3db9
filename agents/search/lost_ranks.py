"""Lost Ranks search bots: ``pimc``, perfect-information Monte Carlo over sampled worlds.

``pimc[:worlds=N,time=SECONDS,nodes=N,early=E,horizon=T,weight=W,pass=P]``, per card to play
(the pass: below):

1. draw worlds from the bot's own observation with its own seeded generator
   (:func:`feral_envs.lost_ranks.search.sample_from_observation`): ``worlds`` of them
   (default 8), or with ``time`` as many as fit in that many seconds (at least one, at most
   ``worlds`` when both are given);
2. value each legal card in each world: the bot's army's points this round minus the
   enemy's from here,

   * with the open-card solver (:func:`feral_envs.lost_ranks.search.action_values`, optimal
     open-card play) where the first world's exact solve takes at most ``nodes`` search
     nodes (default 200000: from about the fifth or sixth trick of a round on);
   * else (the first tricks, where the open-card tree is too large for the time budget),
     for the whole decision, by ``early``: ``playout`` (the default), the card played and
     the round then played out by the heuristic in all four seats, one playout a card and
     world (the heuristic is deterministic and reads only each seat's observation of the
     world); or ``horizon``, the solver searching ``horizon`` tricks (default 3, the
     current one included) and counting ``weight`` points (default 1) for each Active Jack
     still in a hand, to its holder's army; or ``heuristic``, the heuristic's card (no
     search: the bot before these options);
3. play the card of the best mean; among equal means, the heuristic's card if it is one of
   them, else the lowest card id.

A horizon search that needs more than ``HORIZON_NODES`` times ``nodes`` nodes plays the
heuristic's card instead. The pass is the heuristic's pass
(``agents/heuristic/lost_ranks.py``, rules P1-P3), the documented cheaper rule the issue
allows; with ``pass=playout`` each pass card is chosen by playouts over the worlds instead
(measured no better: docs/search.md). The seat's army is read from its observation (the
Trump Card's colour and ``trump_army``); which of the army's two seats it is does not change
the round's play.

Deterministic given its seed with ``worlds`` alone; with ``time`` the number of worlds (and
so the choice) depends on the machine's speed. ``stats`` gives the decisions made, their
mean time, how many were searched, how many of those exactly, the playouts and the search
nodes visited (the cost, whatever the machine's load); ``mean_seconds`` the mean time per
decision.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from agents.base import BasePolicy
from agents.heuristic.lost_ranks import LostRanksHeuristic
from feral_envs.lost_ranks import engine as E
from feral_envs.lost_ranks import rules, search
from feral_envs.lost_ranks.encoding import OBS

ARGUMENTS = {
    "worlds": "worlds per decision, an integer >= 1 (default 8; with time: the most)",
    "time": "seconds per decision, a number > 0 (as many worlds as fit, at least one)",
    "nodes": "search nodes of the first world's exact solve before the whole decision is "
    "valued by early instead, an integer >= 1 (default 200000)",
    "horizon": "tricks searched (the current one included) where the exact solve is too "
    "large, an integer >= 1 (default 3)",
    "weight": "points the horizon counts for an Active Jack still in a hand, to its "
    "holder's army: 0, 1 or 2 (default 1)",
    "early": "how a decision is valued where the exact solve is too large: playout (the "
    "heuristic plays the round out in every seat), horizon, or heuristic (the heuristic's "
    "card, no search) (default playout)",
    "pass": "how the pass is chosen: heuristic (the heuristic's pass) or playout (each card "
    "valued by the heuristic playing the rest of the pass and the round out in every seat, "
    "over the worlds) (default heuristic)",
}
EARLY = ("playout", "horizon", "heuristic")
DEFAULT_EARLY = "playout"
PASSES = ("heuristic", "playout")
DEFAULT_PASS = "heuristic"
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


def parse(
    arguments: dict[str, str],
) -> tuple[int | None, float | None, int, int, int, str, str]:
    """``(worlds, time, nodes, horizon, weight, early, pass)`` from the spec's arguments;
    ``ValueError`` naming a bad or unknown one and the allowed ones."""
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
    early = arguments.get("early", DEFAULT_EARLY).strip()
    if early not in EARLY:
        raise ValueError(f"pimc argument early={arguments['early']!r} must be one of {EARLY}")
    passing = arguments.get("pass", DEFAULT_PASS).strip()
    if passing not in PASSES:
        raise ValueError(f"pimc argument pass={arguments['pass']!r} must be one of {PASSES}")
    if worlds is None and seconds is None:
        worlds = DEFAULT_WORLDS
    return worlds, seconds, nodes, horizon, weight, early, passing


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
        early: str = DEFAULT_EARLY,
        passing: str = DEFAULT_PASS,
    ) -> None:
        super().__init__(spec, seed)
        self.config = rules.make_config(variant=keywords.get("variant", "standard"))
        self.heuristic = LostRanksHeuristic(seed, variant=self.config.variant)
        self.worlds, self.seconds, self.nodes = worlds, seconds, nodes
        self.horizon, self.weight, self.early = horizon, weight, early
        self.passing = passing
        self.model = LostRanksHeuristic(seed, variant=self.config.variant)  # the playouts'
        self._obs = np.zeros(OBS.size, np.float32)
        self._mask = np.zeros(E.N_ACTIONS, np.int8)
        self.decisions = 0
        self.searched = 0
        self.exact = 0
        self.playouts = 0
        self.total_seconds = 0.0
        self.worlds_solved = 0
        self.counter = np.zeros(2, np.int64)  # search nodes visited, stopped flag

    def reset(self, seed: int) -> None:
        super().reset(seed)
        self.heuristic.reset(seed)
        self.model.reset(seed)

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
            "playouts": self.playouts,
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
        if legal.size == 1:
            return fallback
        seat = army_of(observation)  # a seat of the bot's army: the round plays the same
        if observation[OBS.phase.start + rules.PASS] > 0.5:
            if self.passing == "heuristic":
                return fallback
            return self._pass(observation, legal, fallback, seat, started)
        if observation[OBS.phase.start + rules.PLAY] < 0.5:
            return fallback
        total = np.zeros(search.N_CARDS, np.float64)
        solved = 0
        exact = True
        while True:
            world = search.sample_from_observation(observation, self.config, seat, self.rng)
            values = None
            if exact:
                actions, values = search.action_values(world, self.nodes, self.counter)
                exact = values is not None  # one world too large: early for the rest
            if values is None and self.early == "heuristic":
                return fallback
            if values is None and self.early == "playout":
                actions, values = self._playouts(world, seat % 2)
            elif values is None:
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
            if self._enough(solved, started):
                break
        self.exact += exact
        return self._best(total, solved, legal, fallback)

    def _pass(
        self,
        observation: np.ndarray,
        legal: np.ndarray,
        fallback: int,
        seat: int,
        started: float,
    ) -> int:
        """A pass choice by playouts: in each world every legal card is chosen, then the
        heuristic makes the rest of the pass choices and plays the round out in every seat;
        the card of the best mean margin (ties: the heuristic's card, else the lowest)."""
        total = np.zeros(search.N_CARDS, np.float64)
        solved = 0
        while True:
            world = search.sample_from_observation(observation, self.config, seat, self.rng)
            self._model_passes_before(world, seat)
            actions, values = self._playouts(world, seat % 2)
            total[actions] += values
            solved += 1
            if self._enough(solved, started):
                break
        return self._best(total, solved, legal, fallback)

    def _enough(self, solved: int, started: float) -> bool:
        """Whether a decision has its worlds: ``worlds`` of them, or its ``time`` spent."""
        if self.worlds is not None and solved >= self.worlds:
            return True
        return self.seconds is not None and time.perf_counter() - started >= self.seconds

    def _best(self, total: np.ndarray, solved: int, legal: np.ndarray, fallback: int) -> int:
        """The legal action of the best mean over ``solved`` worlds (ties: ``fallback``, the
        heuristic's choice, if it is among them, else the lowest id); counts the search."""
        self.searched += 1
        self.worlds_solved += solved
        means = total[legal] / solved
        best = legal[means >= means.max() - 1e-9]
        return int(fallback) if fallback in best else int(best[0])

    def _model_passes_before(self, world: np.ndarray, seat: int) -> None:
        """The sampler draws the choices of the seats that chose before ``seat`` uniformly
        from their hands (it knows nothing of them); here the playouts' model makes them
        instead, as it would have in that world."""
        step = int(world[_PASS_STEP])
        for earlier in range(seat):
            choices = slice(
                _PASS_CHOICE + earlier * E.PASS_SIZE, _PASS_CHOICE + (earlier + 1) * E.PASS_SIZE
            )
            world[_HOLDER + world[choices]] = earlier
            world[choices] = E.NO_CARD
            world[_TO_ACT], world[_PASS_STEP] = earlier, 0
            for _ in range(E.PASS_SIZE):
                E.legal_mask(world, self._mask)
                E.observe(world, earlier, self._obs)
                E.apply(world, int(self.model.act(self._obs, self._mask)))
        world[_TO_ACT], world[_PASS_STEP] = seat, step

    def _playouts(self, world: np.ndarray, army: int) -> tuple[np.ndarray, np.ndarray]:
        """Each legal action of the world's seat to act (a card to play or to pass), taken
        and then the round (the pass included) played out by the heuristic in every seat:
        ``army``'s points minus the other's from here."""
        mask = self._mask
        E.legal_mask(world, mask)
        actions = np.flatnonzero(mask).astype(np.int64)
        values = np.zeros(actions.size, np.int64)
        before = _margin(world, army)
        epoch = world[_EPOCH]
        for i, action in enumerate(actions):
            row = world.copy()
            E.apply(row, int(action))
            while row[_PHASE] != rules.GAME_OVER and row[_EPOCH] == epoch:
                E.legal_mask(row, mask)
                legal = np.flatnonzero(mask)
                if legal.size == 1:
                    E.apply(row, int(legal[0]))
                    continue
                E.observe(row, int(row[_TO_ACT]), self._obs)
                E.apply(row, int(self.model.act(self._obs, mask)))
            values[i] = _margin(row, army) - before
        self.playouts += actions.size
        return actions, values


_PHASE = E.STATE.phase.start
_EPOCH = E.STATE.epoch.start
_TO_ACT = E.STATE.to_act.start
_PASS_STEP = E.STATE.pass_step.start
_PASS_CHOICE = E.STATE.pass_choice.start
_HOLDER = E.STATE.holder.start
_SCORES = E.STATE.scores.start
_ROUND_POINTS = E.STATE.round_points.start


def _margin(row: np.ndarray, army: int) -> int:
    """``army``'s score, the round's points included, minus the other army's."""
    mine = int(row[_SCORES + army]) + int(row[_ROUND_POINTS + army])
    theirs = int(row[_SCORES + 1 - army]) + int(row[_ROUND_POINTS + 1 - army])
    return mine - theirs


def army_of(observation: np.ndarray) -> int:
    """The observing seat's army (0 red, 1 black): the Trump Card's colour, or the other one
    when ``trump_army`` says the Trump Card's colour is the enemy's."""
    trump = int(np.argmax(observation[OBS.trump_card.slice]))
    colour = rules.SUIT_COLOUR[rules.DECK.suit_of[trump]]
    return colour if observation[OBS.trump_army.start] > 0.5 else 1 - colour


def pimc(arguments: dict[str, str], seed: int, keywords: dict[str, Any]) -> Pimc:
    """The ``pimc`` spec's factory (:mod:`agents.search`)."""
    worlds, seconds, nodes, horizon, weight, early, passing = parse(arguments)
    shown = ",".join(f"{k}={v}" for k, v in arguments.items())
    spec = "pimc" + (":" + shown if shown else "")
    return Pimc(spec, seed, keywords, worlds, seconds, nodes, horizon, weight, early, passing)


SPECS = {"pimc": pimc}
