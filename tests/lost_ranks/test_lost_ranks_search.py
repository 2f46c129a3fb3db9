"""Lost Ranks search (feral_envs/lost_ranks/search.py): worlds drawn from one seat's view keep
everything that seat knows and nothing else, in the pass and in play; the open-card solver
agrees with plain minimax, with itself one move on, and with named endings."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from lost_ranks_helpers import swap_hidden

from agents.registry import load_policy
from feral_envs.cards import NO_CARD
from feral_envs.engine.game import Game
from feral_envs.lost_ranks import CORE, engine, search
from feral_envs.lost_ranks.determinize import sample_deal
from feral_envs.lost_ranks.engine import STATE
from feral_envs.lost_ranks.rules import (
    DECK,
    FROM_ENEMY,
    FROM_PARTNER,
    TO_ENEMY,
    TO_PARTNER,
    VARIANTS,
    Phase,
    partner,
    pass_enemy,
)

SUIT_OF = np.array(DECK.suit_of)


def bot_positions(games: int, seed: int = 3, variant: str = "standard"):
    """Every position of ``games`` bot games, as (state copy, seat to act)."""
    bot = load_policy("heuristic", "lost_ranks", seed=0, keywords={"variant": variant})
    rng = np.random.default_rng(seed)
    for _ in range(games):
        state = CORE.new_game(CORE.make_config(variant=variant), rng, {})
        while not any(CORE.status(state)[:2]):
            seat = CORE.seat_to_act(state)
            yield copy.deepcopy(state), seat
            CORE.apply(state, bot.act(CORE.observe(state, seat), CORE.legal_mask(state)), rng)


def first_position(seed: int, tricks_done: int):
    """The first position of a bot game with ``tricks_done`` tricks played."""
    return next(
        (state, seat)
        for state, seat in bot_positions(1, seed)
        if state.phase == Phase.PLAY and state.tricks_done == tricks_done
    )


def world(state, seat, rng) -> Game:
    return Game(state.decode, state.config, search.sample_world(state.row, state.config, seat, rng))


def voids(state) -> np.ndarray:
    return state.row[STATE.voids_shown.slice].reshape(4, 4).astype(bool)


# ---------------------------------------------------------------------------------------------
# Worlds


def test_every_world_keeps_what_the_seat_knows():
    rng = np.random.default_rng(0)
    moved = checked = n_voids = passes = 0
    for state, seat in bot_positions(3):
        for viewer in {seat, (seat + 1) % 4}:
            deal = world(state, viewer, rng)
            assert np.array_equal(CORE.observe(deal, viewer), CORE.observe(state, viewer))
            if viewer == seat:
                assert CORE.legal_mask(deal).tolist() == CORE.legal_mask(state).tolist()
            assert deal.to_act == state.to_act and deal.pass_step == state.pass_step
            assert np.array_equal(deal.hands[viewer], state.hands[viewer])
            assert np.array_equal(deal.hands.sum(axis=1), state.hands.sum(axis=1))
            assert (deal.hands.sum(axis=0) <= 1).all()
            assert np.array_equal(deal.played, state.played)
            assert np.array_equal(deal.pass_record[viewer], state.pass_record[viewer])
            if state.phase == Phase.PASS:
                passes += 1
                chosen = (deal.pass_choice != NO_CARD).sum(axis=1)
                assert chosen.tolist() == (state.pass_choice != NO_CARD).sum(axis=1).tolist()
                # Every card is in one hand or one pass choice, the Trump Card aside.
                placed = deal.hands.any(axis=0)
                placed[deal.pass_choice[deal.pass_choice != NO_CARD]] = True
                assert placed.sum() == 52 and not placed[deal.trump_card]
                moved += not np.array_equal(deal.hands, state.hands)
                continue
            checked += 1
            assert np.array_equal(deal.hands.any(axis=0), state.hands.any(axis=0))
            for kind, to in (
                (TO_PARTNER, partner(viewer)),
                (TO_ENEMY, pass_enemy(viewer, state.round)),
            ):
                unplayed = state.pass_record[viewer, kind] & state.hands[to]
                assert (deal.hands[to] >= unplayed).all()  # the cards it passed stay put
            void = voids(state)
            n_voids += int(void.sum())
            for other, suit in zip(*np.nonzero(void), strict=True):
                assert not (deal.hands[other] & (SUIT_OF == suit)).any()
            moved += not np.array_equal(deal.hands, state.hands)
    assert checked > 300 and n_voids > 50 and passes > 50  # both phases, the voids exercised
    assert moved > 0.7 * (checked + passes)  # and the hidden cards do move


def test_the_world_depends_only_on_the_seats_view():
    """Swap two hidden cards between the other seats where the seat's view allows it (in
    play, also forgetting the pass choices it never saw): the same generator state must give
    the same world, stream words included."""
    swapped = 0
    for state, seat in bot_positions(2, seed=9):
        a, b = (s for s in range(4) if s not in (seat, partner(seat)))  # the two enemies
        void = voids(state)
        passed = state.pass_record[seat, TO_PARTNER] | state.pass_record[seat, TO_ENEMY]
        ca = [c for c in np.flatnonzero(state.hands[a] & ~passed) if not void[b, SUIT_OF[c]]]
        cb = [c for c in np.flatnonzero(state.hands[b] & ~passed) if not void[a, SUIT_OF[c]]]
        if not ca or not cb:
            continue
        clear = (a, b) if state.phase == Phase.PLAY else ()
        other = swap_hidden(state, seat, (ca[0], cb[0]), clear_pass_of=clear)
        other.row[: engine.N_WORDS] = 12345  # another future: the later deals differ
        assert not np.array_equal(other.hands, state.hands)
        assert np.array_equal(CORE.observe(other, seat), CORE.observe(state, seat))
        one = world(state, seat, np.random.default_rng(swapped))
        two = world(other, seat, np.random.default_rng(swapped))
        assert np.array_equal(one.row, two.row)
        swapped += 1
    assert swapped > 20


def test_the_worlds_stream_comes_from_rng_not_from_the_game():
    state, seat = first_position(seed=4, tricks_done=2)
    one = world(state, seat, np.random.default_rng(5))
    two = world(state, seat, np.random.default_rng(6))
    again = world(state, seat, np.random.default_rng(5))
    words = slice(0, engine.N_WORDS)
    assert not np.array_equal(one.row[words], state.row[words])
    assert not np.array_equal(one.row[words], two.row[words])
    assert np.array_equal(one.row, again.row)


def test_the_world_keeps_only_the_pass_choices_the_seat_knows():
    state, seat = first_position(seed=4, tricks_done=2)
    deal = sample_deal(state, seat, np.random.default_rng(1))
    record = deal.pass_record
    enemy = pass_enemy(seat, state.round)
    giver = next(s for s in range(4) if s != seat and pass_enemy(s, state.round) == seat)
    assert np.array_equal(record[partner(seat), FROM_PARTNER], state.pass_record[seat, TO_PARTNER])
    assert np.array_equal(record[enemy, FROM_ENEMY], state.pass_record[seat, TO_ENEMY])
    assert np.array_equal(record[partner(seat), TO_PARTNER], state.pass_record[seat, FROM_PARTNER])
    assert np.array_equal(record[giver, TO_ENEMY], state.pass_record[seat, FROM_ENEMY])
    assert record.sum() == 4 * 3  # the seat's own 3 + 3 and their 6 mirror entries
    assert state.pass_record.sum() == 4 * 6  # the true game is untouched


def test_a_pass_world_has_the_earlier_seats_choices_drawn():
    state = CORE.new_game(CORE.make_config(), np.random.default_rng(0), {})
    for card in np.flatnonzero(state.hands[0])[:3]:  # seat 0 chooses, seat 1 is to choose
        CORE.apply(state, int(card), None)
    deal = world(state, 1, np.random.default_rng(2))
    assert deal.phase == Phase.PASS and deal.to_act == 1
    assert (deal.pass_choice[0] != NO_CARD).all() and (deal.pass_choice[1:] == NO_CARD).all()
    assert deal.hands.sum(axis=1).tolist() == [10, 13, 13, 13]
    assert not np.array_equal(deal.pass_choice[0], state.pass_choice[0])


def test_the_game_goes_on_from_a_world():
    rng = np.random.default_rng(2)
    bot = load_policy("heuristic", "lost_ranks", seed=0, keywords={})
    state, seat = first_position(seed=5, tricks_done=5)
    deal = sample_deal(state, seat, rng)
    epoch = deal.epoch
    while deal.epoch == epoch and not any(CORE.status(deal)[:2]):
        mover = CORE.seat_to_act(deal)
        mask = CORE.legal_mask(deal)
        assert mask.any()
        CORE.apply(deal, bot.act(CORE.observe(deal, mover), mask), rng)
    assert deal.epoch == epoch + 1 or CORE.status(deal)[0]


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_rewound_round_replays_to_the_same_row(variant):
    """rewind_to_play, then the round's plays in order (``plays``), gives the row back, at
    every play position of bot games; from a world, the seat's hand and what it has seen."""
    rng = np.random.default_rng(5)
    checked = 0
    for state, seat in bot_positions(2, seed=11, variant=variant):
        if state.phase != Phase.PLAY:
            continue
        row = state.row
        out = np.zeros_like(row)
        search.rewind_to_play(row, out)
        assert out[STATE.to_act.start] == out[STATE.leader.start]
        assert out[STATE.first_lead.start] != NO_CARD
        assert (out[STATE.holder.slice] >= 0).sum() == 52
        for card in row[STATE.plays.slice]:
            if card == NO_CARD:
                break
            engine.apply(out, int(card))
        assert np.array_equal(out, row)
        deal = search.sample_world(row, state.config, seat, rng)
        search.rewind_to_play(deal, out)
        for rel in range(4):  # the world's hands at the start of play hold 13 cards each
            assert (out[STATE.holder.slice] == rel).sum() == 13
        checked += 1
    assert checked > 50


