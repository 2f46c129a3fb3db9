"""``python -m train.rollout`` (train/rollout.py): playout values of the bot's alternatives,
chunked and resumable collection, the fit to them, and the command line."""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
from lost_ranks.lost_ranks_helpers import swap_hidden

from agents.registry import load_policy
from feral_envs import game_core
from train.advice import play_round_out
from train.rollout import (
    MARGINS,
    Playouts,
    RolloutConfig,
    Values,
    chunk_path,
    collect,
    collect_chunk,
    fit,
    gain_of,
    main,
    read_chunk,
    run,
    split_of,
)

CORE = game_core("lost_ranks")


def mid_round_state(seed: int = 5, moves: int = 20):
    """A game some moves into its first round, with the generator it continues with."""
    bot = load_policy("heuristic", "lost_ranks", seed=0, keywords={})
    rng = np.random.default_rng(seed)
    state = CORE.new_game(CORE.make_config(), rng, {})
    for _ in range(moves):
        seat = CORE.seat_to_act(state)
        CORE.apply(state, bot.act(CORE.observe(state, seat), CORE.legal_mask(state)), rng)
    return state, rng, bot


def test_advantages_are_playouts_against_the_bots_own_choice():
    playouts = Playouts("lost_ranks", {})
    for moves in (3, 20, 31):  # in the pass, early and late in the play
        state, rng, bot = mid_round_state(moves=moves)
        seat = CORE.seat_to_act(state)
        mask = CORE.legal_mask(state).astype(bool)
        chosen = bot.act(CORE.observe(state, seat), mask)
        before, draws = copy.deepcopy(state), copy.deepcopy(rng).random(3)
        values = playouts.advantages(state, rng, chosen)
        team = CORE.team_of_seat[seat]
        direct = {
            int(a): play_round_out(
                CORE, bot, copy.deepcopy(state), copy.deepcopy(rng), team, int(a)
            )
            for a in np.flatnonzero(mask)
        }
        assert values[chosen] == 0
        for action, value in direct.items():
            assert values[action] == pytest.approx(value - direct[chosen])
        assert not values[~mask].any()
        assert np.array_equal(CORE.observe(state, seat), CORE.observe(before, seat))
        assert np.array_equal(rng.random(3), draws)  # the game's generator is untouched


def test_with_sampled_deals_the_values_average_playouts_and_never_peek():
    from feral_envs.lost_ranks.determinize import sample_deal
    from feral_envs.lost_ranks.rules import partner

    playouts = Playouts("lost_ranks", {}, deals=3)
    state, rng, bot = mid_round_state(moves=30)  # in the play: 12 passes, then 18 cards
    seat = CORE.seat_to_act(state)
    mask = CORE.legal_mask(state).astype(bool)
    chosen = bot.act(CORE.observe(state, seat), mask)
    values = playouts.advantages(state, rng, chosen, np.random.default_rng(4))
    sampler, team = np.random.default_rng(4), CORE.team_of_seat[seat]
    deals = [sample_deal(state, seat, sampler) for _ in range(3)]
    direct = {
        int(a): np.mean(
            [
                play_round_out(CORE, bot, copy.deepcopy(d), copy.deepcopy(rng), team, int(a))
                for d in deals
            ]
        )
        for a in np.flatnonzero(mask)
    }
    for action, value in direct.items():
        assert values[action] == pytest.approx(value - direct[chosen], abs=1e-5)
    # The same view with two hidden cards of the enemies swapped: the same values.
    a, b = (s for s in range(4) if s not in (seat, partner(seat)))
    ca, cb = np.flatnonzero(state.hands[a])[-1], np.flatnonzero(state.hands[b])[-1]
    other = swap_hidden(state, seat, (ca, cb))
    assert not np.array_equal(other.hands, state.hands)
    assert np.array_equal(CORE.observe(other, seat), CORE.observe(state, seat))
    again = playouts.advantages(other, rng, chosen, np.random.default_rng(4))
    assert np.array_equal(values, again)
    assert not playouts.can_measure(mid_round_state(moves=3)[0])  # no deals in the pass


