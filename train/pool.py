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
        """What this member remembers between calls (None: nothing)."""
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


class PolicyOpponent(Opponent):
    """An ``agents`` policy (the heuristic bot): one instance per env slot and seat, as the
    arena gives each seat its own, each reset at the start of its game."""

    def __init__(self, name: str, make_policy: Callable[[int], Any]) -> None:
        self.name, self.make_policy = name, make_policy
        self.players: dict[tuple[int, int], Any] = {}
        self.seeds: dict[int, int] = {}

    def start(self, slot: int, seed: int) -> None:
        self.seeds[slot] = seed
        for (s, seat), player in self.players.items():
            if s == slot:
                player.reset(seed + seat)

    def _player(self, slot: int, seat: int) -> Any:
        player = self.players.get((slot, seat))
        if player is None:
            player = self.players[slot, seat] = self.make_policy(0)
            player.reset(self.seeds.get(slot, 0) + seat)
        return player

    def act(self, obs, masks, slots, seats, rng):
        return np.array(
            [
                self._player(slot, seat).act(obs[k], masks[k])
                for k, (slot, seat) in enumerate(zip(slots, seats, strict=True))
            ],
            dtype=np.int64,
        )

    def state_dict(self) -> Any:
        return copy.deepcopy({"players": self.players, "seeds": self.seeds})

    def load_state_dict(self, state: Any) -> None:
        state = copy.deepcopy(state)
        self.players, self.seeds = state["players"], state["seeds"]


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
            "heuristic": self.heuristic.state_dict() if self.heuristic is not None else None,
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.rng.bit_generator.state = state["rng"]
        self.snapshots = []
        for step, weights in state["snapshots"]:
            self.add_snapshot(make_actor(weights), step)
        if self.heuristic is not None:
            self.heuristic.load_state_dict(state["heuristic"])
