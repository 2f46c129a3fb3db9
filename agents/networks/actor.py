"""The frozen actor every trained network plays through, whatever its family.

:class:`Actor` is the interface the arena, terminal play, the self-play pool and the quick
evaluations call: ``logits(obs)`` and ``act(obs, masks, rng)``. Each network family
(:mod:`agents.networks.mlp`, :mod:`agents.networks.board`, :mod:`agents.networks.cards`)
subclasses it; :class:`AdvisedActor` wraps any of them with the heuristic's advice
(:mod:`agents.advice`). :class:`CheckpointError` is what a bad policy file or bad weights
raise.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from agents.advice import Advisor


class CheckpointError(ValueError):
    """A file that cannot be used as a policy of this game (the message says why)."""


class Actor:
    """A frozen policy network for play: ``logits(obs)`` for a batch; ``act(obs, masks,
    rng)`` picks legal actions, sampling from the masked softmax (Gumbel-max with ``rng``)
    or, if ``deterministic``, the most likely. ``weights()`` gives its state dict in the
    names of a policy file (SB3's names: :mod:`agents.networks.policy_file`).

    ``act_rows(obs, masks, rngs)`` plays many games at once, each row exactly as ``act``
    plays it alone (a batch of one, with that row's generator): its logits from
    ``logits_rows``, bit for bit those of the row alone. ``logits`` of a whole batch may
    round differently (a BLAS product of many rows is not the same sums as one row's), so
    batched play that must replay the one-game choices uses ``act_rows``."""

    network = ""
    trunk: tuple[int, ...] = ()
    heads: tuple[int, ...] = ()
    board: tuple[int, ...] = ()
    n_inputs = n_actions = 0

    def logits(self, obs: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def logits_rows(self, obs: np.ndarray) -> np.ndarray:
        """The logits of each row exactly as ``logits(obs[i : i + 1])`` gives them (this
        default computes them so; a network that can batch them unchanged overrides it)."""
        return np.concatenate([self.logits(obs[i : i + 1]) for i in range(len(obs))])

    def weights(self) -> dict[str, np.ndarray]:
        raise NotImplementedError

    def act(
        self,
        obs: np.ndarray,
        masks: np.ndarray,
        rng: np.random.Generator,
        deterministic: bool = False,
    ) -> np.ndarray:
        logits = self.logits(obs)
        noise = None if deterministic else rng.gumbel(size=logits.shape)
        return _pick(logits, masks, noise)

    def act_rows(
        self,
        obs: np.ndarray,
        masks: np.ndarray,
        rngs: list[np.random.Generator],
        deterministic: bool = False,
    ) -> np.ndarray:
        """Row ``i``'s action exactly as ``act(obs[i : i + 1], masks[i : i + 1], rngs[i])``."""
        logits = self.logits_rows(obs)
        n = logits.shape[1]
        noise = None if deterministic else np.stack([rng.gumbel(size=n) for rng in rngs])
        return _pick(logits, masks, noise)


def _pick(logits: np.ndarray, masks: np.ndarray, noise: np.ndarray | None) -> np.ndarray:
    """The legal action of largest ``logits + noise`` (``noise`` None: of largest logit)."""
    if noise is not None:
        logits += noise.astype(np.float32)
    logits[~masks.astype(bool)] = -np.inf
    return logits.argmax(axis=1)


def weight_pair(weights: dict[str, Any], name: str) -> tuple[Any, Any]:
    """``weights[name + ".weight"]`` and ``.bias``; :class:`CheckpointError` if missing."""
    try:
        return weights[name + ".weight"], weights[name + ".bias"]
    except KeyError as missing:
        raise CheckpointError(f"actor weight {missing} is missing") from None


class AdvisedActor(Actor):
    """A policy trained with ``--advice``, playing from the game's own observations: each
    is followed by the advice of :class:`~agents.advice.Advisor` before the network sees it."""

    def __init__(self, inner: Actor, advisor: Advisor) -> None:
        self.inner, self.advisor = inner, advisor
        self.network, self.trunk, self.heads, self.board = (
            inner.network,
            inner.trunk,
            inner.heads,
            inner.board,
        )
        self.n_inputs, self.n_actions = inner.n_inputs - inner.n_actions, inner.n_actions

    def logits(self, obs: np.ndarray) -> np.ndarray:
        raise TypeError("an advised actor needs the legal actions too: call act()")

    def weights(self) -> dict[str, np.ndarray]:
        return self.inner.weights()

    def act(
        self,
        obs: np.ndarray,
        masks: np.ndarray,
        rng: np.random.Generator,
        deterministic: bool = False,
    ) -> np.ndarray:
        masks = masks.astype(bool)
        return self.inner.act(self._advised(obs, masks), masks, rng, deterministic)

    def act_rows(
        self,
        obs: np.ndarray,
        masks: np.ndarray,
        rngs: list[np.random.Generator],
        deterministic: bool = False,
    ) -> np.ndarray:
        masks = masks.astype(bool)
        return self.inner.act_rows(self._advised(obs, masks), masks, rngs, deterministic)

    def _advised(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Each observation followed by its advice, the network's input."""
        return np.stack(
            [self.advisor.augment(o, m) for o, m in zip(obs, masks, strict=True)]
        ).astype(np.float32)
