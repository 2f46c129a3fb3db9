"""Hidden Ranks as text: the board from one player's side, or the referee's (everything)."""

from __future__ import annotations

from .rules import (
    AGENTS,
    COLUMNS,
    EMPTY,
    END_NAMES,
    LAKE,
    MOVED_BIT,
    OWNER_BIT,
    PUBLIC_BIT,
    RANK_BITS,
    RANK_NAMES,
    SILVER,
    SQUARE_NAMES,
    STRIKE_RESULT_NAMES,
    Phase,
    State,
)

LEGEND = (
    "g/s: gold/silver piece; ?: rank unknown to you; *: rank known to both; +: has moved; ~~: lake"
)


def _token(code: int, seat: int | None, in_setup: bool) -> str:
    if code == EMPTY:
        return "."
    if code == LAKE:
        return "~~"
    owner = SILVER if code & OWNER_BIT else 0
    hidden = seat is not None and owner != seat
    if hidden and in_setup:
        return "."  # neither player sees the other's setup
    rank = "?" if hidden and not code & PUBLIC_BIT else RANK_NAMES[code & RANK_BITS]
    marks = ("*" if code & PUBLIC_BIT else "") + ("+" if code & MOVED_BIT else "")
    return "gs"[owner] + rank + marks


def render_ansi(state: State, seat: int | None) -> str:
    """The board as ``seat`` sees it (its home rows at the bottom); None: the referee's view."""
    in_setup = state.phase == Phase.SETUP
    view = "referee" if seat is None else AGENTS[seat]
    if state.terminated:
        result = "draw" if state.winner < 0 else f"{AGENTS[state.winner]} wins"
        head = f"game over: {result} ({END_NAMES[state.end]})"
    else:
        head = f"{AGENTS[state.to_move]} to {'place' if in_setup else 'move'}"
    lines = [
        f"Hidden Ranks ({state.config.mode}) · {'setup' if in_setup else 'play'} · "
        f"move {state.moves}/{state.config.max_moves} · {head} · seen by {view}"
    ]
    flip = seat == SILVER
    rows = range(10) if flip else range(9, -1, -1)
    cols = range(9, -1, -1) if flip else range(10)
    lines.append("    " + "".join(f"{COLUMNS[c]:<6}" for c in cols).rstrip())
    for r in rows:
        cells = "".join(f"{_token(int(state.board[10 * r + c]), seat, in_setup):<6}" for c in cols)
        lines.append(f"{r + 1:>2}  {cells.rstrip()}")
    for who in (0, 1):
        removed = " ".join(
            f"{RANK_NAMES[rank + 1]}x{n}" for rank, n in enumerate(state.removed[who]) if n
        )
        lines.append(f"removed {AGENTS[who]}: {removed or '-'}")
    square, striker, striker_rank, defender_rank, result = (int(x) for x in state.last_strike)
    if square >= 0:
        lines.append(
            f"last strike: {AGENTS[striker]} {RANK_NAMES[striker_rank]} struck "
            f"{AGENTS[1 - striker]} {RANK_NAMES[defender_rank]} on {SQUARE_NAMES[square]}: "
            f"{STRIKE_RESULT_NAMES[result]}"
        )
    lines.append(LEGEND)
    return "\n".join(lines)
