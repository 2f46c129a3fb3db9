"""``heuristic`` for Lost Heir: a rule-based bidder and card player.

It reads only ``act``'s observation and action mask, decoded with the spans of
:data:`feral_envs.lost_heir.encoding.OBS` (seats ego-centric: me, left, partner, right), never
the env's state. It keeps no memory between calls: its hand, the cards played and by whom,
who led and won each trick and the bidding are all in the observation. Its generator only
breaks ties between equally good cards, so it is deterministic given its seed. After each
``act``, ``policy.rule`` names the rule that decided. Rules are tried in order; the first
that applies decides. ``docs/bots/lost_heir.md`` gives the reasons and the measurements.

The rules are compiled (numba): :func:`decide` reads one observation row and gives the action,
the rule and the equally good cards left to the generator; :func:`decide_batch` does it for
many rows in one call. The bot is also a :class:`~agents.base.BatchPolicy` (``act_lanes``: one
kernel call for all the lanes asking, each lane's ties broken by its own generator). The
compiled rules replaced Python ones in 2026-12; they replay the Python bot's golden games
(``tests/fixtures/golden_lost_heir_heuristic.json``).

Hand strength (:func:`hand_strength`): for each city the bot holds, taken as trump, the
points its team can expect declaring: ``2.5 + counted tricks`` plus terms for the special
cards. Counted tricks: a trump counts 1, 0.75, 0.5, 0.25 with 0, 1, 2, 3 higher trumps out
when the bot holds as many lower trumps to wait with (else 0.15), and the fourth trump on at
least 0.6; a side card with no higher card out counts 0.85, 0.7, 0.45 as the city's 1st, 2nd,
3rd card, one with a single higher card out and a lower card 0.35; with three trumps a void
side city adds 0.6, a singleton 0.3. Special cards (measured, see the docs): Winnipeg trump
+0.25, or +1.05 holding ``W0`` (drawing trump brings it home), a side ``W0`` 0; ``T0`` held
as a side card +1.15 (its holder chooses the trick it goes to), as a trump +0.1; Toronto
trump without ``T0`` −0.65. The best city is the trump the bot would name and its value the
hand's *strength*. A price p is *supported* when the strength is at least p + 0.5.

Bidding (a contract scores the points made, whatever its size, so the bot never jumps):
    B1. The partner holds the high bid: pass (never bid over the partner).
    B2. Otherwise bid the lowest legal price (4, or one above the high bid) if supported,
        else pass.
    B3. Dealer, nobody has bid: bid 4 if supported, else pass (the hand is thrown in).
    B4. Dealer facing the partner's bid: accept (the team holds the contract either way).
    B5. Dealer facing an opponent's bid h (first call, or after a raise): refuse if h is
        supported (the bidder must raise to h+1 or concede the contract at h), else accept.
    B6. Refused bidder: raise if h+1 is supported, else concede.

Leading (a *boss* is a card higher than every unseen card of its city; an opponent *may
ruff* a city when it is known void in it, or no unseen card of it is left, and it is not
known void in trump while trumps are unseen):
    L1. Opening lead as declarer, naming trump: the strongest city's top card if it is the
        boss (the Mayor, or the top of a run from it), else its lowest card other than
        ``W0``/``T0``.
    L2. ``take a lead`` (when allowed) if the bot has no sure lead (L4) and its partner is
        better placed: the partner declared and has not shown out of trumps while trumps
        are unseen, or both opponents are void in a city (and cannot ruff it) where unseen
        cards remain, which the partner therefore holds.
    L3. Declaring side, trumps still unseen: lead a boss trump (the highest); the declarer
        with at least as many trumps as are unseen leads its lowest trump (draws trump).
    L4. Lead a sure winner, never ``T0``: ``W0`` when it is one; else a boss of a side city
        no opponent may ruff (the highest), else a boss trump.
    L5. Lead low: the lowest card of the longest side city no opponent is known void in,
        then of other side cities, then a trump; ``T0``, then ``W0``, only when nothing
        else is left.

Following (*secure*: no opponent still to play may hold a card that beats it, given the
cards seen and the voids shown):
    F1. Partner winning securely: give it ``W0`` if legal, else throw the lowest card,
        never ``T0``.
    F2. Opponent winning: play ``T0`` if legal and an opponent still wins the trick with it,
        provided the partner has played or nothing unseen can beat that opponent's card.
    F3. ``T0`` in the trick without ``W0``: play a card that does not win it if there is
        one; forced to head it, the lowest card that does.
    F4. Win cheaply: the cheapest card (side card before trump, low before high) that wins
        the trick securely; never ``T0``.
    F5. Partner winning, not securely: throw the lowest card (never ``T0``, never ``W0``).
    F6. Opponent winning and the bot can beat it, not securely: with ``W0`` in the trick
        or as third hand, play its highest winning card; as second hand, play low.
    F7. Otherwise throw the lowest card: from a short side city first (to make a void),
        keeping trumps, boss cards and ``W0``; ``T0`` first unless it would win the trick.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numba import njit

from agents.base import BasePolicy
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
    N_BIDS,
    N_RANKS,
    N_SEATS,
    N_TRICKS,
    OBS,
    PASS,
    RAISE,
    REFUSE,
    TAKE_A_LEAD,
)
from feral_envs.lost_heir.engine import trick_best
from feral_envs.lost_heir.rules import Phase

ME, LEFT, PARTNER, RIGHT = range(N_SEATS)  # the observation's seat order
N_CITIES = len(DECK.suit_names)
TOP = N_RANKS - 1  # the Mayor, rank 7
CITY = DECK.suit_of  # city of each card id
RANK = DECK.power_of  # rank of each card id
HEIR_CITY, BOY_CITY = CITY[HEIR], CITY[BOY]
NOBODY = -1

# ---------------------------------------------------------------------------------------
# Hand strength. The trick counts are a card player's rules of thumb; the points per trick
# and the special-card terms were fitted (least squares) to the points the declaring team
# made on 6,000 random deals, north declaring at 4 and the bot playing all four seats.

SURE_SIDE = (0.85, 0.7, 0.45)
"""A side-city card with no higher card out: its value in the 1st, 2nd, 3rd round."""
GUARDED_SIDE = 0.35
"""A side card with exactly one higher card out and a lower card to wait with."""
GUARDED_TRUMP = (1.0, 0.75, 0.5, 0.25)
"""A trump with 0, 1, 2, 3 higher trumps out, holding enough lower trumps to wait."""
UNGUARDED_TRUMP = 0.15
LONG_TRUMP = 0.6
"""Each trump from the fourth on, when not already counted as a winner."""
RUFF_VOID, RUFF_SINGLETON = 0.6, 0.3
"""Side cities the bot can ruff, with at least three trumps."""
BASE_POINTS = 2.5
"""Points the declaring team makes beyond the declarer's counted tricks (partner, lead)."""
POINTS_PER_TRICK = 1.0
"""Points per trick counted in the declarer's hand."""
HEIR_TERMS = {(True, True): 1.05, (True, False): 0.0, (False, True): 0.25}
"""Points for ``(W0 held, Winnipeg trump)``, against neither: ``W0`` counts when Winnipeg is
trump (drawing trump brings it home), and as a side card it is no better than any card."""
BOY_TERMS = {(True, False): 1.15, (True, True): 0.1, (False, True): -0.65}
"""Points for ``(T0 held, Toronto trump)``, against neither. A side ``T0`` in the declarer's
hand is an asset, not a liability: its holder chooses the trick it goes to (the declaring
team keeps it about one time in six), whereas a ``T0`` in an opponent's hand ends with the
declaring team about nine times in ten. As a trump it cannot be thrown away."""
MARGIN = 0.5
"""The strength must reach a price plus this margin to bid, refuse or raise at it."""


