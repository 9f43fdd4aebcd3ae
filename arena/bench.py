"""``arena bench``: a fixed, versioned suite that turns one agent spec into a comparable leaderboard entry.

A suite (``configs/bench/*.yaml``) fixes the boards, the reference roster the agent plays with and
against, the seeds, the number of deals and the belief mode. :func:`run_bench` plays the suite as a
tournament (resumable: the games are ordinary tournament transcripts), scores it with the
evaluator and returns a :class:`BenchEntry`: the agent's rating and intervals against the reference
roster, its per-role skill, the suite's headline metrics, its cost and a config card. Nothing in an
entry depends on the clock, so the same suite on the same bot gives the same entry, byte for byte.

:func:`selftest` is the honest A/A check: one agent under two labels whose bots draw from independent
seeds, replicated over fresh schedules; it counts how often the leaderboard separates the two.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import subprocess
from pathlib import Path
from typing import Any, Final, Literal, Sequence

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from arena import __version__
from arena.config import ConfigError
from arena.evaluate.ratings import RatingConfig
from arena.evaluate.stats import Interval, wilson_interval
from arena.resources import data_dir
from arena.tournament import (
    BoardEntry,
    RosterEntry,
    RunOptions,
    TournamentConfig,
    TournamentError,
    run_tournament,
)
from arena.user_yaml import UserFileError, parse_user_text, read_user_text

ENTRY_SCHEMA_NAME: Final = "werewolf-bench-entry"
ENTRY_SCHEMA_VERSION = 1
BENCH_DIR = data_dir("configs") / "bench"


class BenchError(ConfigError):
    """A suite, an entry file or a bench option is unusable; the message says what and where."""


class BenchSuite(BaseModel):
    """A versioned benchmark suite. Changing anything that moves results means a new version."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    version: str
    description: str = ""
    boards: list[BoardEntry] = Field(min_length=1)
    deals: int = Field(ge=1, description="seeds per board; each deal is played by a whole block of games")
    seed: int
    lang: str = "en"
    seating: Literal["mixed", "sides"] = "mixed"
    belief_mode: Literal["on", "off", "votes", "day_end", "every_speech"] = Field("on", description=(
        "how LLM agents report private wolf beliefs (arena.rules.beliefs): off, votes (\"on\"), day_end or "
        "every_speech"))
    memory: Literal["full", "summary"] = Field("full", description=(
        "the memory strategy of LLM agents (agents.llm_prompts); the suite's must pass the recall audit "
        "(benchmarks/recall_audit.py, tests/test_memory_recall.py)"))
    reference: list[RosterEntry] = Field(min_length=1, description="the fixed reference roster")
    headline: list[str] = Field(min_length=1, description=(
        "metric ids shown in the entry; id@group picks a group (default: all), e.g. win_rate@side:good"))
    resamples: int = Field(1000, ge=10)


def load_suite(path: str | Path) -> tuple[BenchSuite, str]:
    """A suite from a YAML file (a bare name looks in configs/bench/), and the sha256 of its text."""
    p = Path(path)
    if not p.exists() and not p.suffix:
        p = BENCH_DIR / f"{path}.yaml"
    try:
        text = read_user_text(p)
        raw = parse_user_text(text, p, as_json=False) or {}
    except OSError as exc:
        known = ", ".join(sorted(x.stem for x in BENCH_DIR.glob("*.yaml")))
        raise BenchError(f"{path}: cannot read the suite ({exc.strerror or exc}); shipped suites: {known}") from None
    except UserFileError as exc:
        raise BenchError(str(exc)) from None
    try:
        suite = BenchSuite(**raw)
    except (TypeError, ValidationError) as exc:
        if isinstance(exc, ValidationError):
            err = exc.errors()[0]
            where = ".".join(str(x) for x in err.get("loc", ()))
            raise BenchError(f"{p}: {where}: {err.get('msg')}") from None
        raise BenchError(f"{p}: expected a mapping of suite fields") from None
    return suite, hashlib.sha256(text.replace("\r\n", "\n").encode("utf-8")).hexdigest()


