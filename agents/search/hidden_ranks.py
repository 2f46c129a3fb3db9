"""Hidden Ranks search bot ``minimax``: depth-limited minimax over sampled enemy armies.

For each move decision the bot draws ``worlds`` full game states from its observation
(:func:`feral_envs.hidden_ranks.search.world_from_observation`, the env's own sampler, with
a Flag prior by square, :func:`flag_prior`: the row weights :data:`FLAG_ROWS`, times
:data:`FLAG_CORNER` on the corner columns and more next to a known enemy Bomb), and in each
world values every legal move by an alpha-beta search ``depth`` plies deep (the bot's move,
the enemy's reply, ...) with the evaluation below; it plays the move of the best mean value
over the worlds, less a small penalty for repeating one of its last moves. The worlds are
open: in each, both sides play as if they knew every rank of that world (determinized
search), so a strike on an unknown piece is valued by what it meets in each world, i.e. by
the chances the sampler gives.

Evaluation (the bot's point of view; a win +:data:`WIN`, a loss -:data:`WIN`, a draw 0,
sooner wins better): material, by :data:`VALUE` (the Spy 1 once the enemy Marshal is gone, a
Miner +1.5 while enemy Bombs stand), minus :data:`INFO` times the value of each piece whose
rank the other side knows (the bot's own count against it, the enemy's for it), plus the
Flag race, the bot's minus the enemy's: for each side, :data:`PULL` times
``HUNT[rank] * DECAY ** d`` for its mobile piece that scores most on it, ``d`` its distance
to the other side's Flag in single steps around the lakes, plus :data:`PULL_EACH` times the
sum of that over its mobile pieces; and :data:`DEFEND` times ``THREAT_DECAY ** (d - 1)``
summed over its mobile pieces (the threat to the other side's Flag, any rank alike); and
:data:`GUARD` times the open sides of the side's Flag (squares next to it, lakes and the edge
aside, that hold no piece of its own: a Bomb or any piece closes a side), the enemy's minus
the bot's.
In the full game also :data:`KEEP` times the sides of the side's Flag with no keeper by them
(a mobile piece of rank :data:`KEEPER_LOW` or more, which beats a Miner), the enemy's minus
the bot's.

Setup (``setup="choose"``): the heuristic's documented setup rule
(:func:`agents.heuristic.hidden_ranks.plan_setup`, from this bot's seed), with the piece of
rank ``guard`` put where that rule puts its Flag's guard
(:func:`agents.heuristic.hidden_ranks.guarded_plan`, the spec ``heuristic:guard=RANK``): the
Marshal on the open side of the corner Flag in the quick game, the heuristic's own Sergeant
by the Bombs in the full game. In the full game the setup then moves the Flag to the nearer
back corner (:func:`agents.heuristic.hidden_ranks.corner_plan`, two of its Bombs still by
it) and adds a false Flag
(:func:`agents.heuristic.hidden_ranks.decoy_plan`): a Sergeant on the back row walled in by
the Bombs that do not wall the Flag, so a Miner that hunts the Flag by its Bombs may
find a Sergeant behind them.

Spec ``minimax[:worlds=N,depth=D,time=SECONDS,guard=RANK,decoy=0|1,corner=0|1]``:

- ``worlds``: worlds per decision (default 8), an integer >= 1;
- ``depth``: plies searched in each world (default 4 in the quick game, 3 in the full), 1 to
  4;
- ``time``: a budget in seconds per decision (> 0): worlds are searched two at a time until
  it is spent or ``worlds`` are done (``worlds`` then defaults to 1024). With ``time`` the
  play depends on the machine's speed; without it the bot is deterministic given its seed;
- ``guard``: the rank (``S``, ``2`` ... ``10``, one of the mode's army) that stands by the
  Flag (default ``10`` in the quick game, ``4`` in the full; the heuristic's guard, ``2``
  quick and ``4`` full, keeps the heuristic's setup);
- ``decoy``: ``1`` adds the false Flag (the full game's default, not allowed in the quick
  game, which has no spare Bomb), ``0`` leaves it out;
- ``corner``: ``1`` (the default) moves the Flag to the nearer back corner, ``0`` leaves it
  where the heuristic's rule puts it (the quick game's Flag is in a corner either way).

The bot reads only its observation, its mask and the game keywords. It reports its mean
time per decision (:attr:`MinimaxBot.mean_decision_seconds`, wall, and
:attr:`MinimaxBot.mean_decision_cpu_seconds`, over the moves it searched).
"""

