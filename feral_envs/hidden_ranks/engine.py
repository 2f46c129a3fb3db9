"""Hidden Ranks, compiled: the game's rules, once, as numba kernels over one int32 state row
per game (see :mod:`feral_envs.engine` for the contract), with the tables and keywords of
:mod:`feral_envs.hidden_ranks.rules`.

The row holds what :class:`~feral_envs.hidden_ranks.rules.State` (the decoded view) holds,
field for field (:data:`STATE`), with the same piece codes on the board; the legal mask is
not stored but computed when asked for. Squares are absolute (gold's frame: ``a1 = 0``,
``j10 = 99``) unless named ego; a seat's ego square is ``_square(seat, ego)`` away (the board
turned 180 degrees for silver). Actions and observations are in the ego frame of the seat
concerned, exactly as in :mod:`~feral_envs.hidden_ranks.encoding`.

One fact makes the move generator small: the legal distances of a piece in one direction are
always ``1 .. reach`` (:func:`_reach`): 0 or 1 for most pieces, a Scout as far as the squares
before are empty, onto an empty or enemy square. The no-shuttling rule then takes out at most
one action, the move that undoes the seat's last one.

Randomness (random setups only) comes from the row's stream (``row[0:4]``, see
:mod:`feral_envs.engine.rng`), drawn as the old pure-Python core drew from its generator,
which the golden fixture pins.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from feral_envs.core import DRAW
from feral_envs.engine.batch import batch_kernel
from feral_envs.engine.rng import N_WORDS, below, shuffle
from feral_envs.layout import Layout

from . import rules
from .encoding import OBS, OBS_SHAPE
from .rules import (
    BOTH_REMOVED,
    DEFENDER_WINS,
    EMPTY,
    END_FLAG,
    END_MOVE_LIMIT,
    END_NEITHER_CAN_MOVE,
    END_NO_MOVE,
    END_NONE,
    FLAG_TAKEN,
    GOLD,
    LAKE,
    LAKE_SQUARES,
    MAX_DISTANCE,
    MODES,
    MOVED_BIT,
    N_ACTIONS,
    N_DIRECTIONS,
    N_HOME,
    N_PLACE,
    N_RANKS,
    N_SQUARES,
    OWNER_BIT,
    PUBLIC_BIT,
    RANK_BITS,
    SETUP_ORDER,
    SETUPS,
    SILVER,
)

# --- the state row ------------------------------------------------------------------------

N_SEATS = 2
TEAM_OF_SEAT = np.array([0, 1], dtype=np.int64)
"""Each seat is its own team: the winner (a seat) is the winning team."""
MAX_ARMY = len(SETUP_ORDER["full"])

STATE = Layout(
    ("rng", N_WORDS, "the random stream (xoshiro128** words, `feral_envs.engine.rng`)"),
    ("mode", 1, "keyword `mode` as its index in `rules.MODES` (0 full, 1 quick)"),
    ("setup", 1, "keyword `setup` as its index in `rules.SETUPS` (0 choose, 1 random)"),
    ("max_moves", 1, "keyword `max_moves`: the turn limit in single moves of the play phase"),
    (
        "board",
        N_SQUARES,
        "piece code of each absolute square: EMPTY, LAKE or rank | owner | moved | public "
        "(the codes of `rules`)",
    ),
    ("phase", 1, "PHASE_SETUP or PHASE_PLAY (`rules.Phase`)"),
    ("to_move", 1, "seat to act: placing a piece in the setup phase, moving in play"),
    (
        "setup_next",
        2,
        "per seat, the index in the setup order of its next piece to place (the army's size "
        "once it is on the board)",
    ),
    (
        "removed",
        2 * N_RANKS,
        "per seat (12 entries each), pieces of rank code 1..12 (entry code - 1) that strikes "
        "removed",
    ),
    ("last_from", 2, "per seat, the square its last move started from (-1 before its first)"),
    ("last_to", 2, "per seat, the square its last move went to (-1 before its first)"),
    (
        "shuttle",
        2,
        "per seat, how many of its own last moves in a row went back and forth between "
        "last_from and last_to (1..3; 0 before its first move)",
    ),
    (
        "reverse",
        2,
        "per seat, the action (its ego frame) that undoes its last move, illegal while "
        "shuttle is 3 (-1 before its first move)",
    ),
    (
        "last_strike",
        5,
        "the last strike: square, striking seat, striker rank, defender rank, result "
        "(`rules.ATTACKER_WINS` ...); all -1 before the first",
    ),
    ("moves", 1, "single moves made in the play phase (the turn limit counts these)"),
    ("terminated", 1, "1 once the game is over (there is no truncation)"),
    ("winner", 1, "winning seat, or DRAW (-1, also while the game runs)"),
    ("end", 1, "why the game ended: `rules.END_NONE`, END_FLAG, ..."),
)
"""The int32 state row of one game."""
ROW_SIZE = STATE.size

MODE = STATE.mode.start
SETUP = STATE.setup.start
MAX_MOVES = STATE.max_moves.start
BOARD = STATE.board.start
PHASE = STATE.phase.start
TO_MOVE = STATE.to_move.start
SETUP_NEXT = STATE.setup_next.start
REMOVED = STATE.removed.start
LAST_FROM = STATE.last_from.start
LAST_TO = STATE.last_to.start
SHUTTLE = STATE.shuttle.start
REVERSE = STATE.reverse.start
LAST_STRIKE = STATE.last_strike.start
MOVES = STATE.moves.start
TERMINATED = STATE.terminated.start
WINNER = STATE.winner.start
END = STATE.end.start

PHASE_SETUP = int(rules.Phase.SETUP)
PHASE_PLAY = int(rules.Phase.PLAY)
SETUP_RANDOM = SETUPS.index("random")
MAX_MOVES_LIMIT = 2**31 - 1
"""The largest ``max_moves`` a row holds."""

# --- tables (frozen into the kernels) -----------------------------------------------------

ARMY_SIZE = np.array([len(SETUP_ORDER[mode]) for mode in MODES], dtype=np.int64)
"""Pieces of each side's army, by mode index."""
_ORDER = np.zeros((len(MODES), MAX_ARMY), dtype=np.int64)
for _mode, _name in enumerate(MODES):
    _ORDER[_mode, : ARMY_SIZE[_mode]] = SETUP_ORDER[_name]
