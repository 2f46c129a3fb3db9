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
    PASS_SIZE,
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
    (
        "voids_shown",
        16,
        "suits a seat has shown it holds none of this round, by playing another card (the Spy "
        "included) to a trick led in that suit: 4 seats (me, left, partner, right) x 4 suits "
        "(S H D C)",
    ),
)
"""The observation vector (float32), index by index."""

OBS_SIZE = OBS.size

CARD_SPANS = tuple(span for span in OBS.spans if span.size == N_CARDS)
"""The observation's blocks indexed by card id: a card's entries of them are its inputs in
the card network (``train/cardnet.py``)."""
SUIT_SPANS = (OBS.trump_suit, OBS.led_suit, OBS.voids_shown)
"""The blocks indexed by suit (``voids_shown``: by seat, then suit): a card's suit's entries
of them are its inputs in the card network too (none for the Spy)."""


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
_VOIDS = OBS.voids_shown.start
_SCORES = OBS.scores.start
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


# ---------------------------------------------------------------------------------------------
# The observation, kept up to date incrementally
#
# The four seats' observations of a game are the rows of one (4, OBS_SIZE) array, also seen
# flat: row ``v`` starts at ``v * OBS_SIZE``. What one event changes in all four rows (a card
# played: its bit in the right played block of every row, a Jack's bit, its trick slot, the
# led suit) is a precomputed array of flat indices, written with a single numpy assignment.


def _flat_indices(rows: list[list[int]]) -> tuple[np.ndarray, ...]:
    return tuple(np.array(r, dtype=np.intp) for r in rows)


# Values to write through an index array. A float32 array of the right length is written
# about twice as fast as a Python float, which numpy converts on every assignment.
_ONES = tuple(np.ones(n, np.float32) for n in range(4 * N_SEATS + 1))
_ZERO_THEN_ONES = tuple(np.array([0.0] + [1.0] * n, np.float32) for n in range(4 * N_SEATS + 1))
_NO_TRICK = np.zeros((N_SEATS, _TRICK_END - _TRICK), np.float32)
for _values in (*_ONES, *_ZERO_THEN_ONES, _NO_TRICK):
    _values.flags.writeable = False


def _play_index(seat: int, position: int, card: int) -> tuple[np.ndarray, np.ndarray]:
    """Flat indices and values to write when ``seat`` plays ``card`` at ``position`` of the
    trick: 0 for the card in the player's hand, then 1 for its bit in the played block of
    every row, its Jack bit, its trick slot and the led suit."""
    out = []
    for viewer in range(N_SEATS):
        base, who = viewer * OBS_SIZE, (seat - viewer) % N_SEATS
        out.append(base + _PLAYED + who * N_CARDS + card)
        if _JACK_INDEX[card] >= 0:
            out.append(base + _JACKS + 4 * who + _JACK_INDEX[card])
        if position < N_SEATS - 1:  # a 4th card ends the trick at once
            out.append(base + _TRICK + position * N_CARDS + card)
        if position == 0 and DECK.suit_of[card] != NO_SUIT:
            out.append(base + _LED_SUIT + DECK.suit_of[card])
    index = np.array([seat * OBS_SIZE + _HAND + card, *out], dtype=np.intp)
    return index, _ZERO_THEN_ONES[len(out)]


_PLAY_INDEX = tuple(
    tuple(tuple(_play_index(seat, pos, c) for c in range(N_CARDS)) for pos in range(N_SEATS))
    for seat in range(N_SEATS)
)
"""``_PLAY_INDEX[seat][position][card]``: see :func:`_play_index`."""
_VOID_INDEX = tuple(
    _flat_indices(
        [
            [v * OBS_SIZE + _VOIDS + 4 * ((seat - v) % N_SEATS) + suit for v in range(N_SEATS)]
            for suit in range(4)
        ]
    )
    for seat in range(N_SEATS)
)
"""``_VOID_INDEX[seat][suit]``: flat indices of "``seat`` has shown a void in ``suit``"."""
_SUIT_OF = tuple(DECK.suit_of)


def _show_void(flat: np.ndarray, plays: list[int], play_seats: list[int], k: int) -> None:
    """Play ``k`` (not a lead): if its card is not of the led suit, its seat is void there."""
    led = _SUIT_OF[plays[k - k % N_SEATS]]
    if led != NO_SUIT and _SUIT_OF[plays[k]] != led:
        flat[_VOID_INDEX[play_seats[k]][led]] = _ONES[N_SEATS]


def _pile_index(outcome: int, card: int) -> list[int]:
    """Flat indices of ``card`` in the pile it goes to: ``outcome`` is the army that won the
    trick, or 2 for a void trick."""
    out = []
    for viewer in range(N_SEATS):
        if outcome == 2:
            offset = _VOID
        else:
            offset = _CAPTURED + (0 if TEAM_OF_SEAT[viewer] == outcome else N_CARDS)
        out.append(viewer * OBS_SIZE + offset + card)
    return out