from __future__ import annotations

import time
from collections import deque
from typing import Any

import numpy as np
from numba import njit

from agents.base import BasePolicy
from agents.heuristic.hidden_ranks import (
    HiddenRanksBot,
    geometry,
    guard_rank_named,
)
from feral_envs.engine.rng import words_from
from feral_envs.hidden_ranks import engine as E
from feral_envs.hidden_ranks import rules
from feral_envs.hidden_ranks.search import world_from_observation

BOARD = E.BOARD
TERMINATED, WINNER, TO_MOVE = E.TERMINATED, E.WINNER, E.TO_MOVE
SPY, MINER, MARSHAL, BOMB, FLAG = rules.SPY, rules.MINER, rules.MARSHAL, rules.BOMB, rules.FLAG
EMPTY, LAKE = rules.EMPTY, rules.LAKE
OWNER_BIT, PUBLIC_BIT, RANK_BITS = rules.OWNER_BIT, rules.PUBLIC_BIT, rules.RANK_BITS
MOVED_BIT = rules.MOVED_BIT
N_SQUARES = rules.N_SQUARES
MAX_LEGAL = 1500
"""More than any position's legal moves (40 pieces, at most 36 moves each)."""
MAX_DEPTH = 4

VALUE = np.array([0, 4, 1, 2.5, 2, 2.5, 3.5, 5, 7, 10, 14, 1.0, 0.0], dtype=np.float64)
"""Value of a piece by rank code (index 0 unused; S, 2, ..., 10, B, F; the Flag is the game)."""
SPY_ALONE = 1.0
MINER_BONUS = 1.5
WIN = 100.0
INFO = 0.15
PULL, PULL_EACH, DECAY = 2.0, 0.1, 0.8
DEFEND, THREAT_DECAY = 6.0, 0.6
UNMOVED = 0.0
"""Value of each mobile piece that has not moved and whose rank is unknown to the other
side (a piece the other side must count as a possible Bomb or Flag), for either side. Off:
0.5 measured no better (docs/search.md)."""
GUARD = 3.0
"""Cost of each open side of a side's Flag: a square next to it (on the board, no lake) that
holds no piece of its own side (empty, or an enemy piece), for either side."""
KEEP = {"quick": 0.0, "full": 3.0}
"""Cost, by mode, of each side of a side's Flag (a square next to it, on the board, no lake)
with no keeper: a mobile piece of its own side that beats a Miner (rank 4 or more) on that
square or next to it, which strikes a Miner that has just taken a Bomb by the Flag, for
either side. Full game 3: +104 [+71, +138] against +53 [+22, +86] without it, on the same 400
games (seeds 40 and 41, docs/search.md); the quick game, where the Marshal guards the
corner Flag, is not measured with it, so it stays off there."""
KEEPER_LOW = 4
"""The lowest rank of a keeper (:data:`KEEP`): the Sergeant beats a Miner."""
HUNT = np.array([0, 0.3, 0.7, 1.0, 0.5, 0.5, 0.5, 0.5, 0.5, 0.3, 0.3, 0, 0], dtype=np.float64)
"""Weight of each mobile rank's pull toward the enemy Flag: Miners most, the high ranks
least (a Bomb may stand by the Flag)."""
REPEAT, REPEAT_CAP, MEMORY = 0.3, 0.9, 12
"""Root penalty per time a move or its reverse is among the last MEMORY moves, capped."""
FLAG_ROWS = {
    "quick": np.array([0, 0, 0, 0, 0, 0, 1, 1, 2, 4], dtype=np.float64),
    "full": np.array([0, 0, 0, 0, 0, 0, 0, 0, 0.1, 1], dtype=np.float64),
}
"""The Flag prior of the worlds, by mode: weight of an unmoved unknown enemy piece being the
Flag, by ego row (row 9 is the enemy's back row; its home rows are 6-9). Full game: the back
row, a tenth of it on the row before: +163 [+124, +201] against +104 [+71, +138] with the
quick game's rows and corners, on the same 400 games (seeds 40 and 41, docs/search.md)."""
FLAG_CORNER = {"quick": 3.0, "full": 1.0}
"""Factor of the Flag prior, by mode, on the two corners of each row (a corner has two open
sides, the fewest to close with Bombs)."""
FLAG_BOMB = 2.0
"""Added to the Flag prior's factor (1) per known enemy Bomb next to the square."""
TIE_BREAK = 1e-6

