"""One training run: env, pool and model; logs, snapshots, checkpoints, resume, final arena.

A run directory holds::

    config.json        the resolved TrainConfig (what --resume reads back)
    versions.json      python, package versions and git commit of the run
    tb/                TensorBoard logs (charts/, losses/, eval/ keys; see docs/training.md)
    metrics.jsonl      the same values, one JSON line per PPO iteration (appended on resume)
    pool/              snapshot_<step>.zip: the self-play snapshots (policy files, ppo:PATH)
    checkpoint/        model.zip (SB3 save + feral.json) and trainer.pkl (everything else
                       needed to continue exactly: games in progress, rng states, pool;
                       the pool's snapshots by name, so resuming needs pool/)
    model.zip          the final policy (a policy file: ppo:RUN_DIR loads it)
    imitation.zip      with --imitation-decisions: the clone PPO started from (a policy file)
    leaderboard.md     the final arena (also leaderboard.json)

**Checkpoints and exact resume.** At the start of every rollout (after the previous PPO
update, when nothing is half done) the trainer keeps an in-memory copy of the whole state:
network and optimizer, step counter, every game in progress with its rng, the pool, and
the global numpy/torch/python rngs. Every ``checkpoint_every`` learner decisions that copy
is written (atomically: a new directory renamed into place), and on Ctrl-C the last copy
is written, so an interruption loses at most one rollout (``n_steps * n_envs`` decisions,
fewer than ``checkpoint_every``). ``--resume RUN_DIR`` restores it all and continues as if
never stopped: the resumed run makes the same updates as an uninterrupted one.
"""

from __future__ import annotations

import copy
import json
import math
import pickle
import platform
import random
import shutil
import subprocess
import sys
import time
from collections import Counter
from importlib import metadata
from pathlib import Path
from typing import Any

import numba
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import KVWriter, Logger, TensorBoardOutputFormat

import feral_envs
from agents.advice import advised_core
from agents.networks.actor import Actor, CheckpointError
from agents.networks.policy_file import (
    ACTOR_PREFIXES,
    actor_from_policy,
    policy_meta,
    read_policy_file,
    write_policy_file,
)
from feral_envs import game_core
from feral_envs.core import GameCore
from train.advice import Par
from train.config import SCALED, TrainConfig
from train.evaluate import MatchResult, play_match
from train.policy import add_meta, network, read_start_weights, use_bf16
from train.pool import Opponent, OpponentPool, PolicyOpponent, RandomOpponent, snapshot_name
from train.vec_env import SelfPlayVecEnv

STATE_FORMAT = 3
"""``trainer.pkl``'s format: 2 since the heuristic opponents play on lanes (``train/pool.py``),
3 since it names the pool's snapshots instead of holding their weights (``pool/`` does)."""
READABLE_FORMATS = (2, 3)
"""Formats :meth:`Trainer.restore` continues from."""
CLONE_FILE = "imitation.zip"
"""The imitation clone's policy file in the run directory (``--imitation-decisions``)."""
GREEDY = "greedy"
"""The final arena's name for the final policy played greedily (its most likely legal action
every time: ``ppo_argmax:``, ``rllib_argmax:`` for an RLlib run), beside ``final``, the policy
sampling its actions as it trained."""

KEY_MAP = {
    "rollout/ep_rew_mean": "charts/episodic_return",
    "rollout/ep_len_mean": "charts/episodic_length",
    "time/fps": "charts/SPS",
    "train/learning_rate": "charts/learning_rate",
    "train/policy_gradient_loss": "losses/policy_loss",
    "train/clip_fraction": "losses/clipfrac",
}
"""SB3 logger keys renamed CleanRL style; other ``rollout/`` and ``time/`` keys go under
``charts/``, other ``train/`` keys under ``losses/`` with their SB3 names (so SB3's
``entropy_loss``, minus the mean entropy, keeps its name and sign)."""


def remap_key(key: str) -> str:
    if key in KEY_MAP:
        return KEY_MAP[key]
    group, _, name = key.partition("/")
    return {"rollout": "charts/", "time": "charts/", "train": "losses/"}.get(
        group, group + "/"
    ) + name