def test_bad_observations_are_refused():
    state, seat = first_position(seed=4, tricks_done=1)
    obs = CORE.observe(state, seat)
    with pytest.raises(ValueError, match="army"):
        search.sample_from_observation(obs, state.config, (seat + 1) % 4, np.random.default_rng())
    with pytest.raises(ValueError, match="entries"):
        search.sample_from_observation(obs[:10], state.config, seat, np.random.default_rng())
    with pytest.raises(ValueError, match="Generator"):
        search.sample_from_observation(obs, state.config, seat, 3)
    fresh = CORE.new_game(CORE.make_config(), np.random.default_rng(0), {})
    with pytest.raises(ValueError, match="to_act"):
        search.sample_from_observation(
            CORE.observe(fresh, 2), fresh.config, 2, np.random.default_rng()
        )
    assert sample_deal(fresh, 0, np.random.default_rng(0)) is None  # rollout's gate: play only


# ---------------------------------------------------------------------------------------------
# The solver

_PHASE, _EPOCH = STATE.phase.start, STATE.epoch.start


def _total(row) -> int:
    """Red's points minus Black's, the current round's included."""
    scores, points = row[STATE.scores.slice], row[STATE.round_points.slice]
    return int(scores[0] + points[0] - scores[1] - points[1])


def _minimax(row, epoch) -> int:
    """Red-minus-Black at the round's end under optimal play, by plain enumeration over the
    engine's own moves (no pruning, no table, no equivalent cards)."""
    if row[_PHASE] != Phase.PLAY or row[_EPOCH] != epoch:
        return _total(row)
    mask = np.zeros(engine.N_ACTIONS, np.int8)
    engine.legal_mask(row, mask)
    values = []
    for action in np.flatnonzero(mask):
        child = row.copy()
        engine.apply(child, int(action))
        values.append(_minimax(child, epoch))
    return max(values) if engine.to_act(row) % 2 == 0 else min(values)


