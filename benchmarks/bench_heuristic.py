"""Time per decision of a game's heuristic bot, one game at a time and in batches.

It collects the positions of random play from ``feral_envs.vector`` (``--games`` games at
once for ``--steps`` steps), then times the bot's ``act`` on each position and its lanes
(``agents.base.as_batch_policy``: the bot's own ``act_lanes`` where it has them, else one
instance per lane) on calls of ``--games`` positions; best of ``--repeats``, on one thread.
Copied into an older checkout it times that checkout's bot (it imports the packages next
to it).

    python benchmarks/bench_heuristic.py lost_heir [--games 64] [--steps 120] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's packages
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import feral_envs.vector  # noqa: E402
from agents.base import as_batch_policy  # noqa: E402
from agents.registry import load_policy  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", choices=["lost_heir", "lost_ranks", "hidden_ranks"])
    parser.add_argument("--games", type=int, default=64)
    parser.add_argument("--steps", type=int, default=120)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    venv = feral_envs.vector.make(args.game, args.games, seed=0)
    batch, observations, masks = venv.reset(), [], []
    for _ in range(args.steps):
        live = batch.action_mask.any(axis=1)
        observations.append(batch.observation[live].copy())
        masks.append(batch.action_mask[live].copy())
        batch = venv.step(venv.random_actions())
    obs, mask = np.concatenate(observations), np.concatenate(masks)
    n = len(obs)
    bot = load_policy("heuristic", args.game, 0)
    lanes = as_batch_policy(bot, lambda: load_policy("heuristic", args.game, 0))
    lanes.reset_lanes(list(range(args.games)))
    every = np.arange(args.games)
    calls = [(s, s + args.games) for s in range(0, n - args.games + 1, args.games)]
    for i in range(min(n, 200)):  # compile and warm up
        bot.act(obs[i], mask[i])
    lanes.act_lanes(every, obs[: args.games], mask[: args.games])

    def timed(run) -> float:
        best = float("inf")
        for _ in range(args.repeats):
            start = time.perf_counter()
            run()
            best = min(best, time.perf_counter() - start)
        return best

    one = timed(lambda: [bot.act(obs[i], mask[i]) for i in range(n)]) / n
    many = timed(lambda: [lanes.act_lanes(every, obs[a:b], mask[a:b]) for a, b in calls])
    many /= len(calls) * args.games
    print(f"{args.game} heuristic, {n:,} positions of random play ({type(lanes).__name__} lanes)")
    print(f"  act:       {one * 1e6:8.2f} us a decision")
    print(f"  act_lanes: {many * 1e6:8.2f} us a decision, {args.games} a call")


if __name__ == "__main__":
    main()
