"""The self-play opponent pool: who plays the other side of each training game.

Members:

* ``random``: uniformly random legal actions;
* ``heuristic``: the rule-based bot of ``agents`` (``load_policy("heuristic", ...)``), when
  the game has one; without it its weight is dropped and the others renormalised;
* ``snapshot_<step>``: frozen copies of the learner's policy network, one added every
  ``snapshot_every`` learner decisions; the newest ``pool_size`` are sampled.

Each training game draws its opponents when it starts and keeps them for the whole game
(both enemy seats of a card game are the same member). The draw (weights in
:class:`~train.config.TrainConfig`): with ``weight_snapshots`` a snapshot (half of that
chance the newest, the other half uniformly over the pool's snapshots, newest included),
with ``weight_heuristic`` the heuristic, with ``weight_random`` random. Before the first
snapshot (there is none at the start) its weight is dropped and the others renormalised.

Snapshots sample their action from their masked policy (as the learner does while it
collects experience) unless ``opponent_deterministic``: a sampling opponent cannot be beaten
by memorising one line of play, and it is the policy the learner really is.

Every member acts on a whole batch of games at once (:meth:`Opponent.act`): the training env
groups the games waiting on the same member and calls it once per round.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np

from agents.base import OneGameLanes, as_batch_policy
from agents.networks.actor import Actor
from agents.networks.policy_file import make_actor


class Opponent:
    """A pool member: picks the actions of a batch of games whose seat to act it plays."""

    name: str = "opponent"
    needs_obs: bool = True
    """Whether :meth:`act` reads ``obs`` (the env skips building observations if not)."""

    def start(self, slot: int, seed: int) -> None:
        """A game starts in env slot ``slot`` with this opponent (stateful players reset)."""

    def act(
        self,
        obs: np.ndarray | None,
        masks: np.ndarray,
        slots: list[int],
        seats: list[int],
        rng: np.random.Generator,
    ) -> np.ndarray:
        """Actions (k,) for ``k`` games: their observations (k, ...) for the seat to act,
        legal masks (k, n_actions), the env slots of the games and the seats to act."""
        raise NotImplementedError

    def state_dict(self) -> Any:
        """What this member remembers between calls (None: nothing): the live objects, not a
        copy (the trainer pickles them at once; pickle or deep-copy them to keep them)."""
        return None

    def load_state_dict(self, state: Any) -> None:
        pass


class RandomOpponent(Opponent):
    name = "random"
    needs_obs = False

    def act(self, obs, masks, slots, seats, rng):
        # The largest of uniform draws over the legal entries is a uniform legal action.
        draws = rng.random(masks.shape)
        draws[masks == 0] = -1.0
        return draws.argmax(axis=1)


class SnapshotOpponent(Opponent):
    """A frozen copy of the learner's policy network."""

    def __init__(self, name: str, actor: Actor, step: int, deterministic: bool) -> None:
        self.name, self.actor, self.step, self.deterministic = name, actor, step, deterministic

    def act(self, obs, masks, slots, seats, rng):
        return self.actor.act(obs, masks, rng, self.deterministic)


SEATS_PER_SLOT = 4
"""Lanes reserved per env slot in :class:`PolicyOpponent` (the most seats of a game)."""


class PolicyOpponent(Opponent):
    """An ``agents`` policy (the heuristic bot) on lanes (:class:`agents.base.BatchPolicy`):
    lane ``SEATS_PER_SLOT * slot + seat`` plays that seat of the game in env slot ``slot``,
    started as ``reset(seed + seat)`` with the game's seed, as the arena gives each seat its
    own instance. All the games waiting on it are asked in one ``act_lanes`` call: the bot's
    own lanes where it has them with ``restart_lanes`` (the Lost Heir heuristic: one kernel
    call), else one instance per lane (:class:`agents.base.OneGameLanes`)."""

    def __init__(self, name: str, make_policy: Callable[[int], Any]) -> None:
        self.name, self.make_policy = name, make_policy
        probe = make_policy(0)
        own = hasattr(probe, "spec") and as_batch_policy(probe, lambda: probe) is probe
        if own and hasattr(probe, "restart_lanes"):
            self.lanes = probe
        else:
            self.lanes = OneGameLanes(name, lambda: make_policy(0))
        self.seeds: dict[int, int] = {}
        """The seed of the game now in each slot."""
        self.games: dict[int, int] = {}
        """Games started in each slot so far."""
        self.lane_game: dict[int, int] = {}
        """For each lane, its slot's game count when the lane was last started."""

    def start(self, slot: int, seed: int) -> None:
        self.seeds[slot] = seed
        self.games[slot] = self.games.get(slot, 0) + 1

    def act(self, obs, masks, slots, seats, rng):
        lanes, fresh, fresh_seeds = [], [], []
        for slot, seat in zip(slots, seats, strict=True):
            if not 0 <= seat < SEATS_PER_SLOT:
                raise ValueError(f"seat {seat} is outside 0..{SEATS_PER_SLOT - 1}")
            lane = SEATS_PER_SLOT * slot + seat
            lanes.append(lane)
            if self.lane_game.get(lane) != self.games.get(slot, 0):
                fresh.append(lane)
                fresh_seeds.append(self.seeds.get(slot, 0) + seat)
                self.lane_game[lane] = self.games.get(slot, 0)
        if fresh:
            self.lanes.restart_lanes(fresh, fresh_seeds)
        return self.lanes.act_lanes(np.array(lanes, dtype=np.int64), obs, masks)

    def state_dict(self) -> Any:
        # One-game lanes keep their instances (their ``make`` is not picklable).
        if isinstance(self.lanes, OneGameLanes):
            lanes = ("instances", self.lanes.instances, self.lanes.n_lanes)
        else:
            lanes = ("own", self.lanes, 0)
        # Not copied: the trainer pickles it at once, and a deep copy of the Lost Heir
        # heuristic's lanes cost 40 ms a rollout (about 5 % of the default run).
        return {
            "lanes": lanes,
            "seeds": self.seeds,
            "games": self.games,
            "lane_game": self.lane_game,
        }

    def load_state_dict(self, state: Any) -> None:
        state = copy.deepcopy(state)
        kind, lanes, n_lanes = state["lanes"]
        if kind == "instances":
            self.lanes.instances, self.lanes.n_lanes = lanes, n_lanes
        else:
            self.lanes = lanes
        self.seeds, self.games, self.lane_game = state["seeds"], state["games"], state["lane_game"]


