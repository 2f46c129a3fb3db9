"""The card network: a score per card from the card's own view of the observation.

An MLP over the whole observation must learn each card's features afresh for each of its
outputs (53 in Lost Ranks), from rare examples of each. In a card game the action ids are
card ids, and the observation's card blocks are indexed by the same ids (``CARD_SPANS`` of
the game's encoding). So this network gives every card a *token*: the card's entry of each
card block (in my hand? played, by whom? in the trick? the heuristic's choice?), its entries
of the blocks indexed by its suit (``SUIT_SPANS``: is its suit trump, led, shown void by
whom?), its suit and power in the deck, and a learned embedding of its id; plus, for all
tokens alike, a linear map of the rest of the observation (scores, round, phase, ...). A
transformer encoder lets the tokens attend to each other (which higher cards of my suit are
still out?), and one small MLP, shared by all cards, scores each token. What it learns about
one card (a high card of the led suit) carries over to the others.

:class:`CardNet` is both the network that :mod:`train.rollout` fits and the one that plays:
the indices into the observation, the deck's features and the decision rule are buffers
of its state dict, so a policy file holds all of it (its layout fingerprint pins the
encoding). ``predict`` gives the fitted value of each card (the advantage over the
heuristic's card, in points); ``logits`` is the policy: that value, plus ``margin`` on the
heuristic's card, over ``temperature``. Where the observation's ``gate`` flag is 0 (decisions
of a kind that was not fit, such as Lost Ranks' pass), the logits follow the heuristic.

The network needs the heuristic's advice as input (:mod:`agents.advice`): it is a policy of
the advised observation only.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.networks.actor import Actor, CheckpointError
from agents.networks.policy_file import CARDS, encoding_module
from agents.networks.threads import small_batch_threads
from feral_envs.cards import CANNOT_WIN, NO_SUIT
from feral_envs.core import GameCore

N_HEADS = 4
"""Attention heads of each encoder layer (the width must be a multiple)."""
FOLLOW = 1e4
"""Logit of the heuristic's card where the gate is 0 (the others get 0)."""


