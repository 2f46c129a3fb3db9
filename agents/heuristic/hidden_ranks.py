"""The Hidden Ranks bot: a hand-written player that reads only its observation and mask.

It plays the way the bot of the original game is described: a sensible hidden setup, then
one move at a time, each legal move scored by a few rules and the best one played. It looks
one move ahead and no further. ``docs/bots/hidden_ranks.md`` explains the rules with their
numbers and gives the bot's measured strength.

What it reads. Everything comes from ``observation`` (decoded with the plane names of
:data:`feral_envs.hidden_ranks.encoding.OBS`) and ``action_mask``: where its own pieces are,
which enemy pieces are known and which are not, which have moved, how many of each rank
strikes removed. Actions and observations are in the bot's own (ego) frame, so one bot plays
both colours. The rules it knows are the public ones: the armies, the strike table and the
action numbering of :mod:`feral_envs.hidden_ranks.rules`. It never touches the env.

**Setup** (``setup="choose"``, one placement per action in the game's fixed order). At its
first placement the bot draws a plan from its seed and then places each piece on a square
the plan gave its rank (with ``setup="random"`` or a given setup there is nothing to place):

1. the Flag on the back row, in a column drawn at random; with fewer than three Bombs (the
   quick game) in a back corner, which has only two open sides;
2. Bombs on the squares around the Flag (in the quick game its one Bomb on one of the two
   sides, drawn at random); in the full game the other Bombs go on the back three rows,
   never the front row;
3. a guard: a Scout on the Flag's other side in the quick game; in the full game, where the
   Bombs close every side, a Sergeant (else a Lieutenant, a Captain) next to them;
4. the Marshal and the General mostly on the front two rows (never the back row), preferably
   in the three lanes beside the lakes, several columns apart; the Spy on the free square
   nearest the General, behind it where it can;
5. Scouts mostly on the front row, Miners mostly on the back two rows, Colonels and Majors on
   the front two rows, and the rest anywhere left (the full game fills all 40 squares).

**Beliefs.** For every enemy piece of unknown rank it estimates the chance of each rank from
what is public: the army (the same as its own), minus the enemy pieces removed, minus the
enemy pieces on the board whose rank is known. A piece that has moved is no Bomb and no Flag;
an unmoved piece is a Bomb or the Flag with the chance that the unmoved pieces must hold the
Bombs and Flag still unaccounted for (certainly, once the moved pieces account for every
mobile piece left). Among unmoved pieces the Flag is thought likelier on the enemy's back row
and the row before it, next to known Bombs, and among other unmoved pieces. A Bomb that a
striker died against is known (the rules show the survivor of a strike), and so is every
other piece that won or survived a strike.

**Moves.** Each legal move gets a score; the highest wins (a tiny seeded random number breaks
ties). Pieces are valued from 1 (Scout) to 14 (Marshal), the Spy at 4 while the enemy
Marshal lives (1 after), a Bomb at 2, my Miners higher while enemy Bombs remain, and my last
two mobile pieces far higher (a player left without a move loses); striking the Flag is worth
60, a win.

1. *Strike what it beats, avoid what beats it.* A strike is scored by its expected gain over
   the defender's possible ranks: the defender's value if the striker wins, minus the
   striker's value if it loses, both for a tie. A known weaker piece is a sure gain; a known
   stronger piece or a known Bomb (for anyone but a Miner) a sure loss. So the Spy strikes a
   known Marshal (it wins that strike), nothing else does, and Miners strike known Bombs.
2. *Probe unknown pieces.* A strike on an unknown piece earns 1.5 for what it reveals, so
   cheap pieces (Scouts, from a distance too, and low ranks) probe unknown pieces, while
   valuable pieces strike unknown ones only when their chances are good.
3. *Hunt the Flag.* Unmoved unknown pieces carry their chance of being the Flag times its
   value, so pieces that lose little (Miners above all, which also beat Bombs) go for the
   unmoved pieces of the enemy's back rows, more and more as pieces there are ruled out.
4. *Approach good targets.* Every piece is drawn to the enemy pieces it would strike with a
   gain (rules 1-3, 6) and to the squares rule 6 rewards stepping onto, the pull shrinking by
   a fifth per square of distance (lakes counted); a quiet move scores what it adds to that
   pull. Miners are drawn to known Bombs this way.
5. *Stay out of reach, retreat when threatened.* A piece next to enemy pieces that could beat
   it (known stronger ones for sure, unknown ones by their chances) is in danger, more so if
   the enemy knows its rank. A move scores the danger it escapes and loses the danger it
   walks into, strikes included (the winner stands on the struck square).
6. *Guard the Flag.* Removing an enemy piece that could move is worth more the nearer it
   stands to my Flag (30 next to it, 8 and 2 at two and three squares), so defenders answer
   an approach. A Scout strikes along a straight line, so for each of the Flag's four lines:
   an enemy piece that is the first on it counts as next to the Flag (by its chance of being
   a Scout), and stepping onto the empty squares between earns as much; stepping onto a line
   open to the edge earns a bonus (most next to the Flag); and my piece that is the first on
   a line is penalised for leaving it (12 next to the Flag, less further away). A piece
   within two squares of the Flag does not leave lightly while it is one of the last two
   (full) or the last one (quick) there.
7. *Keep the Spy near the General*, and not forward on its own.
8. *Advance, do not shuffle.* A small bonus for every row forward (not for the Spy), a
   penalty for undoing its own last move, growing with the back-and-forth count, and a
   small, capped one for repeating any of its last twelve moves or their reverses (which
   breaks cycles of two pieces moving to and fro). The no-shuttling rule itself is in the
   mask, which the bot always obeys.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.base import BasePolicy
from feral_envs.hidden_ranks import rules
from feral_envs.hidden_ranks.encoding import ACTIONS, OBS

SPY, SCOUT, MINER, MARSHAL, BOMB, FLAG = (
    rules.SPY,
    rules.SCOUT,
    rules.MINER,
    rules.MARSHAL,
    rules.BOMB,
    rules.FLAG,
)
GENERAL = MARSHAL - 1
N_CODES = rules.N_RANKS + 1  # rank codes 1..12, index 0 unused
RANK_CODES = np.arange(1, N_CODES)
MOBILE = slice(SPY, MARSHAL + 1)
"""Rank codes that move: the Spy to the Marshal."""
SIDE = 10
N_SQUARES = SIDE * SIDE
HOME_ROWS = rules.N_HOME // SIDE
BACK_ROW = SIDE - 1
"""The enemy's back row, in the ego frame (the bot's own back row is row 0)."""
LANES = (0, 1, 4, 5, 8, 9)
"""Columns whose front squares are not behind a lake."""

MOVE_FROM = np.array(rules.MOVE_FROM)
MOVE_TO = np.array(rules.MOVE_TO)
MOVE_DISTANCE = np.arange(len(rules.MOVE_FROM)) % rules.MAX_DISTANCE + 1

# --- tuning: every number the rules of the docstring use ---------------------------------

BASE_VALUE = np.array([0, 4, 1, 2.5, 2, 2.5, 3.5, 5, 7, 10, 14, 2, 60], dtype=float)
"""Value of a piece by rank code (index 0 unused; S, 2, ..., 10, B, F)."""
FLAG_VALUE = BASE_VALUE[FLAG]
SPY_VALUE_ALONE = 1.0
"""The Spy's value once the enemy Marshal is gone (and the enemy Spy's once mine is)."""
MINER_BONUS = 1.5
"""Added to my Miners' value while enemy Bombs remain, and again when two or fewer are left."""
LAST_PIECES = {1: FLAG_VALUE, 2: FLAG_VALUE / 4}
"""Added to the value of my mobile pieces when only this many are left: a player without a
legal move loses."""
INFO = 1.5
"""Bonus for striking an unknown piece: its rank is shown."""
DECAY = 0.8
"""Pull of a target per square of distance (rule 4)."""
PULL = 1.0
"""Weight of the change of pull in a quiet move's score."""
AGGRESSION_KNOWN, AGGRESSION_HIDDEN = 0.6, 0.35
"""How likely an adjacent enemy that would win is taken to strike, if my rank is public/not."""
FLAG_DEFENCE = {1: 30.0, 2: 8.0, 3: 2.0}
"""Bonus for removing a mobile enemy piece at this distance from my Flag (rule 6)."""
WALL = 12.0
"""Penalty for moving my piece that closes a straight line to my Flag off it, divided by the
square of its distance from the Flag; a bonus as large for closing an open line (rule 6)."""
GUARD_RADIUS = 2
GUARD_PENALTY = 2.5
FORWARD = 0.05
"""Per row forward (rule 8)."""
UNDO = 0.4
"""Per count of the back-and-forth run, for undoing my last move (rule 8)."""
REPEAT, REPEAT_CAP = 0.3, 0.9
"""Per time a move or its reverse is among my last :data:`MEMORY` moves, and at most
(rule 8): enough to break a cycle among equal moves, never enough to throw a piece away."""
MEMORY = 12
SPY_LEASH = 0.4
"""Per square the Spy moves away from the General when further than one square (rule 7)."""
TIE_BREAK = 1e-3
FLAG_WEIGHT_BACK_ROW, FLAG_WEIGHT_NEXT_ROW = 2.0, 1.0
FLAG_WEIGHT_BOMB, FLAG_WEIGHT_UNMOVED = 2.0, 0.5
"""Weights of an unmoved piece being the Flag: on the enemy back row, the row before it, per
adjacent known Bomb, per adjacent unmoved unknown piece (added to a base weight of 1)."""