"""``_ORDER[mode, k]``: rank of the ``k``-th piece of the setup order."""
_RAY = np.stack(rules.RAY_OF).astype(np.int64)
"""``_RAY[seat, ego, direction, k]``: the absolute square at distance ``k + 1`` (a lake
square, never entered, where the line leaves the board)."""
_CAN_ENTER = np.stack(rules.CAN_ENTER)
"""``_CAN_ENTER[seat, code]``: a piece of ``seat`` may move onto it (empty, or an enemy)."""
_CAN_MOVE = np.stack(rules.CAN_MOVE)
"""``_CAN_MOVE[seat, code]``: a piece of ``seat`` that moves (not a Bomb or the Flag)."""
_IS_SCOUT = np.stack(rules.IS_SCOUT)
"""``_IS_SCOUT[seat, code]``: a Scout of ``seat``."""
_MOVE_FROM = np.array(rules.MOVE_FROM, dtype=np.int64)
_MOVE_TO = np.array(rules.MOVE_TO, dtype=np.int64)
_MOVE_REVERSE = np.array(rules.MOVE_REVERSE, dtype=np.int64)
_STRIKE = np.array(rules.STRIKE, dtype=np.int64)
_LAKES = np.array(LAKE_SQUARES, dtype=np.int64)
_DISTANCES = N_DIRECTIONS * MAX_DISTANCE  # move actions per from-square

# Observation planes (the spans of encoding.OBS).
OBS_SIZE = int(np.prod(OBS_SHAPE))
N_PLANES = OBS.size
P_MY_RANK = OBS.my_rank.start
P_ENEMY_RANK = OBS.enemy_rank.start
P_ENEMY_UNKNOWN = OBS.enemy_unknown.start
P_ENEMY_MOVED = OBS.enemy_moved.start
P_MY_MOVED = OBS.my_moved.start
P_MY_PUBLIC = OBS.my_public.start
P_LAKE = OBS.lake.start
P_MY_LAST_FROM = OBS.my_last_from.start
P_ENEMY_LAST_FROM = OBS.enemy_last_from.start
P_MY_REMOVED = OBS.my_removed.start
P_ENEMY_REMOVED = OBS.enemy_removed.start
P_SETUP_PHASE = OBS.setup_phase.start
P_MY_NEXT_PIECE = OBS.my_next_piece.start
P_MOVE_COUNT = OBS.move_count.start
assert OBS.my_last_to.start == P_MY_LAST_FROM + 1  # each count plane follows its from-plane
assert OBS.enemy_last_to.start == P_ENEMY_LAST_FROM + 1
P_FIRST_CONSTANT = P_MY_REMOVED
"""The planes from here on are constant (one value on every square), those before per square."""
N_CONSTANT = N_PLANES - P_FIRST_CONSTANT
assert [span.name for span in OBS.spans][-5:] == [
    "my_removed",
    "enemy_removed",
    "setup_phase",
    "my_next_piece",
    "move_count",
]
COMPACT_DTYPES = ("int8",)
"""The compact observation dtype: every plane holds the same small integers as in float32
(flags, shuttle counts 1-3, removed pieces 0-8) except ``move_count``, which holds
``100 * moves // max_moves`` (the percent of the turn limit played) where float32 holds
``moves / max_moves``."""
COMPACT_RECODED = np.zeros(OBS_SHAPE, dtype=bool)
COMPACT_RECODED[..., P_MOVE_COUNT] = True
"""The observation entries whose compact value is not the float32 value (``move_count``)."""


# --- small helpers ------------------------------------------------------------------------


@njit(cache=True)
def _square(seat, ego):
    """The absolute square of ``seat``'s ego square (and the ego square of a square)."""
    return ego if seat == GOLD else N_SQUARES - 1 - ego


@njit(cache=True)
def _owner(code):
    return SILVER if code & OWNER_BIT else GOLD