def test_a_chunk_is_its_seed_alone_and_keeps_what_the_fit_needs():
    one = collect_chunk("lost_ranks", {}, 7, 2, 40, 0.5)
    again = collect_chunk("lost_ranks", {}, 7, 2, 40, 0.5)
    other = collect_chunk("lost_ranks", {}, 7, 3, 40, 0.5)
    for f in dataclasses.fields(Values):
        assert np.array_equal(getattr(one, f.name), getattr(again, f.name))
    assert not np.array_equal(one.obs, other.obs)
    n = CORE.obs_shape[0]
    assert one.obs.shape == (40, n + CORE.n_actions)
    assert (one.masks.sum(axis=1) >= 2).all()  # only real choices are measured
    assert np.array_equal(one.obs[:, n:].argmax(axis=1), one.bot)  # the advice is the bot's
    assert one.masks[np.arange(40), one.bot].all()
    assert not one.advantages[~one.masks].any()
    assert not one.advantages[np.arange(40), one.bot].any()
    assert (one.advantages != 0).any()  # some alternatives do change the round


def test_workers_collect_the_same_chunks_as_one_process(tmp_path):
    config = RolloutConfig(decisions=60, chunk=20, deals=0, workers=0, progress=False)
    collect(config, tmp_path / "one")
    collect(dataclasses.replace(config, workers=2), tmp_path / "two")
    for k in range(3):
        a, b = (
            read_chunk(chunk_path(tmp_path / "one", k)),
            read_chunk(chunk_path(tmp_path / "two", k)),
        )
        assert np.array_equal(a.advantages, b.advantages) and np.array_equal(a.obs, b.obs)


def test_the_fit_departs_from_the_bot_where_an_alternative_pays():
    """Synthetic decisions: action 1 gains a point when input 0 is set, loses one otherwise;
    the bot always plays action 0. The fit must learn to depart exactly there."""
    rng = np.random.default_rng(0)

    def values(n: int) -> Values:
        obs = np.zeros((n, 5), np.float32)
        obs[:, 0] = rng.random(n) < 0.5
        masks = np.zeros((n, 3), bool)
        masks[:, :2] = True
        advantages = np.zeros((n, 3), np.float32)
        advantages[:, 1] = np.where(obs[:, 0] == 1, 1.0, -1.0)
        return Values(obs, masks, np.zeros(n, np.int64), advantages)

    config = RolloutConfig(
        network="mlp", trunk=(8,), heads=(8,), epochs=30, batch_size=64, margin=0.3, progress=False
    )
    data = {"fit": values(600), "validation": values(200), "test": values(200)}
    actor, log = fit(config, data)
    test = data["test"]
    logits = actor.logits(test.obs)
    logits[~test.masks] = -np.inf
    choices = logits.argmax(axis=1)
    assert np.array_equal(choices, test.obs[:, 0].astype(int))
    measured = gain_of(choices, test)
    assert measured.gain == pytest.approx(test.obs[:, 0].mean())
    assert measured.departs == pytest.approx(test.obs[:, 0].mean())
    assert len(log) == 30


