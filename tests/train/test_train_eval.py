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
