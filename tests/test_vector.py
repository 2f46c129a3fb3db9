"""The batched API (``feral_envs.vector``): its contract, for every game on the engine."""

from __future__ import annotations

import importlib

import numba
import numpy as np
import pytest

import feral_envs
import feral_envs.vector

CASES = [
    pytest.param("lost_heir", {"max_hands": 2}, id="lost_heir"),
    pytest.param("lost_heir", {"max_hands": 3, "reward": "points"}, id="lost_heir-points"),
    pytest.param("lost_ranks", {}, id="lost_ranks"),
    pytest.param("lost_ranks", {"reward": "points", "variant": "turncoat"}, id="lost_ranks-points"),
    pytest.param("hidden_ranks", {"mode": "quick", "setup": "random"}, id="hidden_ranks-quick"),
    pytest.param("hidden_ranks", {"mode": "quick", "setup": "choose"}, id="hidden_ranks-choose"),
]


def _has_engine(game: str) -> bool:
    try:
        importlib.import_module(f"feral_envs.{game}.engine")
    except ModuleNotFoundError:
        return False
    return True


def _cases():
    return [
        pytest.param(
            *case.values,
            id=case.id,
            marks=[] if _has_engine(case.values[0]) else pytest.mark.skip("no engine yet"),
        )
        for case in CASES
    ]


def play(venv, steps: int) -> list:
    """``steps`` batched random steps; the batches seen, copied."""
    batches = [venv.reset()]
    for _ in range(steps):
        batches.append(venv.step(venv.random_actions()))
    return batches


def same(a, b) -> bool:
    return all(
        np.array_equal(getattr(a, f), getattr(b, f))
        for f in (
            "observation",
            "action_mask",
            "current_seat",
            "rewards",
            "terminated",
            "truncated",
        )
    )


@pytest.mark.parametrize(("game", "keywords"), _cases())
def test_a_game_does_not_depend_on_the_batch_or_the_threads(game, keywords):
    small = feral_envs.vector.make(game, num_envs=3, seed=10, **keywords)
    big = feral_envs.vector.make(game, num_envs=8, seed=10, **keywords)
    shifted = feral_envs.vector.make(game, num_envs=2, seed=11, **keywords)
    small.reset(), big.reset(), shifted.reset()
    threads = numba.get_num_threads()
    try:
        for step in range(300):
            numba.set_num_threads(1 if step % 2 else threads)
            actions = big.random_actions()
            b = big.step(actions)
            s = small.step(actions[:3])
            h = shifted.step(actions[1:3])
            for field in ("observation", "action_mask", "current_seat", "rewards"):
                assert np.array_equal(getattr(b, field)[:3], getattr(s, field)), (step, field)
                assert np.array_equal(getattr(b, field)[1:3], getattr(h, field)), (step, field)
    finally:
        numba.set_num_threads(threads)
    assert np.array_equal(big.rows[:3], small.rows)


@pytest.mark.parametrize(("game", "keywords"), _cases())
def test_the_threaded_and_the_single_thread_kernels_play_the_same_games(game, keywords):
    """Each batch kernel is compiled on threads and on one thread (``feral_envs.engine.batch``),
    chosen by the batch's size: both variants, forced in turns, give the same batches."""
    from feral_envs.engine.batch import BatchKernel, forced

    engine = importlib.import_module(f"feral_envs.{game}.engine")
    kernels = [k for k in vars(engine).values() if isinstance(k, BatchKernel)]
    assert {k.__name__ for k in kernels} >= {"step_batch", "reset_batch", "random_batch"}
    threaded = feral_envs.vector.make(game, num_envs=24, seed=5, **keywords)
    alone = feral_envs.vector.make(game, num_envs=24, seed=5, **keywords)
    with forced("parallel"):
        a = threaded.reset()
    with forced("serial"):
        b = alone.reset()
    assert same(a, b)
    for step in range(400):
        with forced("parallel"):
            a = threaded.step(threaded.random_actions())
            seen = threaded.observe(step % threaded.n_seats)
        with forced("serial"):
            b = alone.step(alone.random_actions())
            assert np.array_equal(seen, alone.observe(step % alone.n_seats)), step
        assert same(a, b), step
    assert np.array_equal(threaded.rows, alone.rows)
    actions = threaded.random_actions()
    running = np.flatnonzero(~(a.terminated | a.truncated))
    bad = int(running[-1])
    actions[bad] = int(np.flatnonzero(a.action_mask[bad] == 0)[0])  # illegal there
    for venv, variant in ((threaded, "parallel"), (alone, "serial")):
        before = venv.get_state()
        with forced(variant), pytest.raises(ValueError, match=f"game {bad}: illegal action"):
            venv.step(actions)
        assert all(np.array_equal(before[k], v) for k, v in venv.get_state().items())
    with pytest.raises(ValueError, match="'parallel' or 'serial'"):
        with forced("threads"):
            pass


