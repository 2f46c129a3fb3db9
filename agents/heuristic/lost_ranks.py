"""``heuristic`` for Lost Ranks: a rule-based passer and card player.

Only two kinds of card score in Lost Ranks: an *Active* Jack (+2 to the army that played it,
if that army wins its trick: a *rescue*) and the Spy (+2 by variant to the army that
captures it). Neither can win a trick, so every point needs two partners: one plays the
Jack or the Spy, the other wins the trick. The bot is built around that.

It reads only ``act``'s observation and action mask, decoded with the spans of
:data:`feral_envs.lost_ranks.encoding.OBS` (ego-centric: me, left, partner, right), and the
game's fixed card table and variant; the voids each seat has shown are in the observation
(``voids_shown``), so the bot keeps no memory between calls. It draws no random numbers, so
it is deterministic (the seed is kept for the protocol). The rules below are numbered as in
``docs/bots/lost_ranks.md``; the first rule that applies decides.

Card knowledge
    *Unseen* cards are those not in the bot's hand, not played and not the Trump Card. The
    cards the bot passed and that have not been played yet are known to be with their
    receiver. A seat that did not follow the led suit (the Spy included) is void in it. The
    chance that a seat holds a card that beats the trick's best card is estimated from the
    unseen cards it can hold, its hand size and its voids (hypergeometric, suits taken as
    independent); "safe" means that chance is zero for every enemy still to play. The
    army's chance to win the trick chains these estimates over the seats still to play.
    A Jack's *guards* are the other cards of its suit in the same hand: a Jack that is the
    last card of its suit must be played whenever that suit is led, winning or not.

Passing (the whole pass is planned from the 13 dealt cards, then made one choice at a time)
    P1. Never pass the Spy or an Active Jack to the enemy: the enemy could score them. (The
        Spy is kept even where a variant makes it worthless to that enemy: under Master of
        Spies it is then worth +2 to the bot's own army.)
    P2. A *strong* hand (estimated tricks: trumps 0.4 to 1 by rank, side Aces 1, side
        Kings 0.5; at least ``STRONG_HAND``, about the median hand) will win tricks, so its
        Active Jacks, then the Spy, go to the partner, who will play them onto the bot's
        winners.
    P3. A weaker hand that holds an Active Jack or the Spy keeps them and sends its
        strength to the partner (its two best cards by estimated tricks: trumps, side Aces
        and Kings), so that the partner wins the tricks it plays them onto; never a guard
        of a kept Jack.
    P4. The partner's remaining choices are low side cards from the bot's shortest side
        suits (making voids, where Jacks and the Spy can be played and trumps used), the
        guards of a kept Jack last.
    P5. The enemy gets junk: an Inactive Jack (it can never win nor score), else the lowest
        side card of the bot's shortest side suit (never an Ace, a kept Jack's guards
        last), else the lowest trump.

Following (the bot is not the leader; "partner winning" means the partner's card is the
trick's best so far)
    F1. Rescue: play an Active Jack if it may, else the Spy, when the chance that the army
        wins the trick is at least ``h(n)``: the partner is winning and the enemies still to
        play are unlikely to beat it (a certainty when the bot plays last), or the partner
        is still to play and likely to win it. ``h`` falls from ``RESCUE_EARLY`` to
        ``RESCUE_LATE`` as the bot's hand ``n`` shrinks: waiting grows riskier, as the last
        cards are forced.
    F2. Points in the trick (an Active Jack of either army or the Spy already played):
        enemy winning (or nobody yet): win it with the cheapest card that wins safely, else
        with the card most likely to win if that chance reaches ``CONTEST``; partner
        winning but not safely: overtake with the cheapest safe card. This takes the Spy
        cheaply and keeps enemy Jacks from being rescued (overtrumping when needed).
    F3. Win cheaply: enemy winning with no points in the trick. Playing last, take it with a
        card of the led suit when one wins (the lead is worth a side card, not a trump).
        Not last, with an enemy still to play who may hold an Active Jack or the Spy, take
        it with the cheapest card whose chance of holding reaches ``DENY``, unless that
        card is one of the bot's top trumps (higher than all unseen trumps but one).
    F4. Otherwise play the cheapest card (ducking when it cannot win, playing low under a
        winning partner): following suit, an Inactive Jack or the lowest card; void,
        discard an Inactive Jack, then the lowest side card from the shortest side suit
        (a kept Jack's guards last), keeping Aces and trumps. Never an Active Jack or the
        Spy unless nothing else is legal (then the Jack first: its loss gives the enemy
        nothing).

Leading
    L1. A forced lead (the first trick's lowest trump; the Spy as last card) is played.
    L2. Cash a winner: the side card (then the trump) most likely to win, if that chance
        reaches ``CASH``: the partner can then play its Jacks and the Spy on it. A card of
        the suit of an Active Jack the bot passed to its partner comes first.
    L3. Otherwise lead low: the lowest Infantry of the bot's shortest side suit, avoiding
        the suits of its own Active Jacks (their guards) and suits an enemy has shown void
        in (it could ruff, or dump a Jack on its partner's ruff).
    L4. Otherwise the lowest trump; with only Jacks left, an Inactive Jack before an Active
        one.

Tuning: the constants were set by duplicate self-play (the same deals played with the
armies swapped, one army changed); see ``docs/bots/lost_ranks.md``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numba import njit

from agents.base import BasePolicy
from feral_envs.cards import CANNOT_WIN, NO_SUIT
from feral_envs.lost_ranks.encoding import ACTIONS, OBS
from feral_envs.lost_ranks.rules import (
    DECK,
    HAND_SIZE,
    JACKS,
    N_SEATS,
    RED,
    SPY,
    SUIT_COLOUR,
    VARIANTS,
    Phase,
    spy_points,
)

ME, LEFT, PARTNER, RIGHT = range(N_SEATS)
"""Ego-centric seats, as the observation orders them."""

N_ACTIONS = ACTIONS.size
_SUIT = DECK.suit_of
_POWER = DECK.power_of
_TOP = max(_POWER)  # the Ace's power
_PLAYED = (OBS.played_me, OBS.played_left, OBS.played_partner, OBS.played_right)
_TRICK = (OBS.trick_0, OBS.trick_1, OBS.trick_2)

STRONG_HAND = 3.0
"""P2: estimated tricks from which a hand passes its Active Jacks and Spy to the partner."""
RESCUE_EARLY, RESCUE_LATE = 0.9, 0.4
"""F1: chance the partner keeps the trick needed to play a Jack or the Spy on it, with a full
hand and with one card left (linear in between)."""
CONTEST = 0.4
"""F2: least chance of winning for which the bot contests a trick holding points."""
DENY = 0.75
"""F3: least chance of holding for which the bot takes a pointless trick when an enemy still
to play might dump an Active Jack or the Spy on it."""
CASH = 0.8
"""L2: least chance of winning for a lead to count as a winner to cash."""
SAFE = 1.0 - 1e-9


def make_policy(seed: int, **keywords: Any) -> LostRanksHeuristic:
    """A fresh Lost Ranks bot (the registry's ``heuristic`` spec); ``keywords`` are the env's
    game keywords, of which it uses ``variant``."""
    return LostRanksHeuristic(seed, variant=keywords.get("variant", "standard"))


class LostRanksHeuristic(BasePolicy):
    """The rule-based Lost Ranks bot (rules in the module docstring): the card play compiled
    (:func:`decide_play`), the pass planned in Python (:func:`plan_pass`).

    Also a :class:`~agents.base.BatchPolicy`, with ``restart_lanes``: the bot draws no random
    numbers and remembers nothing, so every lane plays as ``act``; ``act_lanes`` decides all
    the lanes' card plays in one kernel call.
    """

    def __init__(self, seed: int, variant: str = "standard", spec: str = "heuristic") -> None:
        super().__init__(spec, seed)
        if variant not in VARIANTS:
            raise ValueError(f"variant={variant!r} is not allowed; choose one of: {VARIANTS}")
        self.variant = variant
        self.spy = spy_points(variant, RED)  # RED stands for the Trump Card's colour
        self.n_lanes = 0

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
        if int(np.argmax(observation[OBS.phase.slice])) == Phase.PASS:
            action = self._pass(observation, np.flatnonzero(action_mask).tolist())
        else:
            action = decide_play(observation, action_mask, *self.spy)
        if action < 0 or not action_mask[action]:  # a bug in the rules, never the caller's
            raise RuntimeError(f"the rules chose illegal action {action}")
        return int(action)

    def reset_lanes(self, seeds: Sequence[int]) -> None:
        self.n_lanes = len(seeds)

    def restart_lanes(self, lanes: Sequence[int], seeds: Sequence[int]) -> None:
        """Start lanes ``lanes`` (the bot has nothing to reset)."""
        self.n_lanes = max(self.n_lanes, max(lanes, default=-1) + 1)

    def act_lanes(
        self, lanes: np.ndarray, observations: np.ndarray, action_masks: np.ndarray
    ) -> np.ndarray:
        observations, masks = _checked(observations, action_masks)
        lanes = np.asarray(lanes)
        if len(lanes) != len(observations):
            raise ValueError(f"{len(lanes)} lanes for {len(observations)} observations")
        if len(lanes) and lanes.max() >= self.n_lanes:
            raise IndexError(f"lane {lanes.max()} was not started ({self.n_lanes} lanes)")
        return self._decide(observations, masks)

    def _decide(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        actions = np.full(len(observations), -1, dtype=np.int64)
        passing = observations[:, OBS.phase.slice].argmax(axis=1) == Phase.PASS
        for i in np.flatnonzero(passing).tolist():
            actions[i] = self._pass(observations[i], np.flatnonzero(masks[i]).tolist())
        rows = np.flatnonzero(~passing)
        if rows.size:
            decide_play_batch(observations, masks, *self.spy, rows, actions)
        bad = np.flatnonzero((actions < 0) | (masks[np.arange(len(actions)), actions] == 0))
        if bad.size:  # a bug in the rules, never the caller's fault
            raise RuntimeError(f"the rules chose illegal action {actions[bad[0]]}")
        return actions

    # ------------------------------------------------------------------------------ pass

    def _pass(self, obs: np.ndarray, legal: list[int]) -> int:
        held = _cards(obs, OBS.hand)
        chosen = _cards(obs, OBS.passed_to_partner) + _cards(obs, OBS.passed_to_enemy)
        step = int(np.argmax(obs[OBS.pass_step.slice]))
        trump = int(np.argmax(obs[OBS.trump_suit.slice]))
        plan = plan_pass(sorted(held + chosen), trump)
        if plan[step] in legal:
            return plan[step]
        # Only if the earlier choices were not the bot's own plan: the same rules on what is left.
        return plan_pass_fallback(held, trump, to_enemy=step == 2)


# ---------------------------------------------------------------------------------- cards


def _checked(observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows as the kernel reads them (entries past ``OBS.size`` ignored, as appended
    inputs such as ``--advice`` are), or a ``ValueError`` naming what is wrong."""
    observations, masks = np.asarray(observations), np.asarray(masks)
    if observations.ndim != 2 or observations.shape[1] < OBS.size:
        raise ValueError(
            f"a Lost Ranks observation has {OBS.size} entries (more are ignored: the advice of "
            f"train --advice); got shape {observations.shape[1:]}"
        )
    if masks.shape != (len(observations), N_ACTIONS):
        raise ValueError(
            f"a Lost Ranks action mask has {N_ACTIONS} entries; got shape {masks.shape[1:]}"
        )
    if not masks.any(axis=1).all():
        raise ValueError("action_mask marks no legal action: it is not this policy's turn")
    return observations, masks


def _cards(obs: np.ndarray, span: Any) -> list[int]:
    return [int(c) for c in np.flatnonzero(obs[span.slice])]


def active_jacks(trump: int) -> tuple[int, ...]:
    """The two Jacks of the Trump Card's colour."""
    return tuple(j for j in JACKS if SUIT_COLOUR[_SUIT[j]] == SUIT_COLOUR[trump])


def card_strength(card: int, trump: int) -> float:
    """A card's estimated tricks: a trump by rank (0.4 for the lowest to 1 for the Ace), a
    side Ace 1, a side King 0.5, anything else 0."""
    power = _POWER[card]
    if power == CANNOT_WIN:
        return 0.0
    if _SUIT[card] == trump:
        return 0.4 + 0.6 * power / _TOP
    return {_TOP: 1.0, _TOP - 1: 0.5}.get(power, 0.0)


def hand_strength(hand: Sequence[int], trump: int) -> float:
    """Estimated tricks of a hand (P2): the sum of its :func:`card_strength`."""
    return sum(card_strength(card, trump) for card in hand)


def _side_suit_lengths(hand: Sequence[int], trump: int) -> dict[int, int]:
    lengths = {s: 0 for s in range(4) if s != trump}
    for card in hand:
        if _SUIT[card] in lengths:
            lengths[_SUIT[card]] += 1
    return lengths


def _void_makers(hand: Sequence[int], trump: int, guarded: set[int]) -> list[int]:
    """Side Infantry below the Ace, shortest suit first, lowest first (P4, P5); the suits in
    ``guarded`` (those of the Active Jacks kept) last, longest first."""
    lengths = _side_suit_lengths(hand, trump)
    cards = [
        c for c in hand if _SUIT[c] in lengths and _POWER[c] != CANNOT_WIN and _POWER[c] < _TOP
    ]

    def key(card: int) -> tuple:
        suit = _SUIT[card]
        if suit in guarded:
            return (1, -lengths[suit], _POWER[card], card)
        return (0, lengths[suit], _POWER[card], card)

    return sorted(cards, key=key)


def plan_pass(hand: Sequence[int], trump: int) -> list[int]:
    """The bot's three pass choices for a 13-card ``hand``: two for the partner, then one
    for the enemy (rules P1 to P5)."""
    jacks = active_jacks(trump)
    scoring = [c for c in hand if c in jacks] + ([SPY] if SPY in hand else [])
    to_partner: list[int] = []
    if hand_strength(hand, trump) >= STRONG_HAND:  # P2
        to_partner += scoring[:2]
    guarded = {_SUIT[c] for c in scoring if c in jacks and c not in to_partner}
    if scoring and not to_partner:  # P3
        strong = [c for c in hand if card_strength(c, trump) > 0 and _SUIT[c] not in guarded]
        strong.sort(key=lambda c: (-card_strength(c, trump), c))
        to_partner += strong[:2]
    for card in _void_makers(hand, trump, guarded):  # P4
        if len(to_partner) == 2:
            break
        if card not in to_partner:
            to_partner.append(card)
    for card in sorted(hand, key=lambda c: (c in scoring, _POWER[c], c)):  # any card left
        if len(to_partner) == 2:
            break
        if card not in to_partner:
            to_partner.append(card)
    rest = [c for c in hand if c not in to_partner]
    return [*to_partner, _junk_for_enemy(rest, trump, guarded)]


def _junk_for_enemy(cards: Sequence[int], trump: int, guarded: set[int]) -> int:
    """P5 (and P1): the card for the enemy among ``cards``."""
    jacks = active_jacks(trump)
    inactive = [c for c in cards if c in JACKS and c not in jacks]
    if inactive:
        return min(inactive)
    makers = _void_makers(cards, trump, guarded)
    if makers:
        return makers[0]
    safe = [c for c in cards if c != SPY and c not in jacks]
    # An Ace or trumps only: the lowest of them (the 13 cards always hold one).
    return min(safe, key=lambda c: (_SUIT[c] == trump, _POWER[c], c))


def plan_pass_fallback(held: Sequence[int], trump: int, to_enemy: bool) -> int:
    """A pass choice when the plan's card is gone: the enemy's junk, or the plan's choice
    among the cards still held."""
    if to_enemy:
        guarded = {_SUIT[c] for c in held if c in active_jacks(trump)}
        return _junk_for_enemy(held, trump, guarded)
    return plan_pass(held, trump)[0]


# ---------------------------------------------------------------------------------------
# The card play, compiled (numba): :func:`decide_play` reads one observation row of the play
# phase; :func:`decide_play_batch` many. ``info`` holds the position's numbers (indices
# below), ``known`` the cards known to be with each seat (the bot's passes not yet played),
# ``unknown`` the cards whose place the bot cannot tell.

_N = DECK.n
_SUIT_K = np.asarray(_SUIT, dtype=np.int64)
_POWER_K = np.asarray(_POWER, dtype=np.int64)
_JACKS_K = np.asarray(JACKS, dtype=np.int64)
_COLOUR_K = np.asarray(SUIT_COLOUR, dtype=np.int64)
_COMB = np.array([[math.comb(n, k) for k in range(_N + 1)] for n in range(_N + 1)], np.float64)
"""``math.comb(n, k)`` as floats, exact (every value is below 2**53)."""
assert _COMB.max() < 2**53
_HAND_K, _TRUMP_CARD_K, _TRUMP_SUIT_K = OBS.hand.start, OBS.trump_card.start, OBS.trump_suit.start
_TRUMP_ARMY_K, _PASS_DIRECTION_K = OBS.trump_army.start, OBS.pass_direction.start
_PLAYED_K = np.array([span.start for span in _PLAYED], dtype=np.int64)
_TRICK_K = np.array([span.start for span in _TRICK], dtype=np.int64)
_LEADER_K, _VOIDS_K = OBS.trick_leader.start, OBS.voids_shown.start
_TO_PARTNER_K, _TO_ENEMY_K = OBS.passed_to_partner.start, OBS.passed_to_enemy.start
_NO_CARD = -1
(_I_TRUMP, _I_LEADER, _I_LED, _I_POSITION, _I_SPY_MINE, _I_SPY_THEIRS, _I_JACK0, _I_JACK1,
 _I_N_HAND, _I_SIZE) = range(10)  # fmt: skip


@njit(cache=True)
def _argmax(o, start, size):
    """``np.argmax`` of ``o[start : start + size]``: the first largest entry."""
    best = 0
    for i in range(1, size):
        if o[start + i] > o[start + best]:
            best = i
    return best


@njit(cache=True)
def _beats(card, best, led, trump):
    """Whether ``card`` would become the best card of a trick whose best is ``best`` (-1: no
    card that can win yet) and whose led suit is ``led``."""
    power = _POWER_K[card]
    if power == CANNOT_WIN:
        return False
    suit = _SUIT_K[card]
    if best == _NO_CARD:
        return suit == trump or suit == led
    if suit == trump:
        return _SUIT_K[best] != trump or power > _POWER_K[best]
    return suit == led and _SUIT_K[best] == led and power > _POWER_K[best]


@njit(cache=True)
def _p_any(k, n, total):
    """Chance that ``n`` cards drawn from ``total`` include one of ``k`` given ones (from the
    exact table of binomials)."""
    if k <= 0 or n <= 0:
        return 0.0
    if total - k < n:
        return 1.0
    return 1.0 - _COMB[total - k, n] / _COMB[total, n]


@njit(cache=True)
def _p_beat(info, unknown, known, voids, sizes, seat, best, led):
    """Chance that ``seat`` holds (and may play) a card that beats ``best`` in a trick whose
    led suit is ``led``: from the unknown cards it can hold (not of a suit it has shown void
    in), its hand size and the cards known to be with it, suits taken as independent."""
    trump = info[_I_TRUMP]
    n_pool, n_threats, n_follow, n_led = 0, 0, 0, 0
    for c in range(_N):
        if not unknown[c]:
            continue
        suit = _SUIT_K[c]
        if suit != NO_SUIT and voids[seat, suit]:
            continue
        n_pool += 1
        if suit == trump and _beats(c, best, led, trump):
            n_threats += 1
        if suit == led:
            n_led += 1
            if _beats(c, best, led, trump):
                n_follow += 1
    n_known = 0
    known_trump, known_led_beats, known_led = False, False, False
    for c in range(_N):
        if not known[seat, c]:
            continue
        n_known += 1
        suit = _SUIT_K[c]
        if suit == trump and _beats(c, best, led, trump):
            known_trump = True
        if suit == led:
            known_led = True
            if _beats(c, best, led, trump):
                known_led_beats = True
    n_drawn = sizes[seat] - n_known
    if led == NO_SUIT or led == trump:
        return 1.0 if known_trump else _p_any(n_threats, n_drawn, n_pool)
    if known_led_beats:
        return 1.0
    p_follow = _p_any(n_follow, n_drawn, n_pool)
    if voids[seat, led]:
        p_void = 1.0
    elif known_led:
        p_void = 0.0
    else:
        p_void = 1.0 - _p_any(n_led, n_drawn, n_pool)
    p_trump = 1.0 if known_trump else _p_any(n_threats, n_drawn, n_pool)
    return min(1.0, p_follow + p_void * p_trump)


@njit(cache=True)
def _p_ours(info, unknown, known, voids, sizes, best, best_is_ours, after, led):
    """Chance the bot's army wins the trick (led suit ``led``) if its best card is ``best``
    (ours or not) once the seat at trick position ``after`` has played."""
    p = 1.0 if best != _NO_CARD and best_is_ours else 0.0
    for position in range(after + 1, N_SEATS):
        seat = (info[_I_LEADER] + position) % N_SEATS
        beat = _p_beat(info, unknown, known, voids, sizes, seat, best, led)
        p = p + (1.0 - p) * beat if seat == PARTNER else p * (1.0 - beat)
    return p


@njit(cache=True)
def _best(info, trick):
    """The trick's best card so far and its seat (-1, -1: no card that can win)."""
    best, seat = _NO_CARD, -1
    for position in range(info[_I_POSITION]):
        card = trick[position]
        if _beats(card, best, info[_I_LED], info[_I_TRUMP]):
            best, seat = card, (info[_I_LEADER] + position) % N_SEATS
    return best, seat


@njit(cache=True)
def _p_win_with(info, unknown, known, voids, sizes, trick, card):
    """Chance the army wins the trick once the bot has played ``card``."""
    best, seat = _best(info, trick)
    if _beats(card, best, info[_I_LED], info[_I_TRUMP]):
        best, ours = card, True
    else:
        ours = seat == PARTNER
    return _p_ours(info, unknown, known, voids, sizes, best, ours, info[_I_POSITION], info[_I_LED])


@njit(cache=True)
def _scoring(info, card):
    return card == SPY or card == info[_I_JACK0] or card == info[_I_JACK1]


@njit(cache=True)
def _worth(info, card):
    """How much the bot would rather keep ``card`` (lower is cheaper to play)."""
    if _scoring(info, card):
        return (4, 0, card)
    power = _POWER_K[card]
    if power == CANNOT_WIN:
        return (0, 0, card)
    if _SUIT_K[card] == info[_I_TRUMP]:
        return (3, power, card)
    if power == _TOP:
        return (2, power, card)
    return (1, power, card)


@njit(cache=True)
def _discard_key(info, lengths, guarded, card):
    """Order of the cards to throw away when void: shortest side suit first, an Active
    Jack's guards last; the other cards by their worth ``(a, b, card)``, as ``(a, 0, 0, b,
    card)``."""
    a, b, _ = _worth(info, card)
    if a != 1:
        return (a, 0, 0, b, card)
    suit = _SUIT_K[card]
    if guarded[suit]:
        return (1, 1, -lengths[suit], _POWER_K[card], card)
    return (1, 0, lengths[suit], _POWER_K[card], card)


@njit(cache=True)
def _cheapest(info, cards):
    """The card of ``cards`` (bool, 53) of the least worth, -1 if none."""
    choice, key = _NO_CARD, (0, 0, 0)
    for c in range(_N):
        if cards[c]:
            k = _worth(info, c)
            if choice == _NO_CARD or k < key:
                choice, key = c, k
    return choice


@njit(cache=True)
def decide_play(o, mask, spy_trump_side, spy_other_side):
    """The bot's card (the action) for one observation row of the play phase and its mask;
    ``spy_*`` are :func:`~feral_envs.lost_ranks.rules.spy_points` of the variant (the Spy's
    worth to the Trump Card's army and to the other)."""
    n_legal, only = 0, _NO_CARD
    legal = np.zeros(_N, dtype=np.bool_)
    for c in range(_N):
        if mask[c] != 0:
            legal[c] = True
            n_legal += 1
            only = c
    if n_legal == 1:
        return only
    info = np.zeros(_I_SIZE, dtype=np.int64)
    trump = _argmax(o, _TRUMP_SUIT_K, 4)
    info[_I_TRUMP] = trump
    n_jacks = 0
    for j in _JACKS_K:
        if _COLOUR_K[_SUIT_K[j]] == _COLOUR_K[trump]:
            info[_I_JACK0 + n_jacks] = j
            n_jacks += 1
    if o[_TRUMP_ARMY_K] > 0.5:
        info[_I_SPY_MINE], info[_I_SPY_THEIRS] = spy_trump_side, spy_other_side
    else:
        info[_I_SPY_MINE], info[_I_SPY_THEIRS] = spy_other_side, spy_trump_side
    hand = np.zeros(_N, dtype=np.bool_)
    seen = np.zeros(_N, dtype=np.bool_)
    n_hand = 0
    for c in range(_N):
        if o[_HAND_K + c] != 0:
            hand[c] = seen[c] = True
            n_hand += 1
    info[_I_N_HAND] = n_hand
    seen[_argmax(o, _TRUMP_CARD_K, _N)] = True
    played = np.zeros((N_SEATS, _N), dtype=np.bool_)
    sizes = np.full(N_SEATS, HAND_SIZE, dtype=np.int64)
    for seat in range(N_SEATS):
        for c in range(_N):
            if o[_PLAYED_K[seat] + c] != 0:
                played[seat, c] = seen[c] = True
                sizes[seat] -= 1
    sizes[ME] = n_hand
    trick = np.full(N_SEATS, _NO_CARD, dtype=np.int64)
    position = 0
    for t in range(len(_TRICK_K)):
        for c in range(_N):
            if o[_TRICK_K[t] + c] != 0:
                trick[position] = c
                position += 1
    info[_I_POSITION] = position
    info[_I_LEADER] = _argmax(o, _LEADER_K, N_SEATS)
    info[_I_LED] = _SUIT_K[trick[0]] if position else NO_SUIT
    voids = np.zeros((N_SEATS, 4), dtype=np.bool_)
    for seat in range(N_SEATS):
        for s in range(4):
            voids[seat, s] = o[_VOIDS_K + 4 * seat + s] != 0
    known = np.zeros((N_SEATS, _N), dtype=np.bool_)
    target = LEFT if o[_PASS_DIRECTION_K] > 0.5 else RIGHT
    for c in range(_N):
        if o[_TO_PARTNER_K + c] != 0 and not played[PARTNER, c]:
            known[PARTNER, c] = True
        if o[_TO_ENEMY_K + c] != 0 and not played[target, c]:
            known[target, c] = True
    unknown = np.zeros(_N, dtype=np.bool_)
    for c in range(_N):
        unknown[c] = not seen[c] and not known[PARTNER, c] and not known[target, c]
    lengths = np.zeros(4, dtype=np.int64)
    guarded = np.zeros(4, dtype=np.bool_)
    for c in range(_N):
        if hand[c]:
            if _SUIT_K[c] != trump and _SUIT_K[c] != NO_SUIT:
                lengths[_SUIT_K[c]] += 1
            if c == info[_I_JACK0] or c == info[_I_JACK1]:
                guarded[_SUIT_K[c]] = True
    if position:
        return _follow(info, legal, unknown, known, voids, sizes, trick, lengths, guarded)
    return _lead(info, legal, unknown, known, voids, sizes, lengths, guarded)


@njit(cache=True)
def _follow(info, legal, unknown, known, voids, sizes, trick, lengths, guarded):
    """Rules F1-F4 (module docstring): the card to play to a trick already led."""
    trump, led, position = info[_I_TRUMP], info[_I_LED], info[_I_POSITION]
    best, seat = _best(info, trick)
    partner_winning = seat == PARTNER
    plain = np.zeros(_N, dtype=np.bool_)
    n_plain = 0
    for c in range(_N):
        if legal[c] and not _scoring(info, c):
            plain[c] = True
            n_plain += 1
    # F1: rescue
    if partner_winning or position < N_SEATS - 1:
        p_keep = _p_ours(info, unknown, known, voids, sizes, best, partner_winning, position, led)
        share = (info[_I_N_HAND] - 1) / (HAND_SIZE - 1)
        if p_keep >= RESCUE_LATE + (RESCUE_EARLY - RESCUE_LATE) * share:
            for card in (info[_I_JACK0], info[_I_JACK1], SPY):
                if legal[card]:
                    return card
    # F2: points in the trick
    points = 0
    for pos in range(position):
        card = trick[pos]
        if card == info[_I_JACK0] or card == info[_I_JACK1]:
            points += 2
        elif card == SPY:
            points += info[_I_SPY_MINE] + info[_I_SPY_THEIRS]
    chosen = np.zeros(_N, dtype=np.bool_)
    if points and n_plain:
        if partner_winning:
            if _p_ours(info, unknown, known, voids, sizes, best, True, position, led) < SAFE:
                found = False
                for c in range(_N):
                    if plain[c] and _beats(c, best, led, trump):
                        if _p_win_with(info, unknown, known, voids, sizes, trick, c) >= SAFE:
                            chosen[c] = found = True
                if found:
                    return _cheapest(info, chosen)
        else:
            chances = np.full(_N, -1.0)
            found, top = False, -1.0
            for c in range(_N):
                if plain[c] and _beats(c, best, led, trump):
                    chances[c] = _p_win_with(info, unknown, known, voids, sizes, trick, c)
                    top = max(top, chances[c])
                    if chances[c] >= SAFE:
                        chosen[c] = found = True
            if found:
                return _cheapest(info, chosen)
            if top >= 0.0 and top >= CONTEST:
                for c in range(_N):
                    chosen[c] = chances[c] >= 0.0 and chances[c] >= top - 1e-9
                return _cheapest(info, chosen)
    # F3: win cheaply
    if not partner_winning and n_plain:
        if position == N_SEATS - 1:
            found = False
            for c in range(_N):
                if plain[c] and _beats(c, best, led, trump) and _SUIT_K[c] != trump:
                    chosen[c] = found = True
            if found:
                return _cheapest(info, chosen)
        else:
            any_winner = False
            for c in range(_N):
                if plain[c] and _beats(c, best, led, trump):
                    any_winner = True
            if any_winner and _enemy_may_dump(info, unknown, known):
                # the bot's top trumps: above every unseen trump but one
                first, second = -1, -1
                for c in range(_N):
                    if unknown[c] and _SUIT_K[c] == trump:
                        power = _POWER_K[c]
                        if power > first:
                            first, second = power, first
                        elif power > second:
                            second = power
                found = False
                for c in range(_N):
                    if not (plain[c] and _beats(c, best, led, trump)):
                        continue
                    if _SUIT_K[c] == trump and _POWER_K[c] > second:
                        continue  # a top trump (all plain winners are in the hand)
                    if _p_win_with(info, unknown, known, voids, sizes, trick, c) >= DENY:
                        chosen[c] = found = True
                if found:
                    return _cheapest(info, chosen)
    # F4: the cheapest card
    if n_plain:
        follows = False
        if led != NO_SUIT:
            for c in range(_N):
                if plain[c] and _SUIT_K[c] == led:
                    follows = True
        if follows:
            return _cheapest(info, plain)
        choice, key = _NO_CARD, (0, 0, 0, 0, 0)
        for c in range(_N):
            if plain[c]:
                k = _discard_key(info, lengths, guarded, c)
                if choice == _NO_CARD or k < key:
                    choice, key = c, k
        return choice
    for card in (info[_I_JACK0], info[_I_JACK1], SPY):
        if legal[card]:
            return card
    return _NO_CARD


@njit(cache=True)
def _enemy_may_dump(info, unknown, known):
    """Whether an Active Jack or the Spy (if it is worth points to the enemy) may still be in
    an enemy's hand."""
    for card in (info[_I_JACK0], info[_I_JACK1], SPY):
        if unknown[card] or known[LEFT, card] or known[RIGHT, card]:
            if card != SPY or info[_I_SPY_THEIRS] > 0:
                return True
    return False


@njit(cache=True)
def _lead(info, legal, unknown, known, voids, sizes, lengths, guarded):
    """Rules L2-L4 (module docstring); L1, a forced lead, is the single legal card."""
    trump = info[_I_TRUMP]
    n_infantry = 0
    for c in range(_N):
        if legal[c] and _POWER_K[c] != CANNOT_WIN:
            n_infantry += 1
    if n_infantry == 0:  # L4, only Jacks
        choice, key = _NO_CARD, (0, 0, 0)
        for c in range(_N):
            if legal[c]:
                k = (int(c == SPY), int(c == info[_I_JACK0] or c == info[_I_JACK1]), c)
                if choice == _NO_CARD or k < key:
                    choice, key = c, k
        return choice
    # L2: cash a winner
    partner_jack_suit = np.zeros(4, dtype=np.bool_)
    for j in (info[_I_JACK0], info[_I_JACK1]):
        if known[PARTNER, j]:
            partner_jack_suit[_SUIT_K[j]] = True
    choice, key = _NO_CARD, (0, 0, 0.0, 0, 0)
    for c in range(_N):
        if not legal[c] or _POWER_K[c] == CANNOT_WIN:
            continue
        suit = _SUIT_K[c]
        chance = _p_ours(info, unknown, known, voids, sizes, c, True, 0, suit)
        if chance >= CASH:
            k = (int(not partner_jack_suit[suit]), int(suit == trump), -chance, _POWER_K[c], c)
            if choice == _NO_CARD or k < key:
                choice, key = c, k
    if choice != _NO_CARD:
        return choice
    # L3: lead low from a short side suit
    choice, key3 = _NO_CARD, (0, 0, 0, 0, 0)
    for c in range(_N):
        if not legal[c] or _POWER_K[c] == CANNOT_WIN or _SUIT_K[c] == trump:
            continue
        suit = _SUIT_K[c]
        shown_void = voids[LEFT, suit] or voids[RIGHT, suit]
        k3 = (int(guarded[suit]), int(shown_void), lengths[suit], _POWER_K[c], c)
        if choice == _NO_CARD or k3 < key3:
            choice, key3 = c, k3
    if choice != _NO_CARD:
        return choice
    # L4: the lowest trump
    choice, key2 = _NO_CARD, (0, 0)
    for c in range(_N):
        if legal[c] and _POWER_K[c] != CANNOT_WIN:
            k2 = (_POWER_K[c], c)
            if choice == _NO_CARD or k2 < key2:
                choice, key2 = c, k2
    return choice


@njit(cache=True)
def decide_play_batch(obs, masks, spy_trump_side, spy_other_side, rows, actions):
    """:func:`decide_play` for the rows ``rows`` of ``obs`` and ``masks``, into ``actions``."""
    for i in rows:
        actions[i] = decide_play(obs[i], masks[i], spy_trump_side, spy_other_side)