class RemappedLogger(Logger):
    """SB3's logger with :func:`remap_key` applied to every key."""

    def record(self, key: str, value: Any, exclude: Any = None) -> None:
        super().record(remap_key(key), value, exclude)

    def record_mean(self, key: str, value: Any, exclude: Any = None) -> None:
        super().record_mean(remap_key(key), value, exclude)


class JsonLinesFormat(KVWriter):
    """One JSON object per dump, appended (a resumed run continues the same file)."""

    def __init__(self, path: Path) -> None:
        self.file = open(path, "a")

    def write(self, key_values: dict, key_excluded: dict, step: int = 0) -> None:
        row = {"step": step}
        for key, value in key_values.items():
            if "json" in (key_excluded.get(key) or ()):
                continue
            if isinstance(value, (int, float, np.integer, np.floating)):
                row[key] = value.item() if hasattr(value, "item") else value
        self.file.write(json.dumps(row) + "\n")
        self.file.flush()

    def close(self) -> None:
        self.file.close()


def run_logger(run_dir: Path) -> RemappedLogger:
    """A run's logger, either backend: TensorBoard under ``tb/`` and ``metrics.jsonl``, the
    keys renamed by :func:`remap_key` (keys already in their final form pass unchanged)."""
    return RemappedLogger(
        str(run_dir),
        [TensorBoardOutputFormat(str(run_dir / "tb")), JsonLinesFormat(run_dir / "metrics.jsonl")],
    )


class RunLine:
    """A value on a line over the run, as SB3's schedules are called (with the progress
    remaining after the rollout just collected): ``start`` at the run's first decision,
    ``end`` at ``timesteps``, taken where the rollout began, so the first update trains with
    ``start`` and every update with a step short of ``end`` (as CleanRL anneals its step
    size). ``rollout`` is the rollout's share of the run (``rollout_size / timesteps``)."""

    def __init__(self, start: float, end: float, rollout: float) -> None:
        self.start, self.end, self.rollout = start, end, rollout

    def __call__(self, progress_remaining: float) -> float:
        return run_line(self.start, self.end, 1.0 - progress_remaining - self.rollout)


def run_line(start: float, end: float, done: float) -> float:
    """The value ``done`` of the way (clipped to 0..1) from ``start`` to ``end``."""
    return start + (end - start) * min(1.0, max(0.0, done))


def learning_rate_schedule(config: TrainConfig) -> float | RunLine:
    """SB3's ``learning_rate``: ``--learning-rate``, or the line from it to
    ``--learning-rate-end`` over the run (:class:`RunLine`)."""
    if config.learning_rate_end < 0:
        return config.learning_rate
    return RunLine(
        config.learning_rate, config.learning_rate_end, config.rollout_size / config.timesteps
    )


def rating_text(elo: float, low: float, high: float) -> str:
    """``+176 [+152, +202]``; an open end as the arena shows it: ``+1161 [+807, inf)``; no
    interval where the bootstrap gave none (a tiny arena): ``+176 [n/a]``, the arena's n/a."""
    if math.isnan(low) or math.isnan(high):
        return f"{elo:+.0f} [n/a]"
    left = "(-inf" if math.isinf(low) else f"[{low:+.0f}"
    right = "inf)" if math.isinf(high) else f"{high:+.0f}]"
    return f"{elo:+.0f} {left}, {right}"


def heuristic_opponent(game: str, keywords: dict[str, Any]) -> Opponent | None:
    """The ``agents`` heuristic bot of ``game`` as a pool member, or None where there is none
    (no ``agents`` package, or no heuristic for this game yet)."""
    try:
        return bot_opponent("heuristic", game, keywords)
    except (ImportError, ValueError):
        return None


