"""Every metric of the evaluator, computed from transcripts only (docs/metrics.md defines each one).

One pass per transcript feeds small accumulators keyed by (metric, agent, group); nothing of a
game is kept after its pass except what the ratings need (a :class:`GameRecord`). An agent is a
roster entry: the seat's ``label`` in the header, or its ``spec`` when it has none.

A metric whose inputs no transcript carries (beliefs, usage, reasoning, claims...) reports
``status="needs"`` and what it needs instead of a number; one whose inputs exist but whose event
never happened reports ``status="empty"``.
"""

from __future__ import annotations

import json
import math
import zlib
from collections import defaultdict
from dataclasses import make_dataclass, dataclass, field
from typing import Any, Iterable, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from arena.evaluate.claims import mentioned_seats, parse_claims
from arena.evaluate.load import RawGame
from arena.evaluate.records import GameRecord, SeatRecord
from arena.evaluate.stats import (
    MIN_GAMES,
    auroc,
    chance_corrected,
    cluster_ratio_variance,
    cluster_totals,
    holm_reject,
    clustered_mean_interval,
    clustered_rate_interval,
    make_rng,
    percentile_interval,
)
from arena.types import is_wolf_card

ALL = "all"

#: The event types the scorer reads; others are skipped unparsed by the loader.
SCORED_EVENTS = frozenset({
    "ballot_cast", "vote_result", "exile_result", "player_died", "speech", "speech_order", "sheriff_elected",
    "badge_moved", "seer_result", "wolf_knife_vote", "wolf_knife", "guard_protected", "witch_saved",
    "witch_poisoned", "hunter_shot",
})
#: Decision kinds whose legal set the scorer needs even when nothing else is recorded.
LEGAL_SET_KINDS = frozenset({"vote", "pk_vote", "seer_check", "guard"})
#: Decisions whose answer is said aloud (R138's interjections and replies included).
SPEECH_DECISIONS = frozenset({"speech", "last_words", "idiot_interject", "interjection_reply"})
#: Speech kinds credited by ``speech_swing``: the discussion and PK speeches, and a revealed idiot's
#: interjections with the speakers' replies (R138 ``may_interject``).
PERSUASION_SPEECHES = frozenset({"discussion", "pk", "interjection", "interjection_reply"})


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
    "beliefs_at_speech": "beliefs reported at speech decisions as well as at votes (a listener's intent "
                         "before and after each speech)",
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
    MetricDef("wolf_steered_exile", "deception",
              "Exile rounds where this wolf voted out a good seat and the wolves' ballots were pivotal", "rate",
              "no closed form: compare with bot:random in the same tournament"),
    MetricDef("claim_truth", "deception", "Role and check claims that match the truth, every seat", "rate",
              "role claims: copies of the claimed card in the deck / players; check claims: seats of the "
              "claimed side / other seats", needs="claims", higher_is="neither"),
    MetricDef("speech_swing", "persuasion",
              "Net share of good listeners whose intended vote moves to the speaker's target", "mean",
              "0 (listeners' changes unrelated to the speech)", needs="beliefs_at_speech"),
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
    MetricDef("fallback_rate", "honesty and reliability", "Decisions settled by the default (fallback)", "rate",
              "0", higher_is="worse"),
    MetricDef("tokens_per_decision", "honesty and reliability", "Tokens per decision", "mean", "—",
              needs="usage", higher_is="neither"),
    MetricDef("tokens_per_game", "honesty and reliability", "Tokens per seat-game", "mean", "—",
              needs="usage", higher_is="neither"),
    MetricDef("cost_per_game", "honesty and reliability", "Cost per seat-game", "mean", "—", needs="cost",
              higher_is="worse"),
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


class Availability(BaseModel):
    """What the scored transcripts carry, so a missing metric can say what it lacks."""

    model_config = ConfigDict(extra="forbid")

    games: int = 0
    incomplete: int = 0
    abandoned: int = 0
    decisions: int = 0
    belief_reports: int = 0
    belief_reports_at_speech: int = 0
    speeches_with_text: int = 0
    speeches_with_claims: int = 0
    decisions_with_reasoning: int = 0
    decisions_with_usage: int = 0
    decisions_with_cost: int = 0
    decisions_with_latency: int = 0
    sheriff_days: int = 0
    self_play_games: int = 0

    @classmethod
    def from_counts(cls, counts: "Counts") -> "Availability":
        return cls(**{name: getattr(counts, name) for name in cls.model_fields})

    def has(self, need: str) -> bool:
        return {
            "beliefs": self.belief_reports > 0,
            "beliefs_at_speech": self.belief_reports_at_speech > 0,
            "claims": self.speeches_with_claims > 0,
            "reasoning": self.decisions_with_reasoning > 0,
            "usage": self.decisions_with_usage > 0,
            "cost": self.decisions_with_cost > 0,
            "latency": self.decisions_with_latency > 0,
            "sheriff": self.sheriff_days > 0,
            "self_play": self.self_play_games > 0,
        }.get(need, True)


