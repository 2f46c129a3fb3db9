"""The compiled Lost Ranks engine (``feral_envs.lost_ranks.engine``) on its own.

Random games from a seed and from reset options end every way (won by either army, drawn,
after tiebreakers); reset options are taken, and refused with the message naming the problem,
leaving the row as it was; the same source runs as plain Python (``NUMBA_DISABLE_JIT=1``); the
batch kernels equal the single-game kernels and the AEC env's rewards. The golden games
recorded from the old pure-Python core are replayed in ``test_lost_ranks_engine_golden.py``;
the rules scenarios are in ``test_lost_ranks_play.py``, ``_pass.py`` and ``_scoring.py``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest
from test_lost_ranks_env import BAD_OPTIONS, HANDS

from feral_envs.engine.game import Game
from feral_envs.engine.rng import below, seed_words
from feral_envs.lost_ranks import CORE, engine, rules, view
from feral_envs.table_env import TableEnv

ROOT = Path(__file__).resolve().parents[2]
VARIANTS = CORE.keyword_choices["variant"]
INFANTRY = [c for c in range(rules.N_CARDS) if c != rules.SPY and c not in rules.JACKS]


# ---------------------------------------------------------------------------------------------
# One game on the engine


class Play:
    """One game in an engine row, from the stream words of ``seed`` and ``options``."""

    def __init__(self, seed: int, config: rules.Config, options: dict | None = None) -> None:
        self.config = config
        self.row = np.zeros(engine.ROW_SIZE, dtype=np.int32)
        self.row[:4] = seed_words(seed)
        engine.start(self.row, config, dict(options or {}))
        self.mask = np.zeros(engine.N_ACTIONS, dtype=np.int8)
        self.steps = 0

    def check(self) -> np.ndarray:
        """The legal mask: some legal action exactly while the game runs."""
        engine.legal_mask(self.row, self.mask)
        assert self.mask.any() != self.over(), f"step {self.steps}"
        return self.mask

    def over(self) -> bool:
        return bool(engine.status(self.row)[0])

    def view(self) -> rules.State:
        return view.decode(self.row, self.config)

    def apply(self, action: int) -> None:
        assert engine.is_legal(self.row, action), f"step {self.steps}: {action} not legal"
        engine.apply(self.row, action)
        self.steps += 1


def random_game(seed: int, variant: str, options: dict | None = None) -> Play:
    """A game of uniform random actions, checked at every step, played out."""
    play = Play(seed, rules.make_config(variant), options)
    actions = np.random.default_rng(seed + 7_000_000)
    while True:
        mask = play.check()
        if play.over():
            return play
        legal = np.flatnonzero(mask)
        play.apply(int(legal[actions.integers(len(legal))]))


def quick_options(rng: np.random.Generator) -> dict:
    """Valid reset options that end games early and often: late rounds, scores near or past
    the target (tiebreakers), a given Trump Card or deal, the pass skipped."""
    options: dict = {"round": int(rng.integers(1, rules.MAX_ROUND + 1))}
    if options["round"] == rules.MAX_ROUND or rng.random() < 0.25:
        level = int(rng.integers(0, 26))
        options["scores"] = {"red": level, "black": level}
    else:
        red, black = (int(s) for s in rng.integers(8, rules.TARGET, size=2))
        options["scores"] = {"red": red, "black": black}
    trump = int(rng.choice(INFANTRY))
    if rng.random() < 0.3:
        options["trump_card"] = rules.DECK.names[trump]
    if rng.random() < 0.25:
        others = rng.permutation([c for c in range(rules.N_CARDS) if c != trump])
        options["hands"] = {
            agent: [rules.DECK.names[c] for c in others[13 * seat : 13 * seat + 13]]
            for seat, agent in enumerate(rules.AGENTS)
        }
    if rng.random() < 0.3:
        options["start"] = "play"
    return options


# ---------------------------------------------------------------------------------------------
# 1. Random play


@pytest.mark.parametrize("variant", VARIANTS)
def test_random_games_from_a_seed_play_six_rounds_at_least(variant):
    lengths = [random_game(seed, variant).steps for seed in range(100)]
    assert min(lengths) >= 6 * 64  # six rounds of a pass and 13 tricks at least


@pytest.mark.parametrize("variant", VARIANTS)
def test_random_games_from_reset_options_end_every_way(variant):
    """Late rounds and high scores: games that end often, won, lost or drawn."""
    rng = np.random.default_rng(VARIANTS.index(variant))
    winners, tiebreakers = set(), 0
    for seed in range(600):
        play = random_game(10_000 + seed, variant, quick_options(rng))
        winners.add(int(engine.status(play.row)[2]))
        tiebreakers += play.view().tiebreaker
    assert winners == {rules.RED, rules.BLACK, rules.DRAW}
    assert tiebreakers >= 60


# ---------------------------------------------------------------------------------------------
# 2. Reset options

GOOD_OPTIONS = [
    {  # shared/API.md
        "trump_card": "7S",
        "hands": HANDS,
        "round": 1,
        "scores": {"red": 0, "black": 0},
        "start": "pass",
    },
    {"trump_card": "7S", "hands": HANDS, "start": "play"},
    {"hands": HANDS, "start": "play", "round": 3, "scores": {"red": 5, "black": 2}},
    {"hands": HANDS},  # the card left out is the Trump Card
    {"trump_card": "QD"},  # dealt from the seed around it
    {"trump_card": "2c", "start": "play"},  # the 3C leads
    {"round": 7, "scores": {"red": 9, "black": 9}},  # round 7: a tiebreaker from level scores
    {"round": 2, "scores": {"red": 18, "black": 18}},  # level at 18+: a tiebreaker
    {"round": 6, "scores": {"red": 17, "black": 0}},
    {"round": np.int64(4), "scores": {"red": np.int32(3), "black": 12}},
    {"start": "play"},
    {},
]


@pytest.mark.parametrize("options", GOOD_OPTIONS)
def test_reset_options_are_taken_and_the_games_play_to_their_end(options):
    for seed in range(3):
        for variant in VARIANTS:
            assert random_game(80_000 + seed, variant, options).over()
    start = Play(0, rules.make_config(), options).view()
    assert start.round == options.get("round", 1)
    scores = options.get("scores", {"red": 0, "black": 0})
    assert start.scores.tolist() == [scores["red"], scores["black"]]
    level = scores["red"] == scores["black"]
    assert start.tiebreaker == (level and (scores["red"] >= rules.TARGET or start.round == 7))
    if "trump_card" in options:
        assert start.trump_card == rules.DECK.card(options["trump_card"])
    if "hands" in options:
        for seat, agent in enumerate(rules.AGENTS):
            held = set(rules.DECK.hand_names(start.hands[seat]))
            assert held == set(options["hands"][agent])
    if options.get("start") == "play":
        assert start.phase == rules.Phase.PLAY  # the holder of the lowest trump leads it
        assert start.first_lead in start.hands[start.to_act].nonzero()[0]
    else:
        assert start.phase == rules.Phase.PASS and start.to_act == 0


@pytest.mark.parametrize(
    ("options", "message"), [(o, m) for o, m in BAD_OPTIONS if isinstance(o, dict)]
)
def test_bad_reset_options_raise_naming_the_problem_and_leave_the_row(options, message):
    play = Play(5, rules.make_config("turncoat"))
    play.apply(int(np.flatnonzero(play.check())[0]))
    row, before = play.row, play.row.copy()
    with pytest.raises(ValueError, match=message):
        engine.start(row, rules.make_config(), options)
    np.testing.assert_array_equal(row, before)


# ---------------------------------------------------------------------------------------------
# 3. The same source as plain Python


def plain_python_check() -> None:
    """Run in a subprocess with NUMBA_DISABLE_JIT=1: a few games and batch steps."""
    assert numba.config.DISABLE_JIT
    assert type(engine.apply).__name__ == "function", "the kernels must be plain Python"
    for variant in VARIANTS:
        random_game(VARIANTS.index(variant), variant)
    random_game(3, "standard", {"round": 6, "scores": {"red": 15, "black": 15}, "start": "play"})
    batch_against_single_games(n_games=3, n_steps=150, points=True)
    print("plain python: ok")


def test_the_engine_runs_as_plain_python():
    paths = [ROOT, ROOT / "tests", ROOT / "tests" / "lost_ranks"]
    env = {
        **os.environ,
        "NUMBA_DISABLE_JIT": "1",
        "PYTHONPATH": os.pathsep.join(str(p) for p in paths),
    }
    code = "import test_lost_ranks_engine as t; t.plain_python_check()"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "plain python: ok" in done.stdout


# ---------------------------------------------------------------------------------------------
# 4. Batch kernels


@pytest.fixture
def one_thread():
    """Small batches stepped many times run on one thread: the machine's cores are shared,
    and the thread count cannot change a game (test_batches_do_not_depend_on_the_number_...)."""
    before = numba.get_num_threads()
    numba.set_num_threads(1)
    yield
    numba.set_num_threads(before)


def start_rows(n: int, variant: str, seed: int, options: bool = True) -> np.ndarray:
    """``n`` started rows: game ``i`` from ``seed + i``, every other one from quick options."""
    rng = np.random.default_rng(seed)
    rows = np.zeros((n, engine.ROW_SIZE), dtype=np.int32)
    for i in range(n):
        rows[i, :4] = seed_words(seed + i)
        chosen = quick_options(rng) if options and i % 2 else {}
        engine.start(rows[i], rules.make_config(variant), chosen)
    return rows


class Outputs:
    def __init__(self, n: int) -> None:
        self.obs = np.zeros((n, engine.OBS_SIZE), dtype=np.float32)
        self.masks = np.zeros((n, engine.N_ACTIONS), dtype=np.int8)
        self.seats = np.zeros(n, dtype=np.int64)
        self.rewards = np.zeros((n, engine.N_SEATS), dtype=np.float32)
        self.terminated = np.zeros(n, dtype=bool)
        self.truncated = np.zeros(n, dtype=bool)
        self.actions = np.zeros(n, dtype=np.int64)

    def step(self, rows: np.ndarray, streams: np.ndarray, points: bool) -> None:
        engine.random_batch(rows, streams, self.actions)
        engine.step_batch(
            rows,
            self.actions,
            points,
            self.obs,
            self.masks,
            self.seats,
            self.rewards,
            self.terminated,
            self.truncated,
        )


def expected_rewards(row: np.ndarray, before: tuple[int, int], points: bool) -> np.ndarray:
    """The AEC env's rewards (``table_env``) after a step from scores ``before``."""
    rewards = np.zeros(engine.N_SEATS, dtype=np.float32)
    after = (engine.score(row, 0), engine.score(row, 1))
    terminated, _, winner = engine.status(row)
    if points and after != before:
        diff = (after[0] - before[0]) - (after[1] - before[1])
        rewards[:] = np.where(engine.TEAM_OF_SEAT == 0, diff, -diff)
    elif not points and terminated and winner != rules.DRAW:
        rewards[:] = np.where(engine.TEAM_OF_SEAT == winner, 1.0, -1.0)
    return rewards


