"""Lost Heir encodings: the deck, the action space, the observation, names <-> ids.

Everything here is declared once and the docs' tables (``docs/lost_heir.md``) are generated
from it (``python -m feral_envs.docgen``):

* ``DECK``: card id ``8 * city + rank``; cities ``T M H W`` (Toronto, Montreal, Halifax,
  Winnipeg), ranks ``0 .. 7`` (7 the Mayor, high). ``T0`` is card 0, ``W7`` card 31.
* ``ACTIONS``: one ``Discrete(47)`` space for every decision: calls, the refusal duel,
  ``take a lead`` and the 32 cards.
* ``OBS``: the observation of one seat, ego-centric. Each field is declared with how it
  relates to the seats (:class:`EgoField`): the same for every observer (``plain``), the
  observer's own block (``own``), one block per seat in the order me, left, partner, right
  (``seat``), or one block per team in the order my team, their team (``team``).

The compiled engine writes the observation field by field from these declarations
(:func:`feral_envs.lost_heir.engine.observe`); a test rebuilds every observation from the
plain fields of the decoded view and compares, step by step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from feral_envs.cards import Deck
from feral_envs.layout import Layout

if TYPE_CHECKING:
    from feral_envs.lost_heir.rules import State

N_SEATS = 4
AGENTS = ("north", "east", "south", "west")
TEAMS = ("north_south", "east_west")
CITIES = "TMHW"
CITY_NAMES = ("Toronto", "Montreal", "Halifax", "Winnipeg")
RANK_NAMES = (
    "special",
    "Policeman",
    "Sergeant",
    "Captain",
    "Detective",
    "Commissioner",
    "Chief",
    "Mayor",
)
N_RANKS = 8
N_TRICKS = 8
MIN_BID, MAX_BID = 4, 12
N_BIDS = MAX_BID - MIN_BID + 1  # 9 bids: 4 .. 12
MAX_REFUSALS = MAX_BID - MIN_BID + 1  # refusals of 4, 5, ..., 12: at most 9
MAX_RAISES = MAX_BID - MIN_BID  # raises 4->5, ..., 11->12: at most 8

DECK = Deck.build(
    names=[f"{city}{rank}" for city in CITIES for rank in range(N_RANKS)],
    suits=[c for c in range(len(CITIES)) for _ in range(N_RANKS)],
    powers=[rank for _ in CITIES for rank in range(N_RANKS)],
    suit_names=CITY_NAMES,
)
HEIR = DECK.card("W0")  # the Lost Heir: +5 to the team that takes it
BOY = DECK.card("T0")  # the Wrong Boy: -3 to the team that takes it

# --------------------------------------------------------------------------------------
# Actions

ACTIONS = Layout(
    ("pass", 1, "`pass`: a bidder's pass, or the dealer's when nobody has bid (throw-in)"),
    ("bid", N_BIDS, "`bid 4` … `bid 12`: index = 1 + (value − 4)"),
    ("accept", 1, "`accept`: the dealer lets the high bidder have the contract"),
    ("refuse", 1, "`refuse`: the dealer refuses the high bid (the refusal duel)"),
    ("raise", 1, "`raise`: the refused high bidder raises by exactly 1"),
    ("concede", 1, "`concede`: the refused high bidder gives the dealer the contract"),
    ("take_a_lead", 1, "`take a lead`: the trick winner hands the next lead to its partner"),
    ("card", DECK.n, "play a card (`T0` … `W7`): index = 15 + card id (card table below)"),
)
PASS = getattr(ACTIONS, "pass").start  # `pass` and `raise` are Python keywords
BID = ACTIONS.bid.start  # bid v is BID + v - MIN_BID
ACCEPT = ACTIONS.accept.start
REFUSE = ACTIONS.refuse.start
RAISE = getattr(ACTIONS, "raise").start
CONCEDE = ACTIONS.concede.start
TAKE_A_LEAD = ACTIONS.take_a_lead.start
CARD = ACTIONS.card.start  # card c is CARD + c
N_ACTIONS = ACTIONS.size

_NAMED = {
    PASS: "pass",
    ACCEPT: "accept",
    REFUSE: "refuse",
    RAISE: "raise",
    CONCEDE: "concede",
    TAKE_A_LEAD: "take a lead",
}
ACTION_NAMES: tuple[str, ...] = tuple(
    _NAMED.get(a) or (f"bid {a - BID + MIN_BID}" if a in ACTIONS.bid else DECK.names[a - CARD])
    for a in range(N_ACTIONS)
)
_ACTION_OF_NAME = {name.lower(): a for a, name in enumerate(ACTION_NAMES)}


def action_to_string(state: State | None, action: int) -> str:
    """Name of ``action`` (names do not depend on the state)."""
    return ACTION_NAMES[action]


def string_to_action(state: State | None, text: str) -> int | None:
    """Action named by ``text`` (case and spacing ignored), or None."""
    return _ACTION_OF_NAME.get(" ".join(text.lower().split()))


# --------------------------------------------------------------------------------------
# Observation


@dataclass(frozen=True)
class EgoField:
    """One observation field: ``block`` values, repeated per seat or team as ``kind`` says."""

    name: str
    kind: str  # "plain", "own", "seat" (me, left, partner, right) or "team" (mine, theirs)
    block: int
    doc: str

    @property
    def obs_size(self) -> int:
        return {"plain": 1, "own": 1, "seat": N_SEATS, "team": 2}[self.kind] * self.block


CARD_ORDER = "card id order T0 … T7, M0 … W7"
_REL = "me, left, partner, right"
_FIELDS = (
    # --- this hand (zeroed when a new hand is dealt) ---
    EgoField("hand", "own", DECK.n, f"1 for each card I hold ({CARD_ORDER})"),
    EgoField(
        "played",
        "seat",
        DECK.n,
        f"4 × 32: cards each seat has played this hand ({_REL}; index 32·seat + card)",
    ),
    EgoField(
        "trick",
        "plain",
        N_SEATS * DECK.n,
        "4 × 32: the current trick: the card at position 0 (the lead) … 3 "
        "(index 32·position + card)",
    ),
    EgoField(
        "leader",
        "seat",
        1,
        f"one-hot: the seat that leads the current trick ({_REL}); 0 in bidding and at the end",
    ),
    EgoField("led_city", "plain", len(CITIES), "one-hot led city T M H W; 0 before the lead"),
    EgoField(
        "trump",
        "plain",
        len(CITIES),
        "one-hot trump city T M H W; 0 until the declarer's first lead names it",
    ),
    EgoField(
        "card_trick",
        "plain",
        DECK.n * N_TRICKS,
        "32 × 8: the card was played to trick k this hand (index 8·card + k)",
    ),
    EgoField(
        "trick_leaders",
        "seat",
        N_TRICKS,
        f"4 × 8: the seat that led trick k ({_REL}; index 8·seat + k)",
    ),
    EgoField(
        "trick_winners",
        "seat",
        N_TRICKS,
        f"4 × 8: the seat that won trick k ({_REL}; index 8·seat + k)",
    ),
    EgoField(
        "calls",
        "seat",
        12,
        f"4 × 12: each seat's first call, one-hot pass, bid 4 … bid 12, accept, refuse "
        f"({_REL}); 0 before it calls",
    ),
    EgoField(
        "duel_refusals",
        "plain",
        MAX_REFUSALS,
        "thermometer: entry i is 1 when the dealer has refused at least i + 1 times",
    ),
    EgoField(
        "duel_raises",
        "plain",
        MAX_RAISES,
        "thermometer: entry i is 1 when the high bidder has raised at least i + 1 times",
    ),
    EgoField("high_bid", "plain", N_BIDS, "one-hot current high bid 4 … 12; 0 if none"),
    EgoField("high_bidder", "seat", 1, f"one-hot holder of the high bid ({_REL})"),
    EgoField("contract", "plain", N_BIDS, "one-hot contract 4 … 12; 0 during bidding"),
    EgoField("declarer", "seat", 1, f"one-hot contract holder ({_REL}); 0 during bidding"),
    EgoField(
        "lead_handed_over", "plain", 1, "1 when the current lead was handed over by `take a lead`"
    ),
    EgoField("tricks", "team", 1, "tricks won this hand (my team, their team); raw count"),
    EgoField(
        "points",
        "team",
        1,
        "card points this hand: tricks + 5 for W0 − 3 for T0 (my team, their team); raw",
    ),
    EgoField("heir", "team", 1, "1 for the team that took the Lost Heir W0 (mine, theirs)"),
    EgoField("boy", "team", 1, "1 for the team that took the Wrong Boy T0 (mine, theirs)"),
    # --- the turn and the game ---
    EgoField(
        "phase",
        "plain",
        6,
        "one-hot phase: bid, dealer's call, duel: bidder's answer, duel: dealer's "
        "answer, play, game over",
    ),
    EgoField("to_act", "seat", 1, f"one-hot seat to act ({_REL}); 0 when the game is over"),
    EgoField("may_take_a_lead", "plain", 1, "1 when the seat to act may say `take a lead`"),
    EgoField("dealer", "seat", 1, f"one-hot dealer of this hand ({_REL})"),
    EgoField("scores", "team", 1, "game scores (my team, their team); raw integers"),
    EgoField("scores_scaled", "team", 1, "game scores / target_score (my team, their team)"),
    EgoField(
        "last_hand",
        "team",
        1,
        "score change of the previous hand (my team, their team); raw, 0 at the start",
    ),
    EgoField("hands_played", "plain", 1, "hands finished so far (thrown-in hands too); raw count"),
    EgoField(
        "hands_left",
        "plain",
        1,
        "hands left before truncation: max_hands − hands_played; raw count",
    ),
)

OBS = Layout(*((f.name, f.obs_size, f.doc) for f in _FIELDS))
"""The observation of one seat, ego-centric."""


# --------------------------------------------------------------------------------------
# Docs


def _card_table() -> str:
    rows = [
        "| city | " + " | ".join(f"{r} {RANK_NAMES[r]}" for r in range(N_RANKS)) + " |",
        "| --- |" + " --- |" * N_RANKS,
    ]
    for c, city in enumerate(CITIES):
        cells = " | ".join(f"{8 * c + r}: `{city}{r}`" for r in range(N_RANKS))
        rows.append(f"| {city} {CITY_NAMES[c]} | {cells} |")
    return "\n".join(rows)


def _spec_table() -> str:
    rows = [
        ("Import", '`from feral_envs import lost_heir_v0` (or `feral_envs.make("lost_heir")`)'),
        ("Actions", f"`Discrete({N_ACTIONS})`"),
        ("Observation", f"`Box(-inf, inf, ({OBS.size},), float32)` + int8 `action_mask`"),
        ("Parallel API", "no (AEC only)"),
        ("Agents", f"`{list(AGENTS)}` (seats 0–3)"),
        ("Teams", f"`{TEAMS[0]}` (north, south), `{TEAMS[1]}` (east, west)"),
    ]
    return "\n".join(["| | |", "| --- | --- |"] + [f"| {k} | {v} |" for k, v in rows])


DOC_TABLES = {
    "spec": _spec_table,
    "actions": lambda: ACTIONS.markdown("range"),
    "cards": _card_table,
    "observation": lambda: OBS.markdown("field"),
}
