"""Lost Ranks encodings: action names, observation fields, no hidden information, docs."""

from __future__ import annotations

import copy
import pickle
from pathlib import Path

import numpy as np
import pytest
from lost_ranks_helpers import deal, new_env, play, reference_observation

from feral_envs import docgen
from feral_envs.lost_ranks import CORE, encoding, rules
from feral_envs.lost_ranks.encoding import OBS
from feral_envs.lost_ranks.rules import AGENTS, DECK, JACKS


def test_actions_are_the_53_cards_and_names_round_trip():
    assert CORE.n_actions == 53 == encoding.ACTIONS.size
    state = CORE.new_game(CORE.make_config(), np.random.default_rng(0), {})
    for card in range(53):
        name = CORE.action_to_string(state, card)
        assert CORE.string_to_action(state, name) == card
        assert CORE.string_to_action(state, f" {name.lower()} ") == card
    assert [CORE.action_to_string(state, a) for a in (0, 8, 9, 12, 13, 35, 52)] == [
        "2S",
        "TS",
        "JS",
        "AS",
        "2H",
        "JD",
        "SPY",
    ]
    for bad in ("1S", "JOKER", "", "10H", "S7"):
        assert CORE.string_to_action(state, bad) is None


def test_observation_fields_in_the_worked_example():
    hands = deal(
        "7S",
        red_0="2S 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH",
        black_0="3S 4S 5S 6S 8S 9S TS KD AD 2C 3C 4C 5C",
        red_1="JS AH 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD",
    )
    env = new_env("7S", hands, round=2, scores={"red": 4, "black": 6})
    play(env, "2S", "5S", "JS")
    obs = env.observe("black_1")["observation"]  # seat 3: left red_0, partner black_0

    def cards(span):
        return set(DECK.hand_names(obs[span.slice] > 0))

    assert cards(OBS.hand) == set(hands["black_1"])
    assert cards(OBS.trump_card) == {"7S"}
    assert obs[OBS.trump_suit.slice].tolist() == [1, 0, 0, 0]
    assert obs[OBS.trump_army.slice].tolist() == [1, 0], "spades are black: my army's colour"
    assert obs[OBS.round.slice].tolist() == [0, 1, 0, 0, 0, 0, 0]
    assert obs[OBS.tiebreaker.start] == 0
    assert obs[OBS.pass_direction.slice].tolist() == [0, 1], "round 2: the enemy card goes right"
    assert obs[OBS.scores.slice].tolist() == pytest.approx([6 / 18, 4 / 18])
    assert obs[OBS.phase.slice].tolist() == [0, 1, 0]
    assert obs[OBS.pass_step.slice].sum() == 0
    assert cards(OBS.played_left) == {"2S"} and cards(OBS.played_partner) == {"5S"}
    assert cards(OBS.played_right) == {"JS"} and cards(OBS.played_me) == set()
    assert (cards(OBS.trick_0), cards(OBS.trick_1), cards(OBS.trick_2)) == ({"2S"}, {"5S"}, {"JS"})
    assert obs[OBS.trick_leader.slice].tolist() == [0, 1, 0, 0]
    assert obs[OBS.led_suit.slice].tolist() == [1, 0, 0, 0]
    jacks = obs[OBS.jacks_played.slice].reshape(4, 4)
    assert jacks[3].tolist() == [1, 0, 0, 0] and jacks.sum() == 1  # the right enemy's JS
    assert env.observe("red_0")["observation"][OBS.trick_leader.start] == 1

    play(env, "KS")
    obs = env.observe("black_1")["observation"]
    assert cards(OBS.captured_mine) == {"2S", "5S", "JS", "KS"}
    assert cards(OBS.captured_theirs) == set() and cards(OBS.void_pile) == set()
    assert (
        obs[OBS.trick_0.start : OBS.led_suit.stop].tolist() == [0] * 159 + [1, 0, 0, 0] + [0] * 4
    ), "the trick is over; black_1 (me) leads the next"
    red = env.observe("red_1")["observation"]
    assert set(DECK.hand_names(red[OBS.captured_theirs.slice] > 0)) == {"2S", "5S", "JS", "KS"}
    assert red[OBS.trick_leader.slice].tolist() == [0, 1, 0, 0]


def test_pass_fields_after_the_exchange():
    env = new_env("7S", None, start="pass")
    for _ in range(12):
        env.step(env.legal_actions()[0])
    state = env.game
    for seat, agent in enumerate(AGENTS):
        obs = env.observe(agent)["observation"]
        chosen = state.pass_choice[seat].tolist()
        giver = (seat + 3) % 4  # round 1: cards go left, so they come from the right
        assert set(np.flatnonzero(obs[OBS.passed_to_partner.slice])) == set(chosen[:2])
        assert set(np.flatnonzero(obs[OBS.passed_to_enemy.slice])) == {chosen[2]}
        assert set(np.flatnonzero(obs[OBS.received_from_partner.slice])) == set(
            state.pass_choice[(seat + 2) % 4, :2].tolist()
        )
        assert set(np.flatnonzero(obs[OBS.received_from_enemy.slice])) == {
            int(state.pass_choice[giver, 2])
        }