def batch_against_single_games(n_games: int, n_steps: int, points: bool) -> int:
    """Games stepped in a batch equal the same games stepped alone; the games finished."""
    rows = start_rows(n_games, "turncoat" if points else "standard", 300)
    streams = np.stack([seed_words(900 + i) for i in range(n_games)])
    alone, alone_streams = rows.copy(), streams.copy()
    out = Outputs(n_games)
    mask = np.zeros(engine.N_ACTIONS, dtype=np.int8)
    obs = np.zeros(engine.OBS_SIZE, dtype=np.float32)
    finished = 0
    for step in range(n_steps):
        out.step(rows, streams, points)
        for i in range(n_games):
            row, where = alone[i], f"game {i}, step {step}"
            if engine.status(row)[0]:
                assert out.actions[i] == 0, where
                engine.new_game(row)  # a finished game restarts, its action ignored
                rewards = np.zeros(engine.N_SEATS, dtype=np.float32)
            else:
                engine.legal_mask(row, mask)
                legal = np.flatnonzero(mask)
                action = legal[below(alone_streams[i], len(legal))]
                assert out.actions[i] == action, where
                before = (engine.score(row, 0), engine.score(row, 1))
                engine.apply(row, action)
                rewards = expected_rewards(row, before, points)
            seat = engine.to_act(row)
            engine.observe(row, seat, obs)
            engine.legal_mask(row, mask)
            assert out.seats[i] == seat, where
            np.testing.assert_array_equal(out.obs[i], obs, err_msg=where)
            np.testing.assert_array_equal(out.masks[i], mask, err_msg=where)
            np.testing.assert_array_equal(out.rewards[i], rewards, err_msg=where)
            assert out.terminated[i] == engine.status(row)[0], where
            assert not out.truncated[i], where
            finished += int(out.terminated[i])
        np.testing.assert_array_equal(rows, alone)
        np.testing.assert_array_equal(streams, alone_streams)
    return finished


