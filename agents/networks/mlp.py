"""The MLP network family: symlog inputs, a shared tanh trunk, tanh heads.

The observation goes through ``symlog(x) = sign(x) * log(1 + |x|)`` (parameter-free: raw
counts such as scores or hands left, in the hundreds, no longer saturate the first layer
while 0/1 features stay apart; written as ``copysign(log1p(|x|), x)``: ``torch.asinh``, the
one-op alternative, measured twice as slow on this CPU), then a *trunk* of tanh layers shared
by the policy and the value function, then a tanh layer of each head and the heads' outputs.
The trunk's first layer, whose cost grows with the observation size (743 inputs in Lost
Heir), is computed once for both heads.

Its weights carry SB3's names (``features_extractor.layers.*``, ``mlp_extractor.policy_net.*``,
``action_net.*``; the value head ``mlp_extractor.value_net.*`` and ``value_net.*``), the names
of the policy files (:mod:`agents.networks.policy_file`):

- :class:`MLPNet` is the network in torch, without SB3 (what ``python -m train.rollout``
  fits, and what another training backend builds); :func:`trunk_forward` and
  :func:`tanh_layers` are also what the SB3 features extractor of ``train/policy.py`` runs;
- :class:`ActorMLP` is its policy half in numpy, for play: at batch sizes of one to a few
  dozen a few small matrix products in numpy are several times faster than the same network
  in torch, which matters for the opponents inside the training env and for arena play.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.networks.actor import Actor, CheckpointError, weight_pair

TRUNK = "features_extractor.layers"
POLICY_HEAD = "mlp_extractor.policy_net"
VALUE_HEAD = "mlp_extractor.value_net"


def symlog(x: torch.Tensor) -> torch.Tensor:
    return torch.copysign(torch.log1p(torch.abs(x)), x)


def tanh_layers(n_inputs: int, sizes: tuple[int, ...] | list[int]) -> nn.Sequential:
    """``Linear, Tanh`` pairs of the given output ``sizes`` (empty: the identity)."""
    layers: list[nn.Module] = []
    for size in sizes:
        layers += [nn.Linear(n_inputs, size), nn.Tanh()]
        n_inputs = size
    return nn.Sequential(*layers)


def trunk_forward(layers: nn.Module, observations: torch.Tensor) -> torch.Tensor:
    """The trunk: flatten, symlog, then ``layers`` (from :func:`tanh_layers`)."""
    return layers(symlog(torch.flatten(observations, 1)))


class SymlogTrunk(nn.Module):
    """The trunk as a module (``layers``: the state-dict names under ``features_extractor``)."""

    def __init__(self, n_inputs: int, trunk: tuple[int, ...]) -> None:
        super().__init__()
        self.layers = tanh_layers(n_inputs, trunk)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return trunk_forward(self.layers, observations)


class MLPHeads(nn.Module):
    """The policy head's and (if ``value``) the value head's tanh layers, as SB3's
    ``MlpExtractor`` names them."""

    def __init__(self, n_inputs: int, heads: tuple[int, ...], value: bool = True) -> None:
        super().__init__()
        self.policy_net = tanh_layers(n_inputs, heads)
        if value:
            self.value_net = tanh_layers(n_inputs, heads)


class MLPNet(nn.Module):
    """The MLP family in torch, without SB3 (module doc): ``logits(obs)`` and, built with
    ``value``, ``value(obs)``. Its state dict has SB3's names, so it loads an SB3
    policy's weights and :meth:`ActorMLP.from_policy` freezes it for play."""

    def __init__(
        self,
        n_inputs: int,
        n_actions: int,
        trunk: tuple[int, ...],
        heads: tuple[int, ...],
        value: bool = True,
    ) -> None:
        super().__init__()
        self.features_extractor = SymlogTrunk(n_inputs, tuple(trunk))
        n = trunk[-1] if trunk else n_inputs
        self.mlp_extractor = MLPHeads(n, tuple(heads), value)
        n = heads[-1] if heads else n
        self.action_net = nn.Linear(n, n_actions)
        if value:
            self.value_net = nn.Linear(n, 1)

    def logits(self, obs: torch.Tensor) -> torch.Tensor:
        return self.action_net(self.mlp_extractor.policy_net(self.features_extractor(obs)))

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        """The value estimate (batch,)."""
        latent = self.mlp_extractor.value_net(self.features_extractor(obs))
        return self.value_net(latent).squeeze(1)


