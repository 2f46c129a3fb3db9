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
per batch) and as float32 otherwise (Lost Heir's observation holds fractions, Hidden Ranks'
its move count), in arrays allocated once: a million Lost Heir decisions take 3 GB, 100,000
Hidden Ranks ones 3.2 GB (4.6 GB at the moment the float16 array is widened).
:func:`check_memory` refuses a count whose arrays would not fit in the memory available,
before anything is collected, instead of letting the system kill the run later.
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


def demonstration_bytes(core: GameCore, decisions: int) -> int:
    """The most memory ``decisions`` demonstrations can take: float32 observations plus, while
    a float16 array is widened, its float16 copy; masks, actions and returns."""
    n_obs = int(np.prod(core.obs_shape))
    item = np.dtype(core.obs_dtype).itemsize
    obs = n_obs * (item + 2 if np.dtype(core.obs_dtype) == np.float32 else item)
    return decisions * (obs + core.n_actions + 8 + 4)


def available_memory() -> int | None:
    """Bytes of memory available to a new allocation (``MemAvailable``), None if unknown."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def check_memory(core: GameCore, decisions: int, share: float = 0.8) -> None:
    """``ValueError`` if ``decisions`` demonstrations would take more than ``share`` of the
    memory available now, naming the need and the largest count that fits."""
    need, have = demonstration_bytes(core, decisions), available_memory()
    if have is None or need <= share * have:
        return
    fits = int(share * have // demonstration_bytes(core, 1))
    raise ValueError(
        f"--imitation-decisions {decisions:,} needs up to {need / 2**30:.1f} GiB for the "
        f"demonstrations ({demonstration_bytes(core, 1) / 1024:.1f} KiB per {core.name} "
        f"decision) and {have / 2**30:.1f} GiB are available: give at most {fits:,}"
    )


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


def _exact_in_float16(obs: np.ndarray) -> bool:
    return obs.dtype == np.float32 and np.array_equal(
        obs.astype(np.float16).astype(np.float32), obs
    )


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
    material_scale: float = 0.0,
    seed: int,
    par: Any = None,
) -> Demonstrations:
    """``decisions`` learner-side decisions of ``teacher`` playing against ``opponent``
    (both are pool members: pass two instances of the heuristic bot for self-play).

    A game's decisions are stored when it ends, with their true returns, in arrays allocated
    once; the game that fills them is cut at ``decisions`` and unfinished games are dropped.
    """
    start = time.perf_counter()
    env = SelfPlayVecEnv(
        core,
        keywords,
        n_envs,
        OpponentPool.only(opponent, seed),
        points_scale=points_scale,
        win_reward=win_reward,
        seed=seed,
        material_scale=material_scale,
        par=par,
    )
    rng = np.random.default_rng(seed + 1)
    starts = np.random.default_rng(seed + 2)
    small = np.dtype(core.obs_dtype) == np.float32  # float16 where exact (module doc)
    data = Demonstrations(
        obs=np.empty((decisions, *core.obs_shape), np.float16 if small else core.obs_dtype),
        masks=np.empty((decisions, core.n_actions), dtype=bool),
        actions=np.empty(decisions, dtype=np.int64),
        returns=np.empty(decisions, dtype=np.float32),
        games=0,
        seconds=0.0,
    )
    obs = env.reset()
    for i in range(n_envs):
        teacher.start(i, int(starts.integers(2**31)))
    # Per env slot, the decisions of its game so far: (step batch, row in it, reward).
    open_games: list[list[tuple[int, float]]] = [[] for _ in range(n_envs)]
    batches: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    filled = step = 0
    while filled < decisions:
        masks = env.action_masks()
        actions = teacher.act(obs, masks, list(range(n_envs)), env.learner_seat.tolist(), rng)
        if data.obs.dtype == np.float16 and not _exact_in_float16(obs):
            data.obs = data.obs.astype(np.float32)  # once, where float16 would round
        batches[step] = (obs, masks, actions)
        obs, rewards, dones, _ = env.step(actions)
        for i in range(n_envs):
            open_games[i].append((step, float(rewards[i])))
        for i in np.flatnonzero(dones):
            game, open_games[i] = open_games[i], []
            teacher.start(int(i), int(starts.integers(2**31)))
            total = 0.0
            returns = np.empty(len(game), dtype=np.float32)
            for k in range(len(game) - 1, -1, -1):
                total = game[k][1] + gamma * total
                returns[k] = total
            for k, (at, _) in enumerate(game[: decisions - filled]):
                batch_obs, batch_masks, batch_actions = batches[at]
                data.obs[filled + k] = batch_obs[i]
                data.masks[filled + k] = batch_masks[i]
                data.actions[filled + k] = batch_actions[i]
                data.returns[filled + k] = returns[k]
            filled += min(len(game), decisions - filled)
            data.games += 1
            if filled == decisions:
                break
        oldest = min(game[0][0] for game in open_games if game) if any(open_games) else step + 1
        for at in [at for at in batches if at < oldest]:
            del batches[at]  # no open game has a decision there any more
        step += 1
    data.seconds = time.perf_counter() - start
    return data


@dataclass
class PretrainStats:
    epochs: int
    steps: int
    """Minibatch updates made: ``epochs`` passes over the fitted part in ``batch_size``."""
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
    learning_rate: float,
    batch_size: int,
    vf_coef: float,
    max_grad_norm: float,
    seed: int,
    held_out: float = 0.1,
) -> PretrainStats:
    """Fit ``policy`` (sb3-contrib's ``MaskableActorCriticPolicy``) to ``data`` for
    ``epochs`` passes with its own Adam optimizer (PPO's starts fresh afterwards, with PPO's
    step size); a ``held_out`` share is kept for the accuracy."""
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

    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    policy.set_training_mode(True)
    policy_loss = value_loss = float("nan")
    steps = 0
    for _ in range(epochs):
        rng.shuffle(fit)
        losses = []
        for lo in range(0, len(fit), batch_size):
            obs, actions, masks, returns = tensors(fit[lo : lo + batch_size])
            values, log_prob, _ = policy.evaluate_actions(obs, actions, action_masks=masks)
            p_loss = -log_prob.mean()
            v_loss = torch.nn.functional.mse_loss(values.flatten(), returns)
            loss = p_loss + vf_coef * v_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), max_grad_norm)
            optimizer.step()
            steps += 1
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
        steps=steps,
        policy_loss=policy_loss,
        value_loss=value_loss,
        accuracy=correct / n_test if n_test else float("nan"),
        held_out=n_test,
        seconds=time.perf_counter() - start,
    )
