"""The human-facing apps, above the bots (``agents``) and the envs (``feral_envs``).

- :mod:`play.terminal`: ``python -m play.terminal GAME``, play in the terminal against bots.
- :mod:`play.recording`: ``python -m play.recording``, games as animated GIFs or PNGs.
- :mod:`play.web`: ``python -m play.web``, a local web app (and its JSON API) to play against
  bots and replay arena records in the browser.

Nothing in ``feral_envs`` or ``agents`` imports from here.
"""
