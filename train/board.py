"""The board network of Hidden Ranks inside SB3 (``--board C1 C2 ...``).

The network, its one forward pass and its frozen actor are in :mod:`agents.networks.board`;
here are only the SB3 classes that train it: the features extractor (:class:`BoardTrunk`),
the masked actor-critic policy that puts :class:`~agents.networks.board.BoardHeads` in
place of SB3's MLP heads (:class:`BoardPolicy`) and its ``policy_kwargs``.
"""

from __future__ import annotations

import functools
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from agents.networks.board import (
    BOARD,
    N_SQUARES,
    POLICY_HEADS,
    BoardHeads,
    board_convs,
    board_features,
)
from train.policy import autocast_forward


class BoardTrunk(BaseFeaturesExtractor):
    """SB3 features extractor: the convolutional trunk, its output flattened (in bfloat16 if
    ``bf16``: :func:`train.policy.use_bf16`)."""

    def __init__(
        self,
        observation_space: gym.spaces.Box,
        channels: tuple[int, ...] = (64,),
        bf16: bool = False,
    ) -> None:
        rows, cols, planes = observation_space.shape
        if (rows, cols) != BOARD or not channels:
            raise ValueError(
                f"the board network needs a 10x10 board and channels, got {rows}x{cols}"
            )
        super().__init__(observation_space, features_dim=channels[-1] * N_SQUARES)
        self.convs = board_convs(planes, tuple(channels))
        self.bf16 = bf16

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return autocast_forward(lambda: board_features(self.convs, observations), self.bf16)


class BoardPolicy(MaskableActorCriticPolicy):
    """sb3-contrib's masked actor-critic with the board network (``net_arch={"vf": heads}``).

    The heads give the logits themselves as the policy "latent", so the action net is the
    identity; the policy convolutions start with small weights (a near-uniform first
    policy), as SB3 does for its action net."""

    def _build_mlp_extractor(self) -> None:
        channels = self.features_extractor.convs[-1].out_channels
        self.mlp_extractor = BoardHeads(channels, list(self.net_arch["vf"]), self.action_space.n)

    def _build(self, lr_schedule: Any) -> None:
        self._build_mlp_extractor()
        self.action_net = nn.Identity()
        self.value_net = nn.Linear(self.mlp_extractor.latent_dim_vf, 1)
        if self.ortho_init:
            gains = {self.features_extractor: np.sqrt(2), self.mlp_extractor: np.sqrt(2)}
            gains[self.value_net] = 1.0
            for module, gain in gains.items():
                module.apply(functools.partial(self.init_weights, gain=gain))
            for name in POLICY_HEADS:
                self.init_weights(getattr(self.mlp_extractor, name), gain=0.01)
        self.optimizer = self.optimizer_class(
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
        )


def board_policy_kwargs(
    channels: tuple[int, ...], heads: tuple[int, ...], bf16: bool = False
) -> dict[str, Any]:
    """``MaskablePPO(BoardPolicy, policy_kwargs=...)`` of the board network (``bf16``: the
    trunk's convolutions in bfloat16, :func:`train.policy.use_bf16`)."""
    return {
        "features_extractor_class": BoardTrunk,
        "features_extractor_kwargs": {"channels": tuple(channels), "bf16": bf16},
        "share_features_extractor": True,
        "net_arch": {"pi": [], "vf": list(heads)},
    }
