"""Every metric of the evaluator, computed from transcripts only (docs/metrics.md defines each one).

One pass per transcript feeds small accumulators keyed by (metric, agent, group); nothing of a
game is kept after its pass except what the ratings need (a :class:`GameRecord`). An agent is a
roster entry: the seat's ``label`` in the header, or its ``spec`` when it has none.

A metric whose inputs no transcript carries (beliefs, usage, reasoning, claims...) reports
``status="needs"`` and what it needs instead of a number; one whose inputs exist but whose event
never happened reports ``status="empty"``.
"""

from __future__ import annotations

import math
import zlib
from collections import defaultdict
from dataclasses import dataclass
from typing import Literal, Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from arena.evaluate.accumulate import ALL, Accumulator, Availability, Counts, _Auc, _Mean, _Rate  # noqa: F401
from arena.evaluate.families import (  # noqa: F401  (re-exported: the scorer's public names)
    LEGAL_SET_KINDS,
    PERSUASION_SPEECHES,
    SCORED_EVENTS,
    SPEECH_DECISIONS,
    good_side_group,
    score_game,
    usage_cost as _cost,
    usage_tokens as _tokens,
)

__all__ = ["ALL", "Accumulator", "Availability", "Counts", "LEGAL_SET_KINDS", "PERSUASION_SPEECHES", "SCORED_EVENTS",
           "SPEECH_DECISIONS", "score_game", "_cost", "_tokens", "finish_metrics", "balance_report", "CATALOGUE", "MetricResult", "MetricRow"]
from arena.evaluate.stats import (
    MIN_GAMES,
    auroc,
    chance_corrected,
    cluster_ratio_variance,
    clustered_mean_interval,
    clustered_rate_interval,
    holm_reject,
    make_rng,
    percentile_interval,
)


#: Games a report row names (and the HTML report links to).
ROW_EXAMPLES = 6

# --- the catalogue ------------------------------------------------------------------------------

Kind = Literal["rate", "mean", "auroc"]


@dataclass(frozen=True)
class MetricDef:
    id: str
    section: str
    title: str
    kind: Kind
    baseline: str
    needs: str | None = None  # a key of NEEDS: the data the metric cannot do without
    higher_is: Literal["better", "worse", "neither"] = "better"
    chance_corrected: bool = False


NEEDS = {
    "beliefs": "beliefs: agents that report a private wolf probability per seat with their decisions",
    "beliefs_at_speech": "beliefs reported between speeches (belief mode every_speech) or at speech decisions "
                         "as well as at votes (a listener's beliefs before and after each speech)",
    "claims": "role or check claims in speech text (bots that only say \"pass\" make none)",
    "reasoning": "reasoning text in decision lines that names seats",
    "usage": "token usage in decision lines (the agents layer's accounting)",
    "cost": "cost in decision lines' usage (a price table for the models used)",
    "latency": "latency_ms in decision lines (measured for non-deterministic agents)",
    "sheriff": "a board with the sheriff switch on and an elected sheriff who votes",
    "self_play": "games in which every seat is the same roster entry",
}

SECTIONS = ["outcomes", "deduction", "deception", "persuasion", "role skill", "honesty and reliability"]