_EGO_ROW, _EGO_COL = np.divmod(np.arange(N_SQUARES), 10)
_NEIGHBOURS = np.zeros((N_SQUARES, N_SQUARES))
for _s in range(N_SQUARES):
    for _t in range(N_SQUARES):
        _NEIGHBOURS[_s, _t] = (
            abs(_EGO_ROW[_s] - _EGO_ROW[_t]) + abs(_EGO_COL[_s] - _EGO_COL[_t]) == 1
        )


def flag_prior(flat: np.ndarray, mode: str) -> np.ndarray:
    """The worlds' Flag weights by ego square in game ``mode``, from the observation
    ``flat``: :data:`FLAG_ROWS` by row, times :data:`FLAG_CORNER` on the corner columns,
    times ``1 + FLAG_BOMB`` per known enemy Bomb next to the square (the sampler puts the
    Flag on an unmoved unknown enemy piece by these weights)."""
    planes = flat.reshape(N_SQUARES, E.N_PLANES)
    bombs = planes[:, E.P_ENEMY_RANK + BOMB - 1] > 0
    corner = np.where((_EGO_COL == 0) | (_EGO_COL == 9), FLAG_CORNER[mode], 1.0)
    weights = FLAG_ROWS[mode][_EGO_ROW] * corner
    return weights * (1.0 + FLAG_BOMB * (_NEIGHBOURS @ bombs))


_LAKE_MASK = np.zeros(N_SQUARES, dtype=bool)
_LAKE_MASK[list(rules.LAKE_SQUARES)] = True
DIST = geometry(_LAKE_MASK)[0].astype(np.int64)
"""Single steps between squares around the lakes (the board is the same in both frames)."""
POWER = DECAY ** np.arange(DIST.max() + 1, dtype=np.float64)
THREAT = np.concatenate(([1.0], THREAT_DECAY ** np.arange(DIST.max(), dtype=np.float64)))
"""Threat of a mobile piece ``d`` steps from the other side's Flag: ``THREAT_DECAY ** (d - 1)``."""


@njit(cache=True)
def _facts(row, facts):
    """What stays fixed in a world's search, into ``facts`` (int64, 6): each side's Flag
    square (-1 if none), and its Marshals and its Bombs, on the board or removed."""
    facts[:] = 0
    facts[0] = facts[1] = -1
    for square in range(N_SQUARES):
        code = row[BOARD + square]
        if code == EMPTY or code == LAKE:
            continue
        rank, side = code & RANK_BITS, (code >> 4) & 1
        if rank == FLAG:
            facts[side] = square
        elif rank == MARSHAL:
            facts[2 + side] += 1
        elif rank == BOMB:
            facts[4 + side] += 1
    for side in range(2):
        facts[2 + side] += row[E.REMOVED + rules.N_RANKS * side + MARSHAL - 1]
        facts[4 + side] += row[E.REMOVED + rules.N_RANKS * side + BOMB - 1]


