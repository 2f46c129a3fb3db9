"""The trained policy networks, as they play and as a training backend builds them.

One definition of each network family's forward pass, in torch without SB3, imported by the
SB3 training code (``train/policy.py``, ``train/board.py``) and by any other backend:

- :mod:`agents.networks.mlp`: symlog inputs, shared tanh trunk, tanh heads (every game);
  :class:`~agents.networks.mlp.MLPNet`, and its numpy actor
  :class:`~agents.networks.mlp.ActorMLP` for fast play;
- :mod:`agents.networks.board`: the convolutional board network of Hidden Ranks;
  :class:`~agents.networks.board.BoardNet`, :class:`~agents.networks.board.ActorBoard`;
- :mod:`agents.networks.cards`: the card network of ``python -m train.rollout``
  (policy only); :class:`~agents.networks.cards.CardNet`,
  :class:`~agents.networks.cards.ActorCards`.

:mod:`agents.networks.actor` has the :class:`~agents.networks.actor.Actor` interface they
play through (and the advised wrapper); :mod:`agents.networks.policy_file` reads and writes
the policy files that hold them; ``agents/ppo.py`` makes one an ``agents`` policy
(``ppo:PATH``).
"""
