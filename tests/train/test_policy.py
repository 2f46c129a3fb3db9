"""Policy files: the numpy actor equals the trained network; loading refuses what it should."""

from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pytest
import torch
from conftest import REAL_CORES, masked_probs
from sb3_contrib import MaskablePPO
from toy_core import TOY2, TOY4

from agents.networks.actor import CheckpointError
from agents.networks.mlp import ActorMLP, MLPNet
from agents.networks.policy_file import (
    layout_fingerprint,
    policy_meta,
    read_policy_file,
    write_policy_file,
)
from agents.ppo import PPOPolicy
from train.policy import add_meta, policy_kwargs, use_bf16
from train.pool import OpponentPool
from train.vec_env import SelfPlayVecEnv


def small_model(core, trunk=(32, 16), heads=(8,), bf16=False):
    env = SelfPlayVecEnv(core, {}, 4, OpponentPool(0, 0, 1, 1, seed=0), 0.1, 1.0, seed=0)
    return env, MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=8,
        batch_size=16,
        seed=0,
        policy_kwargs=policy_kwargs(trunk, heads, bf16),
        device="cpu",
    )


@pytest.mark.parametrize("trunk,heads", [((32, 16), (8,)), ((16,), ()), ((), (8, 8))])
def test_numpy_actor_gives_the_networks_distribution(trunk, heads):
    env, model = small_model(TOY4, trunk, heads)
    obs = env.reset() * 7 - 20  # large and negative inputs exercise symlog
    actor = ActorMLP.from_policy(model.policy)
    assert (actor.trunk, actor.heads) == (trunk, heads)
    masks = env.action_masks()
    with torch.no_grad():
        dist = model.policy.get_distribution(torch.as_tensor(obs), action_masks=masks)
        want = dist.distribution.probs.numpy()
    np.testing.assert_allclose(masked_probs(actor.logits(obs), masks), want, atol=1e-5)


def test_precision_auto_means_bf16_where_the_cpu_has_amx_tiles():
    assert not use_bf16("fp32") and use_bf16("bf16")
    assert use_bf16("auto") == torch.cpu._is_amx_tile_supported()


def test_a_bf16_trunk_computes_the_same_network_in_float32_out():
    # --precision bf16: the trunk's products in bfloat16 under autocast; its weights, its
    # outputs and the policy files stay float32, and the distribution is the float32
    # network's within bfloat16's rounding.
    env, exact = small_model(TOY4, (64,), (32,))
    _, rounded = small_model(TOY4, (64,), (32,), bf16=True)
    rounded.policy.load_state_dict(exact.policy.state_dict())
    obs = torch.as_tensor(env.reset() * 7 - 20)
    masks = env.action_masks()
    features = rounded.policy.extract_features(obs, rounded.policy.features_extractor)
    assert features.dtype == torch.float32
    assert all(p.dtype == torch.float32 for p in rounded.policy.parameters())
    with torch.no_grad():
        want = exact.policy.get_distribution(obs, action_masks=masks).distribution.probs
        got = rounded.policy.get_distribution(obs, action_masks=masks).distribution.probs
    assert not torch.equal(got, want)  # it did compute in bfloat16
    torch.testing.assert_close(got, want, rtol=0, atol=2e-2)
    weights = ActorMLP.from_policy(rounded.policy).weights()
    assert all(w.dtype == np.float32 for w in weights.values())


@pytest.mark.parametrize("trunk,heads", [((32, 16), (8,)), ((), (8, 8))])
def test_the_torch_network_without_sb3_is_sb3s_network(trunk, heads):
    # MLPNet (agents/networks/mlp.py) takes an SB3 policy's weights under the same names and
    # gives its logits and value: the one MLP forward pass for any training backend.
    env, model = small_model(TOY4, trunk, heads)
    obs = torch.as_tensor(env.reset() * 7 - 20)
    net = MLPNet(obs.shape[1], TOY4.n_actions, trunk, heads)
    sb3 = {k: v for k, v in model.policy.state_dict().items() if k in net.state_dict()}
    net.load_state_dict(sb3)  # strict: every MLPNet weight has its SB3 namesake
    with torch.no_grad():
        features = model.policy.extract_features(obs)
        latent_pi, latent_vf = model.policy.mlp_extractor(features)
        want_logits = model.policy.action_net(latent_pi)
        want_value = model.policy.value_net(latent_vf)[:, 0]
        np.testing.assert_allclose(net.logits(obs), want_logits, atol=1e-6)
        np.testing.assert_allclose(net.value(obs), want_value, atol=1e-6)
    actor = ActorMLP.from_policy(net)
    np.testing.assert_allclose(actor.logits(obs.numpy()), want_logits, atol=1e-5)


