"""What the three OpenSpiel games share: a ``pyspiel.Game`` and ``pyspiel.State`` over a
game's compiled engine, the observer, the returns and the resampler.

A state is the engine's row (``feral_envs/<game>/engine.py``) plus the little an OpenSpiel
state needs besides: the chance outcomes drawn so far in a chance phase (a deal, a trump
flip, a random setup), the scores when the current hand or round began (for the single hand
or round returns) and, per player, a running digest of everything it has observed (its
information-state string). Decisions are the engine's ``apply`` on the row; each game's
module (``lost_heir``, ``lost_ranks``, ``hidden_ranks``) says how its chance phases are
drawn and written into the row.
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
import pyspiel

from feral_envs.core import DRAW, GameCore
from feral_envs.engine.game import Game
from feral_envs.engine.rng import seed_words

DIGEST_SIZE = 16
"""Bytes of a player's history digest (blake2b)."""


def game_type(
    short_name: str, long_name: str, core: GameCore, extra: dict[str, Any]
) -> pyspiel.GameType:
    """The ``GameType`` of a game over ``core``: sequential, explicit chance, imperfect
    information, zero-sum, terminal rewards; parameters are the env keywords (defaults from
    ``core.keyword_defaults``) plus ``extra``."""
    return pyspiel.GameType(
        short_name=short_name,
        long_name=long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=core.n_seats,
        min_num_players=core.n_seats,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={**core.keyword_defaults, **extra},
    )


