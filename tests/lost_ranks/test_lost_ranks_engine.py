"""The compiled engine (``feral_envs.lost_ranks.engine``) against the pure core, step for step.

Both cores are driven from the same stream words (the pure core through
``rng.StreamGenerator``), so they deal the same cards; at every step the legal mask, every
seat's observation (float32 bit for bit), the seat to act, the status and the scores must be
equal. Then: heuristic bots, reset options, the plain-Python run (``NUMBA_DISABLE_JIT=1``),
the batch kernels and a golden fixture recorded from the pure core.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest
from fixtures.make_golden_lost_ranks import view_digest
from test_lost_ranks_env import BAD_OPTIONS, HANDS

from agents.registry import load_policy
from feral_envs.engine.rng import StreamGenerator, below, seed_words
from feral_envs.lost_ranks import CORE, RULES_CORE, encoding, engine, rules
from feral_envs.table_env import TableEnv

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "fixtures" / "golden_lost_ranks.json"
VARIANTS = CORE.keyword_choices["variant"]
INFANTRY = [c for c in range(rules.N_CARDS) if c != rules.SPY and c not in rules.JACKS]


# ---------------------------------------------------------------------------------------------
# Two cores side by side


class Pair:
    """One game in both cores, from the same stream words and options."""

    def __init__(self, seed: int, config: rules.Config, options: dict | None = None) -> None:
        words = seed_words(seed)
        self.stream = StreamGenerator(words)
        self.old = rules.new_game(config, self.stream, dict(options or {}))
        self.row = np.zeros(engine.ROW_SIZE, dtype=np.int32)
        self.row[:4] = words
        engine.start(self.row, config, dict(options or {}))
        self.mask = np.zeros(engine.N_ACTIONS, dtype=np.int8)
        self.obs = np.zeros((engine.N_SEATS, engine.OBS_SIZE), dtype=np.float32)
        self.steps = 0

    def check(self, seats: tuple[int, ...] = (0, 1, 2, 3)) -> np.ndarray:
        """Everything observable equal in both cores; the legal mask."""
        old, row, where = self.old, self.row, f"step {self.steps}"
        mask = rules.legal_mask(old)
        engine.legal_mask(row, self.mask)
        np.testing.assert_array_equal(self.mask, mask, err_msg=f"legal mask, {where}")
        for seat in seats:
            engine.observe(row, seat, self.obs[seat])
            assert_same_observation(self.obs[seat], encoding.observe(old, seat), seat, where)
        assert engine.to_act(row) == old.to_act, where
        assert tuple(engine.status(row)) == rules.status(old), where
        for team in (0, 1):
            assert engine.score(row, team) == rules.scores(old)[team], where
        return mask

    def over(self) -> bool:
        return rules.status(self.old)[0]

    def apply(self, action: int) -> None:
        assert engine.is_legal(self.row, action), f"step {self.steps}: {action} not legal"
        rules.apply(self.old, action, self.stream)
        engine.apply(self.row, action)
        self.steps += 1


def assert_same_observation(new: np.ndarray, old: np.ndarray, seat: int, where: str) -> None:
    if not np.array_equal(new.view(np.int32), old.view(np.int32)):  # float32 bit for bit
        wrong = np.flatnonzero(new.view(np.int32) != old.view(np.int32))
        shown = ", ".join(
            f"{encoding.OBS.span_of(i).name}[{i - encoding.OBS.span_of(i).start}]"
            f" engine {new[i]} core {old[i]}"
            for i in wrong[:6]
        )
        raise AssertionError(f"observation of seat {seat} differs, {where}: {shown}")


def random_game(seed: int, variant: str, options: dict | None = None) -> Pair:
    """A game of uniform random actions in both cores, checked at every step, played out."""
    pair = Pair(seed, rules.make_config(variant), options)
    actions = np.random.default_rng(seed + 7_000_000)
    while True:
        mask = pair.check()
        if pair.over():
            assert not pair.mask.any()
            return pair
        legal = np.flatnonzero(mask)
        pair.apply(int(legal[actions.integers(len(legal))]))


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
def test_random_games_from_a_seed_match_the_pure_core(variant):
    lengths = [random_game(seed, variant).steps for seed in range(100)]
    assert min(lengths) >= 6 * 64  # six rounds of a pass and 13 tricks at least


@pytest.mark.parametrize("variant", VARIANTS)
def test_random_games_from_reset_options_match_the_pure_core(variant):
    """Late rounds and high scores: games that end often, won, lost or drawn."""
    rng = np.random.default_rng(VARIANTS.index(variant))
    winners, tiebreakers = set(), 0
    for seed in range(600):
        pair = random_game(10_000 + seed, variant, quick_options(rng))
        winners.add(int(engine.status(pair.row)[2]))
        tiebreakers += pair.old.tiebreaker
    assert winners == {rules.RED, rules.BLACK, rules.DRAW}
    assert tiebreakers >= 60


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS)
def test_many_random_games_match_the_pure_core(variant):
    rng = np.random.default_rng(100 + VARIANTS.index(variant))
    for seed in range(1000):
        random_game(20_000 + seed, variant)
        random_game(40_000 + seed, variant, quick_options(rng))


# ---------------------------------------------------------------------------------------------
# 2. Heuristic bots


def old_env(pair: Pair, variant: str, reward: str = "win") -> TableEnv:
    """The pure core's AEC env, playing ``pair``'s pure-core game with its stream."""
    env = TableEnv(RULES_CORE, None, reward, variant=variant)
    env.reset(seed=0)
    env.game, env.np_random = pair.old, pair.stream
    env.agent_selection = env.possible_agents[pair.old.to_act]
    env._last_scores = tuple(int(s) for s in pair.old.scores)
    return env


@pytest.mark.parametrize("variant", VARIANTS)
def test_heuristic_games_match_the_pure_core(variant):
    """The heuristic plays every seat from the AEC env's observations; the engine follows."""
    rng = np.random.default_rng(200 + VARIANTS.index(variant))
    bots = [load_policy("heuristic", "lost_ranks", seat, {"variant": variant}) for seat in range(4)]
    for game in range(120):
        options = {} if game % 4 == 0 else quick_options(rng)
        pair = Pair(60_000 + game, rules.make_config(variant), options)
        env = old_env(pair, variant)
        for seat, bot in enumerate(bots):
            bot.reset(game * 4 + seat)
        while env.agents:
            agent = env.agent_selection
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            seat = env.seat_of(agent)
            pair.check(seats=(seat,))
            action = bots[seat].act(observation["observation"], observation["action_mask"])
            env.step(action)
            engine.apply(pair.row, action)
            pair.steps += 1
        pair.check()
        assert pair.over()


