"""The Lost Ranks ``pimc`` bot (agents/search/lost_ranks.py): legal over whole games in every
variant, deterministic given its seed, its arguments checked, its playout pass; and the
duplicate-round duel that measures it (benchmarks/duel_rounds_lost_ranks.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import feral_envs
from agents.registry import load_policy
from agents.search.lost_ranks import Pimc, RoundHistory, army_of, disagreements, parse
from feral_envs.lost_ranks import search
from feral_envs.lost_ranks.engine import STATE
from feral_envs.lost_ranks.rules import VARIANTS

CHEAP = "pimc:worlds=2,nodes=20000"
"""Few worlds and a small search: the legality and determinism tests' bot."""


def play_game(
    variant: str, seed: int, spec: str = CHEAP, army: str = "red"
) -> tuple[list[int], Pimc]:
    """One game with ``spec`` in the ``army`` seats, the heuristic in the other; the actions."""
    keywords = {"variant": variant}
    env = feral_envs.make("lost_ranks", **keywords)
    bot = load_policy(spec, "lost_ranks", seed=seed, keywords=keywords)
    other = load_policy("heuristic", "lost_ranks", seed=seed, keywords=keywords)
    env.reset(seed=seed)
    bot.reset(seed)
    actions = []
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        policy = bot if agent.startswith(army) else other
        action = policy.act(obs["observation"], obs["action_mask"])
        assert obs["action_mask"][action] == 1, (agent, action)
        actions.append(action)
        env.step(action)
    return actions, bot


@pytest.mark.parametrize("variant", VARIANTS)
def test_pimc_plays_legal_cards_through_whole_games(variant):
    _, bot = play_game(variant, seed=VARIANTS.index(variant))
    stats = bot.stats
    assert stats["searched"] > 10 and stats["worlds_solved"] == 2 * stats["searched"]
    assert 0 < stats["exact"] < stats["searched"] and stats["playouts"] > 0
    assert 0 < stats["mean_seconds"] < 60


def test_pimc_is_deterministic_given_its_seed():
    one, _ = play_game("standard", seed=5)
    two, _ = play_game("standard", seed=5)
    assert one == two


def test_the_army_is_read_from_the_observation():
    env = feral_envs.make("lost_ranks").unwrapped
    env.reset(seed=2)
    for agent, seat in zip(env.possible_agents, range(4), strict=True):
        assert army_of(env.observe(agent)["observation"]) == seat % 2


def test_the_arguments_are_checked():
    assert parse({}) == (32, None, 200_000, 3, 1, "playout", "heuristic", 1, 0.1)
    assert parse({"worlds": "8"}) == (8, None, 200_000, 3, 1, "playout", "heuristic", 1, 0.1)
    assert parse({"time": "0.5"}) == (None, 0.5, 200_000, 3, 1, "playout", "heuristic", 1, 0.1)
    assert parse({"worlds": "4", "time": "1", "nodes": "1000"}) == (
        4,
        1.0,
        1000,
        3,
        1,
        "playout",
        "heuristic",
        1,
        0.1,
    )
    assert parse({"horizon": "2", "weight": "0", "early": "horizon"}) == (
        32,
        None,
        200_000,
        2,
        0,
        "horizon",
        "heuristic",
        1,
        0.1,
    )
    assert parse({"pass": "playout"})[6] == "playout"
    assert parse({"infer": "16", "slack": "0.5"})[-2:] == (16, 0.5)
    for bad, message in (
        ({"worlds": "0"}, "worlds='0' must be an integer >= 1"),
        ({"worlds": "2.5"}, "worlds='2.5' must be an integer >= 1"),
        ({"time": "-1"}, "time='-1' must be a number of seconds > 0"),
        ({"time": "nan"}, "time='nan'"),
        ({"nodes": "x"}, "nodes='x'"),
        ({"horizon": "0"}, "horizon='0' must be an integer >= 1"),
        ({"weight": "3"}, "weight='3' must be 0, 1 or 2"),
        ({"early": "mcts"}, "early='mcts' must be one of"),
        ({"pass": "solver"}, "pass='solver' must be one of"),
        ({"infer": "0"}, "infer='0' must be an integer >= 1"),
        ({"slack": "0"}, "slack='0' must be a number in (0, 1]"),
        ({"slack": "1.5"}, "slack='1.5' must be a number in (0, 1]"),
        ({"slack": "x"}, "slack='x'"),
        ({"depth": "3"}, "no argument 'depth'; its arguments: worlds"),
    ):
        with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
            parse(bad)
    with pytest.raises(ValueError, match="key=value"):
        load_policy("pimc:8", "lost_ranks", seed=0)
    assert load_policy("pimc:worlds=3", "lost_ranks", seed=0).spec == "pimc:worlds=3"