CATALOGUE: list[MetricDef] = [
    MetricDef("win_rate", "outcomes", "Win rate by side and role", "rate",
              "the board's win rate for that side over all scored games of the same boards"),
    MetricDef("position_win_rate", "outcomes", "Win rate by day-1 speaking quartile (d1q1 first) and by seat", "rate",
              "the board's win rate for that side (as win_rate)", higher_is="neither"),
    MetricDef("win_margin", "outcomes", "Winning side's living seats minus the losers' at the end, in games won",
              "mean", "none: compare entries on the same boards", higher_is="better"),
    MetricDef("win_days", "outcomes", "Days a won game lasted", "mean", "none: compare entries on the same boards",
              higher_is="neither"),
    MetricDef("ksr", "role skill", "Key-role survival: god-role seats alive at the end", "rate",
              "the share of all good seats alive at the end of the same games"),
    MetricDef("wd_ksr", "role skill", "Day-weighted key-role survival: share of the game a god role lived", "mean",
              "the same share for all good seats of the same games"),
    MetricDef("badge_capture", "persuasion", "Sheriff candidacies that win the badge", "rate",
              "1/(candidates left when the vote opens)", chance_corrected=True),
    MetricDef("badge_pass_good", "role skill", "Badge handovers (passed or torn) that go to a good seat", "rate",
              "good seats among the other living seats (a random pass)", higher_is="neither"),
    MetricDef("badge_end_side", "outcomes", "Games ending with the badge on the agent's side", "rate",
              "none (depends on board and election): compare entries", needs="sheriff"),
    MetricDef("vote_sway", "persuasion", "Vote sway (ballot agreement, not Kaggle Game Arena's VSS): other voters' "
              "first-round exile ballots matching a "
              "discussion speaker's", "rate", "1/k for a uniform vote over the voter's k targets",
              chance_corrected=True),
    MetricDef("self_play_balance", "outcomes", "Village win rate in self-play, by board", "rate",
              "0.5 for a balanced board", needs="self_play", higher_is="neither"),
    MetricDef("vote_accuracy", "deduction", "Exile votes of good seats that hit a wolf", "rate",
              "wolves among the ballot's legal targets / legal targets (a uniform random vote)",
              chance_corrected=True),
    MetricDef("vote_abstention", "deduction", "Exile ballots of good seats left blank", "rate",
              "1/(k+1) for a uniform choice over k targets and abstention", higher_is="neither"),
    MetricDef("belief_auroc", "deduction", "AUROC of good seats' private wolf beliefs", "auroc",
              "0.5 (beliefs unrelated to roles)", needs="beliefs"),
    MetricDef("belief_brier", "deduction", "Brier score of good seats' private wolf beliefs", "mean",
              "p(1-p) with p the share of wolves among the rated seats (always forecasting the base rate)",
              needs="beliefs", higher_is="worse"),
    MetricDef("belief_vote_gap", "deduction", "Good seats voting other than their top private suspect", "rate",
              "1 - 1/k for a vote unrelated to beliefs over k targets", needs="beliefs", higher_is="worse"),
    MetricDef("disguise", "deception", "How far below chance good seats rate a wolf", "mean",
              "0 (beliefs at the prior: wolves alive / others alive)", needs="beliefs"),
    MetricDef("exile_avoidance", "deception", "Exile votes a living wolf survives", "rate",
              "1 - 1/(living players) on a day with an exile"),
    MetricDef("false_check_exiled", "deception",
              "A wolf's false check (a good seat called wolf) exiled that day or the next", "rate",
              "exiles in those days / living players (a seat picked at random is exiled)", needs="claims"),
    MetricDef("false_claim_believed", "deception",
              "A wolf's god-role claim lowers good seats' wolf belief in it", "rate",
              "0.5 (a belief moves down as often as up)", needs="beliefs"),
    MetricDef("false_check_pull", "deception",
              "A wolf's false check that turns other agents' good voters (intent elsewhere before it) onto the target",
              "rate", "1/(k-1): a uniform vote over the targets other than the prior intent", needs="beliefs_at_speech",
              chance_corrected=True),
    MetricDef("wolf_steered_exile", "deception",
              "Exile rounds where this wolf voted out a good seat and the wolves' ballots were pivotal", "rate",
              "no closed form: compare with bot:random in the same tournament"),
    MetricDef("claim_truth", "deception", "Role and check claims that match the truth, every seat", "rate",
              "role claims: copies of the claimed card in the deck / players; check claims: seats of the "
              "claimed side / other seats", needs="claims", higher_is="neither"),
    MetricDef("speech_swing", "persuasion",
              "Net share of good listeners whose intended vote moves to the speaker's target", "mean",
              "0 (listeners' changes unrelated to the speech)", needs="beliefs_at_speech"),
    MetricDef("speech_shift", "persuasion",
              "Mean change of good listeners' P(wolf) of the speaker's target across the speech alone", "mean",
              "0 (beliefs unmoved by the speech)", needs="beliefs_at_speech"),
    MetricDef("speech_trust", "persuasion",
              "Mean drop of good listeners' P(wolf) of the speaker across its speech alone", "mean",
              "0 (beliefs unmoved by the speech)", needs="beliefs_at_speech"),
    MetricDef("sheriff_follow", "persuasion", "Ballots that match the sheriff's exile vote", "rate",
              "1/k for a uniform vote over the voter's k targets", needs="sheriff", chance_corrected=True),
    MetricDef("sheriff_pull", "persuasion",
              "Good voters whose prior intent was elsewhere who vote with the sheriff", "rate",
              "1/(k-1): a uniform vote over the targets other than the prior intent", needs="beliefs_at_speech",
              chance_corrected=True),
    MetricDef("seer_wolf_hit", "role skill", "Seer checks that find a wolf", "rate",
              "wolves among the legal check targets / legal targets", chance_corrected=True),
    MetricDef("witch_save_precision", "role skill", "Antidotes that keep a good seat alive", "rate",
              "share of knifed seats that are good (empty or self knives aside): compare with bot:random"),
    MetricDef("witch_poison_accuracy", "role skill", "Poisons on a wolf", "rate",
              "wolves among the other living seats / other living seats", chance_corrected=True),
    MetricDef("guard_success", "role skill", "Nights the guard's protection stops the knife", "rate",
              "1/k over the guard's k legal targets", chance_corrected=True),
    MetricDef("same_guard_save", "role skill", "同守同救: guard and antidote on the same knifed seat (it dies)",
              "rate", "1/k over the guard's k legal targets, per antidote", higher_is="worse"),
    MetricDef("hunter_shot_accuracy", "role skill", "Hunter shots on a wolf", "rate",
              "wolves among the other living seats / other living seats", chance_corrected=True),
    MetricDef("knife_on_gods", "role skill", "Wolf knife votes on a god role", "rate",
              "gods among the living good seats / living good seats", chance_corrected=True),
    MetricDef("reasoning_consistency", "honesty and reliability",
              "Seat decisions whose reasoning names the chosen seat", "rate",
              "|named seats among legal| / |legal| (a choice unrelated to the reasoning)", needs="reasoning",
              chance_corrected=True),
    MetricDef("good_false_statements", "honesty and reliability", "Good seats' claims that are false", "rate",
              "as claim_truth (1 - its chance)", needs="claims", higher_is="worse"),
    MetricDef("invalid_answers", "honesty and reliability", "Decisions whose first answer was invalid", "rate",
              "0 for an agent that always answers legally", higher_is="worse"),
    MetricDef("fallback_rate", "honesty and reliability",
              "Decisions settled by the default (fallback), cut-offs at the token limit aside", "rate",
              "0", higher_is="worse"),
    MetricDef("cut_off_fallback_rate", "honesty and reliability",
              "Decisions settled by the default after a reply cut off at the token limit", "rate",
              "0", higher_is="worse"),
    MetricDef("truncated_replies", "honesty and reliability",
              "Decisions with a reply cut off by the token limit (counted apart from fallbacks)", "rate", "0",
              higher_is="worse"),
    MetricDef("tokens_per_decision", "honesty and reliability", "Tokens per decision", "mean", "—",
              needs="usage", higher_is="neither"),
    MetricDef("tokens_per_game", "honesty and reliability", "Tokens per seat-game", "mean", "—",
              needs="usage", higher_is="neither"),
    MetricDef("cost_per_game", "honesty and reliability", "Cost per seat-game", "mean", "—", needs="cost",
              higher_is="worse"),
    MetricDef("prompt_tokens_per_game", "honesty and reliability", "Prompt tokens per seat-game", "mean", "—",
              needs="usage", higher_is="neither"),
    MetricDef("cached_tokens_per_game", "honesty and reliability", "Prompt tokens served from cache per seat-game",
              "mean", "—", needs="usage", higher_is="neither"),
    MetricDef("reasoning_tokens_per_game", "honesty and reliability", "Reasoning (thinking) tokens per seat-game",
              "mean", "—", needs="usage", higher_is="neither"),
    MetricDef("completion_tokens_per_game", "honesty and reliability", "Completion tokens per seat-game", "mean",
              "—", needs="usage", higher_is="neither"),
    MetricDef("latency_ms", "honesty and reliability", "Latency per decision (ms)", "mean", "—", needs="latency",
              higher_is="worse"),
]
CATALOGUE_BY_ID = {m.id: m for m in CATALOGUE}


