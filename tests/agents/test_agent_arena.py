"""The arena on the toy games: duplicate scheduling, scoring, records, resume, reports."""

import json
from collections import defaultdict

import numpy as np
import pytest
import toy_games
from toy_games import SMALL, landed_games

import feral_envs
from agents import registry
from agents.arena import ArenaError, play_game, run_arena
from agents.random_policy import RandomPolicy
from agents.registry import load_policy


@pytest.fixture
def toys(monkeypatch):
    """The toy games and their heuristic bots, reachable as if they were real."""
    toy_games.register(monkeypatch)
    toy_games.made_with.clear()
    return toy_games


def strip(records):
    """Records without their timings (the only field that differs between equal runs)."""
    return [{k: v for k, v in r.items() if k != "seconds"} for r in records]


def twins(records):
    """The two games of each deal and pair."""
    by_deal = defaultdict(list)
    for record in records:
        by_deal[record["deal"], frozenset(record["sides"])].append(record)
    assert all(len(pair) == 2 for pair in by_deal.values())
    return list(by_deal.values())


def replay(game, record):
    """Replay a record's actions on a fresh env; the raw env and each seat's first observation."""
    env = feral_envs.make(game, **record["options"])
    env.reset(seed=record["env_seed"])
    first = {agent: env.observe(agent)["observation"].copy() for agent in env.possible_agents}
    for action in record["actions"]:
        env.step(action)
    return env.unwrapped, first


@pytest.fixture
def extra_specs(monkeypatch):
    """Register test-only specs on a private copy of the registry."""
    monkeypatch.setattr(registry, "_LOADERS", dict(registry._LOADERS))
    monkeypatch.setattr(registry, "SPEC_FORMS", dict(registry.SPEC_FORMS))
    return registry.register_loader


def test_card_game_deals_are_replayed_with_team_seats_swapped(toys):
    report = run_arena("toy_cards", ["random", "heuristic"], 6, seed=3, progress=False)
    records = report["records"]
    assert len(records) == 6
    for a, b in twins(records):
        assert a["env_seed"] == b["env_seed"]
        assert a["sides"] == b["sides"][::-1]
        assert list(a["teams"].values()) == list(b["teams"].values())[::-1]
        for record in (a, b):
            seats = record["seats"]
            assert seats["n"] == seats["s"] == record["teams"]["ns"] == record["sides"][0]
            assert seats["e"] == seats["w"] == record["teams"]["ew"] == record["sides"][1]
        state_a, first_a = replay("toy_cards", a)
        state_b, first_b = replay("toy_cards", b)
        # The same cards at every seat in every hand that both games reached.
        hands = min(len(state_a.game.deals), len(state_b.game.deals))
        assert hands >= 1
        for k in range(hands):
            assert (state_a.game.deals[k] == state_b.game.deals[k]).all()
        for agent in first_a:
            assert (first_a[agent] == first_b[agent]).all()
        assert a["actions"] != b["actions"]
    assert len({r["env_seed"] for r in records}) == 3  # one seed per deal


def test_every_pair_plays_the_same_deals(toys, extra_specs):
    extra_specs("other", lambda argument, game, seed, keywords: RandomPolicy(seed, "other"))
    records = run_arena("toy_cards", ["random", "heuristic", "other"], 4, progress=False)["records"]
    assert len(records) == 3 * 4
    seeds = defaultdict(set)
    for record in records:
        seeds[record["deal"]].add(record["env_seed"])
    assert sorted(seeds) == [0, 1] and all(len(s) == 1 for s in seeds.values())
    assert {frozenset(r["sides"]) for r in records} == {
        frozenset(p) for p in (("random", "heuristic"), ("random", "other"), ("heuristic", "other"))
    }


