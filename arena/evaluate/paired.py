"""Deal-paired comparisons for the leaderboard (``arena bench``, issue #26).

In a mixed-seating suite every roster entry plays every card of a deal once (one game per rotation),
so within a deal the entries hold the same cards, the same seats and so the same speaking positions:
the difference of two entries' win shares over one deal carries no side or position effect. Deals
are independent, so the mean of those per-deal differences has a plain t interval on (deals - 1)
degrees of freedom. Entries of separate runs of one suite play the same deals; their gaps to the
shared reference pair by deal the same way.

Units are win-rate points (a share of seats whose side won, a draw counting half): what a reader
means by "10 points better", and what the power statement is in.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Iterable, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field

from arena.evaluate.records import GameRecord
from arena.evaluate.stats import holm_reject

#: The power the minimal detectable difference is stated at, and the two-sided level of every test.
POWER = 0.80
ALPHA = 0.05
#: Fewer deals than this and a run says nothing worth ranking: its t quantile and its spread are both guesses.
MIN_DEALS = 8

DealKey = tuple[str, int]


class PairedGap(BaseModel):
    """Mean per-deal difference with its t interval, two-sided p-value and minimal detectable difference."""

    model_config = ConfigDict(extra="forbid")

    estimate: float
    low: float | None
    high: float | None
    se: float | None
    p: float | None = Field(description="two-sided p-value of a zero gap (t test over deals)")
    deals: int
    mdd80: float | None = Field(description=(
        "the smallest true gap this many deals detect with 80% power at the two-sided 5% level "
        "((t_0.975 + t_0.80) x standard error, on deals - 1 degrees of freedom)"))


def _t(q: float, df: int) -> float:
    from scipy.stats import t as student_t

    return float(student_t.ppf(q, df))


def mdd(se: float, deals: int, alpha: float = ALPHA, power: float = POWER) -> float | None:
    """Minimal detectable difference of a paired t test with this standard error."""
    if deals < 2 or not math.isfinite(se):
        return None
    df = deals - 1
    return (_t(1 - alpha / 2, df) + _t(power, df)) * se


def paired_gap(diffs: Sequence[float], level: float = 0.95) -> PairedGap:
    """The t interval of the mean of per-deal differences."""
    n = len(diffs)
    if n == 0:
        return PairedGap(estimate=0.0, low=None, high=None, se=None, p=None, deals=0, mdd80=None)
    mean = sum(diffs) / n
    if n < 2:
        return PairedGap(estimate=mean, low=None, high=None, se=None, p=None, deals=n, mdd80=None)
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    se = math.sqrt(var / n)
    half = _t(0.5 + level / 2, n - 1) * se
    if se > 0:
        from scipy.stats import t as student_t

        p = float(2 * student_t.sf(abs(mean) / se, n - 1))
    else:
        p = 1.0 if mean == 0 else 0.0
    return PairedGap(estimate=mean, low=mean - half, high=mean + half, se=se, p=p, deals=n, mdd80=mdd(se, n))


def deal_shares(records: Iterable[GameRecord], side: str | None = None) -> dict[DealKey, dict[str, float]]:
    """Per deal (board, seed): each label's share of its seats whose side won (draw: half).

    ``side`` ("good" or "wolf") keeps only seats of that side: the role-decomposed (village / wolf) share."""
    won: dict[DealKey, dict[str, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0.0, 0.0]))
    for g in records:
        outcome = g.good_won
        if outcome is None:
            continue
        key = (g.board, g.seed if g.seed is not None else -1)
        for s in g.seats:
            if side is not None and s.side != side:
                continue
            cell = won[key][s.agent]
            cell[0] += outcome if s.side == "good" else 1.0 - outcome
            cell[1] += 1
    return {k: {a: w / n for a, (w, n) in v.items() if n} for k, v in won.items()}


def gap_diffs(shares: Mapping[DealKey, Mapping[str, float]], a: str, b: str) -> dict[DealKey, float]:
    """share[a] - share[b] on every deal both played."""
    return {k: v[a] - v[b] for k, v in shares.items() if a in v and b in v}


class PairTest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    higher: str
    lower: str
    gap: PairedGap
    separated: bool = Field(description="the gap is nonzero after Holm's correction over every pair compared")


def pairwise_tests(diffs_by_entry: Mapping[str, Mapping[DealKey, float]], alpha: float = ALPHA) -> list[PairTest]:
    """Every pair of entries, each described by its per-deal gap to a common reference, tested on the
    deals both played (paired by deal), with Holm's correction over all the pairs."""
    names = sorted(diffs_by_entry)
    rows: list[tuple[str, str, PairedGap]] = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            common = sorted(set(diffs_by_entry[a]) & set(diffs_by_entry[b]))
            g = paired_gap([diffs_by_entry[a][k] - diffs_by_entry[b][k] for k in common])
            hi, lo = (a, b) if g.estimate >= 0 else (b, a)
            if g.estimate < 0:
                g = g.model_copy(update={"estimate": -g.estimate,
                                         "low": None if g.high is None else -g.high,
                                         "high": None if g.low is None else -g.low})
            rows.append((hi, lo, g))
    reject = holm_reject([1.0 if g.p is None else g.p for _, _, g in rows], alpha)
    return [PairTest(higher=h, lower=lo, gap=g, separated=bool(r) and g.deals >= MIN_DEALS)
            for (h, lo, g), r in zip(rows, reject)]


def tiers(estimates: Mapping[str, float], tests: Sequence[PairTest]) -> list[list[str]]:
    """Entries in order of estimate, cut into tiers: an entry opens a new tier only when some entry
    above it is separated from it. Tier numbers never contradict the order (a tier is the running
    maximum of 1 + entries separated above), so a printed rank is a set of entries not told apart."""
    order = sorted(estimates, key=lambda a: (-estimates[a], a))
    above: dict[str, int] = {a: 0 for a in order}
    for t in tests:
        if t.separated:
            above[t.lower] += 1
    out: list[list[str]] = []
    level = 0
    for a in order:
        want = 1 + above[a]
        if not out or want > level:
            level = max(level, want)
            out.append([a])
        else:
            out[-1].append(a)
    return out


__all__ = ["MIN_DEALS", "PairTest", "PairedGap", "deal_shares", "gap_diffs", "mdd", "paired_gap", "pairwise_tests",
           "tiers"]
