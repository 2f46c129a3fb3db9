"""Hidden Ranks: ``CORE``, the compiled rules (``engine``) that the env, the bots and training
drive, with their named fields (``view``), keywords and tables (``rules``) and encodings."""

from __future__ import annotations

from feral_envs.engine.game import engine_core

from . import encoding, engine, rules, view
from .picture import render_rgb
from .render import render_ansi

CORE = engine_core(
    engine,
    view.decode,
    name="hidden_ranks",
    agents=rules.AGENTS,
    team_names=("gold", "silver"),
    make_config=rules.make_config,
    action_to_string=encoding.action_to_string,
    string_to_action=encoding.string_to_action,
    render_ansi=render_ansi,
    render_rgb=render_rgb,
    reset_options=("setup", "position", "to_move"),
    search="feral_envs.hidden_ranks.search",
    keyword_choices={"mode": rules.MODES, "setup": rules.SETUPS, "reward": ("win",)},
    keyword_defaults={"mode": "full", "setup": "choose", "max_moves": 2000, "reward": "win"},
)
"""What everything drives: the compiled engine (``engine``), read by name through ``view``."""

__all__ = ["CORE"]
