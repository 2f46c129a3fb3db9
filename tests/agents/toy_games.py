"""Two tiny games for testing the arena machinery without the real games (tests only).

``toy_cards``: four seats in two teams (0+2 against 1+3), a 12-card deck, 3 cards each per
hand, 3 tricks a hand; every seat plays a card of its hand in turn, the highest card (or the
lowest, ``variant="low"``) takes the trick for its team, the hand's trick majority scores its
tricks. First to ``target_score`` wins (termination); ``max_hands`` hands without a winner is
a truncation. The dealer (who also leads) rotates; every hand is dealt from the env's rng.

``toy_duel``: two seats, a running total starting at 0-3 (from the seed); each move adds 1, 2
or 3 without passing 10; whoever reaches 10 wins. After ``max_moves`` moves the game ends in
a draw (a termination, as in Hidden Ranks).

``register(monkeypatch)`` makes both reachable through ``feral_envs.make``. Also here:
``landed_games()`` (the real games present in this checkout) and ``SMALL`` (keywords that
keep each real game short for the default suite).
"""

from __future__ import annotations

import sys
import types
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

import feral_envs
from agents.base import BasePolicy
from feral_envs.core import DRAW, GameCore
from feral_envs.table_env import TableEnv, check_choice, check_int, wrap

# ---------------------------------------------------------------------------- toy_cards
N_CARDS, HAND = 12, 3


@dataclass(frozen=True)
class CardsConfig:
    variant: str = "high"
    target_score: int = 5
    max_hands: int = 10


def cards_config(variant="high", target_score=5, max_hands=10):
    return CardsConfig(
        check_choice("variant", variant, ("high", "low")),
        check_int("target_score", target_score, 1),
        check_int("max_hands", max_hands, 1),
    )


@dataclass
class CardsState:
    config: CardsConfig
    hands: np.ndarray  # (4, 12) int8: 1 where the seat holds the card
    trick: np.ndarray  # (4,) int64: card played to the trick by seat, -1 none
    deals: list  # the (4, 3) card arrays dealt, one per hand (test bookkeeping)
    scores: np.ndarray  # (2,) int64
    tricks_won: np.ndarray  # (2,) int64 in this hand
    dealer: int = 0
    to_act: int = 0
    leader: int = 0
    hand_number: int = 0
    winner: int = DRAW
    over: bool = False


def _deal(state, rng):
    order = rng.permutation(N_CARDS)
    state.hands[:] = 0
    dealt = order.reshape(4, HAND)
    for seat in range(4):
        state.hands[seat, dealt[seat]] = 1
    state.deals.append(np.sort(dealt, axis=1))
    state.hand_number += 1
    state.tricks_won[:] = 0
    state.trick[:] = -1
    state.leader = state.to_act = (state.dealer + 1) % 4


def cards_new_game(config, rng, options):
    state = CardsState(
        config,
        np.zeros((4, N_CARDS), np.int8),
        np.full(4, -1),
        [],
        np.zeros(2, np.int64),
        np.zeros(2, np.int64),
    )
    state.dealer = int(rng.integers(4))
    _deal(state, rng)
    return state


def cards_apply(state, action, rng):
    seat = state.to_act
    state.hands[seat, action] = 0
    state.trick[seat] = action
    state.to_act = (seat + 1) % 4
    if state.to_act != state.leader:
        return
    best = state.trick.argmax() if state.config.variant == "high" else state.trick.argmin()
    state.tricks_won[best % 2] += 1
    state.trick[:] = -1
    state.leader = state.to_act = int(best)
    if state.hands.any():
        return
    team = int(state.tricks_won.argmax())
    state.scores[team] += state.tricks_won[team]
    if state.scores[team] >= state.config.target_score:
        state.winner, state.over = team, True
    elif state.hand_number < state.config.max_hands:
        state.dealer = (state.dealer + 1) % 4
        _deal(state, rng)


def cards_status(state):
    if state.winner != DRAW:
        return True, False, state.winner
    return False, state.over or not state.hands.any(), DRAW


def cards_observe(state, seat):
    obs = np.zeros(N_CARDS * 5, np.float32)
    obs[:N_CARDS] = state.hands[seat]
    for rel in range(4):
        card = state.trick[(seat + rel) % 4]
        if card >= 0:
            obs[N_CARDS * (1 + rel) + card] = 1
    return obs


TOY_CARDS = GameCore(
    name="toy_cards",
    agents=("n", "e", "s", "w"),
    team_of_seat=(0, 1, 0, 1),
    team_names=("ns", "ew"),
    n_actions=N_CARDS,
    obs_shape=(N_CARDS * 5,),
    obs_dtype=np.float32,
    make_config=cards_config,
    new_game=cards_new_game,
    seat_to_act=lambda s: s.to_act,
    legal_mask=lambda s: s.hands[s.to_act].copy(),
    apply=cards_apply,
    observe=cards_observe,
    scores=lambda s: s.scores,
    status=cards_status,
    action_to_string=lambda s, a: f"c{a}",
    string_to_action=lambda s, t: int(t[1:]) if t[:1] == "c" and t[1:].isdigit() else None,
    render_ansi=lambda s, seat: f"scores {s.scores.tolist()} trick {s.trick.tolist()}",
    reset_options=(),
    keyword_choices={"variant": ("high", "low"), "reward": ("win", "points")},
    keyword_defaults={"variant": "high", "target_score": 5, "max_hands": 10, "reward": "win"},
)


