"""``ppo:PATH`` policies: trained MaskablePPO checkpoints (see ``train/policy.py``).

``ppo:PATH`` samples from the policy's masked distribution, as the learner did in training;
``ppo_argmax:PATH`` always plays its most likely legal action (greedy evaluation). Say which
when you publish a rating: the two can differ by hundreds of Elo.

``PATH`` is a policy file (a run's ``model.zip``, ``checkpoint/model.zip`` or a self-play
snapshot ``pool/snapshot_<step>.zip``) or a run directory (its final ``model.zip``, else its
latest checkpoint). Only the weights (``torch.load(weights_only=True)``) and a JSON entry are
read; a file that is not such a checkpoint, or one for another game or observation layout,
raises ``train.policy.CheckpointError`` (a ``ValueError``) saying which.
"""

from __future__ import annotations

from agents.registry import register_loader
from train.policy import load_ppo_argmax_policy, load_ppo_policy

register_loader("ppo", load_ppo_policy, "ppo:PATH")
register_loader("ppo_argmax", load_ppo_argmax_policy, "ppo_argmax:PATH")
