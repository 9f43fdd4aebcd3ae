"""``arena bench``: a fixed, versioned suite that turns one agent spec into a comparable leaderboard entry.

A suite (``configs/bench/*.yaml``) fixes the boards, the reference roster the agent plays with and
against, the seeds, the number of deals and the belief mode. :func:`run_bench` plays the suite as a
tournament (resumable: the games are ordinary tournament transcripts), scores it with the
evaluator and returns a :class:`BenchEntry`: the agent's gap to the reference (win-rate points, paired
by deal, with its minimal detectable difference), its rating and intervals against the reference
roster, its village / wolf split, the suite's headline metrics beside the reference's, its cost and a
config card. Nothing in an entry but ``card.date`` depends on the clock, so the same suite on the same
bot gives the same entry, byte for byte, apart from that date.

:func:`trivial_gate` plays the suite for talkers that carry no thought (agents/trivial.py): none may
rank above the reference nor beat it on a headline metric (issue #26).

:func:`selftest` is the honest A/A check: one agent under two labels whose bots draw from independent
seeds, replicated over fresh schedules; it counts how often the leaderboard separates the two.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import subprocess
from pathlib import Path
from typing import Any, Final, Literal, Sequence

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from arena import __version__
from arena.config import ConfigError
from arena.evaluate.ratings import RatingConfig
from arena.evaluate.paired import (
    MIN_DEALS,
    PairedGap,
    PairTest,
    deal_shares,
    gap_diffs,
    paired_gap,
    pairwise_tests,
    tiers,
)
from arena.evaluate.stats import Interval, holm_reject, wilson_interval
from arena.resources import data_dir
from arena.transcript import DECISION_LINE_START
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
#: 2: the paired gap to the reference, village / wolf gaps, per-deal gaps, the reference's headline rows
#: and a config card that says what served, at which settings and prices, on which rules (issue #26).
ENTRY_SCHEMA_VERSION = 2
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
    anchor: str | None = Field(None, description=(
        "the reference label every entry's gap is measured against (default: the first of the roster)"))
    headline: list[str] = Field(min_length=1, description=(
        "metric ids shown in the entry; id@group picks a group (default: all), e.g. win_rate@side:good"))
    resamples: int = Field(1000, ge=10)

    @property
    def anchor_label(self) -> str:
        return self.anchor or self.reference[0].label


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
    if suite.anchor is not None and suite.anchor not in {r.label for r in suite.reference}:
        raise BenchError(f"{p}: anchor: {suite.anchor!r} is not a label of the reference roster")
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
    # The tournament's name becomes every game's file name: no ':' (illegal on Windows) from a spec label.
    return TournamentConfig(name=f"{suite.name}-{suite.version}-{_safe(label)}", roster=roster, boards=suite.boards,
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


class DealGap(BaseModel):
    """One deal's gap of the entry to the anchor (win-rate points): what ``compare`` pairs entries by."""

    model_config = ConfigDict(extra="forbid")

    board: str
    seed: int
    all: float
    village: float | None
    wolf: float | None


class EntryCard(BaseModel):
    """What produced the entry: enough to tell whether two entries are comparable."""

    model_config = ConfigDict(extra="forbid")

    arena_version: str
    arena_commit: str | None = Field(description="git commit of the arena, when run from a checkout")
    date: str = Field(description="UTC date the entry was scored (the only field that depends on the clock)")
    suite: str
    suite_version: str
    suite_sha256: str
    rules_sha256: str = Field(description="sha256 of every board's preset and resolved switches: the rules played")
    prices_sha256: str | None = Field(description="sha256 of configs/prices.yaml, the price table behind cost")
    reference_bot_version: str = Field(description=("agents.heuristic.BOT_VERSION of the reference seats, as their games' headers recorded it "
                                                    "(comma-separated if they differ; none when no reference seat is the heuristic bot)"))
    deals: int = Field(description="deals actually played per board (below the suite's: a reduced run)")
    reduced: bool
    boards: list[str]
    seed: int
    lang: str
    belief_mode: str
    memory_mode: str | None = Field(description="the agent's memory option, when it has one")
    games: int
    skipped_games: int = Field(description="games with no side outcome, left out of the rating")
    fallback_games: list[str] = Field(description="games where a decision of the entry's seats fell back to the default")
    agent_spec: str
    agent_options: dict[str, Any]
    served_models: list[str] = Field(description="model ids the agent's seats were configured with (empty for bots)")
    served_snapshots: list[str] = Field(description=(
        "model ids the provider said answered the entry's seats (reply provenance), with the system fingerprint"))
    endpoint_kinds: list[str] = Field(description="the API kinds that answered (reply provenance)")
    settings: list[dict[str, Any]] = Field(description="the entry's resolved non-secret settings, as its seats recorded them")
    prompt_hashes: dict[str, list[str]] = Field(description="roster label -> template hashes its seats played from")


