"""The material shaping term (``--material-scale``, ``train/shaping.py``) in the batched env."""

from __future__ import annotations

import numpy as np
import pytest

from feral_envs.hidden_ranks import CORE as HR
from feral_envs.hidden_ranks.rules import GOLD, SILVER
from train.config import TrainConfig
from train.pool import OpponentPool
from train.shaping import PIECE_VALUE, material_of
from train.vec_env import SelfPlayVecEnv

SCALE = 0.05


def env_at(position: dict, material_scale: float, learner: int = GOLD) -> SelfPlayVecEnv:
    """A one-game env whose game is ``position`` with gold to move, the learner ``learner``."""
    pool = OpponentPool(0.0, 0.0, 1.0, 1, seed=0)
    env = SelfPlayVecEnv(
        HR, {"mode": "quick"}, 1, pool, 0.0, 1.0, seed=0, material_scale=material_scale
    )
    env.reset()
    env.states[0] = HR.new_game(
        HR.make_config(mode="quick"), np.random.default_rng(0), {"position": position}
    )
    env.learner_team[0] = learner
    env._observe_learner([0])
    env._reset_lead([0])
    return env


# Gold's General on e4 faces silver's Miner on e5; silver's only other mover is the Scout on
# a10, whose lines (column a, row 10) reach no gold piece, so silver's reply strikes nothing.
POSITION = {
    "gold": {"e4": "9", "b2": "2", "i1": "F"},
    "silver": {"e5": "3", "a10": "2", "j10": "F"},
}


def test_a_strike_earns_the_value_of_the_piece_struck_off():
    env = env_at(POSITION, SCALE)
    strike = HR.string_to_action(env.states[0], "e4-e5")
    assert strike is not None and env.action_masks()[0, strike]
    _, rewards, dones, _ = env.step(np.array([strike]))
    assert not dones[0]
    assert rewards[0] == pytest.approx(SCALE * PIECE_VALUE["3"])  # the Miner: 2
    # Then a quiet move earns nothing: the lead did not change again.
    quiet = HR.string_to_action(env.states[0], "b2-b3")
    _, rewards, _, _ = env.step(np.array([quiet]))
    assert rewards[0] == 0.0


def test_a_lost_piece_costs_its_value_and_no_scale_means_no_shaping():
    # Gold's Scout strikes silver's Miner and loses: the learner (gold) is down one Scout.
    position = {"gold": {"e4": "2", "b2": "2", "i1": "F"}, "silver": POSITION["silver"]}
    env = env_at(position, SCALE)
    _, rewards, _, _ = env.step(np.array([HR.string_to_action(env.states[0], "e4-e5")]))
    assert rewards[0] == pytest.approx(-SCALE * PIECE_VALUE["2"])
    env = env_at(position, 0.0)
    _, rewards, _, _ = env.step(np.array([HR.string_to_action(env.states[0], "e4-e5")]))
    assert rewards[0] == 0.0


def test_material_counts_the_enemy_pieces_struck_off_per_seat():
    state = HR.new_game(HR.make_config(mode="quick"), np.random.default_rng(0), {})
    material = material_of("hidden_ranks")
    np.testing.assert_array_equal(material(state), [0.0, 0.0])  # nothing struck: no lead
    removed = state.row[HR.engine.STATE.removed.slice].reshape(2, -1)  # a change outside
    removed[SILVER, 10 - 1] = 1  # the rules: silver's Marshal (rank code 10) is off the board
    removed[GOLD, 1 - 1] = 1  # gold's Spy (rank code 1) too
    np.testing.assert_array_equal(material(state), [PIECE_VALUE["10"], PIECE_VALUE["S"]])


def test_random_games_earn_the_final_material_lead_in_all():
    """Over whole games the shaping adds up to the learner's final material lead (it is zero
    at the start), whoever struck: the learner's own strikes and the opponent's."""
    pool = OpponentPool(0.0, 0.0, 1.0, 1, seed=1)
    env = SelfPlayVecEnv(HR, {"mode": "quick"}, 8, pool, 0.0, 0.0, seed=1, material_scale=1.0)
    material = material_of("hidden_ranks")
    rng = np.random.default_rng(1)
    env.reset()
    totals = np.zeros(8)
    checked = nonzero = 0
    while checked < 30:
        masks = env.action_masks()
        draws = np.where(masks, rng.random(masks.shape), -1.0)
        before = [
            (s, int(t)) for s, t in zip(env.states, env.learner_team, strict=True)
        ]  # the game objects: a done game's is replaced after the step
        _, rewards, dones, _ = env.step(draws.argmax(axis=1))
        totals += rewards
        for i in np.flatnonzero(dones):
            state, team = before[i]
            lead = material(state)[team] - material(state)[1 - team]
            assert totals[i] == pytest.approx(lead)
            nonzero += lead != 0
            totals[i] = 0.0
            checked += 1
    assert nonzero > 0  # games with strikes that did not cancel out were met


def test_material_scale_is_refused_for_a_game_without_pieces():
    with pytest.raises(ValueError, match="material-scale needs a game of pieces"):
        TrainConfig(game="lost_heir", material_scale=0.1).check()
    TrainConfig(game="hidden_ranks", material_scale=0.1).check()
