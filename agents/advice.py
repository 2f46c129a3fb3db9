"""``--advice``: the heuristic bot's choice as an input of the network.

With ``--advice`` the network sees, after the game's observation, a one-hot of the action the
game's heuristic bot would take in the same position (``n_actions`` more inputs). The policy
starts by learning to follow that advice (imitation makes it a near-exact copy of the bot)
and PPO then learns where deviating from it pays: *residual* learning on top of a
hand-written player, as in learning from advice or residual policy learning. The trained
policy is then the bot and the network together: it runs the bot at every decision, in
training and in play, and its ratings are of that pair (say so when publishing one).

It is done on the rules core, so everything that plays the learner's network sees the same
inputs without knowing about advice: :func:`advised_core` wraps a game's
:class:`~feral_envs.core.GameCore` so that ``observe`` returns the observation followed by the
advice (zeros where the seat has no legal action: a finished game). The training env, its
self-play snapshots, the imitation and the quick evaluations all run on that core; the
pool's heuristic and random opponents read the game's own spans and ignore the extra inputs.
Policy files record ``"advice": true``; loading one as ``ppo:PATH`` wraps its actor in the
same bot (:class:`Advisor`, :class:`agents.networks.actor.AdvisedActor`), built with the
env's game keywords.

Only games whose bot decides from the observation alone, deterministically and without
memory, can advise (:data:`GAMES`): the advice must be a function of what the network sees,
whichever seat or game the core is asked about.

The same bot also sets the *par* of ``--par`` (:class:`train.advice.Par`, training only):
its own result on each round the learner plays, taken off the learner's round reward
(``train/vec_env.py``). That needs the same kind of bot, and Lost Ranks' rounds
(``state.epoch``).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from feral_envs.core import GameCore

GAMES = ("lost_ranks",)
"""Games whose heuristic can advise: deterministic and memoryless (the Lost Heir bot breaks
ties at random; the Hidden Ranks bot remembers what it saw)."""


def check_game(game: str, flag: str = "--advice") -> None:
    """``ValueError`` if ``game``'s bot cannot advise (or set par: ``flag``), naming the
    games whose bot can."""
    if game not in GAMES:
        raise ValueError(
            f"{flag} needs a game whose heuristic is deterministic and memoryless "
            f"({', '.join(GAMES)}); {game}'s is not"
        )


class Advisor:
    """The game's heuristic bot as advice: ``advise(obs, mask)``, a one-hot of its action."""

    def __init__(self, game: str, keywords: dict[str, Any]) -> None:
        from agents.registry import load_policy

        check_game(game)
        self.game = game
        self.bot = load_policy("heuristic", game, seed=0, keywords=keywords)

    def advise(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The one-hot of the bot's action (float32, ``len(mask)``); zeros if none is legal."""
        advice = np.zeros(len(mask), np.float32)
        if mask.any():
            advice[self.bot.act(obs, mask)] = 1.0
        return advice

    def augment(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``obs`` followed by its advice: what an advised network takes as input."""
        return np.concatenate([obs.reshape(-1), self.advise(obs, mask)])


def advised_core(core: GameCore, keywords: dict[str, Any]) -> GameCore:
    """``core`` whose ``observe`` appends the heuristic's advice (module doc)."""
    if advisor_of(core) is not None:
        return core
    if len(core.obs_shape) != 1:
        raise ValueError(f"--advice needs a flat observation; {core.name}'s is {core.obs_shape}")
    advisor = Advisor(core.name, keywords)
    observe, legal_mask, seat_to_act = core.observe, core.legal_mask, core.seat_to_act

    def observe_advised(state: Any, seat: int) -> np.ndarray:
        obs, mask = observe(state, seat), legal_mask(state)
        if seat != seat_to_act(state):  # another seat's view (a finished game's last one)
            mask = np.zeros_like(mask)
        return np.concatenate([obs, advisor.advise(obs, mask).astype(obs.dtype)])

    observe_advised.advisor = advisor  # type: ignore[attr-defined]
    # The layout fingerprint (agents/networks/policy_file.py) hashes the layouts of
    # observe's module: the game's encoding still describes every input but the advice,
    # which the shape adds.
    observe_advised.__module__ = observe.__module__
    return dataclasses.replace(
        core, obs_shape=(core.obs_shape[0] + core.n_actions,), observe=observe_advised
    )


def advisor_of(core: GameCore) -> Advisor | None:
    """The advisor of an :func:`advised_core`, None for a game's own core."""
    return getattr(core.observe, "advisor", None)