# ---------------------------------------------------------------------------------------
# The compiled rules: one decision from one observation row. ``decide`` returns
# ``(action, rule, ties)``: ``rule`` indexes :data:`RULES`; ``ties`` is 0, or the bit mask
# (bit = card id) of two or more equally good cards, of which the bot's generator picks the
# ``rng.integers(n)``-th in card order (:func:`resolve`).

RULES = tuple(f"B{i}" for i in range(1, 7)) + tuple(f"L{i}" for i in range(1, 6))
RULES += tuple(f"F{i}" for i in range(1, 8))
"""The rule names, in the order of the kernel's rule codes."""
_B1, _B2, _B3, _B4, _B5, _B6 = range(6)
_L1, _L2, _L3, _L4, _L5 = range(6, 11)
_F1, _F2, _F3, _F4, _F5, _F6, _F7 = range(11, 18)

_CITY = np.asarray(CITY, dtype=np.int64)
_RANK = np.asarray(RANK, dtype=np.int64)
_SURE_SIDE = np.asarray(SURE_SIDE, dtype=np.float64)
_GUARDED_TRUMP = np.asarray(GUARDED_TRUMP, dtype=np.float64)
_HEIR_TERM = np.array([[HEIR_TERMS.get((bool(h), bool(t)), 0.0) for t in (0, 1)] for h in (0, 1)])
_BOY_TERM = np.array([[BOY_TERMS.get((bool(h), bool(t)), 0.0) for t in (0, 1)] for h in (0, 1)])
"""``[held][trump city]``: the special-card terms of :data:`HEIR_TERMS` and :data:`BOY_TERMS`."""

