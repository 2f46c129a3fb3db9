"""A :class:`~feral_envs.core.GameCore` over a game's compiled engine.

The PettingZoo env, the bots, training and the tests drive every game through its
``GameCore``; :func:`engine_core` builds it from the game's description and its compiled
engine, whose kernels are the one implementation of the rules. A game is then a :class:`Game`: its
int32 state row and nothing else that matters (a clone is a copy of the row).

For what reads a game as named fields (the text and picture views, the terminal app, tests),
``Game`` also answers the rules state's field names (``game.hands``, ``game.phase``, ...)
from a plain-Python view decoded from the row by the engine's ``decode``, rebuilt only when
the row has changed since the last read.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from feral_envs.core import GameCore
from feral_envs.engine import rng as stream


class Game:
    """One game on the compiled engine: ``row`` is its whole state."""

    __slots__ = ("_view", "_view_of", "config", "decode", "row")

    def __init__(self, decode: Callable[[np.ndarray, Any], Any], config: Any, row: np.ndarray):
        self.decode = decode
        self.config = config
        self.row = row
        self._view = None
        self._view_of = b""

    @property
    def view(self) -> Any:
        """The game as named fields, decoded from the row: read-only arrays (a change of the
        game goes through the row or the rules)."""
        key = self.row.tobytes()
        if self._view is None or key != self._view_of:
            view = self.decode(self.row, self.config)
            for value in vars(view).values():  # writing a field would change nothing: refuse it
                if isinstance(value, np.ndarray):
                    value.flags.writeable = False
            self._view, self._view_of = view, key
        return self._view

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.view, name)

    def copy(self) -> Game:
        """An independent game in the same position, with the same future deals."""
        return Game(self.decode, self.config, self.row.copy())

    __copy__ = copy

    def __deepcopy__(self, memo: dict) -> Game:
        return self.copy()

    def __getstate__(self) -> tuple:
        return self.decode, self.config, self.row

    def __setstate__(self, state: tuple) -> None:
        self.decode, self.config, self.row = state
        self._view = None
        self._view_of = b""


def stream_words(source: Any) -> np.ndarray:
    """The four stream words of a new game: given as an array, or drawn from a numpy
    ``Generator`` (what callers of ``GameCore.new_game`` have always passed)."""
    if isinstance(source, np.random.Generator):
        return stream.words_from(source)
    words = np.asarray(source)
    if words.shape != (stream.N_WORDS,):
        raise ValueError(f"stream words must have shape ({stream.N_WORDS},), got {words.shape}")
    return words.astype(np.int32)


def runs_on_engine(rule: Callable, engine: ModuleType) -> bool:
    """Whether ``rule`` (a ``GameCore`` function) is :func:`engine_core`'s over ``engine``:
    code that runs the engine's batch kernels in its place (``train.game_batch``) must not
    skip a replacement, such as the observation with advice of ``agents.advice``."""
    return getattr(rule, "engine", None) is engine


def engine_core(
    engine: ModuleType,
    decode: Callable[[np.ndarray, Any], Any],
    *,
    render_ansi: Callable[[Any, int | None], str],
    render_rgb: Callable[[Any, int | None], np.ndarray] | None = None,
    **description: Any,
) -> GameCore:
    """The :class:`GameCore` of a game on its compiled ``engine``.

    ``description`` is what is not a rule: the other fields of ``GameCore`` (``name``,
    ``agents``, ``team_names``, ``make_config``, the naming functions, the keyword and reset
    option sets). The sizes, the teams and every rules function come from the engine; a game
    is a :class:`Game`, whose named fields ``decode(row, config)`` gives, and ``render_ansi`` /
    ``render_rgb`` draw those fields (the decoded view)."""
    n_actions, obs_size, obs_shape = engine.N_ACTIONS, engine.OBS_SIZE, tuple(engine.OBS_SHAPE)
    legal, apply_, observe_ = engine.legal_mask, engine.apply, engine.observe
    to_act, status_, score = engine.to_act, engine.status, engine.score

    def new_game(config: Any, rng: Any, options: dict) -> Game:
        row = np.zeros(engine.ROW_SIZE, dtype=np.int32)
        row[: stream.N_WORDS] = stream_words(rng)
        engine.start(row, config, options or {})
        return Game(decode, config, row)

    def legal_mask(game: Game) -> np.ndarray:
        mask = np.zeros(n_actions, dtype=np.int8)
        legal(game.row, mask)
        return mask

    def apply(game: Game, action: int, rng: Any = None) -> None:
        apply_(game.row, action)

    def observe(game: Game, seat: int) -> np.ndarray:
        out = np.empty(obs_size, dtype=np.float32)
        observe_(game.row, seat, out)
        return out.reshape(obs_shape)

    def status(game: Game) -> tuple[bool, bool, int]:
        terminated, truncated, winner = status_(game.row)
        return bool(terminated), bool(truncated), int(winner)

    def scores(game: Game) -> np.ndarray:
        return np.array([score(game.row, 0), score(game.row, 1)], dtype=np.int64)

    def seat_to_act(game: Game) -> int:
        return int(to_act(game.row))

    for rule in (seat_to_act, legal_mask, apply, observe, scores, status):
        rule.engine = engine  # type: ignore[attr-defined]  # see runs_on_engine

    core = GameCore(
        **description,
        team_of_seat=tuple(int(team) for team in engine.TEAM_OF_SEAT),
        n_actions=n_actions,
        obs_shape=obs_shape,
        obs_dtype=np.float32,
        new_game=new_game,
        seat_to_act=seat_to_act,
        legal_mask=legal_mask,
        apply=apply,
        observe=observe,
        scores=scores,
        status=status,
        render_ansi=lambda game, seat: render_ansi(game.view, seat),
        render_rgb=None if render_rgb is None else lambda g, seat: render_rgb(g.view, seat),
        engine=engine,
    )
    if core.n_seats != engine.N_SEATS:
        raise ValueError(f"{core.name}: {core.n_seats} agents, the engine has {engine.N_SEATS}")
    return core
