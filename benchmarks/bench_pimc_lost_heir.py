"""Time per decision of Lost Heir's ``pimc`` bot, by kind of decision.

Plays whole games of the bot (north and south) against the heuristic (east and west) and
prints the bot's mean wall and CPU time per decision (CPU time: the process's, what a
decision costs on a core of its own; on a shared machine the wall time is longer), overall
and by kind (the calls, then the card play by cards still held), and the load.

    python benchmarks/bench_pimc_lost_heir.py [--spec pimc:worlds=8] [--games 2] [--seed 0]
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages
import feral_envs
from agents.registry import load_policy
from feral_envs.lost_heir.encoding import OBS
from feral_envs.lost_heir.rules import Phase


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spec", default="pimc:worlds=8")
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    wall, cpu = collections.defaultdict(list), collections.defaultdict(list)
    env = feral_envs.make("lost_heir")
    for game in range(args.games):
        env.reset(seed=args.seed + game)
        policies = {
            agent: load_policy(args.spec if i % 2 == 0 else "heuristic", "lost_heir", i)
            for i, agent in enumerate(env.possible_agents)
        }
        for i, policy in enumerate(policies.values()):
            policy.reset(1000 * game + i)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            observation = obs["observation"]
            start, start_cpu = time.perf_counter(), time.process_time()
            action = policies[agent].act(observation, obs["action_mask"])
            if agent in ("north", "south"):
                phase = int(np.flatnonzero(observation[OBS.phase.slice])[0])
                held = int(observation[OBS.hand.slice].sum())
                kind = "calls" if phase != Phase.PLAY else f"play, {held} held"
                wall[kind].append(time.perf_counter() - start)
                cpu[kind].append(time.process_time() - start_cpu)
            env.step(action)
    every_wall = [t for v in wall.values() for t in v]
    every_cpu = [t for v in cpu.values() for t in v]
    print(
        f"{args.spec} vs heuristic, {args.games} games; load {os.getloadavg()[0]:.2f} "
        f"on {os.cpu_count()} cores"
    )
    print(f"{'decisions':<16} {'n':>5} {'wall s':>8} {'cpu s':>8}")
    print(f"{'all':<16} {len(every_wall):5d} {np.mean(every_wall):8.3f} {np.mean(every_cpu):8.3f}")
    for kind in sorted(wall, key=lambda k: (k != "calls", -len(k), k)):
        print(
            f"{kind:<16} {len(wall[kind]):5d} {np.mean(wall[kind]):8.3f} {np.mean(cpu[kind]):8.3f}"
        )


if __name__ == "__main__":
    main()
