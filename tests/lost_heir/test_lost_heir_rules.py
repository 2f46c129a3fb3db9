"""Lost Heir rule scenarios, one or more per rule of RULES.md, written with card names.

Every scenario starts from ``reset(options=...)`` with given hands and dealer and plays
actions by name; ``string_to_action`` raises if a named action is not legal, so each scenario
also checks that every call and card it plays is allowed.
"""

from __future__ import annotations

import numpy as np
import pytest

from feral_envs.lost_heir import engine, rules
from feral_envs.lost_heir.encoding import OBS
from feral_envs.lost_heir_v0 import raw_env

# A general deal. Dealer west: north calls first.
DEAL = {
    "north": ["T7", "T6", "T5", "T4", "M7", "M6", "W7", "W0"],
    "east": ["T3", "T2", "T1", "M5", "M4", "H7", "H6", "W6"],
    "south": ["T0", "M3", "M2", "M1", "H5", "H4", "W5", "W4"],
    "west": ["M0", "H3", "H2", "H1", "H0", "W3", "W2", "W1"],
}

# Deal A: north leads out its Toronto (trump) and wins tricks 1-7, taking T0 in trick 1;
# west takes W0 with W7 in trick 8. North-south: 7 tricks - 3 = 4 points; east-west: 1 + 5 = 6.
DEAL_A = {
    "north": ["T7", "T6", "T5", "T4", "T3", "T2", "T1", "W0"],
    "east": ["M7", "M6", "M5", "M4", "M3", "M2", "M1", "M0"],
    "south": ["H7", "H6", "H5", "H4", "H3", "H2", "H1", "T0"],
    "west": ["W7", "W6", "W5", "W4", "W3", "W2", "W1", "H0"],
}
PLAY_A = [  # (cards in play order, winner of the trick)
    (["T7", "M0", "T0", "H0"], "north"),
    (["T6", "M1", "H1", "W1"], "north"),
    (["T5", "M2", "H2", "W2"], "north"),
    (["T4", "M3", "H3", "W3"], "north"),
    (["T3", "M4", "H4", "W4"], "north"),
    (["T2", "M5", "H5", "W5"], "north"),
    (["T1", "M6", "H6", "W6"], "north"),
    (["W0", "M7", "H7", "W7"], "west"),
]

# Deal B: north-south take 7 tricks and W0 (12 points); east wins only the T0 trick after
# north hands the lead to south (east-west: 1 - 3 = -2, floored to 0).
DEAL_B = {
    "north": ["W7", "W6", "W5", "W4", "W3", "W2", "W1", "H0"],
    "east": ["T7", "T6", "T5", "T4", "M6", "M5", "M4", "M3"],
    "south": ["W0", "T0", "H7", "H6", "H5", "H4", "H3", "M7"],
    "west": ["T3", "T2", "T1", "H2", "H1", "M2", "M1", "M0"],
}
PLAY_B = [  # strings are cards or "take a lead"; each trick ends with its winner
    (["W7", "T4", "W0", "M0"], "north"),
    (["take a lead", "T0", "T1", "H0", "T5"], "east"),
    (["T6", "H3", "T2", "W1"], "north"),
    (["W2", "T7", "H4", "M1"], "north"),
    (["W3", "M3", "H5", "M2"], "north"),
    (["W4", "M4", "H6", "H1"], "north"),
    (["W5", "M5", "H7", "H2"], "north"),
    (["W6", "M6", "M7", "T3"], "north"),
]


def new_env(dealer="west", hands=DEAL, scores=None, **keywords):
    env = raw_env(**keywords)
    options = {"dealer": dealer, "hands": hands}
    if scores is not None:
        options["scores"] = scores
    env.reset(seed=0, options=options)
    return env


def do(env, *names):
    """Play actions by name for whoever is to act."""
    for name in names:
        env.step(env.string_to_action(name))


def calls(env, *pairs):
    """Play ``(agent, call)`` pairs, checking that ``agent`` is the one to act."""
    for agent, name in pairs:
        assert env.agent_selection == agent
        do(env, name)


def legal(env):
    return set(env.legal_action_names())


def bids(lo, hi=12):
    return {f"bid {v}" for v in range(lo, hi + 1)}


