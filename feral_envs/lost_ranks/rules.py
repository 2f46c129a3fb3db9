"""Lost Ranks: the game's keywords, cards, constants and phases, its ``reset`` option parser and
the :class:`State` that names its fields (the rules: ``shared/rules/RULES.md``, section Lost
Ranks; their one implementation is the compiled engine, :mod:`feral_envs.lost_ranks.engine`).

Four players in two armies (Red: seats 0 and 2; Black: seats 1 and 3) play rounds of 13
tricks with a 53-card deck. Before each round a Trump Card is flipped (never dealt or
played); every player then passes three cards (two to the partner, one to an enemy), and the
tricks are played. Only two kinds of card score: an *Active* Jack (the Trump Card's colour)
is worth +2 to the army that played it if that army also wins its trick, and the Spy is worth
+2 (by variant) to the army that captures it. The first army to 18 wins (after round 6 the
higher score wins; level scores bring one more round). The card table is
:mod:`feral_envs.cards` (shared with Lost Heir).

How the pass is sequenced (an AEC env needs one actor at a time): seat 0 makes its three
choices, then seat 1, seat 2, seat 3; a seat's 1st and 2nd choices go to its partner, its 3rd
to the enemy of the round. Chosen cards leave the chooser's hand at once (so a card cannot be
chosen twice), and all twelve cards change hands only after the last choice, so nobody sees
another's choice or an incoming card before all have chosen, and a received card cannot be
passed on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, NamedTuple

import numpy as np

from feral_envs.cards import CANNOT_WIN, NO_CARD, NO_SUIT, NO_WINNER, Deck
from feral_envs.core import DRAW

# ---------------------------------------------------------------------------------------------
# Seats, armies, cards

AGENTS = ("red_0", "black_0", "red_1", "black_1")
"""Agent names in seat order; seat ``s`` belongs to army ``s % 2``."""
ARMY_NAMES = ("red", "black")
RED, BLACK = 0, 1
"""Army (team) ids; they double as colours: the Red Army is the red colour."""
N_SEATS = 4
TEAM_OF_SEAT = (RED, BLACK, RED, BLACK)

SUIT_LETTERS = "SHDC"
SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")
SUIT_COLOUR = (BLACK, RED, RED, BLACK)
RANKS = "23456789TJQKA"
"""Rank letters in card-id order within a suit; the Jack (``J``) is unranked."""
JACK_RANK = RANKS.index("J")


def _build_deck() -> Deck:
    names, suits, powers = [], [], []
    for suit, letter in enumerate(SUIT_LETTERS):
        for index, rank in enumerate(RANKS):
            names.append(rank + letter)
            suits.append(suit)
            # Infantry 2..A have powers 0..11; the Jack follows suit but never wins.
            if index == JACK_RANK:
                powers.append(CANNOT_WIN)
            else:
                powers.append(index if index < JACK_RANK else index - 1)
    names.append("SPY")  # the Spy: no suit, never wins
    suits.append(NO_SUIT)
    powers.append(CANNOT_WIN)
    return Deck.build(names, suits, powers, SUIT_NAMES)


DECK = _build_deck()
"""Card ids ``13·suit + rank index`` (suits S H D C, ranks 2..9 T J Q K A), then the Spy, 52."""
N_CARDS = 53  # = 4 suits x 13 + the Spy
SPY = 52
JACKS = tuple(suit * 13 + JACK_RANK for suit in range(4))
"""Card ids of JS, JH, JD, JC."""

HAND_SIZE = 13
N_TRICKS = 13
N_PLAYS = N_TRICKS * N_SEATS
PASS_SIZE = 3  # choices 0 and 1 go to the partner, choice 2 to the enemy
TARGET = 18
LAST_ROUND = 6
"""The round after which the higher score wins even below ``TARGET`` (a tie adds a round)."""
MAX_ROUND = 7  # round 7 is only ever a tiebreaker

VARIANTS = ("standard", "master_of_spies", "turncoat")
START_CHOICES = ("pass", "play")
RESET_OPTIONS = ("trump_card", "hands", "round", "scores", "start")


class Phase(IntEnum):
    PASS = 0
    PLAY = 1
    GAME_OVER = 2


PASS, PLAY, GAME_OVER = Phase.PASS, Phase.PLAY, Phase.GAME_OVER


# Kinds of cards a seat has seen change hands in the pass (rows of ``State.pass_record``).
TO_PARTNER, TO_ENEMY, FROM_PARTNER, FROM_ENEMY = range(4)


def _check_choice(keyword: str, value: Any, allowed: tuple) -> Any:
    # as table_env.check_choice, which the rules cannot import (it imports PettingZoo)
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(
            f"{keyword}={value!r} is not allowed; choose one of: "
            + ", ".join(repr(a) for a in allowed)
        )
    return value


@dataclass(frozen=True)
class Config:
    """The game keywords of Lost Ranks."""

    variant: str = "standard"
    """How the Spy scores: ``"standard"`` +2 to the capturing army; ``"master_of_spies"``
    +2 only to the army of the Trump Card's colour (0 to the other); ``"turncoat"`` +2 to
    the army of the Trump Card's colour, +1 to the other."""

    def __post_init__(self) -> None:
        _check_choice("variant", self.variant, VARIANTS)


