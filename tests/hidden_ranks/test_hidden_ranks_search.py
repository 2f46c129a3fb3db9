"""Hidden Ranks worlds (``feral_envs.hidden_ranks.search``) and the ``minimax`` search bot
(``agents.search.hidden_ranks``): what a world keeps and what it draws, in every phase; that
a world depends on the seat's view only (two truths that look the same give the same world);
the Flag prior; refusals; the bot's arguments, determinism and legal play over whole games;
the same source as plain Python (``NUMBA_DISABLE_JIT=1``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import feral_envs
from agents.heuristic.hidden_ranks import corner_plan, decoy_plan, guarded_plan, plan_setup
from agents.registry import load_policy
from agents.search import hidden_ranks as S
from agents.search.hidden_ranks import MinimaxBot, make_minimax
from feral_envs.hidden_ranks import engine as E
from feral_envs.hidden_ranks import rules, search
from feral_envs.hidden_ranks.rules import BOMB, FLAG, MOVED_BIT, OWNER_BIT, PUBLIC_BIT, RANK_BITS

ROOT = Path(__file__).resolve().parents[2]
GAME = "hidden_ranks"


def play_to(env, steps: int, rng: np.random.Generator) -> None:
    for _ in range(steps):
        agent = env.agent_selection
        if env.terminations[agent]:
            return
        legal = np.flatnonzero(env.observe(agent)["action_mask"])
        env.step(int(legal[rng.integers(legal.size)]))


def random_positions(mode: str, setup: str, n: int, seed: int, low: int = 0, high: int = 300):
    rng = np.random.default_rng(seed)
    for g in range(n):
        env = feral_envs.make(GAME, mode=mode, setup=setup).unwrapped
        env.reset(seed=seed * 100 + g)
        play_to(env, int(rng.integers(low, high)), rng)
        if not env.terminations[env.agent_selection]:
            yield env


def enemy_counts(board: np.ndarray, enemy: int) -> np.ndarray:
    counts = np.zeros(rules.N_RANKS + 1, dtype=np.int64)
    for code in board:
        if code and code < rules.LAKE and (code & OWNER_BIT) == OWNER_BIT * enemy:
            counts[code & RANK_BITS] += 1
    return counts


@pytest.mark.parametrize("mode", ["quick", "full"])
def test_a_world_keeps_the_public_and_redraws_the_enemy_army(mode):
    army = np.zeros(rules.N_RANKS + 1, dtype=np.int64)
    for rank, count in rules.ARMIES[mode].items():
        army[rank] = count
    checked = 0
    for k, env in enumerate(random_positions(mode, "random", 12, seed=1, low=1)):
        row = env.game.row
        for seat in (0, 1):
            enemy = 1 - seat
            world = search.sample_world(row, env.config, seat, np.random.default_rng(k))
            board, truth = world[E.BOARD : E.BOARD + 100], row[E.BOARD : E.BOARD + 100]
            for square in range(100):
                code, real = int(board[square]), int(truth[square])
                if real == 0 or real >= rules.LAKE or (real & OWNER_BIT) != OWNER_BIT * enemy:
                    assert code == real  # empty, lakes, the seat's own pieces
                elif real & PUBLIC_BIT:
                    assert code == real  # a public enemy rank
                else:  # an unknown enemy piece: same square, owner, moved flag; a new rank
                    assert code & ~RANK_BITS == real & ~RANK_BITS
                    if code & MOVED_BIT:
                        assert code & RANK_BITS < BOMB
            removed = world[
                E.REMOVED + rules.N_RANKS * enemy : E.REMOVED + rules.N_RANKS * (enemy + 1)
            ]
            np.testing.assert_array_equal(enemy_counts(board, enemy)[1:] + removed, army[1:])
            same = np.ones(E.ROW_SIZE, dtype=bool)
            same[: E.BOARD + 100] = False
            np.testing.assert_array_equal(world[same], row[same])  # the last strike too
            np.testing.assert_array_equal(world[E.MODE : E.BOARD], row[E.MODE : E.BOARD])
            checked += 1
    assert checked >= 10


def test_two_truths_that_look_the_same_give_the_same_world():
    # Gold's Marshal and Bomb swapped: silver, who has seen neither, gets the same worlds.
    setup = {"gold": {"a1": "F", "b1": "B", "c1": "10", "d1": "9", "e1": "3", "f1": "2",
                      "g1": "2", "h1": "S"},
             "silver": {"a10": "F", "b10": "B", "c10": "10", "d10": "9", "e10": "3",
                        "f10": "2", "g10": "2", "h10": "S"}}  # fmt: skip
    swapped = {**setup, "gold": {**setup["gold"], "b1": "10", "c1": "B"}}
    worlds = []
    for options in (setup, swapped):
        env = feral_envs.make(GAME, mode="quick", setup="random").unwrapped
        env.reset(seed=3, options={"setup": options})
        env.step(rules.move_action(3, rules.FORWARD, 1))  # gold: d1-d2 (a 9 moves)
        worlds.append(env.sample_world("silver", np.random.default_rng(7)).state())
        assert env.game.row[E.BOARD + 1] != env.game.row[E.BOARD + 2]  # the truths differ
    np.testing.assert_array_equal(worlds[0], worlds[1])
    # The moved piece on d2 is never a Bomb or the Flag in any world.
    env.step(int(np.flatnonzero(env.observe("silver")["action_mask"])[0]))
    for k in range(50):
        world = search.sample_world(env.game.row, env.config, 1, np.random.default_rng(k))
        assert world[E.BOARD + 13] & RANK_BITS < BOMB


def test_the_flag_prior_puts_the_flag_on_weighted_rows():
    env = feral_envs.make(GAME, mode="full", setup="random").unwrapped
    env.reset(seed=4)
    obs = env.observe("gold")["observation"]
    back_row = np.zeros(10)
    back_row[9] = 1.0
    rows = set()
    for k in range(40):
        world = search.sample_from_observation(
            obs, env.config, 0, np.random.default_rng(k), flag_rows=back_row
        )
        board = world[E.BOARD : E.BOARD + 100]
        flags = np.flatnonzero((board & RANK_BITS) == FLAG)
        silver_flag = [s for s in flags if board[s] & OWNER_BIT]
        assert len(silver_flag) == 1
        rows.add(silver_flag[0] // 10)
    assert rows == {9}  # gold's ego row 9 is row 10
    uniform = {
        int(np.flatnonzero((w[E.BOARD : E.BOARD + 100] & 0x1F) == FLAG | OWNER_BIT)[0]) // 10
        for w in (
            search.sample_from_observation(obs, env.config, 0, np.random.default_rng(k))
            for k in range(40)
        )
    }
    assert len(uniform) > 1


def test_setup_phase_worlds():
    env = feral_envs.make(GAME, mode="quick", setup="choose").unwrapped
    env.reset(seed=5)
    rng = np.random.default_rng(0)
    play_to(env, 3, rng)  # gold has placed three pieces
    army = len(rules.SETUP_ORDER["quick"])
    for seat in (0, 1):
        world = search.sample_world(env.game.row, env.config, seat, np.random.default_rng(1))
        assert world[E.PHASE] == E.PHASE_SETUP and world[E.TO_MOVE] == 0
        # gold sees its three pieces; silver cannot tell how many gold placed: none in its world
        assert world[E.SETUP_NEXT] == (3 if seat == 0 else 0)
        assert world[E.SETUP_NEXT + 1] == 0
    play_to(env, army - 3 + 2, rng)  # gold done, silver has placed two
    world = search.sample_world(env.game.row, env.config, 1, np.random.default_rng(2))
    assert world[E.TO_MOVE] == 1 and world[E.SETUP_NEXT + 1] == 2
    assert world[E.SETUP_NEXT] == army  # gold's whole army, on a random setup
    assert sorted(enemy_counts(world[E.BOARD : E.BOARD + 100], 0)[1:]) == sorted(
        enemy_counts(env.game.row[E.BOARD : E.BOARD + 100], 0)[1:]
    )
    world = search.sample_world(env.game.row, env.config, 0, np.random.default_rng(2))
    assert world[E.SETUP_NEXT] == army and world[E.SETUP_NEXT + 1] == 0


def test_a_position_start_draws_from_the_pieces_not_accounted_for():
    env = feral_envs.make(GAME, mode="quick").unwrapped
    env.reset(
        seed=0,
        options={"position": {"gold": {"a1": "F", "e4": "10"}, "silver": {"e7": "2", "j10": "F"}}},
    )
    for k in range(30):
        world = search.sample_world(env.game.row, env.config, 0, np.random.default_rng(k))
        board = world[E.BOARD : E.BOARD + 100]
        assert board[64] & OWNER_BIT and board[99] & OWNER_BIT
        assert enemy_counts(board, 1).sum() == 2
        assert world[E.BOARD + 0] == env.game.row[E.BOARD + 0]


def test_sample_from_observation_refuses_what_no_game_shows():
    env = feral_envs.make(GAME, mode="quick", setup="random").unwrapped
    env.reset(seed=1)
    obs = env.observe("gold")["observation"]
    config = env.config
    with pytest.raises(ValueError, match="7100 entries"):
        search.sample_from_observation(obs[:5], config, 0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="flag_rows"):
        search.sample_from_observation(obs, config, 0, np.random.default_rng(0), flag_rows=[1, 2])
    with pytest.raises(ValueError, match="seat"):
        search.sample_from_observation(obs, config, 2, np.random.default_rng(0))
    full = rules.make_config(mode="full", setup="random")
    flat = obs.reshape(100, -1).copy()
    flat[:, E.P_ENEMY_UNKNOWN] = 0
    flat[60:100, E.P_ENEMY_RANK + rules.MARSHAL - 1] = 1  # forty enemy Marshals
    flat[[42, 43, 46, 47, 52, 53, 56, 57], E.P_ENEMY_RANK + rules.MARSHAL - 1] = 0
    with pytest.raises(ValueError, match="no army"):
        search.sample_from_observation(flat, full, 0, np.random.default_rng(0))


# --- the bot ------------------------------------------------------------------------------


def test_minimax_arguments():
    keywords = {"mode": "quick"}
    bot = make_minimax({"worlds": "3", "depth": "1"}, 0, keywords)
    assert (bot.worlds, bot.depth, bot.time_limit, bot.spec) == (
        3,
        1,
        None,
        "minimax:worlds=3,depth=1",
    )
    assert make_minimax({"time": "0.25"}, 0, keywords).time_limit == 0.25
    assert (make_minimax({}, 0, keywords).depth, make_minimax({}, 0, {}).depth) == (4, 3)
    for arguments, message in [
        ({"worlds": "0"}, "worlds='0'"),
        ({"worlds": "many"}, "worlds='many'"),
        ({"depth": "5"}, "depth='5'.*1 to 4"),
        ({"time": "-1"}, "time='-1'"),
        ({"time": "soon"}, "time='soon'"),
        ({"speed": "1"}, "no argument 'speed'.*worlds, depth, time, guard"),
        ({"guard": "7"}, "guard='7'.*mobile rank of the army: S, 2, 3, 9, 10"),
        ({"guard": "F"}, "guard='F'"),
    ]:
        with pytest.raises(ValueError, match=message):
            make_minimax(arguments, 0, keywords)
    assert make_minimax({}, 0, keywords).guard == rules.MARSHAL
    assert (MinimaxBot(0, keywords).guard, MinimaxBot(0, {}).guard) == (rules.MARSHAL, 4)
    assert make_minimax({"guard": "9"}, 0, keywords).guard == 9
    assert make_minimax({"guard": "7"}, 0, {"mode": "full"}).guard == 7
    assert make_minimax({}, 0, {"mode": "full"}).guard == 4  # the heuristic's guard
    assert (MinimaxBot(0, keywords).decoy, MinimaxBot(0, {}).decoy) == (False, True)
    assert make_minimax({"decoy": "0"}, 0, {"mode": "full"}).setup_bot.decoy is False
    assert make_minimax({}, 0, {"mode": "full"}).setup_bot.decoy is True
    with pytest.raises(ValueError, match=r"decoy=1 is not allowed in the quick game.*full game"):
        make_minimax({"decoy": "1"}, 0, keywords)
    with pytest.raises(ValueError, match=r"decoy='yes' is not allowed; it must be 0.*or 1"):
        make_minimax({"decoy": "yes"}, 0, {"mode": "full"})
    assert make_minimax({}, 0, {"mode": "full"}).setup_bot.corner is True
    assert make_minimax({"corner": "0"}, 0, {"mode": "full"}).setup_bot.corner is False
    with pytest.raises(ValueError, match=r"corner='2' is not allowed; it must be 0.*or 1"):
        make_minimax({"corner": "2"}, 0, keywords)
    with pytest.raises(
        ValueError, match="mode='huge' is not allowed; choose one of: 'full', 'quick'"
    ):
        make_minimax({}, 0, {"mode": "huge"})
    policy = load_policy("minimax:worlds=2", GAME, 0, keywords)
    assert isinstance(policy, MinimaxBot) and policy.worlds == 2
    with pytest.raises(ValueError, match="key=value"):
        load_policy("minimax:worlds", GAME, 0, keywords)


def play_game(
    mode: str, setup: str, spec: str, seed: int, max_moves: int
) -> tuple[list, MinimaxBot]:
    keywords = {"mode": mode, "setup": setup, "max_moves": max_moves}
    env = feral_envs.make(GAME, **keywords)
    env.reset(seed=seed)
    bot = load_policy(spec, GAME, seed, keywords)
    other = load_policy("heuristic", GAME, seed, keywords)
    bot.reset(seed)
    other.reset(seed)
    players = {"gold": bot, "silver": other} if seed % 2 == 0 else {"gold": other, "silver": bot}
    actions = []
    for agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        action = players[agent].act(observation["observation"], observation["action_mask"])
        assert observation["action_mask"][action] == 1
        actions.append(action)
        env.step(action)
    return actions, bot


@pytest.mark.parametrize(
    ("mode", "setup", "max_moves"), [("quick", "choose", 2000), ("full", "random", 120)]
)
def test_minimax_plays_legal_whole_games_and_repeats_itself(mode, setup, max_moves):
    spec = "minimax:worlds=4,depth=2"
    for seed in (0, 1):
        first, bot = play_game(mode, setup, spec, seed, max_moves)
        again, _ = play_game(mode, setup, spec, seed, max_moves)
        assert first == again  # deterministic given the seed
        assert bot.decisions > 0 and bot.mean_decision_seconds > 0


def next_to(a: int, b: int) -> bool:
    return abs(a // 10 - b // 10) + abs(a % 10 - b % 10) == 1


@pytest.mark.parametrize(("mode", "guard"), [("quick", rules.SCOUT), ("full", 4)])
def test_the_guarded_plan_puts_the_marshal_where_the_heuristic_puts_its_guard(mode, guard):
    army = rules.ARMIES[mode]
    swapped = 0
    for seed in range(40):
        plain = plan_setup(np.random.default_rng(seed), army)
        plan = guarded_plan(np.random.default_rng(seed), army, rules.MARSHAL)
        squares = [square for squares in plan.values() for square in squares]
        assert len(set(squares)) == len(squares) == sum(army.values())
        assert all(0 <= square < rules.N_HOME for square in squares)
        assert {rank: len(plan[rank]) for rank in plan} == army
        flag = plan[FLAG][0]
        walls = [flag, *plan[BOMB]]
        if any(next_to(plain[guard][0], wall) for wall in walls):
            swapped += 1
            assert plan[rules.MARSHAL] == [plain[guard][0]]
            assert plan[guard][0] == plain[rules.MARSHAL][0]
            assert plan[guard][1:] == plain[guard][1:]
            assert {r: q for r, q in plan.items() if r not in (guard, rules.MARSHAL)} == {
                r: q for r, q in plain.items() if r not in (guard, rules.MARSHAL)
            }
        else:
            assert plan == plain
        assert guarded_plan(np.random.default_rng(seed), army, guard) == plain
    assert swapped >= 30  # the plan puts its guard by the Flag nearly always
    if mode == "quick":  # the corner Flag's open side: the Marshal beside it
        for seed in range(40):
            plan = guarded_plan(np.random.default_rng(seed), army, rules.MARSHAL)
            assert next_to(plan[rules.MARSHAL][0], plan[FLAG][0])


def walls_of(square: int) -> set[int]:
    """The home squares beside a back-row square (ego, row 0 at the back): its sides and the
    square in front."""
    return {square + 10} | {square + d for d in (-1, 1) if 0 <= square % 10 + d < 10}


def test_the_decoy_plan_walls_a_sergeant_on_the_back_row_as_the_flag_is_walled():
    army = rules.ARMIES["full"]
    columns = set()
    for seed in range(60):
        rng = np.random.default_rng(seed)
        plain = guarded_plan(rng, army, 4)
        plan = decoy_plan(rng, {rank: list(squares) for rank, squares in plain.items()})
        squares = [square for squares in plan.values() for square in squares]
        assert len(set(squares)) == len(squares) == 40
        assert {rank: len(plan[rank]) for rank in plan} == army
        flag = plan[FLAG][0]
        assert flag == plain[FLAG][0] and flag < 10  # the Flag stays on the back row
        assert walls_of(flag) <= set(plan[BOMB])  # and walled in as before
        decoys = [q for q in plan[4] if q < 10 and walls_of(q) <= set(plan[BOMB])]
        assert len(decoys) == 1
        decoy = decoys[0]
        assert abs(decoy % 10 - flag % 10) >= 3
        assert walls_of(flag) | walls_of(decoy) <= set(plan[BOMB])  # a corner needs two
        columns.add(decoy % 10)
        # Only the squares of the decoy, its walls and the pieces they sent away changed.
        moved = {q for q in range(40) if rank_at(plan, q) != rank_at(plain, q)}
        assert moved <= walls_of(decoy) | {decoy} | set(plain[BOMB]) | set(plain[4])
    assert len(columns) >= 8  # drawn, not fixed
    quick = plan_setup(np.random.default_rng(0), rules.ARMIES["quick"])
    assert decoy_plan(np.random.default_rng(0), quick) == quick  # no spare Bomb, no Sergeant


def test_the_corner_plan_moves_the_flag_and_two_of_its_bombs_to_the_nearer_corner():
    army = rules.ARMIES["full"]
    moved = 0
    for seed in range(60):
        plain = guarded_plan(np.random.default_rng(seed), army, 4)
        plan = corner_plan({rank: list(squares) for rank, squares in plain.items()})
        assert {rank: len(plan[rank]) for rank in plan} == army
        squares = [square for squares in plan.values() for square in squares]
        assert len(set(squares)) == len(squares) == 40
        before, flag = plain[FLAG][0], plan[FLAG][0]
        assert flag == (0 if before % 10 < 5 else 9)  # the nearer back corner
        assert walls_of(flag) <= set(plan[BOMB])
        changed = {q for q in range(40) if rank_at(plan, q) != rank_at(plain, q)}
        assert changed <= {before, flag} | walls_of(before) | walls_of(flag)
        moved += before != flag
        # With the false Flag after it: both enclosures, apart.
        both = decoy_plan(np.random.default_rng(seed), plan)
        decoy = next(q for q in both[4] if q < 10 and walls_of(q) <= set(both[BOMB]))
        assert both[FLAG] == [flag] and abs(decoy % 10 - flag % 10) >= 3
    assert moved >= 40  # the rule puts the Flag in a corner a fifth of the time
    quick = plan_setup(np.random.default_rng(0), rules.ARMIES["quick"])
    assert corner_plan(quick) == quick  # the quick game's Flag is in a corner already


def rank_at(plan: dict[int, list[int]], square: int) -> int:
    return next((rank for rank, squares in plan.items() if square in squares), 0)


@pytest.mark.parametrize(
    ("spec", "decoy", "corner"),
    [
        ("minimax", True, True),
        ("minimax:decoy=0", False, True),
        ("minimax:corner=0", True, False),
        ("minimax:decoy=0,corner=0", False, False),
    ],
)
def test_the_full_game_bot_sets_a_false_flag_on_the_board(spec, decoy, corner):
    keywords = {"mode": "full", "setup": "choose"}
    env = feral_envs.make(GAME, **keywords)
    env.reset(seed=3)
    bots = {agent: load_policy(spec, GAME, 3 + i, keywords) for i, agent in enumerate(env.agents)}
    for bot in bots.values():
        bot.reset(3)
    while env.unwrapped.game.row[E.PHASE] == E.PHASE_SETUP:
        agent = env.agent_selection
        observation = env.observe(agent)
        env.step(bots[agent].act(observation["observation"], observation["action_mask"]))
    for agent in env.agents:
        # The seat's own view: its ranks by ego square (row 9 its back row, seen from it).
        planes = env.observe(agent)["observation"].reshape(rules.N_SQUARES, -1)
        ranks = planes[:, E.P_MY_RANK : E.P_MY_RANK + rules.N_RANKS]
        rank = np.where(ranks.any(axis=1), ranks.argmax(axis=1) + 1, 0)
        home_row = 0 if rank[:10].any() else 9
        front = 1 if home_row == 0 else -1

        row = [home_row * 10 + c for c in range(10)]
        walled = [
            q
            for q in row
            if all(
                rank[t] == BOMB
                for t in [q + 10 * front] + [q + d for d in (-1, 1) if 0 <= q % 10 + d < 10]
            )
        ]
        flag = next(q for q in walled if rank[q] == FLAG)
        assert any(rank[q] == 4 for q in walled) == decoy
        if corner:  # seed 3's rule puts the Flag in a middle column: the corner is the move
            assert flag % 10 in (0, 9)
        else:
            assert flag % 10 not in (0, 9)


def test_the_bot_and_the_guarded_heuristic_set_the_marshal_by_the_flag():
    keywords = {"mode": "quick", "setup": "choose"}
    for seed, spec, beside in [
        (0, "minimax", True),
        (1, "minimax", True),
        (0, "minimax:guard=2", False),
        (0, "heuristic:guard=10", True),  # the heuristic with the search bot's setup
        (1, "heuristic:guard=10", True),
        (0, "heuristic", False),  # its corner Flag's two sides: a Bomb and a Scout
    ]:
        env = feral_envs.make(GAME, **keywords)
        env.reset(seed=seed)
        bots = {
            agent: load_policy(spec, GAME, seed + i, keywords) for i, agent in enumerate(env.agents)
        }
        for bot in bots.values():
            bot.reset(seed)
        while env.unwrapped.game.row[E.PHASE] == E.PHASE_SETUP:
            agent = env.agent_selection
            observation = env.observe(agent)
            env.step(bots[agent].act(observation["observation"], observation["action_mask"]))
        board = env.unwrapped.game.row[E.BOARD : E.BOARD + rules.N_SQUARES]
        for side in range(2):
            mine = [
                q
                for q in range(rules.N_SQUARES)
                if board[q] and board[q] < rules.LAKE and (board[q] & OWNER_BIT) == OWNER_BIT * side
            ]
            flag = next(q for q in mine if board[q] & RANK_BITS == FLAG)
            marshal = next(q for q in mine if board[q] & RANK_BITS == rules.MARSHAL)
            assert next_to(marshal, flag) == beside


def test_minimax_with_a_time_budget_searches_what_fits():
    keywords = {"mode": "quick", "setup": "random"}
    env = feral_envs.make(GAME, **keywords)
    env.reset(seed=1)
    bot = make_minimax({"time": "0.05", "depth": "1"}, 0, keywords)
    observation = env.observe("gold")
    action = bot.act(observation["observation"], observation["action_mask"])
    assert observation["action_mask"][action] == 1
    assert 1 <= bot.worlds_searched <= 1024 and bot.decisions == 1


@pytest.mark.slow
def test_minimax_plays_a_whole_full_game():
    play_game("full", "choose", "minimax:worlds=2,depth=2", 3, 2000)


PLAIN_PYTHON = """
import numpy as np
from numba.core.registry import CPUDispatcher
import feral_envs
from feral_envs.hidden_ranks import search
from agents.search import hidden_ranks as S

