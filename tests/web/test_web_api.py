"""The web app's JSON API: views, actions by name and id, refusals (bad requests, unknown
ids, illegal actions: a 4xx naming the problem and the legal actions, nothing changed),
concurrent games on a real server, replays, and no leak (two games identical for the seat
but different in what it may not see give it identical views)."""

from __future__ import annotations

import json
import threading

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed")
pytest.importorskip("httpx", reason="the dev extra is not installed")

import httpx
import web_fixtures
from starlette.testclient import TestClient

import feral_envs
from play.web import create_app
from play.web.session import GameSession, seat_view

server = web_fixtures.server
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

SEATS = {"lost_heir": "south", "lost_ranks": "black_0", "hidden_ranks": "silver"}
SHORT = {"lost_heir": {"max_hands": 1}, "lost_ranks": {}, "hidden_ranks": {"mode": "quick"}}


@pytest.fixture
def client():
    with TestClient(create_app()) as client:
        yield client


def new_game(client, game, **fields):
    body = {"game": game, "seat": SEATS[game], "opponents": "random", "seed": 7, **fields}
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def without_moves(view: dict) -> dict:
    return {k: v for k, v in view.items() if k != "moves"}


@pytest.mark.parametrize("game", list(SEATS))
def test_a_view_holds_what_api_md_names(client, game):
    view = new_game(client, game, keywords=SHORT[game])
    for key in ("id", "seat", "to_act", "legal_actions", "over", "result", "moves", "text"):
        assert key in view
    assert view["seat"] == SEATS[game] and view["over"] is False and view["result"] is None
    assert view["to_act"] == SEATS[game] and view["your_turn"]
    env = feral_envs.make(game, **SHORT[game])
    env.reset(seed=0)
    names = [a["name"] for a in view["legal_actions"]]
    assert names and all(
        env.unwrapped.action_id(a["name"], SEATS[game]) == a["id"] for a in view["legal_actions"]
    )
    assert all(move["bot"] for move in view["moves"])  # the bots moved up to the human's turn
    again = client.get(f"/api/games/{view['id']}").json()
    assert again["moves"] == [] and without_moves(again) == without_moves(view)
    assert client.get(f"/api/games/{view['id']}?since=0").json()["moves"] == view["moves"]


@pytest.mark.parametrize("game", list(SEATS))
def test_a_whole_game_through_the_api_by_names_and_ids(client, game):
    keywords = {**SHORT[game], **({"max_moves": 40} if game == "hidden_ranks" else {})}
    view = new_game(client, game, keywords=keywords)
    for number in range(2000):
        if view["over"]:
            break
        legal = view["legal_actions"]
        choice = legal[number % len(legal)]
        action = choice["id"] if number % 2 else choice["name"].upper()
        response = client.post(f"/api/games/{view['id']}/actions", json={"action": action})
        assert response.status_code == 200, response.text
        view = response.json()
        mine = [m for m in view["moves"] if not m["bot"]]
        assert mine and mine[0]["action"] == choice["name"]
    assert view["over"] and view["legal_actions"] == [] and view["to_act"] is None
    assert view["result"]["you"] in ("win", "lose", "draw", "no winner")
    refused = client.post(f"/api/games/{view['id']}/actions", json={"action": 0})
    assert refused.status_code == 409 and "over" in refused.json()["error"]


