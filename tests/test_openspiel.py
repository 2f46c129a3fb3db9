"""Our games as OpenSpiel games (``feral_envs.openspiel``): registration, conformance
(``pyspiel.random_sim_test``), the tensors against the env's observations, chance, returns,
clone and serialize, resampling. Skipped where open_spiel is not installed."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import feral_envs  # noqa: E402
import feral_envs.openspiel as fos  # noqa: E402
from feral_envs.hidden_ranks import engine as hr_engine  # noqa: E402
from feral_envs.hidden_ranks.rules import (  # noqa: E402
    AGENTS as HR_AGENTS,
)
from feral_envs.hidden_ranks.rules import (  # noqa: E402
    RANK_NAMES,
    SETUP_ORDER,
    SQUARE_NAMES,
    ego_square,
)
from feral_envs.lost_heir.encoding import DECK as HEIR_DECK  # noqa: E402
from feral_envs.lost_heir.encoding import OBS as HEIR_OBS  # noqa: E402
from feral_envs.lost_ranks.encoding import OBS as RANKS_OBS  # noqa: E402
from feral_envs.lost_ranks.rules import DECK as RANKS_DECK  # noqa: E402
from feral_envs.openspiel.hidden_ranks import FRONT, valid_completions  # noqa: E402

SMALL = {
    "lost_heir": {"single_hand": True},
    "lost_ranks": {"single_round": True},
    "hidden_ranks": {"mode": "quick", "setup": "random", "max_moves": 200},
}
"""Short games of each, for the default tests."""
UNIFORM = pyspiel.UniformProbabilitySampler(0.0, 1.0)

CONFIGS = [
    ("lost_heir", {"single_hand": True}),
    ("lost_heir", {"target_score": 10, "take_a_lead": "after_second_trick"}),
    ("lost_heir", {"single_hand": True, "reward": "points"}),
    ("lost_ranks", {"single_round": True, "variant": "turncoat"}),
    ("lost_ranks", {"reward": "points", "single_round": True}),
    ("hidden_ranks", {"mode": "quick", "setup": "random", "max_moves": 200}),
    ("hidden_ranks", {"mode": "quick", "setup": "choose", "max_moves": 200}),
]


def load(game: str, params: dict):
    return pyspiel.load_game(fos.SHORT_NAMES[game], params)


def random_step(state, rng) -> None:
    if state.is_chance_node():
        actions, probs = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(int(rng.choice(actions, p=probs)))
    else:
        legal = state.legal_actions()
        state.apply_action(int(legal[rng.integers(len(legal))]))


def past_chance(state, rng):
    while state.is_chance_node():
        random_step(state, rng)
    return state


# --- registration and loading ---------------------------------------------------------


@pytest.mark.parametrize("game", list(fos.GAMES))
def test_registered_and_loaded_with_env_keywords(game):
    name = fos.SHORT_NAMES[game]
    assert name == f"python_{game}"
    assert name in pyspiel.registered_names()
    core = fos.GAMES[game].core
    loaded = pyspiel.load_game(name)
    assert loaded.num_players() == core.n_seats
    assert loaded.num_distinct_actions() == core.n_actions
    assert loaded.observation_tensor_size() == int(np.prod(core.obs_shape))
    assert loaded.information_state_tensor_size() == int(np.prod(core.obs_shape))
    kind = loaded.get_type()
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert set(core.keyword_defaults) <= set(loaded.get_parameters())


def test_parameters_reach_the_engine():
    game = load(
        "lost_heir", {"target_score": 12, "max_hands": 3, "take_a_lead": "after_second_trick"}
    )
    state = past_chance(game.new_initial_state(), np.random.default_rng(0))
    engine = fos.GAMES["lost_heir"].core.engine
    assert state.row[engine.TARGET_SCORE] == 12
    assert state.row[engine.MAX_HANDS] == 3
    assert state.row[engine.TAKE_A_LEAD_RULE] == 1
    assert game.max_game_length() > 3 * 64
    assert load("lost_ranks", {"variant": "master_of_spies"}).get_parameters()["variant"] == (
        "master_of_spies"
    )
    quick = load("hidden_ranks", {"mode": "quick", "max_moves": 50})
    assert quick.max_game_length() == 2 * 8 + 50


@pytest.mark.parametrize(
    ("game", "params", "match"),
    [
        ("lost_heir", {"take_a_lead": "never"}, "take_a_lead"),
        ("lost_heir", {"reward": "elo"}, "reward"),
        ("lost_ranks", {"variant": "bogus"}, "variant"),
        ("hidden_ranks", {"mode": "tiny"}, "mode"),
        ("hidden_ranks", {"single_hand": True}, "single_hand"),
    ],
)
def test_bad_parameters_are_refused(game, params, match):
    with pytest.raises((ValueError, pyspiel.SpielError), match=match):
        load(game, params)


# --- conformance ------------------------------------------------------------------------


@pytest.mark.parametrize(("game", "params"), CONFIGS, ids=lambda x: str(x))
def test_random_sim_test(game, params):
    pyspiel.random_sim_test(load(game, params), num_sims=2, serialize=True, verbose=False)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("game", "params"),
    [
        ("lost_heir", {}),
        ("lost_heir", {"single_hand": True}),
        ("lost_ranks", {}),
        ("lost_ranks", {"variant": "master_of_spies"}),
        ("hidden_ranks", {"mode": "quick", "setup": "random"}),
        ("hidden_ranks", {"mode": "full", "setup": "random", "max_moves": 400}),
        ("hidden_ranks", {"mode": "full", "max_moves": 400}),
    ],
    ids=lambda x: str(x),
)
def test_random_sim_test_many(game, params):
    pyspiel.random_sim_test(load(game, params), num_sims=20, serialize=True, verbose=False)


# --- the tensors are our observations ---------------------------------------------------


def env_twin(game: str, params: dict, state):
    """The env started from the chance outcomes of ``state``'s first chance phase (its
    history), and the player actions that follow them."""
    keywords = {k: v for k, v in params.items() if k not in ("single_hand", "single_round")}
    env = feral_envs.make(game, **keywords).unwrapped
    history = state.history()
    agents = env.possible_agents
    if game == "lost_heir":
        cards = history[1:33]
        hands = {
            a: [HEIR_DECK.names[c] for c in cards[8 * s : 8 * s + 8]] for s, a in enumerate(agents)
        }
        env.reset(seed=1, options={"dealer": agents[history[0]], "hands": hands})
        return env, history[33:]
    if game == "lost_ranks":
        cards = history[1:53]
        hands = {
            a: [RANKS_DECK.names[c] for c in cards[13 * s : 13 * s + 13]]
            for s, a in enumerate(agents)
        }
        env.reset(seed=1, options={"trump_card": RANKS_DECK.names[history[0]], "hands": hands})
        return env, history[53:]
    if params.get("setup") == "random":
        order = SETUP_ORDER[params["mode"]]
        n = len(order)
        setup = {
            agent: {
                SQUARE_NAMES[ego_square(seat, ego)]: RANK_NAMES[rank]
                for ego, rank in zip(history[seat * n : seat * n + n], order, strict=True)
            }
            for seat, agent in enumerate(HR_AGENTS)
        }
        env.reset(seed=1, options={"setup": setup})
        return env, history[2 * n :]
    env.reset(seed=1)
    return env, history


@pytest.mark.parametrize(("game", "params"), CONFIGS, ids=lambda x: str(x))
def test_tensors_equal_the_env_observations(game, params):
    """At every decision node of a random hand, round or game, each player's observation and
    information-state tensors are the env's observation of that seat after the same deal
    (or setup) and the same actions; the player to act and the legal actions agree too."""
    rng = np.random.default_rng(7)
    state = past_chance(load(game, params).new_initial_state(), rng)
    env, played = env_twin(game, params, state)
    assert not played
    checked = 0
    while not state.is_terminal() and not state.is_chance_node():
        agent = env.agent_selection
        assert state.current_player() == env.possible_agents.index(agent)
        assert state.legal_actions() == env.legal_actions()
        for seat, other in enumerate(env.possible_agents):
            ours = env.observe(other)["observation"].reshape(-1)
            assert np.array_equal(np.asarray(state.observation_tensor(seat)), ours)
            assert np.array_equal(np.asarray(state.information_state_tensor(seat)), ours)
        checked += 1
        action = int(rng.choice(state.legal_actions()))
        assert state.action_to_string(action) == env.action_to_string(action)
        state.apply_action(action)
        env.step(action)
    assert checked > 10


@pytest.mark.parametrize(
    ("game", "span", "hand_size"),
    [("lost_heir", HEIR_OBS.hand, 8), ("lost_ranks", RANKS_OBS.hand, 13)],
)
def test_later_deals_come_from_chance(game, span, hand_size):
    """A new hand or round is dealt by chance nodes, not by the row's stream: after the first
    one, the next deal's outcomes are exactly the hands the players then see."""
    rng = np.random.default_rng(3)
    state = past_chance(load(game, {}).new_initial_state(), rng)
    while not state.is_chance_node():
        assert not state.is_terminal()
        random_step(state, rng)
    obs = np.asarray(state.observation_tensor(0))
    assert not obs.any(), "nothing is shown while the cards are dealt"
    first = 1 if game == "lost_ranks" else 0  # the Trump Card comes first
    start = len(state.history())
    past_chance(state, rng)
    dealt = state.history()[start + first : start + first + 4 * hand_size]
    for seat in range(4):
        hand = np.flatnonzero(np.asarray(state.observation_tensor(seat))[span.slice])
        assert sorted(hand) == sorted(dealt[seat * hand_size : (seat + 1) * hand_size])


