"""The RLlib training backend: ``python -m train GAME --backend rllib`` (docs/rllib.md).

``env`` (one self-play game as a ``MultiAgentEnv``), ``module`` (the action-masking
RLModule) and ``backend`` (the run: PPO on RLlib's new API stack, the snapshot pool, logs,
checkpoints, resume, final arena). Needs the ``rllib`` extra (``ray[rllib]==2.60.0``);
policies it trains play without Ray (``agents/rllib.py``, ``rllib:PATH``).
"""