# Availability's counters while scoring, as a plain dataclass with the same fields: a pydantic
# model's __setattr__ is too slow to bump once per transcript line.
Counts = make_dataclass("Counts", [(name, int, 0) for name in Availability.model_fields])


class BalanceReport(BaseModel):
    """How evenly roster entries were spread over roles, seats and the first speaking slot."""

    model_config = ConfigDict(extra="forbid")

    role_share: dict[str, dict[str, float]] = Field(description="agent -> role -> share of the agent's seats")
    deck_share: dict[str, float] = Field(description="role -> share of all seats (what a balanced agent gets)")
    seat_share: dict[str, dict[int, float]]
    first_speaker: dict[str, int] = Field(description="agent -> discussions it opened")
    max_role_deviation: float = Field(description="largest |agent's role share - deck share|, in points")
    max_seat_deviation: float = Field(description="largest |agent's seat share - 1/players|, in points")


# --- accumulation -------------------------------------------------------------------------------


class _Clustered:
    """Per-cluster (game, or deal for mirrored games) sums beside the running totals, so an interval
    can treat the game as the unit. Consecutive observations of one game share one entry."""

    __slots__ = ("gc", "gy", "gn", "last")

    def __init__(self) -> None:
        self.gc: list[int] = []
        self.gy: list[float] = []
        self.gn: list[int] = []
        self.last = -1

    def _note(self, y: float, count: int, cluster: int) -> None:
        if cluster != self.last:
            self.gc.append(cluster)
            self.gy.append(0.0)
            self.gn.append(0)
            self.last = cluster
        self.gy[-1] += y
        self.gn[-1] += count

    def totals(self):  # type: ignore[no-untyped-def]
        return cluster_totals(self.gc, self.gy, self.gn)

    @property
    def games(self) -> int:
        return len(set(self.gc))


class _Rate(_Clustered):
    __slots__ = ("k", "n", "chance", "chance_n")

    def __init__(self) -> None:
        super().__init__()
        self.k = 0.0
        self.n = 0
        self.chance = 0.0
        self.chance_n = 0

    def add(self, hit: float, chance: float | None = None, cluster: int = 0) -> None:
        self.k += hit
        self.n += 1
        self._note(hit, 1, cluster)
        if chance is not None:
            self.chance += chance
            self.chance_n += 1

    def add_misses(self, count: int, chance: float, cluster: int) -> None:
        """``count`` trials of one game that all missed, each with the same chance."""
        self.n += count
        self.chance += chance * count
        self.chance_n += count
        self._note(0.0, count, cluster)


class _Mean(_Clustered):
    __slots__ = ("s", "n", "chance", "chance_n")

    def __init__(self) -> None:
        super().__init__()
        self.s = 0.0
        self.n = 0
        self.chance = 0.0
        self.chance_n = 0

    def add(self, x: float, chance: float | None = None, cluster: int = 0) -> None:
        self.s += x
        self.n += 1
        self._note(x, 1, cluster)
        if chance is not None:
            self.chance += chance
            self.chance_n += 1


@dataclass
class _Auc:
    scores: list[float] = field(default_factory=list)
    labels: list[bool] = field(default_factory=list)
    clusters: list[int] = field(default_factory=list)


@dataclass
class Accumulator:
    rates: dict[tuple[str, str, str], _Rate] = field(default_factory=lambda: defaultdict(_Rate))
    means: dict[tuple[str, str, str], _Mean] = field(default_factory=lambda: defaultdict(_Mean))
    aucs: dict[tuple[str, str, str], _Auc] = field(default_factory=lambda: defaultdict(_Auc))
    avail: Counts = field(default_factory=Counts)
    records: list[GameRecord] = field(default_factory=list)
    # win_rate's chance needs every board's side rate: keep the exposure per board.
    board_outcomes: dict[str, list[float]] = field(default_factory=lambda: defaultdict(lambda: [0.0, 0]))
    win_exposure: dict[tuple[str, str], dict[str, int]] = field(default_factory=lambda: defaultdict(lambda: defaultdict(int)))
    role_seats: dict[str, dict[str, int]] = field(default_factory=lambda: defaultdict(lambda: defaultdict(int)))
    seat_seats: dict[str, dict[int, int]] = field(default_factory=lambda: defaultdict(lambda: defaultdict(int)))
    deck_seats: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    first_speaker: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    headers: list[dict[str, Any]] = field(default_factory=list)
    #: one shared tuple per distinct (roster name, spec, version, settings) seen in a header
    roster_keys: dict[tuple[Any, ...], tuple[Any, ...]] = field(default_factory=dict)

    #: the cluster of the game being scored: one per (board, seed), so mirrored games form one unit
    cluster: int = 0
    cluster_ids: dict[tuple[str, Any], int] = field(default_factory=dict)

    def start_game(self, board: str, seed: Any, game_id: str) -> None:
        key = (board, seed) if isinstance(seed, int) else (board, "game:" + game_id)
        self.cluster = self.cluster_ids.setdefault(key, len(self.cluster_ids))

    def rate(self, metric: str, agent: str, hit: float, chance: float | None = None, group: str = ALL,
             by_day: str | None = None) -> None:
        self.rates[(metric, agent, group)].add(hit, chance, self.cluster)
        if by_day is not None:
            self.rates[(metric, agent, by_day)].add(hit, chance, self.cluster)

    def mean(self, metric: str, agent: str, x: float, chance: float | None = None, group: str = ALL) -> None:
        self.means[(metric, agent, group)].add(x, chance, self.cluster)


