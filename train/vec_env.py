"""Many self-play games at once, seen by the learner as one SB3 ``VecEnv``.

:class:`SelfPlayVecEnv` runs ``n_envs`` games straight on a game's rules core
(:class:`~feral_envs.core.GameCore`: no PettingZoo in the loop), as one batch
(:mod:`train.game_batch`; on a compiled engine, all the games' state rows in one array,
stepped by the engine's batch kernels). In each game the learner plays one *side*: a team
of a card game (both partner seats: the observation is ego-centric, so one policy serves
both) or one colour of Hidden Ranks. The other side is played by opponents drawn from an
:class:`~train.pool.OpponentPool` when the game starts.

**A step.** ``step(actions)`` applies the learner's action in every game, then advances all
games until each is at a learner decision again or over. Opponent decisions are collected
across all games: in each round the games waiting on the same pool member are grouped and
that member acts on the whole group at once (one network evaluation per member per round).
Each round is a handful of kernel calls whatever ``n_envs``: one status of every game, one
mask and (if a member reads observations) one observation call over the waiting games, one
apply of all their actions. A finished game is recorded and replaced by a new one, advanced
to its first learner decision in the same way. ``action_masks()`` gives the legal actions of
every game's learner decision as one ``(n_envs, n_actions)`` bool array (what
``MaskablePPO`` reads).

**Rewards** are credited to the side that earned them: the learner's reward for a step is
everything its side earned from its action up to its next decision (or the game's end),
including what the opponents' moves, the end of a hand/round and the end of the game bring:

    reward = points_scale * (change of the learner side's score lead over the step)
             + material_scale * (change of its material lead over the step)
             + win_reward * (+1 won, -1 lost, 0 draw)   [only at the game's end]

The score lead is ``scores[learner team] - scores[other team]`` (``GameCore.scores``), so in
the card games a step is credited with the hand or round it completes. Points scored before
the learner's first decision of a game belong to the starting position (no step earned them).
The material lead (Hidden Ranks, off by default) is a shaping term: :mod:`train.shaping`.
With a ``par`` (``--par``, :class:`train.advice.Par`), each round's points are counted
against the bot's own result on the same cards: when a round ends, ``points_scale`` times its
par (computed at the learner's first decision of the round) is taken off the reward.

**Episodes** are whole games. The rules' end is a termination (``done`` with
``TimeLimit.truncated=False``); a length cap the rules do not have (Lost Heir's
``max_hands``) is a truncation: ``done`` with ``info["TimeLimit.truncated"] = True``, so
SB3 bootstraps from ``info["terminal_observation"]`` (the learner's view of the final
position, from the seat that made its last decision) instead of treating it as an end.

**Seats.** Each game draws the learner's side at random (even when the rules core deals the
first dealer at random too and passes the deal on every hand), so the learner plays every
seat and every position relative to the dealer.

Done games' ``info`` also holds ``episode`` (``r`` return, ``l`` learner decisions, ``t``
seconds) as SB3's ``Monitor`` writes it, ``result`` (``"win"``, ``"loss"``, ``"draw"`` or
``"truncated"``), ``lead`` (the learner side's score lead at the end) and ``opponent`` (the
pool member's name).
"""

from __future__ import annotations

import copy
import pickle
import time
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from feral_envs.core import DRAW, GameCore
from train.game_batch import Status, game_batch, on_one_thread
from train.pool import Opponent, OpponentPool
from train.shaping import material_of

RESULT_OF_OUTCOME = {1: "win", -1: "loss", 0: "draw"}


