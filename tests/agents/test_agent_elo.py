"""The rating fit: recovers known ratings, order-independent, finite, honest intervals."""

import math
import random

import numpy as np
import pytest

from agents.elo import expected_score, fit_ratings, score_matrix

TRUE = np.linspace(0, 1300, 8)
NAMES = ["random", *(f"a{i}" for i in range(1, 8))]


def tournament(rng, games_per_pair, ratings=TRUE, names=NAMES):
    """A simulated duplicate round robin: draws happen, expected scores follow the model."""
    results = []
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            p = expected_score(ratings[i], ratings[j])
            draw = 0.8 * p * (1 - p)
            for deal in range(games_per_pair // 2):
                for _ in range(2):
                    u = rng.random()
                    score = 1.0 if u < p - draw / 2 else 0.5 if u < p + draw / 2 else 0.0
                    results.append((names[i], names[j], score, (i, j, deal)))
    return results


def estimates(n_tournaments, games_per_pair, n_bootstrap, seed=0):
    rng = np.random.default_rng(seed)
    fits = [
        fit_ratings(tournament(rng, games_per_pair), n_bootstrap=n_bootstrap, seed=t)
        for t in range(n_tournaments)
    ]
    return np.array([[fit[name] for name in NAMES[1:]] for fit in fits])  # (T, 7, 3)


def test_recovers_known_ratings():
    fit = estimates(1, 400, 200)[0]
    assert np.abs(fit[:, 0] - TRUE[1:]).max() < 60
    assert (fit[:, 1] < fit[:, 0]).all() and (fit[:, 0] < fit[:, 2]).all()


def test_anchor_is_zero():
    fit = fit_ratings(tournament(np.random.default_rng(1), 20), anchor="a3", n_bootstrap=50)
    assert fit["a3"] == (0.0, 0.0, 0.0)
    assert fit["random"][0] < -300


def test_intervals_cover_the_truth_quick():
    fits = estimates(20, 100, 300)
    covered = (fits[..., 1] <= TRUE[1:]) & (TRUE[1:] <= fits[..., 2])
    assert 0.87 <= covered.mean() <= 0.995


@pytest.mark.slow
def test_intervals_cover_the_truth_and_bias_is_small():
    for games, tournaments in ((100, 100), (20, 100)):
        fits = estimates(tournaments, games, 1000, seed=games)
        covered = (fits[..., 1] <= TRUE[1:]) & (TRUE[1:] <= fits[..., 2])
        assert 0.90 <= covered.mean() <= 0.98, (games, covered.mean())
        bias = fits[..., 0].mean(0) - TRUE[1:]
        spread = fits[..., 0].std(0)
        assert (np.abs(bias) < 0.6 * spread).all(), (games, bias, spread)


def test_intervals_narrow_twofold_for_four_times_the_games():
    width_100 = estimates(3, 100, 300, seed=1)
    width_400 = estimates(3, 400, 300, seed=2)
    ratio = (width_100[..., 2] - width_100[..., 1]).mean() / (
        width_400[..., 2] - width_400[..., 1]
    ).mean()
    assert 1.7 < ratio < 2.3


def test_same_ratings_in_any_order():
    results = tournament(np.random.default_rng(3), 20)
    shuffled = list(results)
    random.Random(0).shuffle(shuffled)
    swapped = [(b, a, 1 - s, g) for a, b, s, g in shuffled]
    fit = fit_ratings(results, n_bootstrap=200)
    assert fit_ratings(shuffled, n_bootstrap=200) == fit
    assert fit_ratings(swapped, n_bootstrap=200) == fit
    ungrouped = [r[:3] for r in results]
    shuffled = list(ungrouped)
    random.Random(1).shuffle(shuffled)
    assert fit_ratings(shuffled, n_bootstrap=200) == fit_ratings(ungrouped, n_bootstrap=200)


@pytest.mark.parametrize("prior", [0.5, 2.0])
@pytest.mark.parametrize("n", [1, 10, 100])
def test_unbeaten_agent_is_finite_and_follows_the_prior(prior, n):
    fit = fit_ratings([("x", "random", 1.0)] * n, prior_games=prior, n_bootstrap=20)
    assert fit["x"][0] == pytest.approx(400 * math.log10(1 + n / (prior / 2)), abs=1e-6)
    lost = fit_ratings([("random", "x", 1.0)] * n, prior_games=prior, n_bootstrap=0)
    assert lost["x"][0] == pytest.approx(-fit["x"][0], abs=1e-6)
    assert math.isnan(lost["x"][1]) and math.isnan(lost["x"][2])


def test_unbeaten_in_a_round_robin_is_finite():
    results = [("best", "random", 1.0), ("best", "mid", 1.0)] * 30
    results += [("mid", "random", 1.0), ("mid", "random", 0.0), ("mid", "random", 1.0)] * 10
    fit = fit_ratings(results, n_bootstrap=100)
    assert all(math.isfinite(elo) for elo, _, _ in fit.values())
    assert np.isfinite(fit["mid"]).all()
    assert math.isfinite(fit["best"][1]) and fit["best"][2] == math.inf  # unbounded above
    assert fit["best"][0] > fit["mid"][0] > 0


def test_all_draws_rate_everyone_equal():
    results = [(a, b, 0.5) for a, b in (("random", "x"), ("x", "y"), ("y", "random"))] * 5
    fit = fit_ratings(results, n_bootstrap=50)
    for elo, low, high in fit.values():
        assert abs(elo) < 1e-6 and low <= 1e-6 and high >= -1e-6


def test_no_intervals_from_a_single_group_per_pair():
    results = [("random", "x", 1.0, 0), ("random", "x", 0.0, 0), ("x", "y", 1.0)]
    results += [("random", "y", 1.0)] * 2
    fit = fit_ratings(results, n_bootstrap=100)
    assert all(math.isnan(low) and math.isnan(high) for _, low, high in fit.values())
    fit = fit_ratings([*results, ("random", "x", 1.0, 1), ("x", "y", 0.0)], n_bootstrap=100)
    assert not any(math.isnan(low) or math.isnan(high) for _, low, high in fit.values())


def test_groups_are_resampled_together():
    # Each deal is one win and one loss: grouped, the pair's score never varies.
    results = [("random", "x", s, deal) for deal in range(30) for s in (1.0, 0.0)]
    grouped = fit_ratings(results, n_bootstrap=200)
    ungrouped = fit_ratings([r[:3] for r in results], n_bootstrap=200)
    assert grouped["x"][1] == grouped["x"][2] == pytest.approx(0, abs=1e-6)
    assert ungrouped["x"][2] - ungrouped["x"][1] > 100


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="anchor 'random' played no game"):
        fit_ratings([("a", "b", 1.0)])
    with pytest.raises(ValueError, match="cannot play itself"):
        fit_ratings([("random", "random", 1.0)])
    with pytest.raises(ValueError, match=r"score_a must be a number in \[0, 1\]"):
        fit_ratings([("random", "b", 2)])
    with pytest.raises(ValueError, match="must be"):
        fit_ratings([("random", "b")])
    with pytest.raises(ValueError, match="prior_games"):
        fit_ratings([("random", "b", 1.0)], prior_games=0)
    with pytest.raises(ValueError, match="n_bootstrap"):
        fit_ratings([("random", "b", 1.0)], n_bootstrap=-1)


