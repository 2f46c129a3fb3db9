"""Many self-play games at once, seen by the learner as one SB3 ``VecEnv``.

:class:`SelfPlayVecEnv` runs ``n_envs`` games straight on a game's rules core
(:class:`~feral_envs.core.GameCore`: no PettingZoo in the loop). In each game the learner
plays one *side*: a team of a card game (both partner seats: the observation is ego-centric,
so one policy serves both) or one colour of Hidden Ranks. The other side is played by
opponents drawn from an :class:`~train.pool.OpponentPool` when the game starts.

**A step.** ``step(actions)`` applies the learner's action in every game, then advances all
games until each is at a learner decision again or over. Opponent decisions are collected
across all games: in each round the games waiting on the same pool member are grouped and
that member acts on the whole group at once (one network evaluation per member per round).
A finished game is recorded and replaced by a new one, advanced to its first learner
decision in the same way. ``action_masks()`` gives the legal actions of every game's
learner decision as one ``(n_envs, n_actions)`` bool array (what ``MaskablePPO`` reads).

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
        self._team_of_seat = core.team_of_seat
        self.states: list[Any] = [None] * n_envs
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

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        n, core, states = self.num_envs, self.core, self.states
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
        if self.record:
            for i, a in enumerate(actions.tolist()):
                self._apply(i, a)
        else:
            apply, rngs = core.apply, self.rngs
            for i, a in enumerate(actions.tolist()):
                apply(states[i], a, rngs[i])
        self._ep_len += 1
        self._advance(list(range(n)))

        rewards = np.zeros(n, dtype=np.float32)
        dones = np.zeros(n, dtype=bool)
        infos: list[dict[str, Any]] = [{} for _ in range(n)]
        ended = []
        status = core.status
        for i in range(n):
            terminated, truncated, winner = status(states[i])
            reward = self._lead_gain(i) if self._shaped else 0.0
            if terminated or truncated:
                outcome = (
                    0
                    if not terminated or winner == DRAW
                    else (1 if winner == self.learner_team[i] else -1)
                )
                reward += self.win_reward * outcome
                dones[i] = True
                ended.append(i)
                self._ep_return[i] += reward
                infos[i] = self._final_info(i, terminated, truncated, outcome)
            else:
                self._ep_return[i] += reward
            rewards[i] = reward
        for i in ended:
            self._new_game(i)
        self._start_games(ended)
        self._observe_learner(range(n))
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
            self._advance(games)
            games = [i for i in games if self._over(i)]
            for i in games:
                self._new_game(i)

    def _apply(self, i: int, action: int) -> None:
        state = self.states[i]
        if self.record:
            self.traces[i]["moves"].append((self.core.seat_to_act(state), action))
        self.core.apply(state, action, self.rngs[i])

    def _over(self, i: int) -> bool:
        terminated, truncated, _ = self.core.status(self.states[i])
        return terminated or truncated

    def _waiting(self, games: list[int]) -> list[int]:
        """The games of ``games`` that wait on an opponent's decision."""
        core, states, team_of_seat, learner_team = (
            self.core,
            self.states,
            self._team_of_seat,
            self.learner_team,
        )
        out = []
        for i in games:
            state = states[i]
            terminated, truncated, _ = core.status(state)
            if not (terminated or truncated) and (
                team_of_seat[core.seat_to_act(state)] != learner_team[i]
            ):
                out.append(i)
        return out

    def _advance(self, games: list[int]) -> None:
        """Play the opponents' decisions of ``games`` until each waits on the learner or is
        over: round by round, each pool member acting once on all its waiting games."""
        core, states, rngs = self.core, self.states, self.rngs
        waiting = self._waiting(games)
        while waiting:
            groups: dict[int, list[int]] = {}
            for i in waiting:
                groups.setdefault(id(self.opponents[i]), []).append(i)
            for group in groups.values():
                opponent = self.opponents[group[0]]
                group_states = [states[i] for i in group]
                seats = [core.seat_to_act(s) for s in group_states]
                masks = np.stack([core.legal_mask(s) for s in group_states])
                obs = (
                    np.stack(
                        [core.observe(s, seat) for s, seat in zip(group_states, seats, strict=True)]
                    )
                    if opponent.needs_obs
                    else None
                )
                actions = opponent.act(obs, masks, group, seats, self.rng).tolist()
                if self.record:
                    for i, a in zip(group, actions, strict=True):
                        self._apply(i, a)
                else:
                    for i, a in zip(group, actions, strict=True):
                        core.apply(states[i], a, rngs[i])
            waiting = self._waiting(waiting)

    def _lead(self, i: int) -> float:
        """The learner side's score lead in game ``i``."""
        scores = self.core.scores(self.states[i])
        team = self.learner_team[i]
        return float(scores[team] - scores[1 - team])

    def _material_lead(self, i: int) -> float:
        """The learner side's material lead in game ``i`` (:mod:`train.shaping`)."""
        material = self._material(self.states[i])
        team = self.learner_team[i]
        return float(material[team] - material[1 - team])

    def _lead_gain(self, i: int) -> float:
        """The shaping reward of game ``i``: points_scale times the change of the learner
        side's score lead since its last decision, plus material_scale times the change of
        its material lead."""
        gain = 0.0
        if self.points_scale:
            lead = self._lead(i)
            gain, self._lead_then[i] = self.points_scale * (lead - self._lead_then[i]), lead
        if self.par is not None and self._par_epoch[i] >= 0:
            state = self.states[i]
            if state.epoch != self._par_epoch[i] or any(self.core.status(state)[:2]):
                gain -= self.points_scale * self._par[i]  # that round is over
                self._par_epoch[i] = -1
        if self._material is not None:
            lead = self._material_lead(i)
            gain += self.material_scale * (lead - self._material_then[i])
            self._material_then[i] = lead
        return gain

    def _reset_lead(self, games: Any) -> None:
        """New games: the lead when the learner first decides is the starting position."""
        for i in games if self._shaped else ():
            if self.points_scale:
                self._lead_then[i] = self._lead(i)
            if self._material is not None:
                self._material_then[i] = self._material_lead(i)

    def _observe_learner(self, games: Any) -> None:
        """Observation and mask of each game's pending learner decision."""
        core, states, obs, masks, learner_seat = (
            self.core,
            self.states,
            self._obs,
            self._masks,
            self.learner_seat,
        )
        for i in games:
            state = states[i]
            seat = core.seat_to_act(state)
            learner_seat[i] = seat
            obs[i] = core.observe(state, seat)
            masks[i] = core.legal_mask(state)
            if self.par is not None and state.epoch != self._par_epoch[i]:
                self._par[i] = self.par.round_gain(state, self.rngs[i], self.learner_team[i])
                self._par_epoch[i] = state.epoch

    def _final_info(self, i: int, terminated: bool, truncated: bool, outcome: int) -> dict:
        info = {
            "terminal_observation": self.core.observe(self.states[i], int(self.learner_seat[i])),
            "TimeLimit.truncated": bool(truncated and not terminated),
            "episode": {
                "r": float(self._ep_return[i]),
                "l": int(self._ep_len[i]),
                "t": round(time.perf_counter() - self._ep_start[i], 6),
            },
            "result": RESULT_OF_OUTCOME[outcome] if terminated else "truncated",
            "lead": self._lead(i),
            "opponent": self.opponents[i].name,
        }
        if self.record:
            info["trace"] = self.traces[i]
        return info

    # ----------------------------------------------------------------- resume

    def get_state(self, copy: bool = True) -> dict[str, Any]:
        """Everything that decides what happens next (for exact resume): a deep copy, or
        with ``copy=False`` the live objects (pickle them before the env moves on)."""
        state = {
            "states": self.states,
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
        if len(state["states"]) != self.num_envs:
            raise ValueError(
                f"saved state has {len(state['states'])} games, env has {self.num_envs}"
            )
        self.states = state["states"]
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
