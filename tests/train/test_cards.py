"""The card network of Lost Ranks (train/cards.py): each card's action reads that card's own
bits, its frozen copy equals the trained network, its files load, and it trains."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO

from feral_envs.lost_ranks.encoding import OBS
from train.cards import CARD_BLOCKS, TABLE_INDEX, TRUNK, ActorCards
from train.config import TrainConfig, game_core
from train.policy import (
    CheckpointError,
    actor_from_policy,
    add_meta,
    network,
    policy_meta,
    read_policy_file,
    read_policy_weights,
    read_start_weights,
    write_policy_file,
)
from train.pool import OpponentPool
from train.run import train
from train.vec_env import SelfPlayVecEnv

CORE = game_core("lost_ranks")


def card_model(widths=(16, 16), heads=(8,), n_envs=6):
    env = SelfPlayVecEnv(CORE, {}, n_envs, OpponentPool(0, 0, 1, 1, seed=0), 0.1, 1.0, seed=0)
    policy_class, kwargs = network((64,), heads, (), widths)
    model = MaskablePPO(
        policy_class, env, n_steps=8, batch_size=48, seed=0, policy_kwargs=kwargs, device="cpu"
    )
    return env, model


def played(env, steps, seed=0):
    """Observations and masks after ``steps`` random decisions in every game."""
    rng = np.random.default_rng(seed)
    obs = env.reset()
    for _ in range(steps):
        masks = env.action_masks()
        obs, *_ = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
    return obs, env.action_masks()


def one_block_weights(block: int, table: int | None = None) -> dict[str, np.ndarray]:
    """Weights whose logit of card ``c`` is bit ``c`` of card block ``block`` (plus table
    entry ``table``, the same for every card)."""
    w = {
        "bits.weight": np.zeros((1, len(CARD_BLOCKS)), np.float32),
        "bits.bias": np.zeros(1, np.float32),
        "identity.weight": np.zeros((1, 53), np.float32),
        "table.weight": np.zeros((1, len(TABLE_INDEX)), np.float32),
    }
    w["bits.weight"][0, block] = 1.0
    if table is not None:
        w["table.weight"][0, list(TABLE_INDEX).index(table)] = 1.0
    out = {f"{TRUNK}.{k}": v for k, v in w.items()}
    out["mlp_extractor.policy_out.weight"] = np.ones((1, 1), np.float32)
    out["mlp_extractor.policy_out.bias"] = np.zeros(1, np.float32)
    return out


def test_each_cards_action_reads_that_cards_own_bits():
    # Every 53-wide block, in turn the only input: the logits are that block, card by card
    # (hand, Trump Card, passes, cards played by each seat, trick, piles).
    env = SelfPlayVecEnv(CORE, {}, 8, OpponentPool(0, 0, 1, 1, seed=0), 0.1, 1.0, seed=0)
    obs, _ = played(env, 40)
    assert [s.name for s in CARD_BLOCKS][:3] == ["hand", "trump_card", "passed_to_partner"]
    assert len(CARD_BLOCKS) == 16
    for k, span in enumerate(CARD_BLOCKS):
        logits = ActorCards(one_block_weights(k)).logits(obs)
        np.testing.assert_array_equal(logits, obs[:, span.start : span.stop])
        assert obs[:, span.start : span.stop].any() or span.name.startswith(("trick", "void"))
    # a table entry (here: the first of the trump suit) adds the same to every card
    table = OBS.trump_suit.start
    logits = ActorCards(one_block_weights(0, table)).logits(obs)
    np.testing.assert_array_equal(
        logits, obs[:, OBS.hand.start : OBS.hand.stop] + obs[:, table : table + 1]
    )


def test_the_frozen_actor_gives_the_networks_distribution():
    env, model = card_model()
    obs, masks = played(env, 30)
    actor = actor_from_policy(model.policy)
    assert (actor.cards, actor.heads, actor.n_actions) == ((16, 16), (8,), 53)
    with torch.no_grad():
        dist = model.policy.get_distribution(torch.as_tensor(obs), action_masks=masks)
        want = dist.distribution.probs.numpy()
    logits = actor.logits(obs)
    assert np.abs(logits).max() < 0.5  # small initial logits: near uniform
    logits[~masks] = -np.inf
    got = np.exp(logits - logits.max(1, keepdims=True))
    np.testing.assert_allclose(got / got.sum(1, keepdims=True), want, atol=1e-6)


def test_card_policy_files_round_trip_and_refuse_other_networks(tmp_path):
    env, model = card_model()
    obs, _ = played(env, 10)
    actor = actor_from_policy(model.policy)
    meta = policy_meta(CORE, actor, 5, {})
    assert (meta["cards"], meta["heads"], meta["board"], meta["trunk"]) == ([16, 16], [8], [], [])
    write_policy_file(tmp_path / "snap.zip", actor, meta)
    model.save(tmp_path / "model.zip")
    add_meta(tmp_path / "model.zip", meta)
    for name in ("snap.zip", "model.zip"):
        loaded, got = read_policy_file(tmp_path / name, CORE)
        assert isinstance(loaded, ActorCards) and got["cards"] == [16, 16]
        np.testing.assert_array_equal(loaded.logits(obs), actor.logits(obs))
    again = MaskablePPO.load(tmp_path / "model.zip", env=env, device="cpu")
    np.testing.assert_array_equal(actor_from_policy(again.policy).logits(obs), actor.logits(obs))
    assert read_start_weights(tmp_path / "model.zip", CORE, (64,), (8,), (), (16, 16))
    with pytest.raises(
        CheckpointError,
        match="network of --cards 16 16 --heads 8; this run builds --trunk 64 --heads 8",
    ):
        read_start_weights(tmp_path / "model.zip", CORE, (64,), (8,))


def test_broken_card_weights_are_refused_by_name():
    good = one_block_weights(0)
    with pytest.raises(CheckpointError, match=r"missing: bits\.bias"):
        ActorCards({k: v for k, v in good.items() if not k.endswith("bits.bias")})
    with pytest.raises(CheckpointError, match=r"policy_out\.bias"):
        ActorCards({k: v for k, v in good.items() if "policy_out.bias" not in k})
    with pytest.raises(CheckpointError, match="do not chain"):
        ActorCards(good | {f"{TRUNK}.identity.weight": np.zeros((2, 53), np.float32)})


def lr_config(**changes) -> TrainConfig:
    base = dict(
        game="lost_ranks",
        timesteps=768,
        n_envs=4,
        n_steps=32,
        batch_size=64,
        n_epochs=2,
        cards=(8, 8),
        heads=(8,),
        snapshot_every=256,
        checkpoint_every=256,
        eval_every=512,
        eval_games=4,
        arena_games=0,
        progress=False,
    )
    return TrainConfig(**(base | changes))


def test_a_card_run_resumes_exactly_and_its_snapshots_play(tmp_path):
    train(lr_config(), tmp_path / "a", core=CORE)
    train(lr_config(timesteps=512), tmp_path / "b", core=CORE)
    saved = json.loads((tmp_path / "b" / "config.json").read_text())
    assert saved["cards"] == [8, 8]
    resumed = train(
        TrainConfig.from_json(saved | {"timesteps": 768}), tmp_path / "b", core=CORE, resume=True
    )
    assert resumed.model.num_timesteps == 768
    want, _, _ = read_policy_weights(tmp_path / "a", CORE)
    got = resumed.model.policy.state_dict()
    assert any(k.startswith(TRUNK) for k in want)
    for key, value in want.items():
        torch.testing.assert_close(got[key], value, rtol=0, atol=0)
    snapshots = sorted((tmp_path / "b" / "pool").glob("*.zip"))
    assert len(snapshots) >= 2
    for snapshot in snapshots:
        actor, meta = read_policy_file(snapshot, CORE)
        assert isinstance(actor, ActorCards) and meta["cards"] == [8, 8]