def play_tricks(env, tricks):
    for names, winner in tricks:
        do(env, *names)
        if env.game.phase == rules.Phase.PLAY:
            assert env.agent_selection == winner


# --- bidding ------------------------------------------------------------------------------


def test_bidding_order_and_legal_calls():
    env = new_env(dealer="west")
    assert env.agent_selection == "north"  # left of the dealer
    assert legal(env) == {"pass"} | bids(4)
    do(env, "bid 5")
    assert env.agent_selection == "east"
    assert legal(env) == {"pass"} | bids(6)  # strictly above the high bid
    do(env, "pass")
    assert env.agent_selection == "south"
    assert legal(env) == {"pass"} | bids(6)
    do(env, "bid 7")
    assert env.agent_selection == "west"  # the dealer calls last
    assert legal(env) == {"accept", "refuse"} | bids(8)  # no pass for the dealer now
    with pytest.raises(ValueError, match="is not legal now"):
        env.string_to_action("bid 7")
    do(env, "accept")
    assert env.game.contract == 7 and env.agent_selection == "south"
    assert env.game.phase == rules.Phase.PLAY


def test_a_pass_is_final_and_each_seat_calls_once():
    env = new_env(dealer="south")  # west, north, east, then south
    calls(env, ("west", "pass"), ("north", "bid 4"), ("east", "bid 6"))
    assert env.agent_selection == "south"  # nobody calls twice; west's pass was final
    assert legal(env) == {"accept", "refuse"} | bids(7)


def test_bid_12_leaves_only_passes_and_the_dealer_accept_or_refuse():
    env = new_env(dealer="west")
    do(env, "bid 12")
    assert legal(env) == {"pass"}
    do(env, "pass", "pass")
    assert legal(env) == {"accept", "refuse"}


def test_all_pass_throws_the_hand_in_and_the_deal_passes_left():
    env = new_env(dealer="west")
    before = env.game.hands.copy()
    calls(env, ("north", "pass"), ("east", "pass"), ("south", "pass"))
    assert legal(env) == {"pass"} | bids(4)  # nobody bid: the dealer may bid or pass
    do(env, "pass")
    state = env.game
    assert env.scores == {"north_south": 0, "east_west": 0}
    assert state.hands_played == 1 and state.dealer == 0  # north deals the next hand
    assert env.agent_selection == "east"  # left of the new dealer
    assert state.phase == rules.Phase.BID
    assert state.hands.sum() == 32 and not (state.hands == before).all()  # a new deal
    assert not any(env.terminations.values()) and not any(env.truncations.values())


def test_nobody_bid_dealer_bids():
    env = new_env(dealer="west")
    do(env, "pass", "pass", "pass", "bid 4")
    assert (env.game.contract, env.game.declarer) == (4, 3)
    assert env.agent_selection == "west"  # the declarer leads


# --- the refusal duel ----------------------------------------------------------------------


def test_duel_refuse_raise_refuse_concede():
    env = new_env(dealer="west")
    calls(env, ("north", "bid 5"), ("east", "pass"), ("south", "pass"), ("west", "refuse"))
    assert env.agent_selection == "north"
    assert legal(env) == {"raise", "concede"}
    do(env, "raise")
    assert env.game.high_bid == 6 and env.agent_selection == "west"
    assert legal(env) == {"accept", "refuse"}  # no bidding over after a raise
    do(env, "refuse")
    assert env.agent_selection == "north" and legal(env) == {"raise", "concede"}
    do(env, "concede")
    state = env.game
    assert (state.contract, state.declarer) == (6, 3)  # the dealer at the current price
    assert (state.duel_refusals, state.duel_raises) == (2, 1)
    assert env.agent_selection == "west" and state.phase == rules.Phase.PLAY


def test_duel_raise_then_accept():
    env = new_env(dealer="west")
    do(env, "bid 5", "pass", "pass", "refuse", "raise", "accept")
    assert (env.game.contract, env.game.declarer) == (6, 0)
    assert env.agent_selection == "north"


