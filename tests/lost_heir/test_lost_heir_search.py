"""Lost Heir's search module: the sampled worlds and the open-card solver.

The generic contract (a world keeps the agent's observation, no leak, a world plays to its
end) is ``tests/test_search_api.py``; here, what the sampler keeps and redeals, the solver
against a plain minimax over the engine itself (its own scoring) on endings small enough to
enumerate, a position's value equals its best child's, scenarios with card names, and the
refusals.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import feral_envs
from feral_envs.lost_heir import engine as E
from feral_envs.lost_heir import search, solver
from feral_envs.lost_heir.encoding import ACCEPT, AGENTS, BID, CARD, DECK, PASS, TAKE_A_LEAD
from feral_envs.lost_heir.rules import TAKE_A_LEAD_CHOICES, Phase, make_config


def _random_step(env, rng):
    mask = env.observe(env.agent_selection)["action_mask"]
    legal = np.flatnonzero(mask)
    env.step(int(legal[rng.integers(len(legal))]))


def play_positions(n, seed, take_a_lead="after_first_trick", cards_left=None):
    """Raw envs in the play phase of a random game; with ``cards_left`` (a range), the first
    point of a hand's play where at most a number drawn from that range are still held."""
    rng = np.random.default_rng(seed)
    out = []
    g = 0
    while len(out) < n:
        env = feral_envs.make("lost_heir", take_a_lead=take_a_lead).unwrapped
        env.reset(seed=seed * 1000 + g)
        g += 1
        left = int(rng.choice(cards_left)) if cards_left is not None else None
        for _ in range(400):
            if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
                break
            row = env.game.row
            if row[E.PHASE] == E.PHASE_PLAY:
                held = int((row[E.TRICK_OF_CARD : E.TRICK_OF_CARD + 32] < 0).sum())
                if (left is None and rng.random() < 0.15) or (left is not None and held <= left):
                    out.append(env.clone())
                    break
            _random_step(env, rng)
    return out


# ---------------------------------------------------------------------------------------
# The sampler


def _owners(row):
    owner = np.full(32, -1)
    for k in range(32):
        owner[row[E.DEAL + k]] = k // 8
    return owner


def _voids(env):
    """Voids from the decoded view: a seat that played another city to a led trick."""
    view = env.game.view
    void = np.zeros((4, 4), dtype=bool)
    owner = _owners(env.game.row)
    for k in range(view.tricks_done + 1):
        if k < view.tricks_done:
            leader = view.trick_leaders[k]
            cards = {(owner[c] - leader) % 4: c for c in np.flatnonzero(view.trick_of_card == k)}
            cards = [cards[p] for p in range(4)]
        else:
            leader = view.leader
            cards = list(view.trick[: view.trick_len])
        if not cards or leader < 0:
            continue
        led = cards[0] // 8
        for pos, c in enumerate(cards[1:], start=1):
            if c // 8 != led:
                void[(leader + pos) % 4, led] = True
    return void


