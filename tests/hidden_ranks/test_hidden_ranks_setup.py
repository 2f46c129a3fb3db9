"""The setup phase (order, masks, secrecy), random setups, and setup/position validation."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hr_helpers import army_on_board, piece, plane

from feral_envs.hidden_ranks import rules
from feral_envs.hidden_ranks.encoding import OBS
from feral_envs.hidden_ranks.render import render_ansi
from feral_envs.hidden_ranks_v0 import raw_env

FULL_ARMY = (
    "F 10 9 8 8 7 7 7 6 6 6 6 5 5 5 5 4 4 4 4 3 3 3 3 3 2 2 2 2 2 2 2 2 S B B B B B B".split()
)
QUICK_ARMY = ["10", "9", "3", "2", "2", "S", "B", "F"]


def gold_squares() -> list[str]:
    return [f"{c}{r}" for r in (1, 2, 3, 4) for c in "abcdefghij"]


def silver_squares() -> list[str]:
    return [f"{c}{r}" for r in (10, 9, 8, 7) for c in "abcdefghij"]


def full_setup(squares: list[str]) -> dict[str, str]:
    return dict(zip(squares, FULL_ARMY, strict=True))


def quick_setup(squares: list[str]) -> dict[str, str]:
    return dict(zip(squares, QUICK_ARMY, strict=False))


@pytest.mark.parametrize("mode", ["full", "quick"])
def test_setup_phase_order_masks_and_secrecy(mode):
    env = raw_env(mode=mode, setup="choose")
    env.reset(seed=0)
    order = rules.SETUP_ORDER[mode]
    placed = {}
    for agent in ("gold", "silver"):
        other = "silver" if agent == "gold" else "gold"
        for k, rank in enumerate(order):
            assert env.agent_selection == agent
            obs = env.observe(agent)
            mask = obs["action_mask"]
            # only placements, exactly on the empty squares of the player's own home rows
            assert not mask[rules.N_PLACE :].any()
            assert mask[: rules.N_PLACE].sum() == 40 - k
            names = set(env.legal_action_names())
            home = set(gold_squares() if agent == "gold" else silver_squares())
            assert names == home - set(placed.get(agent, {}))
            # the observation names the next piece
            nxt = plane(env, agent, "my_next_piece", rank - 1)
            assert (nxt == 1).all()
            assert plane(env, agent, "setup_phase").all()
            assert not plane(env, other, "my_next_piece").any()
            # neither side sees any enemy piece during the setup phase
            for who in ("gold", "silver"):
                for name in ("enemy_unknown", "enemy_moved"):
                    assert not plane(env, who, name).any()
                assert not env.observe(who)["observation"][:, :, OBS.enemy_rank.slice].any()
            # nor in the text view from either side
            enemy_token = re.compile(r"\b" + other[0] + r"[0-9SBF?]")
            assert not enemy_token.search(render_ansi(env.game, 0 if agent == "gold" else 1))
            assert not re.search(
                r"\b" + agent[0] + r"[0-9SBF?]", render_ansi(env.game, 1 if agent == "gold" else 0)
            )
            action = int(np.flatnonzero(mask)[-1])
            square = env.action_to_string(action)
            env.step(action)
            placed.setdefault(agent, {})[square] = rules.RANK_NAMES[rank]
            assert piece(env, square)[:2] == (agent, rules.RANK_NAMES[rank])
    assert env.game.phase == rules.Phase.PLAY and env.agent_selection == "gold"
    for who in ("gold", "silver"):
        assert plane(env, who, "enemy_unknown").sum() == len(order)
        assert not plane(env, who, "setup_phase").any()
    for seat in (0, 1):
        army = army_on_board(env.game.board, seat)
        assert {rules.RANK_NAMES[r]: int(n) for r, n in enumerate(army) if n} == {
            rules.RANK_NAMES[r]: n for r, n in rules.ARMIES[mode].items()
        }


def test_full_setup_last_placement_is_forced():
    env = raw_env(mode="full", setup="choose")
    env.reset(seed=1)
    for _ in range(39):
        env.step(env.legal_actions()[0])
    assert len(env.legal_actions()) == 1


def test_silver_placements_are_in_its_own_frame():
    env = raw_env(mode="quick", setup="choose")
    env.reset(options={"setup": {"gold": quick_setup(gold_squares())}})
    assert env.agent_selection == "silver"
    assert env.action_to_string(0) == "j10" and env.action_to_string(39) == "a7"
    assert env.string_to_action("J10") == 0
    env.step(env.string_to_action("e9"))
    assert piece(env, "e9") == ("silver", "F", False, False)


@pytest.mark.parametrize("mode", ["full", "quick"])
def test_random_setups_are_legal_and_seeded(mode):
    boards = []
    for seed in (5, 5, 6):
        env = raw_env(mode=mode, setup="random")
        env.reset(seed=seed)
        assert env.game.phase == rules.Phase.PLAY and env.agent_selection == "gold"
        for seat, rows in ((0, range(0, 40)), (1, range(60, 100))):
            army = army_on_board(env.game.board, seat)
            assert all(army[r] == n for r, n in rules.ARMIES[mode].items())
            occupied = [
                s
                for s in range(100)
                if env.game.board[s] not in (0, rules.LAKE)
                and bool(env.game.board[s] & rules.OWNER_BIT) == (seat == 1)
            ]
            assert set(occupied) <= set(rows)
        boards.append(env.game.board.copy())
    assert (boards[0] == boards[1]).all() and not (boards[0] == boards[2]).all()


def test_given_setups_skip_their_phase_and_other_side_is_random_or_chosen():
    gold = full_setup(gold_squares())
    env = raw_env(setup="random")
    env.reset(seed=2, options={"setup": {"gold": gold}})
    assert env.game.phase == rules.Phase.PLAY
    assert piece(env, "a1") == ("gold", "F", False, False)
    env = raw_env(setup="choose")
    env.reset(options={"setup": {"silver": full_setup(silver_squares())}})
    assert env.agent_selection == "gold" and env.game.phase == rules.Phase.SETUP
    for _ in range(40):
        env.step(env.legal_actions()[0])
    assert env.game.phase == rules.Phase.PLAY and env.agent_selection == "gold"


def test_setup_ranks_and_squares_are_case_insensitive():
    gold = {k.upper(): v.lower() for k, v in full_setup(gold_squares()).items()}
    env = raw_env(setup="random")
    env.reset(seed=0, options={"setup": {"gold": gold}})
    assert piece(env, "a1") == ("gold", "F", False, False)


def _bad_setup(mode, side, change):
    squares = gold_squares() if side == "gold" else silver_squares()
    setup = full_setup(squares) if mode == "full" else quick_setup(squares)
    change(setup)
    return setup


@pytest.mark.parametrize("mode", ["full", "quick"])
@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda s: s.update({next(k for k, v in s.items() if v not in "BF"): "B"}), "rank B"),
        (lambda s: s.pop(next(k for k, v in s.items() if v == "F")), "rank F"),
        (lambda s: s.update({"e5": s.pop(next(iter(s)))}), "outside its home rows"),
        (lambda s: s.update({"c5": s.pop(next(iter(s)))}), "lake"),
        (lambda s: s.update({"j1" if "j1" not in s else "j4": "Q"}), "unknown rank"),
        (lambda s: s.update({"k1": "2"}), "unknown square"),
        (lambda s: s.update({next(iter(s)).upper(): "2"}), "given twice"),
    ],
)
def test_setup_validation(mode, change, message):
    env = raw_env(mode=mode, setup="choose")
    env.reset(seed=0)
    before = env.game
    with pytest.raises(ValueError, match=message):
        env.reset(options={"setup": {"gold": _bad_setup(mode, "gold", change)}})
    assert env.game is before  # the env is left as it was
    with pytest.raises(ValueError):
        env.reset(options={"setup": {"silver": _bad_setup(mode, "silver", change)}})
    env.reset(seed=0)
    env.step(env.legal_actions()[0])


@pytest.mark.parametrize("mode", ["full", "quick"])
def test_setup_on_the_other_sides_rows_is_refused(mode):
    env = raw_env(mode=mode)
    squares = silver_squares()
    setup = full_setup(squares) if mode == "full" else quick_setup(squares)
    with pytest.raises(ValueError, match=r"gold: .* outside its home rows 1-4"):
        env.reset(options={"setup": {"gold": setup}})


def test_quick_setup_may_use_any_home_squares_but_not_too_many_pieces():
    env = raw_env(mode="quick", setup="random")
    squares = ["a4", "j4", "e3", "f2", "c1", "h1", "d4", "g4"]
    env.reset(seed=0, options={"setup": {"gold": quick_setup(squares)}})
    assert piece(env, "g4") == ("gold", "F", False, False)
    with pytest.raises(ValueError, match="rank 2"):
        env.reset(options={"setup": {"gold": {**quick_setup(squares), "b1": "2"}}})


def test_position_validation():
    env = raw_env(mode="quick")
    ok = {"gold": {"e4": "2", "a1": "F"}, "silver": {"e7": "3", "j10": "F"}}
    env.reset(options={"position": ok, "to_move": "silver"})
    assert env.agent_selection == "silver" and env.game.phase == rules.Phase.PLAY
    cases = [
        (
            {
                "position": {
                    "gold": {"e4": "2", "a1": "F", "a2": "B", "a3": "B"},
                    "silver": ok["silver"],
                }
            },
            "rank B",
        ),
        ({"position": {"gold": {"c6": "2"}, "silver": ok["silver"]}}, "lake"),
        ({"position": {"gold": {"e7": "2"}, "silver": ok["silver"]}}, "both sides"),
        ({"position": {"gold": ok["gold"]}}, "missing: silver"),
        ({"position": {"gold": ok["gold"], "red": {}}}, "unknown side"),
        ({"position": ok, "to_move": "red"}, "to_move"),
        ({"position": ok, "setup": {}}, "together"),
        ({"to_move": "gold"}, "with 'position' only"),
        ({"position": {"gold": {"a1": "F"}, "silver": ok["silver"]}}, "no legal move"),
        ({"position": {"gold": {"a1": "X"}, "silver": ok["silver"]}}, "unknown rank"),
        ({"position": {"gold": ["a1"], "silver": ok["silver"]}}, "must be a dict"),
        ({"setup": "gold"}, "must be a dict"),
    ]
    for options, message in cases:
        with pytest.raises(ValueError, match=message):
            env.reset(options=options)
    # pieces may stand anywhere off the lakes in a position, the full army allows more
    env = raw_env(mode="full")
    env.reset(
        options={"position": {"gold": {"a10": "B", "a9": "B", "e5": "4"}, "silver": {"a1": "F"}}}
    )
    assert piece(env, "a10") == ("gold", "B", False, False)