def test_duel_at_12_only_concede():
    env = new_env(dealer="west")
    do(env, "bid 11", "pass", "pass", "refuse", "raise")
    assert env.game.high_bid == 12 and legal(env) == {"accept", "refuse"}
    do(env, "refuse")
    assert legal(env) == {"concede"}  # cannot raise past 12
    do(env, "concede")
    assert (env.game.contract, env.game.declarer) == (12, 3)


def test_duel_bid_12_refused_only_concede():
    env = new_env(dealer="west")
    do(env, "bid 12", "pass", "pass", "refuse")
    assert legal(env) == {"concede"}


def test_dealer_bids_over_and_bidding_ends():
    env = new_env(dealer="west")
    do(env, "bid 5", "bid 6", "pass", "bid 9")
    state = env.game
    assert (state.contract, state.declarer) == (9, 3)
    assert state.phase == rules.Phase.PLAY and env.agent_selection == "west"


def test_dealer_refuses_a_partners_bid():
    env = new_env(dealer="west")  # east is west's partner
    calls(env, ("north", "pass"), ("east", "bid 6"), ("south", "pass"), ("west", "refuse"))
    assert env.agent_selection == "east" and legal(env) == {"raise", "concede"}
    do(env, "concede")
    assert (env.game.contract, env.game.declarer) == (6, 3)


# --- play ----------------------------------------------------------------------------------


def test_first_lead_names_trump():
    env = new_env(dealer="west")
    do(env, "pass", "pass", "pass", "bid 4")  # west declares
    assert env.game.trump == -1
    assert env.observe("north")["observation"][OBS.trump.slice].sum() == 0
    do(env, "H3")
    assert env.game.trump == 2  # Halifax
    for agent in env.agents:
        assert env.observe(agent)["observation"][OBS.trump.slice].tolist() == [0, 0, 1, 0]


def test_a_zero_card_lead_names_trump():
    env = new_env(dealer="west")
    do(env, "bid 4", "pass", "pass", "accept")  # north declares and leads
    do(env, "W0")
    assert env.game.trump == 3  # Winnipeg, named by the Lost Heir itself
    assert env.game.led_city == 3


def test_lone_zero_card_must_follow():
    env = new_env(dealer="west")
    do(env, "bid 4", "pass", "pass", "accept", "M7")  # Montreal led; trump Montreal
    do(env, "M5", "M1")
    assert env.agent_selection == "west"
    assert legal(env) == {"M0"}  # west's only Montreal card is its 0 card


def test_follow_suit_when_able_else_any_card():
    env = new_env(dealer="west")
    do(env, "bid 4", "pass", "pass", "accept", "T7")
    assert legal(env) == {"T3", "T2", "T1"}  # east follows Toronto
    do(env, "T1")
    assert legal(env) == {"T0"}  # south's lone 0 card follows too
    do(env, "T0")
    assert legal(env) == {"M0", "H3", "H2", "H1", "H0", "W3", "W2", "W1"}  # west is void


def test_trumping_highest_trump_and_highest_of_the_led_city_win():
    env = new_env(dealer="west")
    do(env, "bid 4", "pass", "pass", "accept")
    tricks = [
        (["W7", "W6", "W4", "W1"], "north"),  # trump Winnipeg; highest trump of four wins
        (["M7", "M4", "M1", "M0"], "north"),  # no trump: highest of the led city
        (["M6", "M5", "M3", "W3"], "west"),  # west, void in Montreal, trumps
        (["H3", "T7", "H7", "H5"], "east"),  # north's T7 is neither led city nor trump
        (["T3", "T0", "W2", "T6"], "west"),  # a low trump beats T6
        (["H2", "W0", "H6", "H4"], "north"),  # the 0 card W0 trumps and takes itself
        (["T5", "T2", "W5", "H1"], "south"),
        (["M2", "H0", "T4", "T1"], "south"),
    ]
    for names, winner in tricks[:-1]:
        do(env, *names)
        assert env.agent_selection == winner
    assert env.game.trick_winners.tolist() == [0, 0, 3, 1, 3, 0, 2, -1]
    assert env.game.team_points.tolist() == [4 + 5, 3 - 3]
    do(env, *tricks[-1][0])  # the hand is scored and the next one dealt
    # north-south: 5 tricks + 5 (W0) = 10 >= 4; east-west: 3 tricks - 3 (T0) = 0
    assert env.scores == {"north_south": 10, "east_west": 0}