@njit(cache=True)
def _evaluate(row, me, params, facts):
    """The position's value for seat ``me`` (module docstring); ``facts`` from
    :func:`_facts` of the world's root (the Flags never move; a struck Flag ends the game)."""
    flag = facts[0:2]
    marshals = np.zeros(2, dtype=np.int64)
    bombs = np.zeros(2, dtype=np.int64)
    for side in range(2):
        marshals[side] = facts[2 + side] - row[E.REMOVED + rules.N_RANKS * side + MARSHAL - 1]
        bombs[side] = facts[4 + side] - row[E.REMOVED + rules.N_RANKS * side + BOMB - 1]
    info, pull, pull_each, defend = params[0], params[1], params[2], params[3]
    unmoved = params[5]
    score = 0.0
    nearest = np.zeros(2)
    total = np.zeros(2)
    threat = np.zeros(2)
    keep = params[7]
    keepers = np.empty((2, N_SQUARES), dtype=np.int64)
    n_keepers = np.zeros(2, dtype=np.int64)
    for square in range(N_SQUARES):
        code = row[BOARD + square]
        if code == EMPTY or code == LAKE:
            continue
        rank, side = code & RANK_BITS, (code >> 4) & 1
        other = 1 - side
        value = VALUE[rank]
        if rank == SPY and marshals[other] == 0:
            value = SPY_ALONE
        elif rank == MINER and bombs[other] > 0:
            value += MINER_BONUS
        sign = 1.0 if side == me else -1.0
        score += sign * value
        if code & PUBLIC_BIT:
            score -= sign * info * value
        elif rank < BOMB and not code & MOVED_BIT:
            score += sign * unmoved
        if keep != 0.0 and KEEPER_LOW <= rank < BOMB:
            keepers[side, n_keepers[side]] = square
            n_keepers[side] += 1
        if rank < BOMB and flag[other] >= 0:
            steps = DIST[square, flag[other]]
            p = HUNT[rank] * POWER[steps]
            total[side] += p
            if p > nearest[side]:
                nearest[side] = p
            threat[side] += THREAT[steps]
    guard = params[6]
    if guard != 0.0 or keep != 0.0:
        for side in range(2):
            square = flag[side]
            if square < 0:
                continue
            sign = 1.0 if side == me else -1.0
            for step in range(4):
                if (step == 0 and square % 10 == 0) or (step == 1 and square % 10 == 9):
                    continue
                target = square + (-1, 1, -10, 10)[step]
                if target < 0 or target >= N_SQUARES:
                    continue
                code = row[BOARD + target]
                if code == LAKE:
                    continue
                if code == EMPTY or (1 if code & OWNER_BIT else 0) != side:
                    score -= sign * guard
                if keep != 0.0:
                    kept = False
                    for k in range(n_keepers[side]):
                        if DIST[keepers[side, k], target] <= 1:
                            kept = True
                            break
                    if not kept:
                        score -= sign * keep
    score += pull * (nearest[me] - nearest[1 - me]) + pull_each * (total[me] - total[1 - me])
    score -= defend * (threat[1 - me] - threat[me])
    return score


@njit(cache=True)
def _generate(row, seat, out):
    """``seat``'s legal moves into ``out``, strikes first; returns how many."""
    banned = E._banned(row, seat)
    n = 0
    for ego in range(N_SQUARES):
        code = row[BOARD + E._square(seat, ego)]
        if not E._CAN_MOVE[seat, code]:
            continue
        for direction in range(4):
            first = E.N_PLACE + ego * E._DISTANCES + direction * E.MAX_DISTANCE
            reach = E._reach(row, seat, ego, direction, code)
            for action in range(first, first + reach):
                if action != banned:
                    out[n] = action
                    n += 1
    strikes = 0
    for i in range(n):
        target = E._square(seat, E._MOVE_TO[out[i] - E.N_PLACE])
        if row[BOARD + target] != EMPTY:
            out[i], out[strikes] = out[strikes], out[i]
            strikes += 1
    return n


@njit(cache=True)
def _terminal(row, me, depth, win):
    winner = row[WINNER]
    if winner == me:
        return win + depth
    if winner < 0:
        return 0.0
    return -win - depth


