"""The evaluator's report: score transcripts, then render Markdown, JSON or a self-contained HTML page.

``score(paths)`` is the one library call behind ``arena score``; it reads transcripts and nothing
else (ARCHITECTURE principle 12).
"""

from __future__ import annotations

import base64
import gc
import html
import io
import json
import os
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Iterable, Sequence

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from arena import __version__
from arena.evaluate.claims import ClaimsReaderFn, active_reader_name, using_reader
from arena.evaluate.load import load_game, transcript_files
from arena.evaluate.metrics import (
    LEGAL_SET_KINDS,
    SCORED_EVENTS,
    SECTIONS,
    Accumulator,
    Availability,
    BalanceReport,
    MetricResult,
    MetricRow,
    balance_report,
    finish_metrics,
    score_game,
)
from arena.evaluate.stats import INTERVAL_METHOD, MIN_GAMES
from arena.evaluate.forks import ForkCollector, ForkReport, fork_origin, pair_forks, render_tables as fork_tables
from arena.transcript import TranscriptError
from arena.evaluate.ratings import (
    BTRatings,
    OpenSkillRating,
    PairwiseCell,
    RatingConfig,
    Copeland,
    bradley_terry,
    copeland,
    openskill_ratings,
    pairwise_table,
)


class RosterEntry(BaseModel):
    """One roster name as the headers describe it: what stood behind it, in every game it played."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="the roster label (the spec when unlabelled)")
    specs: list[str]
    prompt_versions: dict[str, int] = Field(description=(
        "template hash -> seat-games played with it; 'not recorded' for agents without one or older transcripts"))
    settings: list[dict[str, Any]] = Field(description="distinct non-secret settings (empty: none recorded)")
    seat_games: int


NOT_RECORDED = "not recorded"
# What a reader looks for first in an agent's settings; the rest follow alphabetically.
SETTINGS_FIRST = ("provider", "model", "endpoint", "temperature", "max_tokens", "reasoning_effort", "thinking_budget",
                  "memory", "lang")


class ConfigCard(BaseModel):
    """What was played: enough to reproduce or at least to read the numbers right."""

    model_config = ConfigDict(extra="forbid")

    boards: dict[str, int]
    rule_overrides: list[dict[str, Any]] = Field(description="distinct per-game switch overrides on top of presets")
    switch_sets: int = Field(description="distinct full switch sets in force")
    agents: dict[str, list[str]] = Field(description="roster label -> the agent specs behind it")
    seeds: dict[str, int | None]
    langs: dict[str, int]
    package_versions: dict[str, int]
    forks: int
    roster: list[RosterEntry] = Field(default_factory=list, description="per roster name: specs, prompt versions, settings")
    prompt_versions: dict[str, int] = Field(default_factory=dict, description=(
        "template hash -> seat-games, over the whole roster ('not recorded' where a header has none)"))


class Report(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tool: str = f"werewolf-arena {__version__} evaluator"
    sources: list[str]
    skipped: list[str] = Field(default_factory=list, description="unreadable transcripts left out, with why")
    unverified: list[str] = Field(default_factory=list, description=(
        "games scored although they fail `arena verify` (arena score --allow-unverified), with why"))
    config: ConfigCard | None
    availability: Availability
    ratings: BTRatings
    openskill: list[OpenSkillRating]
    pairwise: list[PairwiseCell]
    copeland: Copeland | None = Field(None, description="head-to-head Copeland order beside the BT leaderboard")
    metrics: list[MetricResult]
    balance: BalanceReport | None
    forks: ForkReport | None = Field(None, description="each fork beside its parent; None when no transcript is a fork")
    # Reports written before these two fields existed always counted forks as ordinary games.
    forks_counted: bool = Field(True, description=(
        "whether forked games (header field fork) were counted as ordinary games in the ratings, win rates, "
        "metrics and balance (--include-forks); when false they appear only in forks, beside their parents"))
    forks_excluded: int = Field(0, description=(
        "fork transcripts (finished or not) kept out of everything but forks; 0 when forks_counted"))
    seconds: dict[str, float] = Field(default_factory=dict)
    claims_reader: str = Field("regex (arena/evaluate/claims.py)", description=(
        "the reader that produced every claims figure (claim_truth, good_false_statements, "
        "false_check_exiled, ...): the rule-based regex reader, or a model with its prompt hash"))
    #: The scored games' records (not serialised): ``arena bench`` pairs entries by deal from them.
    _records: list[Any] = PrivateAttr(default_factory=list)

    @property
    def records(self) -> list[Any]:
        return self._records


def _config_card(accumulators: Sequence[Accumulator]) -> ConfigCard | None:
    """The card from the accumulators' header summaries (arena.evaluate.accumulate.note_header), in
    the order given: each distinct header once, with the number of games that carried it."""
    headers: dict[tuple[Any, ...], list[Any]] = {}
    seeds: set[int] = set()
    for acc in accumulators:
        for key, (rules, games) in acc.headers.items():
            headers.setdefault(key, [rules, 0])[1] += games
        seeds |= acc.seeds
    if not headers:
        return None
    boards: Counter[str] = Counter()
    langs: Counter[str] = Counter()
    package_versions: Counter[str] = Counter()
    overrides: list[dict[str, Any]] = []
    agents: dict[str, set[str]] = defaultdict(set)
    versions: dict[str, Counter[str]] = defaultdict(Counter)
    settings: dict[str, list[str]] = defaultdict(list)
    seat_games: Counter[str] = Counter()
    forks = 0
    for (board, _, _, roster, lang, package_version, fork), (rules, games) in headers.items():
        boards[board] += games
        langs[lang] += games
        package_versions[package_version] += games
        forks += games if fork else 0
        if rules and rules not in overrides:
            overrides.append(rules)
        # (name, spec, version, settings JSON) per seat, from arena.evaluate.accumulate.roster_keys
        for name, spec, version, settings_json in roster:
            agents[name].add(spec)
            versions[name][version or NOT_RECORDED] += games
            seat_games[name] += games
            if settings_json is not None and settings_json not in settings[name]:
                settings[name].append(settings_json)
    roster_entries = [RosterEntry(name=name, specs=sorted(agents[name]), prompt_versions=dict(sorted(versions[name].items())),
                                  settings=[json.loads(x) for x in sorted(settings[name])], seat_games=seat_games[name])
                      for name in sorted(agents)]
    all_versions: Counter[str] = Counter()
    for c in versions.values():
        all_versions.update(c)
    return ConfigCard(
        boards=dict(sorted(boards.items())),
        rule_overrides=overrides,
        switch_sets=len({key[2] for key in headers}),
        agents={k: sorted(v) for k, v in sorted(agents.items())},
        seeds={"count": len(seeds), "min": min(seeds) if seeds else None, "max": max(seeds) if seeds else None},
        langs=dict(langs),
        package_versions=dict(package_versions),
        forks=forks,
        roster=roster_entries,
        prompt_versions=dict(sorted(all_versions.items())),
    )


def _card_rows(report: "Report") -> list[list[str]]:
    """The config card as (item, value) rows: the same in every format."""
    c = report.config
    assert c is not None
    return [
        ["boards", ", ".join(f"{b} ({n})" for b, n in c.boards.items())],
        ["rule overrides", "; ".join(str(o) for o in c.rule_overrides) or "none (presets as shipped)"],
        ["distinct switch sets", str(c.switch_sets)],
        ["agents", "; ".join(f"{k}: {', '.join(v)}" for k, v in c.agents.items())],
        ["seeds", f"{c.seeds['count']} distinct, {c.seeds['min']}..{c.seeds['max']}"],
        ["languages", ", ".join(f"{k} ({v})" for k, v in c.langs.items())],
        ["code version", ", ".join(f"werewolf-arena {k} ({v})" for k, v in c.package_versions.items())],
        ["forks", _forks_card_text(report)],
        ["prompt versions", _versions_text(c.prompt_versions)],
        ["rating", f"role-aware team Bradley-Terry, {report.ratings.n_resamples} game-bootstrap resamples, "
                   f"seed {report.ratings.seed}; ranks Holm-corrected over {report.ratings.rank_comparisons} pairs"],
        ["intervals", "game-clustered (deal for mirrored games); see Metrics"],
    ]


def _versions_text(versions: dict[str, int]) -> str:
    return ", ".join(f"{v} ({n})" for v, n in versions.items()) or NOT_RECORDED


def _settings_text(settings: list[dict[str, Any]]) -> str:
    """``k=v`` pairs (unset options left out); several distinct setups under one name are split by ' / '."""
    if not settings:
        return NOT_RECORDED
    first = {k: i for i, k in enumerate(SETTINGS_FIRST)}
    return " / ".join(", ".join(f"{k}={one[k]}" for k in sorted(one, key=lambda k: (first.get(k, len(first)), k))
                                if one[k] is not None) for one in settings)


def _roster_rows(card: ConfigCard) -> tuple[list[str], list[list[str]]]:
    return (["agent", "spec", "prompt version", "settings", "seat-games"],
            [[r.name, ", ".join(r.specs), _versions_text(r.prompt_versions), _settings_text(r.settings),
              str(r.seat_games)] for r in card.roster])


def _read_all(sources: list[str], acc: Accumulator, skipped: list[str], strict: bool,
              forks: ForkCollector, fork_acc: Accumulator | None) -> None:
    """Fold every transcript into ``acc``; forks into ``fork_acc`` instead when it is given."""
    for path in transcript_files(sources):
        try:
            game = load_game(path, strict=strict, event_types=SCORED_EVENTS, full_decision_kinds=LEGAL_SET_KINDS)
        except TranscriptError as exc:
            # Anything unreadable (a newer schema, which is never guessed at; an empty file left by a
            # crash; a corrupt line) is reported and skipped unless --strict.
            if strict:
                raise
            skipped.append(str(exc))
            continue
        forks.observe(game)
        score_game(game, fork_acc if fork_acc is not None and fork_origin(game.header) else acc)


def score(paths: Iterable[str | Path], *, rating: RatingConfig | None = None, strict: bool = False,
          with_openskill: bool = True, include_forks: bool = False,
          claims_reader: ClaimsReaderFn | None = None) -> Report:
    """Score every transcript under ``paths``.

    Forks (headers with a ``fork`` origin) share their prefix with their parent, so by default they are
    kept out of the ratings, win rates, metrics and balance, which assume independent games, and are
    only paired with their parents (``Report.forks``). ``include_forks`` counts them as ordinary games.
    ``claims_reader`` reads the speeches for the claim metrics instead of the rule-based reader (a
    :class:`agents.claims_reading.ModelClaimsReader`, wired by the CLI); its ``name`` goes into the report.
    """
    if claims_reader is not None:
        with using_reader(claims_reader, getattr(claims_reader, "name", repr(claims_reader))):
            report = score(paths, rating=rating, strict=strict, with_openskill=with_openskill,
                           include_forks=include_forks)
            # the name again after the reading: a model reader's counts of calls and fallbacks
            return report.model_copy(update={"claims_reader": getattr(claims_reader, "name", report.claims_reader)})
    t0 = time.perf_counter()
    sources = [str(p) for p in paths]
    acc = Accumulator()
    skipped: list[str] = []
    forks = ForkCollector()
    # Forks are still read in full (the pairing needs their records; the config card, their headers).
    fork_acc = None if include_forks else Accumulator()
    # The accumulators only grow and hold no cycles: the cyclic GC would rescan them over and over
    # for nothing (about a tenth of the scoring time at 10,000 games).
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        _read_all(sources, acc, skipped, strict, forks, fork_acc)
    finally:
        if gc_was_enabled:
            gc.enable()
    t1 = time.perf_counter()

    metrics = finish_metrics(acc)
    balance = balance_report(acc)
    t2 = time.perf_counter()
    ratings = bradley_terry(acc.records, rating)
    t3 = time.perf_counter()
    open_skill = openskill_ratings(acc.records) if with_openskill else []
    pairwise = pairwise_table(acc.records)
    fork_records = acc.records if fork_acc is None else acc.records + fork_acc.records
    fork_report = pair_forks(forks, fork_records)
    t4 = time.perf_counter()
    excluded = 0 if fork_acc is None else sum(getattr(fork_acc.avail, k) for k in ("games", "incomplete", "abandoned"))
    report = Report(
        sources=sources, skipped=skipped, config=_config_card([acc] if fork_acc is None else [acc, fork_acc]),
        availability=Availability.from_counts(acc.avail), ratings=ratings, openskill=open_skill, pairwise=pairwise,
        copeland=copeland(pairwise, ratings) if pairwise else None, metrics=metrics, balance=balance, forks=fork_report,
        forks_counted=fork_acc is None, forks_excluded=excluded, claims_reader=active_reader_name(),
        seconds={"read_and_metrics": round(t1 - t0, 3), "finish": round(t2 - t1, 3),
                 "bradley_terry": round(t3 - t2, 3), "openskill_pairwise": round(t4 - t3, 3),
                 "total": round(t4 - t0, 3)},
    )
    report._records = list(acc.records)
    return report


# --- formatting helpers ----------------------------------------------------------------------------


def _f(x: float | None, digits: int = 3) -> str:
    if x is None:
        return "—"
    return f"{x:.{digits}f}"


def _iv(value: float | None, low: float | None, high: float | None, digits: int = 3) -> str:
    if value is None:
        return "—"
    if low is None or high is None:
        return _f(value, digits)
    return f"{value:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def _metric_table(m: MetricResult) -> tuple[list[str], list[list[str]]]:
    corrected = any(r.corrected is not None for r in m.rows)
    head = ["agent", "group", "value [95% CI]", "n (games)", "chance", "vs chance"] + (
        ["chance-corrected [95% CI]"] if corrected else [])
    body = []
    for r in m.rows:
        games = f" ({r.games})" if r.games is not None else ""
        floor = " ‡" if r.below_floor else ""
        flag = {True: "differs *", False: "—", None: ""}[r.differs_from_chance]
        row = [r.agent, r.group, _iv(r.value, r.low, r.high) + floor, f"{r.n}{games}", _f(r.chance), flag]
        if corrected:
            row.append(_iv(r.corrected, r.corrected_low, r.corrected_high))
        body.append(row)
    return head, body


def _method_note(report: Report) -> str:
    tested = sum(1 for m in report.metrics for r in m.rows if r.differs_from_chance is not None)
    return (INTERVAL_METHOD.replace("MIN_GAMES", str(MIN_GAMES)) + " Marked ‡. \"vs chance\": \"differs *\" when the "
            f"row differs from its chance baseline with Holm's correction over all {tested} rows tested (rows below "
            "the floor are not tested).")


def _leaderboard(report: Report) -> tuple[list[str], list[list[str]]]:
    os_by = {r.agent: r for r in report.openskill}
    head = ["rank", "agent", "BT skill [95% CI]", "games", "seats", "OpenSkill μ − field (order spread)"]
    body = []
    for a in report.ratings.agents:
        o = os_by.get(a.agent)
        body.append([str(a.rank), a.agent, _iv(a.skill.estimate, a.skill.low, a.skill.high), str(a.games),
                     str(a.seats), f"{o.mu_vs_field:+.2f} ({o.order_spread:.2f})" if o else "—"])
    return head, body


def _role_table(report: Report) -> tuple[list[str], list[list[str]]]:
    roles = sorted({r.role for r in report.ratings.roles})
    agents = [a.agent for a in report.ratings.agents]
    cell = {(r.agent, r.role): r for r in report.ratings.roles}
    head = ["agent"] + roles
    body = []
    for a in agents:
        row = [a]
        for role in roles:
            c = cell.get((a, role))
            row.append(_iv(c.skill.estimate, c.skill.low, c.skill.high, 2) + f" n={c.seats}" if c else "—")
        body.append(row)
    return head, body


def _pairwise_matrix(report: Report) -> tuple[list[str], list[list[str]]]:
    agents = sorted({c.agent for c in report.pairwise})
    cell = {(c.agent, c.opponent): c for c in report.pairwise}
    head = ["agent \\ opponent"] + agents
    body = []
    for a in agents:
        row = [a]
        for b in agents:
            c = cell.get((a, b))
            row.append("—" if a == b or c is None or c.rate is None else f"{c.rate:.2f} [{c.low:.2f}, {c.high:.2f}] n={c.games}")
        body.append(row)
    return head, body


def _rank_note(report: Report) -> str:
    m = report.ratings.rank_comparisons
    return (f"An entry ranks below another only when the gap of their skills, over its game-bootstrap standard error "
            f"(t on games - 1 df), is significant with Holm's correction over all {m} pairs (family-wise 5%), and "
            f"both played at least {MIN_GAMES} games; otherwise they share a rank. BT skill is "
            "in logits per seat (only differences are meaningful). OpenSkill is a descriptive second opinion: μ "
            "relative to the field's mean, averaged over shuffled game orders (spread in brackets); its σ is not "
            "an interval.")


def _copeland_sentence(c: Copeland) -> str:
    tau = "undefined" if c.kendall_tau is None else f"{c.kendall_tau:+.2f}"
    return (f"Copeland ranks by head-to-head results only (opponents beaten on the pairwise table, ties half), with no "
            f"model: {c.concordant_pairs} pairs ordered as by BT skill, {c.discordant_pairs} the other way "
            f"(Kendall τ {tau}). Disagreement flags a leaderboard order that rests on the model's assumptions.")


def _copeland_table(c: Copeland) -> tuple[list[str], list[list[str]]]:
    return ["Copeland rank", "agent", "score", "opponents met"], [
        [str(r.rank), r.agent, f"{r.score:g}", str(r.opponents)] for r in c.rows]


def _power_sentence(report: Report) -> str:
    p = report.ratings.power
    if p is None:
        return "Power: fewer than two rated entries."
    if p.separated:
        return (f"Power: the closest adjacent pair, {p.higher} over {p.lower} (gap {p.gap:.3f}), is already "
                f"separated at {p.games_now} games.")
    if p.games_needed is None:
        return f"Power: {p.higher} and {p.lower} show no gap at {p.games_now} games; no number of games would separate them."
    more = max(0, p.games_needed - p.games_now)
    return (f"Power: the closest adjacent pair, {p.higher} over {p.lower} (gap {p.gap:.3f} ± {p.se:.3f}), needs about "
            f"{p.games_needed} games in all ({more} more) for their 95% intervals to stop overlapping, if the gap holds.")


def _md_table(head: list[str], body: list[list[str]]) -> str:
    esc = lambda s: s.replace("|", "\\|")  # noqa: E731
    lines = ["| " + " | ".join(esc(h) for h in head) + " |", "| " + " | ".join("---" for _ in head) + " |"]
    lines += ["| " + " | ".join(esc(c) for c in row) + " |" for row in body]
    return "\n".join(lines)


# --- Markdown -----------------------------------------------------------------------------------


def render_md(report: Report) -> str:
    out: list[str] = ["# Werewolf arena report", ""]
    av = report.availability
    out.append(f"{av.games} games scored ({av.incomplete} unfinished and {av.abandoned} abandoned left out); "
               f"{report.ratings.games_used} rated. Generated by {report.tool}.")
    out.append("")
    policy = _fork_policy(report)
    if policy:
        out += [policy, ""]
    out += [f"Claims read by: {report.claims_reader} (see docs/metrics.md, Claim extractor).", ""]
    if report.unverified:
        out += [f"**Unverified: {len(report.unverified)} game(s) scored although they fail `arena verify`:**", ""]
        out += [f"- {msg}" for msg in report.unverified[:20]] + [""]
    if report.skipped:
        out += [f"{len(report.skipped)} unreadable transcript(s) skipped:", ""]
        out += [f"- {msg}" for msg in report.skipped[:20]] + [""]
    if report.config:
        c = report.config
        out += ["## Config card", ""]
        out.append(_md_table(["item", "value"], _card_rows(report)))
        if c.roster:
            out += ["", "### Roster", "", "What stood behind each roster name: its specs, the hash of the "
                    "templates it played from (seat-games per version) and its non-secret settings.", ""]
            out.append(_md_table(*_roster_rows(c)))
        out.append("")
    out += ["## Leaderboard", "", _rank_note(report), ""]
    out.append(_md_table(*_leaderboard(report)))
    out += ["", _power_sentence(report), ""]
    out += [f"Warning: {w}" for w in report.ratings.saturated] + ([""] if report.ratings.saturated else [])
    if report.copeland:
        out += ["### Copeland cross-check", "", _copeland_sentence(report.copeland), "",
                _md_table(*_copeland_table(report.copeland)), ""]
    if report.ratings.boards:
        out += ["### Board side balance", ""]
        self_play = next((m for m in report.metrics if m.id == "self_play_balance"), None)
        rows = [[b.board, str(b.games), _iv(b.beta.estimate, b.beta.low, b.beta.high), _f(b.p_good_at_zero_skill)]
                for b in report.ratings.boards]
        out.append(_md_table(["board", "games", "BT board term (logit)", "P(village wins) at equal skill"], rows))
        if self_play and self_play.status == "ok":
            out += ["", "Self-play village win rate:", "", _md_table(*_metric_table(self_play))]
        out.append("")
    if report.ratings.roles:
        out += ["## Per-role skill", "", "θ[agent, role] = skill + role adjustment; compare within a column.", ""]
        out.append(_md_table(*_role_table(report)))
        out.append("")
    if report.pairwise:
        out += ["## Pairwise win rates", "", "Row entry's side against the column entry's side, when they sat on "
                "opposite sides (draws count half).", ""]
        out.append(_md_table(*_pairwise_matrix(report)))
        out.append("")
    out += ["## Metrics", "", _method_note(report), ""]
    for section in SECTIONS:
        ms = [m for m in report.metrics if m.section == section]
        out += [f"## {section.capitalize()}", ""]
        for m in ms:
            out.append(f"### {m.title} (`{m.id}`)")
            out.append("")
            out.append(f"Chance baseline: {m.baseline}. Higher is {m.higher_is}.")
            out.append("")
            if m.status == "needs":
                out += [f"needs {m.needs}", ""]
            elif m.status == "empty":
                out += ["no observations in these transcripts (n = 0)", ""]
            else:
                out += [_md_table(*_metric_table(m)), ""]
    if report.forks:
        out += _forks_md(report, report.forks)
    if report.balance:
        b = report.balance
        out += ["## Schedule balance", "",
                f"Largest gap between an entry's role share and the deck's: {100 * b.max_role_deviation:.1f} points; "
                f"largest gap from an even seat share: {100 * b.max_seat_deviation:.1f} points.", ""]
        out.append(_md_table(*_balance_roles(b)))
        out += ["", _md_table(*_balance_seats(b)), ""]
    out.append(f"Timing (s): {', '.join(f'{k} {v}' for k, v in report.seconds.items())}")
    return "\n".join(out) + "\n"


FORK_INTRO = ("Each fork replays its parent up to the fork decision, then plays on. Change = the side's result "
              "in the fork minus in the parent (1 win, 0.5 draw, 0 loss), averaged over pairs with the same swap.")


def _balance_roles(b: BalanceReport) -> tuple[list[str], list[list[str]]]:
    roles = list(b.deck_share)
    rows = [[a] + [f"{100 * share[r]:.1f}%" for r in roles] + [str(b.first_speaker.get(a, 0))]
            for a, share in b.role_share.items()]
    rows.append(["(deck)"] + [f"{100 * b.deck_share[r]:.1f}%" for r in roles] + ["—"])
    return ["agent"] + roles + ["opened discussions"], rows


def _balance_seats(b: BalanceReport) -> tuple[list[str], list[list[str]]]:
    seats = sorted({s for share in b.seat_share.values() for s in share})
    return (["agent \\ seat"] + [str(s) for s in seats],
            [[a] + [f"{100 * share.get(s, 0.0):.1f}%" for s in seats] for a, share in b.seat_share.items()])


def _fork_policy(report: Report) -> str | None:
    """What was done with forked games outside the Forks section (None when there were none)."""
    if not report.forks_counted:
        if not report.forks_excluded:
            return None
        return (f"{report.forks_excluded} forked game{'s' if report.forks_excluded != 1 else ''} excluded from "
                "ratings, win rates and metrics: a fork shares its prefix with its parent, so it is not an "
                "independent game. Forks are compared with their parents under Forks; "
                "`arena score --include-forks` counts them as ordinary games.")
    counted = report.config.forks if report.config else 0
    if not counted:
        return None
    return (f"{counted} forked game{'s' if counted != 1 else ''} counted as ordinary games in the ratings, win rates "
            "and metrics (--include-forks): forks share their prefix with their parents, so the intervals overstate "
            "the evidence.")


def _forks_card_text(report: Report) -> str:
    c = report.config
    n = c.forks if c else 0
    if not n:
        return "0"
    return f"{n} ({'counted as ordinary games' if report.forks_counted else 'kept out of the ratings and metrics'})"


def _fork_intro(report: Report) -> str:
    if report.forks_counted:
        return FORK_INTRO + " Forks also count as ordinary games in the ratings above (--include-forks)."
    return FORK_INTRO + " Forks are not counted in the ratings, win rates or metrics above."


def _fork_counts(f: ForkReport) -> str:
    text = f"{len(f.pairs)} forks paired with their parents"
    if f.unchanged_agents:
        text += (f"; {f.unchanged_agents} changed no agent (re-seeded only) and {f.unchanged_agents_outcome_changed} "
                 "of those changed the winner (the noise floor)")
    if f.unpaired:
        text += f"; {len(f.unpaired)} could not be paired"
    return text + "."


def _forks_md(report: Report, f: ForkReport, max_pairs: int = 50) -> list[str]:
    tables = fork_tables(f, max_pairs)
    out = ["## Forks", "", _fork_intro(report), "", _fork_counts(f), ""]
    if f.effects:
        out += ["### Effect of each swap", "", _md_table(*tables["effects"]), ""]
    if f.pairs:
        more = f" (the first {max_pairs} of {len(f.pairs)}; all in --format json)" if len(f.pairs) > max_pairs else ""
        out += [f"### Pairs{more}", "", _md_table(*tables["pairs"]), ""]
    if f.unpaired:
        out += ["### Unpaired forks", ""] + [f"- {u.fork} (parent {u.parent}): {u.reason}" for u in f.unpaired[:20]]
        out.append("")
    return out


def render_json(report: Report) -> str:
    return report.model_dump_json(indent=2)


# --- HTML ---------------------------------------------------------------------------------------


def _png(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _plots(report: Report) -> dict[str, str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    plots: dict[str, str] = {}
    agents = report.ratings.agents
    if agents:
        fig, ax = plt.subplots(figsize=(6.5, 0.5 + 0.45 * len(agents)))
        ys = np.arange(len(agents))[::-1]
        est = [a.skill.estimate for a in agents]
        # A percentile bootstrap interval need not contain the point fit (skewed, small samples).
        lo = [max(0.0, a.skill.estimate - a.skill.low) for a in agents]
        hi = [max(0.0, a.skill.high - a.skill.estimate) for a in agents]
        ax.errorbar(est, ys, xerr=[lo, hi], fmt="o", capsize=4, color="#1f5f99")
        ax.set_yticks(ys, [f"{a.rank}. {a.agent}" for a in agents])
        ax.axvline(0, color="#bbb", lw=0.8)
        ax.set_xlabel("Bradley-Terry skill (logit per seat), 95% bootstrap interval")
        ax.set_title("Leaderboard")
        plots["leaderboard"] = _png(fig)
    roles = sorted({r.role for r in report.ratings.roles})
    if roles and agents:
        names = [a.agent for a in agents]
        grid = np.full((len(names), len(roles)), np.nan)
        for r in report.ratings.roles:
            grid[names.index(r.agent), roles.index(r.role)] = r.skill.estimate
        fig, ax = plt.subplots(figsize=(1.0 + 0.9 * len(roles), 0.8 + 0.5 * len(names)))
        lim = np.nanmax(np.abs(grid)) or 1.0
        im = ax.imshow(grid, cmap="RdBu", vmin=-lim, vmax=lim, aspect="auto")
        ax.set_xticks(range(len(roles)), roles, rotation=30, ha="right")
        ax.set_yticks(range(len(names)), names)
        for i in range(len(names)):
            for j in range(len(roles)):
                if not np.isnan(grid[i, j]):
                    ax.text(j, i, f"{grid[i, j]:.2f}", ha="center", va="center", fontsize=8)
        fig.colorbar(im, ax=ax, label="θ (logit)")
        ax.set_title("Per-role skill")
        plots["roles"] = _png(fig)
    if report.pairwise:
        names = sorted({c.agent for c in report.pairwise})
        grid = np.full((len(names), len(names)), np.nan)
        for c in report.pairwise:
            if c.rate is not None:
                grid[names.index(c.agent), names.index(c.opponent)] = c.rate
        fig, ax = plt.subplots(figsize=(1.5 + 0.8 * len(names), 1.0 + 0.6 * len(names)))
        im = ax.imshow(grid, cmap="RdYlGn", vmin=0, vmax=1)
        ax.set_xticks(range(len(names)), names, rotation=30, ha="right")
        ax.set_yticks(range(len(names)), names)
        for i in range(len(names)):
            for j in range(len(names)):
                if not np.isnan(grid[i, j]):
                    ax.text(j, i, f"{grid[i, j]:.2f}", ha="center", va="center", fontsize=8)
        fig.colorbar(im, ax=ax, label="win rate of row against column")
        ax.set_title("Pairwise win rates")
        plots["pairwise"] = _png(fig)
    win = next((m for m in report.metrics if m.id == "win_rate" and m.status == "ok"), None)
    if win is not None:
        plots["win_rates"] = _win_rate_plot(win, plt, np)
    for section in SECTIONS:
        # Only metrics on a 0..1-like scale share an axis; tokens, cost and latency stay in tables.
        ms = [m for m in report.metrics if m.section == section and m.status == "ok"
              and (m.kind != "mean" or m.id in ("disguise", "speech_swing", "speech_shift", "speech_trust", "belief_brier"))]
        rows = [(m, r) for m in ms for r in m.rows if r.group == "all" and r.value is not None]
        if not rows:
            continue
        fig, ax = plt.subplots(figsize=(7, 0.5 + 0.32 * len(rows)))
        ys = np.arange(len(rows))[::-1]
        for y, (_, row) in zip(ys, rows):
            value, xerr = _error_bar(row)
            ax.errorbar([value], [y], xerr=xerr, fmt="o", capsize=3, color="#1f5f99")
            if row.chance is not None:
                ax.plot([row.chance], [y], "|", color="#c0392b", markersize=12)
        ax.set_yticks(ys, [f"{m.id} · {r.agent}" for m, r in rows], fontsize=8)
        ax.set_title(f"{section.capitalize()} (red tick: chance baseline)")
        plots[f"section:{section}"] = _png(fig)
    cost_plot = _cost_vs_rating(report, plt)
    if cost_plot is not None:
        plots["cost_vs_rating"] = cost_plot
    return plots


def _error_bar(row: MetricRow) -> tuple[float, list[list[float]]]:
    """A plotted row's value and its interval as matplotlib's error lengths (below, above); a row
    without an interval gets none."""
    value = row.value
    assert value is not None, "only rows with a value are plotted"
    below = max(0.0, value - row.low) if row.low is not None else 0
    above = max(0.0, row.high - value) if row.high is not None else 0
    return value, [[below], [above]]


def _cost_vs_rating(report: Report, plt: Any) -> str | None:
    """Each priced agent's cost per seat-game against its rating, both with their intervals."""
    cost = next((m for m in report.metrics if m.id == "cost_per_game" and m.status == "ok"), None)
    skills = {a.agent: a.skill for a in report.ratings.agents}
    rows = [r for r in (cost.rows if cost else []) if r.group == "all" and r.value is not None and r.agent in skills]
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for r in rows:
        sk = skills[r.agent]
        value, xerr = _error_bar(r)
        yerr = [[max(0.0, sk.estimate - sk.low)], [max(0.0, sk.high - sk.estimate)]]
        ax.errorbar([value], [sk.estimate], xerr=xerr, yerr=yerr, fmt="o", capsize=3, color="#1f5f99")
        ax.annotate(r.agent, (r.value, sk.estimate), textcoords="offset points", xytext=(5, 5), fontsize=8)
    ax.set_xlabel("cost per seat-game (USD), 95% interval")
    ax.set_ylabel("Bradley-Terry skill, 95% interval")
    ax.set_title("Cost versus rating")
    return _png(fig)


