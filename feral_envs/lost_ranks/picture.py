"""Lost Ranks as a picture (``render_mode="rgb_array"``): the table from one seat or the referee.

A seat's view shows its own hand and its own pass face up, the others' hands as backs; the
referee sees every hand and every pass. The viewer sits at the bottom (the referee's view
puts ``red_0`` there). The Trump Card lies face up in the top right corner.
"""

from __future__ import annotations

import numpy as np

from feral_envs import drawing
from feral_envs.cards import NO_SUIT, NO_WINNER, count
from feral_envs.drawing import Card, CardTable, TableSeat
from feral_envs.lost_ranks.rules import (
    AGENTS,
    ARMY_NAMES,
    DECK,
    FROM_ENEMY,
    FROM_PARTNER,
    N_SEATS,
    SPY,
    SUIT_COLOUR,
    SUIT_NAMES,
    TEAM_OF_SEAT,
    TO_ENEMY,
    TO_PARTNER,
    Phase,
    State,
    pass_enemy,
)

SUIT_SYMBOLS = "♠♥♦♣"
"""Symbol of each suit S H D C."""
ARMY_COLORS = (drawing.RED, drawing.BLACK)
TEAM_TAGS = ((170, 30, 40), (40, 40, 48))
"""Name-tag colour of the Red and the Black Army."""


def card_face(card: int) -> Card:
    """The face of card id ``card``: its rank letter over its suit symbol; the Spy a star."""
    name = DECK.names[card]
    if card == SPY:
        return Card(rank="SPY", suit="★", color=drawing.PURPLE, name=name)
    suit = DECK.suit_of[card]
    return Card(
        rank=name[0], suit=SUIT_SYMBOLS[suit], color=ARMY_COLORS[SUIT_COLOUR[suit]], name=name
    )


def _hand(state: State, seat: int) -> list[Card]:
    """The hand by suit (S H D C), low to high as the text view lists it, the Spy last."""
    return [card_face(int(c)) for c in np.flatnonzero(state.hands[seat])]


def _names(mask: np.ndarray) -> str:
    return " ".join(DECK.hand_names(mask)) or "-"


def _notes(state: State, seat: int, shown: bool) -> list[str]:
    won = sum(1 for w in state.trick_results[: state.tricks_done] if w == seat)
    notes = [f"{ARMY_NAMES[TEAM_OF_SEAT[seat]]} army · {count(won, 'trick')} won"]
    record = state.pass_record[seat]
    if shown and record.any():
        notes.append(
            f"passed {_names(record[TO_PARTNER])} > partner, "
            f"{_names(record[TO_ENEMY])} > {AGENTS[pass_enemy(seat, state.round)]}"
        )
        if record[FROM_PARTNER].any() or record[FROM_ENEMY].any():
            notes.append(
                f"got {_names(record[FROM_PARTNER])} (partner), {_names(record[FROM_ENEMY])}"
            )
    return notes


def _lines(state: State) -> list[str]:
    red, black = (int(s) for s in state.scores)
    lines = [
        f"score red {red} · black {black} · this round red {state.round_points[0]} · "
        f"black {state.round_points[1]}",
        f"trump {SUIT_NAMES[state.trump_suit]} · Active Jacks "
        + " ".join(DECK.names[j] for j in state.active_jacks),
    ]
    direction = "left" if state.pass_left else "right"
    if state.phase == Phase.PASS:
        lines.append(f"the pass: 2 cards to the partner, 1 to the enemy on the {direction}")
    else:
        void = int(state.void_pile.sum())
        lines.append(
            f"captured: red {int(state.captured[0].sum())} cards · black "
            f"{int(state.captured[1].sum())} cards · void pile {void}"
        )
    return lines


def _footer(state: State) -> str:
    if state.phase == Phase.GAME_OVER:
        result = "a draw" if state.winner < 0 else f"the {ARMY_NAMES[state.winner]} army wins"
        return f"game over: {result}"
    seat = AGENTS[state.to_act]
    if state.phase == Phase.PASS:
        target = "its partner" if state.pass_step < 2 else "an enemy"
        return f"{seat} to act: pass card {state.pass_step + 1} of 3 to {target}"
    return f"{seat} to act: {'lead' if state.n_in_trick == 0 else 'play'} a card"


def table_view(state: State, seat: int | None) -> CardTable:
    """What the picture shows, seen by ``seat`` (None: the referee, every hand face up)."""
    in_trick = {(state.leader + i) % N_SEATS: state.trick[i] for i in range(state.n_in_trick)}
    seats = []
    for s in range(N_SEATS):
        shown = seat is None or seat == s
        card = in_trick.get(s)
        seats.append(
            TableSeat(
                name=AGENTS[s],
                color=TEAM_TAGS[TEAM_OF_SEAT[s]],
                hand=_hand(state, s) if shown else int(state.hands[s].sum()),
                notes=_notes(state, s, shown),
                trick_card=None if card is None else card_face(card),
                trick_mark="lead" if card is not None and s == state.leader else "",
                to_act=state.phase != Phase.GAME_OVER and s == state.to_act,
            )
        )
    center = []
    if state.phase == Phase.PLAY:
        center.append(f"trick {state.tricks_done + 1}/13")
        if state.n_in_trick:
            led = SUIT_NAMES[state.led_suit] if state.led_suit != NO_SUIT else "no suit"
            center.append(f"led: {led}")
    elif state.phase == Phase.GAME_OVER and state.tricks_done:
        last = state.trick_results[state.tricks_done - 1]
        center.append("last trick: void" if last == NO_WINNER else f"last trick: {AGENTS[last]}")
    title = f"Lost Ranks · round {state.round}" + (" (tiebreaker)" if state.tiebreaker else "")
    view = "referee" if seat is None else AGENTS[seat]
    return CardTable(
        title=f"{title} · {state.config.variant} · view: {view}",
        lines=_lines(state),
        seats=seats,
        bottom=0 if seat is None else seat,
        footer=_footer(state),
        corner_card=card_face(state.trump_card),
        corner_label="Trump Card",
        center_lines=center,
    )


def render_rgb(state: State, seat: int | None) -> np.ndarray:
    """The table as an ``(H, W, 3)`` uint8 picture for ``seat`` (None: the referee)."""
    return drawing.draw_card_table(table_view(state, seat))