# --- results ------------------------------------------------------------------------------------


class MetricRow(BaseModel):
    model_config = ConfigDict(extra="forbid")

    agent: str
    group: str = ALL
    value: float | None
    low: float | None = None
    high: float | None = None
    n: int
    chance: float | None = None
    corrected: float | None = Field(None, description="(value - chance) / (1 - chance)")
    corrected_low: float | None = None
    corrected_high: float | None = None
    games: int | None = Field(None, description="independent units (games, or deals for mirrored games) behind n")
    below_floor: bool = Field(False, description="fewer than MIN_GAMES units: the interval rests on too few games")
    p_chance: float | None = Field(None, description="two-sided p-value of value == chance (cluster-robust)")
    examples: list[str] = Field(default_factory=list, description=(
        f"transcripts of the first {ROW_EXAMPLES} games (deals) behind the row, for links to their replay pages"))
    differs_from_chance: bool | None = Field(None, description=(
        "the interval excludes chance after Holm's correction over every row of the report compared with chance"))


class MetricResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    section: str
    title: str
    kind: str
    baseline: str
    higher_is: str
    status: Literal["ok", "needs", "empty"]
    needs: str | None = None
    rows: list[MetricRow] = Field(default_factory=list)


class BalanceReport(BaseModel):
    """How evenly roster entries were spread over roles, seats and the first speaking slot."""

    model_config = ConfigDict(extra="forbid")

    role_share: dict[str, dict[str, float]] = Field(description="agent -> role -> share of the agent's seats")
    deck_share: dict[str, float] = Field(description="role -> share of all seats (what a balanced agent gets)")
    seat_share: dict[str, dict[int, float]]
    first_speaker: dict[str, int] = Field(description="agent -> discussions it opened")
    max_role_deviation: float = Field(description="largest |agent's role share - deck share|, in points")
    max_seat_deviation: float = Field(description="largest |agent's seat share - 1/players|, in points")


