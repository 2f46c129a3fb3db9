"""Lost Heir, compiled: the game's rules, once, as numba kernels over a state row.

A game is one int32 row laid out by :data:`STATE` (see :mod:`feral_envs.engine` for the
contract every game's engine follows). The row holds the random stream, the keywords and the
game's fields in plain integers; the observation is not kept in the row but written from the
fields by :func:`observe`, field by field as ``encoding.OBS`` declares them.

A hand's cards are the deal (``deal``: seat ``k // 8`` was dealt card ``deal[k]``) and the trick
each card was played to (``trick_of_card``, -1 while held): a seat's hand, the cards it has
played and the card-trick table all follow from these two spans. Legal actions are computed
as a bit set (bit ``a`` for action ``a``; 47 actions fit an int64), from which the mask, the
legality check and the random legal action are all read: the rules of legality live once.

``start`` (plain Python) validates the ``reset`` options with the game's parser
(:func:`~feral_envs.lost_heir.rules.parse_options`); the kernels assume legal actions.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange

from feral_envs.cards import NO_CARD, NO_SUIT
from feral_envs.core import DRAW
from feral_envs.engine.batch import batch_kernel
from feral_envs.engine.rng import below, permutation
from feral_envs.layout import Layout
from feral_envs.lost_heir import rules
from feral_envs.lost_heir.encoding import (
    ACCEPT,
    BID,
    BOY,
    CARD,
    CONCEDE,
    DECK,
    HEIR,
    MAX_BID,
    MIN_BID,
    N_ACTIONS,
    N_RANKS,
    N_SEATS,
    N_TRICKS,
    OBS,
    PASS,
    RAISE,
    REFUSE,
    TAKE_A_LEAD,
)
from feral_envs.lost_heir.rules import (
    BOY_POINTS,
    CARDS_PER_HAND,
    HEIR_POINTS,
    N_CARDS,
    NO_CALL,
    NOBODY,
    TAKE_A_LEAD_CHOICES,
    Phase,
)

# The kernels find a card's city and power by arithmetic on its id; the deck says the same.
assert DECK.suit_of == tuple(c // N_RANKS for c in range(N_CARDS))
assert DECK.power_of == tuple(c % N_RANKS for c in range(N_CARDS))

N_TEAMS = 2
TEAM_OF_SEAT = np.array([0, 1, 0, 1], dtype=np.int64)
OBS_SHAPE = (OBS.size,)
OBS_SIZE = OBS.size

PHASE_BID = int(Phase.BID)
PHASE_DEALER = int(Phase.DEALER)
PHASE_DUEL_BIDDER = int(Phase.DUEL_BIDDER)
PHASE_DUEL_DEALER = int(Phase.DUEL_DEALER)
PHASE_PLAY = int(Phase.PLAY)
PHASE_OVER = int(Phase.OVER)

STATE = Layout(
    ("rng", 4, "the game's random stream (feral_envs.engine.rng): first dealer and deals"),
    ("target_score", 1, "keyword: a team with this many points or more after a hand wins"),
    (
        "take_a_lead",
        1,
        "keyword, an index into rules.TAKE_A_LEAD_CHOICES: 0 after_first_trick, "
        "1 after_second_trick (the first trick whose lead may be handed over is 1 + this)",
    ),
    ("max_hands", 1, "keyword: the game is truncated after this many hands"),
    ("phase", 1, "rules.Phase: PHASE_BID … PHASE_OVER"),
    ("dealer", 1, "seat dealing this hand"),
    ("to_act", 1, "seat to act (the last one to act once the game is over)"),
    (
        "deal",
        N_CARDS,
        "this hand's deal: seat k // 8 was dealt card deal[k] (the shuffled deck; "
        "given hands seat by seat in card order)",
    ),
    ("trick_of_card", N_CARDS, "trick index 0..7 each card was played to this hand; -1 if held"),
    ("trick", N_SEATS, "card ids of the current trick in play order; NO_CARD after the last"),
    ("trick_len", 1, "cards in the current trick (0..3; a full trick is resolved at once)"),
    ("leader", 1, "seat leading the current trick; NOBODY in bidding and once the game is over"),
    ("led_city", 1, "city of the current trick's first card; NO_SUIT before it"),
    ("trump", 1, "trump city, named by the declarer's first lead; NO_SUIT before it"),
    ("lead_handed_over", 1, "1 when the current lead was handed over by `take a lead`"),
    ("tricks_done", 1, "tricks completed this hand (0..8): the current trick's index"),
    ("trick_leaders", N_TRICKS, "seat that led trick k; NOBODY if not begun"),
    ("trick_winners", N_TRICKS, "seat that won trick k; NOBODY if not done"),
    ("team_tricks", N_TEAMS, "tricks won by each team this hand"),
    ("team_points", N_TEAMS, "tricks + 5 for W0 - 3 for T0, by team, this hand"),
    ("heir_team", 1, "team that took W0 this hand; NOBODY if not yet"),
    ("boy_team", 1, "team that took T0 this hand; NOBODY if not yet"),
    ("calls", N_SEATS, "action id of each seat's first call this hand; NO_CALL before it"),
    ("high_bid", 1, "current high bid 4..12; 0 if nobody has bid"),
    ("high_bidder", 1, "seat holding the high bid; NOBODY if none"),
    ("duel_refusals", 1, "refusals by the dealer this hand"),
    ("duel_raises", 1, "raises by the refused high bidder this hand"),
    ("contract", 1, "contract 4..12 once bidding ends; 0 before"),
    ("declarer", 1, "seat holding the contract; NOBODY during bidding"),
    ("scores", N_TEAMS, "game score of each team"),
    ("last_hand", N_TEAMS, "each team's score change in the previous hand"),
    ("hands_played", 1, "hands finished, thrown-in hands included"),
    ("terminated", 1, "1 when a team reached the target score"),
    ("truncated", 1, "1 when max_hands hands were played with no winner"),
    ("winner", 1, "winning team; DRAW while running or after a truncation"),
)
ROW_SIZE = STATE.size

# Span starts (numba reads module-level ints as compile-time constants).
TARGET_SCORE = STATE.target_score.start
TAKE_A_LEAD_RULE = STATE.take_a_lead.start  # the keyword (TAKE_A_LEAD is the action)
MAX_HANDS = STATE.max_hands.start
PHASE = STATE.phase.start
DEALER = STATE.dealer.start
TO_ACT = STATE.to_act.start
DEAL = STATE.deal.start
TRICK_OF_CARD = STATE.trick_of_card.start
TRICK = STATE.trick.start
TRICK_LEN = STATE.trick_len.start
LEADER = STATE.leader.start
LED_CITY = STATE.led_city.start
TRUMP = STATE.trump.start
LEAD_HANDED_OVER = STATE.lead_handed_over.start
TRICKS_DONE = STATE.tricks_done.start
TRICK_LEADERS = STATE.trick_leaders.start
TRICK_WINNERS = STATE.trick_winners.start
TEAM_TRICKS = STATE.team_tricks.start
TEAM_POINTS = STATE.team_points.start
HEIR_TEAM = STATE.heir_team.start
BOY_TEAM = STATE.boy_team.start
CALLS = STATE.calls.start
HIGH_BID = STATE.high_bid.start
HIGH_BIDDER = STATE.high_bidder.start
DUEL_REFUSALS = STATE.duel_refusals.start
DUEL_RAISES = STATE.duel_raises.start
CONTRACT = STATE.contract.start
DECLARER = STATE.declarer.start
SCORES = STATE.scores.start
LAST_HAND = STATE.last_hand.start
HANDS_PLAYED = STATE.hands_played.start
TERMINATED = STATE.terminated.start
TRUNCATED = STATE.truncated.start
WINNER = STATE.winner.start

# Observation offsets (encoding.OBS), seat blocks ordered me, left, partner, right and team
# blocks my team, their team.
OBS_HAND = OBS.hand.start
OBS_PLAYED = OBS.played.start  # + 32 * relative seat + card
OBS_TRICK = OBS.trick.start  # + 32 * position + card
OBS_LEADER = OBS.leader.start
OBS_LED_CITY = OBS.led_city.start
OBS_TRUMP = OBS.trump.start
OBS_CARD_TRICK = OBS.card_trick.start  # + 8 * card + trick
OBS_TRICK_LEADERS = OBS.trick_leaders.start  # + 8 * relative seat + trick
OBS_TRICK_WINNERS = OBS.trick_winners.start
OBS_CALLS = OBS.calls.start  # + N_CALL_KINDS * relative seat + call action id
OBS_DUEL_REFUSALS = OBS.duel_refusals.start
OBS_DUEL_RAISES = OBS.duel_raises.start
OBS_HIGH_BID = OBS.high_bid.start  # + bid - 4
OBS_HIGH_BIDDER = OBS.high_bidder.start
OBS_CONTRACT = OBS.contract.start  # + contract - 4
OBS_DECLARER = OBS.declarer.start
OBS_LEAD_HANDED_OVER = OBS.lead_handed_over.start
OBS_TRICKS = OBS.tricks.start
OBS_POINTS = OBS.points.start
OBS_HEIR = OBS.heir.start
OBS_BOY = OBS.boy.start
OBS_PHASE = OBS.phase.start
OBS_TO_ACT = OBS.to_act.start
OBS_MAY_TAKE_A_LEAD = OBS.may_take_a_lead.start
OBS_DEALER = OBS.dealer.start
OBS_SCORES = OBS.scores.start
OBS_SCORES_SCALED = OBS.scores_scaled.start
OBS_LAST_HAND = OBS.last_hand.start
OBS_HANDS_PLAYED = OBS.hands_played.start
OBS_HANDS_LEFT = OBS.hands_left.start
N_CALL_KINDS = OBS.calls.size // N_SEATS
assert N_CALL_KINDS == REFUSE + 1 and OBS.phase.size == len(Phase)

INT_LIMIT = 2**30
"""Keywords and starting scores must lie within +-INT_LIMIT to fit the int32 row with room
for the game's score changes (at most 12 a hand)."""


