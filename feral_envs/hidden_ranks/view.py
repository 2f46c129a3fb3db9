"""Hidden Ranks' state row as named fields: what the text and picture views, the terminal app
and the scenario tests read (``Game.view``, see :mod:`feral_envs.engine.game`).

:func:`decode` builds a :class:`~feral_envs.hidden_ranks.rules.State` from a row of the
compiled engine (:mod:`feral_envs.hidden_ranks.engine`), field for field; nothing here is a
rule. The row keeps every field of ``State`` as it is (the board's piece codes, the per-seat
counters, the last strike, the move count and the ending); only ``mask`` is not stored, and
is the engine's ``legal_mask`` of the position.
"""

from __future__ import annotations

import numpy as np

from feral_envs.hidden_ranks import engine as E
from feral_envs.hidden_ranks.rules import N_RANKS, Config, Phase, State


def _span(row: np.ndarray, span) -> np.ndarray:
    return row[span.slice]


def decode(row: np.ndarray, config: Config) -> State:
    """The game in ``row`` as the rules state's fields (new arrays; writing them changes
    nothing in the game).

    The fields' types: ``board`` uint8, the per-seat counters and ``last_strike`` int64,
    ``phase`` a :class:`~rules.Phase`, the flags bools, the rest ints. ``mask`` is the
    engine's ``legal_mask`` (int8, all zero once the game is over). ``config`` is the
    caller's: the row's ``mode``, ``setup`` and ``max_moves`` entries are those keywords.
    """
    S = E.STATE

    def one(span) -> int:
        return int(row[span.start])

    def per_seat(span) -> np.ndarray:
        return _span(row, span).astype(np.int64)

    mask = np.zeros(E.N_ACTIONS, dtype=np.int8)
    E.legal_mask(row, mask)

    return State(
        config=config,
        board=_span(row, S.board).astype(np.uint8),
        phase=Phase(one(S.phase)),
        to_move=one(S.to_move),
        setup_next=per_seat(S.setup_next),
        removed=per_seat(S.removed).reshape(E.N_SEATS, N_RANKS),
        last_from=per_seat(S.last_from),
        last_to=per_seat(S.last_to),
        shuttle=per_seat(S.shuttle),
        reverse=per_seat(S.reverse),
        last_strike=per_seat(S.last_strike),
        mask=mask,
        moves=one(S.moves),
        terminated=bool(one(S.terminated)),
        winner=one(S.winner),
        end=one(S.end),
    )
