"""Lost Heir: the compiled rules (``engine``), their named fields (``view``), the keywords and
tables (``rules``), the encodings (``encoding``), the text and picture views (``render``,
``picture``) and the PettingZoo env (``env``); ``CORE`` is what everything else drives (see
``feral_envs.core``).
"""

from __future__ import annotations

from feral_envs.engine.game import engine_core
from feral_envs.lost_heir import encoding, engine, rules, view
from feral_envs.lost_heir.picture import render_rgb
from feral_envs.lost_heir.render import render_ansi

CORE = engine_core(
    engine,
    view.decode,
    name="lost_heir",
    agents=encoding.AGENTS,
    team_names=encoding.TEAMS,
    make_config=rules.make_config,
    action_to_string=encoding.action_to_string,
    string_to_action=encoding.string_to_action,
    render_ansi=render_ansi,
    render_rgb=render_rgb,
    reset_options=rules.RESET_OPTIONS,
    search="feral_envs.lost_heir.search",
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
"""What everything drives: the compiled engine (``engine``), read by name through ``view``."""
