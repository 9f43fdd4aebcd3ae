"""Counterfactual pairs: every fork (a transcript whose header has ``fork: {parent, at_decision}``,
written by ``arena fork``) set beside its parent.

A fork replays its parent's answers up to decision ``at_decision`` and plays on from there, usually
with some seats given to other agents. For each (parent, fork) pair the report gives both outcomes,
the seats whose agent changed (with their card and side), and each side's change of result, fork
minus parent: +1 a loss turned into a win, -1 a win thrown away, ±0.5 with a draw. The effects table
groups pairs by swap (side, parent's agent -> fork's agent) and averages that side's change, so "what
if seat 5 had been model B from day 2" becomes a paired estimate over many forks. Pairs that changed
no agent (re-seeded agents only) measure how much a game's ending varies by chance alone from the
same fork points: the noise floor for the effects.

A fork shares its prefix with its parent (and with its sibling forks), so it is not an independent
game: ``arena score`` keeps forks out of the ratings, win rates and metrics unless asked to count
them (``--include-forks``), and reports them here only.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Iterable, Literal

from pydantic import BaseModel, ConfigDict, Field

from arena.evaluate.load import RawGame
from arena.evaluate.records import GameRecord
from arena.evaluate.stats import Z95

Side = Literal["village", "wolves"]


class ForkSeat(BaseModel):
    """A seat whose agent the fork changed."""

    model_config = ConfigDict(extra="forbid")

    seat: int
    role: str
    side: Side
    parent_agent: str
    fork_agent: str


class ForkPair(BaseModel):
    model_config = ConfigDict(extra="forbid")

    parent: str
    fork: str
    at_decision: int
    parent_winner: str
    fork_winner: str
    outcome_changed: bool
    village_change: float | None = Field(description="village result in the fork minus in the parent (1 win, 0.5 "
                                                      "draw, 0 loss); None when either winner is another camp")
    swapped: list[ForkSeat]
    parent_path: str
    fork_path: str


class SwapEffect(BaseModel):
    """Pairs that handed seats of one side from one agent to another: that side's mean change of result."""

    model_config = ConfigDict(extra="forbid")

    side: Side
    parent_agent: str
    fork_agent: str
    pairs: int
    mean_change: float
    low: float | None = Field(None, description="95% normal interval of the mean (None for one pair)")
    high: float | None = None
    turned_to_win: int = Field(description="pairs where the side lost in the parent and won in the fork")
    turned_to_loss: int


class UnpairedFork(BaseModel):
    model_config = ConfigDict(extra="forbid")

    fork: str
    parent: str
    reason: str


