"""``python -m agents.arena`` as a user runs it: output, exit codes, a killed run resumed."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import toy_games
from toy_games import SMALL, landed_games

from agents.arena import run_arena
from agents.random_policy import RandomPolicy


@pytest.fixture
def toys(monkeypatch):
    """The toy games and their heuristic bots, reachable as if they were real."""
    toy_games.register(monkeypatch)
    toy_games.made_with.clear()
    return toy_games


ROOT = Path(__file__).resolve().parents[2]
TOY_CLI = str(Path(__file__).parent / "toy_arena_cli.py")
ENV = {
    **os.environ,
    "PYTHONPATH": os.pathsep.join(filter(None, [os.environ.get("PYTHONPATH"), str(ROOT)])),
}


def run(*arguments, toy=True, timeout=120):
    command = [sys.executable, TOY_CLI] if toy else [sys.executable, "-m", "agents.arena"]
    return subprocess.run(
        [*command, *map(str, arguments)],
        cwd=ROOT,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_a_run_prints_and_writes_the_leaderboard(tmp_path):
    out = tmp_path / "run"
    done = run(
        "toy_duel",
        "--agents",
        "random",
        "heuristic",
        "--games",
        6,
        "--out",
        out,
        "--no-progress",
        "--bootstrap",
        100,
    )
    assert done.returncode == 0, done.stderr
    assert "| 1 | heuristic |" in done.stdout and "Score % of the row agent" in done.stdout
    for name in (
        "records.jsonl",
        "leaderboard.md",
        "leaderboard.csv",
        "scores.csv",
        "ratings.json",
        "ratings.png",
    ):
        assert (out / name).stat().st_size > 0
    assert len((out / "records.jsonl").read_text().splitlines()) == 6


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["toy_duel", "--agents", "random", "nope", "--games", 2], "unknown policy spec 'nope'"),
        (
            ["toy_duel", "--agents", "random", "ppo:/no/such.zip", "--games", 2],
            "checkpoint '/no/such.zip' does not exist",
        ),
        (["toy_duel", "--agents", "random", "heuristic", "--games", 0], "positive even"),
        (["toy_duel", "--agents", "random", "heuristic", "--games", 3], "positive even"),
        (
            ["toy_duel", "--agents", "random", "heuristic", "--games", 2, "--variant", "low"],
            "toy_duel does not take variant",
        ),
        (
            ["toy_cards", "--agents", "random", "heuristic", "--games", 2, "--variant", "odd"],
            "variant='odd' is not allowed",
        ),
        (
            ["toy_duel", "--agents", "random", "heuristic", "--games", 2, "--anchor", "hero"],
            "--anchor 'hero' is not one of the agents: random, heuristic",
        ),
    ],
)
def test_bad_input_exits_2_with_one_line(tmp_path, arguments, message):
    done = run(*arguments, "--out", tmp_path / "run")
    assert done.returncode == 2
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert done.stderr.startswith("python -m agents.arena: error: ")
    assert not (tmp_path / "run").exists()


def test_unknown_game_exits_2():
    done = run("no_game", "--agents", "random", "heuristic", "--games", 2, toy=False)
    assert done.returncode == 2
    assert "unknown game 'no_game'" in done.stderr and len(done.stderr.splitlines()) == 1


def test_argparse_errors_exit_2():
    assert run("toy_duel", "--games", 2, toy=False).returncode == 2  # no --agents
    assert (
        run("toy_duel", "--agents", "random", "heuristic", "--games", "x", toy=False).returncode
        == 2
    )
    done = run("toy_duel", "--agents", "random", "heuristic", "--games", 2, "--resume", toy=False)
    assert done.returncode == 2 and "--resume needs" in done.stderr


def test_a_record_of_another_game_exits_2_and_is_kept(tmp_path):
    assert (
        run(
            "toy_cards",
            "--agents",
            "random",
            "heuristic",
            "--games",
            2,
            "--out",
            tmp_path,
            "--no-progress",
        ).returncode
        == 0
    )
    before = (tmp_path / "records.jsonl").read_bytes()
    for extra in ([], ["--resume"]):
        done = run(
            "toy_duel", "--agents", "random", "heuristic", "--games", 2, "--out", tmp_path, *extra
        )
        assert done.returncode == 2 and len(done.stderr.splitlines()) == 1
    assert "game 'toy_cards' (this run: 'toy_duel')" in done.stderr
    assert (tmp_path / "records.jsonl").read_bytes() == before


def test_a_killed_run_resumes_to_the_same_games(toys, monkeypatch, tmp_path):
    arguments = [
        "toy_duel",
        "--agents",
        "random",
        "slow",
        "--games",
        300,
        "--out",
        tmp_path,
        "--seed",
        4,
        "--no-progress",
        "--bootstrap",
        50,
    ]
    command = [sys.executable, TOY_CLI, *map(str, arguments)]
    process = subprocess.Popen(
        command, cwd=ROOT, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    record = tmp_path / "records.jsonl"
    deadline = time.time() + 60
    while time.time() < deadline and (not record.exists() or record.read_text().count("\n") < 20):
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait()
    kept = record.read_text().count("\n")
    assert 20 <= kept < 300
    done = run(*arguments, "--resume")
    assert done.returncode == 0, done.stderr
    assert "of 300 games already recorded" in done.stderr  # said without the progress bar
    lines = record.read_text().splitlines()
    assert len(lines) == 300
    # The same games as one uninterrupted run ("slow" is random that sleeps).
    from agents import registry

    monkeypatch.setattr(registry, "_LOADERS", dict(registry._LOADERS))
    registry.register_loader("slow", lambda argument, game, seed, kw: RandomPolicy(seed, "slow"))
    whole = run_arena("toy_duel", ["random", "slow"], 300, seed=4, progress=False, n_bootstrap=0)
    strip = lambda r: {k: v for k, v in r.items() if k != "seconds"}  # noqa: E731
    assert [strip(json.loads(line)) for line in lines] == [strip(r) for r in whole["records"]]


@pytest.mark.parametrize(
    "game", landed_games() or [pytest.param(None, marks=pytest.mark.skip("no game yet"))]
)
def test_real_game_from_the_command_line(game, tmp_path):
    flags = [str(x) for k, v in SMALL[game].items() for x in (f"--{k.replace('_', '-')}", v)]
    common = ["--agents", "random", "b=random", "--games", 2, "--no-progress"]
    done = run(game, *common, "--out", tmp_path, "--bootstrap", 20, *flags, toy=False)
    assert done.returncode == 0, done.stderr
    assert "| random |" in done.stdout and "| b |" in done.stdout
    assert len((tmp_path / "records.jsonl").read_text().splitlines()) == 2
    foreign = "--max-moves" if game != "hidden_ranks" else "--target-score"
    done = run(game, *common, foreign, 5, toy=False)
    assert done.returncode == 2 and f"{game} does not take" in done.stderr
    assert len(done.stderr.splitlines()) == 1


def test_bootstrap_0_says_there_are_no_intervals(tmp_path):
    arguments = ["toy_duel", "--agents", "random", "heuristic", "--games", 2, "--no-progress"]
    done = run(*arguments, "--out", tmp_path, "--bootstrap", 0)
    assert done.returncode == 0, done.stderr
    assert "no intervals (--bootstrap 0" in done.stdout and "95% bootstrap" not in done.stdout
    assert "no intervals" in (tmp_path / "leaderboard.md").read_text()
    done = run(*arguments, "--out", tmp_path / "b", "--bootstrap", 30)
    assert "95% bootstrap intervals (30 replicates)" in done.stdout


def test_resume_notes_are_said_without_the_progress_bar(tmp_path):
    arguments = ["toy_duel", "--agents", "random", "heuristic", "--out", tmp_path, "--no-progress"]
    assert run(*arguments, "--games", 4, "--bootstrap", 0).returncode == 0
    done = run(*arguments, "--games", 2, "--bootstrap", 0, "--resume")
    assert done.returncode == 0, done.stderr
    assert "arena: resuming: 2 of 2 games already recorded" in done.stderr
    assert "2 recorded games are not in this schedule" in done.stderr