class BenchEntry(BaseModel):
    """One agent's result on one suite: the unit of a leaderboard."""

    model_config = ConfigDict(extra="forbid")

    schema_name: Literal["werewolf-bench-entry"] = ENTRY_SCHEMA_NAME
    schema_version: int = ENTRY_SCHEMA_VERSION
    label: str
    anchor: str = Field(description="the reference label the gaps are measured against")
    gap: PairedGap = Field(description=(
        "entry minus anchor: share of seats whose side won, paired by deal (each plays every card of a deal once)"))
    village_gap: PairedGap = Field(description="the same on good seats only")
    wolf_gap: PairedGap = Field(description="the same on wolf seats only")
    deal_gaps: list[DealGap]
    rating: RatedEntry = Field(description="the agent's BT skill (logit per seat) and rank among the roster")
    reference: list[RatedEntry] = Field(description="the reference roster's skills in the same fit")
    rank_comparisons: int
    saturated: list[str] = Field(default_factory=list, description="warnings: entries that won all or none of their games")
    roles: list[RoleRow]
    headline: list[HeadlineRow]
    reference_headline: dict[str, list[HeadlineRow]] = Field(description=(
        "the reference roster's rows of the same headline metrics in the same games"))
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


def rules_sha256(suite: BenchSuite) -> str:
    """A hash of what every board of the suite plays: the preset (deck, seats) and every switch in force."""
    from arena.config import get_preset, resolve_rules

    doc = {}
    for b in suite.boards:
        preset = get_preset(b.preset)
        doc[b.preset + (json.dumps(b.rules, sort_keys=True) if b.rules else "")] = {
            "preset": preset.model_dump(mode="json"),
            "switches": resolve_rules(b.preset, dict(b.rules)).switches.model_dump(mode="json")}
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


def _prices_sha256() -> str | None:
    path = data_dir("configs") / "prices.yaml"
    try:
        return hashlib.sha256(path.read_bytes().replace(b"\r\n", b"\n")).hexdigest()
    except OSError:
        return None


DECISION_START = DECISION_LINE_START.encode()


def _seat_provenance(folder: Path | None, label: str) -> tuple[list[str], list[str], list[str]]:
    """(served snapshots, endpoint kinds, games with a fallback) of ``label``'s seats, from decision lines."""
    if folder is None or not folder.is_dir():
        return [], [], []
    served: set[str] = set()
    kinds: set[str] = set()
    fallback: set[str] = set()
    for path in sorted(folder.glob("*.jsonl")):
        mine: set[int] = set()
        for raw in path.read_bytes().split(b"\n"):
            if raw.startswith(b'{"type":"header"'):
                header = json.loads(raw)
                mine = {a["seat"] for a in header.get("agents", []) if (a.get("label") or a.get("spec")) == label}
                continue
            if not raw.startswith(DECISION_START) or (b'"defaulted":true' not in raw and b'"replies"' not in raw):
                continue
            line = json.loads(raw)
            if line.get("seat") not in mine:
                continue
            if line.get("defaulted"):
                fallback.add(path.stem)
            for reply in (line.get("usage") or {}).get("replies") or []:
                if reply.get("model"):
                    fp = reply.get("system_fingerprint")
                    served.add(reply["model"] + (f" ({fp})" if fp else ""))
                if reply.get("api"):
                    kinds.add(reply["api"])
    return sorted(served), sorted(kinds), sorted(fallback)