def test_sampled_and_greedy_actions_are_legal_and_follow_the_distribution():
    env, model = small_model(TOY4)
    obs = env.reset()
    masks = env.action_masks()
    actor = ActorMLP.from_policy(model.policy)
    rng = np.random.default_rng(0)
    picks = np.stack([actor.act(obs, masks, rng) for _ in range(3000)])
    assert masks[np.arange(len(obs)), picks].all()
    logits = actor.logits(obs)
    logits[~masks] = -np.inf
    probs = np.exp(logits - logits.max(1, keepdims=True))
    probs /= probs.sum(1, keepdims=True)
    freq = np.stack([(picks == a).mean(0) for a in range(TOY4.n_actions)], axis=1)
    np.testing.assert_allclose(freq, probs, atol=0.04)
    greedy = actor.act(obs, masks, rng, deterministic=True)
    np.testing.assert_array_equal(greedy, logits.argmax(1))


def test_policy_file_round_trip(tmp_path):
    env, model = small_model(TOY4)
    actor = ActorMLP.from_policy(model.policy)
    meta = policy_meta(TOY4, actor, 123, {"max_hands": 3})
    write_policy_file(tmp_path / "snap.zip", actor, meta)
    model.save(tmp_path / "model.zip")
    add_meta(tmp_path / "model.zip", meta)
    obs = env.reset()
    for name in ("snap.zip", "model.zip"):
        loaded, got_meta = read_policy_file(tmp_path / name, TOY4)
        assert got_meta["step"] == 123 and got_meta["game"] == "toy4"
        np.testing.assert_allclose(loaded.logits(obs), actor.logits(obs), atol=1e-6)
    # an SB3 save with our entry still loads in SB3 (resume) with the same weights
    again = MaskablePPO.load(tmp_path / "model.zip", env=env, device="cpu")
    np.testing.assert_allclose(ActorMLP.from_policy(again.policy).logits(obs), actor.logits(obs))
    # a run directory resolves to its model.zip
    loaded, _ = read_policy_file(tmp_path, TOY4)
    policy = PPOPolicy(loaded, meta, "ppo:x", seed=1)
    mask = env.action_masks()[0]
    for _ in range(50):
        assert mask[policy.act(obs[0], mask.astype(np.int8))]


@pytest.fixture
def files(tmp_path):
    _, model = small_model(TOY4)
    actor = ActorMLP.from_policy(model.policy)
    good = tmp_path / "good.zip"
    write_policy_file(good, actor, policy_meta(TOY4, actor, 1, {}))
    return tmp_path, good, actor


def rewrite(src, dst, **entries):
    with zipfile.ZipFile(src) as a, zipfile.ZipFile(dst, "w") as b:
        for name in a.namelist():
            b.writestr(name, entries.pop(name, a.read(name)))
        for name, data in entries.items():
            b.writestr(name, data)