_HAND, _PLAYED, _TRICK = OBS.hand.start, OBS.played.start, OBS.trick.start
_LEADER, _LED, _TRUMP, _DECLARER = (
    OBS.leader.start,
    OBS.led_city.start,
    OBS.trump.start,
    OBS.declarer.start,
)
_CARD_TRICK, _TRICK_LEADERS = OBS.card_trick.start, OBS.trick_leaders.start
_PHASE, _HIGH_BID, _HIGH_BIDDER = OBS.phase.start, OBS.high_bid.start, OBS.high_bidder.start
_N_CARDS = DECK.n
_PLAY, _DEALER, _DUEL_BIDDER, _DUEL_DEALER = (
    Phase.PLAY,
    Phase.DEALER,
    Phase.DUEL_BIDDER,
    Phase.DUEL_DEALER,
)


@njit(cache=True)
def _first_one(o, start, size):
    """Index of the first nonzero of ``o[start : start + size]`` (a one-hot field), else -1."""
    for i in range(size):
        if o[start + i] != 0:
            return i
    return NOBODY


@njit(cache=True)
def _declarer_points_k(held, trump):
    """The points the bot's team can expect declaring with ``held`` (bool, 32) and ``trump``
    (module docstring): ``BASE_POINTS`` plus the counted tricks (at most 8) plus the
    special-card terms. The tricks are summed city by city, each city high card to low, then
    the ruffs: the order fixes the last bit of the sum, which the bids compare."""
    tricks = 0.0
    for city in range(N_CITIES):
        length = 0
        for rank in range(N_RANKS):
            length += held[city * N_RANKS + rank]
        total = 0.0
        i = 0
        for rank in range(TOP, -1, -1):
            if not held[city * N_RANKS + rank]:
                continue
            higher_out = TOP - rank - i
            lower_held = length - 1 - i
            if city == trump:
                if higher_out < len(GUARDED_TRUMP) and lower_held >= higher_out:
                    value = _GUARDED_TRUMP[higher_out]
                else:
                    value = UNGUARDED_TRUMP
                if i >= 3:
                    value = max(value, LONG_TRUMP)
            elif higher_out == 0:
                value = _SURE_SIDE[i] if i < len(SURE_SIDE) else 0.0
            elif higher_out == 1 and lower_held >= 1 and i < len(SURE_SIDE):
                value = GUARDED_SIDE
            else:
                value = 0.0
            total += value
            i += 1
        tricks += total
    n_trump = 0
    for rank in range(N_RANKS):
        n_trump += held[trump * N_RANKS + rank]
    if n_trump >= 3:
        ruffs = 0.0
        for city in range(N_CITIES):
            if city == trump:
                continue
            length = 0
            for rank in range(N_RANKS):
                length += held[city * N_RANKS + rank]
            if length == 0:
                ruffs += RUFF_VOID
            elif length == 1:
                ruffs += RUFF_SINGLETON
            else:
                ruffs += 0.0
        tricks += ruffs
    tricks = min(tricks, float(N_TRICKS))
    heir = _HEIR_TERM[int(held[HEIR]), int(trump == HEIR_CITY)]
    boy = _BOY_TERM[int(held[BOY]), int(trump == BOY_CITY)]
    return BASE_POINTS + POINTS_PER_TRICK * tricks + heir + boy