def test_hidden_ranks_choose_setup_is_the_players_decisions():
    game = load("hidden_ranks", {"mode": "quick"})
    state = game.new_initial_state()
    assert not state.is_chance_node()
    assert state.current_player() == 0
    for _ in range(8):  # gold's army, then silver's
        state.apply_action(state.legal_actions()[0])
    assert state.current_player() == 1
    silver = np.asarray(state.observation_tensor(1))
    state2 = game.new_initial_state()
    for _ in range(8):
        state2.apply_action(state2.legal_actions()[-1])
    assert np.array_equal(silver, np.asarray(state2.observation_tensor(1))), (
        "silver cannot see where gold placed its pieces"
    )
    assert state.information_state_string(1) == state2.information_state_string(1)
    assert state.information_state_string(0) != state2.information_state_string(0)


def test_full_random_setup_never_walls_the_army_in():
    """The one way a full army is walled in: Bombs or the Flag on the six open front
    squares. The engine refuses such a setup, and chance gives the placement that would
    complete it probability 0 (the others share the rest)."""
    order = SETUP_ORDER["full"]
    home = [e for e in range(40) if e not in FRONT]
    walled = dict(zip(FRONT, order[:6], strict=True))  # the Flag and five Bombs
    rest = [e for e in home if e not in walled]
    setup = {**walled, **dict(zip(rest, order[6:], strict=False))}
    gold = {SQUARE_NAMES[ego_square(0, e)]: RANK_NAMES[r] for e, r in setup.items()}
    row = np.zeros(hr_engine.ROW_SIZE, dtype=np.int32)
    row[0] = 1
    config = fos.GAMES["hidden_ranks"].core.make_config(mode="full", setup="random")
    with pytest.raises(ValueError):
        hr_engine.start(row, config, {"setup": {"gold": gold}})
    # Chance: the Flag and four Bombs on five front squares, a Bomb elsewhere; the last Bomb
    # may not take the sixth front square.
    game = load("hidden_ranks", {"mode": "full", "setup": "random"})
    state = game.new_initial_state()
    for ego in [*FRONT[:5], rest[0]]:
        state.apply_action(ego)
    outcomes = dict(state.chance_outcomes())
    assert FRONT[5] not in outcomes
    assert len(outcomes) == 40 - 6 - 1
    assert sum(outcomes.values()) == pytest.approx(1.0)
    assert valid_completions(order, [*FRONT[:5], rest[0], FRONT[5]]) == 0


