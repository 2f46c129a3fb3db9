"""Speed of the batched engine (``feral_envs.vector``) against OpenSpiel, in one run.

For each game (Hidden Ranks in quick and full mode, with float32 and with compact int8
observations) it measures agent-steps per second of
``venv.step(venv.random_actions())``, observations and masks returned at every step, at
several ``num_envs``, on one thread and on all cores, and the memory each game takes (state
row, observation, mask). In the same run it measures OpenSpiel's C++ games through pyspiel
with random playouts, an observation buffer filled for the player to act at every decision
(``make_observation(...).set_from``, no allocation): bridge card play after a fixed auction
(1NT and three passes; the auction's four calls and the 52 card plays count as steps, the
deal's chance nodes do not), hearts (its information-state tensor: hearts has no
observation tensor) and chess. It prints each of our figures as a ratio to the faster of
bridge and hearts (card games) or to chess (Hidden Ranks), each anchor measured at the start
and again after each case, the ratio taken to its best figure so far (a load change during
the run cannot flatter our figures). Then, at each case's best threads and num_envs, a few
paired rounds (``--rounds``): ours, then the anchors, back to back, the ratio taken within
each round, and their median printed: on a shared host whose speed drifts over minutes, the
paired ratio compares like with like. Last, the engine's cold compile
(empty numba cache) and warm start times, each measured in a fresh interpreter.

    python benchmarks/bench_vector.py [--seconds 2] [--only lost_heir ...] [--sizes 1 1024]
        [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's packages

import numba  # noqa: E402

import feral_envs.vector  # noqa: E402

SIZES = (1, 64, 1024, 4096, 16384)
CASES = (
    ("lost_heir", {}, "float32"),
    ("lost_ranks", {}, "float32"),
    ("hidden_ranks", {"mode": "quick", "setup": "random"}, "float32"),
    ("hidden_ranks", {"mode": "full", "setup": "random"}, "float32"),
    ("hidden_ranks", {"mode": "quick", "setup": "random"}, "int8"),
    ("hidden_ranks", {"mode": "full", "setup": "random"}, "int8"),
)
"""The measured cases: game, keywords, observation dtype (Hidden Ranks also in its compact
int8 observation, ``docs/vector.md``)."""


def label(game: str, keywords: dict, dtype: str) -> str:
    words = " ".join(f"{k}={v}" for k, v in keywords.items())
    return f"{game} {words} obs={dtype}".replace("  ", " ")


def vector_speed(game: str, keywords: dict, dtype: str, num_envs: int, seconds: float) -> float:
    """Agent-steps per second of random play through ``step(random_actions())``."""
    venv = feral_envs.vector.make(game, num_envs=num_envs, seed=0, obs_dtype=dtype, **keywords)
    venv.reset()
    for _ in range(3):  # compiled and warm
        venv.step(venv.random_actions())
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        venv.step(venv.random_actions())
        steps += num_envs
    return steps / (time.perf_counter() - start)


def memory_per_game(game: str, keywords: dict, dtype: str) -> int:
    venv = feral_envs.vector.make(game, num_envs=1, obs_dtype=dtype, **keywords)
    obs = int(np.prod(venv.obs_shape)) * venv.obs_dtype.itemsize
    return venv.rows.itemsize * venv.rows.shape[1] + obs + venv.n_actions


# --------------------------------------------------------------------------------- OpenSpiel

BRIDGE_AUCTION = ("1NT", "Pass", "Pass", "Pass")


def openspiel_speed(name: str, seconds: float, seed: int = 0) -> float:
    """Agent-steps per second of random playouts of an OpenSpiel game through pyspiel, with an
    observation buffer filled for the player to act at every decision."""
    import pyspiel
    from open_spiel.python.observation import make_observation

    rng = np.random.default_rng(seed)
    if name == "bridge":
        game = pyspiel.load_game("bridge", {"use_double_dummy_result": False})
        observation = make_observation(game)
    elif name == "hearts":
        game = pyspiel.load_game("hearts")
        observation = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    else:
        game = pyspiel.load_game(name)
        observation = make_observation(game)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        calls = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
                continue
            player = state.current_player()
            observation.set_from(state, player)
            if name == "bridge" and calls < len(BRIDGE_AUCTION):
                action = state.string_to_action(BRIDGE_AUCTION[calls])
                calls += 1
            else:
                legal = state.legal_actions()
                action = legal[int(rng.integers(len(legal)))]
            state.apply_action(action)
            steps += 1
    return steps / (time.perf_counter() - start)


ANCHORS = ("bridge", "hearts", "chess")


def measure_anchor(anchors: dict, name: str, seconds: float, indent: str = "") -> None:
    """Measure OpenSpiel ``name`` once more, print it, and keep it in ``anchors[name]``."""
    speed = openspiel_speed(name, seconds)
    anchors.setdefault(name, []).append(speed)
    print(f"{indent}OpenSpiel {name:<8} {speed:>12,.0f} agent-steps/s (pyspiel, observations)")


# ------------------------------------------------------------------------------- start-up


_START = (
    "import time; t = time.perf_counter(); import feral_envs.vector as v\n"
    "for g, kw in (('lost_heir', {}), ('lost_ranks', {}), ('hidden_ranks', {'mode': 'quick'})):\n"
    "    e = v.make(g, num_envs=4, **kw); e.reset(); e.step(e.random_actions())\n"
    "print(time.perf_counter() - t)\n"
)


def start_times() -> tuple[float, float]:
    """(cold, warm) seconds to import the engine and play one batched step of every game in
    a fresh interpreter: with an empty numba cache (everything compiled), then with the cache
    that the first run filled."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(ROOT)}
        runs = [
            float(
                subprocess.run(
                    [sys.executable, "-c", _START],
                    env=env,
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout.split()[-1]
            )
            for _ in range(2)
        ]
    return runs[0], runs[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="per measurement")
    parser.add_argument("--only", nargs="*", help="games to measure (default: all)")
    parser.add_argument("--sizes", nargs="*", type=int, default=list(SIZES), help="num_envs")
    parser.add_argument("--no-start", action="store_true", help="skip the start-up times")
    parser.add_argument(
        "--rounds", type=int, default=3, help="paired rounds at the best setting (0: none)"
    )
    args = parser.parse_args()

    cores = numba.config.NUMBA_NUM_THREADS
    print(
        f"python {platform.python_version()}, numpy {np.__version__}, numba "
        f"{numba.__version__}, {platform.machine()}, {cores} threads"
    )
    anchors: dict[str, list[float]] = {}
    try:
        for name in ANCHORS:
            measure_anchor(anchors, name, args.seconds)
    except ImportError:
        print("open_spiel is not installed (pip install open_spiel): no anchors")
        anchors = {}

    for game, keywords, dtype in CASES:
        if args.only and game not in args.only:
            continue
        name = label(game, keywords, dtype)
        print(
            f"\n{name}: {memory_per_game(game, keywords, dtype):,} bytes per game "
            "(state row + observation + mask)"
        )
        best, best_at = 0.0, (cores, args.sizes[0])
        for threads in sorted({1, cores}):
            numba.set_num_threads(threads)
            for n in args.sizes:
                speed = vector_speed(game, keywords, dtype, n, args.seconds)
                if speed > best:
                    best, best_at = speed, (threads, n)
                print(f"  threads={threads} num_envs={n:<6} {speed:>14,.0f} agent-steps/s")
        numba.set_num_threads(cores)
        if not anchors:
            continue
        # The anchors again right after this case: the ratio is to the best figure of each
        # anchor so far, so a load change during the run cannot flatter our figures.
        against = ("chess",) if game == "hidden_ranks" else ("bridge", "hearts")
        for anchor_name in against:
            measure_anchor(anchors, anchor_name, args.seconds, indent="  ")
        anchor = max(max(anchors[a]) for a in against)
        what = (
            "OpenSpiel chess"
            if game == "hidden_ranks"
            else "the faster of OpenSpiel bridge and hearts"
        )
        print(f"  best {best:,.0f}: {best / anchor:.1f}x {what} (its best, {anchor:,.0f})")
        if args.rounds > 0:
            paired_rounds(game, keywords, dtype, best_at, against, what, args)

    if not args.no_start:
        cold, warm = start_times()
        print(
            f"\nstart-up, import + one batched step of each game in a fresh interpreter: "
            f"cold (empty numba cache, all compiled) {cold:.1f} s, warm (cached) {warm:.2f} s"
        )


def paired_rounds(game, keywords, dtype, best_at, against, what, args) -> None:
    """``args.rounds`` rounds at ``best_at`` (threads, num_envs): ours, then each anchor,
    back to back; each round's ratio is ours over the faster anchor of that round. Prints
    every round and the median."""
    threads, n = best_at
    ratios = []
    for r in range(args.rounds):
        numba.set_num_threads(threads)
        ours = vector_speed(game, keywords, dtype, n, args.seconds)
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        theirs = max(openspiel_speed(a, args.seconds, seed=r) for a in against)
        ratios.append(ours / theirs)
        print(
            f"  paired round {r + 1} (threads={threads} num_envs={n}): {ours:,.0f} / "
            f"{theirs:,.0f} = {ratios[-1]:.1f}x"
        )
    print(f"  paired median of {args.rounds}: {float(np.median(ratios)):.1f}x {what}")


if __name__ == "__main__":
    main()
