"""One training run on RLlib (``python -m train GAME --backend rllib``; docs/rllib.md).

PPO on RLlib's new API stack, multi-agent: the module ``learner`` (the only one trained)
plays the learner's side of every game (:mod:`train.rllib.env`); the frozen modules
``snap0 .. snap{pool_size-1}`` are the snapshot slots of the league. Every
``snapshot_every`` learner decisions the learner's weights are copied into the next slot
(round robin: the newest ``pool_size`` snapshots are kept), synced to the env runners, and the
env runners are told which slots are filled (:func:`train.rllib.env.set_pool`). The
random and heuristic opponents are played inside the env, as in the SB3 pool.

A run directory holds what the SB3 backend's holds, with RLlib's checkpoint in place of
SB3's and policies in the format of :mod:`agents.rllib` (``rllib:PATH``)::

    config.json, versions.json, tb/, metrics.jsonl   as the SB3 backend (train/run.py)
    pool/snapshot_<step>/   policy.pt + policy.json of each snapshot (rllib:PATH)
    checkpoint/algorithm/   RLlib's checkpoint (Algorithm.save_to_path: modules,
                            optimizer, connectors), with trainer.json (our counters, the
                            pool's slots) and policy/ (the learner, rllib:PATH)
    policy/                 the final policy (rllib:RUN_DIR loads it)
    leaderboard.md          the final arena (also leaderboard.json, arena/)

``--resume RUN_DIR`` restores the RLlib checkpoint (weights, optimizer, counters) and the
pool and continues; unlike the SB3 backend's it is not bit-exact (games in progress on the
env runners restart).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import signal
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import feral_envs
from agents.rllib import MaskedNet, RLlibPolicy, write_policy
from feral_envs import game_core
from train.config import TrainConfig
from train.evaluate import MatchResult
from train.pool import snapshot_name
from train.rllib.env import LEARNER, SelfPlayMultiAgentEnv, set_pool, snapshot_module
from train.run import (
    GREEDY,
    Interrupted,
    ResumeError,
    Trainer,
    package_versions,
    rating_text,
    run_logger,
)

STATE_FORMAT = "feral-rllib-trainer/1"

ENV_RUNNER_RESTARTS = 3
"""How often a failed env runner is restarted (``AlgorithmConfig.fault_tolerance``). RLlib's
defaults (1,000 restarts, 60 s apart) turn a runner that keeps failing into a run that waits
for hours; past these restarts the run stops after :data:`STALL_S` (:class:`RunnersLost`)
and keeps its last checkpoint for ``--resume``."""

ENV_RUNNER_RESTART_DELAY_S = 5.0
"""Seconds between two restarts of a failed env runner."""

STALL_S = 120.0
"""A run whose iterations sample no learner decision for this long stops (:class:`RunnersLost`):
once its env runners are past their restarts RLlib goes on returning empty iterations."""


def cluster_address(config: TrainConfig) -> str | None:
    """The cluster the run joins (``--address``, else ``RAY_ADDRESS``), or None: Ray started
    on this machine."""
    return config.address or os.environ.get("RAY_ADDRESS") or None


def ray_logs(config: TrainConfig) -> str:
    """Where the run's Ray workers write their logs, for a message."""
    if cluster_address(config):
        return "in session_latest/logs under the Ray temp dir of each node of the cluster"
    local = Path(os.environ.get("RAY_TMPDIR", "/tmp")) / "ray" / "session_latest" / "logs"
    return f"in {local} on this machine"


class RunnersLost(RuntimeError):
    """No env runner has sampled a learner decision for :data:`STALL_S` seconds; ``step`` is
    that of the run's last checkpoint (``None``: it wrote none); ``logs`` says where Ray's
    worker logs are (:func:`ray_logs`)."""

    def __init__(self, run_dir: Path, step: int | None, logs: str) -> None:
        saved = "no checkpoint" if step is None else f"its last checkpoint is at step {step}"
        super().__init__(
            f"the run's env runners sampled nothing for {STALL_S:.0f} s: they failed and "
            f"RLlib's {ENV_RUNNER_RESTARTS} restarts did not bring them back (the worker-*.err "
            f"files of Ray's logs, {logs}, say why); {saved} in {run_dir}"
        )
        self.run_dir, self.step = run_dir, step


