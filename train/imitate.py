"""Imitation warm start: clone the heuristic bot before self-play PPO begins.

With ``--imitation-decisions N`` a run starts by watching the game's heuristic bot play both
sides of many games (:func:`collect_demonstrations`, on :class:`SelfPlayVecEnv`, so the
observations, masks and rewards are exactly those the learner gets in training) and fits the
fresh network to them (:func:`pretrain`):

* the policy head by maximum likelihood of the bot's action under the masked softmax
  (cross-entropy over the legal actions only);
* the value head by regression on the discounted training return (``gamma``, the run's
  ``points_scale`` and ``win_reward``) that the bot's side went on to earn from each decision,
  so PPO's first advantages are measured against a sensible baseline instead of an untrained
  one, which would wreck the cloned policy in the first updates.

PPO then trains from that network against the usual pool. This is the recipe of AlphaGo's
supervised policy and AlphaStar's human-data start, with our heuristic as the teacher. It
changes where training starts, not what is measured: the arena rates the final policy as
always. A held-out tenth of the decisions gives the clone's agreement with the teacher
(``imitation/accuracy``), logged with the losses under ``imitation/``.

Observations are stored as float16 where that is exact (0/1 flags and small counts: checked
per batch) and as float32 otherwise (Lost Heir's observation holds fractions): a million
Lost Heir decisions take about 3 GB.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from feral_envs.core import GameCore
from train.pool import Opponent, OpponentPool
from train.vec_env import SelfPlayVecEnv


@dataclass
class Demonstrations:
    """Decisions of the teacher seen from the learner's side, in the training env's terms."""

    obs: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    returns: np.ndarray
    """Discounted training return from each decision to the end of its game."""
    games: int
    seconds: float

    def __len__(self) -> int:
        return len(self.actions)


def _compact(obs: np.ndarray) -> np.ndarray:
    if obs.dtype == np.float32:
        small = obs.astype(np.float16)
        if np.array_equal(small.astype(np.float32), obs):
            return small
    return obs.copy()


def collect_demonstrations(
    core: GameCore,
    keywords: dict[str, Any],
    teacher: Opponent,
    opponent: Opponent,
    decisions: int,
    *,
    n_envs: int,
    points_scale: float,
    win_reward: float,
    gamma: float,
    seed: int,
) -> Demonstrations:
    """At least ``decisions`` learner-side decisions of ``teacher`` playing against
    ``opponent`` (both are pool members: pass two instances of the heuristic bot for
    self-play). Only whole games are kept, so every decision has its true return."""
    start = time.perf_counter()
    env = SelfPlayVecEnv(
        core,
        keywords,
        n_envs,
        OpponentPool.only(opponent, seed),
        points_scale=points_scale,
        win_reward=win_reward,
        seed=seed,
    )
    rng = np.random.default_rng(seed + 1)
    starts = np.random.default_rng(seed + 2)
    obs = env.reset()
    for i in range(n_envs):
        teacher.start(i, int(starts.integers(2**31)))
    open_games: list[list[tuple[np.ndarray, np.ndarray, int, float]]] = [[] for _ in range(n_envs)]
    chunks: dict[str, list[np.ndarray]] = {"obs": [], "masks": [], "actions": [], "returns": []}
    kept = games = 0
    while kept < decisions:
        masks = env.action_masks()
        seats = env.learner_seat.tolist()
        actions = teacher.act(obs, masks, list(range(n_envs)), seats, rng)
        compact = _compact(obs)
        next_obs, rewards, dones, _ = env.step(actions)
        for i in range(n_envs):
            open_games[i].append((compact[i], masks[i], int(actions[i]), float(rewards[i])))
        for i in np.flatnonzero(dones):
            game = open_games[i]
            open_games[i] = []
            teacher.start(int(i), int(starts.integers(2**31)))
            returns = np.empty(len(game), dtype=np.float32)
            total = 0.0
            for k in range(len(game) - 1, -1, -1):
                total = game[k][3] + gamma * total
                returns[k] = total
            chunks["obs"].append(np.stack([d[0] for d in game]))
            chunks["masks"].append(np.stack([d[1] for d in game]))
            chunks["actions"].append(np.array([d[2] for d in game], dtype=np.int64))
            chunks["returns"].append(returns)
            kept += len(game)
            games += 1
        obs = next_obs
    return Demonstrations(
        obs=np.concatenate(chunks["obs"]),
        masks=np.concatenate(chunks["masks"]),
        actions=np.concatenate(chunks["actions"]),
        returns=np.concatenate(chunks["returns"]),
        games=games,
        seconds=time.perf_counter() - start,
    )


@dataclass
class PretrainStats:
    epochs: int
    policy_loss: float
    """Mean cross-entropy of the teacher's actions in the last epoch (training part)."""
    value_loss: float
    accuracy: float
    """Share of held-out decisions where the clone's most likely action is the teacher's."""
    held_out: int
    seconds: float


def pretrain(
    policy: Any,
    data: Demonstrations,
    *,
    epochs: int,
    batch_size: int,
    vf_coef: float,
    max_grad_norm: float,
    seed: int,
    held_out: float = 0.1,
) -> PretrainStats:
    """Fit ``policy`` (sb3-contrib's ``MaskableActorCriticPolicy``, with its optimizer) to
    ``data`` for ``epochs`` passes (module doc); a ``held_out`` share is kept for accuracy."""
    start = time.perf_counter()
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(data))
    n_test = int(len(data) * held_out) if len(data) >= 20 else 0
    test, fit = order[:n_test], order[n_test:]

    def tensors(idx: np.ndarray) -> tuple[torch.Tensor, ...]:
        return (
            torch.as_tensor(data.obs[idx], dtype=torch.float32),
            torch.as_tensor(data.actions[idx]),
            torch.as_tensor(data.masks[idx]),
            torch.as_tensor(data.returns[idx]),
        )

    policy.set_training_mode(True)
    policy_loss = value_loss = float("nan")
    for _ in range(epochs):
        rng.shuffle(fit)
        losses = []
        for lo in range(0, len(fit), batch_size):
            obs, actions, masks, returns = tensors(fit[lo : lo + batch_size])
            values, log_prob, _ = policy.evaluate_actions(obs, actions, action_masks=masks)
            p_loss = -log_prob.mean()
            v_loss = torch.nn.functional.mse_loss(values.flatten(), returns)
            loss = p_loss + vf_coef * v_loss
            policy.optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), max_grad_norm)
            policy.optimizer.step()
            losses.append((p_loss.item(), v_loss.item()))
        policy_loss, value_loss = (float(x) for x in np.mean(losses, axis=0))
    policy.set_training_mode(False)
    correct = 0
    with torch.no_grad():
        for lo in range(0, n_test, batch_size):
            obs, actions, masks, _ = tensors(test[lo : lo + batch_size])
            dist = policy.get_distribution(obs, action_masks=masks.numpy())
            correct += int((dist.distribution.probs.argmax(dim=1) == actions).sum())
    return PretrainStats(
        epochs=epochs,
        policy_loss=policy_loss,
        value_loss=value_loss,
        accuracy=correct / n_test if n_test else float("nan"),
        held_out=n_test,
        seconds=time.perf_counter() - start,
    )
