"""Games and replays behind the web app's JSON API, with no web code: a :class:`GameSession`
is one human seat against bots, a :class:`Replay` an arena record stepped through.

A view holds only what its seat may see. It is built from the seat's own views of the env:
the text view (``render_ansi`` from the seat), and the structured table that the seat's
picture draws (``picture.table_view`` for the card games, ``picture.board_view`` for Hidden
Ranks), never from the state's other fields. The bots' moves are told as the terminal app
tells them (:mod:`play.terminal`): by name, except what the rules hide (a setup, a pass).
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import secrets
import threading
from collections import OrderedDict
from typing import Any

import numpy as np

import feral_envs
from feral_envs.engine.game import Game
from play.actions import read_action
from play.terminal import SETUP_SHORTCUTS, decision_hint, hidden_action, in_setup, news, snapshot

MAX_GAMES = 200
"""Games kept at once; the least recently used one goes first beyond that."""


class RequestError(ValueError):
    """A request the API refuses, with its HTTP status and, where it helps, the legal actions."""

    def __init__(self, message: str, status: int = 400, legal: list[dict] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.legal = legal

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"error": str(self)}
        if self.legal is not None:
            body["legal_actions"] = self.legal
        return body


def game_name(game: Any) -> str:
    if not isinstance(game, str) or game.removesuffix("_v0") not in feral_envs.GAMES:
        raise RequestError(f"unknown game {game!r}; games: {', '.join(feral_envs.GAMES)}")
    return game.removesuffix("_v0")


def table_of(game: Game, game_name: str, seat: int | None) -> dict[str, Any]:
    """The structured table as ``seat`` (None: the referee) sees it: what its picture draws."""
    picture = importlib.import_module(f"feral_envs.{game_name}.picture")
    if hasattr(picture, "board_view"):
        return {"kind": "board", **dataclasses.asdict(picture.board_view(game.view, seat))}
    return {"kind": "cards", **dataclasses.asdict(picture.table_view(game.view, seat))}


def seat_view(raw: Any, seat: int | None) -> dict[str, Any]:
    """What ``seat`` (None: the referee) sees of the game on ``raw`` (a ``TableEnv``): its
    text view and its structured table."""
    return _jsonable(
        {
            "text": raw.core.render_ansi(raw.game, seat),
            "table": table_of(raw.game, raw.core.name, seat),
        }
    )


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value


class GameSession:
    """One game: the human's seat, a bot at every other seat, the moves told so far."""

    def __init__(
        self,
        game: Any,
        keywords: Any = None,
        seat: Any = None,
        opponents: Any = None,
        seed: Any = None,
        options: Any = None,
    ) -> None:
        from agents.arena import game_options
        from agents.registry import load_policy

        self.game = game_name(game)
        if keywords is None:
            keywords = {}
        if not isinstance(keywords, dict):
            raise RequestError(f"keywords must be an object of game keywords, got {keywords!r}")
        if seed is None:
            seed = int(np.random.SeedSequence().entropy % 2**31)
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**63:
            raise RequestError(f"seed must be an integer from 0 to 2**63 - 1, got {seed!r}")
        if options is not None and not isinstance(options, dict):
            raise RequestError(f"options must be an object of reset options, got {options!r}")
        try:
            self.options = game_options(self.game, keywords)
            self.env = feral_envs.make(self.game, **self.options)
        except ValueError as error:
            raise RequestError(str(error)) from None
        raw = self.env.unwrapped
        self.raw = raw
        agents = list(raw.possible_agents)
        self.human = agents[0] if seat is None else seat
        if self.human not in agents:
            raise RequestError(f"seat {seat!r} is not a seat of {self.game}; seats: {agents}")
        self.seat = raw.seat_of(self.human)
        others = [a for a in agents if a != self.human]
        self.specs = dict(zip(others, self._opponent_specs(opponents, len(others)), strict=True))
        self.seed = seed
        self.rules = {k: v for k, v in self.options.items() if k != "reward"}
        children = np.random.SeedSequence(seed).spawn(len(agents))
        self.policies = {}
        for agent, child in zip(agents, children, strict=True):
            if agent in self.specs:
                policy_seed = int(child.generate_state(1)[0])
                try:
                    policy = load_policy(self.specs[agent], self.game, policy_seed, self.rules)
                except (ValueError, FileNotFoundError) as error:
                    raise RequestError(f"opponent {agent}: {error}") from None
                policy.reset(policy_seed)
                self.policies[agent] = policy
        try:
            self.env.reset(seed=seed, options=options)
        except ValueError as error:
            raise RequestError(f"options: {error}") from None
        self.id = secrets.token_hex(8)
        self.lock = threading.Lock()
        self.moves: list[dict[str, Any]] = []
        self.told = 0
        self._secret_told: tuple | None = None
        self._play_bots()

    @staticmethod
    def _opponent_specs(opponents: Any, n: int) -> list[str]:
        if opponents is None:
            opponents = "random"
        if isinstance(opponents, str):
            opponents = [opponents]
        if not isinstance(opponents, list) or not all(isinstance(s, str) for s in opponents):
            raise RequestError(f"opponents must be a spec or a list of specs, got {opponents!r}")
        if len(opponents) == 1:
            return opponents * n
        if len(opponents) != n:
            raise RequestError(
                f"opponents: give one spec for all {n} other seats or one per seat, in seat "
                f"order; got {len(opponents)}"
            )
        return opponents

    # ------------------------------------------------------------------------- playing

    @property
    def over(self) -> bool:
        raw = self.raw
        agent = raw.agent_selection
        return not raw.agents or raw.terminations[agent] or raw.truncations[agent]

    def _play_bots(self) -> None:
        """Let the bots move up to the human's next decision or the end."""
        env, raw = self.env, self.raw
        while not self.over and raw.agent_selection != self.human:
            agent = raw.agent_selection
            obs = env.observe(agent)
            mask = raw.core.legal_mask(raw.game)
            secret = hidden_action(raw)
            action = int(self.policies[agent].act(obs["observation"], mask))
            self._step(agent, action, secret, bot=True)

    def _step(self, agent: str, action: int, secret: str | None, bot: bool) -> None:
        raw = self.raw
        before = snapshot(raw)
        name = raw.action_to_string(action)
        self.env.step(action)
        hidden = secret is not None and agent != self.human
        if hidden and (agent, secret) == self._secret_told and self.moves:
            self.moves[-1]["count"] += 1  # one line for a run of hidden placements or passes
            self.moves[-1]["table"] = self.table()
            return
        self._secret_told = (agent, secret) if hidden else None
        self.moves.append(
            {
                "number": len(self.moves),
                "agent": agent,
                "bot": bot,
                "action": None if hidden else name,
                "text": f"{agent} {secret}" if hidden else f"{agent}: {name}",
                "news": news(raw, before, action),
                "count": 1,
                "table": self.table(),
            }
        )

    def act(self, entry: Any) -> None:
        """Play the human's ``entry`` (an action name, an id, or a Hidden Ranks setup
        shortcut ``random`` / ``bot``), then the bots up to the human's next decision."""
        raw = self.raw
        if self.over:
            raise RequestError("the game is over: no action is legal", 409, [])
        if raw.agent_selection != self.human:
            raise RequestError(f"it is {raw.agent_selection}'s turn, not yours", 409, [])
        if isinstance(entry, str) and entry.strip().lower() in SETUP_SHORTCUTS and in_setup(raw):
            self._place_army(entry.strip().lower())
        else:
            self._step(self.human, self._action_id(entry), None, bot=False)
        self._secret_told = None
        self._play_bots()

    def _action_id(self, entry: Any) -> int:
        raw = self.raw
        mask = raw.core.legal_mask(raw.game)
        if isinstance(entry, int) and not isinstance(entry, bool):
            if 0 <= entry < len(mask) and mask[entry]:
                return entry
            what = "is not legal now" if 0 <= entry < len(mask) else "is out of range"
            raise RequestError(
                f"action id {entry} {what} for {self.human}; legal: "
                + ", ".join(raw.legal_action_names()),
                422,
                self.legal_actions(),
            )
        if not isinstance(entry, str):
            raise RequestError(
                f"action must be an action name or id, got {entry!r}", 400, self.legal_actions()
            )
        try:
            return read_action(raw, entry)
        except ValueError as error:
            raise RequestError(str(error), 422, self.legal_actions()) from None

    def _place_army(self, how: str) -> None:
        from agents.registry import load_policy

        spec = "random" if how == "random" else "heuristic"
        policy = load_policy(spec, self.game, self.seed, self.rules)
        policy.reset(self.seed + 1)
        raw = self.raw
        while in_setup(raw) and raw.agent_selection == self.human:
            obs = self.env.observe(self.human)
            action = int(policy.act(obs["observation"], raw.core.legal_mask(raw.game)))
            self._step(self.human, action, None, bot=False)

    # --------------------------------------------------------------------------- views

    def table(self) -> dict[str, Any]:
        return _jsonable(table_of(self.raw.game, self.game, self.seat))

    def legal_actions(self) -> list[dict[str, Any]]:
        raw = self.raw
        if self.over or raw.agent_selection != self.human:
            return []
        mask = raw.core.legal_mask(raw.game)
        return [{"id": int(a), "name": raw.action_to_string(int(a))} for a in np.flatnonzero(mask)]

    def result(self) -> dict[str, Any] | None:
        if not self.over:
            return None
        raw = self.raw
        _, truncated, winner = raw.core.status(raw.game)
        team = raw.team_of_seat[self.seat]
        scores = raw.scores
        if truncated:
            you, text = "no winner", "stopped by its length cap, no winner"
        elif winner < 0:
            you, text = "draw", "a draw"
        else:
            you = "win" if winner == team else "lose"
            text = f"you {you} ({raw.team_names[winner]} won)"
        return {
            "winner": None if truncated or winner < 0 else raw.team_names[winner],
            "truncated": bool(truncated),
            "you": you,
            "text": text,
            "scores": scores,
        }

    def view(self, since: int | None = None) -> dict[str, Any]:
        """What the human's seat may see now, with the moves since the last view (or since
        move number ``since``)."""
        raw = self.raw
        start = self.told if since is None else max(0, min(int(since), len(self.moves)))
        moves = self.moves[start:]
        self.told = len(self.moves)
        your_turn = not self.over and raw.agent_selection == self.human
        setup = your_turn and in_setup(raw)
        team = raw.team_of_seat[self.seat]
        return _jsonable(
            {
                "id": self.id,
                "game": self.game,
                "seat": self.human,
                "team": raw.team_names[team],
                "seats": list(raw.possible_agents),
                "opponents": self.specs,
                "keywords": self.rules,
                "seed": self.seed,
                "to_act": None if self.over else raw.agent_selection,
                "your_turn": your_turn,
                "legal_actions": self.legal_actions(),
                "shortcuts": list(SETUP_SHORTCUTS) if setup else [],
                "hint": decision_hint(raw) if your_turn else "",
                "over": self.over,
                "result": self.result(),
                "scores": raw.scores,
                "moves": moves,
                "move_count": len(self.moves),
                **seat_view(raw, self.seat),
            }
        )