def make_config(variant: str = "standard") -> Config:
    return Config(variant=variant)


def spy_points(variant: str, trump_colour: int) -> tuple[int, int]:
    """Points for capturing the Spy, by army (red, black): what the heuristic bot plans with
    (the engine scores with its own ``_spy_points``)."""
    if variant == "standard":
        return (2, 2)
    other = 0 if variant == "master_of_spies" else 1
    return tuple(2 if army == trump_colour else other for army in (RED, BLACK))


# ---------------------------------------------------------------------------------------------
# State


@dataclass(eq=False)
class State:
    """One game of Lost Ranks as named fields: the type of the decoded view of an engine row
    (:func:`feral_envs.lost_ranks.view.decode`, ``Game.view``), read by the text and picture
    views, the terminal app, determinization and tests; nothing writes it. Seats are absolute
    (0-3); the observation rotates them."""

    config: Config
    scores: np.ndarray  # (2,) int64: game score by army (red, black), after finished rounds
    round: int = 1  # round number, 1-based; a tiebreaker round is numbered on
    tiebreaker: bool = False  # this round is the one extra round after a tie
    phase: int = Phase.PASS  # a Phase
    winner: int = DRAW  # army that won, or DRAW (also while the game runs)
    epoch: int = 0  # +1 whenever a round starts (lets observers drop per-round caches)

    # Fixed for the round
    trump_card: int = NO_CARD  # card id of the Trump Card (an Infantry card)
    trump_suit: int = NO_SUIT
    trump_colour: int = RED  # RED or BLACK: the colour of the Trump Card
    active_jacks: tuple[int, int] = (NO_CARD, NO_CARD)  # the two Jacks of the trump colour
    spy_value: tuple[int, int] = (2, 2)  # points for capturing the Spy, by army
    pass_left: bool = True  # the enemy card goes to the left (odd rounds) or right (even)

    to_act: int = 0  # seat to act
    hands: np.ndarray = field(default_factory=lambda: np.zeros((N_SEATS, N_CARDS), bool))
    # (4, 53) bool: hands[seat, card]; during the pass, chosen cards are already removed

    # The pass
    pass_step: int = 0  # which of its 3 choices the seat to act is making (0, 1: partner)
    pass_choice: np.ndarray = field(
        default_factory=lambda: np.full((N_SEATS, PASS_SIZE), NO_CARD, np.int8)
    )  # (4, 3) int8: the cards each seat chose, in order (NO_CARD: not chosen yet)
    pass_record: np.ndarray = field(default_factory=lambda: np.zeros((N_SEATS, 4, N_CARDS), bool))
    # (4, 4, 53) bool: pass_record[seat, kind, card], kind TO_PARTNER / TO_ENEMY (chosen or
    # passed by the seat) and FROM_PARTNER / FROM_ENEMY (received, after the exchange)

    # The tricks
    leader: int = 0  # seat that leads (led) the current trick
    trick: list[int] = field(default_factory=lambda: [NO_CARD] * N_SEATS)
    # 4 card ids in play order (position 0 = leader's card); NO_CARD in unplayed slots
    n_in_trick: int = 0  # cards played to the current trick
    led_suit: int = NO_SUIT  # suit of the current trick (NO_SUIT: none yet, or the Spy led)
    tricks_done: int = 0  # tricks finished this round, void ones included (0..13)
    first_lead: int = NO_CARD  # card that must lead trick 1 (NO_CARD once it has been led)
    played: np.ndarray = field(default_factory=lambda: np.zeros((N_SEATS, N_CARDS), bool))
    # (4, 53) bool: played[seat, card], cards the seat has played this round
    captured: np.ndarray = field(default_factory=lambda: np.zeros((2, N_CARDS), bool))
    # (2, 53) bool: captured[army, card], the army's capture pile this round
    void_pile: np.ndarray = field(default_factory=lambda: np.zeros(N_CARDS, bool))
    # (53,) bool: cards of void tricks this round
    round_points: list[int] = field(default_factory=lambda: [0, 0])
    # points scored this round so far, by army; added to ``scores`` when the round ends
    plays: list[int] = field(default_factory=lambda: [NO_CARD] * N_PLAYS)
    # 52 card ids in play order this round (card k belongs to trick k // 4); NO_CARD after
    play_seats: list[int] = field(default_factory=lambda: [NO_CARD] * N_PLAYS)
    # 52 seats: who played plays[k]
    trick_results: list[int] = field(default_factory=lambda: [NO_WINNER] * N_TRICKS)
    # 13 seats: winner of each finished trick this round, NO_WINNER for a void trick
    mask: np.ndarray | None = None  # (53,) int8: the legal actions of the seat to act


def partner(seat: int) -> int:
    return (seat + 2) % N_SEATS


