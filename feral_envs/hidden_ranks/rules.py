"""Hidden Ranks: the pure rules (``shared/rules/RULES.md``, section Hidden Ranks).

The board is one array of 100 piece codes, one byte per square (:data:`EMPTY`, :data:`LAKE`,
or a piece: rank, owner and the two public facts about it, whether it has moved and whether
its rank is known to both players). Everything else the rules need is a handful of integers.

Squares are numbered ``0..99`` as ``10 * (row - 1) + column`` with the column ``a..j`` as
``0..9`` and the row ``1..10`` counted from gold's side: ``a1 = 0``, ``j1 = 9``, ``a10 = 90``.
Each seat sees the board from its own side ("ego" squares): gold's ego square is the square
itself, silver's is ``99 - square`` (the board turned 180 degrees; the lakes map onto lakes).
Actions are numbered in the ego frame of the seat that takes them, so one policy serves both
colours, and a seat's home rows are always its ego squares ``0..39``.

Actions (``N_ACTIONS = 40 + 100 * 4 * 9 = 3640``):

* ``0..39``: place the next piece of the setup order (:data:`SETUP_ORDER`) on ego square
  ``action``;
* ``40 + 36 * from + 9 * direction + (distance - 1)``: move the piece on ego square ``from``
  ``distance`` squares (1..9) in ``direction`` (:data:`FORWARD` toward the enemy, then
  :data:`RIGHT`, :data:`BACK`, :data:`LEFT` as the mover sees them).

Where ``RULES.md`` leaves a point open, this module decides, and ``docs/hidden_ranks.md``
says so: the setup order, setup phase order (gold places all its army, then silver),
what a position start knows, that the turn limit ends the game before the next player's
no-legal-move check, and that random setups never wall in a whole army.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Any

import numpy as np

from feral_envs.core import DRAW

# --- players, board -----------------------------------------------------------------------

GOLD, SILVER = 0, 1
AGENTS = ("gold", "silver")
N_SQUARES = 100
COLUMNS = "abcdefghij"
LAKE_SQUARES = (42, 43, 46, 47, 52, 53, 56, 57)  # c5 d5 g5 h5 c6 d6 g6 h6
HOME_ROWS = ((1, 2, 3, 4), (7, 8, 9, 10))
"""Home rows of gold and of silver, as rows 1..10."""
N_HOME = 40
"""Squares in a home area: four rows of ten. A seat's home squares are its ego squares 0..39."""


def square_name(square: int) -> str:
    """``0 -> "a1"``, ``99 -> "j10"``."""
    return f"{COLUMNS[square % 10]}{square // 10 + 1}"


SQUARE_NAMES = tuple(square_name(s) for s in range(N_SQUARES))
SQUARE_OF_NAME = {name: s for s, name in enumerate(SQUARE_NAMES)}


def ego_square(seat: int, square: int) -> int:
    """The square as ``seat`` sees it (silver's board is turned 180 degrees)."""
    return square if seat == GOLD else N_SQUARES - 1 - square


# --- pieces -------------------------------------------------------------------------------

SPY, SCOUT, MINER, MARSHAL, BOMB, FLAG = 1, 2, 3, 10, 11, 12
"""Rank codes: the Spy is 1, the numbered ranks are themselves, then the Bomb and the Flag."""
N_RANKS = 12
RANK_NAMES = ("", "S", "2", "3", "4", "5", "6", "7", "8", "9", "10", "B", "F")
"""Name of each rank code (index 0 unused)."""
RANK_OF_NAME = {name: code for code, name in enumerate(RANK_NAMES) if name}

# Piece code of a square, one byte: EMPTY, LAKE, or rank | owner | moved | public.
EMPTY = 0
RANK_BITS = 0x0F  # rank code 1..12
OWNER_BIT = 0x10  # set for silver's pieces
MOVED_BIT = 0x20  # the piece has moved (public)
PUBLIC_BIT = 0x40  # its rank is known to both: shown in a strike, or a Scout by a long move
LAKE = 0x80
N_CODES = 256


