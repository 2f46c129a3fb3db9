"""Lost Ranks search: worlds sampled from one seat's observation, and the open-card solver.

**Worlds** (:func:`sample_from_observation`, :func:`sample_world`). A world is a full state
row drawn from what one seat sees, its observation (``encoding.OBS``, the array a bot gets),
plus the turn (who acts, and which of its three pass choices), which every player sees but
the observation of a seat not to act does not hold. :func:`sample_world` is that function
applied to ``observe(row, seat)`` and the row's turn, so the env's sampler and a bot's are
one function and two states that look the same to the seat give the same world for the same
``rng``. The world keeps:

* the round, the tiebreaker flag, both scores and the round's points, the Trump Card and the
  variant (the keyword);
* the seat's hand, its own pass choices and (after the exchange) the cards passed to it;
* every card played this round, by whom, and the pile it went to; the current trick, its
  leader and led suit; the voids shown;
* in play, the cards the seat passed stay with their receivers while unplayed.

It draws, uniformly where nothing constrains it and with no weighting by the others' past
choices:

* in the pass, the other 39 cards, 13 to each other seat, and the choices of the seats that
  have already chosen (uniform among their 13 cards);
* in play, the hidden cards among the other seats in the numbers each still holds, no seat
  getting a card of a suit it has shown void in. Cards go most-constrained first, each to an
  allowed seat in proportion to the room left in its hand; a draw that runs out of room is
  drawn again (close to, though not exactly, uniform over the consistent deals);
* the row's random stream (entries 0..3), which deals the later rounds: from ``rng``, never
  from the true row.

What the observation does not hold, and so the world does not either: the order of the
round's past plays (``plays`` keeps only the current trick; ``trick_winners`` is unknown,
``NO_WINNER``), the pass choices that did not involve the seat (``NO_CARD``), ``epoch`` (set
to the round number) and the round's deck (``deal``, read only when dealing). The seat
itself is an argument: the observation is ego-centric and shows the seat's army (the Trump
Card and ``trump_army``) but not which of its army's two seats it is, which decides only the
order of the pass (seat 0 chooses first). None of these changes the rest of the round's play
or its points.

**The solver** (:func:`solve`): see its docstring.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from feral_envs.cards import NO_CARD, NO_SUIT, NO_WINNER
from feral_envs.core import DRAW
from feral_envs.engine.rng import N_WORDS, below, shuffle, words_from
from feral_envs.lost_ranks import engine as E
from feral_envs.lost_ranks import rules
from feral_envs.lost_ranks.encoding import OBS

N_SEATS = E.N_SEATS
N_CARDS = E.N_CARDS
HAND_SIZE = E.HAND_SIZE
PASS_SIZE = E.PASS_SIZE
SUIT_SIZE = E.SUIT_SIZE
SUIT_OF = E.SUIT_OF
JACK_INDEX = E.JACK_INDEX
SUIT_COLOUR = E.SUIT_COLOUR
NO_SEAT = E.NO_SEAT
TRIES = 1000
"""Draws of a play-phase deal before giving up (``RuntimeError``); in practice one or two."""

_S = E.STATE
_DEAL = _S.deal.start
_EPOCH = _S.epoch.start
_FIRST_LEAD = _S.first_lead.start
_HOLDER = _S.holder.start
_LEADER = _S.leader.start
_LED_SUIT = _S.led_suit.start
_N_IN_TRICK = _S.n_in_trick.start
_PASS_CHOICE = _S.pass_choice.start
_PASS_STEP = _S.pass_step.start
_PHASE = _S.phase.start
_PILE = _S.pile.start
_PLAYED_BY = _S.played_by.start
_PLAYS = _S.plays.start
_ROUND = _S.round.start
_ROUND_POINTS = _S.round_points.start
_SCORES = _S.scores.start
_TIEBREAKER = _S.tiebreaker.start
_TO_ACT = _S.to_act.start
_TRICK = _S.trick.start
_TRICK_WINNERS = _S.trick_winners.start
_TRICKS_DONE = _S.tricks_done.start
_TRUMP_CARD = _S.trump_card.start
_VARIANT = _S.variant.start
_VOIDS_SHOWN = _S.voids_shown.start
_WINNER = _S.winner.start
_O_HAND = OBS.hand.start
_O_TRUMP_CARD = OBS.trump_card.start
_O_TRUMP_ARMY = OBS.trump_army.start
_O_ROUND = OBS.round.start
_O_TIEBREAKER = OBS.tiebreaker.start
_O_SCORES = OBS.scores.start
_O_ROUND_POINTS = OBS.round_points.start
_O_PHASE = OBS.phase.start
_O_PASS_STEP = OBS.pass_step.start
_O_TO_PARTNER = OBS.passed_to_partner.start
_O_TO_ENEMY = OBS.passed_to_enemy.start
_O_FROM_PARTNER = OBS.received_from_partner.start
_O_FROM_ENEMY = OBS.received_from_enemy.start
_O_PLAYED = OBS.played_me.start
_O_TRICK = OBS.trick_0.start
_O_TRICK_LEADER = OBS.trick_leader.start
_O_LED_SUIT = OBS.led_suit.start
_O_CAPTURED_MINE = OBS.captured_mine.start
_O_CAPTURED_THEIRS = OBS.captured_theirs.start
_O_VOID_PILE = OBS.void_pile.start
_O_VOIDS_SHOWN = OBS.voids_shown.start
N_ROUND_SLOTS = OBS.round.size

# What the world kernel reports (a negative code is a bad observation; see _PROBLEMS).
_OK = 0
_PROBLEMS = {
    -1: "the observation is of a finished game (no world to sample)",
    -2: "the seat's army does not match the observation (trump_army)",
    -3: "the turn does not match the observation (to_act / pass_step)",
    -4: "the observation's cards do not add up (hand, played and passed cards)",
    -5: "no deal consistent with the observation was found in TRIES draws",
}


@njit(cache=True)
def _first_set(obs, start, n):
    for i in range(n):
        if obs[start + i] > 0.5:
            return i
    return -1


@njit(cache=True)
def _points(x):
    """A points / TARGET entry of the observation back to whole points."""
    return int(np.floor(x * E.TARGET + 0.5))


@njit(cache=True)
def _world(obs, variant, seat, to_act, pass_step, stream, out):
    """Write into ``out`` (a state row whose stream words are already set) a world drawn
    with ``stream`` from ``seat``'s observation ``obs`` (module doc); 0, or a _PROBLEMS code."""
    phase = _first_set(obs, _O_PHASE, 3)
    if phase == E.GAME_OVER or phase < 0:
        return -1
    trump = _first_set(obs, _O_TRUMP_CARD, N_CARDS)
    colour = SUIT_COLOUR[SUIT_OF[trump]]
    army = colour if obs[_O_TRUMP_ARMY] > 0.5 else 1 - colour
    if seat % 2 != army:
        return -2
    round_number = _first_set(obs, _O_ROUND, N_ROUND_SLOTS) + 1
    row = out
    row[N_WORDS:] = 0
    row[_VARIANT] = variant
    row[_SCORES + army] = _points(obs[_O_SCORES])
    row[_SCORES + 1 - army] = _points(obs[_O_SCORES + 1])
    row[_ROUND] = round_number
    row[_EPOCH] = round_number
    row[_TIEBREAKER] = 1 if obs[_O_TIEBREAKER] > 0.5 else 0
    row[_PHASE] = phase
    row[_WINNER] = DRAW
    row[_TRUMP_CARD] = trump
    row[_PASS_CHOICE : _PASS_CHOICE + N_SEATS * PASS_SIZE] = NO_CARD
    row[_TRICK : _TRICK + N_SEATS] = NO_CARD
    row[_LED_SUIT] = NO_SUIT
    row[_TRICK_WINNERS : _TRICK_WINNERS + E.N_TRICKS] = NO_WINNER
    row[_FIRST_LEAD] = NO_CARD
    row[_ROUND_POINTS + army] = _points(obs[_O_ROUND_POINTS])
    row[_ROUND_POINTS + 1 - army] = _points(obs[_O_ROUND_POINTS + 1])
    row[_HOLDER : _HOLDER + N_CARDS] = NO_SEAT
    row[_PLAYED_BY : _PLAYED_BY + N_CARDS] = NO_SEAT
    row[_PLAYS : _PLAYS + E.N_TRICKS * N_SEATS] = NO_CARD
    row[_PILE : _PILE + N_CARDS] = E.NO_PILE
    row[_DEAL : _DEAL + N_CARDS] = NO_CARD
    holder = _HOLDER
    partner = (seat + 2) % N_SEATS
    enemy = (seat + 1) % N_SEATS if round_number % 2 == 1 else (seat + 3) % N_SEATS
    giver = (seat + 3) % N_SEATS if round_number % 2 == 1 else (seat + 1) % N_SEATS
    known = np.zeros(N_CARDS, np.bool_)  # cards whose place the world keeps
    known[trump] = True
    for card in range(N_CARDS):
        if obs[_O_HAND + card] > 0.5:
            row[holder + card] = seat
            known[card] = True
    # My own choices, in order: the partner's two (card-id order), then the enemy's.
    mine = _PASS_CHOICE + seat * PASS_SIZE
    n_mine = 0
    for card in range(N_CARDS):
        if obs[_O_TO_PARTNER + card] > 0.5:
            row[mine + n_mine] = card
            n_mine += 1
            known[card] = True
    for card in range(N_CARDS):
        if obs[_O_TO_ENEMY + card] > 0.5:
            if n_mine != PASS_SIZE - 1:
                return -4
            row[mine + PASS_SIZE - 1] = card
            n_mine += 1
            known[card] = True
    room = np.zeros(N_SEATS, np.int64)
    if phase == E.PASS:
        chosen = np.zeros(N_SEATS, np.int64)
        for s in range(N_SEATS):
            chosen[s] = PASS_SIZE if s < to_act else (pass_step if s == to_act else 0)
        if chosen[seat] != n_mine:
            return -3
        if (seat == to_act) != (_first_set(obs, _O_PASS_STEP, 3) >= 0):
            return -3
        hidden = np.empty(N_CARDS, np.int64)
        n_hidden = 0
        for card in range(N_CARDS):
            if not known[card]:
                hidden[n_hidden] = card
                n_hidden += 1
        if n_hidden != (N_SEATS - 1) * HAND_SIZE:
            return -4
        shuffle(stream, hidden, n_hidden)
        k = 0
        for s in range(N_SEATS):
            if s == seat:
                continue
            for i in range(HAND_SIZE):
                card = hidden[k]
                k += 1
                if i < chosen[s]:  # the first of a shuffled hand: a uniform choice
                    row[_PASS_CHOICE + s * PASS_SIZE + i] = card
                else:
                    row[holder + card] = s
        row[_TO_ACT] = to_act
        row[_PASS_STEP] = pass_step
        return _OK
    # The play phase (a round started at the play, reset option start="play", had no pass).
    if n_mine != PASS_SIZE and n_mine != 0:
        return -4
    n_from = 0
    for card in range(N_CARDS):
        if obs[_O_FROM_PARTNER + card] > 0.5:
            row[_PASS_CHOICE + partner * PASS_SIZE + n_from] = card
            n_from += 1
        if obs[_O_FROM_ENEMY + card] > 0.5:
            row[_PASS_CHOICE + giver * PASS_SIZE + PASS_SIZE - 1] = card
    played = np.zeros(N_SEATS, np.int64)
    total = 0
    for rel in range(N_SEATS):
        s = (seat + rel) % N_SEATS
        for card in range(N_CARDS):
            if obs[_O_PLAYED + rel * N_CARDS + card] > 0.5:
                row[_PLAYED_BY + card] = s
                played[s] += 1
                total += 1
                known[card] = True
                row[holder + card] = NO_SEAT
        for suit in range(4):
            row[_VOIDS_SHOWN + s * 4 + suit] = (
                1 if obs[_O_VOIDS_SHOWN + 4 * rel + suit] > 0.5 else 0
            )
    for card in range(N_CARDS):
        if obs[_O_CAPTURED_MINE + card] > 0.5:
            row[_PILE + card] = army
        elif obs[_O_CAPTURED_THEIRS + card] > 0.5:
            row[_PILE + card] = 1 - army
        elif obs[_O_VOID_PILE + card] > 0.5:
            row[_PILE + card] = E.VOID_PILE
    n_in_trick = 0
    for pos in range(N_SEATS - 1):
        card = _first_set(obs, _O_TRICK + pos * N_CARDS, N_CARDS)
        if card < 0:
            break
        row[_TRICK + pos] = card
        n_in_trick += 1
    leader = (seat + _first_set(obs, _O_TRICK_LEADER, N_SEATS)) % N_SEATS
    if (total - n_in_trick) % N_SEATS != 0:
        return -4
    tricks_done = (total - n_in_trick) // N_SEATS
    if (leader + n_in_trick) % N_SEATS != to_act:
        return -3
    led = _first_set(obs, _O_LED_SUIT, 4)
    row[_LED_SUIT] = NO_SUIT if led < 0 else led
    row[_LEADER] = leader
    row[_N_IN_TRICK] = n_in_trick
    row[_TRICKS_DONE] = tricks_done
    row[_TO_ACT] = to_act
    for pos in range(n_in_trick):
        row[_PLAYS + tricks_done * N_SEATS + pos] = row[_TRICK + pos]
    if tricks_done == 0 and n_in_trick == 0:
        first = SUIT_OF[trump] * SUIT_SIZE
        while first == trump or JACK_INDEX[first] >= 0:
            first += 1
        row[_FIRST_LEAD] = first
    # The cards I passed stay with their receivers while unplayed.
    for s in range(N_SEATS):
        if s != seat:
            room[s] = HAND_SIZE - played[s]
    for step in range(PASS_SIZE):
        card = row[mine + step]
        to = partner if step < PASS_SIZE - 1 else enemy
        if card != NO_CARD and row[_PLAYED_BY + card] == NO_SEAT:
            row[holder + card] = to
            room[to] -= 1
    hidden = np.empty(N_CARDS, np.int64)
    n_hidden = 0
    for card in range(N_CARDS):
        if not known[card] and row[holder + card] == NO_SEAT:
            hidden[n_hidden] = card
            n_hidden += 1
    if n_hidden != room.sum() or room.min() < 0:
        return -4
    if not _deal_hidden(row, seat, hidden, n_hidden, room, stream):
        return -5
    return _OK