@njit(cache=True)
def _hand_strength_k(held):
    """``(city, points)``: the best trump among the cities ``held`` (bool, 32) holds and its
    points (:func:`_declarer_points_k`); ties go to the longer city, then to the higher
    cards, then to the lower city index. ``(-1, 0.0)`` for an empty hand."""
    best, best_points, best_len, best_sum = NOBODY, 0.0, 0, 0
    for city in range(N_CITIES):
        length, ranks = 0, 0
        for rank in range(N_RANKS):
            if held[city * N_RANKS + rank]:
                length += 1
                ranks += rank
        if length == 0:
            continue
        points = _declarer_points_k(held, city)
        if best == NOBODY or (points, length, ranks) > (best_points, best_len, best_sum):
            best, best_points, best_len, best_sum = city, points, length, ranks
    return best, best_points


@njit(cache=True)
def _unseen_above(unseen, card):
    """Some unseen card of ``card``'s city ranks above it (``card`` is not a boss)."""
    for c in range(card + 1, (_CITY[card] + 1) * N_RANKS):
        if unseen[c]:
            return True
    return False


@njit(cache=True)
def _may_ruff(trump, unseen_count, voids, seat, city):
    """``seat`` may be void in ``city`` (known void, or no unseen card of it left) and still
    hold a trump (trumps unseen, and not known void in trump)."""
    if trump == NOBODY or trump == city or unseen_count[trump] == 0:
        return False
    if voids[seat, trump]:
        return False
    return voids[seat, city] or unseen_count[city] == 0


@njit(cache=True)
def _opponent_can_beat(trump, unseen, unseen_count, voids, position, card, led):
    """An opponent still to play this trick (the ``position``-th card is the bot's) may beat
    ``card`` in a trick led ``led``."""
    city = _CITY[card]
    for k in range(1, N_SEATS - position):
        seat = k  # (ME + k) % N_SEATS
        if seat == PARTNER:
            continue
        if city == trump:
            if led == trump:
                if not voids[seat, city] and _unseen_above(unseen, card):
                    return True
            elif _may_ruff(trump, unseen_count, voids, seat, led) and _unseen_above(unseen, card):
                return True
        else:
            if not voids[seat, city] and _unseen_above(unseen, card):
                return True
            if _may_ruff(trump, unseen_count, voids, seat, led):
                return True
    return False


@njit(cache=True)
def _beats(trump, led, card, best):
    """``card`` beats ``best``, the card now winning the trick."""
    if _CITY[card] == trump:
        return _CITY[best] != trump or _RANK[card] > _RANK[best]
    return _CITY[card] == _CITY[best] and _CITY[best] == led and _RANK[card] > _RANK[best]


@njit(cache=True)
def _pick(keys, cards):
    """``(card, ties)``: the card of ``cards`` (bool, 32) with the smallest key; ``ties``
    the mask of the tied cards when there are two or more (then ``card`` is the first)."""
    best = np.inf
    for c in range(_N_CARDS):
        if cards[c] and keys[c] < best:
            best = keys[c]
    first, ties, n = NOBODY, 0, 0
    for c in range(_N_CARDS):
        if cards[c] and keys[c] == best:
            if first == NOBODY:
                first = c
            ties |= 1 << c
            n += 1
    return first, ties if n > 1 else 0


@njit(cache=True)
def _low(held, trump, unseen, cards, keep_boy):
    """``(card, ties)``: the card of ``cards`` to throw away: low, from a short side city,
    keeping trumps, boss cards and ``W0``; ``T0`` first, or last with ``keep_boy`` (when the
    trick may come to the bot's side, or ``T0`` itself would win it). Its key is ``(keep,
    rank + 1.5 * cards held in its city)``, smallest first, keep being 3 for ``W0`` (and a kept
    ``T0``), 2 for a trump, 1 for a boss, 0 else, -1 for a ``T0`` to throw."""
    keys = np.empty(_N_CARDS)
    for c in range(_N_CARDS):
        if not cards[c]:
            continue
        if c == HEIR:
            keep = 3
        elif c == BOY:
            keep = 3 if keep_boy else -1
        elif _CITY[c] == trump:
            keep = 2
        elif not _unseen_above(unseen, c):
            keep = 1
        else:
            keep = 0
        length = 0
        for r in range(N_RANKS):
            length += held[_CITY[c] * N_RANKS + r]
        keys[c] = (keep + 1) * 100.0 + (_RANK[c] + 1.5 * length)
    return _pick(keys, cards)