def piece_code(seat: int, rank: int) -> int:
    """The code of an unmoved piece of unknown rank."""
    return rank | (OWNER_BIT if seat == SILVER else 0)


ARMIES = {
    "full": {
        MARSHAL: 1,
        9: 1,
        8: 2,
        7: 3,
        6: 4,
        5: 4,
        4: 4,
        MINER: 5,
        SCOUT: 8,
        SPY: 1,
        BOMB: 6,
        FLAG: 1,
    },
    "quick": {MARSHAL: 1, 9: 1, MINER: 1, SCOUT: 2, SPY: 1, BOMB: 1, FLAG: 1},
}
"""Each side's army by mode: rank code -> count (40 pieces, or the 8 of the Barrage army)."""

_PLACING = (FLAG, BOMB, *range(MARSHAL, SPY - 1, -1))
SETUP_ORDER = {
    mode: tuple(rank for rank in _PLACING for _ in range(army.get(rank, 0)))
    for mode, army in ARMIES.items()
}
"""The order in which a player places its army in the setup phase: the Flag, the Bombs, then
the ranks from the Marshal down to the Spy (full: F, B x6, 10, 9, 8 x2, ..., 2 x8, S)."""

# --- strikes ------------------------------------------------------------------------------

ATTACKER_WINS, DEFENDER_WINS, BOTH_REMOVED, FLAG_TAKEN = 0, 1, 2, 3
STRIKE_RESULT_NAMES = ("striker wins", "defender wins", "both removed", "flag taken")


def strike_result(striker: int, defender: int) -> int:
    """Outcome of ``striker`` (a moving rank) moving onto ``defender``."""
    if defender == FLAG:
        return FLAG_TAKEN
    if defender == BOMB:
        return ATTACKER_WINS if striker == MINER else DEFENDER_WINS
    if striker == defender:
        return BOTH_REMOVED
    if striker == SPY and defender == MARSHAL:
        return ATTACKER_WINS
    return ATTACKER_WINS if striker > defender else DEFENDER_WINS


STRIKE = tuple(
    tuple(strike_result(a, d) if 1 <= a <= MARSHAL and d >= 1 else -1 for d in range(N_RANKS + 1))
    for a in range(N_RANKS + 1)
)
"""``STRIKE[striker][defender]``: :func:`strike_result` as a table for the hot path."""

# --- actions ------------------------------------------------------------------------------

FORWARD, RIGHT, BACK, LEFT = 0, 1, 2, 3
DIRECTION_NAMES = ("forward", "right", "back", "left")
DIRECTION_STEP = ((1, 0), (0, 1), (-1, 0), (0, -1))
"""(row, column) step of each direction in the mover's own (ego) frame."""
N_DIRECTIONS = 4
MAX_DISTANCE = 9
N_PLACE = N_HOME
N_MOVES = N_SQUARES * N_DIRECTIONS * MAX_DISTANCE
N_ACTIONS = N_PLACE + N_MOVES  # 40 + 3600 = 3640


def move_action(ego_from: int, direction: int, distance: int) -> int:
    return N_PLACE + (ego_from * N_DIRECTIONS + direction) * MAX_DISTANCE + distance - 1


def _line(ego_from: int, direction: int) -> list[int]:
    """Ego squares at distance 1, 2, ... from ``ego_from`` in ``direction``, to the edge."""
    row, col = divmod(ego_from, 10)
    dr, dc = DIRECTION_STEP[direction]
    out = []
    row, col = row + dr, col + dc
    while 0 <= row < 10 and 0 <= col < 10:
        out.append(row * 10 + col)
        row, col = row + dr, col + dc
    return out


OFF_BOARD = N_SQUARES
"""Marks a step off the board in the ego tables ``RAY``, ``NEIGHBOR`` and ``MOVE_TO``."""
RAY = np.full((N_SQUARES, N_DIRECTIONS, MAX_DISTANCE), OFF_BOARD, dtype=np.intp)
"""``RAY[e, d, k]``: ego square at distance ``k + 1`` from ``e`` in direction ``d``."""
for _e in range(N_SQUARES):
    for _d in range(N_DIRECTIONS):
        _squares = _line(_e, _d)
        RAY[_e, _d, : len(_squares)] = _squares
