"""Random-play speed of the Feral Envs games against PettingZoo anchors, in one run.

Measures agent-steps per second of full games (resets included, the observation and mask
built at every step) with the env used as users use it: ``env.agent_iter()``, ``env.last()``,
``env.step()``. Every env gets the same random-legal-action loop, so the figures compare the
envs and not the loop. The loop lists the legal actions with ``mask.nonzero()[0]`` (``--pick
nonzero``, the default). ``--pick flatnonzero`` uses ``np.flatnonzero(mask)``, the same list
through a Python wrapper that costs about 1.5 us a step: about a third of our whole step,
loop included, so it lowers our ratios (an anchor's step takes 50-100 us, so its rate hardly
moves).

The anchors are PettingZoo's classic texas_holdem_v4 and leduc_holdem_v4 (card games) and
chess_v6 and connect_four_v3 (board games); each game's ratio is printed against the faster
anchor of its kind (issue 16's target for the AEC card envs: at least 20x the faster
PettingZoo card env).

    python benchmarks/bench_envs.py [--seconds 5] [--only lost_heir ...] [--clock cpu]
        [--pick flatnonzero]
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages
import feral_envs

CARD_ANCHORS = ("texas_holdem_v4", "leduc_holdem_v4")
BOARD_ANCHORS = ("chess_v6", "connect_four_v3")


PICKS = {
    "nonzero": lambda mask: mask.nonzero()[0],
    "flatnonzero": np.flatnonzero,
}


def steps_per_second(
    make_env: Callable,
    seconds: float,
    seed: int = 0,
    clock: Callable = time.perf_counter,
    pick: str = "nonzero",
) -> tuple[float, int]:
    """Agent-steps per second of random legal play over whole games, and games finished,
    timed by ``clock``; ``pick`` names how the loop lists the legal actions (``PICKS``)."""
    legal_of = PICKS[pick]
    env = make_env()
    rng = np.random.default_rng(seed)
    steps = games = 0
    start = clock()
    while clock() - start < seconds:
        env.reset(seed=int(rng.integers(2**31)))
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                action = None
            else:
                legal = legal_of(obs["action_mask"])
                action = int(legal[rng.integers(len(legal))])
            env.step(action)
            steps += 1
        games += 1
    return steps / (clock() - start), games


def anchor(name: str) -> Callable:
    from pettingzoo import classic

    module = getattr(classic, name)
    return module.env


def our_envs(only: list[str] | None) -> list[tuple[str, str, Callable]]:
    """(label, kind, constructor) for each of our games and modes."""
    envs = []
    for game in feral_envs.GAMES:
        if only and game not in only:
            continue
        try:
            module = feral_envs.env_module(game)
        except ModuleNotFoundError:
            continue
        if game == "hidden_ranks":
            for mode in ("full", "quick"):
                envs.append(
                    (
                        f"{game}_v0 mode={mode} setup=random",
                        "board",
                        lambda m=module, mode=mode: m.env(mode=mode, setup="random"),
                    )
                )
                envs.append(
                    (
                        f"{game}_v0 mode={mode} setup=choose",
                        "board",
                        lambda m=module, mode=mode: m.env(mode=mode),
                    )
                )
        else:
            envs.append((f"{game}_v0", "card", module.env))
            envs.append((f"{game}_v0 (raw_env)", "card", module.raw_env))
    return envs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per env per round")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (median)")
    parser.add_argument("--only", nargs="*", choices=feral_envs.GAMES, help="games to measure")
    parser.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="time by the wall clock (default) or by this process's CPU time "
        "(time.process_time: steadier on a machine that other work loads)",
    )
    parser.add_argument(
        "--pick",
        choices=tuple(PICKS),
        default="nonzero",
        help="how the loop lists the legal actions: mask.nonzero()[0] (default) or "
        "np.flatnonzero(mask), the same list through a slower Python wrapper",
    )
    args = parser.parse_args()
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    warnings.filterwarnings("ignore")

    print(f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}")
    print(
        f"median of {args.rounds} interleaved rounds of {args.seconds:g} s per env "
        f"({args.clock} clock, legal actions by {args.pick})"
    )
    envs = [(f"PettingZoo {n}", "anchor", anchor(n)) for n in CARD_ANCHORS + BOARD_ANCHORS]
    envs += our_envs(args.only)
    # Interleaved rounds: a load change on the machine hits anchors and ours alike.
    rates: dict[str, list[float]] = {label: [] for label, _, _ in envs}
    games: dict[str, int] = dict.fromkeys(rates, 0)
    for round_ in range(args.rounds):
        for label, _, make_env in envs:
            rate, n = steps_per_second(
                make_env, args.seconds, seed=round_, clock=clock, pick=args.pick
            )
            rates[label].append(rate)
            games[label] += n
    median = {label: float(np.median(r)) for label, r in rates.items()}
    card_best = max(CARD_ANCHORS, key=lambda n: median[f"PettingZoo {n}"])
    for label, kind, _ in envs:
        rate = median[label]
        line = f"{label:<44} {rate:>10,.0f} agent-steps/s  ({games[label]} games)"
        if kind == "card":
            line += f"  {rate / median[f'PettingZoo {card_best}']:.1f}x {card_best}"
        elif kind == "board":
            line += (
                f"  {rate / median['PettingZoo chess_v6']:.1f}x chess_v6, "
                f"{rate / median['PettingZoo connect_four_v3']:.2f}x connect_four_v3"
            )
        print(line)


if __name__ == "__main__":
    main()
