"""Trained policies as plain numpy networks, and the policy files that hold them.

A *policy file* is a zip archive with two entries: ``policy.pth``, the network's weights as
a ``torch.save`` dict of tensors, and ``feral.json``, what the weights are for (game,
observation layout fingerprint, action count, layer sizes, whether the network takes the
heuristic's advice (:mod:`train.advice`), training step). Checkpoints
(``model.zip``, an SB3 save with ``feral.json`` added) and the self-play snapshots
(``pool/*.zip``) are both policy files, so either loads as the arena spec ``ppo:PATH``.

Loading reads only those two entries, the weights with ``torch.load(weights_only=True)``:
no pickle is run, unlike ``MaskablePPO.load`` (used only to resume a run, which unpickles
SB3's saved attributes: resume only runs you trust). A file that is not a policy file, or one
for another game or another observation layout, raises :class:`CheckpointError` saying so.

**The network** (what training builds, :func:`policy_kwargs`): the observation goes through
``symlog(x) = sign(x) * log(1 + |x|)`` (parameter-free: raw counts such as scores or hands
left, in the hundreds, no longer saturate the first layer while 0/1 features stay apart;
written as ``copysign(log1p(|x|), x)``: ``torch.asinh``, the one-op alternative, measured
twice as slow on this CPU),
then a *trunk* of tanh layers shared by the policy and the value function, then a tanh
layer of each head and the heads' outputs. The trunk's first layer, whose cost grows with
the observation size (743 inputs in Lost Heir), is computed once for both heads.

Hidden Ranks can use the convolutional *board network* instead (``--board``,
:mod:`train.board`): :func:`network` picks the SB3 policy class and keywords, and
:func:`make_actor` / :func:`actor_from_policy` give the frozen actor of either network.
``python -m train.rollout`` fits the *card network* (:mod:`train.cardnet`), whose policy
files :func:`make_actor` reads too.

The MLP actor runs in numpy (a few small matrix products): at batch sizes of one to a few dozen
that is several times faster than the same network in torch, which matters for the
opponents inside the training env and for arena play.
"""

from __future__ import annotations

import hashlib
import importlib
import io
import itertools
import json
import os
import pickle
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from feral_envs.core import GameCore
from feral_envs.layout import Layout
from train.advice import Advisor, advised_core, advisor_of
from train.config import game_core

FORMAT = "feral-ppo-policy/1"
META_ENTRY = "feral.json"
WEIGHTS_ENTRY = "policy.pth"
ACTOR_PREFIXES = (
    "features_extractor.layers.",
    "features_extractor.convs.",  # the board network (train/board.py)
    "mlp_extractor.policy_",
    "action_net.",
)
TRUNK = "features_extractor.layers"


class CheckpointError(ValueError):
    """A file that cannot be used as a policy of this game (the message says why)."""


def encoding_module(core: GameCore) -> Any:
    """The module that declares ``core``'s observation layouts: the game's ``encoding.py``
    (for a core of this package's games), else the module that defines ``core.observe``."""
    try:
        return importlib.import_module(f"feral_envs.{core.name}.encoding")
    except ModuleNotFoundError:
        return importlib.import_module(core.observe.__module__)


def layout_fingerprint(core: GameCore) -> str:
    """A hash of the observation and action encoding of ``core``.

    It covers the observation shape, the action count and every named :class:`Layout` of the
    game's encoding module (:func:`encoding_module`), so a network trained on one layout is
    refused on another even when the sizes happen to agree.
    """
    parts = [f"obs={tuple(core.obs_shape)}", f"actions={core.n_actions}"]
    module = encoding_module(core)
    for name in sorted(vars(module)):
        value = getattr(module, name)
        if isinstance(value, Layout):
            parts.append(name + ":" + ";".join(f"{s.name},{s.start},{s.size}" for s in value.spans))
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def symlog(x: torch.Tensor) -> torch.Tensor:
    return torch.copysign(torch.log1p(torch.abs(x)), x)


