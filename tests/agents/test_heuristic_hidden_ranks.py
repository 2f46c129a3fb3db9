"""The Hidden Ranks bot (agents/heuristic/hidden_ranks.py): its documented decisions in set
positions, its setup, legality in every mode and setup, determinism, and that it beats random."""

import numpy as np
import pytest

import feral_envs
from agents.arena import run_arena
from agents.heuristic.hidden_ranks import HiddenRanksBot, make_policy, plan_setup
from agents.random_policy import RandomPolicy
from agents.registry import load_policy
from feral_envs.hidden_ranks import rules
from feral_envs.hidden_ranks_v0 import raw_env

# --- helpers ---------------------------------------------------------------------------

MY_FLAG = {"a1": "F", "a2": "B", "b1": "B"}
"""Gold's Flag walled in by its Bombs: no line to it is open, so no Flag rule interferes."""
MORE = {"i1": "5", "j1": "4"}
"""Two more gold pieces that can move, so that no piece counts as one of the last two."""
ENEMY_FLAG = {"j10": "F", "j9": "B", "i10": "B"}


def decide(gold, silver, script=(), to_move="gold", mode="full", seed=0):
    """The bot's move (as a name) for the side to act after ``script`` from a position."""
    env = raw_env(mode=mode)
    env.reset(options={"position": {"gold": gold, "silver": silver}, "to_move": to_move})
    for move in script:
        env.step(env.string_to_action(move))
    bot = make_policy(seed, mode=mode)
    bot.reset(seed)
    obs = env.observe(env.agent_selection)
    action = bot.act(obs["observation"], obs["action_mask"])
    assert obs["action_mask"][action] == 1
    return env.action_to_string(action)


def play(env, policies, seed, policy_seeds=(11, 12)):
    """One game through the public API; the actions, each checked against the mask."""
    env.reset(seed=seed)
    for policy, policy_seed in zip(policies.values(), policy_seeds, strict=True):
        policy.reset(policy_seed)
    actions = []
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        mask = obs["action_mask"]
        action = policies[agent].act(obs["observation"], mask.copy())
        assert isinstance(action, int)
        assert mask[action] == 1, f"illegal action {action} after {len(actions)} actions"
        actions.append(action)
        env.step(action)
    return actions


def set_up(mode, gold_seed, silver_seed):
    """A game after both bots placed their armies (``setup="choose"``): the raw env."""
    env = feral_envs.make("hidden_ranks", mode=mode, setup="choose")
    env.reset(seed=0)
    bots = {
        "gold": make_policy(gold_seed, mode=mode),
        "silver": make_policy(silver_seed, mode=mode),
    }
    for agent, seed in (("gold", gold_seed), ("silver", silver_seed)):
        bots[agent].reset(seed)
    raw = env.unwrapped
    while raw.game.phase == rules.Phase.SETUP:
        agent = env.agent_selection
        obs = env.observe(agent)
        env.step(bots[agent].act(obs["observation"], obs["action_mask"]))
    return raw


def home(raw, seat):
    """``{(ego row, ego column): rank code}`` of ``seat``'s pieces (row 0: its back row)."""
    out = {}
    for square in range(rules.N_SQUARES):
        code = int(raw.game.board[square])
        if code in (rules.EMPTY, rules.LAKE) or bool(code & rules.OWNER_BIT) != (seat == 1):
            continue
        out[divmod(rules.ego_square(seat, square), 10)] = code & rules.RANK_BITS
    return out


def neighbours(row, col):
    return [(r, c) for r, c in ((row + 1, col), (row, col - 1), (row, col + 1)) if 0 <= c < 10]


# --- decisions in set positions ---------------------------------------------------------


def test_strikes_a_known_weaker_piece():
    # Gold's 4 strikes e5 and loses: the silver 5 is now known, next to gold's 7.
    gold = {**MY_FLAG, **MORE, "e4": "4", "f5": "7"}
    silver = {**ENEMY_FLAG, "e5": "5", "a10": "3"}
    assert decide(gold, silver, ["e4-e5", "a10-b10"]) == "f5-e5"


def test_avoids_a_known_stronger_piece_and_retreats():
    # The silver 7 on e6 is known; gold's 4 on f6 stands next to it and other pieces could move.
    gold = {**MY_FLAG, **MORE, "e5": "5", "f6": "4", "h1": "6"}
    silver = {**ENEMY_FLAG, "e6": "7", "a10": "3"}
    move = decide(gold, silver, ["e5-e6", "a10-b10"])
    assert move in ("f6-f7", "f6-f5")  # the threatened piece steps away, not onto the 7


