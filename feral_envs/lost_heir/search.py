"""Lost Heir search: worlds sampled from a seat's observation, and the open-card solver.

* :func:`sample_from_observation` builds a full engine row from one seat's observation (the
  array a bot sees) and a numpy generator: everything the observation shows is copied (the
  seat's own hand, every card played and to which trick, the tricks' leaders and winners, the
  bidding, the scores, the phase), and the cards the seat cannot see are dealt again among the
  other three seats, each getting as many as it holds, none a card of a city it has shown it
  is void in (a card of another city played when that city was led). The row's random stream
  (entries ``0 .. 3``, the future deals) comes from the generator.
  :func:`sample_world` is that function applied to ``observe(row, seat)``: the env's sampler
  and the bot's are one function, and a world is a function of the view and the generator
  alone, by construction. No weighting: the bids and the play so far say nothing more than the
  voids to the sampler (``docs/search.md``, "Lost Heir").
* :func:`solve` gives the open-card value of each legal action in the play phase: the acting
  team's score change for the hand minus the other team's under optimal play by both teams
  (the kernels are in :mod:`feral_envs.lost_heir.solver`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from feral_envs.cards import NO_CARD, NO_SUIT
from feral_envs.core import DRAW
from feral_envs.engine.rng import below
from feral_envs.lost_heir import engine as E
from feral_envs.lost_heir import solver
from feral_envs.lost_heir.encoding import N_RANKS, N_SEATS, N_TRICKS
from feral_envs.lost_heir.rules import (
    CARDS_PER_HAND,
    N_CARDS,
    NO_CALL,
    NOBODY,
    TAKE_A_LEAD_CHOICES,
    Config,
)

N_CITIES = N_CARDS // N_RANKS
N_CALL_KINDS = E.N_CALL_KINDS


# ---------------------------------------------------------------------------------------
# Reading an observation (encoding.OBS, ego-centric: seat blocks me, left, partner, right;
# team blocks my team, their team) back into absolute seats and teams


@njit(cache=True)
def _seat_of(obs, start, seat):
    """The absolute seat whose one-hot (relative block) is set at ``start``; NOBODY if none."""
    for rel in range(N_SEATS):
        if obs[start + rel] != 0:
            return (seat + rel) % N_SEATS
    return NOBODY


@njit(cache=True)
def _one_hot(obs, start, n):
    """Index of the set entry of a one-hot of size ``n``; -1 if none."""
    for i in range(n):
        if obs[start + i] != 0:
            return i
    return -1


@njit(cache=True)
def _count(obs, start, n):
    total = 0
    for i in range(n):
        total += 1 if obs[start + i] != 0 else 0
    return total


@njit(cache=True)
def _team_value(obs, start, seat, team):
    return round(obs[start + (team - seat) % 2])


@njit(cache=True)
def _copy_public(obs, seat, out):
    """Every field of ``out`` but the stream and the deal, from ``seat``'s observation."""
    phase = _one_hot(obs, E.OBS_PHASE, 6)
    out[E.PHASE] = phase
    out[E.DEALER] = _seat_of(obs, E.OBS_DEALER, seat)
    to_act = _seat_of(obs, E.OBS_TO_ACT, seat)
    out[E.TO_ACT] = to_act if to_act != NOBODY else seat  # not shown once the game is over
    for card in range(N_CARDS):
        out[E.TRICK_OF_CARD + card] = -1
        for k in range(N_TRICKS):
            if obs[E.OBS_CARD_TRICK + N_TRICKS * card + k] != 0:
                out[E.TRICK_OF_CARD + card] = k
    trick_len = 0
    for pos in range(N_SEATS):
        out[E.TRICK + pos] = NO_CARD
        for card in range(N_CARDS):
            if obs[E.OBS_TRICK + N_CARDS * pos + card] != 0:
                out[E.TRICK + pos] = card
                trick_len = pos + 1
    out[E.TRICK_LEN] = trick_len
    out[E.LEADER] = _seat_of(obs, E.OBS_LEADER, seat)
    led = _one_hot(obs, E.OBS_LED_CITY, N_CITIES)
    out[E.LED_CITY] = led if led >= 0 else NO_SUIT
    trump = _one_hot(obs, E.OBS_TRUMP, N_CITIES)
    out[E.TRUMP] = trump if trump >= 0 else NO_SUIT
    out[E.LEAD_HANDED_OVER] = int(obs[E.OBS_LEAD_HANDED_OVER] != 0)
    done = 0
    for k in range(N_TRICKS):
        leader, winner = NOBODY, NOBODY
        for rel in range(N_SEATS):
            if obs[E.OBS_TRICK_LEADERS + N_TRICKS * rel + k] != 0:
                leader = (seat + rel) % N_SEATS
            if obs[E.OBS_TRICK_WINNERS + N_TRICKS * rel + k] != 0:
                winner = (seat + rel) % N_SEATS
        out[E.TRICK_LEADERS + k] = leader
        out[E.TRICK_WINNERS + k] = winner
        if winner != NOBODY:
            done += 1
    out[E.TRICKS_DONE] = done
    heir, boy = NOBODY, NOBODY
    for team in range(2):
        out[E.TEAM_TRICKS + team] = _team_value(obs, E.OBS_TRICKS, seat, team)
        out[E.TEAM_POINTS + team] = _team_value(obs, E.OBS_POINTS, seat, team)
        if obs[E.OBS_HEIR + (team - seat) % 2] != 0:
            heir = team
        if obs[E.OBS_BOY + (team - seat) % 2] != 0:
            boy = team
        out[E.SCORES + team] = _team_value(obs, E.OBS_SCORES, seat, team)
        out[E.LAST_HAND + team] = _team_value(obs, E.OBS_LAST_HAND, seat, team)
    out[E.HEIR_TEAM] = heir
    out[E.BOY_TEAM] = boy
    for other in range(N_SEATS):
        call = _one_hot(obs, E.OBS_CALLS + N_CALL_KINDS * ((other - seat) % N_SEATS), N_CALL_KINDS)
        out[E.CALLS + other] = call if call >= 0 else NO_CALL
    out[E.DUEL_REFUSALS] = _count(obs, E.OBS_DUEL_REFUSALS, E.OBS_DUEL_RAISES - E.OBS_DUEL_REFUSALS)
    out[E.DUEL_RAISES] = _count(obs, E.OBS_DUEL_RAISES, E.OBS_HIGH_BID - E.OBS_DUEL_RAISES)
    high = _one_hot(obs, E.OBS_HIGH_BID, 9)
    out[E.HIGH_BID] = high + 4 if high >= 0 else 0
    out[E.HIGH_BIDDER] = _seat_of(obs, E.OBS_HIGH_BIDDER, seat)
    contract = _one_hot(obs, E.OBS_CONTRACT, 9)
    out[E.CONTRACT] = contract + 4 if contract >= 0 else 0
    out[E.DECLARER] = _seat_of(obs, E.OBS_DECLARER, seat)
    out[E.HANDS_PLAYED] = round(obs[E.OBS_HANDS_PLAYED])
    # The end of the game, as the engine decides it (E._end_hand) from what is shown.
    out[E.TERMINATED] = 0
    out[E.TRUNCATED] = 0
    out[E.WINNER] = DRAW
    if phase == E.PHASE_OVER:
        reached0 = out[E.SCORES] >= out[E.TARGET_SCORE]
        reached1 = out[E.SCORES + 1] >= out[E.TARGET_SCORE]
        if reached0 or reached1:
            out[E.TERMINATED] = 1
            if reached0 and reached1:
                out[E.WINNER] = out[E.DECLARER] % 2
            else:
                out[E.WINNER] = 0 if reached0 else 1
        else:
            out[E.TRUNCATED] = 1


