"""Lost Ranks as text: the table seen by one seat (or by the referee, everything shown)."""

from __future__ import annotations

import numpy as np

from feral_envs.cards import NO_SUIT, count
from feral_envs.lost_ranks.rules import (
    AGENTS,
    ARMY_NAMES,
    DECK,
    N_SEATS,
    SPY,
    SUIT_NAMES,
    TEAM_OF_SEAT,
    Phase,
    State,
    pass_enemy,
)


def _cards(mask: np.ndarray) -> str:
    names = DECK.hand_names(mask)
    return " ".join(names) if names else "-"


def _hand_by_suit(mask: np.ndarray) -> str:
    groups = []
    for suit in range(4):
        cards = [DECK.names[c] for c in range(suit * 13, suit * 13 + 13) if mask[c]]
        if cards:
            groups.append(" ".join(cards))
    if mask[SPY]:
        groups.append("SPY")
    return " | ".join(groups) if groups else "-"


def render_ansi(state: State, seat: int | None) -> str:
    """The table as text; ``seat`` sees only its own hand and pass (None: the referee)."""
    red, black = (int(s) for s in state.scores)
    direction = "left" if state.pass_left else "right"
    title = f"Lost Ranks, round {state.round}" + (" (tiebreaker)" if state.tiebreaker else "")
    jacks = " ".join(DECK.names[j] for j in state.active_jacks)
    lines = [
        f"{title} · variant {state.config.variant} · enemy card passes {direction}",
        f"Trump Card {DECK.names[state.trump_card]}: trump {SUIT_NAMES[state.trump_suit]}, "
        f"Active Jacks {jacks}",
        f"Scores: red {red}, black {black} · this round: red {state.round_points[0]}, "
        f"black {state.round_points[1]}",
    ]
    if state.phase == Phase.GAME_OVER:
        result = "draw" if state.winner < 0 else f"the {ARMY_NAMES[state.winner]} army wins"
        lines.append(f"Game over: {result}")
    elif state.phase == Phase.PASS:
        lines.append(
            f"Pass: {AGENTS[state.to_act]} chooses card {state.pass_step + 1} of 3 "
            f"({'to partner' if state.pass_step < 2 else 'to enemy'})"
        )
    else:
        lines.append(f"Trick {state.tricks_done + 1} of 13 · {AGENTS[state.to_act]} to act")
    for s in range(N_SEATS):
        shown = seat is None or seat == s
        held = int(state.hands[s].sum())
        hand = _hand_by_suit(state.hands[s]) if shown else count(held, "card")
        marker = ">" if state.phase != Phase.GAME_OVER and state.to_act == s else " "
        army = ARMY_NAMES[TEAM_OF_SEAT[s]]
        lines.append(f"{marker} {AGENTS[s]:<8} ({army:<5}) {hand}")
        if shown and state.pass_record[s].any():
            rec = state.pass_record[s]
            lines.append(
                f"    passed: {_cards(rec[0])} to partner, {_cards(rec[1])} to "
                f"{AGENTS[pass_enemy(s, state.round)]}; received: {_cards(rec[2])} "
                f"from partner, {_cards(rec[3])} from enemy"
            )
    if state.phase == Phase.PLAY:
        played = [
            f"{AGENTS[(state.leader + i) % N_SEATS]} {DECK.names[state.trick[i]]}"
            for i in range(state.n_in_trick)
        ]
        led = SUIT_NAMES[state.led_suit] if state.led_suit != NO_SUIT else "none"
        if state.n_in_trick:
            lines.append(f"Trick: {', '.join(played)} (led suit: {led})")
        else:
            lines.append(f"Trick: {AGENTS[state.leader]} to lead")
    lines.append(f"Red captures:   {_cards(state.captured[0])}")
    lines.append(f"Black captures: {_cards(state.captured[1])}")
    lines.append(f"Void pile:      {_cards(state.void_pile)}")
    return "\n".join(lines)
