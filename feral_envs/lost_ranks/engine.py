"""Lost Ranks, compiled: the game's rules, once, as numba kernels over one int32 row.

Small numba kernels over a *state row* (see :mod:`feral_envs.engine`); ``STATE`` names every
entry, and the keywords, cards and reset options are :mod:`feral_envs.lost_ranks.rules`. A
row is a whole game (its random stream, its ``variant`` and its position), so a batch of games
is a 2-D array, a clone is a copy, and the batch kernels step every game in one call.

Where the decoded view (``rules.State``) has (4, 53) hand and play masks, the row keeps one
entry per card: ``holder`` (the seat holding it), ``played_by`` (the seat that played it this
round) and ``pile`` (where its trick sent it); the round's plays in order (``plays``) and each
finished trick's winner (``trick_winners``) are kept as ``State`` has them. The observation
(``encoding.OBS``, float32) is written straight from these into the caller's buffer; the voids
a seat has shown are kept in the row (``voids_shown``), as an observer derives them from the
plays.

Randomness is drawn from the row's stream as the old pure-Python core drew it, which the
golden fixture pins (``permutation(53)``, redrawn while a Jack or the Spy is on top; a given
Trump Card: the other 52 cards shuffled): ``rng.StreamGenerator`` of the same words draws the
same decks.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from feral_envs.cards import CANNOT_WIN, NO_CARD, NO_SUIT, NO_WINNER
from feral_envs.core import DRAW
from feral_envs.engine.batch import batch_kernel
from feral_envs.engine.rng import N_WORDS, below, permutation, shuffle
from feral_envs.layout import Layout
from feral_envs.lost_ranks import encoding, rules

# ---------------------------------------------------------------------------------------------
# Sizes, seats, cards

N_ACTIONS = encoding.ACTIONS.size
N_SEATS = rules.N_SEATS
assert N_SEATS == 4  # _relative takes the seat difference modulo 4 as a bit mask
OBS_SHAPE = (encoding.OBS_SIZE,)
OBS_SIZE = encoding.OBS_SIZE
TEAM_OF_SEAT = np.array(rules.TEAM_OF_SEAT, dtype=np.int64)
RED, BLACK = rules.RED, rules.BLACK
COMPACT_DTYPES: tuple[str, ...] = ()
"""No integer dtype holds the observation: ``scores`` and ``round_points`` are points / 18."""

N_CARDS = rules.N_CARDS
SUIT_SIZE = 13  # cards per suit, its Jack included
HAND_SIZE = rules.HAND_SIZE
N_TRICKS = rules.N_TRICKS
PASS_SIZE = rules.PASS_SIZE
SPY = rules.SPY
JACKS = rules.JACKS
TARGET = rules.TARGET
LAST_ROUND = rules.LAST_ROUND

SUIT_OF = np.array(rules.DECK.suit_of, dtype=np.int64)
"""Suit of each card id (``NO_SUIT`` for the Spy)."""
POWER_OF = np.array(rules.DECK.power_of, dtype=np.int64)
"""Power of each card id within its suit (``CANNOT_WIN`` for the Jacks and the Spy)."""
SUIT_COLOUR = np.array(rules.SUIT_COLOUR, dtype=np.int64)
"""Colour (army) of each suit."""
JACK_INDEX = np.array([JACKS.index(c) if c in JACKS else -1 for c in range(N_CARDS)], np.int64)
"""Position of each card in ``JACKS`` (JS JH JD JC), -1 for the other cards."""

NO_SEAT = -1
"""``holder`` / ``played_by`` of a card nobody holds or has played."""
NO_PILE, VOID_PILE = -1, 2
"""``pile`` of a card not yet in a pile, and of a card of a void trick (else the army)."""

PASS, PLAY, GAME_OVER = int(rules.PASS), int(rules.PLAY), int(rules.GAME_OVER)
"""Phases (``rules.Phase``)."""
STANDARD, MASTER_OF_SPIES, TURNCOAT = (
    rules.VARIANTS.index(v) for v in ("standard", "master_of_spies", "turncoat")
)
"""``variant`` entries: indices into ``rules.VARIANTS``."""

# ---------------------------------------------------------------------------------------------
# The state row

STATE = Layout(
    ("rng", N_WORDS, "the game's random stream (xoshiro128** words, feral_envs.engine.rng)"),
    (
        "variant",
        1,
        "keyword variant: index into rules.VARIANTS (standard, master_of_spies, turncoat)",
    ),
    ("scores", 2, "game scores by army (red, black) after the finished rounds"),
    ("round", 1, "round number, 1-based (a tiebreaker round is numbered on)"),
    (
        "epoch",
        1,
        "rounds started in this game: 1 in its first round, whatever round that is "
        "(rules.State.epoch)",
    ),
    ("tiebreaker", 1, "1 in the one extra round played after a tie"),
    ("phase", 1, "PASS 0, PLAY 1, GAME_OVER 2"),
    ("winner", 1, "army that won, DRAW (-1) for a draw and while the game runs"),
    ("trump_card", 1, "card id of the round's Trump Card (an Infantry card)"),
    ("to_act", 1, "seat to act (after the game: the leader of the last trick)"),
    ("pass_step", 1, "which of its 3 pass choices the seat to act is making (0, 1: partner)"),
    (
        "pass_choice",
        N_SEATS * PASS_SIZE,
        "(4, 3): the cards each seat chose to pass, in order "
        "(NO_CARD: not chosen, or no pass this round)",
    ),
    ("leader", 1, "seat that leads (led) the current trick"),
    ("n_in_trick", 1, "cards played to the current trick (0..3)"),
    ("led_suit", 1, "suit of the current trick (NO_SUIT: no card yet, or the Spy led)"),
    ("tricks_done", 1, "tricks finished this round, void ones included (0..13)"),
    (
        "trick_winners",
        N_TRICKS,
        "by trick of this round: the seat that won it, NO_WINNER (-1) for a void trick "
        "and for the tricks not yet finished (rules.State.trick_results)",
    ),
    ("first_lead", 1, "card that must lead trick 1 (NO_CARD once led, or in the pass)"),
    ("trick", N_SEATS, "card ids of the current trick in play order (NO_CARD: not played)"),
    ("round_points", 2, "points scored so far this round, by army (red, black)"),
    (
        "holder",
        N_CARDS,
        "by card id: the seat holding it (NO_SEAT: the Trump Card, chosen for "
        "the pass and not yet exchanged, or played)",
    ),
    ("played_by", N_CARDS, "by card id: the seat that played it this round (NO_SEAT: none)"),
    (
        "plays",
        N_TRICKS * N_SEATS,
        "the card ids played this round in play order, trick k in entries 4k..4k+3 "
        "(NO_CARD: not yet played; rules.State.plays, and played_by of each is its seat)",
    ),
    (
        "pile",
        N_CARDS,
        "by card id: the army whose capture pile took it this round, VOID_PILE "
        "(2) for a void trick, NO_PILE (-1) for none",
    ),
    (
        "voids_shown",
        N_SEATS * 4,
        "(4 seats, 4 suits): 1 once the seat has played another card "
        "(the Spy included) to a trick led in that suit this round",
    ),
    (
        "deal",
        N_CARDS,
        "the round's deck: the Trump Card, then the 52 cards dealt, 13 to each "
        "seat in seat order (given hands: each in card-id order)",
    ),
)
"""The int32 state row of one game."""
ROW_SIZE = STATE.size

_VARIANT = STATE.variant.start
_SCORES = STATE.scores.start
_ROUND = STATE.round.start
_EPOCH = STATE.epoch.start
_TIEBREAKER = STATE.tiebreaker.start
_PHASE = STATE.phase.start
_WINNER = STATE.winner.start
_TRUMP_CARD = STATE.trump_card.start
_TO_ACT = STATE.to_act.start
_PASS_STEP = STATE.pass_step.start
_PASS_CHOICE = STATE.pass_choice.start
_LEADER = STATE.leader.start
_N_IN_TRICK = STATE.n_in_trick.start
_LED_SUIT = STATE.led_suit.start
_TRICKS_DONE = STATE.tricks_done.start
_TRICK_WINNERS = STATE.trick_winners.start
_FIRST_LEAD = STATE.first_lead.start
_TRICK = STATE.trick.start
_ROUND_POINTS = STATE.round_points.start
_HOLDER = STATE.holder.start
_PLAYED_BY = STATE.played_by.start
_PLAYS = STATE.plays.start
_PILE = STATE.pile.start
_VOIDS_SHOWN = STATE.voids_shown.start
_DEAL = STATE.deal.start

# Observation offsets (encoding.OBS), as plain ints for the kernels.
_OBS = encoding.OBS
_O_HAND = _OBS.hand.start
_O_TRUMP_CARD = _OBS.trump_card.start
_O_TRUMP_SUIT = _OBS.trump_suit.start
_O_TRUMP_ARMY = _OBS.trump_army.start
_O_ROUND = _OBS.round.start
_O_TIEBREAKER = _OBS.tiebreaker.start
_O_PASS_DIRECTION = _OBS.pass_direction.start
_O_SCORES = _OBS.scores.start
_O_ROUND_POINTS = _OBS.round_points.start
_O_PHASE = _OBS.phase.start
_O_PASS_STEP = _OBS.pass_step.start
_O_TO_PARTNER = _OBS.passed_to_partner.start
_O_TO_ENEMY = _OBS.passed_to_enemy.start
_O_FROM_PARTNER = _OBS.received_from_partner.start
_O_FROM_ENEMY = _OBS.received_from_enemy.start
_O_PLAYED = _OBS.played_me.start  # then left, partner, right: 53 each
_O_TRICK = _OBS.trick_0.start  # then trick_1, trick_2: 53 each
_O_TRICK_LEADER = _OBS.trick_leader.start
_O_LED_SUIT = _OBS.led_suit.start
_O_CAPTURED_MINE = _OBS.captured_mine.start
_O_CAPTURED_THEIRS = _OBS.captured_theirs.start
_O_VOID_PILE = _OBS.void_pile.start
_O_JACKS_PLAYED = _OBS.jacks_played.start
_O_VOIDS_SHOWN = _OBS.voids_shown.start
if not all(  # the kernel writes these blocks as "first block + k * 53"
    getattr(_OBS, a).start + N_CARDS == getattr(_OBS, b).start
    for a, b in (
        ("played_me", "played_left"),
        ("played_left", "played_partner"),
        ("played_partner", "played_right"),
        ("trick_0", "trick_1"),
        ("trick_1", "trick_2"),
    )
):
    raise ValueError("the played_* and trick_* observation blocks must be adjacent")


# ---------------------------------------------------------------------------------------------
# Seats and cards


@njit(cache=True)
def _partner(seat):
    return (seat + 2) % N_SEATS


@njit(cache=True)
def _pass_enemy(seat, round_number):
    """The enemy ``seat`` passes its third card to: left in odd rounds, right in even ones."""
    return (seat + 1) % N_SEATS if round_number % 2 == 1 else (seat + 3) % N_SEATS


@njit(cache=True)
def _relative(seat, viewer):
    """``seat`` as ``viewer`` sees it: 0 me, 1 left, 2 partner, 3 right."""
    return (seat + N_SEATS - viewer) & (N_SEATS - 1)


@njit(cache=True)
def _trump_suit(row):
    return SUIT_OF[row[_TRUMP_CARD]]


@njit(cache=True)
def _trump_colour(row):
    return SUIT_COLOUR[_trump_suit(row)]


@njit(cache=True)
def _is_active_jack(row, card):
    """A Jack of the Trump Card's colour."""
    return JACK_INDEX[card] >= 0 and SUIT_COLOUR[SUIT_OF[card]] == _trump_colour(row)


