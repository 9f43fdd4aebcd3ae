"""Small, dependency-light statistics used by every metric and rating.

Everything random takes an explicit ``numpy.random.Generator`` (or a seed that makes one): the
evaluator never touches global random state, so a report is reproducible from its inputs.
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict

#: The two-sided 95% normal quantile, written out so the result does not depend on scipy.
Z95 = 1.959963984540054


class Proportion(BaseModel):
    """k successes out of n, with a Wilson score interval. ``p`` is None when n == 0."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    k: float
    n: int
    p: float | None
    low: float
    high: float

    def fmt(self, digits: int = 2) -> str:
        if self.p is None:
            return "n=0"
        return f"{self.p:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}] (n={self.n})"


class Interval(BaseModel):
    """A point estimate with a (percentile bootstrap or analytic) interval."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    estimate: float
    low: float
    high: float

    def overlaps(self, other: "Interval") -> bool:
        return self.low <= other.high and other.low <= self.high


def make_rng(seed: int | np.random.Generator | None) -> np.random.Generator:
    """A Generator from a seed; ``None`` is refused so that nothing is silently unseeded."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None:
        raise ValueError("an explicit seed is required (the evaluator never uses unseeded randomness)")
    return np.random.default_rng(seed)


# --- proportions --------------------------------------------------------------------------------


