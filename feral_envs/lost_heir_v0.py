"""Lost Heir: PLACEHOLDER"""

from feral_envs.lost_heir.env import env, raw_env

__all__ = ["env", "raw_env"]