@njit(cache=True)
def _banned(row, seat):
    """The action that the no-shuttling rule forbids ``seat`` now, or -1."""
    return row[REVERSE + seat] if row[SHUTTLE + seat] >= 3 else -1


@njit(cache=True)
def _reach_one(row, seat, ego, direction):
    """:func:`_reach` of a piece that moves one square: 1 onto an empty or an enemy square,
    else 0."""
    return np.int64(_CAN_ENTER[seat, row[BOARD + _RAY[seat, ego, direction, 0]]])


@njit(cache=True)
def _reach(row, seat, ego, direction, code):
    """How far the piece ``code`` on ``ego`` may move in ``direction``: distances
    ``1 .. reach`` are its moves there (the no-shuttling rule aside)."""
    if not _IS_SCOUT[seat, code]:
        return _reach_one(row, seat, ego, direction)
    for k in range(MAX_DISTANCE):
        target = row[BOARD + _RAY[seat, ego, direction, k]]
        if target != EMPTY:
            return k + 1 if _CAN_ENTER[seat, target] else k
    return MAX_DISTANCE


# --- legal actions ------------------------------------------------------------------------


@njit(cache=True)
def _nth_move(row, seat, n):
    """``(action, count)``: ``seat``'s legal move number ``n`` (0-based, in action order), or
    ``(-1, count)`` with ``count`` its legal moves if it has no more than ``n``."""
    banned = _banned(row, seat)
    count = 0
    for ego in range(N_SQUARES):
        code = row[BOARD + _square(seat, ego)]
        if not _CAN_MOVE[seat, code]:
            continue
        for direction in range(N_DIRECTIONS):
            first = N_PLACE + ego * _DISTANCES + direction * MAX_DISTANCE
            reach = _reach(row, seat, ego, direction, code)
            here = reach - (1 if first <= banned < first + reach else 0)
            if count + here > n:
                for action in range(first, first + reach):
                    if action != banned:
                        if count == n:
                            return action, count
                        count += 1
            count += here
    return -1, count


@njit(cache=True)
def _has_move(row, seat):
    return _nth_move(row, seat, 0)[0] >= 0


@njit(cache=True)
def _nth_place(row, seat, n):
    """``(action, count)`` of the setup phase, as :func:`_nth_move`: placements on ``seat``'s
    empty home squares."""
    count = 0
    for ego in range(N_HOME):
        if row[BOARD + _square(seat, ego)] == EMPTY:
            if count == n:
                return ego, count
            count += 1
    return -1, count


@njit(cache=True)
def _nth_legal(row, n):
    """``(action, count)`` for the seat to act, as :func:`_nth_move`."""
    if row[TERMINATED]:
        return -1, 0
    if row[PHASE] == PHASE_SETUP:
        return _nth_place(row, row[TO_MOVE], n)
    return _nth_move(row, row[TO_MOVE], n)


@njit(cache=True)
def legal_mask(row, out):
    """Write the int8 mask (N_ACTIONS,) of the seat to act: all zeros once the game is over."""
    legal = np.empty(LEGAL_SIZE, dtype=np.int32)
    _fill_legal(row, legal)
    _mask_from_legal(legal, out)


@njit(cache=True)
def is_legal(row, action):
    """Whether ``action`` (any integer) is legal for the seat to act."""
    if row[TERMINATED] or action < 0 or action >= N_ACTIONS:
        return False
    seat = row[TO_MOVE]
    if row[PHASE] == PHASE_SETUP:
        return action < N_PLACE and row[BOARD + _square(seat, action)] == EMPTY
    if action < N_PLACE or action == _banned(row, seat):
        return False
    move = action - N_PLACE
    ego, direction, distance = (
        move // _DISTANCES,
        move // MAX_DISTANCE % N_DIRECTIONS,
        move % MAX_DISTANCE,
    )
    code = row[BOARD + _square(seat, ego)]
    return _CAN_MOVE[seat, code] and distance < _reach(row, seat, ego, direction, code)


# --- applying actions ---------------------------------------------------------------------


@njit(cache=True)
def _finish(row, winner, end):
    row[TERMINATED] = 1
    row[WINNER] = winner
    row[END] = end


@njit(cache=True)
def _start_turn(row, seat):
    """Give ``seat`` the move, or end the game if it has no legal move."""
    row[TO_MOVE] = seat
    if _has_move(row, seat):
        return
    if _has_move(row, 1 - seat):
        _finish(row, 1 - seat, END_NO_MOVE)
    else:
        _finish(row, DRAW, END_NEITHER_CAN_MOVE)


@njit(cache=True)
def _start_play(row, seat):
    row[PHASE] = PHASE_PLAY
    _start_turn(row, seat)


@njit(cache=True)
def _apply_setup(row, action):
    """Place the seat's next piece of the setup order on its ego square ``action``."""
    seat = row[TO_MOVE]
    army = ARMY_SIZE[row[MODE]]
    index = row[SETUP_NEXT + seat]
    row[BOARD + _square(seat, action)] = _ORDER[row[MODE], index] | (OWNER_BIT * seat)
    row[SETUP_NEXT + seat] = index + 1
    if index + 1 < army:
        return
    if seat == GOLD and row[SETUP_NEXT + SILVER] < army:
        row[TO_MOVE] = SILVER
        return
    _start_play(row, GOLD)


