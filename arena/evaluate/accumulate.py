"""The evaluator's accumulators: what one pass over transcripts keeps for the metrics and ratings.

Rates and means keep, beside their totals, per-game sums, so that every interval can treat the game
(or, for mirrored games, the deal) as the unit (arena/evaluate/stats.py).
"""

from __future__ import annotations

import json
from array import array
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Iterator

from pydantic import BaseModel, ConfigDict

from arena.evaluate.records import GameRecord, SeatRecord
from arena.evaluate.stats import cluster_totals

ALL = "all"


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


@dataclass
class Counts:
    """Availability's counters while scoring, with the same fields (tests/test_eval_metrics.py holds them
    equal): a pydantic model's __setattr__ is too slow to bump once per transcript line."""

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


class _Clustered:
    """Observations (a hit of 0/1 for a rate, any value for a mean) with their total, count and chance
    baseline, and per-cluster (game, or deal for mirrored games) sums beside them, so an interval can
    treat the game as the unit. Consecutive observations of one game share one entry."""

    __slots__ = ("total", "n", "chance", "chance_n", "gc", "gy", "gn", "last")

    def __init__(self) -> None:
        self.total = 0.0
        self.n = 0
        self.chance = 0.0
        self.chance_n = 0
        # typed arrays, not lists: 16 bytes an entry instead of about 80 with the boxed numbers, and
        # there is an entry per metric row per game
        self.gc = array("i")
        self.gy = array("d")
        self.gn = array("i")
        self.last = -1

    def add(self, y: float, chance: float | None = None, cluster: int = 0) -> None:
        self.total += y
        self.n += 1
        self._note(y, 1, cluster)
        if chance is not None:
            self.chance += chance
            self.chance_n += 1

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
    """Hits out of trials (``total`` hits of ``n``)."""

    __slots__ = ()

    def add_misses(self, count: int, chance: float, cluster: int) -> None:
        """``count`` trials of one game that all missed, each with the same chance."""
        self.n += count
        self.chance += chance * count
        self.chance_n += count
        self._note(0.0, count, cluster)


class _Mean(_Clustered):
    """A mean of values (``total`` over ``n``)."""

    __slots__ = ()


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
    #: what the config card needs of the headers: distinct header summary -> [its rules, games], in
    #: the order first seen, and every integer seed (arena.evaluate.report._config_card)
    headers: dict[tuple[Any, ...], list[Any]] = field(default_factory=dict)
    seeds: set[int] = field(default_factory=set)
    #: one shared SeatRecord per (seat, agent, role), and one string per board and winner
    seat_records: dict[tuple[int, str, str], SeatRecord] = field(default_factory=dict)
    strings: dict[str, str] = field(default_factory=dict)
    #: one shared tuple per distinct (roster name, spec, version, settings) seen in a header
    roster_keys: dict[tuple[Any, ...], tuple[Any, ...]] = field(default_factory=dict)

    #: the cluster of the game being scored: one per (board, seed), so mirrored games form one unit
    cluster: int = 0
    cluster_ids: dict[tuple[str, Any], int] = field(default_factory=dict)
    #: the transcripts (paths, else game ids) of every cluster, so a report row can link to its
    #: games: one name per game, and per cluster a chain through them (its first game, each game's
    #: next), not a list per cluster
    game_names: list[str] = field(default_factory=list)
    cluster_first: array = field(default_factory=lambda: array("i"))
    cluster_last: array = field(default_factory=lambda: array("i"))
    game_next: array = field(default_factory=lambda: array("i"))

    def start_game(self, board: str, seed: Any, game_id: str, path: str | None = None) -> None:
        key = (board, seed) if isinstance(seed, int) else (board, "game:" + game_id)
        self.cluster = cluster = self.cluster_ids.setdefault(key, len(self.cluster_ids))
        game = len(self.game_names)
        self.game_names.append(path or game_id)
        self.game_next.append(-1)
        if cluster == len(self.cluster_first):
            self.cluster_first.append(game)
            self.cluster_last.append(game)
        else:
            self.game_next[self.cluster_last[cluster]] = game
            self.cluster_last[cluster] = game

    def cluster_games(self, cluster: int) -> Iterator[str]:
        """The transcripts of one cluster, in the order they were read."""
        game = self.cluster_first[cluster] if 0 <= cluster < len(self.cluster_first) else -1
        while game >= 0:
            yield self.game_names[game]
            game = self.game_next[game]

    def intern(self, text: str) -> str:
        return self.strings.setdefault(text, text)

    def rate(self, metric: str, agent: str, hit: float, chance: float | None = None, group: str = ALL,
             by_day: str | None = None) -> None:
        self.rates[(metric, agent, group)].add(hit, chance, self.cluster)
        if by_day is not None:
            self.rates[(metric, agent, by_day)].add(hit, chance, self.cluster)

    def mean(self, metric: str, agent: str, x: float, chance: float | None = None, group: str = ALL) -> None:
        self.means[(metric, agent, group)].add(x, chance, self.cluster)


def roster_keys(acc: Accumulator, agents: list[dict[str, Any]]) -> tuple[tuple[Any, ...], ...]:
    """A header's seats as ``(name, spec, version, settings as canonical JSON)``, one shared
    tuple per distinct seat setup (ten thousand games hold a handful)."""
    keys = []
    for a in agents:
        settings = a.get("settings")
        key = (a.get("label") or a["spec"], a["spec"], a.get("version"),
               json.dumps(settings, sort_keys=True, ensure_ascii=False) if settings else None)
        keys.append(acc.roster_keys.setdefault(key, key))
    return tuple(keys)


def note_header(acc: Accumulator, header: dict[str, Any], agents: tuple[tuple[Any, ...], ...]) -> None:
    """Count a header under its summary (board, rules, switch set, seats, language, version, fork?)."""
    rules = header.get("rules") or {}
    switches = header.get("switches") or {}
    key = (header["preset"], json.dumps(rules, sort_keys=True, default=repr) if rules else "",
           hash(tuple(sorted((k, repr(v)) for k, v in switches.items()))), agents, header.get("lang", "en"),
           header.get("package_version", "?"), bool(header.get("fork")))
    entry = acc.headers.get(key)
    if entry is None:
        entry = acc.headers[key] = [rules, 0]
    entry[1] += 1
    seed = header.get("seed")
    if isinstance(seed, int):
        acc.seeds.add(seed)