def test_retreats_a_threatened_known_piece():
    # Gold's 9 takes the 8 on e5 (now known to silver); silver's 10 takes the 2 on f5 and is
    # known too. The 9 steps away, though a Scout could run to j2 or probe c9.
    gold = {**MY_FLAG, **MORE, "e4": "9", "f5": "2", "c2": "2"}
    silver = {**ENEMY_FLAG, "e5": "8", "f6": "10", "c9": "6"}
    assert decide(gold, silver, ["e4-e5", "f6-f5"]) in ("e5-e4", "e5-e6")


def test_spy_strikes_a_known_marshal():
    gold = {**MY_FLAG, **MORE, "e5": "9", "f6": "S", "e4": "8"}
    silver = {**ENEMY_FLAG, "e6": "10", "a10": "3"}
    assert decide(gold, silver, ["e5-e6", "a10-b10"]) == "f6-e6"


def test_no_other_piece_strikes_a_known_marshal():
    gold = {**MY_FLAG, **MORE, "e5": "9", "e4": "8", "f6": "7"}
    silver = {**ENEMY_FLAG, "e6": "10", "a10": "3"}
    assert decide(gold, silver, ["e5-e6", "a10-b10"]) not in ("f6-e6", "e4-e5")


def test_miner_strikes_a_known_bomb_and_others_do_not():
    # Gold's 4 strikes the Bomb on e7 and is removed: the Bomb is known.
    silver = {**ENEMY_FLAG, "e7": "B", "a10": "3"}
    miner = {**MY_FLAG, **MORE, "e6": "4", "f7": "3", "h1": "6"}
    assert decide(miner, silver, ["e6-e7", "a10-b10"]) == "f7-e7"
    captain = {**MY_FLAG, **MORE, "e6": "4", "f7": "6", "h1": "6"}
    assert decide(captain, silver, ["e6-e7", "a10-b10"]) != "f7-e7"


def test_scout_probes_an_unknown_piece_from_a_distance():
    gold = {**MY_FLAG, **MORE, "e2": "2", "h1": "6"}
    assert decide(gold, {"e9": "6"}, ["e9-e8"], to_move="silver") == "e2-e8"


def test_low_piece_probes_an_adjacent_unknown_piece():
    gold = {**MY_FLAG, **MORE, "e7": "4", "h1": "6"}
    silver = {**ENEMY_FLAG, "e9": "6"}
    assert decide(gold, silver, ["e9-e8"], to_move="silver") == "e7-e8"


def test_strikes_an_enemy_next_to_its_flag():
    # Silver steps next to gold's Flag (its open side); gold's 8 strikes it at once.
    gold = {"a1": "F", "b1": "B", "b2": "8", "h1": "6", **MORE}
    silver = {**ENEMY_FLAG, "a3": "3"}
    assert decide(gold, silver, ["a3-a2"], to_move="silver") == "b2-a2"


def test_trades_a_piece_for_a_known_equal_next_to_its_flag():
    # The silver 5, known since it beat gold's 4, steps next to gold's Flag: gold's 5 strikes
    # it although the trade gains nothing by itself.
    gold = {"a1": "F", "b1": "B", "b2": "5", "a4": "4", "h1": "6", **MORE}
    silver = {**ENEMY_FLAG, "a3": "5"}
    assert decide(gold, silver, ["a4-a3", "a3-a2"]) == "b2-a2"


def test_closes_a_line_a_scout_could_strike_its_flag_along():
    # A moved unknown silver piece stands at the end of the open column above gold's Flag.
    gold = {"a1": "F", "b1": "B", "b2": "5", "h1": "6", **MORE}
    silver = {**ENEMY_FLAG, "b9": "2"}
    assert decide(gold, silver, ["b9-a9"], to_move="silver") == "b2-a2"


def test_guard_next_to_the_flag_stays():
    # Quick game: gold's Scout beside its Flag closes the back row; a Flag candidate lures.
    gold = {"a1": "F", "a2": "B", "b1": "2", "h1": "10", "i1": "9"}
    silver = {"j10": "F", "e9": "3"}
    move = decide(gold, silver, ["e9-e8"], to_move="silver", mode="quick")
    assert not move.startswith("b1-")