def wilson_interval(k: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for k/n (Wilson 1927; Newcombe 1998, method 3, no continuity correction).

    ``k`` may be fractional (a draw counted as half a win). n == 0 gives the vacuous [0, 1].
    """
    if n < 0 or k < 0 or k > n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return 0.0, 1.0
    p = k / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = (z / denom) * math.sqrt(max(p * (1 - p) / n + z2 / (4 * n * n), 0.0))
    # Clamp rounding noise: at k == 0 the exact lower bound is 0, at k == n the upper bound is 1.
    low = 0.0 if k == 0 else max(0.0, centre - half)
    high = 1.0 if k == n else min(1.0, centre + half)
    return low, high


def proportion(k: float, n: int, z: float = Z95) -> Proportion:
    low, high = wilson_interval(k, n, z)
    return Proportion(k=k, n=n, p=(k / n if n else None), low=low, high=high)


# --- scoring rules and discrimination ----------------------------------------------------------


def _rankdata(values: np.ndarray) -> np.ndarray:
    """Average ranks (1-based), ties sharing the mean of their ranks; scipy-free and stable."""
    order = np.argsort(values, kind="mergesort")
    sorted_vals = values[order]
    ranks = np.empty(len(values), dtype=float)
    # Boundaries of runs of equal values.
    boundaries = np.flatnonzero(np.diff(sorted_vals) != 0) + 1
    starts = np.concatenate(([0], boundaries))
    ends = np.concatenate((boundaries, [len(values)]))
    for s, e in zip(starts, ends):
        ranks[order[s:e]] = (s + 1 + e) / 2.0
    return ranks


def auroc(scores: Sequence[float], labels: Sequence[bool | int]) -> float | None:
    """Area under the ROC curve = P(score of a random positive > score of a random negative).

    Ties count one half (Mann-Whitney U / (n_pos * n_neg)). None when either class is empty:
    the metric is undefined then, not 0.5.
    """
    s = np.asarray(scores, dtype=float)
    y = np.asarray(labels, dtype=bool)
    if s.shape != y.shape:
        raise ValueError("scores and labels differ in length")
    n_pos = int(y.sum())
    n_neg = len(y) - n_pos
    if n_pos == 0 or n_neg == 0:
        return None
    ranks = _rankdata(s)
    u = ranks[y].sum() - n_pos * (n_pos + 1) / 2.0
    return float(u / (n_pos * n_neg))


def brier(probs: Sequence[float], outcomes: Sequence[bool | int]) -> float | None:
    """Mean squared error of probabilistic forecasts; 0 is perfect, 0.25 is always saying 0.5."""
    p = np.asarray(probs, dtype=float)
    o = np.asarray(outcomes, dtype=float)
    if p.shape != o.shape:
        raise ValueError("probs and outcomes differ in length")
    if len(p) == 0:
        return None
    return float(np.mean((p - o) ** 2))


def brier_reference(outcomes: Sequence[bool | int]) -> float | None:
    """Brier score of the best constant forecast (the base rate): what "no skill" scores."""
    o = np.asarray(outcomes, dtype=float)
    if len(o) == 0:
        return None
    base = o.mean()
    return float(base * (1 - base))


def chance_corrected(observed: float, chance: float) -> float | None:
    """Cohen's-kappa-style correction: (observed - chance) / (1 - chance).

    1 is perfect, 0 is what guessing at random achieves, negative is worse than chance.
    None when chance is 1 (nothing to correct: every guess is right).
    """
    if chance >= 1.0:
        return None
    return (observed - chance) / (1.0 - chance)


def chance_corrected_accuracy(hits: Sequence[bool | int], chance: Sequence[float]) -> float | None:
    """Chance-corrected accuracy over trials with *different* chance rates.

    Each trial i has outcome ``hits[i]`` and a chance of success ``chance[i]`` under a uniform random
    choice (e.g. wolves alive / legal targets of a ballot). Expected accuracy is the mean chance.
    """
    h = np.asarray(hits, dtype=float)
    c = np.asarray(chance, dtype=float)
    if h.shape != c.shape:
        raise ValueError("hits and chance differ in length")
    if len(h) == 0:
        return None
    return chance_corrected(float(h.mean()), float(c.mean()))


# --- bootstrap ----------------------------------------------------------------------------------


def bootstrap_counts(n: int, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Resampling weights: row b says how often each of the n units is drawn in resample b.

    Drawing a multinomial per resample is the same distribution as sampling n indices with
    replacement, and lets weighted estimators reuse one design matrix.
    """
    if n == 0:
        return np.zeros((n_resamples, 0), dtype=np.int64)
    return rng.multinomial(n, np.full(n, 1.0 / n), size=n_resamples)


def bootstrap_indices(n: int, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Resampled unit indices, shape (n_resamples, n)."""
    return rng.integers(0, n, size=(n_resamples, n))


def percentile_interval(samples: np.ndarray, level: float = 0.95, axis: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap bounds along ``axis`` (NaNs from degenerate resamples are ignored)."""
    alpha = (1.0 - level) / 2.0
    low = np.nanquantile(samples, alpha, axis=axis)
    high = np.nanquantile(samples, 1.0 - alpha, axis=axis)
    return low, high


def bootstrap_ci(
    units: Sequence[object],
    statistic: Callable[[list[object]], float | None],
    *,
    seed: int | np.random.Generator,
    n_resamples: int = 1000,
    level: float = 0.95,
) -> Interval | None:
    """Percentile bootstrap of ``statistic`` over resampled units (games, seats...).

    Resamples whose statistic is undefined (None) are dropped; None if the full-sample
    statistic is undefined.
    """
    rng = make_rng(seed)
    data = list(units)
    estimate = statistic(data)
    if estimate is None:
        return None
    idx = bootstrap_indices(len(data), n_resamples, rng)
    values = np.array(
        [np.nan if (v := statistic([data[i] for i in row])) is None else v for row in idx], dtype=float
    )
    if np.all(np.isnan(values)):
        return Interval(estimate=float(estimate), low=float("nan"), high=float("nan"))
    low, high = percentile_interval(values, level)
    return Interval(estimate=float(estimate), low=float(low), high=float(high))


# --- intervals over games (the unit that is independent) ----------------------------------------

#: What every metric interval in the report is, in one sentence (the report prints it).
INTERVAL_METHOD = (
    "95% intervals treat the game (or, for mirrored games, the deal: board and seed) as the unit: rates use a "
    "continuity-corrected Wilson interval on the design-effect-adjusted sample size (the cluster-robust variance of the ratio over "
    "games against the binomial one), means a cluster-robust t interval over games, AUROC a bootstrap over "
    "games. Rows from fewer than MIN_GAMES games are marked: their interval rests on too few units."
)
#: Rows observed in fewer games than this are marked "below the floor" in the report.
MIN_GAMES = 10


def cluster_totals(clusters: Sequence[int], ys: Sequence[float], ns: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """Per-cluster sums of (y, n): a cluster may have been recorded in several pieces."""
    c = np.asarray(clusters, dtype=np.int64)
    if len(c) == 0:
        return np.zeros(0), np.zeros(0)
    _, inv = np.unique(c, return_inverse=True)
    return (np.bincount(inv, weights=np.asarray(ys, dtype=float)),
            np.bincount(inv, weights=np.asarray(ns, dtype=float)))


def cluster_ratio_variance(y: np.ndarray, n: np.ndarray) -> float:
    """Cluster-robust (CR1) variance of R = sum y / sum n over G clusters (linearised ratio estimator).

    Var(R) ~= G/(G-1) * sum_g (y_g - R n_g)^2 / (sum n)^2. NaN with fewer than two clusters.
    """
    g = len(y)
    total = float(n.sum())
    if g < 2 or total <= 0:
        return float("nan")
    r = float(y.sum()) / total
    e = y - r * n
    return g / (g - 1) * float((e * e).sum()) / (total * total)


def _t_quantile(df: int, level: float = 0.95) -> float:
    from scipy.stats import t as student_t

    return float(student_t.ppf(0.5 + level / 2.0, df))


def clustered_rate_interval(y: np.ndarray, n: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """A proportion k/n whose trials come in clusters (games): Wilson on the effective sample size.

    The design effect is deff = cluster-robust variance / binomial variance; the interval is Wilson's
    with n_eff = n / deff (and k scaled alike), never narrower than the binomial one (deff >= 1) and
    with the t quantile on G-1 degrees of freedom. At k = 0 or k = n the data cannot show the
    clustering, so n_eff is the number of clusters (as if every game were one trial): the honest bound.
    """
    n_total = float(n.sum())
    g = len(n)
    if n_total <= 0:
        return 0.0, 1.0
    p = float(y.sum()) / n_total
    z = _t_quantile(max(g - 1, 1), level) if g >= 2 else Z95 * 3  # one game says nothing of the spread
    if p <= 0.0 or p >= 1.0:
        n_eff = float(g)
    else:
        v_binom = p * (1 - p) / n_total
        v_cluster = cluster_ratio_variance(y, n)
        deff = max(1.0, v_cluster / v_binom) if math.isfinite(v_cluster) else float(n_total)
        n_eff = n_total / deff
    n_eff = max(n_eff, 1e-9)
    return _wilson_cc_real(p, n_eff, z)


def _wilson_cc_real(p: float, n: float, z: float) -> tuple[float, float]:
    """Wilson's interval with continuity correction (Newcombe 1998, method 4) on a real-valued n.

    Measured on clustered synthetic rates (benchmarks/bench_power.py, 2000 replicates each): the plain
    Wilson interval on n_eff covered 0.939-0.968 at p = 0.01-0.10 over 60-240 games, the corrected one
    0.948-0.984, so the rates the report prints are the corrected ones (issue #26)."""
    k = p * n
    z2 = z * z
    low = 0.0 if p <= 0 else max(0.0, (2 * k + z2 - 1 - z * math.sqrt(max(z2 - 2 - 1 / n + 4 * p * (n * (1 - p) + 1), 0.0)))
                                / (2 * (n + z2)))
    high = 1.0 if p >= 1 else min(1.0, (2 * k + z2 + 1 + z * math.sqrt(max(z2 + 2 - 1 / n + 4 * p * (n * (1 - p) - 1), 0.0)))
                                  / (2 * (n + z2)))
    return low, high


def _wilson_real(p: float, n: float, z: float) -> tuple[float, float]:
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = (z / denom) * math.sqrt(max(p * (1 - p) / n + z2 / (4 * n * n), 0.0))
    low = 0.0 if p <= 0 else max(0.0, centre - half)
    high = 1.0 if p >= 1 else min(1.0, centre + half)
    return low, high


def clustered_mean_interval(y: np.ndarray, n: np.ndarray, level: float = 0.95) -> tuple[float | None, float | None]:
    """Mean of per-observation values summed per cluster (y) over counts (n): cluster-robust t interval."""
    g = len(y)
    if g < 2:
        return None, None
    mean = float(y.sum()) / float(n.sum())
    se = math.sqrt(cluster_ratio_variance(y, n))
    half = _t_quantile(g - 1, level) * se
    return mean - half, mean + half


def holm_reject(p_values: Sequence[float], alpha: float = 0.05) -> list[bool]:
    """Holm's step-down correction: which of m hypotheses are rejected at family-wise level alpha."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    reject = [False] * m
    for rank, i in enumerate(order):
        if p_values[i] <= alpha / (m - rank):
            reject[i] = True
        else:
            break
    return reject


# --- ranking ------------------------------------------------------------------------------------


def ranks_with_ties(intervals: dict[str, Interval]) -> dict[str, int]:
    """Rank = 1 + number of entries whose interval lies entirely above this one's.

    Entries that cannot be told apart share a rank, so a leaderboard never claims an order the
    data do not support. Deterministic and independent of dict order.
    """
    out: dict[str, int] = {}
    for name, iv in intervals.items():
        out[name] = 1 + sum(1 for other, ov in intervals.items() if other != name and ov.low > iv.high)
    return out


def games_to_separate(diff: float, se_now: float, n_now: int, z: float = Z95) -> int | None:
    """Rough power line: games needed (in total) for a gap ``diff`` to clear a 95% interval.

    Assumes the standard error shrinks like 1/sqrt(n): need z * se_now * sqrt(n_now / n) < |diff|.
    None if there is no gap or no data.
    """
    if n_now <= 0 or se_now <= 0 or diff == 0 or not math.isfinite(se_now):
        return None
    n_needed = n_now * (z * se_now / abs(diff)) ** 2
    return int(math.ceil(n_needed))


def monotone_ranks(ranks: dict[str, int], estimates: dict[str, float]) -> dict[str, int]:
    """Ranks that never contradict the order of the estimates: in that order, each rank is the running
    maximum of the tested ranks (an entry below one ranked 2 is at least 2, even when no test separated
    it from the top), so a printed rank is a tier of entries not told apart (issue #26)."""
    out: dict[str, int] = {}
    level = 0
    for name in sorted(ranks, key=lambda n: (-estimates[n], n)):
        level = max(level, ranks[name])
        out[name] = level
    return out


def ranks_by_pairwise_tests(names: Sequence[str], samples: np.ndarray, alpha: float = 0.05,
                            games: dict[str, int] | None = None,
                            estimates: Sequence[float] | np.ndarray | None = None) -> tuple[dict[str, int], int]:
    """Rank = 1 + number of entries shown better than this one, by Holm-corrected pairwise tests.

    ``samples`` holds one bootstrap draw per row and one entry per column; ``estimates`` the full-data
    fit (default: the bootstrap means); ``games`` the independent units (games, or deals when games are
    mirrored) of each entry. For each pair the statistic is the gap over its bootstrap standard error,
    referred to a t distribution on (units - 1) degrees of freedom (the fewer of the two): at a few dozen games a percentile-bootstrap p-value is too optimistic (an A/A at 20
    games separated 10% of the time instead of 5%). Holm's correction over all m = k(k-1)/2 pairs keeps
    the chance of any false order below alpha. An entry with fewer than MIN_GAMES games is never
    separated. Returns (ranks, m).
    """
    from scipy.stats import t as student_t

    k = len(names)
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    if not pairs or samples.shape[0] < 2:
        return {n: 1 for n in names}, len(pairs)
    point = np.asarray(estimates, dtype=float) if estimates is not None else np.nanmean(samples, axis=0)
    big = 10**9
    p_values = []
    for i, j in pairs:
        d = samples[:, i] - samples[:, j]
        d = d[np.isfinite(d)]
        se = float(np.std(d, ddof=1)) if len(d) > 1 else 0.0
        gap = float(point[i] - point[j])
        n_games = min(games.get(names[i], 0), games.get(names[j], 0)) if games is not None else big
        if se <= 0 or n_games < 2:
            p_values.append(1.0 if gap == 0 or n_games < 2 else 0.0)
            continue
        p_values.append(float(2.0 * student_t.sf(abs(gap) / se, min(n_games, big) - 1)))
    reject = holm_reject(p_values, alpha)
    above = {n: 0 for n in names}
    for (i, j), rej in zip(pairs, reject):
        if not rej or (games is not None and min(games.get(names[i], 0), games.get(names[j], 0)) < MIN_GAMES):
            continue
        better, worse = (i, j) if point[i] > point[j] else (j, i)
        above[names[worse]] += 1
    return {n: 1 + above[n] for n in names}, len(pairs)