def test_a_tiny_run_writes_a_policy_the_arena_plays_and_continues(tmp_path):
    out = tmp_path / "run"
    config = RolloutConfig(
        decisions=90,
        chunk=30,
        deals=0,
        workers=0,
        epochs=1,
        arena_games=2,
        out=str(out),
        progress=False,
    )
    report = run(config)
    assert report["decisions"] == {"fit": 30, "validation": 30, "test": 30}
    assert report["margin"] in MARGINS
    assert [split_of(k) for k in range(3)] == ["test", "validation", "fit"]
    assert {row["agent"] for row in report["leaderboard"]} == {"rollout", "heuristic", "random"}
    policy = load_policy(f"ppo_argmax:{out / 'model.zip'}", "lost_ranks", seed=0, keywords={})
    state, _, _ = mid_round_state()
    seat = CORE.seat_to_act(state)
    assert CORE.legal_mask(state)[policy.act(CORE.observe(state, seat), CORE.legal_mask(state))]
    first = chunk_path(out, 0).stat().st_mtime_ns
    run(dataclasses.replace(config, decisions=120))  # one more chunk only, a fresh arena
    assert chunk_path(out, 3).is_file() and chunk_path(out, 0).stat().st_mtime_ns == first
    assert json.loads((out / "config.json").read_text())["decisions"] == 120
    with pytest.raises(ValueError, match="seed 1 -> 2"):
        run(dataclasses.replace(config, seed=2))


def test_a_corrupt_chunk_is_named(tmp_path):
    path = chunk_path(tmp_path, 0)
    path.parent.mkdir()
    path.write_bytes(b"not a chunk")
    with pytest.raises(ValueError, match=r"chunk-00000\.npz: not a chunk"):
        read_chunk(path)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["chess"], "unknown game 'chess'; games: lost_heir, lost_ranks, hidden_ranks"),
        (["lost_heir"], "deterministic and memoryless (lost_ranks); lost_heir's is not"),
        (["lost_ranks", "--share", "0"], "--share must be in (0, 1]"),
        (["lost_ranks", "--deals", "-1"], "--deals must be at least 0"),
        (["lost_ranks", "--network", "lstm"], "--network must be one of cards, mlp, got 'lstm'"),
        (["lost_ranks", "--margin", "some"], "\"auto\" or a number of points, got 'some'"),
        (["lost_ranks", "--margin", "-1"], '--margin must be "auto" or at least 0, got -1.0'),
        (["lost_ranks", "--width", "6"], "--width must be a positive multiple of 4, got 6"),
        (["lost_ranks", "--variant", "nope"], "nope"),
        (["lost_ranks", "--decisions", "20", "--chunk", "10"], "the fit needs at least 3"),
    ],
)
def test_bad_input_exits_2_naming_the_problem(argv, message, capsys, tmp_path):
    argv = [*argv, "--out", str(tmp_path / "run"), "--workers", "0", "--no-progress"]
    try:
        code = main(argv)
    except SystemExit as stop:  # argparse's own errors (a value of the wrong type)
        code = stop.code
    assert code == 2
    assert message in capsys.readouterr().err


@pytest.mark.slow  # about 45 s on a slow 2-core host; CI runs it (.ci/run)
def test_sigterm_stops_the_workers_and_keeps_the_finished_chunks(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "run"
    argv = [sys.executable, "-m", "train.rollout", "lost_ranks", "--out", str(out)]
    argv += ["--chunk", "10", "--no-progress", "--arena-games", "0", "--epochs", "1"]
    process = subprocess.Popen(
        [*argv, "--decisions", "2000", "--workers", "2"], stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 120
    while not chunk_path(out, 0).is_file() and time.monotonic() < deadline:
        time.sleep(0.2)
    children = Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()
    assert len(children) >= 2  # the workers (and multiprocessing's resource tracker)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 143, err
    deadline = time.monotonic() + 20  # the resource tracker leaves once it sees us gone
    while (
        left := [p for p in children if Path(f"/proc/{p}").exists()]
    ) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not left  # no worker left behind
    assert "the finished chunks are kept" in err
    kept = sorted(p.name for p in (out / "values").glob("chunk-*.npz"))
    assert kept and not list((out / "values").glob("*.tmp.npz"))
    stamps = {name: (out / "values" / name).stat().st_mtime_ns for name in kept}
    done = subprocess.run(
        [*argv, "--decisions", "30", "--workers", "0"],
        capture_output=True,
        text=True,
        env={**os.environ},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    for name, stamp in stamps.items():
        if name <= "chunk-00002.npz":
            assert (out / "values" / name).stat().st_mtime_ns == stamp  # not collected again
