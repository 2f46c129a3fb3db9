def test_match_elo_interval_is_open_at_a_perfect_score():
    import math

    from train.evaluate import MatchResult

    elo, low, high = MatchResult(wins=64, draws=0, losses=0, truncated=0).elo()
    assert high == math.inf and 300 < low < elo
    elo, low, high = MatchResult(wins=0, draws=0, losses=64, truncated=0).elo()
    assert low == -math.inf and elo < high < -300
    elo, low, high = MatchResult(wins=40, draws=10, losses=14, truncated=0).elo()
    assert low < elo < high and math.isfinite(high)
