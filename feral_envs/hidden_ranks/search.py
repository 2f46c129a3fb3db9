"""Hidden Ranks worlds: full game states drawn from what one seat sees (``shared/API.md``,
"Search").

A world is drawn from the seat's **observation** alone (the array a policy gets, see
:data:`feral_envs.hidden_ranks.encoding.OBS`), the public keywords (``config``), whose turn
it is, and a numpy generator: :func:`sample_from_observation`. The env's
:func:`sample_world` is that function applied to ``engine.observe(row, seat)``, so the env's
sampler and a bot's are one function, and two states that look the same to the seat give
the same world for the same generator state by construction.

What a world keeps, from the observation: every square's occupant as the seat sees it (its
own pieces with their ranks, moved and public flags; the enemy's pieces of public rank; the
lakes), which enemy pieces have moved, both sides' removed pieces, both sides' last move and
back-and-forth count (the no-shuttling state: the banned move back follows from the two
squares), the move count (``move_count * max_moves``, rounded), the phase and the seat to act.

What it draws: the rank of every enemy piece of unknown rank, from the enemy army's pieces
not yet accounted for (the army of ``config.mode`` minus the enemy pieces strikes removed
minus those of public rank on the board; a Scout that moved more than one square is public,
the engine marks it so). An enemy piece that has moved gets a mobile rank (never a Bomb or
the Flag). The draw is uniform over the assignments that respect this, unless a Flag prior is
given (:func:`sample_from_observation`'s ``flag_rows``: the Flag is first placed on an unmoved
unknown piece with probability proportional to the weight of its row, or of its square,
then the rest uniformly); :func:`sample_world`, the env's, uses none. Nothing is inferred
from the enemy's moves beyond "it moved". A position start
(``reset(options={"position": ...})``) may hold fewer pieces than the army: the unknown
pieces then get a uniform subset of the pieces not accounted for (and the Flag prior is not
used).

What is not in the observation: ``last_strike`` (the last strike's record: square, seats,
both ranks, result), which no rule reads. Both players saw that strike, so the env's
:func:`sample_world` copies it from the row (the table as text shows it); a world built from
an observation alone has it all -1. During the **setup phase** the enemy's pieces are
hidden entirely, and so is how many it has placed: when the enemy is to place, a world has it
place its whole army from the start; when the seat is to place and the enemy is gold (which
places first), gold's army stands on a uniform random setup (the engine's, never walled in);
when the seat is gold and places, silver has not placed yet (the game's own order; a silver
setup given through ``reset`` is not visible to gold, so a world does not have it).

A world's own random stream (``row[0:4]``) and every draw come from the generator passed in.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from feral_envs.engine.rng import N_WORDS, _put, below, next32, words_from

from . import engine as E
from .rules import (
    BOMB,
    EMPTY,
    FLAG,
    GOLD,
    LAKE,
    MAX_DISTANCE,
    MOVED_BIT,
    N_DIRECTIONS,
    N_PLACE,
    N_RANKS,
    N_SQUARES,
    OWNER_BIT,
    PUBLIC_BIT,
    SILVER,
    Config,
)

SIDE = 10
OK, INCONSISTENT = 0, 1
_NP = E.N_PLANES


@njit(cache=True)
def _plane_square(obs, plane):
    """(ego square, value) of the one nonzero square of ``plane``, or (-1, 0)."""
    for ego in range(N_SQUARES):
        value = obs[ego * _NP + plane]
        if value != 0:
            return ego, int(value + 0.5)
    return -1, 0


@njit(cache=True)
def _reverse_action(seat, origin, target):
    """The action (``seat``'s ego frame) that moves from absolute ``target`` back to
    ``origin`` (the two on one line)."""
    a, b = E._square(seat, target), E._square(seat, origin)
    ra, ca, rb, cb = a // SIDE, a % SIDE, b // SIDE, b % SIDE
    if ca == cb:
        direction = 0 if rb > ra else 2
        distance = abs(rb - ra)
    else:
        direction = 1 if cb > ca else 3
        distance = abs(cb - ca)
    return N_PLACE + (a * N_DIRECTIONS + direction) * MAX_DISTANCE + distance - 1


@njit(cache=True)
def _last_move(obs, row, seat, who, plane):
    """``who``'s last move and back-and-forth count from ``seat``'s planes into ``row``."""
    ego_from, _ = _plane_square(obs, plane)
    ego_to, count = _plane_square(obs, plane + 1)
    if ego_from < 0 or ego_to < 0:
        return
    origin, target = E._square(seat, ego_from), E._square(seat, ego_to)
    row[E.LAST_FROM + who] = origin
    row[E.LAST_TO + who] = target
    row[E.SHUTTLE + who] = count
    row[E.REVERSE + who] = _reverse_action(who, origin, target)


@njit(cache=True)
def _draw(stream, weights, n):
    """An index ``0 .. n-1`` with probability proportional to ``weights[i]`` (float64 >= 0,
    sum > 0), from ``stream``: a uniform 53-bit fraction of the total."""
    total = 0.0
    for i in range(n):
        total += weights[i]
    fraction = ((next32(stream) >> 5) * 67108864.0 + (next32(stream) >> 6)) / 9007199254740992.0
    point = fraction * total
    for i in range(n):
        point -= weights[i]
        if point < 0.0 and weights[i] > 0.0:
            return i
    for i in range(n - 1, -1, -1):
        if weights[i] > 0.0:
            return i
    return n - 1


@njit(cache=True)
def _new_words(stream, row):
    """Fresh stream words for ``row`` drawn from ``stream`` (never xoshiro's all-zero
    state)."""
    for i in range(N_WORDS):
        _put(row, i, next32(stream))
    if row[0] == 0 and row[1] == 0 and row[2] == 0 and row[3] == 0:
        row[0] = 1


@njit(cache=True)
def world_from_observation(obs, seat, to_move, mode, setup, max_moves, flag_rows, stream, row):
    """Write into ``row`` (int32, ``ROW_SIZE``) a world drawn from ``seat``'s observation
    ``obs`` (flat, any float dtype) with ``to_move`` to act and the keywords given as the
    row holds them; draws from ``stream`` (int32 words, advanced), the world's own stream
    words included. ``flag_rows``: (10,) float64 weights of the Flag by ego row of ``seat``
    (row 9 is the enemy's back row), (100,) by ego square, or empty for a uniform draw.
    Returns ``OK``, or ``INCONSISTENT`` if no army fits the observation (nothing a game can
    show)."""
    enemy = 1 - seat
    _new_words(stream, row)
    row[E.MODE] = mode
    row[E.SETUP] = setup
    row[E.MAX_MOVES] = max_moves
    E._blank(row)
    army = E.ARMY_SIZE[mode]
    in_setup = obs[E.P_SETUP_PHASE] > 0
    pool = np.zeros(N_RANKS + 1, dtype=np.int64)
    for k in range(army):
        pool[E._ORDER[mode, k]] += 1
    unknown = np.empty(N_SQUARES, dtype=np.int64)
    n_unknown = 0
    mine = 0
    for ego in range(N_SQUARES):
        base = ego * _NP
        square = E._square(seat, ego)
        if obs[base + E.P_LAKE] > 0:
            row[E.BOARD + square] = LAKE
            continue
        code = EMPTY
        for r in range(N_RANKS):
            if obs[base + E.P_MY_RANK + r] > 0:
                code = (r + 1) | (OWNER_BIT * seat)
                if obs[base + E.P_MY_MOVED] > 0:
                    code |= MOVED_BIT
                if obs[base + E.P_MY_PUBLIC] > 0:
                    code |= PUBLIC_BIT
                mine += 1
            if obs[base + E.P_ENEMY_RANK + r] > 0:
                code = (r + 1) | (OWNER_BIT * enemy) | PUBLIC_BIT
                if obs[base + E.P_ENEMY_MOVED] > 0:
                    code |= MOVED_BIT
                pool[r + 1] -= 1
        if obs[base + E.P_ENEMY_UNKNOWN] > 0:
            code = (OWNER_BIT * enemy) | (MOVED_BIT if obs[base + E.P_ENEMY_MOVED] > 0 else 0)
            unknown[n_unknown] = square
            n_unknown += 1
        row[E.BOARD + square] = code
    row[E.TO_MOVE] = to_move
    if in_setup:
        row[E.SETUP_NEXT + seat] = mine
        if seat == SILVER and to_move == SILVER:  # gold placed first: a random setup
            row[0:N_WORDS] = stream  # _random_setup draws from the row's stream words
            E._random_setup(row, GOLD)
            stream[:] = row[0:N_WORDS]  # the stream moves on past those draws
            _new_words(stream, row)
        return OK
    row[E.PHASE] = E.PHASE_PLAY
    row[E.SETUP_NEXT] = army
    row[E.SETUP_NEXT + 1] = army
    for r in range(N_RANKS):
        mine_removed = int(obs[E.P_MY_REMOVED + r] + 0.5)
        theirs_removed = int(obs[E.P_ENEMY_REMOVED + r] + 0.5)
        row[E.REMOVED + N_RANKS * seat + r] = mine_removed
        row[E.REMOVED + N_RANKS * enemy + r] = theirs_removed
        pool[r + 1] -= theirs_removed
    _last_move(obs, row, seat, seat, E.P_MY_LAST_FROM)
    _last_move(obs, row, seat, enemy, E.P_ENEMY_LAST_FROM)
    row[E.MOVES] = int(obs[E.P_MOVE_COUNT] * max_moves + 0.5)
    # The ranks of the unknown pieces: the pool, moved pieces mobile ranks only.
    size = 0
    mobile = 0
    for r in range(1, N_RANKS + 1):
        if pool[r] < 0:
            return INCONSISTENT
        size += pool[r]
        if r < BOMB:
            mobile += pool[r]
    if size < n_unknown:
        return INCONSISTENT
    moved = 0
    for i in range(n_unknown):
        if row[E.BOARD + unknown[i]] & MOVED_BIT:
            moved += 1
    if moved > mobile:
        return INCONSISTENT
    weights = np.zeros(N_SQUARES, dtype=np.float64)
    prior = flag_rows.size == SIDE or flag_rows.size == N_SQUARES
    if prior and pool[FLAG] > 0 and size == n_unknown and n_unknown > moved:
        # The Flag first, on an unmoved unknown piece, by the weight of its row or square.
        total = 0.0
        for i in range(n_unknown):
            square = unknown[i]
            if not row[E.BOARD + square] & MOVED_BIT:
                ego = E._square(seat, square)
                weights[i] = flag_rows[ego // SIDE] if flag_rows.size == SIDE else flag_rows[ego]
                total += weights[i]
        if total > 0.0:
            i = _draw(stream, weights, n_unknown)
            row[E.BOARD + unknown[i]] |= FLAG
            pool[FLAG] -= 1
            size -= 1
    # Moved pieces first (mobile ranks), then the unmoved from what is left: each stage
    # uniform over the items of the pool it may take, so the whole is uniform.
    for stage in range(2):
        for i in range(n_unknown):
            square = unknown[i]
            code = row[E.BOARD + square]
            if code & 0x0F:
                continue  # the Flag of the prior
            if (stage == 0) != bool(code & MOVED_BIT):
                continue
            limit = BOMB if stage == 0 else N_RANKS + 1
            items = 0
            for r in range(1, limit):
                items += pool[r]
            k = below(stream, items)
            for r in range(1, limit):
                if k < pool[r]:
                    row[E.BOARD + square] = code | r
                    pool[r] -= 1
                    break
                k -= pool[r]
    return OK


_NO_PRIOR = np.zeros(0, dtype=np.float64)


def _flag_rows(flag_rows) -> np.ndarray:
    if flag_rows is None:
        return _NO_PRIOR
    weights = np.asarray(flag_rows, dtype=np.float64)
    shape_ok = weights.shape in ((SIDE,), (N_SQUARES,))
    if not shape_ok or not np.all(np.isfinite(weights)) or (weights < 0).any():
        raise ValueError(
            "flag_rows must be 10 finite weights >= 0 (one per ego row) or 100 (one per ego "
            f"square), got {flag_rows!r}"
        )
    return weights


def sample_from_observation(
    observation: np.ndarray,
    config: Config,
    seat: int,
    rng: np.random.Generator,
    to_move: int | None = None,
    flag_rows=None,
) -> np.ndarray:
    """A world (a new int32 state row) drawn from ``seat``'s ``observation`` (the
    ``(10, 10, 71)`` array or flat), the keywords ``config`` and ``rng``, with ``to_move``
    to act (default: ``seat``). The observation is in ``seat``'s ego frame; a policy, which
    does not know its colour, may call it with ``seat=GOLD`` (the rules are the same under
    the half turn, and its ego actions are the world's actions). ``flag_rows``: optional
    weights of the Flag by ego row, or by ego square (module docstring). ``ValueError`` for
    an observation no game can show (the wrong size, or no army fits it)."""
    obs = np.asarray(observation).reshape(-1)
    if obs.size != E.OBS_SIZE:
        raise ValueError(f"observation must have {E.OBS_SIZE} entries, got {obs.size}")
    if seat not in (GOLD, SILVER):
        raise ValueError(f"seat must be 0 (gold) or 1 (silver), got {seat!r}")
    to_move = seat if to_move is None else int(to_move)
    if to_move not in (GOLD, SILVER):
        raise ValueError(f"to_move must be 0 (gold) or 1 (silver), got {to_move!r}")
    if obs.dtype not in (np.float32, np.float64):
        obs = obs.astype(np.float64)
    stream = words_from(rng)
    row = np.zeros(E.ROW_SIZE, dtype=np.int32)
    result = world_from_observation(
        obs,
        seat,
        to_move,
        E.MODES.index(config.mode),
        E.SETUPS.index(config.setup),
        config.max_moves,
        _flag_rows(flag_rows),
        stream,
        row,
    )
    if result != OK:
        raise ValueError("no army of this mode fits the observation")
    return row


def sample_world(
    row: np.ndarray, config: Config, seat: int, rng: np.random.Generator
) -> np.ndarray:
    """The env's sampler: :func:`sample_from_observation` of ``seat``'s observation of
    ``row`` (exact, float64), with the row's seat to act, uniform (no Flag prior). Whether
    the game is over, who won, and the last strike (both players saw it) are public and kept."""
    obs = np.zeros(E.OBS_SIZE, dtype=np.float64)
    E.observe(row, seat, obs)
    world = sample_from_observation(obs, config, seat, rng, to_move=int(row[E.TO_MOVE]))
    for index in (E.TERMINATED, E.WINNER, E.END):
        world[index] = row[index]
    strike = E.STATE.last_strike.slice
    world[strike] = row[strike]
    return world