@njit(cache=True)
def _call(o, phase, mask):
    """Rules B1-B6: ``(rule, action)``. A price is supported when the hand's strength is at
    least the price plus ``MARGIN``."""
    held = np.zeros(_N_CARDS, dtype=np.bool_)
    for c in range(_N_CARDS):
        held[c] = o[_HAND + c] != 0
    strength = _hand_strength_k(held)[1]
    high = _first_one(o, _HIGH_BID, N_BIDS)
    high = 0 if high == NOBODY else high + MIN_BID
    bidder = _first_one(o, _HIGH_BIDDER, N_SEATS)
    if phase == _DUEL_BIDDER:
        if mask[RAISE] and strength >= high + 1 + MARGIN:
            return _B6, RAISE
        return _B6, CONCEDE
    if (phase == _DEALER or phase == _DUEL_DEALER) and high:
        if bidder == PARTNER:
            return _B4, ACCEPT
        return _B5, REFUSE if strength >= high + MARGIN else ACCEPT
    if bidder == PARTNER:
        return _B1, PASS
    rule = _B3 if phase == _DEALER else _B2
    price = max(high + 1, MIN_BID)
    if price <= MAX_BID and strength >= price + MARGIN:
        return rule, BID + price - MIN_BID
    return rule, PASS


@njit(cache=True)
def decide(o, mask):
    """``(action, rule, ties)`` for one observation row and its action mask (see above)."""
    phase = _first_one(o, _PHASE, 6)
    if phase != _PLAY:
        rule, action = _call(o, phase, mask)
        return action, rule, 0
    # --- what the bot knows: its hand, the unseen cards, the trick, the voids shown ---
    held = np.zeros(_N_CARDS, dtype=np.bool_)
    unseen = np.ones(_N_CARDS, dtype=np.bool_)
    for c in range(_N_CARDS):
        if o[_HAND + c] != 0:
            held[c] = True
            unseen[c] = False
    any_played = False
    for seat in range(N_SEATS):
        for c in range(_N_CARDS):
            if o[_PLAYED + seat * _N_CARDS + c] != 0:
                unseen[c] = False
                any_played = True
    unseen_count = np.zeros(N_CITIES, dtype=np.int64)
    for c in range(_N_CARDS):
        unseen_count[_CITY[c]] += unseen[c]
    trump = _first_one(o, _TRUMP, N_CITIES)
    led = _first_one(o, _LED, N_CITIES)
    declarer = _first_one(o, _DECLARER, N_SEATS)
    leader = _first_one(o, _LEADER, N_SEATS)
    trick = np.zeros(N_SEATS, dtype=np.int64)
    trick_seat = np.zeros(N_SEATS, dtype=np.int64)
    position = 0
    for pos in range(N_SEATS):
        for c in range(_N_CARDS):
            if o[_TRICK + pos * _N_CARDS + c] != 0:
                trick[position] = c
                trick_seat[position] = (leader + pos) % N_SEATS
                position += 1
    voids = np.zeros((N_SEATS, N_CITIES), dtype=np.bool_)
    if any_played:
        trick_of = np.full(_N_CARDS, NOBODY, dtype=np.int64)
        for c in range(_N_CARDS):
            for k in range(N_TRICKS):
                if o[_CARD_TRICK + c * N_TRICKS + k] != 0:
                    trick_of[c] = k
        leader_of = np.full(N_TRICKS, NOBODY, dtype=np.int64)
        for seat in range(N_SEATS):
            for k in range(N_TRICKS):
                if o[_TRICK_LEADERS + seat * N_TRICKS + k] != 0:
                    leader_of[k] = seat
        led_city = np.full(N_TRICKS, NOBODY, dtype=np.int64)
        for seat in range(N_SEATS):
            for c in range(_N_CARDS):
                if o[_PLAYED + seat * _N_CARDS + c] != 0 and leader_of[trick_of[c]] == seat:
                    led_city[trick_of[c]] = _CITY[c]
        for seat in range(N_SEATS):
            for c in range(_N_CARDS):
                if o[_PLAYED + seat * _N_CARDS + c] != 0:
                    city = led_city[trick_of[c]]
                    if city != NOBODY and _CITY[c] != city:
                        voids[seat, city] = True
    legal = np.zeros(_N_CARDS, dtype=np.bool_)
    for c in range(_N_CARDS):
        legal[c] = held[c] and mask[CARD + c] != 0
    keys = np.zeros(_N_CARDS)
    if position == 0:
        rule, action, ties = _lead(
            held, legal, unseen, unseen_count, voids, trump, declarer, mask[TAKE_A_LEAD] != 0, keys
        )
        return action, rule, ties
    rule, card, ties = _follow(
        held, legal, unseen, unseen_count, voids, trump, led, trick, trick_seat, position, keys
    )
    return CARD + card, rule, ties