# ---------------------------------------------------------------------------------------
# Seats, teams, cards


@njit(cache=True)
def _relative(seat, other):
    """Block of ``other`` in ``seat``'s observation: 0 me, 1 left, 2 partner, 3 right."""
    return (other - seat) % N_SEATS


@njit(cache=True)
def _team_block(seat, team):
    """Block of ``team`` in ``seat``'s observation: 0 my team, 1 theirs."""
    return (team - seat) % N_TEAMS


@njit(cache=True)
def _city(card):
    return card // N_RANKS


@njit(cache=True)
def _power(card):
    return card % N_RANKS


# ---------------------------------------------------------------------------------------
# A new game, a new hand


@njit(cache=True)
def _begin_game(row, dealer, score0, score1):
    """The game-long fields of a new game (the keywords are already in the row)."""
    row[PHASE] = PHASE_BID
    row[DEALER] = dealer
    row[TO_ACT] = dealer
    row[SCORES] = score0
    row[SCORES + 1] = score1
    for team in range(N_TEAMS):
        row[LAST_HAND + team] = 0
    row[HANDS_PLAYED] = 0
    row[TERMINATED] = 0
    row[TRUNCATED] = 0
    row[WINNER] = DRAW


@njit(cache=True)
def _deal(row):
    """Shuffle; seat ``s`` gets cards ``8 s .. 8 s + 7`` of the shuffled deck."""
    permutation(row, N_CARDS, row[DEAL : DEAL + N_CARDS])