@pytest.mark.usefixtures("one_thread")
@pytest.mark.parametrize("points", [False, True], ids=["win", "points"])
def test_step_batch_equals_the_games_played_alone(points):
    assert batch_against_single_games(n_games=12, n_steps=900, points=points) >= 12


def aec_env(row: np.ndarray, variant: str, reward: str) -> TableEnv:
    """The AEC env on the game of ``row`` (a copy), as its ``reset`` would set it up."""
    env = TableEnv(CORE, None, reward, variant=variant)
    env.reset(seed=0)
    env.game = Game(view.decode, env.config, row.copy())
    env.agent_selection = env.possible_agents[engine.to_act(row)]
    env._last_scores = env._score_pair(env.game)
    return env


@pytest.mark.usefixtures("one_thread")
@pytest.mark.parametrize("reward", ["win", "points"])
def test_step_batch_rewards_and_restarts_match_the_aec_env(reward):
    """Each slot beside an AEC env playing the same game; a finished game restarts as a new
    game from the stream where it stands (``engine.new_game``)."""
    n, variant = 6, "master_of_spies"
    config = rules.make_config(variant)
    rng = np.random.default_rng(5)
    rows = np.stack([Play(500 + i, config, quick_options(rng)).row for i in range(n)])
    envs = [aec_env(row, variant, reward) for row in rows]
    streams = np.stack([seed_words(700 + i) for i in range(n)])
    out = Outputs(n)
    ended = np.zeros(n, dtype=int)
    for step in range(1200):
        out.step(rows, streams, reward == "points")
        for i in range(n):
            where = f"game {i}, step {step}"
            if not envs[i].agents or envs[i].terminations[envs[i].agent_selection]:
                restarted = envs[i].game.row.copy()
                engine.new_game(restarted)
                envs[i] = aec_env(restarted, variant, reward)
                expected = np.zeros(engine.N_SEATS, dtype=np.float32)
            else:
                envs[i].step(int(out.actions[i]))
                expected = [envs[i].rewards[a] for a in envs[i].possible_agents]
            env, seat = envs[i], int(out.seats[i])
            np.testing.assert_array_equal(env.game.row, rows[i], err_msg=where)
            np.testing.assert_array_equal(out.rewards[i], expected, err_msg=where)
            assert out.terminated[i] == env.terminations[env.agent_selection], where
            assert not out.truncated[i], where
            # the seat shown is the engine's seat to act: after the game, the last trick's
            # winner (the AEC env keeps the agent that made the last move)
            assert seat == engine.to_act(rows[i]), where
            if not out.terminated[i]:
                assert env.possible_agents[seat] == env.agent_selection, where
            observation = env.observe(env.possible_agents[seat])
            np.testing.assert_array_equal(out.obs[i], observation["observation"], where)
            np.testing.assert_array_equal(out.masks[i], observation["action_mask"], where)
            ended[i] += int(out.terminated[i])
    assert ended.min() >= 2