class SymlogTrunk(BaseFeaturesExtractor):
    """SB3 features extractor: flatten, symlog, then tanh layers of sizes ``trunk``."""

    def __init__(self, observation_space: gym.spaces.Box, trunk: tuple[int, ...] = (64,)) -> None:
        n = int(np.prod(observation_space.shape))
        super().__init__(observation_space, features_dim=trunk[-1] if trunk else n)
        layers: list[nn.Module] = []
        for size in trunk:
            layers += [nn.Linear(n, size), nn.Tanh()]
            n = size
        self.layers = nn.Sequential(*layers)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.layers(symlog(torch.flatten(observations, 1)))


def policy_kwargs(trunk: tuple[int, ...], heads: tuple[int, ...]) -> dict[str, Any]:
    """``MaskablePPO("MlpPolicy", policy_kwargs=...)`` of the network in the module doc."""
    return {
        "features_extractor_class": SymlogTrunk,
        "features_extractor_kwargs": {"trunk": tuple(trunk)},
        "share_features_extractor": True,
        "net_arch": {"pi": list(heads), "vf": list(heads)},
    }


def network(
    trunk: tuple[int, ...],
    heads: tuple[int, ...],
    board: tuple[int, ...] = (),
) -> tuple[Any, dict[str, Any]]:
    """The policy class and ``policy_kwargs`` of ``MaskablePPO`` for a run's network: the MLP
    of the module doc, or with ``board`` channels the board network of ``train/board.py``."""
    if board:
        from train.board import BoardPolicy, board_policy_kwargs

        return BoardPolicy, board_policy_kwargs(board, heads)
    return "MlpPolicy", policy_kwargs(trunk, heads)


class Actor:
    """A frozen policy network for play: ``logits(obs)`` for a batch; ``act(obs, masks,
    rng)`` picks legal actions, sampling from the masked softmax (Gumbel-max with ``rng``)
    or, if ``deterministic``, the most likely. ``weights()`` gives its SB3 state dict.

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


def make_actor(weights: dict[str, Any]) -> Actor:
    """The frozen actor of a state dict: of the card network (``train/cardnet.py``) or the
    board network if it has their weights, else of the MLP."""
    if any(k.startswith("cards.") for k in weights):
        from train.cardnet import ActorCards

        return ActorCards(weights)
    if any(k.startswith("features_extractor.convs.") for k in weights):
        from train.board import ActorBoard

        return ActorBoard(weights)
    return ActorMLP(weights)


def actor_from_policy(policy: torch.nn.Module) -> Actor:
    """A frozen copy of the actor of a live SB3 policy (any network)."""
    if hasattr(policy.features_extractor, "convs"):
        from train.board import ActorBoard

        return ActorBoard.from_policy(policy)
    return ActorMLP.from_policy(policy)


class ActorMLP(Actor):
    """The policy half of the network of :func:`policy_kwargs`, in numpy."""

    network = "symlog inputs, shared tanh trunk, tanh policy head"

    def __init__(self, weights: dict[str, Any]) -> None:
        layers = []
        self.n_trunk = 0
        for prefix in (TRUNK, "mlp_extractor.policy_net"):
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
        """A frozen copy of the actor of a live SB3 policy."""
        return cls(
            {
                k: v.detach().cpu().numpy().copy()
                for k, v in policy.state_dict().items()
                if k.startswith(ACTOR_PREFIXES)
            }
        )

    def weights(self) -> dict[str, np.ndarray]:
        """The weights in SB3's names and layout (what ``__init__`` takes)."""
        names = [f"{TRUNK}.{2 * j}" for j in range(self.n_trunk)]
        names += [f"mlp_extractor.policy_net.{2 * j}" for j in range(len(self.heads))]
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


def policy_meta(
    core: GameCore, actor: Actor, step: int, keywords: dict[str, Any]
) -> dict[str, Any]:
    """The ``feral.json`` of a policy of ``core`` trained for ``step`` learner decisions."""
    import feral_envs

    return {
        "format": FORMAT,
        "game": core.name,
        "obs_shape": list(core.obs_shape),
        "n_actions": core.n_actions,
        "layout": layout_fingerprint(core),
        "network": actor.network,
        "trunk": list(actor.trunk),
        "heads": list(actor.heads),
        "board": list(actor.board),
        "advice": advisor_of(core) is not None,
        "step": int(step),
        "keywords": keywords,
        "feral_envs": feral_envs.__version__,
    }


