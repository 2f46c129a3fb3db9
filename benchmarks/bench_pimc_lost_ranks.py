"""Time per decision of the Lost Ranks ``pimc`` bot (``agents/search/lost_ranks.py``).

It plays ``--games`` games with the spec in the red seats and the heuristic in the black, on
one thread, and prints the bot's mean seconds per decision (wall clock and the process's CPU
time, which a loaded machine changes much less; every ``act`` call: passes,
forced cards and fallbacks included), per searched decision, the share searched and the
share of those solved exactly (the others valued by playouts or the horizon search).

    python benchmarks/bench_pimc_lost_ranks.py [--spec pimc:worlds=8] [--games 2] [--seed 0]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's packages

import feral_envs  # noqa: E402
from agents.registry import load_policy  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", default="pimc:worlds=8")
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    env = feral_envs.make("lost_ranks")
    bot = load_policy(args.spec, "lost_ranks", seed=args.seed)
    other = load_policy("heuristic", "lost_ranks", seed=args.seed)
    warm = load_policy(args.spec, "lost_ranks", seed=args.seed)
    env.reset(seed=10**6)  # compile the kernels outside the timing: play to a first search
    started = time.perf_counter()
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else warm.act(obs["observation"], obs["action_mask"]))
        if warm.searched:
            break
    print(f"warm-up: {time.perf_counter() - started:.1f} s")
    searched_seconds = 0.0
    cpu_seconds = 0.0  # the bot's own process time: what one free core would take
    for game in range(args.games):
        env.reset(seed=args.seed + game)
        bot.reset(args.seed + game)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            policy = bot if agent.startswith("red") else other
            before = bot.searched
            started = time.perf_counter()
            cpu_started = time.process_time()
            action = policy.act(obs["observation"], obs["action_mask"])
            if policy is bot:
                cpu_seconds += time.process_time() - cpu_started
            if bot.searched > before:
                searched_seconds += time.perf_counter() - started
            env.step(action)
    stats = bot.stats
    print(
        f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; {args.spec}, "
        f"{args.games} games: {stats['decisions']} decisions, {stats['mean_seconds']:.3f} s "
        f"a decision ({cpu_seconds / max(stats['decisions'], 1):.3f} s of CPU), "
        f"{searched_seconds / max(stats['searched'], 1):.3f} s a searched one "
        f"({stats['searched'] / stats['decisions']:.0%} searched, "
        f"{stats['worlds_solved'] / max(stats['searched'], 1):.1f} worlds each, "
        f"{stats['exact'] / max(stats['searched'], 1):.0%} of them solved exactly, "
        f"{stats['nodes'] / stats['decisions']:,.0f} search nodes and "
        f"{stats['playouts'] / stats['decisions']:,.1f} playouts a decision)"
    )


if __name__ == "__main__":
    main()
