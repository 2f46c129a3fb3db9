"""A player's entry read as an action, with the reason when it is not legal: what the
terminal app and the web app both say to a human.

The env's own message (``TableEnv.string_to_action``) names the legal actions; this adds why
the entry is refused where the rules give a reason a player may not see at once: a card that
does not follow suit, a card not in the hand, a setup square outside the home rows or already
taken.
"""

from __future__ import annotations

from typing import Any


def read_action(raw: Any, entry: str) -> int:
    """The legal action that ``entry`` names for the agent to act on ``raw`` (a
    :class:`~feral_envs.table_env.TableEnv`); ``ValueError`` saying why not and listing the
    legal actions otherwise. Names are case-insensitive, spacing is ignored."""
    entry = " ".join(str(entry).split())
    try:
        return raw.string_to_action(entry)
    except ValueError:
        why = why_not_legal(raw, entry)
        if why is None:
            raise
    legal = ", ".join(raw.legal_action_names())
    raise ValueError(f"{entry!r} is not legal now for {raw.agent_selection}: {why}; legal: {legal}")


def why_not_legal(raw: Any, entry: str) -> str | None:
    """Why the rules refuse ``entry`` now, when the game can say more than "not legal"."""
    game = raw.core.name
    if game == "hidden_ranks":
        return _hidden_ranks_reason(raw.game.view, entry)
    if game in ("lost_heir", "lost_ranks"):
        return _card_reason(game, raw.game.view, entry, raw.legal_action_names())
    return None


def _hidden_ranks_reason(state: Any, entry: str) -> str | None:
    from feral_envs.hidden_ranks.rules import (
        AGENTS,
        EMPTY,
        HOME_ROWS,
        N_HOME,
        SQUARE_OF_NAME,
        Phase,
        ego_square,
    )

    square = SQUARE_OF_NAME.get(entry.lower())
    if state.phase != Phase.SETUP or square is None:
        return None
    seat = state.to_move
    rows = HOME_ROWS[seat]
    if ego_square(seat, square) >= N_HOME:
        return f"{entry} is outside {AGENTS[seat]}'s home rows ({rows[0]} to {rows[-1]})"
    if state.board[square] != EMPTY:
        return f"{entry} already holds one of your pieces"
    return None


def _card_reason(game: str, state: Any, entry: str, legal: list[str]) -> str | None:
    if game == "lost_heir":
        from feral_envs.lost_heir.encoding import CITY_NAMES as SUIT_NAMES
        from feral_envs.lost_heir.encoding import DECK
        from feral_envs.lost_heir.rules import Phase

        led, in_trick = state.led_city, state.trick_len
    else:
        from feral_envs.lost_ranks.rules import DECK, SUIT_NAMES, Phase

        led, in_trick = state.led_suit, state.n_in_trick
    try:
        card = DECK.card(entry)
    except ValueError:
        return None
    seat = state.to_act
    if game == "lost_ranks" and state.phase == Phase.PASS:
        from feral_envs.lost_ranks.rules import TO_ENEMY, TO_PARTNER

        if state.pass_record[seat, [TO_PARTNER, TO_ENEMY], card].any():
            return f"you have already chosen {DECK.names[card]} to pass"
    elif state.phase != Phase.PLAY:
        return None
    if not state.hands[seat, card]:
        return f"{DECK.names[card]} is not in your hand"
    legal_cards = [DECK.names.index(name) for name in legal if name in DECK.names]
    if (
        in_trick
        and 0 <= led < len(SUIT_NAMES)
        and DECK.suit_of[card] != led
        and legal_cards
        and all(DECK.suit_of[c] == led for c in legal_cards)
    ):
        held = " ".join(DECK.names[c] for c in legal_cards)
        return f"you must follow suit: {SUIT_NAMES[led]} was led and you hold {held}"
    return None
