"""Lost Ranks encodings: the action ids, the observation vector, and the docs tables.

One ``Discrete(53)`` action space: action ``a`` is card ``a`` (``rules.DECK``). In the pass
phase it chooses that card to pass (the observation's ``pass_step`` says which of the three
choices is being made); in play it plays that card.

The observation is ego-centric: seats appear as me, left (next clockwise), partner, right;
armies as mine, theirs. It holds what the observing seat knows by the rules: its own hand
and pass, every card played and by whom, the trick, the capture and void piles, the scores;
never another player's hand or pass choices.
"""

from __future__ import annotations

import itertools

import numpy as np

from feral_envs.cards import NO_SUIT, NO_WINNER
from feral_envs.layout import Layout, Span
from feral_envs.lost_ranks import rules
from feral_envs.lost_ranks.rules import (
    DECK,
    GAME_OVER,
    JACKS,
    N_CARDS,
    N_SEATS,
    PASS,
    PLAY,
    TARGET,
    TEAM_OF_SEAT,
    State,
)


def _suit_cards(suit: int) -> str:
    return " ".join(DECK.names[suit * 13 : suit * 13 + 13])


ACTIONS = Layout(
    *((name, 13, f"`{_suit_cards(suit)}`") for suit, name in enumerate(rules.SUIT_NAMES)),
    ("spy", 1, "`SPY`"),
)
"""Action ids: card ids. The same ids index every 53-wide card block of the observation."""

CARDS = "53 cards in action-id order"
OBS = Layout(
    ("hand", N_CARDS, f"my hand ({CARDS}); in the pass, without the cards I have chosen"),
    ("trump_card", N_CARDS, "the Trump Card (one-hot)"),
    ("trump_suit", 4, "trump suit, one-hot S H D C"),
    ("trump_army", 2, "the Trump Card's colour (its Jacks are Active) is: my army's, theirs"),
    ("round", rules.MAX_ROUND, "round number 1..7, one-hot"),
    ("tiebreaker", 1, "1 in the extra round played after a tie"),
    (
        "pass_direction",
        2,
        "this round the enemy card goes to my: left, right (and so comes from the other enemy)",
    ),
    (
        "scores",
        2,
        f"game scores before this round (at game over: final): mine, theirs (points / {TARGET})",
    ),
    ("round_points", 2, f"points scored so far this round: mine, theirs (points / {TARGET})"),
    ("phase", 3, "one-hot: pass, play, game over"),
    (
        "pass_step",
        3,
        "one-hot, while I choose: my 1st, 2nd (to partner), 3rd (to enemy) choice; zeros otherwise",
    ),
    ("passed_to_partner", N_CARDS, "cards I chose for / passed to my partner"),
    ("passed_to_enemy", N_CARDS, "the card I chose for / passed to the enemy"),
    ("received_from_partner", N_CARDS, "cards my partner passed me (after the exchange)"),
    ("received_from_enemy", N_CARDS, "the card the enemy passed me (after the exchange)"),
    ("played_me", N_CARDS, "cards I have played this round"),
    ("played_left", N_CARDS, "cards my left enemy has played this round"),
    ("played_partner", N_CARDS, "cards my partner has played this round"),
    ("played_right", N_CARDS, "cards my right enemy has played this round"),
    ("trick_0", N_CARDS, "current trick: the card led (one-hot; zeros if not yet played)"),
    ("trick_1", N_CARDS, "current trick: the 2nd card"),
    (
        "trick_2",
        N_CARDS,
        "current trick: the 3rd card (a 4th card ends the trick at once: "
        "it shows in the played, capture and void blocks)",
    ),
    (
        "trick_leader",
        4,
        "who leads the current trick: me, left, partner, right (one-hot; zeros in the pass)",
    ),
    (
        "led_suit",
        4,
        "led suit of the current trick, one-hot S H D C (zeros: no card yet, or the Spy led)",
    ),
    ("captured_mine", N_CARDS, "my army's capture pile this round"),
    ("captured_theirs", N_CARDS, "the enemy army's capture pile this round"),
    ("void_pile", N_CARDS, "cards of void tricks this round"),
    (
        "jacks_played",
        16,
        "Jacks played this round: 4 seats (me, left, partner, right) x 4 Jacks (JS JH JD JC)",
    ),
)
"""The observation vector (float32), index by index."""

OBS_SIZE = OBS.size


def _contiguous(*spans: Span) -> int:
    """Start of ``spans``, checked to lie end to end (observe writes them as one block)."""
    for a, b in itertools.pairwise(spans):
        if a.stop != b.start:
            raise ValueError(f"observation spans {a.name} and {b.name} must be adjacent")
    return spans[0].start


# Offsets of the hot path as plain ints.
_HAND = OBS.hand.start
_PASSED = _contiguous(  # in the order of the kinds of rules.State.pass_record
    OBS.passed_to_partner,
    OBS.passed_to_enemy,
    OBS.received_from_partner,
    OBS.received_from_enemy,
)
_PLAYED = _contiguous(OBS.played_me, OBS.played_left, OBS.played_partner, OBS.played_right)
_TRICK = _contiguous(OBS.trick_0, OBS.trick_1, OBS.trick_2, OBS.trick_leader, OBS.led_suit)
_TRICK_END = OBS.led_suit.stop
_LEADER, _LED_SUIT = OBS.trick_leader.start, OBS.led_suit.start
_CAPTURED = _contiguous(OBS.captured_mine, OBS.captured_theirs, OBS.void_pile)
_VOID = OBS.void_pile.start
_JACKS = OBS.jacks_played.start
_SCORES = _contiguous(OBS.scores, OBS.round_points, OBS.phase, OBS.pass_step)
_TURN_END = OBS.pass_step.stop
_ROUND_POINTS, _PHASE, _PASS_STEP = OBS.round_points.start, OBS.phase.start, OBS.pass_step.start
_JACK_INDEX = tuple(JACKS.index(c) if c in JACKS else -1 for c in range(N_CARDS))
_N_PASSED = 4 * N_CARDS


