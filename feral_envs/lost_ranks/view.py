"""Lost Ranks' state row as named fields: what the text and picture views, the terminal app
and the scenario tests read (``Game.view``, see :mod:`feral_envs.engine.game`).

:func:`decode` builds a :class:`~feral_envs.lost_ranks.rules.State` from a row of the compiled
engine (:mod:`feral_envs.lost_ranks.engine`), field for field; nothing here is a rule. Where
``State`` has (4, 53) masks, the row keeps one entry per card (``holder``, ``played_by``,
``pile``); the masks are rebuilt from those. The round's plays in order, each finished trick's
winner and ``epoch`` are in the row as ``State`` has them (``plays``, ``trick_winners``,
``epoch``); the seat of each play is ``played_by`` of its card.
"""

from __future__ import annotations

import numpy as np

from feral_envs.cards import NO_CARD
from feral_envs.lost_ranks import engine as E
from feral_envs.lost_ranks.rules import (
    BLACK,
    FROM_ENEMY,
    FROM_PARTNER,
    JACKS,
    N_CARDS,
    N_SEATS,
    PASS_SIZE,
    RED,
    TO_ENEMY,
    TO_PARTNER,
    Config,
    Phase,
    State,
)


def _span(row: np.ndarray, span) -> np.ndarray:
    return row[span.slice]


def decode(row: np.ndarray, config: Config) -> State:
    """The game in ``row`` as the rules state's fields (new arrays and lists; writing them
    changes nothing in the game); ``mask`` is the engine's ``legal_mask`` of the position."""
    S = E.STATE

    def one(span) -> int:
        return int(row[span.start])

    phase = Phase(one(S.phase))
    round_number = one(S.round)
    trump_card = one(S.trump_card)
    trump_colour = int(E._trump_colour(row))

    holder = _span(row, S.holder)
    played_by = _span(row, S.played_by)
    pile = _span(row, S.pile)
    seats = np.arange(N_SEATS)[:, None]
    hands = holder[None, :] == seats
    played = played_by[None, :] == seats
    captured = pile[None, :] == np.arange(2)[:, None]
    void_pile = pile == E.VOID_PILE

    pass_choice = _span(row, S.pass_choice).reshape(N_SEATS, PASS_SIZE).astype(np.int8)
    pass_record = np.zeros((N_SEATS, 4, N_CARDS), dtype=bool)
    exchanged = phase != Phase.PASS  # the twelve cards changed hands after the last choice
    for seat in range(N_SEATS):
        for step, card in enumerate(int(c) for c in pass_choice[seat]):
            if card == NO_CARD:
                continue
            to_partner = step < PASS_SIZE - 1
            pass_record[seat, TO_PARTNER if to_partner else TO_ENEMY, card] = True
            if exchanged:
                if to_partner:
                    pass_record[int(E._partner(seat)), FROM_PARTNER, card] = True
                else:
                    receiver = int(E._pass_enemy(seat, round_number))
                    pass_record[receiver, FROM_ENEMY, card] = True

    plays = [int(c) for c in _span(row, S.plays)]
    play_seats = [NO_CARD if card == NO_CARD else int(played_by[card]) for card in plays]

    mask = np.zeros(E.N_ACTIONS, dtype=np.int8)
    E.legal_mask(row, mask)

    return State(
        config=config,
        scores=_span(row, S.scores).astype(np.int64),
        round=round_number,
        tiebreaker=bool(one(S.tiebreaker)),
        phase=phase,
        winner=one(S.winner),
        epoch=one(S.epoch),
        trump_card=trump_card,
        trump_suit=int(E._trump_suit(row)),
        trump_colour=trump_colour,
        active_jacks=tuple(j for j in JACKS if E._is_active_jack(row, j)),
        spy_value=(int(E._spy_points(row, RED)), int(E._spy_points(row, BLACK))),
        pass_left=bool(E._pass_enemy(0, round_number) == 1),  # to the left: seat 0 to seat 1
        to_act=one(S.to_act),
        hands=hands,
        pass_step=one(S.pass_step),
        pass_choice=pass_choice,
        pass_record=pass_record,
        leader=one(S.leader),
        trick=[int(c) for c in _span(row, S.trick)],
        n_in_trick=one(S.n_in_trick),
        led_suit=one(S.led_suit),
        tricks_done=one(S.tricks_done),
        first_lead=one(S.first_lead),
        played=played,
        captured=captured,
        void_pile=void_pile,
        round_points=[int(p) for p in _span(row, S.round_points)],
        plays=plays,
        play_seats=play_seats,
        trick_results=[int(w) for w in _span(row, S.trick_winners)],
        mask=mask,
    )