class SelfPlayVecEnv(VecEnv):
    """``n_envs`` games of ``core`` against the pool, as a native SB3 VecEnv (module doc)."""

    def __init__(
        self,
        core: GameCore,
        keywords: dict[str, Any],
        n_envs: int,
        pool: OpponentPool,
        points_scale: float,
        win_reward: float,
        seed: int | None = None,
        record: bool = False,
        material_scale: float = 0.0,
        par: Any = None,
    ) -> None:
        if par is not None and not points_scale:
            raise ValueError("a par counts round points: it needs points_scale above 0")
        self.core = core
        self.par = par
        """A :class:`train.advice.Par`: each round's points are counted against the bot's."""
        self.game_config = core.make_config(**keywords)
        self.pool = pool
        self.points_scale = float(points_scale)
        self.win_reward = float(win_reward)
        self.material_scale = float(material_scale)
        self._material = material_of(core.name) if self.material_scale else None
        self._shaped = bool(self.points_scale or self.material_scale)
        self.render_mode = None
        low, high = (
            (-np.inf, np.inf)
            if np.issubdtype(core.obs_dtype, np.floating)
            else (np.iinfo(core.obs_dtype).min, np.iinfo(core.obs_dtype).max)
        )
        super().__init__(
            n_envs,
            spaces.Box(low, high, core.obs_shape, core.obs_dtype),
            spaces.Discrete(core.n_actions),
        )
        self._team_of_seat = np.asarray(core.team_of_seat, dtype=np.int64)
        self.batch = game_batch(core, self.game_config, n_envs)
        """The games (:mod:`train.game_batch`); ``states`` are its games one by one."""
        self.rngs: list[np.random.Generator] = []
        """One generator per game slot: everything the rules core draws (deals)."""
        self.rng = np.random.default_rng()
        """The learner's side in new games and the random opponents' actions."""
        self.learner_team = np.zeros(n_envs, dtype=np.int64)
        self.learner_seat = np.zeros(n_envs, dtype=np.int64)
        """Seat of each game's pending learner decision (then: of its last one)."""
        self.opponents: list[Opponent] = [pool.random] * n_envs
        self._lead_then = np.zeros(n_envs, dtype=np.float64)  # score lead at the last decision
        self._material_then = np.zeros(n_envs, dtype=np.float64)  # material lead, the same
        self._par = np.zeros(n_envs, dtype=np.float64)  # par of the learner's current round
        self._par_epoch = np.full(n_envs, -1, dtype=np.int64)  # its round (-1: none pending)
        self._ep_return = np.zeros(n_envs, dtype=np.float64)
        self._ep_len = np.zeros(n_envs, dtype=np.int64)
        self._ep_start = np.zeros(n_envs, dtype=np.float64)
        self._obs = np.zeros((n_envs, *core.obs_shape), dtype=core.obs_dtype)
        self._masks = np.zeros((n_envs, core.n_actions), dtype=bool)
        self._actions: np.ndarray | None = None
        self._pending_seed: int | None = None
        self.record = record
        """Keep every game's moves in ``self.traces`` (tests replay them; slow)."""
        self.traces: list[dict[str, Any]] = [{} for _ in range(n_envs)]
        self.seed(seed)

    # ----------------------------------------------------------------- VecEnv interface

    def seed(self, seed: int | None = None) -> list[int | None]:
        """Seeds the games and the env at the next ``reset()`` (SB3's convention)."""
        self._pending_seed = seed
        if not self.rngs:
            self._apply_seed(seed)
        return [seed] * self.num_envs

    def _apply_seed(self, seed: int | None) -> None:
        children = np.random.SeedSequence(seed).spawn(self.num_envs + 1)
        self.rngs = [np.random.default_rng(s) for s in children[:-1]]
        self.rng = np.random.default_rng(children[-1])

    @on_one_thread
    def reset(self) -> np.ndarray:
        if self._pending_seed is not None:
            self._apply_seed(self._pending_seed)
            self._pending_seed = None
        for i in range(self.num_envs):
            self._new_game(i)
        self._par_epoch[:] = -1
        self._start_games(list(range(self.num_envs)))
        self._observe_learner(range(self.num_envs))
        self._reset_lead(range(self.num_envs))
        return self._obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)

    @on_one_thread
    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        n, core = self.num_envs, self.core
        actions, self._actions = self._actions, None
        if actions is None:
            raise RuntimeError("step_wait() without step_async()")
        actions = actions.astype(np.int64, copy=False)
        in_range = (actions >= 0) & (actions < core.n_actions)
        legal = in_range & self._masks[np.arange(n), np.where(in_range, actions, 0)]
        if not legal.all():
            i = int(np.flatnonzero(~legal)[0])
            raise ValueError(
                f"game {i}: illegal learner action {int(actions[i])}; legal: "
                f"{np.flatnonzero(self._masks[i]).tolist()}"
            )
        self._apply(actions, self.learner_seat)
        self._ep_len += 1
        status = self._advance(np.arange(n))

        scores = self.batch.scores()
        reward = self._lead_gains(status, scores) if self._shaped else np.zeros(n)
        winner = status.winner
        decided = status.terminated & (winner != DRAW)
        outcome = np.where(decided, np.where(winner == self.learner_team, 1, -1), 0)
        reward += self.win_reward * outcome  # 0 but at a decisive end
        self._ep_return += reward
        rewards = reward.astype(np.float32)
        dones = status.over
        ended = np.flatnonzero(dones)
        infos: list[dict[str, Any]] = [{} for _ in range(n)]
        if ended.size:
            final_obs = self.batch.observe(ended, self.learner_seat[ended])
            leads = self._leads(scores)
            for i, obs in zip(ended.tolist(), final_obs, strict=True):
                infos[i] = self._final_info(i, status, int(outcome[i]), obs, leads[i])
        for i in ended.tolist():
            self._new_game(i)
        self._start_games(ended.tolist())
        self._observe_learner(np.arange(n))
        self._reset_lead(ended)
        return self._obs.copy(), rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """Legal actions of every game's pending learner decision, (n_envs, n_actions) bool."""
        return self._masks.copy()

    def close(self) -> None:
        pass

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        # One env object stands for all slots: attributes are the same for each.
        return [getattr(self, attr_name)] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        setattr(self, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
    ) -> list[Any]:
        if method_name == "action_masks":
            return list(self.action_masks()[self._indices(indices)])
        raise AttributeError(f"SelfPlayVecEnv has no per-game method {method_name!r}")

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False] * len(self._indices(indices))

    def _indices(self, indices: Any) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        return [indices] if isinstance(indices, int) else list(indices)

    # ----------------------------------------------------------------- games

    @property
    def states(self) -> Any:
        """Each slot's game, as the core's functions take it (``states[i] = game`` puts a
        game in slot ``i``; :mod:`train.game_batch`)."""
        return self.batch.states

    def _new_game(self, i: int) -> None:
        rng = self.rngs[i]
        if self.record:
            self.traces[i] = {"rng_state": copy.deepcopy(rng.bit_generator.state), "moves": []}
        self.states[i] = self.core.new_game(self.game_config, rng, {})
        self.learner_team[i] = self.rng.integers(2)
        self.opponents[i] = self.pool.sample()
        self.opponents[i].start(i, int(self.rng.integers(2**31)))
        self._ep_return[i] = 0.0
        self._ep_len[i] = 0
        self._ep_start[i] = time.perf_counter()
        if self.record:
            self.traces[i]["learner_team"] = int(self.learner_team[i])
            self.traces[i]["opponent"] = self.opponents[i].name

    def _start_games(self, games: list[int]) -> None:
        """Advance new games to their first learner decision (replacing any game that ends
        before it: no learner decision, no episode)."""
        while games:
            over = self._advance(np.array(games, dtype=np.int64)).over
            games = [i for i in games if over[i]]
            for i in games:
                self._new_game(i)

    def _apply(self, actions: np.ndarray, seats: np.ndarray) -> None:
        """Play ``actions[i]`` for seat ``seats[i]`` in every game where it is >= 0."""
        if self.record:
            for i in np.flatnonzero(actions >= 0).tolist():
                self.traces[i]["moves"].append((int(seats[i]), int(actions[i])))
        self.batch.apply(actions, self.rngs)

    def _advance(self, games: np.ndarray) -> Status:
        """Play the opponents' decisions of ``games`` until each waits on the learner or is
        over, round by round (:meth:`_opponents_round`); every game's status after it."""
        pending = np.zeros(self.num_envs, dtype=bool)
        pending[games] = True
        while True:
            status = self.batch.status()
            pending &= ~status.over & (self._team_of_seat[status.seat] != self.learner_team)
            waiting = np.flatnonzero(pending)
            if not waiting.size:
                return status
            self._opponents_round(waiting, status.seat)

    def _opponents_round(self, waiting: np.ndarray, seat: np.ndarray) -> None:
        """One decision in each of the ``waiting`` games (``seat``: every game's seat to act):
        each pool member acts once on all its games, then all the actions are played."""
        groups: dict[int, list[int]] = {}  # member -> positions in waiting, in slot order
        for k, i in enumerate(waiting.tolist()):
            groups.setdefault(id(self.opponents[i]), []).append(k)
        seats = seat[waiting]
        masks = self.batch.masks(waiting)
        with_obs = [g for g in groups.values() if self.opponents[waiting[g[0]]].needs_obs]
        if with_obs:  # one observation call for every member that reads them
            read = np.concatenate(with_obs)
            seen = self.batch.observe(waiting[read], seats[read])
            obs = np.empty((len(waiting), *seen.shape[1:]), dtype=seen.dtype)
            obs[read] = seen
        actions = np.full(self.num_envs, -1, dtype=np.int64)
        for group in groups.values():
            slots = waiting[group]
            opponent = self.opponents[slots[0]]
            actions[slots] = opponent.act(
                obs[group] if opponent.needs_obs else None,
                masks[group],
                slots.tolist(),
                seats[group].tolist(),
                self.rng,
            )
        self._apply(actions, seat)

    def _leads(self, scores: np.ndarray) -> np.ndarray:
        """(n,) the learner side's score lead in every game, from its ``scores`` (n, 2)."""
        team, games = self.learner_team, np.arange(self.num_envs)
        return (scores[games, team] - scores[games, 1 - team]).astype(np.float64)

    def _material_lead(self, i: int) -> float:
        """The learner side's material lead in game ``i`` (:mod:`train.shaping`)."""
        material = self._material(self.states[i])
        team = self.learner_team[i]
        return float(material[team] - material[1 - team])

    def _lead_gains(self, status: Status, scores: np.ndarray) -> np.ndarray:
        """The shaping reward of every game: points_scale times the change of the learner
        side's score lead since its last decision, plus material_scale times the change of
        its material lead."""
        gain = np.zeros(self.num_envs)
        if self.points_scale:
            lead = self._leads(scores)
            gain = self.points_scale * (lead - self._lead_then)
            self._lead_then[:] = lead
        if self.par is not None:
            over = status.over
            for i in np.flatnonzero(self._par_epoch >= 0).tolist():
                if self.states[i].epoch != self._par_epoch[i] or over[i]:
                    gain[i] -= self.points_scale * self._par[i]  # that round is over
                    self._par_epoch[i] = -1
        if self._material is not None:
            for i in range(self.num_envs):
                lead = self._material_lead(i)
                gain[i] += self.material_scale * (lead - self._material_then[i])
                self._material_then[i] = lead
        return gain

    def _reset_lead(self, games: Any) -> None:
        """New games: the lead when the learner first decides is the starting position."""
        games = np.asarray(games, dtype=np.int64)
        if not (self._shaped and games.size):
            return
        if self.points_scale:
            self._lead_then[games] = self._leads(self.batch.scores())[games]
        if self._material is not None:
            for i in games.tolist():
                self._material_then[i] = self._material_lead(i)

    def _observe_learner(self, games: Any) -> None:
        """Observation and mask of each game's pending learner decision."""
        games = np.asarray(games, dtype=np.int64)
        seats = self.batch.status().seat[games]
        self.learner_seat[games] = seats
        self._obs[games] = self.batch.observe(games, seats)
        self._masks[games] = self.batch.masks(games) != 0
        for i in games.tolist() if self.par is not None else ():
            state = self.states[i]
            if state.epoch != self._par_epoch[i]:
                self._par[i] = self.par.round_gain(state, self.rngs[i], self.learner_team[i])
                self._par_epoch[i] = state.epoch

    def _final_info(
        self, i: int, status: Status, outcome: int, final_obs: np.ndarray, lead: float
    ) -> dict:
        terminated, truncated = bool(status.terminated[i]), bool(status.truncated[i])
        info = {
            "terminal_observation": final_obs,
            "TimeLimit.truncated": truncated and not terminated,
            "episode": {
                "r": float(self._ep_return[i]),
                "l": int(self._ep_len[i]),
                "t": round(time.perf_counter() - self._ep_start[i], 6),
            },
            "result": RESULT_OF_OUTCOME[outcome] if terminated else "truncated",
            "lead": float(lead),
            "opponent": self.opponents[i].name,
        }
        if self.record:
            info["trace"] = self.traces[i]
        return info

    # ----------------------------------------------------------------- resume

    def get_state(self, copy: bool = True) -> dict[str, Any]:
        """Everything that decides what happens next (for exact resume): a deep copy, or
        with ``copy=False`` the live objects (pickle them before the env moves on). The games
        are the engine's rows (``rows``) or, for a pure-Python core, its states."""
        state = {
            "rows" if self.core.engine is not None else "states": self.batch.get_state(),
            "rngs": [r.bit_generator.state for r in self.rngs],
            "rng": self.rng.bit_generator.state,
            "learner_team": self.learner_team,
            "learner_seat": self.learner_seat,
            "opponents": [o.name for o in self.opponents],
            "lead": self._lead_then,
            "material": self._material_then,
            "par": self._par,
            "par_epoch": self._par_epoch,
            "ep_return": self._ep_return,
            "ep_len": self._ep_len,
            "obs": self._obs,
            "masks": self._masks,
        }
        return (
            pickle.loads(pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)) if copy else state
        )

    def set_state(self, state: dict[str, Any]) -> None:
        state = pickle.loads(pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL))
        games = state["rows"] if "rows" in state else state["states"]  # older: Game objects
        if len(games) != self.num_envs:
            raise ValueError(f"saved state has {len(games)} games, env has {self.num_envs}")
        self.batch.set_state(games)
        for rng, saved in zip(self.rngs, state["rngs"], strict=True):
            rng.bit_generator.state = saved
        self.rng.bit_generator.state = state["rng"]
        self.learner_team[:] = state["learner_team"]
        self.learner_seat[:] = state["learner_seat"]
        self.opponents = [self.pool.get(name) for name in state["opponents"]]
        self._lead_then[:] = state["lead"]
        self._material_then[:] = state.get("material", 0.0)  # absent in older checkpoints
        self._par[:] = state.get("par", 0.0)
        self._par_epoch[:] = state.get("par_epoch", -1)
        self._ep_return[:] = state["ep_return"]
        self._ep_len[:] = state["ep_len"]
        self._ep_start[:] = time.perf_counter()
        self._obs[:] = state["obs"]
        self._masks[:] = state["masks"]
        self._pending_seed = None

    def current_obs(self) -> np.ndarray:
        return self._obs.copy()