def test_an_illegal_action_is_refused_names_the_legal_ones_and_changes_nothing(client):
    view = new_game(client, "lost_heir")
    url = f"/api/games/{view['id']}"
    legal = view["legal_actions"]
    names = {a["name"] for a in legal}
    illegal_name = next(n for n in ("pass", "bid 4", "accept", "refuse", "T7") if n not in names)
    illegal_id = next(i for i in range(47) if i not in {a["id"] for a in legal})
    cases = [
        ({"action": illegal_name}, 422, "is not legal now"),
        ({"action": "no such move"}, 422, "names no action"),
        ({"action": illegal_id}, 422, "is not legal now"),
        ({"action": 9999}, 422, "out of range"),
        ({"action": -1}, 422, "out of range"),
        ({"action": True}, 400, "action name or id"),
        ({"action": 1.5}, 400, "action name or id"),
        ({"action": None}, 400, "action name or id"),
        ({"action": ["pass"]}, 400, "action name or id"),
        ({}, 400, "'action' is missing"),
    ]
    for body, status, words in cases:
        response = client.post(url + "/actions", json=body)
        assert response.status_code == status, (body, response.text)
        error = response.json()
        assert words in error["error"], (body, error)
        assert error["legal_actions"] == legal
    for raw_body in (b"not json", b"[1, 2]", b'"pass"'):
        response = client.post(url + "/actions", content=raw_body)
        assert response.status_code == 400 and "body" in response.json()["error"]
    after = client.get(url).json()
    assert without_moves(after) == without_moves(view) and after["moves"] == []


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({}, "'game' is missing; games: lost_heir, lost_ranks, hidden_ranks"),
        ({"game": "chess"}, "unknown game 'chess'; games: lost_heir"),
        ({"game": 3}, "unknown game 3"),
        ({"game": "lost_heir", "seat": "gold"}, "is not a seat of lost_heir; seats:"),
        ({"game": "lost_heir", "keywords": {"mode": "quick"}}, "does not take mode; its keywords:"),
        ({"game": "lost_heir", "keywords": {"take_a_lead": "never"}}, "take_a_lead"),
        ({"game": "lost_heir", "keywords": [1]}, "keywords must be an object"),
        ({"game": "lost_heir", "opponents": "genius"}, "unknown policy spec 'genius'; specs:"),
        ({"game": "lost_heir", "opponents": ["random", "random"]}, "one per seat"),
        ({"game": "lost_heir", "opponents": 3}, "opponents must be a spec or a list"),
        ({"game": "lost_heir", "seed": -1}, "seed must be an integer from 0 to 2**63 - 1"),
        ({"game": "lost_heir", "seed": 2**64}, "seed must be an integer from 0"),
        ({"game": "lost_heir", "seed": "7"}, "seed must be an integer from 0"),
        ({"game": "lost_heir", "colour": "red"}, "unknown field(s) colour; fields: game"),
        ({"game": "hidden_ranks", "options": {"position": 3}}, "options:"),
    ],
)
def test_a_bad_new_game_is_a_400_naming_the_problem(client, body, words):
    response = client.post("/api/games", json=body)
    assert response.status_code == 400, response.text
    assert words in response.json()["error"]


def test_unknown_ids_and_routes_are_404(client):
    for method, url in [
        ("GET", "/api/games/0123456789abcdef"),
        ("POST", "/api/games/0123456789abcdef/actions"),
        ("GET", "/api/replays/0123456789abcdef/frames/0"),
        ("GET", "/api/nothing"),
    ]:
        response = client.request(method, url, json={"action": "pass"})
        assert response.status_code == 404, url
        assert "error" in response.json()
    view = new_game(client, "lost_heir")
    assert client.get(f"/api/games/{view['id']}?since=x").status_code == 400


def test_the_meta_route_lists_games_seats_keywords_and_specs(client):
    meta = client.get("/api/meta").json()
    assert set(meta["games"]) == set(feral_envs.GAMES)
    assert meta["games"]["hidden_ranks"]["seats"] == ["gold", "silver"]
    assert meta["games"]["hidden_ranks"]["choices"]["mode"] == ["full", "quick"]
    assert "random" in meta["specs"] and "heuristic[:guard=RANK]" in meta["specs"]
    assert client.get("/").text.startswith("<!doctype html>")
    assert "drawCardTable" in client.get("/static/app.js").text


def test_a_hidden_ranks_setup_by_name_then_random(client):
    view = new_game(client, "hidden_ranks", keywords={"mode": "quick"}, seat="gold")
    assert view["shortcuts"] == ["random", "bot"] and "place your next piece" in view["hint"]
    url = f"/api/games/{view['id']}/actions"
    refused = client.post(url, json={"action": "e7"})
    assert refused.status_code == 422
    assert "e7 is outside gold's home rows (1 to 4)" in refused.json()["error"]
    view = client.post(url, json={"action": "A1"}).json()
    assert view["table"]["pieces"]["a1"]["owner"] == 0
    refused = client.post(url, json={"action": "a1"})
    assert "a1 already holds one of your pieces" in refused.json()["error"]
    view = client.post(url, json={"action": "random"}).json()
    assert view["shortcuts"] == [] and all("-" in a["name"] for a in view["legal_actions"])
    gold = [p for p in view["table"]["pieces"].values() if p["owner"] == 0]
    assert len(gold) == 8
    silver = [p for p in view["table"]["pieces"].values() if p["owner"] == 1]
    assert len(silver) == 8 and all(p["rank"] == "?" for p in silver)
    hidden = [m for m in view["moves"] if m["agent"] == "silver"]
    assert hidden and all(m["action"] is None for m in hidden)