def write_policy_file(path: str | os.PathLike, actor: Actor, meta: dict[str, Any]) -> None:
    """A standalone policy file (the self-play snapshots)."""
    buffer = io.BytesIO()
    torch.save({k: torch.from_numpy(v) for k, v in actor.weights().items()}, buffer)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(WEIGHTS_ENTRY, buffer.getvalue())
        archive.writestr(META_ENTRY, json.dumps(meta, indent=1))


def add_meta(sb3_zip: str | os.PathLike, meta: dict[str, Any]) -> None:
    """Make an SB3 save a policy file too (SB3 ignores the extra entry when loading)."""
    with zipfile.ZipFile(sb3_zip, "a") as archive:
        archive.writestr(META_ENTRY, json.dumps(meta, indent=1))


def resolve_path(path: str | os.PathLike) -> Path:
    """A policy file, or the final model (else the latest checkpoint) of a run directory."""
    p = Path(path)
    if p.is_dir():
        for candidate in (p / "model.zip", p / "checkpoint" / "model.zip"):
            if candidate.is_file():
                return candidate
        raise CheckpointError(f"{p} is a directory with no model.zip nor checkpoint/model.zip")
    if not p.exists():
        raise CheckpointError(f"{p}: no such file or directory")
    return p


def read_policy_weights(
    path: str | os.PathLike, core: GameCore, add_advice: bool = False
) -> tuple[dict[str, torch.Tensor], dict[str, Any], Path]:
    """The weights (a state dict), metadata and resolved path of a policy file for ``core``;
    :class:`CheckpointError` if it is not one (see the module doc). A policy trained with
    ``--advice`` (:mod:`train.advice`) fits only an advised core, or with ``add_advice`` a
    game's own core (the caller adds the advice)."""
    p = resolve_path(path)
    what = f"{p} is not a Feral Envs PPO checkpoint"
    try:
        with zipfile.ZipFile(p) as archive:
            names = set(archive.namelist())
            if META_ENTRY not in names or WEIGHTS_ENTRY not in names:
                raise CheckpointError(f"{what} (no {META_ENTRY} and {WEIGHTS_ENTRY} inside)")
            meta = json.loads(archive.read(META_ENTRY))
            raw = archive.read(WEIGHTS_ENTRY)
    except (zipfile.BadZipFile, OSError) as error:
        raise CheckpointError(f"{what} (not a readable zip archive: {error})") from None
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise CheckpointError(f"{what} ({META_ENTRY} is not JSON)") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise CheckpointError(
            f"{what} (unknown format {meta.get('format')!r}; expected {FORMAT})"
            if isinstance(meta, dict)
            else f"{what} (bad {META_ENTRY})"
        )
    if meta.get("game") != core.name:
        raise CheckpointError(f"{p} holds a policy for {meta.get('game')!r}, not {core.name!r}")
    advised, core_advised = bool(meta.get("advice", False)), advisor_of(core) is not None
    if advised != core_advised and not (advised and add_advice):
        raise CheckpointError(
            f"{p} was trained {'with' if advised else 'without'} --advice (the heuristic's "
            f"choice as input); this run is {'with' if core_advised else 'without'} it: "
            f"{'give' if advised else 'drop'} --advice"
        )
    layout_core = advised_core(core, {}) if advised and not core_advised else core
    fingerprint = layout_fingerprint(layout_core)
    if meta.get("layout") != fingerprint:
        raise CheckpointError(
            f"{p} was trained on another observation/action layout of {core.name} "
            f"(checkpoint: obs {meta.get('obs_shape')}, {meta.get('n_actions')} actions, layout "
            f"{meta.get('layout')}; this version: obs {list(core.obs_shape)}, {core.n_actions} "
            f"actions, layout {fingerprint}): retrain, or use the feral_envs version it came from"
        )
    try:
        weights = torch.load(io.BytesIO(raw), map_location="cpu", weights_only=True)
    except (pickle.UnpicklingError, RuntimeError, EOFError) as error:
        raise CheckpointError(
            f"{what} ({WEIGHTS_ENTRY} is not a plain weights file: {error})"
        ) from None
    if not isinstance(weights, dict):
        raise CheckpointError(f"{what} ({WEIGHTS_ENTRY} holds no state dict)")
    return {k: v for k, v in weights.items() if isinstance(v, torch.Tensor)}, meta, p