def test_plays_silver_in_its_own_frame():
    # The first test's position turned 180 degrees: silver strikes the known weaker piece.
    def turn(side):
        return {
            f"{'abcdefghij'[9 - 'abcdefghij'.index(s[0])]}{11 - int(s[1:])}": r
            for s, r in side.items()
        }

    gold = {**ENEMY_FLAG, "e5": "5", "a10": "3"}
    silver = {**MY_FLAG, **MORE, "e4": "4", "f5": "7"}
    move = decide(turn(gold), turn(silver), ["f7-f6", "j1-i1"], to_move="silver")
    assert move == "e6-f6"


# --- setup ------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["full", "quick"])
def test_setup_puts_the_flag_on_the_back_row_walled_by_bombs(mode):
    flag_columns = set()
    for seed in range(12):
        raw = set_up(mode, seed, 100 + seed)
        for seat in (0, 1):
            pieces = home(raw, seat)
            assert sorted(pieces.values()) == sorted(rules.SETUP_ORDER[mode])
            (flag,) = [square for square, rank in pieces.items() if rank == rules.FLAG]
            assert flag[0] == 0
            flag_columns.add(flag[1])
            around = [pieces.get(square) for square in neighbours(*flag)]
            if mode == "full":
                assert all(rank == rules.BOMB for rank in around)
            else:  # a corner: one side a Bomb, the other a Scout
                assert flag[1] in (0, 9)
                assert sorted(around) == [rules.SCOUT, rules.BOMB]
    assert len(flag_columns) > (4 if mode == "full" else 1)  # not always the same square


