"""Scenario tests, one or more per rule of RULES.md (Hidden Ranks), written with square names."""

from __future__ import annotations

import pytest
from hr_helpers import ego_rc, legal, move, piece, plane, position_env

from feral_envs.hidden_ranks import rules
from feral_envs.hidden_ranks_v0 import raw_env

# --- moves --------------------------------------------------------------------------------


def test_scout_legal_set_beside_lakes_own_pieces_and_enemy_at_range():
    env = position_env(
        gold={"e6": "2", "a5": "2", "e2": "B", "a1": "F", "b1": "4"},
        silver={"e9": "5", "e10": "7", "a8": "3", "j10": "F"},
    )
    assert legal(env) == {
        # e6: lake d6 on the left, lake g6 two squares right, own Bomb on e2, enemy on e9
        "e6-e7",
        "e6-e8",
        "e6-e9",
        "e6-f6",
        "e6-e5",
        "e6-e4",
        "e6-e3",
        # a5: lake c5 two squares right, enemy on a8, own 4 on b1 does not block column a,
        # own Flag on a1 does
        "a5-b5",
        "a5-a6",
        "a5-a7",
        "a5-a8",
        "a5-a4",
        "a5-a3",
        "a5-a2",
        # the 4 on b1 steps one square; the Bomb and the Flag never move
        "b1-b2",
        "b1-c1",
    }


def test_piece_moves_one_square_never_onto_lake_or_own_piece():
    env = position_env(
        gold={"c4": "7", "b4": "B", "c3": "6", "a1": "F"}, silver={"j10": "F", "d4": "5"}
    )
    moves_of_c4 = {m for m in legal(env) if m.startswith("c4-")}
    assert moves_of_c4 == {"c4-d4"}  # c5 is a lake, b4 and c3 are own pieces; d4 is a strike
    with pytest.raises(ValueError, match="not legal"):
        env.string_to_action("c4-c5")


def test_scout_cannot_jump_a_piece():
    env = position_env(gold={"a1": "2", "a2": "B", "j1": "F"}, silver={"a9": "4", "j10": "F"})
    assert {m for m in legal(env) if m.startswith("a1-")} == {
        "a1-b1",
        "a1-c1",
        "a1-d1",
        "a1-e1",
        "a1-f1",
        "a1-g1",
        "a1-h1",
        "a1-i1",
    }


# --- strikes ------------------------------------------------------------------------------


def test_higher_striker_takes_the_square_and_is_revealed():
    env = position_env(gold={"e4": "8", "a1": "F"}, silver={"e5": "6", "j10": "F"})
    move(env, "e4-e5")
    assert piece(env, "e4") is None
    assert piece(env, "e5") == ("gold", "8", True, True)
    assert env.game.removed[1, 6 - 1] == 1
    assert tuple(env.game.last_strike) == (
        rules.SQUARE_OF_NAME["e5"],
        0,
        8,
        6,
        rules.ATTACKER_WINS,
    )


def test_winning_defender_stays_and_is_revealed():
    env = position_env(gold={"e4": "4", "a1": "F"}, silver={"e5": "6", "j10": "F"})
    move(env, "e4-e5")
    assert piece(env, "e4") is None
    assert piece(env, "e5") == ("silver", "6", False, True)
    assert env.game.removed[0, 4 - 1] == 1
    # gold now sees the silver 6 as a known rank, no longer unknown
    r, c = ego_rc("gold", "e5")
    assert plane(env, "gold", "enemy_rank", 6 - 1)[r, c] == 1
    assert plane(env, "gold", "enemy_unknown")[r, c] == 0


def test_spy_striking_marshal_wins():
    env = position_env(gold={"e4": "S", "a1": "F"}, silver={"e5": "10", "j10": "F"})
    move(env, "e4-e5")
    assert piece(env, "e5") == ("gold", "S", True, True)
    assert env.game.removed[1, rules.MARSHAL - 1] == 1


def test_marshal_striking_spy_wins():
    env = position_env(
        gold={"e4": "S", "a1": "F"}, silver={"e5": "10", "j10": "F"}, to_move="silver"
    )
    move(env, "e5-e4")
    assert piece(env, "e4") == ("silver", "10", True, True)
    assert env.game.removed[0, rules.SPY - 1] == 1


