"""The board network of Hidden Ranks (``--board C1 C2 ...``), convolutional, move by move.

The MLP (:mod:`agents.networks.mlp`) flattens the ``(10, 10, 71)`` observation and feeds all
3,640 action logits from one narrow layer, so what stands on a move's target square must
squeeze through that layer. Here the network keeps the board:

- **trunk**: ``symlog`` of the planes, then 3x3 convolutions (padding 1, ReLU) with the
  given channel counts; every ego square gets a feature vector ``h[s]``. The constant planes
  (pieces struck off, move count) reach every square, so it sees the whole army's state too.
- **policy**, three 1x1 convolutions over ``h``, the same for every square:
  a placement on ego square ``s`` (actions 0–39) scores ``place(h[s])``; the move of
  ``from`` ``distance`` squares in ``direction`` scores
  ``origin(h[from])[direction, distance] + target(h[to])[direction]``, where ``to`` is the
  square the move lands on (:data:`feral_envs.hidden_ranks.rules.RAY`, the rules' table;
  a move off the board, always masked, adds 0).
- **value**: a 1x1 convolution to 4 channels, flattened, then tanh layers of ``--heads``
  sizes and SB3's linear value output.

:func:`trunk_features` and :func:`policy_logits` are the one forward pass, used by the
SB3 policy that trains (``train/board.py``: :class:`BoardHeads` and :func:`board_convs`
inside SB3's classes), by :class:`BoardNet` (the network in torch without SB3, for another
training backend) and by the frozen copies that play as opponents, snapshots and
``ppo:PATH`` (:class:`ActorBoard`). All three use SB3's state-dict names.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from agents.networks.actor import Actor, CheckpointError, weight_pair
from agents.networks.mlp import symlog
from agents.networks.policy_file import CONVS
from agents.networks.threads import small_batch_threads
from feral_envs.hidden_ranks.rules import N_DIRECTIONS, N_PLACE, OFF_BOARD, RAY

GAMES = ("hidden_ranks",)
"""Games the board network is built for (their observation is the ego board)."""

POLICY_HEADS = ("policy_place", "policy_origin", "policy_target")
"""Names of the policy's 1x1 convolutions inside ``mlp_extractor``."""

BOARD = (10, 10)
N_SQUARES = RAY.shape[0]
N_STEPS = RAY.shape[1] * RAY.shape[2]  # direction x distance per from-square
_TARGET_SQUARE = torch.as_tensor(RAY, dtype=torch.long)  # (from, direction, distance)
assert OFF_BOARD == N_SQUARES  # the padded row that moves off the board read
_TARGET_DIRECTION = torch.arange(N_DIRECTIONS).view(1, -1, 1).expand_as(_TARGET_SQUARE)


def trunk_features(
    obs: torch.Tensor, convs: list[tuple[torch.Tensor, torch.Tensor]]
) -> torch.Tensor:
    """``(N, 10, 10, planes)`` observations to ``(N, C, 10, 10)`` square features."""
    x = symlog(obs.permute(0, 3, 1, 2))
    for weight, bias in convs:
        x = F.relu(F.conv2d(x, weight, bias, padding=1))
    return x


def policy_logits(h: torch.Tensor, heads: list[tuple[torch.Tensor, torch.Tensor]]) -> torch.Tensor:
    """The ``(N, 3640)`` action logits from square features ``h`` and the three policy
    convolutions ``heads`` (place, origin, target; see the module doc)."""
    (place_w, place_b), (origin_w, origin_b), (target_w, target_b) = heads
    n = h.shape[0]
    place = F.conv2d(h, place_w, place_b).flatten(1)[:, :N_PLACE]
    origin = F.conv2d(h, origin_w, origin_b).flatten(2).transpose(1, 2)  # (N, square, 36)
    target = F.conv2d(h, target_w, target_b).flatten(2).transpose(1, 2)  # (N, square, 4)
    target = F.pad(target, (0, 0, 0, 1))  # row OFF_BOARD: a move off the board adds 0
    landing = target[:, _TARGET_SQUARE, _TARGET_DIRECTION].reshape(n, N_SQUARES, N_STEPS)
    return torch.cat([place, (origin + landing).reshape(n, -1)], dim=1)


def board_convs(planes: int, channels: tuple[int, ...]) -> nn.ModuleList:
    """The trunk's 3x3 convolutions from ``planes`` input planes; ``ValueError`` if none."""
    if not channels:
        raise ValueError("the board network needs at least one convolution's channel count")
    sizes = (planes, *channels)
    return nn.ModuleList(
        nn.Conv2d(a, b, kernel_size=3, padding=1) for a, b in itertools.pairwise(sizes)
    )


def board_features(convs: nn.ModuleList, observations: torch.Tensor) -> torch.Tensor:
    """The trunk of the ``convs`` modules, its output flattened (the SB3 features)."""
    return trunk_features(observations, [(c.weight, c.bias) for c in convs]).flatten(1)


class BoardTrunk(nn.Module):
    """The trunk as a module (``convs``: the state-dict names under ``features_extractor``)."""

    def __init__(self, planes: int, channels: tuple[int, ...]) -> None:
        super().__init__()
        self.convs = board_convs(planes, channels)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return board_features(self.convs, observations)


