"""The card network (agents/networks/cards.py): each card's token reads that card's entries of the
observation, the policy follows the heuristic where the gate is off, a policy file keeps
all of it, and the fit learns a per-card rule."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest
import torch

from agents.advice import Advisor, advised_core
from agents.networks.actor import CheckpointError
from agents.networks.cards import FOLLOW, ActorCards, CardNet, card_inputs
from agents.networks.policy_file import policy_meta, read_policy_file, write_policy_file
from agents.registry import load_policy
from feral_envs import game_core
from feral_envs.lost_ranks import determinize
from feral_envs.lost_ranks.encoding import CARD_SPANS, OBS
from feral_envs.lost_ranks.rules import DECK, SPY
from train.rollout import MARGINS, RolloutConfig, Values, fit, gain_of

CORE = game_core("lost_ranks")
ADVISED = advised_core(CORE, {})
N_OBS = OBS.size + CORE.n_actions


def bot_decisions(n: int, seed: int = 0) -> tuple[np.ndarray, ...]:
    """``n`` decisions of the bot's self-play: whether deals could be sampled there, the
    advised observations, the legal actions and the bot's choices."""
    advisor = Advisor("lost_ranks", {})
    rng = np.random.default_rng(seed)
    sampled, obs, masks, bot = [], [], [], []
    while len(bot) < n:
        state = CORE.new_game(CORE.make_config(), rng, {})
        while len(bot) < n and not any(CORE.status(state)[:2]):
            seat = CORE.seat_to_act(state)
            mask = CORE.legal_mask(state).astype(bool)
            seen = CORE.observe(state, seat)
            action = advisor.bot.act(seen, mask)
            sampled.append(determinize.can_sample(state))
            obs.append(advisor.augment(seen, mask))
            masks.append(mask)
            bot.append(action)
            CORE.apply(state, action, rng)
    return np.array(sampled), np.array(obs, np.float32), np.array(masks), np.array(bot)


def test_each_token_reads_its_own_cards_entries():
    inputs = card_inputs(ADVISED)
    card, suit = inputs["card_index"].numpy(), inputs["suit_index"].numpy()
    assert card.shape == (CORE.n_actions, len(CARD_SPANS) + 1)
    for c in (0, 13 * 2 + 9, SPY):
        expected = [span.start + c for span in CARD_SPANS] + [OBS.size + c]  # + the advice
        assert card[c].tolist() == expected
    jh = DECK.card("JH")
    heart = DECK.suit_of[jh]
    assert OBS.trump_suit.start + heart in suit[jh]
    assert OBS.led_suit.start + heart in suit[jh]
    assert [OBS.voids_shown.start + 4 * seat + heart for seat in range(4)] == [
        i for i in suit[jh] if i in OBS.voids_shown
    ]
    assert (suit[SPY] == N_OBS).all()  # the Spy has no suit: it reads the appended 0
    per_card = set(card.ravel()) | set(suit.ravel())
    common = set(inputs["global_index"].tolist())
    assert not per_card & common
    assert per_card | common | {N_OBS} == set(range(N_OBS + 1))  # every input is read
    assert inputs["gate"].item() == determinize.SAMPLED_FLAG
    with pytest.raises(ValueError, match="lost_heir has no card blocks"):
        card_inputs(game_core("lost_heir"))


def test_the_gate_flag_is_set_exactly_where_deals_can_be_sampled():
    sampled, obs, _, _ = bot_decisions(600)
    assert any(sampled) and not all(sampled)
    assert np.array_equal(obs[:, determinize.SAMPLED_FLAG] == 1, sampled)


def test_the_policy_follows_the_heuristic_where_the_gate_is_off_or_the_margin_is_large():
    torch.manual_seed(0)
    net = CardNet(card_inputs(ADVISED), width=8, layers=1)
    sampled, obs, masks, bot = bot_decisions(300)
    actor = ActorCards.from_net(net)
    rng = np.random.default_rng(0)
    chosen = actor.act(obs.copy(), masks, rng, deterministic=True)
    off = ~sampled
    assert np.array_equal(chosen[off], bot[off])
    assert (chosen[~off] != bot[~off]).any()  # an untrained network departs somewhere
    assert masks[np.arange(len(chosen)), chosen].all()
    logits = actor.logits(obs[off][:1])
    assert logits.max() == FOLLOW
    actor.net.margin.fill_(1e3)
    assert np.array_equal(actor.act(obs.copy(), masks, rng, deterministic=True), bot)