def _roster_keys(acc: Accumulator, agents: list[dict[str, Any]]) -> tuple[tuple[Any, ...], ...]:
    """A header's seats as ``(name, spec, version, settings as canonical JSON)``, one shared
    tuple per distinct seat setup (ten thousand games hold a handful)."""
    keys = []
    for a in agents:
        settings = a.get("settings")
        key = (a.get("label") or a["spec"], a["spec"], a.get("version"),
               json.dumps(settings, sort_keys=True, ensure_ascii=False) if settings else None)
        keys.append(acc.roster_keys.setdefault(key, key))
    return tuple(keys)


def _day(phase: str) -> int:
    try:
        return int(phase[1:])
    except (ValueError, IndexError):
        return 0


def _seat_map(d: dict[Any, Any] | None) -> dict[int, Any]:
    """JSON object keys are strings; seats are ints."""
    if not d:
        return {}
    return {int(k): v for k, v in d.items()}


def _intended(beliefs: dict[int, float], candidates: Iterable[int]) -> int | None:
    """The seat a report's beliefs point at: highest wolf probability, lowest seat on ties."""
    best, best_p = None, -1.0
    for seat in sorted(candidates):
        p = beliefs.get(seat)
        if p is not None and p > best_p:
            best, best_p = seat, p
    return best


@dataclass
class _Report:
    """One belief report: a seat's private wolf probabilities at one decision."""

    pos: int
    seat: int
    day: int
    night: bool
    kind: str
    beliefs: dict[int, float]
    alive: frozenset[int]
    intended: int | None