def _strike_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``WIN[a, d]``, ``TIE[a, d]`` and ``BEATS[a, d]`` (1 for a win, 0.5 for a tie) of rank
    ``a`` striking rank ``d``; rows of ranks that cannot strike are 0."""
    win = np.zeros((N_CODES, N_CODES))
    tie = np.zeros((N_CODES, N_CODES))
    for a in range(SPY, MARSHAL + 1):
        for d in range(SPY, FLAG + 1):
            result = rules.strike_result(a, d)
            win[a, d] = result in (rules.ATTACKER_WINS, rules.FLAG_TAKEN)
            tie[a, d] = result == rules.BOTH_REMOVED
    return win, tie, win + 0.5 * tie


WIN, TIE, BEATS = _strike_tables()


# --- the board's geometry, from the lake plane ------------------------------------------

_GEOMETRY: dict[bytes, tuple[np.ndarray, np.ndarray]] = {}


def geometry(lake: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(distance, adjacent)`` for a lake layout: ``distance[s, t]`` in single steps around
    lakes (a large number if unreachable), ``adjacent[s, t]`` 1 for orthogonal neighbours."""
    key = lake.tobytes()
    if key not in _GEOMETRY:
        neighbours = [[] for _ in range(N_SQUARES)]
        adjacent = np.zeros((N_SQUARES, N_SQUARES))
        for s in range(N_SQUARES):
            row, col = divmod(s, SIDE)
            for dr, dc in rules.DIRECTION_STEP:
                r, c = row + dr, col + dc
                if 0 <= r < SIDE and 0 <= c < SIDE:
                    adjacent[s, r * SIDE + c] = 1
                    if not lake[s] and not lake[r * SIDE + c]:
                        neighbours[s].append(r * SIDE + c)
        distance = np.full((N_SQUARES, N_SQUARES), 99, dtype=np.int64)
        for source in range(N_SQUARES):
            distance[source, source] = 0
            queue = deque([source])
            while queue:
                s = queue.popleft()
                for t in neighbours[s]:
                    if distance[source, t] == 99:
                        distance[source, t] = distance[source, s] + 1
                        queue.append(t)
        _GEOMETRY[key] = (distance, adjacent)
    return _GEOMETRY[key]


