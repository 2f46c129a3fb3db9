"""Outcome-sampling MCCFR (OpenSpiel's) on a single hand of Lost Heir.

    python examples/openspiel_mccfr.py --iterations 2000 --games 200

The game is ``python_lost_heir(single_hand=True, reward=points)``: one hand, the returns
its score margin (``docs/openspiel.md``). The solver (``open_spiel.python.algorithms.
outcome_sampling_mccfr``) samples one trajectory per iteration and updates the regrets of
the information states on it, keyed by their information-state strings. The average policy
is then played for one team against uniform random play for the other, on both sides of the
table in turn, and the script prints the mean hand margin of the MCCFR team. A full hand has
far too many information states for a few thousand iterations to visit more than a sliver of
them (an unvisited one plays uniformly), so expect a margin near random play's: the example
shows the plumbing, not a strong policy.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import outcome_sampling_mccfr

import feral_envs.openspiel  # noqa: F401  (registers python_lost_heir)


def play(game, policy, mccfr_team: int, rng: np.random.Generator) -> float:
    """One hand: the seats of ``mccfr_team`` play ``policy``, the others uniformly; the
    MCCFR team's return."""
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
            continue
        player = state.current_player()
        if player % 2 == mccfr_team:
            chosen = policy.action_probabilities(state, player)
            actions, probs = zip(*chosen.items(), strict=True)
            probs = np.array(probs) / np.sum(probs)
            state.apply_action(int(rng.choice(actions, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state.returns()[mccfr_team]


def run(iterations: int, games: int, seed: int = 0) -> dict:
    """Train for ``iterations``, then play ``games`` hands (half on each side); the figures."""
    np.random.seed(seed)  # noqa: NPY002  (the solver samples with numpy's global generator)
    game = pyspiel.load_game("python_lost_heir", {"single_hand": True, "reward": "points"})
    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
    started = time.perf_counter()
    for _ in range(iterations):
        solver.iteration()
    seconds = time.perf_counter() - started
    policy = solver.average_policy()
    rng = np.random.default_rng(seed)
    margins = [play(game, policy, g % 2, rng) for g in range(games)]
    return {
        "iterations": iterations,
        "seconds": seconds,
        "infostates": len(solver._infostates),
        "games": games,
        "mean_margin": float(np.mean(margins)) if margins else float("nan"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=2000)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    out = run(args.iterations, args.games, args.seed)
    print(
        f"{out['iterations']} iterations in {out['seconds']:.1f} s, "
        f"{out['infostates']} information states visited; "
        f"MCCFR team's mean hand margin against random: {out['mean_margin']:+.2f} "
        f"over {out['games']} hands"
    )


if __name__ == "__main__":
    main()
