"""Duplicate rounds of Lost Ranks: a finer yardstick than whole games for comparing two bots.

The first round of each of ``--deals`` deals is played twice, spec A in the red seats and B
in the black, then the other way round; a round's margin is A's army's points minus B's.
It prints A's mean margin per round with a 95 % interval (normal, over the deals), and with
``--out`` writes each deal's two margins as JSON lines, so that two runs over the same deals
can be compared deal by deal (the same ``--first`` and ``--deals`` give the same deals).
A game to 18 points is a few rounds, mostly decided by its deals; the round margin of the
same deals measures a change to a bot with far fewer games than the arena's Elo needs.

    python benchmarks/duel_rounds_lost_ranks.py pimc:worlds=32 heuristic --deals 150 \\
        [--first 0] [--variant standard] [--out margins.jsonl]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's packages

import feral_envs  # noqa: E402
from agents.registry import load_policy  # noqa: E402
from feral_envs.lost_ranks.engine import STATE  # noqa: E402

EPOCH = STATE.epoch.start

SEED_BASE = 1000
"""Deal ``d`` is the first round of the game the env starts with seed ``SEED_BASE + d``."""


def play_round(env, policies, seed: int) -> int:
    """Red's points minus black's in the first round of the game of ``seed``."""
    env.reset(seed=seed)
    for seat, policy in enumerate(policies):
        policy.reset(seed * 4 + seat)
    start = dict(env.scores)
    epoch = env.game.row[EPOCH]  # +1 when the next round starts (a round may end 0-0)
    while env.game.row[EPOCH] == epoch:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            break
        seen = env.observe(agent)
        seat = env.possible_agents.index(agent)
        env.step(int(policies[seat].act(seen["observation"], seen["action_mask"])))
    red, black = (now - then for now, then in zip(env.scores.values(), start.values(), strict=True))
    return red - black


def main(argv: list[str] | None = None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", help="the spec whose margin is printed")
    parser.add_argument("b", help="the spec it plays against")
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--variant", default="standard")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    if args.deals < 1 or args.first < 0:
        parser.error(f"--deals must be >= 1 and --first >= 0, got {args.deals} and {args.first}")
    keywords = {"variant": args.variant}
    try:
        env = feral_envs.make("lost_ranks", **keywords).unwrapped
        a = [load_policy(args.a, "lost_ranks", seat, keywords) for seat in range(2)]
        b = [load_policy(args.b, "lost_ranks", seat, keywords) for seat in range(2)]
    except ValueError as error:  # a bad variant or spec: the message names what is allowed
        parser.error(str(error))
    margins = []
    started = time.perf_counter()
    with args.out.open("w") if args.out else open(os.devnull, "w") as out:
        for deal in range(args.first, args.first + args.deals):
            seed = SEED_BASE + deal
            red = play_round(env, [a[0], b[0], a[1], b[1]], seed)
            black = -play_round(env, [b[0], a[0], b[1], a[1]], seed)
            margins.append((red + black) / 2)
            out.write(json.dumps([deal, red, black]) + "\n")
            out.flush()
    m = np.asarray(margins)
    half = 1.96 * m.std(ddof=1) / np.sqrt(len(m)) if len(m) > 1 else float("nan")
    print(
        f"{args.a} against {args.b}: {len(m)} deals, {m.mean():+.3f} ± {half:.3f} points a "
        f"round ({time.perf_counter() - started:.0f} s)"
    )
    return float(m.mean())


if __name__ == "__main__":
    main()
