"""A whole training run on the toy core: files, logs, checkpoints and exact resume."""

from __future__ import annotations

import io
import json
import pickle
import shutil
import zipfile

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO
from toy_core import TOY4

import train.run as train_run
from agents.networks.actor import CheckpointError
from agents.networks.mlp import ActorMLP
from agents.networks.policy_file import read_policy_file
from train.config import TrainConfig, scaled_games
from train.evaluate import play_match
from train.policy import use_bf16
from train.pool import snapshot_name
from train.run import Interrupted, ResumeError, Trainer, remap_key, train
from train.vec_env import SelfPlayVecEnv


def config(**changes) -> TrainConfig:
    base = dict(
        game="toy4",
        timesteps=3072,
        n_envs=8,
        n_steps=32,
        batch_size=64,
        n_epochs=2,
        trunk=(16,),
        heads=(8,),
        snapshot_every=512,
        checkpoint_every=1024,
        eval_every=1024,
        eval_games=10,
        arena_games=0,
        progress=False,
        keywords={"hand_len": 5, "target_score": 12, "max_hands": 4},
    )
    return TrainConfig(**(base | changes))


def params(run_dir):
    model = MaskablePPO.load(run_dir / "model.zip", device="cpu")
    return model.num_timesteps, {k: v.clone() for k, v in model.policy.state_dict().items()}


def test_a_run_writes_its_files_and_logs(tmp_path):
    trainer = train(config(), tmp_path / "run", core=TOY4)
    run = tmp_path / "run"
    assert trainer.model.num_timesteps == 3072
    for name in (
        "config.json",
        "versions.json",
        "model.zip",
        "checkpoint/model.zip",
        "checkpoint/trainer.pkl",
        "metrics.jsonl",
    ):
        assert (run / name).is_file(), name
    assert list((run / "tb").glob("events.out.tfevents.*"))
    assert TrainConfig.from_json(json.loads((run / "config.json").read_text())) == config()
    versions = json.loads((run / "versions.json").read_text())
    assert {"python", "cpu", "torch", "stable-baselines3", "sb3-contrib", "numpy"} <= set(versions)
    assert versions["trunk_format"] == ("bfloat16" if use_bf16(config().precision) else "float32")
    snapshots = sorted(p.name for p in (run / "pool").glob("*.zip"))
    assert snapshots == [f"snapshot_{s}.zip" for s in (1024, 1536, 2048, 2560, 512)]
    _, meta = read_policy_file(run, TOY4)
    assert meta["step"] == 3072
    rows = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    keys = set().union(*rows)
    assert {
        "charts/episodic_return",
        "charts/SPS",
        "losses/value_loss",
        "losses/policy_loss",
        "losses/approx_kl",
        "eval/elo_vs_random",
        "charts/win_rate_vs_random",
    } <= keys
    assert all(k == "step" or k.split("/")[0] in ("charts", "losses", "eval") for k in keys)
    assert rows[-1]["step"] == 3072


def test_logger_keys_are_remapped():
    assert remap_key("rollout/ep_rew_mean") == "charts/episodic_return"
    assert remap_key("train/value_loss") == "losses/value_loss"
    assert remap_key("time/fps") == "charts/SPS"
    assert remap_key("eval/elo_vs_random") == "eval/elo_vs_random"


def interrupt_at(monkeypatch, target, method, call):
    """Raise KeyboardInterrupt on the ``call``-th call of ``target.method`` (as Ctrl-C would)
    by the training itself (the quick evaluation's 10-game env is not counted)."""
    original = getattr(target, method)
    count = [0]

    def wrapped(self, *args, **kwargs):
        count[0] += getattr(self, "num_envs", 8) == 8
        if count[0] == call:
            raise KeyboardInterrupt
        return original(self, *args, **kwargs)

    monkeypatch.setattr(target, method, wrapped)