def _headline_rows(report: Any, suite: BenchSuite, label: str) -> list[HeadlineRow]:
    metric = {m.id: m for m in report.metrics}
    rows = []
    for item in suite.headline:
        mid, _, group = item.partition("@")
        m = metric.get(mid)
        if m is None:
            raise BenchError(f"suite {suite.name}: headline metric {mid!r} is not a metric of the evaluator")
        row = next((r for r in m.rows if r.agent == label and r.group == (group or "all")), None)
        rows.append(HeadlineRow(metric=item, title=m.title + (f" ({group})" if group else ""), value=row.value if row else None,
                                low=row.low if row else None, high=row.high if row else None,
                                n=row.n if row else 0, games=row.games if row else 0,
                                chance=row.chance if row else None, higher_is=m.higher_is))
    return rows


def make_entry(report: Any, suite: BenchSuite, suite_sha: str, label: str, cfg: TournamentConfig,
               games_folder: Path | None = None) -> BenchEntry:
    """The leaderboard entry of ``label`` from a scored bench tournament."""
    ratings = report.ratings
    by = {a.agent: a for a in ratings.agents}
    if label not in by:
        raise BenchError(f"no rated game of {label!r} in the bench tournament (were all games abandoned?)")
    me = by[label]
    metric = {m.id: m for m in report.metrics}

    def mean_of(mid: str) -> float | None:
        row = next((r for r in metric[mid].rows if r.agent == label and r.group == "all"), None)
        return row.value if row else None

    anchor = suite.anchor_label
    records = list(report.records)
    per_side = {side: gap_diffs(deal_shares(records, side), label, anchor) for side in (None, "good", "wolf")}
    deal_gaps = [DealGap(board=k[0], seed=k[1], all=v, village=per_side["good"].get(k), wolf=per_side["wolf"].get(k))
                 for k, v in sorted(per_side[None].items())]

    card = report.config
    roster = {r.name: r for r in (card.roster if card else [])}
    mine = roster.get(label)
    # The reference bot's judgement as the games recorded it (the heuristic's header version leads with it).
    bot_versions = sorted({v.split()[0] for r in suite.reference if r.label in roster
                           for v in roster[r.label].prompt_versions if v.startswith("heuristic-")})
    served = sorted({str(s["model"]) for s in (mine.settings if mine else []) if s.get("model")})
    snapshots, kinds, fallback = _seat_provenance(games_folder, label)
    entry_opts = next(r.options for r in cfg.roster if r.label == label)
    decisions = sum(r.n for r in metric["fallback_rate"].rows if r.agent == label and r.group == "all")
    memory = entry_opts.get("memory") or next((s.get("memory") for s in (mine.settings if mine else []) if s.get("memory")), None)
    return BenchEntry(
        label=label,
        anchor=anchor,
        gap=paired_gap(list(per_side[None].values())),
        village_gap=paired_gap(list(per_side["good"].values())),
        wolf_gap=paired_gap(list(per_side["wolf"].values())),
        deal_gaps=deal_gaps,
        rating=RatedEntry(label=label, skill=me.skill, rank=me.rank),
        reference=[RatedEntry(label=a.agent, skill=a.skill, rank=a.rank) for a in ratings.agents if a.agent != label],
        rank_comparisons=ratings.rank_comparisons,
        saturated=list(getattr(ratings, "saturated", [])),
        roles=[RoleRow(role=r.role, skill=r.skill, seats=r.seats) for r in ratings.roles if r.agent == label],
        headline=_headline_rows(report, suite, label),
        reference_headline={r.label: _headline_rows(report, suite, r.label) for r in suite.reference},
        cost=CostBlock(tokens_per_game=mean_of("tokens_per_game"), cost_per_game=mean_of("cost_per_game"),
                       decisions=decisions),
        card=EntryCard(
            arena_version=__version__, arena_commit=_arena_commit(), date=_today(), suite=suite.name,
            suite_version=suite.version, suite_sha256=suite_sha, rules_sha256=rules_sha256(suite),
            prices_sha256=_prices_sha256(), reference_bot_version=",".join(bot_versions) or "none", deals=cfg.deals,
            reduced=cfg.deals < suite.deals, boards=[b.preset for b in suite.boards], seed=suite.seed, lang=suite.lang,
            belief_mode=str(entry_opts.get("beliefs", suite.belief_mode)), memory_mode=None if memory is None else str(memory),
            games=ratings.games_used, skipped_games=ratings.games_skipped, fallback_games=fallback,
            agent_spec=next(r.agent for r in cfg.roster if r.label == label), agent_options=entry_opts,
            served_models=served, served_snapshots=snapshots, endpoint_kinds=kinds,
            settings=list(mine.settings) if mine else [],
            prompt_hashes={name: sorted(r.prompt_versions) for name, r in sorted(roster.items())},
        ),
    )


