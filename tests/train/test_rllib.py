"""The RLlib backend (``--backend rllib``): its env, its masking module and its policy files
(fast, no Ray started); tiny runs per game, ``--resume`` and a run on a cluster of our own
(slow: each starts Ray). Skipped where the ``rllib`` extra is not installed."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
from conftest import FAST_KEYWORDS
from test_cli import ROOT

pytest.importorskip("ray.rllib")

import feral_envs
from agents.registry import load_policy
from agents.rllib import MaskedNet, PolicyFileError, read_policy, write_policy
from train.rllib import env as rl_env
from train.rllib.env import LEARNER, SelfPlayMultiAgentEnv

GAMES = feral_envs.GAMES
TINY = (
    "--backend",
    "rllib",
    "--num-env-runners",
    "1",
    "--n-envs",
    "4",
    "--n-steps",
    "64",
    "--batch-size",
    "128",
    "--n-epochs",
    "1",
    "--snapshot-every",
    "200",
    "--checkpoint-every",
    "200",
    "--eval-every",
    "100000",
    "--eval-games",
    "2",
    "--arena-games",
    "2",
    "--arena-snapshots",
    "1",
    "--no-progress",
)


def env_of(game: str, **weights: float) -> SelfPlayMultiAgentEnv:
    w = {"snapshot": 0.0, "heuristic": 0.0, "random": 1.0, **weights}
    return SelfPlayMultiAgentEnv(
        {
            "game": game,
            "keywords": FAST_KEYWORDS[game],
            "points_scale": 0.1,
            "win_reward": 1.0,
            "weights": w,
            "pool_size": 2,
            "seed": 5,
        }
    )


def play_out(env: SelfPlayMultiAgentEnv, seed: int, rng: np.random.Generator) -> dict:
    """One game with uniform legal actions for every agent RLlib would be asked about."""
    obs, _ = env.reset(seed=seed)
    returns: dict[str, float] = {}
    while True:
        assert len(obs) == 1, "turn-based: exactly one agent acts at a time"
        ((agent, view),) = obs.items()
        assert env.observation_spaces[agent].contains(view)
        legal = np.flatnonzero(view["action_mask"])
        assert len(legal), "an agent asked to act has a legal action"
        obs, rewards, terminated, truncated, infos = env.step({agent: int(rng.choice(legal))})
        for a, r in rewards.items():
            returns[a] = returns.get(a, 0.0) + r
        if terminated["__all__"] or truncated["__all__"]:
            assert terminated["__all__"] != truncated["__all__"]
            assert all(not v["action_mask"].any() for v in obs.values())
            return {"returns": returns, "info": infos[LEARNER], "final": set(obs)}


@pytest.mark.parametrize("game", GAMES)
def test_env_plays_whole_games_against_random_and_heuristic(game):
    rng = np.random.default_rng(0)
    results = set()
    for seed, weights in enumerate([{}, {"heuristic": 1.0, "random": 0.0}] * 2):
        env = env_of(game, **weights)
        out = play_out(env, seed, rng)
        info = out["info"]
        assert info["opponent"] == ("heuristic" if weights else "random")
        assert out["final"] == {LEARNER}, "in-env opponents are never RLlib agents"
        assert info["result"] in ("win", "loss", "draw", "truncated")
        # The return is the shaped lead plus the result, as the SB3 env credits it.
        outcome = {"win": 1.0, "loss": -1.0, "draw": 0.0, "truncated": 0.0}[info["result"]]
        assert out["returns"][LEARNER] == pytest.approx(0.1 * info["lead"] + outcome, abs=1e-6)
        results.add(info["result"])
    assert results


def test_a_game_over_before_any_decision_is_replaced_not_handed_to_rllib_empty():
    """Hidden Ranks quick, random setups: the random side's moves end about 1 game in 600
    before the learner's first decision. reset() must still hand RLlib exactly one agent to
    act (an empty dict made the env runner's next step fail with KeyError 'learner', and
    RLlib then restarted the runner 60 s apart, for 15 minutes in CI)."""
    env = env_of("hidden_ranks")
    rng = np.random.default_rng(2)
    for seed in range(1000):
        obs, _ = env.reset(seed=seed)
        assert len(obs) == 1, f"seed {seed}: {sorted(obs)}"
        ((agent, view),) = obs.items()
        assert agent == LEARNER and view["action_mask"].any()
    assert env.replaced_games > 0, "the scan met no game that ended before a decision"
    play_out(env, 42, rng)


@pytest.mark.parametrize("game", GAMES)
def test_a_snapshot_opponent_is_an_agent_of_its_own_module_with_the_mirror_reward(game):
    rng = np.random.default_rng(1)
    rl_env.set_pool(filled=2, newest=1)
    try:
        env = env_of(game, snapshot=1.0, random=0.0)
        out = play_out(env, 3, rng)
    finally:
        rl_env.set_pool(0, -1)
    opponent = out["info"]["opponent"]
    assert opponent in ("snap0", "snap1")
    assert out["final"] == {LEARNER, opponent}
    assert rl_env.agent_to_module(opponent) == opponent
    assert out["returns"][opponent] == pytest.approx(-out["returns"][LEARNER], abs=1e-6)


def test_the_module_masks_illegal_actions_and_shares_the_trunk_with_the_value():
    import torch
    from ray.rllib.core.columns import Columns

    from train.rllib.module import MaskedPPOModule

    env = env_of("lost_heir")
    module = MaskedPPOModule(
        observation_space=env.observation_spaces[LEARNER],
        action_space=env.action_spaces[LEARNER],
        model_config={"trunk": [16], "heads": [8]},
    )
    obs, _ = env.reset(seed=0)
    view = obs[LEARNER]
    batch = {
        Columns.OBS: {
            "observation": torch.as_tensor(view["observation"])[None],
            "action_mask": torch.as_tensor(view["action_mask"])[None],
        }
    }
    out = module.forward_train(batch)
    logits = out[Columns.ACTION_DIST_INPUTS][0]
    probs = torch.softmax(logits, -1).detach().numpy()
    assert probs[view["action_mask"] == 0].max() == 0.0
    assert probs[view["action_mask"] == 1].sum() == pytest.approx(1.0)
    values = module.compute_values(batch, out[Columns.EMBEDDINGS])
    assert values.shape == (1,)
    assert torch.allclose(values, module.compute_values(batch))


def test_policy_files_round_trip_and_play_without_ray(tmp_path):
    from feral_envs import game_core

    core = game_core("lost_heir")
    net = MaskedNet(int(np.prod(core.obs_shape)), core.n_actions, (16,), (8,))
    meta = {
        "game": "lost_heir",
        "obs_shape": list(core.obs_shape),
        "n_actions": core.n_actions,
        "trunk": [16],
        "heads": [8],
        "step": 7,
        "keywords": {},
    }
    write_policy(tmp_path / "policy", net, meta)
    back, read_meta = read_policy(tmp_path, "lost_heir")
    assert read_meta["step"] == 7
    for key, value in net.state_dict().items():
        assert np.array_equal(back.state_dict()[key].numpy(), value.numpy())
    with pytest.raises(PolicyFileError, match="lost_heir policy, not hidden_ranks"):
        read_policy(tmp_path, "hidden_ranks")
    with pytest.raises(PolicyFileError, match="holds no RLlib-backend policy"):
        read_policy(tmp_path / "pool")
    # Loading and playing it as an arena spec imports neither Ray nor train.
    fast = FAST_KEYWORDS["lost_heir"]
    code = (
        "import sys, feral_envs\n"
        "from agents.registry import load_policy\n"
        f"p = load_policy('rllib_argmax:{tmp_path}', 'lost_heir', 0, {fast})\n"
        f"env = feral_envs.make('lost_heir', **{fast})\n"
        "env.reset(seed=1)\n"
        "for agent in env.agent_iter():\n"
        "    obs, _, te, tr, _ = env.last()\n"
        "    env.step(None if te or tr else p.act(obs['observation'], obs['action_mask']))\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('ray', 'train')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[]"
    # Terminal play: the policy is the other side; the bots' moves are shown, then we leave.
    spec = f"rllib:{tmp_path}"
    args = ["--opponents", spec, "--partner", "random", "--seat", "east"]
    play = subprocess.run(
        [sys.executable, "-m", "play.terminal", "lost_heir", *args],
        input="quit\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert play.returncode == 0, play.stderr[-2000:]
    assert f"north: {spec} (opponent)" in play.stdout and "You left the game." in play.stdout


def _cli(*args: str, env: dict | None = None, timeout: float = 900):
    environ = dict(os.environ, PYTHONPATH=str(ROOT), **(env or {}))
    return subprocess.run(
        [sys.executable, "-m", "train", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        env=environ,
    )


@pytest.fixture
def ray_dir():
    """A short temp dir of the test's own for Ray's sessions (its socket paths must stay
    under 108 bytes, too short for pytest's tmp_path), removed afterwards."""
    path = Path(tempfile.mkdtemp(prefix="fray", dir="/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _ray_env(tmp_path: Path, ray_dir: Path) -> dict:
    """A token of the test's own (not ~/.ray/auth_token) and a temp dir of its own."""
    token = tmp_path / "auth_token"
    if not token.exists():
        token.write_text(secrets.token_hex(32))
    return {
        "RAY_AUTH_MODE": "token",
        "RAY_AUTH_TOKEN_PATH": str(token),
        "RAY_TMPDIR": str(ray_dir),
    }


def _check_run(run: Path, game: str, steps: int) -> None:
    trainer = json.loads((run / "checkpoint" / "trainer.json").read_text())
    assert trainer["step"] >= steps
    _, meta = read_policy(run, game)
    assert meta["step"] == trainer["step"] and meta["game"] == game
    config = json.loads((run / "config.json").read_text())
    assert config["backend"] == "rllib"
    rows = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    assert any("losses/policy_loss" in row for row in rows)
    assert any("charts/SPS" in row for row in rows)
    board = json.loads((run / "leaderboard.json").read_text())
    assert {row["agent"] for row in board["leaderboard"]} >= {"final", "greedy", "random"}
    keywords = FAST_KEYWORDS[game]
    policy = load_policy(f"rllib:{run}", game, seed=0, keywords=keywords)
    env = feral_envs.make(game, **keywords)
    env.reset(seed=0)
    policy.reset(0)
    for _agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        legal = None if terminated or truncated else obs
        env.step(None if legal is None else policy.act(obs["observation"], obs["action_mask"]))


def _flags(game: str) -> list[str]:
    return [f"--{k.replace('_', '-')}={v}" for k, v in FAST_KEYWORDS[game].items()]


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_a_tiny_local_run_then_resume_and_play_it(game, tmp_path, ray_dir):
    run = tmp_path / "run"
    env = _ray_env(tmp_path, ray_dir)
    out = _cli(game, "--timesteps", "300", "--out", str(run), *TINY, *_flags(game), env=env)
    assert out.returncode == 0, out.stderr[-4000:]
    _check_run(run, game, 300)
    assert list((run / "pool").iterdir()), "a snapshot was taken"
    first = json.loads((run / "checkpoint" / "trainer.json").read_text())["step"]
    out = _cli(game, "--resume", str(run), "--timesteps", str(first + 200), env=env)
    assert out.returncode == 0, out.stderr[-4000:]
    again = json.loads((run / "checkpoint" / "trainer.json").read_text())
    assert again["step"] >= first + 200 and again["iteration"] > first // 256
    _check_run(run, game, first + 200)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_a_run_on_a_head_node_of_its_own_through_address(tmp_path, ray_dir):
    """Starts a head node on 127.0.0.1 with its own port, token and temp dir, trains on it
    through --address, then stops exactly that node: its own processes, by their ids."""
    psutil = pytest.importorskip("psutil")

    env = _ray_env(tmp_path, ray_dir)
    environ = dict(os.environ, **env)
    port = _free_port()
    ray_bin = str(Path(sys.executable).parent / "ray")
    temp_dir = ray_dir / "head"
    start = subprocess.run(
        [
            ray_bin,
            "start",
            "--head",
            "--node-ip-address=127.0.0.1",
            f"--port={port}",
            "--num-cpus=2",
            "--include-dashboard=false",
            f"--temp-dir={temp_dir}",
            "--disable-usage-stats",
        ],
        capture_output=True,
        text=True,
        env=environ,
        timeout=300,
    )
    try:
        assert start.returncode == 0, start.stderr[-3000:]
        run = tmp_path / "run"
        out = _cli(
            "lost_heir",
            "--timesteps",
            "200",
            "--out",
            str(run),
            "--address",
            f"127.0.0.1:{port}",
            *TINY,
            *_flags("lost_heir"),
            env=env,
        )
        assert out.returncode == 0, out.stderr[-4000:]
        _check_run(run, "lost_heir", 200)
    finally:
        stop_own_node(temp_dir, psutil)


def stop_own_node(temp_dir: Path, psutil) -> None:
    """Kill the processes whose command line names ``temp_dir`` (the head node's own
    session: gcs_server, raylet, ...) and their children (its workers, which rename
    themselves ``ray::...``), never another Ray's."""
    mine: dict[int, object] = {}
    for process in psutil.process_iter(["pid", "cmdline"]):
        try:
            cmdline = " ".join(process.info["cmdline"] or [])
            if str(temp_dir) in cmdline and process.pid != os.getpid():
                mine[process.pid] = process
                for child in process.children(recursive=True):
                    mine[child.pid] = child
        except psutil.Error:
            pass
    mine = list(mine.values())
    for process in mine:
        try:
            process.terminate()
        except psutil.NoSuchProcess:
            pass
    _, alive = psutil.wait_procs(mine, timeout=20)
    for process in alive:
        process.kill()


def test_a_ctrl_c_whose_interrupt_is_swallowed_is_still_remembered():
    """The training loop stops on a Ctrl-C even where the KeyboardInterrupt it raised was
    caught on its way (as inside Ray's and RLlib's calls), and the handlers come back."""
    import signal
    import time

    from train.rllib.backend import _hold_stop_signals

    before = signal.getsignal(signal.SIGINT)
    held = _hold_stop_signals()
    try:
        assert held.signum is None
        with pytest.raises(KeyboardInterrupt):  # Ctrl-C still interrupts at once
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)
        try:  # a call that swallows it
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)
        except KeyboardInterrupt:
            pass
        assert held.signum == signal.SIGINT
    finally:
        held.release()
    assert signal.getsignal(signal.SIGINT) is before


@pytest.mark.slow
def test_ctrl_c_writes_a_checkpoint_and_exits_130_then_resume_continues(tmp_path, ray_dir):
    import signal
    import time

    run = tmp_path / "run"
    environ = dict(os.environ, PYTHONPATH=str(ROOT), **_ray_env(tmp_path, ray_dir))
    args = [sys.executable, "-m", "train", "lost_heir", "--timesteps", "100000"]
    args += ["--out", str(run), *TINY, *_flags("lost_heir")]
    process = subprocess.Popen(
        args, cwd=ROOT, env=environ, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.time() + 600
        while not (run / "checkpoint" / "trainer.json").exists() and time.time() < deadline:
            assert process.poll() is None, process.stderr.read()[-3000:]
            time.sleep(1)
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=300)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, stderr[-3000:]
    assert "interrupted: checkpoint at step" in stderr
    step = json.loads((run / "checkpoint" / "trainer.json").read_text())["step"]
    assert step > 0
    again = _ray_env(tmp_path, ray_dir)
    out = _cli("lost_heir", "--resume", str(run), "--timesteps", str(step + 200), env=again)
    assert out.returncode == 0, out.stderr[-4000:]
    assert json.loads((run / "checkpoint" / "trainer.json").read_text())["step"] >= step + 200


def _env_runners(ray_dir: Path, psutil) -> list:
    """The env runner processes of the Ray session under ``ray_dir`` (not another test's)."""
    found = []
    for p in psutil.process_iter(["cmdline"]):
        try:
            if (p.info["cmdline"] or [""])[0].startswith("ray::MultiAgentEnvRunner") and (
                p.environ().get("RAY_TMPDIR") == str(ray_dir)
            ):
                found.append(p)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            pass
    return found


@pytest.mark.slow
def test_a_killed_env_runner_is_restarted_and_one_past_its_restarts_stops_the_run(
    tmp_path, ray_dir
):
    """SIGKILL the run's env runner: RLlib restarts it and training goes on. Kill it past
    ENV_RUNNER_RESTARTS: the run stops with exit 1 and a message naming its checkpoint
    after STALL_S, where RLlib alone would return empty iterations for ever."""
    import time

    psutil = pytest.importorskip("psutil")
    from train.rllib.backend import ENV_RUNNER_RESTARTS, STALL_S

    run = tmp_path / "run"
    environ = dict(os.environ, PYTHONPATH=str(ROOT), **_ray_env(tmp_path, ray_dir))
    args = [sys.executable, "-m", "train", "hidden_ranks", "--timesteps", "1000000"]
    args += ["--out", str(run), *TINY, *_flags("hidden_ranks")]
    log = (tmp_path / "stderr").open("w")
    process = subprocess.Popen(
        args, cwd=ROOT, env=environ, stdout=subprocess.DEVNULL, stderr=log, text=True
    )

    def step() -> int:
        path = run / "checkpoint" / "trainer.json"
        return json.loads(path.read_text())["step"] if path.exists() else -1

    def wait(what, seconds: float):
        deadline = time.time() + seconds
        while time.time() < deadline:
            assert process.poll() is None, (tmp_path / "stderr").read_text()[-3000:]
            if value := what():
                return value
            time.sleep(0.5)
        return None

    try:
        killed: set[int] = set()

        def fresh() -> list:
            return [p for p in _env_runners(ray_dir, psutil) if p.pid not in killed]

        for kill in range(ENV_RUNNER_RESTARTS + 1):
            runners = wait(fresh, 300)
            assert runners, f"no env runner up before kill {kill + 1}"
            if kill == 0:  # built and trained: a runner killed while RLlib still builds
                # the algorithm (slow on a loaded machine) fails the build, not a restart
                assert wait(lambda: step() > 0, 300), "no checkpoint before the first kill"
            elif kill == 1:  # the first restart sampled and trained: the run went on
                at = step()
                assert wait(lambda at=at: step() > at, 300), "no checkpoint after the restart"
            else:
                time.sleep(3)
            for p in runners:
                killed.add(p.pid)
                p.kill()
        assert not wait(fresh, 30), "a runner came back past its restarts"
        rc = process.wait(timeout=STALL_S + 240)
    finally:
        if process.poll() is None:
            process.kill()
        log.close()
    stderr = (tmp_path / "stderr").read_text()
    assert rc == 1, stderr[-3000:]
    assert f"sampled nothing for {STALL_S:.0f} s" in stderr
    assert f"its last checkpoint is at step {step()} in {run}" in stderr
    assert f"--resume {run}" in stderr
    assert f"{ray_dir}/ray/session_latest/logs" in stderr, "where Ray's worker logs are"


def test_the_docs_give_the_fault_tolerance_constants_of_the_code():
    from train.rllib import backend

    text = (ROOT / "docs" / "rllib.md").read_text()
    assert f"`ENV_RUNNER_RESTARTS` = {backend.ENV_RUNNER_RESTARTS} times" in text
    assert f"{backend.ENV_RUNNER_RESTART_DELAY_S:.0f} s apart (`train/rllib/backend.py`" in text
    assert f"`STALL_S` = {backend.STALL_S:.0f} s" in text


def test_the_lost_runners_message_says_where_the_worker_logs_are(monkeypatch, tmp_path):
    from train.config import TrainConfig
    from train.rllib.backend import RunnersLost, ray_logs

    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.setenv("RAY_TMPDIR", str(tmp_path))
    local = str(RunnersLost(tmp_path / "run", 4096, ray_logs(TrainConfig())))
    assert f"in {tmp_path}/ray/session_latest/logs on this machine" in local
    assert f"its last checkpoint is at step 4096 in {tmp_path / 'run'}" in local
    joined = ray_logs(TrainConfig(address="10.0.0.5:6379"))
    assert "each node of the cluster" in joined and str(tmp_path) not in joined
    monkeypatch.setenv("RAY_ADDRESS", "10.0.0.5:6379")
    assert ray_logs(TrainConfig()) == joined
    assert "no checkpoint" in str(RunnersLost(tmp_path, None, joined))
