"""``--advice`` (train/advice.py): the heuristic's choice as inputs of the network.

The advice is the one-hot of the bot's action for the seat to act, on the training env's
observations and on the game's own ones in play; a network that follows it plays exactly
the bot; advised policy files load as ``ppo:PATH`` and are refused where they do not fit.
"""

from __future__ import annotations

import numpy as np
import pytest

from agents.advice import GAMES, Advisor, advised_core, advisor_of, check_game
from agents.arena import run_arena
from agents.networks.actor import AdvisedActor, CheckpointError
from agents.networks.mlp import ActorMLP
from agents.networks.policy_file import policy_meta, read_policy_file, write_policy_file
from agents.registry import load_policy
from feral_envs import game_core
from feral_envs.lost_ranks.encoding import OBS
from feral_envs.lost_ranks_v0 import env as lost_ranks_env
from train.config import TrainConfig
from train.policy import read_start_weights
from train.pool import OpponentPool
from train.run import train
from train.vec_env import SelfPlayVecEnv

CORE = game_core("lost_ranks")
N_OBS, N_ACTIONS = OBS.size, CORE.n_actions
TURNCOAT = {"variant": "turncoat"}


def test_only_a_deterministic_memoryless_bot_advises():
    assert GAMES == ("lost_ranks",)
    for game in ("lost_heir", "hidden_ranks"):
        with pytest.raises(ValueError, match=f"memoryless \\(lost_ranks\\); {game}'s is not"):
            check_game(game)
    with pytest.raises(ValueError, match="--advice needs a game whose heuristic"):
        TrainConfig(game="lost_heir", advice=True).check()
    core = advised_core(CORE, TURNCOAT)
    assert advised_core(core, TURNCOAT) is core  # not advised twice
    assert advisor_of(CORE) is None and core.obs_shape == (N_OBS + N_ACTIONS,)


def test_the_advice_is_the_bots_action_for_the_seat_to_act():
    core = advised_core(CORE, TURNCOAT)
    bot = load_policy("heuristic", "lost_ranks", seed=0, keywords=TURNCOAT)
    rng = np.random.default_rng(0)
    state = core.new_game(core.make_config(**TURNCOAT), rng, {})
    checked = 0
    while not core.status(state)[0]:
        seat, mask = core.seat_to_act(state), core.legal_mask(state)
        plain, advised = CORE.observe(state, seat), core.observe(state, seat)
        np.testing.assert_array_equal(advised[:N_OBS], plain)
        advice = advised[N_OBS:]
        assert advice.sum() == 1 and advice[bot.act(plain, mask)] == 1
        assert mask[advice.argmax()]
        other = core.observe(state, (seat + 1) % 4)  # a seat not to act gets no advice
        assert not other[N_OBS:].any()
        checked += 1
        core.apply(state, int(rng.choice(np.flatnonzero(mask))), rng)
    assert checked > 50
    assert not core.observe(state, 0)[N_OBS:].any()  # the finished game: none


def test_the_training_env_gives_the_learner_its_advice():
    core = advised_core(CORE, {})
    bot = load_policy("heuristic", "lost_ranks", seed=0, keywords={})
    env = SelfPlayVecEnv(core, {}, 8, OpponentPool(0, 0, 1, 1, seed=0), 0.1, 1.0, seed=3)
    assert env.observation_space.shape == (N_OBS + N_ACTIONS,)
    obs = env.reset()
    rng = np.random.default_rng(1)
    for _ in range(60):
        masks = env.action_masks()
        for o, m in zip(obs, masks, strict=True):
            assert o[N_OBS + bot.act(o[:N_OBS], m)] == 1 and o[N_OBS:].sum() == 1
        obs, _, dones, infos = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        for i in np.flatnonzero(dones):
            assert infos[i]["terminal_observation"].shape == (N_OBS + N_ACTIONS,)


def follower_weights(gain: float = 8.0) -> dict[str, np.ndarray]:
    """An MLP whose only path is advice -> its action: it plays whatever the bot advises."""
    n_in = N_OBS + N_ACTIONS
    trunk = np.zeros((N_ACTIONS, n_in), np.float32)
    trunk[:, N_OBS:] = gain * np.eye(N_ACTIONS)
    eye = (gain * np.eye(N_ACTIONS)).astype(np.float32)
    zeros = np.zeros(N_ACTIONS, np.float32)
    return {
        "features_extractor.layers.0.weight": trunk,
        "features_extractor.layers.0.bias": zeros,
        "mlp_extractor.policy_net.0.weight": eye,
        "mlp_extractor.policy_net.0.bias": zeros,
        "action_net.weight": eye,
        "action_net.bias": zeros,
    }


def advised_file(path, weights=None, keywords=None):
    core = advised_core(CORE, keywords or {})
    actor = ActorMLP(weights or follower_weights())
    write_policy_file(path, actor, policy_meta(core, actor, 5, keywords or {}))
    return path


