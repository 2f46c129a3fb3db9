"""The card network of Lost Ranks (``--cards W1 W2 ...``): every card scored by the same layers.

In Lost Ranks an action is a card (its id, 0–52), and 16 of the observation's blocks are
53-wide card blocks in the same ids (hand, Trump Card, passes, cards played by each seat,
the trick, capture and void piles). The MLP reads them as 914 unrelated inputs. Here:

- **card features**: for card ``c``, its 16 block bits (``obs[block.start + c]``) and its
  identity (a one-hot); the other 66 entries (trump suit, round, scores, phase, trick
  leader, led suit, Jacks played, voids shown) are the *table* vector ``g``.
- **layers**: ``u_c = relu(A·bits_c + B·onehot_c + G·g + a)``, then for each further width
  ``u_c = relu(M·u_c + P·mean(u) + b)``: the same weights for every card, plus what the
  whole deck looks like (the mean over the 53 cards).
- **policy**: the logit of playing or passing card ``c`` is ``w·u_c + b``, read off that
  card's own features.
- **value**: the mean and the max of ``u`` over the cards, then ``--heads`` tanh layers.

:func:`card_features` and :func:`card_logits` are the one forward pass, used both by the SB3
policy that trains (:class:`CardPolicy`) and by the frozen copies that play
(:class:`ActorCards`).
"""

from __future__ import annotations

import itertools
from typing import Any

import gymnasium as gym
import numpy as np
import torch
import torch.nn.functional as F
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from feral_envs.lost_ranks.encoding import ACTIONS, OBS, OBS_SIZE
from feral_envs.lost_ranks.rules import N_CARDS
from train.policy import Actor, CheckpointError, ScoredActionsPolicy

GAMES = ("lost_ranks",)
"""Games the card network is built for (actions are card ids, card blocks in the same ids)."""

assert ACTIONS.size == N_CARDS
CARD_BLOCKS = tuple(span for span in OBS.spans if span.size == N_CARDS)
"""The observation's 53-wide card blocks, in layout order."""
CARD_INDEX = torch.as_tensor(
    [[span.start + c for span in CARD_BLOCKS] for c in range(N_CARDS)], dtype=torch.long
)
"""``obs[:, CARD_INDEX]``: ``(N, 53, blocks)``, the bits of each card."""
TABLE_INDEX = torch.as_tensor(
    sorted(set(range(OBS_SIZE)) - {int(i) for i in CARD_INDEX.flatten()}), dtype=torch.long
)
"""The observation entries outside the card blocks (the table vector ``g``)."""
TRUNK = "features_extractor.cards"
POLICY_HEADS = ("policy_out",)


def card_features(obs: torch.Tensor, p: dict[str, torch.Tensor], depth: int) -> torch.Tensor:
    """``(N, 914)`` observations to ``(N, 53, W)`` card features; ``p`` holds the trunk's
    weights under their names in :class:`CardTrunk` (``bits.weight``, ...)."""
    bits, table = obs[:, CARD_INDEX], obs[:, TABLE_INDEX]
    u = F.linear(bits, p["bits.weight"], p["bits.bias"]) + p["identity.weight"].T
    u = F.relu(u + F.linear(table, p["table.weight"])[:, None, :])
    for i in range(depth):
        mixed = F.linear(u, p[f"mix.{i}.weight"], p[f"mix.{i}.bias"])
        u = F.relu(mixed + F.linear(u.mean(dim=1), p[f"deck.{i}.weight"])[:, None, :])
    return u


def card_logits(u: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """The ``(N, 53)`` action logits from card features ``u``."""
    return F.linear(u, weight, bias).squeeze(-1)


class CardTrunk(BaseFeaturesExtractor):
    """SB3 features extractor: the card layers, their output flattened."""

    def __init__(self, observation_space: gym.spaces.Box, widths: tuple[int, ...] = (64,)) -> None:
        if tuple(observation_space.shape) != (OBS_SIZE,) or not widths:
            raise ValueError(
                f"the card network needs Lost Ranks' ({OBS_SIZE},) observation and widths"
            )
        super().__init__(observation_space, features_dim=widths[-1] * N_CARDS)
        self.cards = nn.Module()
        self.cards.bits = nn.Linear(len(CARD_BLOCKS), widths[0])
        self.cards.identity = nn.Linear(N_CARDS, widths[0], bias=False)
        self.cards.table = nn.Linear(len(TABLE_INDEX), widths[0], bias=False)
        pairs = list(itertools.pairwise(widths))
        self.cards.mix = nn.ModuleList(nn.Linear(a, b) for a, b in pairs)
        self.cards.deck = nn.ModuleList(nn.Linear(a, b, bias=False) for a, b in pairs)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        params = dict(self.cards.named_parameters())
        return card_features(observations, params, len(self.cards.mix)).flatten(1)


class CardHeads(nn.Module):
    """SB3 ``mlp_extractor``: the 53 logits (the action net is the identity) and the value
    head's tanh layers over the mean and max of the card features."""

    def __init__(self, width: int, value_layers: list[int]) -> None:
        super().__init__()
        self.width = width
        self.policy_out = nn.Linear(width, 1)
        layers: list[nn.Module] = []
        n = 2 * width
        for size in value_layers:
            layers += [nn.Linear(n, size), nn.Tanh()]
            n = size
        self.value_net = nn.Sequential(*layers)
        self.latent_dim_pi = N_CARDS
        self.latent_dim_vf = n

    def _cards(self, features: torch.Tensor) -> torch.Tensor:
        return features.view(len(features), N_CARDS, self.width)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return card_logits(self._cards(features), self.policy_out.weight, self.policy_out.bias)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        u = self._cards(features)
        return self.value_net(torch.cat([u.mean(dim=1), u.amax(dim=1)], dim=1))

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)