@njit(cache=True)
def _spy_points(row, army):
    """What capturing the Spy is worth to ``army`` (``rules.spy_points``)."""
    variant = row[_VARIANT]
    if variant == STANDARD or army == _trump_colour(row):
        return 2
    return 0 if variant == MASTER_OF_SPIES else 1


# ---------------------------------------------------------------------------------------------
# Starting a game and a round


@njit(cache=True)
def _begin_game(row, round_number, red, black, tiebreaker):
    """The fields of a new game before its first deal (the keywords are already written)."""
    row[_SCORES] = red
    row[_SCORES + 1] = black
    row[_ROUND] = round_number
    row[_EPOCH] = 0
    row[_TIEBREAKER] = tiebreaker
    row[_WINNER] = DRAW
    row[_LEADER] = 0
    row[_FIRST_LEAD] = NO_CARD


@njit(cache=True)
def _deal_from_deck(row):
    """``deal[1:]`` goes out 13 cards a seat, in seat order; the Trump Card is held by nobody."""
    row[_HOLDER : _HOLDER + N_CARDS] = NO_SEAT
    for i in range(N_CARDS - 1):
        row[_HOLDER + row[_DEAL + 1 + i]] = i // HAND_SIZE


@njit(cache=True)
def _flip_trump_and_deal(row):
    """Shuffle the 53 cards and flip the top one; a Jack or the Spy goes back and the deck
    is reshuffled (RULES.md: the Trump Card is an Infantry card)."""
    deck = row[_DEAL : _DEAL + N_CARDS]
    permutation(row, N_CARDS, deck)
    while deck[0] == SPY or JACK_INDEX[deck[0]] >= 0:
        permutation(row, N_CARDS, deck)
    row[_TRUMP_CARD] = deck[0]
    _deal_from_deck(row)


