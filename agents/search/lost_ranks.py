"""Lost Ranks search bots: ``pimc``, perfect-information Monte Carlo over sampled worlds.

``pimc[:worlds=N,time=SECONDS,nodes=N,early=E,horizon=T,weight=W,pass=P,infer=K,slack=S]``,
per card to play (the pass: below):

1. draw worlds from the bot's own observation with its own seeded generator
   (:func:`feral_envs.lost_ranks.search.sample_from_observation`): ``worlds`` of them
   (default 32), or with ``time`` as many as fit in that many seconds (at least one, at most
   ``worlds`` when both are given). With ``infer`` > 1 each world is the one of ``infer``
   candidates chosen with weight ``slack ** k``: ``k`` counts the enemy cards of the round
   so far that the heuristic, in that seat of that world, would not have played where it had
   a choice. The bot remembers the round's plays in order (:class:`RoundHistory`, from its
   own observations) and replays each candidate from the start of play
   (:func:`disagreements`); the partner's plays and the pass are not weighed;
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
from numba import njit

from agents.base import BasePolicy
from agents.heuristic.lost_ranks import LostRanksHeuristic, decide_play
from feral_envs.lost_ranks import engine as E
from feral_envs.lost_ranks import rules, search
from feral_envs.lost_ranks.encoding import OBS

ARGUMENTS = {
    "worlds": "worlds per decision, an integer >= 1 (default 32; with time: the most)",
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
    "infer": "candidate worlds drawn for each world kept in play, an integer >= 1: the one "
    "kept is chosen with weight slack**k, k the enemy cards of the round so far that the "
    "heuristic, in that world, would not have played (default 1: no weighting)",
    "slack": "a candidate world's weight per such enemy card, a number in (0, 1] (default 0.1)",
}
EARLY = ("playout", "horizon", "heuristic")
DEFAULT_EARLY = "playout"
PASSES = ("heuristic", "playout")
DEFAULT_PASS = "heuristic"
DEFAULT_WORLDS = 32
DEFAULT_NODES = 200_000
DEFAULT_HORIZON = 3
DEFAULT_WEIGHT = 1
DEFAULT_INFER = 1
DEFAULT_SLACK = 0.1
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
) -> tuple[int | None, float | None, int, int, int, str, str, int, float]:
    """``(worlds, time, nodes, horizon, weight, early, pass, infer, slack)`` from the spec's
    arguments; ``ValueError`` naming a bad or unknown one and the allowed ones."""
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
    infer = _positive_int("infer", arguments["infer"]) if "infer" in arguments else DEFAULT_INFER
    slack = DEFAULT_SLACK
    if "slack" in arguments:
        try:
            slack = float(arguments["slack"])
        except ValueError:
            slack = math.nan
        if not 0 < slack <= 1:
            raise ValueError(
                f"pimc argument slack={arguments['slack']!r} must be a number in (0, 1]"
            )
    if worlds is None and seconds is None:
        worlds = DEFAULT_WORLDS
    return worlds, seconds, nodes, horizon, weight, early, passing, infer, slack


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
        infer: int = DEFAULT_INFER,
        slack: float = DEFAULT_SLACK,
    ) -> None:
        super().__init__(spec, seed)
        self.config = rules.make_config(variant=keywords.get("variant", "standard"))
        self.heuristic = LostRanksHeuristic(seed, variant=self.config.variant)
        self.worlds, self.seconds, self.nodes = worlds, seconds, nodes
        self.horizon, self.weight, self.early = horizon, weight, early
        self.passing = passing
        self.infer, self.slack = infer, slack
        self.history = RoundHistory()
        self._rewound = np.zeros(E.ROW_SIZE, np.int32)
        self.model = LostRanksHeuristic(seed, variant=self.config.variant)  # the playouts'
        self._obs = np.zeros(OBS.size, np.float32)
        self._mask = np.zeros(E.N_ACTIONS, np.int8)
        self.decisions = 0
        self.searched = 0
        self.exact = 0
        self.playouts = 0
        self.total_seconds = 0.0
        self.worlds_solved = 0
        self.candidates = 0  # candidate worlds weighed (infer > 1)
        self.counter = np.zeros(2, np.int64)  # search nodes visited, stopped flag

    def reset(self, seed: int) -> None:
        super().reset(seed)
        self.history.clear()
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
            "candidates": self.candidates,
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
        playing = observation[OBS.phase.start + rules.PLAY] > 0.5
        if playing:
            self.history.observe(observation)
        card = self._choose(observation, action_mask, started)
        if playing:
            self.history.record(card)
        return card

    def _choose(self, observation: np.ndarray, action_mask: np.ndarray, started: float) -> int:
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
            world = self._world(observation, seat)
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

    def _world(self, observation: np.ndarray, seat: int) -> np.ndarray:
        """A world for a play decision: with ``infer`` > 1 and the round's plays remembered,
        the one of ``infer`` candidates drawn with weight ``slack ** k`` (``k``: the enemy
        cards so far that the heuristic would not have played in it); else one draw."""
        first = search.sample_from_observation(observation, self.config, seat, self.rng)
        history = self.history
        if self.infer == 1 or not history.valid or not history.n:
            return first
        candidates = [first] + [
            search.sample_from_observation(observation, self.config, seat, self.rng)
            for _ in range(self.infer - 1)
        ]
        seats = (history.seats[: history.n] + seat) % E.N_SEATS  # the world's seats
        cards = history.cards[: history.n]
        weights = np.zeros(len(candidates))
        for i, world in enumerate(candidates):
            k = disagreements(
                world,
                self._rewound,
                seats,
                cards,
                seat % 2,
                *self.model.spy,
                self._obs,
                self._mask,
            )
            weights[i] = self.slack**k if k >= 0 else 0.0
        self.candidates += len(candidates)
        if weights.sum() <= 0:  # no candidate replays the round (not seen in practice)
            return first
        return candidates[int(self.rng.choice(len(candidates), p=weights / weights.sum()))]

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
_O_PLAYED = OBS.played_me.start
_O_TRICK = OBS.trick_0.start


class RoundHistory:
    """The round's plays in order, as one seat saw them: (seat relative to it, card).

    The observation keeps every card played this round and by whom, and the current trick
    in order, but not the order of the earlier tricks. Seen at each of the seat's own plays,
    they give it: the cards new since its last play are the rest of the trick it played to
    (by the seats after it, in turn) and then the current trick. ``valid`` turns false for
    the round if they do not add up (a seat not asked at each of its plays)."""

    def __init__(self) -> None:
        self.seats = np.zeros(E.N_TRICKS * E.N_SEATS, np.int64)
        self.cards = np.zeros(E.N_TRICKS * E.N_SEATS, np.int64)
        self.seen = np.zeros(search.N_CARDS, bool)
        self.clear()

    def clear(self) -> None:
        self.n = 0
        self.valid = True
        self.seen[:] = False

    def _add(self, rel: int, card: int) -> None:
        self.seats[self.n], self.cards[self.n] = rel, card
        self.seen[card] = True
        self.n += 1

    def observe(self, observation: np.ndarray) -> None:
        """Take in the plays since the seat's last one, from its play-phase observation."""
        played = observation[_O_PLAYED : _O_PLAYED + 4 * search.N_CARDS] > 0.5
        played = played.reshape(4, search.N_CARDS)
        everything = played.any(axis=0)
        if (self.seen & ~everything).any():  # a new round
            self.clear()
        leader = int(np.argmax(observation[OBS.trick_leader.slice]))
        trick = []
        for position in range(3):
            block = observation[_O_TRICK + position * search.N_CARDS :][: search.N_CARDS]
            if block.max() > 0.5:
                trick.append(((leader + position) % 4, int(np.argmax(block))))
        new = everything & ~self.seen
        for _, card in trick:
            if not new[card]:
                self.valid = False
            new[card] = False
        rest = [(rel, int(c)) for rel in (1, 2, 3) for c in np.flatnonzero(new & played[rel])]
        if new[played[0]].any() or (self.n + len(rest)) % 4:
            self.valid = False
        if not self.valid:
            return
        for rel, card in rest + trick:
            self._add(rel, card)

    def record(self, card: int) -> None:
        """The seat's own play."""
        if self.valid:
            self._add(0, card)


