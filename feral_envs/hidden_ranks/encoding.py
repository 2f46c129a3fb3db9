"""Hidden Ranks encodings: action ranges, the observation planes, action names.

The observation is ``(10, 10, 71)`` float32, PettingZoo board-game style: ``obs[r, c, p]``
is plane ``p`` at the observer's ego square ``10 * r + c``, i.e. ``r`` counts rows from the
observer's own back row (``r = 0``) toward the enemy, ``c`` counts columns from the
observer's left. For gold that is square ``(column c, row r + 1)``; for silver the board is
turned 180 degrees (``r = 0, c = 0`` is j10). :data:`OBS` (below) is the plane list, the one
source for the code and for the table in ``docs/hidden_ranks.md``.

Actions are in the same ego frame (see :mod:`feral_envs.hidden_ranks.rules`); their names
are absolute squares: ``a1`` (a placement), ``b2-b7`` (a move).
"""

from __future__ import annotations

import numpy as np

from feral_envs.layout import Layout

from .rules import (
    AGENTS,
    DIRECTION_NAMES,
    LAKE,
    MAX_DISTANCE,
    MOVE_FROM,
    MOVE_TO,
    MOVED_BIT,
    N_ACTIONS,
    N_CODES,
    N_DIRECTIONS,
    N_HOME,
    N_PLACE,
    N_RANKS,
    OFF_BOARD,
    OWNER_BIT,
    PUBLIC_BIT,
    RANK_BITS,
    RANK_NAMES,
    SETUP_ORDER,
    SILVER,
    SQUARE_NAMES,
    SQUARE_OF_NAME,
    Phase,
    State,
    _line,
    ego_square,
    move_action,
)

RANK_LIST = ", ".join(RANK_NAMES[1:])

ACTIONS = Layout(
    (
        "place",
        N_PLACE,
        "setup phase: put the next piece of the setup order on ego square `action` "
        "(0–39: your home rows, ego row `action // 10`, ego column `action % 10`)",
    ),
    (
        "move",
        N_ACTIONS - N_PLACE,
        "play: `40 + 36 * from + 9 * direction + (distance - 1)`: move the piece on ego square "
        "`from` (0–99) `distance` squares (1–9) in `direction` (0 forward, 1 right, 2 back, "
        "3 left, as the mover sees the board)",
    ),
)
"""The action space: ``Discrete(3640)``, in the ego frame of the seat to act."""

OBS = Layout(
    ("my_rank", N_RANKS, f"1 where my piece of that rank stands, one plane per rank ({RANK_LIST})"),
    (
        "enemy_rank",
        N_RANKS,
        "1 where an enemy piece of that rank stands and its rank is public (shown in a strike, "
        f"or a Scout that moved more than one square), one plane per rank ({RANK_LIST})",
    ),
    ("enemy_unknown", 1, "1 where an enemy piece of unknown rank stands"),
    ("enemy_moved", 1, "1 where an enemy piece that has moved stands"),
    ("my_moved", 1, "1 where my piece that has moved stands"),
    ("my_public", 1, "1 where my piece whose rank the enemy knows stands"),
    ("lake", 1, "1 on the eight lake squares"),
    ("my_last_from", 1, "1 on the square my last move started from"),
    (
        "my_last_to",
        1,
        "on the square my last move went to: how many of my last moves in a row went back and "
        "forth between these two squares (1–3; at 3 the move back is illegal)",
    ),
    ("enemy_last_from", 1, "1 on the square the enemy's last move started from"),
    ("enemy_last_to", 1, "on the square the enemy's last move went to: its count, as above"),
    (
        "my_removed",
        N_RANKS,
        f"constant planes: how many of my pieces of that rank strikes removed ({RANK_LIST})",
    ),
    (
        "enemy_removed",
        N_RANKS,
        f"constant planes: how many enemy pieces of that rank strikes removed ({RANK_LIST})",
    ),
    ("setup_phase", 1, "constant plane: 1 while the setup phase lasts (for both players)"),
    (
        "my_next_piece",
        N_RANKS,
        f"constant planes: one-hot rank of my next piece to place ({RANK_LIST}); all 0 when "
        "I have nothing to place now",
    ),
    ("move_count", 1, "constant plane: moves played / `max_moves` (the turn limit)"),
)
"""Observation planes, in order (``obs[..., OBS.lake.start]`` is the lake plane)."""

N_PLANES = OBS.size
OBS_SHAPE = (10, 10, N_PLANES)
OBS_DTYPE = np.float32
N_SQUARE_PLANES = OBS.enemy_last_to.stop
"""Planes before this one hold facts about squares; the rest are constant planes."""


def _square_planes(seat: int, hide_enemy: bool) -> np.ndarray:
    """``table[code]``: the per-square planes of a square holding ``code``, seen by ``seat``."""
    table = np.zeros((N_CODES, N_PLANES), dtype=OBS_DTYPE)  # the other planes stay 0
    table[LAKE, OBS.lake.start] = 1
    for code in range(1, LAKE):
        rank = code & RANK_BITS
        if not 1 <= rank <= N_RANKS:
            continue
        row = table[code]
        mine = bool(code & OWNER_BIT) == (seat == SILVER)
        if mine:
            row[OBS.my_rank.start + rank - 1] = 1
            row[OBS.my_moved.start] = bool(code & MOVED_BIT)
            row[OBS.my_public.start] = bool(code & PUBLIC_BIT)
        elif not hide_enemy:
            if code & PUBLIC_BIT:
                row[OBS.enemy_rank.start + rank - 1] = 1
            else:
                row[OBS.enemy_unknown.start] = 1
            row[OBS.enemy_moved.start] = bool(code & MOVED_BIT)
    return table