def test_score_matrix():
    results = [("a", "b", 1.0), ("b", "a", 0.5), ("a", "c", 0.0)]
    agents, score, games = score_matrix(results, ["c", "b", "a"])
    assert agents == ["c", "b", "a"]
    assert games.tolist() == [[0, 0, 1], [0, 0, 2], [1, 2, 0]]
    assert score[2, 1] == 0.75 and score[1, 2] == 0.25
    assert score[0, 2] == 1.0 and score[2, 0] == 0.0
    assert np.isnan(score[0, 1]) and np.isnan(score[0, 0])
    with pytest.raises(ValueError, match="not in agents"):
        score_matrix(results, ["a", "b"])


def test_a_perfect_score_leaves_the_interval_open_with_an_exact_finite_end():
    """All wins cannot bound a rating from above; the lower end is the exact one-sided bound."""
    results = [("bot", "random", 1.0, deal // 2) for deal in range(1000)]
    elo, low, high = fit_ratings(results)["bot"]
    assert math.isfinite(elo) and high == math.inf
    p = 0.025 ** (1 / 1000)
    assert low == pytest.approx(400 * math.log10(p / (1 - p)))  # about 973
    assert 900 < low < elo
    winless = fit_ratings([("random", "dud", 1.0, d // 2) for d in range(100)])["dud"]
    assert winless[1] == -math.inf and math.isfinite(winless[2]) and winless[0] < winless[2] < 0


def test_one_lost_game_closes_the_interval():
    results = [("bot", "random", 1.0, deal // 2) for deal in range(999)]
    results.append(("bot", "random", 0.0, 499))
    _, low, high = fit_ratings(results)["bot"]
    assert math.isfinite(high) and low < high


def test_a_side_that_never_lost_to_the_anchor_side_is_open_above():
    """Two bots that each beat random every time: both ratings are open above."""
    results = [("a", "random", 1.0, ("ar", d // 2)) for d in range(200)]
    results += [("b", "random", 1.0, ("br", d // 2)) for d in range(200)]
    results += [("a", "b", float(d % 2), ("ab", d // 2)) for d in range(200)]
    ratings = fit_ratings(results)
    assert ratings["a"][2] == math.inf and ratings["b"][2] == math.inf
    assert math.isfinite(ratings["a"][1]) and math.isfinite(ratings["b"][1])