@njit(cache=True)
def _start_hand(row):
    """Reset every field of the hand (the deal is in the row); bidding starts left of the
    dealer."""
    for card in range(N_CARDS):
        row[TRICK_OF_CARD + card] = -1
    for pos in range(N_SEATS):
        row[TRICK + pos] = NO_CARD
        row[CALLS + pos] = NO_CALL
    row[TRICK_LEN] = 0
    row[LEADER] = NOBODY
    row[LED_CITY] = NO_SUIT
    row[TRUMP] = NO_SUIT
    row[LEAD_HANDED_OVER] = 0
    row[TRICKS_DONE] = 0
    for k in range(N_TRICKS):
        row[TRICK_LEADERS + k] = NOBODY
        row[TRICK_WINNERS + k] = NOBODY
    for team in range(N_TEAMS):
        row[TEAM_TRICKS + team] = 0
        row[TEAM_POINTS + team] = 0
    row[HEIR_TEAM] = NOBODY
    row[BOY_TEAM] = NOBODY
    row[HIGH_BID] = 0
    row[HIGH_BIDDER] = NOBODY
    row[DUEL_REFUSALS] = 0
    row[DUEL_RAISES] = 0
    row[CONTRACT] = 0
    row[DECLARER] = NOBODY
    row[PHASE] = PHASE_BID
    row[TO_ACT] = (row[DEALER] + 1) % N_SEATS


@njit(cache=True)
def new_game(row):
    """A fresh random game from the keywords and the stream in ``row``: the first dealer is
    drawn, then the first hand dealt (as the old ``new_game(config, rng, {})``)."""
    _begin_game(row, below(row, N_SEATS), 0, 0)
    _deal(row)
    _start_hand(row)


def _check_fits(what: str, value: int) -> None:
    if not -INT_LIMIT <= int(value) <= INT_LIMIT:
        raise ValueError(
            f"{what}={value} is too large for the compiled engine (at most {INT_LIMIT} in size)"
        )


def start(row: np.ndarray, config: rules.Config, options: dict[str, Any] | None) -> None:
    """Start a game in ``row`` from the stream words already in ``row[0:4]``: validate
    ``options`` with ``rules.parse_options`` (``ValueError``, ``row`` untouched), write the
    keywords, draw the dealer unless given, deal the first hand unless given."""
    dealer, hands, scores = rules.parse_options(config, options)
    _check_fits("target_score", config.target_score)
    _check_fits("max_hands", config.max_hands)
    for team in range(N_TEAMS):
        _check_fits(f"scores[{team}]", scores[team])
    row[TARGET_SCORE] = config.target_score
    row[TAKE_A_LEAD_RULE] = TAKE_A_LEAD_CHOICES.index(config.take_a_lead)
    row[MAX_HANDS] = config.max_hands
    if dealer is None:
        dealer = below(row, N_SEATS)
    _begin_game(row, int(dealer), int(scores[0]), int(scores[1]))
    if hands is None:
        _deal(row)
    else:  # hands[seat] holds 8 cards each: seat by seat, in card order
        row[DEAL : DEAL + N_CARDS] = np.nonzero(hands)[1]
    _start_hand(row)


