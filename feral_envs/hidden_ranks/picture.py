"""Hidden Ranks as a picture (``render_mode="rgb_array"``): the board from one side or the
referee's.

A side's view shows what that player knows, as the text view does: its own ranks, the
enemy's ranks that are public (``?`` for the others), none of the enemy's pieces while the
setup phase lasts, and its home rows at the bottom. The referee sees every rank, gold at the
bottom. Marks: ``*`` a rank known to both players, ``+`` a piece that has moved; each side's
last move is framed in its colour (thin: from, thick: to), the last strike in red.
"""

from __future__ import annotations

import functools

import numpy as np

from feral_envs import drawing
from feral_envs.drawing import Canvas

from .rules import (
    AGENTS,
    COLUMNS,
    EMPTY,
    END_NAMES,
    LAKE,
    LAKE_SQUARES,
    MOVED_BIT,
    OWNER_BIT,
    PUBLIC_BIT,
    RANK_BITS,
    RANK_NAMES,
    SETUP_ORDER,
    SILVER,
    SQUARE_NAMES,
    STRIKE_RESULT_NAMES,
    Phase,
    State,
)

SQUARE = 46
"""Pixels per square."""
BOARD_X, BOARD_Y = 34, 62
PANEL_X = BOARD_X + 10 * SQUARE + 22
WIDTH, HEIGHT = PANEL_X + 262, BOARD_Y + 10 * SQUARE + 34
LAND = (198, 204, 164)
GRID = (150, 156, 118)
WATER = (70, 130, 200)
WAVE = (140, 185, 230)
PIECE = ((232, 182, 40), (188, 196, 210))
"""Fill of gold's and of silver's pieces."""
EDGE = ((150, 100, 0), (80, 90, 110))
"""Each side's colour for outlines and last-move frames."""
STRIKE_FRAME = drawing.RED
LEGEND = (
    "?  rank unknown to you",
    "*  rank known to both players",
    "+  has moved",
    "thin frame: a side's last move from",
    "thick frame: its last move to",
    "red frame: the last strike",
)
_PANEL_CHARS = (WIDTH - PANEL_X - 8) // (2 * drawing.ADVANCE)


def _screen(square: int, seat: int | None) -> tuple[int, int]:
    """Top-left pixel of ``square``: the viewer's home rows at the bottom."""
    row, col = divmod(square, 10)
    if seat == SILVER:
        row, col = 9 - row, 9 - col
    return BOARD_X + col * SQUARE, BOARD_Y + (9 - row) * SQUARE


@functools.lru_cache(maxsize=2)
def _empty_board(flipped: bool) -> np.ndarray:
    """The picture without pieces, texts or frames: land, lakes, coordinates (cached)."""
    seat = SILVER if flipped else 0
    canvas = Canvas(WIDTH, HEIGHT, drawing.CREAM)
    for square in range(100):
        x, y = _screen(square, seat)
        canvas.fill(x, y, SQUARE, SQUARE, LAND)
        canvas.frame(x, y, SQUARE, SQUARE, GRID)
        if square in LAKE_SQUARES:
            canvas.fill(x + 1, y + 1, SQUARE - 2, SQUARE - 2, WATER)
            for k in range(8, SQUARE - 4, 10):
                canvas.fill(x + 8, y + k, SQUARE - 16, 2, WAVE)
    canvas.frame(BOARD_X - 1, BOARD_Y - 1, 10 * SQUARE + 2, 10 * SQUARE + 2, drawing.INK)
    bottom, middle = BOARD_Y + 10 * SQUARE + 8, SQUARE // 2
    for i in range(10):
        column = COLUMNS[9 - i if flipped else i]
        row = str(i + 1 if flipped else 10 - i)
        canvas.text(BOARD_X + i * SQUARE + middle, bottom, column, drawing.INK, 2, "center")
        canvas.text(BOARD_X - 6, BOARD_Y + i * SQUARE + middle - 8, row, drawing.INK, 2, "right")
    canvas.pixels.flags.writeable = False
    return canvas.pixels


