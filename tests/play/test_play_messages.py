"""What the apps say to a player: why an entry is refused (a card that does not follow suit
or is not in the hand, a setup square outside the home rows or taken), the entry echoed in
the case it was typed, moves written ``e2 e4``, and counts in the singular."""

from __future__ import annotations

import io
import random
import re

import pytest

import feral_envs
from feral_envs.cards import count
from feral_envs.lost_ranks import picture as lost_ranks_picture
from feral_envs.lost_ranks.rules import DECK
from play.actions import read_action
from play.terminal import Table


def lost_ranks_hands() -> dict:
    """red_0 leads 2S (the lowest trump Infantry, trump 7S); black_0 holds one spade, 3S."""
    spades = [f"{r}S" for r in "23456789TJQKA" if r != "7"]
    hearts = [f"{r}H" for r in "23456789TJQKA"]
    diamonds = [f"{r}D" for r in "23456789TJQKA"]
    clubs = [f"{r}C" for r in "23456789TJQKA"]
    spy = [n for n in DECK.names if n not in spades + hearts + diamonds + clubs + ["7S"]]
    return {
        "red_0": ["2S", *hearts[:12]],
        "black_0": ["3S", hearts[12], *diamonds[:11]],
        "red_1": [*spades[2:], *diamonds[11:], *spy],
        "black_1": clubs,
    }


@pytest.fixture
def lost_ranks_after_the_lead():
    env = feral_envs.make("lost_ranks")
    env.reset(seed=0, options={"trump_card": "7S", "hands": lost_ranks_hands(), "start": "play"})
    raw = env.unwrapped
    assert raw.agent_selection == "red_0"
    env.step(read_action(raw, "2s"))
    assert raw.agent_selection == "black_0"
    return env


def test_a_card_that_does_not_follow_suit_says_why(lost_ranks_after_the_lead):
    raw = lost_ranks_after_the_lead.unwrapped
    with pytest.raises(ValueError) as refused:
        read_action(raw, "AH")
    assert str(refused.value) == (
        "'AH' is not legal now for black_0: you must follow suit: spades was led and you "
        "hold 3S; legal: 3S"
    )
    with pytest.raises(ValueError, match=r"'2C' is not legal now for black_0: 2C is not in"):
        read_action(raw, "2C")
    assert read_action(raw, " 3s ") == DECK.card("3S")


def test_lost_heir_follow_suit_message():
    env = feral_envs.make("lost_heir")
    hands = {
        "south": ["H7", "H6", "H5", "H4", "T7", "T6", "T5", "T4"],
        "west": ["H0", "W7", "W6", "W5", "W4", "W3", "W2", "W1"],
        "north": ["H3", "H2", "H1", "T3", "T2", "T1", "T0", "W0"],
        "east": ["M7", "M6", "M5", "M4", "M3", "M2", "M1", "M0"],
    }
    env.reset(seed=0, options={"dealer": "east", "hands": hands})
    raw = env.unwrapped
    for entry in ("bid 4", "pass", "pass", "accept", "H7"):  # south declares and leads H7
        env.step(read_action(raw, entry))
    assert raw.agent_selection == "west"
    with pytest.raises(ValueError) as refused:
        read_action(raw, "W7")
    assert "you must follow suit: Halifax was led and you hold H0; legal: H0" in str(refused.value)


def test_a_setup_square_outside_the_home_rows_says_so():
    env = feral_envs.make("hidden_ranks", mode="quick")
    env.reset(seed=0)
    raw = env.unwrapped
    with pytest.raises(ValueError, match=r"'E7' is not legal now for gold: E7 is outside gold's"):
        read_action(raw, "E7")
    env.step(read_action(raw, "a1"))
    with pytest.raises(ValueError, match="a1 already holds one of your pieces"):
        read_action(raw, "a1")
    with pytest.raises(ValueError, match=r"names no action for gold"):
        read_action(raw, "z9")


def test_a_move_is_read_with_a_dash_or_a_space():
    env = feral_envs.make("hidden_ranks", mode="quick", setup="random")
    env.reset(seed=0)
    raw = env.unwrapped
    name = raw.legal_action_names()[0]
    origin, target = name.split("-")
    for entry in (
        name,
        f"{origin} {target}",
        f"{origin.upper()}  -  {target}",
        f"{origin}  {target}",
    ):
        assert read_action(raw, entry) == raw.string_to_action(name)


def test_the_terminal_keeps_the_case_of_an_entry():
    entries = iter(["T0", "quit"])
    out = io.StringIO()
    table = Table("lost_heir", "north", None, None, 1, {}, out=out, read=lambda _: next(entries))
    table.echo = True
    assert table.play() == 0
    text = out.getvalue()
    assert "\nT0\n" in text and "'T0' is not legal now for north" in text
    assert "'t0'" not in text


def test_the_terminal_plays_a_move_typed_with_a_space():
    out = io.StringIO()
    table = None
    turns = []

    def read(prompt: str) -> str:
        raw = table.raw
        if turns:
            return "quit"
        turns.append(raw.game.view.moves)
        return raw.legal_action_names()[0].replace("-", " ")

    table = Table(
        "hidden_ranks", "gold", "random", None, 3, {"mode": "quick", "setup": "random"}, out, read
    )
    assert table.play() == 0
    assert "not accepted" not in out.getvalue()
    assert table.raw.game.view.moves > turns[0]


def test_counts_are_singular_for_one():
    assert (count(0, "card"), count(1, "card"), count(2, "trick")) == (
        "0 cards",
        "1 card",
        "2 tricks",
    )


def test_one_trick_won_is_singular(lost_ranks_after_the_lead):
    env = lost_ranks_after_the_lead
    raw = env.unwrapped
    for entry in ("3S", "AS", "2C"):  # red_1 wins the trick with AS
        env.step(read_action(raw, entry))
    notes = lost_ranks_picture.table_view(raw.game.view, None).seats[2].notes
    assert "red army · 1 trick won" in notes
    assert "0 tricks won" in lost_ranks_picture.table_view(raw.game.view, None).seats[0].notes[0]


def test_one_card_left_is_singular():
    env = feral_envs.make("lost_heir", render_mode="ansi")
    env.reset(seed=5)
    raw = env.unwrapped
    raw.render_view = "north"
    rng = random.Random(0)
    others = [raw.seat_of(a) for a in ("east", "south", "west")]
    while not any(int(raw.game.view.hands[s].sum()) == 1 for s in others):
        assert raw.agents, "the game ended before a hand was down to one card"
        env.step(raw.string_to_action(rng.choice(raw.legal_action_names())))
    text = env.render()
    assert re.search(r" 1 card$", text, re.M) and "1 cards" not in text


def test_a_card_chosen_to_pass_already_says_so():
    env = feral_envs.make("lost_ranks")
    env.reset(seed=0, options={"trump_card": "7S", "hands": lost_ranks_hands()})
    raw = env.unwrapped
    env.step(read_action(raw, "2S"))
    assert raw.agent_selection == "red_0"  # its second choice
    with pytest.raises(ValueError, match="you have already chosen 2S to pass; legal: "):
        read_action(raw, "2s")
    with pytest.raises(ValueError, match="3S is not in your hand"):
        read_action(raw, "3S")