class GameStore:
    """The games being played, by id (the least recently used dropped beyond ``limit``)."""

    def __init__(self, limit: int = MAX_GAMES) -> None:
        self.limit = limit
        self.games: OrderedDict[str, Any] = OrderedDict()
        self.lock = threading.Lock()

    def add(self, item: Any) -> None:
        with self.lock:
            self.games[item.id] = item
            while len(self.games) > self.limit:
                self.games.popitem(last=False)

    def get(self, item_id: str, what: str = "game") -> Any:
        with self.lock:
            item = self.games.get(item_id)
            if item is None:
                raise RequestError(f"no {what} with id {item_id!r}", 404)
            self.games.move_to_end(item_id)
            return item


# -------------------------------------------------------------------------------- replays


def parse_record(body: Any) -> dict[str, Any]:
    """One arena record from a request body: ``{"record": {...}}``, or ``{"jsonl": TEXT,
    "game_index": K}`` (K-th non-empty line of a ``records.jsonl``, default 0)."""
    if not isinstance(body, dict):
        raise RequestError("the body must be a JSON object with 'record' or 'jsonl'")
    if "record" in body:
        record = body["record"]
    elif "jsonl" in body:
        text, index = body["jsonl"], body.get("game_index", 0)
        if not isinstance(text, str):
            raise RequestError("'jsonl' must be the text of a records.jsonl")
        lines = [line for line in text.splitlines() if line.strip()]
        if not isinstance(index, int) or not 0 <= index < len(lines):
            raise RequestError(
                f"the record holds {len(lines)} game(s): game_index must be 0..{len(lines) - 1},"
                f" got {index!r}"
            )
        try:
            record = json.loads(lines[index])
        except json.JSONDecodeError:
            raise RequestError(f"line {index + 1} of the record is not JSON") from None
    else:
        raise RequestError("give 'record' (one arena record) or 'jsonl' (a records.jsonl text)")
    if not isinstance(record, dict):
        raise RequestError("an arena record is a JSON object (docs/arena.md)")
    missing = [key for key in ("game", "options", "env_seed", "actions") if key not in record]
    if missing:
        raise RequestError(f"not an arena record: it lacks {', '.join(missing)}")
    return record