def _random_games(n_games, seed, variant="standard"):
    """(state, rng) after every action of ``n_games`` random games (start and options vary)."""
    rng = np.random.default_rng(seed)
    config = CORE.make_config(variant=variant)
    for game in range(n_games):
        options = [{}, {"start": "play"}, {"round": 6, "scores": {"red": 9, "black": 9}}][game % 3]
        state = CORE.new_game(config, rng, options)
        yield state
        while not CORE.status(state)[0]:
            legal_cards = np.flatnonzero(CORE.legal_mask(state))
            CORE.apply(state, int(legal_cards[rng.integers(len(legal_cards))]), rng)
            yield state


@pytest.mark.parametrize("variant", rules.VARIANTS)
def test_incremental_observation_equals_the_reference(variant):
    # Seats are observed at random moments (often skipping many steps or whole rounds), so
    # the incremental views catch up across tricks, the pass and new rounds.
    pick = np.random.default_rng(1)
    checked = 0
    for state in _random_games(12, seed=rules.VARIANTS.index(variant), variant=variant):
        for seat in range(4):
            if pick.random() < 0.3:
                np.testing.assert_array_equal(
                    CORE.observe(state, seat), reference_observation(state, seat)
                )
                checked += 1
    assert checked > 1000


def test_voids_shown_by_not_following_a_jack_follows_and_the_spy_shows_a_void():
    hands = deal(
        "7S",
        red_0="2S 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH",
        black_0="AS 3S 4S 5S 6S 8S 9S KD AD 2C 3C 4C 5C",
        red_1="JS AH 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD",
    )  # black_1: TS QS KS 6C 7C 8C 9C TC JC QC KC AC SPY

    def voids(agent):  # rows: me, left, partner, right; columns: S H D C
        return env.observe(agent)["observation"][OBS.voids_shown.slice].reshape(4, 4)

    env = new_env("7S", hands)
    play(env, "2S", "AS", "JS", "TS")  # red_1's JS is a spade: it follows, no void
    assert all(voids(agent).sum() == 0 for agent in AGENTS)
    play(env, "KD", "2D", "SPY")  # black_0 won and leads; black_1 has no diamond: the Spy
    shown = voids("red_0")
    assert shown[3].tolist() == [0, 0, 1, 0] and shown.sum() == 1  # at once, mid-trick
    assert voids("black_1")[0].tolist() == [0, 0, 1, 0]  # the seat itself sees it too
    play(env, "2H")  # red_0 discards a heart on the diamond lead
    shown = voids("red_1")  # me red_1, left black_1, partner red_0, right black_0
    assert shown.tolist() == [[0, 0, 0, 0], [0, 0, 1, 0], [0, 0, 1, 0], [0, 0, 0, 0]]
    assert "SPY" not in {DECK.names[c] for c in np.flatnonzero(env.game.hands[3])}


def test_a_void_shown_is_a_real_void():
    # Whatever happens, a seat shown void in a suit holds no card of it (the Trump Card is
    # in no hand), and the block is the same from every seat, turned to its own frame.
    suits = np.array(DECK.suit_of)
    met = 0
    for state in _random_games(30, seed=7):
        if state.phase != rules.Phase.PLAY:
            continue
        seen = [CORE.observe(state, v)[OBS.voids_shown.slice].reshape(4, 4) for v in range(4)]
        for seat in range(4):
            row = seen[0][seat]  # seat 0's frame: row i is seat i
            for viewer in range(1, 4):
                np.testing.assert_array_equal(seen[viewer][(seat - viewer) % 4], row)
            for suit in np.flatnonzero(row):
                assert not (state.hands[seat] & (suits == suit)).any()
                met += 1
    assert met > 1000


def test_copied_states_observe_like_the_original():
    # The observation cache does not travel with a copied or pickled state: each copy
    # rebuilds its own from the state fields, and both then go on independently.
    rng = np.random.default_rng(5)
    copies = 0
    for step, state in enumerate(_random_games(3, seed=7)):
        if step % 23 == 0:
            for seat in range(4):
                CORE.observe(state, seat)  # the original's cache is warm
            twin = copy.deepcopy(state) if step % 2 else pickle.loads(pickle.dumps(state))
            twin_rng = np.random.default_rng(step)
            for _ in range(rng.integers(1, 30)):
                if CORE.status(twin)[0]:
                    break
                legal = np.flatnonzero(CORE.legal_mask(twin))
                CORE.apply(twin, int(legal[twin_rng.integers(len(legal))]), twin_rng)
                seat = int(rng.integers(4))
                np.testing.assert_array_equal(
                    CORE.observe(twin, seat), reference_observation(twin, seat)
                )
            for seat in range(4):
                np.testing.assert_array_equal(
                    CORE.observe(state, seat), reference_observation(state, seat)
                )
            copies += 1
    assert copies > 10