# ---------------------------------------------------------------------------- no leak

HEIR_HANDS = {
    "north": ["T7", "T6", "T5", "T4", "T3", "T2", "T1", "T0"],
    "east": ["M7", "M6", "M5", "M4", "M3", "M2", "M1", "M0"],
    "south": ["H7", "H6", "H5", "H4", "H3", "H2", "H1", "H0"],
    "west": ["W7", "W6", "W5", "W4", "W3", "W2", "W1", "W0"],
}


def swapped(hands: dict, a: str, b: str) -> dict:
    out = {seat: list(cards) for seat, cards in hands.items()}
    out[a][0], out[b][0] = hands[b][0], hands[a][0]
    return out


def same_for_the_seat(first: dict, second: dict) -> None:
    assert {**first, "id": None} == {**second, "id": None}


def test_no_leak_lost_heir_the_others_hands():
    views = []
    for hands in (HEIR_HANDS, swapped(HEIR_HANDS, "east", "west")):
        # east deals: south, left of the dealer, calls first
        options = {"dealer": "east", "hands": hands}
        game = GameSession("lost_heir", {}, "south", "random", 1, options)
        views.append(game.view())
    same_for_the_seat(*views)
    text = json.dumps(views[0])
    for card in HEIR_HANDS["east"] + HEIR_HANDS["west"] + HEIR_HANDS["north"]:
        assert f'"{card}"' not in text and card not in views[0]["text"].split()


def _lost_ranks_hands() -> dict:
    from feral_envs.lost_ranks.rules import AGENTS, DECK

    names = [n for n in DECK.names if n != "7S"]
    return {agent: names[13 * i : 13 * i + 13] for i, agent in enumerate(AGENTS)}


@pytest.mark.parametrize("start", ["pass", "play"])
def test_no_leak_lost_ranks_the_others_hands(start):
    hands = _lost_ranks_hands()
    views, sessions = [], []
    for deal in (hands, swapped(hands, "black_0", "black_1")):
        options = {"trump_card": "7S", "start": start, "hands": deal}
        env = feral_envs.make("lost_ranks")
        env.reset(seed=1, options=options)
        views.append(seat_view(env.unwrapped, 0))
        sessions.append(GameSession("lost_ranks", {}, "red_0", "random", 1, options).view())
    assert views[0] == views[1]
    assert all(not view["moves"] for view in sessions), "red_0 acts first here"
    same_for_the_seat(*sessions)


def test_no_leak_lost_ranks_the_cards_another_seat_passes():
    hands = _lost_ranks_hands()
    views = []
    for choice in (0, 1):  # red_0 passes one card or another; black_0 must not see which
        env = feral_envs.make("lost_ranks")
        env.reset(seed=1, options={"trump_card": "7S", "hands": hands})
        env.step(env.unwrapped.string_to_action(hands["red_0"][choice]))
        views.append(seat_view(env.unwrapped, env.unwrapped.seat_of("black_0")))
    assert views[0] == views[1]


def test_no_leak_hidden_ranks_unknown_enemy_ranks():
    gold = {"a1": "F", "e4": "4", "b2": "10"}
    views = []
    for silver in ({"j10": "F", "e7": "6", "a10": "9"}, {"j10": "F", "e7": "9", "a10": "6"}):
        options = {"position": {"gold": gold, "silver": silver}}
        views.append(GameSession("hidden_ranks", {}, "gold", "random", 1, options).view())
    same_for_the_seat(*views)
    assert views[0]["table"]["pieces"]["e7"]["rank"] == "?"


def test_no_leak_hidden_ranks_the_enemy_setup():
    gold_setup = {"a1": "F", "b1": "B", "c1": "10", "d1": "9", "e1": "3", "f1": "2", "g1": "2"}
    gold_setup["h1"] = "S"
    views = []
    for square in ("a10", "j7"):  # silver puts its Flag on one square or another
        env = feral_envs.make("hidden_ranks", mode="quick")
        env.reset(options={"setup": {"gold": gold_setup}})
        env.step(env.unwrapped.string_to_action(square))
        views.append(seat_view(env.unwrapped, 0))
    assert views[0] == views[1]
    assert all(p["owner"] == 0 for p in views[0]["table"]["pieces"].values())


