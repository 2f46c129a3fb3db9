"""``random``: a uniformly random legal action, the arena's anchor at 0 Elo."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agents.base import BasePolicy


class RandomPolicy(BasePolicy):
    """Chooses uniformly among the actions with ``action_mask == 1``: the ``r``-th legal
    action for ``r = rng.integers(number of legal actions)``. Also a
    :class:`~agents.base.BatchPolicy`: each lane draws ``r`` from its own generator, as
    ``act`` does, and the ``r``-th legal actions of all the lanes are found at once."""

    def __init__(self, seed: int, spec: str = "random") -> None:
        super().__init__(spec, seed)
        self.lane_rngs: list[np.random.Generator] = []

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("action_mask marks no legal action: it is not this policy's turn")
        return int(legal[self.rng.integers(legal.size)])

    def reset_lanes(self, seeds: Sequence[int]) -> None:
        self.lane_rngs = [np.random.default_rng(seed) for seed in seeds]

    def act_lanes(
        self, lanes: np.ndarray, observations: np.ndarray, action_masks: np.ndarray
    ) -> np.ndarray:
        counts = np.count_nonzero(action_masks, axis=1)
        if not counts.all():
            raise ValueError("action_mask marks no legal action: it is not this policy's turn")
        rngs = [self.lane_rngs[lane] for lane in lanes.tolist()]
        draws = np.array([rng.integers(n) for rng, n in zip(rngs, counts.tolist(), strict=True)])
        # The r-th legal action is where the running count of legal actions passes r.
        running = np.cumsum(action_masks != 0, axis=1)
        return np.count_nonzero(running <= draws[:, None], axis=1).astype(np.int64)
