"""Lost Heir rules: a pure core over a small state of numpy arrays and integers.

The rules are ``shared/rules/RULES.md`` (Lost Heir); ``docs/lost_heir.md`` states them as
implemented. Phases (:class:`Phase`): the dealer's left-hand neighbour, then each seat in turn,
makes one call (``BID``); the dealer calls last (``DEALER``); a refused high bidder answers
(``DUEL_BIDDER``), and after a raise the dealer answers (``DUEL_DEALER``); then eight tricks
are played (``PLAY``: a card, or ``take a lead`` from a trick winner about to lead). A hand is
scored after its eighth trick and the next one dealt inside the same ``apply``; the game ends
(``OVER``) when a team reaches the target score (a termination) or after ``max_hands`` hands
(a truncation).

Speed: every function mutates the state in place with plain ints and a few small arrays.
``state.mask`` (the legal actions) is recomputed once at the end of each ``apply``, and
``state.rec`` (the observation record, see :mod:`~feral_envs.lost_heir.encoding`) is written
wherever the matching field changes, so that an observation costs one gather.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

import numpy as np

from feral_envs.cards import NO_CARD, NO_SUIT, follow_mask, trick_winner
from feral_envs.core import DRAW
from feral_envs.lost_heir.encoding import (
    ACCEPT,
    AGENTS,
    BID,
    BOY,
    CARD,
    CONCEDE,
    DECK,
    HAND_FIELDS_END,
    HEIR,
    MAX_BID,
    MIN_BID,
    N_ACTIONS,
    N_SEATS,
    N_TRICKS,
    PASS,
    RAISE,
    REC,
    REFUSE,
    TAKE_A_LEAD,
    TEAMS,
)

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

    @property
    def first_handover_trick(self) -> int:
        """Index of the first trick whose lead may be handed over."""
        return 1 if self.take_a_lead == "after_first_trick" else 2


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
    """One game. Seats 0-3 are north, east, south, west; team of seat ``s`` is ``s % 2``."""

    config: Config
    phase: int  # Phase
    dealer: int  # seat dealing this hand
    to_act: int  # seat to act (the last one to act once the game is over)
    hands: np.ndarray  # (4, 32) bool: hands[seat, card] is held by seat
    held: np.ndarray  # (4, 47) int8: held[seat, CARD + card] = hands[seat, card], the hands
    # in action ids (0 elsewhere): the play mask is cut from it in one operation
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
    mask: np.ndarray  # (47,) int8: legal actions of `to_act`, kept current by `apply`
    rec: np.ndarray  # (REC.size,) float32: the observation record (encoding.REC), absolute


# ---------------------------------------------------------------------------------------
# Record indices (encoding.REC): seat fields are indexed by absolute seat, team fields by team

_R_HAND = REC.hand.start  # + 32 * seat + card
_R_PLAYED = REC.played.start  # + 32 * seat + card
_R_TRICK = REC.trick.start  # + 32 * position + card
_R_LEADER = REC.leader.start
_R_LED = REC.led_city.start
_R_TRUMP = REC.trump.start
_R_CARD_TRICK = REC.card_trick.start  # + 8 * card + trick
_R_TRICK_LEADERS = REC.trick_leaders.start  # + 8 * seat + trick
_R_TRICK_WINNERS = REC.trick_winners.start  # + 8 * seat + trick
_R_CALLS = REC.calls.start  # + 12 * seat + call action id
_R_REFUSALS = REC.duel_refusals.start
_R_RAISES = REC.duel_raises.start
_R_HIGH_BID = REC.high_bid.start  # + bid - 4
_R_HIGH_BIDDER = REC.high_bidder.start
_R_CONTRACT = REC.contract.start  # + contract - 4
_R_DECLARER = REC.declarer.start
_R_HANDED = REC.lead_handed_over.start
_R_TRICKS = REC.tricks.start
_R_POINTS = REC.points.start
_R_HEIR = REC.heir.start
_R_BOY = REC.boy.start
_R_PHASE = REC.phase.start
_R_TO_ACT = REC.to_act.start
_R_MAY_TAKE = REC.may_take_a_lead.start
_R_DEALER = REC.dealer.start
_R_SCORES = REC.scores.start
_R_SCALED = REC.scores_scaled.start
_R_LAST = REC.last_hand.start
_R_HANDS_PLAYED = REC.hands_played.start
_R_HANDS_LEFT = REC.hands_left.start
_N_CALL_KINDS = REC.calls.size // N_SEATS
assert _N_CALL_KINDS == REFUSE + 1 and len(Phase) == REC.phase.size
_CITY_OF = DECK.suit_of


def _city_actions() -> tuple[np.ndarray, ...]:
    rows = np.zeros((len(DECK.suit_names), N_ACTIONS), dtype=np.int8)
    rows[:, CARD:] = DECK.suit_masks
    return tuple(rows)


_CITY_ACTIONS = _city_actions()
"""``_CITY_ACTIONS[city]``: the card actions of the city (``DECK.suit_masks`` in action ids),
an int8 row per city, for :func:`~feral_envs.cards.follow_mask` on ``State.held``."""
_PLAY = Phase.PLAY  # a global is faster to read than an enum member
_NO_TRICK = np.zeros(N_SEATS * N_CARDS, dtype=np.float32)  # the record's empty trick field
_NO_TRICK.flags.writeable = False


# ---------------------------------------------------------------------------------------
# A new game


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


def new_game(config: Config, rng: np.random.Generator, options: dict) -> State:
    """A new game. ``options`` (all optional): ``dealer`` (agent name), ``hands`` (all four
    seats, 8 card names each, 32 distinct cards), ``scores`` (both teams, below the target).
    Everything is validated before the state is built. Without ``dealer`` the first dealer is
    ``rng.integers(4)``; without ``hands`` the first hand is dealt from ``rng`` after that."""
    dealer, hands, scores = parse_options(config, options)
    if dealer is None:
        dealer = int(rng.integers(N_SEATS))
    state = State(
        config=config,
        phase=Phase.BID,
        dealer=dealer,
        to_act=dealer,
        hands=np.zeros((N_SEATS, DECK.n), dtype=bool),
        held=np.zeros((N_SEATS, N_ACTIONS), dtype=np.int8),
        played=np.zeros((N_SEATS, DECK.n), dtype=bool),
        trick=np.full(N_SEATS, NO_CARD, dtype=np.int8),
        trick_len=0,
        leader=NOBODY,
        led_city=NO_SUIT,
        trump=NO_SUIT,
        lead_handed_over=False,
        tricks_done=0,
        trick_of_card=np.full(DECK.n, -1, dtype=np.int8),
        trick_leaders=np.full(N_TRICKS, NOBODY, dtype=np.int8),
        trick_winners=np.full(N_TRICKS, NOBODY, dtype=np.int8),
        team_tricks=np.zeros(2, dtype=np.int64),
        team_points=np.zeros(2, dtype=np.int64),
        heir_team=NOBODY,
        boy_team=NOBODY,
        calls=np.full(N_SEATS, NO_CALL, dtype=np.int8),
        high_bid=0,
        high_bidder=NOBODY,
        duel_refusals=0,
        duel_raises=0,
        contract=0,
        declarer=NOBODY,
        scores=scores,
        last_hand=np.zeros(2, dtype=np.int64),
        hands_played=0,
        terminated=False,
        truncated=False,
        winner=DRAW,
        mask=np.zeros(N_ACTIONS, dtype=np.int8),
        rec=np.zeros(REC.size, dtype=np.float32),
    )
    _write_scores(state)
    _start_hand(state, rng, hands)
    return state


_DEAL_ROW = np.repeat(np.arange(N_SEATS) * N_CARDS, CARDS_PER_HAND)
"""Flat offset of the hand of the seat that gets the k-th card of a shuffled deck (8 each)."""


def _deal(rng: np.random.Generator) -> np.ndarray:
    """Shuffle; seat ``s`` gets cards ``8 s .. 8 s + 7`` of the shuffled deck."""
    hands = np.zeros(N_SEATS * N_CARDS, dtype=bool)
    hands[_DEAL_ROW + rng.permutation(N_CARDS)] = True
    return hands.reshape(N_SEATS, N_CARDS)


def _start_hand(state: State, rng: np.random.Generator, hands: np.ndarray | None) -> None:
    """Deal (or take ``hands``) and reset every field of the hand; bidding starts."""
    state.hands[:] = _deal(rng) if hands is None else hands
    state.held[:, CARD:] = state.hands
    state.played.fill(False)
    state.trick.fill(NO_CARD)
    state.trick_len = 0
    state.leader = NOBODY
    state.led_city = state.trump = NO_SUIT
    state.lead_handed_over = False
    state.tricks_done = 0
    state.trick_of_card.fill(-1)
    state.trick_leaders.fill(NOBODY)
    state.trick_winners.fill(NOBODY)
    state.team_tricks.fill(0)
    state.team_points.fill(0)
    state.heir_team = state.boy_team = NOBODY
    state.calls.fill(NO_CALL)
    state.high_bid, state.high_bidder = 0, NOBODY
    state.duel_refusals = state.duel_raises = 0
    state.contract, state.declarer = 0, NOBODY
    rec = state.rec
    rec[:HAND_FIELDS_END] = 0.0
    rec[_R_HAND : _R_HAND + N_SEATS * DECK.n] = state.hands.ravel()
    rec[_R_DEALER : _R_DEALER + N_SEATS] = 0.0
    rec[_R_DEALER + state.dealer] = 1.0
    _set_phase(state, Phase.BID)
    _set_turn(state, (state.dealer + 1) % N_SEATS)
    _update_mask(state)


# ---------------------------------------------------------------------------------------
# Small writers that keep a field and its record entries in step


def _set_phase(state: State, phase: int) -> None:
    state.rec[_R_PHASE + state.phase] = 0.0
    state.phase = phase
    state.rec[_R_PHASE + phase] = 1.0


def _set_turn(state: State, seat: int) -> None:
    state.rec[_R_TO_ACT + state.to_act] = 0.0
    state.to_act = seat
    state.rec[_R_TO_ACT + seat] = 1.0


def _set_leader(state: State, seat: int) -> None:
    """``seat`` leads the current trick (and is to act)."""
    rec, k = state.rec, state.tricks_done
    if state.leader != NOBODY:
        rec[_R_LEADER + state.leader] = 0.0
    old = int(state.trick_leaders[k])
    if old != NOBODY:
        rec[_R_TRICK_LEADERS + N_TRICKS * old + k] = 0.0
    state.leader = seat
    state.trick_leaders[k] = seat
    rec[_R_LEADER + seat] = 1.0
    rec[_R_TRICK_LEADERS + N_TRICKS * seat + k] = 1.0
    _set_turn(state, seat)


def _set_high_bid(state: State, bid: int, seat: int) -> None:
    rec = state.rec
    if state.high_bid:
        rec[_R_HIGH_BID + state.high_bid - MIN_BID] = 0.0
        rec[_R_HIGH_BIDDER + state.high_bidder] = 0.0
    state.high_bid, state.high_bidder = bid, seat
    rec[_R_HIGH_BID + bid - MIN_BID] = 1.0
    rec[_R_HIGH_BIDDER + seat] = 1.0


def _write_scores(state: State) -> None:
    rec, target = state.rec, state.config.target_score
    for team in range(2):
        score = int(state.scores[team])
        rec[_R_SCORES + team] = score
        rec[_R_SCALED + team] = score / target
        rec[_R_LAST + team] = int(state.last_hand[team])
    rec[_R_HANDS_PLAYED] = state.hands_played
    rec[_R_HANDS_LEFT] = state.config.max_hands - state.hands_played


# ---------------------------------------------------------------------------------------
# Legal actions


def _mask_bid(state: State) -> np.ndarray:
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    mask[PASS] = 1
    mask[BID + max(state.high_bid + 1 - MIN_BID, 0) : BID + MAX_BID - MIN_BID + 1] = 1
    return mask


def _mask_dealer(state: State) -> np.ndarray:
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    if state.high_bid:
        mask[ACCEPT] = mask[REFUSE] = 1
    else:
        mask[PASS] = 1
    mask[BID + max(state.high_bid + 1 - MIN_BID, 0) : BID + MAX_BID - MIN_BID + 1] = 1
    return mask


def _mask_duel_bidder(state: State) -> np.ndarray:
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    mask[CONCEDE] = 1
    if state.high_bid < MAX_BID:
        mask[RAISE] = 1
    return mask


def _mask_duel_dealer(state: State) -> np.ndarray:
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    mask[ACCEPT] = mask[REFUSE] = 1
    return mask


def may_take_a_lead(state: State) -> bool:
    """Whether the seat to act may hand its lead to its partner now."""
    return (
        state.phase == _PLAY
        and state.trick_len == 0
        and not state.lead_handed_over
        and state.tricks_done >= state.config.first_handover_trick
    )


def _mask_play(state: State) -> np.ndarray:
    # Cut from the hand in action ids (state.held): one numpy operation, no zeroed mask.
    held = state.held[state.to_act]
    if state.trick_len:
        return follow_mask(held, state.led_city, DECK, _CITY_ACTIONS)
    mask = held.copy()  # leading: any card
    if may_take_a_lead(state):
        mask[TAKE_A_LEAD] = 1
    return mask


def _mask_over(state: State) -> np.ndarray:
    return np.zeros(N_ACTIONS, dtype=np.int8)


_MASKS: tuple[Callable[[State], np.ndarray], ...] = (
    _mask_bid,
    _mask_dealer,
    _mask_duel_bidder,
    _mask_duel_dealer,
    _mask_play,
    _mask_over,
)


def _update_mask(state: State) -> None:
    mask = state.mask = _MASKS[state.phase](state)
    state.rec[_R_MAY_TAKE] = mask[TAKE_A_LEAD]


def legal_mask(state: State) -> np.ndarray:
    """int8 mask of the legal actions of the seat to act (a copy; all zero once over)."""
    return state.mask.copy()


# ---------------------------------------------------------------------------------------
# Applying an action (assumed legal)


def _record_call(state: State, seat: int, action: int) -> None:
    if state.calls[seat] == NO_CALL:
        state.calls[seat] = action
        state.rec[_R_CALLS + _N_CALL_KINDS * seat + action] = 1.0


def _apply_bid(state: State, action: int, rng: np.random.Generator) -> None:
    seat = state.to_act
    _record_call(state, seat, action)
    if action != PASS:
        _set_high_bid(state, action - BID + MIN_BID, seat)
    nxt = (seat + 1) % N_SEATS
    if nxt == state.dealer:
        _set_phase(state, Phase.DEALER)
    _set_turn(state, nxt)


def _refuse(state: State) -> None:
    state.rec[_R_REFUSALS + state.duel_refusals] = 1.0
    state.duel_refusals += 1
    _set_phase(state, Phase.DUEL_BIDDER)
    _set_turn(state, state.high_bidder)


def _apply_dealer(state: State, action: int, rng: np.random.Generator) -> None:
    dealer = state.dealer
    _record_call(state, dealer, action)
    if action == PASS:
        _end_hand(state, rng, thrown_in=True)
    elif action == ACCEPT:
        _start_play(state, state.high_bid, state.high_bidder)
    elif action == REFUSE:
        _refuse(state)
    else:
        bid = action - BID + MIN_BID
        _set_high_bid(state, bid, dealer)
        _start_play(state, bid, dealer)


def _apply_duel_bidder(state: State, action: int, rng: np.random.Generator) -> None:
    if action == RAISE:
        state.rec[_R_RAISES + state.duel_raises] = 1.0
        state.duel_raises += 1
        _set_high_bid(state, state.high_bid + 1, state.high_bidder)
        _set_phase(state, Phase.DUEL_DEALER)
        _set_turn(state, state.dealer)
    else:  # CONCEDE
        _start_play(state, state.high_bid, state.dealer)


def _apply_duel_dealer(state: State, action: int, rng: np.random.Generator) -> None:
    if action == ACCEPT:
        _start_play(state, state.high_bid, state.high_bidder)
    else:  # REFUSE
        _refuse(state)


def _start_play(state: State, contract: int, declarer: int) -> None:
    state.contract, state.declarer = contract, declarer
    state.rec[_R_CONTRACT + contract - MIN_BID] = 1.0
    state.rec[_R_DECLARER + declarer] = 1.0
    _set_phase(state, Phase.PLAY)
    _set_leader(state, declarer)


def _apply_play(state: State, action: int, rng: np.random.Generator) -> None:
    seat, rec = state.to_act, state.rec
    if action == TAKE_A_LEAD:
        state.lead_handed_over = True
        rec[_R_HANDED] = 1.0
        _set_leader(state, (seat + 2) % N_SEATS)
        return
    card, pos, k = action - CARD, state.trick_len, state.tricks_done
    city = _CITY_OF[card]
    state.hands[seat, card] = False
    state.held[seat, action] = 0
    state.played[seat, card] = True
    state.trick[pos] = card
    state.trick_len = pos + 1
    state.trick_of_card[card] = k
    rec[_R_HAND + N_CARDS * seat + card] = 0.0
    rec[_R_PLAYED + N_CARDS * seat + card] = 1.0
    rec[_R_TRICK + N_CARDS * pos + card] = 1.0
    rec[_R_CARD_TRICK + N_TRICKS * card + k] = 1.0
    if pos == 0:
        state.led_city = city
        rec[_R_LED + city] = 1.0
        if state.trump == NO_SUIT:
            state.trump = city
            rec[_R_TRUMP + city] = 1.0
    if pos + 1 < N_SEATS:  # _set_turn, inline
        state.to_act = nxt = (seat + 1) % N_SEATS
        rec[_R_TO_ACT + seat] = 0.0
        rec[_R_TO_ACT + nxt] = 1.0
    else:
        _end_trick(state, rng)


def _end_trick(state: State, rng: np.random.Generator) -> None:
    rec, k = state.rec, state.tricks_done
    cards = state.trick.tolist()
    winner = (state.leader + trick_winner(cards, state.led_city, state.trump, DECK)) % N_SEATS
    team = winner % 2
    points = 1
    if HEIR in cards:
        points += HEIR_POINTS
        state.heir_team = team
        rec[_R_HEIR + team] = 1.0
    if BOY in cards:
        points += BOY_POINTS
        state.boy_team = team
        rec[_R_BOY + team] = 1.0
    tricks = int(state.team_tricks[team]) + 1
    points += int(state.team_points[team])
    state.team_tricks[team] = rec[_R_TRICKS + team] = tricks
    state.team_points[team] = rec[_R_POINTS + team] = points
    state.trick_winners[k] = winner
    rec[_R_TRICK_WINNERS + N_TRICKS * winner + k] = 1.0
    # clear the trick
    rec[_R_TRICK : _R_TRICK + N_SEATS * N_CARDS] = _NO_TRICK
    rec[_R_LED + state.led_city] = 0.0
    state.trick.fill(NO_CARD)
    state.trick_len = 0
    state.led_city = NO_SUIT
    if state.lead_handed_over:
        state.lead_handed_over = False
        rec[_R_HANDED] = 0.0
    state.tricks_done = k + 1
    if k + 1 == N_TRICKS:
        _end_hand(state, rng, thrown_in=False)
    else:
        _set_leader(state, winner)


def hand_score(contract: int, declaring_points: int, defending_points: int) -> tuple[int, int]:
    """Score changes (declaring team, defending team) of a played hand."""
    declaring = declaring_points if declaring_points >= contract else -contract
    return declaring, max(defending_points, 0)


def _end_hand(state: State, rng: np.random.Generator, thrown_in: bool) -> None:
    """Score the hand (unless thrown in), then end the game or deal the next hand."""
    change = [0, 0]
    if not thrown_in:
        decl = state.declarer % 2
        change[decl], change[1 - decl] = hand_score(
            state.contract, int(state.team_points[decl]), int(state.team_points[1 - decl])
        )
    scores, target = state.scores, state.config.target_score
    reached = [False, False]
    for team in range(2):
        scores[team] += change[team]
        state.last_hand[team] = change[team]
        reached[team] = int(scores[team]) >= target
    state.hands_played += 1
    _write_scores(state)
    if not thrown_in and (reached[0] or reached[1]):
        state.terminated = True
        state.winner = state.declarer % 2 if reached[0] and reached[1] else reached.index(True)
    elif state.hands_played >= state.config.max_hands:
        state.truncated = True
    if state.terminated or state.truncated:
        _set_phase(state, Phase.OVER)
        state.rec[_R_TO_ACT + state.to_act] = 0.0
        if state.leader != NOBODY:
            state.rec[_R_LEADER + state.leader] = 0.0
            state.leader = NOBODY
        return
    state.dealer = (state.dealer + 1) % N_SEATS
    _start_hand(state, rng, None)


_APPLY: tuple[Callable[[State, int, np.random.Generator], None], ...] = (
    _apply_bid,
    _apply_dealer,
    _apply_duel_bidder,
    _apply_duel_dealer,
    _apply_play,
)


def apply(state: State, action: int, rng: np.random.Generator) -> None:
    """Play ``action`` (assumed legal: check ``state.mask`` first) for the seat to act."""
    _APPLY[state.phase](state, action, rng)
    _update_mask(state)


# ---------------------------------------------------------------------------------------
# Reading the state


def seat_to_act(state: State) -> int:
    return state.to_act


def scores(state: State) -> np.ndarray:
    return state.scores.copy()


def status(state: State) -> tuple[bool, bool, int]:
    """``(terminated, truncated, winner)``; winner is a team, or DRAW."""
    return state.terminated, state.truncated, state.winner
