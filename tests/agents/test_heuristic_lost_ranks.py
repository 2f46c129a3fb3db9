"""The Lost Ranks heuristic bot: stronger than random, always legal, deterministic, and its
documented decisions (docs/bots/lost_ranks.md) in hands dealt with reset(options=...)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from agents.arena import run_arena
from agents.heuristic import lost_ranks as bot
from agents.random_policy import RandomPolicy
from agents.registry import load_policy
from feral_envs.lost_ranks import CORE, rules
from feral_envs.lost_ranks.encoding import OBS
from feral_envs.lost_ranks.env import raw_env
from feral_envs.lost_ranks.rules import AGENTS, DECK, SPY

VARIANTS = rules.VARIANTS


def cards(names: str) -> list[int]:
    return [DECK.card(n) for n in names.split()]


def new_env(trump: str, hands: dict[str, str], start: str = "play", **keywords) -> raw_env:
    env = raw_env(**keywords)
    dealt = {agent: names.split() for agent, names in hands.items()}
    env.reset(seed=0, options={"trump_card": trump, "hands": dealt, "start": start})
    return env


def play(env: raw_env, *names: str) -> None:
    for name in names:
        env.step(env.string_to_action(name))


def bot_choice(env: raw_env, variant: str = "standard") -> str:
    """The card the bot picks for the agent to act."""
    policy = bot.make_policy(0, variant=variant)
    obs = env.observe(env.agent_selection)
    return DECK.names[policy.act(obs["observation"], obs["action_mask"])]


def play_games(policies: list, n_games: int, variant: str, seed: int = 0) -> list[list[int]]:
    """Whole games on the engine (no env), checking every action; the actions of each."""
    games = []
    for game in range(n_games):
        rng = np.random.default_rng(seed + game)
        state = CORE.new_game(CORE.make_config(variant=variant), rng, {})
        for i, policy in enumerate(policies):
            policy.reset(1000 * game + i)
        actions = []
        while state.phase != rules.GAME_OVER:
            seat = state.to_act
            mask = CORE.legal_mask(state)
            action = policies[seat].act(CORE.observe(state, seat), mask)
            assert mask[action] == 1, f"illegal {DECK.names[action]} in game {game}"
            actions.append(action)
            CORE.apply(state, action, rng)
        games.append(actions)
    return games


# ------------------------------------------------------------------------------ strength


def test_heuristic_beats_random_in_the_arena():
    report = run_arena(
        "lost_ranks", ["random", "heuristic"], games=24, seed=0, progress=False, n_bootstrap=200
    )
    elo, low, _ = report["ratings"]["heuristic"]
    assert low > 0, report["leaderboard"]
    assert elo > 300
    row = next(r for r in report["leaderboard"] if r["agent"] == "heuristic")
    assert row["score"] >= 0.8


@pytest.mark.parametrize("variant", VARIANTS)
def test_registry_loads_the_bot_with_the_variant(variant):
    policy = load_policy("heuristic", "lost_ranks_v0", seed=3, keywords={"variant": variant})
    assert isinstance(policy, bot.LostRanksHeuristic) and policy.variant == variant
    assert policy.spec == "heuristic"


def test_unknown_variant_is_refused():
    with pytest.raises(ValueError, match="variant"):
        bot.make_policy(0, variant="nope")


# ------------------------------------------------------------------ legality, determinism


@pytest.mark.parametrize("variant", VARIANTS)
def test_never_illegal_in_any_variant(variant):
    # All four seats the bot, then the bot with random partners and enemies (odd passes,
    # Spies and Jacks played anywhere).
    play_games([bot.make_policy(i, variant=variant) for i in range(4)], 12, variant)
    mixed = [bot.make_policy(0, variant=variant), RandomPolicy(1)] * 2
    play_games(mixed, 12, variant, seed=100)
    play_games(mixed[1:] + mixed[:1], 12, variant, seed=200)


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS)
def test_never_illegal_in_many_games(variant):
    play_games([bot.make_policy(i, variant=variant) for i in range(4)], 200, variant)
    play_games([bot.make_policy(0, variant=variant), RandomPolicy(1)] * 2, 200, variant, 1000)


def test_deterministic_given_its_seed():
    def run() -> list[list[int]]:
        policies = [bot.make_policy(7), RandomPolicy(1), bot.make_policy(7), RandomPolicy(2)]
        return play_games(policies, 3, "standard", seed=50)

    assert run() == run()


def test_reset_forgets_the_last_game():
    # One instance reused over games plays each exactly as fresh instances do.
    reused = [bot.make_policy(i) for i in range(4)]
    games = play_games(reused, 3, "turncoat", seed=9)
    for i, game in enumerate(games):
        fresh = play_games([bot.make_policy(j) for j in range(4)], 1, "turncoat", seed=9 + i)
        assert fresh[0] == game


# --------------------------------------------------------------------------------- pass


def test_strong_hand_passes_its_active_jack_and_the_spy_to_the_partner():
    # Trump Card 7S: spades trump, JS and JC Active. red_0 holds five high trumps (P2:
    # strong), the Active JC and the Spy, and the Inactive JH.
    hands = {
        "red_0": "AS KS QS TS 9S AH JH JC SPY 2D 3D 4C 5H",
        "black_0": "2S 3S 4S 5S 6S 8S JS 2H 3H 4H 6H 7H 8H",
        "red_1": "9H TH QH KH 5D 6D 7D 8D 9D TD JD QD KD",
        "black_1": "AD 2C 3C 5C 6C 7C 8C 9C TC QC KC AC 4D",
    }
    env = new_env("7S", hands, start="pass")
    choices = []
    for _ in range(3):
        choices.append(bot_choice(env))
        play(env, choices[-1])
    assert choices[:2] == ["JC", "SPY"], "to the partner: the Active Jack, then the Spy"
    assert choices[2] == "JH", "to the enemy: the Inactive Jack (junk)"


def test_weak_hand_keeps_its_jack_and_guards_and_sends_strength():
    # Trump Card 7S. red_0 is weak: it keeps the Active JC with its guards (clubs) and sends
    # its two best cards, AH and 5S, to the partner (P3); the enemy gets 2H (P5: the lowest
    # card of the shortest side suit outside clubs, making a heart void).
    hand = cards("JC 2C 3C 4C 2S 5S AH 2H 2D 3D 4D 5D 6D")
    assert bot.hand_strength(hand, DECK.suit_of[DECK.card("7S")]) < bot.STRONG_HAND
    plan = [DECK.names[c] for c in bot.plan_pass(hand, DECK.suit_of[DECK.card("7S")])]
    assert plan == ["AH", "5S", "2H"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_never_passes_the_spy_or_an_active_jack_to_the_enemy(variant):
    rng = np.random.default_rng(5)
    checked = 0
    for _ in range(300):
        dealt = CORE.new_game(CORE.make_config(variant), rng, {})  # a deal from the engine
        trump = DECK.suit_of[dealt.trump_card]
        jacks = bot.active_jacks(trump)
        for seat in range(4):
            hand = np.flatnonzero(dealt.hands[seat]).tolist()
            plan = bot.plan_pass(hand, trump)
            assert len(set(plan)) == 3 and set(plan) <= set(hand)
            assert plan[2] != SPY and plan[2] not in jacks
            checked += SPY in hand or any(j in hand for j in jacks)
    assert checked > 300  # many of the hands had something to protect


def test_pass_choices_through_the_env_follow_the_plan():
    env = raw_env()
    env.reset(seed=11)
    for agent in AGENTS:
        obs = env.observe(agent)
        trump = int(np.argmax(obs["observation"][bot.OBS.trump_suit.slice]))
        hand = [int(c) for c in np.flatnonzero(obs["observation"][bot.OBS.hand.slice])]
        plan = bot.plan_pass(hand, trump)
        for step in range(3):
            assert env.agent_selection == agent
            assert env.string_to_action(bot_choice(env)) == plan[step]
            env.step(plan[step])


# ------------------------------------------------------------------------------ tricks

# Trump Card 7S (spades trump; JS and JC Active) for the trick scenarios below. red_0 holds
# the 2S and leads the first trick; black_1, the bot, plays fourth.
SIDE_JACK_DEAL = {
    "red_0": "2S 3S 4S 5S 2H 3H 4H 5H 6H 7H 8H 9H TH",
    "black_0": "AS KS QS TS 9S 8S 6S 2D 3D 4D 5D 6D 7D",
    "red_1": "JS 8D 9D TD JD QD KD AD JH QH KH AH SPY",
    "black_1": "JC 2C 3C 4C 5C 6C 7C 8C 9C TC QC KC AC",
}


def test_plays_its_active_jack_onto_the_trick_its_partner_wins():
    env = new_env("7S", SIDE_JACK_DEAL)
    play(env, "2S", "AS", "JS")  # red_1 must play its lone JS: black_0 wins anyway
    assert env.agent_selection == "black_1"  # void in spades: any card
    assert bot_choice(env) == "JC", "partner wins with AS and black_1 plays last: rescue"


def test_plays_its_trump_jack_when_following_onto_its_partners_winner():
    hands = {
        "red_0": "2S 3S 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH",
        "black_0": "AS KS 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD",
        "red_1": "4S 5S KD AD KH AH 2C 3C 4C 5C 6C 7C SPY",
        "black_1": "JS 6S 8S 9S TS QS JC 8C 9C TC QC KC AC",
    }
    env = new_env("7S", hands)
    play(env, "2S", "AS", "4S")
    assert env.agent_selection == "black_1"
    assert bot_choice(env) == "JS", "the trump Jack follows suit onto the partner's AS"


def test_plays_its_jack_third_when_its_partner_surely_wins():
    # red_0 holds every spade but the trump Jack: it wins trick 1 with the 2S (nobody can
    # follow) and leads the top trump AS. red_1, the bot, plays third: nothing unseen beats
    # the AS, so the rescue is certain though black_1 is still to play.
    hands = {
        "red_0": "2S 3S 4S 5S 6S 8S 9S TS QS KS AS 2H 3H",
        "black_0": "JS 4H 5H 6H 7H 8H 9H TH JH QH KH AH 2D",
        "red_1": "JC 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
        "black_1": "2C 3C 4C 5C 6C 7C 8C 9C TC QC KC AC SPY",
    }
    env = new_env("7S", hands)
    play(env, "2S", "JS", "3D", "2C")  # black_0 must play its lone JS
    assert env.agent_selection == "red_0"
    play(env, "AS", "4H")
    assert env.agent_selection == "red_1"
    assert bot_choice(env) == "JC"


# Trump Card TH (hearts trump; JH and JD Active).
OVERTRUMP_DEAL = {
    "red_0": "3H 5H 6H 7H KH JH 2D 9D TD QD KD AD SPY",
    "black_0": "2H 8H 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS",
    "red_1": "4H 9H QH KS AS 2C 3C 4C 5C 6C 7C 8C 9C",
    "black_1": "AH JD TC JC QC KC AC 3D 4D 5D 6D 7D 8D",
}


def test_overtrumps_to_deny_an_enemy_jack_rescue():
    env = new_env("TH", OVERTRUMP_DEAL)
    play(env, "2H", "4H", "AH", "3H")  # black_1 wins trick 1 and leads trick 2
    play(env, "JD", "2D", "8H")  # the enemy's Active JD, ruffed by its partner
    assert env.agent_selection == "red_1"
    assert bot_choice(env) == "9H", "the cheapest trump above 8H (not QH, not a club)"
    play(env, "9H")
    state = env.unwrapped.game
    assert state.captured[rules.RED, DECK.card("JD")]
    assert state.round_points == [0, 0], "the enemy's JD was not rescued"


def test_takes_the_spy_with_its_cheapest_winner():
    # Trump Card 7S. black_0 leads 2S, red_1 (void in spades) throws the Spy, black_1's 5S
    # wins for now; red_0, last, takes the Spy with 6S (neither ducking with 3S nor AS).
    hands = {
        "red_0": "3S 6S KS AS 2H 3H 4H 5H 6H 8H 9H TH QH",
        "black_0": "2S 4S 8S 9S TS QS JS JH KH AH 2D 3D 4D",
        "red_1": "SPY 5D 6D 7D 8D 9D TD JD QD KD AD 2C 3C",
        "black_1": "5S 4C 5C 6C 7C 8C 9C TC JC QC KC AC 7H",
    }
    env = new_env("7S", hands)
    play(env, "2S", "SPY", "5S")
    assert env.agent_selection == "red_0"
    assert bot_choice(env) == "6S"


def test_dumps_the_spy_on_its_partners_sure_trick():
    deal = dict(SIDE_JACK_DEAL)
    # black_1 holds the Spy instead of its Active JC: it dumps the Spy on black_0's AS.
    deal["black_1"] = "SPY 2C 3C 4C 5C 6C 7C 8C 9C TC QC KC AC"
    deal["red_1"] = "JS 8D 9D TD JD QD KD AD JH QH KH AH JC"
    env = new_env("7S", deal)
    play(env, "2S", "AS", "JS")
    assert bot_choice(env) == "SPY"


def mirror(text: str) -> str:
    """Card names with spades and hearts, clubs and diamonds swapped (the other colour)."""
    swap = str.maketrans("SHCD", "HSDC")
    return " ".join(n if n == "SPY" else n[0] + n[1].translate(swap) for n in text.split())


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("trump", ["7S", "7H"])
def test_spy_goes_to_its_own_army_in_every_variant(variant, trump):
    # With 7S the bot's (black) army is the trump colour; with 7H (the deal mirrored) it is
    # not, and under master_of_spies the Spy is worth 0 to it and 2 to the enemy: the
    # partner's sure trick is still its best use (nobody scores it).
    deal = dict(SIDE_JACK_DEAL)
    deal["black_1"] = "SPY 2C 3C 4C 5C 6C 7C 8C 9C TC QC KC AC"
    deal["red_1"] = "JS 8D 9D TD JD QD KD AD JH QH KH AH JC"
    lead = "2S AS JS"
    if trump == "7H":
        deal = {agent: mirror(names) for agent, names in deal.items()}
        lead = mirror(lead)
    env = new_env(trump, deal, variant=variant)
    play(env, *lead.split())
    assert bot_choice(env, variant) == "SPY"


def test_plays_low_under_its_partners_winner_and_keeps_its_trumps():
    # black_1 has no scoring card to give: under the partner's AS it follows with its
    # lowest spade, not its QS.
    deal = dict(SIDE_JACK_DEAL)
    deal["black_1"] = "6S QS 2C 3C 4C 5C 6C 7C 8C 9C TC KC AC"
    deal["black_0"] = "AS KS JC TS 9S 8S QC 2D 3D 4D 5D 6D 7D"
    env = new_env("7S", deal)
    play(env, "2S", "AS", "JS")
    assert bot_choice(env) == "6S"


def test_ducks_with_its_lowest_card_when_it_cannot_win():
    # red_1 follows the 2S lead after black_0's AS with no way to win: lowest spade (it
    # keeps its Active JS), nothing at stake.
    hands = {
        "red_0": "2S 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH",
        "black_0": "AS 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD",
        "red_1": "JS 3S 9S KS AH AD 2C 3C 4C 5C 6C 7C SPY",
        "black_1": "4S 5S 6S 8S TS QS JC 8C 9C TC QC KC AC",
    }
    env = new_env("7S", hands)
    play(env, "2S", "AS")
    assert env.agent_selection == "red_1"
    assert bot_choice(env) == "3S"


# --- the compiled card play replays the Python rules it replaced ---------------------------

GOLDEN = Path(__file__).resolve().parents[1] / "fixtures" / "golden_lost_ranks_heuristic.json"


def test_the_bot_replays_the_golden_games_of_the_python_rules():
    """``golden_lost_ranks_heuristic.json`` was written in commit 1f7e6e2 by
    ``tests/fixtures/make_golden_lost_ranks_heuristic.py`` (removed with the Python card
    play: ``git show 1f7e6e2:tests/fixtures/make_golden_lost_ranks_heuristic.py``) from the
    bot's Python rules, which a step-for-step test (commit 31d8b21) had matched with the
    compiled ones. 12 games a variant: the bot in all four seats on even seeds, in two
    against random on odd ones; every action."""
    from feral_envs.lost_ranks_v0 import env as make_env

    golden = json.loads(GOLDEN.read_text())
    assert golden["game"] == "lost_ranks" and len(golden["games"]) == 36
    for game in golden["games"]:
        variant, seed = game["variant"], game["seed"]
        env = make_env(variant=variant)
        env.reset(seed=seed)
        seats = [
            bot.make_policy(i, variant=variant)
            if seed % 2 == 0 or i % 2 == 0
            else RandomPolicy(7 + i)
            for i in range(4)
        ]
        actions = iter(game["actions"])
        for step, agent in enumerate(env.agent_iter()):
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            player = seats[AGENTS.index(agent)]
            action = player.act(obs["observation"], obs["action_mask"])
            assert action == next(actions), f"{variant} golden game seed {seed}, step {step}"
            env.step(action)
        assert next(actions, None) is None, f"{variant} golden game seed {seed}"


@pytest.mark.parametrize("variant", VARIANTS)
def test_lanes_play_as_the_bot(variant):
    """The batched lanes (passes and card play mixed in one call) choose as ``act``."""
    from test_agent_batch_policies import check_lanes_play_as_act, positions

    from agents.base import BatchPolicy, as_batch_policy

    def make():
        return bot.make_policy(0, variant=variant)

    pool = positions("lost_ranks", n_games=16, steps=60)
    assert any(np.argmax(o[OBS.phase.slice]) == rules.Phase.PASS for o, _ in pool)
    check_lanes_play_as_act(make, pool, n_lanes=24, rounds=30)
    policy = make()
    assert isinstance(policy, BatchPolicy) and as_batch_policy(policy, make) is policy


def test_bad_input_is_named():
    env = raw_env()
    env.reset(seed=1)
    obs = env.observe(env.agent_selection)
    o, m = obs["observation"], obs["action_mask"]
    policy = bot.make_policy(0)
    with pytest.raises(ValueError, match=r"914 entries .*got shape \(913,\)"):
        policy.act(o[:-1], m)
    with pytest.raises(ValueError, match="action mask has 53 entries"):
        policy.act(o, m[:-1])
    with pytest.raises(IndexError, match="lane 0 was not started"):
        policy.act_lanes(np.array([0]), o[None], m[None])
    assert policy.act(o, m) == bot.make_policy(0).act(o, m)
    longer = np.concatenate([o, np.ones(53, o.dtype)])  # appended inputs (--advice) ignored
    assert policy.act(longer, m) == policy.act(o, m)