def test_a_time_budget_bounds_the_worlds():
    bot = load_policy("pimc:time=0.001,worlds=50", "lost_ranks", seed=0)
    env = feral_envs.make("lost_ranks").unwrapped
    env.reset(seed=1, options={"start": "play"})
    for _ in range(32):  # into the round's second half, where every world is searched
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[-1]))
    seen = env.observe(env.agent_selection)
    while seen["action_mask"].sum() < 2:
        env.step(int(np.flatnonzero(seen["action_mask"])[-1]))
        seen = env.observe(env.agent_selection)
    bot.act(seen["observation"], seen["action_mask"])
    assert bot.stats["searched"] == 1 and 1 <= bot.stats["worlds_solved"] < 50


def test_the_docs_table_names_every_argument_and_default():
    from pathlib import Path

    from agents.search.lost_ranks import (
        ARGUMENTS,
        DEFAULT_HORIZON,
        DEFAULT_INFER,
        DEFAULT_NODES,
        DEFAULT_SLACK,
        DEFAULT_WEIGHT,
        DEFAULT_WORLDS,
    )

    text = (Path(__file__).resolve().parents[2] / "docs" / "search.md").read_text()
    section = text.split("## Lost Ranks", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    assert sorted(row.split("`")[1] for row in rows) == sorted(ARGUMENTS)
    assert f"default {DEFAULT_WORLDS};" in section and f"default {DEFAULT_NODES})" in section
    assert f"default {DEFAULT_HORIZON})" in section and f"(default {DEFAULT_WEIGHT})" in section
    assert f"(default {DEFAULT_INFER}: no weighting)" in section
    assert f"(default {DEFAULT_SLACK})" in section


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_horizon_bot_plays_legal_cards(variant):
    _, bot = play_game(variant, seed=7, spec=CHEAP + ",early=horizon,horizon=2")
    assert bot.stats["searched"] > 10 and bot.stats["playouts"] == 0
    assert bot.stats["exact"] < bot.stats["searched"]  # the horizon valued some decisions


def test_early_heuristic_plays_the_heuristics_card_where_the_solve_is_too_large():
    _, bot = play_game("standard", seed=7, spec=CHEAP + ",early=heuristic")
    stats = bot.stats
    assert stats["searched"] == stats["exact"] > 5 and stats["playouts"] == 0


def test_a_playout_of_the_last_trick_is_the_exact_value():
    """With one trick left every card after the first is forced: a playout's value is the
    solver's, the points already scored this round left out."""
    from feral_envs.lost_ranks import CORE, engine, search
    from feral_envs.lost_ranks.engine import STATE

    bot = load_policy("pimc", "lost_ranks", seed=0)
    rng = np.random.default_rng(3)
    checked = 0
    while checked < 20:
        state = CORE.new_game(CORE.make_config(), rng, {"start": "play"})
        for _ in range(48 + int(rng.integers(0, 3))):
            CORE.apply(state, int(rng.choice(np.flatnonzero(CORE.legal_mask(state)))))
        row = state.row.copy()
        army = engine.to_act(row) % 2
        actions, values = bot._playouts(row, army)
        exact_actions, exact = search.action_values(row)
        points = row[STATE.round_points.slice].astype(int)
        scored = points[army] - points[1 - army]
        assert np.array_equal(actions, exact_actions)
        assert np.array_equal(values, exact - scored), (values, exact, scored)
        checked += 1


@pytest.mark.parametrize("army", ["red", "black"])
def test_the_playout_pass_chooses_legal_cards_and_is_deterministic(army):
    spec = "pimc:worlds=2,nodes=20000,pass=playout"
    one, _ = play_game("standard", seed=3, spec=spec, army=army)
    two, _ = play_game("standard", seed=3, spec=spec, army=army)
    assert one == two
    heuristic_pass, _ = play_game("standard", seed=3, army=army)
    assert one[:12] != heuristic_pass[:12]  # the passes are its own, not the heuristic's


def test_the_seats_before_the_chooser_pass_as_the_model_in_a_pass_world():
    """For a black seat the sampler draws red's choices uniformly; the bot has its model
    make them instead, and keeps the chooser's own choices and turn."""
    from agents.heuristic.lost_ranks import plan_pass
    from feral_envs.lost_ranks import engine as E
    from feral_envs.lost_ranks import search

    env = feral_envs.make("lost_ranks").unwrapped
    env.reset(seed=11)
    heuristic = load_policy("heuristic", "lost_ranks", seed=0)
    for _ in range(4):  # red_0's three choices, then black_0's first
        seen = env.observe(env.agent_selection)
        env.step(heuristic.act(seen["observation"], seen["action_mask"]))
    seen = env.observe(env.agent_selection)["observation"]
    bot = load_policy("pimc:worlds=1,pass=playout", "lost_ranks", seed=0)
    world = search.sample_from_observation(seen, bot.config, 1, np.random.default_rng(4))
    choice = E.STATE.pass_choice.start
    own = world[choice + 3]
    bot._model_passes_before(world, 1)
    red = world[choice : choice + 3].tolist()
    held = [c for c in range(E.N_CARDS) if world[E.STATE.holder.start + c] == 0] + red
    trump = int(E.SUIT_OF[world[E.STATE.trump_card.start]])
    assert red == plan_pass(sorted(held), trump)
    assert world[choice + 3] == own and world[E.STATE.to_act.start] == 1
    assert world[E.STATE.pass_step.start] == 1


def test_the_duplicate_round_duel_measures_a_margin_and_checks_its_input(tmp_path, capsys):
    import importlib.util
    from pathlib import Path

    from feral_envs.lost_ranks import engine as E

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "duel_rounds_lost_ranks.py"
    spec = importlib.util.spec_from_file_location("duel_rounds_lost_ranks", path)
    duel = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(duel)
    out = tmp_path / "margins.jsonl"
    assert duel.main(["heuristic", "heuristic", "--deals", "3", "--out", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [row[0] for row in rows] == [0, 1, 2]
    assert all(red == -black for _, red, black in rows)  # the same bot: the deal cancels
    assert duel.main(["heuristic", "random", "--deals", "4", "--first", "5"]) > 1.0
    env = feral_envs.make("lost_ranks").unwrapped
    heuristic = [load_policy("heuristic", "lost_ranks", seat) for seat in range(2)]
    seats = [heuristic[0], heuristic[0], heuristic[1], heuristic[1]]
    epoch = E.STATE.epoch.start
    assert duel.play_round(env, seats, duel.SEED_BASE + 64) == 0  # a first round of 0-0 ...
    assert env.scores == {"red": 0, "black": 0}  # ... ends the duel's round: none after it
    assert env.game.row[epoch] == 2
    for argv, message in (
        (["heuristic", "nobot"], "nobot"),
        (["heuristic", "random", "--variant", "rainbow"], "variant='rainbow' is not allowed"),
        (["heuristic", "random", "--deals", "0"], "--deals must be >= 1"),
    ):
        with pytest.raises(SystemExit):
            duel.main(argv)
        assert message in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------
# Worlds weighted by the enemies' plays (infer, slack)


def _replay_against_the_heuristic(seed: int, spec: str):
    """A game of ``spec`` in the red seats and the heuristic in the black, through the env:
    at each red play decision, the bot's remembered plays (before its own card) and the row."""
    env = feral_envs.make("lost_ranks").unwrapped
    bots = [load_policy(spec, "lost_ranks", seed=seed + i) for i in range(2)]
    other = load_policy("heuristic", "lost_ranks", seed=seed)
    env.reset(seed=seed)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        seat = env.possible_agents.index(agent)
        policy = bots[seat // 2] if seat % 2 == 0 else other
        action = policy.act(obs["observation"], obs["action_mask"])
        playing = obs["observation"][search.OBS.phase.start + 1] > 0.5
        if seat % 2 == 0 and playing:
            history = policy.history
            yield (
                seat,
                policy,
                history.seats[: history.n - 1],
                history.cards[: history.n - 1],
                (env.game.row),
            )
        env.step(action)


def test_the_bot_remembers_the_rounds_plays_in_order():
    """Rebuilt from the seat's observations, the round's plays before each of its cards are
    the engine's own ``plays``, in order, by the right seats; the true deal replays them
    with no enemy card the heuristic would not have played (the enemies are the heuristic)."""
    checked = 0
    rewound = np.zeros(STATE.size, np.int32)
    obs = np.zeros(search.OBS.size, np.float32)
    mask = np.zeros(53, np.int8)
    for seat, bot, seats, cards, row in _replay_against_the_heuristic(3, "pimc:worlds=1,nodes=1"):
        assert bot.history.valid
        plays = row[STATE.plays.slice]
        plays = plays[plays >= 0]
        assert cards.tolist() == plays.tolist()
        assert [(seat + rel) % 4 for rel in seats] == [
            row[STATE.played_by.start + c] for c in cards
        ]
        absolute = (seats + seat) % 4
        assert disagreements(row, rewound, absolute, cards, 0, 2, 2, obs, mask) == 0
        checked += 1
    assert checked > 100


def test_a_deal_the_enemies_would_not_have_played_so_is_counted():
    """Two unplayed cards of a suit swapped between the enemies' hands in the true deal: the
    plays still replay, and where the heuristic would then have played otherwise, it is
    counted; plays that cannot be replayed (the round backwards): -1."""
    rewound = np.zeros(STATE.size, np.int32)
    obs = np.zeros(search.OBS.size, np.float32)
    mask = np.zeros(53, np.int8)
    rng = np.random.default_rng(0)
    counted = 0
    for seat, _, seats, cards, row in _replay_against_the_heuristic(8, "pimc:worlds=1,nodes=1"):
        if len(cards) < 12:
            continue
        absolute = (seats + seat) % 4
        world = row.copy()
        holder = world[STATE.holder.slice]
        left, right = (np.flatnonzero(holder == (seat + k) % 4) for k in (1, 3))
        pairs = [(a, b) for a in left for b in right if a // 13 == b // 13 < 4]
        if pairs:  # two unplayed cards of one suit: the hands' suit lengths are kept
            a, b = pairs[rng.integers(len(pairs))]
            holder[a], holder[b] = holder[b], holder[a]
            k = disagreements(world, rewound, absolute, cards, 0, 2, 2, obs, mask)
            assert k >= 0
            counted += k > 0
        assert disagreements(row, rewound, absolute, cards[::-1].copy(), 0, 2, 2, obs, mask) == -1
    assert counted > 0


def test_the_history_is_dropped_when_the_plays_do_not_add_up():
    history = RoundHistory()
    env = feral_envs.make("lost_ranks").unwrapped
    env.reset(seed=4, options={"start": "play"})
    asked = 0
    while asked < 3:  # the red seat 0 asked only at every other of its plays
        agent = env.agent_selection
        seen = env.observe(agent)
        card = int(np.flatnonzero(seen["action_mask"])[0])
        if agent == env.possible_agents[0]:
            asked += 1
            if asked != 2:
                history.observe(seen["observation"])
                history.record(card)
        env.step(card)
    assert not history.valid


def test_the_inferring_bot_is_legal_deterministic_and_weighs_its_candidates():
    spec = CHEAP + ",infer=4"
    one, bot = play_game("standard", seed=5, spec=spec)
    two, _ = play_game("standard", seed=5, spec=spec)
    assert one == two
    stats = bot.stats
    assert stats["candidates"] > 0 and stats["candidates"] % 4 == 0
    assert stats["candidates"] <= 4 * stats["worlds_solved"]
