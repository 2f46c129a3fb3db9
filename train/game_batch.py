"""The games of the self-play training env (:mod:`train.vec_env`), read and moved as a batch.

The env plays its games one round of decisions at a time: it asks where every game stands
(:meth:`status`: the seat to act, over or not, the winner), reads the legal masks and the
observations of the games whose decision is due (:meth:`masks`, :meth:`observe`), and plays
every chosen action at once (:meth:`apply`). :class:`EngineBatch` does each of these in one
call of the game's compiled engine over all the games' state rows (one ``(n_games,
ROW_SIZE)`` int32 array, ``rows``); :class:`CoreBatch` does the same for a pure-Python rules
core (the training tests' toy games), one game at a time. A core function that replaces
the engine's (the observation with advice of :mod:`agents.advice`) is called game by game.

Both keep ``states``: each slot's game as the :class:`~feral_envs.core.GameCore` functions
take it. For an engine game it is a :class:`~feral_envs.engine.game.Game` whose row *is* the
slot's row of the batch, so that what reads a game by its named fields (the par, the
material, traces, tests) reads the batch. Putting a game in a slot (``states[i] = game``)
moves its row into the batch; the game it replaces keeps its final position (a copy).

The env runs the kernels on one thread (:func:`on_one_thread`): a call over a training
batch's games takes microseconds. On the 2-core machine, quiet, numba's two threads stepped
128 Lost Heir games only about 6% faster than one; with other jobs running, each call waited
for the second thread to be scheduled, and training ran up to 20 times slower
(``benchmarks/bench_train.py``: 1,000 learner decisions/s against 13,000-16,000 on one thread).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numba
import numpy as np

from feral_envs.core import GameCore
from feral_envs.engine.game import Game, runs_on_engine

BATCHED_RULES = ("seat_to_act", "legal_mask", "apply", "status", "scores")
"""The core functions an :class:`EngineBatch` runs as batch kernels in their stead: all of
them must be the engine's own (``observe`` may be another: it is then called per game)."""


def on_one_thread(method: Callable) -> Callable:
    """``method`` with numba's parallel kernels on one thread while it runs (numba's thread
    count is the calling thread's own; the one before is restored)."""

    @functools.wraps(method)
    def one_thread(*args: Any, **kwargs: Any) -> Any:
        before = numba.get_num_threads()
        numba.set_num_threads(1)
        try:
            return method(*args, **kwargs)
        finally:
            numba.set_num_threads(before)

    return one_thread


class Status(NamedTuple):
    """Where every game of the batch stands, one entry per game."""

    seat: np.ndarray
    """(n,) int64: the seat to act (once the game is over, the last one to act)."""
    terminated: np.ndarray
    """(n,) bool: the game ended by the rules."""
    truncated: np.ndarray
    """(n,) bool: the game hit a length cap the rules do not have."""
    winner: np.ndarray
    """(n,) int64: the winning team, or ``DRAW``."""

    @property
    def over(self) -> np.ndarray:
        return self.terminated | self.truncated


class SlotGames(Sequence):
    """The games of a batch's slots, each a :class:`Game` over its row of ``rows``."""

    def __init__(self, rows: np.ndarray, games: list[Game | None]) -> None:
        self._rows = rows
        self._games = games

    def __len__(self) -> int:
        return len(self._games)

    def __getitem__(self, i: int) -> Game:
        return self._games[i]

    def __setitem__(self, i: int, game: Game) -> None:
        """Put ``game`` in slot ``i``: its row becomes the slot's row (it plays on there)."""
        old = self._games[i]
        if old is not None and old is not game:
            old.row = old.row.copy()  # the game that ended keeps its final position
        self._rows[i] = game.row
        game.row = self._rows[i]
        self._games[i] = game


