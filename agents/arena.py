"""The arena: a duplicate round robin between policies, rated on the Elo scale.

    python -m agents.arena lost_heir --agents random heuristic ppo:runs/a.zip --games 200 \\
        --out arena_runs/heir --seed 0 [--resume] [--target-score 40 --max-hands 100 ...]

Every pair of agents plays ``--games`` games (an even number). Each deal is played twice with
the same env seed and the sides swapped: in the card games the team seats (seats 0 and 2
against 1 and 3) change hands, both seats of a team being played by the same policy (two
instances of it); in Hidden Ranks the colours swap. The deals are the same for every pair
(deal ``d`` has the same env seed whoever plays it). The env always uses ``reward="win"``.

A game is played in one of two ways, with the same record either way (the tests check it):

* **batched** (:func:`play_games`), for a game on the compiled engine: the games of a pair
  (every deal, both seatings; at most ``BATCH_GAMES`` at once) step together on
  ``feral_envs.vector``, slot ``i`` reset with its game's env seed. Each step, every policy
  is asked once for all the seats it plays (:class:`agents.base.BatchPolicy`: each seat of
  each game is a *lane* with its own seed); a policy without that interface, such as the
  heuristic bots, gets one instance per lane, each asked one game at a time
  (:class:`agents.base.OneGameLanes`);
* **one game at a time** (:func:`play_game`), otherwise or with ``batched=False``: through
  ``feral_envs.make`` with the public API only (``agent_iter``, ``last``, ``step``).

Either way the policies see what ``env.observe(agent)`` gives the seat to act, its
``observation`` and ``action_mask``.

A game scores 1 for the winning side, 0 for the losing one, 0.5 each for a draw. A truncated
game (a length cap the rules do not have, such as ``max_hands``) is won by the side ahead on
``env.unwrapped.scores`` when it stops, and drawn if the scores are level (Hidden Ranks has no
score: its truncated games are draws). Ratings: :func:`agents.elo.fit_ratings` over all games,
the two games of a deal forming one bootstrap group, anchored at ``random`` when it plays
(else at the first agent listed). Details and the record format: ``docs/arena.md``.

Every game is appended to ``OUT/records.jsonl`` as soon as it ends (flushed), so a killed run
loses at most the games in progress, and ``--resume`` continues from the record.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import functools
import inspect
import io
import itertools
import json
import math
import re
import sys
import time
import zlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numba
import numpy as np

import feral_envs
import feral_envs.vector
from agents.base import BatchPolicy, Policy, as_batch_policy
from agents.elo import fit_ratings, score_matrix
from agents.registry import known_specs, load_policy
from feral_envs.cli import add_game_keywords, game_keywords
from feral_envs.vector import VectorEnv

RECORD_FORMAT = 1
"""Version of the record lines' layout (``"format"`` in each line)."""
RECORD_FILE = "records.jsonl"
BATCH_GAMES = 1024
"""The most games played together (the games of one pair, in schedule order)."""
BATCH_THREADS = 1
"""The numba threads of the batched games' kernels. A step of a pair's few hundred games
takes a fraction of a millisecond on one thread, next to the policies' time, and threads that
wait on each other cost more than they save: 0.3 ms a step of 200 Lost Ranks games (random
actions, scores) on one thread, 0.6 to 8 ms on two, on the shared 2-core reference machine."""


class ArenaError(ValueError):
    """Bad arena input: unknown game or spec, bad count, incompatible record, …"""


_NAME = re.compile(r"[A-Za-z0-9_.-]+")


# ----------------------------------------------------------------------------- set-up


def game_options(game: str, keywords: dict[str, Any]) -> dict[str, Any]:
    """All keywords of ``game``'s env as the arena will make it (defaults filled in, reward
    ``"win"``); ``ArenaError`` for a keyword the game does not take."""
    if "reward" in keywords and keywords["reward"] != "win":
        raise ArenaError("the arena scores wins and losses: reward is always 'win'")
    if "render_mode" in keywords:
        raise ArenaError("the arena renders nothing: render_mode is not an arena keyword")
    parameters = inspect.signature(feral_envs.env_module(game).raw_env).parameters
    accepted = {
        name: p.default
        for name, p in parameters.items()
        if name != "render_mode" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    }
    unknown = sorted(set(keywords) - set(accepted))
    if unknown:
        raise ArenaError(
            f"{game} does not take {', '.join(unknown)}; its keywords: {', '.join(accepted)}"
        )
    options = {**accepted, **keywords, "reward": "win"}
    return options


def _make_env(game: str, options: dict[str, Any]) -> Any:
    try:
        return feral_envs.make(game, **options)
    except ValueError as error:
        raise ArenaError(str(error)) from None


