"""The web app: ``python -m play.web`` serves a page to play any game against bots and to
replay arena records, over a JSON API that scripts can use too (docs/play.md).

:func:`create_app` builds the ASGI app (Starlette); :mod:`play.web.session` holds the games
and replays, with no web code.
"""

from play.web.app import create_app

__all__ = ["create_app"]