# --- decoding an observation -------------------------------------------------------------


@dataclass
class View:
    """What one observation says, per ego square (``0..99``) and per rank code."""

    mine: np.ndarray  # (100,) int: rank code of my piece, 0 if none
    enemy_known: np.ndarray  # (100,) int: rank code of a known enemy piece, 0 otherwise
    enemy_unknown: np.ndarray  # (100,) bool: an enemy piece of unknown rank
    enemy_moved: np.ndarray  # (100,) bool: an enemy piece that has moved
    my_public: np.ndarray  # (100,) bool: my piece whose rank the enemy knows
    lake: np.ndarray  # (100,) bool
    my_last_from: int  # square my last move started from, -1 if none
    my_last_to: int  # square it went to, -1 if none
    shuttle: int  # back-and-forth count of my last moves (0..3)
    my_removed: np.ndarray  # (13,) int: my pieces removed, by rank code
    enemy_removed: np.ndarray  # (13,) int: enemy pieces removed, by rank code
    setup: bool  # the setup phase lasts
    next_piece: int  # rank code of my next piece to place, 0 if none

    @property
    def enemy(self) -> np.ndarray:
        return (self.enemy_known > 0) | self.enemy_unknown


def _plane(flat: np.ndarray, name: str) -> np.ndarray:
    return flat[:, getattr(OBS, name).start]


def _rank_of(flat: np.ndarray, name: str) -> np.ndarray:
    return (flat[:, getattr(OBS, name).slice] @ RANK_CODES).astype(np.int64)


def _counts(flat: np.ndarray, name: str) -> np.ndarray:
    return np.concatenate(([0], flat[0, getattr(OBS, name).slice])).astype(np.int64)


def _square(plane: np.ndarray) -> tuple[int, int]:
    """(square, value) of the one nonzero square of ``plane``, or (-1, 0)."""
    where = np.flatnonzero(plane)
    return (int(where[0]), int(plane[where[0]])) if where.size else (-1, 0)


def decode(observation: np.ndarray) -> View:
    flat = observation.reshape(N_SQUARES, OBS.size)
    last_from, _ = _square(_plane(flat, "my_last_from"))
    last_to, shuttle = _square(_plane(flat, "my_last_to"))
    next_piece = _counts(flat, "my_next_piece")
    return View(
        mine=_rank_of(flat, "my_rank"),
        enemy_known=_rank_of(flat, "enemy_rank"),
        enemy_unknown=_plane(flat, "enemy_unknown") > 0,
        enemy_moved=_plane(flat, "enemy_moved") > 0,
        my_public=_plane(flat, "my_public") > 0,
        lake=_plane(flat, "lake") > 0,
        my_last_from=last_from,
        my_last_to=last_to,
        shuttle=shuttle,
        my_removed=_counts(flat, "my_removed"),
        enemy_removed=_counts(flat, "enemy_removed"),
        setup=bool(_plane(flat, "setup_phase")[0]),
        next_piece=int(np.argmax(next_piece)) if next_piece.any() else 0,
    )