# ---------------------------------------------------------------------------------------
# Legal actions, as a bit set: bit ``a`` is action ``a``


@njit(cache=True)
def _bit(action):
    return np.int64(1) << np.int64(action)


@njit(cache=True)
def _city_bits(city):
    """The card actions of ``city`` (8 consecutive ids)."""
    return np.int64(0xFF) << np.int64(CARD + N_RANKS * city)


@njit(cache=True)
def _held_bits(row, seat):
    """The card actions of the cards ``seat`` holds."""
    bits = np.int64(0)
    for k in range(CARDS_PER_HAND * seat, CARDS_PER_HAND * (seat + 1)):
        card = row[DEAL + k]
        held = row[TRICK_OF_CARD + card] < 0
        bits |= _bit(CARD + card) * np.int64(held)  # no branch: held or not is unpredictable
    return bits


@njit(cache=True)
def _bids_above_high_bid(row):
    bits = np.int64(0)
    for value in range(max(row[HIGH_BID] + 1, MIN_BID), MAX_BID + 1):
        bits |= _bit(BID + value - MIN_BID)
    return bits


@njit(cache=True)
def _may_take_a_lead(row):
    """The seat to act leads a trick whose lead may be handed over, and it was not yet."""
    return (
        row[PHASE] == PHASE_PLAY
        and row[TRICK_LEN] == 0
        and row[LEAD_HANDED_OVER] == 0
        and row[TRICKS_DONE] >= 1 + row[TAKE_A_LEAD_RULE]
    )


@njit(cache=True)
def _play_bits(row):
    """Follow the led city if able, else any card; a leader may also take a lead."""
    held = _held_bits(row, row[TO_ACT])
    if row[TRICK_LEN] > 0:
        follow = held & _city_bits(row[LED_CITY])
        return follow if follow != 0 else held
    if _may_take_a_lead(row):
        held |= _bit(TAKE_A_LEAD)
    return held


@njit(cache=True)
def _legal_bits(row):
    """The legal actions of the seat to act; none once the game is over."""
    phase = row[PHASE]
    if phase == PHASE_BID:  # pass, or a bid above the high bid
        return _bit(PASS) | _bids_above_high_bid(row)
    if phase == PHASE_DEALER:  # accept / refuse a high bid, or pass when nobody bid
        if row[HIGH_BID] > 0:
            return _bit(ACCEPT) | _bit(REFUSE) | _bids_above_high_bid(row)
        return _bit(PASS) | _bids_above_high_bid(row)
    if phase == PHASE_DUEL_BIDDER:  # concede, or raise by one below the highest bid
        if row[HIGH_BID] < MAX_BID:
            return _bit(CONCEDE) | _bit(RAISE)
        return _bit(CONCEDE)
    if phase == PHASE_DUEL_DEALER:
        return _bit(ACCEPT) | _bit(REFUSE)
    if phase == PHASE_PLAY:
        return _play_bits(row)
    return np.int64(0)


@njit(cache=True)
def legal_mask(row, out):
    """``out[a] = 1`` for each legal action ``a`` of the seat to act, else 0."""
    bits = _legal_bits(row)
    for action in range(N_ACTIONS):
        out[action] = (bits >> action) & 1


@njit(cache=True)
def is_legal(row, action):
    if action < 0 or action >= N_ACTIONS:
        return False
    return ((_legal_bits(row) >> action) & 1) == 1


# ---------------------------------------------------------------------------------------
# Bidding and the refusal duel


@njit(cache=True)
def _record_call(row, seat, action):
    """A seat's first call of the hand is what the others see."""
    if row[CALLS + seat] == NO_CALL:
        row[CALLS + seat] = action


@njit(cache=True)
def _set_high_bid(row, bid, seat):
    row[HIGH_BID] = bid
    row[HIGH_BIDDER] = seat


@njit(cache=True)
def _apply_bid(row, action):
    """A non-dealer's one call; after the dealer's right-hand neighbour the dealer calls."""
    seat = row[TO_ACT]
    _record_call(row, seat, action)
    if action != PASS:
        _set_high_bid(row, action - BID + MIN_BID, seat)
    nxt = (seat + 1) % N_SEATS
    if nxt == row[DEALER]:
        row[PHASE] = PHASE_DEALER
    row[TO_ACT] = nxt


