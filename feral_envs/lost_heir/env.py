"""The Lost Heir PettingZoo AEC env: :class:`~feral_envs.table_env.TableEnv` over ``CORE``."""

from __future__ import annotations

from typing import Any, ClassVar

from feral_envs.lost_heir import CORE
from feral_envs.table_env import TableEnv, wrap


class raw_env(TableEnv):
    """Lost Heir without wrappers; see :mod:`feral_envs.lost_heir_v0` for the full docs."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "lost_heir_v0",
        "render_modes": ["ansi", "human", "rgb_array"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        render_mode: str | None = None,
        reward: str = "win",
        target_score: int = 40,
        take_a_lead: str = "after_first_trick",
        max_hands: int = 100,
        **unknown: Any,
    ) -> None:
        super().__init__(
            CORE,
            render_mode,
            reward,
            target_score=target_score,
            take_a_lead=take_a_lead,
            max_hands=max_hands,
            **unknown,
        )


def env(**kwargs: Any) -> Any:
    """``raw_env(**kwargs)`` inside PettingZoo's order enforcement (see ``shared/API.md``)."""
    return wrap(raw_env(**kwargs))
