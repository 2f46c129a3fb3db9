"""``python -m train`` as a user runs it: help, bad input (exit 2), a short real run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from train.config import GAME_DEFAULTS

ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "train", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        env=env,
    )


def test_help_lists_games_and_the_games_keywords():
    out = cli("--help")
    assert out.returncode == 0
    assert "lost_heir, lost_ranks, hidden_ranks" in out.stdout and "--timesteps" in out.stdout
    out = cli("hidden_ranks", "--help")
    assert out.returncode == 0
    for flag in ("--max-moves", "--mode", "--setup", "--n-envs", "--resume", "--out", "--seed"):
        assert flag in out.stdout
    assert "--reward" not in out.stdout  # training sets its own reward


@pytest.mark.parametrize(
    "args,message",
    [
        ((), "give the game to train"),
        (("chess",), "unknown game 'chess'; games: lost_heir, lost_ranks, hidden_ranks"),
        (("lost_ranks", "--variant", "spies"), "variant='spies' is not allowed"),
        (("lost_heir", "--max-moves", "5"), "the game keywords here are --target-score"),
        (("lost_heir", "--timesteps", "many"), "invalid int value: 'many'"),
        (("lost_heir", "--batch-size", "1000"), "must divide n_steps * n_envs"),
        (("lost_heir", "--resume", "/nonexistent/run"), "no readable config.json"),
        (("lost_heir", "--init-from", "/no/such.zip"), "/no/such.zip: no such file"),
        (
            ("lost_heir", "--material-scale", "0.1"),
            "--material-scale needs a game of pieces (hidden_ranks); lost_heir has none",
        ),
        (
            ("lost_ranks", "--board", "32", "32"),
            "--board needs a board game (hidden_ranks); lost_ranks has no board",
        ),
        (("hidden_ranks", "--board", "32", "0"), "--board needs positive layer sizes"),
        (
            ("hidden_ranks", "--board", "32", "--trunk", "256"),
            "--trunk is unused with --board (its convolutions are the trunk): drop --trunk, "
            "or drop --board to train the MLP",
        ),
        (
            ("lost_heir", "--par"),
            "--par needs a game whose heuristic is deterministic and memoryless (lost_ranks)",
        ),
        (("lost_ranks", "--par", "--points-scale", "0"), "--par counts round points"),
        (
            ("hidden_ranks", "--advice"),
            "--advice needs a game whose heuristic is deterministic and memoryless "
            "(lost_ranks); hidden_ranks's is not",
        ),
        (
            ("lost_heir", "--init-from", "x.zip", "--imitation-decisions", "10"),
            "give --init-from or --imitation-decisions, not both",
        ),
        (
            ("lost_heir", "--learning-rate-end", "-0.5"),
            "--learning-rate-end must be at least 0, or -1 for a constant step size, got -0.5",
        ),
        (
            ("lost_heir", "--precision", "fp16"),
            "--precision must be one of auto, fp32, bf16, got 'fp16'",
        ),
    ],
)
def test_bad_command_lines_exit_2_with_a_clear_message(args, message):
    out = cli(*args)
    assert out.returncode == 2, out.stderr
    assert message in out.stderr
    assert "Traceback" not in out.stderr


def test_resume_refuses_a_broken_checkpoint_and_other_settings(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.json").write_text(json.dumps({"game": "lost_heir", "timesteps": 100}))
    out = cli("lost_heir", "--resume", str(run))
    assert out.returncode == 2 and "cannot resume from" in out.stderr
    assert "Traceback" not in out.stderr
    out = cli("lost_ranks", "--resume", str(run))
    assert out.returncode == 2 and "is a lost_heir run, not lost_ranks" in out.stderr
    out = cli("lost_heir", "--resume", str(run), "--seed", "3")
    assert out.returncode == 2 and "keeps its own config" in out.stderr and "--seed" in out.stderr


@pytest.mark.parametrize("stop, code", [("ctrl_c", 130), ("kill", 143)])
def test_a_stop_before_the_first_checkpoint_says_nothing_was_saved(
    tmp_path, monkeypatch, capsys, stop, code
):
    import signal

    import train.run
    from train.cli import main

    def stopped_early(config, run_dir, resume=False):  # as if stopped in the imitation warm start
        if stop == "kill":
            os.kill(os.getpid(), signal.SIGTERM)  # the handler of `run` raises here
        raise KeyboardInterrupt

    before = signal.getsignal(signal.SIGTERM)
    monkeypatch.setattr(train.run, "train", stopped_early)
    assert main(["lost_heir", "--out", str(tmp_path / "run")]) == code
    err = capsys.readouterr().err
    assert "interrupted before the run wrote a checkpoint; nothing was saved" in err
    assert signal.getsignal(signal.SIGTERM) is before  # the handler is put back


def test_the_last_line_says_where_the_agent_is_how_it_rated_and_how_to_play_it(tmp_path):
    from train.cli import summary_line

    row = {"rank": 1, "games": 800, "score": 0.6, "draws": 0.0}
    board = {
        "anchor": "random",
        "leaderboard": [
            {**row, "agent": "final", "elo": 900.4, "low": 813.0, "high": float("inf")},
            {**row, "agent": "random", "elo": 0.0, "low": 0.0, "high": 0.0},
            {**row, "agent": "heuristic", "elo": 950.0, "low": 813.0, "high": float("inf")},
        ],
        "leaderboard_vs_heuristic": [
            {**row, "agent": "final", "elo": -12.2, "low": -30.0, "high": 6.0},
            {**row, "agent": "greedy", "elo": 14.6, "low": -3.0, "high": 31.0},
            {**row, "agent": "heuristic", "elo": 0.0, "low": 0.0, "high": 0.0},
        ],
    }
    (tmp_path / "leaderboard.json").write_text(json.dumps(board))
    line = summary_line("lost_heir", tmp_path)
    assert "\n" not in line
    assert f"Your agent is {tmp_path / 'model.zip'}" in line
    assert "+900 [+813, inf) Elo vs random" in line
    assert "-12 [-30, +6] Elo vs heuristic" in line
    assert "played greedily (ppo_argmax:PATH) +15 [-3, +31] Elo vs heuristic" in line
    # A board without the greedy row (an older run): the rest of the line as before.
    board["leaderboard_vs_heuristic"].pop(1)
    (tmp_path / "leaderboard.json").write_text(json.dumps(board))
    line = summary_line("lost_heir", tmp_path)
    assert "-12 [-30, +6] Elo vs heuristic;" in line and "greedily" not in line
    assert f"python -m play.terminal lost_heir --opponents ppo:{tmp_path / 'model.zip'}" in line
    # No arena (--arena-games 0): where the agent is and how to play it, no ratings.
    (tmp_path / "leaderboard.json").unlink()
    line = summary_line("lost_heir", tmp_path)
    assert "rated" not in line and "play.terminal" in line
    # An RLlib run's agent is its policy/ directory, played as rllib:PATH.
    line = summary_line("lost_heir", tmp_path, "rllib")
    assert f"--opponents rllib:{tmp_path / 'policy'}" in line


def test_the_rllib_backend_drops_the_sb3_warm_start_of_the_game_defaults(monkeypatch, capsys):
    """Lost Heir's defaults start SB3 from a clone of the heuristic, which the RLlib backend
    does not offer: ``--backend rllib`` alone trains without it; asking for it is an error."""
    pytest.importorskip("ray.rllib")
    from train import cli

    seen = []
    monkeypatch.setattr(cli, "run", lambda config, out, resume_run: seen.append(config) or 0)
    assert cli.main(["lost_heir", "--backend", "rllib"]) == 0
    assert seen[0].backend == "rllib" and seen[0].imitation_decisions == 0
    assert cli.main(["lost_heir"]) == 0
    assert seen[1].backend == "sb3" and seen[1].imitation_decisions > 0
    assert cli.main(["lost_heir", "--backend", "rllib", "--imitation-decisions", "1000"]) == 2
    assert cli.main(["lost_heir", "--backend", "rllib", "--precision", "bf16"]) == 2
    assert cli.main(["lost_heir", "--backend", "rllib", "--precision", "fp32"]) == 0
    # a constant step size and entropy coefficient, whatever the game's defaults
    assert (seen[2].learning_rate_end, seen[2].ent_coef_end) == (-1, float("inf"))
    for option in ("--learning-rate-end", "--ent-coef-end"):
        assert cli.main(["lost_heir", "--backend", "rllib", option, "0"]) == 2
        assert f"{option} is an SB3-backend option" in capsys.readouterr().err


HR_CLONE = GAME_DEFAULTS["hidden_ranks"]["imitation_decisions"]


@pytest.mark.parametrize(
    "extra,board,trunk,imitation",
    [
        ((), (32, 32, 32, 32), None, HR_CLONE),
        (("--trunk", "128"), (), (128,), HR_CLONE),
        (("--board",), (), None, HR_CLONE),
        (("--backend", "rllib"), (), None, 0),
    ],
)
def test_hidden_ranks_trains_the_board_network_by_default_and_the_mlp_when_asked(
    monkeypatch, extra, board, trunk, imitation
):
    """The default warm start fits the board network; --trunk (the MLP's option) or a bare
    --board gives the MLP, and the RLlib backend, which has neither the board network nor
    the warm start, drops both."""
    import train.cli as C
    from train.config import TrainConfig

    seen = []
    monkeypatch.setattr(C, "run", lambda config, out, resume_run: seen.append(config) or 0)
    assert C.main(["hidden_ranks", *extra]) == 0
    (config,) = seen
    assert config.board == board and config.imitation_decisions == imitation
    assert config.trunk == (trunk or TrainConfig().trunk)