def endings(variant: str, tricks_left: int, n: int, seed: int):
    """``n`` random play positions with ``tricks_left`` tricks (or fewer) to go in which a
    scoring card is still out, each as a row."""
    rng = np.random.default_rng(seed)
    config = CORE.make_config(variant=variant)
    found = 0
    while found < n:
        state = CORE.new_game(config, rng, {"start": "play"})
        stop = (13 - tricks_left) * 4 + int(rng.integers(0, 4))
        for _ in range(stop):
            CORE.apply(state, int(rng.choice(np.flatnonzero(CORE.legal_mask(state)))))
        hands, trick, st, ctx = search.position(state.row)
        red, black = search._bounds(hands, trick, st[0], st[1], ctx)
        if red or black:
            found += 1
            yield state.row.copy()


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_solver_agrees_with_plain_minimax(variant):
    for row in endings(variant, 3, 12, seed=VARIANTS.index(variant)):
        values = search.solve(row, CORE.make_config(variant=variant))
        sign = 1 if engine.to_act(row) % 2 == 0 else -1
        base = int(row[STATE.scores.start] - row[STATE.scores.start + 1])
        for action, value in values.items():
            child = row.copy()
            engine.apply(child, action)
            assert value == sign * (_minimax(child, row[_EPOCH]) - base), (action, values)


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_positions_value_is_its_best_childs(variant):
    config = CORE.make_config(variant=variant)
    checked = 0
    for row in endings(variant, 6, 10, seed=10 + VARIANTS.index(variant)):
        values = search.solve(row, config)
        best = max(values.values())
        action = max(values, key=values.get)
        army = engine.to_act(row) % 2
        child = row.copy()
        engine.apply(child, action)
        if child[_PHASE] != Phase.PLAY or child[_EPOCH] != row[_EPOCH]:
            sign = 1 if army == 0 else -1
            base = int(row[STATE.scores.start] - row[STATE.scores.start + 1])
            assert best == sign * (_total(child) - base)
            continue
        after = max(search.solve(child, config).values())
        assert best == (after if engine.to_act(child) % 2 == army else -after)
        checked += 1
    assert checked >= 5


