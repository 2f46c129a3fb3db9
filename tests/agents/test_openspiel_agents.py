"""OpenSpiel's bots in our arena (``agents/openspiel.py``) and OpenSpiel's Elo against ours.
Skipped where open_spiel is not installed."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import feral_envs  # noqa: E402
import feral_envs.openspiel as fos  # noqa: E402
from agents.arena import results_of, run_arena  # noqa: E402
from agents.elo import fit_ratings  # noqa: E402
from agents.openspiel import openspiel_ratings  # noqa: E402
from agents.registry import load_policy  # noqa: E402

SHORT = {
    "lost_heir": {"target_score": 10},
    "lost_ranks": {},
    "hidden_ranks": {"mode": "quick", "max_moves": 120},
}


def test_openspiel_random_plays_legal_moves_from_its_seed():
    env = feral_envs.make("lost_ranks").unwrapped
    env.reset(seed=4)
    first = load_policy("openspiel_random", "lost_ranks", seed=9)
    second = load_policy("openspiel_random", "lost_ranks", seed=9)
    other = load_policy("openspiel_random", "lost_ranks", seed=10)
    same, differ = [], []
    for _ in range(30):
        view = env.observe(env.agent_selection)
        action = first.act(view["observation"], view["action_mask"])
        assert view["action_mask"][action] == 1
        same.append(action == second.act(view["observation"], view["action_mask"]))
        differ.append(action != other.act(view["observation"], view["action_mask"]))
        env.step(action)
    assert all(same) and any(differ)


def test_openspiel_random_in_the_arena():
    report = run_arena(
        "hidden_ranks",
        ["random", "openspiel_random"],
        4,
        progress=False,
        n_bootstrap=0,
        mode="quick",
        max_moves=60,
    )
    assert len(report["records"]) == 4
    assert set(report["ratings"]) == {"random", "openspiel_random"}


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        ("openspiel_ismcts:bogus=1", "no argument bogus"),
        ("openspiel_ismcts:simulations=1", "simulations"),
        ("openspiel_ismcts:simulations=5,time=1", "not both"),
        ("openspiel_ismcts:time=fast", "time"),
        ("openspiel_ismcts:uct", "key=value"),
        ("openspiel_random:x", "takes no argument"),
    ],
)
def test_bad_specs_are_refused(spec, match):
    with pytest.raises(ValueError, match=match):
        load_policy(spec, "lost_heir", seed=0)


@pytest.mark.parametrize("game", ["lost_ranks", "hidden_ranks"])
def test_the_seat_a_bot_plays_as_fits_its_observation(game):
    """From its observation alone, a bot takes a seat of its own army (Lost Ranks) or its
    own colour (Hidden Ranks, in play): the worlds it builds are seen from there."""
    keywords = (
        {"mode": "quick", "setup": "random", "max_moves": 300} if game == "hidden_ranks" else {}
    )
    spiel = pyspiel_game(game, keywords)
    rng = np.random.default_rng(1)
    env = feral_envs.make(game, **keywords).unwrapped
    env.reset(seed=2)
    for _ in range(150):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            break
        seat = env.possible_agents.index(agent)
        view = env.observe(agent)
        guess = spiel.seat_of_observation(view["observation"].reshape(-1))
        assert env.team_of_seat[guess] == env.team_of_seat[seat]
        env.step(int(rng.choice(np.flatnonzero(view["action_mask"]))))


def pyspiel_game(game: str, keywords: dict):
    return pyspiel.load_game(fos.SHORT_NAMES[game], keywords)


@pytest.mark.parametrize(
    "game",
    [
        # the card games' whole games (20-25 s each on a slow 2-core host) run with -m slow
        pytest.param(g, marks=pytest.mark.slow) if g != "hidden_ranks" else g
        for g in fos.GAMES
    ],
)
def test_a_whole_game_of_ismcts_against_random(game):
    report = run_arena(
        game,
        ["random", "openspiel_ismcts:simulations=4"],
        2,
        progress=False,
        n_bootstrap=0,
        **SHORT[game],
    )
    assert len(report["records"]) == 2
    for record in report["records"]:
        assert record["steps"] > 20


def test_openspiel_elo_agrees_with_fit_ratings_on_an_arena_record():
    """On a small arena record (Lost Heir to 10 points, three agents, 10 games a pair),
    OpenSpiel's Bradley-Terry (Hunter's MM) and our Newton fit agree within 0.01 Elo when
    both carry the same prior (two drawn games of each agent against the anchor; OpenSpiel's
    own smoothing set to almost nothing): the same likelihood, a draw half a win and half a
    loss in both. With each package's default prior they differ by tens of Elo here."""
    report = run_arena(
        "lost_heir",
        ["random", "openspiel_random", "heuristic"],
        10,
        progress=False,
        n_bootstrap=0,
        target_score=10,
    )
    results = results_of(report["records"])
    ours = fit_ratings(results, anchor="random", prior_games=2, n_bootstrap=0)
    theirs = openspiel_ratings(results, "random", prior_draws=2)
    assert set(ours) == set(theirs)
    for agent, (elo, _, _) in ours.items():
        assert abs(elo - theirs[agent]) < 0.01, (agent, elo, theirs[agent])
    assert ours["heuristic"][0] > 200