NEIGHBOR = np.ascontiguousarray(RAY[:, :, 0])
"""``NEIGHBOR[e, d]``: the ego square next to ``e`` in direction ``d`` (or ``OFF_BOARD``)."""
MOVE_FROM = [e for e in range(N_SQUARES) for _ in range(N_DIRECTIONS * MAX_DISTANCE)]
"""Ego from-square of move ``action - N_PLACE``."""
MOVE_TO = [int(t) for t in RAY.reshape(-1)]
"""Ego to-square of move ``action - N_PLACE`` (``OFF_BOARD`` if it leaves the board)."""
MOVE_REVERSE = [
    move_action(int(RAY[e, d, k]), (d + 2) % N_DIRECTIONS, k + 1)
    if RAY[e, d, k] != OFF_BOARD
    else -1
    for e in range(N_SQUARES)
    for d in range(N_DIRECTIONS)
    for k in range(MAX_DISTANCE)
]
"""The action that moves back: ``to -> from`` (for the no-shuttling rule)."""

# Tables of the vectorised move generator, in absolute squares for each seat: a step off the
# board leads to a lake square instead, which is never empty and never entered, so the board
# needs no sentinel.
BLOCKED_SQUARE = LAKE_SQUARES[0]


def _absolute(seat: int, ego: np.ndarray) -> np.ndarray:
    squares = ego if seat == GOLD else N_SQUARES - 1 - ego
    return np.where(ego == OFF_BOARD, BLOCKED_SQUARE, squares)


NEIGHBOR_OF = tuple(_absolute(seat, NEIGHBOR) for seat in (GOLD, SILVER))
"""``NEIGHBOR_OF[seat][e, d]``: absolute square next to ``seat``'s ego square ``e``."""
RAY_OF = tuple(_absolute(seat, RAY) for seat in (GOLD, SILVER))
"""``RAY_OF[seat][e, d, k]``: absolute square of ``RAY[e, d, k]`` for ``seat``."""


def _code_table(test) -> tuple[np.ndarray, np.ndarray]:
    """``table[seat][code]``: ``test(seat, code)`` for every piece code, as a bool array."""
    return tuple(np.array([test(seat, code) for code in range(N_CODES)]) for seat in (0, 1))


def _is_piece(code: int) -> bool:
    return code < LAKE and 1 <= code & RANK_BITS <= N_RANKS


def _owner(code: int) -> int:
    return SILVER if code & OWNER_BIT else GOLD


CAN_ENTER = _code_table(
    lambda seat, code: code == EMPTY or (_is_piece(code) and _owner(code) != seat)
)
"""``CAN_ENTER[seat][code]``: a piece of ``seat`` may move onto it (empty, or an enemy)."""
CAN_MOVE = _code_table(
    lambda seat, code: _is_piece(code) and _owner(code) == seat and code & RANK_BITS < BOMB
)
"""``CAN_MOVE[seat][code]``: a piece of ``seat`` that moves (not a Bomb or the Flag)."""
IS_SCOUT = _code_table(
    lambda seat, code: _is_piece(code) and _owner(code) == seat and code & RANK_BITS == SCOUT
)
"""``IS_SCOUT[seat][code]``: a Scout of ``seat``."""

# --- state --------------------------------------------------------------------------------


class Phase(IntEnum):
    SETUP = 0  # a player places its army piece by piece (gold first, then silver)
    PLAY = 1  # moves, from gold


END_NONE, END_FLAG, END_NO_MOVE, END_NEITHER_CAN_MOVE, END_MOVE_LIMIT = range(5)
END_NAMES = ("", "flag struck", "no legal move", "neither player can move", "move limit")


