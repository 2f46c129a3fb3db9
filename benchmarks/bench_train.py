"""Training throughput: ``python -m train`` against plain MaskablePPO on PettingZoo.

    python benchmarks/bench_train.py [--timesteps 200000] [--baseline-timesteps 16384]
                                     [--games lost_heir ...] [--repeats 2] [--no-matched]
                                     [--rllib-runners 1 2] [--rllib-timesteps 60000]

Measures learner env steps per second of the whole ``learn()`` call (collection, PPO
updates and, on our side, the self-play pool, checkpoints and quick evaluations), all in
this one process, the sides taking turns ``--repeats`` times so that they see the same
machine load; it prints each measurement, then the medians and their ratios. Rates are given
per second of wall time (what the target is about) and per second of this process's CPU time
(``time.process_time``): on a machine shared with other jobs the wall rates of both sides
swing with the load, while the CPU-time rates and their ratio stay much steadier.

* **baseline, plain**: ``MaskablePPO("MlpPolicy")`` with SB3's default hyper-parameters
  (n_steps 2048, batch 64, 10 epochs, 64x64 MLPs) over a ``DummyVecEnv`` of 8
  :class:`HoldemSingleAgent` envs: PettingZoo's ``texas_holdem_v4``, the learner one seat
  (drawn per game), a uniformly random opponent in the other.
* **baseline, matched** (unless ``--no-matched``): the same envs with our PPO settings and
  network (rollout 4096, batch 2048, 4 epochs, symlog trunk 128 + heads 64), to separate
  what the batched env brings from what the PPO settings bring.
* **ours**: the default ``python -m train GAME`` configuration (``train.config``), learning
  ``--timesteps`` decisions: 64 games on the rules core against the self-play pool.
* **RLlib backend** (``--rllib-runners``, by default 1 and 2 where Ray RLlib is installed):
  the default configuration with ``--backend rllib --num-env-runners N``, learning about
  ``--rllib-timesteps`` learner decisions (whole PPO iterations), on a local Ray started
  for each measurement (its start is not timed). Only wall rates: its env runners are other
  processes, so this process's CPU time does not count their work.

* **against a checkout** (``--against DIR``, for each game): the same ``learn()`` call of
  the default configuration, run in a fresh process on the checkout at ``DIR`` (another
  version of this repository, e.g. ``git worktree add /tmp/old <commit>``) and, taking
  turns with it, on this checkout in a fresh process too; the medians give their ratio.

BLAS uses one thread (set below, before numpy loads, and inherited by the processes of
``--against``); the baselines run torch on one thread, ours on its configuration's
``torch_threads`` and ``precision`` (``python -m train``'s own settings; the matched
baseline builds the same network, in the same number format).
"""

from __future__ import annotations

import os

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from pettingzoo.classic import texas_holdem_v4  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402
from stable_baselines3.common.logger import configure  # noqa: E402
from stable_baselines3.common.vec_env import DummyVecEnv  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from train.config import default_config  # noqa: E402
from train.policy import policy_kwargs, use_bf16  # noqa: E402
from train.run import Trainer  # noqa: E402


