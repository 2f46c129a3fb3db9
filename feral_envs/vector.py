"""Batched games on the compiled engine: many games stepped in one kernel call.

>>> import feral_envs.vector
>>> venv = feral_envs.vector.make("lost_heir", num_envs=4096, seed=0)
>>> batch = venv.reset()
>>> batch = venv.step(venv.random_actions())
>>> batch.observation.shape, batch.action_mask.shape, batch.current_seat.shape
((4096, 743), (4096, 47), (4096,))

Each game of the batch is one state row of the game's compiled engine
(``feral_envs/<game>/engine.py``); a step is one kernel call over all rows (numba ``prange``,
on ``numba.get_num_threads()`` threads). A game's course depends only on its seed and its
actions: slot ``i`` of ``make(..., seed=s)`` plays, as its first game, the same game as the
AEC env after ``reset(seed=s + i)``, whatever ``num_envs``, the other games or the threads.

The batch (:class:`Batch`) has one entry per game in each of its fields (``BATCH_FIELDS``,
tabled in ``docs/vector.md``).

**Automatic restarts (Gymnasium's next-step autoreset).** The step that ends a game returns
that game's final rewards, ``terminated`` or ``truncated``, and its final observation (of
``current_seat``, the seat the rules leave to act, such as the last trick's winner; its mask
is all zeros). The next ``step`` restarts
that game instead of playing: its action is ignored (any value is accepted, ``random_actions``
gives 0), its rewards are 0, and the batch shows the new game's first decision. The new game
draws from the same game's random stream, so it too depends only on the seed. Use
:meth:`VectorEnv.observe` to read the final observation from any seat's view before stepping,
and :meth:`VectorEnv.scores` the final team scores (the AEC env's ``scores``).

Arrays returned are new on every call (keep them freely). Bad input raises ``ValueError``
naming the game index, the action and the legal ones, and changes no game.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType, SimpleNamespace
from typing import Any

import numpy as np

from feral_envs import GAMES, env_module
from feral_envs.core import check_keywords
from feral_envs.engine import rng as stream

OBS_DTYPES = ("float32", "int8")
"""Observation dtypes: float32 as the AEC env gives them, or int8 where the game's engine
offers it (``COMPACT_DTYPES``): every entry an integer that fits, the few entries that float32
holds as fractions recoded as integers (``COMPACT_RECODED``; see ``docs/vector.md``)."""


BATCH_FIELDS = (
    ("observation", "`(n, *obs_shape)`, float32", "the observation of each game's seat to act"),
    ("action_mask", "`(n, n_actions)`, int8", "that seat's legal actions"),
    ("current_seat", "`(n,)`, int64", "the seat to act, in `possible_agents` order"),
    (
        "rewards",
        "`(n, n_seats)`, float32",
        "what each seat receives for this step, as the AEC env's `rewards`",
    ),
    ("terminated", "`(n,)`, bool", "the game ended by its rules at this step"),
    ("truncated", "`(n,)`, bool", "the game hit a safety cap the rules do not have at this step"),
)
"""The fields of a :class:`Batch`: name, shape and dtype, meaning."""


def batch_table() -> str:
    """``BATCH_FIELDS`` as the Markdown table of ``docs/vector.md``."""
    rows = ["| field | shape, dtype | meaning |", "| --- | --- | --- |"]
    rows += [f"| `{name}` | {shape} | {meaning} |" for name, shape, meaning in BATCH_FIELDS]
    return "\n".join(rows)


@dataclass(frozen=True)
class Batch:
    """One decision of every game of the batch (see the module docstring)."""

    observation: np.ndarray
    action_mask: np.ndarray
    current_seat: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray


def _game_name(name: Any) -> str:
    env_module(name)  # ValueError listing the games if unknown
    return name[:-3] if name.endswith("_v0") else name


def engine_module(name: str) -> ModuleType:
    """The compiled engine module of a game (``feral_envs.<game>.engine``)."""
    return importlib.import_module(f"feral_envs.{_game_name(name)}.engine")


class VectorEnv:
    """``num_envs`` games of one game, stepped together (see the module docstring)."""

    def __init__(
        self,
        name: str,
        num_envs: int,
        seed: int | None = None,
        obs_dtype: str = "float32",
        **keywords: Any,
    ) -> None:
        game = _game_name(name)
        core = importlib.import_module(f"feral_envs.{game}").CORE
        check_keywords(core, keywords)
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)):
            raise ValueError(f"num_envs={num_envs!r} must be an integer >= 1")
        if num_envs < 1:
            raise ValueError(f"num_envs={num_envs!r} must be an integer >= 1")
        if seed is not None and (
            isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0
        ):
            raise ValueError(f"seed={seed!r} must be None or an integer >= 0")
        engine = engine_module(game)
        compact = getattr(engine, "COMPACT_DTYPES", ())
        allowed = ("float32", *compact)
        if obs_dtype not in allowed:
            raise ValueError(
                f"obs_dtype={obs_dtype!r} is not allowed for {game}; choose one of: "
                + ", ".join(map(repr, allowed))
            )
        reward = keywords.pop("reward", core.keyword_defaults["reward"])
        if reward not in core.keyword_choices["reward"]:
            raise ValueError(
                f"reward={reward!r} is not allowed; choose one of: "
                + ", ".join(map(repr, core.keyword_choices["reward"]))
            )
        self.game = game
        self.core = core
        self.engine = engine
        self.config = core.make_config(**keywords)
        self.num_envs = int(num_envs)
        self.possible_agents = list(core.agents)
        self.n_seats = engine.N_SEATS
        self.n_actions = engine.N_ACTIONS
        self.obs_shape = tuple(engine.OBS_SHAPE)
        self.obs_dtype = np.dtype(obs_dtype)
        self.reward_mode = reward
        self._points = reward == "points"
        self._next_seed = None if seed is None else int(seed)
        self._entropy = np.random.default_rng(seed)
        self.rows = np.zeros((self.num_envs, engine.ROW_SIZE), dtype=np.int32)
        """The games' state rows (one per game; see the engine's ``STATE`` layout)."""
        self.action_rows = self._action_streams()
        """The random streams of :meth:`random_actions`, one per game, apart from the games'."""
        layout = getattr(engine, "LEGAL", None)
        self._legal = () if layout is None else (np.zeros((self.num_envs, layout.size), np.int32),)
        """The engine's legal-action caches (``LEGAL``, one per game; none where the engine
        keeps none), the last argument of the step, reset and random kernels: filled as a
        step writes the masks, they spare :meth:`random_actions` the move generator. A cache
        holds only while its game's row is the row it was filled from, so nothing else needs
        to keep it."""

    # ------------------------------------------------------------------ starting games

    def _action_streams(self) -> np.ndarray:
        words = self._entropy.integers(0, 2**32, size=(self.num_envs, stream.N_WORDS))
        words[:, 0] |= 1  # never the all-zero state
        return words.astype(np.uint32).view(np.int32)

    def _seed_words(self, seed: Any) -> np.ndarray:
        if seed is None:
            seed = self._next_seed
        self._next_seed = None  # make's seed serves the first reset only
        if seed is None:
            return np.stack([stream.words_from(self._entropy) for _ in range(self.num_envs)])
        if isinstance(seed, (int, np.integer)):
            seeds = [int(seed) + i for i in range(self.num_envs)]
        else:
            seeds = [int(s) for s in seed]
        return np.stack([stream.seed_words(s) for s in seeds])

    def reset(self, seed: Any = None, options: dict | list | None = None) -> Batch:
        """Start a new game in every slot: slot ``i`` from ``seed + i`` (the first reset uses
        ``make``'s seed), or from ``seed[i]`` when ``seed`` is a sequence of ``num_envs``
        seeds. ``options`` are the AEC env's reset options, one dict for every game or a list
        of ``num_envs`` dicts (or None); they are all validated before any game changes."""
        _check_seed(seed, self.num_envs)
        per_game = self._options_list(options)
        words = self._seed_words(seed)
        rows = np.empty_like(self.rows)
        engine = self.engine
        if all(o is None for o in per_game):
            template = np.zeros(engine.ROW_SIZE, dtype=np.int32)
            template[: stream.N_WORDS] = words[0]
            engine.start(template, self.config, {})
            rows[:] = template
            rows[:, : stream.N_WORDS] = words
            out = self._outputs()
            engine.reset_batch(
                rows, out.observation_flat, out.action_mask, out.current_seat, *self._legal
            )
            self.rows = rows
            return out.batch(self)
        for i, options_i in enumerate(per_game):
            rows[i, : stream.N_WORDS] = words[i]
            try:
                engine.start(rows[i], self.config, options_i or {})
            except ValueError as err:
                raise ValueError(f"game {i}: {err}") from None
        self.rows = rows
        return self._current()

    def reset_game(self, index: int, seed: int | None = None, options: dict | None = None) -> Batch:
        """Start a new game in slot ``index`` alone (the AEC env's ``reset(seed, options)``);
        the other games go on. Returns the whole batch as it now stands, rewards 0."""
        i = self._index(index)
        row = self.rows[i].copy()
        row[: stream.N_WORDS] = (
            stream.words_from(self._entropy) if seed is None else stream.seed_words(int(seed))
        )
        self.engine.start(row, self.config, options or {})
        self.rows[i] = row
        return self._current()

    def _options_list(self, options: dict | list | None) -> list:
        if options is None or isinstance(options, dict):
            return [options] * self.num_envs
        if isinstance(options, (list, tuple)) and len(options) == self.num_envs:
            for i, o in enumerate(options):
                if o is not None and not isinstance(o, dict):
                    raise ValueError(f"options[{i}] must be a dict or None, got {o!r}")
            return list(options)
        raise ValueError(
            f"options must be a dict, None, or a list of {self.num_envs} dicts or None"
        )

    def _index(self, index: Any) -> int:
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)):
            raise ValueError(f"game index {index!r} must be an integer")
        if not 0 <= index < self.num_envs:
            raise ValueError(f"game index {index} is out of range 0..{self.num_envs - 1}")
        return int(index)

    # ------------------------------------------------------------------ stepping

    def step(self, actions: Any) -> Batch:
        """Play one action in every game (ignored in a game that ended at the last step: it
        restarts). ``actions`` is an integer array of shape ``(num_envs,)``."""
        actions = self._check_actions(actions)
        out = self._outputs()
        self.engine.step_batch(
            self.rows,
            actions,
            self._points,
            out.observation_flat,
            out.action_mask,
            out.current_seat,
            out.rewards,
            out.terminated,
            out.truncated,
            *self._legal,
        )
        return out.batch(self)

    def random_actions(self) -> np.ndarray:
        """A uniform legal action in every game (0 in a game that is over), drawn inside the
        kernel from streams apart from the games' own (random actions never change deals)."""
        out = np.empty(self.num_envs, dtype=np.int64)
        self.engine.random_batch(self.rows, self.action_rows, out, *self._legal)
        return out

    def _check_actions(self, actions: Any) -> np.ndarray:
        array = np.asarray(actions)
        if array.shape != (self.num_envs,):
            raise ValueError(
                f"actions must have shape ({self.num_envs},), one per game; got {array.shape}"
            )
        if array.dtype.kind not in "iu":
            raise ValueError(f"actions must be integers; got dtype {array.dtype}")
        array = array.astype(np.int64, copy=False)
        bad = self.engine.first_illegal(self.rows, array)
        if bad >= 0:
            action = int(array[bad])
            raise ValueError(
                f"game {bad}: illegal action {self._describe(bad, action)} for "
                f"{self.possible_agents[self.engine.to_act(self.rows[bad])]}; legal: "
                + ", ".join(self._describe(bad, a) for a in self.legal_actions(bad))
            )
        return array

    # ------------------------------------------------------------------ reading games

    def legal_actions(self, index: int) -> list[int]:
        """The legal actions of game ``index``'s seat to act, in increasing order."""
        mask = np.zeros(self.n_actions, dtype=np.int8)
        self.engine.legal_mask(self.rows[self._index(index)], mask)
        return np.flatnonzero(mask).tolist()

    def action_name(self, index: int, action: int) -> str:
        """The name of ``action`` for game ``index``'s seat to act (as the AEC env names it)."""
        seat = self.engine.to_act(self.rows[self._index(index)])
        return self.core.action_to_string(SimpleNamespace(to_move=seat, to_act=seat), action)

    def _describe(self, index: int, action: int) -> str:
        if 0 <= action < self.n_actions:
            return f"{action} ({self.action_name(index, action)})"
        return f"{action} (out of range 0..{self.n_actions - 1})"

    def observe(self, seat: int | np.ndarray) -> np.ndarray:
        """Every game's observation from the view of ``seat`` (one seat for all games, or one
        per game): for instance the final observation of a finished game for each seat."""
        seats = np.broadcast_to(np.asarray(seat, dtype=np.int64), (self.num_envs,))
        if seats.min() < 0 or seats.max() >= self.n_seats:
            raise ValueError(f"seat must be in 0..{self.n_seats - 1}")
        obs = np.empty((self.num_envs, int(np.prod(self.obs_shape))), dtype=self.obs_dtype)
        self.engine.observe_batch(self.rows, np.ascontiguousarray(seats), obs)
        return obs.reshape(self.num_envs, *self.obs_shape)

    def scores(self) -> np.ndarray:
        """Every game's team scores, ``(num_envs, 2)`` int64 in team order, as the AEC env's
        ``scores`` gives them (zeros in a game that keeps no score); a finished game's until
        it restarts."""
        out = np.empty((self.num_envs, 2), dtype=np.int64)
        self.engine.scores_batch(self.rows, out)
        return out

    def status(self) -> tuple[np.ndarray, np.ndarray]:
        """``(terminated, truncated)`` of every game as it stands."""
        _, terminated, truncated, _ = self._status()
        return terminated, truncated

    def _status(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Every game's seat to act, terminated, truncated and winner: one kernel call."""
        n = self.num_envs
        seats, winners = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
        terminated, truncated = np.empty(n, dtype=bool), np.empty(n, dtype=bool)
        self.engine.status_batch(self.rows, seats, terminated, truncated, winners)
        return seats, terminated, truncated, winners

    def _current(self) -> Batch:
        """The batch as the games stand, rewards 0 (after a reset)."""
        out = self._outputs()
        out.current_seat[:], out.terminated[:], out.truncated[:], _ = self._status()
        self.engine.observe_batch(self.rows, out.current_seat, out.observation_flat)
        self.engine.masks_batch(self.rows, out.action_mask)
        return out.batch(self)

    def _outputs(self) -> _Outputs:
        return _Outputs(self.num_envs, int(np.prod(self.obs_shape)), self)

    # ------------------------------------------------------------------ copies

    def get_state(self) -> dict[str, np.ndarray]:
        """Everything that decides the batch's future: the game rows and the action streams
        (copies; ``set_state`` restores them)."""
        return {"rows": self.rows.copy(), "action_rows": self.action_rows.copy()}

    def set_state(self, state: dict[str, np.ndarray]) -> None:
        """Restore a ``get_state`` of a batch of the same game, size and keywords."""
        rows = np.asarray(state["rows"])
        action_rows = np.asarray(state["action_rows"])
        if rows.shape != self.rows.shape or rows.dtype != np.int32:
            raise ValueError(
                f"rows must be int32 of shape {self.rows.shape}, got {rows.dtype} {rows.shape}"
            )
        if action_rows.shape != self.action_rows.shape or action_rows.dtype != np.int32:
            raise ValueError(
                f"action_rows must be int32 of shape {self.action_rows.shape}, "
                f"got {action_rows.dtype} {action_rows.shape}"
            )
        self.rows = rows.copy()
        self.action_rows = action_rows.copy()

    def clone(self) -> VectorEnv:
        """An independent batch in exactly the same position, with the same futures."""
        other = object.__new__(VectorEnv)
        other.__dict__.update(self.__dict__)
        other.rows = self.rows.copy()
        other.action_rows = self.action_rows.copy()
        other._legal = tuple(cache.copy() for cache in self._legal)
        other._entropy = np.random.default_rng()
        other._entropy.bit_generator.state = self._entropy.bit_generator.state
        return other


def _check_seed(seed: Any, num_envs: int) -> None:
    """``ValueError`` unless ``seed`` is None, an integer >= 0, or ``num_envs`` of them."""
    if seed is None:
        return
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        if seed < 0:
            raise ValueError(f"seed={seed!r} must be None or an integer >= 0")
        return
    seeds = list(seed) if isinstance(seed, (list, tuple, np.ndarray)) else None
    if (
        seeds is None
        or len(seeds) != num_envs
        or any(isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 0 for s in seeds)
    ):
        raise ValueError(
            f"seed={seed!r} must be None, an integer >= 0, or {num_envs} such integers"
        )


class _Outputs:
    """The preallocated output arrays of one call."""

    def __init__(self, n: int, obs_size: int, venv: VectorEnv) -> None:
        self.observation_flat = np.empty((n, obs_size), dtype=venv.obs_dtype)
        self.action_mask = np.empty((n, venv.n_actions), dtype=np.int8)
        self.current_seat = np.empty(n, dtype=np.int64)
        self.rewards = np.zeros((n, venv.n_seats), dtype=np.float32)
        self.terminated = np.zeros(n, dtype=bool)  # a new game is never over: reset
        self.truncated = np.zeros(n, dtype=bool)  # kernels leave these as they are

    def batch(self, venv: VectorEnv) -> Batch:
        return Batch(
            observation=self.observation_flat.reshape(venv.num_envs, *venv.obs_shape),
            action_mask=self.action_mask,
            current_seat=self.current_seat,
            rewards=self.rewards,
            terminated=self.terminated,
            truncated=self.truncated,
        )


def make(
    name: str, num_envs: int, seed: int | None = None, obs_dtype: str = "float32", **keywords: Any
) -> VectorEnv:
    """``num_envs`` games of ``name`` (the names and keywords of ``feral_envs.make``, with
    ``reward``), plus ``obs_dtype`` (``"float32"`` or a compact integer dtype the game
    allows). ``ValueError`` for an unknown game, keyword or value."""
    return VectorEnv(name, num_envs, seed=seed, obs_dtype=obs_dtype, **keywords)


__all__ = ["GAMES", "OBS_DTYPES", "Batch", "VectorEnv", "make"]
