def test_match_elo_interval_is_open_at_a_perfect_score():
    import math

    from train.evaluate import MatchResult

    elo, low, high = MatchResult(wins=64, draws=0, losses=0, truncated=0).elo()
    assert high == math.inf and 300 < low < elo
    elo, low, high = MatchResult(wins=0, draws=0, losses=64, truncated=0).elo()
    assert low == -math.inf and elo < high < -300
    elo, low, high = MatchResult(wins=40, draws=10, losses=14, truncated=0).elo()
    assert low < elo < high and math.isfinite(high)


def test_ratings_print_open_ends_as_the_arena_does():
    import math

    from train.run import rating_text

    assert rating_text(176.4, 152.0, 202.2) == "+176 [+152, +202]"
    assert rating_text(1161.0, 807.0, math.inf) == "+1161 [+807, inf)"
    assert rating_text(-1161.0, -math.inf, -807.0) == "-1161 (-inf, -807]"
    assert rating_text(-147.0, math.nan, math.nan) == "-147 [n/a]"  # 2 games: no bootstrap


def test_quick_evaluation_scores_truncated_games_by_the_lead_as_the_arena_does():
    import numpy as np
    from conftest import TOY_KEYWORDS
    from toy_core import TOY4

    from train.evaluate import match_outcome, play_match
    from train.pool import OpponentPool, RandomOpponent
    from train.vec_env import SelfPlayVecEnv

    assert match_outcome({"result": "loss", "lead": 5.0}) == "loss"  # the rules' result stands
    assert match_outcome({"result": "truncated", "lead": 2.0}) == "win"
    assert match_outcome({"result": "truncated", "lead": -1.0}) == "loss"
    assert match_outcome({"result": "truncated", "lead": 0.0}) == "draw"
    env = SelfPlayVecEnv(TOY4, TOY_KEYWORDS, 16, OpponentPool(0, 0, 1, 1, seed=0), 0, 1, seed=0)
    rng = np.random.default_rng(0)
    env.reset()
    seen = 0
    while seen < 100:
        masks = env.action_masks()
        _, _, dones, infos = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        for i in np.flatnonzero(dones):
            state_lead = infos[i]["terminal_observation"]  # toy obs: my team's score, theirs
            assert infos[i]["lead"] == state_lead[0] - state_lead[1]
            seen += 1

    class Random:
        def act(self, obs, masks, rng, deterministic=False):
            return np.array([rng.choice(np.flatnonzero(m)) for m in masks])

    result = play_match(TOY4, TOY_KEYWORDS, Random(), RandomOpponent(), 200, seed=1)
    assert result.games == 200 and result.truncated > 5
    assert result.draws < result.truncated  # most truncated games have a leader