@pytest.mark.usefixtures("one_thread")
def test_batch_reading_kernels_and_resets():
    rows = start_rows(20, "standard", 40)
    out = Outputs(20)
    streams = np.stack([seed_words(i) for i in range(20)])
    for _ in range(150):
        out.step(rows, streams, False)
    seats = np.arange(20, dtype=np.int64) % 4
    obs = np.zeros((20, engine.OBS_SIZE), dtype=np.float32)
    masks = np.zeros((20, engine.N_ACTIONS), dtype=np.int8)
    engine.observe_batch(rows, seats, obs)
    engine.masks_batch(rows, masks)
    one = np.zeros(engine.OBS_SIZE, dtype=np.float32)
    for i in range(20):
        engine.observe(rows[i], seats[i], one)
        np.testing.assert_array_equal(obs[i], one)
        mask = np.zeros(engine.N_ACTIONS, dtype=np.int8)
        engine.legal_mask(rows[i], mask)
        np.testing.assert_array_equal(masks[i], mask)
    alone = rows.copy()
    engine.reset_batch(rows, out.obs, out.masks, out.seats)
    for i in range(20):
        engine.new_game(alone[i])
        assert out.seats[i] == engine.to_act(alone[i]) == 0  # the pass starts with seat 0
        engine.observe(alone[i], 0, one)
        np.testing.assert_array_equal(out.obs[i], one)
        engine.legal_mask(alone[i], mask)
        np.testing.assert_array_equal(out.masks[i], mask)
    np.testing.assert_array_equal(rows, alone)