@njit(cache=True)
def _deal_hidden(row, seat, hidden, n_hidden, room, stream):
    """Deal ``hidden[:n_hidden]`` to the seats other than ``seat``, ``room[s]`` each, none of
    a suit its ``voids_shown`` rules out (module doc); False if no draw fits."""
    allowed = np.zeros((n_hidden, N_SEATS), np.bool_)
    n_allowed = np.zeros(n_hidden, np.int64)
    for i in range(n_hidden):
        suit = SUIT_OF[hidden[i]]
        for s in range(N_SEATS):
            if s != seat and (suit == NO_SUIT or row[_VOIDS_SHOWN + s * 4 + suit] == 0):
                allowed[i, s] = True
                n_allowed[i] += 1
    order = np.empty(n_hidden, np.int64)
    sorted_order = np.empty(n_hidden, np.int64)
    owner = np.empty(n_hidden, np.int64)
    left = np.empty(N_SEATS, np.int64)
    for _ in range(TRIES):
        for i in range(n_hidden):
            order[i] = i
        shuffle(stream, order, n_hidden)
        k = 0
        for need in range(1, N_SEATS):  # most constrained first, random among equals
            for i in range(n_hidden):
                if n_allowed[order[i]] == need:
                    sorted_order[k] = order[i]
                    k += 1
        if k < n_hidden:
            return False  # a card no seat may hold
        left[:] = room
        ok = True
        for j in range(n_hidden):
            i = sorted_order[j]
            weight = 0
            for s in range(N_SEATS):
                if allowed[i, s] and left[s] > 0:
                    weight += left[s]
            if weight == 0:
                ok = False
                break
            pick = below(stream, weight)
            for s in range(N_SEATS):
                if allowed[i, s] and left[s] > 0:
                    if pick < left[s]:
                        owner[i] = s
                        left[s] -= 1
                        break
                    pick -= left[s]
        if ok:
            for i in range(n_hidden):
                row[_HOLDER + hidden[i]] = owner[i]
            return True
    return False


