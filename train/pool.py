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
from typing import Any

import numpy as np

from train.policy import ActorMLP


class Opponent:
    """A pool member: picks the actions of a batch of games whose seat to act it plays."""

    name: str = "opponent"
    needs_obs: bool = True
    """Whether :meth:`act` reads ``obs`` (the env skips building observations if not)."""

    def act(
        self,
        obs: np.ndarray | None,
        masks: np.ndarray,
        states: list[Any],
        seats: list[int],
        rng: np.random.Generator,
    ) -> np.ndarray:
        """Actions (k,) for ``k`` games: their observations (k, ...) for the seat to act,
        legal masks (k, n_actions), the rules states and those seats."""
        raise NotImplementedError


class RandomOpponent(Opponent):
    name = "random"
    needs_obs = False

    def act(self, obs, masks, states, seats, rng):
        # The largest of uniform draws over the legal entries is a uniform legal action.
        draws = rng.random(masks.shape)
        draws[masks == 0] = -1.0
        return draws.argmax(axis=1)


class SnapshotOpponent(Opponent):
    """A frozen copy of the learner's policy network."""

    def __init__(self, name: str, actor: ActorMLP, step: int, deterministic: bool) -> None:
        self.name, self.actor, self.step, self.deterministic = name, actor, step, deterministic

    def act(self, obs, masks, states, seats, rng):
        return self.actor.act(obs, masks, rng, self.deterministic)


class PolicyOpponent(Opponent):
    """An ``agents`` policy (one game at a time): the heuristic bot."""

    def __init__(self, name: str, policy: Any, core: Any) -> None:
        self.name, self.policy, self.core = name, policy, core

    def act(self, obs, masks, states, seats, rng):
        return np.array(
            [self.policy.act_state(state, seat) for state, seat in zip(states, seats, strict=True)]
        )


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

    def add_snapshot(self, actor: ActorMLP, step: int) -> SnapshotOpponent:
        snapshot = SnapshotOpponent(f"snapshot_{step}", actor, step, self.deterministic)
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
        """Everything needed to continue exactly: the rng and every snapshot's weights."""
        return {
            "rng": copy.deepcopy(self.rng.bit_generator.state),
            "snapshots": [(s.step, s.actor.weights()) for s in self.snapshots],
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.rng.bit_generator.state = state["rng"]
        self.snapshots = []
        for step, weights in state["snapshots"]:
            self.add_snapshot(ActorMLP(weights), step)
