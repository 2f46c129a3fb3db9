"""``python -m play.terminal``: whole games, help, wrong entries, quitting and hidden moves,
through a real subprocess with piped stdin."""

from __future__ import annotations

import re

import pytest
from play_session import Session, legal_names, play_through

from agents.registry import load_policy


def heuristic_available(game: str) -> bool:
    try:
        load_policy("heuristic", game, 0)
    except ValueError:
        return False
    return True


WHOLE_GAMES = [
    pytest.param(
        "lost_heir", "north", ["--max-hands", "1", "--seed", "3"], [], id="lost_heir-one-hand"
    ),
    pytest.param("lost_ranks", "red_0", ["--seed", "5"], [], id="lost_ranks"),
    pytest.param(
        "hidden_ranks",
        "gold",
        ["--mode", "quick", "--max-moves", "30", "--seed", "2"],
        ["random"],
        id="hidden_ranks-quick-setup-random",
    ),
]


@pytest.mark.parametrize(("game", "seat", "args", "first"), WHOLE_GAMES)
def test_a_whole_game_to_its_end(game, seat, args, first):
    session = Session(game, *args)
    transcript = play_through(session, f"{seat}> ", first)
    code, _, stderr = session.finish()
    assert code == 0, stderr
    assert "not accepted" not in transcript, "an entry listed by help was refused"
    assert re.search(
        r"^Result: (you win|you lose|a draw|stopped by its length cap)", transcript, re.M
    )
    # the bots' moves are shown by name between the human's turns
    others = [
        a
        for a in (
            "north",
            "east",
            "south",
            "west",
            "red_0",
            "black_0",
            "red_1",
            "black_1",
            "gold",
            "silver",
        )
        if a != seat
    ]
    assert any(re.search(rf"^{a}: \S", transcript, re.M) for a in others)


@pytest.mark.parametrize(
    ("game", "seat"), [("lost_heir", "north"), ("lost_ranks", "red_0"), ("hidden_ranks", "gold")]
)
def test_help_a_wrong_entry_and_quit(game, seat):
    session = Session(game, "--seed", "1")
    session.until(f"{seat}> ")
    session.send("help")
    text, _ = session.until(f"{seat}> ")
    listed = legal_names(text)
    session.send("no such move")
    text, _ = session.until(f"{seat}> ")
    error = [line for line in text.splitlines() if line.startswith("not accepted: ")]
    assert error, text
    assert f"'no such move' names no action for {seat}; legal: " in error[0]
    assert error[0].split("legal: ")[1].split(", ") == listed
    session.send(listed[0].upper())  # names are case-insensitive
    text, alive = session.until(f"{seat}> ")
    assert alive and "not accepted" not in text
    session.send("quit")
    code, rest, stderr = session.finish()
    assert code == 0, stderr
    assert "You left the game." in rest


def test_an_illegal_action_is_refused_with_the_env_message():
    session = Session("lost_heir", "--seed", "1")
    text, _ = session.until("north> ")
    session.send("help")
    text, _ = session.until("north> ")
    legal = legal_names(text)
    illegal = next(name for name in ("pass", "bid 12", "accept", "W7", "T0") if name not in legal)
    session.send(illegal)
    text, _ = session.until("north> ")
    assert f"not accepted: '{illegal}' is not legal now for north; legal: " in text
    session.close_input()
    code, rest, _ = session.finish()
    assert code == 0 and "You left the game." in rest


def test_end_of_input_leaves_cleanly():
    session = Session("hidden_ranks", "--mode", "quick")
    session.close_input()
    code, rest, stderr = session.finish()
    assert code == 0, stderr
    assert "You left the game." in rest


def test_the_same_seed_plays_the_same_game():
    args = (
        "hidden_ranks",
        "--mode",
        "quick",
        "--setup",
        "random",
        "--max-moves",
        "20",
        "--seed",
        "9",
    )
    transcripts = []
    for _ in range(2):
        session = Session(*args)
        transcripts.append(play_through(session, "gold> "))
        assert session.finish()[0] == 0
    assert transcripts[0] == transcripts[1]


def test_an_opponents_setup_is_hidden_and_the_setup_shortcuts():
    session = Session("hidden_ranks", "--mode", "quick", "--seat", "silver", "--seed", "4")
    before, _ = session.until("silver> ")
    assert before.count("gold sets up its army (hidden from you)") == 1
    assert not re.search(r"^gold: ", before, re.M), "a placement of gold was shown"
    assert "place your next piece, F (1 of 8)" in before
    session.send("bot")
    text, _ = session.until("silver> ")
    if heuristic_available("hidden_ranks"):
        assert "your army is placed (heuristic)" in text
    else:
        assert "not accepted: no heuristic policy for 'hidden_ranks'" in text
        session.send("random")
        text, _ = session.until("silver> ")
        assert "your army is placed (random)" in text
    # play has begun: gold moved first, and the move is shown
    assert re.search(r"^gold: [a-j]\d+-[a-j]\d+$", text, re.M)
    session.send("quit")
    assert session.finish()[0] == 0


def test_a_card_pass_of_another_seat_is_hidden():
    session = Session("lost_ranks", "--seat", "black_0", "--seed", "2")
    before, _ = session.until("black_0> ")
    assert before.count("red_0 chooses the cards it passes (hidden from you)") == 1
    assert not re.search(r"^red_0: ", before, re.M)
    session.send("quit")
    assert session.finish()[0] == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["chess"], "unknown game 'chess'"),
        (["lost_heir", "--seat", "nobody"], "--seat 'nobody' is not a seat of lost_heir"),
        (["hidden_ranks", "--partner", "random"], "hidden_ranks has no partners"),
        (["lost_heir", "--variant", "turncoat"], "lost_heir does not take variant"),
        (["hidden_ranks", "--mode", "huge"], "mode='huge' is not allowed"),
        (["lost_ranks", "--opponents", "genius"], "unknown policy spec 'genius'"),
        (["lost_ranks", "--partner", "ppo:/no/such.zip"], "does not exist"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(args, message):
    session = Session(*args)
    code, out, stderr = session.finish()
    assert code == 2
    assert stderr.startswith("python -m play.terminal: error: ")
    assert message in stderr
    assert out == ""


@pytest.fixture(scope="module")
def tiny_ppo_run(tmp_path_factory):
    """A Lost Heir MaskablePPO run of 2,048 learner decisions (a second or two)."""
    import dataclasses

    from train.config import default_config
    from train.run import train

    run = tmp_path_factory.mktemp("ppo") / "run"
    config = dataclasses.replace(
        default_config("lost_heir"),
        timesteps=2048,
        n_envs=16,
        n_steps=64,
        batch_size=512,
        snapshot_every=1024,
        checkpoint_every=2048,
        eval_games=0,
        arena_games=0,
        imitation_decisions=0,
        progress=False,
    )
    train(config, run)
    return run


def test_a_whole_game_against_a_trained_policy(tiny_ppo_run):
    args = ("lost_heir", "--max-hands", "1", "--seed", "4", "--opponents", f"ppo:{tiny_ppo_run}")
    session = Session(*args, "--partner", "random")
    transcript = play_through(session, "north> ")
    code, _, stderr = session.finish()
    assert code == 0, stderr
    assert f"  east: ppo:{tiny_ppo_run} (opponent)" in transcript
    assert "  south: random (partner)" in transcript
    assert "Result: " in transcript and "not accepted" not in transcript
