"""``render_mode="rgb_array"``: PettingZoo's render test, picture sizes and views, what a
seat's picture hides, the drawing primitives."""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import numpy as np
import pytest
from common import game_params, random_action
from pettingzoo.test import render_test

import feral_envs
from feral_envs import drawing
from feral_envs.table_env import TableEnv


@pytest.mark.parametrize("game", game_params())
def test_pettingzoo_render_test(game, capsys):
    render_test(lambda render_mode=None: feral_envs.make(game, render_mode=render_mode))
    assert "rgb_array" in feral_envs.make(game).unwrapped.metadata["render_modes"]


@pytest.mark.parametrize("game", game_params())
def test_pictures_from_every_view_through_a_game(game):
    env = feral_envs.make(game, render_mode="rgb_array")
    env.reset(seed=0)
    raw = env.unwrapped
    rng = np.random.default_rng(0)
    shape = None
    views = [None, "referee", *raw.possible_agents]
    for step, agent in enumerate(env.agent_iter(max_iter=400)):
        obs, _, terminated, truncated, _ = env.last()
        if step % 37 == 0 or terminated or truncated:
            pictures = {}
            for view in views:
                raw.render_view = view
                picture = env.render()
                assert picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape[2] == 3
                shape = shape or picture.shape
                assert picture.shape == shape, "every picture of a game has one size"
                pictures[view] = picture
            # the default view is the agent to act's (the referee's once the game is over)
            expected = raw.render_view = agent if raw.agents else "referee"
            assert np.array_equal(pictures[None], pictures[expected])
        env.step(None if terminated or truncated else random_action(obs, rng))
    assert len(np.unique(pictures["referee"].reshape(-1, 3), axis=0)) > 5


def test_render_view_must_name_an_agent_or_the_referee():
    env = feral_envs.make("lost_heir", render_mode="rgb_array")
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"render_view='nobody'.*'referee'.*north"):
        env.render_view = "nobody"
    assert env.unwrapped.render_view is None, "a refused view changes nothing"
    env.render_view = "referee"  # through env()'s wrapper, to the raw env
    assert env.unwrapped.render_view == "referee"
    referee = env.render()
    assert referee.shape == (drawing.TABLE_H, drawing.TABLE_W, 3)
    env.render_view = "south"
    assert not np.array_equal(env.render(), referee)


def test_a_game_without_pictures_refuses_rgb_array():
    core = dataclasses.replace(feral_envs.make("lost_heir").unwrapped.core, render_rgb=None)

    class NoPictures(TableEnv):
        metadata: ClassVar[dict] = {
            **TableEnv.metadata,
            "render_modes": ["ansi", "human", "rgb_array"],
        }

    with pytest.raises(ValueError, match="no pictures"):
        NoPictures(core, render_mode="rgb_array")


def _pictures(env, views):
    raw = env.unwrapped
    out = {}
    for view in views:
        raw.render_view = view
        out[view] = env.render()
    return out


def _swap(hands: dict, a: str, b: str) -> dict:
    """The same deal with the first card of ``a`` and of ``b`` exchanged."""
    swapped = {seat: list(cards) for seat, cards in hands.items()}
    swapped[a][0], swapped[b][0] = hands[b][0], hands[a][0]
    return swapped


HEIR_HANDS = {
    "north": ["T7", "T6", "T5", "T4", "T3", "T2", "T1", "T0"],
    "east": ["M7", "M6", "M5", "M4", "M3", "M2", "M1", "M0"],
    "south": ["H7", "H6", "H5", "H4", "H3", "H2", "H1", "H0"],
    "west": ["W7", "W6", "W5", "W4", "W3", "W2", "W1", "W0"],
}


def test_lost_heir_picture_shows_a_seat_only_its_own_hand():
    env = feral_envs.make("lost_heir", render_mode="rgb_array")
    views = ("south", "east", "referee")
    env.reset(seed=1, options={"dealer": "west", "hands": HEIR_HANDS})
    plain = _pictures(env, views)
    env.reset(seed=1, options={"dealer": "west", "hands": _swap(HEIR_HANDS, "east", "west")})
    swapped = _pictures(env, views)
    assert np.array_equal(plain["south"], swapped["south"]), "south saw east's or west's cards"
    assert not np.array_equal(plain["east"], swapped["east"]), "east's own hand is not drawn"
    assert not np.array_equal(plain["referee"], swapped["referee"])


def _lost_ranks_hands() -> dict:
    from feral_envs.lost_ranks.rules import AGENTS, DECK

    names = [n for n in DECK.names if n != "7S"]
    return {agent: names[13 * i : 13 * i + 13] for i, agent in enumerate(AGENTS)}


@pytest.mark.parametrize("start", ["pass", "play"])
def test_lost_ranks_picture_shows_a_seat_only_its_own_hand(start):
    env = feral_envs.make("lost_ranks", render_mode="rgb_array")
    views = ("red_0", "black_0", "referee")
    hands = _lost_ranks_hands()
    options = {"trump_card": "7S", "start": start}
    env.reset(seed=1, options={**options, "hands": hands})
    plain = _pictures(env, views)
    env.reset(seed=1, options={**options, "hands": _swap(hands, "black_0", "black_1")})
    swapped = _pictures(env, views)
    assert np.array_equal(plain["red_0"], swapped["red_0"])
    assert not np.array_equal(plain["black_0"], swapped["black_0"])
    assert not np.array_equal(plain["referee"], swapped["referee"])


