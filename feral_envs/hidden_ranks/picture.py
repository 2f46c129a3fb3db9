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
from dataclasses import dataclass, field

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


@dataclass(frozen=True)
class SeenPiece:
    """A piece as one viewer sees it: its owner's seat, its rank name (``"?"`` when the
    viewer does not know it), whether its rank is known to both players, whether it moved."""

    owner: int
    rank: str
    public: bool
    moved: bool


def seen_piece(code: int, seat: int | None, setup: bool) -> SeenPiece | None:
    """What ``seat`` (None: the referee) sees of the piece with ``code``: None for an empty
    square, a lake, or an enemy piece during the setup phase."""
    if code == EMPTY or code == LAKE:
        return None
    owner = SILVER if code & OWNER_BIT else 0
    hidden = seat is not None and owner != seat
    if hidden and setup:
        return None  # neither player sees the other's setup
    public = bool(code & PUBLIC_BIT)
    rank = "?" if hidden and not public else RANK_NAMES[code & RANK_BITS]
    return SeenPiece(owner, rank, public, bool(code & MOVED_BIT))


@dataclass(frozen=True)
class BoardView:
    """What the picture shows, seen by one side (or the referee), as data: the pieces by
    square name, each side's last move, the last strike, the pieces removed by strikes and
    the lines beside the board."""

    title: str
    viewer: str
    bottom: int
    """The seat whose home rows are at the bottom."""
    pieces: dict[str, SeenPiece]
    last_moves: list[tuple[str, str] | None]
    """Per seat, its last move's from and to squares (None before its first, and while the
    setup phase lasts)."""
    last_strike: str | None
    """The square of the last strike."""
    removed: list[str]
    """Per seat, its pieces removed by strikes (``"9 S 2×2"``, ``"-"``)."""
    panel: list[str]
    lakes: list[str] = field(default_factory=lambda: [SQUARE_NAMES[s] for s in LAKE_SQUARES])


def board_view(state: State, seat: int | None) -> BoardView:
    """The board as ``seat`` (None: the referee) sees it; the picture draws the same."""
    setup = state.phase == Phase.SETUP
    pieces = {}
    for square, code in enumerate(state.board.tolist()):
        piece = seen_piece(code, seat, setup)
        if piece is not None:
            pieces[SQUARE_NAMES[square]] = piece
    last_moves: list[tuple[str, str] | None] = [None, None]
    if not setup:
        for who in (0, 1):
            origin, target = int(state.last_from[who]), int(state.last_to[who])
            if origin >= 0:
                last_moves[who] = (SQUARE_NAMES[origin], SQUARE_NAMES[target])
    strike = int(state.last_strike[0])
    return BoardView(
        title=_title(state),
        viewer="referee" if seat is None else AGENTS[seat],
        bottom=SILVER if seat == SILVER else 0,
        pieces=pieces,
        last_moves=last_moves,
        last_strike=SQUARE_NAMES[strike] if strike >= 0 and not setup else None,
        removed=[_removed(state, who) for who in (0, 1)],
        panel=[text for text, _, _ in _panel(state, seat) if text and not text.startswith(LEGEND)],
    )


def _title(state: State) -> str:
    setup = state.phase == Phase.SETUP
    return (
        f"Hidden Ranks ({state.config.mode}) · {'setup' if setup else 'play'} · "
        f"move {state.moves}/{state.config.max_moves}"
    )


def _draw_piece(canvas: Canvas, x: int, y: int, code: int, seat: int | None, setup: bool) -> None:
    piece = seen_piece(code, seat, setup)
    if piece is None:
        return
    owner = piece.owner
    canvas.box(x + 4, y + 4, SQUARE - 8, SQUARE - 8, PIECE[owner], EDGE[owner], 2)
    canvas.text(x + SQUARE // 2, y + SQUARE // 2 - 8, piece.rank, drawing.INK, 2, "center")
    if piece.public:
        canvas.text(x + SQUARE - 8, y + 7, "*", drawing.RED, 1, "right")
    if piece.moved:
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
    canvas.text(10, 8, _title(state), drawing.INK, 2)
    canvas.text(10, 32, f"view: {view}", drawing.GREY, 2)
    for square, code in enumerate(state.board.tolist()):
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
