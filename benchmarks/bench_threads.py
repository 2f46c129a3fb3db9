"""When numba's threads pay: ``venv.step(venv.random_actions())`` with every batch kernel on
numba's threads against every kernel on one thread, in turns in the same run, for each game
at several ``num_envs``; then as the engine chooses by itself (each kernel on threads from its
engine's ``PARALLEL_FROM`` figure on, :mod:`feral_envs.engine.batch`).

    python benchmarks/bench_threads.py [--seconds 0.5] [--rounds 3] [--sizes 64 1024 ...]
        [--only lost_heir ...]

Each figure is the best of ``--rounds`` rounds; in each round the three ways run back to
back, so a load change hits them alike.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's packages

import numba  # noqa: E402

import feral_envs.vector  # noqa: E402
from feral_envs.engine.batch import forced  # noqa: E402

CASES = (
    ("lost_heir", {}, "float32"),
    ("lost_ranks", {}, "float32"),
    ("hidden_ranks", {"mode": "quick", "setup": "random"}, "int8"),
    ("hidden_ranks", {"mode": "full", "setup": "random"}, "int8"),
)
SIZES = (64, 256, 1024, 2048, 4096, 8192, 16384)
WAYS = ("serial", "parallel", "chosen")


def speed(venv, way: str, seconds: float) -> float:
    """Agent-steps per second of ``step(random_actions())`` run ``way``."""

    def run() -> float:
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            venv.step(venv.random_actions())
            steps += venv.num_envs
        return steps / (time.perf_counter() - start)

    if way == "chosen":
        return run()
    with forced(way):
        return run()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=0.5, help="per measurement")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sizes", nargs="*", type=int, default=list(SIZES))
    parser.add_argument("--only", nargs="*", help="games to measure (default: all)")
    args = parser.parse_args()
    print(
        f"numba {numba.__version__}, {numba.get_num_threads()} threads, threading layer "
        f"{numba.config.THREADING_LAYER}"
    )
    for game, keywords, dtype in CASES:
        if args.only and game not in args.only:
            continue
        words = " ".join(f"{k}={v}" for k, v in keywords.items())
        print(f"\n{game} {words} obs={dtype}: agent-steps/s, best of {args.rounds} rounds")
        print(f"  {'num_envs':>8} " + " ".join(f"{way:>11}" for way in WAYS) + "  threads pay")
        for n in args.sizes:
            venv = feral_envs.vector.make(game, num_envs=n, seed=0, obs_dtype=dtype, **keywords)
            venv.reset()
            for way in WAYS:  # compiled and warm
                speed(venv, way, 0.05)
            best = dict.fromkeys(WAYS, 0.0)
            for _ in range(args.rounds):
                for way in WAYS:
                    best[way] = max(best[way], speed(venv, way, args.seconds))
            ratio = best["parallel"] / best["serial"]
            print(
                f"  {n:>8} "
                + " ".join(f"{best[way]:>11,.0f}" for way in WAYS)
                + f"  {ratio:.2f}x{'  yes' if ratio > 1 else ''}",
                flush=True,
            )


if __name__ == "__main__":
    main()