def _today() -> str:
    import datetime as dt

    return dt.datetime.now(dt.timezone.utc).date().isoformat()


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
    report = score([folder / "games"], rating=RatingConfig(n_resamples=suite.resamples, seed=suite.seed),
                   with_openskill=False)
    return make_entry(report, suite, sha, name, cfg, folder / "games")


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name) or "agent"


def entry_json(entry: BenchEntry) -> str:
    return entry.model_dump_json(indent=2) + "\n"


def entry_schema() -> str:
    return json.dumps(BenchEntry.model_json_schema(), indent=2) + "\n"


def load_entry(path: str | Path) -> BenchEntry:
    try:
        text = read_user_text(Path(path))
    except OSError as exc:
        raise BenchError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except UserFileError as exc:
        raise BenchError(str(exc)) from None
    found = re.search(r'"schema_version"\s*:\s*(\d+)', text)  # read before validating: no parse of a deep file
    if found and int(found.group(1)) != ENTRY_SCHEMA_VERSION:
        raise BenchError(f"{path}: entry schema version {found.group(1)}, this arena reads version "
                         f"{ENTRY_SCHEMA_VERSION} (re-score the run with this arena: `arena bench run` on the same "
                         "folder resumes and rewrites it)")
    try:
        return BenchEntry.model_validate_json(text)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err.get("loc", ()))
        raise BenchError(f"{path}: not a bench entry ({where}: {err.get('msg')})") from None


def _iv(i: Interval | None, digits: int = 2) -> str:
    if i is None:
        return "—"
    return f"{i.estimate:+.{digits}f} [{i.low:+.{digits}f}, {i.high:+.{digits}f}]"


def _pts(g: PairedGap) -> str:
    """A gap in win-rate points with its interval."""
    if g.low is None or g.high is None:
        return f"{100 * g.estimate:+.1f} pts (no interval: {g.deals} deal(s))"
    return f"{100 * g.estimate:+.1f} [{100 * g.low:+.1f}, {100 * g.high:+.1f}] pts"


def _num(x: float | None, lo: float | None = None, hi: float | None = None) -> str:
    if x is None:
        return "—"
    if lo is None or hi is None:
        return f"{x:.3f}"
    return f"{x:.3f} [{lo:.3f}, {hi:.3f}]"


def power_sentence(g: PairedGap) -> str:
    if g.mdd80 is None:
        return f"{g.deals} deal(s): too few to state a minimal detectable difference."
    return (f"Minimal detectable difference at 80% power (two-sided 5%): {100 * g.mdd80:.1f} win-rate points "
            f"from {g.deals} deals.")


def too_small(g: PairedGap) -> bool:
    return g.deals < MIN_DEALS or g.mdd80 is None