@njit(cache=True)
def _strike(row, seat, piece, defender, square):
    """``piece`` of ``seat`` moves onto ``defender`` on ``square``: both ranks are shown."""
    striker_rank, defender_rank = piece & RANK_BITS, defender & RANK_BITS
    result = _STRIKE[striker_rank, defender_rank]
    row[LAST_STRIKE] = square
    row[LAST_STRIKE + 1] = seat
    row[LAST_STRIKE + 2] = striker_rank
    row[LAST_STRIKE + 3] = defender_rank
    row[LAST_STRIKE + 4] = result
    mine, theirs = REMOVED + N_RANKS * seat, REMOVED + N_RANKS * (1 - seat)
    if result == DEFENDER_WINS:
        row[mine + striker_rank - 1] += 1
        row[BOARD + square] = defender | PUBLIC_BIT
        return
    row[theirs + defender_rank - 1] += 1
    if result == BOTH_REMOVED:
        row[mine + striker_rank - 1] += 1
        row[BOARD + square] = EMPTY
        return
    row[BOARD + square] = piece | PUBLIC_BIT
    if result == FLAG_TAKEN:
        _finish(row, seat, END_FLAG)


@njit(cache=True)
def _apply_play(row, action):
    """Move a piece of the seat to act (a strike if an enemy piece stands on the target)."""
    seat = row[TO_MOVE]
    move = action - N_PLACE
    origin = _square(seat, _MOVE_FROM[move])
    target = _square(seat, _MOVE_TO[move])
    piece = row[BOARD + origin] | MOVED_BIT
    if move % MAX_DISTANCE:  # more than one square: only a Scout can, and now all know it
        piece |= PUBLIC_BIT
    row[BOARD + origin] = EMPTY
    defender = row[BOARD + target]
    if defender == EMPTY:
        row[BOARD + target] = piece
    else:
        _strike(row, seat, piece, defender, target)
    if action == row[REVERSE + seat]:
        row[SHUTTLE + seat] += 1
    else:
        row[SHUTTLE + seat] = 1
    row[REVERSE + seat] = _MOVE_REVERSE[move]
    row[LAST_FROM + seat] = origin
    row[LAST_TO + seat] = target
    row[MOVES] += 1
    if row[TERMINATED]:
        return
    if row[MOVES] >= row[MAX_MOVES]:
        _finish(row, DRAW, END_MOVE_LIMIT)
        return
    _start_turn(row, 1 - seat)


@njit(cache=True)
def apply(row, action):
    """Play the legal ``action`` of the seat to act."""
    if row[PHASE] == PHASE_SETUP:
        _apply_setup(row, action)
    else:
        _apply_play(row, action)


# --- new games ----------------------------------------------------------------------------


@njit(cache=True)
def _blank(row):
    """An empty board and no history (the stream and the keywords stay)."""
    row[BOARD : BOARD + N_SQUARES] = EMPTY
    for square in _LAKES:
        row[BOARD + square] = LAKE
    row[PHASE] = PHASE_SETUP
    row[TO_MOVE] = GOLD
    row[SETUP_NEXT : SETUP_NEXT + 2] = 0
    row[REMOVED : REMOVED + 2 * N_RANKS] = 0
    row[LAST_FROM : LAST_FROM + 2] = -1
    row[LAST_TO : LAST_TO + 2] = -1
    row[SHUTTLE : SHUTTLE + 2] = 0
    row[REVERSE : REVERSE + 2] = -1
    row[LAST_STRIKE : LAST_STRIKE + 5] = -1
    row[MOVES] = 0
    row[TERMINATED] = 0
    row[WINNER] = DRAW
    row[END] = END_NONE


@njit(cache=True)
def _random_setup(row, seat):
    """Place ``seat``'s army on random home squares, never walling in the whole army: a
    shuffled copy of the home squares (in ego order), drawn again until the army has a legal
    move (the draws the golden fixture pins)."""
    mode = row[MODE]
    squares = np.empty(N_HOME, dtype=np.int64)
    while True:
        for ego in range(N_HOME):
            squares[ego] = _square(seat, ego)
        shuffle(row, squares, N_HOME)
        for ego in range(N_HOME):
            row[BOARD + _square(seat, ego)] = EMPTY
        for k in range(ARMY_SIZE[mode]):
            row[BOARD + squares[k]] = _ORDER[mode, k] | (OWNER_BIT * seat)
        if _has_move(row, seat):
            break
    row[SETUP_NEXT + seat] = ARMY_SIZE[mode]


@njit(cache=True)
def _begin(row):
    """Start the game on a blank board (setups given so far placed): random setups for the
    seats still without one if the keyword says so, then the setup phase of the first seat
    still to place, or play."""
    for seat in range(N_SEATS):
        if row[SETUP_NEXT + seat] == 0 and row[SETUP] == SETUP_RANDOM:
            _random_setup(row, seat)
    for seat in range(N_SEATS):
        if row[SETUP_NEXT + seat] == 0:
            row[TO_MOVE] = seat
            return
    _start_play(row, GOLD)


