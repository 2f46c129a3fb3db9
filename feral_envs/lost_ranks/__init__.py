"""Lost Ranks: the compiled rules (``engine``), their named fields (``view``), the keywords and
tables (``rules``), the encodings (``encoding``) and ``CORE``."""

from __future__ import annotations

from feral_envs.engine.game import engine_core
from feral_envs.lost_ranks import encoding, engine, render, rules, view
from feral_envs.lost_ranks.picture import render_rgb

CORE = engine_core(
    engine,
    view.decode,
    name="lost_ranks",
    agents=rules.AGENTS,
    team_names=rules.ARMY_NAMES,
    make_config=rules.make_config,
    action_to_string=encoding.action_to_string,
    string_to_action=encoding.string_to_action,
    render_ansi=render.render_ansi,
    render_rgb=render_rgb,
    reset_options=rules.RESET_OPTIONS,
    keyword_choices={"reward": ("win", "points"), "variant": rules.VARIANTS},
    keyword_defaults={"reward": "win", "variant": "standard"},
    search="feral_envs.lost_ranks.search",
)
"""What everything drives: the compiled engine (``engine``), read by name through ``view``."""