@njit(cache=True)
def _alphabeta(rows, moves, depth, me, params, facts, count, index, alpha, beta, best):
    """Minimax value for ``me`` of ``rows[0]`` searched ``depth`` plies, alpha-beta, with an
    explicit stack (ply ``k`` in ``rows[k]``, its moves in ``moves[k]``): numba does not
    cache recursive functions safely."""
    ply = 0
    alpha[0], beta[0] = -np.inf, np.inf
    value = 0.0
    entering = True
    while True:
        if entering:
            row = rows[ply]
            entering = False
            if row[TERMINATED]:
                value = _terminal(row, me, depth - ply, params[4])
            elif ply == depth:
                value = _evaluate(row, me, params, facts)
            else:
                count[ply] = _generate(row, row[TO_MOVE], moves[ply])
                index[ply] = 0
                best[ply] = -np.inf if row[TO_MOVE] == me else np.inf
                if count[ply] == 0:  # not reached: a seat without a move has lost
                    value = _evaluate(row, me, params, facts)
                else:
                    entering = True
        else:
            if ply == 0:
                return value
            ply -= 1
            row = rows[ply]
            if row[TO_MOVE] == me:
                best[ply] = max(best[ply], value)
                alpha[ply] = max(alpha[ply], best[ply])
            else:
                best[ply] = min(best[ply], value)
                beta[ply] = min(beta[ply], best[ply])
            index[ply] += 1
            if alpha[ply] >= beta[ply] or index[ply] >= count[ply]:
                value = best[ply]
                continue
            entering = True
        if entering:  # into child index[ply] of the node at ply
            child = rows[ply + 1]
            child[:] = rows[ply]
            E.apply(child, moves[ply, index[ply]])
            alpha[ply + 1], beta[ply + 1] = alpha[ply], beta[ply]
            ply += 1


@njit(cache=True)
def search(obs, mode, setup, max_moves, flag_rows, stream, n_worlds, depth, params, roots, totals):
    """Add to ``totals[i]`` the value of root move ``roots[i]`` in each of ``n_worlds``
    worlds drawn from ``obs`` (the bot as gold, to move), searched ``depth`` plies in all.
    Returns the worlds searched (fewer only if the observation fits no army)."""
    world = np.zeros(E.ROW_SIZE, dtype=np.int32)
    rows = np.zeros((MAX_DEPTH + 1, E.ROW_SIZE), dtype=np.int32)
    moves = np.zeros((MAX_DEPTH + 1, MAX_LEGAL), dtype=np.int64)
    count = np.zeros(MAX_DEPTH + 1, dtype=np.int64)
    index = np.zeros(MAX_DEPTH + 1, dtype=np.int64)
    alpha = np.zeros(MAX_DEPTH + 1)
    beta = np.zeros(MAX_DEPTH + 1)
    best = np.zeros(MAX_DEPTH + 1)
    facts = np.zeros(6, dtype=np.int64)
    for w in range(n_worlds):
        if world_from_observation(obs, 0, 0, mode, setup, max_moves, flag_rows, stream, world):
            return w
        _facts(world, facts)
        for i in range(roots.shape[0]):
            rows[0, :] = world
            E.apply(rows[0], roots[i])
            totals[i] += _alphabeta(
                rows, moves, depth - 1, 0, params, facts, count, index, alpha, beta, best
            )
    return n_worlds


