"""The arena's batched play (a pair's games together on ``feral_envs.vector``) records
exactly the games the one-game path (the PettingZoo env, a game at a time) records."""

import json

import numpy as np
import pytest
from tiny_networks import KINDS, tiny_policy_file
from toy_games import SMALL, landed_games

from agents import arena as arena_module
from agents import registry
from agents.arena import run_arena
from agents.random_policy import RandomPolicy

GAMES = landed_games()


def strip(records):
    """Records without their timings (the only field that differs between equal runs)."""
    return [{k: v for k, v in r.items() if k != "seconds"} for r in records]


def both_paths(game, agents, games=6, seed=4, **keywords):
    """The records of the same arena played batched and one game at a time."""
    runs = [
        run_arena(
            game, agents, games, seed=seed, progress=False, n_bootstrap=0, batched=b, **keywords
        )
        for b in (True, False)
    ]
    return runs[0]["records"], runs[1]["records"]


@pytest.fixture
def extra_specs(monkeypatch):
    """Register test-only specs on a private copy of the registry."""
    monkeypatch.setattr(registry, "_LOADERS", dict(registry._LOADERS))
    monkeypatch.setattr(registry, "SPEC_FORMS", dict(registry.SPEC_FORMS))
    return registry.register_loader


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize(
    "agents", [["random", "b=random"], ["heuristic", "random"]], ids=["random", "mixed"]
)
def test_batched_games_are_the_one_game_paths_games(game, agents):
    batched, alone = both_paths(game, agents, **SMALL[game])
    assert strip(batched) == strip(alone)
    assert len({r["env_seed"] for r in batched}) == 3 and sum(r["steps"] for r in batched) > 100


NETWORKS = [(game, kind) for game in GAMES for kind in KINDS[game]]


@pytest.mark.parametrize(("game", "kind"), NETWORKS, ids=[f"{g}-{k}" for g, k in NETWORKS])
def test_network_policies_play_the_same_games_batched(game, kind, tmp_path):
    path = tiny_policy_file(game, tmp_path / "tiny.zip", kind)
    agents = [f"net=ppo:{path}", f"greedy=ppo_argmax:{path}", "random"]
    keywords = dict(SMALL[game])
    if kind == "board":  # a torch network, asked one game at a time on both paths
        agents, keywords["max_moves"] = agents[:2], 60
    batched, alone = both_paths(game, agents, games=4, **keywords)
    assert strip(batched) == strip(alone)


def test_truncated_games_are_scored_by_the_lead_in_both_paths():
    batched, alone = both_paths("lost_heir", ["random", "heuristic"], games=10, max_hands=2)
    assert strip(batched) == strip(alone)
    cut = [r for r in batched if r["end"] == "truncated"]
    assert cut and all(r["winner"] is None for r in cut)
    assert any(r["result"] != {"north_south": 0.5, "east_west": 0.5} for r in cut)
    for record in cut:
        ns, ew = record["final_scores"].values()
        assert record["result"]["north_south"] == (1.0 if ns > ew else 0.0 if ns < ew else 0.5)
        assert record["hand_scores"][-1][1:] == [ns, ew]


def test_more_games_than_a_batch_are_played_in_chunks(monkeypatch):
    monkeypatch.setattr(arena_module, "BATCH_GAMES", 4)
    batched, alone = both_paths("lost_ranks", ["random", "b=random", "c=random"], games=10)
    assert strip(batched) == strip(alone)


class Interrupt(RandomPolicy):
    """Random, but presses Ctrl-C at the ``at``-th move of all its instances when armed."""

    armed, moves, at = False, 0, 0

    def act(self, observation, action_mask):
        Interrupt.moves += 1
        if Interrupt.armed and Interrupt.moves == Interrupt.at:
            raise KeyboardInterrupt
        return super().act(observation, action_mask)


def test_an_interrupted_batched_run_resumes_to_the_same_records(extra_specs, tmp_path):
    # Hidden Ranks games differ in length: some of a batch end long before the others.
    extra_specs("fragile", lambda argument, game, seed, keywords: Interrupt(seed, "fragile"))
    specs, options = ["fragile", "random"], SMALL["hidden_ranks"]
    whole = run_arena("hidden_ranks", specs, 12, seed=5, progress=False, n_bootstrap=20, **options)
    moves = Interrupt.moves
    Interrupt.armed, Interrupt.moves, Interrupt.at = True, 0, moves * 3 // 4
    out = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        run_arena("hidden_ranks", specs, 12, seed=5, out=out, progress=False, **options)
    Interrupt.armed = False
    kept = (out / "records.jsonl").read_text()
    assert 0 < kept.count("\n") < 12 and kept.endswith("\n")
    resumed = run_arena(
        "hidden_ranks",
        specs,
        12,
        seed=5,
        out=out,
        resume=True,
        progress=False,
        n_bootstrap=20,
        **options,
    )
    assert strip(resumed["records"]) == strip(whole["records"])
    assert resumed["ratings"] == whole["ratings"]
    lines = (out / "records.jsonl").read_text().splitlines()
    assert len(lines) == 12 and lines[: kept.count("\n")] == kept.splitlines()
    in_file = sorted(strip(map(json.loads, lines)), key=lambda r: (r["deal"], r["sides"]))
    assert in_file == strip(whole["records"])


def test_an_illegal_choice_in_a_batch_names_the_policy(extra_specs):
    class Cheat(RandomPolicy):
        def act(self, observation, action_mask):
            return int(np.flatnonzero(action_mask == 0)[0])

    extra_specs("cheat", lambda argument, game, seed, keywords: Cheat(seed, "cheat"))
    with pytest.raises(RuntimeError, match=r"policy .cheat. playing \w+ chose illegal action"):
        run_arena("lost_ranks", ["random", "cheat"], 2, progress=False)
