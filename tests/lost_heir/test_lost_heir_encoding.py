"""Lost Heir encodings: action names and ids, the observation layout, the docs tables.

The compiled engine writes the observation from its state row; here it is rebuilt from scratch
from the plain fields of the decoded view (``reference_observation``, written from the docs
table independently of the engine) and compared at every step of many random games.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from feral_envs import docgen
from feral_envs.lost_heir import CORE, encoding, rules
from feral_envs.lost_heir.encoding import DECK, OBS
from feral_envs.lost_heir_v0 import raw_env

DOC = Path(__file__).resolve().parents[2] / "docs" / "lost_heir.md"


# --- actions -------------------------------------------------------------------------------


def test_action_ids_and_names():
    names = encoding.ACTION_NAMES
    assert len(names) == CORE.n_actions == 47
    assert names[:15] == (
        "pass",
        "bid 4",
        "bid 5",
        "bid 6",
        "bid 7",
        "bid 8",
        "bid 9",
        "bid 10",
        "bid 11",
        "bid 12",
        "accept",
        "refuse",
        "raise",
        "concede",
        "take a lead",
    )
    assert names[15] == "T0" and names[15 + 7] == "T7" and names[15 + 24] == "W0"
    assert names[46] == "W7"
    assert DECK.names[encoding.HEIR] == "W0" and DECK.names[encoding.BOY] == "T0"


def test_action_names_round_trip_case_and_spacing_insensitive():
    for action, name in enumerate(encoding.ACTION_NAMES):
        assert encoding.action_to_string(None, action) == name
        assert encoding.string_to_action(None, name) == action
        assert encoding.string_to_action(None, "  " + name.upper().replace(" ", "  ")) == action
    for text in ("", "bid 3", "bid 13", "X7", "T8", "take lead", "pas"):
        assert encoding.string_to_action(None, text) is None


def test_deck_powers_and_cities():
    for card, name in enumerate(DECK.names):
        assert DECK.suit_of[card] == "TMHW".index(name[0])
        assert DECK.power_of[card] == int(name[1])


# --- observation layout --------------------------------------------------------------------


def test_phase_field_matches_the_phase_enum():
    assert OBS.phase.size == len(rules.Phase)


def reference_observation(state: rules.State, seat: int) -> np.ndarray:
    """The observation of ``seat`` built from the state fields, following the docs table."""
    o = np.zeros(OBS.size, dtype=np.float32)

    def rel(s):
        return (int(s) - seat) % 4

    def team(t):
        return 0 if t == seat % 2 else 1

    # plain ints: the state's small int8 arrays would overflow in index arithmetic
    trick, calls = state.trick.tolist(), state.calls.tolist()
    trick_of_card = state.trick_of_card.tolist()

    o[OBS.hand.start + np.flatnonzero(state.hands[seat])] = 1
    for s in range(4):
        o[OBS.played.start + 32 * rel(s) + np.flatnonzero(state.played[s])] = 1
    for pos in range(state.trick_len):
        o[OBS.trick.start + 32 * pos + trick[pos]] = 1
    if state.leader != rules.NOBODY:
        o[OBS.leader.start + rel(state.leader)] = 1
    if state.led_city >= 0:
        o[OBS.led_city.start + state.led_city] = 1
    if state.trump >= 0:
        o[OBS.trump.start + state.trump] = 1
    for card in range(32):
        if trick_of_card[card] >= 0:
            o[OBS.card_trick.start + 8 * card + trick_of_card[card]] = 1
    for k in range(8):
        if state.trick_leaders[k] >= 0:
            o[OBS.trick_leaders.start + 8 * rel(state.trick_leaders[k]) + k] = 1
        if state.trick_winners[k] >= 0:
            o[OBS.trick_winners.start + 8 * rel(state.trick_winners[k]) + k] = 1
    for s in range(4):
        if calls[s] != rules.NO_CALL:
            o[OBS.calls.start + 12 * rel(s) + calls[s]] = 1
    o[OBS.duel_refusals.start : OBS.duel_refusals.start + state.duel_refusals] = 1
    o[OBS.duel_raises.start : OBS.duel_raises.start + state.duel_raises] = 1
    if state.high_bid:
        o[OBS.high_bid.start + state.high_bid - 4] = 1
        o[OBS.high_bidder.start + rel(state.high_bidder)] = 1
    if state.contract:
        o[OBS.contract.start + state.contract - 4] = 1
        o[OBS.declarer.start + rel(state.declarer)] = 1
    o[OBS.lead_handed_over.start] = state.lead_handed_over
    for t in range(2):
        o[OBS.tricks.start + team(t)] = state.team_tricks[t]
        o[OBS.points.start + team(t)] = state.team_points[t]
        o[OBS.scores.start + team(t)] = state.scores[t]
        o[OBS.scores_scaled.start + team(t)] = state.scores[t] / state.config.target_score
        o[OBS.last_hand.start + team(t)] = state.last_hand[t]
    if state.heir_team >= 0:
        o[OBS.heir.start + team(state.heir_team)] = 1
    if state.boy_team >= 0:
        o[OBS.boy.start + team(state.boy_team)] = 1
    o[OBS.phase.start + state.phase] = 1
    if state.phase != rules.Phase.OVER:
        o[OBS.to_act.start + rel(state.to_act)] = 1
    first_handover = 1 if state.config.take_a_lead == "after_first_trick" else 2
    o[OBS.may_take_a_lead.start] = (  # a trick winner about to lead, once per lead, not early
        state.phase == rules.Phase.PLAY
        and state.trick_len == 0
        and not state.lead_handed_over
        and state.tricks_done >= first_handover
    )
    o[OBS.dealer.start + rel(state.dealer)] = 1
    o[OBS.hands_played.start] = state.hands_played
    o[OBS.hands_left.start] = state.config.max_hands - state.hands_played
    return o


def test_observation_equals_the_reference_at_every_step():
    rng = np.random.default_rng(1)
    steps = 0
    for game in range(60):
        config = rules.make_config(
            target_score=int(rng.integers(1, 41)),
            max_hands=int(rng.integers(1, 8)),
            take_a_lead=rules.TAKE_A_LEAD_CHOICES[game % 2],
        )
        options = {"scores": {"north_south": -5, "east_west": 0}} if game % 3 == 0 else {}
        state = CORE.new_game(config, rng, options)
        while True:
            for seat in range(4):
                got = CORE.observe(state, seat)
                assert got.dtype == np.float32 and got.shape == CORE.obs_shape
                want = reference_observation(state, seat)
                if not np.array_equal(got, want):
                    bad = np.flatnonzero(got != want)
                    fields = sorted({OBS.span_of(i).name for i in bad})
                    pytest.fail(f"game {game} step {steps} seat {seat}: fields {fields} differ")
            if state.terminated or state.truncated:
                break
            legal = np.flatnonzero(state.mask)
            CORE.apply(state, int(rng.choice(legal)), rng)
            steps += 1
    assert steps > 2000


def test_observation_fields_in_a_scenario():
    env = raw_env()
    hands = {
        "north": ["T7", "T6", "T5", "T4", "M7", "M6", "W7", "W0"],
        "east": ["T3", "T2", "T1", "M5", "M4", "H7", "H6", "W6"],
        "south": ["T0", "M3", "M2", "M1", "H5", "H4", "W5", "W4"],
        "west": ["M0", "H3", "H2", "H1", "H0", "W3", "W2", "W1"],
    }
    env.reset(
        seed=3,
        options={"dealer": "west", "hands": hands, "scores": {"north_south": 8, "east_west": -4}},
    )
    for name in ("bid 5", "pass", "pass", "refuse", "raise", "accept", "W7", "W6"):
        env.step(env.string_to_action(name))
    # south to act; look from east (north's left: north is east's "right")
    o = env.observe("east")["observation"]

    def field(name):
        return o[getattr(OBS, name).slice]

    def card_ids(vec):
        return {DECK.names[c] for c in np.flatnonzero(vec)}

    assert card_ids(field("hand")) == {"T3", "T2", "T1", "M5", "M4", "H7", "H6"}
    played = field("played").reshape(4, 32)  # me, left, partner, right
    assert card_ids(played[0]) == {"W6"} and card_ids(played[3]) == {"W7"}
    assert played[1].sum() == played[2].sum() == 0
    trick = field("trick").reshape(4, 32)
    assert card_ids(trick[0]) == {"W7"} and card_ids(trick[1]) == {"W6"} and trick[2:].sum() == 0
    assert field("leader").tolist() == [0, 0, 0, 1]  # north is east's right
    assert field("led_city").tolist() == [0, 0, 0, 1] == field("trump").tolist()
    calls = field("calls").reshape(4, 12)
    assert calls[3].tolist() == [0, 0, 1] + [0] * 9  # north: bid 5
    assert calls[0][0] == 1 and calls[1][0] == 1  # east, south: pass
    assert calls[2][11] == 1  # west (dealer): refuse
    assert field("duel_refusals").tolist() == [1] + [0] * 8
    assert field("duel_raises").tolist() == [1] + [0] * 7
    assert field("high_bid").tolist() == [0, 0, 1] + [0] * 6  # 6 after the raise
    assert field("contract").tolist() == [0, 0, 1] + [0] * 6
    assert field("declarer").tolist() == [0, 0, 0, 1]
    assert field("phase").tolist() == [0, 0, 0, 0, 1, 0]
    assert field("to_act").tolist() == [0, 1, 0, 0]  # south is east's left
    assert field("dealer").tolist() == [0, 0, 1, 0]  # west is east's partner
    assert field("scores").tolist() == [-4, 8]  # my team (east-west) first
    assert np.allclose(field("scores_scaled"), [-0.1, 0.2])
    assert field("hands_left").tolist() == [100]
    card_trick = field("card_trick").reshape(32, 8)
    assert card_trick[DECK.card("W7")].tolist() == [1] + [0] * 7


def test_docs_tables_are_up_to_date():
    text = DOC.read_text()
    assert "<!-- BEGIN GENERATED: observation -->" in text
    assert docgen.render_page("lost_heir", text) == text, (
        "docs/lost_heir.md is out of date: run python -m feral_envs.docgen"
    )


def test_observation_space_matches():
    env = raw_env()
    env.reset(seed=0)
    actor = env.agent_selection
    space = env.observation_space(actor)
    obs = env.observe(actor)
    assert space.contains(obs)
    assert obs["action_mask"].dtype == np.int8
    other = next(a for a in env.possible_agents if a != actor)
    assert env.observe(other)["action_mask"].sum() == 0  # not to act