@njit(cache=True)
def _refuse(row):
    """The dealer refuses the high bid: the high bidder answers."""
    row[DUEL_REFUSALS] += 1
    row[PHASE] = PHASE_DUEL_BIDDER
    row[TO_ACT] = row[HIGH_BIDDER]


@njit(cache=True)
def _apply_dealer(row, action):
    dealer = row[DEALER]
    _record_call(row, dealer, action)
    if action == PASS:  # nobody bid: the hand is thrown in
        _end_hand(row, True)
    elif action == ACCEPT:
        _start_play(row, row[HIGH_BID], row[HIGH_BIDDER])
    elif action == REFUSE:
        _refuse(row)
    else:  # the dealer bids over and wins the contract
        bid = action - BID + MIN_BID
        _set_high_bid(row, bid, dealer)
        _start_play(row, bid, dealer)


@njit(cache=True)
def _apply_duel_bidder(row, action):
    if action == RAISE:  # by exactly one; the dealer answers
        row[DUEL_RAISES] += 1
        _set_high_bid(row, row[HIGH_BID] + 1, row[HIGH_BIDDER])
        row[PHASE] = PHASE_DUEL_DEALER
        row[TO_ACT] = row[DEALER]
    else:  # CONCEDE: the dealer plays at the high bid
        _start_play(row, row[HIGH_BID], row[DEALER])


@njit(cache=True)
def _apply_duel_dealer(row, action):
    if action == ACCEPT:
        _start_play(row, row[HIGH_BID], row[HIGH_BIDDER])
    else:  # REFUSE
        _refuse(row)


# ---------------------------------------------------------------------------------------
# Play


@njit(cache=True)
def _set_leader(row, seat):
    """``seat`` leads the current trick (and is to act)."""
    row[LEADER] = seat
    row[TRICK_LEADERS + row[TRICKS_DONE]] = seat
    row[TO_ACT] = seat


@njit(cache=True)
def _start_play(row, contract, declarer):
    """Bidding is over: the declarer leads the first trick."""
    row[CONTRACT] = contract
    row[DECLARER] = declarer
    row[PHASE] = PHASE_PLAY
    _set_leader(row, declarer)


@njit(cache=True)
def _apply_play(row, action):
    seat = row[TO_ACT]
    if action == TAKE_A_LEAD:  # the partner leads instead, and cannot hand it back
        row[LEAD_HANDED_OVER] = 1
        _set_leader(row, (seat + 2) % N_SEATS)
        return
    card = action - CARD
    pos = row[TRICK_LEN]
    row[TRICK + pos] = card
    row[TRICK_LEN] = pos + 1
    row[TRICK_OF_CARD + card] = row[TRICKS_DONE]
    if pos == 0:  # the lead sets the led city; the declarer's first lead names trump
        row[LED_CITY] = _city(card)
        if row[TRUMP] == NO_SUIT:
            row[TRUMP] = _city(card)
    if pos + 1 < N_SEATS:
        row[TO_ACT] = (seat + 1) % N_SEATS
    else:
        _end_trick(row)


@njit(cache=True)
def trick_best(trick, n, led, trump):
    """Position of the winning card among ``trick[:n]`` (in play order; -1 if none is of the
    led city or trump): the highest trump, or the highest card of the led city if no trump.
    The one compiled statement of the rule (the heuristic bot reads it too)."""
    best_pos, best_key = -1, -1
    for pos in range(n):
        card = trick[pos]
        if _city(card) == trump:
            key = N_RANKS + _power(card)
        elif _city(card) == led:
            key = _power(card)
        else:
            continue
        if key > best_key:
            best_pos, best_key = pos, key
    return best_pos


@njit(cache=True)
def _trick_winner(row):
    """The seat that wins the full trick (:func:`trick_best`)."""
    best = trick_best(row[TRICK : TRICK + N_SEATS], N_SEATS, row[LED_CITY], row[TRUMP])
    return (row[LEADER] + best) % N_SEATS


@njit(cache=True)
def _end_trick(row):
    """Score the full trick for the winner's team; the winner leads the next one."""
    winner = _trick_winner(row)
    team = winner % N_TEAMS
    points = 1
    for pos in range(N_SEATS):
        card = row[TRICK + pos]
        if card == HEIR:
            points += HEIR_POINTS
            row[HEIR_TEAM] = team
        elif card == BOY:
            points += BOY_POINTS
            row[BOY_TEAM] = team
        row[TRICK + pos] = NO_CARD
    row[TEAM_TRICKS + team] += 1
    row[TEAM_POINTS + team] += points
    k = row[TRICKS_DONE]
    row[TRICK_WINNERS + k] = winner
    row[TRICK_LEN] = 0
    row[LED_CITY] = NO_SUIT
    row[LEAD_HANDED_OVER] = 0
    row[TRICKS_DONE] = k + 1
    if k + 1 == N_TRICKS:
        _end_hand(row, False)
    else:
        _set_leader(row, winner)


