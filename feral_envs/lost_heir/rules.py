"""Lost Heir: the game's keywords, constants and phases, its ``reset`` option parser and the
:class:`State` that names its fields.

The rules are ``shared/rules/RULES.md`` (Lost Heir); ``docs/lost_heir.md`` states them as
implemented, and the compiled engine (:mod:`feral_envs.lost_heir.engine`) is their one
implementation. Phases (:class:`Phase`): the dealer's left-hand neighbour, then each seat in
turn, makes one call (``BID``); the dealer calls last (``DEALER``); a refused high bidder
answers (``DUEL_BIDDER``), and after a raise the dealer answers (``DUEL_DEALER``); then eight
tricks are played (``PLAY``: a card, or ``take a lead`` from a trick winner about to lead). A
hand is scored after its eighth trick and the next one dealt in the same step; the game ends
(``OVER``) when a team reaches the target score (a termination) or after ``max_hands`` hands
(a truncation).

Here is what the engine and the rest share and what is not a rule: :func:`make_config` (the
keywords), :func:`parse_options` (the ``reset`` options, validated before the engine starts a
game), the constants, and :class:`State`, the type of the fields that
:func:`feral_envs.lost_heir.view.decode` reads from an engine row.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Any

import numpy as np

from feral_envs.lost_heir.encoding import AGENTS, DECK, N_SEATS, TEAMS

NOBODY = -1
"""A seat or team field that holds no seat or team (no high bidder yet, nobody took W0)."""
NO_CALL = -1
"""``calls[seat]`` of a seat that has not called yet this hand."""
N_CARDS = DECK.n  # 32
CARDS_PER_HAND = N_CARDS // N_SEATS  # 8
HEIR_POINTS, BOY_POINTS = 5, -3
TAKE_A_LEAD_CHOICES = ("after_first_trick", "after_second_trick")
RESET_OPTIONS = ("dealer", "hands", "scores")


class Phase(IntEnum):
    """Whose decision of which kind comes next (the observation's ``phase`` one-hot)."""

    BID = 0  # a non-dealer's one call: pass, or a bid above the high bid
    DEALER = 1  # the dealer's call: accept / bid over / refuse, or bid / pass if nobody bid
    DUEL_BIDDER = 2  # after a refusal, the high bidder: raise (h + 1) or concede
    DUEL_DEALER = 3  # after a raise, the dealer: accept or refuse
    PLAY = 4  # play a card; a trick winner about to lead may instead take a lead
    OVER = 5  # the game has ended (terminated or truncated)


@dataclass(frozen=True)
class Config:
    """The game's keywords (validated by :func:`make_config`)."""

    target_score: int = 40
    """A team with this many points or more after a hand wins."""
    take_a_lead: str = "after_first_trick"
    """``"after_first_trick"``: only the declarer's opening lead cannot be handed over;
    ``"after_second_trick"``: the first trick's winner cannot hand over the lead either."""
    max_hands: int = 100
    """The game is truncated after this many hands (thrown-in hands count)."""


def _check_int(keyword: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{keyword}={value!r} is not allowed; it must be an integer >= {minimum}")
    return int(value)


def make_config(
    target_score: int = 40, take_a_lead: str = "after_first_trick", max_hands: int = 100
) -> Config:
    """The validated keywords; ``ValueError`` naming the keyword and what it allows."""
    if take_a_lead not in TAKE_A_LEAD_CHOICES:
        raise ValueError(
            f"take_a_lead={take_a_lead!r} is not allowed; choose one of: "
            + ", ".join(repr(c) for c in TAKE_A_LEAD_CHOICES)
        )
    return Config(
        target_score=_check_int("target_score", target_score, 1),
        take_a_lead=take_a_lead,
        max_hands=_check_int("max_hands", max_hands, 1),
    )


@dataclass
class State:
    """One game as named fields: the type of the decoded view of an engine row
    (:func:`feral_envs.lost_heir.view.decode`, ``Game.view``), read by the text and picture
    views, the terminal app and tests; nothing writes it. Seats 0-3 are north, east, south,
    west; team of seat ``s`` is ``s % 2``."""

    config: Config
    phase: int  # Phase
    dealer: int  # seat dealing this hand
    to_act: int  # seat to act (the last one to act once the game is over)
    hands: np.ndarray  # (4, 32) bool: hands[seat, card] is held by seat
    played: np.ndarray  # (4, 32) bool: played[seat, card] was played by seat this hand
    trick: np.ndarray  # (4,) int8: card ids of the current trick in play order, NO_CARD after
    trick_len: int  # cards in the current trick (0..3; a full trick is resolved at once)
    leader: int  # seat that leads the current trick; NOBODY during bidding
    led_city: int  # city of the current trick's first card; NO_SUIT before it
    trump: int  # trump city, named by the declarer's first lead; NO_SUIT before it
    lead_handed_over: bool  # the current lead was handed over by `take a lead`
    tricks_done: int  # tricks completed this hand (0..8); the current trick's index
    trick_of_card: np.ndarray  # (32,) int8: trick index each card was played to; -1 if not
    trick_leaders: np.ndarray  # (8,) int8: seat that led trick k; NOBODY if not begun
    trick_winners: np.ndarray  # (8,) int8: seat that won trick k; NOBODY if not done
    team_tricks: np.ndarray  # (2,) int64: tricks won by each team this hand
    team_points: np.ndarray  # (2,) int64: tricks + 5 for W0 - 3 for T0, by team, this hand
    heir_team: int  # team that took W0 this hand; NOBODY if not yet
    boy_team: int  # team that took T0 this hand; NOBODY if not yet
    calls: np.ndarray  # (4,) int8: action id of each seat's first call this hand; NO_CALL
    high_bid: int  # current high bid (4..12); 0 if nobody has bid
    high_bidder: int  # seat holding the high bid; NOBODY if none
    duel_refusals: int  # refusals by the dealer this hand
    duel_raises: int  # raises by the refused high bidder this hand
    contract: int  # contract (4..12) once bidding ends; 0 before
    declarer: int  # seat holding the contract; NOBODY during bidding
    scores: np.ndarray  # (2,) int64: game score of each team
    last_hand: np.ndarray  # (2,) int64: each team's score change in the previous hand
    hands_played: int  # hands finished, thrown-in hands included
    terminated: bool  # a team reached the target score
    truncated: bool  # max_hands hands were played with no winner
    winner: int  # winning team, DRAW while running or after a truncation
    mask: np.ndarray  # (47,) int8: legal actions of `to_act` (all zero once over)


# ---------------------------------------------------------------------------------------
# The reset options


def _parse_seat(value: Any, what: str) -> int:
    if value not in AGENTS:
        raise ValueError(f"{what}: unknown seat {value!r}; seats: {', '.join(AGENTS)}")
    return AGENTS.index(value)


def _parse_hands(hands: Any) -> np.ndarray:
    """``options["hands"]`` as a (4, 32) bool array; ``ValueError`` naming the problem."""
    if not isinstance(hands, dict):
        raise ValueError(
            f"hands must be a dict seat -> list of 8 cards, got {type(hands).__name__}"
        )
    for seat in hands:
        _parse_seat(seat, "hands")
    missing = [a for a in AGENTS if a not in hands]
    if missing:
        raise ValueError(f"hands: no hand given for {', '.join(missing)}; give all four seats")
    out = np.zeros((N_SEATS, DECK.n), dtype=bool)
    owner: dict[int, str] = {}
    for seat, agent in enumerate(AGENTS):
        cards = hands[agent]
        if isinstance(cards, str) or not hasattr(cards, "__len__"):
            raise ValueError(f"hands[{agent!r}] must be a list of card names, got {cards!r}")
        if len(cards) != CARDS_PER_HAND:
            raise ValueError(
                f"hands[{agent!r}] has {len(cards)} cards; each hand must have {CARDS_PER_HAND}"
            )
        for name in cards:
            try:
                card = DECK.card(name)
            except ValueError as err:
                raise ValueError(f"hands[{agent!r}]: {err}") from None
            if card in owner:
                raise ValueError(
                    f"hands: card {DECK.names[card]} is given twice ({owner[card]} and {agent})"
                )
            owner[card] = agent
            out[seat, card] = True
    return out


def _parse_scores(scores: Any, config: Config) -> np.ndarray:
    if not isinstance(scores, dict) or set(scores) != set(TEAMS):
        raise ValueError(
            f"scores must be a dict with exactly the keys {', '.join(map(repr, TEAMS))}, "
            f"got {scores!r}"
        )
    out = np.zeros(2, dtype=np.int64)
    for team, name in enumerate(TEAMS):
        value = scores[name]
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise ValueError(f"scores[{name!r}]={value!r} must be an integer")
        if value >= config.target_score:
            raise ValueError(
                f"scores[{name!r}]={value} must be below target_score={config.target_score} "
                "(the game would already be won)"
            )
        out[team] = value
    return out


def parse_options(
    config: Config, options: dict | None
) -> tuple[int | None, np.ndarray | None, np.ndarray]:
    """``reset`` options validated: ``(dealer or None, hands (4, 32) bool or None, scores)``;
    ``ValueError`` naming the problem. Shared with the compiled engine (``engine.start``)."""
    options = options or {}
    unknown = sorted(set(options) - set(RESET_OPTIONS), key=str)
    if unknown:
        raise ValueError(
            f"unknown reset option(s) {', '.join(map(repr, unknown))}; "
            f"allowed: {', '.join(map(repr, RESET_OPTIONS))}"
        )
    dealer = _parse_seat(options["dealer"], "dealer") if "dealer" in options else None
    hands = _parse_hands(options["hands"]) if "hands" in options else None
    scores = (
        _parse_scores(options["scores"], config)
        if "scores" in options
        else np.zeros(2, dtype=np.int64)
    )
    return dealer, hands, scores
