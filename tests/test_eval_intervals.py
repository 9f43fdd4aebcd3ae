"""The report's interval method: coverage on synthetic data whose truth is known.

Trials come in games with a game-level random effect (a table where everyone votes alike), so a
per-ballot interval is too narrow; the game-clustered one must hold the truth about 95% of the time.
"""

from __future__ import annotations

import numpy as np
import pytest

from arena.evaluate.stats import (
    clustered_mean_interval,
    _t_quantile,
    _wilson_cc_real,
    clustered_rate_interval,
    holm_reject,
    monotone_ranks,
    ranks_by_pairwise_tests,
    wilson_interval,
)


def _clustered_rates(rng: np.random.Generator, games: int, p: float, concentration: float) -> tuple[np.ndarray, np.ndarray]:
    """Per-game successes and trials: each game's rate ~ Beta(mean p), 1-12 trials a game."""
    n = rng.integers(1, 13, size=games).astype(float)
    pg = rng.beta(p * concentration, (1 - p) * concentration, size=games)
    y = rng.binomial(n.astype(int), pg).astype(float)
    return y, n


def _rate_coverage(replicates: int, games: int, p: float, concentration: float, seed: int) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    hit_cluster = hit_naive = 0
    for _ in range(replicates):
        y, n = _clustered_rates(rng, games, p, concentration)
        lo, hi = clustered_rate_interval(y, n)
        hit_cluster += lo <= p <= hi
        wl, wh = wilson_interval(float(y.sum()), int(n.sum()))
        hit_naive += wl <= p <= wh
    return hit_cluster / replicates, hit_naive / replicates


def _mean_coverage(replicates: int, games: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    truth = 0.3
    hits = 0
    for _ in range(replicates):
        n = rng.integers(1, 9, size=games).astype(float)
        effect = rng.normal(0, 0.5, size=games)  # a shared game effect on every observation of the game
        y = np.array([float(np.sum(truth + e + rng.normal(0, 1, size=int(k)))) for e, k in zip(effect, n)])
        lo, hi = clustered_mean_interval(y, n)
        hits += lo <= truth <= hi
    return hits / replicates


def test_clustered_rate_interval_covers_the_truth_where_a_per_ballot_one_does_not() -> None:
    cover, naive = _rate_coverage(400, 60, 0.35, 3.0, seed=1)
    assert 0.91 <= cover <= 0.99, cover
    # The same data through a per-ballot Wilson interval: clearly under 95%, so this test can fail.
    assert naive < 0.85, naive


def test_clustered_mean_interval_covers_the_truth() -> None:
    cover = _mean_coverage(300, 50, seed=2)
    assert 0.91 <= cover <= 0.98, cover


def test_a_rate_with_no_successes_uses_games_as_trials() -> None:
    y = np.zeros(10)
    n = np.full(10, 8.0)
    lo, hi = clustered_rate_interval(y, n)
    assert lo == 0.0
    # continuity-corrected Wilson (issue #26) with t on 9 df over 10 units, not 80 trials
    assert hi == pytest.approx(_wilson_cc_real(0.0, 10.0, _t_quantile(9))[1], rel=1e-9)
    assert hi > wilson_interval(0, 10)[1] and hi > wilson_interval(0, 80)[1] * 3


def test_holm_rejects_in_step_down_order() -> None:
    assert holm_reject([0.001, 0.04, 0.03, 0.5]) == [True, False, False, False]
    assert holm_reject([0.001, 0.012, 0.02]) == [True, True, True]
    assert holm_reject([]) == []


def test_pairwise_ranks_separate_only_clear_gaps() -> None:
    rng = np.random.default_rng(3)
    samples = np.column_stack([rng.normal(1.0, 0.1, 1000), rng.normal(0.0, 0.1, 1000), rng.normal(0.05, 0.1, 1000)])
    ranks, m = ranks_by_pairwise_tests(["a", "b", "c"], samples)
    assert m == 3
    assert ranks == {"a": 1, "b": 2, "c": 2}


@pytest.mark.slow
@pytest.mark.parametrize("games,p,concentration", [(20, 0.5, 2.0), (60, 0.2, 5.0), (200, 0.35, 1.5), (40, 0.7, 50.0)])
def test_clustered_rate_coverage_across_designs(games: int, p: float, concentration: float) -> None:
    cover, _ = _rate_coverage(3000, games, p, concentration, seed=games)
    assert 0.925 <= cover <= 0.975, cover


@pytest.mark.slow
def test_clustered_mean_coverage_many_replicates() -> None:
    cover = _mean_coverage(3000, 40, seed=5)
    assert 0.93 <= cover <= 0.97, cover


@pytest.mark.slow
def test_rare_rates_cover_at_bench_size() -> None:
    """Rates of 1-5% over 120 games (the bench's size), clustered by game: the mean coverage over the four
    rates reaches 0.955 (6000 replicates: a standard error of about 0.003). Plain Wilson on the effective
    size measured 0.945-0.953 (mean 0.948) here; the continuity-corrected interval 0.953-0.973 (mean 0.965)
    (issue #26)."""
    covers = [_rate_coverage(1500, 120, p, 20.0, seed=int(p * 1000))[0] for p in (0.01, 0.02, 0.03, 0.05)]
    assert min(covers) >= 0.93 and sum(covers) / len(covers) >= 0.955, covers


def test_printed_ranks_never_contradict_the_order() -> None:
    """The researcher's case of issue #26: a precise entry separated from the top gets rank 2, a vaguer one
    below it on the estimate was separated from nobody and got rank 1. Printed, it is rank 2 as well."""
    tested = {"top": 1, "precise": 2, "vague": 1, "last": 3}
    est = {"top": 0.9, "precise": 0.5, "vague": 0.2, "last": -0.4}
    assert monotone_ranks(tested, est) == {"top": 1, "precise": 2, "vague": 2, "last": 3}
    assert monotone_ranks({"a": 1, "b": 1}, {"a": 0.0, "b": 1.0}) == {"a": 1, "b": 1}