# ---------------------------------------------------------------------------------------------
# 3. Reset options

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
def test_reset_options_start_the_same_game_in_both_cores(options):
    for seed in range(3):
        for variant in VARIANTS:
            pair = random_game(80_000 + seed, variant, options)
            assert pair.over()
    pair = Pair(0, rules.make_config(), options)
    assert engine.to_act(pair.row) == pair.old.to_act
    assert pair.row[engine.STATE.trump_card.start] == pair.old.trump_card
    assert pair.row[engine.STATE.tiebreaker.start] == pair.old.tiebreaker


@pytest.mark.parametrize(
    ("options", "message"), [(o, m) for o, m in BAD_OPTIONS if isinstance(o, dict)]
)
def test_bad_reset_options_raise_the_same_error_and_leave_the_row(options, message):
    with pytest.raises(ValueError, match=message) as old_error:
        rules.new_game(rules.make_config(), StreamGenerator(seed_words(0)), options)
    pair = Pair(5, rules.make_config("turncoat"))
    pair.apply(int(np.flatnonzero(pair.check())[0]))
    row, before = pair.row, pair.row.copy()
    with pytest.raises(ValueError) as new_error:
        engine.start(row, rules.make_config(), options)
    assert str(new_error.value) == str(old_error.value)
    np.testing.assert_array_equal(row, before)


# ---------------------------------------------------------------------------------------------
# 4. The same source as plain Python