@pytest.mark.parametrize("striker", ["9", "2"])
def test_spy_loses_to_any_other_striker_and_when_striking_others(striker):
    env = position_env(
        gold={"e4": "S", "a1": "F"}, silver={"e5": striker, "j10": "F"}, to_move="silver"
    )
    move(env, "e5-e4")
    assert piece(env, "e4") == ("silver", striker, True, True)
    env = position_env(gold={"e4": "S", "a1": "F"}, silver={"e5": striker, "j10": "F"})
    move(env, "e4-e5")
    assert piece(env, "e5") == ("silver", striker, False, True)


def test_miner_removes_bomb_and_takes_its_square():
    env = position_env(gold={"e4": "3", "a1": "F"}, silver={"e5": "B", "j10": "F"})
    move(env, "e4-e5")
    assert piece(env, "e5") == ("gold", "3", True, True)
    assert env.game.removed[1, rules.BOMB - 1] == 1
    assert env.game.removed[0].sum() == 0


@pytest.mark.parametrize("striker", ["10", "S", "4"])
def test_other_piece_striking_bomb_is_removed_and_bomb_stays_known(striker):
    env = position_env(gold={"e4": striker, "a1": "F"}, silver={"e5": "B", "j10": "F", "a10": "4"})
    move(env, "e4-e5")
    assert piece(env, "e4") is None
    assert piece(env, "e5") == ("silver", "B", False, True)
    assert env.game.removed[0, rules.RANK_OF_NAME[striker] - 1] == 1
    r, c = ego_rc("gold", "e5")
    assert plane(env, "gold", "enemy_rank", rules.BOMB - 1)[r, c] == 1
    # silver knows its Bomb is known to gold
    r, c = ego_rc("silver", "e5")
    assert plane(env, "silver", "my_public")[r, c] == 1


@pytest.mark.parametrize("rank", ["5", "S", "10", "2"])
def test_equal_ranks_are_both_removed(rank):
    env = position_env(gold={"e4": rank, "a1": "F"}, silver={"e5": rank, "j10": "F", "a10": "4"})
    move(env, "e4-e5")
    assert piece(env, "e4") is None and piece(env, "e5") is None
    code = rules.RANK_OF_NAME[rank]
    assert env.game.removed[0, code - 1] == 1 and env.game.removed[1, code - 1] == 1
    assert not env.terminations["gold"]


def test_scout_strikes_flag_at_range_and_wins():
    env = position_env(gold={"e2": "2", "a1": "F"}, silver={"e8": "F", "j10": "4"})
    move(env, "e2-e8")
    assert env.terminations == {"gold": True, "silver": True}
    assert env.truncations == {"gold": False, "silver": False}
    assert env.rewards == {"gold": 1.0, "silver": -1.0}
    assert env.game.end == rules.END_FLAG


def test_spy_strikes_flag_and_wins_for_silver():
    env = position_env(
        gold={"f7": "F", "a1": "10"}, silver={"f8": "S", "j10": "F"}, to_move="silver"
    )
    move(env, "f8-f7")
    assert env.terminations["silver"]
    assert env.rewards == {"gold": -1.0, "silver": 1.0}
    assert env._cumulative_rewards == {"gold": -1.0, "silver": 1.0}


# --- public information -------------------------------------------------------------------


def test_revealed_piece_stays_revealed_after_moving_on():
    env = position_env(
        gold={"e4": "4", "a1": "F", "j1": "5"}, silver={"e5": "6", "j10": "F", "a10": "5"}
    )
    move(env, "e4-e5")  # silver's 6 wins as defender and is revealed
    move(env, "e5-e4")  # it moves on
    move(env, "j1-j2")
    move(env, "e4-e3")
    assert piece(env, "e3") == ("silver", "6", True, True)
    r, c = ego_rc("gold", "e3")
    assert plane(env, "gold", "enemy_rank", 6 - 1)[r, c] == 1
    assert plane(env, "gold", "enemy_moved")[r, c] == 1
    assert plane(env, "gold", "enemy_unknown").sum() == 2  # the Flag and the 5


def test_long_move_makes_a_known_scout_but_a_one_square_move_does_not():
    env = position_env(gold={"a2": "2", "b2": "2", "j1": "F"}, silver={"j10": "F", "a10": "5"})
    move(env, "a2-a3")
    assert piece(env, "a3") == ("gold", "2", True, False)
    move(env, "a10-a9")
    move(env, "b2-b6")
    assert piece(env, "b6") == ("gold", "2", True, True)
    r, c = ego_rc("silver", "b6")
    assert plane(env, "silver", "enemy_rank", rules.SCOUT - 1)[r, c] == 1
    r, c = ego_rc("silver", "a3")
    assert plane(env, "silver", "enemy_unknown")[r, c] == 1
    assert plane(env, "silver", "enemy_moved")[r, c] == 1


