"""Known answers for the statistics helpers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from arena.evaluate.stats import (
    Interval,
    auroc,
    bootstrap_ci,
    brier,
    brier_reference,
    chance_corrected,
    chance_corrected_accuracy,
    games_to_separate,
    make_rng,
    proportion,
    ranks_with_ties,
    wilson_interval,
)

# Newcombe (1998), "Two-sided confidence intervals for the single proportion", Stat Med 17:857,
# Table I, method 3 (Wilson score, no continuity correction), plus the textbook 0/10 and 5/10.
NEWCOMBE = [
    (0, 10, 0.0000, 0.2775),
    (5, 10, 0.2366, 0.7634),
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0000, 0.1611),
    (1, 29, 0.0061, 0.1718),
]


@pytest.mark.parametrize("k,n,low,high", NEWCOMBE)
def test_wilson_matches_published_table(k: int, n: int, low: float, high: float) -> None:
    lo, hi = wilson_interval(k, n)
    assert lo == pytest.approx(low, abs=5e-5)
    assert hi == pytest.approx(high, abs=5e-5)


def test_wilson_edges() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)
    lo, hi = wilson_interval(10, 10)
    assert hi == 1.0 and lo == pytest.approx(1 - 0.2775, abs=5e-5)  # symmetric to 0/10
    assert proportion(0, 0).p is None
    assert proportion(3, 4).p == 0.75
    with pytest.raises(ValueError):
        wilson_interval(5, 4)


def test_auroc_known_values() -> None:
    assert auroc([0.1, 0.2, 0.8, 0.9], [0, 0, 1, 1]) == 1.0  # perfectly separated
    assert auroc([0.9, 0.8, 0.2, 0.1], [0, 0, 1, 1]) == 0.0  # perfectly inverted
    assert auroc([0.5, 0.5, 0.5, 0.5], [0, 1, 0, 1]) == 0.5  # all tied: ties count one half
    assert auroc([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1]) == 0.75  # scikit-learn's roc_auc_score example
    assert auroc([0.3, 0.7], [1, 1]) is None  # one class only: undefined, not 0.5


def test_auroc_matches_pairwise_definition() -> None:
    rng = np.random.default_rng(3)
    scores = rng.integers(0, 5, size=60).astype(float)  # many ties
    labels = rng.random(60) < 0.4
    pos, neg = scores[labels], scores[~labels]
    expected = np.mean([(p > q) + 0.5 * (p == q) for p in pos for q in neg])
    assert auroc(scores, labels) == pytest.approx(expected)


def test_brier() -> None:
    assert brier([1.0, 0.0], [1, 0]) == 0.0
    assert brier([0.5, 0.5, 0.5], [1, 0, 1]) == 0.25
    assert brier([0.0], [1]) == 1.0
    assert brier([], []) is None
    assert brier_reference([1, 0, 0, 0]) == pytest.approx(0.1875)


def test_chance_correction() -> None:
    assert chance_corrected(1.0, 0.25) == 1.0
    assert chance_corrected(0.25, 0.25) == 0.0
    assert chance_corrected(0.0, 0.5) == -1.0
    assert chance_corrected(1.0, 1.0) is None
    # Two ballots with chance 1/4 and 3/4: expected accuracy 1/2; one hit of two is exactly chance.
    assert chance_corrected_accuracy([1, 0], [0.25, 0.75]) == 0.0
    assert chance_corrected_accuracy([1, 1], [0.25, 0.75]) == 1.0
    assert chance_corrected_accuracy([], []) is None


def test_bootstrap_is_seeded_and_sane() -> None:
    data = [1.0] * 30 + [0.0] * 70
    mean = lambda xs: float(np.mean(xs)) if xs else None  # noqa: E731
    a = bootstrap_ci(data, mean, seed=7, n_resamples=500)
    b = bootstrap_ci(data, mean, seed=7, n_resamples=500)
    assert a == b
    assert a is not None and a.estimate == pytest.approx(0.3)
    assert 0.19 < a.low < 0.3 < a.high < 0.41
    lo, hi = wilson_interval(30, 100)
    assert a.low == pytest.approx(lo, abs=0.03) and a.high == pytest.approx(hi, abs=0.03)
    with pytest.raises(ValueError):
        make_rng(None)


def test_ranks_with_ties() -> None:
    ivs = {
        "a": Interval(estimate=2.0, low=1.5, high=2.5),
        "b": Interval(estimate=1.6, low=1.2, high=2.0),  # overlaps a: shares rank 1
        "c": Interval(estimate=0.0, low=-0.5, high=0.5),  # below both
        "d": Interval(estimate=-0.1, low=-0.4, high=0.3),  # tied with c
    }
    assert ranks_with_ties(ivs) == {"a": 1, "b": 1, "c": 3, "d": 3}


def test_games_to_separate() -> None:
    # se 0.1 at 100 games, gap 0.392: need z*se*sqrt(100/n) < 0.392 -> n > 100*(0.196/0.392)^2 = 25.
    assert games_to_separate(0.392, 0.1, 100) == math.ceil(100 * (1.959963984540054 * 0.1 / 0.392) ** 2)
    assert games_to_separate(0.0, 0.1, 100) is None