def test_a_policy_file_keeps_the_network_and_its_rule(tmp_path):
    torch.manual_seed(1)
    net = CardNet(card_inputs(ADVISED), width=8, layers=2, margin=0.25, temperature=0.5)
    actor = ActorCards.from_net(net)
    path = tmp_path / "cards.zip"
    write_policy_file(path, actor, policy_meta(ADVISED, actor, 0, {}))
    loaded, meta = read_policy_file(path, ADVISED)
    assert isinstance(loaded, ActorCards) and meta["trunk"] == [8, 8]
    _, obs, _, _ = bot_decisions(50)
    assert np.allclose(loaded.logits(obs), actor.logits(obs), atol=1e-5)
    assert loaded.net.margin.item() == 0.25 and loaded.net.temperature.item() == 0.5
    policy = load_policy(f"ppo_argmax:{path}", "lost_ranks", seed=0, keywords={})
    state = CORE.new_game(CORE.make_config(), np.random.default_rng(3), {})
    mask = CORE.legal_mask(state)
    assert mask[policy.act(CORE.observe(state, CORE.seat_to_act(state)), mask)]
    weights = actor.weights()
    del weights["cards.gate"]
    with pytest.raises(CheckpointError, match="buffer 'gate' is missing"):
        ActorCards(weights)
    weights = actor.weights()
    weights["cards.token.weight"] = weights["cards.token.weight"][:, :3]
    with pytest.raises(CheckpointError, match="do not fit together"):
        ActorCards(weights)


def synthetic(rule: str) -> dict[str, Values]:
    """Fit, validation and test sets of real play decisions with synthetic advantages over
    the bot's card: ``"trump"``, a trump card gains a point and any other loses one;
    ``"never"``, every other card loses half a point on average, give or take a point."""
    sampled, obs, masks, bot = bot_decisions(2400, seed=2)
    keep = sampled & (masks.sum(axis=1) > 1)
    obs, masks, bot = obs[keep], masks[keep], bot[keep]
    if rule == "trump":
        trump = obs[:, OBS.trump_suit.slice].argmax(axis=1)
        is_trump = np.array(DECK.suit_of)[None, :] == trump[:, None]
        values = np.where(is_trump, 1.0, -1.0).astype(np.float32) * masks
    else:
        values = np.random.default_rng(0).normal(-0.5, 1.0, masks.shape).astype(np.float32)
        values *= masks
        values[np.arange(len(bot)), bot] = 0.0
    advantages = values - values[np.arange(len(bot)), bot][:, None] * masks
    n = len(bot)
    parts = [slice(0, n // 5), slice(n // 5, 2 * n // 5), slice(2 * n // 5, n)]
    split = [Values(obs[p], masks[p], bot[p], advantages[p]) for p in parts]
    return {"test": split[0], "validation": split[1], "fit": split[2]}


def fit_and_test(data: dict[str, Values], margin: float | str) -> tuple[ActorCards, Any]:
    config = RolloutConfig(
        width=16, layers=1, epochs=15, batch_size=32, learning_rate=3e-3, margin=margin
    )
    actor, log = fit(dataclasses.replace(config, progress=False), data)
    assert len(log) == 15
    test = data["test"]
    logits = actor.logits(test.obs)
    logits[~test.masks] = -np.inf
    return actor, gain_of(logits.argmax(axis=1), test)


@pytest.mark.parametrize("margin", [0.3, "auto"])
def test_the_fit_learns_a_rule_about_each_cards_suit(margin):
    """The fit must play trump where it can."""
    data = synthetic("trump")
    actor, measured = fit_and_test(data, margin)
    test = data["test"]
    best = np.where(test.masks, test.advantages, -np.inf).max(axis=1).mean()
    assert best > 0.2  # the rule pays on these decisions
    assert measured.gain > 0.95 * best
    if margin == "auto":
        assert actor.net.margin.item() < MARGINS[-1]
    else:
        assert actor.net.margin.item() == pytest.approx(margin)


def test_a_fit_that_cannot_beat_the_bot_plays_as_the_bot_with_an_auto_margin():
    data = synthetic("never")
    actor, measured = fit_and_test(data, "auto")
    assert actor.net.margin.item() == MARGINS[-1]
    assert measured.departs == 0 and measured.gain == 0