# --- no shuttling -------------------------------------------------------------------------


def _shuttle_env():
    return position_env(
        gold={"e4": "7", "a1": "F", "j1": "5"}, silver={"a10": "4", "j10": "F", "j7": "6"}
    )


def test_fourth_move_between_same_two_squares_is_illegal():
    env = _shuttle_env()
    for gold_move, silver_move in (("e4-e5", "a10-a9"), ("e5-e4", "j7-j6"), ("e4-e5", "a9-a8")):
        move(env, gold_move)
        move(env, silver_move)  # the enemy's moves in between do not break the count
    assert "e5-e4" not in legal(env)
    assert {"e5-e6", "e5-f5", "j1-j2"} <= legal(env)
    with pytest.raises(ValueError, match="not legal"):
        env.string_to_action("e5-e4")
    r, c = ego_rc("gold", "e5")
    assert plane(env, "gold", "my_last_to")[r, c] == 3
    r, c = ego_rc("silver", "e5")
    assert plane(env, "silver", "enemy_last_to")[r, c] == 3


def test_moving_another_piece_makes_it_legal_again():
    env = _shuttle_env()
    for gold_move, silver_move in (("e4-e5", "a10-a9"), ("e5-e4", "j7-j6"), ("e4-e5", "a9-a8")):
        move(env, gold_move)
        move(env, silver_move)
    move(env, "j1-j2")
    move(env, "a8-a7")
    assert "e5-e4" in legal(env)


def test_third_square_restarts_the_count():
    env = _shuttle_env()
    silver = iter(["a10-a9", "j7-j6", "a9-a8", "j6-j5", "a8-a7", "j5-j4"])
    for gold_move in ("e4-e5", "e5-e4", "e4-e5", "e5-f5", "f5-e5"):
        move(env, gold_move)
        move(env, next(silver))
    assert "e5-f5" in legal(env)  # the pair e5/f5 has had two moves
    move(env, "e5-f5")
    move(env, next(silver))
    assert "f5-e5" not in legal(env)


def test_scout_moves_and_strikes_count_for_shuttling():
    env = position_env(gold={"e2": "2", "a1": "F"}, silver={"j10": "F", "a10": "4", "j7": "4"})
    for gold_move, silver_move in (("e2-e8", "a10-a9"), ("e8-e2", "j7-j6"), ("e2-e8", "a9-a8")):
        move(env, gold_move)
        move(env, silver_move)
    assert "e8-e2" not in legal(env)
    assert "e8-e3" in legal(env)  # a third square
    # strikes count: a Marshal that wins strikes then moves back and forth
    env = position_env(
        gold={"e4": "10", "a1": "F"}, silver={"e5": "4", "j10": "F", "a10": "4", "j7": "4"}
    )
    for gold_move, silver_move in (("e4-e5", "a10-a9"), ("e5-e4", "j7-j6"), ("e4-e5", "a9-a8")):
        move(env, gold_move)
        move(env, silver_move)
    assert "e5-e4" not in legal(env)


def test_each_player_counts_its_own_moves():
    env = position_env(gold={"e4": "7", "a1": "F"}, silver={"e7": "7", "j10": "F"})
    for gold_move, silver_move in (("e4-e5", "e7-e6"), ("e5-e4", "e6-e7"), ("e4-e5", "e7-e6")):
        move(env, gold_move)
        move(env, silver_move)
    assert "e5-e4" not in legal(env)
    move(env, "e5-f5")
    assert "e6-e7" not in legal(env)  # silver's own third shuttle is still counted
    assert "e6-e5" in legal(env)


# --- end of the game ----------------------------------------------------------------------


def test_boxed_in_player_loses_at_the_start_of_its_turn():
    env = position_env(
        gold={"a1": "5", "a2": "B", "b1": "B", "j1": "F"},
        silver={"j10": "4", "a10": "F"},
        to_move="silver",
    )
    move(env, "j10-j9")
    assert env.terminations["gold"] and env.game.end == rules.END_NO_MOVE
    assert env.rewards == {"gold": -1.0, "silver": 1.0}


