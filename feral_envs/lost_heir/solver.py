"""Lost Heir's exact open-card ("double dummy") solver: numba kernels over a compact position.

**Value.** With every card seen, the rest of a hand is a two-team game of perfect
information. A hand's card points always add up to 10 (8 tricks, +5 for ``W0``, -3 for
``T0``), so the other team ends with ``10 - p`` when the declaring team ends with ``p``, and
the declaring team's margin (its score change minus the other team's),
``f(p) = (p if p >= contract else -contract) - max(10 - p, 0)``, rises with ``p``. Each team
maximizing its own margin is therefore the declaring team maximizing, and the defenders
minimizing, the card points the declaring team takes from here on; the search computes that
number (:func:`_search`), and :func:`solve_row` turns it into each team's margin through
``f`` (the declarer's risk and the defenders' floor are in ``f``).

**Position.** An int64 array (``P_*`` indices): the four hands as 32-bit card masks, the
cards of every trick so far (8 x 4), the current trick's length, its leader, whether its lead
was handed over (``take a lead``), the tricks done, trump (-1 before the declarer's first
lead names it), the first trick whose lead may be handed over, the declaring team, a node
counter and an optional restriction of the trump-naming lead to one city (for bidding). Moves
are made and unmade in place: nothing is allocated below the root.

**Search.** Fail-soft alpha-beta over single cards (and ``take a lead``) with:

* a transposition table at trick starts, keyed on the four hands, the leader, the hand-over
  flag, trump and the declaring team, holding a lower and an upper bound and the best move;
  a generation stamp makes a new solve start from an empty table without clearing it;
* quick bounds at trick starts (the tricks left, +5 while ``W0`` is out, -2 while ``T0`` is
  out);
* equivalent cards: a seat's card directly below another of its own in the same city (no
  card of anyone between them, counting the cards on the table) gives the same value, so
  only the higher is searched (never for ``W0`` or ``T0``, which carry points);
* move ordering: the table's best move first, then by rules of thumb (the cheapest card
  that takes the trick from the opponents, ``W0`` onto the partner's trick, ``T0`` onto the
  opponents', low cards under the partner, high leads).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from feral_envs.lost_heir import engine as E
from feral_envs.lost_heir.encoding import BOY, CARD, HEIR, N_RANKS, N_SEATS, N_TRICKS, TAKE_A_LEAD
from feral_envs.lost_heir.rules import BOY_POINTS, CARDS_PER_HAND, HEIR_POINTS, N_CARDS

HAND_POINTS = N_TRICKS + HEIR_POINTS + BOY_POINTS  # 10: a hand's card points, always
assert HAND_POINTS == 10

# The position array
P_HANDS = 0  # 4: card masks
P_TRICKS = 4  # 32: card at position pos of trick k is P_TRICKS + 4 k + pos
P_TLEN = 36
P_LEADER = 37
P_HANDED = 38
P_DONE = 39
P_TRUMP = 40
P_FIRST_HANDOVER = 41
P_DTEAM = 42
P_NODES = 43
P_LEAD_CITY = 44  # -1, or the only city the trump-naming lead may be of
P_STAMP = 45
P_SIZE = 48

TAKE = 32  # the move `take a lead` (cards are 0..31)
MAX_DEPTH = 48
MAX_MOVES = 12
# A frame row (one per depth): the moves, their ordering scores, the undo record of the move
# being searched, then the node's window, bounds and progress.
UNDO = 2 * MAX_MOVES
FA, FB, CA, CB, LO, HI, IDX, A0, B0, N, I, BEST, BESTM, MAXI, PTS, CUR, K1, K2, KM = range(
    UNDO + 4, UNDO + 23
)
ROW_WIDTH = UNDO + 23
TT_BITS = 20
TT_SIZE = 1 << TT_BITS
M32 = 0xFFFFFFFF
LOW31 = 0x7FFFFFFF
STAMP_SHIFT = 29  # above _key's meta (29 bits)
INF = 1000
NO_VALUE = -INF  # a trump the declarer cannot name (no card of that city)


@njit(cache=True)
def _mix(x):
    x = (((x >> 16) ^ x) * 0x45D9F3B) & M32
    x = (((x >> 16) ^ x) * 0x45D9F3B) & M32
    return (x >> 16) ^ x


@njit(cache=True)
def _owner(P, card):
    for seat in range(N_SEATS):
        if (P[P_HANDS + seat] >> card) & 1:
            return seat
    return -1


@njit(cache=True)
def _key(P):
    """The table's key of the position: ``(k1, k2, meta)``.

    At a trick start the key is canonical: per city, the holders of its cards still out from
    the highest down (relative ranks: two positions that differ only by which cards of a city
    were played, with the same order of holders, have the same value), plus whether ``W0`` and
    ``T0`` are out (the lowest of their cities, and the only cards worth points). Within a
    trick the key is exact: the four hands and the cards on the table. ``meta`` holds the
    leader (its team only, where it may still hand the lead over: either partner leading
    then gives the same choice), the hand-over flag, trump, the declaring team and the
    rule."""
    tlen = P[P_TLEN]
    leader = P[P_LEADER]
    if tlen == 0 and P[P_HANDED] == 0 and P[P_DONE] >= P[P_FIRST_HANDOVER]:
        # the leader may hand the lead over: the team's value is the better of either
        # partner leading, whichever of them won the last trick
        leader = (leader % 2) | 4
    meta = (
        (leader & 3)
        | ((leader >> 2) << 8)
        | (P[P_HANDED] << 2)
        | (P[P_TRUMP] << 3)
        | (P[P_DTEAM] << 5)
        | (P[P_FIRST_HANDOVER] << 6)
    )
    if tlen == 0:
        k1, k2 = np.int64(0), np.int64(0)
        h0, h1, h2, h3 = P[P_HANDS], P[P_HANDS + 1], P[P_HANDS + 2], P[P_HANDS + 3]
        alive = h0 | h1 | h2 | h3
        odd = h1 | h3  # the holder's seat, bit 0
        high = h2 | h3  # the holder's seat, bit 1
        for city in range(4):
            code = np.int64(0)
            n = 0
            for card in range(N_RANKS * city + N_RANKS - 1, N_RANKS * city - 1, -1):
                if (alive >> card) & 1:
                    owner = ((odd >> card) & 1) | (((high >> card) & 1) << 1)
                    code |= owner << (4 + 2 * n)
                    n += 1
            code |= n
            if city < 3:
                k1 |= code << (20 * city)
            else:
                k2 = code
        k2 |= ((alive >> HEIR) & 1) << 20
        k2 |= ((alive >> BOY) & 1) << 21
        return k1, k2, meta
    base = P_TRICKS + N_SEATS * P[P_DONE]
    table = tlen
    for pos in range(tlen):
        table |= P[base + pos] << (2 + 5 * pos)
    meta |= (table << 10) | ((P[P_HANDS + 1] >> 31) << 27) | ((P[P_HANDS + 3] >> 31) << 28)
    k1 = P[P_HANDS] | ((P[P_HANDS + 1] & LOW31) << 32)
    k2 = P[P_HANDS + 2] | ((P[P_HANDS + 3] & LOW31) << 32)
    return k1, k2, meta


@njit(cache=True)
def _tt_index(k1, k2, meta):
    h = _mix((k1 & M32) ^ meta)
    h = _mix(h ^ (k1 >> 32))
    h = _mix(h ^ (k2 & M32))
    h = _mix(h ^ (k2 >> 32))
    return h & (TT_SIZE - 1)


@njit(cache=True)
def _move_code(P, m):
    """A move as the table stores it: at a trick start a card is (city, how many of its city's
    cards out are above it), to fit every position of the same key; else the card itself."""
    if m < 0 or m == TAKE or P[P_TLEN] > 0:
        return m
    city = m // N_RANKS
    above = 0
    for card in range(m + 1, N_RANKS * (city + 1)):
        if _owner(P, card) >= 0:
            above += 1
    return N_RANKS * city + above


@njit(cache=True)
def _move_of_code(P, code):
    if code < 0 or code == TAKE or P[P_TLEN] > 0:
        return code
    city = code // N_RANKS
    above = code % N_RANKS
    for card in range(N_RANKS * (city + 1) - 1, N_RANKS * city - 1, -1):
        if _owner(P, card) >= 0:
            if above == 0:
                return card
            above -= 1
    return -1


@njit(cache=True)
def _strength(card, trump, led):
    city = card // N_RANKS
    if city == trump:
        return N_RANKS + card % N_RANKS
    if city == led:
        return card % N_RANKS
    return -1


@njit(cache=True)
def _trick_winner_pos(P, base):
    trump = P[P_TRUMP]
    led = P[base] // N_RANKS
    best_pos, best = 0, -1
    for pos in range(N_SEATS):
        s = _strength(P[base + pos], trump, led)
        if s > best:
            best_pos, best = pos, s
    return best_pos


@njit(cache=True)
def _gen(P, frames, d, first):
    """The moves of the seat to act into frame row ``d`` (best first), equivalent cards left
    out; ``first`` (a move, or -1) goes first if legal. Returns how many."""
    tlen = P[P_TLEN]
    done = P[P_DONE]
    seat = (P[P_LEADER] + tlen) % N_SEATS
    hand = P[P_HANDS + seat]
    base = P_TRICKS + N_SEATS * done
    trump = P[P_TRUMP]
    if tlen > 0:
        led = P[base] // N_RANKS
        follow = hand & (np.int64(0xFF) << (N_RANKS * led))
        legal = follow if follow != 0 else hand
    else:
        led = -1
        legal = hand
        if trump < 0 and P[P_LEAD_CITY] >= 0:
            legal &= np.int64(0xFF) << (N_RANKS * P[P_LEAD_CITY])
    alive = P[P_HANDS] | P[P_HANDS + 1] | P[P_HANDS + 2] | P[P_HANDS + 3]
    for pos in range(tlen):
        alive |= np.int64(1) << P[base + pos]
    # The trick so far: its best strength and whether my team holds it.
    best, mine = -1, False
    if tlen > 0:
        for pos in range(tlen):
            s = _strength(P[base + pos], trump, led)
            if s > best:
                best = s
                mine = (pos - tlen) % 2 == 0  # my partner sits two seats from me
    n = 0
    for city in range(4):
        prev_mine = False
        for rank in range(N_RANKS - 1, -1, -1):
            card = N_RANKS * city + rank
            if (alive >> card) & 1 == 0:
                continue
            held = (legal >> card) & 1 == 1
            special = card == HEIR or card == BOY
            if not held:
                prev_mine = ((hand >> card) & 1 == 1) and not special
                continue
            if prev_mine and not special:
                continue  # the same as the card just above it
            prev_mine = not special
            if tlen == 0:
                t = trump if trump >= 0 else city
                score = 2 * rank + (1 if city == t else 0)
                if card == HEIR or card == BOY:
                    score = -5
            else:
                s = _strength(card, trump, led)
                wins = s > best
                if mine:
                    if card == HEIR:
                        score = 60
                    elif card == BOY:
                        score = -20
                    elif wins:
                        score = -rank - (8 if s >= N_RANKS else 0)
                    else:
                        score = 20 - rank
                else:
                    if card == BOY:
                        score = -20 if wins else 70
                    elif wins:
                        score = 50 - s
                    elif card == HEIR:
                        score = -30
                    else:
                        score = 20 - rank - (8 if city == trump else 0)
            if card == first:
                score = 1000
            frames[d, n] = card
            frames[d, MAX_MOVES + n] = score
            n += 1
    if (
        tlen == 0
        and P[P_HANDED] == 0
        and done >= P[P_FIRST_HANDOVER]
        and P[P_HANDS + (seat + 2) % N_SEATS] != 0
    ):
        frames[d, n] = TAKE
        frames[d, MAX_MOVES + n] = 1000 if first == TAKE else 5
        n += 1
    for i in range(1, n):  # insertion sort, best first
        m, s = frames[d, i], frames[d, MAX_MOVES + i]
        j = i - 1
        while j >= 0 and frames[d, MAX_MOVES + j] < s:
            frames[d, j + 1] = frames[d, j]
            frames[d, MAX_MOVES + j + 1] = frames[d, MAX_MOVES + j]
            j -= 1
        frames[d, j + 1] = m
        frames[d, MAX_MOVES + j + 1] = s
    return n


@njit(cache=True)
def _make(P, m, frames, d):
    """Play move ``m`` in place; frame row ``d`` keeps what :func:`_unmake` needs. Returns the card
    points the declaring team takes with the trick it completes (0 if none)."""
    tlen = P[P_TLEN]
    leader = P[P_LEADER]
    frames[d, UNDO] = tlen
    frames[d, UNDO + 1] = leader
    frames[d, UNDO + 2] = P[P_HANDED]
    frames[d, UNDO + 3] = 0
    if m == TAKE:  # the partner leads instead, and cannot hand it back
        P[P_HANDED] = 1
        P[P_LEADER] = (leader + 2) % N_SEATS
        return 0
    seat = (leader + tlen) % N_SEATS
    done = P[P_DONE]
    base = P_TRICKS + N_SEATS * done
    P[P_HANDS + seat] ^= np.int64(1) << m
    P[base + tlen] = m
    if tlen == 0 and P[P_TRUMP] < 0:  # the declarer's first lead names trump
        P[P_TRUMP] = m // N_RANKS
        frames[d, UNDO + 3] = 1
    if tlen < N_SEATS - 1:
        P[P_TLEN] = tlen + 1
        return 0
    winner = (leader + _trick_winner_pos(P, base)) % N_SEATS
    points = 0
    if winner % 2 == P[P_DTEAM]:
        points = 1
        for pos in range(N_SEATS):
            c = P[base + pos]
            if c == HEIR:
                points += HEIR_POINTS
            elif c == BOY:
                points += BOY_POINTS
    P[P_TLEN] = 0
    P[P_DONE] = done + 1
    P[P_LEADER] = winner
    P[P_HANDED] = 0
    return points


@njit(cache=True)
def _unmake(P, m, frames, d):
    tlen = frames[d, UNDO]
    leader = frames[d, UNDO + 1]
    P[P_TLEN] = tlen
    P[P_LEADER] = leader
    P[P_HANDED] = frames[d, UNDO + 2]
    if m == TAKE:
        return
    if tlen == N_SEATS - 1:
        P[P_DONE] -= 1
    if frames[d, UNDO + 3]:
        P[P_TRUMP] = -1
    P[P_HANDS + (leader + tlen) % N_SEATS] ^= np.int64(1) << m


@njit(cache=True)
def _enter(P, frames, d, tt):
    """Enter the node of frame row ``d`` (its window in ``FA``, ``FB``): a value at once
    (returns True, the value in ``BEST``), or its moves generated (returns False)."""
    P[P_NODES] += 1
    tlen = P[P_TLEN]
    first = -1
    index = -1
    lo, hi = -INF, INF
    a, b = frames[d, FA], frames[d, FB]
    done = P[P_DONE]
    if done == N_TRICKS:
        frames[d, BEST] = 0
        return True
    if True:
        alive = P[P_HANDS] | P[P_HANDS + 1] | P[P_HANDS + 2] | P[P_HANDS + 3]
        base = P_TRICKS + N_SEATS * done
        for pos in range(tlen):
            alive |= np.int64(1) << P[base + pos]
        hi = N_TRICKS - done + (HEIR_POINTS if (alive >> HEIR) & 1 else 0)
        lo = 1 + BOY_POINTS if (alive >> BOY) & 1 else 0
        if P[P_TRUMP] >= 0:
            k1, k2, meta = _key(P)
            index = _tt_index(k1, k2, meta)
            frames[d, K1] = k1
            frames[d, K2] = k2
            frames[d, KM] = meta
            if (
                tt[index, 0] == k1
                and tt[index, 1] == k2
                and tt[index, 2] == (meta | (P[P_STAMP] << STAMP_SHIFT))
            ):
                packed = tt[index, 3]
                lo = max(lo, (packed & 0xFF) - 128)
                hi = min(hi, ((packed >> 8) & 0xFF) - 128)
                first = _move_of_code(P, ((packed >> 16) & 0xFF) - 1)
        if lo >= b:
            frames[d, BEST] = lo
            return True
        if hi <= a:
            frames[d, BEST] = hi
            return True
        if lo == hi:
            frames[d, BEST] = lo
            return True
        a = max(a, lo)
        b = min(b, hi)
    frames[d, N] = _gen(P, frames, d, first)
    frames[d, I] = 0
    frames[d, LO] = lo
    frames[d, HI] = hi
    frames[d, IDX] = index
    frames[d, A0] = a
    frames[d, B0] = b
    frames[d, CA] = a
    frames[d, CB] = b
    maximizing = ((P[P_LEADER] + tlen) % N_SEATS) % 2 == P[P_DTEAM]
    frames[d, MAXI] = 1 if maximizing else 0
    frames[d, BEST] = -INF if maximizing else INF
    frames[d, BESTM] = -1
    return False


@njit(cache=True)
def _store(P, frames, d, tt):
    """The node of row ``d`` is done: store its bounds in the table (at trick starts)."""
    index = frames[d, IDX]
    if index < 0:
        return
    best, lo, hi = frames[d, BEST], frames[d, LO], frames[d, HI]
    if best <= frames[d, A0]:
        hi = min(hi, best)
    elif best >= frames[d, B0]:
        lo = max(lo, best)
    else:
        lo, hi = best, best
    tt[index, 0] = frames[d, K1]
    tt[index, 1] = frames[d, K2]
    tt[index, 2] = frames[d, KM] | (P[P_STAMP] << STAMP_SHIFT)
    code = _move_code(P, frames[d, BESTM])
    tt[index, 3] = (max(lo, -128) + 128) | ((min(hi, 127) + 128) << 8) | ((code + 1) << 16)


@njit(cache=True)
def _take_back(P, frames, d, value):
    """The child of row ``d`` reached by its move ``CUR`` is worth ``value``: unmake the
    move and score it."""
    m = frames[d, CUR]
    _unmake(P, m, frames, d)
    value += frames[d, PTS]
    if frames[d, MAXI]:
        if value > frames[d, BEST]:
            frames[d, BEST] = value
            frames[d, BESTM] = m
            if value > frames[d, CA]:
                frames[d, CA] = value
    elif value < frames[d, BEST]:
        frames[d, BEST] = value
        frames[d, BESTM] = m
        if value < frames[d, CB]:
            frames[d, CB] = value


@njit(cache=True)
def _search(P, alpha, beta, root, tt, frames):
    """Fail-soft alpha-beta: the card points the declaring team takes from this position on,
    both teams playing their best (exact when it lies strictly inside ``(alpha, beta)``).
    Iterative, one frame row per depth from ``root`` on (numba's cache cannot hold a
    recursive function)."""
    d = root
    frames[d, FA] = alpha
    frames[d, FB] = beta
    if _enter(P, frames, d, tt):
        return frames[d, BEST]
    while True:
        i = frames[d, I]
        if i < frames[d, N] and frames[d, CA] < frames[d, CB]:
            m = frames[d, i]
            frames[d, I] = i + 1
            frames[d, CUR] = m
            points = _make(P, m, frames, d)
            frames[d, PTS] = points
            frames[d + 1, FA] = frames[d, CA] - points
            frames[d + 1, FB] = frames[d, CB] - points
            if _enter(P, frames, d + 1, tt):
                _take_back(P, frames, d, frames[d + 1, BEST])
            else:
                d += 1
            continue
        _store(P, frames, d, tt)
        if d == root:
            return frames[d, BEST]
        d -= 1
        _take_back(P, frames, d, frames[d + 1, BEST])


@njit(cache=True)
def _exact(P, root, tt, frames, guess):
    """The exact value of the position by null-window searches (MTD(f), from ``guess``): each
    asks "at least beta?" at the cheapest window, the table keeping the bounds between
    them."""
    lower, upper = -INF, INF
    g = guess
    while lower < upper:
        beta = g + 1 if g == lower else g
        g = _search(P, beta - 1, beta, root, tt, frames)
        if g < beta:
            upper = g
        else:
            lower = g
    return g


# ---------------------------------------------------------------------------------------
# From an engine row


@njit(cache=True)
def position_from_row(row, P):
    """The solver's position of the hand in ``row`` (play phase, or bidding: then nobody has
    played and the caller sets the leader and the declaring team)."""
    for i in range(P_SIZE):
        P[i] = 0
    for k in range(N_CARDS):
        card = row[E.DEAL + k]
        if row[E.TRICK_OF_CARD + card] < 0:
            P[P_HANDS + k // CARDS_PER_HAND] |= np.int64(1) << card
    done = row[E.TRICKS_DONE]
    for i in range(N_CARDS):
        P[P_TRICKS + i] = -1
    tlen = row[E.TRICK_LEN]
    for pos in range(tlen):
        P[P_TRICKS + N_SEATS * done + pos] = row[E.TRICK + pos]
    P[P_TLEN] = tlen
    P[P_LEADER] = row[E.LEADER]
    P[P_HANDED] = row[E.LEAD_HANDED_OVER]
    P[P_DONE] = done
    P[P_TRUMP] = row[E.TRUMP]
    P[P_FIRST_HANDOVER] = 1 + row[E.TAKE_A_LEAD_RULE]
    P[P_DTEAM] = row[E.DECLARER] % 2 if row[E.DECLARER] >= 0 else 0
    P[P_LEAD_CITY] = -1


@njit(cache=True)
def margin(points, contract):
    """The declaring team's score change minus the other team's, for ``points`` of the
    hand's 10 card points to the declaring team."""
    mine = points if points >= contract else -contract
    return mine - max(HAND_POINTS - points, 0)