def test_the_docs_give_each_engines_figure_for_threads():
    from pathlib import Path

    from feral_envs.hidden_ranks import engine as hidden_ranks
    from feral_envs.lost_heir import engine as lost_heir
    from feral_envs.lost_ranks import engine as lost_ranks

    assert lost_heir.PARALLEL_FROM == lost_ranks.PARALLEL_FROM
    text = " ".join((Path(__file__).parent.parent / "docs" / "vector.md").read_text().split())
    assert (
        f"(Lost Heir and Lost Ranks {lost_heir.PARALLEL_FROM:,}, Hidden Ranks "
        f"{hidden_ranks.PARALLEL_FROM:,})" in text
    )
    assert lost_heir.step_batch.min_parallel == lost_heir.PARALLEL_FROM


def test_a_batch_kernel_runs_on_threads_from_its_figure_on():
    from feral_envs.lost_heir import engine

    kernel = engine.step_batch
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)  # every thread numba has
        parallel = numba.get_num_threads() > 1
        assert kernel.choose(kernel.min_parallel - 1) is kernel.serial
        assert kernel.choose(kernel.min_parallel) is (
            kernel.parallel if parallel else kernel.serial
        )
        numba.set_num_threads(1)
        assert kernel.choose(kernel.min_parallel) is kernel.serial
    finally:
        numba.set_num_threads(threads)


@pytest.mark.parametrize(("game", "keywords"), _cases())
def test_finished_games_restart_at_the_next_step_with_their_action_ignored(game, keywords):
    venv = feral_envs.vector.make(game, num_envs=16, seed=3, **keywords)
    batch = venv.reset()
    ended = 0
    for _ in range(20_000):
        actions = venv.random_actions()
        was_over = batch.terminated | batch.truncated
        assert not batch.action_mask[was_over].any(), "a finished game has no legal action"
        assert (actions[was_over] == 0).all()
        before = venv.get_state()
        batch = venv.step(np.where(was_over, 12345, actions))  # any action of a finished game
        if was_over.any():
            ended += int(was_over.sum())
            # a finished game restarted: rewards 0, a fresh first decision
            assert not batch.rewards[was_over].any()
            assert not (batch.terminated | batch.truncated)[was_over].any()
            assert batch.action_mask[was_over].any(axis=1).all()
            replay = venv.clone()
            replay.set_state(before)
            again = replay.step(np.where(was_over, 0, actions))
            assert same(batch, again), "the action of a finished game is ignored"
        over = batch.terminated | batch.truncated
        if over.any():
            if keywords.get("reward", "win") == "win":
                assert set(np.unique(np.abs(batch.rewards[batch.terminated]))) <= {0.0, 1.0}
        if ended >= 20:
            break
    assert ended >= 20, "games must end and restart"


@pytest.mark.parametrize(("game", "keywords"), _cases())
def test_clone_and_state_replay_the_same_future(game, keywords):
    venv = feral_envs.vector.make(game, num_envs=5, seed=1, **keywords)
    play(venv, 40)
    copy = venv.clone()
    saved = venv.get_state()
    first = [venv.step(venv.random_actions()) for _ in range(60)]
    second = [copy.step(copy.random_actions()) for _ in range(60)]
    assert all(same(a, b) for a, b in zip(first, second, strict=True))
    venv.set_state(saved)
    third = [venv.step(venv.random_actions()) for _ in range(60)]
    assert all(same(a, b) for a, b in zip(first, third, strict=True))
    with pytest.raises(ValueError, match="shape"):
        venv.set_state({"rows": saved["rows"][:2], "action_rows": saved["action_rows"]})