class MinimaxBot(BasePolicy):
    """The module docstring's bot."""

    def __init__(
        self,
        seed: int,
        keywords: dict[str, Any],
        worlds: int = 8,
        depth: int = 3,
        time_limit: float | None = None,
        spec: str = "minimax",
        guard: int | None = None,
        decoy: bool | None = None,
        corner: bool | None = None,
    ) -> None:
        super().__init__(spec, seed)
        self.config = _config(keywords)
        self.worlds, self.depth, self.time_limit = worlds, depth, time_limit
        self.guard = rules.RANK_OF_NAME[DEFAULT_GUARD[self.config.mode]] if guard is None else guard
        self.decoy = DEFAULT_DECOY[self.config.mode] if decoy is None else decoy
        if self.decoy and self.config.mode != "full":
            raise ValueError(
                f"minimax argument decoy=1 is not allowed in the {self.config.mode} game: its "
                "one Bomb walls the Flag and none is left for a false one; decoy=1 needs the "
                "full game"
            )
        self.corner = DEFAULT_CORNER if corner is None else corner
        self.setup_bot = HiddenRanksBot(
            seed, mode=self.config.mode, guard=self.guard, decoy=self.decoy, corner=self.corner
        )
        self.params = np.array(
            [INFO, PULL, PULL_EACH, DEFEND, WIN, UNMOVED, GUARD, KEEP[self.config.mode]],
            dtype=np.float64,
        )
        self.history: deque[tuple[int, int]] = deque(maxlen=MEMORY)
        self.decisions = 0
        self.seconds = 0.0
        self.cpu_seconds = 0.0
        self.worlds_searched = 0

    @property
    def mean_decision_seconds(self) -> float:
        """Mean wall time of the move decisions searched so far (all games), in seconds."""
        return self.seconds / self.decisions if self.decisions else 0.0

    @property
    def mean_decision_cpu_seconds(self) -> float:
        """Mean CPU time of this process per move decision (one thread: the figure a loaded
        machine does not inflate as it does the wall time)."""
        return self.cpu_seconds / self.decisions if self.decisions else 0.0

    def reset(self, seed: int) -> None:
        super().reset(seed)
        self.setup_bot.reset(seed)
        self.history.clear()

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("action_mask marks no legal action: it is not this bot's turn")
        flat = np.asarray(observation).reshape(-1)
        if flat[E.P_SETUP_PHASE] > 0:
            return self.setup_bot.act(observation, action_mask)
        start, cpu = time.perf_counter(), time.process_time()
        action = self._choose(flat, legal)
        self.seconds += time.perf_counter() - start
        self.cpu_seconds += time.process_time() - cpu
        self.decisions += 1
        move = action - E.N_PLACE
        self.history.append((int(rules.MOVE_FROM[move]), int(rules.MOVE_TO[move])))
        return action

    def _choose(self, flat: np.ndarray, legal: np.ndarray) -> int:
        if flat.dtype != np.float32 and flat.dtype != np.float64:
            flat = flat.astype(np.float64)
        roots = legal.astype(np.int64)
        noise = TIE_BREAK * self.rng.random(roots.size)
        if roots.size == 1:
            return int(roots[0])
        stream = words_from(self.rng)
        totals = np.zeros(roots.size)
        mode = E.MODES.index(self.config.mode)
        setup = E.SETUPS.index(self.config.setup)
        done = 0
        start = time.perf_counter()
        prior = flag_prior(flat, self.config.mode)
        while done < self.worlds:
            chunk = self.worlds - done if self.time_limit is None else min(2, self.worlds - done)
            got = search(
                flat, mode, setup, self.config.max_moves, prior, stream, chunk,
                self.depth, self.params, roots, totals,
            )  # fmt: skip
            done += got
            if got < chunk:
                raise ValueError("no army of this mode fits the observation")
            if self.time_limit is not None and time.perf_counter() - start >= self.time_limit:
                break
        self.worlds_searched += done
        score = totals / done + noise
        origin = np.array(rules.MOVE_FROM)[roots - E.N_PLACE]
        target = np.array(rules.MOVE_TO)[roots - E.N_PLACE]
        repeats = np.zeros(roots.size)
        for before, after in self.history:
            repeats += ((origin == before) & (target == after)) | (
                (origin == after) & (target == before)
            )
        score -= np.minimum(REPEAT * repeats, REPEAT_CAP)
        return int(roots[int(np.argmax(score))])


def _config(keywords: dict[str, Any]) -> Any:
    """The game's config from the keywords the bot is given (its game keywords)."""
    return rules.make_config(
        **{k: keywords[k] for k in ("mode", "setup", "max_moves") if k in keywords}
    )


