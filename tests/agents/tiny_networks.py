"""Tiny policy files with random weights, for playing network policies in tests (tests only).

``tiny_policy_file(game, path, kind)`` writes a policy file that loads as ``ppo:PATH`` (and
``ppo_argmax:PATH``) for ``game``:

* ``"mlp"``: the MLP of training (symlog, a tanh trunk of 16, a tanh head of 8), in numpy;
* ``"advised"`` (Lost Ranks): the same MLP trained ``--advice``: it takes the heuristic's
  advice after the observation (:class:`agents.networks.actor.AdvisedActor` in play);
* ``"board"`` (Hidden Ranks): the convolutional board network
  (:mod:`agents.networks.board`), in torch.

The weights are drawn large enough that the logits differ by a few units: sampling then
varies and the greedy choice is not always the first legal action.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np

KINDS = {"lost_heir": ("mlp",), "lost_ranks": ("mlp", "advised"), "hidden_ranks": ("mlp", "board")}
"""The kinds of tiny network each game can have."""


def _dense(rng, names_and_shapes):
    weights = {}
    for name, (n_out, n_in) in names_and_shapes:
        weights[f"{name}.weight"] = rng.normal(0, 2 / np.sqrt(n_in), (n_out, n_in))
        weights[f"{name}.bias"] = rng.normal(0, 0.5, n_out)
    return {k: v.astype(np.float32) for k, v in weights.items()}


def tiny_policy_file(game: str, path: Path, kind: str = "mlp", seed: int = 0) -> Path:
    """Write a tiny ``kind`` network for ``game`` (module doc) to ``path``; returns ``path``."""
    from agents.advice import advised_core
    from agents.networks.policy_file import make_actor, policy_meta, write_policy_file

    core = importlib.import_module(f"feral_envs.{game}").CORE
    rng = np.random.default_rng(seed)
    n_obs, n_actions = int(np.prod(core.obs_shape)), core.n_actions
    if kind == "board":
        from agents.networks.board import N_STEPS, POLICY_HEADS
        from agents.networks.policy_file import CONVS

        planes = core.obs_shape[-1]
        weights = {
            f"{CONVS}.0.weight": rng.normal(0, 0.3, (4, planes, 3, 3)),
            f"{CONVS}.0.bias": rng.normal(0, 0.1, 4),
        }
        for name, out in zip(POLICY_HEADS, (1, N_STEPS, 4), strict=True):
            weights[f"mlp_extractor.{name}.weight"] = rng.normal(0, 1.0, (out, 4, 1, 1))
            weights[f"mlp_extractor.{name}.bias"] = rng.normal(0, 0.5, out)
        weights = {k: v.astype(np.float32) for k, v in weights.items()}
    else:
        n_in = n_obs + (n_actions if kind == "advised" else 0)
        weights = _dense(
            rng,
            [
                ("features_extractor.layers.0", (16, n_in)),
                ("mlp_extractor.policy_net.0", (8, 16)),
                ("action_net", (n_actions, 8)),
            ],
        )
        if kind == "advised":
            core = advised_core(core, {})
    actor = make_actor(weights)
    write_policy_file(path, actor, policy_meta(core, actor, 0, {}))
    return path