@dataclass(frozen=True)
class Config:
    """The game keywords, validated (``ValueError`` naming the allowed values)."""

    mode: str = "full"
    """``"full"`` (40 pieces each) or ``"quick"`` (8 pieces each, the Barrage army)."""
    setup: str = "choose"
    """``"choose"``: a setup phase in which each player places its army; ``"random"``."""
    max_moves: int = 2000
    """Turn limit: single moves of the play phase in all; reaching it is a draw."""

    def __post_init__(self) -> None:
        for keyword, allowed in (("mode", MODES), ("setup", SETUPS)):
            value = getattr(self, keyword)
            if value not in allowed:
                raise ValueError(
                    f"{keyword}={value!r} is not allowed; choose one of: "
                    + ", ".join(map(repr, allowed))
                )
        value = self.max_moves
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"max_moves={value!r} is not allowed; it must be an integer >= 1")
        object.__setattr__(self, "max_moves", int(value))


MODES = ("full", "quick")
SETUPS = ("choose", "random")


def make_config(**keywords: Any) -> Config:
    return Config(**keywords)


@dataclass
class State:
    """A game of Hidden Ranks. Squares are absolute (gold's frame) unless named ego."""

    config: Config
    """The game keywords."""
    board: np.ndarray
    """(100,) uint8: piece code of each square (EMPTY, LAKE, or rank | owner | moved | public)."""
    phase: int
    """:class:`Phase`."""
    to_move: int
    """Seat to act: placing a piece in the setup phase, moving in play."""
    setup_next: np.ndarray
    """(2,) int64: per seat, the index in ``SETUP_ORDER[mode]`` of the next piece to place
    (its length once that seat's army is on the board)."""
    removed: np.ndarray
    """(2, 12) int64: per seat, pieces of each rank code ``1..12`` (column ``code - 1``)
    removed from the board by strikes in this game."""
    last_from: np.ndarray
    """(2,) int64: per seat, the square its last move started from (-1 before its first)."""
    last_to: np.ndarray
    """(2,) int64: per seat, the square its last move went to (-1 before its first)."""
    shuttle: np.ndarray
    """(2,) int64: per seat, how many of its own last moves in a row went back and forth
    between ``last_from`` and ``last_to`` (1..3; 0 before its first move)."""
    reverse: np.ndarray
    """(2,) int64: per seat, the action (its ego frame) that undoes its last move: illegal
    while ``shuttle`` is 3."""
    last_strike: np.ndarray
    """(5,) int64: the last strike: square, striking seat, striker rank, defender rank,
    result (``ATTACKER_WINS`` ...); all -1 before the first."""
    mask: np.ndarray
    """(3640,) int8: legal actions of ``to_move`` (all zero once the game is over); kept up
    to date by every change, read by :func:`legal_mask`."""
    moves: int = 0
    """Single moves made in the play phase (the turn limit counts these)."""
    terminated: bool = False
    """The game is over (by a rule: there is no truncation)."""
    winner: int = DRAW
    """Winning seat, or ``DRAW`` (also while the game runs)."""
    end: int = END_NONE
    """Why the game ended (``END_FLAG`` ...)."""


def _blank_state(config: Config) -> State:
    board = np.zeros(N_SQUARES, dtype=np.uint8)
    board[list(LAKE_SQUARES)] = LAKE
    return State(
        config=config,
        board=board,
        phase=Phase.SETUP,
        to_move=GOLD,
        setup_next=np.zeros(2, dtype=np.int64),
        removed=np.zeros((2, N_RANKS), dtype=np.int64),
        last_from=np.full(2, -1, dtype=np.int64),
        last_to=np.full(2, -1, dtype=np.int64),
        shuttle=np.zeros(2, dtype=np.int64),
        reverse=np.full(2, -1, dtype=np.int64),
        last_strike=np.full(5, -1, dtype=np.int64),
        mask=np.zeros(N_ACTIONS, dtype=np.int8),
    )


# --- legal actions ------------------------------------------------------------------------


def _setup_mask(state: State, seat: int) -> np.ndarray:
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    home = state.board[:N_HOME] if seat == GOLD else state.board[: -N_HOME - 1 : -1]
    mask[:N_PLACE] = home == EMPTY
    return mask