# --- returns, strings, clone, serialize ---------------------------------------------------


@pytest.mark.parametrize("reward", ["win", "points"])
def test_single_hand_returns_are_its_score_changes(reward):
    rng = np.random.default_rng(11)
    for _ in range(3):
        state = load("lost_heir", {"single_hand": True, "reward": reward}).new_initial_state()
        while not state.is_terminal():
            random_step(state, rng)
        change = np.array(state.final_scores) - np.array(state.segment_scores)
        margin = change[0] - change[1]
        expected = np.sign(margin) if reward == "win" else margin
        assert state.returns() == [expected, -expected, expected, -expected]


def test_full_game_returns_are_the_env_win():
    rng = np.random.default_rng(5)
    state = load("lost_heir", {"target_score": 10}).new_initial_state()
    while not state.is_terminal():
        random_step(state, rng)
    winner = state.row[fos.GAMES["lost_heir"].core.engine.WINNER]
    returns = state.returns()
    assert sorted(returns) in ([-1, -1, 1, 1], [0, 0, 0, 0])
    if winner >= 0:
        assert returns[winner] == 1 and returns[winner + 2] == 1


@pytest.mark.parametrize("game", list(fos.GAMES))
def test_strings_clone_and_serialize(game):
    rng = np.random.default_rng(2)
    loaded = load(game, SMALL[game])
    state = past_chance(loaded.new_initial_state(), rng)
    for _ in range(5):
        random_step(state, rng)
    player = state.current_player()
    text = state.observation_string(player)
    assert "\n" in text and len(text) > 40
    assert state.information_state_string(player).startswith(text)
    assert state.action_to_string(player, state.legal_actions()[0])
    copy = state.clone()
    copy.apply_action(copy.legal_actions()[0])
    assert len(copy.history()) == len(state.history()) + 1
    assert state.current_player() == player
    _, restored = pyspiel.deserialize_game_and_state(
        pyspiel.serialize_game_and_state(loaded, state)
    )
    for seat in range(loaded.num_players()):
        assert restored.information_state_string(seat) == state.information_state_string(seat)
        assert restored.observation_tensor(seat) == state.observation_tensor(seat)


