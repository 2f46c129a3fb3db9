"""``python -m agents.arena`` with the toy games registered (for the subprocess tests).

Also registers the spec ``slow`` (a random policy that sleeps 2 ms a move), so that a test
can kill a run part-way.
"""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import toy_games

from agents.arena import main
from agents.random_policy import RandomPolicy
from agents.registry import register_loader


class SlowRandom(RandomPolicy):
    def act(self, observation, action_mask):
        time.sleep(0.002)
        return super().act(observation, action_mask)


if __name__ == "__main__":
    toy_games.register()
    register_loader("slow", lambda argument, game, seed, keywords: SlowRandom(seed, "slow"))
    sys.exit(main())
