"""Our games as OpenSpiel games: importing this registers ``python_lost_heir``,
``python_lost_ranks`` and ``python_hidden_ranks`` with ``pyspiel``.

    import pyspiel
    import feral_envs.openspiel
    game = pyspiel.load_game("python_lost_heir", {"single_hand": True})

Installed with the ``openspiel`` extra (``pip install -e ".[openspiel]"``, open_spiel 2.0.2,
Python 3.11 or newer). The games, their chance nodes, tensors and strings are described in
``docs/openspiel.md``.
"""

from __future__ import annotations

try:
    import pyspiel
except ImportError as error:  # pragma: no cover - depends on the install
    raise ImportError(
        "feral_envs.openspiel needs open_spiel: pip install -e '.[openspiel]' "
        "(open_spiel 2.0.2, Python 3.11 or newer)"
    ) from error

from feral_envs.openspiel.base import FeralGame, FeralState, search_module, state_with_row
from feral_envs.openspiel.hidden_ranks import HiddenRanksGame
from feral_envs.openspiel.lost_heir import LostHeirGame
from feral_envs.openspiel.lost_ranks import LostRanksGame

GAMES: dict[str, type[FeralGame]] = {
    "lost_heir": LostHeirGame,
    "lost_ranks": LostRanksGame,
    "hidden_ranks": HiddenRanksGame,
}
"""Our game names -> their OpenSpiel game classes."""

SHORT_NAMES = {name: cls.game_type.short_name for name, cls in GAMES.items()}
"""Our game names -> the names ``pyspiel.load_game`` takes (``python_lost_heir``)."""

for _cls in GAMES.values():
    if _cls.game_type.short_name not in pyspiel.registered_names():
        pyspiel.register_game(_cls.game_type, _cls)

__all__ = ["GAMES", "SHORT_NAMES", "FeralGame", "FeralState", "search_module", "state_with_row"]