class OpponentPool:
    """Random, heuristic (optional) and snapshots, sampled with fixed weights (module doc)."""

    def __init__(
        self,
        weight_snapshots: float,
        weight_heuristic: float,
        weight_random: float,
        pool_size: int,
        seed: int | None,
        heuristic: Opponent | None = None,
        deterministic: bool = False,
    ) -> None:
        self.weights = {
            "snapshot": weight_snapshots,
            "heuristic": weight_heuristic,
            "random": weight_random,
        }
        self.pool_size = pool_size
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)
        self.random = RandomOpponent()
        self.heuristic = heuristic
        self.snapshots: list[SnapshotOpponent] = []
        """All snapshots ever added, oldest first (the newest ``pool_size`` are sampled)."""

    @classmethod
    def only(cls, opponent: Opponent, seed: int | None) -> OpponentPool:
        """A pool whose every draw is ``opponent`` (evaluation matches)."""
        pool = cls(0.0, 0.0, 1.0, 1, seed)
        pool.random = opponent
        return pool

    def add_snapshot(self, actor: Actor, step: int) -> SnapshotOpponent:
        snapshot = SnapshotOpponent(snapshot_name(step), actor, step, self.deterministic)
        self.snapshots.append(snapshot)
        return snapshot

    @property
    def active(self) -> list[SnapshotOpponent]:
        return self.snapshots[-self.pool_size :]

    def kind_probabilities(self) -> dict[str, float]:
        """Chance of each kind of opponent now (kinds with no member dropped, renormalised)."""
        available = {
            "snapshot": bool(self.snapshots),
            "heuristic": self.heuristic is not None,
            "random": True,
        }
        w = {k: v for k, v in self.weights.items() if available[k] and v > 0}
        total = sum(w.values())
        return {k: v / total for k, v in w.items()}

    def sample(self) -> Opponent:
        probs = self.kind_probabilities()
        kinds = list(probs)
        kind = kinds[int(self.rng.choice(len(kinds), p=list(probs.values())))]
        if kind == "random":
            return self.random
        if kind == "heuristic":
            return self.heuristic
        active = self.active
        if self.rng.random() < 0.5:
            return active[-1]
        return active[int(self.rng.integers(len(active)))]

    def get(self, name: str) -> Opponent:
        """The member called ``name`` (also a snapshot no longer sampled)."""
        if name == self.random.name:
            return self.random
        if self.heuristic is not None and name == self.heuristic.name:
            return self.heuristic
        for snapshot in self.snapshots:
            if snapshot.name == name:
                return snapshot
        raise KeyError(f"no pool member named {name!r}")

    def state_dict(self) -> dict[str, Any]:
        """Everything needed to continue exactly: the rng, the snapshots by step (not their
        weights: the run keeps each in its own file from the moment it is added, and pickling
        them all at every rollout slowed a 120M-decision run from 19k to 12k decisions a
        second as the pool grew) and the heuristic's players (live, not copied:
        :meth:`Opponent.state_dict`)."""
        return {
            "rng": copy.deepcopy(self.rng.bit_generator.state),
            "snapshots": [s.step for s in self.snapshots],
            "heuristic": self.heuristic.state_dict() if self.heuristic is not None else None,
        }

    def load_state_dict(
        self, state: dict[str, Any], load_snapshot: Callable[[str], Actor] | None = None
    ) -> None:
        """Restore :meth:`state_dict`; ``load_snapshot`` gives the actor of a snapshot by name
        (the run reads its file). A snapshot given as ``(step, weights)`` (the checkpoints of
        format 2, which carried them) needs no loading."""
        self.rng.bit_generator.state = state["rng"]
        self.snapshots = []
        for entry in state["snapshots"]:
            if isinstance(entry, tuple):
                step, weights = entry
                actor = make_actor(weights)
            elif load_snapshot is None:
                raise ValueError(f"no loader for {snapshot_name(entry)}'s weights")
            else:
                step, actor = entry, load_snapshot(snapshot_name(entry))
            self.add_snapshot(actor, step)
        if self.heuristic is not None:
            self.heuristic.load_state_dict(state["heuristic"])


def snapshot_name(step: int) -> str:
    """The pool member name (and policy file stem) of the snapshot taken at learner ``step``."""
    return f"snapshot_{step}"
