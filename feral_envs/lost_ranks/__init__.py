"""Lost Ranks: the rules core (``rules``), its encodings (``encoding``) and ``CORE``."""

from __future__ import annotations

import numpy as np

from feral_envs.core import GameCore
from feral_envs.engine.game import engine_core
from feral_envs.lost_ranks import encoding, engine, render, rules, view
from feral_envs.lost_ranks.picture import render_rgb

RULES_CORE = GameCore(
    name="lost_ranks",
    agents=rules.AGENTS,
    team_of_seat=rules.TEAM_OF_SEAT,
    team_names=rules.ARMY_NAMES,
    n_actions=encoding.ACTIONS.size,
    obs_shape=(encoding.OBS_SIZE,),
    obs_dtype=np.float32,
    make_config=rules.make_config,
    new_game=rules.new_game,
    seat_to_act=rules.seat_to_act,
    legal_mask=rules.legal_mask,
    apply=rules.apply,
    observe=encoding.observe,
    scores=rules.scores,
    status=rules.status,
    action_to_string=encoding.action_to_string,
    string_to_action=encoding.string_to_action,
    render_ansi=render.render_ansi,
    render_rgb=render_rgb,
    reset_options=rules.RESET_OPTIONS,
    keyword_choices={"reward": ("win", "points"), "variant": rules.VARIANTS},
    keyword_defaults={"reward": "win", "variant": "standard"},
)
"""The pure-Python rules core: the oracle the compiled engine is tested against."""

CORE = engine_core(RULES_CORE, engine, view.decode)
"""What everything drives: the compiled engine (``engine``), read by name through ``view``."""