@njit(cache=True)
def _lead(held, legal, unseen, unseen_count, voids, trump, declarer, may_take, keys):
    """Rules L1-L5: ``(rule, action, ties)``."""
    if trump == NOBODY:
        city = _hand_strength_k(held)[0]
        top, low = NOBODY, NOBODY
        for c in range(city * N_RANKS, (city + 1) * N_RANKS):
            if held[c]:
                top = c  # the highest so far: ranks ascend with the id
                if low == NOBODY and c != HEIR and c != BOY:
                    low = c
        if not _unseen_above(unseen, top) or low == NOBODY:
            return _L1, CARD + top, 0
        return _L1, CARD + low, 0
    n_sure, n_trumps = 0, 0
    sure = np.zeros(_N_CARDS, dtype=np.bool_)
    for c in range(_N_CARDS):
        if not legal[c]:
            continue
        if _CITY[c] == trump:
            n_trumps += 1
        if c != BOY and not _unseen_above(unseen, c):  # ``safe_lead``
            safe = True
            if _CITY[c] != trump:
                for seat in (LEFT, RIGHT):
                    if _may_ruff(trump, unseen_count, voids, seat, _CITY[c]):
                        safe = False
            if safe:
                sure[c] = True
                n_sure += 1
    if may_take and n_sure == 0 and _partner_better(unseen_count, voids, trump, declarer):
        return _L2, TAKE_A_LEAD, 0
    if (declarer == ME or declarer == PARTNER) and unseen_count[trump] > 0 and n_trumps:
        boss, plain = NOBODY, NOBODY
        for c in range(trump * N_RANKS, (trump + 1) * N_RANKS):
            if not legal[c]:
                continue
            if not _unseen_above(unseen, c):
                boss = c  # the highest boss so far
            if plain == NOBODY and c != HEIR and c != BOY:
                plain = c
        if boss != NOBODY:
            return _L3, CARD + boss, 0
        if declarer == ME and plain != NOBODY and n_trumps >= unseen_count[trump]:
            return _L3, CARD + plain, 0
    if n_sure:
        if sure[HEIR]:
            return _L4, CARD + HEIR, 0
        for c in range(_N_CARDS):
            if sure[c]:
                keys[c] = (_CITY[c] == trump) * N_RANKS + (TOP - _RANK[c])
        card, ties = _pick(keys, sure)
        return _L4, CARD + card, ties
    # L5: (special, trump, ruffed, -length, rank), smallest first
    for c in range(_N_CARDS):
        if not legal[c]:
            continue
        city = _CITY[c]
        special = 2 if c == HEIR else 1 if c == BOY else 0
        ruffed = voids[LEFT, city] or voids[RIGHT, city]
        length = 0
        for r in range(N_RANKS):
            length += held[city * N_RANKS + r]
        keys[c] = (
            ((special * 2 + (city == trump)) * 2 + ruffed) * (N_RANKS + 1) + (N_RANKS - length)
        ) * N_RANKS + _RANK[c]
    card, ties = _pick(keys, legal)
    return _L5, CARD + card, ties


@njit(cache=True)
def _partner_better(unseen_count, voids, trump, declarer):
    """Rule L2's test: the partner declared and may hold trumps, or it holds every unseen
    card of a city both opponents are void in and cannot ruff."""
    if declarer == PARTNER and unseen_count[trump] > 0 and not voids[PARTNER, trump]:
        return True
    for city in range(N_CITIES):
        if unseen_count[city] == 0 or voids[PARTNER, city]:
            continue
        shut = True
        for o in (LEFT, RIGHT):
            if not voids[o, city] or _may_ruff(trump, unseen_count, voids, o, city):
                shut = False
        if shut:
            return True
    return False