@njit(cache=True)
def new_game(row):
    """A fresh random game from the row's keywords and stream (as old ``new_game`` with no
    options; the stream continues)."""
    _blank(row)
    _begin(row)


def start(row: np.ndarray, config: rules.Config, options: dict) -> None:
    """Start a game in ``row`` from ``config`` (``rules.make_config``), ``reset`` ``options``
    and the stream words already in ``row[0:4]``.

    Invalid options raise ``rules.parse_options``'s ``ValueError`` and leave ``row``
    untouched."""
    plan = rules.parse_options(config, options)
    if config.max_moves > MAX_MOVES_LIMIT:
        raise ValueError(
            f"max_moves={config.max_moves!r} is more than the compiled engine holds "
            f"({MAX_MOVES_LIMIT})"
        )
    work = np.array(row, dtype=np.int32)
    work[MODE] = MODES.index(config.mode)
    work[SETUP] = SETUPS.index(config.setup)
    work[MAX_MOVES] = config.max_moves
    _blank(work)
    army = len(SETUP_ORDER[config.mode])
    for seat, pieces in plan.pieces.items():
        for square, rank in pieces.items():
            work[BOARD + square] = rules.piece_code(seat, rank)
        work[SETUP_NEXT + seat] = army
    if plan.position:
        work[SETUP_NEXT : SETUP_NEXT + N_SEATS] = army
        _start_play(work, plan.to_move)
    else:
        _begin(work)
    if work[TERMINATED]:
        raise ValueError(plan.over_error)
    row[:] = work


# --- reading the game ---------------------------------------------------------------------


@njit(cache=True)
def to_act(row):
    """The seat to act (after the end: the seat that was to act when the game ended)."""
    return row[TO_MOVE]


@njit(cache=True)
def status(row):
    """``(terminated, truncated, winner)``: the turn limit is a rule, so never truncated."""
    return row[TERMINATED] != 0, False, row[WINNER]


@njit(cache=True)
def score(row, team):
    """The game keeps no score."""
    return 0


def _square_planes(code: int, seat: int, hide_enemy: bool) -> list[int]:
    """The per-square planes that are 1 on a square holding ``code``, seen by ``seat`` (the
    enemy's pieces hidden in the setup phase): what ``encoding.OBS`` says of a square."""
    if code == EMPTY or code == LAKE:
        return [P_LAKE] if code == LAKE else []
    rank, mine = code & RANK_BITS, (SILVER if code & OWNER_BIT else GOLD) == seat
    if mine:
        planes = [P_MY_RANK + rank - 1]
        planes += [P_MY_MOVED] if code & MOVED_BIT else []
        return planes + ([P_MY_PUBLIC] if code & PUBLIC_BIT else [])
    if hide_enemy:
        return []
    planes = [P_ENEMY_RANK + rank - 1 if code & PUBLIC_BIT else P_ENEMY_UNKNOWN]
    return planes + ([P_ENEMY_MOVED] if code & MOVED_BIT else [])


_SET_PER_SQUARE = 3
_SQUARE_PLANE = np.full((N_SEATS, 2, 256, _SET_PER_SQUARE), P_LAKE, dtype=np.int8)
"""``_SQUARE_PLANE[seat, hide_enemy, code, k]``, ``_SQUARE_VALUE[...]`` (raveled below): the
three writes that show a square holding ``code`` to ``seat`` (:func:`_square_planes`; the
unused ones repeat the last, or write 0 on the lake plane of an empty square), so that
:func:`observe` writes a square's planes without a branch on its piece (int8: small tables)."""
_SQUARE_VALUE = np.zeros((N_SEATS, 2, 256, _SET_PER_SQUARE), dtype=np.int8)
for _seat in range(N_SEATS):
    for _hide in range(2):
        for _code in range(256):
            _set = _square_planes(_code, _seat, bool(_hide))
            for _k in range(len(_set)):  # the unused writes repeat the last one
                _SQUARE_PLANE[_seat, _hide, _code, _k:] = _set[_k]
                _SQUARE_VALUE[_seat, _hide, _code, _k:] = 1
_SQUARE_PLANE, _SQUARE_VALUE = _SQUARE_PLANE.ravel(), _SQUARE_VALUE.ravel()  # flat, for observe


@njit(cache=True)
def _observe_last_move(out, row, seat, who, plane):
    """``who``'s last move seen by ``seat``: 1 on its from-square in ``plane``, the shuttle
    count on its to-square in the plane after."""
    if row[LAST_FROM + who] >= 0:
        out[_square(seat, row[LAST_FROM + who]) * N_PLANES + plane] = 1
        out[_square(seat, row[LAST_TO + who]) * N_PLANES + plane + 1] = row[SHUTTLE + who]