def _win_rate_plot(win: MetricResult, plt: Any, np: Any) -> str:
    """Win rate by side and by role, one panel per agent, with intervals and the chance tick."""
    agents = sorted({r.agent for r in win.rows})
    groups = sorted({r.group for r in win.rows}, key=lambda g: (not g.startswith("side:"), g))
    fig, axes = plt.subplots(1, len(agents), figsize=(3.2 * len(agents) + 1.5, 0.6 + 0.34 * len(groups)),
                             sharey=True, squeeze=False)
    ys = np.arange(len(groups))[::-1]
    for ax, agent in zip(axes[0], agents):
        by = {r.group: r for r in win.rows if r.agent == agent}
        for y, g in zip(ys, groups):
            r = by.get(g)
            if r is None or r.value is None:
                continue
            lo = max(0.0, r.value - r.low) if r.low is not None else 0
            hi = max(0.0, r.high - r.value) if r.high is not None else 0
            color = "#1f5f99" if g.endswith("good") or (g.startswith("role:") and g[5:] in GOOD_ROLE_NAMES) else "#a33"
            ax.errorbar([r.value], [y], xerr=[[lo], [hi]], fmt="o", capsize=3, color=color,
                        alpha=0.45 if r.below_floor else 1.0)
            if r.chance is not None:
                ax.plot([r.chance], [y], "|", color="#555", markersize=11)
        ax.set_xlim(0, 1)
        ax.set_title(agent, fontsize=9)
    axes[0][0].set_yticks(ys, groups, fontsize=8)
    fig.suptitle("Win rate by side and role (grey tick: the board's rate for that side; faint: below the floor)",
                 fontsize=9)
    return _png(fig)


