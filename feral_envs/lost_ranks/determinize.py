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

import numpy as np

from feral_envs.cards import NO_CARD
from feral_envs.engine.game import Game
from feral_envs.lost_ranks.encoding import OBS
from feral_envs.lost_ranks.engine import STATE
from feral_envs.lost_ranks.rules import (
    DECK,
    N_SEATS,
    PASS_SIZE,
    TO_ENEMY,
    TO_PARTNER,
    Phase,
    partner,
    pass_enemy,
)

SUIT_OF = np.array(DECK.suit_of)
N_SUITS = 4
TRIES = 100
"""Draws before giving up (:class:`RuntimeError`); in practice the first or second works."""


def voids_shown(state: Game) -> np.ndarray:
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


def can_sample(state: Game) -> bool:
    """Whether :func:`sample_deal` can deal ``state`` again: in the play phase."""
    return state.phase == Phase.PLAY


def sample_deal(state: Game, seat: int, rng: np.random.Generator) -> Game | None:
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


def _with_hands(state: Game, seat: int, others: list[int], dealt: dict[int, int]) -> Game:
    """A copy of the game's row with the hidden cards held as ``dealt`` says, the pass
    choices ``seat`` does not know cleared, and nothing of the true deal left in it."""
    new = state.copy()
    row = new.row
    holder = row[STATE.holder.slice]
    for card, owner in dealt.items():
        holder[card] = owner
    choices = row[STATE.pass_choice.slice].reshape(N_SEATS, PASS_SIZE)
    known = np.full_like(choices, NO_CARD)
    known[seat] = choices[seat]  # what it passed
    known[partner(seat), :2] = choices[partner(seat), :2]  # what its partner passed to it
    giver = next(s for s in others if pass_enemy(s, state.round) == seat)
    known[giver, 2] = choices[giver, 2]  # the enemy card it received
    choices[:] = known
    row[STATE.deal.slice] = NO_CARD  # the round's true deck: used only when dealing
    return new
