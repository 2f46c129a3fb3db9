"""Pictures as numpy arrays: a canvas, a built-in bitmap font, playing cards and a card table.

The ``rgb_array`` render mode of every game draws with this module: plain numpy, no
imaging library, so ``render_mode="rgb_array"`` needs nothing beyond the env's own
dependencies and gives the same pixels everywhere. Saving pictures as PNG or GIF files is
:mod:`play.recording`'s job (that needs Pillow).

The font is this project's own 5 x 7 design (9 rows with descenders) for printable ASCII,
the middle dot and the four card suits. Text is drawn at an integer ``scale``: a character
is ``6 * scale`` pixels wide (one column of spacing) and a line ``LINE * scale`` high.

:func:`draw_card_table` lays out any four-seat card game from a :class:`CardTable`
description (seats, hands, the trick, header lines), so each card game only says *what* is
on the table (``<game>/picture.py``), never how to draw it.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

Color = tuple[int, int, int]

# Colours shared by the game pictures: few and fixed, so a GIF palette holds them exactly.
WHITE: Color = (255, 255, 255)
BLACK: Color = (20, 20, 20)
INK: Color = (34, 34, 40)
GREY: Color = (120, 120, 128)
LIGHT: Color = (214, 214, 206)
FELT: Color = (32, 96, 60)
FELT_DARK: Color = (24, 72, 45)
CREAM: Color = (250, 246, 232)
RED: Color = (196, 30, 40)
BLUE: Color = (30, 80, 180)
GREEN: Color = (20, 130, 60)
PURPLE: Color = (120, 50, 150)
ORANGE: Color = (224, 120, 20)
YELLOW: Color = (250, 210, 50)
BACK: Color = (60, 70, 150)
BACK_LINE: Color = (120, 130, 210)

# -----------------------------------------------------------------------------------------
# Font: each glyph is rows of 5 columns, "#" ink and "." paper; 7 rows above the baseline
# and up to 2 below it (descenders).

_GLYPHS = {
    " ": ".....",
    "!": "..#.. ..#.. ..#.. ..#.. ..#.. ..... ..#..",
    '"': ".#.#. .#.#. .....",
    "#": ".#.#. .#.#. ##### .#.#. ##### .#.#. .#.#.",
    "$": "..#.. .#### #.#.. .###. ..#.# ####. ..#..",
    "%": "##... ##..# ...#. ..#.. .#... #..## ...##",
    "&": ".##.. #..#. #.#.. .#... #.#.# #..#. .##.#",
    "'": "..#.. ..#.. .....",
    "(": "...#. ..#.. .#... .#... .#... ..#.. ...#.",
    ")": ".#... ..#.. ...#. ...#. ...#. ..#.. .#...",
    "*": "..... ..#.. #.#.# .###. #.#.# ..#.. .....",
    "+": "..... ..#.. ..#.. ##### ..#.. ..#.. .....",
    ",": "..... ..... ..... ..... ..... .##.. ..#.. .#...",
    "-": "..... ..... ..... .###. ..... ..... .....",
    ".": "..... ..... ..... ..... ..... .##.. .##..",
    "/": "..... ....# ...#. ..#.. .#... #.... .....",
    "0": ".###. #...# #..## #.#.# ##..# #...# .###.",
    "1": "..#.. .##.. ..#.. ..#.. ..#.. ..#.. .###.",
    "2": ".###. #...# ....# ...#. ..#.. .#... #####",
    "3": "##### ...#. ..#.. ...#. ....# #...# .###.",
    "4": "...#. ..##. .#.#. #..#. ##### ...#. ...#.",
    "5": "##### #.... ####. ....# ....# #...# .###.",
    "6": "..##. .#... #.... ####. #...# #...# .###.",
    "7": "##### ....# ...#. ..#.. .#... .#... .#...",
    "8": ".###. #...# #...# .###. #...# #...# .###.",
    "9": ".###. #...# #...# .#### ....# ...#. .##..",
    ":": "..... .##.. .##.. ..... .##.. .##.. .....",
    ";": "..... .##.. .##.. ..... .##.. ..#.. .#...",
    "<": "...#. ..#.. .#... #.... .#... ..#.. ...#.",
    "=": "..... ..... ##### ..... ##### ..... .....",
    ">": ".#... ..#.. ...#. ....# ...#. ..#.. .#...",
    "?": ".###. #...# ....# ...#. ..#.. ..... ..#..",
    "@": ".###. #...# #.### #.#.# #.### #.... .###.",
    "A": ".###. #...# #...# ##### #...# #...# #...#",
    "B": "####. #...# #...# ####. #...# #...# ####.",
    "C": ".###. #...# #.... #.... #.... #...# .###.",
    "D": "###.. #..#. #...# #...# #...# #..#. ###..",
    "E": "##### #.... #.... ####. #.... #.... #####",
    "F": "##### #.... #.... ####. #.... #.... #....",
    "G": ".###. #...# #.... #.### #...# #...# .####",
    "H": "#...# #...# #...# ##### #...# #...# #...#",
    "I": ".###. ..#.. ..#.. ..#.. ..#.. ..#.. .###.",
    "J": "..### ...#. ...#. ...#. ...#. #..#. .##..",
    "K": "#...# #..#. #.#.. ##... #.#.. #..#. #...#",
    "L": "#.... #.... #.... #.... #.... #.... #####",
    "M": "#...# ##.## #.#.# #.#.# #...# #...# #...#",
    "N": "#...# #...# ##..# #.#.# #..## #...# #...#",
    "O": ".###. #...# #...# #...# #...# #...# .###.",
    "P": "####. #...# #...# ####. #.... #.... #....",
    "Q": ".###. #...# #...# #...# #.#.# #..#. .##.#",
    "R": "####. #...# #...# ####. #.#.. #..#. #...#",
    "S": ".#### #.... #.... .###. ....# ....# ####.",
    "T": "##### ..#.. ..#.. ..#.. ..#.. ..#.. ..#..",
    "U": "#...# #...# #...# #...# #...# #...# .###.",
    "V": "#...# #...# #...# #...# #...# .#.#. ..#..",
    "W": "#...# #...# #...# #.#.# #.#.# #.#.# .#.#.",
    "X": "#...# #...# .#.#. ..#.. .#.#. #...# #...#",
    "Y": "#...# #...# .#.#. ..#.. ..#.. ..#.. ..#..",
    "Z": "##### ....# ...#. ..#.. .#... #.... #####",
    "[": ".###. .#... .#... .#... .#... .#... .###.",
    "\\": "..... #.... .#... ..#.. ...#. ....# .....",
    "]": ".###. ...#. ...#. ...#. ...#. ...#. .###.",
    "^": "..#.. .#.#. #...# .....",
    "_": "..... ..... ..... ..... ..... ..... #####",
    "`": ".#... ..#.. .....",
    "a": "..... ..... .###. ....# .#### #...# .####",
    "b": "#.... #.... #.##. ##..# #...# #...# ####.",
    "c": "..... ..... .###. #.... #.... #...# .###.",
    "d": "....# ....# .##.# #..## #...# #...# .####",
    "e": "..... ..... .###. #...# ##### #.... .###.",
    "f": "..##. .#..# .#... ###.. .#... .#... .#...",
    "g": "..... ..... .#### #...# #...# #...# .#### ....# .###.",
    "h": "#.... #.... #.##. ##..# #...# #...# #...#",
    "i": "..#.. ..... .##.. ..#.. ..#.. ..#.. .###.",
    "j": "...#. ..... ..##. ...#. ...#. ...#. ...#. #..#. .##..",
    "k": "#.... #.... #..#. #.#.. ##... #.#.. #..#.",
    "l": ".##.. ..#.. ..#.. ..#.. ..#.. ..#.. .###.",
    "m": "..... ..... ##.#. #.#.# #.#.# #.#.# #.#.#",
    "n": "..... ..... #.##. ##..# #...# #...# #...#",
    "o": "..... ..... .###. #...# #...# #...# .###.",
    "p": "..... ..... ####. #...# #...# #...# ####. #.... #....",
    "q": "..... ..... .#### #...# #...# #...# .#### ....# ....#",
    "r": "..... ..... #.##. ##..# #.... #.... #....",
    "s": "..... ..... .#### #.... .###. ....# ####.",
    "t": ".#... .#... ###.. .#... .#... .#..# ..##.",
    "u": "..... ..... #...# #...# #...# #..## .##.#",
    "v": "..... ..... #...# #...# #...# .#.#. ..#..",
    "w": "..... ..... #...# #...# #.#.# #.#.# .#.#.",
    "x": "..... ..... #...# .#.#. ..#.. .#.#. #...#",
    "y": "..... ..... #...# #...# #...# #...# .#### ....# .###.",
    "z": "..... ..... ##### ...#. ..#.. .#... #####",
    "{": "...#. ..#.. ..#.. .#... ..#.. ..#.. ...#.",
    "|": "..#.. ..#.. ..#.. ..#.. ..#.. ..#.. ..#..",
    "}": ".#... ..#.. ..#.. ...#. ..#.. ..#.. .#...",
    "~": "..... ..... .#... #.#.# ...#. ..... .....",
    "·": "..... ..... ..... ..#.. ..... ..... .....",
    "×": "..... #...# .#.#. ..#.. .#.#. #...# .....",
    "−": "..... ..... ..... .###. ..... ..... .....",
    "♠": "..#.. .###. ##### ##### #.#.# ..#.. .###.",
    "♥": "..... .#.#. ##### ##### .###. ..#.. .....",
    "♦": "..#.. .###. ##### ##### .###. ..#.. .....",
    "♣": ".###. .###. ##.## ##### ##.## ..#.. .###.",
    "★": "..#.. ..#.. ##### .###. .#.#. #...# .....",
}
GLYPH_W, GLYPH_H = 5, 9
ADVANCE = GLYPH_W + 1
"""Pixels from one character to the next at scale 1."""
LINE = GLYPH_H + 2
"""Pixels from one text line to the next at scale 1."""
UNKNOWN_CHAR = "?"


def _glyph(rows: str) -> np.ndarray:
    bitmap = np.zeros((GLYPH_H, GLYPH_W), dtype=bool)
    for r, row in enumerate(rows.split()):
        if len(row) != GLYPH_W:
            raise ValueError(f"glyph row {row!r} is not {GLYPH_W} wide")
        bitmap[r] = [c == "#" for c in row]
    return bitmap


FONT: dict[str, np.ndarray] = {char: _glyph(rows) for char, rows in _GLYPHS.items()}
"""Character -> (9, 5) bool bitmap."""


def text_width(text: str, scale: int = 1) -> int:
    """Width in pixels of ``text`` drawn at ``scale`` (no trailing spacing column)."""
    return max(len(text) * ADVANCE - 1, 0) * scale


@functools.lru_cache(maxsize=4096)
def text_bitmap(text: str, scale: int = 1) -> np.ndarray:
    """``text`` as a bool bitmap of ``(GLYPH_H * scale, text_width(text, scale))`` (cached:
    do not modify it)."""
    if not text:
        return np.zeros((GLYPH_H * scale, 0), dtype=bool)
    columns = []
    gap = np.zeros((GLYPH_H, 1), dtype=bool)
    for i, char in enumerate(text):
        if i:
            columns.append(gap)
        columns.append(FONT.get(char, FONT[UNKNOWN_CHAR]))
    bitmap = np.concatenate(columns, axis=1)
    if scale > 1:
        bitmap = bitmap.repeat(scale, axis=0).repeat(scale, axis=1)
    return bitmap


# -----------------------------------------------------------------------------------------
# Canvas


@functools.lru_cache(maxsize=1024)
def _row(color: Color, width: int) -> np.ndarray:
    row = np.tile(np.array(color, dtype=np.uint8), (width, 1))
    row.flags.writeable = False
    return row


class Canvas:
    """An ``(height, width, 3)`` uint8 picture with clipped drawing operations."""

    def __init__(self, width: int, height: int, background: Color = WHITE) -> None:
        self.width, self.height = width, height
        self.pixels = np.empty((height, width, 3), dtype=np.uint8)
        self.fill(0, 0, width, height, background)

    @classmethod
    def copy_of(cls, pixels: np.ndarray) -> Canvas:
        """A canvas starting as a copy of ``pixels`` (a cached background)."""
        canvas = cls.__new__(cls)
        canvas.height, canvas.width = pixels.shape[:2]
        canvas.pixels = pixels.copy()
        return canvas

    def _clip(self, x: int, y: int, w: int, h: int) -> tuple[int, int, int, int] | None:
        x0, y0 = max(x, 0), max(y, 0)
        x1, y1 = min(x + w, self.width), min(y + h, self.height)
        return (x0, y0, x1, y1) if x0 < x1 and y0 < y1 else None

    def fill(self, x: int, y: int, w: int, h: int, color: Color) -> None:
        """Fill the rectangle with top-left corner ``(x, y)``, ``w`` wide, ``h`` high."""
        box = self._clip(x, y, w, h)
        if box:
            x0, y0, x1, y1 = box
            # a whole row broadcast over the rows: many times faster than a 3-value colour
            self.pixels[y0:y1, x0:x1] = _row(color, x1 - x0)

    def frame(self, x: int, y: int, w: int, h: int, color: Color, thickness: int = 1) -> None:
        """The outline of the rectangle, ``thickness`` pixels inside it."""
        t = min(thickness, w, h)
        self.fill(x, y, w, t, color)
        self.fill(x, y + h - t, w, t, color)
        self.fill(x, y, t, h, color)
        self.fill(x + w - t, y, t, h, color)

    def box(
        self,
        x: int,
        y: int,
        w: int,
        h: int,
        fill: Color,
        outline: Color | None = None,
        thickness: int = 1,
    ) -> None:
        """A filled rectangle with an optional outline and its four corner pixels cut off."""
        corners = [
            (cy, cx)
            for cy in (y, y + h - 1)
            for cx in (x, x + w - 1)
            if 0 <= cx < self.width and 0 <= cy < self.height
        ]
        under = [self.pixels[c].copy() for c in corners]
        self.fill(x, y, w, h, outline or fill)
        if outline:
            self.fill(x + thickness, y + thickness, w - 2 * thickness, h - 2 * thickness, fill)
        for corner, color in zip(corners, under, strict=True):
            self.pixels[corner] = color

    def text(
        self,
        x: int,
        y: int,
        text: str,
        color: Color = INK,
        scale: int = 1,
        align: str = "left",
    ) -> int:
        """Draw ``text`` with its top at ``y``; ``align`` says whether ``x`` is the left end,
        the ``"center"`` or the ``"right"`` end. Returns the text's width in pixels."""
        bitmap = text_bitmap(text, scale)
        h, w = bitmap.shape
        if align == "center":
            x -= w // 2
        elif align == "right":
            x -= w
        box = self._clip(x, y, w, h)
        if box:
            x0, y0, x1, y1 = box
            part = bitmap[y0 - y : y1 - y, x0 - x : x1 - x]
            self.pixels[y0:y1, x0:x1][part] = color
        return w

    def disc(self, cx: int, cy: int, radius: int, color: Color) -> None:
        """A filled circle centred on ``(cx, cy)``."""
        box = self._clip(cx - radius, cy - radius, 2 * radius + 1, 2 * radius + 1)
        if box:
            x0, y0, x1, y1 = box
            yy, xx = np.ogrid[y0:y1, x0:x1]
            inside = (xx - cx) ** 2 + (yy - cy) ** 2 <= radius * radius + radius
            self.pixels[y0:y1, x0:x1][inside] = color


