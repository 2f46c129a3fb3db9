"""Speed of the Lost Ranks open-card solver (``feral_envs.lost_ranks.search.solve``).

Positions come from heuristic self-play (the standard variant): *start of play* is the first
free decision of a round (the second card of trick 1: the first lead is forced), *mid-play*
the first decision of trick 7 (``--trick``). Each position is solved exactly (every legal
card's value) once, on one thread, after a warm-up solve that compiles the kernels. It
prints positions solved per second, search nodes per solve and per second for each, and the
ratio of the mid-play rate to the start-of-play rate.

    python benchmarks/bench_solve_lost_ranks.py [--start 3] [--mid 50] [--trick 6] [--seed 0]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's packages

from agents.registry import load_policy  # noqa: E402
from feral_envs.lost_ranks import CORE, search  # noqa: E402
from feral_envs.lost_ranks.engine import STATE  # noqa: E402


def positions(n: int, tricks_done: int, in_trick: int, seed: int) -> list[np.ndarray]:
    """``n`` rows of heuristic self-play at ``tricks_done`` tricks and ``in_trick`` cards."""
    bot = load_policy("heuristic", "lost_ranks", seed=0)
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        state = CORE.new_game(CORE.make_config(), rng, {})
        epoch = state.epoch
        while state.epoch == epoch and not CORE.status(state)[0]:
            row = state.row
            if (
                state.phase == 1
                and row[STATE.tricks_done.start] == tricks_done
                and row[STATE.n_in_trick.start] == in_trick
            ):
                out.append(row.copy())
                break
            seat = CORE.seat_to_act(state)
            CORE.apply(state, bot.act(CORE.observe(state, seat), CORE.legal_mask(state)))
    return out


def measure(rows: list[np.ndarray]) -> tuple[float, float]:
    """(positions per second, nodes per solve)."""
    stats = np.zeros(2, np.int64)
    start = time.perf_counter()
    for row in rows:
        search.action_values(row, stats=stats)
    seconds = time.perf_counter() - start
    return len(rows) / seconds, stats[0] / len(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--start", type=int, default=3, help="start-of-play positions")
    parser.add_argument("--mid", type=int, default=50, help="mid-play positions")
    parser.add_argument("--trick", type=int, default=6, help="tricks done at mid-play")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; one thread")
    measure(positions(1, 10, 0, args.seed + 99))  # compile
    rates = {}
    for name, n, tricks, in_trick in (
        ("start of play", args.start, 0, 1),
        (f"mid-play (trick {args.trick + 1})", args.mid, args.trick, 0),
    ):
        rate, nodes = measure(positions(n, tricks, in_trick, args.seed))
        rates[name] = rate
        print(
            f"{name:>24}: {rate:10.3f} positions/s, {nodes:12,.0f} nodes a solve, "
            f"{rate * nodes / 1e6:6.2f} M nodes/s ({n} positions)"
        )
    start, mid = rates.values()
    print(f"mid-play / start of play: {mid / start:,.0f}x")


if __name__ == "__main__":
    main()
