"""The batched self-play env: reward attribution, masks, the VecEnv API, batching, seats."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest
from conftest import REAL_CORES, keywords_of
from replay import expected_rewards, replay
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
from toy_core import HANDOVER, STRIKE, TOY2, TOY4

from train.pool import Opponent, OpponentPool, RandomOpponent
from train.vec_env import SelfPlayVecEnv

SCALE, WIN = 0.1, 1.0


def make_env(core, n_envs=8, seed=0, pool=None, record=True, **keywords):
    pool = pool or OpponentPool(0.0, 0.0, 1.0, 1, seed=seed)
    kw = keywords_of(core) | keywords
    return SelfPlayVecEnv(core, kw, n_envs, pool, SCALE, WIN, seed=seed, record=record)


def play(env, steps, seed=0):
    """Random legal learner actions; completed episodes with what the learner saw and got."""
    rng = np.random.default_rng(seed)
    obs = env.reset()
    current = [{"obs": [], "masks": [], "rewards": []} for _ in range(env.num_envs)]
    episodes = []
    for _ in range(steps):
        masks = env.action_masks()
        for i in range(env.num_envs):
            current[i]["obs"].append(obs[i].copy())
            current[i]["masks"].append(masks[i].copy())
        draws = rng.random(masks.shape)
        draws[~masks] = -1
        obs, rewards, dones, infos = env.step(draws.argmax(axis=1))
        for i in range(env.num_envs):
            current[i]["rewards"].append(float(rewards[i]))
            if dones[i]:
                episodes.append(current[i] | {"info": infos[i]})
                current[i] = {"obs": [], "masks": [], "rewards": []}
    return episodes


def test_rewards_observations_and_masks_match_a_pettingzoo_replay(core):
    keywords = keywords_of(core)
    env = make_env(core, n_envs=8, seed=3)
    episodes = play(env, 400, seed=3)
    assert len(episodes) >= 10
    assert {"win", "loss"} <= {ep["info"]["result"] for ep in episodes}  # game-end rewards too
    for ep in episodes:
        info, trace = ep["info"], ep["info"]["trace"]
        want = expected_rewards(core, keywords, trace, SCALE, WIN)
        np.testing.assert_allclose(ep["rewards"], want, rtol=1e-5, atol=1e-5)
        _, observations, masks, final = replay(core, keywords, trace, "win")
        assert len(observations) == len(ep["obs"]) == info["episode"]["l"]
        for seen, got in zip(observations, ep["obs"], strict=True):
            np.testing.assert_array_equal(seen, got)
        for seen, got in zip(masks, ep["masks"], strict=True):
            np.testing.assert_array_equal(seen, got)
        np.testing.assert_array_equal(info["terminal_observation"], final)
        assert info["episode"]["r"] == pytest.approx(sum(ep["rewards"]), abs=1e-4)


def situations(core, episodes):
    """Count the situations attribution must get right, so the test above cannot pass by
    never meeting them (toy cores: their actions are known)."""
    seen = Counter()
    for ep in episodes:
        trace, info = ep["info"]["trace"], ep["info"]
        team = trace["learner_team"]
        moves = trace["moves"]
        for (seat, action), (next_seat, _) in itertools.pairwise(moves):
            mine = core.team_of_seat[seat] == team
            if action == HANDOVER and mine and core.team_of_seat[next_seat] == team:
                seen["learner hands over to the learner"] += 1
            if action == STRIKE and not mine:
                seen["opponent strike"] += 1
        seen[info["result"]] += 1
        last_seat = moves[-1][0]
        if core.team_of_seat[last_seat] != team:
            seen["game ends on an opponent's move"] += 1
    return seen


@pytest.mark.parametrize("toy", [TOY4, TOY2], ids=["toy4", "toy2"])
def test_attribution_test_meets_every_situation(toy):
    env = make_env(toy, n_envs=8, seed=3)
    seen = situations(toy, play(env, 400, seed=3))
    needed = ["opponent strike", "truncated", "game ends on an opponent's move"]
    if toy is TOY4:
        needed.append("learner hands over to the learner")
    for what in needed:
        assert seen[what] > 0, (what, seen)
    assert seen["win"] + seen["loss"] + seen["draw"] > 0


def test_reward_example_by_hand():
    """One step by hand: the learner's strike reaches the target and ends the game at once."""
    env = make_env(TOY2, n_envs=1, seed=0, target_score=2)
    env.reset()
    state = env.states[0]
    # The learner's seat to act at move 1 (a strike is legal then).
    team = env.learner_team[0]
    state.move = 1
    state.seat = 0 if team == 0 else 1
    env._observe_learner([0])
    assert env.action_masks()[0, STRIKE]
    _, rewards, dones, infos = env.step(np.array([STRIKE]))
    # Learner +2 (reaches the target 2), opponent -1: the lead grows by 3, game won.
    assert dones[0] and infos[0]["result"] == "win"
    assert rewards[0] == pytest.approx(SCALE * 3 + WIN)
    assert infos[0]["TimeLimit.truncated"] is False