def score_game(game: RawGame, acc: Accumulator) -> None:
    """Fold one transcript into the accumulator."""
    avail = acc.avail
    result = game.result
    if result is None:
        avail.incomplete += 1
        return
    if result.get("abandoned"):
        avail.abandoned += 1
        return
    header = game.header
    roles = {int(k): str(v) for k, v in result["roles"].items()}
    seats = sorted(roles)
    n_players = len(seats)
    agent_of = {a["seat"]: (a.get("label") or a["spec"]) for a in header["agents"]}
    wolf = {s: is_wolf_card(r) for s, r in roles.items()}
    wolves = {s for s in seats if wolf[s]}
    good = {s for s in seats if not wolf[s]}
    gods = {s for s in good if roles[s] != "villager"}
    board = header["preset"]
    winner = str(result["winner"])
    good_won = {"village": 1.0, "wolves": 0.0, "draw": 0.5}.get(winner)
    deck_count: dict[str, int] = defaultdict(int)
    for r in roles.values():
        deck_count[r] += 1

    avail.games += 1
    # Only what the config card needs: ten thousand full switch tables would just weigh on memory.
    acc.headers.append({
        "preset": board, "rules": header.get("rules") or {}, "seed": header.get("seed"),
        "switches_key": hash(tuple(sorted((k, repr(v)) for k, v in (header.get("switches") or {}).items()))),
        "agents": _roster_keys(acc, header["agents"]), "lang": header.get("lang", "en"),
        "package_version": header.get("package_version", "?"), "fork": header.get("fork"),
    })
    record = GameRecord(
        game_id=header["game_id"], board=board, winner=winner, seed=header.get("seed"),
        seats=tuple(SeatRecord(seat=s, agent=agent_of.get(s, "?"), role=roles[s],
                               side="wolf" if wolf[s] else "good") for s in seats),
    )
    acc.records.append(record)
    acc.start_game(board, header.get("seed"), header["game_id"])

    # ---- outcomes and balance -----------------------------------------------------------------
    agents_in_game = {agent_of.get(s, "?") for s in seats}
    for s in seats:
        a = agent_of.get(s, "?")
        acc.role_seats[a][roles[s]] += 1
        acc.seat_seats[a][s] += 1
        acc.deck_seats[roles[s]] += 1
    if good_won is not None:
        bo = acc.board_outcomes[board]
        bo[0] += good_won
        bo[1] += 1
        units: set[tuple[str, str]] = set()  # one trial per (agent, side) and (agent, role) per game
        for s in seats:
            a = agent_of.get(s, "?")
            side = "wolf" if wolf[s] else "good"
            units.add((a, f"side:{side}"))
            units.add((a, f"role:{roles[s]}"))
        for a, group in sorted(units):
            won = good_won if (group == "side:good" or (group.startswith("role:") and not is_wolf_card(group[5:]))) \
                else 1.0 - good_won
            acc.rate("win_rate", a, won, group=group)
            acc.win_exposure[(a, group)][board] += 1
        if len(agents_in_game) == 1:
            avail.self_play_games += 1
            (only_agent,) = agents_in_game
            acc.rate("self_play_balance", only_agent, good_won, 0.5, group=board)

    # ---- one pass over the log ----------------------------------------------------------------
    alive = set(seats)
    sheriff: int | None = None
    vote_opts: dict[int, list[int]] = {}
    last_legal: dict[tuple[int, str], list[int]] = {}
    reports: list[_Report] = []
    last_report: dict[int, _Report] = {}
    speeches: list[tuple[int, int, int, str]] = []  # (pos, seat, day, kind) of the PERSUASION_SPEECHES
    ballots_round: list[tuple[int, int | None, float]] = []
    last_round: list[tuple[int, int | None, float]] = []
    first_exile_round: dict[int, list[tuple[int, int | None]]] = {}
    exiles: list[tuple[int, int, int]] = []  # (day, seat, living players at the vote)
    exile_days: dict[int, int] = {}
    claims_log: list[tuple[int, int, int, list[str], list[tuple[int, str]]]] = []  # (pos, seat, day, roles, checks)
    sheriff_speech_pos: dict[int, int] = {}
    sheriff_of_day: dict[int, int] = {}
    knife: dict[int, int | None] = {}
    guard_of: dict[int, tuple[int, int | None, list[int]]] = {}  # night -> (guard, target, legal targets)
    save_of: dict[int, tuple[int, int]] = {}
    wolf_deaths: set[tuple[int, int]] = set()  # (night, seat) killed with a wolf cause
    seer_claimed: set[int] = set()
    seer_truth: dict[int, dict[int, str]] = defaultdict(dict)
    usage_tokens: dict[int, float] = defaultdict(float)
    usage_cost: dict[int, float] = defaultdict(float)
    seat_has_usage: set[int] = set()
    seat_has_cost: set[int] = set()
    first_discussion_done: set[int] = set()
    plain_decisions = game.plain_decisions  # valid, nothing private recorded (see load.load_game)
    n_decisions = 0

    for pos, line in enumerate(game.lines):
        if line["type"] == "decision":
            s = line["seat"]
            a = agent_of.get(s, "?")
            kind = line["kind"]
            n_decisions += 1
            attempts = line.get("attempts") or []
            invalid = bool(line.get("refused")) or any(at.get("error") for at in attempts if isinstance(at, dict))
            acc.rate("invalid_answers", a, 1.0 if invalid else 0.0, 0.0)
            acc.rate("fallback_rate", a, 1.0 if (line.get("defaulted") or line.get("refused")) else 0.0, 0.0)
            legal = line.get("legal") or {}
            options = list(legal.get("options") or []) if legal.get("type") == "seat" else []
            if options:
                last_legal[(s, kind)] = options
                if kind in ("vote", "pk_vote"):
                    vote_opts[s] = options
            usage = line.get("usage")
            if usage:
                tokens = _tokens(usage)
                if tokens is not None:
                    avail.decisions_with_usage += 1
                    acc.mean("tokens_per_decision", a, tokens)
                    usage_tokens[s] += tokens
                    seat_has_usage.add(s)
                cost = _cost(usage)
                if cost is not None:
                    avail.decisions_with_cost += 1
                    usage_cost[s] += cost
                    seat_has_cost.add(s)
            latency = line.get("latency_ms")
            if latency is not None:
                avail.decisions_with_latency += 1
                acc.mean("latency_ms", a, float(latency))
            reasoning = line.get("reasoning")
            value = line.get("value")
            if reasoning and options and isinstance(value, int) and not isinstance(value, bool):
                named = mentioned_seats(reasoning, n_players) & set(options)
                if named:
                    avail.decisions_with_reasoning += 1
                    acc.rate("reasoning_consistency", a, 1.0 if value in named else 0.0, len(named) / len(options))
            beliefs = line.get("beliefs")
            if beliefs:
                b = {int(k): float(v) for k, v in beliefs.items()}
                avail.belief_reports += 1
                if kind in SPEECH_DECISIONS:
                    avail.belief_reports_at_speech += 1
                explicit = line.get("intended_vote")
                phase = line.get("asked_in") or line.get("phase") or "D0"
                others = [x for x in alive if x != s]
                rep = _Report(pos, s, _day(phase), phase.startswith("N"), kind, b, frozenset(alive),
                              explicit if isinstance(explicit, int) else _intended(b, others))
                reports.append(rep)
                last_report[s] = rep
            continue

        ev = line["event"]
        t = ev["type"]
        phase = ev.get("phase", "")
        if t == "ballot_cast":
            ballot = ev["ballot"]
            voter, target = ev["voter"], ev.get("target")
            if ballot in ("exile", "pk"):
                ballots_round.append((voter, target, float(ev.get("weight", 1))))
                day = _day(phase)
                if ballot == "exile":
                    first_exile_round.setdefault(day, []).append((voter, target))
                    if day not in sheriff_of_day and sheriff is not None:
                        sheriff_of_day[day] = sheriff  # the badge holder when the day's vote opens
                if not wolf.get(voter, False):
                    a = agent_of.get(voter, "?")
                    opts = vote_opts.get(voter) or [x for x in alive if x != voter]
                    acc.rate("vote_abstention", a, 1.0 if target is None else 0.0, 1.0 / (len(opts) + 1))
                    if target is not None:
                        n_w = sum(1 for x in opts if wolf.get(x, False))
                        acc.rate("vote_accuracy", a, 1.0 if wolf.get(target, False) else 0.0, n_w / len(opts),
                                 by_day=f"D{day}")
                        rep = last_report.get(voter)
                        if rep is not None and rep.day == day and not rep.night:
                            intended = _intended(rep.beliefs, opts)
                            if intended is not None:
                                acc.rate("belief_vote_gap", a, 1.0 if target != intended else 0.0,
                                         1.0 - 1.0 / len(opts))
        elif t == "vote_result":
            if ev["ballot"] in ("exile", "pk"):
                last_round, ballots_round = ballots_round, []
        elif t == "exile_result":
            target = ev.get("seat")
            day = _day(phase)
            if target is not None and ev.get("reason") != "idiot_revealed":
                n_alive = len(alive)
                exiles.append((day, target, n_alive))
                exile_days[day] = exile_days.get(day, 0) + 1
                for w in sorted(wolves & alive):
                    acc.rate("exile_avoidance", agent_of.get(w, "?"), 0.0 if w == target else 1.0, 1.0 - 1.0 / n_alive)
                if not wolf.get(target, False) and last_round:
                    _steering(acc, last_round, target, wolf, agent_of)
            last_round = []  # a later exile (another day) must not be judged on these ballots
        elif t == "player_died":
            seat = ev["seat"]
            alive.discard(seat)
            if phase.startswith("N") and "wolf" in (ev.get("causes") or [ev.get("cause")]):
                wolf_deaths.add((_day(phase), seat))
        elif t == "speech":
            s = ev["seat"]
            kind = ev.get("kind", "")
            text = ev.get("text") or ""
            day = _day(phase)
            if text.strip() and text.strip().lower() != "pass":
                avail.speeches_with_text += 1
            c = parse_claims(text, n_players) if len(text) > 6 else None  # "pass", "过。": nothing to read
            if c is not None and not c.empty:
                checks = c.checks_given(s in seer_claimed)
                if "seer" in c.roles:
                    seer_claimed.add(s)
                if c.roles or checks:
                    avail.speeches_with_claims += 1
                    claims_log.append((pos, s, day, c.roles, checks))
            if kind in PERSUASION_SPEECHES:
                speeches.append((pos, s, day, kind))
                if sheriff is not None and s == sheriff and kind == "discussion":
                    sheriff_speech_pos[day] = pos  # the summing-up (the sheriff speaks last)
        elif t == "speech_order":
            if ev.get("context") in ("sheriff", "last_death", "seat_one"):  # the day's discussion order
                day = _day(phase)
                order = ev.get("order") or []
                if order and day not in first_discussion_done:
                    first_discussion_done.add(day)
                    acc.first_speaker[agent_of.get(order[0], "?")] += 1
        elif t == "sheriff_elected":
            sheriff = ev.get("seat")
        elif t == "badge_moved":
            sheriff = ev.get("to_seat")
        elif t == "seer_result":
            s, target = ev["seat"], ev["target"]
            seer_truth[s][target] = ev.get("result", "")
            opts = last_legal.get((s, "seer_check")) or [x for x in alive if x != s]
            n_w = sum(1 for x in opts if wolf.get(x, False))
            acc.rate("seer_wolf_hit", agent_of.get(s, "?"), 1.0 if wolf.get(target, False) else 0.0,
                     n_w / len(opts) if opts else None)
        elif t == "wolf_knife_vote":
            target = ev.get("target")
            if target is not None:
                living_good = [x for x in alive if not wolf.get(x, False)]
                n_g = sum(1 for x in living_good if x in gods)
                acc.rate("knife_on_gods", agent_of.get(ev["seat"], "?"), 1.0 if target in gods else 0.0,
                         n_g / len(living_good) if living_good else None)
        elif t == "wolf_knife":
            knife[_day(phase)] = ev.get("target")
        elif t == "guard_protected":
            g = ev["seat"]
            guard_of[_day(phase)] = (g, ev.get("target"), last_legal.get((g, "guard")) or seats)
        elif t == "witch_saved":
            save_of[_day(phase)] = (ev["seat"], ev["target"])
        elif t == "witch_poisoned":
            s, target = ev["seat"], ev["target"]
            others = [x for x in alive if x != s]
            n_w = sum(1 for x in others if wolf.get(x, False))
            acc.rate("witch_poison_accuracy", agent_of.get(s, "?"), 1.0 if wolf.get(target, False) else 0.0,
                     n_w / len(others) if others else None)
        elif t == "hunter_shot":
            s, target = ev["seat"], ev["target"]
            others = [x for x in alive if x != s]
            n_w = sum(1 for x in others if wolf.get(x, False))
            acc.rate("hunter_shot_accuracy", agent_of.get(s, "?"), 1.0 if wolf.get(target, False) else 0.0,
                     n_w / len(others) if others else None)

    # Valid, plain decisions in bulk: one accumulator update per seat instead of one per line.
    for s, count in plain_decisions.items():
        a = agent_of.get(s, "?")
        for metric in ("invalid_answers", "fallback_rate"):
            acc.rates[(metric, a, ALL)].add_misses(count, 0.0, acc.cluster)
    avail.decisions += n_decisions + sum(plain_decisions.values())

    # ---- night outcomes ------------------------------------------------------------------------
    for night, (g_seat, g_target, opts) in sorted(guard_of.items()):
        k_target = knife.get(night)
        if k_target is None:
            continue
        saved = save_of.get(night)
        blocked = g_target == k_target and not (saved and saved[1] == k_target) and (night, k_target) not in wolf_deaths
        acc.rate("guard_success", agent_of.get(g_seat, "?"), 1.0 if blocked else 0.0,
                 (1.0 / len(opts)) if k_target in opts else 0.0)
    for night, (w_seat, w_target) in sorted(save_of.items()):
        good_kept = (not wolf.get(w_target, False)) and (night, w_target) not in wolf_deaths
        acc.rate("witch_save_precision", agent_of.get(w_seat, "?"), 1.0 if good_kept else 0.0)
        guard = guard_of.get(night)
        if guard is not None:
            g_opts = guard[2]
            accident = 1.0 if guard[1] == w_target else 0.0
            chance = 1.0 / len(g_opts) if w_target in g_opts else 0.0
            acc.rate("same_guard_save", agent_of.get(w_seat, "?"), accident, chance, group="as witch")
            acc.rate("same_guard_save", agent_of.get(guard[0], "?"), accident, chance, group="as guard")

    # ---- usage per seat-game -------------------------------------------------------------------
    for s in sorted(seat_has_usage):
        acc.mean("tokens_per_game", agent_of.get(s, "?"), usage_tokens[s])
    for s in sorted(seat_has_cost):
        acc.mean("cost_per_game", agent_of.get(s, "?"), usage_cost[s])

    # ---- claims --------------------------------------------------------------------------------
    exiled_by_day: dict[int, set[int]] = defaultdict(set)
    alive_at_exile: dict[int, int] = {}
    for day, seat, n_alive in exiles:
        exiled_by_day[day].add(seat)
        alive_at_exile[day] = n_alive
    said: set[tuple[int, Any, str]] = set()  # speeches repeat claims: each counts once per game
    for pos, s, day, claimed_roles, all_checks in claims_log:
        a = agent_of.get(s, "?")
        side = "wolf" if wolf[s] else "good"
        new_roles = [r for r in claimed_roles if (s, r, "role") not in said]
        checks = [(t, c) for t, c in all_checks if (s, t, c) not in said]
        said.update((s, r, "role") for r in new_roles)
        said.update((s, t, c) for t, c in checks)
        for role in new_roles:
            true = 1.0 if role == roles[s] else 0.0
            chance = deck_count.get(role, 0) / n_players
            acc.rate("claim_truth", a, true, chance, group=f"side:{side}")
            if side == "good":
                acc.rate("good_false_statements", a, 1.0 - true, 1.0 - chance)
        for target, claimed in checks:
            if target == s:
                continue
            actual = "wolf" if wolf.get(target, False) else "good"
            # A check claim is true only from the real seer whose own result agrees (or, without a
            # recorded result, whose claim matches the truth).
            seer_said = seer_truth.get(s, {}).get(target)
            if roles[s] == "seer" and seer_said is not None:
                true = 1.0 if _result_side(seer_said) == claimed else 0.0
            else:
                true = 1.0 if roles[s] == "seer" and claimed == actual else 0.0
            others = [x for x in seats if x != s]
            chance = sum(1 for x in others if ("wolf" if wolf[x] else "good") == claimed) / len(others)
            acc.rate("claim_truth", a, true, chance, group=f"side:{side}")
            if side == "good":
                acc.rate("good_false_statements", a, 1.0 - true, 1.0 - chance)
            if side == "wolf" and claimed == "wolf" and actual == "good":
                window = exiled_by_day.get(day, set()) | exiled_by_day.get(day + 1, set())
                n_ex = sum(1 for d in (day, day + 1) if d in exiled_by_day)
                n_alive = alive_at_exile.get(day) or alive_at_exile.get(day + 1) or n_players
                acc.rate("false_check_exiled", a, 1.0 if target in window else 0.0, min(1.0, n_ex / n_alive))

    # ---- beliefs: deduction, disguise, persuasion ----------------------------------------------
    if reports:
        _belief_metrics(acc, reports, claims_log, speeches, sheriff_speech_pos, sheriff_of_day,
                        first_exile_round, vote_opts, wolf, agent_of)
    # Sheriff's pull without beliefs: how many ballots follow the sheriff's first-round vote.
    for day, ballots in sorted(first_exile_round.items()):
        sh = sheriff_of_day.get(day)
        if sh is None:
            continue
        sheriff_vote = next((t for v, t in ballots if v == sh), None)
        if sheriff_vote is None:
            continue
        avail.sheriff_days += 1
        for voter, target in ballots:
            if voter == sh or target is None:  # an abstention neither follows nor defies
                continue
            opts = vote_opts.get(voter) or seats
            if sheriff_vote not in opts:
                continue
            acc.rate("sheriff_follow", agent_of.get(sh, "?"), 1.0 if target == sheriff_vote else 0.0, 1.0 / len(opts))


