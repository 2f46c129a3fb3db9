"""Random-play speed of the Feral Envs games against PettingZoo anchors, in one run.

Measures agent-steps per second of full games (resets included, the observation and mask
built at every step) with the env used as users use it: ``env.agent_iter()``, ``env.last()``,
``env.step()``. Every env gets the same random-legal-action loop, so the figures compare the
envs and not the loop. The anchors are PettingZoo's classic texas_holdem_v4 and
leduc_holdem_v4 (card games) and chess_v6 and connect_four_v3 (board games); each game's
ratio is printed against the faster anchor of its kind (the issue's targets: card games at
least 10x the faster PettingZoo card env; Hidden Ranks at least 10x chess_v6 and at least
connect_four_v3).

    python benchmarks/bench_envs.py [--seconds 5] [--only lost_heir ...]
"""

from __future__ import annotations

import argparse
import platform
import time
import warnings
from collections.abc import Callable

import numpy as np

import feral_envs

CARD_ANCHORS = ("texas_holdem_v4", "leduc_holdem_v4")
BOARD_ANCHORS = ("chess_v6", "connect_four_v3")


def steps_per_second(make_env: Callable, seconds: float, seed: int = 0) -> tuple[float, int]:
    """Agent-steps per second of random legal play over whole games, and games finished."""
    env = make_env()
    rng = np.random.default_rng(seed)
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=int(rng.integers(2**31)))
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(len(legal))])
            env.step(action)
            steps += 1
        games += 1
    return steps / (time.perf_counter() - start), games


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
    parser.add_argument("--seconds", type=float, default=5.0, help="time per env (default 5)")
    parser.add_argument("--only", nargs="*", choices=feral_envs.GAMES, help="games to measure")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")

    print(f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}")
    rows: dict[str, float] = {}
    for name in CARD_ANCHORS + BOARD_ANCHORS:
        rate, games = steps_per_second(anchor(name), args.seconds)
        rows[name] = rate
        print(f"{'PettingZoo ' + name:<44} {rate:>10,.0f} agent-steps/s  ({games} games)")
    best = {"card": max(rows[n] for n in CARD_ANCHORS), "board": rows["chess_v6"]}
    best_name = {"card": max(CARD_ANCHORS, key=rows.get), "board": "chess_v6"}
    for label, kind, make_env in our_envs(args.only):
        rate, games = steps_per_second(make_env, args.seconds)
        ratio = rate / best[kind]
        extra = ""
        if kind == "board":
            extra = f", {rate / rows['connect_four_v3']:.2f}x connect_four_v3"
        print(
            f"{label:<44} {rate:>10,.0f} agent-steps/s  ({games} games)  "
            f"{ratio:.1f}x {best_name[kind]}{extra}"
        )


if __name__ == "__main__":
    main()