assert not isinstance(search.world_from_observation, CPUDispatcher), "JIT is on"
env = feral_envs.make("hidden_ranks", mode="quick", setup="random").unwrapped
env.reset(seed=2)
for step in range(6):
    agent = env.agent_selection
    obs = env.observe(agent)
    world = env.sample_world(agent, np.random.default_rng(step))
    bot = S.make_minimax({"worlds": "1", "depth": "2"}, 0, {"mode": "quick", "setup": "random"})
    env.step(bot.act(obs["observation"], obs["action_mask"]))
print("plain python search: ok")
"""


def test_the_search_runs_as_plain_python():
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", PLAIN_PYTHON], env=env, cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "plain python search: ok" in done.stdout


# --- the bot's Flag prior, evaluation terms and no leak ------------------------------------

QUICK_SETUP = {
    "gold": {"a1": "F", "a2": "B", "b1": "2", "d3": "10", "g3": "9", "e2": "3", "j4": "2",
             "h3": "S"},
    "silver": {"j10": "F", "j9": "B", "i10": "2", "c8": "10", "g8": "9", "e9": "3",
               "a7": "2", "h8": "S"},
}  # fmt: skip


def test_the_flag_prior_by_square_weighs_corners_and_squares_by_a_known_bomb():
    env = feral_envs.make(GAME, mode="quick").unwrapped
    env.reset(seed=0, options={"setup": QUICK_SETUP})
    obs = env.observe("gold")["observation"].reshape(-1)
    prior = S.flag_prior(obs, "quick").reshape(10, 10)
    rows, corner = S.FLAG_ROWS["quick"], S.FLAG_CORNER["quick"]
    assert prior[9, 0] == prior[9, 9] == corner * rows[9]  # a10, j10: corners
    assert prior[9, 4] == rows[9] and prior[7, 3] == rows[7]  # e10, d8
    # Gold learns that j9 holds a Bomb: j10 and i9 (next to it) weigh more, j8 too.
    flat = obs.reshape(100, E.N_PLANES).copy()
    flat[89, E.P_ENEMY_UNKNOWN] = 0
    flat[89, E.P_ENEMY_RANK + BOMB - 1] = 1
    prior = S.flag_prior(flat.reshape(-1), "quick").reshape(10, 10)
    assert prior[9, 9] == corner * rows[9] * (1 + S.FLAG_BOMB)  # j10
    assert prior[8, 8] == rows[8] * (1 + S.FLAG_BOMB)  # i9
    assert prior[9, 8] == rows[9]  # i10: not next to j9


def test_the_flag_prior_by_square_puts_the_flag_on_the_weighted_squares():
    env = feral_envs.make(GAME, mode="quick").unwrapped
    env.reset(seed=0, options={"setup": QUICK_SETUP})
    obs = env.observe("gold")["observation"]
    weights = np.zeros(100)
    weights[[90, 99]] = 1.0  # a10 and j10 (ego squares of gold)
    seen = set()
    for k in range(40):
        world = search.sample_from_observation(
            obs, env.config, 0, np.random.default_rng(k), flag_rows=weights
        )
        board = world[E.BOARD : E.BOARD + 100]
        seen.add(int(np.flatnonzero((board & 0x1F) == FLAG | OWNER_BIT)[0]))
    assert seen == {99}  # a10 holds no silver piece: only j10 can hold the Flag
    with pytest.raises(ValueError, match="100"):
        search.sample_from_observation(
            obs, env.config, 0, np.random.default_rng(0), flag_rows=np.ones(99)
        )


def evaluation_terms(row: np.ndarray, me: int, **terms: float) -> float:
    """The evaluation with the named terms set, less the evaluation with them at 0."""
    names = ["info", "pull", "pull_each", "defend", "win", "unmoved", "guard", "keep"]
    params = np.zeros(len(names))
    params[names.index("win")] = S.WIN
    facts = np.zeros(6, dtype=np.int64)
    S._facts(row, facts)
    base = S._evaluate(row, me, params, facts)
    for name, value in terms.items():
        params[names.index(name)] = value
    return S._evaluate(row, me, params, facts) - base


def test_the_guard_term_counts_the_open_sides_of_each_flag():
    env = feral_envs.make(GAME, mode="quick").unwrapped
    # Gold's Flag on a1: a2 a Bomb, b1 empty (one open side). Silver's Flag on e10: d10 a
    # silver Scout, f10 and e9 empty, two open sides.
    env.reset(
        seed=0,
        options={"position": {"gold": {"a1": "F", "a2": "B", "e4": "10"},
                              "silver": {"e10": "F", "d10": "2", "e7": "9"}}},
    )  # fmt: skip
    row = env.game.row
    assert evaluation_terms(row, 0, guard=1.0) == pytest.approx(-1.0 + 2.0)
    assert evaluation_terms(row, 1, guard=1.0) == pytest.approx(-2.0 + 1.0)
    env.reset(
        seed=0,
        options={"position": {"gold": {"a1": "F", "a2": "B", "b1": "S", "e4": "10"},
                              "silver": {"e10": "F", "d10": "2", "e9": "9", "f10": "3"}}},
    )  # fmt: skip
    assert evaluation_terms(env.game.row, 0, guard=1.0) == pytest.approx(0.0)
    # An enemy piece next to the Flag leaves that side open: gold's 10 on d10's place.
    env.reset(
        seed=0,
        options={"position": {"gold": {"a1": "F", "a2": "B", "b1": "S", "d10": "10"},
                              "silver": {"e10": "F", "e9": "9", "f10": "3"}}},
    )  # fmt: skip
    assert evaluation_terms(env.game.row, 0, guard=1.0) == pytest.approx(1.0)


def test_the_keep_term_counts_the_flag_sides_with_no_keeper_by_them():
    env = feral_envs.make(GAME, mode="full").unwrapped
    # Gold's Flag on a1, Bombs on a2 and b1; its Sergeant on c1 is next to b1, not to a2: one
    # side without a keeper. Silver's Flag on j10, Bombs on j9 and i10; its Miner on h10
    # beats no Miner: two sides without a keeper.
    env.reset(
        seed=0,
        options={"position": {"gold": {"a1": "F", "a2": "B", "b1": "B", "c1": "4"},
                              "silver": {"j10": "F", "j9": "B", "i10": "B", "h10": "3"}}},
    )  # fmt: skip
    assert evaluation_terms(env.game.row, 0, keep=1.0) == pytest.approx(-1.0 + 2.0)
    assert evaluation_terms(env.game.row, 1, keep=1.0) == pytest.approx(-2.0 + 1.0)
    # A Marshal on b2 keeps both of gold's sides; silver's General on h10 keeps i10 only.
    env.reset(
        seed=0,
        options={"position": {"gold": {"a1": "F", "a2": "B", "b1": "B", "b2": "10"},
                              "silver": {"j10": "F", "j9": "B", "i10": "B", "h10": "9"}}},
    )  # fmt: skip
    assert evaluation_terms(env.game.row, 0, keep=1.0) == pytest.approx(1.0)


def test_the_unmoved_term_counts_mobile_pieces_not_moved_and_not_shown():
    env = feral_envs.make(GAME, mode="quick").unwrapped
    env.reset(seed=0, options={"setup": QUICK_SETUP})
    row = env.game.row.copy()
    # Every mobile piece unmoved and hidden: six each, the terms cancel.
    assert evaluation_terms(row, 0, unmoved=1.0) == pytest.approx(0.0)
    env.step(rules.move_action(23, rules.FORWARD, 1))  # gold: d3-d4 (its 10 moves)
    assert evaluation_terms(env.game.row, 0, unmoved=1.0) == pytest.approx(-1.0)
    assert evaluation_terms(env.game.row, 1, unmoved=1.0) == pytest.approx(1.0)


def test_the_bot_decides_from_its_observation_only():
    # Silver's Miner and Spy swapped (e9 and h8), neither reached by gold's first move: gold's
    # bot, with the same seed, plays the same moves.
    swapped = {**QUICK_SETUP, "silver": {**QUICK_SETUP["silver"], "e9": "S", "h8": "3"}}
    moves = []
    for setup in (QUICK_SETUP, swapped):
        env = feral_envs.make(GAME, mode="quick").unwrapped
        env.reset(seed=5, options={"setup": setup})
        bot = make_minimax({"worlds": "4", "depth": "2"}, 11, {"mode": "quick"})
        bot.reset(11)
        observation = env.observe("gold")
        chosen = [bot.act(observation["observation"], observation["action_mask"])]
        env.step(chosen[0])
        reply = rules.move_action(27, rules.FORWARD, 1)  # silver: c8-c7 (its 10 moves)
        assert env.observe("silver")["action_mask"][reply]
        env.step(reply)
        observation = env.observe("gold")
        chosen.append(bot.act(observation["observation"], observation["action_mask"]))
        moves.append(chosen)
    assert moves[0] == moves[1]


def test_the_docs_table_names_every_argument_and_default():
    text = (ROOT / "docs" / "search.md").read_text()
    section = text.split("## Hidden Ranks", 1)[1].split("Spec: `minimax", 1)[1].split("\n\n")[1]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    assert sorted(row.split("`")[1] for row in rows) == sorted(S.ARGUMENTS)
    guard = next(row for row in rows if row.startswith("| `guard`"))
    assert guard.endswith(
        f"`{S.DEFAULT_GUARD['quick']}` in the quick game, `{S.DEFAULT_GUARD['full']}` in the full |"
    )
    depth = next(row for row in rows if row.startswith("| `depth`"))
    assert (
        f"{S.DEFAULT_DEPTH['quick']} in the quick game, {S.DEFAULT_DEPTH['full']} in the full"
        in depth
    )
    assert f"| {S.DEFAULT_WORLDS} (1024 with `time`) |" in section
    decoy = next(row for row in rows if row.startswith("| `decoy`"))
    on = {mode: f"`{int(S.DEFAULT_DECOY[mode])}`" for mode in ("quick", "full")}
    assert decoy.endswith(f"{on['full']} in the full game, {on['quick']} in the quick |")
    corner = next(row for row in rows if row.startswith("| `corner`"))
    assert corner.endswith(f"| `{int(S.DEFAULT_CORNER)}` |")


def test_the_keep_term_is_on_in_the_full_game_only_as_documented():
    assert [S.MinimaxBot(0, {"mode": m}).params[7] for m in ("quick", "full")] == [0.0, 3.0]
    text = (ROOT / "docs" / "search.md").read_text()
    assert f"- the Flag keeper (`KEEP`, full game only): {S.KEEP['full']:g} for each side" in text


def test_the_full_games_flag_prior_is_the_back_row_as_documented():
    env = feral_envs.make(GAME, mode="full", setup="random").unwrapped
    env.reset(seed=3)
    obs = env.observe("gold")["observation"].reshape(-1)
    prior = S.flag_prior(obs, "full").reshape(10, 10)
    assert (prior[:8] == 0).all()  # no Flag off the enemy's last two rows
    assert (prior[9] == 1.0).all() and (prior[8] == 0.1).all()  # corners weigh the same
    quick = S.flag_prior(obs, "quick").reshape(10, 10)
    assert quick[9, 0] == 3 * quick[9, 4] and quick[6, 4] > 0
    text = " ".join((ROOT / "docs" / "search.md").read_text().split())
    assert "full game: 1 on the back row, 0.1 on the row before, 0 elsewhere" in text