def _result_side(result: str) -> str:
    if result in ("wolf", "good"):
        return result
    return "wolf" if is_wolf_card(result) else "good"  # seer_result=exact_role


def _tokens(usage: dict[str, Any]) -> float | None:
    if isinstance(usage.get("total_tokens"), (int, float)):
        return float(usage["total_tokens"])
    # The agents layer writes input/output; provider-native names are accepted too.
    parts = [usage.get(k) for k in ("input", "output", "input_tokens", "output_tokens", "prompt_tokens",
                                    "completion_tokens")]
    nums = [float(p) for p in parts if isinstance(p, (int, float))]
    return sum(nums) if nums else None


def _cost(usage: dict[str, Any]) -> float | None:
    for key in ("cost", "cost_usd"):
        if isinstance(usage.get(key), (int, float)):
            return float(usage[key])
    return None


def _steering(acc: Accumulator, ballots: list[tuple[int, int | None, float]], exiled: int,
              wolf: dict[int, bool], agent_of: dict[int, str]) -> None:
    """Was a good seat's exile decided by wolf ballots? Recount without them."""
    halves: dict[int, int] = defaultdict(int)
    for voter, target, weight in ballots:
        if target is not None and not wolf.get(voter, False):
            halves[target] += round(weight * 2)
    best = max(halves.values()) if halves else 0
    still_top = halves.get(exiled, 0) == best and best > 0 and sum(1 for h in halves.values() if h == best) == 1
    steered = not still_top
    for voter, target, _ in ballots:
        if wolf.get(voter, False):
            acc.rate("wolf_steered_exile", agent_of.get(voter, "?"), 1.0 if (steered and target == exiled) else 0.0)