def test_shuttle_blocked_player_with_no_other_move_loses():
    env = position_env(
        gold={"a1": "5", "b1": "B", "a3": "B", "b2": "B", "j1": "F"},
        silver={"j10": "4", "a10": "F"},
    )
    for gold_move, silver_move in (("a1-a2", "j10-j9"), ("a2-a1", "j9-j10"), ("a1-a2", "j10-j9")):
        assert not env.terminations["gold"]
        move(env, gold_move)
        move(env, silver_move)
    assert env.terminations["gold"] and env.game.end == rules.END_NO_MOVE
    assert env.rewards == {"gold": -1.0, "silver": 1.0}


def test_player_left_with_only_bombs_and_flag_loses():
    env = position_env(gold={"e4": "4", "a1": "F"}, silver={"a10": "F", "j10": "B"})
    move(env, "e4-e3")
    assert env.terminations["silver"] and env.game.end == rules.END_NO_MOVE
    assert env.rewards == {"gold": 1.0, "silver": -1.0}


def test_draw_when_neither_player_can_move():
    env = position_env(gold={"e4": "4", "a1": "F"}, silver={"e5": "B", "j10": "F"})
    move(env, "e4-e5")  # gold's last movable piece dies on the Bomb; silver cannot move either
    assert env.terminations == {"gold": True, "silver": True}
    assert env.game.end == rules.END_NEITHER_CAN_MOVE
    assert env.rewards == {"gold": 0.0, "silver": 0.0}


def test_move_limit_is_a_draw_and_a_termination():
    env = position_env(gold={"e4": "4", "a1": "F"}, silver={"e7": "4", "j10": "F"}, max_moves=3)
    for text in ("e4-e5", "e7-e6", "e5-f5"):
        assert not env.terminations["gold"]
        move(env, text)
    assert env.terminations == {"gold": True, "silver": True}
    assert env.truncations == {"gold": False, "silver": False}
    assert env.rewards == {"gold": 0.0, "silver": 0.0}
    assert env.game.end == rules.END_MOVE_LIMIT


def test_flag_struck_on_the_last_allowed_move_still_wins():
    env = position_env(gold={"e4": "4", "a1": "F"}, silver={"e5": "F", "j10": "4"}, max_moves=1)
    move(env, "e4-e5")
    assert env.rewards == {"gold": 1.0, "silver": -1.0}


def test_move_limit_comes_before_the_next_no_move_check():
    env = position_env(gold={"e4": "4", "a1": "F"}, silver={"a10": "F", "j10": "B"}, max_moves=1)
    move(env, "e4-e3")  # silver could not move, but the limit ends the game first
    assert env.game.end == rules.END_MOVE_LIMIT
    assert env.rewards == {"gold": 0.0, "silver": 0.0}


def test_setup_placements_do_not_count_toward_the_move_limit():
    env = raw_env(mode="quick", setup="choose", max_moves=2)
    env.reset(seed=3)
    for _ in range(16):
        env.step(env.legal_actions()[0])
    assert env.game.phase == rules.Phase.PLAY and env.game.moves == 0
    env.step(env.legal_actions()[0])
    assert not env.terminations["gold"]
    env.step(env.legal_actions()[0])
    assert env.terminations["gold"] and env.game.end == rules.END_MOVE_LIMIT


def test_walled_in_chosen_setup_loses_when_play_starts():
    walled = {f"{c}4": "B" for c in "abefij"}
    # the rest of the full army on the other home squares, Flag on c4
    rest = "F 10 9 8 8 7 7 7 6 6 6 6 5 5 5 5 4 4 4 4 3 3 3 3 3 2 2 2 2 2 2 2 2 S".split()
    others = [f"{c}{r}" for r in (4, 3, 2, 1) for c in "abcdefghij" if f"{c}{r}" not in walled]
    gold = {**walled, **dict(zip(others, rest, strict=True))}
    env = raw_env(setup="choose")
    env.reset(options={"setup": {"gold": gold}})
    assert env.agent_selection == "silver"
    while not env.terminations["gold"]:
        env.step(env.legal_actions()[0])
    assert env.game.end == rules.END_NO_MOVE and env.rewards == {"gold": -1.0, "silver": 1.0}
    with pytest.raises(ValueError, match="no legal move"):
        env.reset(options={"setup": {"gold": gold, "silver": _mirror(gold)}})


def _mirror(side: dict) -> dict:
    out = {}
    for square, rank in side.items():
        s = rules.SQUARE_OF_NAME[square]
        out[rules.SQUARE_NAMES[99 - s]] = rank
    return out