#: Role names drawn in the village's colour in the win-rate plot.
GOOD_ROLE_NAMES = frozenset({"seer", "witch", "hunter", "guard", "idiot", "villager", "elder", "cupid", "thief",
                             "little_girl", "scapegoat", "traveler", "maid"})


def _html_table(head: list[str], body: list[list[str]]) -> str:
    h = "".join(f"<th>{html.escape(x)}</th>" for x in head)
    rows = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in body)
    return f"<table><thead><tr>{h}</tr></thead><tbody>{rows}</tbody></table>"


def _game_link(example: str, base: Path | None) -> str:
    """A link to a game's replay page (``arena view`` writes it beside the transcript, as .html)."""
    path = Path(example)
    if path.suffix != ".jsonl":
        return html.escape(example)
    page = path.with_suffix(".html")
    href = os.path.relpath(page, base) if base is not None else str(page)
    return f'<a href="{html.escape(Path(href).as_posix())}">{html.escape(path.stem)}</a>'


def _html_metric_table(m: MetricResult, base: Path | None) -> str:
    head, body = _metric_table(m)
    h = "".join(f"<th>{html.escape(x)}</th>" for x in head + ["games"])
    rows = []
    for r, cells in zip(m.rows, body):
        links = " ".join(_game_link(e, base) for e in r.examples)
        more = " …" if r.games is not None and r.games > len(r.examples) else ""
        rows.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + f"<td>{links}{more}</td></tr>")
    return f"<table><thead><tr>{h}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def replay_pages(report: Report) -> list[Path]:
    """Write the replay page of every game a metric row links to (beside its transcript); the pages written."""
    from arena.viewer import write_view

    done: list[Path] = []
    for example in dict.fromkeys(e for m in report.metrics for r in m.rows for e in r.examples):
        path = Path(example)
        if path.suffix == ".jsonl" and path.exists():
            done.append(write_view(path))
    return done


