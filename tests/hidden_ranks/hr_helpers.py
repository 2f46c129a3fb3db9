"""Helpers for the Hidden Ranks tests: positions by square names, and an independent,
deliberately plain reading of the move rules to check the fast generator against."""

from __future__ import annotations

import numpy as np

from feral_envs.hidden_ranks import rules
from feral_envs.hidden_ranks_v0 import raw_env

LAKES = {"c5", "d5", "c6", "d6", "g5", "h5", "g6", "h6"}


def position_env(gold: dict, silver: dict, to_move: str = "gold", **keywords) -> raw_env:
    env = raw_env(**keywords)
    env.reset(options={"position": {"gold": gold, "silver": silver}, "to_move": to_move})
    return env


def move(env: raw_env, text: str) -> None:
    env.step(env.string_to_action(text))


def legal(env: raw_env) -> set[str]:
    return set(env.legal_action_names())


def piece(env: raw_env, square: str) -> tuple[str, str, bool, bool] | None:
    """(owner, rank, moved, public) of the piece on ``square``, or None if empty."""
    code = int(env.game.board[rules.SQUARE_OF_NAME[square]])
    if code == rules.EMPTY:
        return None
    assert code != rules.LAKE
    owner = "silver" if code & rules.OWNER_BIT else "gold"
    return (
        owner,
        rules.RANK_NAMES[code & rules.RANK_BITS],
        bool(code & rules.MOVED_BIT),
        bool(code & rules.PUBLIC_BIT),
    )


def plane(env: raw_env, agent: str, name: str, offset: int = 0) -> np.ndarray:
    """Plane ``name`` (+ ``offset``) of ``agent``'s observation, as a (10, 10) array."""
    from feral_envs.hidden_ranks.encoding import OBS

    return env.observe(agent)["observation"][:, :, getattr(OBS, name).start + offset]


def ego_rc(agent: str, square: str) -> tuple[int, int]:
    """(row, column) of ``square`` in ``agent``'s observation."""
    s = rules.SQUARE_OF_NAME[square]
    e = s if agent == "gold" else 99 - s
    return divmod(e, 10)


def reference_moves(board: np.ndarray, seat: int) -> set[tuple[int, int]]:
    """Every (from, to) move of ``seat`` by the letter of the rules, shuttling ignored."""
    out = set()
    for square in range(100):
        code = int(board[square])
        if code in (rules.EMPTY, rules.LAKE) or bool(code & rules.OWNER_BIT) != (seat == 1):
            continue
        rank = code & rules.RANK_BITS
        if rank in (rules.BOMB, rules.FLAG):
            continue
        reach = 9 if rank == rules.SCOUT else 1
        row, col = divmod(square, 10)
        for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            for k in range(1, reach + 1):
                r, c = row + dr * k, col + dc * k
                if not (0 <= r < 10 and 0 <= c < 10):
                    break
                target = int(board[r * 10 + c])
                if target == rules.LAKE:
                    break
                if target == rules.EMPTY:
                    out.add((square, r * 10 + c))
                    continue
                if bool(target & rules.OWNER_BIT) != (seat == 1):
                    out.add((square, r * 10 + c))
                break
    return out


def decode_move(state: rules.State, action: int) -> tuple[int, int]:
    """(from, to) absolute squares of a move action of the seat to act, via its name."""
    from feral_envs.hidden_ranks.encoding import action_to_string

    a, b = action_to_string(state, action).split("-")
    return rules.SQUARE_OF_NAME[a], rules.SQUARE_OF_NAME[b]


def army_on_board(board: np.ndarray, seat: int) -> np.ndarray:
    """(13,) counts of ``seat``'s pieces on the board by rank code."""
    counts = np.zeros(13, dtype=np.int64)
    for code in board:
        code = int(code)
        if code not in (rules.EMPTY, rules.LAKE) and bool(code & rules.OWNER_BIT) == (seat == 1):
            counts[code & rules.RANK_BITS] += 1
    return counts
