"""The PettingZoo AEC env of Hidden Ranks: :class:`~feral_envs.table_env.TableEnv` over
``CORE`` with the game's keywords (no rules here)."""

from __future__ import annotations

from typing import Any, ClassVar

from feral_envs.table_env import TableEnv, wrap

from . import CORE


class raw_env(TableEnv):
    """Hidden Ranks for two agents, ``gold`` and ``silver``. See ``feral_envs.hidden_ranks_v0``.

    Args:
        mode: ``"full"`` (40 pieces each) or ``"quick"`` (8 each: 10, 9, 3, 2, 2, S, B, F).
        setup: ``"choose"`` (a setup phase: each player places its army piece by piece) or
            ``"random"`` (random setups drawn at ``reset``).
        max_moves: turn limit in single moves of the play phase; reaching it is a draw
            (a termination: the limit is a rule of the game).
        render_mode: ``None``, ``"ansi"``, ``"human"`` or ``"rgb_array"``.
        reward: ``"win"`` only: +1 win, -1 loss, 0 draw, at the end.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "name": "hidden_ranks_v0",
        "render_modes": ["ansi", "human", "rgb_array"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        mode: str = "full",
        setup: str = "choose",
        max_moves: int = 2000,
        render_mode: str | None = None,
        reward: str = "win",
        **unknown: Any,
    ) -> None:
        super().__init__(
            CORE, render_mode, reward, mode=mode, setup=setup, max_moves=max_moves, **unknown
        )


def env(**kwargs: Any) -> Any:
    """``raw_env(**kwargs)`` inside PettingZoo's order enforcement (see ``shared/API.md``)."""
    return wrap(raw_env(**kwargs))