@njit(cache=True)
def _deal_around(row, trump):
    """A given Trump Card: the other 52 cards, in card-id order, shuffled and dealt."""
    row[_DEAL] = trump
    i = 1
    for card in range(N_CARDS):
        if card != trump:
            row[_DEAL + i] = card
            i += 1
    shuffle(row, row[_DEAL + 1 : _DEAL + N_CARDS], N_CARDS - 1)
    row[_TRUMP_CARD] = trump
    _deal_from_deck(row)


@njit(cache=True)
def _start_round(row, skip_pass):
    """Round ``round`` with its cards dealt: clear the round's fields, then the pass (or,
    skipped, the first lead)."""
    row[_EPOCH] += 1
    row[_PASS_STEP] = 0
    row[_PASS_CHOICE : _PASS_CHOICE + N_SEATS * PASS_SIZE] = NO_CARD
    row[_TRICK : _TRICK + N_SEATS] = NO_CARD
    row[_N_IN_TRICK] = 0
    row[_LED_SUIT] = NO_SUIT
    row[_TRICKS_DONE] = 0
    row[_TRICK_WINNERS : _TRICK_WINNERS + N_TRICKS] = NO_WINNER
    row[_ROUND_POINTS] = 0
    row[_ROUND_POINTS + 1] = 0
    row[_PLAYED_BY : _PLAYED_BY + N_CARDS] = NO_SEAT
    row[_PLAYS : _PLAYS + N_TRICKS * N_SEATS] = NO_CARD
    row[_PILE : _PILE + N_CARDS] = NO_PILE
    row[_VOIDS_SHOWN : _VOIDS_SHOWN + N_SEATS * 4] = 0
    if skip_pass:
        _start_play(row)
    else:
        row[_PHASE] = PASS
        row[_TO_ACT] = 0