def pass_enemy(seat: int, round_number: int) -> int:
    """The enemy ``seat`` passes its third card to: left in odd rounds, right in even ones."""
    return (seat + 1) % N_SEATS if round_number % 2 == 1 else (seat + 3) % N_SEATS


# ---------------------------------------------------------------------------------------------
# The reset options


class StartOptions(NamedTuple):
    """``reset`` options, validated: what the compiled engine's ``start`` builds the first
    round from."""

    skip_pass: bool  # start == "play"
    round: int
    scores: tuple[int, int]  # (red, black) before the first round
    tiebreaker: bool
    trump: int | None  # the Trump Card, None: flipped from the rng
    hands: np.ndarray | None  # (4, 53) bool hand masks, None: dealt from the rng


def parse_options(options: dict) -> StartOptions:
    """Validate ``reset`` options (see ``docs/lost_ranks.md``) completely; ``ValueError``
    naming the problem."""
    start = _check_choice("start", options.get("start", "pass"), START_CHOICES)
    round_number = options.get("round", 1)
    if isinstance(round_number, bool) or not isinstance(round_number, (int, np.integer)):
        raise ValueError(f"round={round_number!r} must be an integer 1..{MAX_ROUND}")
    if not 1 <= round_number <= MAX_ROUND:
        raise ValueError(f"round={round_number!r} must be an integer 1..{MAX_ROUND}")
    scores = _parse_scores(options.get("scores", {"red": 0, "black": 0}))
    tiebreaker = _is_tiebreaker(int(round_number), scores)
    trump = None
    if "trump_card" in options:
        trump = _parse_trump(options["trump_card"])
    hands = None
    if "hands" in options:
        hands, trump = _parse_hands(options["hands"], trump)
    return StartOptions(start == "play", int(round_number), scores, tiebreaker, trump, hands)


def _parse_scores(scores: Any) -> tuple[int, int]:
    if not isinstance(scores, dict) or set(scores) != set(ARMY_NAMES):
        raise ValueError(f"scores={scores!r} must be a dict with keys 'red' and 'black'")
    values = []
    for army in ARMY_NAMES:
        v = scores[army]
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
            raise ValueError(f"scores[{army!r}]={v!r} must be an integer >= 0")
        values.append(int(v))
    return values[0], values[1]


def _is_tiebreaker(round_number: int, scores: tuple[int, int]) -> bool:
    """Whether a round starting with ``scores`` is the extra round after a tie; ``ValueError``
    for scores with which the game would already be over."""
    red, black = scores
    if red == black and (red >= TARGET or round_number == MAX_ROUND):
        return True
    if max(red, black) >= TARGET:
        raise ValueError(
            f"scores red={red}, black={black}: the game is already over "
            f"(an army has {TARGET} or more and the scores are not level)"
        )
    if round_number == MAX_ROUND:
        raise ValueError(
            f"round {MAX_ROUND} is only played as a tiebreaker, from level scores "
            f"(got red={red}, black={black})"
        )
    return False


def _parse_trump(name: Any) -> int:
    if not isinstance(name, str):
        raise ValueError(f"trump_card={name!r} must be a card name such as '7S'")
    card = DECK.card(name)
    if card == SPY or card in JACKS:
        raise ValueError(
            f"trump_card={name!r}: a Jack or the Spy cannot be the Trump Card "
            "(it is returned and another card flipped)"
        )
    return card


def _parse_hands(hands: Any, trump: int | None) -> tuple[np.ndarray, int]:
    """The (4, 53) hand masks of ``hands`` and the Trump Card (the one card not dealt)."""
    if not isinstance(hands, dict) or set(hands) != set(AGENTS):
        got = sorted(hands) if isinstance(hands, dict) else type(hands).__name__
        raise ValueError(f"hands must be a dict with keys {', '.join(AGENTS)}; got {got}")
    masks = np.zeros((N_SEATS, N_CARDS), bool)
    owner: dict[int, str] = {}
    for seat, agent in enumerate(AGENTS):
        cards = hands[agent]
        if isinstance(cards, str) or not hasattr(cards, "__len__"):
            raise ValueError(f"hands[{agent!r}] must be a list of {HAND_SIZE} card names")
        if len(cards) != HAND_SIZE:
            raise ValueError(f"hands[{agent!r}] has {len(cards)} cards; each hand has {HAND_SIZE}")
        for card in DECK.cards(cards):
            if card in owner:
                raise ValueError(
                    f"card {DECK.names[card]} is in the hands of both {owner[card]} and {agent}"
                )
            owner[card] = agent
            masks[seat, card] = True
    missing = [c for c in range(N_CARDS) if c not in owner]  # exactly one: 53 - 52
    if trump is None:
        trump = missing[0]
        if trump == SPY or trump in JACKS:
            raise ValueError(
                f"the card left out of the hands, {DECK.names[trump]}, would be the Trump "
                "Card, but a Jack or the Spy cannot be; give trump_card or other hands"
            )
    elif trump != missing[0]:
        raise ValueError(
            f"the Trump Card {DECK.names[trump]} is in the hands of {owner[trump]}; the hands "
            "must hold the other 52 cards"
        )
    return masks, trump
