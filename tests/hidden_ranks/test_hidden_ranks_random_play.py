"""Random play: invariants against an independent reading of the rules, the PettingZoo loop,
and the absence of hidden information in observations."""

from __future__ import annotations

import numpy as np
import pytest
from hr_helpers import army_on_board, decode_move, reference_moves

from feral_envs.hidden_ranks import CORE, engine, rules
from feral_envs.hidden_ranks.render import render_ansi
from feral_envs.hidden_ranks_v0 import env as make_env

ORDER = ["S", "2", "3", "4", "5", "6", "7", "8", "9", "10"]


def expected_strike(striker: str, defender: str) -> str:
    """The strike table of RULES.md, written out separately from the rules module."""
    if defender == "F":
        return "flag"
    if defender == "B":
        return "striker" if striker == "3" else "defender"
    if striker == defender:
        return "both"
    if striker == "S" and defender == "10":
        return "striker"
    return "striker" if ORDER.index(striker) > ORDER.index(defender) else "defender"


def owner_rank(code: int) -> tuple[int, str]:
    return int(bool(code & rules.OWNER_BIT)), rules.RANK_NAMES[code & rules.RANK_BITS]


def play_checked_game(mode: str, seed: int, max_moves: int) -> int:
    """Play one random game through CORE, checking every step; returns its length."""
    rng = np.random.default_rng(seed)
    config = rules.Config(mode=mode, setup="choose", max_moves=max_moves)
    state = CORE.new_game(config, rng, {})
    army = np.zeros(13, dtype=np.int64)
    for rank, n in rules.ARMIES[mode].items():
        army[rank] = n
    shuttle = {0: (None, None, 0), 1: (None, None, 0)}
    pieces_before, phase_before = 0, rules.Phase.SETUP
    steps = 0
    while True:
        terminated, truncated, winner = CORE.status(state)
        assert not truncated
        board = state.board
        # no piece ever on a lake, lakes never move, codes are valid
        assert all(board[s] == rules.LAKE for s in rules.LAKE_SQUARES)
        for s in range(100):
            code = int(board[s])
            if s not in rules.LAKE_SQUARES and code != rules.EMPTY:
                assert 1 <= code & rules.RANK_BITS <= 12 and not code & rules.LAKE
        # conservation: on the board + removed = the army, per side and rank
        for seat in (0, 1):
            on_board = army_on_board(board, seat)
            if state.phase == rules.Phase.PLAY:
                assert (on_board[1:] + state.removed[seat] == army[1:]).all()
        pieces = sum(int(army_on_board(board, seat).sum()) for seat in (0, 1))
        if state.phase == rules.Phase.PLAY and phase_before == rules.Phase.PLAY:
            assert pieces <= pieces_before  # piece counts never rise in play
        pieces_before, phase_before = pieces, state.phase
        mask = CORE.legal_mask(state)
        seat = CORE.seat_to_act(state)
        if terminated:
            assert not mask.any()
            if state.end == rules.END_NO_MOVE:
                assert not _reference_legal(board, seat, shuttle[seat])
                assert winner == 1 - seat
            if state.end == rules.END_MOVE_LIMIT:
                assert state.moves == max_moves and winner == rules.DRAW
            return steps
        assert mask.any()
        if state.phase == rules.Phase.SETUP:
            home = range(40) if seat == 0 else range(99, 59, -1)
            expected = [int(board[s] == rules.EMPTY) for s in home]
            assert mask[:40].tolist() == expected and not mask[40:].any()
            action = int(rng.choice(np.flatnonzero(mask)))
        else:
            assert not mask[:40].any()
            got = {decode_move(state, a) for a in np.flatnonzero(mask)}
            assert got == _reference_legal(board, seat, shuttle[seat])
            action = int(rng.choice(np.flatnonzero(mask)))
            origin, target = decode_move(state, action)
            mover, defender = int(board[origin]), int(board[target])
            last_from, last_to, count = shuttle[seat]
            count = count + 1 if (origin, target) == (last_to, last_from) else 1
            shuttle[seat] = (origin, target, count)
        CORE.apply(state, action, rng)
        steps += 1
        if state.phase == rules.Phase.PLAY and action >= 40:
            _check_move(state, seat, origin, target, mover, defender)


