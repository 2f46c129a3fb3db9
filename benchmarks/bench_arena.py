"""Arena throughput per game: games per second of the duplicate round robin's game loop.

For every game that has landed, plays duplicate deals (both games of each deal, sides
swapped) for ``--seconds`` through :class:`agents.arena.Arena` exactly as a tournament does
(``feral_envs.make``, ``agent_iter``/``last``/``step``, policies on the observation arrays,
the game record built), without writing files, and prints games/s, decisions/s, the mean
length of a game and the share of truncated games. Matchups: random against random, and
random against the game's heuristic once ``agents/heuristic/<game>.py`` exists. Then the
time to fit ratings with bootstrap intervals for a typical round robin.

    python benchmarks/bench_arena.py [--seconds 5] [--only lost_heir ...]
"""

from __future__ import annotations

import argparse
import importlib
import itertools
import platform
import time

import numpy as np

import feral_envs
from agents.arena import Arena
from agents.elo import expected_score, fit_ratings


def landed_games(only: list[str] | None) -> list[str]:
    games = []
    for game in feral_envs.GAMES:
        if only and game not in only:
            continue
        try:
            feral_envs.env_module(game)
        except ModuleNotFoundError:
            continue
        games.append(game)
    return games


KEYWORDS = {"hidden_ranks": [{}, {"mode": "quick"}]}
"""Keyword sets measured per game (default: the defaults only)."""


def matchups(game: str) -> list[list[str]]:
    pairs = [["random", "random_b=random"]]
    try:
        importlib.import_module(f"agents.heuristic.{game}")
    except ModuleNotFoundError:
        pass
    else:
        pairs.append(["random", "heuristic"])
    return pairs


def measure(game: str, agents: list[str], seconds: float, **keywords) -> dict[str, float]:
    """Play deals of ``agents[0]`` against ``agents[1]`` for about ``seconds``."""
    arena = Arena(game, agents, games=2, env_kwargs=keywords)
    side_0, side_1 = arena.agents
    games = decisions = truncated = 0
    start = time.perf_counter()
    deal = 0
    while time.perf_counter() - start < seconds or games == 0:
        for sides in ((side_0, side_1), (side_1, side_0)):
            record = arena.play(deal, *sides)
            games += 1
            decisions += record["steps"]
            truncated += record["end"] == "truncated"
        deal += 1
    elapsed = time.perf_counter() - start
    return {
        "games_per_s": games / elapsed,
        "decisions_per_s": decisions / elapsed,
        "steps_per_game": decisions / games,
        "truncated": truncated / games,
        "games": games,
    }


def rating_fit_seconds(n_agents: int = 8, games_per_pair: int = 100, n_bootstrap: int = 1000):
    rng = np.random.default_rng(0)
    ratings = np.linspace(0, 1300, n_agents)
    results = []
    for i in range(n_agents):
        for j in range(i + 1, n_agents):
            p = expected_score(ratings[i], ratings[j])
            for game in range(games_per_pair):
                results.append((f"a{i}", f"a{j}", float(rng.random() < p), (i, j, game // 2)))
    start = time.perf_counter()
    fit_ratings(results, anchor="a0", n_bootstrap=n_bootstrap)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per matchup (5)")
    parser.add_argument("--only", nargs="*", choices=feral_envs.GAMES, help="games to measure")
    args = parser.parse_args()
    print(f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}")
    games = landed_games(args.only)
    if not games:
        print("no game package has landed yet")
    for game in games:
        for keywords, agents in itertools.product(KEYWORDS.get(game, [{}]), matchups(game)):
            row = measure(game, agents, args.seconds, **keywords)
            options = "".join(f" {k}={v}" for k, v in keywords.items())
            label = f"{game}{options}: {agents[0]} vs {agents[1].split('=')[-1]}"
            print(
                f"{label:<36} {row['games_per_s']:>9,.1f} games/s "
                f"{row['decisions_per_s']:>10,.0f} decisions/s  "
                f"{row['steps_per_game']:>7,.1f} decisions/game  "
                f"{100 * row['truncated']:5.1f}% truncated  ({row['games']} games)"
            )
    seconds = rating_fit_seconds()
    print(
        f"rating fit, 8 agents x 28 pairs x 100 games, 1000 bootstrap replicates: {seconds:.2f} s"
    )


if __name__ == "__main__":
    main()
