"""The imitation warm start (``train/imitate.py``, ``--imitation-decisions``)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_cli import cli
from test_smoke import TINY

from agents.networks.policy_file import read_policy_file
from feral_envs.lost_heir import CORE as LOST_HEIR
from train.config import TrainConfig
from train.imitate import (
    _exact_in_float16,
    check_memory,
    collect_demonstrations,
    demonstration_bytes,
    pretrain,
)
from train.pool import RandomOpponent
from train.run import Trainer, heuristic_opponent


def demonstrations(decisions=3000, **kw):
    args = {"n_envs": 16, "points_scale": 0.0, "win_reward": 1.0, "gamma": 1.0, "seed": 3}
    args.update(kw)
    return collect_demonstrations(
        LOST_HEIR,
        {},
        heuristic_opponent("lost_heir", {}),
        args.pop("opponent", None) or heuristic_opponent("lost_heir", {}),
        decisions,
        **args,
    )


def test_demonstrations_are_legal_whole_games_with_the_side_s_own_result():
    # The heuristic against random wins nearly every game: with gamma 1 and only the game's
    # result as reward, every decision's return is that game's result for the teacher's side.
    data = demonstrations(opponent=RandomOpponent())
    assert len(data) == 3000 and data.games >= 10
    assert data.masks[np.arange(len(data)), data.actions].all()
    assert set(np.unique(data.returns).tolist()) <= {-1.0, 0.0, 1.0}
    assert (data.returns == 1.0).mean() > 0.9


def test_observations_are_stored_as_float16_only_where_that_is_exact():
    assert _exact_in_float16(np.array([[0.0, 1.0, 40.0, -12.0]], dtype=np.float32))
    assert not _exact_in_float16(np.array([[0.0, 0.1]], dtype=np.float32))
    data = demonstrations(decisions=300)  # Lost Heir's observation holds fractions
    assert data.obs.dtype == np.float32


def test_returns_are_discounted_from_each_decision_to_the_game_s_end():
    data = demonstrations(decisions=500, gamma=0.5, opponent=RandomOpponent())
    # Only the game's end pays: a return is +-0.5**k with k the decisions left after it, so
    # each game ends on a return of +-1 and the returns halve going back from there (the
    # last game is cut where the 500 decisions are reached).
    ends = np.flatnonzero(np.abs(data.returns) == 1.0)
    assert len(data) == 500 and data.games - 1 <= len(ends) <= data.games
    for game in np.split(data.returns, ends + 1):
        assert np.allclose(game[:-1], game[1:] * 0.5)


def test_pretraining_makes_the_network_agree_with_the_teacher(tmp_path):
    config = TrainConfig(n_envs=16, n_steps=64, batch_size=256, progress=False, eval_games=0)
    trainer = Trainer(config, tmp_path / "run")
    trainer.start()
    data = demonstrations(decisions=6000)
    kw = {"learning_rate": 1e-3, "batch_size": 256, "vf_coef": 0.5, "max_grad_norm": 0.5, "seed": 0}
    before = pretrain(trainer.model.policy, data, epochs=0, **kw)
    after = pretrain(trainer.model.policy, data, epochs=5, **kw)
    assert after.held_out == before.held_out == len(data) // 10
    assert after.accuracy > before.accuracy + 0.1  # measured: 0.48 -> 0.69
    assert np.isnan(before.policy_loss) and np.isfinite(after.policy_loss)


def test_a_run_with_imitation_logs_it(tmp_path):
    run = tmp_path / "run"
    out = cli(
        "lost_heir",
        "--timesteps",
        "256",
        "--imitation-decisions",
        "600",
        "--imitation-epochs",
        "2",
        "--imitation-batch-size",
        "128",
        "--out",
        str(run),
        *TINY,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert "decisions of heuristic" in out.stderr and "agrees with it on" in out.stderr
    first = json.loads((run / "metrics.jsonl").read_text().splitlines()[0])
    assert first["step"] == 0 and first["imitation/decisions"] >= 600
    assert 0.0 <= first["imitation/accuracy"] <= 1.0
    # Two passes over the nine tenths not held out, in minibatches of 128.
    fitted = first["imitation/decisions"] - first["imitation/decisions"] // 10
    assert first["imitation/steps"] == 2 * -(-fitted // 128)
    assert "2 epochs in" in out.stderr and "minibatches of 128" in out.stderr
    # The clone is kept beside the run, and the final arena rates it with the final policy.
    clone, meta = read_policy_file(run / "imitation.zip", LOST_HEIR)
    final, _ = read_policy_file(run / "model.zip", LOST_HEIR)
    assert meta["step"] == 0 and f"{run / 'imitation.zip'}" in out.stderr
    pairs = zip(clone.weights().values(), final.weights().values(), strict=True)
    assert any((a != b).any() for a, b in pairs)  # PPO went on from the clone
    board = json.loads((run / "leaderboard.json").read_text())
    assert "imitation" in {row["agent"] for row in board["leaderboard"]}


@pytest.mark.parametrize(
    "flag, value",
    [
        ("--imitation-decisions", "-1"),
        ("--imitation-decisions", "x"),
        ("--imitation-batch-size", "0"),
        ("--imitation-epochs", "0"),
    ],
)
def test_bad_imitation_settings_are_refused(flag, value):
    out = cli("lost_heir", flag, value)
    assert out.returncode == 2
    assert flag in out.stderr


def test_a_teacher_that_does_not_load_is_refused_before_the_run(capsys, tmp_path):
    from train.cli import main

    for game, spec, message in [
        ("hidden_ranks", "heuristic:guard=F", "guard='F' is not allowed in the full game"),
        ("lost_heir", "heuristic:guard=10", "lost_heir heuristic takes no argument"),
        ("lost_heir", "nonsense", "nonsense"),
    ]:
        out = tmp_path / game
        argv = [game, "--imitation-teacher", spec, "--imitation-decisions", "10", "--out", str(out)]
        assert main(argv) == 2
        assert message in capsys.readouterr().err
        assert not out.exists()  # refused before the run began
    # A teacher or any other warm-start setting without a warm start would be ignored:
    # refused, naming the setting and what is missing.
    for setting in (
        ["--imitation-teacher", "heuristic"],
        ["--imitation-epochs", "3"],
        ["--imitation-batch-size", "256"],
        ["--imitation-learning-rate", "0.01"],
    ):
        for no_warm_start in (["--imitation-decisions", "0"], ["--init-from", "x.zip"]):
            out = tmp_path / "lr"
            assert main(["lost_ranks", *setting, *no_warm_start, "--out", str(out)]) == 2
            err = capsys.readouterr().err
            assert f"{' '.join(setting)} sets the warm start" in err, err
            assert "give --imitation-decisions N too" in err
            assert not out.exists()


@pytest.mark.parametrize(
    "teacher, beside",
    [("heuristic:guard=10", True), ("minimax:depth=1", True), ("heuristic", False)],
)
def test_the_teacher_s_own_setup_is_what_the_demonstrations_hold(teacher, beside):
    """--imitation-teacher: the demonstrations are the named bot's decisions, a search bot's
    too. Both put their 10 by their Flag; the plain heuristic never does (its guard there is a
    Scout, tests/hidden_ranks/test_hidden_ranks_search.py)."""
    from agents.heuristic.hidden_ranks import FLAG, _manhattan, decode
    from feral_envs.hidden_ranks import CORE as HIDDEN_RANKS
    from feral_envs.hidden_ranks import rules
    from train.run import bot_opponent

    keywords = {"mode": "quick"}
    data = collect_demonstrations(
        HIDDEN_RANKS,
        keywords,
        bot_opponent(teacher, "hidden_ranks", keywords),
        heuristic_opponent("hidden_ranks", keywords),
        160,
        n_envs=4,
        points_scale=0.0,
        win_reward=1.0,
        gamma=1.0,
        seed=5,
    )
    assert data.masks[np.arange(len(data)), data.actions].all()
    tens = 0
    for obs, action in zip(data.obs, data.actions, strict=True):
        view = decode(np.asarray(obs, dtype=np.float32))
        if view.setup and view.next_piece == rules.RANK_OF_NAME["10"]:
            flag = int(np.flatnonzero(view.mine == FLAG)[0])
            assert (_manhattan(flag, int(action)) == 1) == beside, (teacher, flag, int(action))
            tens += 1
    assert tens >= 4  # one setup at least in each of the 4 games played at once


def test_the_memory_estimate_covers_the_arrays_collected():
    data = demonstrations(decisions=300)
    used = sum(a.nbytes for a in (data.obs, data.masks, data.actions, data.returns))
    need = demonstration_bytes(LOST_HEIR, 300)
    assert used <= need <= used * 1.5 + 1  # float32 obs + the float16 copy while widened


def test_more_demonstrations_than_memory_holds_are_refused_before_collecting(
    monkeypatch, capsys, tmp_path
):
    import train.imitate
    from train.cli import main

    monkeypatch.setattr(train.imitate, "available_memory", lambda: 2**30)  # 1 GiB free
    fits = int(0.8 * 2**30 // demonstration_bytes(LOST_HEIR, 1))
    assert main(["lost_heir", "--imitation-decisions", "1000000", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "--imitation-decisions 1,000,000 needs up to 4.2 GiB" in err
    assert f"1.0 GiB are available: give at most {fits:,}" in err
    assert not any(tmp_path.iterdir())  # refused before the run began
    check_memory(LOST_HEIR, fits)  # the count it names fits
    monkeypatch.setattr(train.imitate, "available_memory", lambda: None)  # unknown: no check
    check_memory(LOST_HEIR, 10**9)
