"""Smoke runs of ``python -m train`` on every game, and Ctrl-C then ``--resume`` (slow)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from conftest import FAST_KEYWORDS, REAL_CORES
from test_cli import ROOT, cli

import feral_envs
from agents.networks.policy_file import read_policy_file
from agents.registry import load_policy

TINY = (
    "--n-envs",
    "8",
    "--n-steps",
    "32",
    "--batch-size",
    "64",
    "--snapshot-every",
    "128",
    "--checkpoint-every",
    "256",
    "--eval-every",
    "256",
    "--eval-games",
    "4",
    "--arena-games",
    "2",
    "--arena-snapshots",
    "1",
    "--no-progress",
)


def flags(game: str) -> list[str]:
    out = []
    for key, value in FAST_KEYWORDS[game].items():
        out += [f"--{key.replace('_', '-')}", str(value)]
    return out


@pytest.mark.slow
@pytest.mark.parametrize("core", REAL_CORES, ids=lambda c: c.name)
def test_train_a_few_hundred_steps_then_play_it_in_the_arena(core, tmp_path):
    game, run = core.name, tmp_path / "run"
    out = cli(
        game,
        *("--timesteps", "512", "--imitation-decisions", "256", "--out", str(run)),
        *TINY,
        *flags(game),
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert (run / "checkpoint" / "model.zip").is_file() and (run / "model.zip").is_file()
    _, meta = read_policy_file(run, core)
    assert meta["step"] == 512 and meta["game"] == game
    board = json.loads((run / "leaderboard.json").read_text())
    assert {row["agent"] for row in board["leaderboard"]} >= {"final", "greedy", "random"}
    relative = {row["agent"]: row for row in board["leaderboard_vs_heuristic"]}
    assert relative["heuristic"]["elo"] == 0 and set(relative) == {
        r["agent"] for r in board["leaderboard"]
    }
    assert "| final |" in (run / "leaderboard.md").read_text()
    # The checkpoint as an arena player: every action it picks is legal (env raises if not).
    keywords = FAST_KEYWORDS[game]
    policy = load_policy(f"ppo:{run}", game, seed=0, keywords=keywords)
    env = feral_envs.make(game, **keywords)
    for seed in range(2):
        env.reset(seed=seed)
        policy.reset(seed)
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            action = (
                None
                if terminated or truncated
                else policy.act(obs["observation"], obs["action_mask"])
            )
            if action is not None:
                assert obs["action_mask"][action] == 1
            env.step(action)


@pytest.mark.slow
@pytest.mark.parametrize(
    "stop, ignore_sigint, code",
    [
        (signal.SIGINT, False, 130),  # Ctrl-C
        (signal.SIGTERM, True, 143),  # `kill` of a run in the background (which ignores SIGINT)
    ],
    ids=["ctrl_c", "kill"],
)
def test_a_stop_signal_writes_a_checkpoint_and_resume_finishes_the_run(
    tmp_path, stop, ignore_sigint, code
):
    run = tmp_path / "run"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    args = [
        sys.executable,
        "-m",
        "train",
        "lost_heir",
        "--timesteps",
        "30000",
        "--out",
        str(run),
        "--n-envs",
        "8",
        "--n-steps",
        "32",
        "--batch-size",
        "64",
        "--checkpoint-every",
        "512",
        "--eval-games",
        "0",
        "--arena-games",
        "0",
        "--imitation-decisions",
        "0",
        "--no-progress",
    ]
    process = subprocess.Popen(
        args,
        cwd=ROOT,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(
            signal.SIGINT, signal.SIG_IGN if ignore_sigint else signal.SIG_DFL
        ),
    )
    deadline = time.time() + 300
    while not (run / "checkpoint" / "trainer.pkl").exists() and time.time() < deadline:
        time.sleep(0.2)
    process.send_signal(stop)
    _, err = process.communicate(timeout=300)
    assert process.returncode == code, err[-3000:]
    assert "continue with: python -m train lost_heir --resume" in err
    core = REAL_CORES[0]
    stopped = read_policy_file(run / "checkpoint" / "model.zip", core)[1]["step"]
    assert 0 < stopped < 30_000 and stopped % 256 == 0  # a rollout boundary
    assert not (run / "model.zip").exists()
    config = (run / "config.json").read_text()
    out = cli("lost_heir", "--resume", str(run), timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    assert (run / "config.json").read_text() == config
    assert read_policy_file(run, core)[1]["step"] == 30_208  # 118 rollouts of 256, as planned