def test_two_seat_game_swaps_colours(toys):
    records = run_arena("toy_duel", ["random", "heuristic"], 10, progress=False)["records"]
    for a, b in twins(records):
        assert a["env_seed"] == b["env_seed"]
        assert a["seats"] == {"first": a["sides"][0], "second": a["sides"][1]}
        assert b["seats"] == {"first": a["sides"][1], "second": a["sides"][0]}
        assert (
            replay("toy_duel", a)[1]["first"].tolist() == replay("toy_duel", b)[1]["first"].tolist()
        )


def test_records_replay_exactly_from_their_seeds(toys):
    records = run_arena("toy_cards", ["random", "heuristic"], 4, progress=False)["records"]
    env = feral_envs.make("toy_cards")
    for record in records:
        policies = [
            load_policy(record["seats"][agent], "toy_cards", 0) for agent in env.possible_agents
        ]
        again = play_game(
            env,
            policies,
            record["env_seed"],
            [record["policy_seeds"][agent] for agent in env.possible_agents],
        )
        assert again == {k: record[k] for k in again}
        raw, _ = replay("toy_cards", record)
        assert raw.scores == record["final_scores"]


def test_wins_draws_and_truncations_are_scored(toys):
    decided = run_arena("toy_duel", ["random", "heuristic"], 20, progress=False)["records"]
    for record in decided:
        assert record["end"] == "terminated" and record["winner"] in ("first", "second")
        assert record["result"][record["winner"]] == 1.0 and sum(record["result"].values()) == 1
    drawn = run_arena("toy_duel", ["random", "heuristic"], 4, progress=False, max_moves=2)
    for record in drawn["records"]:
        assert record["end"] == "terminated" and record["winner"] is None
        assert record["result"] == {"first": 0.5, "second": 0.5}
        assert record["steps"] == 2
    assert all(row["draws"] == 1.0 for row in drawn["leaderboard"])
    cut = run_arena(
        "toy_cards", ["random", "heuristic"], 40, progress=False, max_hands=2, target_score=99
    )["records"]
    level = 0
    for record in cut:
        ns, ew = record["final_scores"]["ns"], record["final_scores"]["ew"]
        assert record["end"] == "truncated" and record["winner"] is None
        assert record["result"]["ns"] == (1.0 if ns > ew else 0.0 if ns < ew else 0.5)
        assert len(record["hand_scores"]) == 2
        assert record["hand_scores"][-1][1:] == [ns, ew]
        level += ns == ew
    assert 0 < level < len(cut)


def test_the_stronger_policy_rates_higher(toys):
    report = run_arena("toy_duel", ["random", "heuristic"], 60, progress=False, n_bootstrap=200)
    elo, low, high = report["ratings"]["heuristic"]
    assert 0 < low < elo < high
    assert report["ratings"]["random"] == (0.0, 0.0, 0.0)
    assert [row["agent"] for row in report["leaderboard"]] == ["heuristic", "random"]
    matrix = report["score_matrix"]
    score = {r["sides"][0]: 0.0 for r in report["records"]}
    for record in report["records"]:
        team = next(iter(record["teams"]))
        score[record["sides"][0]] += record["result"][team]
        score[record["sides"][1]] += 1 - record["result"][team]
    heuristic = matrix["agents"].index("heuristic")
    assert matrix["score"][heuristic][1 - heuristic] == pytest.approx(score["heuristic"] / 60)
    assert report["leaderboard"][0]["score"] == pytest.approx(score["heuristic"] / 60)


def test_anchor_is_the_first_agent_without_random(toys, extra_specs):
    extra_specs("other", lambda argument, game, seed, keywords: RandomPolicy(seed, "other"))
    report = run_arena("toy_duel", ["other", "heuristic"], 4, progress=False, n_bootstrap=10)
    assert report["anchor"] == "other" and report["ratings"]["other"][0] == 0