@njit(cache=True)
def _root_moves(P, out):
    """Every legal move at the root (no equivalents left out), in action order."""
    tlen = P[P_TLEN]
    done = P[P_DONE]
    seat = (P[P_LEADER] + tlen) % N_SEATS
    hand = P[P_HANDS + seat]
    base = P_TRICKS + N_SEATS * done
    if tlen > 0:
        follow = hand & (np.int64(0xFF) << (N_RANKS * (P[base] // N_RANKS)))
        legal = follow if follow != 0 else hand
    else:
        legal = hand
    n = 0
    if tlen == 0 and P[P_HANDED] == 0 and done >= P[P_FIRST_HANDOVER]:
        out[n] = TAKE
        n += 1
    for card in range(N_CARDS):
        if (legal >> card) & 1:
            out[n] = card
            n += 1
    return n


@njit(cache=True)
def root_values(row, stamp, tt, moves, P, actions, values):
    """The exact open-card margin (:func:`margin`, for the acting team) of every legal action
    of the seat to act in ``row`` (play phase): ``actions[:n]`` (action ids) and
    ``values[:n]``; returns ``n``. The table ``tt`` is used under generation ``stamp``."""
    position_from_row(row, P)
    P[P_STAMP] = stamp
    declaring = row[E.DECLARER] % 2
    acting = row[E.TO_ACT] % 2
    so_far = row[E.TEAM_POINTS + declaring]
    contract = row[E.CONTRACT]
    root = np.empty(MAX_MOVES, dtype=np.int64)
    n = _root_moves(P, root)
    guess = 0
    for i in range(n):
        m = root[i]
        points = _make(P, m, moves, 0)
        future = _exact(P, 1, tt, moves, guess - points)
        guess = points + future
        points += so_far + future
        _unmake(P, m, moves, 0)
        value = margin(points, contract)
        actions[i] = TAKE_A_LEAD if m == TAKE else CARD + m
        values[i] = value if acting == declaring else -value
    return n


@njit(cache=True)
def _start_position(row, declarer, stamp, P):
    """The position of the hand dealt in ``row`` with ``declarer`` to lead, trump not named."""
    position_from_row(row, P)
    P[P_TLEN] = 0
    P[P_DONE] = 0
    P[P_HANDED] = 0
    P[P_TRUMP] = -1
    P[P_LEADER] = declarer
    P[P_DTEAM] = declarer % 2
    P[P_STAMP] = stamp


@njit(cache=True)
def best_declarer_points(row, declarer, stamp, tt, moves, P):
    """For the hand dealt in ``row`` (nothing played yet), ``declarer`` leading: the card
    points the declaring team takes with every card open, the declarer naming the best
    trump for this deal (one search: the opening lead is free)."""
    _start_position(row, declarer, stamp, P)
    P[P_LEAD_CITY] = -1
    return _exact(P, 0, tt, moves, 4)


@njit(cache=True)
def declarer_points(row, declarer, stamp, tt, moves, P, out):
    """For the hand dealt in ``row`` (nothing played yet), ``declarer`` leading: ``out[city]``
    = the card points the declaring team takes with every card open when the declarer's
    first lead (naming trump) is of ``city``; ``NO_VALUE`` if it holds none of that city."""
    _start_position(row, declarer, stamp, P)
    for city in range(4):
        if P[P_HANDS + declarer] & (np.int64(0xFF) << (N_RANKS * city)) == 0:
            out[city] = NO_VALUE
            continue
        P[P_LEAD_CITY] = city
        out[city] = _exact(P, 0, tt, moves, 4)
    P[P_LEAD_CITY] = -1


class Solver:
    """The buffers of the kernels (a transposition table of :data:`TT_SIZE` entries, 32 MiB)
    and the generation stamp: one per thread of search."""

    def __init__(self) -> None:
        self.tt = np.zeros((TT_SIZE, 4), dtype=np.int64)
        self.moves = np.zeros((MAX_DEPTH, ROW_WIDTH), dtype=np.int64)
        self.P = np.zeros(P_SIZE, dtype=np.int64)
        self.actions = np.zeros(MAX_MOVES, dtype=np.int64)
        self.values = np.zeros(MAX_MOVES, dtype=np.int64)
        self.by_city = np.zeros(4, dtype=np.int64)
        self.stamp = 0

    def next_stamp(self) -> int:
        self.stamp += 1
        return self.stamp

    def values_of(self, row: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(actions, values)`` of :func:`root_values` (new arrays)."""
        n = root_values(
            row, self.next_stamp(), self.tt, self.moves, self.P, self.actions, self.values
        )
        return self.actions[:n].copy(), self.values[:n].copy()

    def declarer_points(self, row: np.ndarray, declarer: int, stamp: int | None = None):
        """:func:`declarer_points` (a new array of 4); ``stamp`` shares a table with other
        calls on the same deal."""
        stamp = self.next_stamp() if stamp is None else stamp
        declarer_points(row, declarer, stamp, self.tt, self.moves, self.P, self.by_city)
        return self.by_city.copy()

    def best_declarer_points(self, row: np.ndarray, declarer: int, stamp: int | None = None):
        """:func:`best_declarer_points`."""
        stamp = self.next_stamp() if stamp is None else stamp
        return int(best_declarer_points(row, declarer, stamp, self.tt, self.moves, self.P))

    @property
    def nodes(self) -> int:
        return int(self.P[P_NODES])


_SOLVER: Solver | None = None


def default_solver() -> Solver:
    global _SOLVER
    if _SOLVER is None:
        _SOLVER = Solver()
    return _SOLVER


def solve_row(row: np.ndarray) -> dict[int, float]:
    """``{action: value}`` of :func:`root_values` (play phase; the caller checks)."""
    actions, values = default_solver().values_of(row)
    return {int(a): float(v) for a, v in zip(actions, values, strict=True)}