def render_html(report: Report, base: Path | None = None) -> str:
    """One self-contained page: tables plus matplotlib plots inlined as base64 PNGs. Metric rows link to
    their games' replay pages, relative to ``base`` (the folder the page is written to)."""
    plots = _plots(report)
    img = lambda key: f'<img alt="{html.escape(key)}" src="{plots[key]}">' if key in plots else ""  # noqa: E731
    parts = ["<!doctype html><html><head><meta charset='utf-8'><title>Werewolf arena report</title><style>",
             "body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}",
             "table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:.9em}",
             "td,th{border:1px solid #ccc;padding:.25em .5em;text-align:left}th{background:#f3f3f3}",
             ".needs{color:#a15c00}.empty{color:#777}img{max-width:100%}",
             "</style></head><body><h1>Werewolf arena report</h1>"]
    av = report.availability
    parts.append(f"<p>{av.games} games scored ({av.incomplete} unfinished, {av.abandoned} abandoned left out); "
                 f"{report.ratings.games_used} rated. {html.escape(report.tool)}.</p>")
    policy = _fork_policy(report)
    if policy:
        parts.append(f"<p>{html.escape(policy.replace('`', ''))}</p>")
    if report.unverified:
        parts.append(f"<p class='needs'><b>Unverified: {len(report.unverified)} game(s) scored although they fail "
                     "arena verify:</b></p><ul>" + "".join(f"<li>{html.escape(m)}</li>" for m in report.unverified[:20])
                     + "</ul>")
    if report.config:
        c = report.config
        parts.append("<h2>Config card</h2>")
        parts.append(_html_table(["item", "value"], _card_rows(report)))
        if c.roster:
            parts.append("<h3>Roster</h3>" + _html_table(*_roster_rows(c)))
    if "win_rates" in plots:
        parts.append("<h2>Win rate by side and role</h2>" + img("win_rates"))
    parts.append("<h2>Leaderboard</h2>" + img("leaderboard") + f"<p>{html.escape(_rank_note(report))}</p>"
                 + _html_table(*_leaderboard(report)))
    parts.append(f"<p>{html.escape(_power_sentence(report))}</p>")
    if "cost_vs_rating" in plots:
        parts.append("<h3>Cost versus rating</h3>" + img("cost_vs_rating"))
    parts += [f"<p class='needs'>Warning: {html.escape(w)}</p>" for w in report.ratings.saturated]
    if report.copeland:
        parts.append("<h3>Copeland cross-check</h3>" + f"<p>{html.escape(_copeland_sentence(report.copeland))}</p>"
                     + _html_table(*_copeland_table(report.copeland)))
    if report.ratings.roles:
        parts.append("<h2>Per-role skill</h2>" + img("roles") + _html_table(*_role_table(report)))
    if report.pairwise:
        parts.append("<h2>Pairwise win rates</h2>" + img("pairwise") + _html_table(*_pairwise_matrix(report)))
    parts.append(f"<h2>Metrics</h2><p>{html.escape(_method_note(report))}</p>")
    for section in SECTIONS:
        parts.append(f"<h2>{html.escape(section.capitalize())}</h2>" + img(f"section:{section}"))
        for m in (m for m in report.metrics if m.section == section):
            parts.append(f"<h3>{html.escape(m.title)} <code>{m.id}</code></h3>"
                         f"<p>Chance baseline: {html.escape(m.baseline)}. Higher is {m.higher_is}.</p>")
            if m.status == "needs":
                parts.append(f"<p class='needs'>needs {html.escape(m.needs or '')}</p>")
            elif m.status == "empty":
                parts.append("<p class='empty'>no observations (n = 0)</p>")
            else:
                parts.append(_html_metric_table(m, base))
    if report.forks:
        f = report.forks
        tables = fork_tables(f)
        parts.append(f"<h2>Forks</h2><p>{html.escape(_fork_intro(report))}</p><p>{html.escape(_fork_counts(f))}</p>")
        if f.effects:
            parts.append("<h3>Effect of each swap</h3>" + _html_table(*tables["effects"]))
        if f.pairs:
            parts.append("<h3>Pairs</h3>" + _html_table(*tables["pairs"]))
    if report.balance:
        b = report.balance
        parts.append(f"<h2>Schedule balance</h2><p>Largest role-share gap {100 * b.max_role_deviation:.1f} points; "
                     f"largest seat-share gap {100 * b.max_seat_deviation:.1f} points. Position effects (day-1 "
                     "speaking quartile, seat) are under Outcomes, <code>position_win_rate</code>.</p>")
        parts.append("<h3>Roles per agent</h3>" + _html_table(*_balance_roles(b)))
        parts.append("<h3>Seats per agent</h3>" + _html_table(*_balance_seats(b)))
    parts.append("</body></html>")
    return "\n".join(parts)


def render(report: Report, fmt: str, base: Path | None = None) -> str:
    if fmt == "md":
        return render_md(report)
    if fmt == "json":
        return render_json(report)
    if fmt == "html":
        return render_html(report, base)
    raise ValueError(f"unknown format {fmt!r}; use md, json or html")