def test_action_masks_are_each_games_legal_moves(core):
    env = make_env(core, n_envs=6, seed=1, record=False)
    env.reset()
    rng = np.random.default_rng(1)
    for _ in range(30):
        masks = env.action_masks()
        assert masks.shape == (6, core.n_actions) and masks.dtype == bool
        for i, state in enumerate(env.states):
            seat = core.seat_to_act(state)
            assert core.team_of_seat[seat] == env.learner_team[i]
            np.testing.assert_array_equal(masks[i], core.legal_mask(state).astype(bool))
            assert masks[i].any()
        np.testing.assert_array_equal(np.stack(env.env_method("action_masks")), masks)
        np.testing.assert_array_equal(get_action_masks(env), masks)
        draws = rng.random(masks.shape)
        draws[~masks] = -1
        env.step(draws.argmax(axis=1))


def test_illegal_learner_action_is_refused():
    env = make_env(TOY4, n_envs=2, seed=0, record=False)
    env.reset()
    masks = env.action_masks()
    actions = masks.argmax(axis=1)
    actions[1] = int(np.flatnonzero(~masks[1])[0])
    with pytest.raises(ValueError, match="illegal learner action"):
        env.step(actions)


def test_vec_env_api():
    env = make_env(TOY4, n_envs=5, seed=2, record=False)
    assert is_masking_supported(env) and env.has_attr("action_masks")
    assert env.num_envs == 5 and env.action_space.n == TOY4.n_actions
    obs = env.reset()
    assert obs.shape == (5, *TOY4.obs_shape) and obs.dtype == TOY4.obs_dtype
    assert env.observation_space.contains(obs[0])
    seen_done = seen_truncated = 0
    for _ in range(200):
        env.step_async(env.action_masks().argmax(axis=1))
        new_obs, rewards, dones, infos = env.step_wait()
        assert new_obs.shape == obs.shape and new_obs is not obs
        assert rewards.shape == (5,) and rewards.dtype == np.float32
        assert dones.shape == (5,) and dones.dtype == bool
        assert isinstance(infos, list) and len(infos) == 5
        for done, info in zip(dones, infos, strict=True):
            if done:
                seen_done += 1
                assert info["terminal_observation"].shape == TOY4.obs_shape
                assert isinstance(info["TimeLimit.truncated"], bool)
                seen_truncated += info["TimeLimit.truncated"]
                assert info["TimeLimit.truncated"] == (info["result"] == "truncated")
            else:
                assert info == {}
        before = new_obs.copy()
        new_obs += 1  # the caller owns the returned array: the env must not see this
        np.testing.assert_array_equal(env.current_obs(), before)
        obs = before
    assert seen_done and seen_truncated and seen_truncated < seen_done
    assert env.env_is_wrapped(object) == [False] * 5
    assert env.get_attr("num_envs", [0, 1]) == [5, 5]
    with pytest.raises(RuntimeError, match="without step_async"):
        env.step_wait()


class Spy(Opponent):
    """Random play that records which games it was asked about."""

    def __init__(self, name, env_ref):
        self.name, self.env_ref, self.calls = name, env_ref, []

    def act(self, obs, masks, slots, seats, rng):
        env = self.env_ref[0]
        self.calls.append(list(slots))
        assert len(set(slots)) == len(slots)
        assert [env.core.seat_to_act(env.states[i]) for i in slots] == list(seats)
        return RandomOpponent().act(obs, masks, slots, seats, rng)


def test_opponents_act_once_per_round_on_all_their_games():
    env_ref = []
    spies = [Spy(f"spy{k}", env_ref) for k in range(3)]
    pool = OpponentPool(1.0, 0.0, 0.0, 3, seed=0)
    pool.random = spies[0]
    for spy in spies:  # stand-ins for snapshots: the pool samples among them
        pool.snapshots.append(spy)
    env = make_env(TOY4, n_envs=48, seed=4, pool=pool)
    env_ref.append(env)
    env.reset()
    rng = np.random.default_rng(0)
    for _ in range(100):
        for spy in spies:
            spy.calls.clear()
        before = [len(env.traces[i]["moves"]) for i in range(env.num_envs)]
        masks = env.action_masks()
        draws = rng.random(masks.shape)
        draws[~masks] = -1
        _, _, dones, infos = env.step(draws.argmax(axis=1))
        # Longest run of opponent decisions in one game this step (old game, then new one).
        runs = []
        for i in range(env.num_envs):
            moves = infos[i]["trace"]["moves"] if dones[i] else env.traces[i]["moves"]
            runs.append(len(moves) - before[i] - 1)
            if dones[i]:
                runs.append(len(env.traces[i]["moves"]))
        for spy in spies:
            assert len(spy.calls) <= 2 * max(runs)
            for slots in spy.calls:
                # every game in a call is one that spy plays (or played, if it just ended)
                assert all(env.opponents[i] is spy or dones[i] for i in slots)
    sizes = [len(c) for spy in spies for c in spy.calls]
    assert np.mean(sizes) > 4