@njit(cache=True)
def _constant_planes(row, seat, planes):
    """The values of the constant planes (``P_FIRST_CONSTANT`` on) of ``seat``'s observation
    into ``planes``, of the observation's dtype: the move count as ``moves / max_moves`` in a
    float dtype, as ``100 * moves // max_moves`` (the percent of the turn limit played) in an
    integer one."""
    planes[:] = 0
    for rank in range(N_RANKS):
        planes[P_MY_REMOVED - P_FIRST_CONSTANT + rank] = row[REMOVED + N_RANKS * seat + rank]
        planes[P_ENEMY_REMOVED - P_FIRST_CONSTANT + rank] = row[
            REMOVED + N_RANKS * (1 - seat) + rank
        ]
    if row[PHASE] == PHASE_SETUP:
        planes[P_SETUP_PHASE - P_FIRST_CONSTANT] = 1
        mode, placed = row[MODE], row[SETUP_NEXT + seat]
        if row[TO_MOVE] == seat and placed < ARMY_SIZE[mode]:
            planes[P_MY_NEXT_PIECE - P_FIRST_CONSTANT + _ORDER[mode, placed] - 1] = 1
    count = P_MOVE_COUNT - P_FIRST_CONSTANT
    planes[count] = 0.5
    if planes[count] == 0:  # an integer dtype
        planes[count] = np.int64(row[MOVES]) * 100 // row[MAX_MOVES]
    else:
        planes[count] = np.float64(row[MOVES]) / np.float64(row[MAX_MOVES])


@njit(cache=True)
def _copy_square_zero(out):
    """Copy square 0's planes onto every other square, doubling the copied span each time:
    a few long copies that the compiler turns into vector moves (where one strided write per
    constant plane and square would cost a store per entry)."""
    done = N_PLANES
    while done < OBS_SIZE:
        size = min(done, OBS_SIZE - done)
        for k in range(size):
            out[done + k] = out[k]
        done += size


@njit(cache=True)
def observe(row, seat, out):
    """Write ``seat``'s observation into ``out`` (flat, OBS_SIZE, any numeric dtype): the
    values ``encoding.OBS`` documents, square ``ego`` at ``out[ego * N_PLANES : ...]``. The
    ``move_count`` plane is ``moves / max_moves`` in a float ``out``, ``100 * moves //
    max_moves`` in an integer one (the compact dtype, ``COMPACT_DTYPES``)."""
    out[:P_FIRST_CONSTANT] = 0  # square 0: no piece, and the constant planes
    _constant_planes(row, seat, out[P_FIRST_CONSTANT:N_PLANES])
    _copy_square_zero(out)
    table = ((seat * 2) + (1 if row[PHASE] == PHASE_SETUP else 0)) * 256
    occupied = np.empty(N_SQUARES, dtype=np.int64)  # listed without a branch per square
    count = 0
    for ego in range(N_SQUARES):
        occupied[count] = ego
        count += row[BOARD + _square(seat, ego)] != EMPTY
    for k in range(count):
        ego = occupied[k]
        base = ego * N_PLANES
        entry = (table + row[BOARD + _square(seat, ego)]) * _SET_PER_SQUARE
        for j in range(_SET_PER_SQUARE):
            out[base + np.int64(_SQUARE_PLANE[entry + j])] = _SQUARE_VALUE[entry + j]
    _observe_last_move(out, row, seat, seat, P_MY_LAST_FROM)
    _observe_last_move(out, row, seat, 1 - seat, P_ENEMY_LAST_FROM)


# --- batches ------------------------------------------------------------------------------


@njit(cache=True)
def _outputs(row, i, obs, masks, seats, legal):
    """Game ``i``'s seat to act, its observation and mask; its ``LEGAL`` cache filled on
    the way if there are caches (``legal`` not None)."""
    seats[i] = row[TO_MOVE]
    observe(row, seats[i], obs[i])
    if legal is None:
        legal_mask(row, masks[i])
    else:
        _fill_legal(row, legal[i])
        _mask_from_legal(legal[i], masks[i])


PARALLEL_FROM = 1_024
"""How many games a call of a batch kernel needs before it runs on numba's threads
(:mod:`feral_envs.engine.batch`): where ``step(random_actions())`` first ran faster on two
threads than on one, measured 2026-12-03 on the 2-core machine (quiet, workqueue threads;
``benchmarks/bench_threads.py``)."""


@batch_kernel(PARALLEL_FROM)
def step_batch(
    rows, actions, points, obs, masks, seats, rewards, terminated, truncated, legal=None
):
    """One step of every game: a finished game restarts (``new_game``, its action ignored),
    the others play ``actions[i]``; then the outputs of the seat to act. Rewards as the AEC
    env's: ``reward="win"`` +1 / -1 at a decisive end; ``points`` (no score here) all 0.
    The actions of running games must be legal (:func:`first_illegal` checks them).
    ``legal`` (optional): one ``LEGAL`` cache per game, filled for :func:`random_batch`."""
    for i in prange(rows.shape[0]):
        row = rows[i]
        rewards[i, :] = 0
        if row[TERMINATED]:
            new_game(row)
        else:
            apply(row, actions[i])
            winner = row[WINNER]
            if row[TERMINATED] and winner != DRAW and not points:
                for seat in range(N_SEATS):
                    rewards[i, seat] = 1.0 if TEAM_OF_SEAT[seat] == winner else -1.0
        _outputs(row, i, obs, masks, seats, legal)
        terminated[i] = row[TERMINATED] != 0
        truncated[i] = False


