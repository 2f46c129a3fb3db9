"""Speed of Lost Heir's open-card solver: positions solved per second.

A *solve* is ``feral_envs.lost_heir.search.solve(row, config)``: the exact value of every
legal action of the seat to act (what the ``pimc`` bot asks once per sampled world). The
positions come from random deals with random bidding, at two points of the play: the start
(the declarer's trump-naming lead, 32 cards held) and mid-play (the lead of trick 4, 16
cards held, a few of them with a trick under way). Also the bidding kernel: the declarer's
points for each of the four trumps from a fresh deal (``Solver.declarer_points``). Prints
solves per second, the mean and the slowest time and the mean number of nodes, and the load.

    python benchmarks/bench_solve_lost_heir.py [--positions 40] [--seed 0]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages
from feral_envs.engine.rng import seed_words
from feral_envs.lost_heir import engine as E
from feral_envs.lost_heir import search, solver
from feral_envs.lost_heir.rules import make_config


def positions(n: int, seed: int, cards_played: int) -> list[np.ndarray]:
    """Rows of random games at the play phase's ``cards_played``-th card (random play)."""
    rng = np.random.default_rng(seed)
    mask = np.zeros(E.N_ACTIONS, dtype=np.int8)
    out = []
    g = 0
    while len(out) < n:
        row = np.zeros(E.ROW_SIZE, dtype=np.int32)
        row[0:4] = seed_words(seed * 100_000 + g)
        g += 1
        E.start(row, make_config(), None)
        while row[E.PHASE] != E.PHASE_PLAY and row[E.HANDS_PLAYED] == 0:
            E.legal_mask(row, mask)
            legal = np.flatnonzero(mask)
            E.apply(row, int(legal[rng.integers(len(legal))]))
        if row[E.PHASE] != E.PHASE_PLAY:
            continue  # thrown in
        played = 0
        while played < cards_played:
            E.legal_mask(row, mask)
            legal = np.flatnonzero(mask[E.CARD :]) + E.CARD  # cards only: no `take a lead`
            E.apply(row, int(legal[rng.integers(len(legal))]))
            played += 1
        out.append(row)
    return out


def measure(rows: list[np.ndarray], config) -> tuple[float, float, float, float, float]:
    """Solves per second of CPU time, mean and slowest CPU ms, mean nodes, wall ms."""
    times, nodes = [], []
    wall = time.perf_counter()
    for row in rows:
        start = time.process_time()
        search.solve(row, config)
        times.append(time.process_time() - start)
        nodes.append(solver.default_solver().nodes)
    wall = time.perf_counter() - wall
    t = np.array(times)
    return len(t) / t.sum(), t.mean(), t.max(), float(np.mean(nodes)), wall / len(t)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    config = make_config()
    search.solve(positions(1, 999, 0)[0], config)  # compile or load the kernels
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print("times are CPU time of this process (time.process_time); wall ms beside it")
    print(
        f"{'position':<34} {'solves/s':>9} {'mean ms':>8} {'max ms':>8} {'nodes':>9} {'wall ms':>8}"
    )
    for label, played in (("start of play (32 cards)", 0), ("mid-play (trick 4, 16 cards)", 16)):
        rows = positions(args.positions, args.seed, played)
        rate, mean, worst, nodes, wall = measure(rows, config)
        print(
            f"{label:<34} {rate:9.1f} {1e3 * mean:8.2f} {1e3 * worst:8.2f} {nodes:9.0f} "
            f"{1e3 * wall:8.2f}"
        )
    # The bidding kernel: the declarer's points for each trump, one table for the four.
    rows = positions(args.positions, args.seed, 0)
    s = solver.default_solver()
    start = time.process_time()
    for row in rows:
        s.declarer_points(row, int(row[E.DECLARER]))
    elapsed = time.process_time() - start
    print(
        f"{'declarer points, 4 trumps':<34} {len(rows) / elapsed:9.1f} "
        f"{1e3 * elapsed / len(rows):8.2f}"
    )


if __name__ == "__main__":
    main()
