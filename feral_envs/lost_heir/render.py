"""Lost Heir as text: the table as one seat sees it, or as the referee sees it."""

from __future__ import annotations

from feral_envs.cards import NO_SUIT, count
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

_PHASE_TEXT = {
    Phase.BID: "bidding",
    Phase.DEALER: "the dealer's call",
    Phase.DUEL_BIDDER: "refusal duel: the high bidder raises or concedes",
    Phase.DUEL_DEALER: "refusal duel: the dealer accepts or refuses",
    Phase.PLAY: "play",
    Phase.OVER: "game over",
}


def _cards(state: State, seat: int) -> str:
    """A hand grouped by city, high ranks first: ``T7 T3 · M5 · W0``."""
    groups = []
    for city in range(len(CITIES)):
        ranks = [c for c in range(8 * city + 7, 8 * city - 1, -1) if state.hands[seat, c]]
        if ranks:
            groups.append(" ".join(DECK.names[c] for c in ranks))
    return " · ".join(groups) or "-"


def _bidding(state: State) -> str:
    calls = []
    for i in range(1, N_SEATS + 1):
        seat = (state.dealer + i) % N_SEATS
        if state.calls[seat] != NO_CALL:
            calls.append(f"{AGENTS[seat]} {ACTION_NAMES[state.calls[seat]]}")
    text = ", ".join(calls) or "no calls yet"
    if state.duel_refusals:
        text += f"; duel: {state.duel_refusals} refusal(s), {state.duel_raises} raise(s)"
        if state.declarer == state.dealer:
            text += f", {AGENTS[state.high_bidder]} conceded"
        elif state.declarer != NOBODY:
            text += f", {AGENTS[state.dealer]} accepted"
    if state.high_bid:
        text += f"; high bid {state.high_bid} by {AGENTS[state.high_bidder]}"
    return text


def render_ansi(state: State, seat: int | None) -> str:
    """The table as text for ``seat`` (its own hand shown) or, with None, for the referee."""
    cfg = state.config
    lines = [
        f"Lost Heir · hand {state.hands_played + (state.phase != Phase.OVER)} "
        f"(max {cfg.max_hands}) · target {cfg.target_score} · "
        f"take a lead {cfg.take_a_lead.replace('_', ' ')}",
        "scores: "
        + "   ".join(f"{TEAMS[t]} {int(state.scores[t])}" for t in range(2))
        + (
            f"   (last hand {int(state.last_hand[0]):+d} / {int(state.last_hand[1]):+d})"
            if state.hands_played
            else ""
        ),
        f"dealer: {AGENTS[state.dealer]}   bidding: {_bidding(state)}",
    ]
    if state.declarer != NOBODY:
        trump = CITY_NAMES[state.trump] if state.trump != NO_SUIT else "not named yet"
        lines.append(
            f"contract: {state.contract} by {AGENTS[state.declarer]} "
            f"({TEAMS[state.declarer % 2]})   trump: {trump}"
        )
        lines.append(
            f"this hand: trick {min(state.tricks_done + 1, 8)} of 8 · "
            + "   ".join(
                f"{TEAMS[t]} {int(state.team_tricks[t])} tricks, {int(state.team_points[t])} pts"
                for t in range(2)
            )
        )
    width = max(len(a) for a in AGENTS)
    lines.append("")
    lines.append(f"{'seat':<{width}}  {'team':<11}  {'trick':<5}  hand")
    in_trick = {}
    for pos in range(state.trick_len):
        in_trick[(state.leader + pos) % N_SEATS] = DECK.names[state.trick[pos]]
    for s in range(N_SEATS):
        marks = ""
        if s == state.dealer:
            marks += " (dealer)"
        if s == state.leader and state.phase == Phase.PLAY:
            marks += " (leads)"
        if s == state.to_act and state.phase != Phase.OVER:
            marks += "  <- to act"
        shown = seat is None or seat == s
        hand = _cards(state, s) if shown else count(int(state.hands[s].sum()), "card")
        lines.append(
            f"{AGENTS[s]:<{width}}  {TEAMS[s % 2]:<11}  {in_trick.get(s, ''):<5}  {hand}{marks}"
        )
    lines.append("")
    if state.phase == Phase.OVER:
        if state.terminated:
            lines.append(f"game over: {TEAMS[state.winner]} wins")
        else:
            lines.append(f"game over: truncated after {state.hands_played} hands, no winner")
    else:
        extra = " (may take a lead)" if state.mask[TAKE_A_LEAD] else ""
        lines.append(f"{AGENTS[state.to_act]} to act: {_PHASE_TEXT[Phase(state.phase)]}{extra}")
    return "\n".join(lines)
