"""Hand-written bots, one module per game: ``agents/heuristic/<game>.py``.

The contract that ``load_policy("heuristic", game, seed, keywords)`` relies on: the module
``agents.heuristic.<game>`` (game as ``feral_envs.make`` names it, without ``_v0``) defines

``make_policy(seed: int, **keywords) -> Policy``
    A fresh bot (an :class:`agents.base.Policy`, usually an :class:`agents.base.BasePolicy`
    subclass) seeded with ``seed``. ``keywords`` are the env's game keywords (``variant``,
    ``target_score``, …): the rules in force, which every player knows. A bot may ignore
    them but must accept them.

A bot decides from ``act(observation, action_mask)`` only: the same ego-centric arrays a
PettingZoo agent receives, decoded with the game's ``encoding`` layout, never the env's
state. Whatever it remembers within a game it clears in ``reset(seed)``.
"""
