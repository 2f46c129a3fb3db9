"""The interface between a game's rules and everything built on it.

Every game package exposes ``CORE``, a :class:`GameCore`: plain functions over a game. Each
game's ``CORE`` is built by :func:`feral_envs.engine.game.engine_core` over its compiled
engine (``feral_envs/<game>/engine.py``), the one implementation of its rules; a game is then
a :class:`~feral_envs.engine.game.Game`, an int32 state row whose fields read by name. The
PettingZoo wrapper (:mod:`feral_envs.table_env`), the bots and the batched training env
(``train/``) all drive games through it, so that no rule is written twice and many games can
be stepped at once without PettingZoo in the loop. (The tests' toy games are ``GameCore`` s of
plain Python functions.)

Conventions:

* seats are ``0 .. n_seats-1``, in the order of ``possible_agents``; teams are 0 and 1
  (``team_of_seat``); in Hidden Ranks each seat is its own team;
* ``legal_mask(state)`` is an int8 array of ``n_actions`` for the seat to act, never all zero
  while the game runs; ``apply`` mutates the state in place and assumes a legal action;
* ``status(state)`` is ``(terminated, truncated, winner)`` with ``winner`` a team or ``DRAW``;
* ``scores(state)`` is the game score of each team, shape (2,) (zeros for Hidden Ranks);
* all randomness comes from the game's own stream, in its state row: ``new_game`` takes the
  stream's four words, or a ``np.random.Generator`` to draw them from; ``apply`` ignores its
  ``rng`` argument (kept for callers), since later deals draw from the row.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

DRAW = -1
"""Winner of a drawn game, and of a game not (yet) won."""


@dataclass(frozen=True)
class GameCore:
    """The functions and sizes of one game's rules (see the module docstring)."""

    name: str
    """Game name, as ``feral_envs.make`` takes it (``"lost_heir"``)."""
    agents: tuple[str, ...]
    """PettingZoo agent names in seat order."""
    team_of_seat: tuple[int, ...]
    team_names: tuple[str, str]
    n_actions: int
    obs_shape: tuple[int, ...]
    obs_dtype: type
    make_config: Callable[..., Any]
    """``make_config(**keywords)``: the validated, frozen keyword set (``ValueError`` if bad)."""
    new_game: Callable[[Any, np.random.Generator, dict], Any]
    """``new_game(config, rng, options)``: a fresh state; ``options`` are ``reset`` options,
    validated here (``ValueError`` naming the problem)."""
    seat_to_act: Callable[[Any], int]
    legal_mask: Callable[[Any], np.ndarray]
    apply: Callable[[Any, int, np.random.Generator], None]
    observe: Callable[[Any, int], np.ndarray]
    scores: Callable[[Any], np.ndarray]
    status: Callable[[Any], tuple[bool, bool, int]]
    action_to_string: Callable[[Any, int], str]
    """Name of an action for the seat to act in ``state`` (names can depend on the phase)."""
    string_to_action: Callable[[Any, str], int | None]
    """Action named by the text for the seat to act, or None if the text names no action."""
    render_ansi: Callable[[Any, int | None], str]
    """The table as text, as seen by a seat (None: the referee's view, everything shown)."""
    reset_options: tuple[str, ...]
    """The keys ``new_game`` accepts in ``options``."""
    keyword_choices: dict[str, tuple]
    """Every keyword with a fixed set of values (``variant``, ``take_a_lead``, ``reward``, …)
    and those values, default first: what ``make_config`` accepts and what the API tests run
    in every combination. The single source for both."""
    keyword_defaults: dict[str, Any]
    """Every keyword of ``raw_env`` besides ``render_mode``, with its default."""
    render_rgb: Callable[[Any, int | None], np.ndarray] | None = None
    """The table as an ``(H, W, 3)`` uint8 picture, seen by a seat (None: the referee's
    view), for ``render_mode="rgb_array"``; None for a game without pictures."""
    engine: Any = None
    """The game's compiled engine module (``feral_envs.<game>.engine``) whose kernels these
    functions call (:func:`feral_envs.engine.game.engine_core`); None for a core of plain
    Python functions (the tests' toy games)."""
    search: str | None = None
    """Dotted name of the game's search module (``"feral_envs.lost_heir.search"``), imported
    on first use by ``clone``'s siblings ``sample_world`` and ``solve``; None for a game
    without one. The module offers ``sample_world(row, config, seat, rng) -> row`` and, for
    the card games, ``solve(row, config) -> {action: value}`` (``shared/API.md``, "Search")."""

    @property
    def n_seats(self) -> int:
        return len(self.agents)


def check_keywords(core: GameCore, keywords: dict, extra: tuple[str, ...] = ()) -> None:
    """``ValueError`` naming any keyword ``core``'s game does not take, and the ones it takes
    (besides ``extra``, such as ``render_mode``)."""
    allowed = (*core.keyword_defaults, *extra)
    unknown = [k for k in keywords if k not in allowed]
    if unknown:
        raise ValueError(
            f"unknown keyword(s) {', '.join(map(repr, unknown))} for {core.name}; "
            f"allowed: {', '.join(allowed)}"
        )