def card_inputs(core: GameCore) -> dict[str, torch.Tensor]:
    """The buffers that tie a card network to an advised ``core``'s observation (module doc);
    ``ValueError`` if the game's encoding declares no card blocks."""
    module = encoding_module(core)
    if not hasattr(module, "CARD_SPANS"):
        raise ValueError(
            f"{core.name} has no card blocks for the card network (its encoding declares no "
            "CARD_SPANS; lost_ranks does)"
        )
    package = module.__name__.rsplit(".", 1)[0]
    rules = importlib.import_module(package + ".rules")
    determinize = importlib.import_module(package + ".determinize")
    n_obs, n_cards = int(np.prod(core.obs_shape)), core.n_actions
    advice = n_obs - n_cards  # the advised observation ends with the advice, a card block
    deck = rules.DECK
    n_suits = len(deck.suit_names)
    blocks = [span.start for span in module.CARD_SPANS] + [advice]
    card_index = np.array([[start + c for start in blocks] for c in range(n_cards)])
    zero = n_obs  # the network appends a 0 to the observation: what a suitless card reads
    suit_index = np.full((n_cards, sum(s.size // n_suits for s in module.SUIT_SPANS)), zero)
    for c in range(n_cards):
        if deck.suit_of[c] != NO_SUIT:
            suit_index[c] = [
                span.start + k * n_suits + deck.suit_of[c]
                for span in module.SUIT_SPANS
                for k in range(span.size // n_suits)
            ]
    per_card = {int(i) for i in card_index.ravel()} | {int(i) for i in suit_index.ravel()}
    global_index = np.array([i for i in range(advice) if i not in per_card])
    static = np.zeros((n_cards, n_suits + 3), np.float32)
    top = max(deck.power_of)
    for c in range(n_cards):
        static[c, deck.suit_of[c] if deck.suit_of[c] != NO_SUIT else n_suits] = 1.0
        power = deck.power_of[c]
        static[c, n_suits + 1] = 0.0 if power == CANNOT_WIN else (power + 1) / (top + 1)
        static[c, n_suits + 2] = float(power == CANNOT_WIN)
    return {
        "card_index": torch.as_tensor(card_index),
        "suit_index": torch.as_tensor(suit_index),
        "global_index": torch.as_tensor(global_index),
        "static": torch.as_tensor(static),
        "advice_index": torch.arange(advice, advice + n_cards),
        "gate": torch.tensor(int(determinize.SAMPLED_FLAG)),
    }


class CardNet(nn.Module):
    """The card network (module doc): ``width`` features per token, ``layers`` encoder
    layers; ``inputs`` from :func:`card_inputs`."""

    def __init__(
        self,
        inputs: dict[str, torch.Tensor],
        width: int = 64,
        layers: int = 2,
        margin: float = 0.0,
        temperature: float = 0.1,
    ) -> None:
        super().__init__()
        if width < N_HEADS or width % N_HEADS:
            raise ValueError(
                f"the card network's width must be a positive multiple of {N_HEADS}, got {width}"
            )
        for name, value in inputs.items():
            self.register_buffer(name, value.clone())
        self.register_buffer("margin", torch.tensor(float(margin)))
        self.register_buffer("temperature", torch.tensor(float(temperature)))
        n_cards, n_card = self.card_index.shape
        n_token = n_card + self.suit_index.shape[1] + self.static.shape[1]
        self.token = nn.Linear(n_token, width)
        self.common = nn.Linear(len(self.global_index), width)
        self.identity = nn.Embedding(n_cards, width)
        layer = nn.TransformerEncoderLayer(width, N_HEADS, 2 * width, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.score = nn.Sequential(nn.Linear(width, width), nn.ReLU(), nn.Linear(width, 1))

    def predict(self, obs: torch.Tensor) -> torch.Tensor:
        """The fitted value of each card (batch, cards)."""
        x = torch.cat([obs, obs.new_zeros(len(obs), 1)], dim=1)
        tokens = torch.cat(
            [
                x[:, self.card_index],
                x[:, self.suit_index],
                self.static.expand(len(x), -1, -1),
            ],
            dim=2,
        )
        common = self.common(x[:, self.global_index])[:, None]
        h = self.token(tokens) + common + self.identity.weight
        return self.score(self.encoder(h)).squeeze(2)

    def logits(self, obs: torch.Tensor) -> torch.Tensor:
        """The policy's logits (module doc)."""
        advice = obs[:, self.advice_index]
        fitted = (self.predict(obs) + self.margin * advice) / self.temperature
        follow = advice * FOLLOW
        return torch.where(obs[:, self.gate, None] > 0.5, fitted, follow)

    @staticmethod
    def shape_of(weights: dict[str, Any]) -> tuple[int, int]:
        """The width and layer count of a card network's state dict (without ``CARDS``)."""
        try:
            width = int(weights["identity.weight"].shape[1])
        except KeyError:
            raise CheckpointError("card network weights without identity.weight") from None
        layers = 0
        while f"encoder.layers.{layers}.linear1.weight" in weights:
            layers += 1
        return width, layers


class ActorCards(Actor):
    """A card network, frozen, for play (torch without gradients)."""

    network = "cards: a transformer over card tokens, a shared score per card"

    def __init__(self, weights: dict[str, Any]) -> None:
        state = {
            k[len(CARDS) :]: torch.as_tensor(np.asarray(v))
            for k, v in weights.items()
            if k.startswith(CARDS)
        }
        width, layers = CardNet.shape_of(state)
        names = ("card_index", "suit_index", "global_index", "static", "advice_index", "gate")
        try:
            inputs = {name: state[name] for name in names}
        except KeyError as missing:
            raise CheckpointError(f"card network buffer {missing} is missing") from None
        try:
            self.net = CardNet(inputs, width, layers)
            self.net.load_state_dict(state)
        except (RuntimeError, ValueError) as error:
            raise CheckpointError(f"card network weights do not fit together: {error}") from None
        self.net.eval()
        self.n_actions = int(inputs["card_index"].shape[0])
        self.n_inputs = int(inputs["advice_index"][-1]) + 1
        self.trunk = (width,) * layers

    @classmethod
    def from_net(cls, net: CardNet) -> ActorCards:
        """A frozen copy of a live card network."""
        return cls({CARDS + k: v.detach().numpy() for k, v in net.state_dict().items()})

    def weights(self) -> dict[str, np.ndarray]:
        return {CARDS + k: v.detach().numpy().copy() for k, v in self.net.state_dict().items()}

    def logits(self, obs: np.ndarray) -> np.ndarray:
        x = torch.as_tensor(np.asarray(obs, dtype=np.float32).reshape(len(obs), -1))
        with small_batch_threads(len(x)), torch.no_grad():
            return self.net.logits(x).numpy()