@batch_kernel(PARALLEL_FROM)
def reset_batch(rows, obs, masks, seats, legal=None):
    """``new_game`` in every row (stream and keywords set by the caller), then the outputs
    (and the ``LEGAL`` caches, as :func:`step_batch`)."""
    for i in prange(rows.shape[0]):
        new_game(rows[i])
        _outputs(rows[i], i, obs, masks, seats, legal)


@batch_kernel(PARALLEL_FROM)
def observe_batch(rows, seats, obs):
    for i in prange(rows.shape[0]):
        observe(rows[i], seats[i], obs[i])


@batch_kernel(PARALLEL_FROM)
def masks_batch(rows, masks):
    for i in prange(rows.shape[0]):
        legal_mask(rows[i], masks[i])


@njit(cache=True)
def scores_batch(rows, out):
    """``out[i, team] = score(rows[i], team)``: both teams' scores of every game."""
    for i in range(rows.shape[0]):  # two reads a game: threads would cost more
        out[i, 0] = score(rows[i], 0)
        out[i, 1] = score(rows[i], 1)


@batch_kernel(PARALLEL_FROM)
def status_batch(rows, seats, terminated, truncated, winners):
    """Every game's seat to act and ``status``: ``seats[i] = to_act(rows[i])``,
    ``(terminated[i], truncated[i], winners[i]) = status(rows[i])``."""
    for i in prange(rows.shape[0]):
        seats[i] = to_act(rows[i])
        terminated[i], truncated[i], winners[i] = status(rows[i])


@batch_kernel(PARALLEL_FROM)
def apply_batch(rows, actions):
    """``apply(rows[i], actions[i])`` in every game whose ``actions[i] >= 0`` (a legal
    action); a game with a negative action is left as it is."""
    for i in prange(rows.shape[0]):
        if actions[i] >= 0:
            apply(rows[i], actions[i])


@njit(cache=True)
def _legal_runs(row, firsts, lengths, movers):
    """The legal actions of the seat to act as runs of consecutive actions, in action order:
    run ``k`` is ``firsts[k] .. firsts[k] + lengths[k] - 1``. Returns the number of runs (at
    most ``MAX_RUNS``; 0 once the game is over). ``movers`` (``MAX_ARMY`` entries) is
    scratch: the ego squares of the seat's pieces that move, listed first without a branch
    per square, so that the loop over them has no branch to guess wrong (nor has a piece
    that moves one square: its reach is 0 or 1, written as a run of that length and kept if
    it is 1)."""
    if row[TERMINATED]:
        return 0
    seat = row[TO_MOVE]
    runs = 0
    if row[PHASE] == PHASE_SETUP:
        for ego in range(N_HOME):
            if row[BOARD + _square(seat, ego)] == EMPTY:
                firsts[runs], lengths[runs] = ego, 1
                runs += 1
        return runs
    banned = _banned(row, seat)
    count = 0
    for ego in range(N_SQUARES):
        movers[count] = ego
        count += _CAN_MOVE[seat, row[BOARD + _square(seat, ego)]]
    for k in range(count):
        ego = movers[k]
        code = row[BOARD + _square(seat, ego)]
        scout = _IS_SCOUT[seat, code]
        for direction in range(N_DIRECTIONS):
            first = N_PLACE + ego * _DISTANCES + direction * MAX_DISTANCE
            if scout:
                reach = _reach(row, seat, ego, direction, code)
            else:
                reach = _reach_one(row, seat, ego, direction)
            if first <= banned < first + reach:  # the banned move splits the run
                if banned > first:
                    firsts[runs], lengths[runs] = first, banned - first
                    runs += 1
                reach -= banned + 1 - first
                first = banned + 1
            firsts[runs], lengths[runs] = first, reach
            runs += reach > 0
    return runs


MAX_RUNS = MAX_ARMY * N_DIRECTIONS + 1
"""More runs than any position has: one per piece and direction, plus the banned move's split
(the setup phase has at most ``N_HOME`` runs of one)."""
assert MAX_RUNS >= N_HOME

LEGAL = Layout(
    ("valid", 1, "1 once the entries below hold the legal actions of the state row in `row`"),
    ("row", ROW_SIZE, "the state row they are of: they hold while the game's row equals it"),
    ("count", 1, "how many legal actions the seat to act has (0 once the game is over)"),
    ("runs", 1, "how many runs of consecutive legal actions (`_legal_runs`)"),
    ("firsts", MAX_RUNS, "run `k`'s first action"),
    ("lengths", MAX_RUNS, "run `k`'s number of actions"),
    ("movers", MAX_ARMY, "scratch of `_legal_runs`: the squares of the pieces that move"),
)
"""The int32 legal-action cache of one game: the runs of ``_legal_runs`` and the row they
are of. ``step_batch`` and ``reset_batch`` fill it while they write each game's mask, and
``random_batch`` draws from it, so the move generator runs once a step; a cache whose row is
not the game's (the row was set, reset or changed since) is computed again, so it can never
give an action that is not legal. :mod:`feral_envs.vector` holds one per game."""
LEGAL_SIZE = LEGAL.size
LEGAL_VALID = LEGAL.valid.start
LEGAL_ROW = LEGAL.row.start
LEGAL_COUNT = LEGAL.count.start
LEGAL_RUNS = LEGAL.runs.start
LEGAL_FIRSTS = LEGAL.firsts.start
LEGAL_LENGTHS = LEGAL.lengths.start
LEGAL_MOVERS = LEGAL.movers.start


