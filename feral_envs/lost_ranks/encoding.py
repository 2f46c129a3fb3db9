"""Lost Ranks encodings: the action ids, the observation vector, and the docs tables.

One ``Discrete(53)`` action space: action ``a`` is card ``a`` (``rules.DECK``). In the pass
phase it chooses that card to pass (the observation's ``pass_step`` says which of the three
choices is being made); in play it plays that card.

The observation is ego-centric: seats appear as me, left (next clockwise), partner, right;
armies as mine, theirs. It holds what the observing seat knows by the rules: its own hand
and pass, every card played and by whom, the trick, the capture and void piles, the scores;
never another player's hand or pass choices. The compiled engine writes it from its state row
(:func:`feral_envs.lost_ranks.engine.observe`); a test rebuilds it from the plain fields of
the decoded view and compares.
"""

from __future__ import annotations

from feral_envs.layout import Layout
from feral_envs.lost_ranks import rules
from feral_envs.lost_ranks.rules import (
    DECK,
    N_CARDS,
    TARGET,
    State,
)


def _suit_cards(suit: int) -> str:
    return " ".join(DECK.names[suit * 13 : suit * 13 + 13])


ACTIONS = Layout(
    *((name, 13, f"`{_suit_cards(suit)}`") for suit, name in enumerate(rules.SUIT_NAMES)),
    ("spy", 1, "`SPY`"),
)
"""Action ids: card ids. The same ids index every 53-wide card block of the observation."""

CARDS = "53 cards in action-id order"
OBS = Layout(
    ("hand", N_CARDS, f"my hand ({CARDS}); in the pass, without the cards I have chosen"),
    ("trump_card", N_CARDS, "the Trump Card (one-hot)"),
    ("trump_suit", 4, "trump suit, one-hot S H D C"),
    ("trump_army", 2, "the Trump Card's colour (its Jacks are Active) is: my army's, theirs"),
    ("round", rules.MAX_ROUND, "round number 1..7, one-hot"),
    ("tiebreaker", 1, "1 in the extra round played after a tie"),
    (
        "pass_direction",
        2,
        "this round the enemy card goes to my: left, right (and so comes from the other enemy)",
    ),
    (
        "scores",
        2,
        f"game scores before this round (at game over: final): mine, theirs (points / {TARGET})",
    ),
    ("round_points", 2, f"points scored so far this round: mine, theirs (points / {TARGET})"),
    ("phase", 3, "one-hot: pass, play, game over"),
    (
        "pass_step",
        3,
        "one-hot, while I choose: my 1st, 2nd (to partner), 3rd (to enemy) choice; zeros otherwise",
    ),
    ("passed_to_partner", N_CARDS, "cards I chose for / passed to my partner"),
    ("passed_to_enemy", N_CARDS, "the card I chose for / passed to the enemy"),
    ("received_from_partner", N_CARDS, "cards my partner passed me (after the exchange)"),
    ("received_from_enemy", N_CARDS, "the card the enemy passed me (after the exchange)"),
    ("played_me", N_CARDS, "cards I have played this round"),
    ("played_left", N_CARDS, "cards my left enemy has played this round"),
    ("played_partner", N_CARDS, "cards my partner has played this round"),
    ("played_right", N_CARDS, "cards my right enemy has played this round"),
    ("trick_0", N_CARDS, "current trick: the card led (one-hot; zeros if not yet played)"),
    ("trick_1", N_CARDS, "current trick: the 2nd card"),
    (
        "trick_2",
        N_CARDS,
        "current trick: the 3rd card (a 4th card ends the trick at once: "
        "it shows in the played, capture and void blocks)",
    ),
    (
        "trick_leader",
        4,
        "who leads the current trick: me, left, partner, right (one-hot; zeros in the pass)",
    ),
    (
        "led_suit",
        4,
        "led suit of the current trick, one-hot S H D C (zeros: no card yet, or the Spy led)",
    ),
    ("captured_mine", N_CARDS, "my army's capture pile this round"),
    ("captured_theirs", N_CARDS, "the enemy army's capture pile this round"),
    ("void_pile", N_CARDS, "cards of void tricks this round"),
    (
        "jacks_played",
        16,
        "Jacks played this round: 4 seats (me, left, partner, right) x 4 Jacks (JS JH JD JC)",
    ),
    (
        "voids_shown",
        16,
        "suits a seat has shown it holds none of this round, by playing another card (the Spy "
        "included) to a trick led in that suit: 4 seats (me, left, partner, right) x 4 suits "
        "(S H D C)",
    ),
)
"""The observation vector (float32), index by index."""

OBS_SIZE = OBS.size

CARD_SPANS = tuple(span for span in OBS.spans if span.size == N_CARDS)
"""The observation's blocks indexed by card id: a card's entries of them are its inputs in
the card network (``agents/networks/cards.py``)."""
SUIT_SPANS = (OBS.trump_suit, OBS.led_suit, OBS.voids_shown)
"""The blocks indexed by suit (``voids_shown``: by seat, then suit): a card's suit's entries
of them are its inputs in the card network too (none for the Spy)."""


def action_to_string(state: State, action: int) -> str:
    return DECK.names[action]


def string_to_action(state: State, text: str) -> int | None:
    try:
        return DECK.card(text)
    except ValueError:
        return None


def _action_table() -> str:
    return ACTIONS.markdown("cards") + (
        "\n\nAction `a` is card `a`: in the pass phase it chooses that card to pass, in play"
        " it plays it. Within a suit the ids run `2 3 4 5 6 7 8 9 T J Q K A`; the Jack sits"
        " between the T and the Q but is unranked (it never wins a trick). The same ids index"
        " every 53-wide card block of the observation. Names are case-insensitive (`7s`,"
        " `th`, `spy`)."
    )


DOC_TABLES = {
    "actions": _action_table,
    "observation": lambda: OBS.markdown("field"),
}