@pytest.mark.parametrize(("game", "keywords"), _cases())
def test_bad_actions_name_the_game_and_change_nothing(game, keywords):
    venv = feral_envs.vector.make(game, num_envs=4, seed=2, **keywords)
    batch = venv.reset()
    saved = venv.get_state()
    with pytest.raises(ValueError, match=r"shape \(4,\)"):
        venv.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="integers"):
        venv.step(np.zeros(4, dtype=np.float32))
    actions = venv.random_actions()
    illegal = int(np.flatnonzero(batch.action_mask[2] == 0)[0])
    actions[2] = illegal
    with pytest.raises(ValueError, match=rf"game 2: illegal action {illegal} \(") as err:
        venv.step(actions)
    legal = venv.legal_actions(2)
    assert f"{legal[0]} ({venv.action_name(2, legal[0])})" in str(err.value)
    actions[2] = venv.n_actions + 7
    with pytest.raises(ValueError, match=r"game 2: illegal action .* \(out of range"):
        venv.step(actions)
    after = venv.get_state()
    assert np.array_equal(saved["rows"], after["rows"]), "no game changed"
    venv.step(venv.random_actions())  # still usable


@pytest.mark.parametrize(("game", "keywords"), _cases())
def test_bad_keywords_and_options_are_value_errors(game, keywords):
    with pytest.raises(ValueError, match="unknown keyword"):
        feral_envs.vector.make(game, num_envs=2, bogus=1)
    with pytest.raises(ValueError, match="num_envs"):
        feral_envs.vector.make(game, num_envs=0)
    with pytest.raises(ValueError, match="obs_dtype"):
        feral_envs.vector.make(game, num_envs=2, obs_dtype="float16")
    with pytest.raises(ValueError, match="unknown game"):
        feral_envs.vector.make("chess", num_envs=2)
    venv = feral_envs.vector.make(game, num_envs=2, seed=0, **keywords)
    venv.reset()
    saved = venv.get_state()
    with pytest.raises(ValueError, match="options"):
        venv.reset(options=[{}, {}, {}])
    assert np.array_equal(saved["rows"], venv.rows)


@pytest.mark.parametrize(("game", "keywords"), _cases())
def test_compact_observations_equal_the_float_ones(game, keywords):
    engine = feral_envs.vector.engine_module(game)
    for dtype in getattr(engine, "COMPACT_DTYPES", ()):
        wide = feral_envs.vector.make(game, num_envs=6, seed=4, **keywords)
        compact = feral_envs.vector.make(game, num_envs=6, seed=4, obs_dtype=dtype, **keywords)
        wide.reset(), compact.reset()
        for _ in range(200):
            actions = wide.random_actions()
            a, b = wide.step(actions), compact.step(actions)
            assert b.observation.dtype == np.dtype(dtype)
            # the same values, but where the engine recodes an entry for the compact dtype
            same = ~np.broadcast_to(engine.COMPACT_RECODED, a.observation.shape)
            assert np.array_equal(a.observation[same], b.observation[same].astype(np.float32))


@pytest.mark.parametrize(("game", "keywords"), _cases())
def test_slot_i_plays_the_aec_game_of_seed_s_plus_i(game, keywords):
    if (
        feral_envs.vector.engine_module(game)
        is not importlib.import_module(f"feral_envs.{game}").CORE.engine
    ):
        pytest.skip("the AEC env of this game is not on the engine yet")
    seed, n = 40, 3
    venv = feral_envs.vector.make(game, num_envs=n, seed=seed, **keywords)
    envs = [feral_envs.make(game, **keywords) for _ in range(n)]
    for i, env in enumerate(envs):
        env.reset(seed=seed + i)
    batch = venv.reset()
    assert venv.scores().tolist() == [list(env.unwrapped.scores.values()) for env in envs]
    live = [True] * n
    steps = 0
    while any(live):
        actions = venv.random_actions()
        for i, env in enumerate(envs):
            if not live[i]:
                continue
            agent = env.agent_selection
            assert env.possible_agents[batch.current_seat[i]] == agent
            for seat, other in enumerate(env.possible_agents):
                assert np.array_equal(venv.observe(seat)[i], env.observe(other)["observation"]), (
                    i,
                    steps,
                    other,
                )
            assert np.array_equal(batch.action_mask[i], env.observe(agent)["action_mask"])
        batch = venv.step(actions)
        steps += 1
        for i, env in enumerate(envs):
            if not live[i]:
                continue
            env.step(int(actions[i]))
            expected = [env.rewards[a] for a in env.possible_agents]
            assert np.array_equal(batch.rewards[i], np.float32(expected)), (i, steps)
            done = any(env.terminations.values()) or any(env.truncations.values())
            assert bool(batch.terminated[i] or batch.truncated[i]) == done
            assert venv.scores()[i].tolist() == list(env.unwrapped.scores.values())
            live[i] = not done
    assert steps > 50