def _estimate(row, weight: int) -> int:
    """The horizon's guess of the rest of the round, written from the rules: ``weight`` for
    each Active Jack still in a hand, to its holder's army."""
    from feral_envs.lost_ranks.rules import JACKS

    holder = row[STATE.holder.slice]
    value = 0
    for jack in JACKS:
        if engine._is_active_jack(row, jack) and holder[jack] >= 0:
            value += weight if holder[jack] % 2 == 0 else -weight
    return value


def _minimax_to(row, epoch, stop: int, weight: int) -> int:
    """As :func:`_minimax`, but at a trick start with ``stop`` cards or fewer in the hands
    the rest of the round is the estimate."""
    if row[_PHASE] != Phase.PLAY or row[_EPOCH] != epoch:
        return _total(row)
    if row[STATE.n_in_trick.start] == 0 and (row[STATE.holder.slice] >= 0).sum() <= stop:
        return _total(row) + _estimate(row, weight)
    mask = np.zeros(engine.N_ACTIONS, np.int8)
    engine.legal_mask(row, mask)
    values = [_minimax_to(_child(row, a), epoch, stop, weight) for a in np.flatnonzero(mask)]
    return max(values) if engine.to_act(row) % 2 == 0 else min(values)


def _child(row, action):
    child = row.copy()
    engine.apply(child, int(action))
    return child


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize(
    ("tricks", "horizon", "weight"), [(5, 1, 1), (5, 2, 0), (5, 2, 1), (5, 2, 2), (3, 2, 1)]
)
def test_the_horizon_search_agrees_with_plain_minimax_to_the_horizon(
    variant, tricks, horizon, weight
):
    """From endings of ``tricks`` tricks or fewer, searching ``horizon`` tricks (the current
    one included) and guessing the rest: the same values as enumerating every move to that
    horizon (3-trick endings: a horizon one trick short of the round's end)."""
    differs = 0
    seed = 20 + VARIANTS.index(variant) + 3 * horizon + 7 * weight + tricks
    for row in endings(variant, tricks, 6, seed=seed):
        _, values = search.action_values(row, horizon=horizon, jack_weight=weight)
        _, exact = search.action_values(row)
        mask = np.zeros(engine.N_ACTIONS, np.int8)
        engine.legal_mask(row, mask)
        actions = np.flatnonzero(mask)
        held = (row[STATE.holder.slice] >= 0).sum() + row[STATE.n_in_trick.start]
        stop = held - 4 * horizon
        sign = 1 if engine.to_act(row) % 2 == 0 else -1
        base = int(row[STATE.scores.start] - row[STATE.scores.start + 1])
        for i, action in enumerate(actions):
            plain = _minimax_to(_child(row, action), row[_EPOCH], stop, weight)
            assert values[i] == sign * (plain - base), (action, values)
        differs += not np.array_equal(values, exact)
    assert differs > 0  # the horizon does cut the search short


def test_a_horizon_past_the_round_is_the_exact_solve():
    for row in endings("standard", 3, 4, seed=31):
        _, exact = search.action_values(row)
        _, deep = search.action_values(row, horizon=4, jack_weight=2)
        assert np.array_equal(exact, deep)
    row = next(endings("standard", 3, 1, seed=31))
    for bad, message in ((0, "horizon=0"), (1.5, "horizon=1.5")):
        with pytest.raises(ValueError, match=message):
            search.action_values(row, horizon=bad)
    with pytest.raises(ValueError, match="jack_weight=3"):
        search.action_values(row, horizon=1, jack_weight=3)