SQUARE_PLANES = np.stack(
    [np.stack([_square_planes(seat, hide) for seat in (0, 1)]) for hide in (False, True)]
)
"""``SQUARE_PLANES[hide_enemy, seat, code]``: the observation row (all planes) of a square
holding ``code``, seen by ``seat``, before the last-move and constant planes are filled in;
enemy pieces are left out during the setup phase (neither player sees the other's setup)."""


_TABLES = tuple(tuple(SQUARE_PLANES[hide, seat] for seat in (0, 1)) for hide in (0, 1))
_CONST = N_SQUARE_PLANES  # constant planes are built apart, indexed from here
_MY_REMOVED = slice(OBS.my_removed.start - _CONST, OBS.my_removed.stop - _CONST)
_ENEMY_REMOVED = slice(OBS.enemy_removed.start - _CONST, OBS.enemy_removed.stop - _CONST)


def observe(state: State, seat: int) -> np.ndarray:
    """The observation of ``seat``: ``(10, 10, 71)`` float32, ego-centric (see :data:`OBS`)."""
    board = state.board if seat == 0 else state.board[::-1]
    in_setup = state.phase == Phase.SETUP
    obs = _TABLES[in_setup][seat][board]  # a new (100, 71) array
    last_from, last_to, shuttle = (
        x.tolist() for x in (state.last_from, state.last_to, state.shuttle)
    )
    for who, start in ((seat, OBS.my_last_from.start), (1 - seat, OBS.enemy_last_from.start)):
        if last_from[who] >= 0:
            obs[ego_square(seat, last_from[who]), start] = 1
            obs[ego_square(seat, last_to[who]), start + 1] = shuttle[who]
    const = np.zeros(N_PLANES - _CONST, dtype=OBS_DTYPE)
    const[_MY_REMOVED] = state.removed[seat]
    const[_ENEMY_REMOVED] = state.removed[1 - seat]
    if in_setup:
        const[OBS.setup_phase.start - _CONST] = 1
        order = SETUP_ORDER[state.config.mode]
        placed = int(state.setup_next[seat])
        if state.to_move == seat and placed < len(order):
            const[OBS.my_next_piece.start - _CONST + order[placed] - 1] = 1
    const[OBS.move_count.start - _CONST] = state.moves / state.config.max_moves
    obs[:, _CONST:] = const
    return obs.reshape(OBS_SHAPE)


# --- action names -------------------------------------------------------------------------


def action_to_string(state: State, action: int) -> str:
    """``a1`` (placement) or ``b2-b7`` (move) in absolute squares, for the seat to act."""
    seat = state.to_move
    if action < N_PLACE:
        return SQUARE_NAMES[ego_square(seat, action)]
    move = action - N_PLACE
    origin = SQUARE_NAMES[ego_square(seat, MOVE_FROM[move])]
    target = MOVE_TO[move]
    if target == OFF_BOARD:
        direction = DIRECTION_NAMES[move // MAX_DISTANCE % N_DIRECTIONS]
        return f"{origin} {direction} {move % MAX_DISTANCE + 1} (off the board)"
    return f"{origin}-{SQUARE_NAMES[ego_square(seat, target)]}"


def string_to_action(state: State, text: str) -> int | None:
    """The action named by ``text`` (case-insensitive) for the seat to act, or None."""
    seat = state.to_move
    parts = text.strip().lower().split("-")
    squares = [SQUARE_OF_NAME.get(part.strip()) for part in parts]
    if None in squares:
        return None
    if len(squares) == 1:
        ego = ego_square(seat, squares[0])
        return ego if ego < N_HOME else None
    if len(squares) != 2:
        return None
    origin, target = (ego_square(seat, s) for s in squares)
    for direction in range(N_DIRECTIONS):
        line = _line(origin, direction)
        if target in line:
            return move_action(origin, direction, line.index(target) + 1)
    return None


# --- docs ---------------------------------------------------------------------------------


def _agent_table() -> str:
    rows = ["| agent | seat | home rows | ego square of a1 |", "| --- | --- | --- | --- |"]
    for seat, agent in enumerate(AGENTS):
        rows.append(
            f"| `{agent}` | {seat} | {'1–4' if seat == 0 else '7–10'} | {ego_square(seat, 0)} |"
        )
    return "\n".join(rows)


def _setup_order_table() -> str:
    rows = ["| mode | setup order (one placement action each) |", "| --- | --- |"]
    for mode, order in SETUP_ORDER.items():
        rows.append(f"| `{mode}` | {' '.join(RANK_NAMES[r] for r in order)} |")
    return "\n".join(rows)


DOC_TABLES = {
    "actions": lambda: ACTIONS.markdown("range"),
    "observation": lambda: OBS.markdown("plane"),
    "agents": _agent_table,
    "setup_order": _setup_order_table,
}

assert ACTIONS.size == N_ACTIONS
