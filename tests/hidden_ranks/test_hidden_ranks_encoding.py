"""Action ids and names, the observation planes, the docs tables, rendering, bad input."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from hr_helpers import ego_rc, move, position_env

from feral_envs import docgen, make
from feral_envs.hidden_ranks import CORE, rules
from feral_envs.hidden_ranks.encoding import ACTIONS, OBS, action_to_string, string_to_action
from feral_envs.hidden_ranks.render import render_ansi
from feral_envs.hidden_ranks_v0 import env as make_env
from feral_envs.hidden_ranks_v0 import raw_env


def at(obs: np.ndarray, agent: str, square: str, index: int) -> float:
    """Plane ``index`` of an observation at ``square``."""
    r, c = ego_rc(agent, square)
    return obs[r, c, index]


def test_sizes_match_the_documented_ones():
    assert CORE.n_actions == ACTIONS.size == 3640
    assert ACTIONS.place.start == 0 and ACTIONS.move.start == 40
    assert CORE.obs_shape == (10, 10, OBS.size) == (10, 10, 71)
    env = raw_env()
    assert env.action_space("silver").n == 3640
    assert env.observation_space("gold")["observation"].dtype == np.float32


def test_docs_tables_are_up_to_date():
    assert not [p for p in docgen.stale_pages(write=False) if "hidden_ranks" in p]


@pytest.mark.parametrize("seat", [0, 1])
def test_every_action_name_round_trips(seat):
    state = SimpleNamespace(to_move=seat)  # what names read: the seat whose frame is meant
    names = []
    for action in range(rules.N_ACTIONS):
        name = action_to_string(state, action)
        if "off the board" in name:
            continue
        names.append(name)
        assert string_to_action(state, name) == action
        assert string_to_action(state, name.upper()) == action
    assert len(set(names)) == len(names) == 40 + 20 * 10 * 9  # 20 lines, 90 ordered pairs each


def test_action_ids_in_each_players_frame():
    env = position_env(gold={"b2": "2", "a1": "F"}, silver={"i9": "2", "j10": "F"})
    # gold: b2 is ego square 11; b2-b7 is forward 5
    assert env.string_to_action("b2-b7") == 40 + 36 * 11 + 9 * 0 + 4
    assert env.string_to_action("b2-c2") == 40 + 36 * 11 + 9 * 1
    assert env.string_to_action("b2-a2") == 40 + 36 * 11 + 9 * 3
    move(env, "b2-b7")
    # silver: i9 is its ego square 11 as well; the same move is the same id
    assert env.string_to_action("i9-i4") == 40 + 36 * 11 + 9 * 0 + 4
    assert env.string_to_action("i9-h9") == 40 + 36 * 11 + 9 * 1  # silver's right
    assert env.action_to_string(40 + 36 * 11 + 9 * 2) == "i9-i10"  # silver's back


@pytest.mark.parametrize(
    "text", ["", "b2", "b2-b2", "b2-c3", "b2-b7-b8", "k2-k3", "b0-b1", "b2b3", "hello"]
)
def test_text_that_names_no_move(text):
    env = position_env(gold={"b2": "2", "a1": "F"}, silver={"i9": "2", "j10": "F"})
    with pytest.raises(ValueError, match="legal: "):
        env.string_to_action(text)
    assert CORE.string_to_action(env.game, text) is None or text == "b2"


def test_observation_planes_for_both_players():
    env = position_env(
        gold={"a1": "F", "b2": "7", "j4": "2"},
        silver={"j10": "F", "a7": "S", "e7": "B"},
        max_moves=10,
    )
    move(env, "b2-b3")
    move(env, "a7-a6")
    obs = {agent: env.observe(agent)["observation"] for agent in ("gold", "silver")}
    for agent in ("gold", "silver"):
        o = obs[agent]
        assert o.shape == (10, 10, 71) and o.dtype == np.float32
        lakes = {ego_rc(agent, s) for s in ("c5", "d5", "c6", "d6", "g5", "h5", "g6", "h6")}
        assert {tuple(x) for x in np.argwhere(o[:, :, OBS.lake.start])} == lakes
        assert (o[:, :, OBS.move_count.start] == 0.2).all()
        assert not o[:, :, OBS.setup_phase.start].any()
    g, s = obs["gold"], obs["silver"]
    # own pieces by rank, in each player's frame
    assert g[0, 0, OBS.my_rank.start + rules.FLAG - 1] == 1
    assert g[2, 1, OBS.my_rank.start + 7 - 1] == 1 and g[2, 1, OBS.my_moved.start] == 1
    assert s[0, 0, OBS.my_rank.start + rules.FLAG - 1] == 1  # j10 is silver's corner
    assert at(s, "silver", "a6", OBS.my_rank.start + rules.SPY - 1) == 1
    assert s[:, :, OBS.my_rank.slice].sum() == 3 and g[:, :, OBS.my_rank.slice].sum() == 3
    # enemy pieces: unknown, moved
    assert g[:, :, OBS.enemy_unknown.start].sum() == 3
    assert at(g, "gold", "a6", OBS.enemy_moved.start) == 1
    assert at(g, "gold", "e7", OBS.enemy_moved.start) == 0
    assert not g[:, :, OBS.enemy_rank.slice].any()
    # last moves and their shuttle counts
    assert at(g, "gold", "b2", OBS.my_last_from.start) == 1
    assert at(g, "gold", "b3", OBS.my_last_to.start) == 1
    assert at(g, "gold", "a7", OBS.enemy_last_from.start) == 1
    assert at(s, "silver", "b3", OBS.enemy_last_to.start) == 1
    # removed pieces, as constant planes
    move(env, "b3-b4")
    move(env, "a6-a5")
    move(env, "j4-j7")  # the Scout runs to j7 and reveals itself
    move(env, "a5-b5")
    move(env, "b4-b5")  # 7 strikes the Spy
    g = env.observe("gold")["observation"]
    s = env.observe("silver")["observation"]
    assert (g[:, :, OBS.enemy_removed.start + rules.SPY - 1] == 1).all()
    assert (s[:, :, OBS.my_removed.start + rules.SPY - 1] == 1).all()
    assert not g[:, :, OBS.my_removed.slice].any()
    assert at(s, "silver", "j7", OBS.enemy_rank.start + rules.SCOUT - 1) == 1
    assert at(g, "gold", "j7", OBS.my_public.start) == 1


def test_observation_is_a_fresh_array_and_mask_is_int8():
    env = make("hidden_ranks", mode="quick", setup="random")
    env.reset(seed=0)
    a = env.observe("gold")
    b = env.observe("gold")
    assert a["observation"] is not b["observation"] and a["action_mask"] is not b["action_mask"]
    assert a["action_mask"].dtype == np.int8
    a["action_mask"][:] = 0
    assert env.observe("gold")["action_mask"].any()
    assert not env.observe("silver")["action_mask"].any()


def test_render_views():
    env = position_env(
        gold={"a1": "F", "e4": "4"}, silver={"j10": "F", "e5": "6", "a10": "9"}, render_mode="ansi"
    )
    move(env, "e4-e5")  # the 4 loses to the 6
    text = env.render()  # silver to act: silver's view
    assert "seen by silver" in text and "last strike: gold 4 struck silver 6 on e5" in text
    lines = text.splitlines()
    assert lines[1].split() == list("jihgfedcba") and lines[2].split()[0] == "1"
    assert "g?" in text and "s6*" in text and "~~" in text and "s9" in text
    gold_view = render_ansi(env.game, 0)
    assert "s?" in gold_view and "s6*" in gold_view and "s9" not in gold_view
    referee = render_ansi(env.game, None)
    assert "gF" in referee and "sF" in referee and "s9" in referee
    assert "removed gold: 4x1" in referee


def test_human_render_prints(capsys):
    env = make_env(mode="quick", setup="random", render_mode="human")
    env.reset(seed=0)
    env.step(env.unwrapped.legal_actions()[0])
    assert "Hidden Ranks (quick)" in capsys.readouterr().out


# --- bad input ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("keywords", "message"),
    [
        ({"mode": "huge"}, "mode='huge' is not allowed; choose one of: 'full', 'quick'"),
        ({"setup": "mirror"}, "setup='mirror'"),
        ({"max_moves": 0}, "max_moves=0"),
        ({"max_moves": True}, "max_moves=True"),
        ({"max_moves": 1.5}, "max_moves=1.5"),
        ({"reward": "points"}, "reward='points'"),
        ({"render_mode": "rgb_arrays"}, "render_mode"),
    ],
)
def test_bad_keywords(keywords, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        make_env(**keywords)


def test_illegal_action_raises_and_leaves_the_env_usable():
    env = make_env(mode="quick", setup="random")
    env.reset(seed=4)
    board = env.unwrapped.game.board.copy()
    legal = env.unwrapped.legal_actions()
    illegal = next(a for a in range(40, 3640) if a not in legal)
    for bad in (illegal, 0, -1, 3640, "e4-e5", None, 2.0):
        with pytest.raises(ValueError, match="legal: "):
            env.step(bad)
    assert (env.unwrapped.game.board == board).all()
    assert env.agent_selection == "gold"
    env.step(legal[0])
    assert env.agent_selection == "silver"


def test_env_usable_after_bad_reset_options():
    env = make_env(mode="quick", setup="random")
    env.reset(seed=1)
    env.step(env.unwrapped.legal_actions()[0])
    with pytest.raises(ValueError):
        env.reset(options={"setup": {"gold": {"a1": "F"}}})
    assert env.agent_selection == "silver"
    env.step(env.unwrapped.legal_actions()[0])
    env.reset(seed=1)
    assert env.agent_selection == "gold"


def test_scores_are_zero_and_make_accepts_the_name():
    env = make("hidden_ranks_v0", mode="quick", setup="random")
    env.reset(seed=0)
    assert env.unwrapped.scores == {"gold": 0, "silver": 0}
    assert env.unwrapped.metadata["name"] == "hidden_ranks_v0"
