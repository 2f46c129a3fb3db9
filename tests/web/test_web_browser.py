"""The page in a real browser (headless Chromium through Playwright, against a real server):
a whole game of each game played by clicks, only the legal actions clickable, the bots'
moves shown one by one, the Hidden Ranks setup by placing pieces or at random, the summary,
the replay viewer; each game's table checked as an image."""

from __future__ import annotations

import io
import random
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("uvicorn", reason="the web extra is not installed")

import web_fixtures
from PIL import Image

from agents.arena import run_arena

browser = web_fixtures.browser
page = web_fixtures.page
server = web_fixtures.server
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

FELT = (32, 96, 60)
LAND = (198, 204, 164)
WATER = (70, 130, 200)
MAX_DECISIONS = 400

CLICKABLE = """() => ({
  cards: [...document.querySelectorAll('#table .card.legal')].map((n) => n.dataset.card),
  buttons: [...document.querySelectorAll('#actions button.legal')].map((n) => n.dataset.action),
  squares: [...document.querySelectorAll('#table .sq.legal')].map((n) => n.dataset.square),
  legal: current.legal_actions.map((a) => a.name),
  shortcuts: current.shortcuts,
  over: current.over,
  yourTurn: current.your_turn,
})"""


def start(page, server, game, seat, keywords=None, opponents="random", seed=1, delay=0):
    page.goto(f"{server.url}/?delay={delay}")
    page.wait_for_selector("body[data-ready=true]")
    page.select_option("#game", game)
    page.select_option("#seat", seat)
    for name, value in (keywords or {}).items():
        node = page.locator(f"#kw-{name}")
        if node.evaluate("(n) => n.tagName") == "SELECT":
            node.select_option(str(value))
        else:
            node.fill(str(value))
    for node in page.locator("[data-opponent]").all():
        node.fill(opponents)
    page.fill("#seed", str(seed))
    before = views(page)
    page.click("#start")
    wait_for_view(page, before)


def views(page) -> int:
    return int(page.evaluate("Number(document.body.dataset.views || 0)"))


def wait_for_view(page, before: int) -> None:
    page.wait_for_function(f"Number(document.body.dataset.views || 0) > {before}")


def check_only_legal_clickable(state: dict) -> None:
    legal = {name.lower() for name in state["legal"]}
    if state["squares"] or not (state["cards"] or state["buttons"]):
        # the board: setup squares are actions themselves, a move starts at its square
        starts = {name.split("-")[0] for name in legal}
        assert set(state["squares"]) == starts
        assert set(state["buttons"]) == set(state["shortcuts"])
    else:
        clickable = [n.lower() for n in state["cards"] + state["buttons"]]
        assert sorted(clickable) == sorted(legal), "clickable != legal"


def click_one(page, state: dict, rng: random.Random) -> None:
    """Click one legal action, chosen at random among the clickable ones."""
    before = views(page)
    if state["squares"]:
        square = rng.choice(state["squares"])
        page.click(f'#table .sq[data-square="{square}"]')
        if page.locator("#table .sq.target").count():
            targets = page.locator("#table .sq.target").all()
            rng.choice(targets).click()
    else:
        options = [("card", c) for c in state["cards"]] + [("action", a) for a in state["buttons"]]
        kind, name = rng.choice(options)
        if kind == "card":
            page.click(f'#table .card.legal[data-card="{name}"]')
        else:
            page.click(f'#actions button[data-action="{name}"]')
    wait_for_view(page, before)


def play_to_the_end(page, rng: random.Random, screenshot_after: int = 3) -> bytes | None:
    """Click legal actions until the game ends; the table's screenshot at decision
    ``screenshot_after``."""
    shot = None
    for decision in range(MAX_DECISIONS):
        state = page.evaluate(CLICKABLE)
        if state["over"]:
            return shot
        assert state["yourTurn"]
        check_only_legal_clickable(state)
        if decision == screenshot_after:
            shot = page.locator("#table").screenshot()
        click_one(page, state, rng)
    raise AssertionError(f"no end after {MAX_DECISIONS} decisions")


def pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def share_near(image: np.ndarray, color: tuple, tolerance: int = 6) -> float:
    close = np.abs(image.astype(int) - np.array(color)).max(axis=2) <= tolerance
    return float(close.mean())


def check_card_table(png: bytes, out: Path) -> None:
    out.write_bytes(png)
    image = pixels(png)
    height, width, _ = image.shape
    assert 800 <= width <= 1000 and 300 <= height <= 900, image.shape
    assert share_near(image, FELT) > 0.3, "no green felt"
    colors = len(np.unique(image.reshape(-1, 3), axis=0))
    assert colors > 20, f"only {colors} colours: a blank table?"
    assert share_near(image, (255, 255, 255), 10) > 0.005, "no card faces"


def check_board(png: bytes, out: Path) -> None:
    out.write_bytes(png)
    image = pixels(png)
    height, width, _ = image.shape
    assert 600 <= width <= 1000 and 450 <= height <= 700, image.shape
    assert share_near(image, LAND) > 0.2, "no land squares"
    assert share_near(image, WATER) > 0.01, "no lakes"
    assert share_near(image, (232, 182, 40)) > 0.005, "no gold pieces"


def finish(page) -> str:
    page.wait_for_selector("#summary:not([hidden])")
    text = page.inner_text("#summary")
    assert "Game over" in text or "You win" in text or "You lose" in text
    assert "scores:" in text
    return text


def test_lost_heir_whole_game_by_clicks(page, server, tmp_path):
    start(page, server, "lost_heir", "south", {"max_hands": 1}, seed=4)
    shot = play_to_the_end(page, random.Random(0), screenshot_after=2)
    finish(page)
    assert shot is not None
    check_card_table(shot, tmp_path / "lost_heir.png")


def test_lost_ranks_whole_game_by_clicks(page, server, tmp_path):
    start(page, server, "lost_ranks", "red_0", {"variant": "turncoat"}, seed=2)
    shot = play_to_the_end(page, random.Random(1), screenshot_after=5)
    finish(page)
    check_card_table(shot, tmp_path / "lost_ranks.png")


def test_hidden_ranks_setup_by_placing_pieces_then_a_whole_game(page, server, tmp_path):
    start(page, server, "hidden_ranks", "silver", {"mode": "quick", "max_moves": 60}, seed=5)
    state = page.evaluate(CLICKABLE)
    assert set(state["shortcuts"]) == {"random", "bot"}
    assert set(state["squares"]) == {f"{c}{r}" for c in "abcdefghij" for r in (7, 8, 9, 10)}
    # the first pieces by hand: each lands where it was clicked
    for square in ("a10", "j7"):
        before = views(page)
        page.click(f'#table .sq[data-square="{square}"]')
        wait_for_view(page, before)
        assert page.locator(f'#table .sq[data-square="{square}"] .piece.silver').count() == 1
    shot = play_to_the_end(page, random.Random(2), screenshot_after=12)
    finish(page)
    check_board(shot, tmp_path / "hidden_ranks.png")


def test_the_opponent_suggestions_are_the_bare_spec_prefixes(page, server):
    """Each suggestion fills in a spec that loads: "heuristic" for the form
    "heuristic[:guard=RANK]", "pimc" for "pimc[:worlds=N|...]", "ppo" for "ppo:PATH"."""
    page.goto(server.url)
    page.wait_for_selector("body[data-ready=true]")
    values = page.evaluate("[...document.querySelectorAll('#spec-list option')].map(o => o.value)")
    assert {"random", "heuristic", "pimc", "minimax", "ppo"} <= set(values), values
    assert all(v.isidentifier() for v in values), values


def test_hidden_ranks_random_setup_button(page, server):
    start(page, server, "hidden_ranks", "gold", {"mode": "quick"}, seed=6)
    before = views(page)
    page.click('#actions button[data-action="random"]')
    wait_for_view(page, before)
    assert page.locator("#table .piece.gold").count() == 8
    state = page.evaluate(CLICKABLE)
    assert state["squares"] and all("-" in name for name in state["legal"])


