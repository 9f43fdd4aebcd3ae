"""Power and interval coverage of the leaderboard (``arena bench``) on synthetic truth (issue #26).

    PYTHONPATH=. python benchmarks/bench_power.py [--replicates 400] [--bt-replicates 100]

Games are drawn from the arena's own rating model (team Bradley-Terry, arena.evaluate.synthetic) in the
bench's mixed seating: three roster entries (the entry, ref-heuristic, ref-random), each deal played once
per rotation, with a per-deal shift of the village's logit (deals differ whoever plays them). Printed:

* coverage of the leaderboard interval (the entry's gap to the reference in win-rate points, a t
  interval over deals) at the bench's size, against the design's exact expected gap;
* coverage of the BT skill-gap interval (percentile deal bootstrap, the rating's own) at the same size;
* coverage of rare-rate intervals (p <= 0.05): the clustered Wilson interval the report uses;
* power (the share of replicates whose gap test rejects at 5%) and the stated minimal detectable
  difference per entry size.
"""

from __future__ import annotations

import argparse
import math
import sys

import numpy as np

sys.path.insert(0, ".")

from arena.evaluate.paired import deal_shares, gap_diffs, paired_gap  # noqa: E402
from arena.evaluate.ratings import RatingConfig  # noqa: E402
from arena.evaluate.stats import clustered_rate_interval  # noqa: E402
from arena.evaluate.synthetic import synthetic_mixed_deals  # noqa: E402

BOARD_TERM = -1.0  # wolves win about 70% at equal skill, as on the bench's boards with a random third
DEAL_SD = 0.8


def true_gap(skills: dict[str, float], a: str, b: str, deals: int = 5000) -> float:
    games = synthetic_mixed_deals(skills, deals, seed=987654, board_term=BOARD_TERM, deal_sd=DEAL_SD, realise=False)
    total = 0.0
    for record, p in games:  # type: ignore[misc]
        for agent, sign in ((a, 1.0), (b, -1.0)):
            seats = [s for s in record.seats if s.agent == agent]
            total += sign * sum(p if s.side == "good" else 1.0 - p for s in seats) / len(seats)
    return total / len(games)


def gap_of(games: list, a: str, b: str) -> tuple[float, float, float, float]:
    g = paired_gap(list(gap_diffs(deal_shares(games), a, b).values()))
    return g.estimate, g.low or 0.0, g.high or 0.0, g.p or 1.0


def coverage(skills: dict[str, float], deals: int, replicates: int, seed: int) -> tuple[float, float, float, float]:
    truth = true_gap(skills, "entry", "ref-heuristic")
    hit = rejected = 0
    mdds = []
    for r in range(replicates):
        games = synthetic_mixed_deals(skills, deals, seed=seed + r, board_term=BOARD_TERM, deal_sd=DEAL_SD)
        g = paired_gap(list(gap_diffs(deal_shares(games), "entry", "ref-heuristic").values()))
        hit += int(g.low is not None and g.high is not None and g.low <= truth <= g.high)
        rejected += int(g.p is not None and g.p < 0.05)
        mdds.append(g.mdd80 or math.nan)
    return hit / replicates, rejected / replicates, float(np.nanmean(mdds)), truth


