"""The board network of Hidden Ranks (train/board.py): its moves are scored from their
squares, its frozen copy equals the trained network, its files load, and it trains."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from conftest import masked_probs
from sb3_contrib import MaskablePPO

from agents.networks.actor import CheckpointError
from agents.networks.board import ActorBoard, BoardNet
from agents.networks.policy_file import (
    actor_from_policy,
    policy_meta,
    read_policy_file,
    read_policy_weights,
    write_policy_file,
)
from feral_envs import game_core
from feral_envs.hidden_ranks.encoding import OBS
from feral_envs.hidden_ranks_v0 import raw_env
from train.config import TrainConfig
from train.policy import add_meta, network, read_start_weights
from train.pool import OpponentPool
from train.run import train
from train.vec_env import SelfPlayVecEnv

CORE = game_core("hidden_ranks")
QUICK = {"mode": "quick"}


def board_model(channels=(8, 8), heads=(16,), n_envs=6):
    env = SelfPlayVecEnv(CORE, QUICK, n_envs, OpponentPool(0, 0, 1, 1, seed=0), 0.0, 1.0, seed=0)
    policy_class, kwargs = network((64,), heads, channels)
    model = MaskablePPO(
        policy_class, env, n_steps=8, batch_size=48, seed=0, policy_kwargs=kwargs, device="cpu"
    )
    return env, model


def midgame(env, steps=40, seed=0):
    """Observations and masks after ``steps`` random moves in every game (past the setup)."""
    rng = np.random.default_rng(seed)
    obs = env.reset()
    for _ in range(steps):
        masks = env.action_masks()
        obs, *_ = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
    return obs, env.action_masks()


def hand_made_weights(plane: int) -> dict[str, np.ndarray]:
    """One channel that is ``symlog`` of observation plane ``plane``; no placement or
    from-square scores; every move scores that channel on its landing square."""
    conv = np.zeros((1, OBS.size, 3, 3), np.float32)
    conv[0, plane, 1, 1] = 1.0
    weights = {"features_extractor.convs.0.weight": conv}
    for name, out in (("policy_place", 1), ("policy_origin", 36), ("policy_target", 4)):
        weights[f"mlp_extractor.{name}.weight"] = np.zeros((out, 1, 1, 1), np.float32)
    weights["mlp_extractor.policy_target.weight"][:] = 1.0
    for name in (
        "features_extractor.convs.0",
        *(f"mlp_extractor.policy_{n}" for n in ("place", "origin", "target")),
    ):
        weights[name + ".bias"] = np.zeros(len(weights[name + ".weight"]), np.float32)
    return weights


@pytest.mark.parametrize("to_move", ["gold", "silver"])
def test_a_move_is_scored_by_the_square_it_lands_on(to_move):
    # Gold's Scout on b2 can run up the b file to the unknown silver General on b6 (a
    # strike) or stop short; silver's Scout on h9 can run down the h file to gold's unknown
    # Captain on h7. With weights that score only "an enemy piece of unknown rank stands on
    # the landing square", exactly the strike scores log(2) = symlog(1); all else scores 0.
    env = raw_env(mode="quick")
    gold = {"a1": "F", "b2": "2", "h7": "9"}
    silver = {"j10": "F", "h9": "2", "b6": "9"}
    env.reset(options={"position": {"gold": gold, "silver": silver}, "to_move": to_move})
    actor = ActorBoard(hand_made_weights(OBS.enemy_unknown.start))
    seen = env.observe(to_move)
    logits = actor.logits(seen["observation"][None])[0]
    scores = {env.action_to_string(int(a)): logits[a] for a in np.flatnonzero(seen["action_mask"])}
    strike = "b2-b6" if to_move == "gold" else "h9-h7"
    short = {"gold": {"b2-b3", "b2-b4", "b2-b5"}, "silver": {"h9-h8"}}[to_move]
    assert short <= set(scores)  # the runs short of the strike are legal and score 0
    assert scores.pop(strike) == pytest.approx(np.log(2.0))
    assert set(scores.values()) == {0.0}


def test_the_frozen_actor_gives_the_networks_distribution():
    env, model = board_model()
    obs, masks = midgame(env)
    obs = obs * 3  # counts above 1 exercise symlog
    actor = actor_from_policy(model.policy)
    assert (actor.board, actor.heads, actor.n_actions) == ((8, 8), (16,), CORE.n_actions)
    with torch.no_grad():
        dist = model.policy.get_distribution(torch.as_tensor(obs), action_masks=masks)
        want = dist.distribution.probs.numpy()
    np.testing.assert_allclose(masked_probs(actor.logits(obs), masks), want, atol=1e-6)
    # the fresh policy starts near uniform over the legal moves (small initial logits)
    assert np.abs(actor.logits(obs)).max() < 0.5
    picks = actor.act(obs, masks, np.random.default_rng(0))
    assert masks[np.arange(len(obs)), picks].all()


def test_the_torch_board_network_without_sb3_is_sb3s_network():
    # BoardNet (agents/networks/board.py) loads the SB3 board policy's weights by name and
    # gives its logits and value.
    env, model = board_model()
    obs, _ = midgame(env)
    obs = torch.as_tensor(obs * 3)
    net = BoardNet(obs.shape[-1], (8, 8), (16,))
    net.load_state_dict(
        {k: v for k, v in model.policy.state_dict().items() if k in net.state_dict()}
    )
    with torch.no_grad():
        latent_pi, latent_vf = model.policy.mlp_extractor(model.policy.extract_features(obs))
        np.testing.assert_allclose(net.logits(obs), model.policy.action_net(latent_pi), atol=1e-6)
        want_value = model.policy.value_net(latent_vf)[:, 0]
        np.testing.assert_allclose(net.value(obs), want_value, atol=1e-6)
    assert sorted(net.state_dict()) == sorted(
        k for k in model.policy.state_dict() if not k.startswith(("pi_", "vf_"))
    )


def test_board_policy_files_round_trip_and_refuse_other_networks(tmp_path):
    env, model = board_model()
    obs, _ = midgame(env, steps=20)
    actor = actor_from_policy(model.policy)
    meta = policy_meta(CORE, actor, 7, QUICK)
    assert (meta["board"], meta["heads"], meta["trunk"]) == ([8, 8], [16], [])
    write_policy_file(tmp_path / "snap.zip", actor, meta)
    model.save(tmp_path / "model.zip")
    add_meta(tmp_path / "model.zip", meta)
    for name in ("snap.zip", "model.zip"):
        loaded, got = read_policy_file(tmp_path / name, CORE)
        assert isinstance(loaded, ActorBoard) and got["board"] == [8, 8]
        np.testing.assert_array_equal(loaded.logits(obs), actor.logits(obs))
    again = MaskablePPO.load(tmp_path / "model.zip", env=env, device="cpu")  # resume path
    np.testing.assert_array_equal(actor_from_policy(again.policy).logits(obs), actor.logits(obs))
    assert read_start_weights(tmp_path / "model.zip", CORE, (64,), (16,), (8, 8))
    with pytest.raises(
        CheckpointError,
        match="has a network of --board 8 8 --heads 16; this run builds --trunk 64 --heads 16",
    ):
        read_start_weights(tmp_path / "model.zip", CORE, (64,), (16,))
    with pytest.raises(CheckpointError, match="give --board 8 8 --heads 16"):
        read_start_weights(tmp_path / "model.zip", CORE, (64,), (16,), (8, 8, 8))


def test_broken_board_weights_are_refused_by_name():
    good = hand_made_weights(0)
    for broken, message in [
        ({k: v for k, v in good.items() if "convs" not in k}, "without convolutions"),
        ({k: v for k, v in good.items() if "policy_target.bias" not in k}, "policy_target.bias"),
        (good | {"mlp_extractor.policy_origin.weight": np.zeros((36, 2, 1, 1))}, "do not chain"),
        (good | {"features_extractor.convs.0.weight": np.zeros((1, 71, 5, 5))}, "not 3x3"),
        (
            good | {"mlp_extractor.policy_origin.weight": np.zeros((35, 1, 1, 1))},
            r"give \(1, 35, 4\)",
        ),
    ]:
        with pytest.raises(CheckpointError, match=message):
            ActorBoard(broken)


def hr_config(**changes) -> TrainConfig:
    base = dict(
        game="hidden_ranks",
        timesteps=768,
        n_envs=4,
        n_steps=32,
        batch_size=64,
        n_epochs=2,
        board=(4, 4),
        heads=(8,),
        snapshot_every=256,
        checkpoint_every=256,
        eval_every=512,
        eval_games=4,
        arena_games=0,
        progress=False,
        keywords=dict(QUICK),
    )
    return TrainConfig(**(base | changes))


def test_a_board_run_resumes_exactly_and_its_snapshots_play(tmp_path):
    train(hr_config(), tmp_path / "a", core=CORE)
    train(hr_config(timesteps=512), tmp_path / "b", core=CORE)
    saved = json.loads((tmp_path / "b" / "config.json").read_text())
    assert saved["board"] == [4, 4]
    resumed = train(
        TrainConfig.from_json(saved | {"timesteps": 768}), tmp_path / "b", core=CORE, resume=True
    )
    assert resumed.model.num_timesteps == 768
    want, _, _ = read_policy_weights(tmp_path / "a", CORE)  # the uninterrupted run's model
    got = resumed.model.policy.state_dict()
    assert any(k.startswith("features_extractor.convs.") for k in want)
    for key, value in want.items():
        torch.testing.assert_close(got[key], value, rtol=0, atol=0)
    snapshots = sorted((tmp_path / "b" / "pool").glob("*.zip"))
    assert len(snapshots) >= 2
    for snapshot in snapshots:
        actor, meta = read_policy_file(snapshot, CORE)
        assert isinstance(actor, ActorBoard) and meta["board"] == [4, 4]
