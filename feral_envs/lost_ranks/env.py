"""The PettingZoo AEC env of Lost Ranks: :class:`~feral_envs.table_env.TableEnv` over ``CORE``."""

from __future__ import annotations

from typing import Any, ClassVar

from feral_envs.lost_ranks import CORE
from feral_envs.table_env import TableEnv, wrap


class raw_env(TableEnv):
    """Lost Ranks without wrappers; see ``feral_envs.lost_ranks_v0`` for the documentation."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "lost_ranks_v0",
        "render_modes": ["ansi", "human", "rgb_array"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        render_mode: str | None = None,
        reward: str = "win",
        variant: str = "standard",
        **unknown: Any,
    ) -> None:
        super().__init__(CORE, render_mode, reward, variant=variant, **unknown)


def env(**kwargs: Any) -> Any:
    """``raw_env(**kwargs)`` inside PettingZoo's order enforcement (see ``shared/API.md``)."""
    return wrap(raw_env(**kwargs))