def test_a_network_that_follows_its_advice_plays_as_the_bot(tmp_path):
    path = advised_file(tmp_path / "follow.zip", keywords=TURNCOAT)
    follower = load_policy(f"ppo_argmax:{path}", "lost_ranks", seed=0, keywords=TURNCOAT)
    assert isinstance(follower.actor, AdvisedActor) and follower.meta["advice"] is True
    bot = load_policy("heuristic", "lost_ranks", seed=0, keywords=TURNCOAT)
    env = lost_ranks_env(**TURNCOAT)
    decisions = 0
    for game in range(3):
        env.reset(seed=game)
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            action = follower.act(obs["observation"], obs["action_mask"])
            assert action == bot.act(obs["observation"], obs["action_mask"])
            decisions += 1
            env.step(action)
    assert decisions > 300
    with pytest.raises(TypeError, match="needs the legal actions too"):
        follower.actor.logits(np.zeros((1, N_OBS), np.float32))


def test_advised_files_play_in_the_arena_and_are_refused_where_they_do_not_fit(tmp_path):
    path = advised_file(tmp_path / "follow.zip")
    report = run_arena(
        "lost_ranks", [f"follow=ppo:{path}", "heuristic"], games=2, seed=0, progress=False
    )
    assert set(report["ratings"]) == {"follow", "heuristic"}
    actor, _ = read_policy_file(path, advised_core(CORE, {}))  # the training side
    assert isinstance(actor, ActorMLP) and actor.n_inputs == N_OBS + N_ACTIONS
    with pytest.raises(CheckpointError, match=r"trained with --advice .*: give --advice"):
        read_policy_file(path, CORE)  # no keywords: a run's start, not play
    with pytest.raises(CheckpointError, match=r"trained with --advice .*: give --advice"):
        read_start_weights(path, CORE, (N_ACTIONS,), (N_ACTIONS,))
    plain = ActorMLP(
        follower_weights() | {"features_extractor.layers.0.weight": np.zeros((53, N_OBS))}
    )
    write_policy_file(tmp_path / "plain.zip", plain, policy_meta(CORE, plain, 5, {}))
    with pytest.raises(CheckpointError, match=r"trained without --advice .*: drop --advice"):
        read_start_weights(tmp_path / "plain.zip", advised_core(CORE, {}), (53,), (53,))


def test_an_advised_run_imitates_trains_and_resumes(tmp_path):
    config = dict(
        game="lost_ranks",
        advice=True,
        timesteps=1024,
        n_envs=8,
        n_steps=32,
        batch_size=128,
        n_epochs=1,
        trunk=(32,),
        heads=(16,),
        imitation_decisions=3000,
        imitation_epochs=2,
        snapshot_every=512,
        checkpoint_every=512,
        eval_every=1024,
        eval_games=4,
        arena_games=0,
        progress=False,
    )
    trainer = train(TrainConfig(**config), tmp_path / "run")
    assert advisor_of(trainer.core) is not None
    for name in ("imitation.zip", "model.zip"):
        actor, meta = read_policy_file(tmp_path / "run" / name, CORE, keywords={})
        assert meta["advice"] is True and isinstance(actor, AdvisedActor)
    assert list((tmp_path / "run" / "pool").glob("snapshot_*.zip"))
    resumed = train(TrainConfig(**config | {"timesteps": 1536}), tmp_path / "run", resume=True)
    assert resumed.model.num_timesteps == 1536 and advisor_of(resumed.core) is not None


def test_the_advisor_names_no_action_when_none_is_legal():
    advisor = Advisor("lost_ranks", {})
    assert not advisor.advise(np.zeros(N_OBS, np.float32), np.zeros(N_ACTIONS, bool)).any()


def test_the_command_line_starts_an_advised_run_from_an_advised_file(tmp_path):
    from test_cli import cli

    path = advised_file(tmp_path / "follow.zip")
    common = ("lost_ranks", "--init-from", str(path), "--trunk", "53", "--heads", "53")
    out = cli(*common, "--timesteps", "10")
    assert out.returncode == 2 and "trained with --advice" in out.stderr, out.stderr
    assert "give --advice" in out.stderr and "Traceback" not in out.stderr
    short = ("--n-envs", "4", "--n-steps", "32", "--batch-size", "64", "--eval-games", "0")
    out = cli(
        *common,
        "--advice",
        "--timesteps",
        "128",
        *short,
        "--arena-games",
        "0",
        "--no-progress",
        "--out",
        str(tmp_path / "run"),
    )
    assert out.returncode == 0, out.stderr
    _, meta = read_policy_file(tmp_path / "run", CORE, keywords={})
    assert meta["advice"] is True and meta["step"] == 128
