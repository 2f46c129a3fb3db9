"""OpenSpiel's Python bots as arena policies: ``openspiel_random`` and ``openspiel_ismcts``.

    python -m agents.arena lost_heir --agents heuristic openspiel_ismcts:simulations=200 ...

Importing this module registers both spec prefixes (``agents.registry`` imports it on first
use, so that the registry itself never needs open_spiel). The bots are OpenSpiel's own
(``open_spiel.python.bots.uniform_random.UniformRandomBot`` and
``open_spiel.python.algorithms.ismcts.ISMCTSBot`` with OpenSpiel's ``RandomRolloutEvaluator``)
on our games as OpenSpiel games (:mod:`feral_envs.openspiel`); we drive them ourselves:
OpenSpiel's C++ MCTS and ISMCTS bots crash on Python games, and ``evaluate_bots`` calls a
method the Python ISMCTS bot lacks.

What a bot sees. An arena policy is given its observation and action mask only, never the
env. So:

* ``openspiel_random`` gives the bot a stand-in state that answers ``legal_actions`` from the
  mask: that is all the bot reads.
* ``openspiel_ismcts`` builds, at each decision, a state from the observation alone: a world
  drawn from it by the game's ``sample_from_observation`` (``feral_envs.<game>.search``;
  :meth:`feral_envs.openspiel.base.FeralGame.state_from_observation`). ISMCTS then resamples
  its worlds from that state's information state with ``resample_from_infostate``, which
  reads only the player's view of it. The real hidden cards or pieces are never reached: the
  root is itself a sample. The bot keeps no memory between decisions (each search starts
  afresh, as ``ISMCTSBot.run_search`` does).

What it searches. In the card games ISMCTS searches the current hand (Lost Heir) or round
(Lost Ranks): the OpenSpiel game with ``single_hand`` / ``single_round``, whose return is the
sign of the hand's score margin (winning the hand), since random rollouts to the end of a
40-point game would take dozens of hands each. In Hidden Ranks it searches the game itself
(``max_moves`` as the env's), with rollouts cut after ``rollout_length`` moves (a cut rollout
scores 0, a draw).

Arguments (``openspiel_ismcts:simulations=200,uct=2``):

``simulations=N``
    ISMCTS simulations per decision (default 100; at least 2: the first only expands the
    root), or
``time=SECONDS``
    simulations until that much time has passed (at least two), instead;
``uct=C``
    the UCT exploration constant (default 2.0, OpenSpiel's examples' value);
``rollouts=N``
    random rollouts per leaf (default 1);
``rollout_length=N``
    the most moves of a rollout (default: none in the card games, 200 in Hidden Ranks);
``worlds=N``
    the most distinct worlds sampled per decision (OpenSpiel's ``max_world_samples``;
    default: a new world for every simulation).

Each policy reports ``mean_decision_seconds`` (over the decisions of its current game).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts
from open_spiel.python.bots.uniform_random import UniformRandomBot

import feral_envs.openspiel as fos
from agents.base import BasePolicy
from agents.registry import register_loader
from agents.search import parse_arguments

SEGMENT_PARAMETER = {"lost_heir": "single_hand", "lost_ranks": "single_round"}
"""The parameter that makes a card game one hand or round long, for the search."""
DEFAULT_ROLLOUT_LENGTH = {"hidden_ranks": 200}


class _MaskState:
    """What ``UniformRandomBot`` reads of a state: the legal actions, from the mask."""

    def __init__(self, action_mask: np.ndarray) -> None:
        self.legal = np.flatnonzero(action_mask).tolist()

    def legal_actions(self, player: int | None = None) -> list[int]:
        return self.legal


class _ISMCTSBot(ismcts.ISMCTSBot):
    """OpenSpiel's ISMCTS with its tree keyed by the player's history digest, which the
    information-state string ends with and which determines it, instead of the string
    itself (rendering the table as text at every node cost a fifth of the search)."""

    def get_state_key(self, state: Any) -> tuple[int, bytes]:
        player = state.current_player()
        return player, state.history_digests()[player]


class OpenSpielRandom(BasePolicy):
    """``openspiel_random``: OpenSpiel's ``UniformRandomBot``, its generator seeded by ours."""

    def __init__(self, seed: int, spec: str = "openspiel_random") -> None:
        super().__init__(spec, seed)
        self.reset(seed)

    def reset(self, seed: int) -> None:
        super().reset(seed)
        self.bot = UniformRandomBot(0, np.random.RandomState(int(self.rng.integers(2**32))))

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        if not action_mask.any():
            raise ValueError("action_mask marks no legal action: it is not this policy's turn")
        return int(self.bot.step(_MaskState(action_mask)))