def _play_mask(state: State, seat: int) -> np.ndarray:
    """Legal moves of ``seat`` now, as if it were its turn (ego frame)."""
    board = state.board
    ego = board if seat == GOLD else board[::-1]
    enter = CAN_ENTER[seat][board]
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    moves = mask[N_PLACE:].reshape(N_SQUARES, N_DIRECTIONS, MAX_DISTANCE)
    moves[:, :, 0] = enter[NEIGHBOR_OF[seat]] & CAN_MOVE[seat][ego][:, None]
    scouts = np.flatnonzero(IS_SCOUT[seat][ego])
    if scouts.size:
        # A Scout may go as far as the squares before are empty, onto an empty or enemy one.
        rays = RAY_OF[seat][scouts]
        legal = enter[rays]
        legal[:, :, 1:] &= np.logical_and.accumulate(board[rays[:, :, :-1]] == EMPTY, axis=2)
        moves[scouts] = legal
    if state.shuttle[seat] >= 3:
        mask[state.reverse[seat]] = 0
    return mask


MASKS = (_setup_mask, _play_mask)
"""The legal-mask function of each phase (indexed by :class:`Phase`)."""


def legal_mask(state: State) -> np.ndarray:
    """Legal actions of the seat to act (a copy; all zero once the game is over)."""
    return state.mask.copy()


def seat_to_act(state: State) -> int:
    return state.to_move


def _refresh_mask(state: State) -> None:
    state.mask = MASKS[state.phase](state, state.to_move)


# --- applying actions ---------------------------------------------------------------------


def _apply_setup(state: State, action: int) -> None:
    seat = state.to_move
    order = SETUP_ORDER[state.config.mode]
    index = int(state.setup_next[seat])
    state.board[ego_square(seat, action)] = piece_code(seat, order[index])
    state.setup_next[seat] = index + 1
    if index + 1 < len(order):
        state.mask[action] = 0
        return
    if seat == GOLD and state.setup_next[SILVER] < len(order):
        state.to_move = SILVER
        _refresh_mask(state)
        return
    _start_play(state, GOLD)


def _apply_play(state: State, action: int) -> None:
    seat = state.to_move
    move = action - N_PLACE
    origin, target = MOVE_FROM[move], MOVE_TO[move]
    if seat == SILVER:
        origin, target = N_SQUARES - 1 - origin, N_SQUARES - 1 - target
    board = state.board
    piece = int(board[origin]) | MOVED_BIT
    if move % MAX_DISTANCE:  # more than one square: only a Scout can, and now all know it
        piece |= PUBLIC_BIT
    board[origin] = EMPTY
    defender = int(board[target])
    if defender == EMPTY:
        board[target] = piece
    else:
        _strike(state, seat, piece, defender, target)
    if action == state.reverse[seat]:
        state.shuttle[seat] += 1
    else:
        state.shuttle[seat] = 1
    state.reverse[seat] = MOVE_REVERSE[move]
    state.last_from[seat] = origin
    state.last_to[seat] = target
    state.moves += 1
    if state.terminated:
        return
    if state.moves >= state.config.max_moves:
        _finish(state, DRAW, END_MOVE_LIMIT)
        return
    _start_turn(state, 1 - seat)


def _strike(state: State, seat: int, piece: int, defender: int, square: int) -> None:
    striker_rank, defender_rank = piece & RANK_BITS, defender & RANK_BITS
    result = STRIKE[striker_rank][defender_rank]
    state.last_strike[:] = (square, seat, striker_rank, defender_rank, result)
    removed = state.removed
    if result == DEFENDER_WINS:
        removed[seat, striker_rank - 1] += 1
        state.board[square] = defender | PUBLIC_BIT
        return
    removed[1 - seat, defender_rank - 1] += 1
    if result == BOTH_REMOVED:
        removed[seat, striker_rank - 1] += 1
        state.board[square] = EMPTY
        return
    state.board[square] = piece | PUBLIC_BIT
    if result == FLAG_TAKEN:
        _finish(state, seat, END_FLAG)


def _start_play(state: State, seat: int) -> None:
    state.phase = Phase.PLAY
    _start_turn(state, seat)


