"""``python -m train.rollout GAME``: policy improvement over the heuristic bot by playouts.

PPO from a copy of the Lost Ranks bot found no gain over it (``docs/training.md``): its
returns are too noisy to say which of the bot's choices to change. This recipe measures that
directly, as the *rollout* algorithm does (Bertsekas; Tesauro and Galperin's backgammon
player), and learns the result in a network instead of searching at play time (expert
iteration's first step, with the bot's playouts as the expert):

1. **Collect** (:func:`collect_chunk`). The bot plays all four seats of many games. At a
   random ``share`` of the decisions with two or more legal actions, every legal action is
   tried on a copy of the game, and the copy is played to the end of the round by the bot in
   all seats; the acting side's score-lead change from the decision to the round's end is
   the action's value ``Q(s, a)`` under the bot. Where the copy is made:

   * ``deals`` 0: on the true cards. The bot and the rules are deterministic within a round,
     so one playout per action is exact for that deal, but it is the value *for that deal*,
     which the seat cannot see: the fit must average out the hidden cards itself.
   * ``deals`` N: on N deals of the hidden cards sampled from the acting seat's view
     (the game's search sampler, ``feral_envs/lost_ranks/search.py``'s ``sample_world``
     through ``determinize.sample_deal``: a function of that view alone), the same N for
     every action, averaged: perfect-information Monte Carlo search, which never peeks. Only
     play-phase decisions are measured (``determinize.can_sample``: the card network's gate).

   Each decision keeps the seat's observation with the bot's advice (``agents/advice.py``),
   the legal actions, the bot's action and the advantages ``A(s, a) = Q(s, a) - Q(s, bot's)``.
   Decisions come in chunks of ``chunk`` decisions, each from its own seed, written to
   ``values/`` as they finish: the work is spread over ``workers`` processes, and running the
   same command again continues an interrupted collection (or extends it to more decisions).
2. **Fit** (:func:`fit`). A network is fit by least squares to the advantages of the legal
   actions. It sees only the seat's observation and the advice, so it learns the expected
   advantage given what the seat sees; playing its largest output is the improved policy,
   which departs from the bot only where it expects to gain more than ``margin`` points.

   * ``network`` "cards" (the default, ``agents/networks/cards.py``): a transformer over one token
     per card, each scored by the same small network; the fit is to ``A(s, a)`` itself and
     ``margin`` is added to the bot's card at play, so "auto" chooses it with the epoch on
     the validation set among :data:`MARGINS`; if the gain there does not clear 0 by its 95%
     interval, the last (which follows the bot everywhere): a fit that cannot beat the bot
     is played as the bot. It plays the
     bot's card wherever the decision is not of a kind that was measured (the pass).
   * ``network`` "mlp": the network of ``python -m train`` (symlog inputs, tanh trunk and
     policy head), fit to ``A(s, a) - margin`` for the actions other than the bot's and to 0
     for the bot's ("auto": 0.6). It learns much less from the same decisions
     (``docs/training.md``).

   Its logits are the predictions over ``temperature``. Chunks whose index
   ends in 0 are the *test* set and those ending in 1 the *validation* set, which picks the
   epoch to keep; a chunk's decisions share games, so no game is split between sets.
3. **Measure.** On the test decisions, unseen in the fit, the chosen actions' advantages give
   the policy's gain over the bot in points per decision, with the bot playing on (``gain``,
   with a 95% interval), and how often it departs from the bot: measured on the true cards
   with ``deals`` 0, as the search estimates it otherwise. The arena then rates the policy
   against the heuristic and random, as ``python -m train`` does: the figure that counts.

The policy is the bot and the network together (an advised policy file, ``ppo:PATH`` in
the arena); it needs a deterministic, memoryless bot (``agents.advice.GAMES``).
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import importlib
import json
import multiprocessing
import shutil
import signal
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.advice import Advisor, check_game
from feral_envs.core import GameCore
from train.advice import play_round_out
from train.config import dashed

NETWORKS = ("cards", "mlp")
"""The networks ``--network`` can fit."""
MARGINS = (0.0, 0.1, 0.2, 0.3, 0.5, 1.0, 1000.0)
"""The card network's margins that ``--margin auto`` chooses from (1000: the bot's card)."""
MLP_MARGIN = 0.6
"""The MLP's margin under ``--margin auto`` (measured: docs/training.md)."""