class ForkReport(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pairs: list[ForkPair]
    effects: list[SwapEffect]
    unchanged_agents: int = Field(description="pairs that changed no agent (another agent seed only)")
    unchanged_agents_outcome_changed: int = Field(description="of those, pairs whose winner differs")
    unpaired: list[UnpairedFork]


@dataclass
class ForkCollector:
    """Notes, while transcripts are read, what pairing needs beyond the rating records: every game's
    path and state, and the fork origin of every fork (finished or not)."""

    paths: dict[str, str] = field(default_factory=dict)
    state: dict[str, str] = field(default_factory=dict)
    origins: dict[str, tuple[str, int]] = field(default_factory=dict)

    def observe(self, game: RawGame) -> None:
        game_id = str(game.header.get("game_id"))
        if game_id in self.paths:
            return  # the same game read twice (a shard folder beside its merge): the first copy counts
        self.paths[game_id] = game.path
        result = game.result
        self.state[game_id] = "unfinished" if result is None else ("abandoned" if result.get("abandoned") else "done")
        origin = fork_origin(game.header)
        if origin is not None:
            self.origins[game_id] = origin


def fork_origin(header: dict[str, Any]) -> tuple[str, int] | None:
    """(parent game id, fork decision) when the header names a parent, else None: the one test of
    "this transcript is a fork" (pairing, and keeping forks out of the ratings)."""
    origin = header.get("fork")
    if isinstance(origin, dict) and origin.get("parent") is not None:
        return str(origin["parent"]), int(origin.get("at_decision", 0))
    return None


def _side_result(good_won: float | None, side: Side) -> float | None:
    if good_won is None:
        return None
    return good_won if side == "village" else 1.0 - good_won


def _mean_interval(values: list[float]) -> tuple[float, float | None, float | None]:
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, None, None
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = Z95 * sd / math.sqrt(n)
    return mean, max(-1.0, mean - half), min(1.0, mean + half)


def pair_forks(collector: ForkCollector, records: Iterable[GameRecord]) -> ForkReport | None:
    """Pair every fork with its parent; None when no transcript is a fork."""
    if not collector.origins:
        return None
    by_id: dict[str, GameRecord] = {}
    for record in records:
        by_id.setdefault(record.game_id, record)
    pairs: list[ForkPair] = []
    unpaired: list[UnpairedFork] = []
    for fork_id, (parent_id, at) in sorted(collector.origins.items()):
        fork, parent = by_id.get(fork_id), by_id.get(parent_id)
        if fork is None or parent is None:
            if fork is None:
                reason = f"the fork is {collector.state.get(fork_id, 'unreadable')}"
            elif parent_id not in collector.state:
                reason = "the parent is not among the scored transcripts"
            else:
                reason = f"the parent is {collector.state[parent_id]}"
            unpaired.append(UnpairedFork(fork=fork_id, parent=parent_id, reason=reason))
            continue
        parent_seats = {s.seat: s for s in parent.seats}
        swapped = []
        for s in fork.seats:
            before = parent_seats.get(s.seat)
            if before is not None and before.agent != s.agent:
                swapped.append(ForkSeat(seat=s.seat, role=s.role, side="wolves" if s.side == "wolf" else "village",
                                        parent_agent=before.agent, fork_agent=s.agent))
        change = None
        if parent.good_won is not None and fork.good_won is not None:
            change = fork.good_won - parent.good_won
        pairs.append(ForkPair(parent=parent_id, fork=fork_id, at_decision=at, parent_winner=parent.winner,
                              fork_winner=fork.winner, outcome_changed=parent.winner != fork.winner,
                              village_change=change, swapped=swapped, parent_path=collector.paths[parent_id],
                              fork_path=collector.paths[fork_id]))
    return ForkReport(pairs=pairs, effects=_effects(pairs, by_id), unpaired=unpaired,
                      unchanged_agents=sum(1 for p in pairs if not p.swapped),
                      unchanged_agents_outcome_changed=sum(1 for p in pairs if not p.swapped and p.outcome_changed))


def _effects(pairs: list[ForkPair], by_id: dict[str, GameRecord]) -> list[SwapEffect]:
    # One observation per pair and swap: a pair that hands three village seats from A to B counts once
    # for (village, A -> B); seats of one side share one result, so counting them apart would only
    # repeat it.
    changes: dict[tuple[Side, str, str], list[tuple[float, float, float]]] = defaultdict(list)
    for pair in pairs:
        before, after = by_id[pair.parent].good_won, by_id[pair.fork].good_won
        for key in sorted({(s.side, s.parent_agent, s.fork_agent) for s in pair.swapped}):
            b, a = _side_result(before, key[0]), _side_result(after, key[0])
            if b is not None and a is not None:
                changes[key].append((a - b, b, a))
    effects = []
    for (side, old, new), obs in sorted(changes.items()):
        mean, low, high = _mean_interval([c for c, _, _ in obs])
        effects.append(SwapEffect(side=side, parent_agent=old, fork_agent=new, pairs=len(obs), mean_change=mean,
                                  low=low, high=high, turned_to_win=sum(1 for _, b, a in obs if b == 0 and a == 1),
                                  turned_to_loss=sum(1 for _, b, a in obs if b == 1 and a == 0)))
    return effects


def swapped_text(pair: ForkPair) -> str:
    """``#5 seer: A → B; #9 wolf: C → D`` (or a note that no agent changed)."""
    if not pair.swapped:
        return "no agent changed (re-seeded)"
    return "; ".join(f"#{s.seat} {s.role}: {s.parent_agent} → {s.fork_agent}" for s in pair.swapped)


def render_tables(report: ForkReport, max_pairs: int = 50) -> dict[str, Any]:
    """Heads and rows of the effects and pairs tables, shared by the Markdown and HTML reports."""
    effects = [[e.side, f"{e.parent_agent} → {e.fork_agent}", str(e.pairs),
                f"{e.mean_change:+.3f}" + (f" [{e.low:+.3f}, {e.high:+.3f}]" if e.low is not None else ""),
                str(e.turned_to_win), str(e.turned_to_loss)] for e in report.effects]
    pairs = [[p.parent, p.fork, str(p.at_decision), p.parent_winner, p.fork_winner,
              "yes" if p.outcome_changed else "no",
              "—" if p.village_change is None else f"{p.village_change:+g}", swapped_text(p)]
             for p in report.pairs[:max_pairs]]
    return {
        "effects": (["side", "swap (parent → fork)", "pairs", "mean change of the side's result [95% CI]",
                     "loss → win", "win → loss"], effects),
        "pairs": (["parent", "fork", "fork at decision", "parent winner", "fork winner", "winner changed",
                   "village Δ", "agents swapped"], pairs),
    }