@pytest.mark.parametrize("mode", ["full", "quick"])
def test_setup_scouts_forward_spy_by_the_general(mode):
    scout_rows, spy_distance = [], []
    for seed in range(200):
        plan = plan_setup(np.random.default_rng(seed), rules.ARMIES[mode])
        squares = [s for rank in plan for s in plan[rank]]
        assert sorted(squares) == sorted(set(squares)) and max(squares) < rules.N_HOME
        assert {rank: len(s) for rank, s in plan.items()} == rules.ARMIES[mode]
        (general,), (spy,), (marshal,) = plan[9], plan[rules.SPY], plan[rules.MARSHAL]
        spy_distance.append(abs(general // 10 - spy // 10) + abs(general % 10 - spy % 10))
        assert general >= 10 and marshal >= 10  # not on the back row
        (flag,) = plan[rules.FLAG]
        scout_rows += [s // 10 for s in plan[rules.SCOUT] if abs(s - flag) not in (1, 10)]
    assert np.mean(np.array(scout_rows) >= 2) > 0.7
    assert max(spy_distance) <= 2 and np.mean(np.array(spy_distance) == 1) > 0.9


# --- legality, keywords, determinism ------------------------------------------------------


@pytest.mark.parametrize(
    "mode,games",
    [
        ("quick", 30),
        ("full", 6),
        pytest.param("quick", 300, marks=pytest.mark.slow),
        pytest.param("full", 60, marks=pytest.mark.slow),
    ],
)
@pytest.mark.parametrize("setup", ["choose", "random"])
def test_never_chooses_an_illegal_action(mode, setup, games):
    env = feral_envs.make("hidden_ranks", mode=mode, setup=setup)
    pairings = [
        {"gold": make_policy(1, mode=mode), "silver": RandomPolicy(2)},
        {"gold": RandomPolicy(3), "silver": make_policy(4, mode=mode)},
        {"gold": make_policy(5, mode=mode), "silver": make_policy(6, mode=mode)},
    ]
    decisions = 0
    for game in range(games):
        decisions += len(play(env, pairings[game % 3], seed=game, policy_seeds=(game, game + 1)))
    assert decisions > games * 20


def test_loaded_by_the_registry_with_the_game_keywords():
    keywords = {"mode": "quick", "setup": "random", "max_moves": 300, "reward": "win"}
    bot = load_policy("heuristic", "hidden_ranks", 7, keywords)
    assert isinstance(bot, HiddenRanksBot) and bot.mode == "quick" and bot.spec == "heuristic"
    with pytest.raises(ValueError, match="mode"):
        make_policy(0, mode="blitz")


@pytest.mark.parametrize("mode", ["full", "quick"])
def test_deterministic_given_its_seed(mode):
    env = feral_envs.make("hidden_ranks", mode=mode)
    bots = {"gold": make_policy(0, mode=mode), "silver": make_policy(0, mode=mode)}
    first = play(env, bots, seed=5, policy_seeds=(21, 22))
    again = play(env, bots, seed=5, policy_seeds=(21, 22))  # reset() forgets the last game
    fresh = {"gold": make_policy(9, mode=mode), "silver": make_policy(9, mode=mode)}
    assert play(env, fresh, seed=5, policy_seeds=(21, 22)) == first == again
    other = play(env, bots, seed=5, policy_seeds=(23, 22))
    n_setup = len(rules.SETUP_ORDER[mode])
    assert other[:n_setup] != first[:n_setup]  # another seed, another setup


# --- strength -------------------------------------------------------------------------------


@pytest.mark.parametrize("mode,games", [("quick", 20), ("full", 10)])
def test_beats_random_in_the_arena(mode, games):
    report = run_arena(
        "hidden_ranks",
        ["random", "heuristic"],
        games=games,
        seed=0,
        mode=mode,
        progress=False,
        n_bootstrap=200,
    )
    _, low, _ = report["ratings"]["heuristic"]
    assert low > 0, report["leaderboard"]
    score = {row["agent"]: row["score"] for row in report["leaderboard"]}
    assert score["heuristic"] >= 0.8


def test_the_guard_argument_of_the_spec():
    keywords = {"mode": "quick", "setup": "choose"}
    bot = load_policy("heuristic:guard=10", "hidden_ranks", 3, keywords)
    assert isinstance(bot, HiddenRanksBot)
    assert (bot.guard, bot.spec, bot.mode) == (rules.MARSHAL, "heuristic:guard=10", "quick")
    assert load_policy("heuristic", "hidden_ranks", 3, keywords).guard is None
    assert load_policy("heuristic:guard=7", "hidden_ranks", 3, {"mode": "full"}).guard == 7
    for spec, game, keywords, message in [
        ("heuristic:guard=7", "hidden_ranks", {"mode": "quick"},
         r"guard='7' is not allowed in the quick game.*army: S, 2, 3, 9, 10"),
        ("heuristic:guard=F", "hidden_ranks", {}, r"guard='F' is not allowed in the full game"),
        ("heuristic:guard=B", "hidden_ranks", {}, r"guard='B'.*mobile rank"),
        ("heuristic:depth=2", "hidden_ranks", {}, r"no argument 'depth'; its arguments: guard"),
        ("heuristic:guard", "hidden_ranks", {}, r"key=value.*\[:guard=RANK\].*got 'guard'"),
        ("heuristic:guard=10,guard=9", "hidden_ranks", {}, r"'guard' is given twice"),
        ("heuristic:guard=10", "hidden_ranks", {"mode": "blitz"}, r"mode='blitz'.*full, quick"),
        ("heuristic:guard=10", "lost_heir", {}, r"lost_heir heuristic takes no argument"),
    ]:  # fmt: skip
        with pytest.raises(ValueError, match=message):
            load_policy(spec, game, 0, keywords)


@pytest.mark.parametrize("mode", ["full", "quick"])
def test_the_guarded_setup_is_the_plain_one_with_two_pieces_swapped(mode):
    """Same seed, same plan, but for the guard and the Marshal (``guarded_plan``); the play
    after the setup is the heuristic's (the moves of a random-setup game are the same)."""
    keywords = {"mode": mode, "setup": "choose"}
    env = feral_envs.make("hidden_ranks", **keywords)
    plain = {a: make_policy(0, mode=mode) for a in ("gold", "silver")}
    guarded = {a: load_policy("heuristic:guard=10", "hidden_ranks", 0, keywords) for a in plain}
    places = [
        play(env, bots, seed=4, policy_seeds=(5, 6))[: N_PLACED[mode]] for bots in (plain, guarded)
    ]
    differ = sum(a != b for a, b in zip(*places, strict=True))
    assert 0 < differ <= 4  # the Marshal and the guard of each side, no other piece
    env = feral_envs.make("hidden_ranks", mode=mode, setup="random")
    games = [play(env, bots, seed=4, policy_seeds=(5, 6)) for bots in (plain, guarded)]
    assert games[0] == games[1]


N_PLACED = {mode: 2 * len(rules.SETUP_ORDER[mode]) for mode in ("full", "quick")}