class EngineBatch:
    """``n_games`` games of an engine core, every batch operation one kernel call."""

    def __init__(self, core: GameCore, config: Any, n_games: int) -> None:
        self.core, self.config, self.engine = core, config, core.engine
        self.rows = np.zeros((n_games, self.engine.ROW_SIZE), dtype=np.int32)
        """The games' state rows (the engine's ``STATE`` layout), one per slot."""
        self.states = SlotGames(self.rows, [None] * n_games)
        self._observe_kernel = runs_on_engine(core.observe, self.engine)
        # The core reads its games through this decoder: a game of its own says which.
        self._decode = core.new_game(config, np.random.default_rng(0), {}).decode

    def status(self) -> Status:
        """Where every game stands (one ``status_batch`` call)."""
        n = len(self.rows)
        status = Status(
            np.empty(n, np.int64), np.empty(n, bool), np.empty(n, bool), np.empty(n, np.int64)
        )
        self.engine.status_batch(self.rows, *status)
        return status

    def masks(self, games: np.ndarray) -> np.ndarray:
        """(k, n_actions) int8: the legal actions of the seat to act in each of ``games``."""
        out = np.empty((len(games), self.core.n_actions), dtype=np.int8)
        self.engine.masks_batch(self.rows[games], out)
        return out

    def observe(self, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """(k, *obs_shape) float32: ``seats[j]``'s observation of game ``games[j]``."""
        if not self._observe_kernel:
            return _observe_each(self.core, self.states, games, seats)
        out = np.empty((len(games), self.engine.OBS_SIZE), dtype=np.float32)
        self.engine.observe_batch(self.rows[games], np.asarray(seats, dtype=np.int64), out)
        return out.reshape(len(games), *self.core.obs_shape)

    def apply(self, actions: np.ndarray, rngs: list[np.random.Generator]) -> None:
        """Play ``actions[i]`` (legal) in every game ``i`` with ``actions[i] >= 0``; the
        others are left as they are. (The games' random streams are in their rows.)"""
        self.engine.apply_batch(self.rows, actions)

    def scores(self) -> np.ndarray:
        """(n, 2) int64: every game's score of each team."""
        out = np.empty((len(self.rows), 2), dtype=np.int64)
        self.engine.scores_batch(self.rows, out)
        return out

    def get_state(self) -> np.ndarray:
        return self.rows

    def set_state(self, saved: Any) -> None:
        """Restore ``get_state``'s rows (or, from an older checkpoint, a list of games)."""
        rows = np.asarray(saved if isinstance(saved, np.ndarray) else [g.row for g in saved])
        if rows.shape != self.rows.shape:
            raise ValueError(f"saved games have shape {rows.shape}, the env {self.rows.shape}")
        self.rows[:] = rows
        for i in range(len(self.rows)):
            self.states[i] = Game(self._decode, self.config, self.rows[i])


class CoreBatch:
    """``n_games`` games of a pure-Python core (no engine), one core call per game."""

    def __init__(self, core: GameCore, config: Any, n_games: int) -> None:
        self.core, self.config = core, config
        self.states: list[Any] = [None] * n_games

    def status(self) -> Status:
        status, seat_to_act = self.core.status, self.core.seat_to_act
        results = [status(s) for s in self.states]
        return Status(
            np.array([seat_to_act(s) for s in self.states], dtype=np.int64),
            np.array([r[0] for r in results], dtype=bool),
            np.array([r[1] for r in results], dtype=bool),
            np.array([r[2] for r in results], dtype=np.int64),
        )

    def masks(self, games: np.ndarray) -> np.ndarray:
        masks = [self.core.legal_mask(self.states[i]) for i in games]
        return np.array(masks, dtype=np.int8).reshape(len(games), self.core.n_actions)

    def observe(self, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        return _observe_each(self.core, self.states, games, seats)

    def apply(self, actions: np.ndarray, rngs: list[np.random.Generator]) -> None:
        for i in np.flatnonzero(actions >= 0).tolist():
            self.core.apply(self.states[i], int(actions[i]), rngs[i])

    def scores(self) -> np.ndarray:
        return np.array([self.core.scores(s) for s in self.states], dtype=np.int64)

    def get_state(self) -> list[Any]:
        return self.states

    def set_state(self, saved: list[Any]) -> None:
        self.states = list(saved)


def _observe_each(core: GameCore, states: Sequence, games: np.ndarray, seats: Any) -> np.ndarray:
    """(k, *obs_shape): ``core.observe`` of each game of ``games`` for its seat."""
    pairs = zip(games.tolist(), np.asarray(seats).tolist(), strict=True)
    obs = [core.observe(states[i], seat) for i, seat in pairs]
    return np.array(obs).reshape(len(games), *core.obs_shape)


def game_batch(core: GameCore, config: Any, n_games: int) -> EngineBatch | CoreBatch:
    """The batch of ``core``'s games: on its compiled engine if it runs on one (every
    function of :data:`BATCHED_RULES` the engine's own), else one game at a time."""
    on_engine = core.engine is not None and all(
        runs_on_engine(getattr(core, rule), core.engine) for rule in BATCHED_RULES
    )
    return (EngineBatch if on_engine else CoreBatch)(core, config, n_games)