def action_to_string(state: State, action: int) -> str:
    return DECK.names[action]


def string_to_action(state: State, text: str) -> int | None:
    try:
        return DECK.card(text)
    except ValueError:
        return None


class _Views:
    """The four seats' observations of one game, kept up to date by :func:`observe`.

    A seat's row is rebuilt when a round starts (``State.epoch``); its hand and pass record
    are copied while the pass lasts; after that only the plays since the row was last seen
    (``State.plays``) are added, and the few fields of the current trick and turn rewritten.
    """

    __slots__ = ("epoch", "exchanged", "obs", "synced")

    def __init__(self) -> None:
        self.obs = np.zeros((N_SEATS, OBS_SIZE), np.float32)
        self.epoch = [-1] * N_SEATS  # state epoch each row was built for
        self.synced = [0] * N_SEATS  # plays of the round already in each row
        self.exchanged = [False] * N_SEATS  # row holds the hand and pass as after the pass


def observe(state: State, seat: int) -> np.ndarray:
    """The observation of ``seat`` (a new float32 array of ``OBS_SIZE``, see ``OBS``)."""
    views = state.obs_cache
    if views is None:
        views = state.obs_cache = _Views()
    row = views.obs[seat]
    army = TEAM_OF_SEAT[seat]
    if views.epoch[seat] != state.epoch:
        _start_round(row, state, seat, army)
        views.epoch[seat], views.synced[seat], views.exchanged[seat] = state.epoch, 0, False
    if not views.exchanged[seat]:
        row[_HAND : _HAND + N_CARDS] = state.hands[seat]
        row[_PASSED : _PASSED + _N_PASSED] = state.pass_record[seat].reshape(-1)
        views.exchanged[seat] = state.phase != PASS
    n_plays = state.tricks_done * N_SEATS + state.n_in_trick
    if views.synced[seat] < n_plays:
        _add_plays(row, state, seat, army, views.synced[seat], n_plays)
        views.synced[seat] = n_plays

    row[_TRICK:_TRICK_END] = 0.0
    phase = state.phase
    if phase == PLAY:
        row[_LEADER + (state.leader - seat) % N_SEATS] = 1.0
        trick = state.trick
        for position in range(state.n_in_trick):
            row[_TRICK + position * N_CARDS + trick[position]] = 1.0
        if state.n_in_trick and state.led_suit != NO_SUIT:
            row[_LED_SUIT + state.led_suit] = 1.0
    row[_ROUND_POINTS:_TURN_END] = 0.0
    if phase == GAME_OVER:
        _write_scores(row, state, army)  # the final scores
    points = state.round_points
    row[_ROUND_POINTS] = points[army] / TARGET
    row[_ROUND_POINTS + 1] = points[1 - army] / TARGET
    row[_PHASE + phase] = 1.0
    if phase == PASS and state.to_act == seat:
        row[_PASS_STEP + state.pass_step] = 1.0
    return row.copy()


def _start_round(row: np.ndarray, state: State, seat: int, army: int) -> None:
    row[:] = 0.0
    row[OBS.trump_card.start + state.trump_card] = 1.0
    row[OBS.trump_suit.start + state.trump_suit] = 1.0
    row[OBS.trump_army.start + (state.trump_colour != army)] = 1.0
    row[OBS.round.start + state.round - 1] = 1.0
    row[OBS.tiebreaker.start] = state.tiebreaker
    row[OBS.pass_direction.start + (not state.pass_left)] = 1.0
    _write_scores(row, state, army)


def _write_scores(row: np.ndarray, state: State, army: int) -> None:
    row[_SCORES] = int(state.scores[army]) / TARGET
    row[_SCORES + 1] = int(state.scores[1 - army]) / TARGET


def _add_plays(row: np.ndarray, state: State, seat: int, army: int, first: int, stop: int) -> None:
    """Add plays ``first .. stop-1`` of the round (and the tricks they finish) to ``row``."""
    plays, play_seats = state.plays, state.play_seats
    for k in range(first, stop):
        card = plays[k]
        who = (play_seats[k] - seat) % N_SEATS
        row[_PLAYED + who * N_CARDS + card] = 1.0
        if who == 0:
            row[_HAND + card] = 0.0
        jack = _JACK_INDEX[card]
        if jack >= 0:
            row[_JACKS + 4 * who + jack] = 1.0
        if k % N_SEATS == N_SEATS - 1:  # the trick is finished: its cards go to a pile
            winner = state.trick_results[k // N_SEATS]
            if winner == NO_WINNER:
                pile = _VOID
            else:
                pile = _CAPTURED + (0 if TEAM_OF_SEAT[winner] == army else N_CARDS)
            for c in plays[k - N_SEATS + 1 : k + 1]:
                row[pile + c] = 1.0


def _action_table() -> str:
    return ACTIONS.markdown("cards") + (
        "\n\nAction `a` is card `a`: in the pass phase it chooses that card to pass, in play"
        " it plays it. Within a suit the ids run `2 3 4 5 6 7 8 9 T J Q K A`; the Jack sits"
        " between the T and the Q but is unranked (it never wins a trick). The same ids index"
        " every 53-wide card block of the observation. Names are case-insensitive (`7s`,"
        " `th`, `spy`)."
    )


DOC_TABLES = {
    "actions": _action_table,
    "observation": lambda: OBS.markdown("field"),
}
