"""The batched policy interface (``agents.base.BatchPolicy``): every lane chooses exactly what
the policy's one-game ``act`` chooses after ``reset`` with the lane's seed, however the lanes
are grouped into calls; policies without it get one instance per lane."""

import numpy as np
import pytest
from tiny_networks import KINDS, tiny_policy_file
from toy_games import landed_games

import feral_envs.vector
from agents.base import BasePolicy, BatchPolicy, OneGameLanes, as_batch_policy
from agents.random_policy import RandomPolicy
from agents.registry import load_policy

GAMES = landed_games()


def positions(game, n_games=8, steps=40, seed=0):
    """``(observation, mask)`` pairs of the seat to act in random play (real positions: an
    advised network runs the heuristic on them)."""
    venv = feral_envs.vector.make(game, n_games, seed=seed)
    batch, found = venv.reset(), []
    for _ in range(steps):
        live = batch.action_mask.any(axis=1)
        found += list(zip(batch.observation[live], batch.action_mask[live], strict=True))
        batch = venv.step(venv.random_actions())
    return found


def check_lanes_play_as_act(make, pool, make_lanes=None, n_lanes=10, rounds=12, seed=0):
    """The lanes of one ``make_lanes()`` (default ``make()``) against one ``make()`` per lane
    playing ``act``: each round a random subset of the lanes asks, in random order, split
    into up to three calls."""
    rng = np.random.default_rng(seed)
    seeds = rng.integers(0, 2**32, n_lanes).tolist()
    batched, alone = (make_lanes or make)(), [make() for _ in range(n_lanes)]
    batched.reset_lanes(seeds)
    for policy, lane_seed in zip(alone, seeds, strict=True):
        policy.reset(lane_seed)
    decisions = 0
    for _ in range(rounds):
        asking = rng.permutation(n_lanes)[: rng.integers(1, n_lanes + 1)]
        for lanes in np.array_split(asking, rng.integers(1, 4)):
            if not lanes.size:
                continue
            picked = [pool[i] for i in rng.integers(len(pool), size=lanes.size)]
            observations = np.stack([obs for obs, _ in picked])
            masks = np.stack([mask for _, mask in picked])
            got = batched.act_lanes(lanes, observations, masks)
            assert got.dtype == np.int64 and got.shape == lanes.shape
            want = [
                alone[lane].act(o.copy(), m.copy())
                for lane, (o, m) in zip(lanes, picked, strict=True)
            ]
            assert got.tolist() == want
            decisions += lanes.size
    assert decisions > n_lanes


@pytest.mark.parametrize("game", GAMES)
def test_random_lanes_play_as_random(game):
    pool = positions(game)
    check_lanes_play_as_act(lambda: RandomPolicy(0), pool)
    assert isinstance(RandomPolicy(0), BatchPolicy)


NETWORKS = [(game, kind) for game in GAMES for kind in KINDS[game]]


@pytest.mark.parametrize(("game", "kind"), NETWORKS, ids=[f"{g}-{k}" for g, k in NETWORKS])
@pytest.mark.parametrize("prefix", ["ppo", "ppo_argmax"])
def test_network_lanes_play_as_the_network(game, kind, prefix, tmp_path):
    path = tiny_policy_file(game, tmp_path / "tiny.zip", kind)
    pool = positions(game)
    check_lanes_play_as_act(lambda: load_policy(f"{prefix}:{path}", game, 0), pool)


@pytest.mark.parametrize("game", GAMES)
def test_mlp_logits_of_rows_are_those_of_each_row_alone(game, tmp_path):
    from agents.networks.mlp import ActorMLP

    path = tiny_policy_file(game, tmp_path / "tiny.zip", "mlp")
    actor = load_policy(f"ppo:{path}", game, 0).actor
    assert isinstance(actor, ActorMLP)
    obs = np.stack([o for o, _ in positions(game)[:70]])
    alone = np.concatenate([actor.logits(obs[i : i + 1]) for i in range(len(obs))])
    for size in (1, 2, 3, 7, 16, 70):
        for start in range(0, len(obs), size):
            rows = actor.logits_rows(obs[start : start + size])
            assert np.array_equal(rows, alone[start : start + size]), (size, start)
    # Rows batched into one BLAS product round otherwise: why logits_rows exists.
    np.testing.assert_allclose(actor.logits(obs), alone, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("threads", [1, 2])
def test_board_network_scores_small_batches_on_one_torch_thread(threads, tmp_path, monkeypatch):
    # Row-by-row scoring on torch's other threads was 30 times slower on a busy machine
    # (agents/networks/threads.py); the caller's thread count comes back afterwards.
    import torch

    import agents.networks.board as board
    from agents.networks.threads import SMALL_BATCH

    path = tiny_policy_file("hidden_ranks", tmp_path / "tiny.zip", "board")
    actor = load_policy(f"ppo:{path}", "hidden_ranks", 0).actor
    assert isinstance(actor, board.ActorBoard)
    seen = []
    real = board.trunk_features

    def recording(x, convs):
        seen.append(torch.get_num_threads())
        return real(x, convs)

    monkeypatch.setattr(board, "trunk_features", recording)
    obs = np.stack([o for o, _ in positions("hidden_ranks")[: SMALL_BATCH + 1]])
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        alone = actor.logits(obs[:1])
        actor.logits(obs[:SMALL_BATCH])
        batched = actor.logits(obs)
        assert seen == [1, 1, threads]
        assert torch.get_num_threads() == threads
    finally:
        torch.set_num_threads(before)
    np.testing.assert_allclose(batched[:1], alone, rtol=1e-4, atol=1e-5)


class Counter(BasePolicy):
    """Remembers its moves within a game; plays the legal action of index ``moves % n``."""

    made = 0

    def __init__(self, seed):
        super().__init__("counter", seed)
        Counter.made += 1
        self.moves = 0

    def reset(self, seed):
        super().reset(seed)
        self.moves = int(self.rng.integers(5))

    def act(self, observation, action_mask):
        legal = np.flatnonzero(action_mask)
        self.moves += 1
        return int(legal[self.moves % legal.size])


def test_one_game_lanes_keep_an_instance_per_lane():
    pool = [(np.zeros(3), np.array([1, 0, 1, 1], np.int8)), (np.zeros(3), np.ones(4, np.int8))]
    lanes = as_batch_policy(Counter(0), lambda: Counter(0))
    assert isinstance(lanes, OneGameLanes) and lanes.spec == "counter"
    Counter.made = 0
    check_lanes_play_as_act(
        lambda: Counter(0), pool, lambda: OneGameLanes("counter", lambda: Counter(0))
    )
    lanes.reset_lanes([1, 2, 3])
    made = Counter.made
    lanes.reset_lanes([4, 5])  # fewer lanes: the instances are kept, none made
    assert Counter.made == made and len(lanes.instances) == 3
    with pytest.raises(IndexError, match="lane 2 was not started"):
        lanes.act_lanes(np.array([2]), np.zeros((1, 3)), np.ones((1, 4), np.int8))


def test_a_subclass_that_changes_act_or_reset_gets_one_game_lanes():
    class Lowest(RandomPolicy):
        def act(self, observation, action_mask):
            return int(np.flatnonzero(action_mask)[0])

    class Seeded(RandomPolicy):
        def reset(self, seed):
            super().reset(seed + 1)

    random = RandomPolicy(0)
    assert as_batch_policy(random, lambda: RandomPolicy(0)) is random
    assert isinstance(as_batch_policy(Lowest(0), lambda: Lowest(0)), OneGameLanes)
    assert isinstance(as_batch_policy(Seeded(0), lambda: Seeded(0)), OneGameLanes)
