"""Policy files: what a trained network is saved as, and how it is read for play.

A *policy file* is a zip archive with two entries: ``policy.pth``, the network's weights as
a ``torch.save`` dict of tensors, and ``feral.json``, what the weights are for (game,
observation layout fingerprint, action count, layer sizes, whether the network takes the
heuristic's advice (:mod:`agents.advice`), training step). Checkpoints (``model.zip``, an
SB3 save with ``feral.json`` added) and the self-play snapshots (``pool/*.zip``) are both
policy files, so either loads as the arena spec ``ppo:PATH`` (:mod:`agents.ppo`).

Loading reads only those two entries, the weights with ``torch.load(weights_only=True)``:
no pickle is run, unlike ``MaskablePPO.load`` (used only to resume a run, which unpickles
SB3's saved attributes: resume only runs you trust). A file that is not a policy file, or one
for another game or another observation layout, raises :class:`CheckpointError` saying so.

The weights carry SB3's state-dict names, whichever backend trained them;
:func:`make_actor` tells the network family from them (:mod:`agents.networks.mlp`,
:mod:`agents.networks.board`, :mod:`agents.networks.cards`) and builds its frozen actor.
"""

from __future__ import annotations

import hashlib
import importlib
import io
import json
import os
import pickle
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.advice import Advisor, advised_core, advisor_of
from agents.networks.actor import Actor, AdvisedActor, CheckpointError
from agents.networks.mlp import POLICY_PREFIXES, ActorMLP
from feral_envs.core import GameCore
from feral_envs.layout import Layout

FORMAT = "feral-ppo-policy/1"
META_ENTRY = "feral.json"
WEIGHTS_ENTRY = "policy.pth"
CONVS = "features_extractor.convs"
"""The state-dict names of the board network's trunk start with this."""
CARDS = "cards."
"""The state-dict names of a card network's weights start with this."""
ACTOR_PREFIXES = (*POLICY_PREFIXES, CONVS + ".")
"""The state-dict names of the policy half of every network (what a policy file holds)."""


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


def make_actor(weights: dict[str, Any]) -> Actor:
    """The frozen actor of a state dict: of the card network or the board network if it has
    their weights, else of the MLP."""
    if any(k.startswith(CARDS) for k in weights):
        from agents.networks.cards import ActorCards

        return ActorCards(weights)
    if any(k.startswith(CONVS + ".") for k in weights):
        from agents.networks.board import ActorBoard

        return ActorBoard(weights)
    return ActorMLP(weights)


def actor_from_policy(policy: torch.nn.Module) -> Actor:
    """A frozen copy of the actor of a live torch module with SB3's names (an SB3 policy,
    :class:`~agents.networks.mlp.MLPNet` or :class:`~agents.networks.board.BoardNet`)."""
    if hasattr(policy.features_extractor, "convs"):
        from agents.networks.board import ActorBoard

        return ActorBoard.from_policy(policy)
    return ActorMLP.from_policy(policy)


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
    ``--advice`` (:mod:`agents.advice`) fits only an advised core, or with ``add_advice`` a
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