def ending(trump: str, hands: dict[str, str], leader: str, variant: str = "standard"):
    """A row in the play phase at its last tricks: ``hands`` by agent as card names (the same
    number each), ``leader`` to lead."""
    from feral_envs.lost_ranks.rules import AGENTS

    env = CORE.new_game(CORE.make_config(variant=variant), np.random.default_rng(0), {})
    row = env.row
    env_trump = DECK.card(trump)
    holder = row[STATE.holder.slice]
    holder[:] = -1
    sizes = set()
    for agent, cards in hands.items():
        sizes.add(len(cards.split()))
        for card in DECK.cards(cards.split()):
            holder[card] = AGENTS.index(agent)
    (size,) = sizes
    row[STATE.trump_card.start] = env_trump
    row[_PHASE] = Phase.PLAY
    row[STATE.tricks_done.start] = 13 - size
    row[STATE.first_lead.start] = NO_CARD
    row[STATE.leader.start] = row[STATE.to_act.start] = AGENTS.index(leader)
    return row, CORE.make_config(variant=variant)


def test_lead_low_so_the_partner_keeps_its_active_jack_for_the_ace():
    """Clubs trump (black: JS and JC Active). Leading the Ace first forces the partner to
    follow hearts and then drop JS on Black's diamond; leading 2D lets it drop 5H instead
    and rescue JS on the Ace: +2."""
    row, config = ending(
        "2C",
        {"red_0": "AH 2D", "black_0": "KH 3D", "red_1": "JS 5H", "black_1": "QH 4D"},
        "red_0",
    )
    assert search.solve(row, config) == {DECK.card("AH"): 0, DECK.card("2D"): 2}


@pytest.mark.parametrize(
    ("variant", "value"), [("standard", 2), ("master_of_spies", 0), ("turncoat", 1)]
)
def test_the_last_trick_scores_the_spy_by_variant(variant, value):
    """Clubs trump (black). Red's Ace takes Black's JC (captured: 0) and Black's Spy: +2,
    nothing under Master of Spies (the Spy scores only for the trump colour), +1 Turncoat."""
    row, config = ending(
        "2C", {"red_0": "AH", "black_0": "JC", "red_1": "2H", "black_1": "SPY"}, "red_0", variant
    )
    assert search.solve(row, config) == {DECK.card("AH"): value}
    row[STATE.round_points.start + 1] = 4  # Black already has 4 this round: Red is 4 behind
    assert search.solve(row, config) == {DECK.card("AH"): value - 4}


def test_solve_refuses_the_pass_and_works_through_the_env():
    import feral_envs

    state = CORE.new_game(CORE.make_config(), np.random.default_rng(0), {})
    with pytest.raises(ValueError, match="play phase"):
        search.solve(state.row, state.config)
    env = feral_envs.make("lost_ranks").unwrapped
    env.reset(seed=3, options={"start": "play"})
    with_env = None
    for _ in range(30):  # into the round, where a solve is quick
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    with_env = env.solve()
    assert with_env == search.solve(env.game.row, env.config)
    assert set(with_env) == set(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))


def _plain_python_results() -> dict:
    """Worlds and solves that a plain-Python run must reproduce exactly."""
    out = {"worlds": [], "solves": []}
    for state, seat in bot_positions(1, seed=21):
        if state.tricks_done in (0, 8) and state.n_in_trick in (0, 2):
            out["worlds"].append(world(state, seat, np.random.default_rng(7)).row.tolist())
    for row in endings("turncoat", 2, 3, seed=4):
        out["solves"].append(sorted(search.solve(row, CORE.make_config("turncoat")).items()))
    state = CORE.new_game(CORE.make_config(), np.random.default_rng(0), {})
    out["worlds"].append(world(state, 2, np.random.default_rng(8)).row.tolist())
    return out


def plain_python_check() -> None:
    """Run in a subprocess with NUMBA_DISABLE_JIT=1: print the results as JSON."""
    import json

    import numba

    assert numba.config.DISABLE_JIT
    assert type(search._search).__name__ == "function", "the kernels must be plain Python"
    print(json.dumps(_plain_python_results()))


def test_the_search_runs_as_plain_python():
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    paths = [root, root / "tests", root / "tests" / "lost_ranks"]
    env = {
        **os.environ,
        "NUMBA_DISABLE_JIT": "1",
        "PYTHONPATH": os.pathsep.join(str(p) for p in paths),
    }
    code = "import test_lost_ranks_search as t; t.plain_python_check()"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout + done.stderr
    plain = json.loads(done.stdout.strip().splitlines()[-1])
    compiled = json.loads(json.dumps(_plain_python_results()))
    assert len(plain["worlds"]) >= 3 and plain == compiled
