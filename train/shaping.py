"""Material: a shaping term of the training reward for a game of pieces (``--material-scale``).

The game's own reward in Hidden Ranks comes only at its end (won, lost, drawn), so a learner
meets the consequence of throwing away its Marshal many moves later. With
``--material-scale S`` each learner step also earns ``S`` times the change of its side's
*material lead* over that step (the same bookkeeping as ``--points-scale`` for the card
games' score, :mod:`train.vec_env`):

    material lead = value of the enemy pieces struck off the board
                    - value of my pieces struck off the board

It is zero until the first strike (so the setup phase earns nothing) and changes only in
strikes. Being a difference of a function of the position, it adds up over a game to the
final material lead and cannot outweigh ``win_reward`` unless ``S`` times an army's value
does. The values are a guide for the learner, not a rule: :data:`PIECE_VALUE`.

A game without pieces (the card games) has no material; ``material_of`` says so.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

PIECE_VALUE = {
    "S": 3.0,
    "2": 1.0,
    "3": 2.0,
    "4": 2.0,
    "5": 2.5,
    "6": 3.0,
    "7": 4.0,
    "8": 5.0,
    "9": 7.0,
    "10": 9.0,
    "B": 1.0,
    "F": 0.0,
}
"""Value of a Hidden Ranks piece by rank name: roughly what it can take and what takes it
(the Spy is worth a third of the Marshal it can strike; the Flag ends the game instead)."""


def _hidden_ranks_material() -> Callable[[Any], np.ndarray]:
    from feral_envs.hidden_ranks.rules import RANK_NAMES

    values = np.array([PIECE_VALUE[name] for name in RANK_NAMES[1:]])  # rank codes 1..12

    def material(state: Any) -> np.ndarray:
        """(2,) per seat: the value of the enemy pieces it has struck off the board."""
        lost = state.removed @ values  # per seat: the value of its own pieces removed
        return lost[::-1].copy()

    return material


MATERIAL = {"hidden_ranks": _hidden_ranks_material}
"""Games with material: name -> factory of ``material(state) -> (2,) per team``."""


def material_of(game: str) -> Callable[[Any], np.ndarray]:
    """The material function of ``game``; ``ValueError`` naming the games that have one."""
    if game not in MATERIAL:
        raise ValueError(
            f"--material-scale needs a game of pieces ({', '.join(MATERIAL)}); {game} has none"
        )
    return MATERIAL[game]()