def bench_tournament(suite: BenchSuite, agent: str, label: str, options: dict[str, Any] | None = None,
                     deals: int | None = None, out: str | Path = "bench/out") -> TournamentConfig:
    """The tournament a suite plays for one agent: the reference roster plus the agent under ``label``."""
    if label in {r.label for r in suite.reference}:
        raise BenchError(f"label {label!r} is taken by the reference roster; pass another --label")
    opts = dict(options or {})
    if not agent.startswith("bot:") and "beliefs" not in opts:
        opts["beliefs"] = "votes" if suite.belief_mode == "on" else suite.belief_mode
    if not agent.startswith("bot:") and "memory" not in opts:
        opts["memory"] = suite.memory
    roster = [*suite.reference, RosterEntry(label=label, agent=agent, options=opts)]
    return TournamentConfig(name=f"{suite.name}-{suite.version}-{label}", roster=roster, boards=suite.boards,
                            deals=deals or suite.deals, seed=suite.seed, seating=suite.seating, lang=suite.lang,
                            out=str(out), concurrency=4)


# --- the entry ---------------------------------------------------------------------------------------


class RatedEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    label: str
    skill: Interval
    rank: int


class RoleRow(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: str
    skill: Interval
    seats: int


class HeadlineRow(BaseModel):
    model_config = ConfigDict(extra="forbid")

    metric: str
    title: str
    value: float | None
    low: float | None
    high: float | None
    n: int
    games: int | None
    chance: float | None
    higher_is: str


class CostBlock(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tokens_per_game: float | None = Field(description="mean tokens per seat-game; None when not recorded")
    cost_per_game: float | None = Field(description="mean USD per seat-game; None when no price is known")
    decisions: int


class EntryCard(BaseModel):
    """What produced the entry: enough to tell whether two entries are comparable."""

    model_config = ConfigDict(extra="forbid")

    arena_version: str
    arena_commit: str | None = Field(description="git commit of the arena, when run from a checkout")
    suite: str
    suite_version: str
    suite_sha256: str
    deals: int = Field(description="deals actually played per board (below the suite's: a reduced run)")
    reduced: bool
    boards: list[str]
    seed: int
    lang: str
    belief_mode: str
    memory: str = Field("full", description="the memory strategy of the suite's LLM seats")
    games: int
    agent_spec: str
    agent_options: dict[str, Any]
    served_models: list[str] = Field(description="model ids the agent's seats recorded (empty for bots)")
    prompt_hashes: dict[str, list[str]] = Field(description="roster label -> template hashes its seats played from")


class BenchEntry(BaseModel):
    """One agent's result on one suite: the unit of a leaderboard."""

    model_config = ConfigDict(extra="forbid")

    schema_name: Literal["werewolf-bench-entry"] = ENTRY_SCHEMA_NAME
    schema_version: int = ENTRY_SCHEMA_VERSION
    label: str
    rating: RatedEntry = Field(description="the agent's BT skill (logit per seat) and rank among the roster")
    reference: list[RatedEntry] = Field(description="the reference roster's skills in the same fit")
    rank_comparisons: int
    saturated: list[str] = Field(default_factory=list, description="warnings: entries that won all or none of their games")
    roles: list[RoleRow]
    headline: list[HeadlineRow]
    cost: CostBlock
    card: EntryCard


def _arena_commit() -> str | None:
    root = Path(__file__).resolve().parent.parent
    if not (root / ".git").exists():
        return None
    try:
        done = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


def make_entry(report: Any, suite: BenchSuite, suite_sha: str, label: str, cfg: TournamentConfig) -> BenchEntry:
    """The leaderboard entry of ``label`` from a scored bench tournament."""
    ratings = report.ratings
    by = {a.agent: a for a in ratings.agents}
    if label not in by:
        raise BenchError(f"no rated game of {label!r} in the bench tournament (were all games abandoned?)")
    me = by[label]
    metric = {m.id: m for m in report.metrics}
    headline = []
    for item in suite.headline:
        mid, _, group = item.partition("@")
        m = metric.get(mid)
        if m is None:
            raise BenchError(f"suite {suite.name}: headline metric {mid!r} is not a metric of the evaluator")
        row = next((r for r in m.rows if r.agent == label and r.group == (group or "all")), None)
        headline.append(HeadlineRow(metric=item, title=m.title + (f" ({group})" if group else ""), value=row.value if row else None,
                                    low=row.low if row else None, high=row.high if row else None,
                                    n=row.n if row else 0, games=row.games if row else 0,
                                    chance=row.chance if row else None, higher_is=m.higher_is))

    def mean_of(mid: str) -> float | None:
        row = next((r for r in metric[mid].rows if r.agent == label and r.group == "all"), None)
        return row.value if row else None

    card = report.config
    roster = {r.name: r for r in (card.roster if card else [])}
    mine = roster.get(label)
    served = sorted({str(s["model"]) for s in (mine.settings if mine else []) if s.get("model")})
    entry_opts = next(r.options for r in cfg.roster if r.label == label)
    decisions = sum(r.n for r in metric["fallback_rate"].rows if r.agent == label and r.group == "all")
    return BenchEntry(
        label=label,
        rating=RatedEntry(label=label, skill=me.skill, rank=me.rank),
        reference=[RatedEntry(label=a.agent, skill=a.skill, rank=a.rank) for a in ratings.agents if a.agent != label],
        rank_comparisons=ratings.rank_comparisons,
        saturated=list(getattr(ratings, "saturated", [])),
        roles=[RoleRow(role=r.role, skill=r.skill, seats=r.seats) for r in ratings.roles if r.agent == label],
        headline=headline,
        cost=CostBlock(tokens_per_game=mean_of("tokens_per_game"), cost_per_game=mean_of("cost_per_game"),
                       decisions=decisions),
        card=EntryCard(
            arena_version=__version__, arena_commit=_arena_commit(), suite=suite.name, suite_version=suite.version,
            suite_sha256=suite_sha, deals=cfg.deals, reduced=cfg.deals < suite.deals,
            boards=[b.preset for b in suite.boards], seed=suite.seed, lang=suite.lang, belief_mode=suite.belief_mode,
            memory=suite.memory,
            games=ratings.games_used, agent_spec=next(r.agent for r in cfg.roster if r.label == label),
            agent_options=entry_opts, served_models=served,
            prompt_hashes={name: sorted(r.prompt_versions) for name, r in sorted(roster.items())},
        ),
    )


async def run_bench(suite_path: str | Path, agent: str, *, label: str | None = None, out: str | Path | None = None,
                    deals: int | None = None, options: dict[str, Any] | None = None,
                    concurrency: int | None = None, executor: Literal["async", "process"] = "async") -> BenchEntry:
    """Play (or finish) the suite for ``agent`` and return its entry. Re-running resumes the same folder."""
    from arena.evaluate.report import score

    suite, sha = load_suite(suite_path)
    if deals is not None and deals < 1:
        raise BenchError("--deals must be at least 1")
    name = label or agent
    folder = Path(out or Path("bench") / f"{suite.name}-{suite.version}" / _safe(name))
    cfg = bench_tournament(suite, agent, name, options, deals, folder)
    resume = (folder / "tournament.json").exists()
    result = await run_tournament(cfg, RunOptions(out=folder, resume=resume, concurrency=concurrency, executor=executor))
    if result.failed:
        raise BenchError(f"{len(result.failed)} bench game(s) failed ({', '.join(result.failed[:5])}); "
                         f"run the same command again to retry them (see {folder / 'index.jsonl'})")
    report = score([folder / "games"], rating=RatingConfig(n_resamples=suite.resamples, seed=suite.seed))
    return make_entry(report, suite, sha, name, cfg)


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name) or "agent"


def entry_json(entry: BenchEntry) -> str:
    return entry.model_dump_json(indent=2) + "\n"


def entry_schema() -> str:
    return json.dumps(BenchEntry.model_json_schema(), indent=2) + "\n"


def load_entry(path: str | Path) -> BenchEntry:
    try:
        return BenchEntry.model_validate_json(read_user_text(Path(path)))
    except OSError as exc:
        raise BenchError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except UserFileError as exc:
        raise BenchError(str(exc)) from None
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err.get("loc", ()))
        raise BenchError(f"{path}: not a bench entry ({where}: {err.get('msg')})") from None