def entry_markdown(entry: BenchEntry) -> str:
    c = entry.card
    out = [f"# {entry.label} on {c.suite} v{c.suite_version}", ""]
    if c.reduced:
        out += [f"**Reduced run**: {c.deals} deals per board (the suite plays more); not comparable with full runs.", ""]
    out += [f"Gap to the reference `{entry.anchor}` (share of seats whose side won, paired by deal, 95% t interval): "
            f"**{_pts(entry.gap)}** (p = {_num(entry.gap.p)}); village {_pts(entry.village_gap)}, "
            f"wolf {_pts(entry.wolf_gap)}.", "", power_sentence(entry.gap), ""]
    if too_small(entry.gap):
        out += [f"**Too small to rank**: fewer than {MIN_DEALS} deals; the ranks below say nothing.", ""]
    out += [f"BT skill (logit per seat, 95% deal-bootstrap interval): **{_iv(entry.rating.skill)}**, rank "
            f"{entry.rating.rank} of {len(entry.reference) + 1} (Holm over {entry.rank_comparisons} pairs), "
            f"{c.games} games.", ""]
    out += ["| roster | BT skill [95% CI] | rank |", "| --- | --- | --- |"]
    for r in sorted([entry.rating, *entry.reference], key=lambda r: -r.skill.estimate):
        out.append(f"| {r.label}{' (this entry)' if r.label == entry.label else ''} | {_iv(r.skill)} | {r.rank} |")
    for w in entry.saturated:
        out += ["", f"Warning: {w}"]
    out += ["", "## Per-role skill", "", "| role | θ [95% CI] | seats |", "| --- | --- | --- |"]
    out += [f"| {r.role} | {_iv(r.skill)} | {r.seats} |" for r in entry.roles]
    ref = entry.reference_headline.get(entry.anchor, [])
    out += ["", "## Headline metrics", "", f"| metric | value [95% CI] | {entry.anchor} | n (games) | chance |",
            "| --- | --- | --- | --- | --- |"]
    for i, h in enumerate(entry.headline):
        mate = ref[i] if i < len(ref) else None
        out.append(f"| `{h.metric}` {h.title} | {_num(h.value, h.low, h.high)} | {_num(mate.value) if mate else '—'} | "
                   f"{h.n} ({h.games}) | {_num(h.chance)} |")
    cost = entry.cost
    out += ["", "## Cost", "", f"{cost.decisions} decisions; tokens per seat-game: {_num(cost.tokens_per_game)}; "
            f"USD per seat-game: {_num(cost.cost_per_game)}.", ""]
    out += ["## Config card", "", "| item | value |", "| --- | --- |"]
    for key, value in c.model_dump().items():
        out.append(f"| {key} | {json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value} |")
    return "\n".join(out) + "\n"


#: Card fields that must agree for entries to share one scale (``compare`` refuses otherwise).
COMPARABLE = ("suite", "suite_version", "suite_sha256", "rules_sha256", "reference_bot_version")


def mixed_fields(entries: Sequence[BenchEntry]) -> dict[str, list[str]]:
    """Card fields on which the entries differ, with their distinct values (anchor and deals included)."""
    out: dict[str, list[str]] = {}
    for name in COMPARABLE:
        values = sorted({str(getattr(e.card, name)) for e in entries})
        if len(values) > 1:
            out[name] = values
    anchors = sorted({e.anchor for e in entries})
    if len(anchors) > 1:
        out["anchor"] = anchors
    return out


class Comparison(BaseModel):
    model_config = ConfigDict(extra="forbid")

    anchor: str
    tiers: list[list[str]]
    gaps: dict[str, PairedGap] = Field(description="each entry minus the anchor, paired by deal")
    tests: list[PairTest] = Field(description="every pair (the anchor included), paired by deal, Holm-corrected")
    too_small: list[str]
    mixed: dict[str, list[str]]


def compare_entries(entries: Sequence[BenchEntry], allow_mixed: bool = False) -> Comparison:
    """Tiers of entries not separated from each other, from deal-paired tests of their gaps to the anchor."""
    if not entries:
        raise BenchError("compare needs at least one entry")
    labels = [e.label for e in entries]
    if len(set(labels)) != len(labels):
        raise BenchError(f"two entries share a label ({', '.join(sorted({x for x in labels if labels.count(x) > 1}))}): "
                         "re-run one with --label")
    mixed = mixed_fields(entries)
    if mixed and not allow_mixed:
        what = "; ".join(f"{k}: {', '.join(v)}" for k, v in mixed.items())
        raise BenchError(f"these entries are not on one scale ({what}); pass --allow-mixed to show them apart")
    anchor = entries[0].anchor
    diffs = {e.label: {(d.board, d.seed): d.all for d in e.deal_gaps} for e in entries}
    groups: list[list[BenchEntry]] = [list(entries)]
    if mixed:  # shown apart: each group of one scale has its own tiers
        keyed: dict[tuple[str, ...], list[BenchEntry]] = {}
        for e in entries:
            keyed.setdefault(tuple(str(getattr(e.card, n)) for n in COMPARABLE) + (e.anchor,), []).append(e)
        groups = list(keyed.values())
    all_tiers: list[list[str]] = []
    tests: list[PairTest] = []
    for group in groups:
        ref = f"{group[0].anchor} (reference)"
        d = {e.label: diffs[e.label] for e in group}
        d[ref] = {k: 0.0 for e in group for k in diffs[e.label]}
        t = pairwise_tests(d)
        est = {e.label: e.gap.estimate for e in group}
        est[ref] = 0.0
        all_tiers += tiers(est, t)
        tests += t
    return Comparison(anchor=anchor, tiers=all_tiers, gaps={e.label: e.gap for e in entries}, tests=tests,
                      too_small=[e.label for e in entries if too_small(e.gap)], mixed=mixed)


