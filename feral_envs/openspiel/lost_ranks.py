"""``python_lost_ranks``: Lost Ranks as an OpenSpiel game (see ``docs/openspiel.md``).

Chance, every round: the Trump Card (one of the 48 Infantry cards, uniform: flipping the top
card of a shuffled deck until it is not a Jack or the Spy, as the rules do, gives each
Infantry card the same chance), then the other 52 cards one at a time: the ``k``-th card
dealt goes to seat ``k // 13`` (``red_0`` first), uniformly among the cards left (outcome =
card id), 53 chance nodes a round. The complete deal is written into the row's ``deal`` span
(the Trump Card, then each seat's cards in card order), its ``trump_card`` field and, by the
engine's ``_deal_from_deck``, who holds each card, in place of the deal the engine drew from
the row's stream: the engine starts a round's pass without reading the deal, so the row is
then exactly the one the engine starts for that deal.

Parameters: the env keywords (``variant``, ``reward``) and ``single_round`` (default
False): the game ends after its first round, with that round's points as returns (module
``base``, ``returns``). The pass is sequential here as in the env (each seat's three
choices in turn, hidden from the others until the exchange).
"""

from __future__ import annotations

import numpy as np

from feral_envs.lost_ranks import CORE, encoding, engine, view
from feral_envs.lost_ranks.rules import (
    AGENTS,
    DECK,
    HAND_SIZE,
    MAX_ROUND,
    N_CARDS,
    N_SEATS,
    SUIT_COLOUR,
)
from feral_envs.openspiel.base import FeralGame, FeralState, game_type

ROUND_POINTS = 6
"""The most one army can score in a round (two rescued Active Jacks and the Spy); the other
then scores nothing, so a round's points differ by at most this."""
ROUND_LENGTH = 1 + (N_CARDS - 1) + N_SEATS * engine.PASS_SIZE + (N_CARDS - 1)
"""Chance nodes (the Trump Card, the deal), pass choices and cards played, in a round."""
INFANTRY = tuple(
    card for card in range(N_CARDS) if card != engine.SPY and engine.JACK_INDEX[card] < 0
)
"""The cards that can be the Trump Card."""

GAME_TYPE = game_type("python_lost_ranks", "Feral Envs Lost Ranks", CORE, {"single_round": False})


class LostRanksState(FeralState):
    def _segment(self) -> int:
        over = self.row[engine.STATE.phase.start] == engine.GAME_OVER
        return int(self.row[engine.STATE.epoch.start]) - (0 if over else 1)

    def chance_complete(self) -> bool:
        return len(self.drawn) == N_CARDS

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if not self.drawn:
            return [(card, 1.0 / len(INFANTRY)) for card in INFANTRY]
        left = sorted(set(range(N_CARDS)) - set(self.drawn))
        return [(card, 1.0 / len(left)) for card in left]

    def chance_string(self, action: int) -> str:
        if not self.drawn:
            return f"Trump Card {DECK.names[action]}"
        return f"deal {DECK.names[action]} to {AGENTS[(len(self.drawn) - 1) // HAND_SIZE]}"

    def _finish_chance(self) -> None:
        if self.row is None:
            self.row = self.spec.new_row({})
        trump, cards = self.drawn[0], self.drawn[1:]
        deal = [trump] + [
            card
            for seat in range(N_SEATS)
            for card in sorted(cards[HAND_SIZE * seat : HAND_SIZE * (seat + 1)])
        ]
        self.row[engine.STATE.deal.slice] = np.array(deal, dtype=np.int32)
        self.row[engine.STATE.trump_card.start] = trump
        engine._deal_from_deck(self.row)


class LostRanksGame(FeralGame):
    core = CORE
    decode = staticmethod(view.decode)
    obs_layout = encoding.OBS
    game_type = GAME_TYPE
    state_class = LostRanksState
    segment_parameter = "single_round"
    segment_name = "round"
    max_chance_outcomes = N_CARDS

    def seat_of_observation(self, observation: np.ndarray) -> int:
        """A seat of the observer's army (``red_0`` or ``black_0``): the Trump Card's colour
        and whether it is the observer's army's (``trump_army``) say which army that is.
        Which of the army's two seats does not change the play (``search``'s docstring)."""
        trump = int(np.argmax(observation[encoding.OBS.trump_card.slice]))
        colour = SUIT_COLOUR[DECK.suit_of[trump]]
        mine = observation[encoding.OBS.trump_army.start] != 0
        return colour if mine else 1 - colour

    def limits(self) -> tuple[float, float, int]:
        rounds = 1 if self.single else MAX_ROUND
        bound = 1 if self.reward == "win" else ROUND_POINTS * rounds
        return -bound, bound, ROUND_LENGTH * rounds