class CardPolicy(ScoredActionsPolicy):
    """sb3-contrib's masked actor-critic with the card network (``net_arch={"vf": heads}``)."""

    policy_outputs = POLICY_HEADS

    def _build_mlp_extractor(self) -> None:
        width = self.features_extractor.features_dim // N_CARDS
        self.mlp_extractor = CardHeads(width, list(self.net_arch["vf"]))


def card_policy_kwargs(widths: tuple[int, ...], heads: tuple[int, ...]) -> dict[str, Any]:
    """``MaskablePPO(CardPolicy, policy_kwargs=...)`` of the network in the module doc."""
    return {
        "features_extractor_class": CardTrunk,
        "features_extractor_kwargs": {"widths": tuple(widths)},
        "share_features_extractor": True,
        "net_arch": {"pi": [], "vf": list(heads)},
    }


class ActorCards(Actor):
    """The policy half of the card network, frozen, for play: the same forward pass as
    training (:func:`card_features`, :func:`card_logits`) in torch without gradients."""

    network = "cards: per-card layers shared by all 53 cards, deck mean, per-card score"

    def __init__(self, weights: dict[str, Any], value_heads: tuple[int, ...] = ()) -> None:
        prefix = TRUNK + "."
        self.params = {
            k[len(prefix) :]: torch.as_tensor(np.array(v, dtype=np.float32))
            for k, v in weights.items()
            if k.startswith(prefix)
        }
        self.depth = 0
        while f"mix.{self.depth}.weight" in self.params:
            self.depth += 1
        names = ["bits.weight", "bits.bias", "identity.weight", "table.weight"]
        names += [f"{m}.{i}.weight" for m in ("mix", "deck") for i in range(self.depth)]
        names += [f"mix.{i}.bias" for i in range(self.depth)]
        missing = [n for n in names if n not in self.params]
        try:
            out_w = weights["mlp_extractor.policy_out.weight"]
            out_b = weights["mlp_extractor.policy_out.bias"]
        except KeyError as error:
            missing.append(str(error))
        if missing:
            raise CheckpointError(f"card network weight(s) missing: {', '.join(missing[:3])}")
        self.out = (
            torch.as_tensor(np.array(out_w, dtype=np.float32)),
            torch.as_tensor(np.array(out_b, dtype=np.float32)),
        )
        p = self.params
        widths = [p["bits.weight"].shape[0]] + [
            p[f"mix.{i}.weight"].shape[0] for i in range(self.depth)
        ]
        shapes_ok = (
            p["bits.weight"].shape[1] == len(CARD_BLOCKS)
            and p["identity.weight"].shape == (widths[0], N_CARDS)
            and p["table.weight"].shape == (widths[0], len(TABLE_INDEX))
            and all(
                p[f"mix.{i}.weight"].shape
                == p[f"deck.{i}.weight"].shape
                == (widths[i + 1], widths[i])
                for i in range(self.depth)
            )
            and self.out[0].shape == (1, widths[-1])
        )
        if not shapes_ok:
            raise CheckpointError("card network weights do not chain (layer sizes disagree)")
        self.cards = tuple(widths)
        self.heads = tuple(value_heads)
        self.n_inputs = OBS_SIZE
        self.n_actions = N_CARDS

    @classmethod
    def from_policy(cls, policy: torch.nn.Module) -> ActorCards:
        state = {k: v.detach().cpu().numpy().copy() for k, v in policy.state_dict().items()}
        value = [m.out_features for m in policy.mlp_extractor.value_net if isinstance(m, nn.Linear)]
        return cls(state, tuple(value))

    def weights(self) -> dict[str, np.ndarray]:
        out = {f"{TRUNK}.{k}": v.numpy().copy() for k, v in self.params.items()}
        out["mlp_extractor.policy_out.weight"] = self.out[0].numpy().copy()
        out["mlp_extractor.policy_out.bias"] = self.out[1].numpy().copy()
        return out

    def logits(self, obs: np.ndarray) -> np.ndarray:
        x = torch.as_tensor(np.asarray(obs, dtype=np.float32)).reshape(len(obs), -1)
        with torch.no_grad():
            return card_logits(card_features(x, self.params, self.depth), *self.out).numpy()