def sample_from_observation(
    observation: np.ndarray,
    config: rules.Config,
    seat: int,
    rng: np.random.Generator,
    to_act: int | None = None,
    pass_step: int | None = None,
) -> np.ndarray:
    """A world (a new state row) drawn with ``rng`` from ``seat``'s ``observation`` (module
    doc). ``to_act`` and ``pass_step`` are the turn: in play they follow from the observation
    (the trick's leader and its cards) and may be left out; in the pass they must be given
    unless ``seat`` is the one choosing (its ``pass_step`` is in its observation).
    ``ValueError`` names an observation that no game of these rules shows."""
    obs = np.asarray(observation, np.float32).reshape(-1)
    if obs.shape != (OBS.size,):
        raise ValueError(f"observation must have {OBS.size} entries, got shape {obs.shape}")
    if not isinstance(seat, (int, np.integer)) or not 0 <= seat < N_SEATS:
        raise ValueError(f"seat={seat!r} must be a seat 0..{N_SEATS - 1}")
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy Generator, got {type(rng).__name__}")
    phase = _first_set(obs, _O_PHASE, 3)
    step = _first_set(obs, _O_PASS_STEP, 3)
    if to_act is None or pass_step is None:
        if phase == E.PLAY:
            leader = (seat + _first_set(obs, _O_TRICK_LEADER, N_SEATS)) % N_SEATS
            n_in_trick = sum(
                _first_set(obs, _O_TRICK + pos * N_CARDS, N_CARDS) >= 0 for pos in range(3)
            )
            to_act, pass_step = (leader + n_in_trick) % N_SEATS, 0
        elif phase == E.PASS and step >= 0:
            to_act, pass_step = seat, step
        elif phase == E.PASS:
            raise ValueError(
                "in the pass, a seat not choosing does not see whose turn it is: give "
                "to_act and pass_step"
            )
    words = words_from(rng)  # the world's own stream: it deals the later rounds
    stream = words_from(rng).astype(np.int32)
    row = np.zeros(E.ROW_SIZE, np.int32)
    row[:N_WORDS] = words
    code = _world(
        obs,
        rules.VARIANTS.index(config.variant),
        int(seat),
        int(to_act),
        int(pass_step),
        stream,
        row,
    )
    if code == -5:
        raise RuntimeError(_PROBLEMS[code])
    if code != _OK:
        raise ValueError(_PROBLEMS[code])
    return row