def test_a_chosen_anchor_rates_the_others_relative_to_it(toys):
    kw = {"progress": False, "n_bootstrap": 200}
    default = run_arena("toy_duel", ["random", "heuristic"], 60, **kw)
    report = run_arena("toy_duel", ["random", "heuristic"], 60, anchor="heuristic", **kw)
    assert report["anchor"] == "heuristic" and report["ratings"]["heuristic"] == (0.0, 0.0, 0.0)
    elo, low, high = report["ratings"]["random"]
    assert elo == pytest.approx(-default["ratings"]["heuristic"][0])  # same games, same fit
    assert low < elo < high < 0


def test_reports_are_written(toys, tmp_path):
    report = run_arena(
        "toy_duel", ["random", "heuristic"], 6, out=tmp_path / "run", progress=False, n_bootstrap=50
    )
    files = report["files"]
    lines = (tmp_path / "run" / "records.jsonl").read_text().splitlines()
    assert strip(json.loads(line) for line in lines) == strip(report["records"])
    assert open(files["plot"], "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    csv_rows = open(files["csv"]).read().splitlines()
    assert csv_rows[0] == "rank,agent,elo,low95,high95,games,score_pct,draw_pct"
    assert csv_rows[1].startswith("1,heuristic,")
    markdown = open(files["markdown"]).read()
    assert "| 1 | heuristic |" in markdown and "Score % of the row agent" in markdown
    assert open(files["scores"]).read().splitlines()[0] == "agent,random,heuristic"
    summary = json.load(open(files["json"]))
    assert summary["leaderboard"][0]["agent"] == "heuristic"


def test_one_deal_per_pair_has_no_intervals(toys, tmp_path):
    report = run_arena("toy_duel", ["random", "heuristic"], 2, out=tmp_path, progress=False)
    assert all(np.isnan(low) for _, low, _ in report["ratings"].values())
    assert "| n/a |" in open(report["files"]["markdown"]).read()
    rows = open(report["files"]["csv"]).read().splitlines()
    assert all(row.split(",")[3:5] == ["", ""] for row in rows[1:])

    def strict(constant):
        raise ValueError(f"{constant} is not JSON")

    summary = json.loads(open(report["files"]["json"]).read(), parse_constant=strict)
    assert summary["leaderboard"][0]["low"] is None


class Interrupt(RandomPolicy):
    """Random, but presses Ctrl-C at its ``after``-th move when ``armed``."""

    armed = False
    moves = 0

    def act(self, observation, action_mask):
        Interrupt.moves += 1
        if Interrupt.armed and Interrupt.moves == 40:
            raise KeyboardInterrupt
        return super().act(observation, action_mask)


def test_resume_continues_an_interrupted_run(toys, extra_specs, tmp_path):
    extra_specs("fragile", lambda argument, game, seed, keywords: Interrupt(seed, "fragile"))
    specs, options = ["random", "fragile", "heuristic"], {"max_hands": 4}
    whole = run_arena("toy_cards", specs, 6, seed=5, progress=False, n_bootstrap=20, **options)
    Interrupt.armed, Interrupt.moves = True, 0
    out = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        run_arena("toy_cards", specs, 6, seed=5, out=out, progress=False, **options)
    Interrupt.armed = False
    kept = (out / "records.jsonl").read_text()
    assert 0 < kept.count("\n") < 18 and kept.endswith("\n")
    # A run killed while writing leaves half a line: resume drops it.
    with (out / "records.jsonl").open("a") as f:
        f.write('{"format": 1, "game": "toy_c')
    resumed = run_arena(
        "toy_cards",
        specs,
        6,
        seed=5,
        out=out,
        progress=False,
        resume=True,
        n_bootstrap=20,
        **options,
    )
    assert strip(resumed["records"]) == strip(whole["records"])
    assert resumed["ratings"] == whole["ratings"]
    text = (out / "records.jsonl").read_text()
    assert text.startswith(kept) and text.count("\n") == 18
    assert [json.loads(line) for line in text.splitlines()][: kept.count("\n")] == [
        json.loads(line) for line in kept.splitlines()
    ]


def test_named_agents_tell_one_spec_apart(toys, tmp_path):
    report = run_arena(
        "toy_cards",
        ["random", "b=random", "best=heuristic"],
        2,
        out=tmp_path,
        progress=False,
        n_bootstrap=10,
    )
    assert report["agents"] == ["random", "b", "best"]
    assert report["specs"] == {"random": "random", "b": "random", "best": "heuristic"}
    assert set(report["ratings"]) == {"random", "b", "best"}
    record = report["records"][0]
    assert record["sides"] == ["random", "b"] and record["seats"]["e"] == "b"
    assert record["specs"] == {"random": "random", "b": "random"}
    with pytest.raises(ArenaError, match="agent 'b' was 'random' \\(this run: 'heuristic'\\)"):
        run_arena("toy_cards", ["random", "b=heuristic"], 2, out=tmp_path, resume=True)
    again = run_arena(
        "toy_cards",
        ["random", "b=random", "c=random"],
        2,
        out=tmp_path,
        resume=True,
        progress=False,
        n_bootstrap=10,
    )
    assert again["records"][:2] == report["records"][:2]
    assert (
        run_arena("toy_cards", ["x=heuristic", "b=random"], 2, progress=False, n_bootstrap=10)[
            "anchor"
        ]
        == "b"
    )


def test_resume_with_more_games_adds_deals(toys, tmp_path):
    first = run_arena("toy_duel", ["random", "heuristic"], 4, out=tmp_path, progress=False)
    more = run_arena(
        "toy_duel", ["random", "heuristic"], 8, out=tmp_path, progress=False, resume=True
    )
    assert more["records"][:4] == first["records"]
    assert [r["deal"] for r in more["records"]] == [0, 0, 1, 1, 2, 2, 3, 3]


@pytest.mark.parametrize(
    "change, message",
    [
        ({"game": "toy_duel"}, "game 'toy_cards'"),
        ({"max_hands": 3}, "options"),
        ({"seed": 1}, "arena_seed 0"),
    ],
)
def test_resume_refuses_a_record_of_another_run(toys, tmp_path, change, message):
    run_arena("toy_cards", ["random", "heuristic"], 2, out=tmp_path, progress=False)
    with (tmp_path / "records.jsonl").open("a") as f:
        f.write('{"format": 1, "ga')  # killed mid-write: still left alone on refusal
    before = (tmp_path / "records.jsonl").read_bytes()
    arguments = {
        "game": "toy_cards",
        "agents": ["random", "heuristic"],
        "games": 2,
        "out": tmp_path,
        "progress": False,
        "resume": True,
        **change,
    }
    with pytest.raises(ArenaError, match=message):
        run_arena(**arguments)
    assert (tmp_path / "records.jsonl").read_bytes() == before


def test_an_existing_record_needs_resume(toys, tmp_path):
    run_arena("toy_duel", ["random", "heuristic"], 2, out=tmp_path, progress=False)
    before = (tmp_path / "records.jsonl").read_bytes()
    with pytest.raises(ArenaError, match="pass --resume"):
        run_arena("toy_duel", ["random", "heuristic"], 2, out=tmp_path, progress=False)
    assert (tmp_path / "records.jsonl").read_bytes() == before


@pytest.mark.parametrize(
    "arguments, error, message",
    [
        ({"game": "no_game"}, ArenaError, "unknown game 'no_game'"),
        ({"agents": ["random"]}, ArenaError, "at least two agents"),
        ({"agents": ["random", "random"]}, ArenaError, "'random' is listed twice"),
        ({"agents": ["random", "random=heuristic"]}, ArenaError, "'random' is listed twice"),
        ({"agents": ["random", "nope"]}, ValueError, "unknown policy spec 'nope'"),
        ({"agents": ["random", "b=nope"]}, ValueError, "unknown policy spec 'nope'"),
        ({"agents": ["random", "ppo:/no/such.zip"]}, FileNotFoundError, "does not exist"),
        ({"games": 0}, ArenaError, "positive even"),
        ({"games": 3}, ArenaError, "positive even"),
        ({"seed": -1}, ArenaError, "seed"),
        ({"variant": "low"}, ArenaError, "toy_duel does not take variant"),
        ({"max_moves": 0}, ArenaError, "max_moves=0 is not allowed"),
        ({"reward": "points"}, ArenaError, "reward is always 'win'"),
    ],
)
def test_bad_input_is_refused_before_playing(toys, tmp_path, arguments, error, message):
    call = {
        "game": "toy_duel",
        "agents": ["random", "heuristic"],
        "games": 2,
        "out": tmp_path / "run",
        "progress": False,
        **arguments,
    }
    with pytest.raises(error, match=message):
        run_arena(**call)
    assert not (tmp_path / "run").exists()


def test_an_illegal_choice_names_the_policy(toys, extra_specs):
    class Cheat(RandomPolicy):
        def act(self, observation, action_mask):
            return int(np.flatnonzero(action_mask == 0)[0])

    extra_specs("cheat", lambda argument, game, seed, keywords: Cheat(seed, "cheat"))
    with pytest.raises(RuntimeError, match=r"policy .cheat. playing .* illegal action"):
        run_arena("toy_cards", ["random", "cheat"], 2, progress=False)


DEAL_COUNTER = {"lost_heir": "hands_played", "lost_ranks": "epoch"}
"""The state field that counts deals in each card game (changes exactly when cards are dealt,
and once more when the game ends)."""


def replay_deals(game, record):
    """Replay a real game's record: the cards dealt (card games: ``state.hands`` and the
    Trump Card at each new deal, the game-over state dropped), each seat's first
    observation, the referee's view at the start, and the env at the end."""
    env = feral_envs.make(game, **record["options"])
    env.reset(seed=record["env_seed"])
    raw = env.unwrapped
    first = {agent: env.observe(agent)["observation"].copy() for agent in env.possible_agents}
    start = raw.core.render_ansi(raw.game, None)
    deals = {}
    for action in [*record["actions"], None]:
        if game in DEAL_COUNTER:
            counter = getattr(raw.game, DEAL_COUNTER[game])
            if counter not in deals:
                deals[counter] = (raw.game.hands.copy(), getattr(raw.game, "trump_card", None))
        if action is not None:
            env.step(action)
    return list(deals.values())[:-1], first, start, env


@pytest.mark.parametrize(
    "game", landed_games() or [pytest.param(None, marks=pytest.mark.skip("no game yet"))]
)
def test_real_game_duplicates_replay_the_same_deals(game):
    report = run_arena(
        game, ["random", "b=random"], 6, progress=False, n_bootstrap=0, **SMALL[game]
    )
    for a, b in twins(report["records"]):
        assert a["env_seed"] == b["env_seed"] and a["sides"] == b["sides"][::-1]
        deals_a, first_a, start_a, env_a = replay_deals(game, a)
        deals_b, first_b, start_b, env_b = replay_deals(game, b)
        assert start_a == start_b
        for agent in first_a:
            assert (first_a[agent] == first_b[agent]).all()
        assert a["actions"] != b["actions"]
        if game != "hidden_ranks":
            shared = min(len(deals_a), len(deals_b))
            assert shared >= 1 and max(len(deals_a), len(deals_b)) > 1
            for (hands_a, trump_a), (hands_b, trump_b) in zip(
                deals_a[:shared], deals_b[:shared], strict=True
            ):
                assert (hands_a == hands_b).all() and trump_a == trump_b
        for record, env in ((a, env_a), (b, env_b)):
            assert env.unwrapped.scores == record["final_scores"]
            assert not env.agents or all(
                env.terminations[x] or env.truncations[x] for x in env.agents
            )
