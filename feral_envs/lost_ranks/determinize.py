"""Deals consistent with what one seat knows, for code that works on ``Game`` objects.

The sampler is :func:`feral_envs.lost_ranks.search.sample_world` (what it keeps and draws is
its module's doc): :func:`sample_deal` wraps its row in a :class:`Game`. ``train.rollout``
measures decisions only where :func:`can_sample` holds, the play phase, and the card
network's gate (``agents/networks/cards.py``) reads :data:`SAMPLED_FLAG`, the observation entry that
says so; the sampler itself also deals worlds in the pass.
"""

from __future__ import annotations

import numpy as np

from feral_envs.engine.game import Game
from feral_envs.lost_ranks import search
from feral_envs.lost_ranks.encoding import OBS
from feral_envs.lost_ranks.rules import Phase

SAMPLED_FLAG = OBS.phase.start + Phase.PLAY
"""The observation index that is 1 exactly where :func:`can_sample` is true (the play phase's
flag): where a policy fit on sampled decisions may act, tested on an observation alone."""


def can_sample(state: Game) -> bool:
    """Whether ``train.rollout`` measures ``state``'s decision on sampled deals: in play."""
    return state.phase == Phase.PLAY


def sample_deal(state: Game, seat: int, rng: np.random.Generator) -> Game | None:
    """A world of ``state`` drawn from ``seat``'s view (``search.sample_world``), as a new
    ``Game``; ``None`` outside the play phase (see :func:`can_sample`). ``state`` is not
    changed."""
    if not can_sample(state):
        return None
    return Game(state.decode, state.config, search.sample_world(state.row, state.config, seat, rng))