@pytest.mark.parametrize(
    "where,precision,ends",
    [
        ("collecting", "fp32", {}),
        ("updating", "bf16", {}),
        ("updating", "fp32", {"learning_rate_end": 0.0, "ent_coef_end": 0.0}),
    ],
)
def test_interrupted_and_resumed_run_equals_an_uninterrupted_one(
    tmp_path, monkeypatch, where, precision, ends
):
    settings = dict(precision=precision, **ends)
    train(config(**settings), tmp_path / "a", core=TOY4)
    with monkeypatch.context() as patch:
        if where == "collecting":  # in the 6th rollout (steps 1280..1535)
            interrupt_at(patch, SelfPlayVecEnv, "step_wait", 5 * 32 + 10)
        else:  # in the 6th update, after the 6th rollout
            interrupt_at(patch, MaskablePPO, "train", 6)
        with pytest.raises(Interrupted) as stop:
            train(config(**settings), tmp_path / "b", core=TOY4)
    assert stop.value.step == 1280  # the start of the rollout it was in
    assert not (tmp_path / "b" / "model.zip").exists()
    saved = json.loads((tmp_path / "b" / "config.json").read_text())
    resumed = train(TrainConfig.from_json(saved), tmp_path / "b", core=TOY4, resume=True)
    assert resumed.model.num_timesteps == 3072
    steps_a, a = params(tmp_path / "a")
    steps_b, b = params(tmp_path / "b")
    assert steps_a == steps_b == 3072
    for key in a:
        torch.testing.assert_close(a[key], b[key], rtol=0, atol=0)
    pool_a = sorted(p.name for p in (tmp_path / "a" / "pool").iterdir())
    assert pool_a == sorted(p.name for p in (tmp_path / "b" / "pool").iterdir())


def test_the_step_size_and_entropy_fall_on_lines_to_their_end_values(tmp_path):
    rate, entropy = config().learning_rate, config().ent_coef
    train(config(learning_rate_end=rate / 4, ent_coef_end=-entropy), tmp_path / "line", core=TOY4)
    train(config(), tmp_path / "flat", core=TOY4)

    def logged(run, key):
        rows = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
        return [row[key] for row in rows if key in row]

    # 12 rollouts of 256 decisions: update k trains where its rollout began, (k - 1) / 12
    line = [k / 12 for k in range(12)]
    assert logged(tmp_path / "line", "charts/learning_rate") == pytest.approx(
        [rate + (rate / 4 - rate) * x for x in line]
    )
    assert logged(tmp_path / "line", "charts/ent_coef") == pytest.approx(
        [entropy - 2 * entropy * x for x in line]
    )
    assert logged(tmp_path / "flat", "charts/learning_rate") == pytest.approx([rate] * 12)
    assert logged(tmp_path / "flat", "charts/ent_coef") == pytest.approx([entropy] * 12)
    with pytest.raises(ValueError, match="--learning-rate-end must be at least 0, or -1"):
        TrainConfig(game="toy4", learning_rate_end=-0.5).check()
    with pytest.raises(ValueError, match="--ent-coef-end must be a number, or inf"):
        TrainConfig(game="toy4", ent_coef_end=float("nan")).check()


def test_resume_can_extend_a_finished_run(tmp_path):
    train(config(timesteps=1024), tmp_path / "run", core=TOY4)
    trainer = train(config(timesteps=2048), tmp_path / "run", core=TOY4, resume=True)
    assert trainer.model.num_timesteps == 2048


