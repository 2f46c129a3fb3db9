"""What a policy is: the one interface the arena, the bots and the training code share.

A policy is a decision-maker for one seat. It sees exactly what a PettingZoo agent sees, the
``observation`` and ``action_mask`` arrays of ``env.observe(agent)``, never the env or its
hidden state, and answers with a legal action id. All its randomness comes from its own
``np.random.Generator``, seeded by ``reset(seed)`` at the start of every game, so a recorded
game (env seed, policy seeds, actions) can be replayed exactly.

A policy that keeps memory within a game (a card counter, say) clears it in ``reset``; the
arena gives each seat its own instance, so the two partners of a team never share memory.
"""

from __future__ import annotations

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