# ---------------------------------------------------------------------------------------
# Scoring, the end of a hand and of the game


@njit(cache=True)
def _add_score(row, team, change):
    row[SCORES + team] += change
    row[LAST_HAND + team] = change


@njit(cache=True)
def _score_hand(row):
    """The declaring team scores its points if they reach the contract, else loses the
    contract; the other team scores its points, but never less than 0."""
    declaring_team = row[DECLARER] % N_TEAMS
    for team in range(N_TEAMS):
        points = row[TEAM_POINTS + team]
        if team == declaring_team:
            _add_score(row, team, points if points >= row[CONTRACT] else -row[CONTRACT])
        else:
            _add_score(row, team, max(points, 0))


@njit(cache=True)
def _end_hand(row, thrown_in):
    """Score the hand (unless thrown in), then end the game or deal the next hand."""
    if thrown_in:
        for team in range(N_TEAMS):
            _add_score(row, team, 0)
    else:
        _score_hand(row)
    row[HANDS_PLAYED] += 1
    reached0 = row[SCORES] >= row[TARGET_SCORE]
    reached1 = row[SCORES + 1] >= row[TARGET_SCORE]
    if not thrown_in and (reached0 or reached1):
        row[TERMINATED] = 1
        if reached0 and reached1:  # both: the declaring team wins
            row[WINNER] = row[DECLARER] % N_TEAMS
        else:
            row[WINNER] = 0 if reached0 else 1
    elif row[HANDS_PLAYED] >= row[MAX_HANDS]:
        row[TRUNCATED] = 1
    if row[TERMINATED] or row[TRUNCATED]:
        row[PHASE] = PHASE_OVER
        row[LEADER] = NOBODY
        return
    row[DEALER] = (row[DEALER] + 1) % N_SEATS  # the deal passes left
    _deal(row)
    _start_hand(row)


@njit(cache=True)
def apply(row, action):
    """Play ``action`` (legal: see ``is_legal``) for the seat to act."""
    phase = row[PHASE]
    if phase == PHASE_BID:
        _apply_bid(row, action)
    elif phase == PHASE_DEALER:
        _apply_dealer(row, action)
    elif phase == PHASE_DUEL_BIDDER:
        _apply_duel_bidder(row, action)
    elif phase == PHASE_DUEL_DEALER:
        _apply_duel_dealer(row, action)
    elif phase == PHASE_PLAY:
        _apply_play(row, action)


# ---------------------------------------------------------------------------------------
# Reading the state


@njit(cache=True)
def to_act(row):
    return row[TO_ACT]


@njit(cache=True)
def status(row):
    """``(terminated, truncated, winner)``; winner is a team, or DRAW."""
    return row[TERMINATED] != 0, row[TRUNCATED] != 0, row[WINNER]


@njit(cache=True)
def score(row, team):
    return row[SCORES + team]


@njit(cache=True)
def _over(row):
    return row[TERMINATED] != 0 or row[TRUNCATED] != 0


# ---------------------------------------------------------------------------------------
# The observation (encoding.OBS), written field by field into a zeroed ``out``


@njit(cache=True)
def _observe_cards(row, seat, out):
    """My hand; the cards each seat has played; the trick each card was played to."""
    for k in range(N_CARDS):
        card = row[DEAL + k]
        owner = k // CARDS_PER_HAND
        trick = row[TRICK_OF_CARD + card]
        if trick < 0:
            if owner == seat:
                out[OBS_HAND + card] = 1
        else:
            out[OBS_PLAYED + N_CARDS * _relative(seat, owner) + card] = 1
            out[OBS_CARD_TRICK + N_TRICKS * card + trick] = 1


@njit(cache=True)
def _observe_tricks(row, seat, out):
    """The current trick, its leader, led city and trump; who led and won each trick."""
    for pos in range(row[TRICK_LEN]):
        out[OBS_TRICK + N_CARDS * pos + row[TRICK + pos]] = 1
    if row[LEADER] != NOBODY:
        out[OBS_LEADER + _relative(seat, row[LEADER])] = 1
    if row[LED_CITY] != NO_SUIT:
        out[OBS_LED_CITY + row[LED_CITY]] = 1
    if row[TRUMP] != NO_SUIT:
        out[OBS_TRUMP + row[TRUMP]] = 1
    for k in range(N_TRICKS):
        leader = row[TRICK_LEADERS + k]
        if leader != NOBODY:
            out[OBS_TRICK_LEADERS + N_TRICKS * _relative(seat, leader) + k] = 1
        winner = row[TRICK_WINNERS + k]
        if winner != NOBODY:
            out[OBS_TRICK_WINNERS + N_TRICKS * _relative(seat, winner) + k] = 1
    out[OBS_LEAD_HANDED_OVER] = row[LEAD_HANDED_OVER]


