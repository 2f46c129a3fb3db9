"""``pimc`` for Lost Heir: perfect-information Monte Carlo over worlds sampled from the bot's
own observation, valued by the exact open-card solver.

Spec: ``pimc[:worlds=N][,time=SECONDS][,caution=C]``. ``worlds``: worlds sampled per decision
(a positive integer); ``time``: a budget in seconds per decision (positive): worlds are sampled
until it is spent (at least one), and with ``worlds`` too, until either runs out. Without
arguments, ``worlds=16``. Only ``worlds`` alone is deterministic given the seed: how many worlds
a time budget buys depends on the machine. ``caution`` defaults to 1.5. The defaults are the
strongest settings measured (docs/search.md: +221 Elo over the heuristic in 60 games).

Each decision draws its worlds with
:func:`feral_envs.lost_heir.search.sample_from_observation` from the observation alone and
the bot's generator (seeded by ``reset``), seen from seat 0 (the observation is ego-centric:
left is seat 1, the partner seat 2, right seat 3). Then:

* **Play** (a card or ``take a lead``): every legal action is valued in every world by
  :func:`feral_envs.lost_heir.solver.root_values` (the hand's margin for the bot's team with
  all cards open, both teams playing their best); the bot plays the best mean, the lowest
  action id among equal means.
* **Bidding and the refusal duel**: in each world the solver gives the card points a
  declaring team takes from the start of play, ``p[w, t]`` for the bot declaring with each
  trump ``t`` it can name (its opening lead's city), and ``q[w]`` for the one other seat that
  matters (the high bidder, or the dealer in the duel) declaring with its best trump in that
  world. The bot's team's expected margin ``u(Y, c)`` when seat ``Y`` declares at contract
  ``c`` is, with ``m(p, c)`` the solver's margin (``margin``): for the bot,
  ``max over t of mean_w m(p[w, t], c)``; for the other seat, ``mean_w m(q[w], c)``, negated
  for an opponent. Then:

  - a bidder (not the dealer): bid the lowest legal bid ``b`` if ``u(bot, b)`` beats
    passing, where passing is worth ``u(high bidder, h)`` (the high bidder keeps the
    contract at ``h``) or 0 if nobody has bid (taken as a throw-in);
  - the dealer: the best of ``accept`` (``u(high bidder, h)``), bidding ``h + 1``
    (``u(bot, h + 1)``) and ``refuse``; nobody bid: ``bid 4`` if ``u(bot, 4) > 0``, else
    pass;
  - ``refuse`` and the duel's answers are valued by playing the duel out on these numbers:
    after a refusal at ``h`` the bidder takes the better for its team of ``concede`` (the
    dealer declares at ``h``) and ``raise`` (unless ``h = 12``; the dealer then takes the
    better for its team of ``accept`` at ``h + 1`` and ``refuse`` again); a team's "better"
    is the bot's numbers maximized for its own team and minimized for the other.

  The duel at each bid is decided on the same sampled worlds. Ties go to the first of:
  pass, accept, concede (the cheaper call).

  ``caution=C`` (card points, default ``DEFAULT_CAUTION``) is taken off every declarer's
  open-card points ``p`` and ``q`` before the margins: with all cards open the declarer
  never misguesses, so the open-card value flatters whoever declares, and a bot bidding on
  it overbids (docs/search.md gives the measurements).

The bot keeps no memory between decisions; its generator and its running time figures are
its only state. ``policy.mean_seconds`` is its mean wall time per decision so far (since it
was made; ``reset`` keeps it), ``policy.mean_cpu_seconds`` the mean CPU time, and
``policy.decisions`` their number; ``benchmarks/bench_pimc_lost_heir.py`` prints them by
kind of decision.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from agents.base import BasePolicy
from feral_envs.lost_heir import rules, search, solver
from feral_envs.lost_heir.encoding import (
    ACCEPT,
    BID,
    CONCEDE,
    MAX_BID,
    MIN_BID,
    N_ACTIONS,
    OBS,
    PASS,
    RAISE,
    REFUSE,
)
from feral_envs.lost_heir.rules import Phase

ARGUMENTS = {
    "worlds": "worlds sampled per decision, an integer >= 1",
    "time": "seconds per decision, a number > 0",
    "caution": "card points off every declarer's open-card points when bidding, a number >= 0",
}
DEFAULT_WORLDS = 16
DEFAULT_CAUTION = 1.5
_CONFIG_KEYWORDS = ("target_score", "take_a_lead", "max_hands")


def _seat_at(observation: np.ndarray, span) -> int:
    """The relative seat (0 me, 1 left, 2 partner, 3 right) of a one-hot seat field; -1."""
    block = observation[span.slice]
    hits = np.flatnonzero(block)
    return int(hits[0]) if len(hits) else -1


class LostHeirPimc(BasePolicy):
    """The ``pimc`` bot (module docstring)."""

    def __init__(
        self,
        spec: str,
        seed: int,
        config: rules.Config,
        worlds: int | None,
        seconds: float | None,
        caution: float = DEFAULT_CAUTION,
    ) -> None:
        super().__init__(spec, seed)
        self.config = config
        self.caution = caution
        self.worlds = worlds
        self.seconds = seconds
        self.solver = solver.default_solver()  # one table for every instance (32 MiB)
        self.decisions = 0
        self.total_seconds = 0.0
        self.total_cpu_seconds = 0.0

    @property
    def mean_seconds(self) -> float:
        """Mean wall time per decision so far (0 before the first)."""
        return self.total_seconds / self.decisions if self.decisions else 0.0

    @property
    def mean_cpu_seconds(self) -> float:
        """Mean CPU time of this process per decision so far: on a shared machine, the
        time the decision would take on a core of its own."""
        return self.total_cpu_seconds / self.decisions if self.decisions else 0.0

    # --- the worlds -------------------------------------------------------------------

    def _worlds(self, observation: np.ndarray):
        """Sampled rows, as many as the budget allows (a generator)."""
        start = time.perf_counter()
        count = 0
        while True:
            yield search.sample_from_observation(observation, self.config, 0, self.rng)
            count += 1
            if self.worlds is not None and count >= self.worlds:
                return
            if self.seconds is not None and time.perf_counter() - start >= self.seconds:
                return

    # --- acting -----------------------------------------------------------------------

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        start, cpu = time.perf_counter(), time.process_time()
        legal = np.flatnonzero(action_mask)
        if len(legal) == 1:
            action = int(legal[0])
        else:
            phase = int(np.flatnonzero(observation[OBS.phase.slice])[0])
            if phase == Phase.PLAY:
                action = self._play(observation, legal)
            else:
                action = self._call(observation, legal, phase)
        self.decisions += 1
        self.total_seconds += time.perf_counter() - start
        self.total_cpu_seconds += time.process_time() - cpu
        return action

    def _play(self, observation: np.ndarray, legal: np.ndarray) -> int:
        totals = np.zeros(N_ACTIONS)
        for world in self._worlds(observation):
            actions, values = self.solver.values_of(world)
            totals[actions] += values
        means = totals[legal]
        return int(legal[int(np.argmax(means))])  # the first of equal means: lowest id

    # --- bidding ----------------------------------------------------------------------

    def _points(self, observation: np.ndarray, other: int) -> tuple[np.ndarray, np.ndarray]:
        """``p[w, t]`` (the bot declaring, trump t; NO_VALUE where it cannot name t) and
        ``q[w]`` (seat ``other`` declaring with its best trump; empty if ``other`` < 0)."""
        mine, theirs = [], []
        for world in self._worlds(observation):
            stamp = self.solver.next_stamp()  # one table for the world's searches
            mine.append(self.solver.declarer_points(world, 0, stamp))
            if other >= 0:
                theirs.append(self.solver.best_declarer_points(world, other, stamp))
        p, q = np.array(mine, dtype=float), np.array(theirs, dtype=float)
        p[p != solver.NO_VALUE] -= self.caution
        return p, q - self.caution

    def _call(self, observation: np.ndarray, legal: np.ndarray, phase: int) -> int:
        dealer = _seat_at(observation, OBS.dealer)
        high_bidder = _seat_at(observation, OBS.high_bidder)
        high = np.flatnonzero(observation[OBS.high_bid.slice])
        h = int(high[0]) + MIN_BID if len(high) else 0
        # the one other seat whose contract matters: the high bidder (none if nobody bid), or
        # the dealer when the bot is the refused high bidder
        other = dealer if phase == Phase.DUEL_BIDDER else high_bidder
        p, q = self._points(observation, other)
        legal_set = set(int(a) for a in legal)

        def u(seat: int, contract: int) -> float:
            if seat == 0:
                best = -np.inf
                for t in range(4):
                    if p[0, t] == solver.NO_VALUE:
                        continue
                    best = max(best, float(np.mean([solver.margin(x, contract) for x in p[:, t]])))
                return best
            value = float(np.mean([solver.margin(x, contract) for x in q]))
            return value if seat % 2 == 0 else -value

        def better(seat: int, a: float, b: float) -> float:
            return max(a, b) if seat % 2 == 0 else min(a, b)

        bidder = high_bidder  # the duel's two parties: the high bidder and the dealer

        def after_refusal(bid: int) -> float:
            """The bidder answers a refusal at ``bid``."""
            concede = u(dealer, bid)
            if bid >= MAX_BID:
                return concede
            return better(bidder, concede, dealer_answer(bid + 1))

        def dealer_answer(bid: int) -> float:
            """The dealer answers the bidder at ``bid`` (accept or refuse)."""
            return better(dealer, u(bidder, bid), after_refusal(bid))

        options: dict[int, float] = {}
        if phase == Phase.BID:
            options[PASS] = u(high_bidder, h) if high_bidder >= 0 else 0.0
            b = max(MIN_BID, h + 1)
            if BID + b - MIN_BID in legal_set:
                options[BID + b - MIN_BID] = u(0, b)
        elif phase == Phase.DEALER:
            if h == 0:
                options[PASS] = 0.0
                options[BID] = u(0, MIN_BID)
            else:
                options[ACCEPT] = u(high_bidder, h)
                options[REFUSE] = after_refusal(h)
                if h < MAX_BID:
                    options[BID + h + 1 - MIN_BID] = u(0, h + 1)
        elif phase == Phase.DUEL_BIDDER:
            options[CONCEDE] = u(dealer, h)
            if RAISE in legal_set:
                options[RAISE] = dealer_answer(h + 1)
        else:  # DUEL_DEALER
            options[ACCEPT] = u(high_bidder, h)
            options[REFUSE] = after_refusal(h)
        options = {a: v for a, v in options.items() if a in legal_set}
        order = [PASS, ACCEPT, CONCEDE]  # ties: the cheaper call first
        best = max(options.values())
        for action in order + sorted(options):
            if action in options and options[action] == best:
                return int(action)
        raise AssertionError("no option")  # pragma: no cover


def make_pimc(arguments: dict[str, str], seed: int, keywords: dict[str, Any]) -> LostHeirPimc:
    """The ``pimc`` bot from its spec arguments (``ValueError`` naming a bad one)."""
    unknown = sorted(set(arguments) - set(ARGUMENTS))
    if unknown:
        allowed = "; ".join(f"{k}: {doc}" for k, doc in ARGUMENTS.items())
        raise ValueError(f"pimc: unknown argument(s) {', '.join(unknown)}; allowed: {allowed}")
    worlds = seconds = None
    if "worlds" in arguments:
        text = arguments["worlds"]
        try:
            worlds = int(text)
        except ValueError:
            worlds = 0
        if worlds < 1 or str(worlds) != text.strip().lstrip("+"):
            raise ValueError(f"pimc: worlds={text!r} is not allowed; {ARGUMENTS['worlds']}")
    if "time" in arguments:
        text = arguments["time"]
        try:
            seconds = float(text)
        except ValueError:
            seconds = 0.0
        if not seconds > 0 or not np.isfinite(seconds):
            raise ValueError(f"pimc: time={text!r} is not allowed; {ARGUMENTS['time']}")
    caution = DEFAULT_CAUTION
    if "caution" in arguments:
        text = arguments["caution"]
        try:
            caution = float(text)
        except ValueError:
            caution = -1.0
        if not caution >= 0 or not np.isfinite(caution):
            raise ValueError(f"pimc: caution={text!r} is not allowed; {ARGUMENTS['caution']}")
    if worlds is None and seconds is None:
        worlds = DEFAULT_WORLDS
    config = rules.make_config(**{k: keywords[k] for k in _CONFIG_KEYWORDS if k in keywords})
    parts = [f"worlds={worlds}"] if worlds is not None else []
    parts += [f"time={seconds:g}"] if seconds is not None else []
    parts += [f"caution={caution:g}"] if caution != DEFAULT_CAUTION else []
    return LostHeirPimc("pimc:" + ",".join(parts), seed, config, worlds, seconds, caution)


SPECS = {"pimc": make_pimc}
