"""``python_hidden_ranks``: Hidden Ranks as an OpenSpiel game (see ``docs/openspiel.md``).

Setups. With ``setup="choose"`` (the default) a setup is the players' own decisions, as in
the env: gold places its whole army, then silver, one placement action per piece in the
documented order (``rules.SETUP_ORDER``), each hidden from the other player; there is no
chance node. With ``setup="random"`` chance places the armies instead, gold's then silver's,
in the same order and with the same numbering as the placement actions (outcome = the ego
home square of the next piece). The env draws a random setup uniformly among the placements
that leave the army a legal move:

* quick game (8 pieces on 40 squares): no placement walls the army in (each movable piece
  would need all its free neighbours taken by the Bomb and the Flag), so each piece goes
  to a free home square uniformly;
* full game (the home rows filled): the army is walled in exactly when the six front squares
  that open onto row 5 (not onto a lake) all hold Bombs or the Flag. Chance gives each free
  square a probability in proportion to the number of complete placements from there that
  are not walled in, which is the uniform distribution over the valid placements, exactly.

The complete setups start the game through ``reset(options={"setup": ...})``'s path (the
engine's ``start``). Parameters: the env keywords (``mode``, ``setup``, ``max_moves``,
``reward``).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from feral_envs.hidden_ranks import CORE, encoding, view
from feral_envs.hidden_ranks.rules import (
    AGENTS,
    BOMB,
    FLAG,
    LAKE_SQUARES,
    N_HOME,
    RANK_NAMES,
    SETUP_ORDER,
    SQUARE_NAMES,
    ego_square,
)
from feral_envs.openspiel.base import FeralGame, FeralState, game_type

FRONT = tuple(ego for ego in range(N_HOME - 10, N_HOME) if ego + 10 not in LAKE_SQUARES)
"""Ego home squares opening onto a square of row 5 that is not a lake (the same in both
players' frames: the lakes are symmetric under the half turn)."""
IMMOVABLE = (BOMB, FLAG)

GAME_TYPE = game_type("python_hidden_ranks", "Feral Envs Hidden Ranks", CORE, {})


def valid_completions(order: tuple[int, ...], squares: list[int]) -> int:
    """Ways to place the rest of a full army (pieces ``order[len(squares):]``, each a
    distinct piece) on the free home squares, the army not walled in, given the first
    pieces on ``squares``."""
    n = len(order) - len(squares)
    rest = order[len(squares) :]
    taken = dict(zip(squares, order, strict=False))
    front_pieces = [taken[s] for s in FRONT if s in taken]
    free_front = len(FRONT) - len(front_pieces)
    immovable_left = sum(rank in IMMOVABLE for rank in rest)
    walled = 0
    if all(rank in IMMOVABLE for rank in front_pieces) and immovable_left >= free_front:
        walled = math.perm(immovable_left, free_front) * math.factorial(n - free_front)
    return math.factorial(n) - walled


class HiddenRanksState(FeralState):
    def start_game(self) -> None:
        if self.spec.config.setup == "choose":
            self.row = self.spec.new_row({})
            self.in_chance = False
            self._observe_all()

    def _segment(self) -> int:
        return 0

    def _army(self) -> tuple[int, ...]:
        return SETUP_ORDER[self.spec.config.mode]

    def chance_complete(self) -> bool:
        return len(self.drawn) == 2 * len(self._army())

    def _placing(self) -> tuple[int, list[int]]:
        """The seat placing now and its squares so far."""
        army = len(self._army())
        seat = len(self.drawn) // army
        return seat, self.drawn[seat * army :]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        _, squares = self._placing()
        free = [ego for ego in range(N_HOME) if ego not in squares]
        if self.spec.config.mode == "quick":
            return [(ego, 1.0 / len(free)) for ego in free]
        order = self._army()
        counts = {ego: valid_completions(order, [*squares, ego]) for ego in free}
        total = sum(counts.values())
        return [(ego, float(Fraction(c, total))) for ego, c in counts.items() if c]

    def chance_string(self, action: int) -> str:
        seat, squares = self._placing()
        rank = self._army()[len(squares)]
        square = SQUARE_NAMES[ego_square(seat, action)]
        return f"{AGENTS[seat]} {RANK_NAMES[rank]} on {square}"

    def _finish_chance(self) -> None:
        order, army = self._army(), len(self._army())
        setup = {
            AGENTS[seat]: {
                SQUARE_NAMES[ego_square(seat, ego)]: RANK_NAMES[rank]
                for ego, rank in zip(
                    self.drawn[seat * army : (seat + 1) * army], order, strict=True
                )
            }
            for seat in range(len(AGENTS))
        }
        self.row = self.spec.new_row({"setup": setup})


class HiddenRanksGame(FeralGame):
    core = CORE
    decode = staticmethod(view.decode)
    obs_layout = encoding.OBS
    game_type = GAME_TYPE
    state_class = HiddenRanksState
    max_chance_outcomes = N_HOME

    def seat_of_observation(self, observation: np.ndarray) -> int:
        """Gold moves first, so in play the observer to move is gold after an even number
        of moves (``move_count`` is moves / ``max_moves``) and silver after an odd one; in
        the setup phase, gold (the two setups are alike but for who places first)."""
        board = np.asarray(observation).reshape(-1, encoding.OBS.size)
        if board[0, encoding.OBS.setup_phase.start] != 0:
            return 0
        moves = round(float(board[0, encoding.OBS.move_count.start]) * self.config.max_moves)
        return moves % 2

    def limits(self) -> tuple[float, float, int]:
        return -1, 1, 2 * len(SETUP_ORDER[self.config.mode]) + self.config.max_moves

    def observation_pieces(self, tensor):
        """One piece, the board ``(10, 10, planes)`` (square ``ego`` at ``[ego // 10,
        ego % 10]``, planes as ``encoding.OBS``): OpenSpiel lays a tensor out piece after
        piece, and per-plane pieces would be strided views of the env's square-major array."""
        return {"board": tensor.reshape(encoding.OBS_SHAPE)}