class OpenSpielISMCTS(BasePolicy):
    """``openspiel_ismcts``: OpenSpiel's Python ISMCTS from a world drawn from the
    observation (module docstring)."""

    def __init__(
        self,
        game: str,
        seed: int,
        keywords: dict[str, Any],
        *,
        simulations: int | None = 100,
        seconds: float | None = None,
        uct: float = 2.0,
        rollouts: int = 1,
        rollout_length: int | None = None,
        worlds: int | None = None,
        spec: str = "openspiel_ismcts",
    ) -> None:
        super().__init__(spec, seed)
        keywords = {k: v for k, v in keywords.items() if k != "reward"}
        if game in SEGMENT_PARAMETER:
            keywords[SEGMENT_PARAMETER[game]] = True
        self.game = pyspiel.load_game(fos.SHORT_NAMES[game], keywords)
        self.simulations = simulations
        self.seconds = seconds
        self.uct = uct
        self.rollouts = rollouts
        self.rollout_length = rollout_length or DEFAULT_ROLLOUT_LENGTH.get(game)
        self.worlds = worlds if worlds is not None else ismcts.UNLIMITED_NUM_WORLD_SAMPLES
        self.reset(seed)

    def reset(self, seed: int) -> None:
        super().reset(seed)
        self.random_state = np.random.RandomState(int(self.rng.integers(2**32)))
        evaluator = mcts.RandomRolloutEvaluator(
            self.rollouts, self.random_state, max_length=self.rollout_length
        )
        self.bot = _ISMCTSBot(
            self.game,
            evaluator,
            self.uct,
            max_simulations=self.simulations or 2,
            max_world_samples=self.worlds,
            random_state=self.random_state,
        )
        # Worlds are drawn with the bot's own generator: a decision is a function of the
        # observation and the seed.
        self.bot.set_resampler(
            lambda state, player: state.resample_from_infostate(player, self.random_state.uniform)
        )
        self.decisions = 0
        self.decision_seconds = 0.0

    @property
    def mean_decision_seconds(self) -> float:
        """Mean time per decision in the current game (NaN before the first)."""
        return self.decision_seconds / self.decisions if self.decisions else float("nan")

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        started = time.perf_counter()
        legal = np.flatnonzero(action_mask).tolist()
        if not legal:
            raise ValueError("action_mask marks no legal action: it is not this policy's turn")
        if len(legal) == 1:
            action = legal[0]
        else:
            state = self.game.state_from_observation(observation, self.rng)
            if state.legal_actions() != legal:
                raise RuntimeError(
                    "the world drawn from the observation has other legal actions than the "
                    f"mask: {state.legal_actions()} against {legal}"
                )
            action = self._choose(self._search(state))
        self.decisions += 1
        self.decision_seconds += time.perf_counter() - started
        return int(action)

    def _search(self, state: Any) -> list[tuple[int, float]]:
        """ISMCTS's final policy at ``state``: ``run_search`` for a number of simulations;
        for a time budget, the same steps until the time is up."""
        if self.seconds is None:
            return self.bot.run_search(state)
        bot = self.bot
        bot.reset()
        bot._root_node = bot.create_new_node(state)
        deadline = time.perf_counter() + self.seconds
        done = 0
        # The first simulation only expands the root: a policy needs a second.
        while done < 2 or time.perf_counter() < deadline:
            bot.run_simulation(bot.sample_root_state(state))
            done += 1
        return bot.get_final_policy(state, bot._root_node)

    def _choose(self, policy: list[tuple[int, float]]) -> int:
        actions = np.array([a for a, _ in policy])
        probs = np.array([p for _, p in policy])
        best = actions[probs == probs.max()]
        return int(best[self.rng.integers(best.size)])


