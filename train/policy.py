"""The networks of :mod:`agents.networks` inside SB3: what ``python -m train`` builds.

The networks themselves (their forward passes, frozen actors and policy files) are in
:mod:`agents.networks`, shared with play and with any other training backend. Here are only
the pieces SB3 needs to train them: the MLP's features extractor (:class:`SymlogTrunk`), the
``MaskablePPO`` policy class and ``policy_kwargs`` of a run's network (:func:`network`; the
board network's SB3 classes are in ``train/board.py``), making an SB3 save a policy file
(:func:`add_meta`) and the start weights of ``--init-from`` (:func:`read_start_weights`).
"""

from __future__ import annotations

import json
import os
import zipfile
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

from agents.networks.actor import CheckpointError
from agents.networks.mlp import tanh_layers, trunk_forward
from agents.networks.policy_file import META_ENTRY, read_policy_weights
from feral_envs.core import GameCore


def use_bf16(precision: str) -> bool:
    """Whether a run of ``--precision precision`` computes its network's first layers in
    bfloat16 on this machine (``auto``: where the CPU has AMX tiles, whose bfloat16 matrix
    products are several times as fast as float32 ones; elsewhere bfloat16 is emulated)."""
    if precision == "auto":
        return bool(getattr(torch.cpu, "_is_amx_tile_supported", lambda: False)())
    return precision == "bf16"


def autocast_forward(forward: Any, bf16: bool) -> Any:
    """``forward``'s result, computed under torch's CPU autocast to bfloat16 if ``bf16``
    (matrix products in bfloat16 with float32 sums; weights stay float32), as float32."""
    if not bf16:
        return forward()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = forward()
    return out.float()


class SymlogTrunk(BaseFeaturesExtractor):
    """SB3 features extractor: the MLP's trunk (flatten, symlog, tanh layers ``trunk``), with
    its products in bfloat16 if ``bf16`` (:func:`use_bf16`)."""

    def __init__(
        self, observation_space: gym.spaces.Box, trunk: tuple[int, ...] = (64,), bf16: bool = False
    ) -> None:
        n = int(np.prod(observation_space.shape))
        super().__init__(observation_space, features_dim=trunk[-1] if trunk else n)
        self.layers = tanh_layers(n, trunk)
        self.bf16 = bf16

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return autocast_forward(lambda: trunk_forward(self.layers, observations), self.bf16)


def policy_kwargs(
    trunk: tuple[int, ...], heads: tuple[int, ...], bf16: bool = False
) -> dict[str, Any]:
    """``MaskablePPO("MlpPolicy", policy_kwargs=...)`` of the MLP (:mod:`agents.networks.mlp`):
    SB3's ``MlpExtractor`` heads are tanh layers under the names ``MLPNet`` gives them."""
    return {
        "features_extractor_class": SymlogTrunk,
        "features_extractor_kwargs": {"trunk": tuple(trunk), "bf16": bf16},
        "share_features_extractor": True,
        "net_arch": {"pi": list(heads), "vf": list(heads)},
    }


def network(
    trunk: tuple[int, ...],
    heads: tuple[int, ...],
    board: tuple[int, ...] = (),
    bf16: bool = False,
) -> tuple[Any, dict[str, Any]]:
    """The policy class and ``policy_kwargs`` of ``MaskablePPO`` for a run's network: the MLP,
    or with ``board`` channels the board network (``train/board.py``); ``bf16``: its trunk's
    products in bfloat16 (:func:`use_bf16`)."""
    if board:
        from train.board import BoardPolicy, board_policy_kwargs

        return BoardPolicy, board_policy_kwargs(board, heads, bf16)
    return "MlpPolicy", policy_kwargs(trunk, heads, bf16)


def add_meta(sb3_zip: str | os.PathLike, meta: dict[str, Any]) -> None:
    """Make an SB3 save a policy file too (SB3 ignores the extra entry when loading)."""
    with zipfile.ZipFile(sb3_zip, "a") as archive:
        archive.writestr(META_ENTRY, json.dumps(meta, indent=1))


def read_start_weights(
    path: str | os.PathLike,
    core: GameCore,
    trunk: tuple[int, ...],
    heads: tuple[int, ...],
    board: tuple[int, ...] = (),
) -> dict[str, torch.Tensor]:
    """The weights a run given ``--init-from PATH`` starts from: a policy file of ``core``
    whose network has the run's ``trunk`` (or ``board``) and ``heads``
    (:class:`CheckpointError` if not). A checkpoint's ``model.zip`` holds the value head
    too; a snapshot holds the policy only (the value head then starts fresh)."""
    weights, meta, p = read_policy_weights(path, core)
    given_board = tuple(meta.get("board", ()))
    given_trunk = () if given_board else tuple(meta.get("trunk", ()))
    given = (given_trunk, tuple(meta.get("heads", ())), given_board)
    wanted = (() if board else tuple(trunk), tuple(heads), tuple(board))
    if given != wanted:

        def flags(*sizes: tuple[int, ...]) -> str:
            t, h, b = (" ".join(map(str, s)) for s in sizes)
            shape = f"--board {b}" if b else f"--trunk {t}"
            return f"{shape} --heads {h}"

        raise CheckpointError(
            f"{p} has a network of {flags(*given)}; this run builds {flags(*wanted)}: give "
            f"{flags(*given)}"
        )
    return weights