def _belief_metrics(acc: Accumulator, reports: list[_Report], claims_log: list, speeches: list,
                    sheriff_speech_pos: dict[int, int], sheriff_of_day: dict[int, int],
                    first_exile_round: dict[int, list[tuple[int, int | None]]], vote_opts: dict[int, list[int]],
                    wolf: dict[int, bool], agent_of: dict[int, str]) -> None:
    good_reports = [r for r in reports if not wolf.get(r.seat, False)]
    # Deduction and disguise use each good seat's last report of each day (or night), so a seat
    # asked ten times a day does not weigh ten times more than one asked once.
    last_of: dict[tuple[int, int, bool], _Report] = {}
    for r in good_reports:
        last_of[(r.seat, r.day, r.night)] = r
    for (seat, day, night), r in sorted(last_of.items()):
        a = agent_of.get(seat, "?")
        rated = [x for x in sorted(r.beliefs) if x != seat and x in r.alive]
        if not rated:
            continue
        labels = [wolf.get(x, False) for x in rated]
        n_w = sum(labels)
        base = n_w / len(rated)
        group = f"{'N' if night else 'D'}{day}"
        auc_all = acc.aucs[("belief_auroc", a, ALL)]
        auc_day = acc.aucs[("belief_auroc", a, group)]
        for x, lab in zip(rated, labels):
            p = min(1.0, max(0.0, r.beliefs[x]))
            for auc in (auc_all, auc_day):
                auc.scores.append(p)
                auc.labels.append(lab)
                auc.clusters.append(acc.cluster)
            acc.mean("belief_brier", a, (p - (1.0 if lab else 0.0)) ** 2, base * (1 - base))
            acc.mean("belief_brier", a, (p - (1.0 if lab else 0.0)) ** 2, base * (1 - base), group=group)
            if lab:
                acc.mean("disguise", agent_of.get(x, "?"), base - p, 0.0)

    # Persuasion: a listener's intended vote just before and just after each speech.
    by_seat: dict[int, list[_Report]] = defaultdict(list)
    for r in good_reports:
        if not r.night:
            by_seat[r.seat].append(r)
    speech_pos = [p for p, _, _, _ in speeches]
    for pos, speaker, day, _ in speeches:
        target = _speaker_target(reports, speaker, pos, day, first_exile_round)
        if target is None:
            continue
        swing, listeners = 0.0, 0
        for listener, rs in by_seat.items():
            if listener == speaker:
                continue
            before = next((r for r in reversed(rs) if r.pos < pos and r.day == day), None)
            after = next((r for r in rs if r.pos > pos and r.day == day), None)
            if before is None or after is None:
                continue
            listeners += 1
            if before.intended == after.intended:
                continue
            # Credit is shared among every speech between the two reports.
            between = sum(1 for p in speech_pos if before.pos < p < after.pos) or 1
            if after.intended == target:
                swing += 1.0 / between
            elif before.intended == target:
                swing -= 1.0 / between
        if listeners:
            side = "wolf" if wolf.get(speaker, False) else "good"
            acc.mean("speech_swing", agent_of.get(speaker, "?"), swing / listeners, 0.0)
            acc.mean("speech_swing", agent_of.get(speaker, "?"), swing / listeners, 0.0, group=f"side:{side}")

    # Sheriff's pull beyond prior intent.
    for day, pos in sorted(sheriff_speech_pos.items()):
        sh = sheriff_of_day.get(day)
        if sh is None:
            continue
        ballots = first_exile_round.get(day, [])
        sheriff_vote = next((t for v, t in ballots if v == sh), None)
        if sheriff_vote is None:
            continue
        for voter, target in ballots:
            if voter == sh or target is None or wolf.get(voter, False):
                continue
            prior = next((r for r in reversed(by_seat.get(voter, [])) if r.pos < pos and r.day == day), None)
            if prior is None or prior.intended is None or prior.intended == sheriff_vote:
                continue
            opts = vote_opts.get(voter) or sorted(prior.alive)
            k = len([x for x in opts if x != prior.intended])
            acc.rate("sheriff_pull", agent_of.get(sh, "?"), 1.0 if target == sheriff_vote else 0.0,
                     1.0 / k if k else None)

    # A wolf's god-role claim: do good seats' beliefs in it drop from before to after the claim?
    for pos, s, day, claimed_roles, _ in claims_log:
        if not wolf.get(s, False) or not any(r in ("seer", "witch", "hunter", "guard", "idiot") for r in claimed_roles):
            continue
        deltas = []
        for listener, rs in by_seat.items():
            before = next((r for r in reversed(rs) if r.pos < pos and s in r.beliefs), None)
            after = next((r for r in rs if r.pos > pos and s in r.beliefs), None)
            if before is not None and after is not None:
                deltas.append(after.beliefs[s] - before.beliefs[s])
        if deltas:
            acc.rate("false_claim_believed", agent_of.get(s, "?"), 1.0 if sum(deltas) / len(deltas) < 0 else 0.0, 0.5)