def test_lost_ranks_picture_hides_the_other_seats_passes():
    env = feral_envs.make("lost_ranks", render_mode="rgb_array")
    hands = _lost_ranks_hands()
    views = ("black_0", "red_0", "referee")
    results = []
    for choice in (0, 1):  # red_0 passes a different first card; black_0 must not see which
        env.reset(seed=1, options={"trump_card": "7S", "hands": hands})
        env.step(env.unwrapped.string_to_action(hands["red_0"][choice]))
        results.append(_pictures(env, views))
    assert np.array_equal(results[0]["black_0"], results[1]["black_0"])
    assert not np.array_equal(results[0]["red_0"], results[1]["red_0"])
    assert not np.array_equal(results[0]["referee"], results[1]["referee"])


def test_hidden_ranks_picture_hides_unknown_enemy_ranks():
    env = feral_envs.make("hidden_ranks", render_mode="rgb_array")
    views = ("gold", "silver", "referee")
    gold = {"a1": "F", "e4": "4", "b2": "10"}
    pictures = []
    for silver in ({"j10": "F", "e7": "6", "a10": "9"}, {"j10": "F", "e7": "9", "a10": "6"}):
        env.reset(options={"position": {"gold": gold, "silver": silver}})
        pictures.append(_pictures(env, views))
    assert np.array_equal(pictures[0]["gold"], pictures[1]["gold"])
    assert not np.array_equal(pictures[0]["silver"], pictures[1]["silver"])
    assert not np.array_equal(pictures[0]["referee"], pictures[1]["referee"])


def test_hidden_ranks_picture_hides_the_enemy_setup():
    env = feral_envs.make("hidden_ranks", render_mode="rgb_array", mode="quick")
    gold_setup = {"a1": "F", "b1": "B", "c1": "10", "d1": "9", "e1": "3", "f1": "2", "g1": "2"}
    gold_setup["h1"] = "S"
    results = []
    for square in ("a10", "j7"):  # silver puts its Flag on one square or another
        env.reset(options={"setup": {"gold": gold_setup}})
        env.step(env.unwrapped.string_to_action(square))
        results.append(_pictures(env, ("gold", "silver", "referee")))
    assert np.array_equal(results[0]["gold"], results[1]["gold"])
    assert not np.array_equal(results[0]["silver"], results[1]["silver"])
    assert not np.array_equal(results[0]["referee"], results[1]["referee"])


def test_a_strike_shows_both_ranks_to_both_sides():
    env = feral_envs.make("hidden_ranks", render_mode="rgb_array")
    gold = {"a1": "F", "e4": "4"}
    pictures = []
    for defender in ("6", "7"):
        env.reset(options={"position": {"gold": gold, "silver": {"j10": "F", "e5": defender}}})
        env.step(env.unwrapped.string_to_action("e4-e5"))  # the 4 strikes and loses
        pictures.append(_pictures(env, ("gold",)))
    assert not np.array_equal(pictures[0]["gold"], pictures[1]["gold"])


# ------------------------------------------------------------------------------- drawing


def test_font_glyphs_and_text_size():
    assert all(g.shape == (drawing.GLYPH_H, drawing.GLYPH_W) for g in drawing.FONT.values())
    for char in map(chr, range(32, 127)):
        assert char in drawing.FONT, f"printable ASCII {char!r} has no glyph"
        assert char == " " or drawing.FONT[char].any()
    first_with = {}
    twins = []
    for char, glyph in drawing.FONT.items():
        twin = first_with.setdefault(glyph.tobytes(), char)
        if twin != char:
            twins.append((twin, char))
    assert twins == [("-", "−")], "only the minus sign looks like the hyphen"
    assert drawing.text_width("H3", 2) == 2 * (2 * drawing.ADVANCE - 1)
    assert drawing.text_bitmap("H3", 2).shape == (2 * drawing.GLYPH_H, drawing.text_width("H3", 2))


def test_canvas_text_and_boxes_clip_at_the_edges():
    canvas = drawing.Canvas(40, 20, drawing.WHITE)
    width = canvas.text(30, 15, "clipped", drawing.BLACK, 2)
    assert width == drawing.text_width("clipped", 2)
    assert (canvas.pixels == drawing.BLACK).all(axis=2).any()
    canvas.box(-5, -5, 100, 100, drawing.RED, drawing.BLUE, 3)
    canvas.disc(0, 0, 50, drawing.GREEN)
    assert canvas.pixels.shape == (20, 40, 3)
    unknown = drawing.Canvas(20, 12)
    unknown.text(0, 0, "\u2603")  # no glyph: drawn as "?"
    question = drawing.Canvas(20, 12)
    question.text(0, 0, "?")
    assert np.array_equal(unknown.pixels, question.pixels)