@dataclass
class RolloutConfig:
    """One rollout-improvement run: the game, the collection, the fit and the arena."""

    game: str = "lost_ranks"
    """Game (one whose heuristic can advise: lost_ranks)."""
    out: str = ""
    """Run directory ("": runs/GAME__rollout__SEED); running again continues its collection."""
    seed: int = 1
    """Seed of the games (chunk k plays from the seed sequence (seed, k)), the fit and the arena."""
    decisions: int = 100_000
    """Decisions to collect, in whole chunks (per worker on 2 busy cores, about 17 a second
    with --deals 0 and 8 with --deals 8)."""
    chunk: int = 5_000
    """Decisions per chunk file (the unit of work, of resuming and of the test split)."""
    share: float = 0.2
    """Chance that a decision with two or more legal actions is measured (spreads the
    decisions over more games)."""
    deals: int = 8
    """0: play each action out on the true cards; N > 0: on N deals of the hidden cards
    sampled from the acting seat's view, averaged (search without peeking; only decisions
    where the game can sample deals are measured: Lost Ranks' play phase)."""
    workers: int = 2
    """Processes that collect chunks (0: in this process)."""
    network: str = "cards"
    """The network fit: "cards" (agents/networks/cards.py: a score per card from its own view of the
    observation) or "mlp" (the network of python -m train: --trunk, --heads)."""
    width: int = 64
    """Features per card token of the card network."""
    layers: int = 2
    """Transformer encoder layers of the card network."""
    trunk: tuple[int, ...] = (256,)
    """MLP: tanh layers after symlog of the observation and the advice."""
    heads: tuple[int, ...] = (128,)
    """MLP: tanh layers of the policy head."""
    margin: float | str = "auto"
    """Points the network must expect to gain before it departs from the bot, or "auto"
    (cards: added to the bot's card at play, "auto" chooses it on the validation set among
    0 0.1 0.2 0.3 0.5 1, or 1000, which never departs, if the gain there is not above 0 by
    its 95% interval; mlp: taken off the other cards' targets, "auto" is 0.6)."""
    temperature: float = 0.1
    """Logits are the predicted advantages over this (points): sampling is near greedy."""
    epochs: int = 16
    """Passes over the training decisions (the validation set keeps the best one)."""
    learning_rate: float = 1e-3
    """Adam step size of the fit."""
    batch_size: int = 512
    """Decisions per fit step."""
    arena_games: int = 500
    """Games per pairing of the arena at the end against the heuristic and random (0: none)."""
    progress: bool = True
    """Show progress bars."""
    keywords: dict[str, Any] = dataclasses.field(default_factory=dict)
    """Game keywords (``--variant``)."""

    def check(self) -> None:
        """``ValueError`` naming the first setting that cannot work."""
        check_game(self.game, "train.rollout")
        for name in ("decisions", "chunk", "epochs", "batch_size", "layers"):
            if getattr(self, name) < 1:
                raise ValueError(f"--{dashed(name)} must be at least 1, got {getattr(self, name)}")
        if self.margin != "auto" and not (
            isinstance(self.margin, int | float) and self.margin >= 0
        ):
            raise ValueError(f'--margin must be "auto" or at least 0, got {self.margin!r}')
        for name in ("workers", "arena_games", "deals"):
            if getattr(self, name) < 0:
                raise ValueError(f"--{dashed(name)} must be at least 0, got {getattr(self, name)}")
        if self.chunks < 3:
            raise ValueError(
                f"--decisions {self.decisions:,} make {self.chunks} chunk(s) of "
                f"{self.chunk:,}; the fit needs at least 3 (fit, validation, test)"
            )
        if not 0 < self.share <= 1:
            raise ValueError(f"--share must be in (0, 1], got {self.share}")
        if self.temperature <= 0:
            raise ValueError(f"--temperature must be above 0, got {self.temperature}")
        if self.network not in NETWORKS:
            raise ValueError(
                f"--network must be one of {', '.join(NETWORKS)}, got {self.network!r}"
            )
        if self.network == "cards":
            from agents.networks.cards import N_HEADS

            if self.width < N_HEADS or self.width % N_HEADS:
                raise ValueError(
                    f"--width must be a positive multiple of {N_HEADS}, got {self.width}"
                )
        if min(self.trunk + self.heads, default=1) < 1 or not self.trunk:
            raise ValueError("--trunk needs one or more positive sizes, --heads positive sizes")

    @property
    def chunks(self) -> int:
        return -(-self.decisions // self.chunk)


class Playouts:
    """The advantages of every legal action over the bot's by playouts: on the true cards,
    one per action, or with ``deals`` > 0 averaged over that many deals sampled from the
    acting seat's view (``feral_envs.<game>.determinize``, over the game's search sampler),
    the same deals for every action."""

    def __init__(self, game: str, keywords: dict[str, Any], deals: int = 0) -> None:
        check_game(game, "train.rollout")
        self.core: GameCore = importlib.import_module(f"feral_envs.{game}").CORE
        self.advisor = Advisor(game, keywords)
        self.deals = deals
        self.determinize = (
            importlib.import_module(f"feral_envs.{game}.determinize") if deals else None
        )

    def can_measure(self, state: Any) -> bool:
        """Whether ``state``'s decision can be measured: always on the true cards; with
        sampled deals, where the game can sample them (Lost Ranks: the play phase)."""
        return self.determinize is None or self.determinize.can_sample(state)

    def advantages(
        self,
        state: Any,
        rng: np.random.Generator,
        bot_action: int,
        sampler: np.random.Generator | None = None,
    ) -> np.ndarray:
        """``A(s, a)`` in points of each legal action for the seat to act (0 elsewhere);
        ``state`` and ``rng`` are not changed; ``sampler`` draws the deals."""
        core = self.core
        seat = core.seat_to_act(state)
        team = core.team_of_seat[seat]
        values = np.zeros(core.n_actions, np.float32)
        legal = np.flatnonzero(core.legal_mask(state))
        if self.determinize is None:
            starts = [state]
        else:
            assert sampler is not None, "sampled deals need a generator"
            starts = [self.determinize.sample_deal(state, seat, sampler) for _ in range(self.deals)]
        for start in starts:
            for action in legal:
                values[action] += play_round_out(
                    core,
                    self.advisor.bot,
                    copy.deepcopy(start),
                    copy.deepcopy(rng),
                    team,
                    int(action),
                )
        values /= len(starts)
        values[legal] -= values[bot_action]
        return values


@dataclass
class Values:
    """Measured decisions: the advised observations, legal actions, the bot's actions and
    the advantages of every action (0 where illegal)."""

    obs: np.ndarray
    masks: np.ndarray
    bot: np.ndarray
    advantages: np.ndarray

    def __len__(self) -> int:
        return len(self.bot)

    @classmethod
    def concatenate(cls, parts: Sequence[Values]) -> Values:
        return cls(
            *(np.concatenate([getattr(p, f.name) for p in parts]) for f in dataclasses.fields(cls))
        )


def collect_chunk(
    game: str,
    keywords: dict[str, Any],
    seed: int,
    index: int,
    size: int,
    share: float,
    playouts: Playouts | None = None,
    deals: int = 0,
) -> Values:
    """Chunk ``index`` of a collection (module doc, step 1): ``size`` measured decisions of
    bot self-play, from the seed sequence ``(seed, index)`` alone."""
    playouts = playouts or Playouts(game, keywords, deals)
    core, advisor = playouts.core, playouts.advisor
    config = core.make_config(**keywords)
    rng = np.random.default_rng([seed, index])
    pick = np.random.default_rng([seed, index, 1])  # the decisions measured, the deals sampled
    obs = np.zeros((size, core.obs_shape[0] + core.n_actions), np.float32)
    masks = np.zeros((size, core.n_actions), bool)
    bot = np.zeros(size, np.int64)
    advantages = np.zeros((size, core.n_actions), np.float32)
    n = 0
    while n < size:
        state = core.new_game(config, rng, {})
        while n < size and not any(core.status(state)[:2]):
            seat = core.seat_to_act(state)
            mask = core.legal_mask(state)
            seen = core.observe(state, seat)
            action = advisor.bot.act(seen, mask)
            if mask.sum() > 1 and playouts.can_measure(state) and pick.random() < share:
                obs[n] = advisor.augment(seen, mask)
                masks[n], bot[n] = mask, action
                advantages[n] = playouts.advantages(state, rng, action, pick)
                n += 1
            core.apply(state, action, rng)
    return Values(obs, masks, bot, advantages)


_worker: Playouts | None = None


def _init_worker(game: str, keywords: dict[str, Any], deals: int) -> None:
    global _worker
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the main process, which ends us
    _worker = Playouts(game, keywords, deals)


def _chunk_job(job: tuple[str, dict[str, Any], int, int, int, float]) -> tuple[int, Values]:
    game, keywords, seed, index, size, share = job
    return index, collect_chunk(game, keywords, seed, index, size, share, _worker)


def chunk_path(run_dir: Path, index: int) -> Path:
    return run_dir / "values" / f"chunk-{index:05d}.npz"


def write_chunk(path: Path, values: Values) -> None:
    """Written whole or not at all (a temporary name, then renamed); the observations as
    float16 where that is exact (Lost Ranks': 0/1 flags and small counts)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npz")
    np.savez_compressed(
        tmp,
        obs=small
        if np.array_equal(small := values.obs.astype(np.float16), values.obs)
        else values.obs,
        masks=values.masks,
        bot=values.bot,
        advantages=values.advantages,
    )
    tmp.replace(path)


def read_chunk(path: Path) -> Values:
    """A chunk file; ``ValueError`` naming the file if it is not one."""
    try:
        with np.load(path) as data:
            return Values(
                data["obs"].astype(np.float32),
                data["masks"],
                data["bot"],
                data["advantages"],
            )
    except (OSError, KeyError, ValueError, EOFError) as error:
        raise ValueError(
            f"{path}: not a chunk of measured decisions ({error}); delete it"
        ) from None


def collect(config: RolloutConfig, run_dir: Path) -> float:
    """Write every missing chunk of ``run_dir/values`` (module doc, step 1); the seconds."""
    start = time.perf_counter()
    missing = [k for k in range(config.chunks) if not chunk_path(run_dir, k).is_file()]
    jobs = [
        (config.game, config.keywords, config.seed, k, config.chunk, config.share) for k in missing
    ]
    bar = _bar(len(jobs) * config.chunk, "collect", config.progress)
    if config.workers == 0:
        playouts = Playouts(config.game, config.keywords, config.deals)
        for job in jobs:
            write_chunk(chunk_path(run_dir, job[3]), collect_chunk(*job, playouts))
            bar.update(config.chunk)
    elif jobs:
        context = multiprocessing.get_context("spawn")  # no forked torch state
        workers = min(config.workers, len(jobs))
        with context.Pool(
            workers, _init_worker, (config.game, config.keywords, config.deals)
        ) as pool:
            for k, values in pool.imap_unordered(_chunk_job, jobs):
                write_chunk(chunk_path(run_dir, k), values)
                bar.update(config.chunk)
    bar.close()
    return time.perf_counter() - start


def _bar(total: int, what: str, enabled: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, desc=what, unit="decision", disable=not enabled, smoothing=0.05)


def split_of(index: int) -> str:
    """The set of chunk ``index``: ``test`` (index ending in 0), ``validation`` (1), ``fit``."""
    return {0: "test", 1: "validation"}.get(index % 10, "fit")


@dataclass
class Gain:
    """A policy's choices on measured decisions: the mean measured advantage of its actions
    (points per decision, the bot playing on) with a 95% interval, and its departures."""

    gain: float
    low: float
    high: float
    departs: float
    decisions: int


def gain_of(choices: np.ndarray, values: Values) -> Gain:
    picked = values.advantages[np.arange(len(values)), choices]
    half = 1.96 * picked.std(ddof=1) / np.sqrt(len(picked)) if len(picked) > 1 else float("nan")
    mean = float(picked.mean())
    return Gain(mean, mean - half, mean + half, float((choices != values.bot).mean()), len(values))


def fit(config: RolloutConfig, data: dict[str, Values]) -> tuple[Any, list[dict[str, Any]]]:
    """The network fit to ``data["fit"]`` (module doc, step 2), at its best epoch (and with
    ``--margin auto``, the card network's best margin) on ``data["validation"]``, as a frozen
    actor (:class:`~agents.networks.cards.ActorCards` or
    :class:`~agents.networks.mlp.ActorMLP`); the log of every epoch."""
    import torch

    torch.manual_seed(config.seed)
    rng = np.random.default_rng(config.seed)
    train_set, validation = data["fit"], data["validation"]
    targets = train_set.advantages.copy()
    auto = config.margin == "auto"
    if config.network == "mlp":
        others = train_set.masks.copy()
        others[np.arange(len(train_set)), train_set.bot] = False
        targets[others] -= MLP_MARGIN if auto else float(config.margin)
        margins: tuple[float, ...] = (0.0,)  # in the targets
        net, predict, export = _mlp(config, train_set)
    else:
        margins = MARGINS if auto else (float(config.margin),)
        net, predict, export = _cards(config)
    optimizer = torch.optim.Adam(net.parameters(), lr=config.learning_rate)

    def scores(values: Values) -> np.ndarray:
        with torch.no_grad():
            return np.concatenate(
                [
                    predict(torch.as_tensor(values.obs[lo : lo + 4096])).numpy()
                    for lo in range(0, len(values), 4096)
                ]
            )

    log: list[dict[str, Any]] = []
    best: tuple[Gain, float] | None = None  # the kept epoch's validation gain and margin
    best_state = None
    for epoch in range(config.epochs):
        order = rng.permutation(len(train_set))
        losses = []
        for lo in range(0, len(order), config.batch_size):
            idx = order[lo : lo + config.batch_size]
            mask = torch.as_tensor(train_set.masks[idx])
            out = predict(torch.as_tensor(train_set.obs[idx]))
            error = (out - torch.as_tensor(targets[idx])) * mask
            loss = (error**2).sum() / mask.sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        predicted = scores(validation)
        checked = {m: gain_of(choices_of(predicted, validation, m), validation) for m in margins}
        margin = max(margins, key=lambda m: (checked[m].gain, m))  # ties: the larger margin
        log.append(
            {
                "epoch": epoch + 1,
                "loss": float(np.mean(losses)),
                "margin": margin,
                "validation": dataclasses.asdict(checked[margin]),
            }
        )
        if config.progress:
            print(
                f"epoch {epoch + 1}: loss {log[-1]['loss']:.4f}, validation gain "
                f"{checked[margin].gain:+.4f} at margin {margin:g}, departs "
                f"{checked[margin].departs:.1%}",
                file=sys.stderr,
            )
        if best is None or (checked[margin].gain, margin) > (best[0].gain, best[1]):
            best, best_state = (checked[margin], margin), copy.deepcopy(net.state_dict())
    assert best is not None and best_state is not None
    net.load_state_dict(best_state)
    kept, margin = best
    if auto and config.network == "cards" and not kept.low > 0:
        margin = MARGINS[-1]  # not clearly better than the bot on validation: play as the bot
    return export(margin), log


def choices_of(predicted: np.ndarray, values: Values, margin: float) -> np.ndarray:
    """The legal action of largest ``predicted`` advantage, the bot's raised by ``margin``."""
    out = predicted.copy()
    out[np.arange(len(values)), values.bot] += margin
    out[~values.masks] = -np.inf
    return out.argmax(axis=1)


def _cards(config: RolloutConfig) -> tuple[Any, Any, Any]:
    """The card network (``agents/networks/cards.py``): the module, its fitted values, and
    its frozen actor given the margin."""
    from agents.advice import advised_core
    from agents.networks.cards import ActorCards, CardNet, card_inputs
    from feral_envs import game_core

    core = advised_core(game_core(config.game), config.keywords)
    net = CardNet(card_inputs(core), config.width, config.layers, 0.0, config.temperature)

    def export(margin: float) -> Any:
        net.margin.fill_(margin)
        return ActorCards.from_net(net)

    return net, net.predict, export


def _mlp(config: RolloutConfig, train_set: Values) -> tuple[Any, Any, Any]:
    """The MLP of ``python -m train`` (symlog inputs, tanh layers), like :func:`_cards`."""
    from agents.networks.mlp import ActorMLP, MLPNet

    n_inputs, n_actions = train_set.obs.shape[1], train_set.masks.shape[1]
    net = MLPNet(n_inputs, n_actions, config.trunk, config.heads, value=False)

    def export(margin: float) -> Any:  # the margin is in the targets
        actor = ActorMLP.from_policy(net)
        w, b = actor.layers[-1]
        scale = 1.0 / config.temperature
        actor.layers[-1] = (w * scale, b * scale)
        return actor

    return net, net.logits, export


COLLECTION_FIELDS = ("game", "seed", "chunk", "share", "deals", "keywords")
"""What a run directory's chunks depend on: a later command on it must give the same."""


def default_run_dir(config: RolloutConfig) -> Path:
    return Path("runs") / f"{config.game}__rollout__{config.seed}"


def check_run_dir(config: RolloutConfig, run_dir: Path) -> None:
    """``ValueError`` if ``run_dir`` holds chunks collected with other settings."""
    path = run_dir / "config.json"
    if not path.is_file():
        return
    try:
        before = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise ValueError(f"{path}: unreadable ({error})") from None
    now = to_json(config)
    changed = [name for name in COLLECTION_FIELDS if before.get(name) != now[name]]
    if changed:
        shown = ", ".join(f"{name} {before.get(name)!r} -> {now[name]!r}" for name in changed)
        raise ValueError(
            f"{run_dir} was collected with other settings ({shown}): give the same ones "
            "or another --out"
        )


def to_json(config: RolloutConfig) -> dict[str, Any]:
    data = dataclasses.asdict(config)
    data["trunk"], data["heads"] = list(config.trunk), list(config.heads)
    return data


def load_values(config: RolloutConfig, run_dir: Path) -> dict[str, Values]:
    """The collected chunks by set (:func:`split_of`)."""
    parts: dict[str, list[Values]] = {"fit": [], "validation": [], "test": []}
    for k in range(config.chunks):  # three or more (RolloutConfig.check): every set has one
        parts[split_of(k)].append(read_chunk(chunk_path(run_dir, k)))
    return {name: Values.concatenate(found) for name, found in parts.items()}


def run(config: RolloutConfig) -> dict[str, Any]:
    """Collect, fit, measure and rate (module doc); the report, also in ``report.json``."""
    from agents.advice import advised_core
    from agents.networks.policy_file import policy_meta, write_policy_file
    from feral_envs import game_core

    core = game_core(config.game)  # ValueError listing the games if unknown
    config.check()
    core.make_config(**config.keywords)  # ValueError naming a bad keyword, before any work
    run_dir = Path(config.out) if config.out else default_run_dir(config)
    check_run_dir(config, run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.json").write_text(json.dumps(to_json(config), indent=1) + "\n")
    seconds = collect(config, run_dir)
    data = load_values(config, run_dir)
    start = time.perf_counter()
    actor, log = fit(config, data)
    fit_seconds = time.perf_counter() - start
    test = data["test"]
    logits = actor.logits(test.obs)
    logits[~test.masks] = -np.inf
    measured = gain_of(logits.argmax(axis=1), test)
    meta = policy_meta(advised_core(core, config.keywords), actor, 0, config.keywords)
    write_policy_file(run_dir / "model.zip", actor, meta)
    if config.network == "cards":
        margin = actor.net.margin.item()  # as chosen by the fit and played
    else:
        margin = MLP_MARGIN if config.margin == "auto" else float(config.margin)
    report = {
        "decisions": {name: len(values) for name, values in data.items()},
        "collect_seconds": seconds,
        "fit_seconds": fit_seconds,
        "margin": margin,
        "epochs": log,
        "test": dataclasses.asdict(measured),
    }
    print(
        f"test: {measured.gain:+.4f} points per decision over the bot "
        f"[{measured.low:+.4f}, {measured.high:+.4f}], departs on {measured.departs:.1%} of "
        f"{measured.decisions:,} decisions at margin {margin:g}; policy {run_dir / 'model.zip'}",
        file=sys.stderr,
    )
    if config.arena_games:
        from agents.arena import leaderboard_table, run_arena

        games = config.arena_games + config.arena_games % 2
        shutil.rmtree(run_dir / "arena", ignore_errors=True)  # an earlier fit's games
        arena = run_arena(
            config.game,
            [f"rollout=ppo_argmax:{run_dir / 'model.zip'}", "heuristic", "random"],
            games,
            seed=config.seed,
            out=run_dir / "arena",
            progress=config.progress,
            anchor="heuristic",
            **config.keywords,
        )
        table = leaderboard_table(arena)
        (run_dir / "leaderboard.md").write_text(table)
        report["leaderboard"] = arena["leaderboard"]
        print(table)
    (run_dir / "report.json").write_text(json.dumps(report, indent=1, default=float) + "\n")
    return report


def _margin(text: str) -> float | str:
    if text == "auto":
        return text
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f'"auto" or a number of points, got {text!r}') from None


def build_parser() -> argparse.ArgumentParser:
    from train.config import field_docs

    docs = field_docs(RolloutConfig)
    parser = argparse.ArgumentParser(
        prog="python -m train.rollout",
        description=(
            "Policy improvement over the heuristic bot by playouts: the value of every legal "
            "action at many decisions of the bot's games, the network fit to it, the result "
            "rated in the arena (train/rollout.py)."
        ),
        epilog=(
            'See docs/training.md: "Improvement by playouts" (how) and "Longer recipes" '
            "(what it measured)."
        ),
    )
    parser.add_argument("game", help=docs["game"])
    for f in dataclasses.fields(RolloutConfig):
        if f.name in ("game", "keywords"):
            continue
        flag = "--" + dashed(f.name)
        default = getattr(RolloutConfig(), f.name)
        if isinstance(default, bool):
            parser.add_argument(
                flag, action=argparse.BooleanOptionalAction, default=default, help=docs[f.name]
            )
        elif isinstance(default, tuple):
            parser.add_argument(
                flag,
                type=int,
                nargs="*",
                default=default,
                help=f"{docs[f.name]} (default: {' '.join(map(str, default))})",
            )
        else:
            parser.add_argument(
                flag,
                type=_margin if f.name == "margin" else type(default),
                default=default,
                help=f"{docs[f.name]} (default: {default})",
            )
    parser.add_argument("--variant", help="Lost Ranks variant (the game's keyword)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; exit codes 0 done, 2 bad input, 130 Ctrl-C, 143 SIGTERM (the
    finished chunks are kept either way: the same command goes on from them)."""
    parser = build_parser()
    args = vars(parser.parse_args(argv))
    variant = args.pop("variant")
    keywords = {"variant": variant} if variant else {}
    terminated: list[int] = []

    def on_sigterm(signum: int, frame: Any) -> None:  # stop as Ctrl-C does
        terminated.append(signum)
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, on_sigterm)
    try:
        trunk, heads = tuple(args.pop("trunk")), tuple(args.pop("heads"))
        run(RolloutConfig(**args, trunk=trunk, heads=heads, keywords=keywords))
    except ValueError as error:
        print(f"python -m train.rollout: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(
            "stopped: the finished chunks are kept; the same command goes on from them",
            file=sys.stderr,
        )
        return 128 + (terminated[0] if terminated else signal.SIGINT)
    finally:
        signal.signal(signal.SIGTERM, previous)
    return 0


if __name__ == "__main__":
    sys.exit(main())