def _speaker_target(reports: list[_Report], speaker: int, pos: int, day: int,
                    first_exile_round: dict[int, list[tuple[int, int | None]]]) -> int | None:
    """The seat a speech argues against: the speaker's intent at its speech, else its ballot that day."""
    for r in reversed(reports):
        if r.seat == speaker and r.pos < pos and r.day == day and not r.night:
            if r.intended is not None:
                return r.intended
            break
    return next((t for v, t in first_exile_round.get(day, []) if v == speaker), None)


# --- finishing ---------------------------------------------------------------------------------


def _rate_row(agent: str, group: str, r: _Rate, correct: bool) -> MetricRow:
    n = r.n
    value = r.k / n if n else None
    games = r.games
    if n:
        y, cn = r.totals()
        low, high = clustered_rate_interval(y, cn)
    else:
        low = high = None
    chance = r.chance / r.chance_n if r.chance_n else None
    row = MetricRow(agent=agent, group=group, value=value, low=low, high=high, n=n, games=games,
                    below_floor=games < MIN_GAMES, chance=chance)
    if n and chance is not None and value is not None and 0.0 < chance < 1.0:
        y, cn = r.totals()
        v_c = cluster_ratio_variance(y, cn)
        deff = max(1.0, v_c / (value * (1 - value) / n)) if 0 < value < 1 and math.isfinite(v_c) else n / max(games, 1)
        se0 = math.sqrt(chance * (1 - chance) / n * deff)
        row.p_chance = _two_sided_p((value - chance) / se0, games)
    if correct and chance is not None and value is not None and chance < 1.0:
        row.corrected = chance_corrected(value, chance)
        row.corrected_low = chance_corrected(low, chance) if low is not None else None
        row.corrected_high = chance_corrected(high, chance) if high is not None else None
    return row