def bot_opponent(spec: str, game: str, keywords: dict[str, Any]) -> Opponent:
    """The ``agents`` bot ``spec`` of ``game`` as a pool member (``ValueError`` with the
    registry's message for a spec that does not load; ``ImportError`` without ``agents``)."""
    from agents.registry import load_policy

    load_policy(spec, game, 0, keywords)
    return PolicyOpponent(spec, lambda seed: load_policy(spec, game, seed, keywords))


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo``; ``platform.processor()`` elsewhere)."""
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def package_versions() -> dict[str, str]:
    versions = {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpu": cpu_model(),
    }
    for name in (
        "feral-envs",
        "numpy",
        "torch",
        "stable-baselines3",
        "sb3-contrib",
        "gymnasium",
        "pettingzoo",
    ):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    try:
        versions["git_commit"] = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            cwd=Path(__file__).parent,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        versions["git_commit"] = "unknown"
    return versions


def default_run_dir(config: TrainConfig) -> Path:
    """``runs/game__exp__seed__time`` (CleanRL's run names)."""
    return Path("runs") / f"{config.game}__{config.exp_name}__{config.seed}__{int(time.time())}"


class ResumeError(ValueError):
    """The run directory to resume has no usable checkpoint (the message says why)."""


class Interrupted(Exception):
    """Training stopped by Ctrl-C; the last consistent state was written."""

    def __init__(self, run_dir: Path, step: int) -> None:
        super().__init__(f"interrupted; checkpoint at step {step} in {run_dir}")
        self.run_dir, self.step = run_dir, step


def run_core(config: TrainConfig, core: GameCore | None = None) -> GameCore:
    """The rules core a run trains on: ``core`` (else the game's), with the heuristic's
    advice appended to its observations if ``config.advice`` (:mod:`agents.advice`)."""
    core = core if core is not None else game_core(config.game)
    return advised_core(core, config.keywords) if config.advice else core


class Trainer:
    """Builds and runs one training (see the module doc); ``train()`` drives it."""

    def __init__(self, config: TrainConfig, run_dir: Path, core: GameCore | None = None) -> None:
        config.check()
        self.config = config
        self.run_dir = Path(run_dir)
        self.core = run_core(config, core)
        # Start numba's threads before setting torch's: starting numba's OpenMP threading
        # layer sets the OpenMP thread count, which torch shares, to numba's own.
        numba.get_num_threads()
        torch.set_num_threads(config.torch_threads)
        heuristic = (
            heuristic_opponent(config.game, config.keywords)
            if config.game in feral_envs.GAMES
            else None
        )
        self.pool = OpponentPool(
            config.weight_snapshots,
            config.weight_heuristic,
            config.weight_random,
            config.pool_size,
            seed=config.seed + 1,
            heuristic=heuristic,
            deterministic=config.opponent_deterministic,
        )
        self.env = SelfPlayVecEnv(
            self.core,
            config.keywords,
            config.n_envs,
            self.pool,
            config.points_scale,
            config.win_reward,
            seed=config.seed,
            material_scale=config.material_scale,
            par=Par(config.game, config.keywords) if config.par else None,
        )
        self.model: MaskablePPO | None = None
        self.next_snapshot = config.snapshot_every
        self.next_checkpoint = config.checkpoint_every
        self.next_eval = config.eval_every
        self.last_rating: tuple[float, float, float] | None = None
        self.capture: bytes | None = None
        self.results: Counter = Counter()
        self.bar: Any = None
        self.resumed = False
        self.learn_seconds = (0.0, 0.0)
        """Wall and CPU seconds of SB3's learn() call in :meth:`learn` (the benchmark's)."""
        self.learned_steps = 0
        """Learner decisions that call made."""
        self.arena: dict[str, Any] | None = None
        """The final arena's report (``agents.arena.run_arena``), once played."""

    # ------------------------------------------------------------------ set-up

    def _logger(self) -> Logger:
        return run_logger(self.run_dir)

    def start(self) -> None:
        """A new run: directory, config and versions written, fresh model."""
        c = self.config
        self.run_dir.mkdir(parents=True, exist_ok=True)
        (self.run_dir / "pool").mkdir(exist_ok=True)
        (self.run_dir / "config.json").write_text(json.dumps(c.to_json(), indent=1) + "\n")
        bf16 = use_bf16(c.precision)
        # What --precision resolved to here: a run on a CPU without AMX computes in float32.
        versions = package_versions() | {"trunk_format": "bfloat16" if bf16 else "float32"}
        (self.run_dir / "versions.json").write_text(json.dumps(versions, indent=1) + "\n")
        policy_class, kwargs = network(c.trunk, c.heads, c.board, bf16)
        self.model = MaskablePPO(
            policy_class,
            self.env,
            learning_rate=learning_rate_schedule(c),
            n_steps=c.n_steps,
            batch_size=c.batch_size,
            n_epochs=c.n_epochs,
            gamma=c.gamma,
            gae_lambda=c.gae_lambda,
            clip_range=c.clip_range,
            ent_coef=c.ent_coef,
            vf_coef=c.vf_coef,
            max_grad_norm=c.max_grad_norm,
            policy_kwargs=kwargs,
            seed=c.seed,
            device="cpu",
            verbose=0,
        )
        self.model.set_logger(self._logger())
        if c.init_from:
            weights = read_start_weights(c.init_from, self.core, c.trunk, c.heads, c.board)
            loaded = self.model.policy.load_state_dict(weights, strict=False)
            missing = [k for k in loaded.missing_keys if k.startswith(ACTOR_PREFIXES)]
            if loaded.unexpected_keys or missing:
                raise CheckpointError(
                    f"{c.init_from}: its weights do not fit this network (missing "
                    f"{missing[:3]}, unexpected {loaded.unexpected_keys[:3]})"
                )
        if c.imitation_decisions:
            self.imitate()

    def imitate(self) -> None:
        """Clone ``--imitation-teacher`` (against the heuristic) into the fresh network
        (``train/imitate.py``); the fit is logged under ``imitation/`` at step 0 and printed."""
        from train.imitate import check_memory, collect_demonstrations, pretrain

        c = self.config
        if self.pool.heuristic is None:
            raise ValueError(f"--imitation-decisions needs a heuristic bot; {c.game} has none")
        check_memory(self.core, c.imitation_decisions)
        data = collect_demonstrations(
            self.core,
            c.keywords,
            bot_opponent(c.imitation_teacher, c.game, c.keywords),
            heuristic_opponent(c.game, c.keywords),
            c.imitation_decisions,
            n_envs=c.n_envs,
            points_scale=c.points_scale,
            material_scale=c.material_scale,
            win_reward=c.win_reward,
            gamma=c.gamma,
            seed=c.seed + 4,
            par=self.env.par,
        )
        stats = pretrain(
            self.model.policy,
            data,
            epochs=c.imitation_epochs,
            learning_rate=c.imitation_learning_rate,
            batch_size=c.imitation_batch_size,
            vf_coef=c.vf_coef,
            max_grad_norm=c.max_grad_norm,
            seed=c.seed + 5,
        )
        actor = actor_from_policy(self.model.policy)
        meta = policy_meta(self.core, actor, 0, c.keywords)
        write_policy_file(self.run_dir / CLONE_FILE, actor, meta)
        logger = self.model.logger
        logger.record("imitation/decisions", len(data))
        logger.record("imitation/games", data.games)
        logger.record("imitation/collect_seconds", data.seconds)
        logger.record("imitation/fit_seconds", stats.seconds)
        logger.record("imitation/steps", stats.steps)
        logger.record("imitation/policy_loss", stats.policy_loss)
        logger.record("imitation/value_loss", stats.value_loss)
        logger.record("imitation/accuracy", stats.accuracy)
        logger.dump(0)
        print(
            f"imitation: {len(data):,} decisions of {c.imitation_teacher} ({data.games} games, "
            f"{data.seconds:.0f} s), {stats.epochs} epochs in {stats.steps:,} minibatches of "
            f"{c.imitation_batch_size} ({stats.seconds:.0f} s): "
            f"agrees with it on {stats.accuracy:.1%} of {stats.held_out:,} "
            f"held-out decisions; the clone is {self.run_dir / CLONE_FILE}",
            file=sys.stderr,
        )

    def restore(self) -> None:
        """Continue the run in ``run_dir`` from its checkpoint, exactly (module doc)."""
        ckpt = self.run_dir / "checkpoint"
        if not (ckpt / "model.zip").is_file() and (self.run_dir / "checkpoint.old").is_dir():
            ckpt = self.run_dir / "checkpoint.old"  # stopped while swapping checkpoints
        try:
            with open(ckpt / "trainer.pkl", "rb") as f:
                state = pickle.load(f)
            if not isinstance(state, dict) or state.get("format") not in READABLE_FORMATS:
                raise ValueError("trainer.pkl is not a training state of this version")
            model = MaskablePPO.load(ckpt / "model.zip", env=self.env, device="cpu")
            self.pool.load_state_dict(state["pool"], self.read_snapshot)
        except (
            OSError,
            pickle.UnpicklingError,
            EOFError,
            ValueError,
            KeyError,
            CheckpointError,
        ) as error:
            raise ResumeError(f"cannot resume from {ckpt}: {error}") from None
        self.model = model
        # The step size's line runs to this config's --timesteps (a resume may extend it).
        model.learning_rate = learning_rate_schedule(self.config)
        model._setup_lr_schedule()
        self.env.set_state(state["env"])
        model.num_timesteps = state["num_timesteps"]
        model._n_updates = state["n_updates"]
        model._last_obs = state["last_obs"]
        model._last_episode_starts = state["last_episode_starts"]
        model.ep_info_buffer = copy.deepcopy(state["ep_info_buffer"])
        self.next_snapshot = state["next_snapshot"]
        self.next_checkpoint = state["next_checkpoint"]
        self.next_eval = state["next_eval"]
        self.last_rating = state["last_rating"]
        np.random.set_state(state["rng"]["numpy"])  # noqa: NPY002 (SB3 shuffles with it)
        torch.set_rng_state(state["rng"]["torch"])
        random.setstate(state["rng"]["python"])
        model.set_logger(self._logger())
        self.resumed = True
        # The run continues with this config (a resume may extend timesteps): record it.
        (self.run_dir / "config.json").write_text(
            json.dumps(self.config.to_json(), indent=1) + "\n"
        )

    def snapshot_file(self, name: str) -> Path:
        """The policy file of the pool's snapshot ``name`` (written when it joins the pool)."""
        return self.run_dir / "pool" / f"{name}.zip"

    def read_snapshot(self, name: str) -> Actor:
        """The pool member ``name``'s network, from its file (:meth:`snapshot_file`)."""
        return read_policy_file(self.snapshot_file(name), self.core)[0]

    # ------------------------------------------------------------------ during the run

    def capture_state(self) -> bytes:
        """Everything that decides the rest of the run, pickled (taken between rollouts:
        pickling is the deep copy, and the bytes are what ``trainer.pkl`` holds)."""
        m = self.model
        state = {
            "format": STATE_FORMAT,
            "num_timesteps": m.num_timesteps,
            "n_updates": m._n_updates,
            "policy": m.policy.state_dict(),
            "optimizer": m.policy.optimizer.state_dict(),
            "last_obs": m._last_obs,
            "last_episode_starts": m._last_episode_starts,
            "ep_info_buffer": m.ep_info_buffer,
            "env": self.env.get_state(copy=False),
            "pool": self.pool.state_dict(),
            "next_snapshot": self.next_snapshot,
            "next_checkpoint": self.next_checkpoint,
            "next_eval": self.next_eval,
            "last_rating": self.last_rating,
            "rng": {
                "numpy": np.random.get_state(),  # noqa: NPY002 (SB3 uses it)
                "torch": torch.get_rng_state(),
                "python": random.getstate(),
            },
        }
        return pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)

    def meta(self, step: int) -> dict[str, Any]:
        actor = actor_from_policy(self.model.policy)
        return policy_meta(self.core, actor, step, self.config.keywords)

    def write_checkpoint(self, capture: bytes) -> None:
        """Write ``capture`` as the checkpoint; the model must hold its network now."""
        tmp, final, old = (
            self.run_dir / n for n in ("checkpoint.tmp", "checkpoint", "checkpoint.old")
        )
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        self.model.save(tmp / "model.zip")
        add_meta(tmp / "model.zip", self.meta(self.model.num_timesteps))
        (tmp / "trainer.pkl").write_bytes(capture)
        shutil.rmtree(old, ignore_errors=True)
        if final.exists():
            final.rename(old)
        tmp.rename(final)
        shutil.rmtree(old, ignore_errors=True)

    def add_snapshot(self) -> None:
        step = self.model.num_timesteps
        actor = actor_from_policy(self.model.policy)
        meta = policy_meta(self.core, actor, step, self.config.keywords)
        # The file first: checkpoints name the snapshot and a resume reads it from there.
        write_policy_file(self.snapshot_file(snapshot_name(step)), actor, meta)
        self.pool.add_snapshot(actor, step)

    def quick_eval(self) -> None:
        """Match against random (``eval_game_count`` games), logged under ``eval/``."""
        c = self.config
        games = c.eval_game_count
        if not games:
            return
        actor = actor_from_policy(self.model.policy)
        result = play_match(
            self.core, c.keywords, actor, RandomOpponent(), games, seed=c.seed + 2, n_envs=games
        )
        self.last_rating = result.elo()
        self.log_match("random", result)
        if self.pool.heuristic is not None:  # a fresh one: the pool's keeps its players
            heuristic = heuristic_opponent(c.game, c.keywords)
            result = play_match(
                self.core, c.keywords, actor, heuristic, games, seed=c.seed + 3, n_envs=games
            )
            self.log_match("heuristic", result)

    def log_match(self, name: str, result: MatchResult) -> None:
        elo, low, high = result.elo()
        logger = self.model.logger
        logger.record(f"eval/elo_vs_{name}", elo)
        logger.record(f"eval/elo_vs_{name}_low95", low)
        logger.record(f"eval/elo_vs_{name}_high95", high)
        logger.record(f"eval/score_vs_{name}", result.score)
        logger.record(f"eval/truncated_vs_{name}", result.truncated / result.games)

    def on_rollout_start(self) -> None:
        step = self.model.num_timesteps
        if step >= self.next_snapshot:
            self.add_snapshot()
            self.next_snapshot = (
                step // self.config.snapshot_every + 1
            ) * self.config.snapshot_every
        due = step >= self.next_checkpoint
        if due:
            self.next_checkpoint = (
                step // self.config.checkpoint_every + 1
            ) * self.config.checkpoint_every
        self.capture = self.capture_state()
        if due:
            self.write_checkpoint(self.capture)
        if step >= self.next_eval:
            self.next_eval = (step // self.config.eval_every + 1) * self.config.eval_every
            self.quick_eval()

    def on_step(self, infos: list[dict[str, Any]], dones: np.ndarray) -> None:
        for i in np.flatnonzero(dones):
            info = infos[i]
            kind = info["opponent"].split("_")[0]
            self.results[kind, info["result"]] += 1
        if self.bar is not None:
            self.bar.update(len(dones))

    def on_rollout_end(self) -> None:
        logger = self.model.logger
        c = self.config
        if math.isfinite(c.ent_coef_end):  # the update that follows: where the rollout began
            done = (self.model.num_timesteps - c.rollout_size) / c.timesteps
            self.model.ent_coef = run_line(c.ent_coef, c.ent_coef_end, done)
        logger.record("charts/ent_coef", float(self.model.ent_coef))
        for kind in sorted({k for k, _ in self.results}):
            n = sum(v for (k, _), v in self.results.items() if k == kind)
            logger.record(f"charts/win_rate_vs_{kind}", self.results[kind, "win"] / n)
            logger.record(f"charts/truncated_rate_vs_{kind}", self.results[kind, "truncated"] / n)
        games = sum(self.results.values())
        if games:
            logger.record("charts/games", games)
        logger.record("charts/pool_snapshots", len(self.pool.snapshots))
        self.results.clear()
        if self.bar is not None and self.last_rating is not None:
            self.bar.set_postfix_str(f"elo vs random {rating_text(*self.last_rating)}")

    # ------------------------------------------------------------------ the run

    def learn(self) -> None:
        """Train up to ``config.timesteps``; on Ctrl-C write the last state, raise Interrupted."""
        c, model = self.config, self.model
        remaining = c.timesteps - model.num_timesteps
        if c.progress:
            from tqdm import tqdm

            self.bar = tqdm(
                total=-(-c.timesteps // c.rollout_size) * c.rollout_size,  # whole rollouts
                initial=model.num_timesteps,
                unit="step",
                unit_scale=True,
                dynamic_ncols=True,
                desc=c.game,
                smoothing=0.05,
            )
        wall, cpu = time.perf_counter(), time.process_time()
        # sb3-contrib's masked distribution is rebuilt at every forward pass, and torch checks
        # its logits each time (about 3 % of the default run): the network's outputs are
        # finite unless training diverges, and a NaN still stops the run where SB3 samples an
        # action; so the checks are off while SB3 trains.
        checks = torch.distributions.Distribution._validate_args
        torch.distributions.Distribution.set_default_validate_args(False)
        try:
            if remaining > 0:
                model.learn(remaining, callback=_Hooks(self), reset_num_timesteps=not self.resumed)
        except KeyboardInterrupt:
            if self.bar is not None:
                self.bar.close()
            if self.capture is None:
                raise
            state = pickle.loads(self.capture)  # the model as it was when it was taken
            model.policy.load_state_dict(state["policy"])
            model.policy.optimizer.load_state_dict(state["optimizer"])
            model.num_timesteps, model._n_updates = state["num_timesteps"], state["n_updates"]
            self.write_checkpoint(self.capture)
            raise Interrupted(self.run_dir, state["num_timesteps"]) from None
        finally:
            torch.distributions.Distribution.set_default_validate_args(checks)
            if self.bar is not None:
                self.bar.close()
        self.learn_seconds = (time.perf_counter() - wall, time.process_time() - cpu)
        self.learned_steps = model.num_timesteps - (c.timesteps - remaining)
        self.capture = self.capture_state()
        self.write_checkpoint(self.capture)
        final = self.run_dir / "model.zip"
        model.save(final)
        add_meta(final, self.meta(model.num_timesteps))
        self.quick_eval()
        model.logger.record("charts/trained_timesteps", model.num_timesteps)
        model.logger.dump(model.num_timesteps)
        model.logger.close()
        print(f"trained {model.num_timesteps:,} learner decisions", file=sys.stderr)
        if self.last_rating is not None:
            print(
                f"quick eval: Elo {rating_text(*self.last_rating)} against random "
                f"({c.eval_game_count} games)",
                file=sys.stderr,
            )

    def arena_specs(self) -> list[str]:
        """The final arena's players: the final policy, sampling and greedy (:data:`GREEDY`),
        random, the heuristic (if any), the imitation clone (if the run began with one) and
        ``arena_snapshots`` earlier snapshots, evenly spaced over the run."""
        final = self.run_dir / "model.zip"
        specs = [f"final=ppo:{final}", f"{GREEDY}=ppo_argmax:{final}", "random"]
        if self.pool.heuristic is not None:
            specs.append("heuristic")
        if (self.run_dir / CLONE_FILE).is_file():
            specs.append(f"imitation=ppo:{self.run_dir / CLONE_FILE}")
        earlier = [s for s in self.pool.snapshots if s.step < self.model.num_timesteps]
        k = min(self.config.arena_snapshots, len(earlier))
        picks = sorted({round(j * (len(earlier) - 1) / max(k - 1, 1)) for j in range(k)})
        for j in picks:
            name = earlier[j].name
            specs.append(f"{name}=ppo:{self.snapshot_file(name)}")
        return specs

    def final_arena(self) -> dict[str, Any] | None:
        """Rate the final policy in ``agents.arena`` (``arena_game_count`` per pairing); print
        the leaderboard and write it beside the run (``leaderboard.md``, ``arena/``)."""
        c = self.config
        games = c.arena_game_count
        if not games or c.game not in feral_envs.GAMES:
            return None
        try:
            from agents.arena import leaderboard_table, run_arena, summarize
        except ImportError:
            print("arena skipped: agents.arena is not installed", file=sys.stderr)
            return None
        # A run extended by --resume has a new final policy: the old one's games are dropped.
        # A run resumed with nothing left to train (stopped in its final arena) continues the
        # arena's record.
        fresh = self.learned_steps > 0
        if fresh:
            shutil.rmtree(self.run_dir / "arena", ignore_errors=True)
        report = run_arena(
            c.game,
            self.arena_specs(),
            games,
            seed=c.seed,
            out=self.run_dir / "arena",
            progress=c.progress,
            resume=not fresh,
            **c.keywords,
        )
        table = leaderboard_table(report)
        board = {
            "leaderboard": report["leaderboard"],
            "specs": report["specs"],
            "anchor": report["anchor"],
            "games_per_pair": report["games_per_pair"],
        }
        if "heuristic" in report["agents"] and report["anchor"] != "heuristic":
            # The same games rated relative to the heuristic: whether the final policy is
            # stronger than the bot, even when both beat random in every game (docs/arena.md).
            relative = {
                **report,
                **summarize(report["records"], report["agents"], "heuristic", 1000, c.seed),
                "anchor": "heuristic",
            }
            table += "\n" + leaderboard_table(relative)
            board["leaderboard_vs_heuristic"] = relative["leaderboard"]
        (self.run_dir / "leaderboard.md").write_text(table)
        (self.run_dir / "leaderboard.json").write_text(json.dumps(board, indent=1) + "\n")
        print(table)
        return report


class _Hooks(BaseCallback):
    """Forwards SB3's callback points to the :class:`Trainer`."""

    def __init__(self, trainer: Trainer) -> None:
        super().__init__()
        self.trainer = trainer

    def _on_rollout_start(self) -> None:
        self.trainer.on_rollout_start()

    def _on_step(self) -> bool:
        self.trainer.on_step(self.locals["infos"], self.locals["dones"])
        return True

    def _on_rollout_end(self) -> None:
        self.trainer.on_rollout_end()


def plan_text(config: TrainConfig, start: int = 0) -> str:
    """What the run will do, printed before it starts (a resumed run: from step ``start``):
    the decisions it trains (saying so where SB3's whole rollouts round ``timesteps`` up) and
    its evaluation games."""
    c = config
    text = f"{c.game}: training {c.trained_timesteps:,} learner decisions"
    if start:
        text = f"{c.game}: resumed at {start:,}, training to {c.trained_timesteps:,} decisions"
    if c.trained_timesteps != c.timesteps:
        text += (
            f" (--timesteps {c.timesteps:,} rounded up to whole PPO rollouts of --n-steps "
            f"{c.n_steps} x --n-envs {c.n_envs} = {c.rollout_size:,})"
        )
    scaled = " (scaled with the run; give --eval-games/--arena-games to choose)"
    evals = c.eval_game_count
    arena = c.arena_game_count if c.game in feral_envs.GAMES else 0  # (the arena's games)
    text += (
        f"\nthen {f'a quick evaluation of {evals} games' if evals else 'no quick evaluation'}"
        f" and {f'a final arena of {arena} games per pair' if arena else 'no final arena'}"
        f"{scaled if SCALED in (c.eval_games, c.arena_games) else ''}"
    )
    return text


def train(
    config: TrainConfig,
    run_dir: Path | None = None,
    core: GameCore | None = None,
    resume: bool = False,
) -> Trainer:
    """Run (or with ``resume``, continue) a training; the Trainer holds the results."""
    run_dir = Path(run_dir) if run_dir is not None else default_run_dir(config)
    trainer = Trainer(config, run_dir, core)
    if resume:
        trainer.restore()
    else:
        trainer.start()
    print(plan_text(config, trainer.model.num_timesteps), file=sys.stderr)
    trainer.learn()
    trainer.arena = trainer.final_arena()
    return trainer