def test_a_sequence_of_seeds_gives_each_slot_its_own():
    venv = feral_envs.vector.make("lost_heir", num_envs=3)
    a = venv.reset(seed=[7, 3, 9])
    lone = feral_envs.vector.make("lost_heir", num_envs=1)
    for i, s in enumerate((7, 3, 9)):
        b = lone.reset(seed=s)
        assert np.array_equal(a.observation[i], b.observation[0])
    with pytest.raises(ValueError, match="3 such integers"):
        venv.reset(seed=[1, 2])
    with pytest.raises(ValueError, match="3 such integers"):
        venv.reset(seed=[1, -2, 3])


CARD_GAMES = [
    pytest.param("lost_heir", 8, {"max_hands": 1}, {}, id="lost_heir"),
    pytest.param("lost_ranks", 13, {}, {"start": "play"}, id="lost_ranks"),
]


def _shown_by_the_rules(game: str, deck, order) -> set[str]:
    """Cards whose holder the rules show to all: in Lost Ranks the lowest trump Infantry,
    whose holder leads the first trick (the Trump Card is the card left out of the hands)."""
    if game != "lost_ranks":
        return set()
    from feral_envs.lost_ranks.rules import JACKS

    trump = int(order[-1])
    suit = deck.suit_of[trump]
    lowest = next(c for c in range(13 * suit, 13 * suit + 13) if c not in JACKS and c != trump)
    return {deck.names[lowest]}


@pytest.mark.parametrize(("game", "hand_size", "keywords", "extra"), CARD_GAMES)
def test_no_hidden_information_through_the_batched_api(game, hand_size, keywords, extra):
    """Pairs of deals that differ only in cards one seat cannot see, side by side in one
    batch, give that seat the same observations along the same actions until a swapped card
    is played: slot 2k and 2k + 1 are one pair."""
    core = importlib.import_module(f"feral_envs.{game}").CORE
    agents = core.agents
    deck = importlib.import_module(f"feral_envs.{game}.encoding").DECK
    rng = np.random.default_rng(5)
    pairs, options, swapped, observers = 12, [], [], []
    for k in range(pairs):
        observer = k % 4
        while True:
            order = rng.permutation(deck.n)
            if game != "lost_ranks" or deck.names[order[-1]] not in ("SPY", "JS", "JH", "JD", "JC"):
                break
        hands = {
            a: [deck.names[c] for c in order[hand_size * i : hand_size * (i + 1)]]
            for i, a in enumerate(agents)
        }
        shown = _shown_by_the_rules(game, deck, order)
        while True:
            other = {a: list(h) for a, h in hands.items()}
            hidden = [s for s in range(4) if s != observer]
            a, b = (agents[s] for s in rng.choice(hidden, 2, replace=False))
            i, j = rng.integers(hand_size), rng.integers(hand_size)
            other[a][i], other[b][j] = other[b][j], other[a][i]
            if not {other[a][i], other[b][j]} & shown:
                break
        swapped.append({deck.card(other[a][i]), deck.card(other[b][j])})
        for deal in (hands, other):
            options.append({"hands": deal, **extra})
        observers.append(observer)
    venv = feral_envs.vector.make(game, num_envs=2 * pairs, **keywords)
    batch = venv.reset(seed=[7 + k // 2 for k in range(2 * pairs)], options=options)
    live = [True] * pairs
    compared = 0
    card_base = venv.n_actions - deck.n
    for _ in range(200):
        for k in range(pairs):
            if not live[k]:
                continue
            seen = venv.observe(observers[k])
            assert np.array_equal(seen[2 * k], seen[2 * k + 1]), f"pair {k}: the deals differ"
            compared += 1
        actions = np.zeros(2 * pairs, dtype=np.int64)
        for k in range(pairs):
            both = np.flatnonzero(batch.action_mask[2 * k] & batch.action_mask[2 * k + 1])
            if not live[k] or len(both) == 0:
                live[k] = False
                actions[2 * k] = venv.legal_actions(2 * k)[0] if venv.legal_actions(2 * k) else 0
                actions[2 * k + 1] = (
                    venv.legal_actions(2 * k + 1)[0] if venv.legal_actions(2 * k + 1) else 0
                )
                continue
            action = int(rng.choice(both))
            actions[2 * k] = actions[2 * k + 1] = action
            if action - card_base in swapped[k]:
                live[k] = False  # from here the deals may show
        batch = venv.step(actions)
        for k in range(pairs):
            if batch.terminated[2 * k] or batch.truncated[2 * k]:
                live[k] = False
        if not any(live):
            break
    assert compared > 100