def test_loading_refuses_what_is_not_a_policy_of_this_game(files):
    tmp, good, _ = files
    (tmp / "notes.txt").write_text("hello")
    with pytest.raises(CheckpointError, match="not a readable zip"):
        read_policy_file(tmp / "notes.txt", TOY4)
    with pytest.raises(CheckpointError, match="no such file"):
        read_policy_file(tmp / "missing.zip", TOY4)
    with zipfile.ZipFile(tmp / "other.zip", "w") as z:
        z.writestr("data", "{}")
    with pytest.raises(CheckpointError, match="not a Feral Envs PPO checkpoint"):
        read_policy_file(tmp / "other.zip", TOY4)
    with pytest.raises(CheckpointError, match="for 'toy4', not 'toy2'"):
        read_policy_file(good, TOY2)
    meta = json.loads(zipfile.ZipFile(good).read("feral.json"))
    rewrite(good, tmp / "layout.zip", **{"feral.json": json.dumps(meta | {"layout": "0" * 16})})
    with pytest.raises(CheckpointError, match="another observation/action layout"):
        read_policy_file(tmp / "layout.zip", TOY4)
    rewrite(good, tmp / "format.zip", **{"feral.json": json.dumps(meta | {"format": "x"})})
    with pytest.raises(CheckpointError, match="unknown format"):
        read_policy_file(tmp / "format.zip", TOY4)
    rewrite(good, tmp / "json.zip", **{"feral.json": "{not json"})
    with pytest.raises(CheckpointError, match="not JSON"):
        read_policy_file(tmp / "json.zip", TOY4)
    (tmp / "empty_dir").mkdir()
    with pytest.raises(CheckpointError, match=r"no model\.zip"):
        read_policy_file(tmp / "empty_dir", TOY4)


class Boom:
    """Unpickling this would run code: weights-only loading must refuse it."""

    def __reduce__(self):
        return (print, ("unpickled!",))


def test_loading_never_unpickles_objects(files, capsys):
    tmp, good, actor = files
    buffer = io.BytesIO()
    torch.save({"action_net.weight": Boom()}, buffer)
    rewrite(good, tmp / "evil.zip", **{"policy.pth": buffer.getvalue()})
    with pytest.raises(CheckpointError, match="not a plain weights file"):
        read_policy_file(tmp / "evil.zip", TOY4)
    assert "unpickled!" not in capsys.readouterr().out
    weights = {k: torch.from_numpy(v) for k, v in actor.weights().items()}
    weights["action_net.weight"] = weights["action_net.weight"][:, :3]
    buffer = io.BytesIO()
    torch.save(weights, buffer)
    rewrite(good, tmp / "shapes.zip", **{"policy.pth": buffer.getvalue()})
    with pytest.raises(CheckpointError, match="do not chain"):
        read_policy_file(tmp / "shapes.zip", TOY4)


@pytest.mark.parametrize("core", REAL_CORES, ids=lambda c: c.name)
def test_layout_fingerprints_tell_the_games_apart(core):
    others = {layout_fingerprint(c) for c in REAL_CORES if c is not core}
    assert layout_fingerprint(core) not in others
    assert layout_fingerprint(core) == layout_fingerprint(core)


def test_ppo_argmax_plays_the_most_likely_legal_action_and_ppo_samples(tmp_path):
    from agents.registry import load_policy
    from feral_envs.hidden_ranks import CORE as HR

    env = SelfPlayVecEnv(HR, {"mode": "quick"}, 4, OpponentPool(0, 0, 1, 1, seed=0), 0.0, 1.0)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=8,
        batch_size=16,
        seed=0,
        device="cpu",
        policy_kwargs=policy_kwargs((16,), (8,)),
    )
    actor = ActorMLP.from_policy(model.policy)
    path = tmp_path / "snap.zip"
    write_policy_file(path, actor, policy_meta(HR, actor, 7, {"mode": "quick"}))
    greedy = load_policy(f"ppo_argmax:{path}", "hidden_ranks", 1, {"mode": "quick"})
    sampler = load_policy(f"ppo:{path}", "hidden_ranks", 1, {"mode": "quick"})
    assert greedy.spec == f"ppo_argmax:{path}"
    obs, masks = env.reset(), env.action_masks()
    for i in range(4):
        logits = np.where(masks[i], actor.logits(obs[i : i + 1])[0], -np.inf)
        best = int(np.argmax(logits))
        assert {greedy.act(obs[i], masks[i].astype(np.int8)) for _ in range(20)} == {best}
        picks = {sampler.act(obs[i], masks[i].astype(np.int8)) for _ in range(200)}
        assert len(picks) > 1 and all(masks[i][a] for a in picks)  # sampling: more than one
    with pytest.raises(FileNotFoundError, match=r"gone\.zip"):
        load_policy(f"ppo_argmax:{tmp_path / 'gone.zip'}", "hidden_ranks", 1)
