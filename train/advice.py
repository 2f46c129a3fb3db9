"""``--par``: the heuristic bot's own result on each round as the reward's baseline.

The bot is the advisor of ``--advice`` (:mod:`agents.advice`, which says which games' bots
can do this); what is here is needed in training only (``train/vec_env.py``,
``python -m train.rollout``).
"""

from __future__ import annotations

import copy
import importlib
from typing import Any

import numpy as np

from agents.advice import Advisor, check_game
from feral_envs.core import GameCore


class Par:
    """``--par``: the bot's own result on each round the learner plays, as its reward's
    baseline. From the learner's first decision of a round, a copy of the game is played to
    the round's end by the bot in all four seats; the learner side's lead change there (the
    *par*, as in duplicate bridge) is subtracted from what the side actually scores in that
    round. The par depends on the cards and the moves already made, never on the learner's
    actions in that round, so it takes the luck of the deal out of the reward without
    biasing the policy gradient."""

    def __init__(self, game: str, keywords: dict[str, Any]) -> None:
        check_game(game, "--par")
        self.core = importlib.import_module(f"feral_envs.{game}").CORE
        self.bot = Advisor(game, keywords).bot

    def round_gain(self, state: Any, rng: np.random.Generator, team: int) -> float:
        """The lead change of ``team`` over the rest of ``state``'s round, the bot playing."""
        return play_round_out(self.core, self.bot, copy.deepcopy(state), copy.deepcopy(rng), team)


def play_round_out(
    core: GameCore,
    bot: Any,
    state: Any,
    rng: np.random.Generator,
    team: int,
    action: int | None = None,
) -> float:
    """Play ``state`` (changed in place) to the end of its round, ``action`` first if given
    and the bot in every seat after it; the score-lead change of ``team`` meanwhile."""
    epoch, before = state.epoch, np.array(core.scores(state))  # a copy: scores may alias
    if action is not None:
        core.apply(state, action, rng)
    while state.epoch == epoch and not any(core.status(state)[:2]):
        seat = core.seat_to_act(state)
        core.apply(state, bot.act(core.observe(state, seat), core.legal_mask(state)), rng)
    after = core.scores(state)
    return float((after[team] - after[1 - team]) - (before[team] - before[1 - team]))