def rare_rate_coverage(p: float, games: int, per_game: float, replicates: int, seed: int) -> float:
    """A rate of p over clustered trials (a game holds a few trials sharing a game-level rate)."""
    rng = np.random.default_rng(seed)
    hit = 0
    for _ in range(replicates):
        n = rng.poisson(per_game, size=games) + 1
        rates = rng.beta(p * 20, (1 - p) * 20, size=games)
        y = rng.binomial(n, rates)
        low, high = clustered_rate_interval(y.astype(float), n.astype(float))
        hit += int(low <= p <= high)
    return hit / replicates


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--replicates", type=int, default=400)
    ap.add_argument("--bt-replicates", type=int, default=100)
    ap.add_argument("--resamples", type=int, default=200)
    args = ap.parse_args()
    base = {"ref-heuristic": 0.0, "ref-random": -0.3}
    print("leaderboard interval (gap to the reference, t over deals), 2 boards x 20 deals = 40 deals, 120 games:")
    for delta in (0.0, 0.05, 0.1):
        cov, power, mdd, truth = coverage({**base, "entry": delta}, 40, args.replicates, seed=1000)
        print(f"  planted skill gap {delta:+.2f}/seat: true gap {100 * truth:+.1f} pts, coverage {cov:.3f}, "
              f"rejects {power:.3f}, stated MDD80 {100 * mdd:.1f} pts  ({args.replicates} replicates)")
    print("power per entry size (a planted gap of 0.7 logit per seat: about 10 win-rate points):")
    for deals in (10, 20, 40, 60, 80):
        cov, power, mdd, truth = coverage({**base, "entry": 0.7}, deals, args.replicates // 2, seed=5000)
        print(f"  {deals:3d} deals ({3 * deals} games): true gap {100 * truth:+.1f} pts, power {power:.2f}, "
              f"stated MDD80 {100 * mdd:.1f} pts, coverage {cov:.3f}")
    if args.bt_replicates:
        cov = bt_gap_coverage({**base, "entry": 0.3}, 40, args.bt_replicates, args.resamples, seed=9000)
        print(f"BT skill gap (entry - ref-heuristic, planted 0.3/seat) at 40 deals: coverage "
              + ", ".join(f"{k} {v:.3f}" for k, v in cov.items())
              + f" ({args.bt_replicates} replicates, {args.resamples} resamples)")
    for p in (0.01, 0.03, 0.05):
        cov = rare_rate_coverage(p, 120, 4.0, args.replicates, seed=int(p * 1000))
        print(f"rare rate p={p:.2f}, 120 games x ~5 trials: clustered Wilson coverage {cov:.3f}")


def bt_gap_coverage(skills: dict[str, float], deals: int, replicates: int, resamples: int, seed: int) -> dict[str, float]:
    """Coverage of the BT skill gap (entry - ref-heuristic) against the planted gap: the deal-bootstrap
    percentile interval the rating uses, and a studentized one (bootstrap se x t on deals - 1 df)."""
    from arena.evaluate.ratings import _bootstrap_resample_weights, _design, _fit, deal_clusters
    from arena.evaluate.stats import _t_quantile

    truth = skills["entry"] - skills["ref-heuristic"]
    hits = {"percentile": 0, "t (deals - 1 df)": 0}
    for r in range(replicates):
        games = synthetic_mixed_deals(skills, deals, seed=seed + r, board_term=BOARD_TERM, deal_sd=DEAL_SD)
        cfg = RatingConfig(n_resamples=resamples, seed=r)
        design, _ = _design(games, cfg)
        ones = design.row_weights(np.ones(len(design.games)))
        theta, _ = _fit(design, ones)
        col = {a: design.n_boards + i for i, a in enumerate(design.agents)}
        point = theta[col["entry"]] - theta[col["ref-heuristic"]]
        rng = np.random.default_rng(r)
        clusters = deal_clusters(design.games)
        draws = []
        for _ in range(resamples):
            w = design.row_weights(_bootstrap_resample_weights(len(design.games), rng, clusters))
            t, _ = _fit(design, w, start=theta)
            draws.append(t[col["entry"]] - t[col["ref-heuristic"]])
        d = np.array(draws)
        lo, hi = np.quantile(d, 0.025), np.quantile(d, 0.975)
        hits["percentile"] += int(lo <= truth <= hi)
        half = _t_quantile(deals - 1) * float(np.std(d, ddof=1))
        hits["t (deals - 1 df)"] += int(point - half <= truth <= point + half)
    return {k: v / replicates for k, v in hits.items()}


if __name__ == "__main__":
    main()
