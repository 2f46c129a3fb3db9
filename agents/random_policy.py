"""``random``: a uniformly random legal action, the arena's anchor at 0 Elo."""

from __future__ import annotations

import numpy as np

from agents.base import BasePolicy


class RandomPolicy(BasePolicy):
    """Chooses uniformly among the actions with ``action_mask == 1``."""

    def __init__(self, seed: int, spec: str = "random") -> None:
        super().__init__(spec, seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("action_mask marks no legal action: it is not this policy's turn")
        return int(legal[self.rng.integers(legal.size)])
