"""``--par`` (train/advice.py): each round's points counted against the bot's own result on
the same cards. The bot playing the learner's side therefore earns exactly 0 every round."""

from __future__ import annotations

import numpy as np
import pytest

from agents.registry import load_policy
from feral_envs import game_core
from train.advice import Par
from train.pool import OpponentPool
from train.run import heuristic_opponent
from train.vec_env import SelfPlayVecEnv

CORE = game_core("lost_ranks")


def play_bot_as_learner(par, games=6, seed=0):
    bot = load_policy("heuristic", "lost_ranks", seed=0, keywords={})
    pool = OpponentPool.only(heuristic_opponent("lost_ranks", {}), seed)
    env = SelfPlayVecEnv(CORE, {}, 4, pool, 0.1, 0.0, seed=seed, par=par)
    obs, rewards, done = env.reset(), [], 0
    while done < games:
        actions = [bot.act(o, m) for o, m in zip(obs, env.action_masks(), strict=True)]
        obs, reward, dones, _ = env.step(np.array(actions))
        rewards.extend(reward.tolist())
        done += int(dones.sum())
    return np.array(rewards)


def test_the_bot_in_the_learners_seats_plays_to_par_every_round():
    plain = play_bot_as_learner(None)
    assert np.count_nonzero(plain) > 20  # rounds are scored: the points move the reward
    assert not play_bot_as_learner(Par("lost_ranks", {})).any()


def test_a_par_without_points_is_refused():
    pool = OpponentPool.only(heuristic_opponent("lost_ranks", {}), 0)
    with pytest.raises(ValueError, match="needs points_scale above 0"):
        SelfPlayVecEnv(CORE, {}, 2, pool, 0.0, 1.0, par=Par("lost_ranks", {}))


def test_a_different_player_is_measured_against_par():
    par = Par("lost_ranks", {})
    rng = np.random.default_rng(3)
    state = CORE.new_game(CORE.make_config(), rng, {})
    # the par of the first round is the bot's own lead change, from a copy: the game is untouched
    before = (CORE.scores(state).copy(), state.epoch)
    gain = par.round_gain(state, rng, 0)
    assert (CORE.scores(state) == before[0]).all() and state.epoch == before[1]
    assert gain == -par.round_gain(state, rng, 1)


def test_a_par_run_resumes_exactly(tmp_path):
    import json

    import torch

    from agents.networks.policy_file import read_policy_weights
    from train.config import TrainConfig
    from train.run import train

    base = dict(
        game="lost_ranks",
        par=True,
        win_reward=0.0,
        timesteps=768,
        n_envs=4,
        n_steps=32,
        batch_size=64,
        n_epochs=1,
        trunk=(16,),
        heads=(8,),
        snapshot_every=256,
        checkpoint_every=256,
        eval_every=768,
        eval_games=0,
        arena_games=0,
        progress=False,
    )
    train(TrainConfig(**base), tmp_path / "a")
    train(TrainConfig(**base | {"timesteps": 512}), tmp_path / "b")
    saved = json.loads((tmp_path / "b" / "config.json").read_text())
    assert saved["par"] is True
    resumed = train(TrainConfig.from_json(saved | {"timesteps": 768}), tmp_path / "b", resume=True)
    assert resumed.model.num_timesteps == 768 and resumed.env.par is not None
    want, _, _ = read_policy_weights(tmp_path / "a", CORE)
    got = resumed.model.policy.state_dict()
    for key, value in want.items():
        torch.testing.assert_close(got[key], value, rtol=0, atol=0)
