"""The compiled Lost Heir engine (``feral_envs/lost_heir/engine.py``) on its own.

Random games over every keyword combination exercise every rule (thrown-in hands, the dealer
bidding over, the refusal duel to 12, `take a lead` only where the keyword allows it, both
endings); ``is_legal`` agrees with the mask; reset options are taken, and refused with the
message that names the problem, leaving the row as it was; the same source runs as plain
Python (``NUMBA_DISABLE_JIT=1``); the batch kernels equal the single-game kernels and the AEC
env's rewards. The golden games recorded from the old pure-Python core are replayed in
``test_lost_heir_engine_golden.py``; the rules scenarios are in ``test_lost_heir_rules.py``.
"""

from __future__ import annotations

import collections
import os
import re
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest
from common import keyword_combinations

from feral_envs.core import DRAW
from feral_envs.engine.game import Game
from feral_envs.engine.rng import below, seed_words
from feral_envs.lost_heir import CORE, encoding, engine, rules, view
from feral_envs.lost_heir.encoding import (
    ACCEPT,
    AGENTS,
    CONCEDE,
    DECK,
    MAX_BID,
    N_ACTIONS,
    N_SEATS,
    OBS,
    PASS,
    RAISE,
    REFUSE,
    TAKE_A_LEAD,
)
from feral_envs.lost_heir.rules import Phase
from feral_envs.table_env import TableEnv

ROOT = Path(__file__).resolve().parents[2]
LEADS = rules.TAKE_A_LEAD_CHOICES
CONFIG_KEYWORDS = sorted(
    {
        tuple((k, v) for k, v in kw.items() if k != "reward")
        for kw in keyword_combinations(CORE.name)
    }
)
"""Every combination of the enumerated keywords that the rules take (``reward`` is the env's:
the batch tests cover it)."""
TARGETS = (1, 3, 6, 10, 16, 25, 40)
PASS_BIAS = 0.8
DEAL = {
    "north": ["T7", "T6", "T5", "T4", "M7", "M6", "W7", "W0"],
    "east": ["T3", "T2", "T1", "M5", "M4", "H7", "H6", "W6"],
    "south": ["T0", "M3", "M2", "M1", "H5", "H4", "W5", "W4"],
    "west": ["M0", "H3", "H2", "H1", "H0", "W3", "W2", "W1"],
}


# --- one game on the engine ------------------------------------------------------------------


class Play:
    """One game in an engine ``row``; ``events`` counts the rules exercised."""

    def __init__(self, seed: int, keywords: dict, options: dict | None = None) -> None:
        self.where = f"seed {seed} {keywords} {options}"
        self.config = rules.make_config(**keywords)
        self.row = np.zeros(engine.ROW_SIZE, dtype=np.int32)
        self.row[:4] = seed_words(seed)
        engine.start(self.row, self.config, options)
        self.mask = np.zeros(N_ACTIONS, dtype=np.int8)
        self.steps = 0
        self.events: collections.Counter = collections.Counter()

    def over(self) -> bool:
        terminated, truncated, _ = engine.status(self.row)
        return bool(terminated or truncated)

    def check(self) -> None:
        """The mask: some legal action exactly while the game runs."""
        engine.legal_mask(self.row, self.mask)
        assert self.mask.any() != self.over(), f"{self.where}, step {self.steps}: mask"

    def apply(self, action: int) -> None:
        self._count(action)
        engine.apply(self.row, action)
        self.steps += 1

    def _count(self, action: int) -> None:
        game = view.decode(self.row, self.config)
        phase, events = game.phase, self.events
        if phase == Phase.DEALER:
            if action == PASS:
                events["thrown in"] += 1
            elif action in encoding.ACTIONS.bid and game.high_bid:
                events["dealer bids over"] += 1
        elif phase == Phase.DUEL_BIDDER:
            events["raise" if action == RAISE else "concede"] += 1
            if game.high_bid == MAX_BID:
                events["refused at 12"] += 1
        elif phase == Phase.DUEL_DEALER:
            events["accept a raise" if action == ACCEPT else "refuse again"] += 1
        elif action == TAKE_A_LEAD:
            events[f"take a lead at trick {game.tricks_done + 1}"] += 1

    def play_out(self, choose) -> None:
        """Check, then apply ``choose(play)``, until the game is over (checked there too)."""
        self.check()
        while not self.over():
            self.apply(choose(self))
            self.check()
        game = view.decode(self.row, self.config)
        if game.terminated:
            reached = game.scores >= self.config.target_score
            self.events["both reached the target" if reached.all() else "terminated"] += 1
        else:
            self.events["truncated"] += 1