def _start_turn(state: State, seat: int) -> None:
    """Give ``seat`` the move, or end the game if it has no legal move."""
    state.to_move = seat
    _refresh_mask(state)
    if state.mask.any():
        return
    if _play_mask(state, 1 - seat).any():
        _finish(state, 1 - seat, END_NO_MOVE)
    else:
        _finish(state, DRAW, END_NEITHER_CAN_MOVE)


def _finish(state: State, winner: int, end: int) -> None:
    state.terminated = True
    state.winner = winner
    state.end = end
    state.mask[:] = 0


APPLY = (_apply_setup, _apply_play)
"""The apply function of each phase (indexed by :class:`Phase`)."""


def apply(state: State, action: int, rng: np.random.Generator | None = None) -> None:
    """Play the legal ``action`` of the seat to act (no randomness after the start)."""
    APPLY[state.phase](state, action)


def status(state: State) -> tuple[bool, bool, int]:
    """``(terminated, truncated, winner)``: the turn limit is a rule, so never truncated."""
    return state.terminated, False, state.winner


def scores(state: State) -> np.ndarray:
    return np.zeros(2, dtype=np.int64)


# --- new games ----------------------------------------------------------------------------


def _army_problem(side: str, ranks: list[int], army: dict[int, int], exact: bool) -> str | None:
    counts = {rank: ranks.count(rank) for rank in set(ranks)}
    for rank in sorted(set(army) | set(counts), reverse=True):
        have, allowed = counts.get(rank, 0), army.get(rank, 0)
        if have > allowed or (exact and have < allowed):
            return f"{side} has {have} piece(s) of rank {RANK_NAMES[rank]}, the army has {allowed}"
    return None


def _parse_side(side: str, pieces: Any, what: str) -> dict[int, int]:
    """``{"a1": "F", ...}`` as ``{square: rank}``; ValueError naming any bad square or rank."""
    if not isinstance(pieces, dict):
        raise ValueError(f"{what} for {side} must be a dict of square -> rank, got {pieces!r}")
    parsed: dict[int, int] = {}
    for name, rank_name in pieces.items():
        square = SQUARE_OF_NAME.get(name.strip().lower()) if isinstance(name, str) else None
        if square is None:
            raise ValueError(f"{what} for {side}: unknown square {name!r} (a1 .. j10)")
        if square in parsed:
            raise ValueError(f"{what} for {side}: square {SQUARE_NAMES[square]} is given twice")
        key = rank_name.strip().upper() if isinstance(rank_name, str) else rank_name
        if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
            key = str(int(key))
        rank = RANK_OF_NAME.get(key) if isinstance(key, str) else None
        if rank is None:
            raise ValueError(
                f"{what} for {side}: unknown rank {rank_name!r} on {SQUARE_NAMES[square]} "
                f"(ranks: {', '.join(RANK_NAMES[1:])})"
            )
        if square in LAKE_SQUARES:
            raise ValueError(f"{what} for {side}: {SQUARE_NAMES[square]} is a lake")
        parsed[square] = rank
    return parsed


def _sides(value: Any, what: str, required: bool) -> dict[int, dict[int, int]]:
    if not isinstance(value, dict):
        raise ValueError(f"{what} must be a dict with keys 'gold' and/or 'silver', got {value!r}")
    unknown = sorted(map(repr, set(value) - set(AGENTS)))
    if unknown:
        raise ValueError(f"{what}: unknown side(s) {', '.join(unknown)}; sides: 'gold', 'silver'")
    missing = [side for side in AGENTS if side not in value]
    if required and missing:
        raise ValueError(f"{what} must give both sides; missing: {', '.join(missing)}")
    return {AGENTS.index(side): _parse_side(side, pieces, what) for side, pieces in value.items()}


def _validate_setup(seat: int, pieces: dict[int, int], mode: str) -> None:
    side = AGENTS[seat]
    rows = HOME_ROWS[seat]
    for square in pieces:
        if square // 10 + 1 not in rows:
            raise ValueError(
                f"setup for {side}: {SQUARE_NAMES[square]} is outside its home rows "
                f"{rows[0]}-{rows[-1]}"
            )
    problem = _army_problem(side, list(pieces.values()), ARMIES[mode], exact=True)
    if problem:
        raise ValueError(f"setup for {side}: {problem} (mode={mode!r})")