def sample_world(
    row: np.ndarray, config: rules.Config, seat: int, rng: np.random.Generator
) -> np.ndarray:
    """A world consistent with what ``seat`` knows in the game ``row``:
    :func:`sample_from_observation` of its observation and the turn (module doc)."""
    obs = np.zeros(OBS.size, np.float32)
    E.observe(row, seat, obs)
    return sample_from_observation(obs, config, seat, rng, int(row[_TO_ACT]), int(row[_PASS_STEP]))


@njit(cache=True)
def rewind_to_play(row, out):
    """Write into ``out`` the round of ``row`` (a state row in the play phase, a world
    included) as it stood when its play began: every card played this round back in the hand
    of the seat that played it, the tricks, piles, voids shown and the round's points
    cleared, the first lead due. Replaying the round's plays in order from ``out`` gives
    ``row`` back (a world keeps no order of past plays: a bot that remembers it can replay
    its worlds, to check what the others would have played in them)."""
    out[:] = row
    for card in range(N_CARDS):
        seat = row[_PLAYED_BY + card]
        if seat != NO_SEAT:
            out[_HOLDER + card] = seat
        out[_PLAYED_BY + card] = NO_SEAT
        out[_PILE + card] = E.NO_PILE
    out[_PLAYS : _PLAYS + E.N_TRICKS * N_SEATS] = NO_CARD
    out[_TRICK : _TRICK + N_SEATS] = NO_CARD
    out[_N_IN_TRICK] = 0
    out[_LED_SUIT] = NO_SUIT
    out[_TRICKS_DONE] = 0
    out[_TRICK_WINNERS : _TRICK_WINNERS + E.N_TRICKS] = NO_WINNER
    out[_ROUND_POINTS] = 0
    out[_ROUND_POINTS + 1] = 0
    out[_VOIDS_SHOWN : _VOIDS_SHOWN + N_SEATS * 4] = 0
    E._start_play(out)


# ---------------------------------------------------------------------------------------------
# The open-card ("double dummy") solver