@njit(cache=True)
def _observe_bidding(row, seat, out):
    """Each seat's first call, the duel's thermometers, the high bid and the contract."""
    for other in range(N_SEATS):
        call = row[CALLS + other]
        if call != NO_CALL:
            out[OBS_CALLS + N_CALL_KINDS * _relative(seat, other) + call] = 1
    for i in range(row[DUEL_REFUSALS]):
        out[OBS_DUEL_REFUSALS + i] = 1
    for i in range(row[DUEL_RAISES]):
        out[OBS_DUEL_RAISES + i] = 1
    if row[HIGH_BID] > 0:
        out[OBS_HIGH_BID + row[HIGH_BID] - MIN_BID] = 1
        out[OBS_HIGH_BIDDER + _relative(seat, row[HIGH_BIDDER])] = 1
    if row[CONTRACT] > 0:
        out[OBS_CONTRACT + row[CONTRACT] - MIN_BID] = 1
        out[OBS_DECLARER + _relative(seat, row[DECLARER])] = 1


@njit(cache=True)
def _observe_hand_points(row, seat, out):
    """Tricks and card points of each team this hand; who took W0 and T0."""
    for team in range(N_TEAMS):
        block = _team_block(seat, team)
        out[OBS_TRICKS + block] = row[TEAM_TRICKS + team]
        out[OBS_POINTS + block] = row[TEAM_POINTS + team]
    if row[HEIR_TEAM] != NOBODY:
        out[OBS_HEIR + _team_block(seat, row[HEIR_TEAM])] = 1
    if row[BOY_TEAM] != NOBODY:
        out[OBS_BOY + _team_block(seat, row[BOY_TEAM])] = 1


@njit(cache=True)
def _observe_game(row, seat, out):
    """The phase, the seat to act, the dealer, the scores and the hands count."""
    out[OBS_PHASE + row[PHASE]] = 1
    if row[PHASE] != PHASE_OVER:
        out[OBS_TO_ACT + _relative(seat, row[TO_ACT])] = 1
    out[OBS_MAY_TAKE_A_LEAD] = 1 if _may_take_a_lead(row) else 0
    out[OBS_DEALER + _relative(seat, row[DEALER])] = 1
    for team in range(N_TEAMS):
        block = _team_block(seat, team)
        out[OBS_SCORES + block] = row[SCORES + team]
        out[OBS_SCORES_SCALED + block] = row[SCORES + team] / row[TARGET_SCORE]
        out[OBS_LAST_HAND + block] = row[LAST_HAND + team]
    out[OBS_HANDS_PLAYED] = row[HANDS_PLAYED]
    out[OBS_HANDS_LEFT] = row[MAX_HANDS] - row[HANDS_PLAYED]


@njit(cache=True)
def observe(row, seat, out):
    """The observation of ``seat`` (encoding.OBS, ego-centric) into ``out`` (OBS_SIZE)."""
    for i in range(OBS_SIZE):
        out[i] = 0
    _observe_cards(row, seat, out)
    _observe_tricks(row, seat, out)
    _observe_bidding(row, seat, out)
    _observe_hand_points(row, seat, out)
    _observe_game(row, seat, out)


# ---------------------------------------------------------------------------------------
# Batches: one row per game, the games independent (prange)


@njit(cache=True)
def _outputs(row, i, obs, masks, seats):
    seat = row[TO_ACT]
    seats[i] = seat
    observe(row, seat, obs[i])
    legal_mask(row, masks[i])


@njit(cache=True)
def _step_rewards(row, scores_before, points, rewards):
    """What each seat receives for the step just applied, as the AEC env gives it."""
    if points:  # my team's score change minus the other team's
        diff = (row[SCORES] - scores_before[0]) - (row[SCORES + 1] - scores_before[1])
        for seat in range(N_SEATS):
            rewards[seat] = diff if TEAM_OF_SEAT[seat] == 0 else -diff
    elif row[TERMINATED] != 0 and row[WINNER] != DRAW:
        for seat in range(N_SEATS):
            rewards[seat] = 1 if TEAM_OF_SEAT[seat] == row[WINNER] else -1


PARALLEL_FROM = 2_048
"""How many games a call of a batch kernel needs before it runs on numba's threads
(:mod:`feral_envs.engine.batch`): where ``step(random_actions())`` first ran faster on two
threads than on one, measured 2026-12-03 on the 2-core machine (quiet, workqueue threads;
``benchmarks/bench_threads.py``)."""