@njit(cache=True)
def _start_play(row):
    """The holder of the lowest trump Infantry (not the Trump Card) must lead it."""
    row[_PHASE] = PLAY
    trump, first = row[_TRUMP_CARD], _trump_suit(row) * SUIT_SIZE
    card = first
    while card == trump or JACK_INDEX[card] >= 0:
        card += 1
    row[_FIRST_LEAD] = card
    row[_LEADER] = row[_HOLDER + card]
    row[_TO_ACT] = row[_HOLDER + card]


@njit(cache=True)
def new_game(row):
    """A fresh random game from the keywords and the stream in ``row`` (round 1, no
    scores, the pass first)."""
    _begin_game(row, 1, 0, 0, 0)
    _flip_trump_and_deal(row)
    _start_round(row, False)


def start(row: np.ndarray, config: rules.Config, options: dict) -> None:
    """Start a game in ``row`` from its stream words (``row[0:4]``, set by the caller), the
    keywords of ``config`` and the ``reset`` options. Bad options raise
    ``rules.parse_options``'s ``ValueError`` before ``row`` changes."""
    begin = rules.parse_options(options)
    row[_VARIANT] = rules.VARIANTS.index(config.variant)
    red, black = begin.scores
    _begin_game(row, begin.round, red, black, int(begin.tiebreaker))
    if begin.hands is not None:
        _deal_hands(row, begin.trump, begin.hands)
    elif begin.trump is not None:
        _deal_around(row, begin.trump)
    else:
        _flip_trump_and_deal(row)
    _start_round(row, begin.skip_pass)


