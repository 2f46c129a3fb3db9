"""Lost Heir as a picture (``render_mode="rgb_array"``): the table from one seat or the referee.

A seat's view shows its own hand face up and the others' as backs; the referee sees every
hand. The viewer sits at the bottom (the referee's view puts south there, north on top).
"""

from __future__ import annotations

import numpy as np

from feral_envs import drawing
from feral_envs.cards import NO_SUIT
from feral_envs.drawing import Card, CardTable, TableSeat
from feral_envs.lost_heir.encoding import (
    ACTION_NAMES,
    AGENTS,
    CITIES,
    CITY_NAMES,
    DECK,
    N_SEATS,
    TAKE_A_LEAD,
    TEAMS,
)
from feral_envs.lost_heir.rules import NO_CALL, NOBODY, Phase, State

CITY_COLORS = (drawing.RED, drawing.BLUE, drawing.GREEN, drawing.PURPLE)
"""Colour of each city T M H W."""
TEAM_COLORS = ((150, 60, 30), (60, 60, 160))
SOUTH = 2
_SHORT_TEAM = ("N-S", "E-W")
_PHASE_TEXT = {
    Phase.BID: "bid",
    Phase.DEALER: "the dealer's call",
    Phase.DUEL_BIDDER: "raise or concede (refusal duel)",
    Phase.DUEL_DEALER: "accept or refuse (refusal duel)",
    Phase.PLAY: "play a card",
}


def card_face(card: int) -> Card:
    """The face of card id ``card``: its rank digit over its city letter."""
    name = DECK.names[card]
    return Card(rank=name[1], suit=name[0], color=CITY_COLORS[DECK.suit_of[card]], name=name)


def _hand(state: State, seat: int) -> list[Card]:
    """The hand grouped by city (T M H W), high ranks first, as the text view lists it."""
    return [
        card_face(c)
        for city in range(len(CITIES))
        for c in range(8 * city + 7, 8 * city - 1, -1)
        if state.hands[seat, c]
    ]


def _notes(state: State, seat: int) -> list[str]:
    notes = [TEAMS[seat % 2]]
    marks = []
    if seat == state.dealer:
        marks.append("dealer")
    if seat == state.declarer:
        marks.append(f"declarer ({state.contract})")
    if marks:
        notes.append(", ".join(marks))
    if state.calls[seat] != NO_CALL:
        notes.append(f"call: {ACTION_NAMES[state.calls[seat]]}")
    return notes


def _lines(state: State) -> list[str]:
    scores = (
        f"score {_SHORT_TEAM[0]} {int(state.scores[0])} · {_SHORT_TEAM[1]} {int(state.scores[1])}"
    )
    if state.hands_played:
        scores += f"  (last hand {int(state.last_hand[0]):+d} / {int(state.last_hand[1]):+d})"
    lines = [scores]
    if state.declarer != NOBODY:
        trump = CITY_NAMES[state.trump] if state.trump != NO_SUIT else "named by the first lead"
        lines.append(f"contract {state.contract} by {AGENTS[state.declarer]} · trump {trump}")
        lines.append(
            "this hand: "
            + " · ".join(
                f"{_SHORT_TEAM[t]} {int(state.team_tricks[t])} tricks {int(state.team_points[t])}"
                " pts"
                for t in range(2)
            )
        )
    else:
        high = (
            f"high bid {state.high_bid} by {AGENTS[state.high_bidder]}"
            if state.high_bid
            else "no bid yet"
        )
        duel = f" · duel: {state.duel_refusals} refusals, {state.duel_raises} raises"
        lines.append("bidding: " + high + (duel if state.duel_refusals else ""))
    return lines


def _footer(state: State) -> str:
    if state.phase == Phase.OVER:
        if state.terminated:
            return f"game over: {TEAMS[state.winner]} wins"
        return f"game over: stopped after {state.hands_played} hands (max_hands), no winner"
    extra = " or take a lead" if state.mask[TAKE_A_LEAD] else ""
    return f"{AGENTS[state.to_act]} to act: {_PHASE_TEXT[Phase(state.phase)]}{extra}"


def table_view(state: State, seat: int | None) -> CardTable:
    """What the picture shows, seen by ``seat`` (None: the referee, every hand face up)."""
    in_trick = {
        (state.leader + pos) % N_SEATS: int(state.trick[pos]) for pos in range(state.trick_len)
    }
    seats = []
    for s in range(N_SEATS):
        shown = seat is None or seat == s
        card = in_trick.get(s)
        seats.append(
            TableSeat(
                name=AGENTS[s],
                color=TEAM_COLORS[s % 2],
                hand=_hand(state, s) if shown else int(state.hands[s].sum()),
                notes=_notes(state, s),
                trick_card=None if card is None else card_face(card),
                trick_mark="lead" if card is not None and s == state.leader else "",
                to_act=state.phase != Phase.OVER and s == state.to_act,
            )
        )
    cfg = state.config
    hand_number = state.hands_played + (state.phase != Phase.OVER)
    view = "referee" if seat is None else AGENTS[seat]
    center = []
    if state.phase == Phase.PLAY:
        center.append(f"trick {min(state.tricks_done + 1, 8)}/8")
    if state.trump != NO_SUIT:
        center.append(CITY_NAMES[state.trump])
    return CardTable(
        title=f"Lost Heir · hand {hand_number} · target {cfg.target_score} · view: {view}",
        lines=_lines(state),
        seats=seats,
        bottom=SOUTH if seat is None else seat,
        footer=_footer(state),
        center_lines=center,
    )


def render_rgb(state: State, seat: int | None) -> np.ndarray:
    """The table as an ``(H, W, 3)`` uint8 picture for ``seat`` (None: the referee)."""
    return drawing.draw_card_table(table_view(state, seat))