@njit(cache=True)
def _follow(
    held, legal, unseen, unseen_count, voids, trump, led, trick, trick_seat, position, keys
):
    """Rules F1-F7: ``(rule, card, ties)``."""
    win = trick_best(trick, position, led, trump)
    win_seat, win_card = trick_seat[win], trick[win]
    partner_winning = win_seat == PARTNER
    if partner_winning and not _opponent_can_beat(
        trump, unseen, unseen_count, voids, position, win_card, led
    ):
        if legal[HEIR]:
            return _F1, HEIR, 0
        card, ties = _low(held, trump, unseen, legal, True)
        return _F1, card, ties
    if legal[BOY] and not partner_winning:  # F2: ``_boy_stays_out``
        with_boy = np.empty(N_SEATS + 1, dtype=np.int64)
        with_boy[:position] = trick[:position]
        with_boy[position] = BOY
        pos = trick_best(with_boy, position + 1, led, trump)
        if pos != position and (trick_seat[pos] == LEFT or trick_seat[pos] == RIGHT):
            if position >= 2:  # the partner has played
                return _F2, BOY, 0
            best = trick[pos]
            partner_may_ruff = _CITY[best] != trump and _may_ruff(
                trump, unseen_count, voids, PARTNER, led
            )
            if not _unseen_above(unseen, best) and not partner_may_ruff:
                return _F2, BOY, 0
    winners = np.zeros(_N_CARDS, dtype=np.bool_)
    losers = np.zeros(_N_CARDS, dtype=np.bool_)
    n_winners, n_losers = 0, 0
    for c in range(_N_CARDS):
        if not legal[c]:
            continue
        if _beats(trump, led, c, win_card):
            winners[c] = True
            n_winners += 1
        else:
            losers[c] = True
            n_losers += 1
    boy_in, heir_in = False, False
    for pos in range(position):
        boy_in |= trick[pos] == BOY
        heir_in |= trick[pos] == HEIR
    for c in range(_N_CARDS):  # cheapest: side card before trump, low before high
        keys[c] = (_CITY[c] == trump) * N_RANKS + _RANK[c]
    if boy_in and not heir_in:
        if n_losers:
            card, ties = _low(held, trump, unseen, losers, partner_winning)
            return _F3, card, ties
        card, ties = _pick(keys, winners)
        return _F3, card, ties
    sure = np.zeros(_N_CARDS, dtype=np.bool_)
    n_sure = 0
    for c in range(_N_CARDS):
        if (
            winners[c]
            and c != BOY
            and not _opponent_can_beat(trump, unseen, unseen_count, voids, position, c, led)
        ):
            sure[c] = True
            n_sure += 1
    if n_sure:
        card, ties = _pick(keys, sure)
        return _F4, card, ties
    if partner_winning:
        card, ties = _low(held, trump, unseen, legal, True)
        return _F5, card, ties
    if n_winners and (heir_in or position == 2):
        for c in range(_N_CARDS):
            keys[c] = -_RANK[c]
        card, ties = _pick(keys, winners)
        return _F6, card, ties
    if n_winners and n_losers and position == 1:
        card, ties = _low(held, trump, unseen, losers, False)
        return _F6, card, ties
    card, ties = _low(held, trump, unseen, legal, winners[BOY])
    return _F7, card, ties


@njit(cache=True)
def decide_batch(obs, masks, actions, rules, ties):
    """:func:`decide` for each row of ``obs`` (k, OBS.size) and ``masks`` (k, N_ACTIONS),
    into ``actions``, ``rules`` and ``ties`` (k,)."""
    for i in range(obs.shape[0]):
        actions[i], rules[i], ties[i] = decide(obs[i], masks[i])


def resolve(action: int, ties: int, rng: np.random.Generator) -> int:
    """The action once the generator has broken a tie (``ties``: the kernel's mask)."""
    if not ties:
        return int(action)
    tied = [c for c in range(DECK.n) if ties >> c & 1]
    return CARD + tied[int(rng.integers(len(tied)))]


# ---------------------------------------------------------------------------------------
# The hand strength from Python


def _held(hand: Sequence[int]) -> np.ndarray:
    held = np.zeros(DECK.n, dtype=np.bool_)
    held[list(hand)] = True
    return held


def declarer_points(hand: Sequence[int], trump: int) -> float:
    """Points the bot's team can expect declaring with ``hand`` (card ids) and ``trump``."""
    return float(_declarer_points_k(_held(hand), trump))


def hand_strength(hand: Sequence[int]) -> tuple[int, float]:
    """``(city, points)``: the best trump city for ``hand`` (card ids; a city it holds, since
    the opening lead names trump) and the points the bot's team can expect declaring with it
    (before the partner's call is counted). Ties go to the longer city, then to the higher
    cards."""
    if len(hand) == 0:
        raise ValueError("hand_strength needs a hand of at least one card")
    city, points = _hand_strength_k(_held(hand))
    return int(city), float(points)