def _deal_hands(row: np.ndarray, trump: int, hands: np.ndarray) -> None:
    """The given (4, 53) bool hands; ``deal`` lists the Trump Card, then each hand."""
    cards = [trump] + [int(c) for seat in range(N_SEATS) for c in np.flatnonzero(hands[seat])]
    row[STATE.deal.slice] = cards
    row[_TRUMP_CARD] = trump
    _deal_from_deck(row)


# ---------------------------------------------------------------------------------------------
# Legal actions


_ONE = np.int64(1)
SUIT_BITS = np.array(
    [sum(1 << c for c in range(N_CARDS) if SUIT_OF[c] == s) for s in range(4)], dtype=np.int64
)
"""Bit set (bit ``c`` for card ``c``) of each suit's 13 cards, its Jack included."""
NOT_SPY = np.int64(~(1 << SPY))


@njit(cache=True)
def _held_bits(row, seat):
    """The cards ``seat`` holds, as a bit set (bit ``c`` for card ``c``)."""
    bits = np.int64(0)
    for card in range(N_CARDS):
        bits |= np.int64(row[_HOLDER + card] == seat) << card
    return bits


@njit(cache=True)
def _legal_bits(row):
    """The legal actions (cards) of the seat to act as a bit set; 0 after the game. In the
    pass any card still held; following, a card of the led suit if the seat holds one (a
    Jack included; the Spy has no suit), else any; leading trick 1, the card that must lead
    it; leading later, any card but the Spy, which may lead only the last trick."""
    phase = row[_PHASE]
    if phase == GAME_OVER:
        return np.int64(0)
    held = _held_bits(row, row[_TO_ACT])
    if phase == PASS:
        return held
    if row[_N_IN_TRICK] > 0:
        suit = row[_LED_SUIT]
        if suit != NO_SUIT:
            follow = held & SUIT_BITS[suit]
            if follow != 0:
                return follow
        return held
    if row[_FIRST_LEAD] != NO_CARD:
        return held & (_ONE << row[_FIRST_LEAD])
    if row[_TRICKS_DONE] == N_TRICKS - 1:
        return held
    return held & NOT_SPY


@njit(cache=True)
def legal_mask(row, out):
    """``out[a] = 1`` for the legal actions (cards) of the seat to act; zeros after the game."""
    bits = _legal_bits(row)
    for card in range(N_CARDS):
        out[card] = (bits >> card) & 1


@njit(cache=True)
def is_legal(row, action):
    if action < 0 or action >= N_ACTIONS:
        return False
    return ((_legal_bits(row) >> action) & 1) == 1


@njit(cache=True)
def _random_legal(row, stream):
    """A uniform legal action, the ``below(stream, count)``-th legal card in card order; 0
    (and no draw) after the game."""
    bits = _legal_bits(row)
    if bits == 0:
        return 0
    count = 0
    rest = bits
    while rest != 0:
        rest &= rest - 1
        count += 1
    k = below(stream, count)
    for _ in range(k):
        bits &= bits - 1  # drop the lowest k legal cards
    card = 0
    while (bits >> card) & 1 == 0:
        card += 1
    return card


# ---------------------------------------------------------------------------------------------
# Applying an action


@njit(cache=True)
def apply(row, action):
    """Play the legal ``action`` (a card id) of the seat to act: a pass choice or a card."""
    if row[_PHASE] == PASS:
        _apply_pass(row, action)
    else:
        _apply_play(row, action)


@njit(cache=True)
def _apply_pass(row, card):
    """The card leaves the chooser's hand at once; all twelve change hands after the last."""
    seat, step = row[_TO_ACT], row[_PASS_STEP]
    row[_HOLDER + card] = NO_SEAT
    row[_PASS_CHOICE + seat * PASS_SIZE + step] = card
    if step < PASS_SIZE - 1:
        row[_PASS_STEP] = step + 1
        return
    row[_PASS_STEP] = 0
    if seat < N_SEATS - 1:
        row[_TO_ACT] = seat + 1
        return
    _exchange(row)
    _start_play(row)


@njit(cache=True)
def _exchange(row):
    """Choices 1 and 2 go to the partner, choice 3 to the enemy of the round."""
    for seat in range(N_SEATS):
        choice = _PASS_CHOICE + seat * PASS_SIZE
        row[_HOLDER + row[choice]] = _partner(seat)
        row[_HOLDER + row[choice + 1]] = _partner(seat)
        row[_HOLDER + row[choice + 2]] = _pass_enemy(seat, row[_ROUND])


