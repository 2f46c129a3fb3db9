"""A tiny GameCore for the training tests, with every situation reward attribution must handle.

Four seats in two teams (``TOY4``, partners across like the card games) or two seats
(``TOY2``, like Hidden Ranks). A hand is ``hand_len`` moves. Actions:

* ``0..3`` (``p0``..``p3``): add that many points to the mover's team for this hand; they
  are scored when the hand ends (so a hand can end, and score, on any seat's move);
* ``4`` (``handover``, four seats only): the mover's partner moves next instead of the next
  seat (like Lost Heir's *take a lead*: the learner acts twice in a row);
* ``5`` (``strike``): at once +2 to the mover's team and -1 to the other (a score change
  in the middle of a hand, which can also end the game at once).

At each hand's end a random team gets one bonus point (so replays must reproduce the rng),
the dealer passes left and the seat left of it moves first. A team with ``target_score``
wins (a tie is a draw); after ``max_hands`` hands the game is truncated. Legal moves depend
on the seat and the move number, so masks from the wrong game or seat show up in tests.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from feral_envs.core import DRAW, GameCore
from feral_envs.table_env import TableEnv, check_int

N_ACTIONS = 6
HANDOVER, STRIKE = 4, 5
NAMES = ("p0", "p1", "p2", "p3", "handover", "strike")


@dataclass(frozen=True)
class ToyConfig:
    hand_len: int = 6
    target_score: int = 30
    max_hands: int = 8


@dataclass
class ToyState:
    config: ToyConfig
    n_seats: int
    dealer: int
    seat: int
    move: int = 0  # moves made in this hand
    hand: int = 0  # hands finished
    last_action: int = -1
    scores: np.ndarray = None  # (2,) int64: game score of each team
    pending: np.ndarray = None  # (2,) int64: points of this hand, scored at its end
    terminated: bool = False
    truncated: bool = False
    winner: int = DRAW


def make_config(hand_len=6, target_score=30, max_hands=8) -> ToyConfig:
    return ToyConfig(
        check_int("hand_len", hand_len, 1),
        check_int("target_score", target_score, 1),
        check_int("max_hands", max_hands, 1),
    )


def team(state: ToyState, seat: int) -> int:
    return seat % 2


def new_game(config: ToyConfig, rng: np.random.Generator, options: dict, n_seats: int) -> ToyState:
    dealer = int(options.get("dealer", rng.integers(n_seats)))
    state = ToyState(config, n_seats, dealer, (dealer + 1) % n_seats)
    state.scores = np.array(options.get("scores", (0, 0)), dtype=np.int64)
    state.pending = np.zeros(2, dtype=np.int64)
    return state


def legal_mask(state: ToyState) -> np.ndarray:
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    for a in range(4):
        mask[a] = (a + state.move + state.seat) % 4 != 0
    mask[HANDOVER] = state.n_seats == 4 and state.last_action != HANDOVER
    mask[STRIKE] = state.move % 3 == 1
    return mask


def _check_end(state: ToyState) -> None:
    s = state.scores
    if max(s) >= state.config.target_score:
        state.terminated = True
        state.winner = DRAW if s[0] == s[1] else int(np.argmax(s))


def apply(state: ToyState, action: int, rng: np.random.Generator) -> None:
    me = team(state, state.seat)
    if action < 4:
        state.pending[me] += action
    elif action == STRIKE:
        state.scores[me] += 2
        state.scores[1 - me] -= 1
        _check_end(state)
        if state.terminated:
            return
    step = 2 if action == HANDOVER else 1
    state.last_action = action
    state.seat = (state.seat + step) % state.n_seats
    state.move += 1
    if state.move == state.config.hand_len:
        state.pending[rng.integers(2)] += 1
        state.scores += state.pending
        state.pending[:] = 0
        state.hand += 1
        state.move = 0
        state.last_action = -1
        state.dealer = (state.dealer + 1) % state.n_seats
        state.seat = (state.dealer + 1) % state.n_seats
        _check_end(state)
        if not state.terminated and state.hand >= state.config.max_hands:
            state.truncated = True


OBS_SIZE = 11


def observe(state: ToyState, seat: int) -> np.ndarray:
    """Ego-centric: my team first. The absolute seat is at the end (a toy: tests read it)."""
    me = team(state, seat)
    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    obs[0], obs[1] = state.scores[me], state.scores[1 - me]
    obs[2], obs[3] = state.pending[me], state.pending[1 - me]
    obs[4], obs[5] = state.move, state.hand
    obs[6 + (state.dealer - seat) % state.n_seats] = 1.0
    obs[10] = seat
    return obs


def status(state: ToyState) -> tuple[bool, bool, int]:
    return state.terminated, state.truncated, state.winner


def string_to_action(state: ToyState, text: str) -> int | None:
    return NAMES.index(text) if text in NAMES else None


def _core(name: str, agents: tuple[str, ...]) -> GameCore:
    n = len(agents)
    return GameCore(
        name=name,
        agents=agents,
        team_of_seat=tuple(s % 2 for s in range(n)),
        team_names=("even", "odd"),
        n_actions=N_ACTIONS,
        obs_shape=(OBS_SIZE,),
        obs_dtype=np.float32,
        make_config=make_config,
        new_game=lambda config, rng, options: new_game(config, rng, options, n),
        seat_to_act=lambda state: state.seat,
        legal_mask=legal_mask,
        apply=apply,
        observe=observe,
        scores=lambda state: state.scores.copy(),
        status=status,
        action_to_string=lambda state, action: NAMES[action],
        string_to_action=string_to_action,
        render_ansi=lambda state, seat: f"scores {state.scores.tolist()} seat {state.seat}",
        reset_options=("dealer", "scores"),
        keyword_choices={"reward": ("win", "points")},
        keyword_defaults={"reward": "win", "hand_len": 6, "target_score": 30, "max_hands": 8},
    )


TOY4 = _core("toy4", ("n", "e", "s", "w"))
TOY2 = _core("toy2", ("gold", "silver"))


class ToyEnv(TableEnv):
    """The PettingZoo view of a toy core: the reference the batched env is checked against."""

    metadata: ClassVar[dict] = {
        "name": "toy_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": False,
    }
