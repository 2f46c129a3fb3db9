"""Policies by spec string: ``load_policy("heuristic", "lost_heir", seed=3)``.

Specs (the arena's ``--agents`` take the same strings):

``random``
    Uniform over the legal actions (:class:`agents.random_policy.RandomPolicy`).
``heuristic``
    The game's hand-written bot: ``agents.heuristic.<game>.make_policy(seed, **keywords)``
    (the contract is in :mod:`agents.heuristic`). A game without one yet is an error.
    ``heuristic:key=value,...`` gives arguments to a heuristic that takes them (its module's
    ``make_configured``): Hidden Ranks' ``heuristic:guard=RANK`` puts that rank by its Flag.
``ppo:PATH``
    A trained policy file (a ``python -m train`` checkpoint, :mod:`agents.networks`). Its
    loader is a plug-in, registered with :func:`register_loader` by ``agents/ppo.py``, which
    is imported the first time a ``ppo:`` spec is loaded (it needs torch). It samples from
    the policy's distribution.
``ppo_argmax:PATH``
    The same checkpoint, always playing its most likely legal action (same plug-in).
``rllib:PATH``, ``rllib_argmax:PATH``
    A policy trained by the RLlib backend (``python -m train GAME --backend rllib``),
    sampling or greedy, loaded by ``agents/rllib.py`` with torch alone (no Ray).
``pimc[:worlds=N,time=SECONDS,...]`` (and the other prefixes of ``agents.search.SEARCH_PREFIXES``)
    A search bot: ``agents/search/<game>.py`` names which of them a game has and what their
    arguments mean (:mod:`agents.search`).
``openspiel_random``, ``openspiel_ismcts[:simulations=N|time=SECONDS,...]``
    OpenSpiel's Python bots on our games as OpenSpiel games (plug-ins registered by
    ``agents/openspiel.py``, which needs the ``openspiel`` extra; its docstring gives the
    arguments and how the bots see only the observation).

Every prefix maps to a loader ``loader(argument, game, seed, keywords) -> Policy``, where
``argument`` is the text after the first ``:`` (``""`` if none) and ``keywords`` are the
game keywords of the env the policy will play in (``variant``, ``target_score``, …: the rules
of the game, which every player knows). :func:`register_loader` adds a prefix.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agents.base import Policy
from agents.random_policy import RandomPolicy
from agents.search import SEARCH_PREFIXES, load_search, parse_arguments

Loader = Callable[[str, str, int, dict[str, Any]], Policy]
"""``loader(argument, game, seed, keywords) -> Policy`` for one spec prefix."""

_LOADERS: dict[str, Loader] = {}

PLUGIN_MODULES: dict[str, str] = {
    "ppo": "agents.ppo",
    "ppo_argmax": "agents.ppo",
    "rllib": "agents.rllib",
    "rllib_argmax": "agents.rllib",
    "openspiel_random": "agents.openspiel",
    "openspiel_ismcts": "agents.openspiel",
}
"""Prefixes whose loader a module registers when imported, loaded on first use."""

PATH_PREFIXES = {"ppo", "ppo_argmax", "rllib", "rllib_argmax"}
"""Prefixes whose argument is a checkpoint path: checked to exist before any loader runs."""

SPEC_FORMS: dict[str, str] = {
    "random": "random",
    "heuristic": "heuristic[:guard=RANK]",
    "ppo": "ppo:PATH",
    "ppo_argmax": "ppo_argmax:PATH",
    "rllib": "rllib:PATH",
    "rllib_argmax": "rllib_argmax:PATH",
    **SEARCH_PREFIXES,
    "openspiel_random": "openspiel_random",
    "openspiel_ismcts": "openspiel_ismcts[:simulations=N|time=SECONDS,...]",
}
"""How each prefix is written, for error messages and ``--help``."""


def register_loader(prefix: str, loader: Loader, form: str | None = None) -> None:
    """Make ``prefix`` (``"ppo"``) load policies with ``loader``; ``form`` shows its syntax."""
    if not prefix.isidentifier():
        raise ValueError(f"spec prefix {prefix!r} must be an identifier")
    _LOADERS[prefix] = loader
    SPEC_FORMS.setdefault(prefix, form or f"{prefix}:ARG")


def known_specs() -> str:
    """The spec forms, comma-separated (``random, heuristic, ppo:PATH, ppo_argmax:PATH``)."""
    return ", ".join(SPEC_FORMS[p] for p in SPEC_FORMS)


def split_spec(spec: str) -> tuple[str, str]:
    """``"ppo:runs/a.zip"`` -> ``("ppo", "runs/a.zip")``; ``"random"`` -> ``("random", "")``."""
    if not isinstance(spec, str) or not spec:
        raise ValueError(f"policy spec {spec!r} must be a non-empty string; specs: {known_specs()}")
    prefix, _, argument = spec.partition(":")
    return prefix, argument


def load_policy(spec: str, game: str, seed: int, keywords: dict[str, Any] | None = None) -> Policy:
    """A fresh policy for ``game`` (``"lost_heir"``, with or without ``_v0``) from ``spec``.

    ``keywords`` are the env's game keywords, passed on to loaders that want them. Raises
    ``ValueError`` for an unknown or malformed spec or a game without that kind of policy,
    ``FileNotFoundError`` for a missing checkpoint.
    """
    prefix, argument = split_spec(spec)
    game = game[:-3] if game.endswith("_v0") else game
    if prefix in PATH_PREFIXES:
        _check_path(prefix, argument)
    loader = _LOADERS.get(prefix)
    if loader is None and prefix in PLUGIN_MODULES:
        _import_plugin(prefix)
        loader = _LOADERS.get(prefix)
        if loader is None:
            raise ValueError(
                f"{prefix!r} policies are not available: {PLUGIN_MODULES[prefix]} registers no "
                f"loader for them"
            )
    if loader is None:
        raise ValueError(f"unknown policy spec {spec!r}; specs: {known_specs()}")
    policy = loader(argument, game, int(seed), dict(keywords or {}))
    policy.spec = spec
    return policy


def _import_plugin(prefix: str) -> None:
    module = PLUGIN_MODULES[prefix]
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as error:
        if error.name != module:
            raise
        raise ValueError(
            f"{prefix!r} policies are not available yet: no loader is registered for them "
            f"({module} does not exist)"
        ) from None


def _check_path(prefix: str, path: str) -> None:
    if not path:
        raise ValueError(f"a {prefix} spec needs a checkpoint path: {prefix}:PATH")
    if not Path(path).exists():
        raise FileNotFoundError(f"checkpoint {path!r} does not exist (spec '{prefix}:{path}')")


def _load_random(argument: str, game: str, seed: int, keywords: dict[str, Any]) -> Policy:
    if argument:
        raise ValueError(f"'random' takes no argument, got 'random:{argument}'")
    return RandomPolicy(seed)


def _load_heuristic(argument: str, game: str, seed: int, keywords: dict[str, Any]) -> Policy:
    """``heuristic``, or ``heuristic:key=value,...`` where the game's heuristic module takes
    arguments (its ``ARGUMENTS`` and ``make_configured``: Hidden Ranks' ``guard``)."""
    module_name = f"agents.heuristic.{game}"
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name != module_name:
            raise
        raise ValueError(
            f"no heuristic policy for {game!r} yet: agents/heuristic/{game}.py does not exist"
        ) from None
    if argument:
        if not hasattr(module, "make_configured"):
            raise ValueError(f"the {game} heuristic takes no argument, got 'heuristic:{argument}'")
        arguments = parse_arguments("heuristic", argument, SPEC_FORMS["heuristic"])
        return module.make_configured(arguments, seed, keywords)
    return module.make_policy(seed, **keywords)


_LOADERS["random"] = _load_random
_LOADERS["heuristic"] = _load_heuristic
for _prefix in SEARCH_PREFIXES:
    _LOADERS[_prefix] = lambda argument, game, seed, keywords, _p=_prefix: load_search(
        _p, argument, game, seed, keywords
    )