@njit(cache=True)
def _apply_play(row, card):
    seat, n = row[_TO_ACT], row[_N_IN_TRICK]
    row[_HOLDER + card] = NO_SEAT
    row[_PLAYED_BY + card] = seat
    row[_TRICK + n] = card
    row[_PLAYS + row[_TRICKS_DONE] * N_SEATS + n] = card
    if n == 0:
        row[_LED_SUIT] = SUIT_OF[card]  # NO_SUIT when the Spy leads
        row[_FIRST_LEAD] = NO_CARD
    else:
        _show_void(row, seat, card)
    if n < N_SEATS - 1:
        row[_N_IN_TRICK] = n + 1
        row[_TO_ACT] = (seat + 1) % N_SEATS
        return
    _finish_trick(row)
    if row[_TRICKS_DONE] == N_TRICKS:
        _end_round(row)


@njit(cache=True)
def _show_void(row, seat, card):
    """A card not of the led suit shows that ``seat`` holds none of it."""
    led = row[_LED_SUIT]
    if led != NO_SUIT and SUIT_OF[card] != led:
        row[_VOIDS_SHOWN + seat * 4 + led] = 1


@njit(cache=True)
def trick_best(trick, n, led, trump):
    """Position of the winning card among ``trick[:n]``, or NO_WINNER if none can win (a
    void trick): the highest trump, else the highest card of the led suit; Jacks and the
    Spy never win. The one compiled statement of the rule (the solver reads it too)."""
    best_pos, best_key = NO_WINNER, -1
    for pos in range(n):
        card = trick[pos]
        power = POWER_OF[card]
        if power == CANNOT_WIN:
            continue
        suit = SUIT_OF[card]
        if suit == trump:
            key = 1000 + power
        elif suit == led:
            key = power
        else:
            continue
        if key > best_key:
            best_pos, best_key = pos, key
    return best_pos


@njit(cache=True)
def _trick_winner(row):
    """Position of the winning card of the full trick in the row, or NO_WINNER for a void
    trick."""
    return trick_best(row[_TRICK : _TRICK + N_SEATS], N_SEATS, row[_LED_SUIT], _trump_suit(row))


@njit(cache=True)
def _finish_trick(row):
    """The four cards go to the winner's army (scoring its rescued Active Jacks and the Spy)
    or, in a void trick, to the void pile (the leader leads again)."""
    leader = row[_LEADER]
    position = _trick_winner(row)
    if position == NO_WINNER:
        for pos in range(N_SEATS):
            row[_PILE + row[_TRICK + pos]] = VOID_PILE
        row[_TRICK_WINNERS + row[_TRICKS_DONE]] = NO_WINNER
    else:
        winner = (leader + position) % N_SEATS
        army = TEAM_OF_SEAT[winner]
        for pos in range(N_SEATS):
            card = row[_TRICK + pos]
            row[_PILE + card] = army
            if _is_active_jack(row, card):
                if TEAM_OF_SEAT[(leader + pos) % N_SEATS] == army:  # a rescue
                    row[_ROUND_POINTS + army] += 2
            elif card == SPY:
                row[_ROUND_POINTS + army] += _spy_points(row, army)
        row[_LEADER] = winner
        row[_TRICK_WINNERS + row[_TRICKS_DONE]] = winner
    row[_TO_ACT] = row[_LEADER]
    row[_TRICK : _TRICK + N_SEATS] = NO_CARD
    row[_N_IN_TRICK] = 0
    row[_LED_SUIT] = NO_SUIT
    row[_TRICKS_DONE] += 1


@njit(cache=True)
def _end_round(row):
    """Add the round's points; decide the game or deal the next round (``rules._end_round``):
    after a tiebreaker the higher score wins and level scores draw; otherwise once an army
    has ``TARGET`` or round ``LAST_ROUND`` is over the higher score wins, and level scores
    bring one more round."""
    row[_SCORES] += row[_ROUND_POINTS]
    row[_SCORES + 1] += row[_ROUND_POINTS + 1]
    red, black = row[_SCORES], row[_SCORES + 1]
    tiebreaker = row[_TIEBREAKER] != 0
    deciding = tiebreaker or max(red, black) >= TARGET or row[_ROUND] >= LAST_ROUND
    if deciding and (red != black or tiebreaker):
        row[_PHASE] = GAME_OVER
        row[_WINNER] = DRAW if red == black else (RED if red > black else BLACK)
        return
    row[_TIEBREAKER] = 1 if deciding else 0
    row[_ROUND] += 1
    _flip_trump_and_deal(row)
    _start_round(row, False)


