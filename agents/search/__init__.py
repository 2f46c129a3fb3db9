"""Search bots: play-time search over sampled worlds, on the compiled engine.

Each game's bots live in ``agents/search/<game>.py``, which maps its spec prefixes to
factories in ``SPECS``: ``SPECS["pimc"](arguments, seed, keywords) -> Policy``, where
``arguments`` is the spec's ``key=value`` list as a dict of strings (``pimc:worlds=32,time=0.5``
gives ``{"worlds": "32", "time": "0.5"}``) and ``keywords`` the env's game keywords. The
factory checks and converts its arguments (``ValueError`` naming the bad one and the allowed
ones). :mod:`agents.registry` loads a search spec through :func:`load_search`.

A search bot sees what every policy sees, its observation and mask, and the public rules
(the keywords); the worlds it searches are drawn from that alone (``feral_envs.<game>.search``).
"""

from __future__ import annotations

import importlib
from typing import Any

SEARCH_PREFIXES: dict[str, str] = {
    "pimc": "pimc[:worlds=N|time=SECONDS,...]",
    "minimax": "minimax[:worlds=N,depth=D,time=SECONDS,guard=RANK,decoy=0|1,corner=0|1]",
}
"""The search spec prefixes and how each is written (for ``--help`` and errors)."""


def parse_arguments(prefix: str, argument: str, form: str | None = None) -> dict[str, str]:
    """``"worlds=32,time=0.5"`` -> ``{"worlds": "32", "time": "0.5"}``; ``ValueError`` for
    an item without ``=`` or a key given twice, showing ``form`` (default: the search
    prefix's, :data:`SEARCH_PREFIXES`)."""
    out: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in argument.split(","))):
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key or not value:
            raise ValueError(
                f"{prefix!r} takes key=value arguments separated by commas "
                f"({form or SEARCH_PREFIXES.get(prefix, prefix)}), got {item!r}"
            )
        if key in out:
            raise ValueError(f"{prefix!r} argument {key!r} is given twice")
        out[key] = value
    return out


def load_search(prefix: str, argument: str, game: str, seed: int, keywords: dict[str, Any]) -> Any:
    """The search bot ``prefix`` of ``game`` (``ValueError`` if that game has none)."""
    module_name = f"agents.search.{game}"
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name != module_name:
            raise
        module = None
    specs = getattr(module, "SPECS", {})
    if prefix not in specs:
        offered = ", ".join(sorted(specs)) or "none yet"
        raise ValueError(f"no {prefix!r} bot for {game!r}; its search bots: {offered}")
    return specs[prefix](parse_arguments(prefix, argument), seed, keywords)
