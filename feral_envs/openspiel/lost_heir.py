"""``python_lost_heir``: Lost Heir as an OpenSpiel game (see ``docs/openspiel.md``).

Chance: at the start, the first dealer (4 outcomes, uniform), then every hand's deal, one
card at a time: the ``k``-th card dealt goes to seat ``k // 8`` (north first), chosen
uniformly among the cards not yet dealt (outcome = card id), 32 chance nodes a hand. The
complete deal is written into the row's ``deal`` span (each seat's cards in card order, as
``reset(options={"hands": ...})`` writes them) in place of the deal the engine drew from the
row's stream: the engine's ``_start_hand`` does not read the deal, so the row is then
exactly the one the engine starts for that deal.

Parameters: the env keywords (``target_score``, ``take_a_lead``, ``max_hands``, ``reward``)
and ``single_hand`` (default False): the game ends after its first hand, thrown in or
played, with that hand's score changes as returns (module ``base``, ``returns``).
"""

from __future__ import annotations

import numpy as np

from feral_envs.lost_heir import CORE, encoding, engine, view
from feral_envs.lost_heir.encoding import AGENTS, DECK, MAX_BID, MIN_BID, N_SEATS, N_TRICKS
from feral_envs.lost_heir.rules import CARDS_PER_HAND, N_CARDS
from feral_envs.openspiel.base import FeralGame, FeralState, game_type

HAND_POINTS = 24
"""The most a hand's score changes can differ: a failed 12 with the other team's 12 points."""
BIDDING_CALLS = N_SEATS + 2 * (MAX_BID - MIN_BID + 1)
"""At most: one call a seat, then a refusal and a raise for every bid from 4 to 12."""
HAND_LENGTH = N_CARDS + BIDDING_CALLS + N_CARDS + (N_TRICKS - 1)
"""Chance nodes of a deal, calls, cards and ``take a lead`` (never on the first trick)."""

GAME_TYPE = game_type("python_lost_heir", "Feral Envs Lost Heir", CORE, {"single_hand": False})


class LostHeirState(FeralState):
    def _segment(self) -> int:
        return int(self.row[engine.HANDS_PLAYED])

    def _cards(self) -> list[int]:
        return self.drawn[1:] if self.row is None else self.drawn

    def chance_complete(self) -> bool:
        return len(self._cards()) == N_CARDS

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.row is None and not self.drawn:
            return [(seat, 1.0 / N_SEATS) for seat in range(N_SEATS)]
        left = sorted(set(range(N_CARDS)) - set(self._cards()))
        return [(card, 1.0 / len(left)) for card in left]

    def chance_string(self, action: int) -> str:
        if self.row is None and not self.drawn:
            return f"dealer {AGENTS[action]}"
        return f"deal {DECK.names[action]} to {AGENTS[len(self._cards()) // CARDS_PER_HAND]}"

    def _finish_chance(self) -> None:
        cards = self._cards()
        if self.row is None:
            self.row = self.spec.new_row({"dealer": AGENTS[self.drawn[0]]})
        deal = [
            card
            for seat in range(N_SEATS)
            for card in sorted(cards[CARDS_PER_HAND * seat : CARDS_PER_HAND * (seat + 1)])
        ]
        self.row[engine.STATE.deal.slice] = np.array(deal, dtype=np.int32)


class LostHeirGame(FeralGame):
    core = CORE
    decode = staticmethod(view.decode)
    obs_layout = encoding.OBS
    game_type = GAME_TYPE
    state_class = LostHeirState
    segment_parameter = "single_hand"
    max_chance_outcomes = N_CARDS

    def limits(self) -> tuple[float, float, int]:
        hands = 1 if self.single else self.config.max_hands
        bound = 1 if self.reward == "win" else HAND_POINTS * hands
        return -bound, bound, 1 + HAND_LENGTH * hands
