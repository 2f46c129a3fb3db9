"""``play.recording``: frames from live play and from arena records, frame selection,
GIF and PNG files read back pixel for pixel, the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageSequence

import feral_envs
from agents.arena import run_arena
from agents.registry import load_policy
from feral_envs.hidden_ranks import picture as hidden_ranks_picture
from play import recording

ROOT = Path(__file__).resolve().parents[2]
QUICK = {"mode": "quick", "setup": "random", "max_moves": 40}


def _policies(n: int) -> list:
    return [load_policy("random", "hidden_ranks", seed) for seed in range(n)]


def test_frames_from_policies_one_per_action_and_the_replay_matches():
    env = feral_envs.make("hidden_ranks", **QUICK)
    actions: list[int] = []
    frames = list(recording.frames_from_policies(env, _policies(2), seed=5, actions=actions))
    assert len(frames) == len(actions) + 1
    assert env.unwrapped.game.terminated, "played to the end"
    assert np.array_equal(frames[-1], recording.picture(env))
    again = list(
        recording.frames_from_actions(feral_envs.make("hidden_ranks", **QUICK), 5, actions)
    )
    assert len(again) == len(frames)
    assert all(np.array_equal(a, b) for a, b in zip(frames, again, strict=True))
    assert not np.array_equal(frames[0], frames[-1])


def test_views_and_policy_mapping():
    env = feral_envs.make("lost_heir", max_hands=1)
    policies = dict(zip(env.possible_agents, _policies(4), strict=True))
    frames = recording.frames_from_policies(env, policies, seed=1, view="east")
    first = next(frames)
    raw = env.unwrapped
    assert np.array_equal(first, raw.core.render_rgb(raw.game, raw.seat_of("east")))
    with pytest.raises(ValueError, match="view 'nobody' is not allowed"):
        recording.picture(env, "nobody")
    with pytest.raises(ValueError, match="reset the env first"):
        recording.picture(feral_envs.make("lost_heir"))
    with pytest.raises(ValueError, match="3 policies for 4 seats"):
        next(recording.frames_from_policies(env, _policies(3), seed=1))


@pytest.fixture(scope="module")
def arena_record(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("arena")
    run_arena(
        "hidden_ranks",
        ["random", "b=random"],
        games=2,
        seed=3,
        out=out,
        progress=False,
        n_bootstrap=0,
        **QUICK,
    )
    return out / "records.jsonl"


def test_a_record_replays_to_its_recorded_end(arena_record):
    record = recording.read_record(arena_record, 1)
    frames = list(recording.frames_from_record(record))
    assert len(frames) == record["steps"] + 1
    env = feral_envs.make("hidden_ranks", **record["options"])
    env.reset(seed=record["env_seed"])
    for action in record["actions"]:
        env.step(action)
    assert np.array_equal(frames[-1], recording.picture(env))


def test_a_record_that_does_not_replay_is_an_error(arena_record):
    games = arena_record.read_text().splitlines()
    longest = max(range(len(games)), key=lambda i: len(json.loads(games[i])["actions"]))
    record = recording.read_record(arena_record, longest)
    assert len(record["actions"]) > 5
    bad = {**record, "actions": [*record["actions"][:3], 0, *record["actions"][4:]]}
    with pytest.raises(ValueError, match="action 3 does not replay"):
        list(recording.frames_from_record(bad))
    with pytest.raises(ValueError, match="the replay is running after 3 actions"):
        list(recording.frames_from_record({**record, "actions": record["actions"][:3]}))
    with pytest.raises(ValueError, match="game is over before action"):
        list(recording.frames_from_record({**record, "actions": [*record["actions"], 40]}))


def test_read_record_checks_the_index_and_the_lines(arena_record, tmp_path):
    with pytest.raises(ValueError, match=r"holds 2 game\(s\); the game index must be 0..1, got 2"):
        recording.read_record(arena_record, 2)
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"game": "lost_heir"}\nnot json\n')
    with pytest.raises(ValueError, match="lacks options, env_seed, actions"):
        recording.read_record(broken, 0)
    with pytest.raises(ValueError, match="line 2 is not a JSON record"):
        recording.read_record(broken, 1)


def test_select_frames():
    frames = range(10)  # frame k stands for the picture after action k
    assert list(recording.select(frames)) == list(range(10))
    assert list(recording.select(frames, every=4)) == [0, 4, 8, 9]
    assert list(recording.select(frames, start=2, stop=7, every=2)) == [2, 4, 6]
    assert list(recording.select(frames, start=2, stop=8, every=2)) == [2, 4, 6, 7]
    assert list(recording.select(frames, max_frames=3)) == [0, 1, 2]
    with pytest.raises(ValueError, match="bad frame range"):
        list(recording.select(frames, start=5, stop=5))
    with pytest.raises(ValueError, match="max_frames"):
        list(recording.select(frames, max_frames=0))


def _short_game_frames() -> list[np.ndarray]:
    env = feral_envs.make("lost_heir", max_hands=1)
    frames = recording.frames_from_policies(env, _policies(4), seed=2)
    return list(recording.select(frames, every=5))


def test_gif_holds_the_frames_exactly(tmp_path):
    frames = _short_game_frames()
    path = tmp_path / "game.gif"
    assert recording.save_gif(frames, path, fps=4, hold_last=2.5) == len(frames)
    with Image.open(path) as gif:
        decoded = [np.asarray(f.convert("RGB")) for f in ImageSequence.Iterator(gif)]
        durations = []
        for f in ImageSequence.Iterator(gif):
            durations.append(f.info["duration"])
    distinct = [f for i, f in enumerate(frames) if i == 0 or not np.array_equal(f, frames[i - 1])]
    assert len(decoded) == len(distinct)
    for got, want in zip(decoded, distinct, strict=True):
        assert np.array_equal(got, want)
    assert durations[0] == 250 and durations[-1] == 2500


def test_pngs_hold_the_frames_exactly(tmp_path):
    frames = _short_game_frames()[:4]
    paths = recording.save_pngs(frames, tmp_path / "pngs")
    assert [p.name for p in paths] == [f"frame_{i:05d}.png" for i in range(4)]
    for path, frame in zip(paths, frames, strict=True):
        with Image.open(path) as image:
            assert np.array_equal(np.asarray(image.convert("RGB")), frame)


def test_pictures_of_many_colours_are_quantized():
    noise = np.random.default_rng(0).integers(0, 256, (30, 40, 3), dtype=np.uint8)
    image = recording.to_palette_image(noise)
    assert image.mode == "P" and image.size == (40, 30)


def test_missing_pillow_names_the_extra(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "PIL", None)
    with pytest.raises(ImportError, match=r"feral-envs\[render\]"):
        recording.save_gif([np.zeros((4, 4, 3), np.uint8)], tmp_path / "x.gif")


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "play.recording", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_command_line_replays_a_record_and_plays_a_game(arena_record, tmp_path):
    steps = json.loads(arena_record.read_text().splitlines()[1])["steps"]
    gif = tmp_path / "game.gif"
    done = _cli(str(arena_record), "--game-index", "1", "--out", str(gif), "--view", "silver")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"wrote {steps + 1} frame(s) to {gif}"
    with Image.open(gif) as image:
        assert image.size == (hidden_ranks_picture.WIDTH, hidden_ranks_picture.HEIGHT)
    folder = tmp_path / "pngs"
    done = _cli(
        "--game",
        "lost_ranks",
        "--policies",
        "random",
        "--seed",
        "1",
        "--out",
        str(folder),
        "--stop",
        "7",
        "--every",
        "3",
    )
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in folder.iterdir()) == [f"frame_{i:05d}.png" for i in range(3)]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--game-index", "5"], "the game index must be 0..1, got 5"),
        (["--view", "nobody"], "view 'nobody' is not allowed"),
        (["--mode", "full"], "a replayed record brings its own game keywords"),
    ],
)
def test_command_line_errors(arena_record, tmp_path, args, message):
    done = _cli(str(arena_record), "--out", str(tmp_path / "x.gif"), *args)
    assert done.returncode == 2
    assert done.stderr.startswith("python -m play.recording: error: ")
    assert message in done.stderr


def test_command_line_needs_a_record_or_a_game(tmp_path):
    done = _cli("--out", str(tmp_path / "x.gif"))
    assert done.returncode == 2 and "give either a RECORD" in done.stderr