_PILE_INDEX = tuple(
    _flat_indices([_pile_index(outcome, c) for c in range(N_CARDS)]) for outcome in range(3)
)
_LEADER_INDEX = _flat_indices(
    [[v * OBS_SIZE + _LEADER + (s - v) % N_SEATS for v in range(N_SEATS)] for s in range(N_SEATS)]
)
_N_CHOICES = N_SEATS * PASS_SIZE  # pass choices in a round


def _pass_mark(choices: int) -> int:
    """Flat index of the ``pass_step`` bit shown once ``choices`` pass choices are made."""
    seat, step = divmod(choices, PASS_SIZE)
    return seat * OBS_SIZE + _PASS_STEP + step


def _pass_index(choice: int, card: int) -> tuple[np.ndarray, np.ndarray]:
    """Flat indices and values to write for the pass choice number ``choice`` (0-11: seat
    0's three, then seat 1's, ...) of ``card``: the card leaves the chooser's hand and enters
    its passed_to_partner (1st, 2nd) or passed_to_enemy (3rd) block; the pass step shown
    moves on (to the next seat after a 3rd choice)."""
    seat, step = divmod(choice, PASS_SIZE)
    base = seat * OBS_SIZE
    kind = N_CARDS if step == PASS_SIZE - 1 else 0
    index = [base + _HAND + card, _pass_mark(choice), base + _PASSED + kind + card]
    if choice + 1 < _N_CHOICES:  # after the last choice the pass is over (no step shown)
        index.append(_pass_mark(choice + 1))
    return np.array(index, np.intp), _PASS_VALUES[len(index)]


_PASS_MARKS = tuple(_pass_mark(choices) for choices in range(_N_CHOICES))
_PASS_VALUES = {n: np.array([0.0, 0.0, 1.0, 1.0][:n], np.float32) for n in (3, 4)}
for _values in _PASS_VALUES.values():
    _values.flags.writeable = False
_PASS_INDEX = tuple(
    tuple(_pass_index(choice, c) for c in range(N_CARDS)) for choice in range(_N_CHOICES)
)
"""``_PASS_INDEX[choice][card]``: see :func:`_pass_index`."""
_NOT_EXCHANGED = -1
"""``_Views.synced`` while the rows hold the hands and pass records of the pass phase."""


class _Views:
    """The four seats' observations of one game, kept up to date by :func:`observe`.

    The rows are rebuilt when a round starts (``State.epoch``); in the pass each choice is
    added as it is made, the exchange copies the hands and pass records once, and in play
    each card is added once (``State.plays``), for all four rows at a time. ``observe``
    returns a copy of a row. A copied state gets empty views (rebuilt on first use), so
    ``copy.deepcopy`` and pickling of a state stay correct.
    """

    __slots__ = (
        "choices",
        "epoch",
        "flat",
        "grid",
        "leader",
        "pass_mark",
        "phase",
        "points",
        "rows",
        "synced",
    )

    def __init__(self) -> None:
        self.grid = np.zeros((N_SEATS, OBS_SIZE), np.float32)
        self.flat = self.grid.reshape(-1)  # the same memory, flat
        self.rows = tuple(self.grid)  # row views, one per seat
        self.epoch = -1  # state epoch the rows were built for
        self.choices = 0  # pass choices of the round already in the rows
        self.synced = _NOT_EXCHANGED  # plays of the round already in the rows
        self.leader = NO_WINNER  # seat shown as the trick's leader, NO_WINNER for none
        self.phase = -1  # phase shown
        self.pass_mark = -1  # flat index of the pass step shown, -1 for none
        self.points = [0, 0]  # round points shown, by army

    def __deepcopy__(self, memo: dict) -> _Views:
        return _Views()

    def __reduce__(self) -> tuple:
        return (_Views, ())


def observe(state: State, seat: int) -> np.ndarray:
    """The observation of ``seat`` (a new float32 array of ``OBS_SIZE``, see ``OBS``)."""
    views = state.obs_cache
    if views is None or views.epoch != state.epoch:
        views = _rebuild(state)
    elif state.phase == PASS:
        if views.choices != state.to_act * PASS_SIZE + state.pass_step:
            _sync_pass(views, state)
    else:
        n_plays = state.tricks_done * N_SEATS + state.n_in_trick
        if views.synced != n_plays:
            k = n_plays - 1
            if views.synced == k and n_plays % N_SEATS:  # one card, not the 4th of a trick
                index, values = _PLAY_INDEX[state.play_seats[k]][k % N_SEATS][state.plays[k]]
                views.flat[index] = values  # as in _sync_play, without the call
                if k % N_SEATS:
                    _show_void(views.flat, state.plays, state.play_seats, k)
                views.synced = n_plays
            else:
                _sync_play(views, state)
    return views.rows[seat].copy()