class HoldemSingleAgent(gym.Env):
    """One seat of PettingZoo's ``texas_holdem_v4`` for SB3, the other seat random.

    The learner's seat is drawn at each reset. After the learner's action the opponent plays
    until it is the learner's turn again or the hand is over; the learner's reward for a
    step is the sum of its own PettingZoo rewards over all those moves (so a hand ended by
    the opponent's fold or call is credited to the learner's last decision).
    """

    def __init__(self, seed: int) -> None:
        self.env = texas_holdem_v4.env()
        self.observation_space = self.env.observation_space("player_0")["observation"]
        self.action_space = self.env.action_space("player_0")
        self.rng = np.random.default_rng(seed)
        self.learner = "player_0"
        self._mask = np.ones(self.action_space.n, dtype=bool)

    def reset(self, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        done = True
        while done:  # a hand the opponent folds before the learner acts is no episode
            self.env.reset(seed=int(self.rng.integers(2**31)))
            self.learner = self.env.possible_agents[int(self.rng.integers(2))]
            _, done = self._opponents_play()
        return self._observe(), {}

    def step(self, action):
        self.env.step(int(action))
        reward = self.env.rewards[self.learner]
        more, done = self._opponents_play()
        obs = self._observe() if not done else np.zeros(self.observation_space.shape, np.float32)
        return obs, reward + more, done, False, {}

    def action_masks(self) -> np.ndarray:
        return self._mask

    def _done(self) -> bool:
        return self.env.terminations[self.learner] or self.env.truncations[self.learner]

    def _opponents_play(self) -> tuple[float, bool]:
        reward = 0.0
        while not self._done() and self.env.agent_selection != self.learner:
            mask = self.env.observe(self.env.agent_selection)["action_mask"]
            self.env.step(int(self.rng.choice(np.flatnonzero(mask))))
            reward += self.env.rewards[self.learner]
        return reward, self._done()

    def _observe(self) -> np.ndarray:
        obs = self.env.observe(self.learner)
        self._mask = obs["action_mask"].astype(bool)
        return obs["observation"]


def timed(learn) -> tuple[int, float, float]:
    """Run ``learn()`` (returning the steps it made): steps, wall seconds, CPU seconds."""
    wall, cpu = time.perf_counter(), time.process_time()
    steps = learn()
    return steps, time.perf_counter() - wall, time.process_time() - cpu


def baseline(timesteps: int, matched: bool, seed: int = 0) -> tuple[int, float, float]:
    """MaskablePPO.learn over 8 PettingZoo Hold'em wrappers: steps, wall s, CPU s."""
    envs = DummyVecEnv([lambda i=i: HoldemSingleAgent(seed + i) for i in range(8)])
    settings = {}
    if matched:
        c = default_config("lost_heir")
        settings = dict(
            n_steps=c.rollout_size // 8,
            batch_size=c.batch_size,
            n_epochs=c.n_epochs,
            policy_kwargs=policy_kwargs(c.trunk, c.heads, use_bf16(c.precision)),
        )
    model = MaskablePPO("MlpPolicy", envs, seed=seed, device="cpu", **settings)
    model.set_logger(configure(None, []))
    return timed(lambda: model.learn(timesteps).num_timesteps)


def ours(game: str, timesteps: int) -> tuple[int, float, float]:
    """The default ``python -m train GAME``'s learn() call (SB3's, with our callbacks:
    snapshots, checkpoints, quick evaluations due during it): steps, wall s, CPU s."""
    config = default_config(game)
    config.timesteps, config.progress, config.arena_games = timesteps, False, 0
    # The imitation warm start runs before learn() and is not timed: skip it (the network
    # and the pool, hence the cost of each decision, are the default run's all the same).
    config.imitation_decisions = 0
    with tempfile.TemporaryDirectory() as tmp:
        trainer = Trainer(config, Path(tmp) / "run")
        trainer.start()
        trainer.learn()
        return (trainer.learned_steps, *trainer.learn_seconds)


CHECKOUT_SIDE = """
import json, sys, tempfile
from pathlib import Path
from train.config import default_config
from train.run import Trainer
game, timesteps = sys.argv[1], int(sys.argv[2])
config = default_config(game)
config.timesteps, config.progress, config.arena_games = timesteps, False, 0
if hasattr(config, "imitation_decisions"):
    config.imitation_decisions = 0
with tempfile.TemporaryDirectory() as tmp:
    trainer = Trainer(config, Path(tmp) / "run")
    trainer.start()
    trainer.learn()
    print("RESULT", json.dumps([trainer.learned_steps, *trainer.learn_seconds]))
"""
"""What :func:`checkout_side` runs in the checkout: :func:`ours` as that checkout has it."""


def checkout_side(game: str, timesteps: int, root: Path) -> tuple[int, float, float]:
    """:func:`ours` in a fresh process on the checkout at ``root`` (its packages first on
    the path): learner decisions, wall s and CPU s of its ``learn()``."""
    import json
    import subprocess

    env = dict(os.environ, PYTHONPATH=str(root))
    done = subprocess.run(
        [sys.executable, "-c", CHECKOUT_SIDE, game, str(timesteps)],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    if done.returncode or not lines:
        raise SystemExit(f"the checkout at {root} failed to train {game}:\n{done.stderr[-2000:]}")
    steps, wall, cpu = json.loads(lines[-1][len("RESULT ") :])
    return int(steps), float(wall), float(cpu)


def rllib_side(game: str, runners: int, timesteps: int) -> tuple[int, float, float]:
    """The RLlib backend's training loop (``RLlibTrainer.learn``) with ``runners`` env
    runners: learner decisions, wall s and NaN (the runners' CPU time is elsewhere)."""
    from train.rllib.backend import RLlibTrainer

    config = default_config(game)
    config.backend, config.num_env_runners = "rllib", runners
    config.imitation_decisions = 0  # as `python -m train GAME --backend rllib`: no warm start
    config.board = ()  # nor a board network (Hidden Ranks' default)
    config.timesteps, config.progress, config.arena_games = timesteps, False, 0
    config.eval_games = 0
    with tempfile.TemporaryDirectory() as tmp:
        trainer = RLlibTrainer(config, Path(tmp) / "run")
        try:
            trainer.start()
            trainer.learn()
        finally:
            trainer.close()
        return trainer.learned_steps, trainer.learn_seconds[0], float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timesteps", type=int, default=200_000, help="ours, per game")
    parser.add_argument(
        "--baseline-timesteps",
        type=int,
        default=16_384,
        help="baseline (one full rollout of the plain settings: 8 x 2048)",
    )
    parser.add_argument("--games", nargs="+", default=["lost_heir"])
    parser.add_argument("--repeats", type=int, default=2, help="turns of each side")
    parser.add_argument("--no-matched", action="store_true", help="skip the matched baseline")
    try:
        import ray.rllib  # noqa: F401

        runners = [1, 2]
    except ImportError:
        runners = []
    parser.add_argument(
        "--rllib-runners",
        type=int,
        nargs="*",
        default=runners,
        help="env runner counts of the RLlib backend to measure (none: skip it)",
    )
    parser.add_argument("--rllib-timesteps", type=int, default=60_000, help="RLlib, per run")
    parser.add_argument(
        "--against",
        type=Path,
        default=None,
        help="a checkout of another version: its default learn() and this one's, in fresh "
        "processes taking turns",
    )
    args = parser.parse_args()
    if args.against is not None and not (args.against / "train" / "run.py").is_file():
        parser.error(f"--against {args.against}: no checkout of this repository there")
    torch.set_num_threads(1)
    sides = {"plain": lambda: baseline(args.baseline_timesteps, matched=False)}
    if not args.no_matched:
        sides["matched"] = lambda: baseline(args.baseline_timesteps, matched=True)
    for game in args.games:
        sides[game] = lambda game=game: ours(game, args.timesteps)
    labels = {}
    for game in args.games:
        for n in args.rllib_runners:
            name = f"{game}-rllib-{n}"
            sides[name] = lambda game=game, n=n: rllib_side(game, n, args.rllib_timesteps)
            labels[name] = f"python -m train {game} --backend rllib --num-env-runners {n}"
    if args.against is not None:
        here = Path(__file__).resolve().parents[1]
        for game in args.games:
            for name, root in ((f"{game}@this", here), (f"{game}@against", args.against)):
                sides[name] = lambda game=game, root=root: checkout_side(game, args.timesteps, root)
                labels[name] = f"python -m train {game}, checkout {root}"
    labels |= {
        "plain": "plain MaskablePPO (SB3 defaults), 8 x texas_holdem_v4",
        "matched": "our PPO settings and network, 8 x texas_holdem_v4",
    }
    rates: dict[str, list[tuple[float, float]]] = {name: [] for name in sides}
    print(f"cores: {os.cpu_count()}, load average {os.getloadavg()[0]:.2f}")
    for turn in range(args.repeats):
        for name, run in sides.items():
            steps, wall, cpu = run()
            rates[name].append((steps / wall, steps / cpu))
            print(
                f"turn {turn + 1} {labels.get(name, f'python -m train {name}'):56s} "
                f"{steps / wall:7.0f}/s wall {steps / cpu:7.0f}/s cpu  "
                f"(load {os.getloadavg()[0]:.2f})",
                flush=True,
            )
    med = {name: np.median(np.array(r), axis=0) for name, r in rates.items()}
    print(
        "\nmedians                                          wall/s    cpu/s   x plain (wall, cpu)"
    )
    for name, (wall, cpu) in med.items():
        print(
            f"{labels.get(name, f'python -m train {name} (default config)'):56s} {wall:7.0f}"
            f"  {cpu:7.0f}   {wall / med['plain'][0]:5.1f}  {cpu / med['plain'][1]:5.1f}"
        )
    if args.against is not None:
        for game in args.games:
            this, other = med[f"{game}@this"], med[f"{game}@against"]
            print(
                f"{game}: this checkout / {args.against}: {this[0] / other[0]:.2f}x wall, "
                f"{this[1] / other[1]:.2f}x cpu (learner decisions per second, medians)"
            )


if __name__ == "__main__":
    main()