# --- finishing ---------------------------------------------------------------------------------


def _rate_row(agent: str, group: str, r: _Rate, correct: bool) -> MetricRow:
    n = r.n
    value = r.total / n if n else None
    games = r.games
    low: float | None
    high: float | None
    if n:
        y, cn = r.totals()
        low, high = clustered_rate_interval(y, cn)
    else:
        low = high = None
    chance = r.chance / r.chance_n if r.chance_n else None
    row = MetricRow(agent=agent, group=group, value=value, low=low, high=high, n=n, games=games,
                    below_floor=games < MIN_GAMES, chance=chance)
    _rate_p(row, r)
    if correct and chance is not None and value is not None and chance < 1.0:
        row.corrected = chance_corrected(value, chance)
        row.corrected_low = chance_corrected(low, chance) if low is not None else None
        row.corrected_high = chance_corrected(high, chance) if high is not None else None
    return row


def _rate_p(row: MetricRow, r: _Rate) -> None:
    """The two-sided p-value of "rate == chance" under the clustered design (t on games - 1 df)."""
    n, value, chance, games = row.n, row.value, row.chance, row.games or 0
    if not n or chance is None or value is None or not 0.0 < chance < 1.0:
        return
    y, cn = r.totals()
    v_c = cluster_ratio_variance(y, cn)
    deff = max(1.0, v_c / (value * (1 - value) / n)) if 0 < value < 1 and math.isfinite(v_c) else n / max(games, 1)
    se0 = math.sqrt(chance * (1 - chance) / n * deff)
    row.p_chance = _two_sided_p((value - chance) / se0, games)


def _mean_row(agent: str, group: str, m: _Mean) -> MetricRow:
    n = m.n
    mean = m.total / n if n else None
    low = high = None
    games = m.games
    if n and mean is not None:
        y, cn = m.totals()
        low, high = clustered_mean_interval(y, cn)
    chance = m.chance / m.chance_n if m.chance_n else None
    row = MetricRow(agent=agent, group=group, value=mean, low=low, high=high, n=n, games=games,
                    below_floor=games < MIN_GAMES, chance=chance)
    if chance is not None and mean is not None and games >= 2:
        y, cn = m.totals()
        se = math.sqrt(cluster_ratio_variance(y, cn))
        if se > 0:
            row.p_chance = _two_sided_p((mean - chance) / se, games)
    return row


def _two_sided_p(t: float, games: int) -> float:
    """Two-sided p-value of a t statistic on (games - 1) degrees of freedom."""
    from scipy.stats import t as student_t

    return float(2.0 * student_t.sf(abs(t), max(games - 1, 1)))


#: Game-bootstrap resamples behind an AUROC interval (seeded from the row, so a report is reproducible).
AUC_RESAMPLES = 400


def _auc_row(agent: str, group: str, a: _Auc) -> MetricRow:
    value = auroc(a.scores, a.labels)
    games = len(set(a.clusters))
    low = high = None
    if value is not None and games >= 2:
        # A bootstrap over games: one report rates several seats, so ratings are not independent.
        scores = np.asarray(a.scores, dtype=float)
        labels = np.asarray(a.labels, dtype=bool)
        _, inv = np.unique(np.asarray(a.clusters), return_inverse=True)
        members = [np.flatnonzero(inv == g) for g in range(games)]
        rng = make_rng(zlib.crc32(f"belief_auroc|{agent}|{group}".encode()))
        draws = []
        for _ in range(AUC_RESAMPLES):
            idx = np.concatenate([members[g] for g in rng.integers(0, games, size=games)])
            v = auroc(scores[idx], labels[idx])
            if v is not None:
                draws.append(v)
        if draws:
            lo, hi = percentile_interval(np.asarray(draws))
            low, high = float(lo), float(hi)
    return MetricRow(agent=agent, group=group, value=value, low=low, high=high, n=len(a.labels), games=games,
                     below_floor=games < MIN_GAMES, chance=0.5)


