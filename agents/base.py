"""What a policy is: the one interface the arena, the bots and the training code share.

A policy is a decision-maker for one seat. It sees exactly what a PettingZoo agent sees, the
``observation`` and ``action_mask`` arrays of ``env.observe(agent)``, never the env or its
hidden state, and answers with a legal action id. All its randomness comes from its own
``np.random.Generator``, seeded by ``reset(seed)`` at the start of every game, so a recorded
game (env seed, policy seeds, actions) can be replayed exactly.

A policy that keeps memory within a game (a card counter, say) clears it in ``reset``; the
arena gives each seat its own instance, so the two partners of a team never share memory.

A policy may also play many games at once (:class:`BatchPolicy`, optional): the arena then
asks it once per step for all the games it plays, and each game still gets exactly the
actions the one-game calls would give. :class:`OneGameLanes` gives any policy that interface,
one instance per game.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Policy(Protocol):
    """The policy protocol (structural: any object with these members is a policy)."""

    spec: str
    """The spec string this policy was loaded from (``"random"``, ``"ppo:runs/x.zip"``)."""
    name: str
    """A short human-readable name (the spec unless a policy says otherwise)."""

    def reset(self, seed: int) -> None:
        """Start a new game: reseed the policy's generator and forget the last game."""
        ...

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """A legal action (``action_mask[action] == 1``) for the observed position."""
        ...


class BasePolicy:
    """Convenience base: ``spec``/``name``, a seeded generator ``self.rng`` and ``reset``.

    Subclasses implement :meth:`act` and, if they keep per-game memory, extend :meth:`reset`
    (calling ``super().reset(seed)``).
    """

    def __init__(self, spec: str, seed: int, name: str | None = None) -> None:
        self.spec = spec
        self.name = name if name is not None else spec
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.spec!r})"


@runtime_checkable
class BatchPolicy(Protocol):
    """The optional batched interface: one object choosing for many games at once.

    A *lane* is one seat of one game: what one instance of the policy plays between two
    ``reset`` calls. ``reset_lanes(seeds)`` starts ``len(seeds)`` lanes, lane ``j`` as
    ``reset(seeds[j])`` starts a game, and ``act_lanes`` chooses for any of them at once. Lane
    ``j``'s choices are exactly those ``act`` would make in that game after ``reset(seeds[j])``
    (the same random draws in the same order, the same memory), whatever the other lanes
    and however the lanes are grouped into calls: a game's record does not depend on which
    path played it. Lanes are apart from the one-game state (``reset``/``act`` leave them be).

    Optional: ``restart_lanes(lanes, seeds)`` starts the listed lanes as ``reset`` would and
    leaves the others playing (the training pool starts each game's lanes when it begins).
    """

    spec: str

    def reset_lanes(self, seeds: Sequence[int]) -> None:
        """Start ``len(seeds)`` lanes (numbered from 0), forgetting the previous ones."""
        ...

    def act_lanes(
        self, lanes: np.ndarray, observations: np.ndarray, action_masks: np.ndarray
    ) -> np.ndarray:
        """An action for each listed lane, ``(k,)`` int64: row ``i`` of ``observations``
        and ``action_masks`` is what lane ``lanes[i]`` sees now (each lane once a call)."""
        ...


class OneGameLanes:
    """:class:`BatchPolicy` for a policy without it: one instance per lane, made by ``make``
    as needed and kept for later ``reset_lanes``, each reset with its lane's seed and asked
    one game at a time, with arrays of its own (as ``env.observe`` gives them)."""

    def __init__(self, spec: str, make: Callable[[], Policy]) -> None:
        self.spec = spec
        self.make = make
        self.instances: list[Policy] = []
        self.n_lanes = 0

    def reset_lanes(self, seeds: Sequence[int]) -> None:
        while len(self.instances) < len(seeds):
            self.instances.append(self.make())
        for instance, seed in zip(self.instances, seeds, strict=False):
            instance.reset(seed)
        self.n_lanes = len(seeds)

    def restart_lanes(self, lanes: Sequence[int], seeds: Sequence[int]) -> None:
        """Start lanes ``lanes`` as ``reset(seeds[j])`` would, leaving the others as they are."""
        for lane, seed in zip(lanes, seeds, strict=True):
            while len(self.instances) <= lane:
                self.instances.append(self.make())
            self.instances[lane].reset(seed)
            self.n_lanes = max(self.n_lanes, lane + 1)

    def act_lanes(
        self, lanes: np.ndarray, observations: np.ndarray, action_masks: np.ndarray
    ) -> np.ndarray:
        if len(lanes) and max(lanes) >= self.n_lanes:
            raise IndexError(f"lane {max(lanes)} was not started ({self.n_lanes} lanes)")
        return np.array(
            [
                int(self.instances[lane].act(observation.copy(), mask.copy()))
                for lane, observation, mask in zip(lanes, observations, action_masks, strict=True)
            ],
            dtype=np.int64,
        )


def as_batch_policy(policy: Policy, make: Callable[[], Policy]) -> BatchPolicy:
    """``policy`` itself where it plays its own lanes, else :class:`OneGameLanes` of
    instances made by ``make`` (fresh policies of the same spec). A policy plays its own lanes
    when it has :class:`BatchPolicy` from a class that knows its ``act`` and ``reset``: each of
    ``act_lanes`` and ``reset_lanes`` is defined in the class that defines the one-game method,
    or in a subclass of it. A subclass that changes ``act`` or ``reset`` but inherits the
    lanes gets one-game lanes: its parent's lanes would not play like it."""
    if isinstance(policy, BatchPolicy):
        mro = type(policy).__mro__
        pairs = (("act", "act_lanes"), ("reset", "reset_lanes"))
        owners = [(_defined_in(mro, one), _defined_in(mro, many)) for one, many in pairs]
        if all(one is not None and issubclass(many, one) for one, many in owners):
            return policy
    return OneGameLanes(policy.spec, make)


def _defined_in(mro: tuple[type, ...], name: str) -> type | None:
    """The class of ``mro`` whose body defines ``name``, None if none does."""
    return next((cls for cls in mro if name in vars(cls)), None)