@njit(cache=True)
def disagreements(world, rewound, seats, cards, army, spy_trump, spy_other, obs, mask):
    """The enemy plays of the round so far (``seats``, ``cards``: in order, absolute seats
    of ``world``) that the heuristic in that seat of ``world`` would not have made, where it
    had a choice; -1 if the plays do not replay from the start of the world's play."""
    search.rewind_to_play(world, rewound)
    k = 0
    for i in range(len(cards)):
        seat, card = seats[i], cards[i]
        if rewound[_TO_ACT] != seat:
            return -1
        E.legal_mask(rewound, mask)
        if mask[card] == 0:
            return -1
        if seat % 2 != army and mask.sum() > 1:
            E.observe(rewound, seat, obs)
            if decide_play(obs, mask, spy_trump, spy_other) != card:
                k += 1
        E.apply(rewound, card)
    return k


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
    worlds, seconds, nodes, horizon, weight, early, passing, infer, slack = parse(arguments)
    shown = ",".join(f"{k}={v}" for k, v in arguments.items())
    spec = "pimc" + (":" + shown if shown else "")
    return Pimc(
        spec,
        seed,
        keywords,
        worlds,
        seconds,
        nodes,
        horizon,
        weight,
        early,
        passing,
        infer,
        slack,
    )


SPECS = {"pimc": pimc}