UNSUPPORTED = (
    "board",
    "advice",
    "par",
    "material_scale",
    "init_from",
    "imitation_decisions",
    "learning_rate_end",
    "ent_coef_end",
)
"""SB3-backend options the RLlib backend does not offer (an error if given)."""


def check_config(config: TrainConfig) -> None:
    """``ValueError`` naming an option the RLlib backend cannot honour, or missing Ray."""
    for name in UNSUPPORTED:
        if getattr(config, name) != getattr(TrainConfig(), name):
            raise ValueError(
                f"--{name.replace('_', '-')} is an SB3-backend option; --backend rllib does "
                f"not offer it"
            )
    if config.precision == "bf16":
        raise ValueError(
            "--precision bf16 is an SB3-backend option; --backend rllib trains in float32 "
            "(give auto or fp32)"
        )
    if config.num_env_runners < 0:
        raise ValueError(f"--num-env-runners must be at least 0, got {config.num_env_runners}")
    try:
        import ray
        import ray.rllib  # noqa: F401
    except ImportError:
        raise ValueError(
            "--backend rllib needs Ray RLlib: pip install 'feral-envs[rllib]' (ray[rllib]==2.60.0)"
        ) from None


def init_ray(config: TrainConfig) -> None:
    """Join the cluster at ``--address`` (or ``RAY_ADDRESS``), else start Ray on this
    machine. Workers find this checkout's packages through PYTHONPATH (a cluster's other
    nodes need feral-envs installed)."""
    import ray

    root = str(Path(feral_envs.__file__).resolve().parent.parent)
    path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH", "")) if p)
    runtime_env = {"env_vars": {"PYTHONPATH": path}}
    address = cluster_address(config)
    if address:
        ray.init(address=address, runtime_env=runtime_env, log_to_driver=True)
    else:
        cpus = max(os.cpu_count() or 1, config.num_env_runners + 1)
        ray.init(num_cpus=cpus, include_dashboard=False, runtime_env=runtime_env)


def env_config(config: TrainConfig) -> dict[str, Any]:
    return {
        "game": config.game,
        "keywords": dict(config.keywords),
        "points_scale": config.points_scale,
        "win_reward": config.win_reward,
        "weights": {
            "snapshot": config.weight_snapshots,
            "heuristic": config.weight_heuristic,
            "random": config.weight_random,
        },
        "pool_size": config.pool_size,
        "seed": config.seed,
    }