def read_policy_file(
    path: str | os.PathLike, core: GameCore, keywords: dict[str, Any] | None = None
) -> tuple[Actor, dict[str, Any]]:
    """The actor and metadata of a policy file for ``core``; :class:`CheckpointError` if not.

    With ``keywords`` (the game keywords of the env it will play in), a policy trained with
    ``--advice`` read for a game's own core comes wrapped in its advisor
    (:class:`AdvisedActor`), so that it takes the game's observations."""
    weights, meta, p = read_policy_weights(path, core, add_advice=keywords is not None)
    actor = make_actor({k: v.numpy() for k, v in weights.items()})
    add = bool(meta.get("advice")) and advisor_of(core) is None
    n_obs = int(np.prod(core.obs_shape)) + (core.n_actions if add else 0)
    if actor.n_inputs != n_obs or actor.n_actions != core.n_actions:
        raise CheckpointError(
            f"{p}: network takes {actor.n_inputs} inputs and gives {actor.n_actions} actions; "
            f"{core.name} has {n_obs} and {core.n_actions}"
        )
    if add:
        actor = AdvisedActor(actor, Advisor(core.name, keywords or {}))
    return actor, meta


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


class AdvisedActor(Actor):
    """A policy trained with ``--advice``, playing from the game's own observations: each
    is followed by the advice of :class:`~train.advice.Advisor` before the network sees it."""

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


class PPOPolicy:
    """A trained policy as an ``agents`` Policy (arena, play): ``act(observation, mask)``.

    It samples from the masked policy distribution with its own seeded generator, as the
    learner did while training (``deterministic=True``: always the most likely action).
    It is also an ``agents`` BatchPolicy: one network call for all the lanes asking, each
    lane with its own generator (:meth:`Actor.act_rows`).
    """

    def __init__(
        self,
        actor: Actor,
        meta: dict[str, Any],
        spec: str,
        seed: int,
        deterministic: bool = False,
    ) -> None:
        self.actor, self.meta, self.spec, self.deterministic = actor, meta, spec, deterministic
        self.name = spec
        self.rng = np.random.default_rng(seed)
        self.lane_rngs: list[np.random.Generator] = []

    def reset(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        masks = np.asarray(action_mask, dtype=bool)[None]
        return int(self.actor.act(observation[None], masks, self.rng, self.deterministic)[0])

    def reset_lanes(self, seeds: Sequence[int]) -> None:
        self.lane_rngs = [np.random.default_rng(seed) for seed in seeds]

    def act_lanes(
        self, lanes: np.ndarray, observations: np.ndarray, action_masks: np.ndarray
    ) -> np.ndarray:
        rngs = [self.lane_rngs[lane] for lane in lanes]
        masks = np.asarray(action_masks, dtype=bool)
        actions = self.actor.act_rows(observations, masks, rngs, self.deterministic)
        return actions.astype(np.int64)


def load_ppo_policy(path: str, game: str, seed: int, keywords: dict[str, Any]) -> PPOPolicy:
    """The ``ppo:PATH`` loader (registered with ``agents`` by ``agents/ppo.py``): samples."""
    actor, meta = read_policy_file(path, game_core(game), keywords)
    return PPOPolicy(actor, meta, f"ppo:{path}", seed)


def load_ppo_argmax_policy(path: str, game: str, seed: int, keywords: dict[str, Any]) -> PPOPolicy:
    """The ``ppo_argmax:PATH`` loader: the same policy, always playing its most likely
    legal action (greedy evaluation)."""
    actor, meta = read_policy_file(path, game_core(game), keywords)
    return PPOPolicy(actor, meta, f"ppo_argmax:{path}", seed, deterministic=True)
