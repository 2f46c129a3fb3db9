"""The opponent pool: documented sampling weights, snapshots, the agents-policy adapter."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from toy_core import TOY4

from agents.networks.mlp import ActorMLP
from train.pool import SEATS_PER_SLOT, OpponentPool, PolicyOpponent, RandomOpponent
from train.vec_env import SelfPlayVecEnv


def actor(seed: int) -> ActorMLP:
    rng = np.random.default_rng(seed)
    return ActorMLP(
        {
            "mlp_extractor.policy_net.0.weight": rng.normal(size=(4, 11)),
            "mlp_extractor.policy_net.0.bias": np.zeros(4),
            "action_net.weight": rng.normal(size=(6, 4)),
            "action_net.bias": np.zeros(6),
        }
    )


class Bot:
    """An agents-style policy that remembers its seed and what it saw."""

    def __init__(self) -> None:
        self.seed, self.seen = None, 0

    def reset(self, seed: int) -> None:
        self.seed, self.seen = seed, 0

    def act(self, observation, action_mask) -> int:
        self.seen += 1
        return int(np.flatnonzero(action_mask)[0])


def test_sampling_follows_the_documented_weights():
    heuristic = PolicyOpponent("heuristic", lambda seed: Bot())
    pool = OpponentPool(0.5, 0.25, 0.25, pool_size=3, seed=0, heuristic=heuristic)
    assert pool.kind_probabilities() == {"heuristic": 0.5, "random": 0.5}  # no snapshot yet
    for step in range(5):
        pool.add_snapshot(actor(step), step)
    assert [s.step for s in pool.active] == [2, 3, 4]
    counts = Counter(pool.sample().name for _ in range(20000))
    n = sum(counts.values())
    assert counts["random"] / n == pytest.approx(0.25, abs=0.015)
    assert counts["heuristic"] / n == pytest.approx(0.25, abs=0.015)
    # snapshots: half of 0.5 to the newest, the other half spread over the 3 active ones
    assert counts["snapshot_4"] / n == pytest.approx(0.25 + 0.25 / 3, abs=0.015)
    assert counts["snapshot_2"] / n == pytest.approx(0.25 / 3, abs=0.015)
    assert counts["snapshot_0"] == counts["snapshot_1"] == 0
    assert pool.get("snapshot_0").step == 0  # no longer sampled, still known


def test_without_a_heuristic_its_weight_is_shared_out():
    pool = OpponentPool(0.5, 0.25, 0.25, pool_size=3, seed=0)
    pool.add_snapshot(actor(0), 0)
    assert pool.kind_probabilities() == pytest.approx({"snapshot": 2 / 3, "random": 1 / 3})


def test_policy_opponent_has_one_player_per_game_and_seat_reset_at_each_game():
    """A policy without lanes of its own plays on one instance per lane (slot and seat),
    each reset with its game's seed plus the seat when the game's first decision comes."""
    bots = []

    def make(seed):
        bots.append(Bot())
        return bots[-1]

    heuristic = PolicyOpponent("heuristic", make)
    pool = OpponentPool(0.0, 1.0, 0.0, 1, seed=0, heuristic=heuristic)
    env = SelfPlayVecEnv(TOY4, {"max_hands": 2}, 3, pool, 0.1, 1.0, seed=0)
    env.reset()
    seeds_first = dict(heuristic.seeds)
    for _ in range(40):
        env.step(env.action_masks().argmax(axis=1))
    instances = heuristic.lanes.instances
    assert len(instances) <= 3 * SEATS_PER_SLOT
    assert len({id(bot) for bot in instances}) == len(instances)
    played = {lane for lane in heuristic.lane_game if instances[lane].seen}
    assert played
    for lane in played:
        slot, seat = divmod(lane, SEATS_PER_SLOT)
        if heuristic.lane_game[lane] == heuristic.games[slot]:  # the slot's game now
            assert instances[lane].seed == heuristic.seeds[slot] + seat
    assert heuristic.seeds != seeds_first  # games ended and new ones reseeded the players
    state = pool.state_dict()
    copy = OpponentPool(0.0, 1.0, 0.0, 1, seed=5, heuristic=PolicyOpponent("heuristic", make))
    copy.load_state_dict(state)
    assert copy.heuristic.seeds == heuristic.seeds
    assert copy.heuristic.lane_game == heuristic.lane_game
    assert copy.rng.random() == pool.rng.random()


class Recorder:
    """Lanes that pass every call on to ``inner`` and keep what it chose."""

    def __init__(self, inner) -> None:
        self.inner, self.chosen = inner, []

    def restart_lanes(self, lanes, seeds) -> None:
        self.inner.restart_lanes(lanes, seeds)

    def act_lanes(self, lanes, observations, masks):
        actions = self.inner.act_lanes(lanes, observations, masks)
        self.chosen.append((lanes.tolist(), actions.tolist()))
        return actions


def test_the_heuristic_on_its_lanes_plays_as_one_bot_per_slot_and_seat():
    """The Lost Heir heuristic plays the pool's games on its own lanes (one kernel call a
    round); the same games with one instance per slot and seat, as the pool played them
    before, get the same actions and the same observations."""
    from agents.base import OneGameLanes
    from agents.heuristic.lost_heir import LostHeirHeuristic
    from agents.registry import load_policy
    from feral_envs.lost_heir import CORE

    def make(seed):
        return load_policy("heuristic", "lost_heir", seed)

    def run(one_game: bool):
        heuristic = PolicyOpponent("heuristic", make)
        assert isinstance(heuristic.lanes, LostHeirHeuristic)
        inner = OneGameLanes("heuristic", lambda: make(0)) if one_game else heuristic.lanes
        heuristic.lanes = Recorder(inner)
        pool = OpponentPool(0.0, 1.0, 0.0, 1, seed=0, heuristic=heuristic)
        env = SelfPlayVecEnv(CORE, {"max_hands": 3}, 6, pool, 0.1, 1.0, seed=1)
        observations = [env.reset()]
        rng = np.random.default_rng(2)
        for _ in range(400):
            masks = env.action_masks()
            env.step_async(np.where(masks, rng.random(masks.shape), -1.0).argmax(axis=1))
            observations.append(env.step_wait()[0])
        return heuristic.lanes.chosen, np.stack(observations)

    (batched, seen), (alone, seen_alone) = run(False), run(True)
    assert sum(len(actions) for _, actions in batched) > 1000
    assert batched == alone
    assert np.array_equal(seen, seen_alone)


def test_random_opponent_is_uniform_over_legal_actions():
    masks = np.array([[1, 0, 1, 1, 0, 0]] * 30000, dtype=np.int8)
    picks = RandomOpponent().act(None, masks, [], [], np.random.default_rng(0))
    freq = np.bincount(picks, minlength=6) / len(picks)
    np.testing.assert_allclose(freq, [1 / 3, 0, 1 / 3, 1 / 3, 0, 0], atol=0.01)