def wrap(text: str, width: int) -> list[str]:
    """``text`` cut into lines of at most ``width`` characters, at spaces where possible."""
    import textwrap

    return textwrap.wrap(text, width, break_on_hyphens=False) or [""]


# -----------------------------------------------------------------------------------------
# Cards

CARD_W, CARD_H = 34, 48
"""Size of a playing card in pixels."""
CARD_STEP = 20
"""Horizontal distance between overlapping cards of a hand (the corner index stays visible)."""


@dataclass(frozen=True)
class Card:
    """A card face: its corner index (``rank`` over ``suit``, both short) in ``color``."""

    rank: str
    suit: str
    color: Color
    name: str = ""
    """The card's name in the game's notation (``"H3"``, ``"7S"``), written on nothing:
    for tests and the caller's bookkeeping."""


def draw_card(canvas: Canvas, x: int, y: int, card: Card, highlight: Color | None = None) -> None:
    """A face-up card at ``(x, y)``: corner index at the top left, the suit large below."""
    canvas.box(x, y, CARD_W, CARD_H, CREAM, highlight or INK, 2 if highlight else 1)
    scale = 2 if len(card.rank) == 1 else 1
    canvas.text(x + 4, y + 4, card.rank, card.color, scale)
    canvas.text(
        x + 4, y + 4 + GLYPH_H * scale, card.suit, card.color, 1 if len(card.suit) > 1 else 2
    )