POWER_OF = E.POWER_OF
SPY = E.SPY
CANNOT_WIN = -1
INF = 1000
"""Above any margin (a round scores at most 6 for each army)."""
TT_BITS = 20
"""The transposition table holds ``2**TT_BITS`` positions at trick starts."""
_TT_MASK = (1 << TT_BITS) - 1
_FOLD = (1 << 40) - 1

# ctx entries (the round's fixed facts, one int64 array)
_C_TRUMP, _C_JACK_A, _C_JACK_B, _C_SPY_RED, _C_SPY_BLACK, _C_GEN, _C_LIMIT = range(7)
# the horizon: at a trick start with _C_STOP cards or fewer left in the hands, the search
# stops and scores the position with _estimate (_C_STOP 0: exact, to the end of the round)
_C_STOP, _C_JACK_WEIGHT = 7, 8
N_CTX = 9
# stats entries: nodes visited, 1 once the node limit stopped a search
_NODES, _STOPPED = 0, 1
MOVES = HAND_SIZE + 2
"""Width of the per-ply move buffer (a hand's candidates and their scores)."""


def _suit_masks() -> np.ndarray:
    masks = np.zeros(4, np.int64)
    for card in range(52):
        masks[card // SUIT_SIZE] |= 1 << card
    return masks


SUIT_MASK = _suit_masks()
"""Bitmask of each suit's 13 cards, its Jack included (the Spy, bit 52, is in none)."""
SPY_BIT = np.int64(1) << SPY


@njit(cache=True)
def _bit(card):
    return np.int64(1) << card


@njit(cache=True)
def _count(mask):
    n = 0
    while mask:
        mask &= mask - 1
        n += 1
    return n


@njit(cache=True)
def _trick_points(trick, leader, winner, ctx):
    """Red-minus-black points of a full trick won by seat ``winner``."""
    army = winner % 2
    sign = 1 if army == 0 else -1
    points = 0
    for pos in range(N_SEATS):
        card = trick[pos]
        if card == ctx[_C_JACK_A] or card == ctx[_C_JACK_B]:
            if ((leader + pos) % N_SEATS) % 2 == army:
                points += 2 * sign
        elif card == SPY:
            points += sign * ctx[_C_SPY_RED + army]
    return points


@njit(cache=True)
def _bounds(hands, trick, n, leader, ctx):
    """(most red can still gain, most black can): the Active Jacks unplayed or in the trick
    go to their owner's army at best, the Spy to either."""
    red, black = 0, 0
    for j in (ctx[_C_JACK_A], ctx[_C_JACK_B]):
        bit = _bit(j)
        if (hands[0] | hands[2]) & bit:
            red += 2
        elif (hands[1] | hands[3]) & bit:
            black += 2
        else:
            for pos in range(n):
                if trick[pos] == j:
                    if ((leader + pos) % N_SEATS) % 2 == 0:
                        red += 2
                    else:
                        black += 2
    spy = (hands[0] | hands[1] | hands[2] | hands[3]) & SPY_BIT
    for pos in range(n):
        if trick[pos] == SPY:
            spy = 1
    if spy:
        red += ctx[_C_SPY_RED]
        black += ctx[_C_SPY_BLACK]
    return red, black


@njit(cache=True)
def _estimate(hands, ctx):
    """Red-minus-black points guessed for the rest of the round at a trick start (the
    horizon): ``ctx[_C_JACK_WEIGHT]`` for each Active Jack still in a hand, to its holder's
    army; the Spy, which either army may capture, 0. Within :func:`_bounds`' limits for
    weights 0 to 2."""
    value = 0
    for j in (ctx[_C_JACK_A], ctx[_C_JACK_B]):
        bit = _bit(j)
        if (hands[0] | hands[2]) & bit:
            value += ctx[_C_JACK_WEIGHT]
        elif (hands[1] | hands[3]) & bit:
            value -= ctx[_C_JACK_WEIGHT]
    return value


@njit(cache=True)
def _legal(hands, seat, n, led):
    """Bitmask of the cards ``seat`` may play (the first lead of a round is the root's)."""
    hand = hands[seat]
    if n == 0:
        if hand == SPY_BIT:
            return hand
        return hand & ~SPY_BIT
    if led != NO_SUIT and hand & SUIT_MASK[led]:
        return hand & SUIT_MASK[led]
    return hand


@njit(cache=True)
def _candidates(hands, trick, n, seat, legal, out):
    """One card of each class of equivalent legal cards, into ``out``; their number. Two
    Infantry cards of a suit are equivalent when every card of that suit between them is
    the same seat's or out of play (not in a hand or the trick): each wins exactly what the
    other would. Jacks and the Spy are each their own class."""
    live = hands[0] | hands[1] | hands[2] | hands[3]
    for pos in range(n):
        live |= _bit(trick[pos])
    mine = hands[seat]
    k = 0
    for suit in range(4):
        if not legal & SUIT_MASK[suit]:
            continue
        run = False
        for index in range(SUIT_SIZE - 1, -1, -1):
            card = suit * SUIT_SIZE + index
            bit = _bit(card)
            if JACK_INDEX[card] >= 0:
                if legal & bit:
                    out[k] = card
                    k += 1
                continue
            if legal & bit:
                if not run:
                    out[k] = card
                    k += 1
                run = True
            elif live & bit:
                run = run and (mine & bit) != 0
    if legal & SPY_BIT:
        out[k] = SPY
        k += 1
    return k


@njit(cache=True)
def _order(hands, trick, n, leader, led, seat, ctx, moves, score, k, first):
    """Sort ``moves[:k]`` best-first by a cheap guess (``first``, the table's best move, in
    front): in a trick my side wins, dump the scoring cards and low cards; where the enemy
    wins, win it as cheaply as possible; lead high."""
    trump = ctx[_C_TRUMP]
    pos_best = E.trick_best(trick, n, led, trump)
    ours = pos_best != NO_WINNER and ((leader + pos_best) % N_SEATS) % 2 == seat % 2
    for i in range(k):
        card = moves[i]
        power = POWER_OF[card]
        scoring = card == SPY or card == ctx[_C_JACK_A] or card == ctx[_C_JACK_B]
        s = 0
        if n == 0:
            s = 20 + power if power != CANNOT_WIN else 0
            if SUIT_OF[card] == trump:
                s -= 5
        else:
            trick[n] = card
            new_best = E.trick_best(trick, n + 1, led, trump)
            wins = new_best == n
            if ours and not wins:
                s = 60 if scoring else 40 - power
            elif wins:
                s = 50 - power
                if SUIT_OF[card] == trump:
                    s -= 13
            else:
                s = 30 - power if not scoring else 0
            trick[n] = NO_CARD
        if card == first:
            s = 1000
        score[i] = s
    for i in range(1, k):  # insertion sort, descending
        j = i
        while j > 0 and score[j] > score[j - 1]:
            score[j], score[j - 1] = score[j - 1], score[j]
            moves[j], moves[j - 1] = moves[j - 1], moves[j]
            j -= 1


@njit(cache=True)
def _slot(hands, leader):
    x = np.int64(leader)
    for seat in range(N_SEATS):
        h = hands[seat]
        folded = (h ^ (h >> 20) ^ (h >> 40)) & _FOLD
        x = ((x * 1000003) ^ folded) & _FOLD
    return x & _TT_MASK


@njit(cache=False)  # recursive: numba's cache of it crashes on load
def _search(hands, trick, st, alpha, beta, ctx, tt_keys, tt_info, stats, buf):
    """The red-minus-black points still to score from this position under optimal play
    (red seats maximize, black minimize), exact inside ``(alpha, beta)``; a bound outside
    (fail-soft). ``st`` = (cards in the trick, leader, led suit), changed and restored."""
    stats[_NODES] += 1
    if stats[_NODES] > ctx[_C_LIMIT]:
        stats[_STOPPED] = 1
        return 0
    n, leader, led = st[0], st[1], st[2]
    seat = (leader + n) % N_SEATS
    red, black = _bounds(hands, trick, n, leader, ctx)
    if red == 0 and black == 0:
        return 0
    if alpha >= red:
        return red
    if beta <= -black:
        return -black
    first = NO_CARD
    slot = 0
    if n == 0 and ctx[_C_STOP] > 0:
        if _count(hands[0] | hands[1] | hands[2] | hands[3]) <= ctx[_C_STOP]:
            return _estimate(hands, ctx)
    if n == 0:
        slot = _slot(hands, leader)
        info = tt_info[slot]
        if (
            info[3] == ctx[_C_GEN]
            and info[4] == leader
            and tt_keys[slot, 0] == hands[0]
            and tt_keys[slot, 1] == hands[1]
            and tt_keys[slot, 2] == hands[2]
            and tt_keys[slot, 3] == hands[3]
        ):
            lo, hi = info[0], info[1]
            if lo >= beta:
                return lo
            if hi <= alpha:
                return hi
            if lo == hi:
                return lo
            alpha = max(alpha, lo)
            beta = min(beta, hi)
            first = info[2]
    alpha0, beta0 = alpha, beta
    ply = _count(hands[0] | hands[1] | hands[2] | hands[3])  # one buffer row per ply
    moves, score = buf[ply, 0], buf[ply, 1]
    k = _candidates(hands, trick, n, seat, _legal(hands, seat, n, led), moves)
    _order(hands, trick, n, leader, led, seat, ctx, moves, score, k, first)
    maximize = seat % 2 == 0
    best = -INF if maximize else INF
    best_move = moves[0]
    for i in range(k):
        card = moves[i]
        bit = _bit(card)
        hands[seat] ^= bit
        trick[n] = card
        if n == 0:
            st[2] = SUIT_OF[card]
        if n < N_SEATS - 1:
            st[0] = n + 1
            value = _search(hands, trick, st, alpha, beta, ctx, tt_keys, tt_info, stats, buf)
            st[0] = n
        else:
            led_now = st[2]
            pos = E.trick_best(trick, N_SEATS, led_now, ctx[_C_TRUMP])
            points = 0
            next_leader = leader
            if pos != NO_WINNER:
                next_leader = (leader + pos) % N_SEATS
                points = _trick_points(trick, leader, next_leader, ctx)
            if hands[0] | hands[1] | hands[2] | hands[3]:
                t0, t1, t2 = trick[0], trick[1], trick[2]
                st[0], st[1], st[2] = 0, next_leader, NO_SUIT
                trick[:] = NO_CARD
                value = points + _search(
                    hands,
                    trick,
                    st,
                    alpha - points,
                    beta - points,
                    ctx,
                    tt_keys,
                    tt_info,
                    stats,
                    buf,
                )
                trick[0], trick[1], trick[2] = t0, t1, t2
                st[0], st[1], st[2] = n, leader, led_now
            else:
                value = points
        if n == 0:
            st[2] = led
        trick[n] = NO_CARD
        hands[seat] ^= bit
        if maximize:
            if value > best:
                best, best_move = value, card
            if best > alpha:
                alpha = best
        else:
            if value < best:
                best, best_move = value, card
            if best < beta:
                beta = best
        if alpha >= beta:
            break
    if n == 0 and not stats[_STOPPED]:
        info = tt_info[slot]
        tt_keys[slot, 0], tt_keys[slot, 1] = hands[0], hands[1]
        tt_keys[slot, 2], tt_keys[slot, 3] = hands[2], hands[3]
        info[0] = best if best > alpha0 else -INF  # a lower bound unless it failed low
        info[1] = best if best < beta0 else INF  # an upper bound unless it failed high
        info[2], info[3], info[4] = best_move, ctx[_C_GEN], leader
    return best


@njit(cache=False)  # recursive: numba's cache of it crashes on load
def _solve_actions(hands, trick, st, ctx, actions, values, tt_keys, tt_info, stats):
    """``values[i]``: the red-minus-black points still to score after the seat to act plays
    ``actions[i]``, exactly (equivalent actions share one search)."""
    n, leader = st[0], st[1]
    seat = (leader + n) % N_SEATS
    legal = np.int64(0)
    for i in range(actions.shape[0]):
        legal |= _bit(actions[i])
    reps = np.empty(HAND_SIZE + 1, np.int64)
    k = _candidates(hands, trick, n, seat, legal, reps)
    rep_value = np.empty(k, np.int64)
    buf = np.zeros((N_CARDS + 1, 2, MOVES), np.int64)
    for r in range(k):
        rep_value[r] = _after(
            hands.copy(), trick.copy(), st.copy(), reps[r], ctx, tt_keys, tt_info, stats, buf
        )
        if stats[_STOPPED]:
            return
    for i in range(actions.shape[0]):
        values[i] = INF
        for r in range(k):
            if _equivalent(hands, trick, n, seat, actions[i], reps[r]):
                values[i] = rep_value[r]
                break


@njit(cache=True)
def _equivalent(hands, trick, n, seat, a, b):
    """Whether cards ``a`` and ``b`` of ``seat`` are in one class of :func:`_candidates`."""
    if a == b:
        return True
    if a == SPY or b == SPY or JACK_INDEX[a] >= 0 or JACK_INDEX[b] >= 0:
        return False
    if SUIT_OF[a] != SUIT_OF[b]:
        return False
    live = hands[0] | hands[1] | hands[2] | hands[3]
    for pos in range(n):
        live |= _bit(trick[pos])
    lo, hi = min(a, b), max(a, b)
    for card in range(lo + 1, hi):
        if JACK_INDEX[card] >= 0:
            continue
        if live & _bit(card) and not hands[seat] & _bit(card):
            return False
    return True


@njit(cache=False)  # recursive: numba's cache of it crashes on load
def _after(hands, trick, st, card, ctx, tt_keys, tt_info, stats, buf):
    """The red-minus-black points still to score once the seat to act plays ``card``."""
    n, leader = st[0], st[1]
    seat = (leader + n) % N_SEATS
    hands[seat] ^= _bit(card)
    trick[n] = card
    if n == 0:
        st[2] = SUIT_OF[card]
    if n < N_SEATS - 1:
        st[0] = n + 1
        return _mtd(hands, trick, st, ctx, tt_keys, tt_info, stats, buf)
    pos = E.trick_best(trick, N_SEATS, st[2], ctx[_C_TRUMP])
    points = 0
    next_leader = leader
    if pos != NO_WINNER:
        next_leader = (leader + pos) % N_SEATS
        points = _trick_points(trick, leader, next_leader, ctx)
    if not (hands[0] | hands[1] | hands[2] | hands[3]):
        return points
    st[0], st[1], st[2] = 0, next_leader, NO_SUIT
    trick[:] = NO_CARD
    return points + _mtd(hands, trick, st, ctx, tt_keys, tt_info, stats, buf)


@njit(cache=False)  # calls the recursive search: see _search
def _mtd(hands, trick, st, ctx, tt_keys, tt_info, stats, buf):
    """The exact value of the position (as :func:`_search` gives it) by null-window
    searches (MTD(f)): each asks whether the value reaches a bound, the table keeping what
    earlier ones found, until the lower and upper bounds meet."""
    red, black = _bounds(hands, trick, st[0], st[1], ctx)
    lo, hi = -black, red
    guess = 0 if lo <= 0 <= hi else lo
    while lo < hi:
        bound = guess + 1 if guess == lo else guess  # is the value >= bound?
        value = _search(hands, trick, st, bound - 1, bound, ctx, tt_keys, tt_info, stats, buf)
        if stats[_STOPPED]:
            return 0
        if value < bound:
            hi = value
        else:
            lo = value
        guess = value
    return lo


class _Table:
    """The transposition table, allocated on first use and shared by the solves of this
    process; each solve is a new generation (older entries never match)."""

    keys: np.ndarray | None = None
    info: np.ndarray | None = None
    generation = 0

    @classmethod
    def next(cls) -> tuple[np.ndarray, np.ndarray, int]:
        if cls.keys is None:
            cls.keys = np.zeros((1 << TT_BITS, N_SEATS), np.int64)
            cls.info = np.zeros((1 << TT_BITS, 5), np.int64)
        cls.generation += 1
        return cls.keys, cls.info, cls.generation


NO_LIMIT = 2**62
"""The node limit of an exact solve."""


def position(row: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The solver's compact position of a play-phase row: the hands as bitmasks, the
    trick's cards, (cards in the trick, leader, led suit), the round's facts (ctx)."""
    holder = row[_HOLDER : _HOLDER + N_CARDS]
    hands = np.zeros(N_SEATS, np.int64)
    for card in np.flatnonzero(holder >= 0):
        hands[holder[card]] |= np.int64(1) << int(card)
    trick = row[_TRICK : _TRICK + N_SEATS].astype(np.int64)
    st = np.array([row[_N_IN_TRICK], row[_LEADER], row[_LED_SUIT]], np.int64)
    trump_card = int(row[_TRUMP_CARD])
    active = [j for j in rules.JACKS if E._is_active_jack(row, j)]
    ctx = np.array(
        [
            SUIT_OF[trump_card],
            active[0],
            active[1],
            E._spy_points(row, rules.RED),
            E._spy_points(row, rules.BLACK),
            0,
            NO_LIMIT,
            0,
            0,
        ],
        np.int64,
    )
    return hands, trick, st, ctx


def _check_play(row: np.ndarray) -> None:
    if row[_PHASE] != E.PLAY:
        raise ValueError(
            "solve() needs the play phase; this game is in the "
            f"{rules.Phase(int(row[_PHASE])).name.lower().replace('_', ' ')} phase"
        )


def action_values(
    row: np.ndarray,
    node_limit: int = NO_LIMIT,
    stats: np.ndarray | None = None,
    horizon: int | None = None,
    jack_weight: int = 1,
) -> tuple[np.ndarray, np.ndarray | None]:
    """``(actions, values)``: the legal actions of the seat to act (play phase) and the
    value of each as :func:`solve` gives it; ``values`` is None when the search needed more
    than ``node_limit`` nodes. ``stats`` (two int64 entries, or None) adds the nodes visited
    and sets its second entry when the limit stopped the search.

    ``horizon`` (None: to the end of the round, exact) searches only that many tricks, the
    current one included, and scores the position after them with a guess of the rest of
    the round: ``jack_weight`` points (0, 1 or 2) for each Active Jack still in a hand, to
    its holder's army (the Spy 0). A horizon at or past the round's end is the exact
    solve."""
    _check_play(row)
    if horizon is not None and (not isinstance(horizon, (int, np.integer)) or horizon < 1):
        raise ValueError(f"horizon={horizon!r} must be an integer >= 1 (tricks) or None")
    if jack_weight not in (0, 1, 2):
        raise ValueError(f"jack_weight={jack_weight!r} must be 0, 1 or 2 (points)")
    mask = np.zeros(E.N_ACTIONS, np.int8)
    E.legal_mask(row, mask)
    actions = np.flatnonzero(mask).astype(np.int64)
    hands, trick, st, ctx = position(row)
    keys, info, generation = _Table.next()
    ctx[_C_GEN] = generation
    counter = np.zeros(2, np.int64)
    ctx[_C_LIMIT] = node_limit
    if horizon is not None:
        at_trick_start = int(sum(bin(int(h) & (2**53 - 1)).count("1") for h in hands))
        at_trick_start += int(st[0])
        stop = at_trick_start - N_SEATS * int(horizon)
        ctx[_C_STOP] = max(stop, 0)
        ctx[_C_JACK_WEIGHT] = jack_weight
    values = np.zeros(actions.size, np.int64)
    _solve_actions(hands, trick, st, ctx, actions, values, keys, info, counter)
    if stats is not None:
        stats[0] += counter[0]
        stats[1] |= counter[1]
    if counter[_STOPPED]:
        return actions, None
    army = int(row[_TO_ACT]) % 2
    scored = int(row[_ROUND_POINTS]) - int(row[_ROUND_POINTS + 1])
    sign = 1 if army == rules.RED else -1
    return actions, sign * (scored + values)


def solve(row: np.ndarray, config: rules.Config) -> dict[int, int]:
    """The open-card value of each legal action of the seat to act, in the play phase:
    ``{action: value}``, a value being the acting army's points this round (those already
    scored included) minus the other army's, when every card is seen and both armies then
    play to maximize their own margin (the Jack rescues and the Spy of the variant in force,
    ``row``'s ``variant``). ``ValueError`` outside the play phase.

    Alpha-beta over a compact position (the four hands as 53-bit masks, the trick), with a
    transposition table of trick starts (key: the hands and the leader; value: lower and
    upper bounds of the points still to score and the best move), move ordering (the
    table's move, then a cheap guess) and equivalent cards searched once (Infantry of a suit
    with nothing live between them but the same hand's cards). Every node is cut off by what
    the cards still out can score: an Active Jack only for its holder's army, the Spy for
    either; with no scoring card left the rest of the round is worth 0."""
    actions, values = action_values(row)
    return {int(a): int(v) for a, v in zip(actions, values, strict=True)}