def _mean_row(agent: str, group: str, m: _Mean) -> MetricRow:
    n = m.n
    mean = m.s / n if n else None
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


def finish_metrics(acc: Accumulator) -> list[MetricResult]:
    rows: dict[str, list[MetricRow]] = defaultdict(list)
    for (mid, agent, group), r in acc.rates.items():
        rows[mid].append(_rate_row(agent, group, r, CATALOGUE_BY_ID[mid].chance_corrected))
    for (mid, agent, group), m in acc.means.items():
        rows[mid].append(_mean_row(agent, group, m))
    for (mid, agent, group), a in acc.aucs.items():
        rows[mid].append(_auc_row(agent, group, a))
    # win_rate's chance: the board's side rate over all games, weighted by this row's exposure.
    board_rate = {b: (o[0] / o[1] if o[1] else 0.5) for b, o in acc.board_outcomes.items()}
    for row in rows.get("win_rate", []):
        exposure = acc.win_exposure.get((row.agent, row.group), {})
        total = sum(exposure.values())
        if total:
            is_good = row.group == "side:good" or (row.group.startswith("role:") and not is_wolf_card(row.group[5:]))
            row.chance = sum(n * (board_rate[b] if is_good else 1 - board_rate[b]) for b, n in exposure.items()) / total
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