def _iv(i: Interval | None, digits: int = 2) -> str:
    if i is None:
        return "—"
    return f"{i.estimate:+.{digits}f} [{i.low:+.{digits}f}, {i.high:+.{digits}f}]"


def _num(x: float | None, lo: float | None = None, hi: float | None = None) -> str:
    if x is None:
        return "—"
    if lo is None or hi is None:
        return f"{x:.3f}"
    return f"{x:.3f} [{lo:.3f}, {hi:.3f}]"


def entry_markdown(entry: BenchEntry) -> str:
    c = entry.card
    out = [f"# {entry.label} on {c.suite} v{c.suite_version}", ""]
    if c.reduced:
        out += [f"**Reduced run**: {c.deals} deals per board (the suite plays more); not comparable with full runs.", ""]
    out += [f"BT skill (logit per seat, 95% game-bootstrap interval): **{_iv(entry.rating.skill)}**, rank "
            f"{entry.rating.rank} of {len(entry.reference) + 1} (Holm over {entry.rank_comparisons} pairs), "
            f"{c.games} games.", ""]
    out += ["| roster | BT skill [95% CI] | rank |", "| --- | --- | --- |"]
    for r in sorted([entry.rating, *entry.reference], key=lambda r: -r.skill.estimate):
        out.append(f"| {r.label}{' (this entry)' if r.label == entry.label else ''} | {_iv(r.skill)} | {r.rank} |")
    for w in entry.saturated:
        out += ["", f"Warning: {w}"]
    out += ["", "## Per-role skill", "", "| role | θ [95% CI] | seats |", "| --- | --- | --- |"]
    out += [f"| {r.role} | {_iv(r.skill)} | {r.seats} |" for r in entry.roles]
    out += ["", "## Headline metrics", "", "| metric | value [95% CI] | n (games) | chance |", "| --- | --- | --- | --- |"]
    out += [f"| `{h.metric}` {h.title} | {_num(h.value, h.low, h.high)} | {h.n} ({h.games}) | {_num(h.chance)} |"
            for h in entry.headline]
    cost = entry.cost
    out += ["", "## Cost", "", f"{cost.decisions} decisions; tokens per seat-game: {_num(cost.tokens_per_game)}; "
            f"USD per seat-game: {_num(cost.cost_per_game)}.", ""]
    out += ["## Config card", "", "| item | value |", "| --- | --- |"]
    for key, value in c.model_dump().items():
        out.append(f"| {key} | {json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value} |")
    return "\n".join(out) + "\n"