@njit(cache=True)
def _feasible(void, left, cap, seat):
    """Can the cards ``left[city]`` go to the other seats (room ``cap``) avoiding voids? Hall's
    condition: for every set of seats, the cards only they may take fit in their room."""
    for subset in range(8):  # subsets of the three other seats
        room = 0
        members = np.zeros(N_SEATS, dtype=np.int64)
        for j in range(3):
            if (subset >> j) & 1:
                s = (seat + 1 + j) % N_SEATS
                members[s] = 1
                room += cap[s]
        need = 0
        for c in range(N_CITIES):
            inside = True
            for s in range(N_SEATS):
                if s != seat and void[s, c] == 0 and members[s] == 0:
                    inside = False
            if inside:
                need += left[c]
        if need > room:
            return False
    return True


@njit(cache=True)
def _deal_hidden(obs, seat, out, stream):
    """Write ``out``'s deal: ``seat``'s hand and every played card where they are; the unseen
    cards dealt among the other seats from ``stream`` (an int32 row of stream words), card by
    card in a shuffled order, each to a seat with room and no void in its city, chosen with
    probability proportional to the room left, among those that keep the rest dealable."""
    owner = np.full(N_CARDS, -1, dtype=np.int64)
    for card in range(N_CARDS):
        if obs[E.OBS_HAND + card] != 0:
            owner[card] = seat
        for rel in range(N_SEATS):
            if obs[E.OBS_PLAYED + N_CARDS * rel + card] != 0:
                owner[card] = (seat + rel) % N_SEATS
    cap = np.full(N_SEATS, CARDS_PER_HAND, dtype=np.int64)
    for card in range(N_CARDS):
        if owner[card] >= 0:
            cap[owner[card]] -= 1
    cap[seat] = 0
    void = np.zeros((N_SEATS, N_CITIES), dtype=np.int64)
    _voids_from_owners(out, owner, void)
    hidden = np.empty(N_CARDS, dtype=np.int64)
    n_hidden = 0
    left = np.zeros(N_CITIES, dtype=np.int64)
    for card in range(N_CARDS):
        if owner[card] < 0:
            hidden[n_hidden] = card
            n_hidden += 1
            left[card // N_RANKS] += 1
    for i in range(n_hidden - 1, 0, -1):  # Fisher-Yates
        j = below(stream, i + 1)
        hidden[i], hidden[j] = hidden[j], hidden[i]
    for i in range(n_hidden):
        card = hidden[i]
        city = card // N_RANKS
        left[city] -= 1
        weight = np.zeros(N_SEATS, dtype=np.int64)
        total = 0
        for s in range(N_SEATS):
            if s != seat and cap[s] > 0 and void[s, city] == 0:
                cap[s] -= 1
                if _feasible(void, left, cap, seat):
                    weight[s] = cap[s] + 1
                    total += cap[s] + 1
                cap[s] += 1
        r = below(stream, total)  # total > 0: the true deal is one way to go on
        chosen = 0
        for s in range(N_SEATS):
            if r < weight[s]:
                chosen = s
                break
            r -= weight[s]
        owner[card] = chosen
        cap[chosen] -= 1
    k = 0
    for s in range(N_SEATS):  # seat by seat, in card order (as given hands are)
        for card in range(N_CARDS):
            if owner[card] == s:
                out[E.DEAL + k] = card
                k += 1


@njit(cache=True)
def _voids_from_owners(out, owner, void):
    """``void[s, city] = 1`` where seat ``s`` played another city to a trick that city led
    (completed tricks and the current one)."""
    n_done = out[E.TRICKS_DONE]
    cards = np.empty(N_SEATS, dtype=np.int64)
    for k in range(min(n_done + 1, N_TRICKS)):
        if k == n_done:  # the current trick
            n_cards = out[E.TRICK_LEN]
            leader = out[E.LEADER]
            for pos in range(n_cards):
                cards[pos] = out[E.TRICK + pos]
        else:
            n_cards = N_SEATS
            leader = out[E.TRICK_LEADERS + k]
            for card in range(N_CARDS):
                if out[E.TRICK_OF_CARD + card] == k:
                    cards[(owner[card] - leader) % N_SEATS] = card
        if n_cards == 0 or leader == NOBODY:
            continue
        led = cards[0] // N_RANKS
        for pos in range(1, n_cards):
            if cards[pos] // N_RANKS != led:
                void[(leader + pos) % N_SEATS, led] = 1


@njit(cache=True)
def world_from_observation(obs, seat, target_score, take_a_lead, max_hands, stream, out):
    """Kernel of :func:`sample_from_observation`: ``out`` (a row) from ``seat``'s observation
    ``obs``, the keywords, and ``stream`` (an int32 row whose words the hidden deal is drawn
    from; ``out``'s own stream words are left to the caller)."""
    out[E.TARGET_SCORE] = target_score
    out[E.TAKE_A_LEAD_RULE] = take_a_lead
    out[E.MAX_HANDS] = max_hands
    _copy_public(obs, seat, out)
    _deal_hidden(obs, seat, out, stream)


def _keywords(config: Config) -> tuple[int, int, int]:
    return (
        int(config.target_score),
        TAKE_A_LEAD_CHOICES.index(config.take_a_lead),
        int(config.max_hands),
    )


def sample_from_observation(
    observation: np.ndarray, config: Config, seat: int, rng: np.random.Generator
) -> np.ndarray:
    """A full engine row consistent with ``observation``, the view of ``seat`` (a bot that does
    not know its absolute seat may pass 0: the world is then seen from seat 0, the same game
    turned around the table), drawn from ``rng`` alone: the unseen cards are dealt again
    (module docstring) and the row's stream words, the future deals, come from ``rng``."""
    observation = np.asarray(observation)
    if observation.shape != E.OBS_SHAPE:
        raise ValueError(
            f"observation must have shape {E.OBS_SHAPE}, got {tuple(observation.shape)}"
        )
    if not 0 <= int(seat) < N_SEATS:
        raise ValueError(f"seat={seat!r} is not a seat; seats are 0-{N_SEATS - 1}")
    words = rng.integers(-(2**31), 2**31, size=8, dtype=np.int64).astype(np.int32)
    if not words[4:].any():
        words[4] = 1
    if not words[:4].any():
        words[0] = 1
    out = np.zeros(E.ROW_SIZE, dtype=np.int32)
    out[0:4] = words[0:4]
    stream = words[4:8].copy()
    world_from_observation(
        observation.astype(np.float32), int(seat), *_keywords(config), stream, out
    )
    return out


def sample_world(row: np.ndarray, config: Config, seat: int, rng: np.random.Generator):
    """A world for ``seat``: :func:`sample_from_observation` of ``observe(row, seat)``."""
    obs = np.zeros(E.OBS_SIZE, dtype=np.float32)
    E.observe(row, seat, obs)
    return sample_from_observation(obs, config, seat, rng)


def solve(row: np.ndarray, config: Config) -> dict[int, float]:
    """The open-card value of each legal action of the seat to act (play phase): the acting
    team's score change for the hand minus the other team's, both teams playing their best
    with every card seen; ``take a lead`` included where legal. ``ValueError`` outside the play
    phase."""
    if int(row[E.PHASE]) != E.PHASE_PLAY:
        raise ValueError(
            "solve() needs the play phase (a card or `take a lead` to choose); the game is in "
            f"phase {int(row[E.PHASE])} ({_phase_name(int(row[E.PHASE]))})"
        )
    return solver.solve_row(row)


def _phase_name(phase: int) -> str:
    from feral_envs.lost_heir.rules import Phase

    return Phase(phase).name