class Replay:
    """An arena record replayed once, every step's state row kept for its views."""

    def __init__(self, record: dict[str, Any]) -> None:
        self.game = game_name(record["game"])
        options, actions = record["options"], record["actions"]
        if not isinstance(options, dict) or not isinstance(actions, list):
            raise RequestError("a record's options are an object and its actions a list")
        try:
            env = feral_envs.make(self.game, **options)
            env.reset(seed=record["env_seed"])
        except (ValueError, TypeError) as error:
            raise RequestError(f"the record's game does not start: {error}") from None
        raw = env.unwrapped
        self.raw = raw
        self.rows = [raw.game.row.copy()]
        self.steps: list[dict[str, Any]] = []
        for number, action in enumerate(actions):
            agent = raw.agent_selection
            if not raw.agents or raw.terminations[agent] or raw.truncations[agent]:
                raise RequestError(f"the game is over before action {number}: not a replay")
            mask = raw.core.legal_mask(raw.game)
            legal = isinstance(action, int) and 0 <= action < len(mask) and mask[action]
            if not legal:
                raise RequestError(f"action {number} ({action!r}) is not legal there: not a replay")
            self.steps.append({"agent": agent, "action": raw.action_to_string(action)})
            env.step(action)
            self.rows.append(raw.game.row.copy())
        self.id = secrets.token_hex(8)
        self.record = record
        self.lock = threading.Lock()

    def summary(self) -> dict[str, Any]:
        keys = ("sides", "specs", "seats", "teams", "winner", "result", "final_scores", "end")
        return _jsonable(
            {
                "id": self.id,
                "game": self.game,
                "seats": list(self.raw.possible_agents),
                "n_steps": len(self.steps),
                "steps": self.steps,
                "record": {k: self.record[k] for k in keys if k in self.record},
            }
        )

    def frame(self, step: Any, view: Any = "referee") -> dict[str, Any]:
        """The table after ``step`` actions (0: after the reset), seen by ``view`` (an
        agent name or ``referee``)."""
        try:
            step = int(step)
        except (TypeError, ValueError):
            raise RequestError(f"step must be an integer, got {step!r}") from None
        if not 0 <= step <= len(self.steps):
            raise RequestError(f"step must be 0..{len(self.steps)}, got {step}", 404)
        agents = list(self.raw.possible_agents)
        if view != "referee" and view not in agents:
            raise RequestError(f"view must be 'referee' or an agent: {', '.join(agents)}")
        seat = None if view == "referee" else agents.index(view)
        current = self.raw.game
        game = Game(current.decode, current.config, self.rows[step].copy())
        return _jsonable(
            {
                "id": self.id,
                "step": step,
                "n_steps": len(self.steps),
                "last": self.steps[step - 1] if step else None,
                "view": view,
                "text": self.raw.core.render_ansi(game, seat),
                "table": table_of(game, self.game, seat),
            }
        )