def test_learner_plays_every_seat_and_position():
    env = make_env(TOY4, n_envs=16, seed=5)
    episodes = play(env, 300, seed=5)
    teams = Counter(ep["info"]["trace"]["learner_team"] for ep in episodes)
    assert teams[0] > 0.3 * len(episodes) and teams[1] > 0.3 * len(episodes)
    first_seats = Counter(
        next(
            s
            for s, _ in ep["info"]["trace"]["moves"]
            if TOY4.team_of_seat[s] == ep["info"]["trace"]["learner_team"]
        )
        for ep in episodes
    )
    assert set(first_seats) == {0, 1, 2, 3}
    # dealer relative to the learner seat: obs[6:10] is one-hot of (dealer - seat)
    positions = {int(np.argmax(o[6:10])) for ep in episodes for o in ep["obs"]}
    assert positions == {0, 1, 2, 3}


def test_same_seed_same_games_and_state_round_trip():
    a, b = make_env(TOY4, seed=9, record=False), make_env(TOY4, seed=9, record=False)
    oa, ob = a.reset(), b.reset()
    np.testing.assert_array_equal(oa, ob)
    for step in range(60):
        if step == 30:
            b.set_state(a.get_state())  # the copy continues exactly like the original
        actions = a.action_masks().argmax(axis=1)
        ra, rb = a.step(actions), b.step(actions)
        for x, y in zip(ra[:3], rb[:3], strict=True):
            np.testing.assert_array_equal(x, y)
    c, d = make_env(TOY4, seed=10, record=False), make_env(TOY4, seed=9, record=False)
    c.reset(), d.reset()
    assert [s.dealer for s in c.states] != [s.dealer for s in d.states]


class CountingEngine:
    """A game's engine module whose functions count their calls, by name."""

    def __init__(self, engine):
        self.engine, self.calls = engine, Counter()

    def __getattr__(self, name):
        value = getattr(self.engine, name)
        if not callable(value):
            return value

        def counted(*args):
            self.calls[name] += 1
            return value(*args)

        return counted


class WatchingRandom(RandomOpponent):
    """Random play that asks for observations (as a network does)."""

    needs_obs = True

    def __init__(self, name):
        self.name = name


@pytest.mark.parametrize("n_envs", [4, 64])
@pytest.mark.parametrize("core", REAL_CORES, ids=lambda core: core.name)
def test_a_round_of_decisions_is_a_few_kernel_calls_whatever_the_number_of_games(core, n_envs):
    """Every step is the learner's apply, then rounds of opponent decisions, each one status,
    mask, observation and apply call over the whole batch (never one call per game), then
    the learner's next decision: a number of kernel calls bounded by the number of rounds,
    whatever ``n_envs``. (A new game is started on its own, by ``core.new_game``.)"""
    pool = OpponentPool(0.6, 0.0, 0.4, 2, seed=0)
    pool.snapshots += [WatchingRandom("watcher_a"), WatchingRandom("watcher_b")]
    env = make_env(core, n_envs=n_envs, seed=6, pool=pool, record=False)
    env.reset()
    engine = env.batch.engine = CountingEngine(env.batch.engine)
    rng = np.random.default_rng(6)
    batched = {"status_batch", "masks_batch", "observe_batch", "apply_batch", "scores_batch"}
    most_rounds = 0
    for _ in range(30):
        engine.calls.clear()
        masks = env.action_masks()
        env.step(np.where(masks, rng.random(masks.shape), -1).argmax(axis=1))
        calls = engine.calls
        assert set(calls) <= batched, calls
        rounds = calls["apply_batch"] - 1  # the learner's apply, then one per round
        assert calls["masks_batch"] == rounds + 1  # one per round, then the learner's
        assert calls["observe_batch"] <= rounds + 2  # and the final observations of a step
        assert calls["status_batch"] <= 2 * rounds + 2
        assert calls["scores_batch"] <= 2
        most_rounds = max(most_rounds, rounds)
    assert most_rounds >= 1


@pytest.mark.parametrize("core", REAL_CORES, ids=lambda core: core.name)
def test_engine_games_resume_exactly_from_their_rows(core):
    """The state holds the games' rows (an older one the Game objects: still read)."""
    a, b, c = (make_env(core, n_envs=6, seed=8, record=False) for _ in range(3))
    a.reset(), b.reset(), c.reset()
    for step in range(40):
        if step == 20:
            saved = a.get_state()
            assert saved["rows"].shape == (6, core.engine.ROW_SIZE) and "states" not in saved
            b.set_state(saved)
            older = dict(saved, states=[game.copy() for game in a.states])
            del older["rows"]
            c.set_state(older)
        actions = a.action_masks().argmax(axis=1)
        results = [env.step(actions) for env in (a, b, c)]
        if step >= 20:
            for got in results[1:]:
                for x, y in zip(results[0][:3], got[:3], strict=True):
                    np.testing.assert_array_equal(x, y)
    for env in (b, c):
        np.testing.assert_array_equal(env.batch.rows, a.batch.rows)
        assert all(s.row.base is env.batch.rows for s in env.states)  # views of the batch