# ---------------------------------------------------------------------------------------------
# Reading the game


@njit(cache=True)
def to_act(row):
    return row[_TO_ACT]


@njit(cache=True)
def status(row):
    """(terminated, truncated, winner): the game ends only by the rules, never truncated."""
    return row[_PHASE] == GAME_OVER, False, row[_WINNER]


@njit(cache=True)
def score(row, team):
    return row[_SCORES + team]


@njit(cache=True)
def observe(row, seat, out):
    """The observation of ``seat`` (``encoding.OBS``) written into ``out`` (flat)."""
    out[:] = 0
    _observe_round(row, seat, out)
    _observe_pass(row, seat, out)
    _observe_cards(row, seat, out)
    _observe_trick(row, seat, out)


@njit(cache=True)
def _observe_round(row, seat, out):
    """The Trump Card, round, scores and phase."""
    army = TEAM_OF_SEAT[seat]
    trump = row[_TRUMP_CARD]
    out[_O_TRUMP_CARD + trump] = 1
    out[_O_TRUMP_SUIT + SUIT_OF[trump]] = 1
    out[_O_TRUMP_ARMY + (0 if _trump_colour(row) == army else 1)] = 1
    out[_O_ROUND + row[_ROUND] - 1] = 1
    out[_O_TIEBREAKER] = row[_TIEBREAKER]
    out[_O_PASS_DIRECTION + (0 if row[_ROUND] % 2 == 1 else 1)] = 1
    out[_O_SCORES] = row[_SCORES + army] / TARGET
    out[_O_SCORES + 1] = row[_SCORES + 1 - army] / TARGET
    out[_O_ROUND_POINTS] = row[_ROUND_POINTS + army] / TARGET
    out[_O_ROUND_POINTS + 1] = row[_ROUND_POINTS + 1 - army] / TARGET
    out[_O_PHASE + row[_PHASE]] = 1


@njit(cache=True)
def _observe_pass(row, seat, out):
    """My pass choices; the cards passed to me once they have changed hands."""
    phase = row[_PHASE]
    if phase == PASS and seat == row[_TO_ACT]:
        out[_O_PASS_STEP + row[_PASS_STEP]] = 1
    mine = _PASS_CHOICE + seat * PASS_SIZE
    for step in range(PASS_SIZE):
        card = row[mine + step]
        if card != NO_CARD:
            out[(_O_TO_PARTNER if step < PASS_SIZE - 1 else _O_TO_ENEMY) + card] = 1
    if phase == PASS:
        return
    partners = _PASS_CHOICE + _partner(seat) * PASS_SIZE
    for step in range(PASS_SIZE - 1):
        card = row[partners + step]
        if card != NO_CARD:
            out[_O_FROM_PARTNER + card] = 1
    sender = (seat + 3) % N_SEATS if row[_ROUND] % 2 == 1 else (seat + 1) % N_SEATS
    card = row[_PASS_CHOICE + sender * PASS_SIZE + PASS_SIZE - 1]
    if card != NO_CARD:
        out[_O_FROM_ENEMY + card] = 1


@njit(cache=True)
def _observe_cards(row, seat, out):
    """Card by card: my hand, who played it, which pile it is in; the Jacks and voids. Read
    from each card's holder, player and pile alone (not from the order of the plays, which
    the seat does not see and a sampled world does not keep)."""
    army = TEAM_OF_SEAT[seat]
    for card in range(N_CARDS):
        out[_O_HAND + card] = row[_HOLDER + card] == seat
        player = row[_PLAYED_BY + card]
        if player != NO_SEAT:
            out[_O_PLAYED + _relative(player, seat) * N_CARDS + card] = 1
        pile = row[_PILE + card]
        if pile == VOID_PILE:
            out[_O_VOID_PILE + card] = 1
        elif pile == army:
            out[_O_CAPTURED_MINE + card] = 1
        elif pile != NO_PILE:
            out[_O_CAPTURED_THEIRS + card] = 1
    for jack in range(4):
        player = row[_PLAYED_BY + JACKS[jack]]
        if player != NO_SEAT:
            out[_O_JACKS_PLAYED + 4 * _relative(player, seat) + jack] = 1
    for other in range(N_SEATS):
        shown = _O_VOIDS_SHOWN + 4 * _relative(other, seat)
        for suit in range(4):
            out[shown + suit] = row[_VOIDS_SHOWN + other * 4 + suit]


