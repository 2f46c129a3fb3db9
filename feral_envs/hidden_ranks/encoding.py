"""Hidden Ranks encodings: action ranges, the observation planes, action names.

The observation is ``(10, 10, 71)`` float32, PettingZoo board-game style: ``obs[r, c, p]``
is plane ``p`` at the observer's ego square ``10 * r + c``, i.e. ``r`` counts rows from the
observer's own back row (``r = 0``) toward the enemy, ``c`` counts columns from the
observer's left. For gold that is square ``(column c, row r + 1)``; for silver the board is
turned 180 degrees (``r = 0, c = 0`` is j10). :data:`OBS` (below) is the plane list, the one
source for the compiled engine, which writes the observation from its state row
(:func:`feral_envs.hidden_ranks.engine.observe`), and for the table in ``docs/hidden_ranks.md``.

Actions are in the same ego frame (see :mod:`feral_envs.hidden_ranks.rules`); their names
are absolute squares: ``a1`` (a placement), ``b2-b7`` (a move).
"""

from __future__ import annotations

from feral_envs.layout import Layout

from .rules import (
    AGENTS,
    DIRECTION_NAMES,
    MAX_DISTANCE,
    MOVE_FROM,
    MOVE_TO,
    N_ACTIONS,
    N_DIRECTIONS,
    N_HOME,
    N_PLACE,
    N_RANKS,
    OFF_BOARD,
    RANK_NAMES,
    SETUP_ORDER,
    SQUARE_NAMES,
    SQUARE_OF_NAME,
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
    (
        "move_count",
        1,
        "constant plane: moves played / `max_moves` (the turn limit); in the compact int8 "
        'observation (`feral_envs.vector`, `obs_dtype="int8"`) `100 * moves // max_moves`, '
        "the percent of the limit played",
    ),
)
"""Observation planes, in order (``obs[..., OBS.lake.start]`` is the lake plane)."""

N_PLANES = OBS.size
OBS_SHAPE = (10, 10, N_PLANES)


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
    """The action named by ``text`` (case-insensitive; a move's squares joined by ``-`` or
    spaces: ``e2-e4``, ``e2 e4``) for the seat to act, or None."""
    seat = state.to_move
    parts = text.strip().lower().replace("-", " ").split()
    squares = [SQUARE_OF_NAME.get(part) for part in parts]
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
