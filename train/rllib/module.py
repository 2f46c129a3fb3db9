"""The action-masking RLModule of the RLlib backend (PPO, torch, new API stack).

It reads the env's ``Dict(observation, action_mask)`` observation and runs
:class:`agents.rllib.MaskedNet` (the network ``rllib:PATH`` plays with, without Ray): the
policy's logits with the illegal actions set to the float minimum, so the sampled action is
always legal and the masked actions carry no probability in PPO's loss; the value head reads
the same trunk features (``Columns.EMBEDDINGS``). ``model_config`` holds ``trunk`` and
``heads`` (the layer sizes, ``--trunk`` and ``--heads``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule

from agents.rllib import MaskedNet


class MaskedPPOModule(TorchRLModule, ValueFunctionAPI):
    """Masked policy and value over :class:`~agents.rllib.MaskedNet` (module doc)."""

    def setup(self) -> None:
        config = self.model_config or {}
        obs_space = self.observation_space["observation"]
        self.net = MaskedNet(
            int(np.prod(obs_space.shape)),
            self.action_space.n,
            tuple(config.get("trunk", (64,))),
            tuple(config.get("heads", (64,))),
        )

    def _logits(self, batch: dict[str, Any]) -> tuple[Any, Any]:
        obs = batch[Columns.OBS]
        features = self.net.features(obs["observation"])
        return self.net.masked_logits(features, obs["action_mask"]), features

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        logits, _ = self._logits(batch)
        return {Columns.ACTION_DIST_INPUTS: logits}

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        logits, features = self._logits(batch)
        return {Columns.ACTION_DIST_INPUTS: logits, Columns.EMBEDDINGS: features}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        if embeddings is None:
            embeddings = self.net.features(batch[Columns.OBS]["observation"])
        return self.net.head_value(embeddings)