def test_take_a_lead_allowed_after_the_first_trick_and_not_handed_back():
    env = new_env(dealer="west")
    do(env, "bid 4", "pass", "pass", "accept")
    assert "take a lead" not in legal(env)  # the declarer's opening lead
    do(env, "W7", "W6", "W4", "W1")  # north wins trick 1
    assert "take a lead" in legal(env)
    obs = env.observe("north")["observation"]
    assert obs[OBS.may_take_a_lead.start] == 1
    do(env, "take a lead")
    assert env.agent_selection == "south"
    assert "take a lead" not in legal(env)  # the partner must lead
    assert env.game.lead_handed_over
    do(env, "W5")
    assert "take a lead" not in legal(env)  # only a leader may hand over


def test_take_a_lead_after_second_trick_option():
    env = new_env(dealer="west", take_a_lead="after_second_trick")
    do(env, "bid 4", "pass", "pass", "accept")
    assert "take a lead" not in legal(env)
    do(env, "W7", "W6", "W4", "W1")  # north wins trick 1
    assert "take a lead" not in legal(env)  # the first trick's winner keeps the lead
    do(env, "M7", "M4", "M1", "M0")  # north wins trick 2
    assert "take a lead" in legal(env)
    do(env, "take a lead")
    assert env.agent_selection == "south"


def test_the_winner_leads_and_a_handed_lead_starts_with_the_partner():
    env = new_env(dealer="west", hands=DEAL_B)
    do(env, "bid 12", "pass", "pass", "accept")
    play_tricks(env, PLAY_B[:2])
    assert env.agent_selection == "east"  # east won the T0 trick led by south
    assert env.game.trick_leaders.tolist()[:3] == [0, 2, 1]
    assert env.game.trick_winners.tolist()[:2] == [0, 1]


# --- scoring -------------------------------------------------------------------------------


def play_deal_a(contract_calls, **keywords):
    env = new_env(dealer="west", hands=DEAL_A, **keywords)
    do(env, *contract_calls)
    assert env.agent_selection == "north"
    play_tricks(env, PLAY_A)
    return env


def test_made_contract_scores_the_points_reached_exactly():
    env = play_deal_a(["bid 4", "pass", "pass", "accept"])
    # north-south: 7 tricks - 3 (Wrong Boy) = 4 = contract; east-west: 1 trick + 5 (Heir)
    assert env.scores == {"north_south": 4, "east_west": 6}
    assert env.game.last_hand.tolist() == [4, 6]


def test_failed_contract_loses_the_contract_amount():
    env = play_deal_a(["bid 10", "pass", "pass", "accept"])
    assert env.scores == {"north_south": -10, "east_west": 6}


def test_defenders_floor_heir_and_wrong_boy():
    env = new_env(dealer="west", hands=DEAL_B)
    do(env, "bid 12", "pass", "pass", "accept")
    play_tricks(env, PLAY_B)
    # north-south: 7 tricks + 5 (W0) = 12 >= 12; east-west: 1 trick - 3 (T0) = -2 -> 0
    assert env.scores == {"north_south": 12, "east_west": 0}
    assert env.game.hands_played == 1 and env.game.dealer == 0  # next hand dealt


@pytest.mark.parametrize(
    ("contract", "declarer", "points", "change"),
    [
        (4, 0, (4, 6), (4, 6)),  # made exactly
        (10, 0, (4, 6), (-10, 6)),  # failed: the contract is lost
        (12, 0, (12, -2), (12, 0)),  # the defenders never score below 0
        (5, 0, (9, 1), (9, 1)),  # made with points to spare: all of them
        (7, 3, (2, 5), (2, -7)),  # east-west declared and failed
    ],
)
def test_the_hand_score_kernel(contract, declarer, points, change):
    row = np.zeros(engine.ROW_SIZE, dtype=np.int32)
    row[engine.CONTRACT], row[engine.DECLARER] = contract, declarer
    row[engine.TEAM_POINTS : engine.TEAM_POINTS + 2] = points
    row[engine.SCORES : engine.SCORES + 2] = (3, 3)
    engine._score_hand(row)
    assert row[engine.LAST_HAND : engine.LAST_HAND + 2].tolist() == list(change)
    assert row[engine.SCORES : engine.SCORES + 2].tolist() == [3 + change[0], 3 + change[1]]


