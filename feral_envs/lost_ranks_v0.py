"""Lost Ranks (placeholder docstring, written below)."""

from feral_envs.lost_ranks.env import env, raw_env

__all__ = ["env", "raw_env"]