class FeralGame(pyspiel.Game):
    """A game over a ``GameCore`` on its engine; a subclass sets the class attributes and
    :meth:`limits`."""

    core: ClassVar[GameCore]
    decode: ClassVar[Callable]
    """The game's ``view.decode`` (rows read by name, for the text views), a staticmethod."""
    obs_layout: ClassVar[Any]
    """The game's ``encoding.OBS``."""
    game_type: ClassVar[pyspiel.GameType]
    state_class: ClassVar[type]
    segment_parameter: ClassVar[str | None] = None
    """The bool parameter that ends the game after one hand or round (None: no such)."""
    segment_name: ClassVar[str] = "hand"
    """What the game calls one deal: ``"hand"`` or ``"round"``."""
    max_chance_outcomes: ClassVar[int]

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        spec = self.game_type.parameter_specification
        params = {**spec, **(params or {})}
        unknown = sorted(set(params) - set(spec))
        if unknown:
            raise ValueError(
                f"{self.game_type.short_name} takes no parameter {', '.join(unknown)}; "
                f"its parameters: {', '.join(spec)}"
            )
        keywords = {k: params[k] for k in self.core.keyword_defaults if k != "reward"}
        self.reward = params["reward"]
        if self.reward not in self.core.keyword_choices["reward"]:
            raise ValueError(
                f"reward={self.reward!r} is not allowed; choose one of: "
                + ", ".join(map(repr, self.core.keyword_choices["reward"]))
            )
        self.config = self.core.make_config(**keywords)
        self.keywords = {**keywords, "reward": self.reward}
        self.single = bool(params[self.segment_parameter]) if self.segment_parameter else False
        min_u, max_u, length = self.limits()
        info = pyspiel.GameInfo(
            num_distinct_actions=self.core.n_actions,
            max_chance_outcomes=self.max_chance_outcomes,
            num_players=self.core.n_seats,
            min_utility=float(min_u),
            max_utility=float(max_u),
            utility_sum=0.0,
            max_game_length=int(length),
        )
        super().__init__(self.game_type, info, params)
        engine = self.core.engine
        self.engine = engine
        self.obs_size = int(engine.OBS_SIZE)
        self.team_of_seat = np.asarray(engine.TEAM_OF_SEAT)

    def limits(self) -> tuple[float, float, int]:
        """``(min_utility, max_utility, max_game_length)`` for these parameters."""
        raise NotImplementedError

    def observation_pieces(self, tensor: np.ndarray) -> dict[str, np.ndarray]:
        """Views of the flat observation ``tensor``, one per span of ``encoding.OBS``."""
        return {span.name: tensor[span.slice] for span in self.obs_layout.spans}

    def seat_of_observation(self, observation: np.ndarray) -> int:
        """The seat a policy that sees only ``observation`` (its turn) plays as in the worlds
        it builds: one whose view that observation can be (module docstring of each game)."""
        return 0

    def state_from_observation(
        self, observation: np.ndarray, rng: np.random.Generator
    ) -> FeralState:
        """A decision-node state built from one seat's observation alone: a world drawn by
        the game's ``sample_from_observation(observation, config, seat, rng)``
        (``feral_envs.<game>.search``), seen from :meth:`seat_of_observation`. What a policy
        that is given only its observation (the arena's rule) searches from; ``ValueError``
        while the game has no such sampler."""
        observation = np.asarray(observation, dtype=np.float32).reshape(-1)
        seat = self.seat_of_observation(observation)
        module = search_module(self.core, "sample_from_observation")
        row = module.sample_from_observation(observation, self.config, seat, rng)
        return state_with_row(self, row, None, seat)

    def new_initial_state(self) -> FeralState:
        return self.state_class(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> Observer:
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        iig_obs_type = iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
        if not iig_obs_type.public_info or (
            iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
        ):
            raise ValueError(
                "only the player's own view is offered (public_info=True, "
                "private_info=SINGLE_PLAYER): the env's observation holds both"
            )
        return Observer(self, perfect_recall=iig_obs_type.perfect_recall)

    def new_row(self, options: dict) -> np.ndarray:
        """A row started by the engine with these ``reset`` options; its stream (which the
        chance nodes override) from a fixed seed."""
        row = np.zeros(self.engine.ROW_SIZE, dtype=np.int32)
        row[:4] = seed_words(0)
        self.engine.start(row, self.config, options)
        return row


class FeralState(pyspiel.State):
    """A state of a :class:`FeralGame`: see the module docstring. Subclasses implement the
    chance phases (:meth:`chance_outcomes`, :meth:`_finish_chance`, :meth:`_segment`)."""

    def __init__(self, game: FeralGame) -> None:
        super().__init__(game)
        self.row: np.ndarray | None = None
        """The engine row; None until the first chance phase is complete."""
        self.drawn: list[int] = []
        """Chance outcomes drawn so far in the current chance phase."""
        self.in_chance = True
        self.segments = 0
        """Hands or rounds finished."""
        self.segment_scores = (0, 0)
        """Each team's game score when the current hand or round began."""
        self.over = False
        """The game ended by the single hand or round parameter."""
        self.final_scores = (0, 0)
        """Each team's game score when the single hand or round ended."""
        n = game.core.n_seats
        self.digests = [b""] * n
        """Each player's digest as of the position before ``_pending`` (history_digests)."""
        self._pending: list[int] = []
        self._snapshot: tuple | None = None
        self.start_game()

    @property
    def spec(self) -> FeralGame:
        """The game (not stored in the state: ``clone`` deep-copies a state's attributes)."""
        return self.get_game()

    # --- for subclasses ---------------------------------------------------------------

    def start_game(self) -> None:
        """The state before the first action: a chance phase by default."""

    def _finish_chance(self) -> None:
        """Write the complete chance phase (``self.drawn``) into the row."""
        raise NotImplementedError

    def _segment(self) -> int:
        """Hands or rounds finished, as the row counts them."""
        raise NotImplementedError

    def chance_complete(self) -> bool:
        raise NotImplementedError

    # --- the OpenSpiel API ------------------------------------------------------------

    def current_player(self) -> int:
        if self.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        if self.in_chance:
            return pyspiel.PlayerId.CHANCE
        return int(self.spec.engine.to_act(self.row))

    def is_terminal(self) -> bool:
        if self.over:
            return True
        if self.row is None or self.in_chance:
            return False
        terminated, truncated, _ = self.spec.engine.status(self.row)
        return bool(terminated or truncated)

    def _legal_actions(self, player: int) -> list[int]:
        mask = np.zeros(self.spec.core.n_actions, dtype=np.int8)
        self.spec.engine.legal_mask(self.row, mask)
        return np.flatnonzero(mask).tolist()

    def _apply_action(self, action: int) -> None:
        if not self._pending:  # the digests are of this position: keep it to replay from
            self._snapshot = self._bookkeeping()
        self._pending.append(int(action))
        self._step(int(action), observe=False)

    def _step(self, action: int, observe: bool) -> None:
        """Apply ``action`` (a chance outcome or a decision); with ``observe``, extend the
        history digests at the decision node or end reached."""
        if self.in_chance:
            self.drawn.append(action)
            if self.chance_complete():
                self._finish_chance()
                self.drawn = []
                self.in_chance = False
                self.segment_scores = self.scores()
                if observe:
                    self._observe_all()
            return
        engine = self.spec.engine
        if not engine.is_legal(self.row, action):
            raise ValueError(
                f"illegal action {action} ({self._action_to_string(self.current_player(), action)})"
            )
        engine.apply(self.row, action)
        if self._segment() > self.segments:
            self.segments = self._segment()
            terminated, truncated, _ = engine.status(self.row)
            if self.spec.single:
                self.over = True
                self.final_scores = self.scores()
            elif not (terminated or truncated):
                self.in_chance = True  # the next hand or round is dealt by chance
                return
        if observe:
            self._observe_all()

    _FIELDS = ("drawn", "in_chance", "segments", "segment_scores", "over", "final_scores")

    def _bookkeeping(self) -> tuple:
        row = None if self.row is None else self.row.copy()
        return (row, *(list(v) if isinstance(v, list) else v for v in self._fields()))

    def _fields(self) -> list:
        return [getattr(self, name) for name in self._FIELDS]

    def history_digests(self) -> list[bytes]:
        """Each player's digest of everything it has observed, up to now. Computed when
        asked: the actions since the last request are replayed from the position kept then,
        observing at every decision node (a search's rollouts never pay for it)."""
        if self._pending:
            now = (self.row, self._fields())
            row, *fields = self._snapshot
            self.row = row
            for name, value in zip(self._FIELDS, fields, strict=True):
                setattr(self, name, value)
            for action in self._pending:
                self._step(action, observe=True)
            assert (self.row is None and now[0] is None) or np.array_equal(self.row, now[0])
            self._pending = []
            self._snapshot = None
        return self.digests

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return self.chance_string(action)
        names = self.spec.core.action_to_string
        if self.row is not None and player == self.current_player():
            return names(Game(self.spec.decode, self.spec.config, self.row), action)
        return names(_Seat(player), action)

    def chance_string(self, action: int) -> str:
        raise NotImplementedError

    def returns(self) -> list[float]:
        """The env's rewards summed: ``reward="win"`` +1 for the winning team, -1 for the
        other, 0 for a draw or truncation; ``reward="points"`` each team's score change minus
        the other's. With the single hand or round parameter the game is that hand: its
        score changes (``"points"``) or their sign (``"win"``)."""
        n = self.spec.core.n_seats
        if not self.is_terminal():
            return [0.0] * n
        if self.over:
            before, after = self.segment_scores, self.final_scores
            margin0 = (after[0] - before[0]) - (after[1] - before[1])
            if self.spec.reward == "win":
                margin0 = float(np.sign(margin0))
            return [float(margin0 if team == 0 else -margin0) for team in self.spec.team_of_seat]
        if self.spec.reward == "points":
            scores = self.scores()
            margin0 = scores[0] - scores[1]
            return [float(margin0 if team == 0 else -margin0) for team in self.spec.team_of_seat]
        _, _, winner = self.spec.engine.status(self.row)
        if winner == DRAW:
            return [0.0] * n
        return [1.0 if team == winner else -1.0 for team in self.spec.team_of_seat]

    def scores(self) -> tuple[int, int]:
        score = self.spec.engine.score
        return int(score(self.row, 0)), int(score(self.row, 1))

    def __str__(self) -> str:
        if self.row is None or self.in_chance:
            return f"chance: {len(self.drawn)} outcomes drawn"
        game = Game(self.spec.decode, self.spec.config, self.row)
        return self.spec.core.render_ansi(game, None)

    # --- observations -----------------------------------------------------------------

    def observation(self, player: int, out: np.ndarray) -> None:
        """Write ``player``'s observation (the env's ``observe``) into ``out`` (flat): zeros
        while no hand is on the table (a chance phase, or the end of a single hand)."""
        if self.row is None or self.in_chance or self.over:
            out[:] = 0
        else:
            self.spec.engine.observe(self.row, player, out)

    def _observe_all(self) -> None:
        """Extend every player's history digest with what it observes now."""
        obs = np.empty(self.spec.obs_size, dtype=np.float32)
        for player in range(len(self.digests)):
            self.observation(player, obs)
            self.digests[player] = hashlib.blake2b(
                self.digests[player] + obs.tobytes(), digest_size=DIGEST_SIZE
            ).digest()

    def observation_text(self, player: int) -> str:
        if self.row is None or self.in_chance:
            return f"chance: {len(self.drawn)} outcomes drawn"
        if self.over:
            return f"the {self.spec.segment_name} is over"
        game = Game(self.spec.decode, self.spec.config, self.row)
        return self.spec.core.render_ansi(game, player)

    # --- resampling -------------------------------------------------------------------

    def resample_from_infostate(self, player_id: int, probability_sampler: Callable) -> Any:
        """A state that ``player_id`` cannot tell from this one, drawn by the game's
        ``sample_world(row, config, seat, rng)`` (``feral_envs.<game>.search``) from
        ``player_id``'s view alone, with a numpy generator seeded by four draws of
        ``probability_sampler``. The player's history digest is kept; the other players'
        start from their observation in the sampled world (their past there is not rebuilt).
        Only at a decision node (``ValueError`` at chance or terminal nodes)."""
        if self.row is None or self.in_chance or self.is_terminal():
            raise ValueError("resample_from_infostate needs a decision node")
        module = search_module(self.spec.core, "sample_world")
        seeds = [int(probability_sampler() * 2**32) for _ in range(4)]
        rng = np.random.default_rng(seeds)
        row = module.sample_world(self.row, self.spec.config, int(player_id), rng)
        return state_with_row(self.spec, row, self, int(player_id))


def search_module(core: GameCore, function: str) -> Any:
    """The game's search module if it offers ``function``, else ``ValueError`` (as the env's
    ``sample_world``)."""
    name = core.search
    module = importlib.import_module(name) if name is not None else None
    if module is None or not hasattr(module, function):
        raise ValueError(f"{core.name} offers no {function}()")
    return module


def state_with_row(game: FeralGame, row: np.ndarray, like: FeralState | None, player: int):
    """A decision-node state of ``game`` holding ``row``: ``like``'s public bookkeeping
    (hands finished, the scores when this one began) and ``player``'s digest, the others'
    digests drawn from their observation in ``row`` (and ``player``'s digest)."""
    state = game.new_initial_state()
    state.row = np.array(row, dtype=np.int32)
    state.in_chance = False
    state.drawn = []
    if like is not None:
        state.segments = like.segments
        state.segment_scores = like.segment_scores
        seed = like.history_digests()[player]
    else:
        state.segments = state._segment()
        state.segment_scores = state.scores()
        seed = b""
    obs = np.empty(game.obs_size, dtype=np.float32)
    for seat in range(len(state.digests)):
        if like is not None and seat == player:
            state.digests[seat] = seed
            continue
        state.observation(seat, obs)
        state.digests[seat] = hashlib.blake2b(
            seed + b"sampled" + bytes([seat]) + obs.tobytes(), digest_size=DIGEST_SIZE
        ).digest()
    return state


class _Seat:
    """What the naming functions read for a seat that is not to act (its frame)."""

    def __init__(self, seat: int) -> None:
        self.to_move = self.to_act = seat


class Observer:
    """The PyObserver of a :class:`FeralGame`: ``tensor`` is the env's observation of the
    player (flat, float32), for the observation and the information state alike; ``dict``
    names its spans (``encoding.OBS``). Strings: the observation is the table as the player
    sees it (``render_ansi``); the information state adds a digest of everything the player
    has observed so far (perfect recall)."""

    def __init__(self, game: FeralGame, perfect_recall: bool) -> None:
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(game.obs_size, dtype=np.float32)
        self.dict = game.observation_pieces(self.tensor)

    def set_from(self, state: FeralState, player: int) -> None:
        state.observation(player, self.tensor)

    def string_from(self, state: FeralState, player: int) -> str:
        text = state.observation_text(player)
        if self.perfect_recall:
            return f"{text}\nhistory {state.history_digests()[player].hex()}"
        return text
