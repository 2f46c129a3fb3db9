"""Lost Heir: the rules core (``rules``), encodings (``encoding``), text view (``render``) and
the PettingZoo env (``env``); ``CORE`` is what everything else drives (see ``feral_envs.core``).
"""

from __future__ import annotations

import numpy as np

from feral_envs.core import GameCore
from feral_envs.engine.game import engine_core
from feral_envs.lost_heir import encoding, engine, rules, view
from feral_envs.lost_heir.picture import render_rgb
from feral_envs.lost_heir.render import render_ansi

RULES_CORE = GameCore(
    name="lost_heir",
    agents=encoding.AGENTS,
    team_of_seat=(0, 1, 0, 1),
    team_names=encoding.TEAMS,
    n_actions=encoding.N_ACTIONS,
    obs_shape=(encoding.OBS.size,),
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
    render_ansi=render_ansi,
    render_rgb=render_rgb,
    reset_options=rules.RESET_OPTIONS,
    keyword_choices={
        "reward": ("win", "points"),
        "take_a_lead": rules.TAKE_A_LEAD_CHOICES,
    },
    keyword_defaults={
        "reward": "win",
        "target_score": 40,
        "take_a_lead": "after_first_trick",
        "max_hands": 100,
    },
)
"""The pure-Python rules core: the oracle the compiled engine is tested against."""

CORE = engine_core(RULES_CORE, engine, view.decode)
"""What everything drives: the compiled engine (``engine``), read by name through ``view``."""