def envs_per_runner(config: TrainConfig) -> int:
    """Games each env runner steps at once: ``n_envs`` spread over the runners."""
    return max(1, config.n_envs // max(config.num_env_runners, 1))


def build_algorithm(config: TrainConfig) -> Any:
    """The PPO algorithm of the run (module doc): PPOConfig().multi_agent(...)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from train.rllib.callbacks import ResultCallbacks
    from train.rllib.module import MaskedPPOModule

    modules = [LEARNER] + [snapshot_module(k) for k in range(config.pool_size)]
    spec = RLModuleSpec(
        module_class=MaskedPPOModule,
        model_config={"trunk": list(config.trunk), "heads": list(config.heads)},
    )
    algo_config = (
        PPOConfig()
        .environment(
            SelfPlayMultiAgentEnv, env_config=env_config(config), disable_env_checking=True
        )
        .env_runners(
            num_env_runners=config.num_env_runners,
            num_envs_per_env_runner=envs_per_runner(config),
            num_cpus_per_env_runner=1,
            rollout_fragment_length="auto",
        )
        .fault_tolerance(
            restart_failed_env_runners=True,
            max_num_env_runner_restarts=ENV_RUNNER_RESTARTS,
            delay_between_env_runner_restarts_s=ENV_RUNNER_RESTART_DELAY_S,
        )
        .multi_agent(
            policies=set(modules),
            policy_mapping_fn=_agent_to_module,
            policies_to_train=[LEARNER],
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=dict.fromkeys(modules, spec)))
        .training(
            lr=config.learning_rate,
            gamma=config.gamma,
            lambda_=config.gae_lambda,
            clip_param=config.clip_range,
            entropy_coeff=config.ent_coef,
            vf_loss_coeff=config.vf_coef,
            grad_clip=config.max_grad_norm,
            grad_clip_by="global_norm",
            train_batch_size_per_learner=config.rollout_size,
            minibatch_size=config.batch_size,
            num_epochs=config.n_epochs,
            use_kl_loss=False,
        )
        .learners(num_learners=0)
        .callbacks(ResultCallbacks)
        .debugging(seed=config.seed, log_level="ERROR")
        .reporting(metrics_num_episodes_for_smoothing=100)
    )
    return algo_config.build_algo()


def _agent_to_module(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    return agent_id  # agents are named after their module (train.rllib.env)


class RLlibTrainer:
    """One RLlib run (module doc); :func:`train_rllib` drives it. Its final arena is the SB3
    backend's (:meth:`train.run.Trainer.final_arena`), over :meth:`arena_specs`."""

    def __init__(self, config: TrainConfig, run_dir: Path) -> None:
        check_config(config)
        self.config = config
        self.run_dir = Path(run_dir)
        self.core = game_core(config.game)
        self.algo: Any = None
        self.step = 0
        self.iteration = 0
        self.next_snapshot = config.snapshot_every
        self.next_checkpoint = config.checkpoint_every
        self.next_eval = config.eval_every
        self.last_rating: tuple[float, float, float] | None = None
        self.snapshots: list[dict[str, int]] = []
        """Every snapshot taken, oldest first: ``{"step": ..., "slot": ...}``."""
        self.heuristic = _has_heuristic(config)
        self.learn_seconds = (0.0, 0.0)
        self.learned_steps = 0
        self.arena: dict[str, Any] | None = None
        self.logger: Any = None

    # ------------------------------------------------------------------ set-up

    def _open_logger(self) -> None:
        self.logger = run_logger(self.run_dir)

    def start(self) -> None:
        c = self.config
        self.run_dir.mkdir(parents=True, exist_ok=True)
        (self.run_dir / "pool").mkdir(exist_ok=True)
        (self.run_dir / "config.json").write_text(json.dumps(c.to_json(), indent=1) + "\n")
        versions = package_versions()
        versions["ray"] = _version("ray")
        versions["trunk_format"] = "float32"  # RLlib's learner trains in float32 (above)
        (self.run_dir / "versions.json").write_text(json.dumps(versions, indent=1) + "\n")
        init_ray(c)
        self.algo = build_algorithm(c)
        self._open_logger()

    def restore(self) -> None:
        ckpt = self.run_dir / "checkpoint"
        if not (ckpt / "trainer.json").is_file() and (self.run_dir / "checkpoint.old").is_dir():
            ckpt = self.run_dir / "checkpoint.old"
        try:
            state = json.loads((ckpt / "trainer.json").read_text())
            if state.get("format") != STATE_FORMAT:
                raise ValueError("trainer.json is not an RLlib-backend training state")
        except (OSError, ValueError) as error:
            raise ResumeError(f"cannot resume from {ckpt}: {error}") from None
        init_ray(self.config)
        self.algo = build_algorithm(self.config)
        self.algo.restore_from_path(str((ckpt / "algorithm").resolve()))
        for key in ("step", "iteration", "next_snapshot", "next_checkpoint", "next_eval"):
            setattr(self, key, state[key])
        self.snapshots = state["snapshots"]
        self.last_rating = tuple(state["last_rating"]) if state["last_rating"] else None
        self._sync_all()
        self._broadcast_pool()
        self._open_logger()
        (self.run_dir / "config.json").write_text(
            json.dumps(self.config.to_json(), indent=1) + "\n"
        )

    # ------------------------------------------------------------------ the pool

    def learner_net(self) -> MaskedNet:
        return self.algo.get_module(LEARNER).net

    def meta(self) -> dict[str, Any]:
        c = self.config
        return {
            "game": c.game,
            "obs_shape": list(self.core.obs_shape),
            "n_actions": self.core.n_actions,
            "trunk": list(c.trunk),
            "heads": list(c.heads),
            "step": int(self.step),
            "keywords": c.keywords,
            "backend": "rllib",
        }

    def _sync_all(self) -> None:
        modules = [LEARNER] + [snapshot_module(k) for k in range(self.config.pool_size)]
        self.algo.env_runner_group.sync_weights(
            from_worker_or_learner_group=self.algo.learner_group,
            policies=modules,
            inference_only=True,
        )

    def _broadcast_pool(self) -> None:
        filled = min(len(self.snapshots), self.config.pool_size)
        newest = self.snapshots[-1]["slot"] if self.snapshots else -1
        self.algo.env_runner_group.foreach_env_runner(
            lambda runner: set_pool(filled, newest), local_env_runner=True
        )
        set_pool(filled, newest)

    def add_snapshot(self) -> None:
        """Copy the learner into the next slot, sync it to the env runners, write it."""
        slot = len(self.snapshots) % self.config.pool_size
        module_id = snapshot_module(slot)
        learner_state = self.algo.get_module(LEARNER).get_state()
        self.algo.set_state(
            {"learner_group": {"learner": {"rl_module": {module_id: learner_state}}}}
        )
        self.algo.env_runner_group.sync_weights(
            from_worker_or_learner_group=self.algo.learner_group,
            policies=[module_id],
            inference_only=True,
        )
        self.snapshots.append({"step": int(self.step), "slot": slot})
        self._broadcast_pool()
        write_policy(
            self.run_dir / "pool" / snapshot_name(self.step), self.learner_net(), self.meta()
        )

    # ------------------------------------------------------------------ checkpoints

    def trainer_state(self) -> dict[str, Any]:
        return {
            "format": STATE_FORMAT,
            "step": self.step,
            "iteration": self.iteration,
            "next_snapshot": self.next_snapshot,
            "next_checkpoint": self.next_checkpoint,
            "next_eval": self.next_eval,
            "snapshots": self.snapshots,
            "last_rating": list(self.last_rating) if self.last_rating else None,
        }

    def write_checkpoint(self) -> None:
        tmp, final, old = (
            self.run_dir / n for n in ("checkpoint.tmp", "checkpoint", "checkpoint.old")
        )
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        self.algo.save_to_path(str((tmp / "algorithm").resolve()))
        write_policy(tmp / "policy", self.learner_net(), self.meta())
        (tmp / "trainer.json").write_text(json.dumps(self.trainer_state(), indent=1) + "\n")
        shutil.rmtree(old, ignore_errors=True)
        if final.exists():
            final.rename(old)
        tmp.rename(final)
        shutil.rmtree(old, ignore_errors=True)

    def checkpoint_step(self) -> int | None:
        """The step of the run's checkpoint on disk (``None``: none written)."""
        path = self.run_dir / "checkpoint" / "trainer.json"
        return json.loads(path.read_text())["step"] if path.exists() else None

    # ------------------------------------------------------------------ evaluation

    def quick_eval(self) -> None:
        """``eval_game_count`` games against random (and the heuristic), logged under ``eval/``."""
        c = self.config
        if not c.eval_game_count:
            return
        net = self.learner_net()
        result = play_match(c, net, self.meta(), "random", c.eval_game_count, c.seed + 2)
        self.last_rating = result.elo()
        self.log_match("random", result)
        if self.heuristic:
            result = play_match(c, net, self.meta(), "heuristic", c.eval_game_count, c.seed + 3)
            self.log_match("heuristic", result)

    def log_match(self, name: str, result: MatchResult) -> None:
        elo, low, high = result.elo()
        self.logger.record(f"eval/elo_vs_{name}", elo)
        self.logger.record(f"eval/elo_vs_{name}_low95", low)
        self.logger.record(f"eval/elo_vs_{name}_high95", high)
        self.logger.record(f"eval/score_vs_{name}", result.score)
        self.logger.record(f"eval/truncated_vs_{name}", result.truncated / result.games)

    # ------------------------------------------------------------------ the run

    def log_result(self, result: dict[str, Any], seconds: float, steps: int) -> None:
        """Logs this iteration's figures; RLlib's NaNs (an iteration that sampled no games,
        as right after a failed env runner was restarted) are left out."""
        runners = result.get("env_runners", {})
        learner = result.get("learners", {}).get(LEARNER, {})

        def put(name: str, value: Any) -> None:
            if value is not None and math.isfinite(float(value)):
                self.logger.record(name, float(value))

        put("charts/episodic_return", runners.get("agent_episode_returns_mean", {}).get(LEARNER))
        put("charts/episodic_length", runners.get("learner_decisions_mean"))
        put("charts/SPS", steps / max(seconds, 1e-9))
        keys = {
            "policy_loss": "losses/policy_loss",
            "vf_loss": "losses/value_loss",
            "entropy": "losses/entropy",
            "vf_explained_var": "losses/explained_variance",
            "default_optimizer_learning_rate": "charts/learning_rate",
        }
        for key, name in keys.items():
            put(name, learner.get(key))
        for key, value in runners.items():
            if key.startswith(("win_rate_vs_", "truncated_rate_vs_")):
                put(f"charts/{key}", value)
        games = runners.get("num_episodes")
        if games is not None and math.isfinite(games):
            self.logger.record("charts/games", int(games))
        self.logger.record("charts/pool_snapshots", len(self.snapshots))
        self.logger.record("charts/iterations", self.iteration)

    def learn(self) -> None:
        c = self.config
        bar = None
        if c.progress:
            from tqdm import tqdm

            bar = tqdm(
                total=c.timesteps,
                initial=min(self.step, c.timesteps),
                unit="step",
                unit_scale=True,
                dynamic_ncols=True,
                desc=f"{c.game} (rllib)",
                smoothing=0.05,
            )
        wall, cpu, start_step = time.perf_counter(), time.process_time(), self.step
        stalled_since: float | None = None
        held = _hold_stop_signals()
        try:
            while self.step < c.timesteps:
                if held.signum is not None:  # a Ctrl-C whose KeyboardInterrupt RLlib swallowed
                    raise KeyboardInterrupt
                if self.step >= self.next_snapshot:
                    self.add_snapshot()
                    self.next_snapshot = (self.step // c.snapshot_every + 1) * c.snapshot_every
                if self.step >= self.next_checkpoint:
                    self.next_checkpoint = (
                        self.step // c.checkpoint_every + 1
                    ) * c.checkpoint_every
                    self.write_checkpoint()
                if self.step >= self.next_eval:
                    self.next_eval = (self.step // c.eval_every + 1) * c.eval_every
                    self.quick_eval()
                began = time.perf_counter()
                result = self.algo.train()
                self.iteration += 1
                steps = learner_steps(result)
                if steps:
                    stalled_since = None
                else:  # failed env runners (restarting, or past their restarts)
                    stalled_since = stalled_since or began
                    if time.perf_counter() - stalled_since > STALL_S:
                        raise RunnersLost(self.run_dir, self.checkpoint_step(), ray_logs(c))
                    time.sleep(1.0)
                self.step += steps
                self.log_result(result, time.perf_counter() - began, steps)
                self.logger.dump(self.step)
                if bar is not None:
                    bar.update(min(self.step, c.timesteps) - bar.n)
                    if self.last_rating is not None:
                        bar.set_postfix_str(f"elo vs random {rating_text(*self.last_rating)}")
        except KeyboardInterrupt:
            if bar is not None:
                bar.close()
            try:
                self.write_checkpoint()
            except Exception as error:  # the env runners may have stopped on the same Ctrl-C
                print(f"\ncould not write a checkpoint now ({error})", file=sys.stderr)
            raise Interrupted(self.run_dir, self.step) from None
        finally:
            held.release()
            if bar is not None:
                bar.close()
        self.learn_seconds = (time.perf_counter() - wall, time.process_time() - cpu)
        self.learned_steps = self.step - start_step
        self.write_checkpoint()
        write_policy(self.run_dir / "policy", self.learner_net(), self.meta())
        self.quick_eval()
        self.logger.dump(self.step)
        self.logger.close()
        print(
            f"trained {self.step:,} learner decisions in {self.iteration} PPO iterations "
            f"(asked for {c.timesteps:,}; an iteration is {c.rollout_size:,} decisions of "
            f"all sides)",
            file=sys.stderr,
        )
        if self.last_rating is not None:
            print(
                f"quick eval: Elo {rating_text(*self.last_rating)} against random "
                f"({c.eval_game_count} games)",
                file=sys.stderr,
            )

    def close(self) -> None:
        import ray

        if self.algo is not None:
            self.algo.stop()
            self.algo = None
        ray.shutdown()

    # ------------------------------------------------------------------ the final arena

    @property
    def pool(self) -> Any:
        """What :meth:`Trainer.final_arena` reads of the pool: whether there is a heuristic."""
        return type("Pool", (), {"heuristic": True if self.heuristic else None})()

    def arena_specs(self) -> list[str]:
        """The final policy (sampling and greedy), random, the heuristic (if any) and
        ``arena_snapshots`` earlier snapshots, evenly spaced over the run (as the SB3
        backend's arena)."""
        final = self.run_dir / "policy"
        specs = [f"final=rllib:{final}", f"{GREEDY}=rllib_argmax:{final}", "random"]
        if self.heuristic:
            specs.append("heuristic")
        earlier = [s for s in self.snapshots if s["step"] < self.step]
        k = min(self.config.arena_snapshots, len(earlier))
        picks = sorted({round(j * (len(earlier) - 1) / max(k - 1, 1)) for j in range(k)})
        for j in picks:
            name = snapshot_name(earlier[j]["step"])
            specs.append(f"{name}=rllib:{self.run_dir / 'pool' / name}")
        return specs

    def final_arena(self) -> dict[str, Any] | None:
        """The SB3 backend's final arena (same players, files and tables; a run extended by
        ``--resume`` replaces the old policy's arena)."""
        return Trainer.final_arena(self)  # type: ignore[arg-type]


class _StopSignals:
    """Ctrl-C (SIGINT) and SIGTERM, where they raise KeyboardInterrupt (Python's Ctrl-C, the
    command line's SIGTERM), handled as before and remembered. The KeyboardInterrupt can be
    lost on its way out of RLlib's and Ray's calls (in CI a run sent Ctrl-C went on to its
    end and exited 0), so the training loop also stops on the remembered signal between
    iterations."""

    def __init__(self) -> None:
        self.signum: int | None = None
        self.previous: dict[int, Any] = {}

    def handle(self, signum: int, frame: Any) -> None:
        self.signum = signum
        self.previous[signum](signum, frame)

    def release(self) -> None:
        for signum, handler in self.previous.items():
            signal.signal(signum, handler)
        self.previous.clear()


def _hold_stop_signals() -> _StopSignals:
    """A :class:`_StopSignals` in place for the signals whose handler is a Python function
    (outside the main thread, where handlers cannot be set, it holds none)."""
    held = _StopSignals()
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM):
            handler = signal.getsignal(signum)
            if callable(handler):
                held.previous[signum] = handler
                signal.signal(signum, held.handle)
    return held


def learner_steps(result: dict[str, Any]) -> int:
    """Learner decisions sampled in this iteration (the ``learner`` module's agent steps);
    0 for an iteration that sampled none (RLlib reports NaN there, e.g. right after a failed
    env runner was restarted)."""
    runners = result.get("env_runners", {})
    by_module = runners.get("num_module_steps_sampled", {})
    by_agent = runners.get("num_agent_steps_sampled", {})
    steps = by_module[LEARNER] if LEARNER in by_module else by_agent.get(LEARNER, 0)
    return int(steps) if math.isfinite(steps) else 0


def _version(name: str) -> str:
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def _has_heuristic(config: TrainConfig) -> bool:
    from agents.registry import load_policy

    try:
        load_policy("heuristic", config.game, 0, config.keywords)
    except ValueError:
        return False
    return True


def play_match(
    config: TrainConfig,
    net: MaskedNet,
    meta: dict[str, Any],
    opponent: str,
    games: int,
    seed: int,
) -> MatchResult:
    """``games`` games of the sampling policy against ``opponent`` (``random`` or
    ``heuristic``), played on the training env with that opponent only and no shaping."""
    env = SelfPlayMultiAgentEnv(
        {
            "game": config.game,
            "keywords": config.keywords,
            "points_scale": 0.0,
            "win_reward": 1.0,
            "weights": {
                "snapshot": 0.0,
                "heuristic": float(opponent == "heuristic"),
                "random": float(opponent == "random"),
            },
            "pool_size": 1,
            "seed": seed,
        }
    )
    policy = RLlibPolicy(net, meta, "learner", seed, deterministic=False)
    counts = Counter()
    truncated = 0
    for game in range(games):
        obs, _ = env.reset(seed=seed * 100_003 + game)
        while True:
            view = obs[LEARNER]
            action = policy.act(view["observation"], view["action_mask"])
            obs, _, terminateds, truncateds, infos = env.step({LEARNER: action})
            if terminateds["__all__"] or truncateds["__all__"]:
                info = infos[LEARNER]
                result = info["result"]
                if result == "truncated":
                    truncated += 1
                    lead = info["lead"]
                    result = "win" if lead > 0 else "loss" if lead < 0 else "draw"
                counts[result] += 1
                break
    return MatchResult(counts["win"], counts["draw"], counts["loss"], truncated)


def train_rllib(config: TrainConfig, run_dir: Path, resume: bool = False) -> RLlibTrainer:
    """Run (or with ``resume``, continue) an RLlib training; the trainer holds the results."""
    trainer = RLlibTrainer(config, run_dir)
    try:
        if resume:
            trainer.restore()
        else:
            trainer.start()
        trainer.learn()
    finally:
        trainer.close()
    trainer.arena = trainer.final_arena()
    return trainer
