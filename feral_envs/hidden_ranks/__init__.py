"""Hidden Ranks: the rules core (``CORE``) that the env, the bots and training drive."""

from __future__ import annotations

from feral_envs.core import GameCore
from feral_envs.engine.game import engine_core

from . import encoding, engine, rules, view
from .picture import render_rgb
from .render import render_ansi

RULES_CORE = GameCore(
    name="hidden_ranks",
    agents=rules.AGENTS,
    team_of_seat=(0, 1),
    team_names=("gold", "silver"),
    n_actions=rules.N_ACTIONS,
    obs_shape=encoding.OBS_SHAPE,
    obs_dtype=encoding.OBS_DTYPE,
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
    render_ansi=render_ansi,
    render_rgb=render_rgb,
    reset_options=("setup", "position", "to_move"),
    keyword_choices={"mode": rules.MODES, "setup": rules.SETUPS, "reward": ("win",)},
    keyword_defaults={"mode": "full", "setup": "choose", "max_moves": 2000, "reward": "win"},
)

"""The pure-Python rules core: the oracle the compiled engine is tested against."""

CORE = engine_core(RULES_CORE, engine, view.decode)
"""What everything drives: the compiled engine (``engine``), read by name through ``view``."""

__all__ = ["CORE", "RULES_CORE"]
