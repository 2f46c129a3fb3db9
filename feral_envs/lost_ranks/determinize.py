"""Deals consistent with what one seat knows: the hidden cards dealt again at random.

:func:`sample_deal` returns a copy of a game in the play phase in which the cards the given
seat cannot see (the other three hands) are dealt again, at random, among the same seats and
in the same numbers, consistently with everything that seat knows:

* its own hand, and every card played (they do not move);
* the cards it passed this round: the two to its partner and the one to the enemy stay with
  them while unplayed;
* the voids shown: a seat that did not follow the led suit (the Spy has no suit, so playing it
  to a suit shows a void too) gets no card of that suit.

It is a function of the seat's information alone (and of ``rng``): two games that look the
same from that seat give the same deal for the same generator state, whatever the true hands
(a test checks it). So searching over such deals (perfect-information Monte Carlo) never
peeks. The pass records of the other seats, which that seat does not see either, are kept
only where it knows them (the cards it passed and received) and cleared elsewhere, so the
players of the copy do not act on them. Cards are dealt most-constrained first, each to an
allowed seat chosen in proportion to the room left in its hand; a draw that runs out of room
is drawn again. This is close to, though not exactly, uniform over consistent deals.

Only the play phase is supported (``None`` in the pass, where the other seats' choices are
still open).
"""

from __future__ import annotations

import copy

import numpy as np

from feral_envs.lost_ranks.encoding import OBS
from feral_envs.lost_ranks.rules import (
    DECK,
    FROM_ENEMY,
    FROM_PARTNER,
    N_SEATS,
    TO_ENEMY,
    TO_PARTNER,
    Phase,
    State,
    partner,
    pass_enemy,
)

SUIT_OF = np.array(DECK.suit_of)
N_SUITS = 4
TRIES = 100
"""Draws before giving up (:class:`RuntimeError`); in practice the first or second works."""


def voids_shown(state: State) -> np.ndarray:
    """``(4, 4)`` bool: ``[seat, suit]`` when ``seat`` has not followed ``suit`` this round."""
    void = np.zeros((N_SEATS, N_SUITS), bool)
    for k in range(state.tricks_done * N_SEATS + state.n_in_trick):
        if k % N_SEATS:
            led = SUIT_OF[state.plays[k - k % N_SEATS]]
            if led >= 0 and SUIT_OF[state.plays[k]] != led:
                void[state.play_seats[k], led] = True
    return void


SAMPLED_FLAG = OBS.phase.start + Phase.PLAY
"""The observation index that is 1 exactly where :func:`can_sample` is true (the play phase's
flag): where a policy fit on sampled decisions may act, tested on an observation alone."""


def can_sample(state: State) -> bool:
    """Whether :func:`sample_deal` can deal ``state`` again: in the play phase."""
    return state.phase == Phase.PLAY


def sample_deal(state: State, seat: int, rng: np.random.Generator) -> State | None:
    """A copy of ``state`` with the cards ``seat`` cannot see dealt again (module doc);
    ``None`` outside the play phase. ``state`` is not changed."""
    if not can_sample(state):
        return None
    others = [s for s in range(N_SEATS) if s != seat]
    room = {s: int(state.hands[s].sum()) for s in others}
    fixed: dict[int, int] = {}  # card -> seat: the cards ``seat`` passed, still unplayed
    for kind, to in ((TO_PARTNER, partner(seat)), (TO_ENEMY, pass_enemy(seat, state.round))):
        for card in np.flatnonzero(state.pass_record[seat, kind] & state.hands[to]):
            fixed[int(card)] = to
    hidden = np.flatnonzero(state.hands[others].any(axis=0))
    free = [int(c) for c in hidden if int(c) not in fixed]  # ascending: no hidden order
    void = voids_shown(state)
    allowed = {
        c: [s for s in others if not (SUIT_OF[c] >= 0 and void[s, SUIT_OF[c]])] for c in free
    }
    for _ in range(TRIES):
        left = dict(room)
        for owner in fixed.values():
            left[owner] -= 1
        dealt = dict(fixed)
        order = [free[i] for i in rng.permutation(len(free))]
        order.sort(key=lambda c: len(allowed[c]))  # stable: random among equals
        for card in order:
            options = [s for s in allowed[card] if left[s] > 0]
            if not options:
                break
            weights = np.array([left[s] for s in options], float)
            owner = options[int(rng.choice(len(options), p=weights / weights.sum()))]
            dealt[card], left[owner] = owner, left[owner] - 1
        else:
            return _with_hands(state, seat, others, dealt)
    raise RuntimeError(f"no deal consistent with seat {seat}'s view in {TRIES} draws")


def _with_hands(state: State, seat: int, others: list[int], dealt: dict[int, int]) -> State:
    new = copy.deepcopy(state)  # a fresh observation cache and legal mask come with it
    new.hands[others] = False
    for card, owner in dealt.items():
        new.hands[owner, card] = True
    known = np.zeros_like(new.pass_record)
    known[seat] = state.pass_record[seat]
    known[partner(seat), FROM_PARTNER] = state.pass_record[seat, TO_PARTNER]
    known[pass_enemy(seat, state.round), FROM_ENEMY] = state.pass_record[seat, TO_ENEMY]
    for giver, kind, mine in (
        (partner(seat), TO_PARTNER, FROM_PARTNER),
        (None, TO_ENEMY, FROM_ENEMY),
    ):
        if giver is None:  # the enemy whose third card came to ``seat``
            giver = next(s for s in others if pass_enemy(s, state.round) == seat)
        known[giver, kind] = state.pass_record[seat, mine]
    new.pass_record = known
    new.mask = None
    return new
