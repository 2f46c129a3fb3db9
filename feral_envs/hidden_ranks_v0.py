"""Hidden Ranks (placeholder docstring, written below)."""

from feral_envs.hidden_ranks.env import env, raw_env

__all__ = ["env", "raw_env"]