def test_a_world_keeps_what_the_seat_knows_and_redeals_the_rest():
    rng = np.random.default_rng(5)
    checked_voids = 0
    for env in play_positions(30, seed=11):
        for seat in range(4):
            truth = env.game.row
            world = search.sample_world(truth, env.config, seat, rng)
            true_owner, owner = _owners(truth), _owners(world)
            held = truth[E.TRICK_OF_CARD : E.TRICK_OF_CARD + 32] < 0
            # the seat's own cards and every played card stay with their holder
            keep = ~held | (true_owner == seat)
            np.testing.assert_array_equal(owner[keep], true_owner[keep])
            # every seat holds as many cards as it does in truth
            for s in range(4):
                assert (held & (owner == s)).sum() == (held & (true_owner == s)).sum()
            # nobody holds a card of a city it has shown void in
            void = _voids(env)
            for card in np.flatnonzero(held):
                assert not void[owner[card], card // 8]
            checked_voids += void.sum()
            # the rest of the row is the truth's, but the stream words
            rest = np.ones(E.ROW_SIZE, dtype=bool)
            rest[0:4] = False
            rest[E.STATE.deal.slice] = False
            np.testing.assert_array_equal(world[rest], truth[rest])
            assert not np.array_equal(world[0:4], truth[0:4])
    assert checked_voids > 4  # the voids were exercised (12 here)


def test_in_the_bidding_the_others_cards_are_all_redealt():
    env = feral_envs.make("lost_heir").unwrapped
    env.reset(seed=3)
    truth = env.game.row
    rng = np.random.default_rng(0)
    moved = 0
    for _ in range(20):
        world = search.sample_world(truth, env.config, 1, rng)
        t, w = _owners(truth), _owners(world)
        np.testing.assert_array_equal(w[t == 1], 1)
        assert sorted(np.bincount(w, minlength=4)) == [8, 8, 8, 8]
        moved += int((w != t).sum())
    assert moved > 100


def test_the_world_depends_on_the_observation_and_rng_only():
    """The same observation gives the same world, whatever the hidden truth behind it."""
    env = play_positions(1, seed=4)[0]
    rng = np.random.default_rng(1)
    seat = env.game.row[E.TO_ACT]
    other = search.sample_world(env.game.row, env.config, seat, rng)
    a = search.sample_world(env.game.row, env.config, seat, np.random.default_rng(7))
    b = search.sample_world(other, env.config, seat, np.random.default_rng(7))
    np.testing.assert_array_equal(a, b)
    obs = np.zeros(E.OBS_SIZE, dtype=np.float32)
    E.observe(env.game.row, seat, obs)
    c = search.sample_from_observation(obs, env.config, seat, np.random.default_rng(7))
    np.testing.assert_array_equal(a, c)


def test_sample_from_observation_refuses_bad_input():
    config = make_config()
    with pytest.raises(ValueError, match="shape"):
        search.sample_from_observation(np.zeros(5), config, 0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="seat"):
        search.sample_from_observation(
            np.zeros(E.OBS_SIZE, dtype=np.float32), config, 4, np.random.default_rng(0)
        )


# ---------------------------------------------------------------------------------------
# The solver against a plain minimax over the engine's own rules and scoring


def _margins(row, team):
    """``team``'s score change for the hand minus the other's, read from the engine after
    the hand was scored (last_hand)."""
    return int(row[E.LAST_HAND + team]) - int(row[E.LAST_HAND + 1 - team])


def plain_minimax(row, team):
    """The hand's margin for ``team`` under optimal play by both teams: every legal action,
    played with the engine on copies of the row, to the end of the hand."""
    hands = row[E.HANDS_PLAYED]
    mask = np.zeros(E.N_ACTIONS, dtype=np.int8)
    E.legal_mask(row, mask)
    mine = row[E.TO_ACT] % 2 == team
    best = None
    for action in np.flatnonzero(mask):
        child = row.copy()
        E.apply(child, int(action))
        if child[E.HANDS_PLAYED] != hands:
            value = _margins(child, team)
        else:
            value = plain_minimax(child, team)
        if best is None or (value > best if mine else value < best):
            best = value
    return best


def plain_values(row):
    team = row[E.TO_ACT] % 2
    hands = row[E.HANDS_PLAYED]
    mask = np.zeros(E.N_ACTIONS, dtype=np.int8)
    E.legal_mask(row, mask)
    out = {}
    for action in np.flatnonzero(mask):
        child = row.copy()
        E.apply(child, int(action))
        out[int(action)] = (
            _margins(child, team) if child[E.HANDS_PLAYED] != hands else plain_minimax(child, team)
        )
    return out


@pytest.mark.parametrize("take_a_lead", TAKE_A_LEAD_CHOICES)
def test_the_solver_equals_plain_minimax_on_small_endings(take_a_lead):
    positions = play_positions(16, seed=21, take_a_lead=take_a_lead, cards_left=range(4, 13))
    config = make_config(take_a_lead=take_a_lead)
    takes = 0
    for env in positions:
        row = env.game.row
        expected = plain_values(row)
        got = search.solve(row, config)
        assert got == {a: float(v) for a, v in expected.items()}
        takes += TAKE_A_LEAD in got
    assert takes > 0  # take a lead was among the actions somewhere


def test_a_value_equals_its_best_childs():
    for env in play_positions(15, seed=31):
        row = env.game.row
        values = search.solve(row, env.config)
        team = row[E.TO_ACT] % 2
        for action, value in values.items():
            child = row.copy()
            E.apply(child, action)
            if child[E.HANDS_PLAYED] != row[E.HANDS_PLAYED]:
                assert value == _margins(child, team)
                continue
            best = max(search.solve(child, env.config).values())
            assert value == (best if child[E.TO_ACT] % 2 == team else -best)


# ---------------------------------------------------------------------------------------
# Scenarios


def _to_play(hands, dealer, calls):
    env = feral_envs.make("lost_heir").unwrapped
    env.reset(seed=0, options={"dealer": dealer, "hands": hands})
    for call in calls:
        env.step(call)
    assert env.game.phase == Phase.PLAY
    return env


def _card(name):
    return CARD + DECK.card(name)


def test_all_winnipeg_takes_every_trick_but_the_defenders_drop_the_boy_on_it():
    hands = {
        "north": [f"W{r}" for r in range(8)],
        "east": ["T0", "T1", "T2", "T3", "T4", "T5", "T6", "T7"],
        "south": ["M0", "M1", "M2", "M3", "M4", "M5", "M6", "M7"],
        "west": ["H0", "H1", "H2", "H3", "H4", "H5", "H6", "H7"],
    }
    # west deals; north bids 4, the others pass, west accepts
    env = _to_play(hands, "west", [BID, PASS, PASS, ACCEPT])
    values = env.solve()
    # north-south take all 8 tricks and W0 (+5), but east throws T0 on one of them (-3):
    # 10 points, the defenders 0: a margin of 10 whatever north leads.
    assert values == {_card(f"W{r}"): 10.0 for r in range(8)}


def test_a_failed_contract_costs_the_contract():
    hands = {
        "north": [f"W{r}" for r in range(8)],
        "east": ["T0", "T1", "T2", "T3", "T4", "T5", "T6", "T7"],
        "south": ["M0", "M1", "M2", "M3", "M4", "M5", "M6", "M7"],
        "west": ["H0", "H1", "H2", "H3", "H4", "H5", "H6", "H7"],
    }
    # west deals; north bids 12, the others pass, west accepts: the 10 points north-south
    # take fall short, they lose 12, and the defenders score 0
    env = _to_play(hands, "west", [BID + 8, PASS, PASS, ACCEPT])
    assert env.solve() == {_card(f"W{r}"): -12.0 for r in range(8)}


def test_the_defenders_never_score_below_zero():
    hands = {
        "north": ["W7", "W6", "W5", "W4", "W3", "W2", "W1", "T0"],
        "east": ["T7", "T6", "T5", "T4", "T3", "T2", "T1", "W0"],
        "south": ["M0", "M1", "M2", "M3", "M4", "M5", "M6", "M7"],
        "west": ["H0", "H1", "H2", "H3", "H4", "H5", "H6", "H7"],
    }
    env = _to_play(hands, "west", [BID, PASS, PASS, ACCEPT])
    values = env.solve()
    # a Winnipeg lead names trump: east must give W0 to the first trump lead, north takes
    # seven tricks and leads T0 last, which east must take: north-south 7 + 5 = 12 points,
    # east-west 1 - 3 = -2, scored as 0: a margin of 12 (not 14)
    assert values[_card("W7")] == 12.0
    assert max(values.values()) == 12.0
    # leading T0 first names Toronto trump, where east holds the rest: far worse
    assert values[_card("T0")] < 0


def test_take_a_lead_is_valued_and_can_be_best():
    """Among random positions some have `take a lead` strictly best (3 of 69 where it is
    legal, measured); its value is the partner's best lead's (the same team leads)."""
    found = 0
    for env in play_positions(160, seed=41):
        row = env.game.row
        values = search.solve(row, env.config)
        if TAKE_A_LEAD not in values:
            continue
        child = row.copy()
        E.apply(child, TAKE_A_LEAD)
        assert child[E.TO_ACT] == (row[E.TO_ACT] + 2) % 4
        partner = search.solve(child, env.config)
        assert TAKE_A_LEAD not in partner  # the lead cannot be handed back
        assert values[TAKE_A_LEAD] == max(partner.values())
        found += values[TAKE_A_LEAD] > max(v for a, v in values.items() if a != TAKE_A_LEAD)
    assert found > 0


def test_solve_refuses_outside_the_play_phase():
    env = feral_envs.make("lost_heir").unwrapped
    env.reset(seed=0)
    with pytest.raises(ValueError, match="play phase"):
        env.solve()
    with pytest.raises(ValueError, match="play phase"):
        search.solve(env.game.row, env.config)


def test_declarer_points_per_trump():
    hands = {
        "north": [f"W{r}" for r in range(8)],
        "east": ["T0", "T1", "T2", "T3", "T4", "T5", "T6", "T7"],
        "south": ["M0", "M1", "M2", "M3", "M4", "M5", "M6", "M7"],
        "west": ["H0", "H1", "H2", "H3", "H4", "H5", "H6", "H7"],
    }
    env = feral_envs.make("lost_heir").unwrapped
    env.reset(seed=0, options={"dealer": "west", "hands": hands})
    points = solver.default_solver().declarer_points(env.game.row, AGENTS.index("north"))
    # north can only name Winnipeg: 10 points; no card of the other cities
    assert list(points) == [solver.NO_VALUE, solver.NO_VALUE, solver.NO_VALUE, 10]


def test_the_best_trump_search_equals_the_best_of_the_four():
    s = solver.default_solver()
    for env in play_positions(4, seed=51):
        row = env.game.row.copy()
        # the same deal from the start of play: every card back in hand
        row[E.TRICK_OF_CARD : E.TRICK_OF_CARD + 32] = -1
        for declarer in (0, 1):
            by_city = s.declarer_points(row, declarer)
            assert s.best_declarer_points(row, declarer) == by_city.max()


# ---------------------------------------------------------------------------------------
# The same source as plain Python (NUMBA_DISABLE_JIT=1)


def _plain_results() -> dict:
    """Solver values on small endings and sampled worlds, as JSON-ready lists."""
    envs = play_positions(4, seed=61, cards_left=range(4, 9))
    values = [sorted(search.solve(env.game.row, env.config).items()) for env in envs]
    worlds = [
        search.sample_world(env.game.row, env.config, seat, np.random.default_rng(seat)).tolist()
        for env in play_positions(3, seed=62)
        for seat in range(4)
    ]
    return {"values": values, "worlds": worlds}


def test_the_search_kernels_run_as_plain_python():
    root = Path(__file__).resolve().parents[2]
    env = {
        **os.environ,
        "NUMBA_DISABLE_JIT": "1",
        "PYTHONPATH": f"{root}{os.pathsep}{root / 'tests'}",
    }
    done = subprocess.run(
        [sys.executable, __file__, "--python-mode"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    plain = json.loads(done.stdout.strip().splitlines()[-1])
    compiled = json.loads(json.dumps(_plain_results()))
    assert plain == compiled


if __name__ == "__main__" and sys.argv[1:] == ["--python-mode"]:
    import numba

    assert numba.config.DISABLE_JIT
    assert not hasattr(solver._search, "py_func"), "the solver was compiled"
    print(json.dumps(_plain_results()))