def plain_python_check() -> None:
    """Run in a subprocess with NUMBA_DISABLE_JIT=1: a few games and batch steps."""
    assert numba.config.DISABLE_JIT
    assert type(engine.apply).__name__ == "function", "the kernels must be plain Python"
    for variant in VARIANTS:
        random_game(VARIANTS.index(variant), variant)
    random_game(3, "standard", {"round": 6, "scores": {"red": 15, "black": 15}, "start": "play"})
    batch_against_single_games(n_games=3, n_steps=150, points=True)
    print("plain python: ok")


def test_the_engine_runs_as_plain_python_with_the_same_results():
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
# 5. Batch kernels


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


@pytest.mark.usefixtures("one_thread")
@pytest.mark.parametrize("reward", ["win", "points"])
def test_step_batch_rewards_and_restarts_match_the_aec_env_of_the_pure_core(reward):
    """Each slot beside the pure core's AEC env; a finished game restarts as a new game of
    the pure core from the same stream (``rules.new_game(config, rng, {})``)."""
    n, variant = 6, "master_of_spies"
    config = rules.make_config(variant)
    rng = np.random.default_rng(5)
    pairs = [Pair(500 + i, config, quick_options(rng)) for i in range(n)]
    rows = np.stack([pair.row for pair in pairs])
    envs = [old_env(pair, variant, reward) for pair in pairs]
    streams = np.stack([seed_words(700 + i) for i in range(n)])
    out = Outputs(n)
    ended = np.zeros(n, dtype=int)
    for step in range(1200):
        out.step(rows, streams, reward == "points")
        for i in range(n):
            where = f"game {i}, step {step}"
            if not envs[i].agents or envs[i].terminations[envs[i].agent_selection]:
                pairs[i].old = rules.new_game(config, pairs[i].stream, {})
                envs[i] = old_env(pairs[i], variant, reward)
                expected = np.zeros(engine.N_SEATS, dtype=np.float32)
            else:
                envs[i].step(int(out.actions[i]))
                expected = [envs[i].rewards[a] for a in envs[i].possible_agents]
            env, seat = envs[i], int(out.seats[i])
            np.testing.assert_array_equal(out.rewards[i], expected, err_msg=where)
            assert out.terminated[i] == env.terminations[env.agent_selection], where
            assert not out.truncated[i], where
            # the seat shown is the core's seat to act: after the game, the last trick's
            # winner (the AEC env keeps the agent that made the last move)
            assert seat == pairs[i].old.to_act, where
            if not out.terminated[i]:
                assert env.possible_agents[seat] == env.agent_selection, where
            observation = env.observe(env.possible_agents[seat])
            assert_same_observation(out.obs[i], observation["observation"], seat, where)
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
    finished = Pair(3, rules.make_config(), {"round": 7, "scores": {"red": 1, "black": 1}})
    while not finished.over():
        finished.apply(int(np.flatnonzero(finished.check())[-1]))
    rows[2] = finished.row
    bad[6] = out.actions[6]
    bad[2] = -7
    assert engine.first_illegal(rows, bad) == -1
    assert not any(engine.is_legal(rows[2], a) for a in range(53))
    engine.random_batch(rows, streams, out.actions)
    assert out.actions[2] == 0


# ---------------------------------------------------------------------------------------------
# 6. The golden fixture (recorded from the pure core by tests/fixtures/make_golden_lost_ranks.py)


def test_the_engine_reproduces_the_golden_games():
    games = json.loads(GOLDEN.read_text())["games"]
    assert len(games) >= 24
    obs = np.zeros(engine.OBS_SIZE, dtype=np.float32)
    mask = np.zeros(engine.N_ACTIONS, dtype=np.int8)
    for game in games:
        row = np.zeros(engine.ROW_SIZE, dtype=np.int32)
        row[:4] = seed_words(game["seed"])
        engine.start(row, CORE.make_config(**game["keywords"]), game["options"])
        digests = []
        for action in [*game["actions"], None]:
            engine.observe(row, engine.to_act(row), obs)
            engine.legal_mask(row, mask)
            digests.append(view_digest(obs, mask, [engine.score(row, 0), engine.score(row, 1)]))
            if action is not None:
                assert engine.is_legal(row, action)
                engine.apply(row, action)
        assert digests == game["digests"], f"seed {game['seed']}"
        assert list(engine.status(row)) == game["status"]
