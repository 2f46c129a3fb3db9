"""``ppo:PATH`` policies: trained policy networks (:mod:`agents.networks`) as ``agents``
policies.

``ppo:PATH`` samples from the policy's masked distribution, as the learner did in training;
``ppo_argmax:PATH`` always plays its most likely legal action (greedy evaluation). Say which
when you publish a rating: the two can differ by hundreds of Elo.

``PATH`` is a policy file (a run's ``model.zip``, ``checkpoint/model.zip`` or a self-play
snapshot ``pool/snapshot_<step>.zip``) or a run directory (its final ``model.zip``, else its
latest checkpoint). Only the weights (``torch.load(weights_only=True)``) and a JSON entry are
read (:mod:`agents.networks.policy_file`); a file that is not such a checkpoint, or one for
another game or observation layout, raises
:class:`agents.networks.actor.CheckpointError` (a ``ValueError``) saying which.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.networks.actor import Actor
from agents.networks.policy_file import read_policy_file
from agents.registry import register_loader
from feral_envs import game_core


class PPOPolicy:
    """A trained policy as an ``agents`` Policy (arena, play): ``act(observation, mask)``.

    It samples from the masked policy distribution with its own seeded generator, as the
    learner did while training (``deterministic=True``: always the most likely action).
    It is also an ``agents`` BatchPolicy: one network call for all the lanes asking, each
    lane with its own generator (:meth:`Actor.act_rows`).
    """

    def __init__(
        self,
        actor: Actor,
        meta: dict[str, Any],
        spec: str,
        seed: int,
        deterministic: bool = False,
    ) -> None:
        self.actor, self.meta, self.spec, self.deterministic = actor, meta, spec, deterministic
        self.name = spec
        self.rng = np.random.default_rng(seed)
        self.lane_rngs: list[np.random.Generator] = []

    def reset(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        masks = np.asarray(action_mask, dtype=bool)[None]
        return int(self.actor.act(observation[None], masks, self.rng, self.deterministic)[0])

    def reset_lanes(self, seeds: Sequence[int]) -> None:
        self.lane_rngs = [np.random.default_rng(seed) for seed in seeds]

    def act_lanes(
        self, lanes: np.ndarray, observations: np.ndarray, action_masks: np.ndarray
    ) -> np.ndarray:
        rngs = [self.lane_rngs[lane] for lane in lanes]
        masks = np.asarray(action_masks, dtype=bool)
        actions = self.actor.act_rows(observations, masks, rngs, self.deterministic)
        return actions.astype(np.int64)


def load_ppo_policy(path: str, game: str, seed: int, keywords: dict[str, Any]) -> PPOPolicy:
    """The ``ppo:PATH`` loader (registered below): samples."""
    actor, meta = read_policy_file(path, game_core(game), keywords)
    return PPOPolicy(actor, meta, f"ppo:{path}", seed)


def load_ppo_argmax_policy(path: str, game: str, seed: int, keywords: dict[str, Any]) -> PPOPolicy:
    """The ``ppo_argmax:PATH`` loader: the same policy, always playing its most likely
    legal action (greedy evaluation)."""
    actor, meta = read_policy_file(path, game_core(game), keywords)
    return PPOPolicy(actor, meta, f"ppo_argmax:{path}", seed, deterministic=True)


register_loader("ppo", load_ppo_policy, "ppo:PATH")
register_loader("ppo_argmax", load_ppo_argmax_policy, "ppo_argmax:PATH")