# --- winning and truncation ------------------------------------------------------------------


def test_both_reach_the_target_the_declarers_win():
    env = new_env(dealer="west", hands=DEAL_A, scores={"north_south": 36, "east_west": 38})
    do(env, "bid 4", "pass", "pass", "accept")
    play_tricks(env, PLAY_A)
    assert env.scores == {"north_south": 40, "east_west": 44}  # east-west is higher...
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.game.winner == 0  # ...but north-south declared
    assert env.rewards == {"north": 1, "east": -1, "south": 1, "west": -1}


def test_one_team_reaches_the_target_and_wins():
    env = new_env(dealer="west", hands=DEAL_A, scores={"north_south": 0, "east_west": 34})
    do(env, "bid 10", "pass", "pass", "accept")
    play_tricks(env, PLAY_A)
    assert env.scores == {"north_south": -10, "east_west": 40}
    assert all(env.terminations.values())
    assert env.rewards == {"north": -1, "east": 1, "south": -1, "west": 1}


def test_custom_target_score():
    env = play_deal_a(["bid 4", "pass", "pass", "accept"], target_score=4)
    assert all(env.terminations.values()) and env.game.winner == 0


def test_truncation_after_max_hands_counts_thrown_in_hands():
    env = new_env(dealer="west", max_hands=2)
    do(env, "pass", "pass", "pass", "pass")
    assert not any(env.truncations.values())
    do(env, "pass", "pass", "pass", "pass")
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert env.rewards == dict.fromkeys(env.agents, 0)
    assert env.game.phase == rules.Phase.OVER
    assert env.observe("north")["action_mask"].sum() == 0


def test_truncation_after_a_played_hand_and_a_win_on_the_last_hand_terminates():
    env = play_deal_a(["bid 4", "pass", "pass", "accept"], max_hands=1)
    assert all(env.truncations.values()) and env.game.winner == -1
    env = play_deal_a(["bid 4", "pass", "pass", "accept"], max_hands=1, target_score=5)
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.game.winner == 1  # east-west reached 6


# --- rewards ---------------------------------------------------------------------------------


def test_points_rewards_after_each_hand_are_zero_sum():
    env = new_env(dealer="west", hands=DEAL_B, reward="points")
    do(env, "bid 12", "pass", "pass", "accept")
    for names, _ in PLAY_B:
        for name in names:
            do(env, name)
            if env.game.hands_played == 0:
                assert env.rewards == dict.fromkeys(env.agents, 0)
    assert env.rewards == {"north": 12, "east": -12, "south": 12, "west": -12}
    assert sum(env.rewards.values()) == 0


def test_points_rewards_on_a_failed_contract():
    env = play_deal_a(["bid 10", "pass", "pass", "accept"], reward="points")
    # north-south -10, east-west +6: each gets its team's change minus the other's
    assert env.rewards == {"north": -16, "east": 16, "south": -16, "west": 16}


def test_win_rewards_are_zero_until_the_end():
    env = play_deal_a(["bid 4", "pass", "pass", "accept"])
    assert env.rewards == dict.fromkeys(env.agents, 0)
    assert not any(env.terminations.values())


def test_later_hands_are_dealt_from_the_seed():
    hands = []
    for _ in range(2):
        env = raw_env()
        env.reset(seed=7, options={"dealer": "west", "hands": DEAL})
        do(env, "pass", "pass", "pass", "pass")
        hands.append(env.game.hands.copy())
    assert (hands[0] == hands[1]).all()
    env = raw_env()
    env.reset(seed=8, options={"dealer": "west", "hands": DEAL})
    do(env, "pass", "pass", "pass", "pass")
    assert not (env.game.hands == hands[0]).all()


def test_first_dealer_from_the_seed():
    dealers = set()
    for seed in range(40):
        env = raw_env()
        env.reset(seed=seed)
        dealers.add(env.game.dealer)
        assert env.agent_selection == env.possible_agents[(env.game.dealer + 1) % 4]
    assert dealers == {0, 1, 2, 3}
    assert np.all(env.game.hands.sum(axis=1) == 8)
