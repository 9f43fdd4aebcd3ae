"""Deal-paired gaps, pair tests, tiers and the bench design's coverage (issue #26)."""

from __future__ import annotations

import math

import pytest

from arena.evaluate.paired import (
    PairTest,
    deal_shares,
    gap_diffs,
    mdd,
    paired_gap,
    pairwise_tests,
    tiers,
)
from arena.evaluate.synthetic import synthetic_mixed_deals
from arena.tournament import BoardEntry, RosterEntry, TournamentConfig, build_schedule


def test_paired_gap_is_a_t_interval_over_deals() -> None:
    g = paired_gap([0.1, 0.2, 0.0, 0.3])
    assert g.estimate == pytest.approx(0.15)
    se = math.sqrt(sum((x - 0.15) ** 2 for x in (0.1, 0.2, 0.0, 0.3)) / 3 / 4)
    assert g.se == pytest.approx(se)
    assert g.high - g.estimate == pytest.approx(3.182446305284263 * se)  # t(0.975, 3)
    assert g.mdd80 == pytest.approx((3.182446305284263 + 0.9784723123633045) * se)  # + t(0.80, 3)
    assert paired_gap([0.2]).low is None and paired_gap([]).deals == 0
    assert mdd(0.02, 40) == pytest.approx((2.0227 + 0.8510) * 0.02, rel=1e-4)  # t(0.975, 39) + t(0.80, 39)


def test_tiers_never_contradict_the_order() -> None:
    """An entry with a wide interval is not separated from the top, a precise one below it is: the
    precise one may not be printed in a worse tier than the wide one ranked after it."""
    est = {"a": 0.3, "b": 0.2, "c": 0.1}
    tests = [PairTest(higher="a", lower="b", gap=paired_gap([0.1] * 9 + [0.11]), separated=True),
             PairTest(higher="a", lower="c", gap=paired_gap([0.2, -0.1] * 5), separated=False),
             PairTest(higher="b", lower="c", gap=paired_gap([0.1, -0.1] * 5), separated=False)]
    assert tiers(est, tests) == [["a"], ["b", "c"]]
    assert tiers(est, [t.model_copy(update={"separated": False}) for t in tests]) == [["a", "b", "c"]]


def test_pair_tests_pair_by_deal_and_correct_for_multiplicity() -> None:
    common = {("b", d): 0.01 * (d % 3) for d in range(20)}
    diffs = {"x": {k: v + 0.10 for k, v in common.items()}, "y": dict(common),
             "z": {k: v + 0.005 * (-1) ** k[1] for k, v in common.items()}}
    out = {(t.higher, t.lower): t for t in pairwise_tests(diffs)}
    assert out[("x", "y")].separated and out[("x", "y")].gap.estimate == pytest.approx(0.10)
    assert not out[("y", "z")].separated and not out[("z", "y")].separated if ("z", "y") in out else True
    # paired: the shared per-deal noise cancels, so a constant 10-point difference has no spread at all
    assert out[("x", "y")].gap.se == pytest.approx(0.0, abs=1e-12)
    # too few deals never separate, whatever the p-value
    few = {name: {k: v for k, v in d.items() if k[1] < 5} for name, d in diffs.items()}
    assert not any(t.separated for t in pairwise_tests(few))


def test_mixed_seating_rotates_every_seat_and_so_every_speaking_position() -> None:
    """In a deal block every entry holds every seat (and every card) once: day-1 speaking order is a
    function of seats and the deal, so position is balanced by design, not left to the model."""
    cfg = TournamentConfig(name="t", roster=[RosterEntry(label=x, agent="bot:random") for x in "ABC"],
                           boards=[BoardEntry(preset="std-12-guard")], deals=2, seed=1, seating="mixed", out="x")
    blocks: dict[str, list] = {}
    for g in build_schedule(cfg):
        blocks.setdefault(g.group, []).append(g)
    for games in blocks.values():
        assert len(games) == 3 and len({g.seed for g in games}) == 1
        for seat in range(12):
            assert sorted(g.labels[seat] for g in games) == ["A", "B", "C"]


def _coverage(replicates: int, deals: int, skills: dict[str, float]) -> float:
    truth_games = synthetic_mixed_deals(skills, 4000, seed=99, board_term=-1.0, deal_sd=0.8, realise=False)
    total = 0.0
    for record, p in truth_games:  # type: ignore[misc]
        for agent, sign in (("entry", 1.0), ("ref", -1.0)):
            seats = [s for s in record.seats if s.agent == agent]
            total += sign * sum(p if s.side == "good" else 1 - p for s in seats) / len(seats)
    truth = total / len(truth_games)
    hit = 0
    for r in range(replicates):
        games = synthetic_mixed_deals(skills, deals, seed=r, board_term=-1.0, deal_sd=0.8)
        g = paired_gap(list(gap_diffs(deal_shares(games), "entry", "ref").values()))
        hit += int(g.low is not None and g.high is not None and g.low <= truth <= g.high)
    return hit / replicates


def test_the_leaderboard_interval_covers_the_truth_at_bench_size() -> None:
    """40 deals (the suite's 2 boards x 20), games drawn from the rating model with a real gap:
    the gap's t interval covers the exact expected gap (300 replicates: sd of the rate about 0.013)."""
    cover = _coverage(300, 40, {"entry": 0.4, "ref": 0.0, "rnd": -0.3})
    assert 0.92 <= cover <= 0.985, cover


@pytest.mark.slow
def test_the_bt_skill_intervals_cover_the_planted_skills_at_bench_size() -> None:
    """The rating's own intervals (deal bootstrap, studentized with t on deals - 1) at the bench's 40 deals.
    Planted skills average 0, which is where the fit's weak prior centres them, so each planted skill is
    the truth of its interval: 120 replicates x 2 entries of 100 resamples (sd of the rate about 0.015).
    For the gap of two skills the percentile interval this replaced covered 0.913 and the studentized
    one 0.960 (150 replicates, benchmarks/bench_power.py)."""
    from arena.evaluate.ratings import RatingConfig, bradley_terry

    skills = {"entry": 0.3, "ref": 0.0, "rnd": -0.3}
    hit = total = 0
    for r in range(120):
        games = synthetic_mixed_deals(skills, 40, seed=7000 + r, board_term=-1.0, deal_sd=0.8)
        bt = bradley_terry(games, RatingConfig(n_resamples=100, seed=r))
        for a in bt.agents:
            if a.agent in ("entry", "ref"):
                total += 1
                hit += int(a.skill.low <= skills[a.agent] <= a.skill.high)
    assert hit / total >= 0.93, hit / total
