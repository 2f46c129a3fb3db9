"""Helpers for the Lost Ranks tests: deals written with card names, scripted play."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from feral_envs.lost_ranks import CORE, rules
from feral_envs.lost_ranks.env import raw_env
from feral_envs.lost_ranks.rules import AGENTS, DECK

RED, BLACK = rules.RED, rules.BLACK


def deal(trump: str, **hands: str | None) -> dict[str, list[str]]:
    """Hands by agent from space-separated card names; agents given as None (or left out)
    share the remaining cards in card-id order, 13 each, in seat order."""
    fixed = {agent: hands[agent].split() for agent in AGENTS if hands.get(agent)}
    used = {DECK.card(trump)} | {DECK.card(c) for cards in fixed.values() for c in cards}
    rest = [DECK.names[c] for c in range(rules.N_CARDS) if c not in used]
    out = {}
    for agent in AGENTS:
        if agent in fixed:
            out[agent] = fixed[agent]
        else:
            out[agent], rest = rest[:13], rest[13:]
    assert not rest, f"cards left over: {rest}"
    return out


def new_env(
    trump: str | None = None,
    hands: dict | None = None,
    start: str = "play",
    variant: str = "standard",
    reward: str = "win",
    **options,
) -> raw_env:
    env = raw_env(variant=variant, reward=reward)
    if trump is not None:
        options["trump_card"] = trump
    if hands is not None:
        options["hands"] = hands
    env.reset(seed=0, options={"start": start, **options})
    return env


def play(env: raw_env, *names: str) -> None:
    """Play (or pass-choose) the named cards in turn; each must be legal for the agent to act."""
    for name in names:
        env.step(env.string_to_action(name))


def legal(env: raw_env) -> set[str]:
    return set(env.legal_action_names())


def to_act(env: raw_env) -> str:
    return env.agent_selection


def hand(env: raw_env, agent: str) -> set[str]:
    return set(DECK.hand_names(env.game.hands[AGENTS.index(agent)]))


def names(mask: np.ndarray) -> set[str]:
    return set(DECK.hand_names(np.asarray(mask, bool)))


def play_round(env: raw_env, prefer: dict[str, Iterable[str]] | None = None) -> None:
    """Play until the round in progress ends (or the game): each agent plays the first of its
    ``prefer`` cards that is legal, else its legal card of lowest id."""
    prefer = {a: [DECK.card(c) for c in cards] for a, cards in (prefer or {}).items()}
    start_round = env.game.round
    while env.agents and not env.terminations[env.agent_selection]:
        if env.game.round != start_round:
            return
        mask = CORE.legal_mask(env.game)
        choice = next(
            (c for c in prefer.get(env.agent_selection, ()) if mask[c]),
            int(np.flatnonzero(mask)[0]),
        )
        env.step(choice)


def pass_first_legal(env: raw_env) -> None:
    """Every seat passes its three legal cards of lowest id."""
    while env.game.phase == rules.Phase.PASS:
        env.step(int(np.flatnonzero(CORE.legal_mask(env.game))[0]))


def reference_observation(state: rules.State, seat: int) -> np.ndarray:
    """The observation built from scratch, field by field from ``encoding.OBS``: the oracle
    that the engine's observation must always equal, read from the decoded view's plain
    fields."""
    from feral_envs.lost_ranks.encoding import OBS

    army = seat % 2
    rel = [(seat + i) % 4 for i in range(4)]  # me, left, partner, right
    obs = np.zeros(OBS.size, np.float32)

    def put(span, index, value=1.0):
        obs[span.start + index] = value

    obs[OBS.hand.slice] = state.hands[seat]
    put(OBS.trump_card, state.trump_card)
    put(OBS.trump_suit, state.trump_suit)
    put(OBS.trump_army, 0 if state.trump_colour == army else 1)
    put(OBS.round, state.round - 1)
    put(OBS.tiebreaker, 0, float(state.tiebreaker))
    put(OBS.pass_direction, 0 if state.pass_left else 1)
    put(OBS.scores, 0, state.scores[army] / 18)
    put(OBS.scores, 1, state.scores[1 - army] / 18)
    put(OBS.round_points, 0, state.round_points[army] / 18)
    put(OBS.round_points, 1, state.round_points[1 - army] / 18)
    put(OBS.phase, int(state.phase))
    if state.phase == rules.Phase.PASS and state.to_act == seat:
        put(OBS.pass_step, state.pass_step)
    record = state.pass_record[seat]
    for span, row in zip(
        (
            OBS.passed_to_partner,
            OBS.passed_to_enemy,
            OBS.received_from_partner,
            OBS.received_from_enemy,
        ),
        record,
        strict=True,
    ):
        obs[span.slice] = row
    for span, who in zip(
        (OBS.played_me, OBS.played_left, OBS.played_partner, OBS.played_right), rel, strict=True
    ):
        obs[span.slice] = state.played[who]
    for position, span in enumerate((OBS.trick_0, OBS.trick_1, OBS.trick_2)):
        if position < state.n_in_trick:
            put(span, state.trick[position])
    if state.phase == rules.Phase.PLAY:
        put(OBS.trick_leader, rel.index(state.leader))
        if state.n_in_trick and state.led_suit >= 0:
            put(OBS.led_suit, state.led_suit)
    obs[OBS.captured_mine.slice] = state.captured[army]
    obs[OBS.captured_theirs.slice] = state.captured[1 - army]
    obs[OBS.void_pile.slice] = state.void_pile
    for i, who in enumerate(rel):
        for j, jack in enumerate(rules.JACKS):
            put(OBS.jacks_played, 4 * i + j, float(state.played[who, jack]))
    if state.phase != rules.Phase.PASS:
        for k in range(state.tricks_done * 4 + state.n_in_trick):
            led = rules.DECK.suit_of[state.plays[k - k % 4]]
            if k % 4 and led >= 0 and rules.DECK.suit_of[state.plays[k]] != led:
                put(OBS.voids_shown, 4 * rel.index(state.play_seats[k]) + led)
    return obs


def swap_hidden(game, seat: int, cards: Iterable[int], clear_pass_of: Iterable[int] = ()):
    """A copy of ``game`` in which each card of ``cards`` changes hands between the two
    enemies of ``seat``, and the pass choices of the seats ``clear_pass_of`` are forgotten
    except the card passed to ``seat``: a change made in the state row, outside the rules,
    that ``seat`` cannot see."""
    from feral_envs.lost_ranks.engine import STATE

    other = game.copy()
    a, b = (s for s in range(4) if s not in (seat, rules.partner(seat)))
    holder = other.row[STATE.holder.slice]
    for card in cards:
        holder[card] = b if holder[card] == a else a
    choices = other.row[STATE.pass_choice.slice].reshape(4, rules.PASS_SIZE)
    for giver in clear_pass_of:
        kept = choices[giver, 2] if rules.pass_enemy(giver, game.round) == seat else None
        choices[giver] = rules.NO_CARD
        if kept is not None:
            choices[giver, 2] = kept
    return other