def compare_markdown(entries: Sequence[BenchEntry], allow_mixed: bool = False) -> str:
    """The leaderboard: tiers of entries not separated from each other (deal-paired tests, Holm), each entry's
    gap to the reference, every pair's difference with its test, and the headline metrics in a second table."""
    cmp = compare_entries(entries, allow_mixed)
    by = {e.label: e for e in entries}
    out: list[str] = []
    if cmp.mixed:
        out += ["**Mixed scales** (shown apart, never ranked together): " +
                "; ".join(f"{k}: {', '.join(v)}" for k, v in cmp.mixed.items()), ""]
    commits = sorted({e.card.arena_commit or "not a checkout" for e in entries})
    if len(commits) > 1:
        out += [f"Note: entries come from {len(commits)} arena commits ({', '.join(c[:10] for c in commits)}); their "
                "rules, suite and reference bot match, so they are ranked together.", ""]
    if cmp.too_small:
        out += [f"**Too small to rank**: {', '.join(cmp.too_small)} (fewer than {MIN_DEALS} deals, or no spread): "
                "the power of the design cannot tell entries apart, so no order is printed.", ""]
        ranked = False
    else:
        ranked = True
    out += ["| tier | entry | gap to reference, pts [95% CI] | MDD80 | games |", "| --- | --- | --- | --- | --- |"]
    for i, tier in enumerate(cmp.tiers, 1):
        for name in tier:
            e = by.get(name)
            if e is None:
                out.append(f"| {i if ranked else '—'} | {name} | 0 (the anchor) | — | — |")
            else:
                mdd = "—" if e.gap.mdd80 is None else f"{100 * e.gap.mdd80:.1f}"
                out.append(f"| {i if ranked else '—'} | {name}{' (reduced)' if e.card.reduced else ''} | {_pts(e.gap)} | "
                           f"{mdd} | {e.card.games} |")
    out += ["", "Entries in one tier are not separated (paired by deal, Holm over every pair); a tier is an order "
            "only against the tiers above and below it.", "",
            "| pair | difference, pts [95% CI] | p | Holm |", "| --- | --- | --- | --- |"]
    for t in cmp.tests:
        out.append(f"| {t.higher} − {t.lower} | {_pts(t.gap)} | {_num(t.gap.p)} | "
                   f"{'separated' if t.separated else 'not separated'} |")
    metrics = list(dict.fromkeys(h.metric for e in entries for h in e.headline))
    out += ["", "| metric | " + " | ".join(e.label for e in entries) + " |",
            "| --- | " + " | ".join("---" for _ in entries) + " |"]
    for m in metrics:
        cells = []
        for e in entries:
            h = next((x for x in e.headline if x.metric == m), None)
            cells.append(_num(h.value) if h else "—")
        out.append(f"| `{m}` | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def compare_plot(entries: Sequence[BenchEntry], path: str | Path, allow_mixed: bool = False) -> Path:
    """Each entry's gap to the reference (win-rate points, 95% interval), the reference at zero."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    compare_entries(entries, allow_mixed)  # refuses what compare refuses
    ordered = sorted(entries, key=lambda e: (-e.gap.estimate, e.label))
    fig, ax = plt.subplots(figsize=(7, 1.2 + 0.5 * len(ordered)))
    for y, e in enumerate(reversed(ordered)):
        g = e.gap
        lo = g.estimate if g.low is None else g.low
        hi = g.estimate if g.high is None else g.high
        ax.errorbar([100 * g.estimate], [y], xerr=[[100 * (g.estimate - lo)], [100 * (hi - g.estimate)]],
                    fmt="o", capsize=4, color="#1f5f99", label="entry − reference (95% CI)" if y == 0 else None)
    ax.axvline(0.0, color="#999", linestyle="--", label=f"reference ({ordered[0].anchor})")
    ax.set_yticks(range(len(ordered)), [e.label for e in reversed(ordered)])
    ax.set_xlabel("gap to the reference: win-rate points (share of seats whose side won), paired by deal")
    ax.set_title("arena bench compare")
    ax.legend(loc="best", fontsize=8)
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


# --- the trivial-policy gate ----------------------------------------------------------------------------

#: Talkers with no thought behind their words (agents/trivial.py): the gate's policies.
TRIVIAL_POLICIES: Final = ("bot:silent", "bot:claim-seer", "bot:random-speech", "bot:copycat")


class GateMetric(BaseModel):
    model_config = ConfigDict(extra="forbid")

    metric: str
    higher_is: str
    policy: float | None
    reference: float | None
    z: float | None = Field(description="(policy - reference) / sqrt(se_policy^2 + se_reference^2), signed so that "
                                        "positive means the policy looks better")
    p: float | None = Field(description="one-sided p-value of the policy looking better than the reference (or than "
                                        "chance, for a row the reference does not have)")
    rewarded: bool = Field(False, description="better than the reference after Holm over every policy and metric")


class GateRow(BaseModel):
    model_config = ConfigDict(extra="forbid")

    policy: str
    gap: PairedGap = Field(description="policy minus the reference bot, win-rate points, paired by deal")
    rank: int
    anchor_rank: int
    skill: float
    anchor_skill: float
    headline: list[GateMetric]
    above: bool = Field(description="ranks above the reference: a better BT rank, or a gap above zero")
    separated_below: bool = Field(description="the gap is negative and its interval excludes zero")


class GateResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    suite: str
    suite_version: str
    deals: int
    games_per_policy: int
    anchor: str
    rows: list[GateRow]
    failures: list[str]

    @property
    def passed(self) -> bool:
        return not self.failures


def _se(h: HeadlineRow) -> float | None:
    if h.value is None or h.low is None or h.high is None:
        return None
    return max(h.high - h.low, 0.0) / (2 * 1.959963984540054)


def _metric_test(h: HeadlineRow, r: HeadlineRow | None) -> GateMetric:
    from scipy.stats import norm

    ref = r.value if r is not None else None
    out = GateMetric(metric=h.metric, higher_is=h.higher_is, policy=h.value, reference=ref, z=None, p=None)
    if h.higher_is not in ("better", "worse") or h.value is None:
        return out
    a = _se(h)
    if r is None or ref is None:
        # No reference row (a belief metric of other agents' seats: the reference is the only listener):
        # the policy is held against the metric's chance level instead.
        if h.chance is None or a is None:
            return out
        ref = h.chance
        b: float | None = 0.0
        out = out.model_copy(update={"reference": ref})
    else:
        b = _se(r)
    if a is None or b is None:
        return out
    sign = 1.0 if h.higher_is == "better" else -1.0
    diff = sign * (h.value - ref)
    se = (a * a + b * b) ** 0.5
    if se <= 0:
        z = 0.0 if diff == 0 else (float("inf") if diff > 0 else float("-inf"))
    else:
        z = diff / se
    return out.model_copy(update={"z": z, "p": float(norm.sf(z))})


def gate_rows(entries: Sequence[BenchEntry], alpha: float = 0.05) -> tuple[list[GateRow], list[str]]:
    """Judge trivial-policy entries against the reference bot of their own runs.

    A policy fails when it ranks above the reference (a better BT rank in its run, or a win-share gap
    above zero) or when any headline metric shows it better than the reference in the same games
    (one-sided z on the two rows' interval half-widths, Holm over every policy x metric).
    """
    rows: list[GateRow] = []
    tests: list[tuple[int, int]] = []
    pvals: list[float] = []
    for e in entries:
        ref_rows = e.reference_headline.get(e.anchor, [])
        metrics = [_metric_test(h, next((r for r in ref_rows if r.metric == h.metric), None)) for h in e.headline]
        anchor = next(r for r in e.reference if r.label == e.anchor)
        above = e.rating.rank < anchor.rank or e.gap.estimate > 0
        below = e.gap.high is not None and e.gap.high < 0
        rows.append(GateRow(policy=e.card.agent_spec, gap=e.gap, rank=e.rating.rank, anchor_rank=anchor.rank,
                            skill=e.rating.skill.estimate, anchor_skill=anchor.skill.estimate, headline=metrics,
                            above=above, separated_below=below))
        for j, m in enumerate(metrics):
            if m.p is not None:
                tests.append((len(rows) - 1, j))
                pvals.append(m.p)
    for (i, j), rej in zip(tests, holm_reject(pvals, alpha)):
        if rej:
            rows[i].headline[j].rewarded = True
    failures = []
    for r in rows:
        if r.above:
            failures.append(f"{r.policy} ranks above the reference (gap {100 * r.gap.estimate:+.1f} pts, "
                            f"rank {r.rank} vs {r.anchor_rank})")
        failures += [f"{r.policy} is rewarded by {m.metric} ({m.policy:.3f} vs {m.reference:.3f}, p = {m.p:.2g})"
                     for m in r.headline if m.rewarded and m.policy is not None and m.reference is not None]
    return rows, failures


def trivial_gate(suite_path: str | Path = "werewolf-bench", *, deals: int | None = None,
                 policies: Sequence[str] = TRIVIAL_POLICIES, out: str | Path = "bench/gate",
                 executor: Literal["async", "process"] = "async") -> GateResult:
    """Every trivial policy plays the suite as an entry; none may rank above the reference nor be rewarded
    by a headline metric (:func:`gate_rows`)."""
    suite, _ = load_suite(suite_path)
    entries = []
    for spec in policies:
        label = spec.split(":", 1)[-1]
        entries.append(asyncio.run(run_bench(suite_path, spec, label=label, out=Path(out) / _safe(label), deals=deals,
                                             executor=executor)))
    rows, failures = gate_rows(entries)
    return GateResult(suite=suite.name, suite_version=suite.version, deals=deals or suite.deals,
                      games_per_policy=entries[0].card.games if entries else 0, anchor=suite.anchor_label,
                      rows=rows, failures=failures)


def gate_markdown(result: GateResult) -> str:
    metrics = list(dict.fromkeys(m.metric for r in result.rows for m in r.headline))
    out = [f"Trivial-policy gate on {result.suite} v{result.suite_version}: {result.deals} deals per board, "
           f"{result.games_per_policy} games per policy; reference `{result.anchor}`.", "",
           "| policy | gap to reference, pts [95% CI] | MDD80 | BT skill (ref) | rank (ref) | verdict |",
           "| --- | --- | --- | --- | --- | --- |"]
    for r in result.rows:
        verdict = "ABOVE" if r.above else ("below (separated)" if r.separated_below else "below (not separated)")
        mdd = "—" if r.gap.mdd80 is None else f"{100 * r.gap.mdd80:.1f}"
        out.append(f"| {r.policy} | {_pts(r.gap)} | {mdd} | {r.skill:+.2f} ({r.anchor_skill:+.2f}) | "
                   f"{r.rank} ({r.anchor_rank}) | {verdict} |")
    out += ["", "| metric | " + " | ".join(f"{r.policy} (ref)" for r in result.rows) + " |",
            "| --- | " + " | ".join("---" for _ in result.rows) + " |"]
    for name in metrics:
        cells = []
        for r in result.rows:
            m = next((x for x in r.headline if x.metric == name), None)
            if m is None or m.policy is None:
                cells.append("—")
                continue
            flag = " **rewarded**" if m.rewarded else ""
            cells.append(f"{m.policy:.3f} ({_num(m.reference)}){flag}")
        out.append(f"| `{name}` | " + " | ".join(cells) + " |")
    out += ["", "PASS: no trivial policy ranks above the reference or is rewarded by a headline metric."
            if result.passed else "FAIL: " + "; ".join(result.failures)]
    return "\n".join(out) + "\n"


__all__ = ["BenchEntry", "BenchError", "BenchSuite", "TRIVIAL_POLICIES", "TournamentError", "compare_entries",
           "compare_markdown", "compare_plot", "entry_json", "entry_markdown", "entry_schema", "gate_markdown", "load_entry",
           "load_suite", "run_bench", "selftest", "trivial_gate"]
