"""What the env runners report of each finished game (``charts/`` keys of the run)."""

from __future__ import annotations

from typing import Any

from ray.rllib.callbacks.callbacks import RLlibCallback

from train.rllib.env import LEARNER


class ResultCallbacks(RLlibCallback):
    """Logs, per kind of opponent (``random``, ``heuristic``, ``snapshot``), the learner's
    win rate and truncation rate, and the learner's decisions per game."""

    def on_episode_end(self, *, episode: Any, metrics_logger: Any = None, **kwargs: Any) -> None:
        infos = episode.get_infos(-1)
        info = infos.get(LEARNER) if isinstance(infos, dict) else None
        if not info or "result" not in info or metrics_logger is None:
            return
        kind = "snapshot" if info["opponent"].startswith("snap") else info["opponent"]
        won = info["result"] == "win"  # as the SB3 backend counts: a truncation is not a win
        metrics_logger.log_value(f"win_rate_vs_{kind}", float(won), reduce="mean", window=200)
        metrics_logger.log_value(
            f"truncated_rate_vs_{kind}",
            float(info["result"] == "truncated"),
            reduce="mean",
            window=200,
        )
        metrics_logger.log_value(
            "learner_decisions_mean", info["decisions"], reduce="mean", window=200
        )
