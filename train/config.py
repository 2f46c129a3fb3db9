"""Every training setting, with its default, in one place (CleanRL style).

:class:`TrainConfig` holds one field per setting with a doc line under it; the command line
(``python -m train GAME --help``) is generated from those fields and lines, and a run writes
the resolved config beside itself (``config.json``). :data:`GAME_DEFAULTS` holds the only
per-game departures from the field defaults: the training reward's scale, the length of the
default run and, where useful, game keywords. Nothing else in ``train/`` holds a default.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import itertools
import math
import textwrap
from dataclasses import dataclass, field
from typing import Any

SCALED = -1
"""``--eval-games`` or ``--arena-games`` that scales the end-of-run evaluation with the run
(:func:`scaled_games`): a tiny run is not followed by minutes of evaluation games."""
DECISIONS_PER_GAME = 1_000
FEWEST_SCALED_GAMES = 20
MOST_EVAL_GAMES = 200
MOST_ARENA_GAMES = 400


def scaled_games(trained_timesteps: int, most: int) -> int:
    """The games of a scaled evaluation (:data:`SCALED`): one per ``DECISIONS_PER_GAME``
    learner decisions trained, rounded up to an even number (the arena plays each deal
    twice), at least ``FEWEST_SCALED_GAMES`` and at most ``most``: a run of 200,000
    decisions or more plays 200 games per quick evaluation, one of 400,000 or more 400 arena
    games per pair."""
    games = -(-trained_timesteps // DECISIONS_PER_GAME)
    return max(FEWEST_SCALED_GAMES, min(most, games + games % 2))


@dataclass
class TrainConfig:
    """One training run: the game, PPO's hyper-parameters, the self-play pool and the run."""

    game: str = "lost_heir"
    """Game to train (``lost_heir``, ``lost_ranks``, ``hidden_ranks``)."""
    exp_name: str = "ppo_selfplay"
    """Experiment name: the second part of the run directory name."""
    seed: int = 1
    """Seed of everything: games, opponents, network initialisation, minibatches."""
    timesteps: int = 1_000_000
    """Learner decisions to train for, summed over all games (SB3's total_timesteps; SB3
    trains whole rollouts, so it is rounded up to a multiple of n_steps * n_envs)."""
    n_envs: int = 128
    """Games stepped at once by the batched env (one learner decision each per step)."""
    n_steps: int = 64
    """Learner decisions per game in one PPO rollout (rollout size = n_steps * n_envs)."""
    batch_size: int = 2048
    """PPO minibatch size; must divide n_steps * n_envs."""
    n_epochs: int = 3
    """Passes over each rollout per PPO update."""
    learning_rate: float = 3e-4
    """Adam step size (at the start of the run, see --learning-rate-end)."""
    learning_rate_end: float = -1.0
    """Adam step size at the end of the run, reached linearly from --learning-rate over the
    run's decisions (each PPO update at the decisions collected before its rollout over
    --timesteps, so the first update has --learning-rate; a resumed run keeps the line to its
    --timesteps); -1: constant, --learning-rate throughout."""
    gamma: float = 0.995
    """Discount per learner decision."""
    gae_lambda: float = 0.95
    """GAE lambda."""
    clip_range: float = 0.2
    """PPO policy clip range."""
    ent_coef: float = 0.01
    """Entropy bonus coefficient (at the start of the run, see --ent-coef-end)."""
    ent_coef_end: float = math.inf
    """Entropy bonus coefficient at the end of the run, reached linearly from --ent-coef over
    the run's decisions, as --learning-rate-end is; inf: constant, --ent-coef throughout."""
    vf_coef: float = 0.5
    """Value loss coefficient."""
    max_grad_norm: float = 0.5
    """Gradient norm clip."""
    trunk: tuple[int, ...] = (64,)
    """Tanh layers shared by policy and value, after symlog of the observation."""
    heads: tuple[int, ...] = (64,)
    """Tanh layers of each head (policy, value) on top of the trunk."""
    board: tuple[int, ...] = ()
    """Hidden Ranks: channels of the 3x3 convolutions of the board network
    (agents/networks/board.py), which scores each move from its from- and to-square, instead
    of the MLP (--trunk is then not given and --heads sizes the value head only); empty (a
    bare --board): the MLP, which --trunk given without --board also chooses."""
    advice: bool = False
    """Lost Ranks: the heuristic bot's choice as more inputs of the network, which learns
    where to deviate from it (agents/advice.py); the policy then runs the bot in play too."""
    par: bool = False
    """Lost Ranks: count each round's points against the bot's own result on the same cards
    (a copy of the round played out by the heuristic in all seats), removing the deal's luck
    from the reward (train/advice.py)."""
    torch_threads: int = 1
    """torch.set_num_threads: 1 by default. On a quiet 2-core machine 2 gives 1.33x the
    learner decisions/s (Lost Heir's defaults), but with the other core busy a 2-thread run
    was 3.3x slower than a 1-thread run (docs/training.md)."""
    precision: str = "auto"
    """Number format of the trunk's products in SB3 training (the MLP's or the board
    network's first layers, where most of its arithmetic is): ``fp32``; ``bf16``, bfloat16
    products with float32 sums, weights and outputs (torch's CPU autocast); ``auto``: bf16
    where the CPU has AMX tiles (there 1.16x Lost Heir's default learner decisions/s,
    docs/training.md), else fp32. Policy files hold float32 weights either way."""
    points_scale: float = 0.05
    """Reward per point of the learner side's score lead gained (card games: per hand/round)."""
    material_scale: float = 0.0
    """Reward per unit of the learner side's material lead gained (Hidden Ranks: the values of
    the pieces struck off, train/shaping.py); a shaping term, 0 = off."""
    win_reward: float = 1.0
    """Reward for winning the game at its end (minus for a loss, 0 for a draw or truncation)."""
    snapshot_every: int = 50_000
    """Learner decisions between frozen snapshots of the learner added to the opponent pool."""
    pool_size: int = 8
    """Most recent snapshots kept for sampling opponents (older ones leave the pool)."""
    weight_snapshots: float = 0.5
    """Chance that a game's opponents are a snapshot (half of it the newest, half spread)."""
    weight_heuristic: float = 0.25
    """Chance that a game's opponents are the heuristic bot (dropped if there is none)."""
    weight_random: float = 0.25
    """Chance that a game's opponents play uniformly random legal actions."""
    opponent_deterministic: bool = False
    """Snapshots play their most likely action instead of sampling from their policy."""
    init_from: str = ""
    """Start from the network of this policy file or run directory (a checkpoint: policy and
    value; a snapshot: policy only) instead of a fresh one, to fine-tune it ("": fresh)."""
    imitation_decisions: int = 0
    """Warm start: clone this many decisions of ``imitation_teacher`` (against the heuristic,
    from both sides) into the network before PPO starts (0: start from scratch; see
    train/imitate.py)."""
    imitation_teacher: str = "heuristic"
    """The bot the warm start clones, an agents spec (``heuristic``, ``heuristic:guard=10``,
    a search bot); it plays against the heuristic."""
    imitation_epochs: int = 4
    """Passes over the teacher's decisions when cloning them."""
    imitation_learning_rate: float = 1e-3
    """Adam step size while cloning (PPO's --learning-rate applies afterwards)."""
    imitation_batch_size: int = 2048
    """Minibatch size while cloning (PPO's --batch-size applies afterwards)."""
    checkpoint_every: int = 100_000
    """Learner decisions between checkpoints (one is also written at the end and on Ctrl-C)."""
    eval_every: int = 500_000
    """Learner decisions between quick evaluations against random (also one at the end)."""
    eval_games: int = -1
    """Games of each quick evaluation, all played at once (0: no quick evaluation; -1: scaled
    with the run, one per 1,000 decisions it trains, 20 to 200)."""
    arena_games: int = -1
    """Games per pairing of the arena at the end of the run (0: no arena; -1: scaled with the
    run, one per 1,000 decisions it trains, 20 to 400)."""
    arena_snapshots: int = 2
    """Earlier snapshots that also enter the final arena (evenly spaced over the run)."""
    progress: bool = True
    """Show a progress bar (steps, fps, ETA, last rating)."""
    backend: str = "sb3"
    """Training library: ``sb3`` (MaskablePPO, one process) or ``rllib`` (Ray RLlib's
    multi-agent PPO, on this machine or a Ray cluster; docs/rllib.md)."""
    num_env_runners: int = 1
    """--backend rllib: RLlib env runner processes stepping games (0: in the driver)."""
    address: str = ""
    """--backend rllib: the Ray cluster to join (``ray start --head``'s address; "": the
    ``RAY_ADDRESS`` variable if set, else a local Ray started for the run)."""
    keywords: dict[str, Any] = field(default_factory=dict)
    """Game keywords (``--variant``, ``--max-hands``, ...): passed to the rules core."""

    def __post_init__(self) -> None:
        self.trunk = tuple(int(n) for n in self.trunk)
        self.heads = tuple(int(n) for n in self.heads)
        self.board = tuple(int(n) for n in self.board)
        self.keywords = dict(self.keywords)

    @property
    def rollout_size(self) -> int:
        return self.n_steps * self.n_envs

    @property
    def trained_timesteps(self) -> int:
        """The learner decisions the run trains: SB3 collects whole rollouts, so ``timesteps``
        rounded up to a multiple of ``rollout_size`` (a resumed run continues from a rollout's
        end, so it ends there too)."""
        return -(-self.timesteps // self.rollout_size) * self.rollout_size

    @property
    def eval_game_count(self) -> int:
        """The games of each quick evaluation: ``eval_games``, or scaled (:func:`scaled_games`)."""
        if self.eval_games == SCALED:
            return scaled_games(self.trained_timesteps, MOST_EVAL_GAMES)
        return self.eval_games

    @property
    def arena_game_count(self) -> int:
        """The final arena's games per pair: ``arena_games`` (made even: each deal is played
        twice, sides swapped), or scaled (:func:`scaled_games`)."""
        if self.arena_games == SCALED:
            return scaled_games(self.trained_timesteps, MOST_ARENA_GAMES)
        return self.arena_games + self.arena_games % 2

    def check(self) -> None:
        """Raise ``ValueError`` naming the first setting that cannot work."""
        positive = (
            "timesteps",
            "n_envs",
            "n_steps",
            "batch_size",
            "n_epochs",
            "torch_threads",
            "snapshot_every",
            "pool_size",
            "checkpoint_every",
            "imitation_epochs",
            "imitation_batch_size",
        )
        for name in positive:
            if getattr(self, name) < 1:
                raise ValueError(f"--{dashed(name)} must be at least 1, got {getattr(self, name)}")
        if self.backend not in BACKENDS:
            raise ValueError(
                f"--backend must be one of {', '.join(BACKENDS)}, got {self.backend!r}"
            )
        if self.precision not in PRECISIONS:
            raise ValueError(
                f"--precision must be one of {', '.join(PRECISIONS)}, got {self.precision!r}"
            )
        if self.backend == "rllib":
            from train.rllib.backend import check_config

            check_config(self)
        for name in ("eval_games", "arena_games"):
            if getattr(self, name) < SCALED:
                raise ValueError(
                    f"--{dashed(name)} must be at least 0, or {SCALED} to scale it with the run, "
                    f"got {getattr(self, name)}"
                )
        for name in ("arena_snapshots", "imitation_decisions"):
            if getattr(self, name) < 0:
                raise ValueError(f"--{dashed(name)} must be at least 0, got {getattr(self, name)}")
        if self.rollout_size % self.batch_size:
            raise ValueError(
                f"--batch-size {self.batch_size} must divide n_steps * n_envs = {self.rollout_size}"
            )
        weights = (self.weight_snapshots, self.weight_heuristic, self.weight_random)
        if min(weights) < 0 or self.weight_random + self.weight_snapshots <= 0:
            raise ValueError(
                "opponent weights must be >= 0 with weight_random + "
                "weight_snapshots > 0 (the heuristic may be missing)"
            )
        if self.material_scale:
            from train.shaping import material_of

            material_of(self.game)  # ValueError for a game without pieces
        if self.learning_rate_end < 0 and self.learning_rate_end != -1:
            raise ValueError(
                f"--learning-rate-end must be at least 0, or -1 for a constant step size, got "
                f"{self.learning_rate_end}"
            )
        if math.isnan(self.ent_coef_end) or self.ent_coef_end == -math.inf:
            raise ValueError(
                f"--ent-coef-end must be a number, or inf for a constant coefficient, got "
                f"{self.ent_coef_end}"
            )
        if self.init_from and self.imitation_decisions:
            raise ValueError("give --init-from or --imitation-decisions, not both")
        for name in ("trunk", "heads", "board"):
            sizes = getattr(self, name)
            if sizes and min(sizes) < 1:
                raise ValueError(f"--{name} needs positive layer sizes, got {sizes}")
        if self.board:
            from agents.networks.board import GAMES

            if self.game not in GAMES:
                raise ValueError(
                    f"--board needs a board game ({', '.join(GAMES)}); {self.game} has no board"
                )
            if self.trunk != type(self).trunk:  # not the field default
                raise ValueError(
                    "--trunk is unused with --board (its convolutions are the trunk): "
                    "drop --trunk, or drop --board to train the MLP"
                )

        from agents.advice import check_game

        for flag in ("advice", "par"):
            if getattr(self, flag):
                check_game(self.game, f"--{flag}")
        if self.par and not self.points_scale:
            raise ValueError("--par counts round points: it needs --points-scale above 0")

    def to_json(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        for name in ("trunk", "heads", "board"):
            data[name] = list(getattr(self, name))
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TrainConfig:
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown config field(s): {', '.join(unknown)}")
        return cls(**data)


WARM_START_SETTINGS = (
    "imitation_teacher",
    "imitation_epochs",
    "imitation_learning_rate",
    "imitation_batch_size",
)
"""The fields that shape the warm start: given on the command line to a run without one
(``imitation_decisions`` 0), they are refused rather than ignored."""

BACKENDS = ("sb3", "rllib")
"""The training libraries of ``--backend``."""

PRECISIONS = ("auto", "fp32", "bf16")
"""The number formats of ``--precision`` (:func:`train.policy.use_bf16`)."""

CARD_GAME_RECIPE: dict[str, Any] = {
    "imitation_decisions": 600_000,
    "imitation_epochs": 6,
    "imitation_batch_size": 512,
    "trunk": (256,),
    "heads": (128,),
    "learning_rate": 5e-4,
    "learning_rate_end": 0.0,
    "ent_coef": 0.005,
    "ent_coef_end": 0.0,
    "weight_snapshots": 0.3,
    "weight_heuristic": 0.6,
    "weight_random": 0.1,
    "snapshot_every": 1_000_000,
    "eval_every": 1_000_000,
}
"""The card games' default recipe (Lost Heir's, taken by Lost Ranks on 2026-12-07): a clone
of 600k heuristic decisions (6 epochs in minibatches of 512) into a wider network, then PPO
against a pool that is 60 % the heuristic, the step size and entropy coefficient falling
linearly to 0. Minibatches of 512 instead of 2048 (2026-12-07): the clones agree with the
bot on 92.3 % and 85.4 % instead of 90.9 % and 83.0 %, and the runs' final policies rated
+39, +41 and +42 (Lost Heir with 10M decisions, seeds 1 to 3; +30, +2 and +12 before) and
-147 (Lost Ranks; -246 before) relative to the heuristic."""

GAME_DEFAULTS: dict[str, dict[str, Any]] = {
    # Per-hand points lead: a hand moves the lead by about -25..+25 points, so 0.05 keeps a
    # hand's reward within about +-1.25, comparable with the +-1 for the game.
    # The default run starts from a clone of the heuristic bot (600k of its decisions, 6
    # epochs, a wider network to hold it) and then plays mostly against the bot, which it
    # must learn to exploit; without the clone the 2M-decision default scored 4 % against
    # the bot. 9M decisions on torch's one thread, the trunk in bfloat16 where the CPU has
    # AMX (--precision auto). The step size and the entropy coefficient fall linearly to 0
    # over the run. 9M (2026-12-07, was 10M) keeps `make train` within 15 minutes on a slow
    # day: 10M took 15 min 41 s from a fresh clone on one (+39 [+22, +56] relative to the
    # bot). 9M, seeds 1, 2 and 3: +38 [+21, +56], +25 [+8, +43], +35 [+19, +51] (greedily
    # +57, +62, +72), 12 min 44 s to 13 min 21 s with two runs side by side; 10M: +39, +41,
    # +42. With the clone in minibatches of 2048 (before CARD_GAME_RECIPE's 512), 10M: +30,
    # +2, +12; in a three-seed ablation of the schedules (then one rollout later) +16, +20,
    # +0, against +7, -13, -12 with both constant. See docs/training.md, "Default runs".
    "lost_heir": {
        "timesteps": 9_000_000,
        "points_scale": 0.05,
        **CARD_GAME_RECIPE,
    },
    # A round moves the lead by at most 12 points (each army scores 0..6). Lost Heir's recipe
    # (the clone of 600k heuristic decisions, the wider network, the heuristic-heavy pool,
    # the schedules to 0) with 6M decisions of PPO: -147 [-165, -129] relative to the bot in
    # its final arena, in 11 min 38 s from a fresh clone; -246 [-269, -226] with the clone
    # in minibatches of 2048, and -675 for the plain-PPO default before that (2M decisions,
    # 64x64), which the recipe's 2M version beat 72.5 % head to head. Still far below the
    # bot. See docs/training.md, "Default runs".
    "lost_ranks": {
        "timesteps": 6_000_000,
        "points_scale": 0.1,
        **CARD_GAME_RECIPE,
    },
    # No score: the reward is the game's result only. The default run clones 225k decisions
    # of the heuristic with its Marshal by its Flag (heuristic:guard=10, +157 and +172 Elo
    # over the plain heuristic in the quick game) into the board network (3 epochs in
    # minibatches of 256, about 10 minutes in all), then trains 57k decisions of PPO (about
    # 500 a second) against a pool that is half random. The clone is the strength, and small
    # minibatches make it: 150k decisions fitted in minibatches of 2048 (5 epochs, the default
    # before) gave a clone at -24 relative to the heuristic, in minibatches of 256 (3 epochs)
    # +26. Quick game, seeds 1, 2 and 3: +65 [+5, +132], +92 [+30, +154] and +57 [-5, +120]
    # relative to the heuristic, in about 13 minutes each (the default before: -7 and -9 on
    # seeds 1 and 2), and +70, +62 and +68 with every lower end above 0 in arenas of 120
    # games a pair (--arena-games 120; the scaled 58 serve the full game's 15 minutes too);
    # full game +431 [+337, +566] over random in 13 min 39 s (before: +420);
    # docs/training.md, "Default runs".
    "hidden_ranks": {
        "timesteps": 50_000,
        "points_scale": 0.0,
        "imitation_decisions": 225_000,
        "imitation_teacher": "heuristic:guard=10",
        "imitation_epochs": 3,
        "imitation_batch_size": 256,
        "board": (32, 32, 32, 32),
        "learning_rate": 1e-4,
        "ent_coef": 0.001,
        "weight_snapshots": 0.3,
        "weight_heuristic": 0.2,
        "weight_random": 0.5,
        "arena_snapshots": 1,
    },
}
"""Per-game departures from the :class:`TrainConfig` defaults (and default game keywords)."""


def default_config(game: str) -> TrainConfig:
    """The default config of ``game``: field defaults, then :data:`GAME_DEFAULTS`."""
    return TrainConfig(game=game, **GAME_DEFAULTS.get(game, {}))


def dashed(name: str) -> str:
    return name.replace("_", "-")


def field_docs(cls: type = TrainConfig) -> dict[str, str]:
    """The doc line under each field of a dataclass, by field name (for ``--help``)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    body = tree.body[0].body  # type: ignore[attr-defined]
    docs = {}
    for node, after in itertools.pairwise(body):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            docs[node.target.id] = " ".join(after.value.value.split())
    return docs


def shown_value(value: Any) -> str:
    """A default as the docs table shows it: ``2,000,000``, ``256 128``, ``0.0005``."""
    if isinstance(value, tuple):
        return " ".join(map(str, value))
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


def config_table() -> str:
    """Every option with its default, per-game defaults and doc line, as Markdown (the
    generated block ``train-config`` of ``docs/training.md``)."""
    docs = field_docs()
    rows = ["| option | default | per game | meaning |", "| --- | --- | --- | --- |"]
    base = TrainConfig()
    for f in dataclasses.fields(TrainConfig):
        if f.name in ("game", "keywords"):
            continue
        value = getattr(base, f.name)
        shown = " ".join(map(str, value)) if isinstance(value, tuple) else value
        games = [f"{g}: {shown_value(d[f.name])}" for g, d in GAME_DEFAULTS.items() if f.name in d]
        shown = f"{shown:,}" if isinstance(shown, int) and not isinstance(shown, bool) else shown
        rows.append(f"| `--{dashed(f.name)}` | {shown} | {'; '.join(games)} | {docs[f.name]} |")
    return "\n".join(rows)


DOCS_PAGE = "docs/training.md"


def render_docs(text: str) -> str:
    """``text`` with its ``train-config`` block rewritten from :func:`config_table`."""
    import re

    block = re.compile(
        r"(<!-- BEGIN GENERATED: train-config -->\n).*?(<!-- END GENERATED: "
        r"train-config -->)",
        re.S,
    )
    return block.sub(lambda m: f"{m.group(1)}{config_table()}\n{m.group(2)}", text)


if __name__ == "__main__":  # python -m train.config: rewrite the table in docs/training.md
    from pathlib import Path

    page = Path(__file__).resolve().parent.parent / DOCS_PAGE
    page.write_text(render_docs(page.read_text()))
    print(f"updated {page}")