def test_an_extended_run_takes_its_step_size_on_the_line_to_its_new_end(tmp_path):
    rate = config().learning_rate
    train(config(timesteps=1024, learning_rate_end=0.0), tmp_path / "run", core=TOY4)
    train(config(timesteps=2048, learning_rate_end=0.0), tmp_path / "run", core=TOY4, resume=True)
    rows = (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()
    rates = [json.loads(r)["charts/learning_rate"] for r in rows if "learning_rate" in r]
    # 4 updates to 1024 on the first line, then 4 more on the line to 2048, from 1024 on
    assert rates == pytest.approx(
        [rate * (1 - k / 4) for k in range(4)] + [rate * (1 - k / 8) for k in range(4, 8)]
    )


def test_resume_without_a_checkpoint_fails_clearly(tmp_path):
    (tmp_path / "run").mkdir()
    with pytest.raises(ResumeError, match="cannot resume"):
        train(config(), tmp_path / "run", core=TOY4, resume=True)
    train(config(timesteps=256, checkpoint_every=256), tmp_path / "ok", core=TOY4)
    (tmp_path / "ok" / "checkpoint" / "trainer.pkl").write_bytes(b"garbage")
    with pytest.raises(ResumeError, match="cannot resume"):
        train(config(), tmp_path / "ok", core=TOY4, resume=True)


def test_checkpoints_name_the_snapshots_and_a_format_2_checkpoint_still_resumes(tmp_path):
    train(config(timesteps=1280), tmp_path / "b", core=TOY4)
    pool = tmp_path / "b" / "pool"
    steps = sorted(int(p.stem.removeprefix("snapshot_")) for p in pool.glob("*.zip"))
    assert len(steps) >= 2
    state = pickle.loads((tmp_path / "b" / "checkpoint" / "trainer.pkl").read_bytes())
    # The weights stay in pool/: a checkpoint no longer grows with every snapshot.
    assert state["format"] == 3 and state["pool"]["snapshots"] == steps
    old = [
        (s, read_policy_file(pool / f"{snapshot_name(s)}.zip", TOY4)[0].weights()) for s in steps
    ]
    state = state | {"format": 2, "pool": state["pool"] | {"snapshots": old}}
    for name in ("c", "d"):
        shutil.copytree(tmp_path / "b", tmp_path / name)
    (tmp_path / "c" / "checkpoint" / "trainer.pkl").write_bytes(pickle.dumps(state))
    missing = f"{snapshot_name(steps[0])}.zip"
    (tmp_path / "d" / "pool" / missing).unlink()
    with pytest.raises(ResumeError, match=f"cannot resume .*{missing}: no such file"):
        train(config(timesteps=2048), tmp_path / "d", core=TOY4, resume=True)
    for name in ("b", "c"):
        train(config(timesteps=2048), tmp_path / name, core=TOY4, resume=True)
    _, b = params(tmp_path / "b")
    _, c = params(tmp_path / "c")
    for key in b:
        torch.testing.assert_close(b[key], c[key], rtol=0, atol=0)


def test_quick_eval_rating_is_finite_and_ordered(tmp_path):
    trainer = train(config(timesteps=1024, eval_games=40), tmp_path / "run", core=TOY4)
    elo, low, high = trainer.last_rating
    assert low <= elo <= high and np.isfinite([elo, low, high]).all()


def test_a_run_can_start_from_another_run_s_network(tmp_path):
    train(config(timesteps=1024), tmp_path / "a", core=TOY4)
    _, trained = params(tmp_path / "a")
    second = Trainer(config(init_from=str(tmp_path / "a")), tmp_path / "b", core=TOY4)
    second.start()
    now = second.model.policy.state_dict()
    assert all(torch.equal(now[k], trained[k]) for k in trained)  # policy and value
    # A snapshot holds the policy only: that is taken, the value head starts fresh.
    snapshot = sorted((tmp_path / "a" / "pool").glob("*.zip"))[0]
    third = Trainer(config(init_from=str(snapshot)), tmp_path / "c", core=TOY4)
    third.start()
    x = np.random.default_rng(0).random((6, *TOY4.obs_shape)).astype(np.float32)
    actor, _ = read_policy_file(snapshot, TOY4)
    assert np.allclose(ActorMLP.from_policy(third.model.policy).logits(x), actor.logits(x))
    value = "value_net.weight"
    assert not torch.equal(third.model.policy.state_dict()[value], trained[value])


def test_a_start_network_of_other_sizes_is_refused(tmp_path):
    train(config(timesteps=512), tmp_path / "a", core=TOY4)
    other = config(trunk=(32,), init_from=str(tmp_path / "a"))
    with pytest.raises(CheckpointError, match="give --trunk 16 --heads 8"):
        Trainer(other, tmp_path / "b", core=TOY4).start()


def test_a_start_file_whose_weights_do_not_fit_is_refused(tmp_path):
    train(config(timesteps=1024), tmp_path / "a", core=TOY4)
    snapshot = sorted((tmp_path / "a" / "pool").glob("*.zip"))[0]
    with zipfile.ZipFile(snapshot) as archive:
        meta, raw = archive.read("feral.json"), archive.read("policy.pth")
    weights = torch.load(io.BytesIO(raw), weights_only=True)
    weights["extra.weight"] = weights.pop("action_net.weight")  # renamed: would load nothing
    buffer = io.BytesIO()
    torch.save(weights, buffer)
    bad = tmp_path / "bad.zip"
    with zipfile.ZipFile(bad, "w") as archive:
        archive.writestr("feral.json", meta)
        archive.writestr("policy.pth", buffer.getvalue())
    with pytest.raises(CheckpointError, match="do not fit this network"):
        Trainer(config(init_from=str(bad)), tmp_path / "b", core=TOY4).start()


def test_the_decisions_trained_are_recorded_as_sb3_trained_them(tmp_path, monkeypatch, capsys):
    # 300 asked, rollouts of 8 games x 32 steps = 256 decisions: SB3 trains two rollouts.
    counted = []
    step = Trainer.on_step
    monkeypatch.setattr(
        Trainer,
        "on_step",
        lambda self, infos, dones: counted.append(len(dones)) or step(self, infos, dones),
    )
    c = config(timesteps=300, eval_games=0)
    assert c.trained_timesteps == 512
    trainer = train(c, tmp_path / "run", core=TOY4)
    assert sum(counted) == trainer.model.num_timesteps == c.trained_timesteps == 512
    rows = [
        json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()
    ]
    assert rows[-1]["charts/trained_timesteps"] == 512 == rows[-1]["step"]
    assert read_policy_file(tmp_path / "run", TOY4)[1]["step"] == 512
    err = capsys.readouterr().err
    assert "training 512 learner decisions (--timesteps 300 rounded up to whole PPO rollouts" in err
    assert "trained 512 learner decisions" in err


@pytest.mark.parametrize(
    "trained, most, games",
    [
        (512, 400, 20),
        (20_000, 400, 20),
        (100_000, 400, 100),
        (100_001, 400, 102),
        (199_000, 200, 200),
        (10**6, 200, 200),
        (10**6, 400, 400),
    ],
)
def test_scaled_evaluation_games_follow_the_documented_rule(trained, most, games):
    assert scaled_games(trained, most) == games


def test_the_end_of_run_evaluation_scales_with_the_run_unless_given():
    tiny = TrainConfig(game="hidden_ranks", timesteps=4096)  # the defaults: -1, scaled
    assert (tiny.trained_timesteps, tiny.eval_game_count, tiny.arena_game_count) == (8192, 20, 20)
    long = TrainConfig(game="hidden_ranks", timesteps=500_000)
    assert (long.eval_game_count, long.arena_game_count) == (200, 400)  # the former defaults
    given = TrainConfig(game="hidden_ranks", timesteps=4096, eval_games=7, arena_games=5)
    assert (given.eval_game_count, given.arena_game_count) == (7, 6)  # the arena's deals twice
    with pytest.raises(ValueError, match="--arena-games must be at least 0, or -1 to scale"):
        TrainConfig(game="hidden_ranks", arena_games=-2).check()


def test_a_tiny_run_plays_its_scaled_evaluation_games(tmp_path, monkeypatch, capsys):
    played = []
    monkeypatch.setattr(
        train_run, "play_match", lambda *a, **k: played.append(a[4]) or play_match(*a, **k)
    )
    trainer = train(config(timesteps=256, eval_games=-1), tmp_path / "run", core=TOY4)
    assert trainer.config.eval_game_count == 20
    assert played and set(played) == {20}  # every quick evaluation: at the start and the end
    assert "then a quick evaluation of 20 games and no final arena" in capsys.readouterr().err


def test_the_final_arena_plays_the_scaled_games_per_pair(tmp_path, monkeypatch):
    import agents.arena

    class Played(Exception):
        pass

    def run_arena(game, specs, games, **options):
        raise Played(games, specs)

    monkeypatch.setattr(agents.arena, "run_arena", run_arena)
    c = TrainConfig(game="lost_heir", timesteps=60_000, n_envs=8, n_steps=32, batch_size=64)
    trainer = Trainer(c, tmp_path / "run")
    trainer.start()
    with pytest.raises(Played) as played:
        trainer.final_arena()
    games, specs = played.value.args
    assert games == c.arena_game_count == 62  # 60,160 decisions trained: 61 games, made even
    final = tmp_path / "run" / "model.zip"
    assert specs == [f"final=ppo:{final}", f"greedy=ppo_argmax:{final}", "random", "heuristic"]


def test_resume_replays_the_final_arena_of_an_extended_run_and_keeps_a_finished_one(tmp_path):
    """An extended run rates its new final policy afresh (the old policy's arena record is
    dropped, not an error); a resume with nothing left to train continues the record."""
    base = dict(
        game="hidden_ranks",
        keywords={"mode": "quick", "max_moves": 40},
        timesteps=256,
        n_envs=4,
        n_steps=32,
        batch_size=64,
        n_epochs=1,
        trunk=(16,),
        heads=(8,),
        snapshot_every=256,
        checkpoint_every=256,
        eval_every=256,
        eval_games=2,
        arena_games=2,
        arena_snapshots=0,
        progress=False,
    )
    run = tmp_path / "run"
    record = run / "arena" / "records.jsonl"
    first = train(TrainConfig(**base), run)
    played = len(first.arena["records"])
    assert played == len(record.read_text().splitlines()) > 0
    extended = train(TrainConfig(**base | {"timesteps": 512}), run, resume=True)
    assert extended.model.num_timesteps == 512 and extended.learned_steps == 256
    assert len(record.read_text().splitlines()) == played  # replaced, not appended to
    kept = record.read_bytes()
    again = train(TrainConfig(**base | {"timesteps": 512}), run, resume=True)
    assert again.learned_steps == 0 and record.read_bytes() == kept
    assert again.arena["records"] == extended.arena["records"]