def _number(prefix: str, key: str, text: str, kind: type, minimum: float) -> Any:
    try:
        value = kind(text)
    except ValueError:
        value = None
    if value is None or not value >= minimum:
        what = "an integer" if kind is int else "a number"
        raise ValueError(f"{prefix}: {key}={text!r} must be {what} >= {minimum}")
    return value


ISMCTS_ARGUMENTS = ("simulations", "time", "uct", "rollouts", "rollout_length", "worlds")


def _load_ismcts(argument: str, game: str, seed: int, keywords: dict[str, Any]) -> OpenSpielISMCTS:
    prefix = "openspiel_ismcts"
    arguments = parse_arguments(prefix, argument)
    unknown = sorted(set(arguments) - set(ISMCTS_ARGUMENTS))
    if unknown:
        raise ValueError(
            f"{prefix} takes no argument {', '.join(unknown)}; "
            f"its arguments: {', '.join(ISMCTS_ARGUMENTS)}"
        )
    if "simulations" in arguments and "time" in arguments:
        raise ValueError(f"{prefix}: give simulations=N or time=SECONDS, not both")
    options: dict[str, Any] = {}
    if "time" in arguments:
        options["seconds"] = _number(prefix, "time", arguments["time"], float, 1e-6)
        options["simulations"] = None
    if "simulations" in arguments:
        options["simulations"] = _number(prefix, "simulations", arguments["simulations"], int, 2)
    if "uct" in arguments:
        options["uct"] = _number(prefix, "uct", arguments["uct"], float, 0)
    for key in ("rollouts", "rollout_length", "worlds"):
        if key in arguments:
            options[key] = _number(prefix, key, arguments[key], int, 1)
    if game not in fos.GAMES:
        raise ValueError(f"no OpenSpiel game for {game!r}; games: {', '.join(fos.GAMES)}")
    return OpenSpielISMCTS(game, seed, keywords, **options)


def _load_random(argument: str, game: str, seed: int, keywords: dict[str, Any]) -> OpenSpielRandom:
    if argument:
        raise ValueError(f"'openspiel_random' takes no argument, got 'openspiel_random:{argument}'")
    return OpenSpielRandom(seed)


register_loader("openspiel_random", _load_random, "openspiel_random")
register_loader(
    "openspiel_ismcts",
    _load_ismcts,
    "openspiel_ismcts[:simulations=N|time=SECONDS,...]",
)


# --- OpenSpiel's Elo, for cross-checking agents.elo -------------------------------------

_OUTCOMES = {1.0: "FIRST_PLAYER_WIN", 0.0: "FIRST_PLAYER_LOSS", 0.5: "DRAW"}


def openspiel_ratings(
    results: Any, anchor: str, prior_draws: int = 0, smoothing: float = 1e-9
) -> dict[str, float]:
    """OpenSpiel's Bradley-Terry Elo (``pyspiel.elo``, Hunter's MM algorithm) of arena
    results (``agents.arena.results_of``: ``(a, b, score_a, ...)`` with scores 1, 0.5 or
    0), shifted so that ``anchor`` is at 0. ``prior_draws`` adds that many drawn games of
    every other agent against the anchor: with an integer ``prior_games``, the same prior as
    :func:`agents.elo.fit_ratings`'s. ``smoothing`` is OpenSpiel's ``smoothing_factor``
    (its default, 0.01, adds that much of a win to every pair)."""
    names = sorted({name for a, b, *_ in results for name in (a, b)})
    records = []
    for a, b, score, *_ in results:
        if float(score) not in _OUTCOMES:
            raise ValueError(f"OpenSpiel's Elo takes scores 1, 0.5 and 0, got {score!r}")
        outcome = getattr(pyspiel.elo.MatchOutcome, _OUTCOMES[float(score)])
        records.append(pyspiel.elo.MatchRecord(a, b, outcome))
    for name in names:
        if name != anchor:
            records += [pyspiel.elo.MatchRecord(name, anchor, pyspiel.elo.MatchOutcome.DRAW)] * (
                prior_draws
            )
    options = pyspiel.elo.default_elo_options()
    options.smoothing_factor = smoothing
    ratings = pyspiel.elo.compute_ratings_from_match_records(records, options)
    return {name: float(ratings[name] - ratings[anchor]) for name in names}