def compare_markdown(entries: Sequence[BenchEntry]) -> str:
    """A leaderboard of entries; entries of different suite versions or reduced runs are flagged."""
    suites = {(e.card.suite, e.card.suite_version, e.card.suite_sha256) for e in entries}
    metrics = list(dict.fromkeys(h.metric for e in entries for h in e.headline))
    head = ["#", "entry", "BT skill [95% CI]", "rank in its run", "games", "tokens/seat-game", "USD/seat-game"] + metrics
    lines = ["| " + " | ".join(head) + " |", "| " + " | ".join("---" for _ in head) + " |"]
    ordered = sorted(entries, key=lambda e: (-e.rating.skill.estimate, e.label))
    for i, e in enumerate(ordered, 1):
        hv = {h.metric: h for h in e.headline}
        cells = [str(i), e.label + (" (reduced)" if e.card.reduced else ""), _iv(e.rating.skill), str(e.rating.rank),
                 str(e.card.games), _num(e.cost.tokens_per_game), _num(e.cost.cost_per_game)]
        cells += [_num(hv[m].value) if m in hv else "—" for m in metrics]
        lines.append("| " + " | ".join(cells) + " |")
    notes = []
    if len(suites) > 1:
        notes.append("Warning: these entries come from different suites or suite versions; their skills are not on "
                     "one scale.")
    notes.append("Skills are each measured against the same fixed reference roster in its own fit; the roster's "
                 "skills anchor the scale, so compare entries through their gap to the reference.")
    return "\n".join(lines) + "\n\n" + "\n".join(notes) + "\n"