# ---------------------------------------------------------------------------------------
# The policy


class LostHeirHeuristic(BasePolicy):
    """The rule-based Lost Heir bot (rules in the module docstring).

    After each ``act``, :attr:`rule` names the rule that decided (``"B2"``, ``"F4"``, …).
    Also a :class:`~agents.base.BatchPolicy`, with ``restart_lanes``: each lane breaks its ties
    with its own generator, as ``act`` does with the bot's.
    """

    def __init__(self, seed: int, spec: str = "heuristic") -> None:
        super().__init__(spec, seed)
        self.rule = ""
        self.lane_rngs: list[np.random.Generator | None] = []

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        observation, action_mask = np.asarray(observation), np.asarray(action_mask)
        if (
            observation.ndim != 1
            or len(observation) < OBS.size
            or action_mask.shape != (N_ACTIONS,)
        ):
            _checked(observation[None], action_mask[None])  # raises, naming the problem
        if not action_mask.any():
            raise ValueError("action_mask marks no legal action: it is not this policy's turn")
        action, rule, ties = decide(observation, action_mask)
        action = resolve(action, ties, self.rng)
        self.rule = RULES[rule]
        if not action_mask[action]:  # a bug in the rules, never the caller's fault
            raise RuntimeError(f"rule {self.rule} chose illegal action {action}")
        return action

    def reset_lanes(self, seeds: Sequence[int]) -> None:
        self.lane_rngs = [np.random.default_rng(seed) for seed in seeds]

    def restart_lanes(self, lanes: Sequence[int], seeds: Sequence[int]) -> None:
        """Start lanes ``lanes`` as ``reset(seeds[j])`` would, leaving the others as they are."""
        for lane, seed in zip(lanes, seeds, strict=True):
            while len(self.lane_rngs) <= lane:
                self.lane_rngs.append(None)
            self.lane_rngs[lane] = np.random.default_rng(seed)

    def act_lanes(
        self, lanes: np.ndarray, observations: np.ndarray, action_masks: np.ndarray
    ) -> np.ndarray:
        observations, masks = _checked(observations, action_masks)
        rngs = []
        for lane in np.asarray(lanes).tolist():
            if lane >= len(self.lane_rngs) or self.lane_rngs[lane] is None:
                raise IndexError(f"lane {lane} was not started ({len(self.lane_rngs)} lanes)")
            rngs.append(self.lane_rngs[lane])
        if len(rngs) != len(observations):
            raise ValueError(f"{len(rngs)} lanes for {len(observations)} observations")
        k = len(observations)
        actions, rules, ties = (np.empty(k, dtype=np.int64) for _ in range(3))
        decide_batch(observations, masks, actions, rules, ties)
        for i in np.flatnonzero(ties).tolist():
            actions[i] = resolve(actions[i], ties[i], rngs[i])
        bad = np.flatnonzero(masks[np.arange(k), actions] == 0)
        if bad.size:  # a bug in the rules, never the caller's fault
            i = int(bad[0])
            raise RuntimeError(f"rule {RULES[rules[i]]} chose illegal action {actions[i]}")
        return actions


def _checked(observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows as the kernel reads them (entries past ``OBS.size`` ignored, as appended
    inputs such as ``--advice`` are), or a ``ValueError`` naming what is wrong."""
    observations, masks = np.asarray(observations), np.asarray(masks)
    if observations.ndim != 2 or observations.shape[1] < OBS.size:
        raise ValueError(
            f"a Lost Heir observation has {OBS.size} entries (more are ignored: the advice of "
            f"train --advice); got shape {observations.shape[1:]}"
        )
    if masks.shape != (len(observations), N_ACTIONS):
        raise ValueError(
            f"a Lost Heir action mask has {N_ACTIONS} entries; got shape {masks.shape[1:]}"
        )
    if not masks.any(axis=1).all():
        raise ValueError("action_mask marks no legal action: it is not this policy's turn")
    return observations, masks


def make_policy(seed: int, **keywords: Any) -> LostHeirHeuristic:
    """The Lost Heir heuristic (the game keywords do not change its play)."""
    return LostHeirHeuristic(seed)