# --- setup ---------------------------------------------------------------------------------


def flag_guard_rank(army: dict[int, int]) -> int:
    """The rank of the guard that :func:`plan_setup` puts by the Flag (setup rule 3): a
    Sergeant, else a Lieutenant, a Captain, else (the quick game) a Scout."""
    return next((r for r in (4, 5, 6) if army.get(r)), SCOUT)


def _walls(square: int) -> list[int]:
    """The home squares beside back-row square ``square`` (ego, row 0 at the back): the one
    in front, then its sides on the board."""
    col = square % SIDE
    return [square + SIDE] + [square + d for d in (-1, 1) if 0 <= col + d < SIDE]


def plan_setup(rng: np.random.Generator, army: dict[int, int]) -> dict[int, list[int]]:
    """Ego home squares (``0..39``, row 0 at the back) for each rank of ``army``."""
    free = set(range(rules.N_HOME))
    plan: dict[int, list[int]] = {rank: [] for rank in army}
    left = dict(army)

    def put(rank: int, square: int) -> None:
        free.discard(square)
        plan[rank].append(square)
        left[rank] -= 1

    def pick(weight) -> int:
        squares = sorted(free)
        w = np.array([weight(s // SIDE, s % SIDE) for s in squares], dtype=float)
        p = w / w.sum() if w.sum() > 0 else None
        return squares[int(rng.choice(len(squares), p=p))]

    bombs = left.get(BOMB, 0)
    # Too few Bombs to close the three sides of a middle square: a corner, with two sides.
    flag = int(rng.integers(SIDE)) if bombs >= 3 else int(rng.choice([0, SIDE - 1]))
    put(FLAG, flag)
    around = _walls(flag)
    if bombs < len(around):
        rng.shuffle(around)
    for square in around[:bombs]:
        put(BOMB, square)
    while left.get(BOMB, 0):
        put(BOMB, pick(lambda r, c: (2, 2, 1, 0)[r]))

    guard_rank = flag_guard_rank(army)
    if left.get(guard_rank):
        spots = [s for s in around if s in free]  # an open side of the Flag first
        if not spots:
            _, adjacent = _home_geometry()
            walls = [*plan.get(BOMB, []), flag]
            spots = [s for s in sorted(free) if any(adjacent[s, b] for b in walls)]
        if spots:
            put(guard_rank, spots[int(rng.integers(len(spots)))])

    front = (0, 0.2, 2, 3)  # weights by row, back to front
    marshal = pick(lambda r, c: front[r] * (3 if c in LANES else 1))
    put(MARSHAL, marshal)
    general = pick(
        lambda r, c: front[r] * (3 if c in LANES else 1) * (3 if abs(c - marshal % SIDE) > 2 else 1)
    )
    put(GENERAL, general)
    if left.get(SPY):  # the free square nearest the General, behind it if it can
        put(SPY, min(free, key=lambda s: (_manhattan(s, general), s > general, s)))

    weights = {
        SCOUT: (0.5, 1, 2, 6),
        MINER: (2, 3, 1, 0.3),
        8: (0.2, 1, 3, 3),
        7: (0.2, 1, 3, 3),
    }
    for rank in (SCOUT, MINER, 8, 7, 6, 5, 4):
        row_weight = weights.get(rank, (1, 1, 1, 1))
        while left.get(rank):
            put(rank, pick(lambda r, c, w=row_weight: w[r]))
    return plan


def _manhattan(a: int, b: int) -> int:
    return abs(a // SIDE - b // SIDE) + abs(a % SIDE - b % SIDE)


def guarded_plan(rng: np.random.Generator, army: dict[int, int], rank: int) -> dict[int, list[int]]:
    """:func:`plan_setup`, then its Flag's guard and the first piece of ``rank`` swapping
    squares. The guard is the first piece of :func:`flag_guard_rank` (a Scout in the quick
    game, a Sergeant in the full) when it stands next to the Flag or to a Bomb, as the plan
    puts it where it can (in the quick game on the Flag's open side; in the full game, where
    the Bombs close the Flag, by any Bomb); otherwise, or with ``rank`` the guard's own, the
    plan is unchanged. The same draws as :func:`plan_setup`, so the rest of the plan is the
    one the seed gives the plain bot."""
    plan = plan_setup(rng, army)
    guard_rank = flag_guard_rank(army)
    if rank == guard_rank or not plan.get(guard_rank) or not plan.get(rank):
        return plan
    walls = [plan[FLAG][0], *plan.get(BOMB, [])]
    guard = plan[guard_rank][0]
    if any(_manhattan(guard, wall) == 1 for wall in walls):
        plan[guard_rank][0], plan[rank][0] = plan[rank][0], guard
    return plan


def _plan_of(where: dict[int, int | None], ranks: Iterable[int]) -> dict[int, list[int]]:
    """The plan (squares by rank, each rank of ``ranks``) of ``where`` (rank by square, None
    for an empty square)."""
    out: dict[int, list[int]] = {rank: [] for rank in ranks}
    for square in sorted(where):
        if where[square] is not None:
            out[where[square]].append(square)
    return out


def corner_plan(plan: dict[int, list[int]]) -> dict[int, list[int]]:
    """``plan`` (ego home squares by rank, row 0 at the back) with its back-row Flag moved to
    the nearer back corner, walled in by two of the Bombs that walled it (a corner has two
    sides on the board); the pieces on those squares take the Flag's and the Bombs' old
    squares. Unchanged where the Flag is in a corner already (always in the quick game) or
    not on the back row, or its walls are not Bombs."""
    flag = plan[FLAG][0] if plan.get(FLAG) else -1
    if not 0 <= flag < SIDE or flag % SIDE in (0, SIDE - 1):
        return plan
    where: dict[int, int | None] = {s: rank for rank, squares in plan.items() for s in squares}
    if any(where.get(wall) != BOMB for wall in _walls(flag)):
        return plan
    corner = 0 if flag % SIDE < SIDE / 2 else SIDE - 1
    old = _walls(flag)
    where[flag], where[corner] = where.get(corner), FLAG
    spare = [s for s in old if where.get(s) == BOMB and s not in _walls(corner)]
    for wall in _walls(corner):
        if where.get(wall) != BOMB:
            source = spare.pop()
            where[wall], where[source] = BOMB, where.get(wall)
    return _plan_of(where, plan)


DECOY_RANK = 4
"""The piece of a false Flag (:func:`decoy_plan`): a Sergeant, the lowest rank that beats a
Miner."""


def decoy_plan(rng: np.random.Generator, plan: dict[int, list[int]]) -> dict[int, list[int]]:
    """``plan`` (ego home squares by rank, row 0 at the back) with a false Flag: a piece of
    :data:`DECOY_RANK` on a back-row square at least three columns from the Flag (drawn
    uniformly from ``rng``), walled in on every side by the Bombs that do not wall the Flag;
    the pieces on those squares take the Bombs' and the Sergeant's squares. The walls look
    like the Flag's, so a Miner that hunts the Flag by its Bombs may take one of them and
    meet a Sergeant, which beats it. Unchanged where the spare Bombs cannot wall such a square
    or the army has no such piece (the quick game)."""
    if FLAG not in plan or not plan[FLAG] or not plan.get(DECOY_RANK):
        return plan
    where: dict[int, int | None] = {s: rank for rank, squares in plan.items() for s in squares}
    flag = plan[FLAG][0]
    flag_walls = set(_walls(flag))
    spare = [s for s in plan.get(BOMB, []) if s not in flag_walls]
    columns = [
        col for col in range(SIDE) if abs(col - flag % SIDE) >= 3 and len(_walls(col)) <= len(spare)
    ]
    if not columns:
        return plan
    decoy = columns[int(rng.integers(len(columns)))]
    targets = _walls(decoy)
    spare = [s for s in spare if s not in targets]
    for target in targets:
        if where.get(target) != BOMB:
            source = spare.pop()
            where[target], where[source] = where[source], where.get(target)
    if where.get(decoy) != DECOY_RANK:
        pieces = [s for s, rank in where.items() if rank == DECOY_RANK and s != decoy]
        away = [s for s in pieces if all(_manhattan(s, w) > 1 for w in flag_walls)]
        source = (away or pieces)[-1]  # not the Flag's guard where another is free
        where[decoy], where[source] = where[source], where.get(decoy)
    return _plan_of(where, plan)


def guard_rank_named(name: str, mode: str, spec: str) -> int:
    """The rank code of ``guard=name`` in a bot spec (``spec``, for the message): a mobile
    rank of ``mode``'s army, written as the rules name it (``S``, ``2`` ... ``10``);
    ``ValueError`` naming the allowed ones otherwise."""
    army = rules.ARMIES[mode]
    allowed = [n for code, n in enumerate(rules.RANK_NAMES) if code < BOMB and army.get(code)]
    if name not in allowed:
        raise ValueError(
            f"{spec} argument guard={name!r} is not allowed in the {mode} game; it must be a "
            f"mobile rank of the army: {', '.join(allowed)}"
        )
    return rules.RANK_OF_NAME[name]


def _home_geometry() -> tuple[np.ndarray, np.ndarray]:
    return geometry(np.zeros(N_SQUARES, dtype=bool))


# --- the bot -------------------------------------------------------------------------------


class HiddenRanksBot(BasePolicy):
    """The rules of the module docstring, as a policy."""

    def __init__(
        self,
        seed: int,
        mode: str = "full",
        spec: str = "heuristic",
        guard: int | None = None,
        decoy: bool = False,
        corner: bool = False,
    ) -> None:
        super().__init__(spec, seed)
        if mode not in rules.ARMIES:
            raise ValueError(f"mode={mode!r} is not allowed; choose one of: full, quick")
        self.mode = mode
        self.guard = guard
        """The rank put by the Flag instead of the setup rule's guard (:func:`guarded_plan`),
        or None: the rule's own setup."""
        self.decoy = decoy
        """Whether the setup adds a false Flag (:func:`decoy_plan`)."""
        self.corner = corner
        """Whether the setup moves the Flag to a back corner (:func:`corner_plan`)."""
        self.army = np.zeros(N_CODES, dtype=np.int64)
        for rank, count in rules.ARMIES[mode].items():
            self.army[rank] = count
        self.plan: dict[int, list[int]] | None = None
        self.history: deque[tuple[int, int]] = deque(maxlen=MEMORY)
        """My last moves, as (origin, target) ego squares."""

    def reset(self, seed: int) -> None:
        super().reset(seed)
        self.plan = None
        self.history.clear()

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("action_mask marks no legal action: it is not this bot's turn")
        view = decode(observation)
        if view.setup:
            return self._place(view, legal)
        action = int(legal[int(np.argmax(self.score_moves(view, legal)))])
        move = action - ACTIONS.move.start
        self.history.append((int(MOVE_FROM[move]), int(MOVE_TO[move])))
        return action

    # --- setup ---

    def _place(self, view: View, legal: np.ndarray) -> int:
        if self.plan is None:
            army = rules.ARMIES[self.mode]
            self.plan = (
                plan_setup(self.rng, army)
                if self.guard is None
                else guarded_plan(self.rng, army, self.guard)
            )
            if self.corner:
                self.plan = corner_plan(self.plan)
            if self.decoy:
                self.plan = decoy_plan(self.rng, self.plan)
        squares = self.plan.get(view.next_piece, [])
        for i, square in enumerate(squares):
            action = ACTIONS.place.start + square
            if action in legal:
                squares.pop(i)
                return int(action)
        return int(legal[self.rng.integers(legal.size)])  # the plan does not fit: any square

    # --- play ---

    def beliefs(self, view: View) -> np.ndarray:
        """``(100, 13)``: chance of each rank code of the enemy piece on each square."""
        belief = np.zeros((N_SQUARES, N_CODES))
        known = view.enemy_known
        belief[np.flatnonzero(known), known[known > 0]] = 1.0
        mine_now = np.bincount(view.mine, minlength=N_CODES)
        army = np.maximum(self.army, mine_now + view.my_removed)
        army[0] = 0
        remaining = np.maximum(army - view.enemy_removed - np.bincount(known, minlength=N_CODES), 0)
        remaining[0] = 0
        mobile = np.zeros(N_CODES)
        mobile[MOBILE] = remaining[MOBILE]
        if mobile.sum() == 0:
            mobile[MOBILE] = 1.0
        mobile /= mobile.sum()
        moved = view.enemy_unknown & view.enemy_moved
        still = view.enemy_unknown & ~view.enemy_moved
        belief[moved] = mobile
        if still.any():
            # The unmoved pieces hold the Bombs and Flag left plus the mobile pieces that the
            # moved ones do not account for; the Flag is spread by _flag_chances' weights.
            immobile = remaining[BOMB] + remaining[FLAG]
            mobile_left = max(remaining[MOBILE].sum() - moved.sum(), 0)
            p_immobile = immobile / (immobile + mobile_left) if immobile + mobile_left else 0.0
            rows = np.flatnonzero(still)
            p_flag = np.minimum(
                self._flag_chances(view, still)[rows] * min(remaining[FLAG], 1), p_immobile
            )
            p_bomb = (p_immobile - p_flag) if remaining[BOMB] else np.zeros(rows.size)
            belief[rows] = (1 - p_flag - p_bomb)[:, None] * mobile
            belief[rows, FLAG] = p_flag
            belief[rows, BOMB] = p_bomb
        return belief

    @staticmethod
    def _flag_chances(view: View, still: np.ndarray) -> np.ndarray:
        _, adjacent = geometry(view.lake)
        row = np.arange(N_SQUARES) // SIDE
        weight = (
            1.0
            + FLAG_WEIGHT_BACK_ROW * (row == BACK_ROW)
            + FLAG_WEIGHT_NEXT_ROW * (row == BACK_ROW - 1)
            + FLAG_WEIGHT_BOMB * (adjacent @ (view.enemy_known == BOMB))
            + FLAG_WEIGHT_UNMOVED * (adjacent @ still)
        ) * still
        return weight / weight.sum()

    def values(self, view: View) -> tuple[np.ndarray, np.ndarray]:
        """(value of my pieces, value of enemy pieces), by rank code."""
        mine, theirs = BASE_VALUE.copy(), BASE_VALUE.copy()
        enemy_marshal_left = self.army[MARSHAL] - view.enemy_removed[MARSHAL] > 0
        if not enemy_marshal_left:
            mine[SPY] = SPY_VALUE_ALONE
        if not (view.mine == MARSHAL).any():
            theirs[SPY] = SPY_VALUE_ALONE
        if self.army[BOMB] - view.enemy_removed[BOMB] > 0:
            mine[MINER] += MINER_BONUS
            if (view.mine == MINER).sum() <= 2:
                mine[MINER] += MINER_BONUS
        mobile = int(((view.mine >= SPY) & (view.mine <= MARSHAL)).sum())
        mine[MOBILE] += LAST_PIECES.get(mobile, 0.0)
        return mine, theirs

    def score_moves(self, view: View, legal: np.ndarray) -> np.ndarray:
        """The score of each legal move (rules 1-8 of the module docstring)."""
        distance, adjacent = geometry(view.lake)
        moves = legal - ACTIONS.move.start
        origin, target = MOVE_FROM[moves], MOVE_TO[moves]
        rank = view.mine[origin]
        enemy = view.enemy
        strike = enemy[target]

        belief = self.beliefs(view)
        my_value, their_value = self.values(view)
        gain = np.where(WIN > 0, their_value[None, :], 0.0)
        gain = gain - (1 - WIN - TIE) * my_value[:, None] + TIE * (their_value - my_value[:, None])
        ev = belief @ gain.T  # (100, 13): expected gain of my rank a striking square t
        ev[view.enemy_unknown] += INFO
        p_remove = belief @ (WIN + TIE).T
        defence = self._defence(view, belief, distance)
        line_threat, block, walls = self._flag_lines(view, belief)
        defence += line_threat
        target_value = np.maximum(ev + defence[:, None] * p_remove, 0.0) * enemy[:, None]
        target_value[:, MOBILE] += block[:, None]  # squares that close a line to my Flag

        # Danger (rule 5): sum of the chances that adjacent enemies beat my rank.
        beats = belief @ BEATS  # (100, 13): the enemy piece on t striking my rank a wins

        def danger(squares: np.ndarray, public: np.ndarray) -> np.ndarray:
            near = adjacent[squares] * enemy[None, :]
            chance = (near * beats[:, rank].T).sum(1)
            aggression = np.where(public, AGGRESSION_KNOWN, AGGRESSION_HIDDEN)
            return np.minimum(chance * aggression, 1.0) * my_value[rank]

        public = view.my_public[origin]
        long_move = MOVE_DISTANCE[moves] > 1
        score = danger(origin, public)

        # Strikes (rules 1-3, 6).
        p_win = (belief[target] * WIN[rank]).sum(1)
        strike_score = (
            ev[target, rank]
            + defence[target] * p_remove[target, rank]
            - p_win * danger(target, np.ones_like(public))
        )

        # Quiet moves (rules 4, 5, 7, 8).
        pull = DECAY ** np.maximum(distance - 1, 0)
        pull_to = (pull[target] * target_value[:, rank].T).max(1)
        pull_from = (pull[origin] * target_value[:, rank].T).max(1)
        row_gain = target // SIDE - origin // SIDE
        quiet_score = (
            PULL * (pull_to - pull_from)
            - danger(target, public | long_move)
            + FORWARD * row_gain * (rank != SPY)
        )
        general = np.flatnonzero(view.mine == GENERAL)
        if general.size:
            to_general = distance[general[0]]
            away = to_general[target] - to_general[origin]
            quiet_score -= (
                SPY_LEASH * (rank == SPY) * (to_general[target] > 1) * np.maximum(away, 0)
            )
        score += np.where(strike, strike_score, quiet_score)

        undo = (origin == view.my_last_to) & (target == view.my_last_from)
        score -= UNDO * view.shuttle * undo
        repeats = np.zeros(len(legal))
        for before, after in self.history:
            repeats += ((origin == before) & (target == after)) | (
                (origin == after) & (target == before)
            )
        score -= np.minimum(REPEAT * repeats, REPEAT_CAP)
        score += np.where(strike, 0.0, block[target])
        for square, closer, penalty in walls:
            score -= penalty * ((origin == square) & ~strike & ~np.isin(target, closer))
        score -= self._guard_penalty(view, origin, target, distance)
        return score + TIE_BREAK * self.rng.random(len(legal))

    @staticmethod
    def _defence(view: View, belief: np.ndarray, distance: np.ndarray) -> np.ndarray:
        """(100,): rule 6's bonus for removing the enemy piece on each square."""
        flag = np.flatnonzero(view.mine == FLAG)
        bonus = np.zeros(N_SQUARES)
        if flag.size == 0:
            return bonus
        mobile = belief[:, MOBILE].sum(1)
        to_flag = distance[flag[0]]
        for steps, value in FLAG_DEFENCE.items():
            bonus += value * (to_flag == steps)
        return bonus * mobile * view.enemy

    @staticmethod
    def _flag_lines(
        view: View, belief: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, list[tuple[int, list[int], float]]]:
        """Rule 6 for the four straight lines from my Flag, which a Scout can run along.

        Returns ``threat`` (100,): the bonus for removing an enemy piece that is the first piece
        on a line (by its chance of being a Scout), ``block`` (100,): the bonus for stepping
        onto an empty square between the Flag and such a piece, or onto a line open to the
        edge (less the further from the Flag), and ``walls``: ``(square, closer, penalty)``
        for each mobile piece of mine that is the first on a line, penalised for a quiet move
        to anywhere but ``closer``, the squares between it and the Flag.
        """
        threat, block = np.zeros(N_SQUARES), np.zeros(N_SQUARES)
        walls: list[tuple[int, list[int], float]] = []
        flag = np.flatnonzero(view.mine == FLAG)
        if flag.size == 0:
            return threat, block, walls
        enemy = view.enemy
        for direction in range(rules.N_DIRECTIONS):
            line = [int(q) for q in rules.RAY[flag[0], direction] if q != rules.OFF_BOARD]
            line = line[: next((i for i, q in enumerate(line) if view.lake[q]), len(line))]
            pieces = [i for i, q in enumerate(line) if view.mine[q] or enemy[q]]
            first = pieces[0] if pieces else len(line)
            if first < len(line) and view.mine[line[first]]:
                after = pieces[1] if len(pieces) > 1 else None
                scout = (
                    belief[line[after], SCOUT] if after is not None and enemy[line[after]] else 0
                )
                if view.mine[line[first]] < BOMB:
                    penalty = WALL / (first + 1) ** 2 + FLAG_DEFENCE[1] * scout
                    walls.append((line[first], line[:first], penalty))
                continue
            if first < len(line):  # an enemy piece: a Scout would strike along the line
                scout = belief[line[first], SCOUT]
                threat[line[first]] += FLAG_DEFENCE[1] * scout
                block[line[:first]] += FLAG_DEFENCE[1] * scout
            else:
                block[line] += WALL / np.arange(1, len(line) + 1) ** 2
        return threat, block, walls

    def _guard_penalty(
        self, view: View, origin: np.ndarray, target: np.ndarray, distance: np.ndarray
    ) -> np.ndarray:
        flag = np.flatnonzero(view.mine == FLAG)
        if flag.size == 0:
            return np.zeros(len(origin))
        to_flag = distance[flag[0]]
        movable = (view.mine >= SPY) & (view.mine <= MARSHAL)
        guards = int((movable & (to_flag <= GUARD_RADIUS)).sum())
        needed = 2 if self.army.sum() > len(rules.SETUP_ORDER["quick"]) else 1
        leaving = (to_flag[origin] <= GUARD_RADIUS) & (to_flag[target] > GUARD_RADIUS)
        return GUARD_PENALTY * leaving * (guards <= needed)


def make_policy(seed: int, mode: str = "full", **keywords: Any) -> HiddenRanksBot:
    """The Hidden Ranks bot (``keywords``: the other game keywords, not needed)."""
    return HiddenRanksBot(seed, mode=mode)


ARGUMENTS = ("guard",)
"""The arguments of the spec ``heuristic:guard=RANK`` (:func:`make_configured`)."""


def make_configured(
    arguments: dict[str, str], seed: int, keywords: dict[str, Any]
) -> HiddenRanksBot:
    """The bot of the spec ``heuristic:guard=RANK``: the piece of ``RANK`` (``S``, ``2`` ...
    ``10``, a mobile rank of the mode's army) stands by the Flag in place of the setup rule's
    guard (:func:`guarded_plan`); the play is the heuristic's. ``guard=10`` in the quick game
    is the search bot's setup (``docs/bots/hidden_ranks.md`` gives its measured strength)."""
    unknown = sorted(set(arguments) - set(ARGUMENTS))
    if unknown:
        raise ValueError(
            f"the Hidden Ranks heuristic takes no argument {', '.join(map(repr, unknown))}; "
            f"its arguments: {', '.join(ARGUMENTS)}"
        )
    mode = keywords.get("mode", "full")
    if mode not in rules.ARMIES:
        raise ValueError(f"mode={mode!r} is not allowed; choose one of: full, quick")
    text = ",".join(f"{k}={v}" for k, v in arguments.items())
    spec = f"heuristic:{text}" if text else "heuristic"
    guard = (
        guard_rank_named(arguments["guard"], mode, "heuristic") if "guard" in arguments else None
    )
    return HiddenRanksBot(seed, mode=mode, spec=spec, guard=guard)