def compare_plot(entries: Sequence[BenchEntry], path: str | Path) -> Path:
    """Each entry's skill with its interval, and the reference roster's, one row per entry."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ordered = sorted(entries, key=lambda e: (-e.rating.skill.estimate, e.label))
    fig, ax = plt.subplots(figsize=(7, 0.8 + 0.5 * len(ordered)))
    for y, e in enumerate(reversed(ordered)):
        s = e.rating.skill
        ax.errorbar([s.estimate], [y], xerr=[[max(0.0, s.estimate - s.low)], [max(0.0, s.high - s.estimate)]],
                    fmt="o", capsize=4, color="#1f5f99")
        for r in e.reference:
            ax.plot([r.skill.estimate], [y], "|", color="#999", markersize=10)
    ax.set_yticks(range(len(ordered)), [e.label for e in reversed(ordered)])
    ax.set_xlabel("BT skill (logit per seat), 95% interval; grey ticks: the reference roster in that run")
    ax.set_title("arena bench compare")
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return out


# --- the A/A self-test -----------------------------------------------------------------------------------


class SelftestResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    agent: str
    replicates: int
    games_per_replicate: int
    false_separations: int = Field(description="replicates whose leaderboard ranked one label above the other")
    rate: float
    rate_low: float
    rate_high: float
    nominal: float = Field(description="the family-wise error rate the ranks are built for")
    saturated_replicates: int
    gaps: list[float] = Field(description="skill(A) - skill(B) per replicate")


def selftest_config(agent: str, boards: list[str], deals: int, seed: int, lang: str = "en") -> TournamentConfig:
    """Two labels of one agent; each label's seats draw from their own seed stream (``seed_salt``), so the
    two labels do not replay each other's games with the names swapped."""
    roster = [RosterEntry(label="A", agent=agent, options={"seed_salt": 1}),
              RosterEntry(label="B", agent=agent, options={"seed_salt": 2})]
    return TournamentConfig(name=f"aa-{seed}", roster=roster, boards=[BoardEntry(preset=b) for b in boards],
                            deals=deals, seed=seed, seating="mixed", lang=lang, out="bench/selftest", concurrency=2)


def selftest(agent: str = "bot:heuristic", *, replicates: int = 20, deals: int = 10, boards: Sequence[str] = ("std-12-guard",),
             seed: int = 0, resamples: int = 300, out: str | Path = "bench/selftest",
             executor: Literal["async", "process"] = "async") -> SelftestResult:
    """Replicated A/A: how often does the leaderboard separate an agent from itself?"""
    from arena.evaluate.report import score

    if replicates < 1 or deals < 1:
        raise BenchError("--replicates and --deals must be at least 1")
    separations = saturated = 0
    gaps: list[float] = []
    games = 0
    for r in range(replicates):
        rep_seed = seed + 100_003 * (r + 1)
        cfg = selftest_config(agent, list(boards), deals, rep_seed)
        folder = Path(out) / f"rep-{r:03d}"
        resume = (folder / "tournament.json").exists()
        result = asyncio.run(run_tournament(cfg, RunOptions(out=folder, resume=resume, executor=executor)))
        if result.failed:
            raise BenchError(f"self-test replicate {r}: {len(result.failed)} game(s) failed")
        report = score([folder / "games"], rating=RatingConfig(n_resamples=resamples, seed=rep_seed),
                       with_openskill=False)
        ranks = {a.agent: a.rank for a in report.ratings.agents}
        skills = {a.agent: a.skill.estimate for a in report.ratings.agents}
        games = report.ratings.games_used
        separations += int(ranks.get("A") != ranks.get("B"))
        saturated += int(bool(report.ratings.saturated))
        gaps.append(round(skills.get("A", 0.0) - skills.get("B", 0.0), 6))
    low, high = wilson_interval(separations, replicates)
    return SelftestResult(agent=agent, replicates=replicates, games_per_replicate=games, false_separations=separations,
                          rate=separations / replicates, rate_low=low, rate_high=high, nominal=0.05,
                          saturated_replicates=saturated, gaps=gaps)


__all__ = ["BenchEntry", "BenchError", "BenchSuite", "TournamentError", "compare_markdown", "compare_plot",
           "entry_json", "entry_markdown", "entry_schema", "load_entry", "load_suite", "run_bench", "selftest"]