# ------------------------------------------------------------------- a real server


def test_concurrent_games_on_a_real_server(server):
    """Eight games at once, each in its own thread: every one ends, and two with the same
    seed play the same game."""
    histories: dict[int, list] = {}
    errors: list[str] = []

    def play(index: int) -> None:
        try:
            with httpx.Client(base_url=server.url, trust_env=False, timeout=60) as http:
                body = {
                    "game": "hidden_ranks",
                    "seat": "gold",
                    "opponents": "random",
                    "keywords": {"mode": "quick", "setup": "random", "max_moves": 30},
                    "seed": index % 4,
                }
                view = http.post("/api/games", json=body).json()
                history = []
                while not view["over"]:
                    action = view["legal_actions"][0]["name"]
                    view = http.post(f"/api/games/{view['id']}/actions", json={"action": action})
                    view = view.json()
                    history += [m["text"] for m in view["moves"]]
                histories[index] = history
        except Exception as error:
            errors.append(repr(error))

    threads = [threading.Thread(target=play, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not errors, errors
    assert len(histories) == 8
    for index in range(4):
        assert histories[index] == histories[index + 4]
    assert histories[0] != histories[1]


# ---------------------------------------------------------------------------- replays


def test_a_replay_steps_through_a_record(client, tmp_path):
    from agents.arena import run_arena

    run_arena(
        "hidden_ranks",
        ["random", "b=random"],
        games=2,
        seed=3,
        out=tmp_path,
        progress=False,
        n_bootstrap=0,
        mode="quick",
        max_moves=40,
    )
    text = (tmp_path / "records.jsonl").read_text()
    record = json.loads(text.splitlines()[1])
    summary = client.post("/api/replays", json={"jsonl": text, "game_index": 1}).json()
    assert summary["n_steps"] == len(record["actions"]) == len(summary["steps"])
    url = f"/api/replays/{summary['id']}/frames"
    first = client.get(f"{url}/0").json()
    assert first["last"] is None and first["table"]["kind"] == "board"
    last = client.get(f"{url}/{summary['n_steps']}").json()
    env = feral_envs.make("hidden_ranks", **record["options"])
    env.reset(seed=record["env_seed"])
    for action in record["actions"]:
        env.step(action)
    assert last == {**last, **seat_view(env.unwrapped, None)}
    silver = client.get(f"{url}/{summary['n_steps']}?view=silver").json()
    assert silver == {**silver, **seat_view(env.unwrapped, 1)}
    assert client.get(f"{url}/{summary['n_steps'] + 1}").status_code == 404
    assert client.get(f"{url}/1?view=nobody").status_code == 400
    bad = {**record, "actions": [*record["actions"][:3], 99999]}
    refused = client.post("/api/replays", json={"record": bad})
    assert refused.status_code == 400 and "action 3" in refused.json()["error"]
    for body, words in [
        ({}, "give 'record'"),
        ({"jsonl": text, "game_index": 2}, "game_index must be 0..1"),
        ({"jsonl": "nope\n"}, "not JSON"),
        ({"record": {"game": "lost_heir"}}, "it lacks options, env_seed, actions"),
    ]:
        response = client.post("/api/replays", json=body)
        assert response.status_code == 400 and words in response.json()["error"], body


def test_the_command_serves_on_127_0_0_1_port_8000_by_default(server):
    from play.web.__main__ import build_parser

    args = build_parser().parse_args([])
    assert (args.host, args.port) == ("127.0.0.1", 8000)
    args = build_parser().parse_args(["--host", "0.0.0.0", "--port", "8080"])
    assert (args.host, args.port) == ("0.0.0.0", 8080)
    # the fixture's server printed its URL, and answers there
    assert any("Feral Envs web app: http://127.0.0.1:" in line for line in server.output)
    with httpx.Client(base_url=server.url, trust_env=False) as http:
        assert http.get("/").status_code == 200
        assert http.get("/static/style.css").headers["content-type"].startswith("text/css")