def _draw_piece(canvas: Canvas, x: int, y: int, code: int, seat: int | None, setup: bool) -> None:
    owner = SILVER if code & OWNER_BIT else 0
    hidden = seat is not None and owner != seat
    if hidden and setup:
        return  # neither player sees the other's setup
    public = bool(code & PUBLIC_BIT)
    canvas.box(x + 4, y + 4, SQUARE - 8, SQUARE - 8, PIECE[owner], EDGE[owner], 2)
    rank = "?" if hidden and not public else RANK_NAMES[code & RANK_BITS]
    canvas.text(x + SQUARE // 2, y + SQUARE // 2 - 8, rank, drawing.INK, 2, "center")
    if public:
        canvas.text(x + SQUARE - 8, y + 7, "*", drawing.RED, 1, "right")
    if code & MOVED_BIT:
        canvas.text(x + 8, y + 7, "+", drawing.INK, 1)


def _removed(state: State, who: int) -> str:
    parts = []
    for rank in range(len(RANK_NAMES) - 1, 0, -1):
        n = int(state.removed[who, rank - 1])
        if n:
            parts.append(RANK_NAMES[rank] + (f"×{n}" if n > 1 else ""))
    return " ".join(parts) or "-"


def _panel(state: State, seat: int | None) -> list[tuple[str, tuple, int]]:
    """Panel lines as (text, colour, scale)."""
    ink, grey = drawing.INK, drawing.GREY
    if state.terminated:
        result = "draw" if state.winner < 0 else f"{AGENTS[state.winner]} wins"
        lines = [("game over:", ink, 2), (result, ink, 2), (f"({END_NAMES[state.end]})", ink, 1)]
    elif state.phase == Phase.SETUP:
        order = SETUP_ORDER[state.config.mode]
        placed = int(state.setup_next[state.to_move])
        lines = [
            (f"{AGENTS[state.to_move]} sets up", ink, 2),
            (f"next piece: {RANK_NAMES[order[placed]]}", ink, 2),
            (f"({placed + 1} of {len(order)})", ink, 1),
        ]
    else:
        lines = [(f"{AGENTS[state.to_move]} to move", ink, 2)]
    lines.append(("", ink, 1))
    lines.append(("removed by strikes:", ink, 2))
    for who in (0, 1):
        text = f"{AGENTS[who]}: {_removed(state, who)}"
        lines += [(part, EDGE[who], 2) for part in drawing.wrap(text, _PANEL_CHARS)]
    square, striker, striker_rank, defender_rank, result = (int(v) for v in state.last_strike)
    if square >= 0:
        lines.append(("", ink, 1))
        lines.append((f"last strike, {SQUARE_NAMES[square]}:", ink, 2))
        text = (
            f"{AGENTS[striker]} {RANK_NAMES[striker_rank]} struck {AGENTS[1 - striker]} "
            f"{RANK_NAMES[defender_rank]}: {STRIKE_RESULT_NAMES[result]}"
        )
        lines += [(part, ink, 2) for part in drawing.wrap(text, _PANEL_CHARS)]
    lines.append(("", ink, 1))
    lines += [(line, grey, 1) for line in LEGEND]
    return lines


def render_rgb(state: State, seat: int | None) -> np.ndarray:
    """The board as an ``(H, W, 3)`` uint8 picture for ``seat`` (None: the referee)."""
    canvas = Canvas.copy_of(_empty_board(seat == SILVER))
    setup = state.phase == Phase.SETUP
    view = "referee" if seat is None else AGENTS[seat]
    canvas.text(
        10,
        8,
        f"Hidden Ranks ({state.config.mode}) · {'setup' if setup else 'play'} · "
        f"move {state.moves}/{state.config.max_moves}",
        drawing.INK,
        2,
    )
    canvas.text(10, 32, f"view: {view}", drawing.GREY, 2)
    for square, code in enumerate(state.board.tolist()):
        if code != EMPTY and code != LAKE:
            _draw_piece(canvas, *_screen(square, seat), code, seat, setup)
    if not setup:
        for who in (0, 1):
            origin, target = int(state.last_from[who]), int(state.last_to[who])
            if origin >= 0:
                canvas.frame(*_screen(origin, seat), SQUARE, SQUARE, EDGE[who], 2)
                canvas.frame(*_screen(target, seat), SQUARE, SQUARE, EDGE[who], 4)
        if state.last_strike[0] >= 0:
            canvas.frame(*_screen(int(state.last_strike[0]), seat), SQUARE, SQUARE, STRIKE_FRAME, 3)
    y = BOARD_Y
    for text, color, scale in _panel(state, seat):
        canvas.text(PANEL_X, y, text, color, scale)
        y += drawing.LINE * scale
    return canvas.pixels