class BoardHeads(nn.Module):
    """SB3 ``mlp_extractor``: the policy's logits (its "latent", the action net being the
    identity) and the value head's tanh layers."""

    def __init__(self, channels: int, value_layers: list[int], n_actions: int) -> None:
        super().__init__()
        self.channels = channels
        self.policy_place = nn.Conv2d(channels, 1, 1)
        self.policy_origin = nn.Conv2d(channels, N_STEPS, 1)
        self.policy_target = nn.Conv2d(channels, N_DIRECTIONS, 1)
        self.value_reduce = nn.Conv2d(channels, 4, 1)
        layers: list[nn.Module] = []
        n = 4 * N_SQUARES
        for size in value_layers:
            layers += [nn.Linear(n, size), nn.Tanh()]
            n = size
        self.value_net = nn.Sequential(*layers)
        self.latent_dim_pi = n_actions
        self.latent_dim_vf = n

    def _board(self, features: torch.Tensor) -> torch.Tensor:
        return features.view(len(features), self.channels, *BOARD)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        heads = [self.policy_place, self.policy_origin, self.policy_target]
        return policy_logits(self._board(features), [(c.weight, c.bias) for c in heads])

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.value_net(F.relu(self.value_reduce(self._board(features))).flatten(1))

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)


class BoardNet(nn.Module):
    """The board network in torch, without SB3 (module doc): ``logits(obs)`` and
    ``value(obs)``, under SB3's names, so it loads an SB3 policy's weights and
    :meth:`ActorBoard.from_policy` freezes it for play."""

    def __init__(self, planes: int, channels: tuple[int, ...], heads: tuple[int, ...]) -> None:
        super().__init__()
        self.features_extractor = BoardTrunk(planes, tuple(channels))
        self.mlp_extractor = BoardHeads(channels[-1], list(heads), N_PLACE + N_SQUARES * N_STEPS)
        self.value_net = nn.Linear(self.mlp_extractor.latent_dim_vf, 1)

    def logits(self, obs: torch.Tensor) -> torch.Tensor:
        return self.mlp_extractor.forward_actor(self.features_extractor(obs))

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        """The value estimate (batch,)."""
        latent = self.mlp_extractor.forward_critic(self.features_extractor(obs))
        return self.value_net(latent).squeeze(1)


class ActorBoard(Actor):
    """The policy half of the board network, frozen, for play: the same forward pass as
    training (:func:`trunk_features`, :func:`policy_logits`) in torch without gradients."""

    network = "board: symlog planes, 3x3 ReLU convolutions, per-square move scores"

    def __init__(self, weights: dict[str, Any], value_heads: tuple[int, ...] = ()) -> None:
        self.convs = []
        while f"{CONVS}.{len(self.convs)}.weight" in weights:
            self.convs.append(self._pair(weights, f"{CONVS}.{len(self.convs)}"))
        if not self.convs:
            raise CheckpointError("board network weights without convolutions")
        self.policy = [self._pair(weights, f"mlp_extractor.{name}") for name in POLICY_HEADS]
        shapes = [w.shape for w, _ in self.convs]
        chained = all(a[0] == b[1] for a, b in itertools.pairwise(shapes))
        chained &= all(s[2:] == (3, 3) for s in shapes)
        outputs = tuple(w.shape[0] for w, _ in self.policy)
        if not chained or any(w.shape[1] != shapes[-1][0] for w, _ in self.policy):
            raise CheckpointError(
                "board network weights do not chain (channel counts disagree, or a trunk "
                "kernel is not 3x3)"
            )
        if outputs != (1, N_STEPS, N_DIRECTIONS) or any(
            w.shape[2:] != (1, 1) for w, _ in self.policy
        ):
            raise CheckpointError(f"board network policy convolutions give {outputs} channels")
        self.board = tuple(s[0] for s in shapes)
        self.trunk: tuple[int, ...] = ()
        self.heads = tuple(value_heads)
        self.n_inputs = shapes[0][1] * N_SQUARES
        self.n_actions = N_PLACE + N_SQUARES * N_STEPS

    @staticmethod
    def _pair(weights: dict[str, Any], name: str) -> tuple[torch.Tensor, torch.Tensor]:
        w, b = weight_pair(weights, name)
        return torch.as_tensor(np.array(w, np.float32)), torch.as_tensor(np.array(b, np.float32))

    @classmethod
    def from_policy(cls, policy: torch.nn.Module) -> ActorBoard:
        state = {k: v.detach().cpu().numpy().copy() for k, v in policy.state_dict().items()}
        value = [m.out_features for m in policy.mlp_extractor.value_net if isinstance(m, nn.Linear)]
        return cls(state, tuple(value))

    def weights(self) -> dict[str, np.ndarray]:
        names = [f"{CONVS}.{i}" for i in range(len(self.convs))]
        names += [f"mlp_extractor.{name}" for name in POLICY_HEADS]
        out = {}
        for name, (w, b) in zip(names, self.convs + self.policy, strict=True):
            out[name + ".weight"], out[name + ".bias"] = w.numpy().copy(), b.numpy().copy()
        return out

    def logits(self, obs: np.ndarray) -> np.ndarray:
        x = torch.as_tensor(np.asarray(obs, dtype=np.float32)).reshape(len(obs), *BOARD, -1)
        with small_batch_threads(len(x)), torch.no_grad():
            return policy_logits(trunk_features(x, self.convs), self.policy).numpy()