def _reference_legal(board, seat, shuttle_state) -> set:
    moves = reference_moves(board, seat)
    last_from, last_to, count = shuttle_state
    if count >= 3:
        moves.discard((last_to, last_from))
    return moves


def _check_move(state, seat, origin, target, mover, defender) -> None:
    board = state.board
    assert board[origin] == rules.EMPTY
    after = int(board[target])
    far = max(abs(origin // 10 - target // 10), abs(origin % 10 - target % 10)) > 1
    if defender == rules.EMPTY:
        assert after == mover | rules.MOVED_BIT | (rules.PUBLIC_BIT if far else 0)
        return
    _, striker_rank = owner_rank(mover)
    defender_seat, defender_rank = owner_rank(defender)
    assert defender_seat == 1 - seat
    outcome = expected_strike(striker_rank, defender_rank)
    if outcome in ("striker", "flag"):
        assert owner_rank(after) == (seat, striker_rank)
        assert after & rules.PUBLIC_BIT and after & rules.MOVED_BIT
    elif outcome == "defender":
        assert after == defender | rules.PUBLIC_BIT
    else:
        assert after == rules.EMPTY
    assert (outcome == "flag") == (state.end == rules.END_FLAG)
    if outcome == "flag":
        assert state.winner == seat


def test_random_quick_games_follow_the_rules():
    lengths = [play_checked_game("quick", seed, max_moves=400) for seed in range(40)]
    assert max(lengths) > 100


def test_random_full_games_follow_the_rules():
    lengths = [play_checked_game("full", seed, max_moves=300) for seed in range(3)]
    assert min(lengths) > 80 and max(lengths) > 80 + 100  # setup placements, then moves


@pytest.mark.slow
def test_many_random_games_follow_the_rules():
    for seed in range(300):
        play_checked_game("quick", 1000 + seed, max_moves=2000)
    for seed in range(30):
        play_checked_game("full", 1000 + seed, max_moves=2000)


def run_core_games(games_by_mode: dict[str, int], seed: int) -> np.ndarray:
    """Fast random games through CORE: each ends by a rule, with a mask until then.
    Returns how many ended each way (``END_*``)."""
    rng = np.random.default_rng(seed)
    ends = np.zeros(5, dtype=np.int64)
    for mode, games in games_by_mode.items():
        config = rules.Config(mode=mode, setup="random")
        for _ in range(games):
            state = CORE.new_game(config, rng, {})
            while not state.terminated:
                mask = CORE.legal_mask(state)
                assert mask.any() and not mask[:40].any()
                CORE.apply(state, int(rng.choice(np.flatnonzero(mask))), rng)
                assert state.moves <= config.max_moves
            ends[state.end] += 1
            assert CORE.status(state)[0] and not CORE.legal_mask(state).any()
            for seat in (0, 1):
                on_board = army_on_board(state.board, seat)
                assert all(
                    on_board[r] + state.removed[seat, r - 1] == n
                    for r, n in rules.ARMIES[mode].items()
                )
    assert ends[rules.END_NONE] == 0
    return ends


def test_core_random_games_end_sanely():
    ends = run_core_games({"quick": 150, "full": 8}, seed=0)
    assert ends[rules.END_FLAG] > 0 and ends[rules.END_NO_MOVE] > 0


@pytest.mark.slow
def test_thousands_of_core_random_games():
    ends = run_core_games({"quick": 2000, "full": 200}, seed=1)
    assert ends[rules.END_FLAG] > 0 and ends[rules.END_NO_MOVE] > 0
    assert ends[rules.END_MOVE_LIMIT] > 0


@pytest.mark.parametrize(
    ("mode", "setup", "games"),
    [("quick", "choose", 12), ("quick", "random", 12), ("full", "random", 2)],
)
def test_pettingzoo_loop_invariants(mode, setup, games):
    env = make_env(mode=mode, setup=setup)
    rng = np.random.default_rng(7)
    for game in range(games):
        env.reset(seed=game)
        totals = {"gold": 0.0, "silver": 0.0}
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, _ = env.last()
            totals[agent] += reward
            other = "silver" if agent == "gold" else "gold"
            assert not env.observe(other)["action_mask"].any()
            if terminated or truncated:
                assert not obs["action_mask"].any()
                env.step(None)
                continue
            assert obs["action_mask"].any()
            assert env.agent_selection == agent
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        state = env.unwrapped.game
        assert sum(totals.values()) == 0
        if state.winner == rules.DRAW:
            assert totals == {"gold": 0.0, "silver": 0.0}
        else:
            assert totals[rules.AGENTS[state.winner]] == 1.0


# --- no hidden information ----------------------------------------------------------------


def _swap_candidates(state, observer):
    enemy = 1 - observer
    out = []
    for s in range(100):
        code = int(state.board[s])
        if code in (rules.EMPTY, rules.LAKE) or owner_rank(code)[0] != enemy:
            continue
        if not code & (rules.MOVED_BIT | rules.PUBLIC_BIT):
            out.append(s)
    return out


def _play_swapped(seed: int, observer: int, mode: str) -> tuple[int, bool]:
    """Random play from a position and from the same position with two unmoved, unrevealed
    enemy pieces of different ranks swapped: the observer's observations (and its masks and
    view) are equal until one of the two is struck. Returns (steps compared, struck)."""
    rng = np.random.default_rng(seed)
    config = rules.Config(mode=mode, setup="random", max_moves=400)
    a = CORE.new_game(config, rng, {})
    for _ in range(int(rng.integers(0, 30))):  # play a little first
        if a.terminated:
            return 0, False
        CORE.apply(a, int(rng.choice(np.flatnonzero(CORE.legal_mask(a)))), rng)
    squares = _swap_candidates(a, observer)
    ranks = {}
    for s in squares:
        ranks.setdefault(int(a.board[s]) & rules.RANK_BITS, s)
    if len(ranks) < 2 or a.terminated:
        return 0, False
    x, y = (ranks[r] for r in rng.choice(sorted(ranks), size=2, replace=False))
    b = a.copy()  # the swap is outside the rules: made in the state row itself
    board = b.row[engine.STATE.board.slice]
    board[x], board[y] = a.board[y], a.board[x]
    steps = 0
    while not (a.terminated or b.terminated):
        assert np.array_equal(CORE.observe(a, observer), CORE.observe(b, observer))
        assert render_ansi(a, observer) == render_ansi(b, observer)
        mask_a, mask_b = CORE.legal_mask(a), CORE.legal_mask(b)
        if a.to_move == observer:
            assert np.array_equal(mask_a, mask_b)
            choices = np.flatnonzero(mask_a)
        else:
            # the enemy plays a move legal in both games that does not move x or y
            both = np.flatnonzero(mask_a & mask_b)
            choices = [
                m
                for m in both
                if rules.ego_square(a.to_move, rules.MOVE_FROM[m - rules.N_PLACE]) not in (x, y)
            ]
            if not choices:
                break
        action = int(rng.choice(choices))
        struck = action >= rules.N_PLACE and rules.ego_square(
            a.to_move, rules.MOVE_TO[action - rules.N_PLACE]
        ) in (x, y)
        CORE.apply(a, action, rng)
        CORE.apply(b, action, rng)
        steps += 1
        if struck:
            return steps, True
    return steps, False


@pytest.mark.parametrize("mode", ["quick", "full"])
def test_no_hidden_information_in_observations(mode):
    compared = struck = differs_after = 0
    for seed in range(40):
        observer = seed % 2
        steps, hit = _play_swapped(seed, observer, mode)
        compared += steps
        struck += hit
    assert compared > 500 and struck > 0
    # the check can fail: a strike on a swapped piece shows a different rank
    for seed in range(200):
        rng = np.random.default_rng(seed)
        state = CORE.new_game(rules.Config(mode=mode, setup="random"), rng, {})
        before = CORE.observe(state, 0)
        other = state.copy()
        squares = _swap_candidates(state, 0)
        x = next(s for s in squares if int(state.board[s]) & rules.RANK_BITS == rules.FLAG)
        y = next(s for s in squares if int(state.board[s]) & rules.RANK_BITS == rules.SPY)
        board, other_board = (g.row[engine.STATE.board.slice] for g in (state, other))
        other_board[x], other_board[y] = board[y], board[x]
        assert np.array_equal(before, CORE.observe(other, 0))
        for s in (x, y):  # reveal both: now the observations must differ
            board[s] |= rules.PUBLIC_BIT
            other_board[s] |= rules.PUBLIC_BIT
        differs_after += not np.array_equal(CORE.observe(state, 0), CORE.observe(other, 0))
    assert differs_after == 200