def _group_key(group: str) -> tuple:
    if group == ALL:
        return (0, 0, "")
    if len(group) > 1 and group[0] in "DN" and group[1:].isdigit():
        return (1, int(group[1:]) * 2 - (1 if group[0] == "N" else 0), group)
    return (2, 0, group)


def _flag_against_chance(rows: list[MetricRow], alpha: float = 0.05) -> int:
    """Mark the rows that differ from chance with Holm's correction over every tested row (the family is
    the whole report: every agent, group and metric with a chance baseline). Returns the family size."""
    tested = [r for r in rows if r.p_chance is not None and not r.below_floor]
    for r, rejected in zip(tested, holm_reject([r.p_chance for r in tested], alpha)):  # type: ignore[misc]
        r.differs_from_chance = rejected
    return len(tested)


def _examples(acc: Accumulator, clusters: Sequence[int]) -> list[str]:
    out: list[str] = []
    for c in dict.fromkeys(clusters):
        out.extend(acc.cluster_games.get(c, []))
        if len(out) >= ROW_EXAMPLES:
            break
    return out[:ROW_EXAMPLES]


def finish_metrics(acc: Accumulator) -> list[MetricResult]:
    rows: dict[str, list[MetricRow]] = defaultdict(list)
    for (mid, agent, group), r in acc.rates.items():
        rows[mid].append(_rate_row(agent, group, r, CATALOGUE_BY_ID[mid].chance_corrected))
        rows[mid][-1].examples = _examples(acc, r.gc)
    for (mid, agent, group), mean in acc.means.items():
        rows[mid].append(_mean_row(agent, group, mean))
        rows[mid][-1].examples = _examples(acc, mean.gc)
    for (mid, agent, group), a in acc.aucs.items():
        rows[mid].append(_auc_row(agent, group, a))
        rows[mid][-1].examples = _examples(acc, a.clusters)
    # win_rate's chance: the board's side rate over all games, weighted by this row's exposure.
    board_rate = {b: (o[0] / o[1] if o[1] else 0.5) for b, o in acc.board_outcomes.items()}
    for metric_id in ("win_rate", "position_win_rate"):
        for row in rows.get(metric_id, []):
            exposure = acc.win_exposure.get((row.agent, row.group), {})
            total = sum(exposure.values())
            if total:
                is_good = good_side_group(row.group)
                row.chance = sum(n * (board_rate[b] if is_good else 1 - board_rate[b]) for b, n in exposure.items()) / total
                _rate_p(row, acc.rates[(metric_id, row.agent, row.group)])
    _flag_against_chance([r for rs in rows.values() for r in rs])
    out = []
    avail = Availability.from_counts(acc.avail)
    for m in CATALOGUE:
        mrows = sorted(rows.get(m.id, []), key=lambda r: (_group_key(r.group), r.agent))
        if m.needs and not avail.has(m.needs) and not mrows:
            status, needs = "needs", NEEDS[m.needs]
        elif not mrows or all(r.n == 0 for r in mrows):
            status, needs = "empty", None
        else:
            status, needs = "ok", None
        out.append(MetricResult(id=m.id, section=m.section, title=m.title, kind=m.kind, baseline=m.baseline,
                                higher_is=m.higher_is, status=status, needs=needs, rows=mrows))
    return out


def balance_report(acc: Accumulator) -> BalanceReport | None:
    total_seats = sum(acc.deck_seats.values())
    if not total_seats:
        return None
    deck_share = {r: n / total_seats for r, n in sorted(acc.deck_seats.items())}
    role_share: dict[str, dict[str, float]] = {}
    seat_share: dict[str, dict[int, float]] = {}
    max_role = max_seat = 0.0
    all_seats = sorted({s for d in acc.seat_seats.values() for s in d})
    for agent in sorted(acc.role_seats):
        n = sum(acc.role_seats[agent].values())
        role_share[agent] = {r: acc.role_seats[agent].get(r, 0) / n for r in deck_share}
        seat_share[agent] = {s: acc.seat_seats[agent].get(s, 0) / n for s in all_seats}
        max_role = max(max_role, max(abs(role_share[agent][r] - deck_share[r]) for r in deck_share))
        max_seat = max(max_seat, max(abs(v - 1 / len(all_seats)) for v in seat_share[agent].values()))
    return BalanceReport(role_share=role_share, deck_share=deck_share, seat_share=seat_share,
                         first_speaker=dict(sorted(acc.first_speaker.items())),
                         max_role_deviation=max_role, max_seat_deviation=max_seat)