# --- resampling (waits on the games' search modules) --------------------------------------


def needs_search(game: str):
    core = fos.GAMES[game].core
    if core.search is None:
        pytest.skip(f"{game} has no search module yet (CORE.search is None): no sample_world")


@pytest.mark.parametrize("game", list(fos.GAMES))
def test_resample_without_a_search_module_says_so(game):
    if fos.GAMES[game].core.search is not None:
        pytest.skip(f"{game} has a search module")
    state = past_chance(load(game, SMALL[game]).new_initial_state(), np.random.default_rng(0))
    with pytest.raises(ValueError, match="offers no sample_world"):
        state.resample_from_infostate(
            state.current_player(), pyspiel.UniformProbabilitySampler(0.0, 1.0)
        )


@pytest.mark.parametrize("game", list(fos.GAMES))
def test_resample_from_infostate_keeps_the_players_view(game):
    needs_search(game)
    rng = np.random.default_rng(4)
    loaded = load(game, SMALL[game])
    for trial in range(5):
        state = past_chance(loaded.new_initial_state(), rng)
        for _ in range(int(rng.integers(0, 30))):
            random_step(state, rng)
            if state.is_terminal() or state.is_chance_node():
                break
        if state.is_terminal() or state.is_chance_node():
            continue
        player = state.current_player()
        sampled = state.resample_from_infostate(player, UNIFORM)
        assert sampled.information_state_string(player) == state.information_state_string(player)
        assert sampled.observation_tensor(player) == state.observation_tensor(player)
        assert sampled.legal_actions() == state.legal_actions()
        while not sampled.is_terminal():
            random_step(sampled, rng)
        assert trial >= 0


# --- the documented example -------------------------------------------------------------


def test_the_mccfr_example_runs():
    """``examples/openspiel_mccfr.py`` (docs/openspiel.md), briefly: OpenSpiel's
    outcome-sampling MCCFR on one Lost Heir hand, then its average policy in play."""
    import runpy
    from pathlib import Path

    example = runpy.run_path(str(Path(__file__).parents[1] / "examples" / "openspiel_mccfr.py"))
    out = example["run"](iterations=4, games=2, seed=1)
    # Each iteration walks one hand per player (4), visiting its decision nodes' infostates.
    assert out["infostates"] >= 4 * 4 * 8
    assert abs(out["mean_margin"]) <= 24


def test_only_the_players_own_view_is_offered():
    game = load("lost_heir", {"single_hand": True})
    public = pyspiel.IIGObservationType(
        public_info=True, perfect_recall=False, private_info=pyspiel.PrivateInfoType.NONE
    )
    with pytest.raises(ValueError, match="own view"):
        game.make_py_observer(public)