def _integer(name: str, text: str, low: int, high: int | None) -> int:
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or value < low or (high is not None and value > high):
        allowed = f"an integer from {low} to {high}" if high is not None else f"an integer >= {low}"
        raise ValueError(f"minimax argument {name}={text!r} is not allowed; it must be {allowed}")
    return value


ARGUMENTS = ("worlds", "depth", "time", "guard", "decoy", "corner")
DEFAULT_WORLDS = 8
DEFAULT_DEPTH = {"quick": 4, "full": 3}
"""The defaults: the settings measured in ``docs/search.md`` (the full game's larger armies
have more moves a ply)."""
DEFAULT_DECOY = {"quick": False, "full": True}
"""Whether the setup adds a false Flag (:func:`agents.heuristic.hidden_ranks.decoy_plan`), by
mode: the full game's spare Bombs wall a Sergeant on the back row (with ``corner=0``, +205
[+168, +243] against +163 [+124, +201] without it, on the same 400 games of seeds 40 and 41;
with the corner, +219 [+197, +244] over seeds 40 to 45, docs/search.md); the quick game has
no spare Bomb."""
DEFAULT_CORNER = True
"""Whether the setup moves the Flag to the nearer back corner
(:func:`agents.heuristic.hidden_ranks.corner_plan`): with the false Flag, +211 [+173, +250]
against +154 [+120, +191] without the move, on the same 400 games of seeds 42 and 43
(docs/search.md); the quick game's Flag is in a corner already."""
DEFAULT_GUARD = {"quick": "10", "full": "4"}
"""The piece by the Flag (:func:`agents.heuristic.hidden_ranks.guarded_plan`): the Marshal
in the quick game, the heuristic's own guard (a Sergeant) in the full game, as measured in
``docs/search.md``."""


def make_minimax(arguments: dict[str, str], seed: int, keywords: dict[str, Any]) -> MinimaxBot:
    """The ``minimax`` spec's factory (arguments: module docstring)."""
    unknown = sorted(set(arguments) - set(ARGUMENTS))
    if unknown:
        raise ValueError(
            f"minimax takes no argument {', '.join(map(repr, unknown))}; its arguments: "
            + ", ".join(ARGUMENTS)
        )
    time_limit = None
    if "time" in arguments:
        try:
            time_limit = float(arguments["time"])
        except ValueError:
            time_limit = None
        if time_limit is None or not np.isfinite(time_limit) or time_limit <= 0:
            raise ValueError(
                f"minimax argument time={arguments['time']!r} is not allowed; it must be a "
                "number of seconds > 0"
            )
    default_worlds = DEFAULT_WORLDS if time_limit is None else 1024
    worlds = _integer("worlds", arguments.get("worlds", str(default_worlds)), 1, None)
    mode = _config(keywords).mode  # a bad game keyword: the rules' message
    depth = _integer("depth", arguments.get("depth", str(DEFAULT_DEPTH[mode])), 1, MAX_DEPTH)
    guard = guard_rank_named(arguments.get("guard", DEFAULT_GUARD[mode]), mode, "minimax")
    switches: dict[str, bool | None] = {}
    for name, meaning in (
        ("decoy", "(no false Flag) or 1 (a false Flag, the full game's default)"),
        (
            "corner",
            "(the Flag where the heuristic's rule puts it) or 1 (in a back corner, the default)",
        ),
    ):
        switches[name] = None
        if name in arguments:
            if arguments[name] not in ("0", "1"):
                raise ValueError(
                    f"minimax argument {name}={arguments[name]!r} is not allowed; it must be 0 "
                    + meaning
                )
            switches[name] = arguments[name] == "1"
    text = ",".join(f"{k}={v}" for k, v in arguments.items())
    spec = f"minimax:{text}" if text else "minimax"
    return MinimaxBot(
        seed, keywords, worlds=worlds, depth=depth, time_limit=time_limit, spec=spec,
        guard=guard, **switches,
    )  # fmt: skip


SPECS = {"minimax": make_minimax}
"""The Hidden Ranks search specs (:mod:`agents.search`)."""