def test_batches_do_not_depend_on_the_number_of_threads():
    results = []
    for threads in (1, numba.config.NUMBA_NUM_THREADS):
        numba.set_num_threads(threads)
        try:
            rows = start_rows(32, "turncoat", 70)
            streams = np.stack([seed_words(i) for i in range(32)])
            out = Outputs(32)
            for _ in range(200):
                out.step(rows, streams, True)
            results.append((rows.copy(), out.obs.copy(), out.rewards.copy()))
        finally:
            numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    for a, b in zip(*results, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.usefixtures("one_thread")
def test_is_legal_and_first_illegal():
    rows = start_rows(8, "standard", 90, options=False)
    out = Outputs(8)
    streams = np.stack([seed_words(i) for i in range(8)])
    for _ in range(40):
        out.step(rows, streams, False)
    engine.random_batch(rows, streams.copy(), out.actions)
    assert engine.first_illegal(rows, out.actions) == -1
    for i in range(8):
        legal = set(np.flatnonzero(out.masks[i]))
        assert all(engine.is_legal(rows[i], a) == (a in legal) for a in range(-2, 56))
    bad = out.actions.copy()
    bad[5] = 99
    bad[6] = next(a for a in range(53) if a not in set(np.flatnonzero(out.masks[6])))
    assert engine.first_illegal(rows, bad) == 5
    bad[5] = out.actions[5]
    assert engine.first_illegal(rows, bad) == 6
    # a finished game accepts any action (it restarts), and has no legal action itself
    finished = Play(3, rules.make_config(), {"round": 7, "scores": {"red": 1, "black": 1}})
    while not finished.over():
        finished.apply(int(np.flatnonzero(finished.check())[-1]))
    rows[2] = finished.row
    bad[6] = out.actions[6]
    bad[2] = -7
    assert engine.first_illegal(rows, bad) == -1
    assert not any(engine.is_legal(rows[2], a) for a in range(53))
    engine.random_batch(rows, streams, out.actions)
    assert out.actions[2] == 0
