"""The web app: a Starlette ASGI app serving the page (``static/``) and the JSON API.

``POST /api/games`` ``{game, keywords, seat, opponents, seed?, options?}`` starts a game and
returns the human seat's view; ``GET /api/games/{id}`` the view (``?since=N``: the moves
from move ``N`` on instead of those since the last view); ``POST /api/games/{id}/actions``
``{action}`` (a name or an id) plays it and the bots after it. ``GET /api/meta`` lists the
games, their seats and keywords, and the opponent specs. ``POST /api/replays`` ``{record}``
or ``{jsonl, game_index}`` loads an arena record; ``GET /api/replays/{id}/frames/{step}``
``?view=`` gives its table after ``step`` actions. Refusals are 4xx with ``{"error": ...}``
(and ``legal_actions`` where an action was refused) and change nothing.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

import feral_envs
from play.web.session import GameSession, GameStore, Replay, RequestError, parse_record

STATIC = Path(__file__).parent / "static"
GAME_FIELDS = ("game", "keywords", "seat", "opponents", "seed", "options")
"""What ``POST /api/games`` takes."""


async def _body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    try:
        body = json.loads(raw or b"null")
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise RequestError("the body is not JSON") from None
    if not isinstance(body, dict):
        raise RequestError(f"the body must be a JSON object, got {type(body).__name__}")
    return body


def _refused(error: RequestError) -> JSONResponse:
    return JSONResponse(error.body(), status_code=error.status)


def meta() -> dict[str, Any]:
    """What the page offers: each game's seats, teams, keywords and their choices; the specs."""
    from agents.registry import SPEC_FORMS

    games = {}
    for game in feral_envs.GAMES:
        core = importlib.import_module(f"feral_envs.{game}").CORE
        games[game] = {
            "seats": list(core.agents),
            "teams": list(core.team_names),
            "team_of_seat": list(core.team_of_seat),
            "keywords": {k: v for k, v in core.keyword_defaults.items() if k != "reward"},
            "choices": {k: list(v) for k, v in core.keyword_choices.items() if k != "reward"},
        }
    return {"games": games, "specs": list(SPEC_FORMS.values())}


def create_app(store_limit: int = 200) -> Starlette:
    """A fresh app with its own games and replays."""
    games = GameStore(store_limit)
    replays = GameStore(20)

    async def index(request: Request) -> FileResponse:
        return FileResponse(STATIC / "index.html")

    async def api_meta(request: Request) -> JSONResponse:
        return JSONResponse(meta())

    async def new_game(request: Request) -> JSONResponse:
        try:
            body = await _body(request)
            unknown = sorted(
                set(body) - {"game", "keywords", "seat", "opponents", "seed", "options"}
            )
            if unknown:
                raise RequestError(
                    f"unknown field(s) {', '.join(unknown)}; fields: game, keywords, seat, "
                    "opponents, seed, options"
                )
            if "game" not in body:
                raise RequestError(f"'game' is missing; games: {', '.join(feral_envs.GAMES)}")
            session = await _in_thread(
                lambda: GameSession(
                    body["game"],
                    body.get("keywords"),
                    body.get("seat"),
                    body.get("opponents"),
                    body.get("seed"),
                    body.get("options"),
                )
            )
        except RequestError as error:
            return _refused(error)
        games.add(session)
        with session.lock:
            return JSONResponse(session.view(), status_code=201)

    async def get_game(request: Request) -> JSONResponse:
        try:
            session = games.get(request.path_params["id"])
            since = request.query_params.get("since")
            if since is not None and not since.isdigit():
                raise RequestError(f"since must be a move number, got {since!r}")
            with session.lock:
                return JSONResponse(session.view(None if since is None else int(since)))
        except RequestError as error:
            return _refused(error)

    async def post_action(request: Request) -> JSONResponse:
        try:
            session = games.get(request.path_params["id"])
            body = await _body(request)
            if "action" not in body:
                with session.lock:
                    legal = session.legal_actions()
                raise RequestError("'action' is missing: give an action name or id", 400, legal)

            def play() -> dict[str, Any]:
                with session.lock:
                    session.act(body["action"])
                    return session.view()

            return JSONResponse(await _in_thread(play))
        except RequestError as error:
            return _refused(error)

    async def new_replay(request: Request) -> JSONResponse:
        try:
            record = parse_record(await _body(request))
            replay = await _in_thread(lambda: Replay(record))
        except RequestError as error:
            return _refused(error)
        replays.add(replay)
        return JSONResponse(replay.summary(), status_code=201)

    async def replay_frame(request: Request) -> JSONResponse:
        try:
            replay = replays.get(request.path_params["id"], "replay")
            view = request.query_params.get("view", "referee")
            return JSONResponse(replay.frame(request.path_params["step"], view))
        except RequestError as error:
            return _refused(error)

    async def not_found(request: Request) -> JSONResponse:
        return JSONResponse({"error": f"no API route {request.url.path}"}, status_code=404)

    routes = [
        Route("/", index),
        Route("/api/meta", api_meta),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games/{id}", get_game),
        Route("/api/games/{id}/actions", post_action, methods=["POST"]),
        Route("/api/replays", new_replay, methods=["POST"]),
        Route("/api/replays/{id}/frames/{step}", replay_frame),
        Route("/api/{rest:path}", not_found, methods=["GET", "POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes)


async def _in_thread(work: Any) -> Any:
    """Run ``work`` (bots and replays may take a while) off the event loop."""
    from starlette.concurrency import run_in_threadpool

    return await run_in_threadpool(work)