def _random_setup(state: State, seat: int, rng: np.random.Generator) -> None:
    """Place ``seat``'s army on random home squares, never walling in the whole army."""
    order = SETUP_ORDER[state.config.mode]
    home = np.array([ego_square(seat, e) for e in range(N_HOME)])
    while True:
        squares = rng.permutation(home)[: len(order)]
        state.board[home] = EMPTY
        state.board[squares] = [piece_code(seat, rank) for rank in order]
        if _play_mask(state, seat).any():
            break
    state.setup_next[seat] = len(order)


@dataclass(frozen=True)
class StartOptions:
    """The ``reset`` options, validated: what a new game starts from besides the stream."""

    pieces: dict[int, dict[int, int]]
    """Per seat given, its pieces as ``{square: rank}`` (a setup, or a side of a position)."""
    position: bool
    """Play starts at once from ``pieces`` (a position start); else the setups of the seats
    not given are drawn or chosen as the ``setup`` keyword says."""
    to_move: int
    """The seat to move first (gold unless a position start says otherwise)."""
    over_error: str
    """The ``ValueError`` message for a start in which the seat to move has no legal move."""


def parse_options(config: Config, options: dict) -> StartOptions:
    """``options`` as ``reset`` takes them, validated (``ValueError`` naming the problem).

    Everything but the check that the start is not already over, which needs the board."""
    if "position" in options:
        return _parse_position(config, options)
    if "to_move" in options:
        raise ValueError("reset option 'to_move' goes with 'position' only")
    given = _sides(options["setup"], "setup", required=False) if "setup" in options else {}
    for seat, pieces in given.items():
        _validate_setup(seat, pieces, config.mode)
    return StartOptions(
        given, False, GOLD, "gold has no legal move in the given setup: the game would be over"
    )


def _parse_position(config: Config, options: dict) -> StartOptions:
    if "setup" in options:
        raise ValueError("reset options 'setup' and 'position' cannot be given together")
    sides = _sides(options["position"], "position", required=True)
    to_move = options.get("to_move", "gold")
    if to_move not in AGENTS:
        raise ValueError(f"to_move={to_move!r} is not allowed; choose 'gold' or 'silver'")
    taken = set(sides[GOLD]) & set(sides[SILVER])
    if taken:
        raise ValueError(
            "position: square(s) "
            + ", ".join(SQUARE_NAMES[s] for s in sorted(taken))
            + " hold pieces of both sides"
        )
    for seat, pieces in sides.items():
        problem = _army_problem(AGENTS[seat], list(pieces.values()), ARMIES[config.mode], False)
        if problem:
            raise ValueError(f"position: {problem} (mode={config.mode!r})")
    return StartOptions(
        sides,
        True,
        AGENTS.index(to_move),
        f"position: {to_move}, to move, has no legal move: the game would be over",
    )


def new_game(config: Config, rng: np.random.Generator, options: dict) -> State:
    """A new game; ``options`` as ``reset`` takes them (validated first, ValueError)."""
    start = parse_options(config, options)
    state = _blank_state(config)
    for seat, pieces in start.pieces.items():
        for square, rank in pieces.items():
            state.board[square] = piece_code(seat, rank)
        state.setup_next[seat] = len(SETUP_ORDER[config.mode])
    if start.position:
        state.setup_next[:] = len(SETUP_ORDER[config.mode])
    else:
        for seat in (GOLD, SILVER):
            if seat not in start.pieces and config.setup == "random":
                _random_setup(state, seat, rng)
        waiting = [seat for seat in (GOLD, SILVER) if state.setup_next[seat] == 0]
        if waiting:
            state.to_move = waiting[0]
            _refresh_mask(state)
            return state
    _start_play(state, start.to_move)
    if state.terminated:
        raise ValueError(start.over_error)
    return state