def test_observations_are_fresh_arrays():
    state = CORE.new_game(CORE.make_config(), np.random.default_rng(0), {})
    a = CORE.observe(state, 0)
    a[:] = 7
    assert not np.array_equal(CORE.observe(state, 0), a)
    m = CORE.legal_mask(state)
    m[:] = 1
    assert CORE.legal_mask(state).sum() == 13


# ---------------------------------------------------------------------------------------------
# No hidden information


def _swapped_deals(rng, seat):
    """Two deals that differ only in cards ``seat`` cannot see: some cards swapped between
    the hands of the other three. The holder of the lowest trump is not changed (it must
    lead it, which everyone sees)."""
    dealt = CORE.new_game(CORE.make_config(), rng, {})  # a deal from the engine's stream
    trump = dealt.trump_card
    hands = [np.flatnonzero(dealt.hands[s]).tolist() for s in range(4)]
    suit = DECK.suit_of[trump]
    lowest = min(  # card ids rise with the rank: the lowest trump Infantry but the Trump Card
        c for c in range(rules.N_CARDS) if DECK.suit_of[c] == suit and c not in (trump, *JACKS)
    )
    other = hands_b = [list(h) for h in hands]
    others = [s for s in range(4) if s != seat]
    swaps = int(rng.integers(1, 4))
    while swaps:
        a, b = rng.choice(others, 2, replace=False)
        i, j = rng.integers(13), rng.integers(13)
        if lowest not in (other[a][i], other[b][j]):
            other[a][i], other[b][j] = other[b][j], other[a][i]
            swaps -= 1
    assert hands_b[seat] == hands[seat] and hands_b != hands

    def named(hs):
        return {AGENTS[s]: [DECK.names[c] for c in h] for s, h in enumerate(hs)}

    return DECK.names[trump], named(hands), named(hands_b)


@pytest.mark.parametrize("start", ["pass", "play"])
def test_cards_a_seat_cannot_see_never_change_its_observations(start):
    rng = np.random.default_rng(5)
    config = CORE.make_config()
    compared = 0
    for game in range(60):
        seat = game % 4
        trump, hands_a, hands_b = _swapped_deals(rng, seat)
        seed = int(rng.integers(1 << 30))
        a = CORE.new_game(
            config,
            np.random.default_rng(seed),
            {"trump_card": trump, "hands": hands_a, "start": start},
        )
        b = CORE.new_game(
            config,
            np.random.default_rng(seed),
            {"trump_card": trump, "hands": hands_b, "start": start},
        )
        rng_a, rng_b = np.random.default_rng(seed + 1), np.random.default_rng(seed + 1)
        while not CORE.status(a)[0]:
            assert CORE.seat_to_act(a) == CORE.seat_to_act(b)
            np.testing.assert_array_equal(CORE.observe(a, seat), CORE.observe(b, seat))
            compared += 1
            both = np.flatnonzero(CORE.legal_mask(a) & CORE.legal_mask(b))
            if CORE.seat_to_act(a) == seat:
                np.testing.assert_array_equal(CORE.legal_mask(a), CORE.legal_mask(b))
            if both.size == 0:
                break  # the hidden difference now forces different plays
            action = int(both[rng.integers(both.size)])
            CORE.apply(a, action, rng_a)
            CORE.apply(b, action, rng_b)
    assert compared > 1000


def test_another_seats_pass_choices_never_show_until_the_cards_arrive():
    # black_0 passes different cards in two games; red_0 (who receives nothing from it) sees
    # the same throughout; red_1 and black_1 (its enemy and partner) see no difference until
    # the exchange.
    hands = deal("9C")
    games = [new_env("9C", hands, start="pass") for _ in range(2)]
    choices = [hands["black_0"][:3], hands["black_0"][3:6]]
    for env in games:
        play(env, *hands["red_0"][:3])
    for i in range(3):
        for env, chosen in zip(games, choices, strict=True):
            play(env, chosen[i])
        for agent in ("red_0", "red_1", "black_1"):
            np.testing.assert_array_equal(
                games[0].observe(agent)["observation"], games[1].observe(agent)["observation"]
            )
    for env in games:
        play(env, *hands["red_1"][:3], *hands["black_1"][:3])
    assert games[0].game.phase == rules.Phase.PLAY
    np.testing.assert_array_equal(
        games[0].observe("red_0")["observation"], games[1].observe("red_0")["observation"]
    )
    for agent in ("red_1", "black_1"):  # the receivers now see what they received
        assert not np.array_equal(
            games[0].observe(agent)["observation"], games[1].observe(agent)["observation"]
        )


def test_docs_tables_are_current():
    page = Path(docgen.DOCS / "lost_ranks.md")
    text = page.read_text()
    assert "<!-- BEGIN GENERATED: observation -->" in text
    assert "<!-- BEGIN GENERATED: actions -->" in text
    assert docgen.render_page("lost_ranks", text) == text, "run python -m feral_envs.docgen"