def test_the_bots_moves_are_shown_one_by_one(page, server):
    # south deals (seed 1): west, north and east call before south's first decision
    page.goto(f"{server.url}/?delay=400")
    page.wait_for_selector("body[data-ready=true]")
    page.select_option("#game", "lost_heir")
    page.select_option("#seat", "south")
    page.fill("#seed", "1")
    page.click("#start")
    page.wait_for_selector("#table[data-state=moving]")
    seen = set()
    for _ in range(60):
        status = page.inner_text("#status")
        if page.get_attribute("#table", "data-state") != "moving":
            break
        seen.add(status)
        page.wait_for_timeout(100)
    assert len(seen) >= 2, f"the bots' moves were not shown one at a time: {seen}"
    page.wait_for_selector("#table[data-state=your-turn]")
    assert page.locator("#log li").count() == 3


def test_an_error_is_shown_and_the_game_goes_on(page, server):
    start(page, server, "lost_heir", "north", {"max_hands": 1}, seed=3)
    message = page.evaluate(
        """async () => {
          const r = await fetch(`/api/games/${current.id}/actions`, {method: 'POST',
            headers: {'Content-Type': 'application/json'}, body: '{"action": "no such"}'});
          return [r.status, (await r.json()).error];
        }"""
    )
    assert message[0] == 422 and "legal" in message[1]
    state = page.evaluate(CLICKABLE)
    check_only_legal_clickable(state)


@pytest.fixture(scope="module")
def arena_file(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("arena")
    run_arena(
        "lost_ranks",
        ["random", "b=random"],
        games=2,
        seed=3,
        out=out,
        progress=False,
        n_bootstrap=0,
    )
    return out / "records.jsonl"


def test_replay_viewer_steps_plays_and_jumps(page, server, arena_file, tmp_path):
    page.goto(f"{server.url}/?delay=60")
    page.wait_for_selector("body[data-ready=true]")
    page.click("#tab-replay")
    page.set_input_files("#replay-file", str(arena_file))
    page.fill("#replay-index", "1")
    page.click("#replay-load")
    page.wait_for_selector("#rp-table[data-step='0']")
    n = int(page.get_attribute("#rp-slider", "max"))
    assert n > 50
    page.click("#rp-next")
    page.wait_for_selector("#rp-table[data-step='1']")
    assert page.inner_text("#rp-last-action").startswith("action 1: ")
    page.click("#rp-last")
    page.wait_for_selector(f"#rp-table[data-step='{n}']")
    page.click("#rp-prev")
    page.wait_for_selector(f"#rp-table[data-step='{n - 1}']")
    page.fill("#rp-step", "20")
    page.dispatch_event("#rp-step", "change")
    page.wait_for_selector("#rp-table[data-step='20']")
    page.click("#rp-play")
    page.wait_for_function("Number(document.getElementById('rp-table').dataset.step) >= 23")
    page.click("#rp-play")  # pause
    paused = int(page.get_attribute("#rp-table", "data-step"))
    page.wait_for_timeout(400)
    assert int(page.get_attribute("#rp-table", "data-step")) <= paused + 1  # one in flight
    # the referee sees every hand: no card backs
    assert page.locator("#rp-table .card.back").count() == 0
    page.select_option("#rp-view", "black_0")
    page.wait_for_function("document.querySelectorAll('#rp-table .card.back').length > 0")
    check_card_table(page.locator("#rp-table").screenshot(), tmp_path / "replay.png")
    page.click("#rp-first")
    page.wait_for_selector("#rp-table[data-step='0']")


def test_a_bad_replay_file_says_why(page, server, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"game": "lost_heir"}\n')
    page.goto(server.url)
    page.wait_for_selector("body[data-ready=true]")
    page.click("#tab-replay")
    page.set_input_files("#replay-file", str(bad))
    page.click("#replay-load")
    page.wait_for_function("document.getElementById('replay-message').textContent.length > 0")
    assert "not an arena record" in page.inner_text("#replay-message")
