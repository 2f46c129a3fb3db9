"""The command line of ``python -m train`` (``train/__main__.py`` runs :func:`main`).

Exit codes: 0 done, 2 bad command line (unknown game, bad option or keyword value,
unusable ``--resume`` directory), 130 interrupted by Ctrl-C, 143 stopped by ``kill`` (SIGTERM);
both after writing a checkpoint.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import signal
import sys
from pathlib import Path
from typing import Any

import feral_envs
from train.config import (
    GAME_DEFAULTS,
    WARM_START_SETTINGS,
    TrainConfig,
    dashed,
    default_config,
    field_docs,
)

USAGE = "python -m train GAME [options]"
DESCRIPTION = f"""\
Train a MaskablePPO policy for GAME by self-play: the learner plays one side of many games
at once against a pool of its own frozen snapshots, the heuristic bot and random play.

GAME is one of: {", ".join(feral_envs.GAMES)}.
`python -m train GAME --help` also lists that game's keywords (--variant, --max-hands, ...).
Results go to runs/GAME__EXP__SEED__TIME (or --out): TensorBoard logs (tb/), checkpoints,
the final policy model.zip (arena spec ppo:RUN_DIR) and leaderboard.md. See docs/training.md.
For Lost Ranks, the recipe that beats the heuristic bot is not PPO but improvement by
playouts over it: `python -m train.rollout lost_ranks` (its own --help).
"""
EPILOG = """\
Ctrl-C writes a checkpoint (losing at most one rollout) and exits with code 130; `kill`
(SIGTERM, e.g. of a run in the background, where Ctrl-C does not reach) does the same, code 143;
`python -m train GAME --resume RUN_DIR` continues exactly where it stopped, and
`--resume RUN_DIR --timesteps N` continues it up to a larger N.
"""

CLI_FIELDS = [f for f in dataclasses.fields(TrainConfig) if f.name not in ("game", "keywords")]
RESUME_CHANGEABLE = {"timesteps", "progress", "num_env_runners", "address"}
"""What a resumed run may change: its length, the progress bar and (``--backend rllib``)
where it runs. The rest is its own."""


class Parser(argparse.ArgumentParser):
    """argparse with errors that point at ``--help`` (exit code 2, as argparse does)."""

    game_flags: tuple[str, ...] = ()

    def error(self, message: str) -> None:  # type: ignore[override]
        if message.startswith("unrecognized arguments") and self.game_flags:
            message += f"; the game keywords here are {', '.join(self.game_flags)}"
        self.exit(2, f"{self.prog}: error: {message}\n(see `{self.prog} GAME --help`)\n")


def build_parser(game: str | None) -> Parser:
    """The parser for ``game`` (None: only the options every game shares)."""
    config = default_config(game) if game else TrainConfig()
    parser = Parser(
        prog="python -m train",
        usage=USAGE,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        argument_default=argparse.SUPPRESS,
    )
    parser.add_argument("game", metavar="GAME", help="the game to train")
    run = parser.add_argument_group("run")
    run.add_argument("--out", type=Path, help="run directory (default: runs/GAME__EXP__SEED__TIME)")
    run.add_argument(
        "--resume",
        type=Path,
        metavar="RUN_DIR",
        help="continue the run in RUN_DIR from its checkpoint",
    )
    docs = field_docs()
    groups = {
        "run": run,
        "ppo": parser.add_argument_group("PPO and network"),
        "pool": parser.add_argument_group("self-play pool and reward"),
    }
    for f in CLI_FIELDS:
        default = getattr(config, f.name)
        group = groups[_group_of(f.name)]
        help_text = f"{docs[f.name]} (default: {_show(default)})"
        flag = f"--{dashed(f.name)}"
        if isinstance(default, bool):
            group.add_argument(flag, action=argparse.BooleanOptionalAction, help=help_text)
        elif isinstance(default, tuple):
            group.add_argument(flag, type=int, nargs="*", metavar="N", help=help_text)
        else:
            group.add_argument(flag, type=type(default), metavar=_metavar(default), help=help_text)
    if game:
        _add_game_keywords(parser, game)
    return parser


def _group_of(name: str) -> str:
    if name in (
        "exp_name",
        "seed",
        "timesteps",
        "n_envs",
        "torch_threads",
        "precision",
        "checkpoint_every",
        "eval_every",
        "eval_games",
        "arena_games",
        "arena_snapshots",
        "progress",
        "backend",
        "num_env_runners",
        "address",
    ):
        return "run"
    if name in (
        "points_scale",
        "material_scale",
        "win_reward",
        "snapshot_every",
        "pool_size",
        "weight_snapshots",
        "weight_heuristic",
        "weight_random",
        "opponent_deterministic",
        "init_from",
        "imitation_decisions",
        *WARM_START_SETTINGS,
    ):
        return "pool"
    return "ppo"


def _show(value: Any) -> str:
    return " ".join(map(str, value)) if isinstance(value, tuple) else str(value)


def _metavar(value: Any) -> str:
    return {int: "N", float: "X", str: "TEXT"}.get(type(value), "VALUE")


def _add_game_keywords(parser: Parser, game: str) -> None:
    core = feral_envs.game_core(game)
    defaults = {**core.keyword_defaults, **GAME_DEFAULTS.get(game, {}).get("keywords", {})}
    group = parser.add_argument_group(
        f"{game} keywords", f"the rules of the game (docs/{game}.md); training sets its own reward"
    )
    flags = []
    for name, default in defaults.items():
        if name == "reward":
            continue
        flags.append(f"--{dashed(name)}")
        choices = core.keyword_choices.get(name)
        text = f"(default: {default}" + (
            f"; one of: {', '.join(map(str, choices))})" if choices else ")"
        )
        kind = (
            type(default)
            if isinstance(default, (int, float, str)) and not isinstance(default, bool)
            else str
        )
        group.add_argument(
            f"--{dashed(name)}", dest=f"kw_{name}", type=kind, metavar=_metavar(default), help=text
        )
    parser.game_flags = tuple(flags)


def fail(message: str) -> int:
    print(f"python -m train: error: {message}", file=sys.stderr)
    return 2


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    game = argv[0] if argv and not argv[0].startswith("-") else None
    if game is None:
        if any(a in ("-h", "--help") for a in argv):
            build_parser(None).print_help()
            return 0
        return fail(f"give the game to train: {USAGE}\ngames: {', '.join(feral_envs.GAMES)}")
    game = game[:-3] if game.endswith("_v0") else game
    if game not in feral_envs.GAMES:
        return fail(f"unknown game {argv[0]!r}; games: {', '.join(feral_envs.GAMES)}")
    argv[0] = game
    try:
        parser = build_parser(game)
    except ImportError as error:
        return fail(f"game {game!r} is not available in this installation ({error})")
    args = vars(parser.parse_args(argv))
    if "resume" in args:
        return resume(game, args)
    config = default_config(game)
    for key, value in args.items():
        if key.startswith("kw_"):
            config.keywords[key[3:]] = value
        elif key not in ("game", "out"):
            setattr(config, key, tuple(value) if isinstance(getattr(config, key), tuple) else value)
    if "imitation_decisions" not in args and (
        "init_from" in args or config.backend == "rllib"
    ):  # a given start replaces the default warm start; the RLlib backend has none
        config.imitation_decisions = 0
    if config.backend == "rllib":  # the RLlib backend's step size and entropy are constant
        for name in ("learning_rate_end", "ent_coef_end"):
            if name not in args:
                setattr(config, name, getattr(TrainConfig, name))  # the field's default
    if "board" not in args and config.board and ("trunk" in args or config.backend == "rllib"):
        config.board = ()  # --trunk asks for the MLP; the RLlib backend has no board network
    config.__post_init__()
    try:
        warm_start = [name for name in WARM_START_SETTINGS if name in args]
        if warm_start and not config.imitation_decisions:
            name = warm_start[0]
            raise ValueError(
                f"--{dashed(name)} {getattr(config, name)} sets the warm start, and this run "
                "has none (--imitation-decisions 0, the default with --init-from, --backend "
                "rllib or where the game has none), so it would be ignored: give "
                "--imitation-decisions N too, or drop it"
            )
        config.check()
        feral_envs.game_core(game).make_config(**config.keywords)
        from train.run import run_core

        core = run_core(config)
        if config.imitation_decisions:
            from train.imitate import check_memory

            check_memory(core, config.imitation_decisions)
            from train.run import bot_opponent

            try:
                bot_opponent(config.imitation_teacher, game, config.keywords)
            except ImportError as error:
                raise ValueError(
                    f"--imitation-teacher needs the agents package ({error})"
                ) from None
        if config.init_from:
            from train.policy import read_start_weights

            read_start_weights(config.init_from, core, config.trunk, config.heads, config.board)
    except ValueError as error:
        return fail(str(error))
    return run(config, args.get("out"), resume_run=False)


def resume(game: str, args: dict[str, Any]) -> int:
    run_dir: Path = args["resume"]
    try:
        config = TrainConfig.from_json(json.loads((run_dir / "config.json").read_text()))
    except (OSError, ValueError, TypeError) as error:
        return fail(f"cannot resume {run_dir}: no readable config.json ({error})")
    if config.game != game:
        return fail(f"{run_dir} is a {config.game} run, not {game}")
    given = {k for k in args if k not in ("game", "resume")} - RESUME_CHANGEABLE
    if given:
        names = ", ".join(f"--{dashed(k.removeprefix('kw_'))}" for k in sorted(given))
        return fail(
            f"a resumed run keeps its own config ({run_dir}/config.json); "
            "only --timesteps, --progress, --num-env-runners and --address may be given, "
            f"not {names}"
        )
    for key in RESUME_CHANGEABLE & set(args):
        setattr(config, key, args[key])
    try:
        config.check()
    except ValueError as error:
        return fail(str(error))
    return run(config, run_dir, resume_run=True)


def run(config: TrainConfig, out: Path | None, resume_run: bool) -> int:
    """Train (or resume), stopping on Ctrl-C or SIGTERM with a checkpoint (130 or 143)."""
    terminated = []

    def on_sigterm(signum: int, frame: Any) -> None:  # stop as Ctrl-C does
        terminated.append(signum)
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, on_sigterm)
    try:
        return _run(config, out, resume_run, terminated)
    finally:
        signal.signal(signal.SIGTERM, previous)


def _run(config: TrainConfig, out: Path | None, resume_run: bool, terminated: list[int]) -> int:
    from train.run import Interrupted, ResumeError, default_run_dir, train

    def code() -> int:  # the shell's convention: 128 + the signal
        return 128 + (terminated[0] if terminated else signal.SIGINT)

    out = out if out is not None else default_run_dir(config)
    lost: tuple[type[Exception], ...] = ()  # the RLlib backend's lost env runners
    if config.backend == "rllib":
        from train.rllib.backend import RunnersLost
        from train.rllib.backend import train_rllib as train

        lost = (RunnersLost,)
    try:
        trainer = train(config, out, resume=resume_run)
    except lost as error:
        again = f"; continue with: python -m train {config.game} --resume {out}"
        print(f"\n{error}{again if error.step is not None else ''}", file=sys.stderr)
        return 1
    except Interrupted as stop:
        print(
            f"\ninterrupted: checkpoint at step {stop.step} in {stop.run_dir}\n"
            f"continue with: python -m train {config.game} --resume {stop.run_dir}",
            file=sys.stderr,
        )
        return code()
    except ResumeError as error:
        return fail(str(error))
    except KeyboardInterrupt:
        rllib = config.backend == "rllib"
        final, state = ("policy", "trainer.json") if rllib else ("model.zip", "trainer.pkl")
        if not (out / final).exists():  # before learning began (imitation warm start)
            again = (
                f"its last checkpoint is unchanged: python -m train {config.game} --resume {out}"
                if (out / "checkpoint" / state).exists()
                else "nothing was saved: give the command again"
            )
            print(f"\ninterrupted before the run wrote a checkpoint; {again}", file=sys.stderr)
        else:  # in the final arena: the training itself is complete and saved
            print(
                "\ninterrupted during the final arena; the trained policy is saved in "
                f"{out}/{final} (rate it with python -m agents.arena {config.game} --agents "
                f"random {'rllib' if rllib else 'ppo'}:{out})",
                file=sys.stderr,
            )
        return code()
    print(f"run directory: {trainer.run_dir}")
    print(summary_line(config.game, trainer.run_dir, config.backend))
    return 0


def summary_line(game: str, run_dir: Path, backend: str = "sb3") -> str:
    """One line for a newcomer at the end of a run: where the agent is, how its final arena
    rated it against random and the heuristic (``leaderboard.json``), and played greedily
    against the heuristic (:data:`train.run.GREEDY`), how to play it."""
    rllib = backend == "rllib"
    model = Path(run_dir) / ("policy" if rllib else "model.zip")
    ratings = []
    try:
        board = json.loads((Path(run_dir) / "leaderboard.json").read_text())
    except (OSError, ValueError):
        board = {}
    from train.run import GREEDY, rating_text

    def rated_against(key: str, agent: str, anchor: str) -> str | None:
        rows = board.get(key) or []
        if key == "leaderboard" and board.get("anchor") not in (None, "random"):
            return None
        row = next((r for r in rows if r.get("agent") == agent), None)
        if row is None or not any(r.get("agent") == anchor for r in rows):
            return None
        return f"{rating_text(row['elo'], row['low'], row['high'])} Elo vs {anchor}"

    for key, anchor in (("leaderboard", "random"), ("leaderboard_vs_heuristic", "heuristic")):
        if (text := rated_against(key, "final", anchor)) is not None:
            ratings.append(text)
    greedy = rated_against("leaderboard_vs_heuristic", GREEDY, "heuristic")
    if greedy is not None and ratings:
        argmax = "rllib_argmax" if rllib else "ppo_argmax"
        ratings[-1] += f"; played greedily ({argmax}:PATH) {greedy}"
    rated = f" (rated {', '.join(ratings)}; leaderboard.md)" if ratings else ""
    return (
        f"Your agent is {model}{rated}. Play against it: "
        f"python -m play.terminal {game} --opponents {'rllib' if rllib else 'ppo'}:{model}"
    )
