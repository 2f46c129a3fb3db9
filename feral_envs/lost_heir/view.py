"""Lost Heir's state row as named fields: what the text and picture views, the terminal app
and the scenario tests read (``Game.view``, see :mod:`feral_envs.engine.game`).

:func:`decode` builds a :class:`~feral_envs.lost_heir.rules.State` from a row of the compiled
engine, field for field; nothing here is a rule (the legal mask is the engine's).
"""

from __future__ import annotations

import numpy as np

from feral_envs.lost_heir import engine as E
from feral_envs.lost_heir.encoding import N_ACTIONS, N_SEATS
from feral_envs.lost_heir.rules import CARDS_PER_HAND, N_CARDS, Config, Phase, State


def _span(row: np.ndarray, span) -> np.ndarray:
    return row[span.slice]


def decode(row: np.ndarray, config: Config) -> State:
    """The game in ``row`` as the rules state's fields (new arrays; writing them changes
    nothing in the game)."""
    S = E.STATE
    deal = _span(row, S.deal)
    trick_of_card = _span(row, S.trick_of_card).astype(np.int8)
    dealt = np.zeros((N_SEATS, N_CARDS), dtype=bool)
    dealt[np.arange(N_CARDS) // CARDS_PER_HAND, deal] = True
    hands = dealt & (trick_of_card < 0)
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    E.legal_mask(row, mask)

    def one(span) -> int:
        return int(row[span.start])

    return State(
        config=config,
        phase=Phase(one(S.phase)),
        dealer=one(S.dealer),
        to_act=one(S.to_act),
        hands=hands,
        played=dealt & (trick_of_card >= 0),
        trick=_span(row, S.trick).astype(np.int8),
        trick_len=one(S.trick_len),
        leader=one(S.leader),
        led_city=one(S.led_city),
        trump=one(S.trump),
        lead_handed_over=bool(one(S.lead_handed_over)),
        tricks_done=one(S.tricks_done),
        trick_of_card=trick_of_card,
        trick_leaders=_span(row, S.trick_leaders).astype(np.int8),
        trick_winners=_span(row, S.trick_winners).astype(np.int8),
        team_tricks=_span(row, S.team_tricks).astype(np.int64),
        team_points=_span(row, S.team_points).astype(np.int64),
        heir_team=one(S.heir_team),
        boy_team=one(S.boy_team),
        calls=_span(row, S.calls).astype(np.int8),
        high_bid=one(S.high_bid),
        high_bidder=one(S.high_bidder),
        duel_refusals=one(S.duel_refusals),
        duel_raises=one(S.duel_raises),
        contract=one(S.contract),
        declarer=one(S.declarer),
        scores=_span(row, S.scores).astype(np.int64),
        last_hand=_span(row, S.last_hand).astype(np.int64),
        hands_played=one(S.hands_played),
        terminated=bool(one(S.terminated)),
        truncated=bool(one(S.truncated)),
        winner=one(S.winner),
        mask=mask,
    )