def draw_card_back(canvas: Canvas, x: int, y: int) -> None:
    """A face-down card at ``(x, y)``."""
    canvas.box(x, y, CARD_W, CARD_H, BACK, INK)
    for k in range(6, CARD_H - 4, 6):
        canvas.fill(x + 4, y + k, CARD_W - 8, 2, BACK_LINE)


def draw_hand(canvas: Canvas, x: int, y: int, cards: Sequence[Card] | int, max_width: int) -> int:
    """A hand left to right from ``(x, y)``, overlapping to fit ``max_width``: the cards, or
    as many backs as the ``int`` says. Returns the width drawn."""
    n = cards if isinstance(cards, int) else len(cards)
    if n == 0:
        return 0
    step = CARD_STEP if n == 1 else min(CARD_STEP, (max_width - CARD_W) // (n - 1))
    for i in range(n):
        if isinstance(cards, int):
            draw_card_back(canvas, x + i * step, y)
        else:
            draw_card(canvas, x + i * step, y, cards[i])
    return (n - 1) * step + CARD_W


# -----------------------------------------------------------------------------------------
# A four-seat card table


@dataclass
class TableSeat:
    """What the picture shows about one seat."""

    name: str
    """Agent name, written above the hand."""
    color: Color
    """Colour of the name (the team's)."""
    hand: Sequence[Card] | int
    """The cards in view, or the number of face-down cards."""
    notes: list[str] = field(default_factory=list)
    """Short lines under the name: team, dealer, calls, tricks taken."""
    trick_card: Card | None = None
    """This seat's card in the current trick."""
    to_act: bool = False
    """Framed in yellow: the seat to act."""
    trick_mark: str = ""
    """A short label next to the trick card (``"1st"`` for the lead)."""


@dataclass
class CardTable:
    """A four-seat card table: header lines, the seats in seat order, the trick, a footer."""

    title: str
    lines: list[str]
    """Header lines under the title (scores, contract, trump, bidding)."""
    seats: list[TableSeat]
    bottom: int
    """The seat drawn at the bottom; the others follow clockwise (left, top, right)."""
    footer: str
    """The bottom line: who acts, or how the game ended."""
    corner_card: Card | None = None
    """A card shown face up in the header's right corner (Lost Ranks' Trump Card)."""
    corner_label: str = ""
    center_lines: list[str] = field(default_factory=list)
    """Short lines in the middle of the table (the trump city)."""


TABLE_W, TABLE_H = 840, 620
_HEADER_H = 96
_PANEL_W, _PANEL_H = 300, 120
_SCALE = 2


def draw_card_table(table: CardTable) -> np.ndarray:
    """The table as an ``(TABLE_H, TABLE_W, 3)`` uint8 picture."""
    canvas = Canvas(TABLE_W, TABLE_H, FELT)
    canvas.fill(0, 0, TABLE_W, _HEADER_H, CREAM)
    canvas.fill(0, _HEADER_H - 2, TABLE_W, 2, INK)
    canvas.text(10, 8, table.title, INK, _SCALE)
    for i, line in enumerate(table.lines[:3]):
        canvas.text(10, 8 + (i + 1) * 21, line, INK, _SCALE)
    if table.corner_card is not None:
        x = TABLE_W - CARD_W - 12
        draw_card(canvas, x, 24, table.corner_card)
        canvas.text(TABLE_W - 8, 8, table.corner_label, INK, 1, "right")
    footer_y = TABLE_H - 26
    canvas.fill(0, footer_y - 4, TABLE_W, 30, FELT_DARK)
    canvas.text(10, footer_y + 2, table.footer, WHITE, _SCALE)
    n = len(table.seats)
    top_y, bottom_y = _HEADER_H + 10, footer_y - _PANEL_H - 10
    middle_y = (top_y + bottom_y) // 2
    places = {
        0: ((TABLE_W - _PANEL_W) // 2, bottom_y),  # bottom
        1: (10, middle_y),  # left
        2: ((TABLE_W - _PANEL_W) // 2, top_y),  # top
        3: (TABLE_W - _PANEL_W - 10, middle_y),  # right
    }
    cx, cy = TABLE_W // 2, (top_y + _PANEL_H + bottom_y) // 2
    trick_at = {
        0: (cx - CARD_W // 2, cy + 14),
        1: (cx - CARD_W - 44, cy - CARD_H // 2),
        2: (cx - CARD_W // 2, cy - CARD_H - 14),
        3: (cx + 44, cy - CARD_H // 2),
    }
    first = cy - (LINE * len(table.center_lines)) // 2 + 1
    for i, line in enumerate(table.center_lines):
        canvas.text(cx, first + LINE * i, line, WHITE, 1, "center")
    for offset in range(n):
        seat = (table.bottom + offset) % n
        info = table.seats[seat]
        x, y = places[offset]
        _draw_seat(canvas, x, y, info)
        if info.trick_card is not None:
            tx, ty = trick_at[offset]
            draw_card(canvas, tx, ty, info.trick_card, YELLOW if info.trick_mark else None)
    return canvas.pixels


def _draw_seat(canvas: Canvas, x: int, y: int, seat: TableSeat) -> None:
    """A seat's panel: name tag (and "to act"), up to three note lines, then the hand."""
    canvas.box(x, y, _PANEL_W, _PANEL_H, FELT_DARK, YELLOW if seat.to_act else FELT_DARK, 3)
    canvas.box(x + 8, y + 6, text_width(seat.name, _SCALE) + 8, 22, seat.color)
    canvas.text(x + 12, y + 10, seat.name, WHITE, _SCALE)
    if seat.to_act:
        canvas.text(x + _PANEL_W - 10, y + 10, "to act", YELLOW, _SCALE, "right")
    for i, note in enumerate(seat.notes[:3]):
        canvas.text(x + 10, y + 32 + LINE * i, note, WHITE, 1)
    draw_hand(canvas, x + 8, y + _PANEL_H - CARD_H - 6, seat.hand, _PANEL_W - 16)
