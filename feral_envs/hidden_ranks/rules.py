"""Hidden Ranks: the board, pieces, action numbering, keywords and the tables of the rules
(``shared/rules/RULES.md``, section Hidden Ranks), the ``reset`` option parser and the
:class:`State` that names a game's fields. The rules' one implementation is the compiled engine
(:mod:`feral_envs.hidden_ranks.engine`), which reads its move and strike tables from here.

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

Where ``RULES.md`` leaves a point open, the engine decides, and ``docs/hidden_ranks.md``
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
"""``STRIKE[striker][defender]``: :func:`strike_result` as a table (the engine's)."""

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
"""Marks a step off the board in the ego tables ``RAY`` and ``MOVE_TO``."""
RAY = np.full((N_SQUARES, N_DIRECTIONS, MAX_DISTANCE), OFF_BOARD, dtype=np.intp)
"""``RAY[e, d, k]``: ego square at distance ``k + 1`` from ``e`` in direction ``d``."""
for _e in range(N_SQUARES):
    for _d in range(N_DIRECTIONS):
        _squares = _line(_e, _d)
        RAY[_e, _d, : len(_squares)] = _squares
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

# Tables of the engine's move generator, in absolute squares for each seat: a step off the
# board leads to a lake square instead, which is never empty and never entered, so the board
# needs no sentinel.
BLOCKED_SQUARE = LAKE_SQUARES[0]


def _absolute(seat: int, ego: np.ndarray) -> np.ndarray:
    squares = ego if seat == GOLD else N_SQUARES - 1 - ego
    return np.where(ego == OFF_BOARD, BLOCKED_SQUARE, squares)


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
    """A game of Hidden Ranks as named fields: the type of the decoded view of an engine row
    (:func:`feral_envs.hidden_ranks.view.decode`, ``Game.view``), read by the text and picture
    views, the terminal app, the bot's tests and training's shaping; nothing writes it. Squares
    are absolute (gold's frame) unless named ego."""

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
    """(3640,) int8: legal actions of ``to_move`` (all zero once the game is over)."""
    moves: int = 0
    """Single moves made in the play phase (the turn limit counts these)."""
    terminated: bool = False
    """The game is over (by a rule: there is no truncation)."""
    winner: int = DRAW
    """Winning seat, or ``DRAW`` (also while the game runs)."""
    end: int = END_NONE
    """Why the game ended (``END_FLAG`` ...)."""


# --- reset options ------------------------------------------------------------------------


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