class CardsEnv(TableEnv):
    metadata: ClassVar[dict] = {
        "name": "toy_cards_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": False,
    }

    def __init__(
        self, variant="high", target_score=5, max_hands=10, render_mode=None, reward="win"
    ):
        super().__init__(
            TOY_CARDS,
            render_mode,
            reward,
            variant=variant,
            target_score=target_score,
            max_hands=max_hands,
        )


# ----------------------------------------------------------------------------- toy_duel
GOAL = 10


@dataclass
class DuelState:
    max_moves: int
    total: int
    moves: int = 0
    to_act: int = 0
    winner: int = DRAW


def duel_config(max_moves=20):
    return check_int("max_moves", max_moves, 1)


def duel_mask(state):
    mask = np.zeros(3, np.int8)
    mask[: min(3, GOAL - state.total)] = 1
    return mask


def duel_apply(state, action, rng):
    state.total += action + 1
    state.moves += 1
    if state.total == GOAL:
        state.winner = state.to_act
    state.to_act = 1 - state.to_act


def duel_status(state):
    return state.winner != DRAW or state.moves >= state.max_moves, False, state.winner


def duel_observe(state, seat):
    obs = np.zeros(GOAL + 2, np.float32)
    obs[state.total] = 1
    obs[GOAL + 1] = state.moves
    return obs


TOY_DUEL = GameCore(
    name="toy_duel",
    agents=("first", "second"),
    team_of_seat=(0, 1),
    team_names=("first", "second"),
    n_actions=3,
    obs_shape=(GOAL + 2,),
    obs_dtype=np.float32,
    make_config=duel_config,
    new_game=lambda config, rng, options: DuelState(config, int(rng.integers(4))),
    seat_to_act=lambda s: s.to_act,
    legal_mask=duel_mask,
    apply=duel_apply,
    observe=duel_observe,
    scores=lambda s: np.zeros(2, np.int64),
    status=duel_status,
    action_to_string=lambda s, a: f"+{a + 1}",
    string_to_action=lambda s, t: {"+1": 0, "+2": 1, "+3": 2}.get(t),
    render_ansi=lambda s, seat: f"total {s.total}",
    reset_options=(),
    keyword_choices={"reward": ("win",)},
    keyword_defaults={"max_moves": 20, "reward": "win"},
)


class DuelEnv(TableEnv):
    metadata: ClassVar[dict] = {
        "name": "toy_duel_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": False,
    }

    def __init__(self, max_moves=20, render_mode=None, reward="win"):
        super().__init__(TOY_DUEL, render_mode, reward, max_moves=max_moves)


TOYS = {"toy_cards": CardsEnv, "toy_duel": DuelEnv}


def _module(game):
    module = types.ModuleType(f"feral_envs.{game}_v0")
    module.raw_env = TOYS[game]
    module.env = lambda **kw: wrap(TOYS[game](**kw))
    return module


def register(monkeypatch=None):
    """Make the toys reachable through ``feral_envs.make`` and their bots through
    ``load_policy("heuristic", ...)`` (undone by ``monkeypatch`` if given)."""
    games = (*feral_envs.GAMES, *(g for g in TOYS if g not in feral_envs.GAMES))
    modules = {f"feral_envs.{game}_v0": _module(game) for game in TOYS}
    modules.update({f"agents.heuristic.{game}": _heuristic_module(game) for game in TOYS})
    if monkeypatch is None:
        feral_envs.GAMES = games
        sys.modules.update(modules)
        return
    monkeypatch.setattr(feral_envs, "GAMES", games)
    for name, module in modules.items():
        monkeypatch.setitem(sys.modules, name, module)


# ------------------------------------------------------------------ toy heuristic bots
class HighCard(BasePolicy):
    """toy_cards heuristic: plays its highest card."""

    def act(self, observation, action_mask):
        return int(np.flatnonzero(action_mask)[-1])


class DuelExpert(BasePolicy):
    """toy_duel heuristic: leaves the opponent a multiple of 4 to go when it can (optimal)."""

    def act(self, observation, action_mask):
        total = int(np.argmax(observation[: GOAL + 1]))
        for action in np.flatnonzero(action_mask):
            if (GOAL - total - action - 1) % 4 == 0:
                return int(action)
        return int(self.rng.choice(np.flatnonzero(action_mask)))


HEURISTICS = {"toy_cards": HighCard, "toy_duel": DuelExpert}
made_with: list[dict] = []
"""Keywords the toy heuristics were made with (what the registry passed on)."""


def _heuristic_module(game):
    module = types.ModuleType(f"agents.heuristic.{game}")

    def make_policy(seed, **keywords):
        made_with.append(keywords)
        return HEURISTICS[game]("heuristic", seed)

    module.make_policy = make_policy
    return module


# -------------------------------------------------------------------------- real games
def landed_games():
    """The real games whose packages are in this checkout."""
    games = []
    for game in feral_envs.GAMES:
        try:
            feral_envs.env_module(game)
        except ModuleNotFoundError:
            continue
        games.append(game)
    return games


SMALL = {
    "lost_heir": {"max_hands": 12},
    "lost_ranks": {},
    "hidden_ranks": {"mode": "quick", "setup": "random"},
}
"""Keywords that keep each real game short enough for the default suite."""
