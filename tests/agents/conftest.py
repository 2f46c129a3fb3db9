import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import toy_games


@pytest.fixture
def toys(monkeypatch):
    """The toy games and their heuristic bots, reachable as if they were real."""
    toy_games.register(monkeypatch)
    toy_games.made_with.clear()
    return toy_games