@njit(cache=True)
def _fill_legal(row, legal):
    """Compute ``row``'s legal actions into the cache ``legal`` (``LEGAL``)."""
    runs = _legal_runs(
        row,
        legal[LEGAL_FIRSTS : LEGAL_FIRSTS + MAX_RUNS],
        legal[LEGAL_LENGTHS : LEGAL_LENGTHS + MAX_RUNS],
        legal[LEGAL_MOVERS : LEGAL_MOVERS + MAX_ARMY],
    )
    count = 0
    for k in range(runs):
        count += legal[LEGAL_LENGTHS + k]
    legal[LEGAL_RUNS] = runs
    legal[LEGAL_COUNT] = count
    for k in range(ROW_SIZE):
        legal[LEGAL_ROW + k] = row[k]
    legal[LEGAL_VALID] = 1


@njit(cache=True)
def _holds(legal, row):
    """Whether the cache ``legal`` holds ``row``'s legal actions: it is valid and its row
    equals ``row`` entry for entry."""
    differ = 0
    for k in range(ROW_SIZE):  # no early exit: one vector pass
        differ |= legal[LEGAL_ROW + k] ^ row[k]
    return legal[LEGAL_VALID] == 1 and differ == 0


@njit(cache=True)
def _mask_from_legal(legal, out):
    """Write the int8 mask (N_ACTIONS,) of the cache's legal actions. Most runs are one
    action long (a piece that moves one square): those are one store, where a loop over
    the run cost several times as much (measured: 434 against 165 ns a game, 256 games)."""
    out[:] = 0
    for k in range(legal[LEGAL_RUNS]):
        first = legal[LEGAL_FIRSTS + k]
        length = legal[LEGAL_LENGTHS + k]
        if length == 1:
            out[first] = 1
        else:
            out[first : first + length] = 1


@njit(cache=True)
def _draw_legal(legal, rng_row):
    """A uniform legal action of the cache: the ``below(rng_row, count)``-th in action order;
    0 (nothing drawn) once the game is over."""
    count = legal[LEGAL_COUNT]
    if count == 0:
        return 0
    n = below(rng_row, count)
    for k in range(legal[LEGAL_RUNS]):
        length = legal[LEGAL_LENGTHS + k]
        if n < length:
            return legal[LEGAL_FIRSTS + k] + n
        n -= length
    return 0  # not reached


@batch_kernel(PARALLEL_FROM)
def random_batch(rows, rng_rows, out, legal=None):
    """``out[i]``: a uniform legal action of game ``i``, drawn from ``rng_rows[i]`` (not the
    game's own stream); 0 for a game that is over (nothing drawn). ``legal`` (optional, one
    ``LEGAL`` cache per game) spares the move generator where it holds the game's row, and
    is filled where it does not."""
    for i in prange(rows.shape[0]):
        if legal is None:
            cache = np.empty(LEGAL_SIZE, dtype=np.int32)
            _fill_legal(rows[i], cache)
        else:
            cache = legal[i]
            if not _holds(cache, rows[i]):
                _fill_legal(rows[i], cache)
        out[i] = _draw_legal(cache, rng_rows[i])


@batch_kernel(PARALLEL_FROM)
def first_illegal(rows, actions):
    """Index of the first game whose action is not legal (a finished game accepts any), or
    -1."""
    n = rows.shape[0]
    first = n
    for i in prange(n):
        if not rows[i, TERMINATED] and not is_legal(rows[i], actions[i]):
            first = min(first, i)
    return first if first < n else -1


# --- the AEC env's step and observation, one call each ----------------------------------


@njit(cache=True)
def play(row, action):
    """The AEC env's step in one call: ``-1`` (the row unchanged) if ``action`` is not legal;
    else ``apply`` it and return the seat to act, or ``N_SEATS`` if the game is over now
    (``status`` then says how)."""
    if not is_legal(row, action):
        return -1
    apply(row, action)
    terminated, truncated, _ = status(row)
    if terminated or truncated:
        return N_SEATS
    return to_act(row)


@njit(cache=True)
def observe_masked(row, seat, to_act, obs, mask):
    """The AEC env's ``observe`` in one call: ``observe(row, seat, obs)``, and into ``mask``
    the legal mask of the seat to act if ``to_act``, else zeros."""
    observe(row, seat, obs)
    if to_act:
        legal_mask(row, mask)
    else:
        mask[:] = 0
