"""``rllib:PATH`` policies: networks trained by the RLlib backend (``--backend rllib``).

``rllib:PATH`` samples from the policy's masked distribution, as the learner did in
training; ``rllib_argmax:PATH`` always plays its most likely legal action. Neither starts Ray
nor imports it: the RLlib backend (``train/rllib/``) writes, beside every RLlib checkpoint,
the trained module's network in a format of our own, which this module defines and reads
with torch alone:

``policy.pt``
    the ``state_dict`` of :class:`MaskedNet` (``torch.load(weights_only=True)``);
``policy.json``
    what the network is for: ``format``, ``game``, ``obs_shape``, ``n_actions``, ``trunk``,
    ``heads``, ``step`` (learner decisions trained), ``keywords``.

``PATH`` is a directory holding those two files (a run's ``policy/``, its
``checkpoint/policy/``, a snapshot ``pool/snapshot_<step>/``) or a run directory (its final
``policy/``, else its latest checkpoint's). The RLlib module of the backend
(``train.rllib.module``) runs :class:`MaskedNet` itself, so the network that plays here is
the one that was trained, not a copy of its definition.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.base import BasePolicy
from agents.networks.mlp import MLPNet
from agents.registry import register_loader

FORMAT = "feral-rllib-policy/1"
WEIGHTS, META = "policy.pt", "policy.json"


class MaskedNet(MLPNet):
    """The MLP family of the SB3 backend (:class:`agents.networks.mlp.MLPNet`: symlog of
    the flattened observation, a shared tanh trunk, a tanh policy head to logits over every
    action and a tanh value head), split for RLlib, which runs the trunk once for both
    heads: :meth:`features` (the trunk), :meth:`masked_logits` (illegal actions' logits set
    to the float minimum: their probability is then 0) and :meth:`head_value`."""

    def __init__(
        self, n_inputs: int, n_actions: int, trunk: tuple[int, ...], heads: tuple[int, ...]
    ) -> None:
        super().__init__(int(n_inputs), int(n_actions), tuple(trunk), tuple(heads))
        self.n_inputs, self.n_actions = int(n_inputs), int(n_actions)

    def features(self, obs: torch.Tensor) -> torch.Tensor:
        return self.features_extractor(obs.float())

    def masked_logits(self, features: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        logits = self.action_net(self.mlp_extractor.policy_net(features))
        return logits.masked_fill(mask == 0, torch.finfo(logits.dtype).min)

    def head_value(self, features: torch.Tensor) -> torch.Tensor:
        return self.value_net(self.mlp_extractor.value_net(features)).squeeze(-1)


class PolicyFileError(ValueError):
    """A path that is not an RLlib-backend policy of this game (the message says why)."""


def write_policy(directory: str | Path, net: MaskedNet, meta: dict[str, Any]) -> None:
    """Write ``net`` and ``meta`` (plus ``format``) as ``directory/policy.{pt,json}``."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().clone() for k, v in net.state_dict().items()}
    torch.save(state, directory / WEIGHTS)
    (directory / META).write_text(json.dumps({"format": FORMAT, **meta}, indent=1) + "\n")


def resolve(path: str | Path) -> Path:
    """The policy directory ``path`` names (module doc), or ``PolicyFileError``."""
    path = Path(path)
    for candidate in (path, path / "policy", path / "checkpoint" / "policy"):
        if (candidate / META).is_file() and (candidate / WEIGHTS).is_file():
            return candidate
    raise PolicyFileError(
        f"{path} holds no RLlib-backend policy ({META} and {WEIGHTS}); give a run directory "
        f"of `python -m train GAME --backend rllib`, its policy/ or checkpoint/policy/, or a "
        f"pool/snapshot_<step>/"
    )


def read_policy(path: str | Path, game: str | None = None) -> tuple[MaskedNet, dict[str, Any]]:
    """The network and meta at ``path``; checks the format and, given ``game``, the game."""
    directory = resolve(path)
    try:
        meta = json.loads((directory / META).read_text())
    except ValueError as error:
        raise PolicyFileError(f"{directory / META} is not JSON ({error})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise PolicyFileError(f"{directory / META} is not a {FORMAT} policy")
    if game is not None and meta["game"] != game:
        raise PolicyFileError(f"{directory} is a {meta['game']} policy, not {game}")
    net = MaskedNet(
        int(np.prod(meta["obs_shape"])), meta["n_actions"], meta["trunk"], meta["heads"]
    )
    state = torch.load(directory / WEIGHTS, weights_only=True, map_location="cpu")
    try:
        net.load_state_dict(state)
    except RuntimeError as error:
        raise PolicyFileError(f"{directory / WEIGHTS} does not fit its {META}: {error}") from None
    net.eval()
    return net, meta


class RLlibPolicy(BasePolicy):
    """A trained network as an ``agents`` policy: samples from its masked distribution
    with its own generator (Gumbel-max over the logits), or plays the most likely legal
    action if ``deterministic``."""

    def __init__(
        self, net: MaskedNet, meta: dict[str, Any], spec: str, seed: int, deterministic: bool
    ) -> None:
        super().__init__(spec, seed)
        self.net, self.meta, self.deterministic = net, meta, deterministic
        self.obs_shape = tuple(meta["obs_shape"])

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        if observation.shape != self.obs_shape or action_mask.shape != (self.net.n_actions,):
            raise ValueError(
                f"{self.spec}: observation {observation.shape} and mask {action_mask.shape} "
                f"do not fit the network ({self.obs_shape}, ({self.net.n_actions},))"
            )
        with torch.no_grad():
            obs = torch.as_tensor(observation)[None]
            mask = torch.as_tensor(np.asarray(action_mask, dtype=np.int8))[None]
            logits = self.net.masked_logits(self.net.features(obs), mask)[0].double().numpy()
        if not self.deterministic:
            logits = logits + self.rng.gumbel(size=logits.shape)
        logits[np.asarray(action_mask) == 0] = -np.inf
        return int(np.argmax(logits))


def load_rllib_policy(path: str, game: str, seed: int, keywords: dict[str, Any]) -> RLlibPolicy:
    """The ``rllib:PATH`` loader: samples from the policy."""
    net, meta = read_policy(path, game)
    return RLlibPolicy(net, meta, f"rllib:{path}", seed, deterministic=False)


def load_rllib_argmax_policy(
    path: str, game: str, seed: int, keywords: dict[str, Any]
) -> RLlibPolicy:
    """The ``rllib_argmax:PATH`` loader: the most likely legal action."""
    net, meta = read_policy(path, game)
    return RLlibPolicy(net, meta, f"rllib_argmax:{path}", seed, deterministic=True)


register_loader("rllib", load_rllib_policy, "rllib:PATH")
register_loader("rllib_argmax", load_rllib_argmax_policy, "rllib_argmax:PATH")