@njit(cache=True)
def _observe_trick(row, seat, out):
    """The current trick's cards, its leader (in play) and its led suit."""
    for pos in range(row[_N_IN_TRICK]):
        out[_O_TRICK + pos * N_CARDS + row[_TRICK + pos]] = 1
    if row[_PHASE] == PLAY:
        out[_O_TRICK_LEADER + _relative(row[_LEADER], seat)] = 1
    if row[_LED_SUIT] != NO_SUIT:
        out[_O_LED_SUIT + row[_LED_SUIT]] = 1


# ---------------------------------------------------------------------------------------------
# Batches of games


@njit(cache=True)
def _set_rewards(row, points, red, black, rewards):
    """The AEC env's rewards for the step just applied (scores were ``red``, ``black``)."""
    if points:
        if row[_SCORES] != red or row[_SCORES + 1] != black:
            diff = np.float32((row[_SCORES] - red) - (row[_SCORES + 1] - black))
            for seat in range(N_SEATS):
                rewards[seat] = diff if TEAM_OF_SEAT[seat] == RED else -diff
    elif row[_PHASE] == GAME_OVER and row[_WINNER] != DRAW:
        for seat in range(N_SEATS):
            rewards[seat] = 1.0 if TEAM_OF_SEAT[seat] == row[_WINNER] else -1.0


@njit(cache=True)
def _outputs(row, i, obs, masks, seats):
    seat = row[_TO_ACT]
    seats[i] = seat
    observe(row, seat, obs[i])
    legal_mask(row, masks[i])


PARALLEL_FROM = 2_048
"""How many games a call of a batch kernel needs before it runs on numba's threads
(:mod:`feral_envs.engine.batch`): where ``step(random_actions())`` first ran faster on two
threads than on one, measured 2026-12-03 on the 2-core machine (quiet, workqueue threads;
``benchmarks/bench_threads.py``)."""


@batch_kernel(PARALLEL_FROM)
def step_batch(rows, actions, points, obs, masks, seats, rewards, terminated, truncated):
    """One step of every game: a finished game restarts (its action ignored), the others
    play ``actions[i]``; then each game's rewards, decision and status."""
    for i in prange(rows.shape[0]):
        row = rows[i]
        rewards[i, :] = 0
        if row[_PHASE] == GAME_OVER:
            new_game(row)
        else:
            red, black = row[_SCORES], row[_SCORES + 1]
            apply(row, actions[i])
            _set_rewards(row, points, red, black, rewards[i])
        _outputs(row, i, obs, masks, seats)
        terminated[i] = row[_PHASE] == GAME_OVER
        truncated[i] = False


@batch_kernel(PARALLEL_FROM)
def reset_batch(rows, obs, masks, seats):
    """``new_game`` in every row (stream and keywords set), then each game's decision."""
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


@njit(cache=True)
def scores_batch(rows, out):
    """``out[i, team] = score(rows[i], team)``: both teams' scores of every game."""
    for i in range(rows.shape[0]):  # two reads a game: threads would cost more
        out[i, 0] = score(rows[i], 0)
        out[i, 1] = score(rows[i], 1)


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


@batch_kernel(PARALLEL_FROM)
def random_batch(rows, rng_rows, out):
    """A uniform legal action of every game, drawn from ``rng_rows[i]`` (not the game's own
    stream); 0 for a game that is over."""
    for i in prange(rows.shape[0]):
        out[i] = _random_legal(rows[i], rng_rows[i])


@njit(cache=True)
def first_illegal(rows, actions):
    """Index of the first running game whose action is not legal, -1 if none."""
    for i in range(rows.shape[0]):
        if rows[i, _PHASE] != GAME_OVER and not is_legal(rows[i], actions[i]):
            return i
    return -1


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