POLICY_PREFIXES = (TRUNK + ".", POLICY_HEAD + ".", "action_net.")
"""The state-dict names of the MLP's policy half."""


class ActorMLP(Actor):
    """The policy half of the MLP, in numpy (module doc)."""

    network = "symlog inputs, shared tanh trunk, tanh policy head"

    def __init__(self, weights: dict[str, Any]) -> None:
        layers = []
        self.n_trunk = 0
        for prefix in (TRUNK, POLICY_HEAD):
            i = 0
            while f"{prefix}.{i}.weight" in weights:
                layers.append(self._pair(weights, f"{prefix}.{i}"))
                i += 2  # Sequential(Linear, Tanh, Linear, Tanh, ...)
            if prefix == TRUNK:
                self.n_trunk = len(layers)
        layers.append(self._pair(weights, "action_net"))
        for (w_in, _), (w_out, _) in itertools.pairwise(layers):
            if w_in.shape[1] != w_out.shape[0]:
                raise CheckpointError("actor weights do not chain (layer sizes disagree)")
        self.layers = layers
        self.n_inputs = layers[0][0].shape[0]
        self.n_actions = layers[-1][0].shape[1]
        self.trunk = tuple(w.shape[1] for w, _ in layers[: self.n_trunk])
        self.heads = tuple(w.shape[1] for w, _ in layers[self.n_trunk : -1])

    @staticmethod
    def _pair(weights: dict[str, Any], name: str) -> tuple[np.ndarray, np.ndarray]:
        w, b = weight_pair(weights, name)
        w = np.ascontiguousarray(np.asarray(w, dtype=np.float32).T)  # (in, out): x @ w
        return w, np.asarray(b, dtype=np.float32)

    @classmethod
    def from_policy(cls, policy: torch.nn.Module) -> ActorMLP:
        """A frozen copy of the actor of a live torch module with these names (an SB3
        policy or an :class:`MLPNet`)."""
        return cls(
            {
                k: v.detach().cpu().numpy().copy()
                for k, v in policy.state_dict().items()
                if k.startswith(POLICY_PREFIXES)
            }
        )

    def weights(self) -> dict[str, np.ndarray]:
        """The weights in SB3's names and layout (what ``__init__`` takes)."""
        names = [f"{TRUNK}.{2 * j}" for j in range(self.n_trunk)]
        names += [f"{POLICY_HEAD}.{2 * j}" for j in range(len(self.heads))]
        names.append("action_net")
        out = {}
        for name, (w, b) in zip(names, self.layers, strict=True):
            out[name + ".weight"], out[name + ".bias"] = w.T.copy(), b.copy()
        return out

    def logits(self, obs: np.ndarray) -> np.ndarray:
        return self._forward(obs, np.matmul)

    def logits_rows(self, obs: np.ndarray) -> np.ndarray:
        return self._forward(obs, _matmul_rows)

    def _forward(self, obs: np.ndarray, matmul: Any) -> np.ndarray:
        x = obs.reshape(len(obs), -1).astype(np.float32, copy=False)
        x = np.copysign(np.log1p(np.abs(x)), x)
        for w, b in self.layers[:-1]:
            x = np.tanh(matmul(x, w) + b)
        w, b = self.layers[-1]
        return matmul(x, w) + b


def _matmul_rows(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``x @ w`` with each row computed as a matrix of one row (numpy gives each matrix of a
    stack the BLAS call it gives that matrix alone: a vector-matrix product for one row,
    where a matrix of many rows is one matrix product, rounded otherwise). The elementwise
    steps around it give each entry the same result wherever it lies in the batch."""
    return (x[:, None, :] @ w)[:, 0]
