"""Hidden Ranks search bot: seconds per decision, and worlds sampled per second.

Plays ``--games`` games of a search spec against the heuristic (colours alternating, env
seeds 0, 1, ...) in each mode asked, on one thread, and prints the bot's mean and largest
time per move decision (wall, and this process's CPU time, which a loaded machine inflates
less) (setup placements, which follow the heuristic's rule, not counted),
the decisions per game and the bot's score (a rough figure: the arena measures strength).
Then the sampler alone: worlds drawn per second from one observation of a full game.

    python benchmarks/bench_search_hidden_ranks.py [--spec minimax:depth=4,worlds=16]
        [--games 4] [--modes quick full]

The time limit of issue 17 is a mean of at most 0.5 s per decision on one core; the
machine's load changes the figure, so print it beside (``uptime``).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

import feral_envs
from agents.registry import load_policy
from feral_envs.hidden_ranks import engine as E
from feral_envs.hidden_ranks import search

GAME = "hidden_ranks"


def play(spec: str, mode: str, seed: int) -> tuple[float, list[float], int]:
    keywords = {"mode": mode}
    env = feral_envs.make(GAME, **keywords)
    env.reset(seed=seed)
    bot = load_policy(spec, GAME, seed, keywords)
    other = load_policy("heuristic", GAME, seed, keywords)
    bot.reset(seed)
    other.reset(seed)
    seat = seed % 2
    players = {env.possible_agents[seat]: bot, env.possible_agents[1 - seat]: other}
    times = []
    for agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        before = bot.decisions
        started, cpu = time.perf_counter(), time.process_time()
        action = players[agent].act(observation["observation"], observation["action_mask"])
        if players[agent] is bot and bot.decisions > before:
            times.append((time.perf_counter() - started, time.process_time() - cpu))
        env.step(action)
    winner = int(env.unwrapped.game.row[E.WINNER])
    score = 1.0 if winner == seat else 0.5 if winner < 0 else 0.0
    return score, times, int(env.unwrapped.game.row[E.MOVES])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", default="minimax")
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--modes", nargs="+", default=["quick", "full"])
    args = parser.parse_args()
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    play(args.spec, "quick", 10_000)  # compile (numba caches) before timing
    for mode in args.modes:
        scores, times, moves = [], [], []
        for seed in range(args.games):
            score, game_times, game_moves = play(args.spec, mode, seed)
            scores.append(score)
            times.extend(game_times)
            moves.append(game_moves)
        t, cpu = np.array(times).T
        print(
            f"{args.spec} mode={mode}: {t.mean():.3f} s/decision mean (wall; CPU "
            f"{cpu.mean():.3f}), {t.max():.3f} max, "
            f"{len(t) / args.games:.0f} decisions/game, {np.mean(moves):.0f} moves/game, "
            f"score {np.mean(scores):.2f} vs heuristic over {args.games} games (rough)"
        )
    env = feral_envs.make(GAME, mode="full", setup="random").unwrapped
    env.reset(seed=0)
    obs = env.observe("gold")["observation"]
    rng = np.random.default_rng(0)
    search.sample_from_observation(obs, env.config, 0, rng)
    n, started = 0, time.perf_counter()
    while time.perf_counter() - started < 1.0:
        search.sample_from_observation(obs, env.config, 0, rng)
        n += 1
    print(f"sample_from_observation (full, one call per world): {n / 1.0:,.0f} worlds/s")
    # The bot's kernel draws its worlds inside the search: the sampler alone, in the kernel.
    stream = np.array([1, 2, 3, 4], dtype=np.int32)
    row = np.zeros(E.ROW_SIZE, dtype=np.int32)
    flat = obs.reshape(-1)
    started, n = time.perf_counter(), 0
    while time.perf_counter() - started < 1.0:
        for _ in range(1000):
            search.world_from_observation(flat, 0, 0, 0, 1, 2000, search._NO_PRIOR, stream, row)
        n += 1000
    print(f"world_from_observation (full, compiled call): {n / 1.0:,.0f} worlds/s")


if __name__ == "__main__":
    main()