def _rebuild(state: State) -> _Views:
    """All four rows from the state, at the start of a round (or the first observation)."""
    views = state.obs_cache
    if views is None:
        views = state.obs_cache = _Views()
    grid = views.grid
    grid[:] = 0.0
    for seat in range(N_SEATS):
        row, army = grid[seat], TEAM_OF_SEAT[seat]
        row[OBS.trump_card.start + state.trump_card] = 1.0
        row[OBS.trump_suit.start + state.trump_suit] = 1.0
        row[OBS.trump_army.start + (state.trump_colour != army)] = 1.0
        row[OBS.round.start + state.round - 1] = 1.0
        row[OBS.tiebreaker.start] = state.tiebreaker
        row[OBS.pass_direction.start + (not state.pass_left)] = 1.0
    _write_scores(grid, state)
    grid[:, _HAND : _HAND + N_CARDS] = state.hands
    grid[:, _PASSED : _PASSED + _N_PASSED] = state.pass_record.reshape(N_SEATS, _N_PASSED)
    views.epoch = state.epoch
    views.leader, views.phase, views.points, views.pass_mark = NO_WINNER, -1, [0, 0], -1
    _write_points(views, state)
    if state.phase == PASS:
        views.synced = _NOT_EXCHANGED
        views.choices = state.to_act * PASS_SIZE + state.pass_step
        _write_phase(views, state)
    else:
        views.synced = 0  # the hands and pass records copied are those after the pass
        _sync_play(views, state)
    return views


def _write_scores(grid: np.ndarray, state: State) -> None:
    """The game scores, mine then theirs, in every row."""
    for seat in range(N_SEATS):
        army = TEAM_OF_SEAT[seat]
        grid[seat, _SCORES] = int(state.scores[army]) / TARGET
        grid[seat, _SCORES + 1] = int(state.scores[1 - army]) / TARGET


def _write_points(views: _Views, state: State) -> None:
    points = state.round_points
    if points != views.points:
        views.points = list(points)
        for seat in range(N_SEATS):
            army = TEAM_OF_SEAT[seat]
            views.grid[seat, _ROUND_POINTS] = points[army] / TARGET
            views.grid[seat, _ROUND_POINTS + 1] = points[1 - army] / TARGET


def _write_phase(views: _Views, state: State) -> None:
    """The phase in every row, and the pass step in the row of the seat choosing."""
    grid, phase = views.grid, state.phase
    if views.phase != phase:
        if views.phase >= 0:
            grid[:, _PHASE + views.phase] = 0.0
        grid[:, _PHASE + phase] = 1.0
        views.phase = phase
        if phase == GAME_OVER:
            _write_scores(grid, state)  # the final scores
    mark = _pass_mark(state.to_act * PASS_SIZE + state.pass_step) if phase == PASS else -1
    if mark != views.pass_mark:
        if views.pass_mark >= 0:
            views.flat[views.pass_mark] = 0.0
        if mark >= 0:
            views.flat[mark] = 1.0
        views.pass_mark = mark


def _sync_pass(views: _Views, state: State) -> None:
    """Add the pass choices made since the rows were last brought up to date."""
    flat, choice = views.flat, state.pass_choice
    now = state.to_act * PASS_SIZE + state.pass_step
    for i in range(views.choices, now):
        index, values = _PASS_INDEX[i][int(choice[i // PASS_SIZE, i % PASS_SIZE])]
        flat[index] = values
    views.choices, views.pass_mark = now, _PASS_MARKS[now]


def _sync_play(views: _Views, state: State) -> None:
    """Add the plays made since the rows were last brought up to date (and the exchange, the
    end of the game)."""
    grid, flat = views.grid, views.flat
    first = views.synced
    if first == _NOT_EXCHANGED:  # the pass is over: the twelve cards have changed hands
        grid[:, _HAND : _HAND + N_CARDS] = state.hands
        grid[:, _PASSED : _PASSED + _N_PASSED] = state.pass_record.reshape(N_SEATS, _N_PASSED)
        first = 0
    stop = state.tricks_done * N_SEATS + state.n_in_trick
    plays, play_seats = state.plays, state.play_seats
    turn = first == 0  # the leader, points and phase can have changed
    ones = _ONES[N_SEATS]
    for k in range(first, stop):
        position = k % N_SEATS
        index, values = _PLAY_INDEX[play_seats[k]][position][plays[k]]
        flat[index] = values
        if position:
            _show_void(flat, plays, play_seats, k)
        if position == N_SEATS - 1:  # the trick is finished: its cards go to a pile
            grid[:, _TRICK:_TRICK_END] = _NO_TRICK
            views.leader = NO_WINNER
            winner = state.trick_results[k // N_SEATS]
            pile = _PILE_INDEX[2 if winner == NO_WINNER else TEAM_OF_SEAT[winner]]
            flat[pile[plays[k - 3]]] = ones
            flat[pile[plays[k - 2]]] = ones
            flat[pile[plays[k - 1]]] = ones
            flat[pile[plays[k]]] = ones
            turn = True
    views.synced = stop
    if turn:
        if state.phase == PLAY and views.leader != state.leader:
            if views.leader != NO_WINNER:
                flat[_LEADER_INDEX[views.leader]] = 0.0
            flat[_LEADER_INDEX[state.leader]] = ones
            views.leader = state.leader
        if state.round_points != views.points:
            _write_points(views, state)
        if views.phase != state.phase:
            _write_phase(views, state)


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