def parse_agents(entries: Sequence[str]) -> dict[str, str]:
    """``{name: spec}`` from ``--agents`` entries: ``SPEC`` (named by itself) or ``NAME=SPEC``
    (``NAME`` of letters, digits, ``_.-``), e.g. ``random b=random final=ppo:runs/a.zip``."""
    agents: dict[str, str] = {}
    for entry in entries:
        name, equals, spec = entry.partition("=")
        if not (equals and _NAME.fullmatch(name)):
            name, spec = entry, entry
        if name in agents:
            raise ArenaError(f"agent {name!r} is listed twice; name one NAME=SPEC")
        agents[name] = spec
    if len(agents) < 2:
        raise ArenaError(f"--agents needs at least two agents, got {list(entries)}")
    return agents


def schedule(agents: Sequence[str], games: int) -> list[tuple[int, str, str]]:
    """The games as ``(deal, side_0, side_1)`` (agent names), deal by deal, each pair's two
    games (sides swapped) next to each other."""
    return [
        (deal, *sides)
        for deal in range(games // 2)
        for a, b in itertools.combinations(agents, 2)
        for sides in ((a, b), (b, a))
    ]


def env_seed(arena_seed: int, deal: int) -> int:
    """The env seed of deal ``deal``: the same for every pair and both sides."""
    return int(np.random.SeedSequence([arena_seed, deal]).generate_state(1)[0])


def policy_seed(arena_seed: int, deal: int, sides: tuple[str, str], seat: int) -> int:
    """The seed a seat's policy is reset with in one game (``sides``: the agent names)."""
    tags = [zlib.crc32(name.encode()) for name in sides]
    return int(np.random.SeedSequence([arena_seed, deal, *tags, seat, 1]).generate_state(1)[0])


# ------------------------------------------------------------------------------ a game


def play_game(
    env: Any, seat_policies: Sequence[Policy], seed: int, policy_seeds: Sequence[int]
) -> dict[str, Any]:
    """Play one game on ``env`` (``reward="win"``) and describe it.

    Returns ``end`` (``"terminated"``/``"truncated"``), ``winner`` (the team the env's
    rewards name, or None), ``result`` (score per team with the arena's truncation rule),
    ``final_scores``, ``hand_scores`` (``[step, score_0, score_1]`` each time
    ``env.unwrapped.scores`` changes), ``steps`` and ``actions``.
    """
    raw = env.unwrapped
    teams, team_of_seat = raw.team_names, raw.team_of_seat
    env.reset(seed=seed)
    for policy, policy_seed_ in zip(seat_policies, policy_seeds, strict=True):
        policy.reset(policy_seed_)
    policy_of = dict(zip(env.possible_agents, seat_policies, strict=True))
    returns = dict.fromkeys(env.possible_agents, 0.0)
    actions: list[int] = []
    scores = raw.scores
    hand_scores: list[list[int]] = []
    end = None
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        returns[agent] += reward
        if terminated or truncated:
            end = end or ("terminated" if terminated else "truncated")
            action = None
        else:
            policy = policy_of[agent]
            action = int(policy.act(obs["observation"], obs["action_mask"]))
            if not (0 <= action < len(obs["action_mask"]) and obs["action_mask"][action]):
                raise RuntimeError(
                    f"policy {policy.spec!r} playing {agent} chose illegal action {action} "
                    f"after {len(actions)} steps (env seed {seed})"
                )
            actions.append(action)
        env.step(action)
        now = raw.scores
        if now != scores:
            scores = now
            hand_scores.append([len(actions), *scores.values()])
    seat_returns = [returns[agent] for agent in env.possible_agents]
    final = list(scores.values())
    return _describe(teams, team_of_seat, end, seat_returns, final, hand_scores, actions)


def _describe(
    teams: Sequence[str],
    team_of_seat: Sequence[int],
    end: str,
    seat_returns: Sequence[float],
    scores: Sequence[int],
    hand_scores: list[list[int]],
    actions: list[int],
) -> dict[str, Any]:
    """A finished game as :func:`play_game` describes it, from what each seat received,
    the final team scores and the game's course."""
    team_return = [0.0, 0.0]
    for seat, team in enumerate(team_of_seat):
        team_return[team] = seat_returns[seat]
    winner = 0 if team_return[0] > 0 else 1 if team_return[1] > 0 else None
    decided = winner
    if end == "truncated" and winner is None:
        decided = 0 if scores[0] > scores[1] else 1 if scores[1] > scores[0] else None
    result = [0.5, 0.5] if decided is None else [float(decided == 0), float(decided == 1)]
    return {
        "end": end,
        "winner": None if winner is None else teams[winner],
        "result": dict(zip(teams, result, strict=True)),
        "final_scores": dict(zip(teams, scores, strict=True)),
        "hand_scores": hand_scores,
        "steps": len(actions),
        "actions": actions,
    }


def play_games(
    venv: VectorEnv,
    seat_policies: Sequence[Sequence[BatchPolicy]],
    seeds: Sequence[int],
    policy_seeds: Sequence[Sequence[int]],
) -> Iterator[tuple[int, dict[str, Any], float]]:
    """Play ``venv.num_envs`` games together, game ``i`` in slot ``i`` as :func:`play_game`
    plays it alone: env seed ``seeds[i]``, seat ``s`` played by ``seat_policies[i][s]`` on a
    lane reset with ``policy_seeds[i][s]``. Every policy is asked once a step for all its
    lanes to act. Yields ``(i, description, seconds)`` as each game ends: ``description`` as
    :func:`play_game` gives it, ``seconds`` the game's share of the time of the steps it took
    part in (the games' shares add up to the time spent)."""
    n, n_seats = venv.num_envs, venv.n_seats
    teams, team_of_seat = venv.core.team_names, venv.core.team_of_seat
    policies: list[BatchPolicy] = []
    index: dict[int, int] = {}  # id(policy) -> its index in policies
    lane_seeds: list[list[int]] = []  # of each policy, by lane
    owner = np.empty((n, n_seats), dtype=np.int64)  # index of each seat's policy
    lane = np.empty((n, n_seats), dtype=np.int64)  # the seat's lane of that policy
    for i, seat in itertools.product(range(n), range(n_seats)):
        policy = seat_policies[i][seat]
        k = index.setdefault(id(policy), len(policies))
        if k == len(policies):
            policies.append(policy)
            lane_seeds.append([])
        owner[i, seat], lane[i, seat] = k, len(lane_seeds[k])
        lane_seeds[k].append(policy_seeds[i][seat])
    started = time.perf_counter()
    for policy, seeds_of_lanes in zip(policies, lane_seeds, strict=True):
        policy.reset_lanes(seeds_of_lanes)
    batch = venv.reset(seed=[int(seed) for seed in seeds])
    steps = np.zeros(n, dtype=np.int64)
    history = np.empty((n, 256), dtype=np.int64)  # the actions of each game, in order
    returns = np.zeros((n, n_seats))
    scores = venv.scores()
    hand_scores: list[list[list[int]]] = [[] for _ in range(n)]
    seconds = np.zeros(n)
    live = np.arange(n)
    while live.size:
        seats = batch.current_seat[live]
        who = owner[live, seats]
        chosen = np.empty(live.size, dtype=np.int64)
        for k, policy in enumerate(policies):
            rows = np.flatnonzero(who == k)
            if rows.size:
                games = live[rows]
                chosen[rows] = policy.act_lanes(
                    lane[games, seats[rows]], batch.observation[games], batch.action_mask[games]
                )
        legal = (chosen >= 0) & (chosen < venv.n_actions)
        legal[legal] = batch.action_mask[live[legal], chosen[legal]] == 1
        if not legal.all():
            j = int(np.flatnonzero(~legal)[0])
            i = live[j]
            raise RuntimeError(
                f"policy {policies[who[j]].spec!r} playing {venv.possible_agents[seats[j]]} "
                f"chose illegal action {chosen[j]} after {steps[i]} steps (env seed {seeds[i]})"
            )
        # A slot whose game is over restarts (its action ignored), then plays a game of its
        # own that nobody records: random actions keep it legal.
        actions = venv.random_actions() if live.size < n else np.zeros(n, dtype=np.int64)
        actions[live] = chosen
        batch = venv.step(actions)
        if steps.max() == history.shape[1]:
            history = np.concatenate([history, np.empty_like(history)], axis=1)
        history[live, steps[live]] = chosen
        steps[live] += 1
        returns[live] += batch.rewards[live]
        now = venv.scores()
        for i in live[(now[live] != scores[live]).any(axis=1)]:
            hand_scores[i].append([int(steps[i]), *now[i].tolist()])
        scores[live] = now[live]
        seconds[live] += (time.perf_counter() - started) / live.size
        over = batch.terminated[live] | batch.truncated[live]
        for i in live[over].tolist():
            end = "terminated" if batch.terminated[i] else "truncated"
            played = _describe(
                teams,
                team_of_seat,
                end,
                returns[i].tolist(),
                scores[i].tolist(),
                hand_scores[i],
                history[i, : steps[i]].tolist(),
            )
            yield i, played, float(seconds[i])
        live = live[~over]
        started = time.perf_counter()  # the time spent with the games yielded is not theirs


# ----------------------------------------------------------------------------- records


def _record_key(record: dict[str, Any]) -> tuple[int, str, str]:
    return record["deal"], record["sides"][0], record["sides"][1]


def read_records(
    path: Path, game: str, options: dict[str, Any], arena_seed: int, agents: dict[str, str]
) -> tuple[list[dict[str, Any]], int]:
    """The games recorded in ``path`` and the length in bytes of its complete lines (less
    than the file's if a run was killed mid-write; the file is not changed here).
    ``ArenaError`` if a game is from another game, other options or another arena seed, or
    names one of ``agents`` (``{name: spec}``) with another spec."""
    if not path.exists():
        return [], 0
    records = []
    data = path.read_bytes()
    complete_bytes = data.rfind(b"\n") + 1  # a file of complete lines ends with "\n"
    complete = data[:complete_bytes].decode().split("\n")[:-1]
    for number, line in enumerate(complete, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            raise ArenaError(f"{path}:{number} is not a JSON record") from None
        mismatch = [
            f"{field} {record.get(field)!r} (this run: {want!r})"
            for field, want in (
                ("game", game),
                ("options", options),
                ("arena_seed", arena_seed),
                ("format", RECORD_FORMAT),
            )
            if record.get(field) != want
        ]
        mismatch += [
            f"agent {name!r} was {spec!r} (this run: {agents[name]!r})"
            for name, spec in record.get("specs", {}).items()
            if name in agents and agents[name] != spec
        ]
        if mismatch:
            raise ArenaError(
                f"{path}:{number} is a record of another run: {'; '.join(mismatch)}; "
                f"use another --out"
            )
        records.append(record)
    return records, complete_bytes


# --------------------------------------------------------------------------- run_arena


def run_arena(
    game: str,
    agents: Sequence[str],
    games: int,
    seed: int = 0,
    out: str | Path | None = None,
    progress: bool = True,
    resume: bool = False,
    n_bootstrap: int = 1000,
    anchor: str | None = None,
    batched: bool = True,
    **env_kwargs: Any,
) -> dict[str, Any]:
    """Play the duplicate round robin of ``agents`` on ``game`` and rate them.

    ``agents`` are policy specs (:mod:`agents.registry`), each optionally named
    ``NAME=SPEC`` (to tell two instances of one spec apart, or to shorten a checkpoint path).

    ``games`` is the number of games per pair (positive and even: each deal is played
    twice). ``env_kwargs`` are the game's keywords (``variant="turncoat"``, ``max_hands=50``,
    …). With ``out`` the record and the reports are written there; ``resume`` continues the
    record found there (without it an existing record is an error). Ratings are relative to
    ``anchor`` (an agent's name; default ``random`` where it plays, else the first agent):
    anchored at ``heuristic``, an agent's interval says directly whether it is stronger than
    the heuristic bot, even when both beat ``random`` in every game. ``batched=False`` plays
    every game alone through the PettingZoo env, as games without the compiled engine are
    always played (the records are the same either way). Bad input raises
    ``ArenaError`` (a ``ValueError``) or ``FileNotFoundError`` before any game is played.

    Returns a dict with:

    * ``ratings``: ``{name: (elo, low95, high95)}`` (:func:`agents.elo.fit_ratings`);
    * ``leaderboard``: rows (best first) of ``rank, agent, elo, low, high, games, score,
      draws`` (score and draws as fractions of the agent's games);
    * ``score_matrix``: ``{"agents", "score", "games"}``: mean score of row against column;
    * ``records``: the game records of this schedule (see ``docs/arena.md``);
    * ``game``, ``options``, ``agents`` (names), ``specs`` (``{name: spec}``), ``anchor``,
      ``games_per_pair``, ``seed`` and ``files`` (paths written, by kind).
    """
    arena = Arena(game, agents, games, seed, out, resume, env_kwargs, anchor, batched)
    return arena.run(progress=progress, n_bootstrap=n_bootstrap)


class Arena:
    """A checked tournament, ready to play: everything that can be wrong with the input
    fails in ``__init__`` (``ArenaError``/``FileNotFoundError``), before any game."""

    def __init__(
        self,
        game: str,
        agents: Sequence[str],
        games: int,
        seed: int = 0,
        out: str | Path | None = None,
        resume: bool = False,
        env_kwargs: dict[str, Any] | None = None,
        anchor: str | None = None,
        batched: bool = True,
    ) -> None:
        self.game = _check_game(game)
        self.specs = parse_agents(agents)
        self.agents = list(self.specs)
        if isinstance(games, bool) or not isinstance(games, int) or games <= 0 or games % 2:
            raise ArenaError(
                f"--games must be a positive even number (each deal is played "
                f"twice, sides swapped), got {games!r}"
            )
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ArenaError(f"--seed must be an integer >= 0, got {seed!r}")
        self.games, self.seed = games, seed
        self.options = game_options(self.game, dict(env_kwargs or {}))
        self.env = _make_env(self.game, self.options)
        raw = self.env.unwrapped
        self.team_of_seat, self.team_names = raw.team_of_seat, raw.team_names
        self.team_seats = [
            [s for s, t in enumerate(self.team_of_seat) if t == team] for team in (0, 1)
        ]
        rules = {k: v for k, v in self.options.items() if k != "reward"}
        self.pool = {
            name: [load_policy(spec, self.game, seed, rules) for _ in self.team_seats[0]]
            for name, spec in self.specs.items()
        }
        self.batched = batched and raw.core.engine is not None
        self.lanes: dict[str, BatchPolicy] = {
            name: as_batch_policy(
                self.pool[name][0], functools.partial(load_policy, spec, self.game, seed, rules)
            )
            for name, spec in self.specs.items()
        }
        """Each agent's policy for batched play: itself, or one-game instances per lane."""
        self.out = Path(out) if out is not None else None
        self.path = self.out / RECORD_FILE if self.out is not None else None
        self.recorded: dict[tuple[int, str, str], dict[str, Any]] = {}
        self._complete_bytes = 0
        if self.path is not None:
            if self.path.exists() and self.path.stat().st_size and not resume:
                raise ArenaError(
                    f"{self.path} already holds a record; pass --resume to "
                    f"continue it or choose another --out"
                )
            records, self._complete_bytes = read_records(
                self.path, self.game, self.options, seed, self.specs
            )
            for record in records:
                self.recorded[_record_key(record)] = record
        self.plan = schedule(self.agents, games)
        randoms = [name for name, spec in self.specs.items() if spec == "random"]
        self.anchor = "random" if "random" in randoms else (randoms or self.agents)[0]
        if anchor is not None:
            if anchor not in self.specs:
                raise ArenaError(
                    f"--anchor {anchor!r} is not one of the agents: {', '.join(self.agents)}"
                )
            self.anchor = anchor

    def run(self, progress: bool = True, n_bootstrap: int = 1000) -> dict[str, Any]:
        """Play the games not yet recorded, then rate (see :func:`run_arena`)."""
        todo = [key for key in self.plan if key not in self.recorded]
        done = len(self.plan) - len(todo)
        if done:  # said with or without the progress bar
            print(
                f"arena: resuming: {done} of {len(self.plan)} games already recorded in "
                f"{self.path}; playing the other {len(todo)}",
                file=sys.stderr,
            )
        bar = _progress_bar(len(self.plan), len(self.plan) - len(todo), self.game, progress)
        if self.out is not None:
            self.out.mkdir(parents=True, exist_ok=True)
            if self.path.exists() and self.path.stat().st_size > self._complete_bytes:
                print(
                    f"arena: {self.path}: dropping an incomplete last line (a run killed "
                    f"mid-write)",
                    file=sys.stderr,
                )
                with self.path.open("r+b") as f:
                    f.truncate(self._complete_bytes)
        record_file = self.path.open("a") if self.path is not None else None
        threads = numba.get_num_threads()
        numba.set_num_threads(min(threads, BATCH_THREADS))
        try:
            for key, record in self._play_all(todo):
                self.recorded[key] = record
                if record_file is not None:
                    record_file.write(json.dumps(record, separators=(",", ":")) + "\n")
                    record_file.flush()
                if bar is not None:
                    bar.update(1)
        finally:
            numba.set_num_threads(threads)
            if bar is not None:
                bar.close()
            if record_file is not None:
                record_file.close()
        records = [self.recorded[key] for key in self.plan]
        report = summarize(records, self.agents, self.anchor, n_bootstrap, self.seed)
        report.update(
            game=self.game,
            options=self.options,
            agents=self.agents,
            specs=self.specs,
            anchor=self.anchor,
            games_per_pair=self.games,
            seed=self.seed,
            n_bootstrap=n_bootstrap,
            records=records,
            files={},
        )
        extra = len(self.recorded) - len(self.plan)
        if extra:
            print(
                f"arena: {extra} recorded games are not in this schedule (other agents or "
                f"more games) and are left out of the ratings",
                file=sys.stderr,
            )
        if self.out is not None:
            report["files"] = write_reports(report, self.out)
        return report

    def _play_all(self, todo: Sequence[tuple[int, str, str]]) -> Iterator[tuple[Any, dict]]:
        """``(key, record)`` of each game of ``todo`` as it ends: batched, a pair's games
        together (at most ``BATCH_GAMES`` at once, in schedule order), when the game runs on
        the compiled engine, else one game at a time."""
        if not self.batched:
            for key in todo:
                yield key, self.play(*key)
            return
        by_pair: dict[frozenset[str], list[tuple[int, str, str]]] = {}
        for key in todo:
            by_pair.setdefault(frozenset(key[1:]), []).append(key)
        for keys in by_pair.values():
            for start in range(0, len(keys), BATCH_GAMES):
                yield from self.play_batch(keys[start : start + BATCH_GAMES])

    def play(self, deal: int, side_0: str, side_1: str) -> dict[str, Any]:
        """Play the game of ``deal`` with ``side_0`` as team 0, and return its record."""
        sides = (side_0, side_1)
        seat_policies: list[Policy] = [None] * len(self.team_of_seat)
        for team, seats in enumerate(self.team_seats):
            for slot, seat in enumerate(seats):
                seat_policies[seat] = self.pool[sides[team]][slot]
        seeds = self._policy_seeds(deal, sides)
        started = time.perf_counter()
        played = play_game(self.env, seat_policies, env_seed(self.seed, deal), seeds)
        return self._record(deal, sides, seeds, played, time.perf_counter() - started)

    def play_batch(
        self, keys: Sequence[tuple[int, str, str]]
    ) -> Iterator[tuple[tuple[int, str, str], dict[str, Any]]]:
        """Play the games ``keys`` (``(deal, side_0, side_1)``) together on
        :mod:`feral_envs.vector` (:func:`play_games`); ``(key, record)`` as each ends, the
        records equal to :meth:`play`'s."""
        venv = feral_envs.vector.make(self.game, len(keys), **self.options)
        seat_policies, seeds = [], []
        for deal, *sides in keys:
            seat_policies.append([self.lanes[sides[team]] for team in self.team_of_seat])
            seeds.append(self._policy_seeds(deal, tuple(sides)))
        env_seeds = [env_seed(self.seed, deal) for deal, _, _ in keys]
        for i, played, seconds in play_games(venv, seat_policies, env_seeds, seeds):
            deal, *sides = keys[i]
            yield keys[i], self._record(deal, tuple(sides), seeds[i], played, seconds)

    def _policy_seeds(self, deal: int, sides: tuple[str, str]) -> list[int]:
        return [policy_seed(self.seed, deal, sides, seat) for seat in range(len(self.team_of_seat))]

    def _record(
        self,
        deal: int,
        sides: tuple[str, str],
        seeds: Sequence[int],
        played: dict[str, Any],
        seconds: float,
    ) -> dict[str, Any]:
        """The record line of a game (``docs/arena.md``)."""
        seat_agents = [sides[team] for team in self.team_of_seat]
        agents = self.env.possible_agents
        return {
            "format": RECORD_FORMAT,
            "game": self.game,
            "options": self.options,
            "arena_seed": self.seed,
            "deal": deal,
            "sides": list(sides),
            "teams": dict(zip(self.team_names, sides, strict=True)),
            "specs": {name: self.specs[name] for name in sides},
            "seats": dict(zip(agents, seat_agents, strict=True)),
            "env_seed": env_seed(self.seed, deal),
            "policy_seeds": dict(zip(agents, seeds, strict=True)),
            **played,
            "seconds": round(seconds, 4),
        }


def _check_game(game: str) -> str:
    try:
        feral_envs.env_module(game)
    except ValueError as error:
        raise ArenaError(str(error)) from None
    except ModuleNotFoundError as error:
        raise ArenaError(f"game {game!r} is not in this checkout ({error})") from None
    return game[:-3] if game.endswith("_v0") else game


def _progress_bar(total: int, initial: int, game: str, enabled: bool) -> Any:
    if not enabled:
        return None
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover: tqdm is in the train extra
        return None
    return tqdm(
        total=total,
        initial=initial,
        desc=f"arena {game}",
        unit="game",
        file=sys.stderr,
        dynamic_ncols=True,
    )


# ----------------------------------------------------------------------------- reports


def results_of(records: Sequence[dict[str, Any]]) -> list[tuple[str, str, float, tuple]]:
    """``(side_0, side_1, score_of_side_0, group)`` per game, a deal's two games of a pair
    sharing a group: the input of :func:`agents.elo.fit_ratings`."""
    results = []
    for record in records:
        side_0, side_1 = record["sides"]
        team_0 = next(iter(record["teams"]))
        group = (record["deal"], *sorted((side_0, side_1)))
        results.append((side_0, side_1, record["result"][team_0], group))
    return results


def summarize(
    records: Sequence[dict[str, Any]],
    agents: Sequence[str],
    anchor: str,
    n_bootstrap: int,
    seed: int,
) -> dict[str, Any]:
    """Ratings, leaderboard rows and the score matrix of ``records``."""
    results = results_of(records)
    ratings = fit_ratings(results, anchor=anchor, n_bootstrap=n_bootstrap, seed=seed)
    agents, score, games = score_matrix(results, agents)
    played = dict.fromkeys(agents, 0)
    points = dict.fromkeys(agents, 0.0)
    draws = dict.fromkeys(agents, 0)
    for a, b, s, _ in results:
        played[a] += 1
        played[b] += 1
        points[a] += s
        points[b] += 1 - s
        if s == 0.5:
            draws[a] += 1
            draws[b] += 1
    order = sorted(agents, key=lambda agent: (-ratings[agent][0], agents.index(agent)))
    leaderboard = [
        {
            "rank": rank,
            "agent": agent,
            "elo": ratings[agent][0],
            "low": ratings[agent][1],
            "high": ratings[agent][2],
            "games": played[agent],
            "score": points[agent] / played[agent],
            "draws": draws[agent] / played[agent],
        }
        for rank, agent in enumerate(order, 1)
    ]
    return {
        "ratings": ratings,
        "leaderboard": leaderboard,
        "score_matrix": {"agents": agents, "score": score.tolist(), "games": games.tolist()},
    }


def leaderboard_table(report: dict[str, Any]) -> str:
    """The leaderboard and the score matrix as Markdown (also what the terminal shows)."""
    anchor = report["anchor"]
    lines = [
        f"## Arena: {report['game']}, {report['games_per_pair']} games per pair, "
        f"seed {report['seed']}",
        "",
        f"Options: {', '.join(f'{k}={v!r}' for k, v in report['options'].items())}. "
        f"Elo anchored at {anchor} = 0; {_intervals_note(report.get('n_bootstrap', 1000))}.",
        "",
        "| rank | agent | Elo | 95% CI | games | score % | draw % |",
        "| ---: | --- | ---: | --- | ---: | ---: | ---: |",
    ]
    for row in report["leaderboard"]:
        lines.append(
            f"| {row['rank']} | {row['agent']} | {row['elo']:.0f} | {_interval(row)} | "
            f"{row['games']} | {100 * row['score']:.1f} | {100 * row['draws']:.1f} |"
        )
    matrix = report["score_matrix"]
    lines += [
        "",
        "Score % of the row agent against the column agent:",
        "",
        "| | " + " | ".join(matrix["agents"]) + " |",
        "| --- |" + " ---: |" * len(matrix["agents"]),
    ]
    for agent, row in zip(matrix["agents"], matrix["score"], strict=True):
        cells = ["" if math.isnan(x) else f"{100 * x:.1f}" for x in row]
        lines.append(f"| {agent} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _intervals_note(n_bootstrap: int) -> str:
    if n_bootstrap == 0:
        return "no intervals (--bootstrap 0: no bootstrap replicates)"
    return f"95% bootstrap intervals ({n_bootstrap} replicates)"


def _interval(row: dict[str, Any]) -> str:
    """``[low, high]``; an end the results cannot bound is open: ``[973, inf)``."""
    low, high = row["low"], row["high"]
    if math.isnan(low):
        return "n/a"
    left = "(-inf" if math.isinf(low) else f"[{low:.0f}"
    right = "inf)" if math.isinf(high) else f"{high:.0f}]"
    return f"{left}, {right}"


def write_reports(report: dict[str, Any], out: Path) -> dict[str, str]:
    """Write leaderboard.md/.csv, scores.csv, ratings.json and ratings.png into ``out``."""
    files = {
        "records": out / RECORD_FILE,
        "markdown": out / "leaderboard.md",
        "csv": out / "leaderboard.csv",
        "scores": out / "scores.csv",
        "json": out / "ratings.json",
        "plot": out / "ratings.png",
    }
    files["markdown"].write_text(leaderboard_table(report))
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["rank", "agent", "elo", "low95", "high95", "games", "score_pct", "draw_pct"])
    for row in report["leaderboard"]:
        writer.writerow(
            [
                row["rank"],
                row["agent"],
                f"{row['elo']:.1f}",
                _number(row["low"], ".1f"),
                _number(row["high"], ".1f"),
                row["games"],
                f"{100 * row['score']:.2f}",
                f"{100 * row['draws']:.2f}",
            ]
        )
    files["csv"].write_text(buffer.getvalue())
    matrix = report["score_matrix"]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["agent", *matrix["agents"]])
    for agent, row in zip(matrix["agents"], matrix["score"], strict=True):
        writer.writerow([agent, *(_number(x, ".4f") for x in row)])
    files["scores"].write_text(buffer.getvalue())
    summary = {
        key: report[key]
        for key in (
            "game",
            "options",
            "agents",
            "specs",
            "anchor",
            "games_per_pair",
            "seed",
            "leaderboard",
        )
    }
    summary["score_matrix"] = matrix
    files["json"].write_text(json.dumps(_no_nan(summary), indent=1, allow_nan=False) + "\n")
    plot_ratings(report, files["plot"])
    return {kind: str(path) for kind, path in files.items()}


def _number(x: float, form: str) -> str:
    """``x`` formatted (``inf``/``-inf`` for an open end), or an empty cell for NaN (no
    interval, pair never met)."""
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return "" if math.isnan(x) else format(x, form)


def _no_nan(value: Any) -> Any:
    """``value`` with NaN floats replaced by None and infinite ones by the strings
    ``"inf"``/``"-inf"`` (valid JSON)."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, float) and math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if isinstance(value, dict):
        return {k: _no_nan(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_no_nan(v) for v in value]
    return value


def plot_ratings(report: dict[str, Any], path: Path) -> None:
    """A PNG of the ratings with their 95% intervals, best at the top."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    rows = report["leaderboard"][::-1]
    elo = np.array([row["elo"] for row in rows])
    low = np.array([row["low"] for row in rows])
    high = np.array([row["high"] for row in rows])
    # an open end (inf) is drawn as an arrow to the edge of the plot
    finite = np.concatenate([elo, low[np.isfinite(low)], high[np.isfinite(high)]])
    span = max(np.ptp(finite), 100.0)
    edge_low, edge_high = finite.min() - 0.15 * span, finite.max() + 0.15 * span
    open_high, open_low = np.isposinf(high), np.isneginf(low)
    errors = np.nan_to_num(
        np.vstack(
            [elo - np.where(open_low, edge_low, low), np.where(open_high, edge_high, high) - elo]
        )
    )
    figure, axes = plt.subplots(figsize=(7, 1.2 + 0.45 * len(rows)))
    axes.errorbar(elo, range(len(rows)), xerr=errors, fmt="o", capsize=4)
    for y in np.flatnonzero(open_high | open_low):
        x = edge_high if open_high[y] else edge_low
        axes.annotate("", (x, y), (elo[y], y), arrowprops={"arrowstyle": "->", "color": "C0"})
    axes.set_xlim(edge_low, edge_high)
    axes.set_yticks(range(len(rows)), [row["agent"] for row in rows])
    axes.axvline(0, color="grey", linewidth=0.8, linestyle=":")
    axes.set_xlabel(f"Elo (anchor {report['anchor']} = 0), 95% interval (arrow: open end)")
    axes.set_title(f"{report['game']}: {report['games_per_pair']} games per pair")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


# ------------------------------------------------------------------------ command line


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m agents.arena",
        description="Duplicate round robin between policies, rated on the Elo scale "
        "(docs/arena.md).",
    )
    parser.add_argument("game", help=f"one of: {', '.join(feral_envs.GAMES)}")
    parser.add_argument(
        "--agents",
        nargs="+",
        required=True,
        metavar="SPEC",
        help=f"policy specs ({known_specs()}), each optionally named NAME=SPEC; at least two",
    )
    parser.add_argument(
        "--games",
        type=int,
        required=True,
        help="games per pair of agents (even: each deal is played twice)",
    )
    parser.add_argument("--seed", type=int, default=0, help="arena seed (deals and policies)")
    parser.add_argument("--out", help="output folder (default: arena_runs/GAME-TIME)")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue the record in --out, skipping the games it holds",
    )
    parser.add_argument(
        "--bootstrap",
        type=int,
        default=1000,
        help="bootstrap replicates for the intervals (default 1000)",
    )
    parser.add_argument(
        "--anchor",
        metavar="NAME",
        help="the agent rated 0, the others relative to it (default: random if it plays, "
        "else the first agent)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_game_keywords(parser, "game keywords (as the game's env takes them)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.resume and not args.out:
        parser.error("--resume needs the --out folder of the run to continue")
    out = args.out or f"arena_runs/{args.game}-{datetime.datetime.now():%Y%m%d-%H%M%S}"
    keywords = game_keywords(args)
    try:
        arena = Arena(
            args.game, args.agents, args.games, args.seed, out, args.resume, keywords, args.anchor
        )
        if args.bootstrap < 0:
            raise ArenaError(f"--bootstrap must be >= 0, got {args.bootstrap}")
    except (ValueError, FileNotFoundError) as error:
        message = " ".join(str(error).split())
        print(f"{parser.prog}: error: {message}", file=sys.stderr)
        return 2
    try:
        report = arena.run(progress=not args.no_progress, n_bootstrap=args.bootstrap)
    except KeyboardInterrupt:
        print(f"\n{parser.prog}: interrupted; continue with --resume --out {out}", file=sys.stderr)
        return 130
    print(leaderboard_table(report))
    print(f"written to {out}/: " + ", ".join(Path(p).name for p in report["files"].values()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