def random_chooser(rng: np.random.Generator, pass_bias: float = 0.0):
    """Uniform legal actions; with ``pass_bias``, a pass that often whenever one is legal."""

    def choose(play: Play) -> int:
        mask = play.mask  # just checked
        if pass_bias and mask[PASS] and rng.random() < pass_bias:
            return PASS
        legal = np.flatnonzero(mask)
        return int(legal[rng.integers(len(legal))])

    return choose


def play_random_games(seeds, fixed: dict, rng: np.random.Generator) -> collections.Counter:
    """One game per seed: small targets and hand limits (so that games end often, both
    ways), a third of them mostly passing; the events of all games."""
    events: collections.Counter = collections.Counter()
    for seed in seeds:
        keywords = {
            **fixed,
            "target_score": TARGETS[seed % len(TARGETS)],
            "max_hands": 1 + (seed // len(TARGETS)) % 3,
        }
        play = Play(seed, keywords)
        play.play_out(random_chooser(rng, PASS_BIAS if seed % 3 == 0 else 0.0))
        events += play.events
    return events


ALWAYS = (
    "thrown in",
    "dealer bids over",
    "raise",
    "concede",
    "refused at 12",
    "accept a raise",
    "refuse again",
    "take a lead at trick 3",
    "terminated",
    "both reached the target",
    "truncated",
)


# --- 1. random play ---------------------------------------------------------------------------


@pytest.mark.parametrize("fixed", [dict(kw) for kw in CONFIG_KEYWORDS], ids=str)
def test_random_games_exercise_every_rule(fixed):
    rng = np.random.default_rng(len(str(fixed)))
    events = play_random_games(range(2000), fixed, rng)
    missing = [e for e in ALWAYS if not events[e]]
    assert not missing, f"rules never exercised: {missing}"
    first = fixed["take_a_lead"] == "after_first_trick"
    assert bool(events["take a lead at trick 2"]) == first  # only where the rule allows it


def test_is_legal_agrees_with_the_mask_for_every_action():
    rng = np.random.default_rng(5)
    for seed in range(40):
        play = Play(seed, {"target_score": 10, "max_hands": 2, "take_a_lead": LEADS[seed % 2]})

        def choose(play: Play) -> int:
            legal = [a for a in range(-2, N_ACTIONS + 2) if engine.is_legal(play.row, a)]
            assert legal == np.flatnonzero(play.mask).tolist()
            return legal[rng.integers(len(legal))]

        play.play_out(choose)
        assert not any(engine.is_legal(play.row, a) for a in range(N_ACTIONS))


# --- 2. reset options ------------------------------------------------------------------------


def _hands(**changes):
    hands = {seat: list(cards) for seat, cards in DEAL.items()}
    hands.update(changes)
    return hands


GOOD_OPTIONS = [
    None,
    {},
    {"dealer": "east"},
    {"hands": DEAL},
    {"hands": {seat: tuple(c.lower() for c in cards) for seat, cards in DEAL.items()}},
    {"scores": {"north_south": 0, "east_west": 0}},
    {"dealer": "east", "hands": DEAL, "scores": {"north_south": 0, "east_west": 0}},  # API.md
    {"dealer": "west", "scores": {"north_south": np.int64(11), "east_west": -250}},
    {"hands": DEAL, "scores": {"north_south": 11, "east_west": 11}},
]


@pytest.mark.parametrize("options", GOOD_OPTIONS, ids=str)
@pytest.mark.parametrize("take_a_lead", LEADS)
def test_reset_options_are_taken_and_the_game_plays_to_its_end(options, take_a_lead):
    rng = np.random.default_rng(1)
    given = options or {}
    dealers = set()
    for seed in range(10):  # later hands are dealt from the stream: play on to the end
        keywords = {"target_score": 12, "max_hands": 3, "take_a_lead": take_a_lead}
        play = Play(seed, keywords, options)
        start = view.decode(play.row, play.config)
        dealers.add(start.dealer)
        if "dealer" in given:
            assert AGENTS[start.dealer] == given["dealer"]
        if "hands" in given:
            for seat, agent in enumerate(AGENTS):
                held = {DECK.names[c] for c in np.flatnonzero(start.hands[seat])}
                assert held == {c.upper() for c in given["hands"][agent]}
        scores = given.get("scores", {"north_south": 0, "east_west": 0})
        assert start.scores.tolist() == [scores["north_south"], scores["east_west"]]
        play.play_out(random_chooser(rng, PASS_BIAS if seed % 2 else 0.0))
    assert (len(dealers) == 1) == ("dealer" in given)  # else drawn from the stream


BAD_OPTIONS = [
    ({"bogus": 1}, "unknown reset option(s) 'bogus'; allowed: 'dealer', 'hands', 'scores'"),
    ({"dealer": "east", "seats": 4}, "unknown reset option(s) 'seats'"),
    ({"dealer": "nobody"}, "dealer: unknown seat 'nobody'; seats: north, east, south, west"),
    ({"dealer": 2}, "dealer: unknown seat 2;"),
    ({"hands": "T7 T6"}, "hands must be a dict seat -> list of 8 cards, got str"),
    ({"hands": [DEAL["north"]]}, "hands must be a dict seat -> list of 8 cards, got list"),
    ({"hands": _hands(north=DEAL["north"][:7])}, "hands['north'] has 7 cards; each hand must"),
    ({"hands": _hands(north=[*DEAL["north"][:7], "T3"])}, "card T3 is given twice (north and"),
    ({"hands": _hands(north=[*DEAL["north"][:7], "X9"])}, "hands['north']: unknown card 'X9'"),
    ({"hands": _hands(north=[*DEAL["north"][:7], 7])}, "hands['north']: unknown card 7;"),
    ({"hands": {**_hands(), "up": DEAL["north"]}}, "hands: unknown seat 'up'"),
    ({"hands": {k: v for k, v in DEAL.items() if k != "west"}}, "no hand given for west"),
    ({"hands": _hands(east="T3 T2 T1 M5 M4 H7 H6 W6")}, "hands['east'] must be a list of card"),
    ({"hands": _hands(east=5)}, "hands['east'] must be a list of card names, got 5"),
    ({"scores": {"north_south": 1}}, "scores must be a dict with exactly the keys"),
    ({"scores": [0, 0]}, "scores must be a dict with exactly the keys"),
    ({"scores": {"north_south": 1, "east_west": 2.5}}, "scores['east_west']=2.5 must be an"),
    ({"scores": {"north_south": True, "east_west": 0}}, "scores['north_south']=True must be"),
    ({"scores": {"north_south": 12, "east_west": 0}}, "must be below target_score=12 (the"),
    ({"dealer": "east", "scores": {"north_south": 0, "east_west": 99}}, "scores['east_west']=99"),
]
"""Options ``engine.start`` refuses, and the start of its message (the old core's, word for
word)."""


def _game_in_progress() -> np.ndarray:
    play = Play(3, {"target_score": 12})
    rng = np.random.default_rng(0)
    for _ in range(11):
        play.check()
        play.apply(random_chooser(rng)(play))
    return play.row


@pytest.mark.parametrize(("options", "message"), BAD_OPTIONS, ids=str)
def test_bad_reset_options_raise_naming_the_problem_and_leave_the_row(options, message):
    config = rules.make_config(target_score=12)
    row = _game_in_progress()
    before = row.copy()
    with pytest.raises(ValueError, match=re.escape(message)):
        engine.start(row, config, options)
    assert np.array_equal(row, before)


@pytest.mark.parametrize(
    ("keywords", "options"),
    [
        ({"target_score": 2**31}, {}),
        ({"max_hands": 2**40}, {}),
        ({}, {"scores": {"north_south": -(2**40), "east_west": 0}}),
    ],
)
def test_what_the_int32_row_cannot_hold_is_refused_and_leaves_the_row(keywords, options):
    config = rules.make_config(**keywords)  # valid keywords, valid options
    row = _game_in_progress()
    before = row.copy()
    with pytest.raises(ValueError, match="too large for the compiled engine"):
        engine.start(row, config, options)
    assert np.array_equal(row, before)


# --- 3. the same source as plain Python ------------------------------------------------------


def _python_mode_main() -> None:
    """Run by the test below in a subprocess with NUMBA_DISABLE_JIT=1."""
    import numba

    assert numba.config.DISABLE_JIT
    assert not hasattr(engine.apply, "py_func"), "the engine was compiled"
    rng = np.random.default_rng(0)
    for seed in range(6):
        keywords = {
            "target_score": (3, 10)[seed % 2],
            "max_hands": 2,
            "take_a_lead": LEADS[seed % 2],
        }
        Play(seed, keywords).play_out(random_chooser(rng, PASS_BIAS if seed % 3 == 0 else 0.0))
    for points in (False, True):
        run_batch(n=6, steps=120, points=points, seed=50)
    print("python mode: ok")


def test_the_engine_runs_as_plain_python():
    env = {
        **os.environ,
        "NUMBA_DISABLE_JIT": "1",
        "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'tests'}",
    }
    done = subprocess.run(
        [sys.executable, __file__, "--python-mode"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "python mode: ok" in done.stdout


# --- 4. batch kernels ------------------------------------------------------------------------


def _restart_aec(env: TableEnv, row: np.ndarray) -> None:
    """The AEC env on the game of ``row`` (just started), as its ``reset`` would set it up:
    it then gives the rewards the batch must give."""
    env.reset(seed=0)
    env.game = Game(view.decode, env.config, row.copy())
    env._last_scores = env._score_pair(env.game)
    env.agent_selection = env.possible_agents[engine.to_act(row)]


def _uniform_legal(row: np.ndarray, rng_row: np.ndarray) -> int:
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    engine.legal_mask(row, mask)
    legal = np.flatnonzero(mask)
    return int(legal[below(rng_row, len(legal))]) if len(legal) else 0


def _batch_keywords(i: int) -> dict:
    return {
        "target_score": (3, 6, 12, 25)[i % 4],
        "take_a_lead": LEADS[(i // 4) % 2],
        "max_hands": 1 + i % 3,
    }


def run_batch(n: int, steps: int, points: bool, seed: int) -> collections.Counter:
    """``n`` games with their own keywords, stepped by ``step_batch`` with ``random_batch``
    actions; each also played alone by the single-game kernels (its whole row compared) and
    by the AEC env (observation, mask and rewards compared)."""
    reward = "points" if points else "win"
    rows = np.zeros((n, engine.ROW_SIZE), dtype=np.int32)
    rng_rows = np.stack([seed_words(10**6 + seed + i) for i in range(n)])
    envs = []
    for i in range(n):
        rows[i, :4] = seed_words(seed + i)
        env = TableEnv(CORE, None, reward, **_batch_keywords(i))
        engine.start(rows[i], env.config, {})
        _restart_aec(env, rows[i])
        envs.append(env)
    alone, alone_rng = rows.copy(), rng_rows.copy()
    obs = np.zeros((n, engine.OBS_SIZE), dtype=np.float32)
    masks = np.zeros((n, N_ACTIONS), dtype=np.int8)
    seats = np.zeros(n, dtype=np.int64)
    rewards = np.zeros((n, N_SEATS), dtype=np.float32)
    terminated, truncated = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
    actions = np.zeros(n, dtype=np.int64)
    events: collections.Counter = collections.Counter()
    for step in range(steps):
        engine.random_batch(rows, rng_rows, actions)
        assert engine.first_illegal(rows, actions) == -1
        engine.step_batch(rows, actions, points, obs, masks, seats, rewards, terminated, truncated)
        for i, env in enumerate(envs):
            where = f"game {i}, step {step}"
            row = alone[i]
            assert actions[i] == _uniform_legal(row, alone_rng[i]), where
            if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
                engine.new_game(row)
                _restart_aec(env, row)
                expected_rewards = [0.0] * N_SEATS
                events["restarts"] += 1
            else:
                engine.apply(row, actions[i])
                env.step(int(actions[i]))
                assert env.game.row.tobytes() == row.tobytes(), where
                expected_rewards = [env.rewards[agent] for agent in env.possible_agents]
                events["nonzero rewards"] += any(expected_rewards)
            assert rows[i].tobytes() == row.tobytes(), where
            assert rewards[i].tolist() == expected_rewards, where
            seat = engine.to_act(row)
            assert seats[i] == seat, where
            expected = env.observe(env.possible_agents[seat])
            assert obs[i].tobytes() == expected["observation"].tobytes(), where
            assert masks[i].tolist() == expected["action_mask"].tolist(), where
            status = engine.status(row)
            assert (terminated[i], truncated[i]) == (status[0], status[1]), where
            events["terminated"] += bool(terminated[i])
            events["truncated"] += bool(truncated[i])
    return events


@pytest.fixture
def one_thread():
    """Many small parallel calls run on one thread: on a shared machine an OpenMP team waits
    for a descheduled thread at every call (the results cannot differ: see the test of
    threads below)."""
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    yield
    numba.set_num_threads(threads)


@pytest.mark.usefixtures("one_thread")
@pytest.mark.parametrize("points", [False, True], ids=["win", "points"])
def test_step_batch_equals_single_games_and_the_aec_rewards(points):
    events = run_batch(n=24, steps=400, points=points, seed=7)
    assert events["restarts"] > 40 and events["terminated"] > 10 and events["truncated"] > 10
    assert events["nonzero rewards"] > (100 if points else 10)


def _batch_course(n: int, steps: int) -> list[bytes]:
    rows = np.zeros((n, engine.ROW_SIZE), dtype=np.int32)
    for i in range(n):
        rows[i, :4] = seed_words(i)
        engine.start(rows[i], rules.make_config(**_batch_keywords(i)), {})
    rng_rows = np.stack([seed_words(10**6 + i) for i in range(n)])
    obs = np.zeros((n, engine.OBS_SIZE), dtype=np.float32)
    masks = np.zeros((n, N_ACTIONS), dtype=np.int8)
    seats = np.zeros(n, dtype=np.int64)
    rewards = np.zeros((n, N_SEATS), dtype=np.float32)
    terminated, truncated = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
    actions = np.zeros(n, dtype=np.int64)
    course = []
    for _ in range(steps):
        engine.random_batch(rows, rng_rows, actions)
        engine.step_batch(rows, actions, True, obs, masks, seats, rewards, terminated, truncated)
        course.append(b"".join(a.tobytes() for a in (rows, obs, masks, seats, rewards)))
    return course


def test_batches_do_not_depend_on_the_number_of_threads():
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        alone = _batch_course(n=256, steps=60)
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        assert _batch_course(n=256, steps=60) == alone
    finally:
        numba.set_num_threads(threads)


@pytest.mark.usefixtures("one_thread")
def test_reset_observe_and_masks_batches_equal_the_single_game_kernels():
    n = 16
    rows = np.zeros((n, engine.ROW_SIZE), dtype=np.int32)
    for i in range(n):
        rows[i, :4] = seed_words(500 + i)
        engine.start(rows[i], rules.make_config(**_batch_keywords(i)), {"dealer": "north"})
        rows[i, :4] = seed_words(900 + i)  # keywords kept; the game is replaced
    alone = rows.copy()
    obs = np.zeros((n, engine.OBS_SIZE), dtype=np.float32)
    one_obs = np.zeros(engine.OBS_SIZE, dtype=np.float32)
    masks = np.zeros((n, N_ACTIONS), dtype=np.int8)
    one_mask = np.zeros(N_ACTIONS, dtype=np.int8)
    seats = np.zeros(n, dtype=np.int64)
    engine.reset_batch(rows, obs, masks, seats)
    for i in range(n):
        engine.new_game(alone[i])
        assert rows[i].tobytes() == alone[i].tobytes()
        assert seats[i] == engine.to_act(alone[i])
        engine.observe(alone[i], engine.to_act(alone[i]), one_obs)
        engine.legal_mask(alone[i], one_mask)
        assert obs[i].tobytes() == one_obs.tobytes()
        assert masks[i].tolist() == one_mask.tolist()
    rng = np.random.default_rng(2)
    for _ in range(60):  # any seat's observation, any position
        others = rng.integers(N_SEATS, size=n)
        engine.observe_batch(rows, others, obs)
        engine.masks_batch(rows, masks)
        for i in range(n):
            engine.observe(rows[i], int(others[i]), one_obs)
            engine.legal_mask(rows[i], one_mask)
            assert obs[i].tobytes() == one_obs.tobytes()
            assert masks[i].tolist() == one_mask.tolist()
            if one_mask.any():
                engine.apply(rows[i], int(rng.choice(np.flatnonzero(one_mask))))


@pytest.mark.usefixtures("one_thread")
def test_first_illegal_names_the_first_bad_game():
    n = 12
    rows = np.zeros((n, engine.ROW_SIZE), dtype=np.int32)
    for i in range(n):
        rows[i, :4] = seed_words(i)
        engine.start(rows[i], rules.make_config(), {"dealer": "west", "hands": DEAL})
    actions = np.full(n, PASS, dtype=np.int64)  # north calls first: pass is legal
    assert engine.first_illegal(rows, actions) == -1
    for bad in (ACCEPT, REFUSE, CONCEDE, TAKE_A_LEAD, N_ACTIONS, -1, 10**9):
        wrong = actions.copy()
        wrong[[5, 9]] = bad
        assert engine.first_illegal(rows, wrong) == 5
    rows[5, engine.TERMINATED] = 1  # a finished game accepts any action
    assert engine.first_illegal(rows, wrong) == 9


# --- the module's contract -------------------------------------------------------------------


def test_the_module_constants_agree_with_the_core():
    assert engine.N_ACTIONS == CORE.n_actions and engine.N_SEATS == CORE.n_seats
    assert engine.OBS_SHAPE == CORE.obs_shape and engine.OBS_SIZE == OBS.size
    assert engine.TEAM_OF_SEAT.dtype == np.int64
    assert engine.TEAM_OF_SEAT.tolist() == list(CORE.team_of_seat)
    assert engine.DRAW == DRAW
    first = engine.STATE.spans[0]
    assert (first.name, first.start, first.size) == ("rng", 0, 4)
    names = [span.name for span in engine.STATE.spans]
    assert names[1:4] == ["target_score", "take_a_lead", "max_hands"]
    assert engine.ROW_SIZE == engine.STATE.size
    assert all(span.doc for span in engine.STATE.spans)


if __name__ == "__main__" and sys.argv[1:] == ["--python-mode"]:
    _python_mode_main()