@batch_kernel(PARALLEL_FROM)
def step_batch(rows, actions, points, obs, masks, seats, rewards, terminated, truncated):
    """Step every game: a finished game restarts (``new_game``, its action ignored), any
    other plays its action; then the outputs of the seat to act."""
    for i in prange(rows.shape[0]):
        row = rows[i]
        for seat in range(N_SEATS):
            rewards[i, seat] = 0
        if _over(row):
            new_game(row)
        else:
            scores_before = (row[SCORES], row[SCORES + 1])
            apply(row, actions[i])
            _step_rewards(row, scores_before, points, rewards[i])
        _outputs(row, i, obs, masks, seats)
        terminated[i] = row[TERMINATED] != 0
        truncated[i] = row[TRUNCATED] != 0


@batch_kernel(PARALLEL_FROM)
def reset_batch(rows, obs, masks, seats):
    """A new game in every row (stream words and keywords already set by the caller)."""
    for i in prange(rows.shape[0]):
        new_game(rows[i])
        _outputs(rows[i], i, obs, masks, seats)


@batch_kernel(PARALLEL_FROM)
def observe_batch(rows, seats, obs):
    for i in prange(rows.shape[0]):
        observe(rows[i], seats[i], obs[i])


@batch_kernel(PARALLEL_FROM)
def masks_batch(rows, masks):
    for i in prange(rows.shape[0]):
        legal_mask(rows[i], masks[i])


@batch_kernel(PARALLEL_FROM)
def status_batch(rows, seats, terminated, truncated, winners):
    """Every game's seat to act and ``status``: ``seats[i] = to_act(rows[i])``,
    ``(terminated[i], truncated[i], winners[i]) = status(rows[i])``."""
    for i in prange(rows.shape[0]):
        seats[i] = to_act(rows[i])
        terminated[i], truncated[i], winners[i] = status(rows[i])


@batch_kernel(PARALLEL_FROM)
def apply_batch(rows, actions):
    """``apply(rows[i], actions[i])`` in every game whose ``actions[i] >= 0`` (a legal
    action); a game with a negative action is left as it is."""
    for i in prange(rows.shape[0]):
        if actions[i] >= 0:
            apply(rows[i], actions[i])


@njit(cache=True)
def scores_batch(rows, out):
    """``out[i, team] = score(rows[i], team)``: both teams' scores of every game."""
    for i in range(rows.shape[0]):  # two reads a game: threads would cost more
        out[i, 0] = score(rows[i], 0)
        out[i, 1] = score(rows[i], 1)


@njit(cache=True)
def _random_legal(row, rng_row):
    """A uniform legal action: the k-th legal one, k = below(rng_row, number legal)."""
    bits = _legal_bits(row)
    count = 0
    rest = bits
    while rest != 0:
        rest &= rest - 1
        count += 1
    if count == 0:
        return 0
    k = below(rng_row, count)
    for action in range(N_ACTIONS):
        if (bits >> action) & 1:
            if k == 0:
                return action
            k -= 1
    return 0


@batch_kernel(PARALLEL_FROM)
def random_batch(rows, rng_rows, out):
    """``out[i]``: a uniform legal action of game ``i``, drawn from ``rng_rows[i]`` (not the
    game's own stream, so that random opponents never change the deals); 0, and no draw, for
    a game that is over."""
    for i in prange(rows.shape[0]):
        out[i] = _random_legal(rows[i], rng_rows[i])


@batch_kernel(PARALLEL_FROM)
def first_illegal(rows, actions):
    """Index of the first game whose action is not legal (a finished game accepts any), -1
    if none."""
    n = rows.shape[0]
    first = n
    for i in prange(n):
        if not _over(rows[i]) and not is_legal(rows[i], actions[i]):
            first = min(first, i)
    return first if first < n else -1


# --- the AEC env's step and observation, one call each ----------------------------------


@njit(cache=True)
def play(row, action):
    """The AEC env's step in one call: ``-1`` (the row unchanged) if ``action`` is not legal;
    else ``apply`` it and return the seat to act, or ``N_SEATS`` if the game is over now
    (``status`` then says how)."""
    if not is_legal(row, action):
        return -1
    apply(row, action)
    terminated, truncated, _ = status(row)
    if terminated or truncated:
        return N_SEATS
    return to_act(row)


@njit(cache=True)
def observe_masked(row, seat, to_act, obs, mask):
    """The AEC env's ``observe`` in one call: ``observe(row, seat, obs)``, and into ``mask``
    the legal mask of the seat to act if ``to_act``, else zeros."""
    observe(row, seat, obs)
    if to_act:
        legal_mask(row, mask)
    else:
        mask[:] = 0
