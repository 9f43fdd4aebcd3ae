"""Scoring one transcript: one small visitor per metric family, over one shared pass of the log.

:func:`score_game` builds a :class:`GameContext` (who sat where with which card, and what the table
looked like as the log is read: who is alive, who holds the badge, each seat's legal targets), then
shows every line to the families that asked for it. A family keeps its own per-game state and
writes its metrics into the accumulator; facts more than one family reads (the day's first exile
ballots, the exiles, the claims said, the speeches) are collected once, on the context.

Order within a line: the context records a decision's legal set before the families see the
decision, and applies an event's change to the table (a death, a badge) after they saw the event,
so a family always reads the table as it stood when the line was written.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Iterable

from arena.evaluate.accumulate import ALL, Accumulator, roster_keys
from arena.evaluate.claims import mentioned_seats, read_claims
from arena.evaluate.load import RawGame
from arena.evaluate.records import GameRecord, SeatRecord
from arena.transcript import usage_cost, usage_tokens
from arena.types import is_wolf_card

#: The row group of a belief metric measured only on listeners of another roster entry than the subject:
#: deception and persuasion of other agents, not of the entry's own seats (issue #26).
OTHERS = "audience:others"

#: The event types the scorer reads; others are skipped unparsed by the loader.
SCORED_EVENTS = frozenset({
    "ballot_cast", "vote_result", "exile_result", "player_died", "speech", "speech_order", "sheriff_elected",
    "badge_moved", "seer_result", "wolf_knife_vote", "wolf_knife", "guard_protected", "witch_saved",
    "witch_poisoned", "hunter_shot", "sheriff_candidates", "sheriff_withdrew",
})
#: Decision kinds whose legal set the scorer needs even when nothing else is recorded.
LEGAL_SET_KINDS = frozenset({"vote", "pk_vote", "seer_check", "guard"})
#: Decisions whose answer is said aloud (R138's interjections and replies included).
SPEECH_DECISIONS = frozenset({"speech", "last_words", "idiot_interject", "interjection_reply"})
#: The referee's belief request (belief modes day_end and every_speech): a report between speeches.
BELIEF_UPDATE = "belief"
#: Speech kinds credited by ``speech_swing``: the discussion and PK speeches, and a revealed idiot's
#: interjections with the speakers' replies (R138 ``may_interject``).
PERSUASION_SPEECHES = frozenset({"discussion", "pk", "interjection", "interjection_reply"})
#: Roles whose survival the key-role metrics follow (the god roles of the core boards).
KEY_ROLES = frozenset({"seer", "witch", "hunter", "guard", "idiot", "elder"})


def day_of(phase: str) -> int:
    try:
        return int(phase[1:])
    except (ValueError, IndexError):
        return 0


def intended_vote(beliefs: dict[int, float], candidates: Iterable[int]) -> int | None:
    """The seat a report's beliefs point at: highest wolf probability, lowest seat on ties."""
    best, best_p = None, -1.0
    for seat in sorted(candidates):
        p = beliefs.get(seat)
        if p is not None and p > best_p:
            best, best_p = seat, p
    return best


def result_side(result: str) -> str:
    if result in ("wolf", "good"):
        return result
    return "wolf" if is_wolf_card(result) else "good"  # seer_result=exact_role


# The token kinds of a usage record: the agents layer's names first, then provider-native ones.
TOKEN_PARTS = {
    "prompt_tokens_per_game": ("input", "input_tokens", "prompt_tokens"),
    "cached_tokens_per_game": ("cached", "cache_read_input_tokens", "cached_tokens"),
    "reasoning_tokens_per_game": ("reasoning", "reasoning_tokens", "thinking_tokens"),
    "completion_tokens_per_game": ("output", "output_tokens", "completion_tokens"),
}


def usage_parts(usage: dict[str, Any]) -> dict[str, float]:
    """Prompt, cached, reasoning and completion tokens of a usage record (the kinds it names)."""
    out: dict[str, float] = {}
    for metric, names in TOKEN_PARTS.items():
        value = next((usage[k] for k in names if isinstance(usage.get(k), (int, float))), None)
        if value is not None:
            out[metric] = float(value)
    return out


@dataclass
class BeliefReport:
    """One belief report: a seat's private wolf probabilities at one decision."""

    pos: int
    seat: int
    day: int
    night: bool
    kind: str
    beliefs: dict[int, float]
    alive: frozenset[int]
    intended: int | None


@dataclass
class GameContext:
    """One finished game as the families see it: the deal, the table as read so far, shared facts."""

    game: RawGame
    acc: Accumulator
    roles: dict[int, str]
    agent_of: dict[int, str]
    board: str
    winner: str
    seats: list[int] = field(init=False)
    n_players: int = field(init=False)
    wolf: dict[int, bool] = field(init=False)
    wolves: set[int] = field(init=False)
    good: set[int] = field(init=False)
    gods: set[int] = field(init=False)
    good_won: float | None = field(init=False)
    deck_count: dict[str, int] = field(init=False)
    # the table as the log is read
    alive: set[int] = field(init=False)
    sheriff: int | None = None
    vote_opts: dict[int, list[int]] = field(default_factory=dict)
    last_legal: dict[tuple[int, str], list[int]] = field(default_factory=dict)
    # facts several families read
    first_exile_round: dict[int, list[tuple[int, int | None]]] = field(default_factory=dict)
    sheriff_of_day: dict[int, int] = field(default_factory=dict)
    exiles: list[tuple[int, int, int]] = field(default_factory=list)  # (day, seat, living players at the vote)
    speeches: list[tuple[int, int, int, str]] = field(default_factory=list)  # (pos, seat, day, kind), persuasion kinds
    sheriff_speech_pos: dict[int, int] = field(default_factory=dict)
    claims_log: list[tuple[int, int, int, list[str], list[tuple[int, str]]]] = field(default_factory=list)
    deaths: list[tuple[str, int, tuple[str, ...]]] = field(default_factory=list)  # (phase, seat, causes)
    last_phase: str = ""

    def __post_init__(self) -> None:
        self.seats = sorted(self.roles)
        self.n_players = len(self.seats)
        self.wolf = {s: is_wolf_card(r) for s, r in self.roles.items()}
        self.wolves = {s for s in self.seats if self.wolf[s]}
        self.good = {s for s in self.seats if not self.wolf[s]}
        self.gods = {s for s in self.good if self.roles[s] != "villager"}
        self.good_won = {"village": 1.0, "wolves": 0.0, "draw": 0.5}.get(self.winner)
        self.deck_count = defaultdict(int)
        for r in self.roles.values():
            self.deck_count[r] += 1
        self.alive = set(self.seats)

    @property
    def end_phase(self) -> str:
        """The phase the game ended in: the result line's, else the last scored event's."""
        return str(self.game.result.get("phase") or self.last_phase) if self.game.result else self.last_phase

    def agent(self, seat: int | None) -> str:
        return self.agent_of.get(seat, "?") if seat is not None else "?"

    def side(self, seat: int) -> str:
        return "wolf" if self.wolf.get(seat, False) else "good"

    # The context's own bookkeeping, around the families.
    def before_decision(self, line: dict[str, Any]) -> None:
        legal = line.get("legal") or {}
        options = list(legal.get("options") or []) if legal.get("type") == "seat" else []
        if options:
            self.last_legal[(line["seat"], line["kind"])] = options
            if line["kind"] in ("vote", "pk_vote"):
                self.vote_opts[line["seat"]] = options

    def before_event(self, pos: int, ev: dict[str, Any], t: str, phase: str) -> None:
        if phase:
            self.last_phase = phase
        if t == "ballot_cast" and ev["ballot"] == "exile":
            day = day_of(phase)
            self.first_exile_round.setdefault(day, []).append((ev["voter"], ev.get("target")))
            if day not in self.sheriff_of_day and self.sheriff is not None:
                self.sheriff_of_day[day] = self.sheriff  # the badge holder when the day's vote opens
        elif t == "exile_result":
            target = ev.get("seat")
            if target is not None and ev.get("reason") != "idiot_revealed":
                self.exiles.append((day_of(phase), target, len(self.alive)))
        elif t == "speech" and ev.get("kind", "") in PERSUASION_SPEECHES:
            s = ev["seat"]
            self.speeches.append((pos, s, day_of(phase), ev.get("kind", "")))
            if self.sheriff is not None and s == self.sheriff and ev.get("kind") == "discussion":
                self.sheriff_speech_pos[day_of(phase)] = pos  # the summing-up (the sheriff speaks last)

    def after_event(self, ev: dict[str, Any], t: str, phase: str) -> None:
        if t == "player_died":
            self.alive.discard(ev["seat"])
            self.deaths.append((phase, ev["seat"], tuple(ev.get("causes") or [ev.get("cause")])))
        elif t == "sheriff_elected":
            self.sheriff = ev.get("seat")
        elif t == "badge_moved":
            self.sheriff = ev.get("to_seat")


class Family:
    """One metric family: sees the decisions and the event types it names, then finishes the game."""

    EVENTS: ClassVar[frozenset[str]] = frozenset()
    DECISIONS: ClassVar[bool] = False

    def __init__(self, ctx: GameContext):
        self.ctx = ctx
        self.acc = ctx.acc

    def decision(self, pos: int, line: dict[str, Any]) -> None:
        """A decision line (only called when DECISIONS is true)."""

    def event(self, pos: int, ev: dict[str, Any], t: str, phase: str) -> None:
        """An event of one of the EVENTS types."""

    def finish(self) -> None:
        """After the log: metrics that need the whole game."""


class Outcomes(Family):
    """win_rate, self_play_balance and the schedule balance tallies."""

    def __init__(self, ctx: GameContext):
        super().__init__(ctx)
        acc = self.acc
        for s in ctx.seats:
            a = ctx.agent(s)
            acc.role_seats[a][ctx.roles[s]] += 1
            acc.seat_seats[a][s] += 1
            acc.deck_seats[ctx.roles[s]] += 1
        good_won = ctx.good_won
        if good_won is None:
            return
        bo = acc.board_outcomes[ctx.board]
        bo[0] += good_won
        bo[1] += 1
        units: set[tuple[str, str]] = set()  # one trial per (agent, side) and (agent, role) per game
        for s in ctx.seats:
            a = ctx.agent(s)
            units.add((a, f"side:{ctx.side(s)}"))
            units.add((a, f"role:{ctx.roles[s]}"))
        for a, group in sorted(units):
            good_group = group == "side:good" or (group.startswith("role:") and not is_wolf_card(group[5:]))
            acc.rate("win_rate", a, good_won if good_group else 1.0 - good_won, group=group)
            acc.win_exposure[(a, group)][ctx.board] += 1
        agents_in_game = {ctx.agent(s) for s in ctx.seats}
        if len(agents_in_game) == 1:
            acc.avail.self_play_games += 1
            (only_agent,) = agents_in_game
            acc.rate("self_play_balance", only_agent, good_won, 0.5, group=ctx.board)


def last_reply_cut_off(attempts: Any) -> bool:
    """The decision's last attempt was a reply cut off at the token limit (its ``truncated`` flag)."""
    last = attempts[-1] if isinstance(attempts, list) and attempts else None
    return isinstance(last, dict) and bool(last.get("truncated"))


class Reliability(Family):
    """invalid_answers, fallback_rate, cut_off_fallback_rate, truncated_replies, tokens, cost, latency,
    reasoning_consistency."""

    DECISIONS = True

    def __init__(self, ctx: GameContext):
        super().__init__(ctx)
        self.tokens: dict[int, float] = defaultdict(float)
        self.cost: dict[int, float] = defaultdict(float)
        self.has_usage: set[int] = set()
        self.has_cost: set[int] = set()
        self.parts: dict[tuple[str, int], float] = defaultdict(float)
        self.decisions = 0

    def decision(self, pos: int, line: dict[str, Any]) -> None:
        acc, avail = self.acc, self.acc.avail
        s = line["seat"]
        a = self.ctx.agent(s)
        self.decisions += 1
        attempts = line.get("attempts") or []
        invalid = bool(line.get("refused")) or any(at.get("error") for at in attempts if isinstance(at, dict))
        acc.rate("invalid_answers", a, 1.0 if invalid else 0.0, 0.0)
        # a reply cut off by the token limit is counted apart: a harness limit, not the model's judgement
        cut = any(at.get("truncated") for at in attempts if isinstance(at, dict))
        acc.rate("truncated_replies", a, 1.0 if cut else 0.0, 0.0)
        usage = line.get("usage")
        # A fallback after a reply cut off at the token limit is counted apart: the seat's max_tokens,
        # not the model's answer, settled it.
        cut_off = bool(line.get("defaulted")) and last_reply_cut_off(attempts)
        fell_back = bool(line.get("defaulted") or line.get("refused")) and not cut_off
        acc.rate("fallback_rate", a, 1.0 if fell_back else 0.0, 0.0)
        acc.rate("cut_off_fallback_rate", a, 1.0 if cut_off else 0.0, 0.0)
        if usage:
            tokens = usage_tokens(usage)
            if tokens is not None:
                avail.decisions_with_usage += 1
                acc.mean("tokens_per_decision", a, tokens)
                self.tokens[s] += tokens
                self.has_usage.add(s)
            for metric, amount in usage_parts(usage).items():
                self.parts[(metric, s)] += amount
            cost = usage_cost(usage)
            if cost is not None:
                avail.decisions_with_cost += 1
                self.cost[s] += cost
                self.has_cost.add(s)
        latency = line.get("latency_ms")
        if latency is not None:
            avail.decisions_with_latency += 1
            acc.mean("latency_ms", a, float(latency))
        reasoning = line.get("reasoning")
        value = line.get("value")
        legal = line.get("legal") or {}
        options = list(legal.get("options") or []) if legal.get("type") == "seat" else []
        if reasoning and options and isinstance(value, int) and not isinstance(value, bool):
            named = mentioned_seats(reasoning, self.ctx.n_players) & set(options)
            if named:
                avail.decisions_with_reasoning += 1
                acc.rate("reasoning_consistency", a, 1.0 if value in named else 0.0, len(named) / len(options))

    def finish(self) -> None:
        acc, ctx = self.acc, self.ctx
        # Valid, plain decisions in bulk: one accumulator update per seat instead of one per line.
        plain = ctx.game.plain_decisions
        for s, count in plain.items():
            a = ctx.agent(s)
            for metric in ("invalid_answers", "fallback_rate", "cut_off_fallback_rate", "truncated_replies"):
                acc.rates[(metric, a, ALL)].add_misses(count, 0.0, acc.cluster)
        acc.avail.decisions += self.decisions + sum(plain.values())
        for s in sorted(self.has_usage):
            acc.mean("tokens_per_game", ctx.agent(s), self.tokens[s])
        for s in sorted(self.has_cost):
            acc.mean("cost_per_game", ctx.agent(s), self.cost[s])
        for metric, s in sorted(self.parts):
            acc.mean(metric, ctx.agent(s), self.parts[(metric, s)])


class Voting(Family):
    """vote_abstention, vote_accuracy, exile_avoidance, wolf_steered_exile."""

    EVENTS = frozenset({"ballot_cast", "vote_result", "exile_result"})

    def __init__(self, ctx: GameContext):
        super().__init__(ctx)
        self.ballots_round: list[tuple[int, int | None, float]] = []
        self.last_round: list[tuple[int, int | None, float]] = []

    def event(self, pos: int, ev: dict[str, Any], t: str, phase: str) -> None:
        ctx, acc = self.ctx, self.acc
        if t == "ballot_cast":
            if ev["ballot"] not in ("exile", "pk"):
                return
            voter, target = ev["voter"], ev.get("target")
            self.ballots_round.append((voter, target, float(ev.get("weight", 1))))
            if ctx.wolf.get(voter, False):
                return
            a = ctx.agent(voter)
            opts = ctx.vote_opts.get(voter) or [x for x in ctx.alive if x != voter]
            acc.rate("vote_abstention", a, 1.0 if target is None else 0.0, 1.0 / (len(opts) + 1))
            if target is not None:
                n_w = sum(1 for x in opts if ctx.wolf.get(x, False))
                acc.rate("vote_accuracy", a, 1.0 if ctx.wolf.get(target, False) else 0.0, n_w / len(opts),
                         by_day=f"D{day_of(phase)}")
        elif t == "vote_result":
            if ev["ballot"] in ("exile", "pk"):
                self.last_round, self.ballots_round = self.ballots_round, []
        elif t == "exile_result":
            target = ev.get("seat")
            if target is not None and ev.get("reason") != "idiot_revealed":
                n_alive = len(ctx.alive)
                for w in sorted(ctx.wolves & ctx.alive):
                    acc.rate("exile_avoidance", ctx.agent(w), 0.0 if w == target else 1.0, 1.0 - 1.0 / n_alive)
                if not ctx.wolf.get(target, False) and self.last_round:
                    self._steering(self.last_round, target)
            self.last_round = []  # a later exile (another day) must not be judged on these ballots

    def _steering(self, ballots: list[tuple[int, int | None, float]], exiled: int) -> None:
        """Was a good seat's exile decided by wolf ballots? Recount without them."""
        wolf = self.ctx.wolf
        halves: dict[int, int] = defaultdict(int)
        for voter, target, weight in ballots:
            if target is not None and not wolf.get(voter, False):
                halves[target] += round(weight * 2)
        best = max(halves.values()) if halves else 0
        still_top = halves.get(exiled, 0) == best and best > 0 and sum(1 for h in halves.values() if h == best) == 1
        steered = not still_top
        for voter, target, _ in ballots:
            if wolf.get(voter, False):
                self.acc.rate("wolf_steered_exile", self.ctx.agent(voter), 1.0 if (steered and target == exiled) else 0.0)


class Claims(Family):
    """claim_truth, good_false_statements, false_check_exiled: the speakers' own claims only."""

    EVENTS = frozenset({"speech", "seer_result"})

    def __init__(self, ctx: GameContext):
        super().__init__(ctx)
        self.seer_claimed: set[int] = set()
        self.seer_truth: dict[int, dict[int, str]] = defaultdict(dict)

    def event(self, pos: int, ev: dict[str, Any], t: str, phase: str) -> None:
        if t == "seer_result":
            self.seer_truth[ev["seat"]][ev["target"]] = ev.get("result", "")
            return
        avail = self.acc.avail
        s = ev["seat"]
        text = ev.get("text") or ""
        if text.strip() and text.strip().lower() != "pass":
            avail.speeches_with_text += 1
        c = read_claims(text, self.ctx.n_players) if len(text) > 6 else None  # "pass", "过。": nothing to read
        if c is not None and (c.roles or c.checks or c.loose_checks):
            checks = c.checks_given(s in self.seer_claimed)
            if "seer" in c.roles:
                self.seer_claimed.add(s)
            if c.roles or checks:
                avail.speeches_with_claims += 1
                self.ctx.claims_log.append((pos, s, day_of(phase), c.roles, checks))

    def finish(self) -> None:
        ctx, acc = self.ctx, self.acc
        roles, wolf, seats, n_players = ctx.roles, ctx.wolf, ctx.seats, ctx.n_players
        exiled_by_day: dict[int, set[int]] = defaultdict(set)
        alive_at_exile: dict[int, int] = {}
        for day, seat, n_alive in ctx.exiles:
            exiled_by_day[day].add(seat)
            alive_at_exile[day] = n_alive
        said: set[tuple[int, Any, str]] = set()  # speeches repeat claims: each counts once per game
        for pos, s, day, claimed_roles, all_checks in ctx.claims_log:
            a = ctx.agent(s)
            side = ctx.side(s)
            new_roles = [r for r in claimed_roles if (s, r, "role") not in said]
            checks = [(t, c) for t, c in all_checks if (s, t, c) not in said]
            said.update((s, r, "role") for r in new_roles)
            said.update((s, t, c) for t, c in checks)
            for role in new_roles:
                true = 1.0 if role == roles[s] else 0.0
                chance = ctx.deck_count.get(role, 0) / n_players
                acc.rate("claim_truth", a, true, chance, group=f"side:{side}")
                if side == "good":
                    acc.rate("good_false_statements", a, 1.0 - true, 1.0 - chance)
            for target, claimed in checks:
                if target == s:
                    continue
                actual = "wolf" if wolf.get(target, False) else "good"
                # A check claim is true only from the real seer whose own result agrees (or, without a
                # recorded result, whose claim matches the truth).
                seer_said = self.seer_truth.get(s, {}).get(target)
                if roles[s] == "seer" and seer_said is not None:
                    true = 1.0 if result_side(seer_said) == claimed else 0.0
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


class Beliefs(Family):
    """belief_auroc, belief_brier, belief_vote_gap, disguise, speech_swing, speech_shift, speech_trust,
    sheriff_pull, false_claim_believed, false_check_pull."""

    DECISIONS = True
    EVENTS = frozenset({"ballot_cast"})

    def __init__(self, ctx: GameContext):
        super().__init__(ctx)
        self.reports: list[BeliefReport] = []
        self.last_report: dict[int, BeliefReport] = {}

    def decision(self, pos: int, line: dict[str, Any]) -> None:
        beliefs = line.get("beliefs")
        if not beliefs:
            return
        ctx, avail = self.ctx, self.acc.avail
        s = line["seat"]
        b = {int(k): float(v) for k, v in beliefs.items()}
        avail.belief_reports += 1
        if line["kind"] in SPEECH_DECISIONS or line["kind"] == BELIEF_UPDATE:
            avail.belief_reports_at_speech += 1
        explicit = line.get("intended_vote")
        phase = line.get("asked_in") or line.get("phase") or "D0"
        others = [x for x in ctx.alive if x != s]
        rep = BeliefReport(pos, s, day_of(phase), phase.startswith("N"), line["kind"], b, frozenset(ctx.alive),
                           explicit if isinstance(explicit, int) else intended_vote(b, others))
        self.reports.append(rep)
        self.last_report[s] = rep

    def event(self, pos: int, ev: dict[str, Any], t: str, phase: str) -> None:
        ctx = self.ctx
        voter, target = ev["voter"], ev.get("target")
        if ev["ballot"] not in ("exile", "pk") or target is None or ctx.wolf.get(voter, False):
            return
        rep = self.last_report.get(voter)
        day = day_of(phase)
        if rep is None or rep.day != day or rep.night:
            return
        opts = ctx.vote_opts.get(voter) or [x for x in ctx.alive if x != voter]
        intended = intended_vote(rep.beliefs, opts)
        if intended is not None:
            self.acc.rate("belief_vote_gap", ctx.agent(voter), 1.0 if target != intended else 0.0, 1.0 - 1.0 / len(opts))

    def finish(self) -> None:
        if not self.reports:
            return
        ctx, acc = self.ctx, self.acc
        wolf = ctx.wolf
        good_reports = [r for r in self.reports if not wolf.get(r.seat, False)]
        # Deduction and disguise use each good seat's last report of each day (or night), so a seat
        # asked ten times a day does not weigh ten times more than one asked once.
        last_of: dict[tuple[int, int, bool], BeliefReport] = {}
        for r in good_reports:
            last_of[(r.seat, r.day, r.night)] = r
        for (seat, day, night), r in sorted(last_of.items()):
            a = ctx.agent(seat)
            rated = [x for x in sorted(r.beliefs) if x != seat and x in r.alive]
            if not rated:
                continue
            labels = [wolf.get(x, False) for x in rated]
            base = sum(labels) / len(rated)
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
                    acc.mean("disguise", ctx.agent(x), base - p, 0.0)
                    if ctx.agent(x) != a:  # fooled another agent, not one of its own seats
                        acc.mean("disguise", ctx.agent(x), base - p, 0.0, group=OTHERS)
        by_seat: dict[int, list[BeliefReport]] = defaultdict(list)
        for r in good_reports:
            if not r.night:
                by_seat[r.seat].append(r)
        self._persuasion(by_seat)
        self._speech_shift(by_seat)
        self._sheriff_pull(by_seat)
        self._claims_believed(by_seat)
        self._false_check_pull(by_seat)

    def _persuasion(self, by_seat: dict[int, list[BeliefReport]]) -> None:
        """A listener's intended vote just before and just after each speech."""
        ctx = self.ctx
        speech_pos = [p for p, _, _, _ in ctx.speeches]
        for pos, speaker, day, _ in ctx.speeches:
            target = self._speaker_target(speaker, pos, day)
            if target is None:
                continue
            a = ctx.agent(speaker)
            swing, listeners = [0.0, 0.0], [0, 0]  # [every listener, listeners of other agents]
            for listener, rs in by_seat.items():
                if listener == speaker:
                    continue
                before = next((r for r in reversed(rs) if r.pos < pos and r.day == day), None)
                after = next((r for r in rs if r.pos > pos and r.day == day), None)
                if before is None or after is None:
                    continue
                other = ctx.agent(listener) != a
                listeners[0] += 1
                listeners[1] += other
                if before.intended == after.intended:
                    continue
                # Credit is shared among every speech between the two reports.
                between = sum(1 for p in speech_pos if before.pos < p < after.pos) or 1
                moved = 1.0 / between if after.intended == target else -1.0 / between if before.intended == target else 0.0
                swing[0] += moved
                swing[1] += moved if other else 0.0
            if listeners[0]:
                self.acc.mean("speech_swing", a, swing[0] / listeners[0], 0.0)
                self.acc.mean("speech_swing", a, swing[0] / listeners[0], 0.0, group=f"side:{ctx.side(speaker)}")
            if listeners[1]:
                self.acc.mean("speech_swing", a, swing[1] / listeners[1], 0.0, group=OTHERS)

    def _speech_shift(self, by_seat: dict[int, list[BeliefReport]]) -> None:
        """What one speech alone did to good listeners' beliefs: their reports just before and just
        after it, with no other speech between (belief mode every_speech gives one after each speech).
        ``speech_shift``: the mean change of P(wolf) of the speaker's target (toward the speaker's case
        is positive); ``speech_trust``: the mean drop of P(wolf) of the speaker itself."""
        ctx = self.ctx
        speech_pos = [p for p, _, _, _ in ctx.speeches]
        for pos, speaker, day, _ in ctx.speeches:
            target = self._speaker_target(speaker, pos, day)
            a = ctx.agent(speaker)
            shifts: list[tuple[float, bool]] = []  # (change, heard by another agent's seat)
            trusts: list[tuple[float, bool]] = []
            for listener, rs in by_seat.items():
                if listener == speaker:
                    continue
                before = next((r for r in reversed(rs) if r.pos < pos and r.day == day), None)
                after = next((r for r in rs if r.pos > pos and r.day == day), None)
                if before is None or after is None or any(before.pos < p < after.pos and p != pos for p in speech_pos):
                    continue
                other = ctx.agent(listener) != a
                if target is not None and target != listener and target in before.beliefs and target in after.beliefs:
                    shifts.append((after.beliefs[target] - before.beliefs[target], other))
                if speaker in before.beliefs and speaker in after.beliefs:
                    trusts.append((before.beliefs[speaker] - after.beliefs[speaker], other))
            side = f"side:{ctx.side(speaker)}"
            for metric, pairs in (("speech_shift", shifts), ("speech_trust", trusts)):
                values = [v for v, _ in pairs]
                if values:
                    self.acc.mean(metric, a, sum(values) / len(values), 0.0)
                    self.acc.mean(metric, a, sum(values) / len(values), 0.0, group=side)
                others = [v for v, other in pairs if other]
                if others:
                    self.acc.mean(metric, a, sum(others) / len(others), 0.0, group=OTHERS)

    def _speaker_target(self, speaker: int, pos: int, day: int) -> int | None:
        """The seat a speech argues against: the speaker's intent at its speech, else its ballot that day."""
        for r in reversed(self.reports):
            if r.seat == speaker and r.pos < pos and r.day == day and not r.night:
                if r.intended is not None:
                    return r.intended
                break
        return next((t for v, t in self.ctx.first_exile_round.get(day, []) if v == speaker), None)

    def _sheriff_pull(self, by_seat: dict[int, list[BeliefReport]]) -> None:
        ctx = self.ctx
        for day, pos in sorted(ctx.sheriff_speech_pos.items()):
            sh = ctx.sheriff_of_day.get(day)
            if sh is None:
                continue
            ballots = ctx.first_exile_round.get(day, [])
            sheriff_vote = next((t for v, t in ballots if v == sh), None)
            if sheriff_vote is None:
                continue
            for voter, target in ballots:
                if voter == sh or target is None or ctx.wolf.get(voter, False):
                    continue
                prior = next((r for r in reversed(by_seat.get(voter, [])) if r.pos < pos and r.day == day), None)
                if prior is None or prior.intended is None or prior.intended == sheriff_vote:
                    continue
                opts = ctx.vote_opts.get(voter) or sorted(prior.alive)
                k = len([x for x in opts if x != prior.intended])
                self.acc.rate("sheriff_pull", ctx.agent(sh), 1.0 if target == sheriff_vote else 0.0, 1.0 / k if k else None)
                if ctx.agent(voter) != ctx.agent(sh):
                    self.acc.rate("sheriff_pull", ctx.agent(sh), 1.0 if target == sheriff_vote else 0.0,
                                  1.0 / k if k else None, group=OTHERS)

    def _claims_believed(self, by_seat: dict[int, list[BeliefReport]]) -> None:
        """A wolf's god-role claim: do good seats' beliefs in it drop from before to after the claim?"""
        ctx = self.ctx
        for pos, s, day, claimed_roles, _ in ctx.claims_log:
            if not ctx.wolf.get(s, False) or not any(r in ("seer", "witch", "hunter", "guard", "idiot") for r in claimed_roles):
                continue
            deltas: list[tuple[float, bool]] = []
            for listener, rs in by_seat.items():
                before = next((r for r in reversed(rs) if r.pos < pos and s in r.beliefs), None)
                after = next((r for r in rs if r.pos > pos and s in r.beliefs), None)
                if before is not None and after is not None:
                    deltas.append((after.beliefs[s] - before.beliefs[s], ctx.agent(listener) != ctx.agent(s)))
            for group, values in ((ALL, [d for d, _ in deltas]), (OTHERS, [d for d, other in deltas if other])):
                if values:
                    self.acc.rate("false_claim_believed", ctx.agent(s), 1.0 if sum(values) / len(values) < 0 else 0.0,
                                  0.5, group=group)


    def _false_check_pull(self, by_seat: dict[int, list[BeliefReport]]) -> None:
        """A wolf's false check (a good seat called wolf): good voters of other roster entries whose intended
        vote just before the claim was elsewhere, voting the target in that day's first exile round."""
        ctx = self.ctx
        said: set[tuple[int, int]] = set()
        for pos, s, day, _, checks in ctx.claims_log:
            if not ctx.wolf.get(s, False):
                continue
            for target, claimed in checks:
                if claimed != "wolf" or ctx.wolf.get(target, False) or target == s or (s, target) in said:
                    continue
                said.add((s, target))
                for voter, ballot in ctx.first_exile_round.get(day, []):
                    if ballot is None or voter in (s, target) or ctx.wolf.get(voter, False) \
                            or ctx.agent(voter) == ctx.agent(s):
                        continue
                    prior = next((r for r in reversed(by_seat.get(voter, [])) if r.pos < pos and r.day == day), None)
                    if prior is None or prior.intended is None or prior.intended == target:
                        continue
                    opts = ctx.vote_opts.get(voter) or sorted(prior.alive - {voter})
                    k = len([x for x in opts if x != prior.intended])
                    self.acc.rate("false_check_pull", ctx.agent(s), 1.0 if ballot == target else 0.0,
                                  1.0 / k if k else None)


class Sheriff(Family):
    """sheriff_follow: ballots that match the sheriff's first-round exile vote."""

    def finish(self) -> None:
        ctx = self.ctx
        for day, ballots in sorted(ctx.first_exile_round.items()):
            sh = ctx.sheriff_of_day.get(day)
            if sh is None:
                continue
            sheriff_vote = next((t for v, t in ballots if v == sh), None)
            if sheriff_vote is None:
                continue
            self.acc.avail.sheriff_days += 1
            for voter, target in ballots:
                if voter == sh or target is None:  # an abstention neither follows nor defies
                    continue
                opts = ctx.vote_opts.get(voter) or ctx.seats
                if sheriff_vote not in opts:
                    continue
                self.acc.rate("sheriff_follow", ctx.agent(sh), 1.0 if target == sheriff_vote else 0.0, 1.0 / len(opts))


class NightSkills(Family):
    """seer_wolf_hit, knife_on_gods, guard_success, witch_save_precision, same_guard_save, poison and shot accuracy."""

    EVENTS = frozenset({"seer_result", "wolf_knife_vote", "wolf_knife", "guard_protected", "witch_saved",
                        "witch_poisoned", "hunter_shot", "player_died"})

    def __init__(self, ctx: GameContext):
        super().__init__(ctx)
        self.knife: dict[int, int | None] = {}
        self.guard_of: dict[int, tuple[int, int | None, list[int]]] = {}  # night -> (guard, target, legal targets)
        self.save_of: dict[int, tuple[int, int]] = {}
        self.wolf_deaths: set[tuple[int, int]] = set()  # (night, seat) killed with a wolf cause

    def _accuracy(self, metric: str, s: int, target: int) -> None:
        ctx = self.ctx
        others = [x for x in ctx.alive if x != s]
        n_w = sum(1 for x in others if ctx.wolf.get(x, False))
        self.acc.rate(metric, ctx.agent(s), 1.0 if ctx.wolf.get(target, False) else 0.0,
                      n_w / len(others) if others else None)

    def event(self, pos: int, ev: dict[str, Any], t: str, phase: str) -> None:
        ctx = self.ctx
        if t == "seer_result":
            s, target = ev["seat"], ev["target"]
            opts = ctx.last_legal.get((s, "seer_check")) or [x for x in ctx.alive if x != s]
            n_w = sum(1 for x in opts if ctx.wolf.get(x, False))
            self.acc.rate("seer_wolf_hit", ctx.agent(s), 1.0 if ctx.wolf.get(target, False) else 0.0,
                          n_w / len(opts) if opts else None)
        elif t == "wolf_knife_vote":
            target = ev.get("target")
            if target is not None:
                living_good = [x for x in ctx.alive if not ctx.wolf.get(x, False)]
                n_g = sum(1 for x in living_good if x in ctx.gods)
                self.acc.rate("knife_on_gods", ctx.agent(ev["seat"]), 1.0 if target in ctx.gods else 0.0,
                              n_g / len(living_good) if living_good else None)
        elif t == "wolf_knife":
            self.knife[day_of(phase)] = ev.get("target")
        elif t == "guard_protected":
            g = ev["seat"]
            self.guard_of[day_of(phase)] = (g, ev.get("target"), ctx.last_legal.get((g, "guard")) or ctx.seats)
        elif t == "witch_saved":
            self.save_of[day_of(phase)] = (ev["seat"], ev["target"])
        elif t == "witch_poisoned":
            self._accuracy("witch_poison_accuracy", ev["seat"], ev["target"])
        elif t == "hunter_shot":
            self._accuracy("hunter_shot_accuracy", ev["seat"], ev["target"])
        elif t == "player_died":
            if phase.startswith("N") and "wolf" in (ev.get("causes") or [ev.get("cause")]):
                self.wolf_deaths.add((day_of(phase), ev["seat"]))

    def finish(self) -> None:
        ctx, acc = self.ctx, self.acc
        for night, (g_seat, g_target, opts) in sorted(self.guard_of.items()):
            k_target = self.knife.get(night)
            if k_target is None:
                continue
            saved = self.save_of.get(night)
            blocked = (g_target == k_target and not (saved and saved[1] == k_target)
                       and (night, k_target) not in self.wolf_deaths)
            acc.rate("guard_success", ctx.agent(g_seat), 1.0 if blocked else 0.0,
                     (1.0 / len(opts)) if k_target in opts else 0.0)
        for night, (w_seat, w_target) in sorted(self.save_of.items()):
            good_kept = (not ctx.wolf.get(w_target, False)) and (night, w_target) not in self.wolf_deaths
            acc.rate("witch_save_precision", ctx.agent(w_seat), 1.0 if good_kept else 0.0)
            guard = self.guard_of.get(night)
            if guard is not None:
                g_opts = guard[2]
                accident = 1.0 if guard[1] == w_target else 0.0
                chance = 1.0 / len(g_opts) if w_target in g_opts else 0.0
                acc.rate("same_guard_save", ctx.agent(w_seat), accident, chance, group="as witch")
                acc.rate("same_guard_save", ctx.agent(guard[0]), accident, chance, group="as guard")


class SpeakingOrder(Family):
    """Who opened each day's discussion (the balance table)."""

    EVENTS = frozenset({"speech_order"})

    def __init__(self, ctx: GameContext):
        super().__init__(ctx)
        self.days_done: set[int] = set()

    def event(self, pos: int, ev: dict[str, Any], t: str, phase: str) -> None:
        if ev.get("context") not in ("sheriff", "last_death", "seat_one"):  # the day's discussion order
            return
        day = day_of(phase)
        order = ev.get("order") or []
        if order and day not in self.days_done:
            self.days_done.add(day)
            self.acc.first_speaker[self.ctx.agent(order[0])] += 1


def phase_index(phase: str) -> int:
    """N1 = 1, D1 = 2, N2 = 3, ...: the order of phases in a game (D0, the setup, is 0)."""
    day = day_of(phase)
    if day <= 0:
        return 0
    return 2 * day - (1 if phase.startswith("N") else 0)


def good_side_group(group: str) -> bool:
    """Is a win-rate group about the village's side? (``side:good``, ``side:good d1q2``, ``role:seer``)."""
    return group.startswith("side:good") or (group.startswith("role:") and not is_wolf_card(group[5:]))


class Position(Family):
    """position_win_rate: win rate by day-1 speaking quartile and by seat, per agent and side.

    The day-1 discussion order is decided in play (the sheriff's choice, the last death), so it is not
    balanced by the schedule; this shows whether it moves results.
    """

    EVENTS = frozenset({"speech_order"})

    def __init__(self, ctx: GameContext):
        super().__init__(ctx)
        self.day1_order: list[int] | None = None

    def event(self, pos: int, ev: dict[str, Any], t: str, phase: str) -> None:
        if self.day1_order is None and day_of(phase) == 1 and ev.get("context") in ("sheriff", "last_death", "seat_one"):
            self.day1_order = list(ev.get("order") or [])

    def finish(self) -> None:
        ctx, acc = self.ctx, self.acc
        if ctx.good_won is None:
            return
        order = self.day1_order or []
        quartile = {s: 1 + (4 * i) // len(order) for i, s in enumerate(order)} if order else {}
        for s in ctx.seats:
            side = ctx.side(s)
            won = ctx.good_won if side == "good" else 1.0 - ctx.good_won
            a = ctx.agent(s)
            groups = [f"side:{side} seat:{s:02d}"]
            if s in quartile:
                groups.append(f"side:{side} d1q{quartile[s]}")
            for group in groups:
                acc.rate("position_win_rate", a, won, group=group)
                acc.win_exposure[(a, group)][ctx.board] += 1


class KeyRoles(Family):
    """ksr and wd_ksr: how long the god roles an agent holds stay alive."""

    def finish(self) -> None:
        ctx, acc = self.ctx, self.acc
        keys = [s for s in ctx.seats if ctx.roles[s] in KEY_ROLES]
        if not keys:
            return
        death_at = {seat: phase_index(phase) for phase, seat, _ in ctx.deaths}
        length = max([phase_index(ctx.end_phase)] + list(death_at.values()) + [1])
        good = sorted(ctx.good)
        alive_share = sum(1 for s in good if s not in death_at) / len(good)
        lived_share = sum(death_at.get(s, length) / length for s in good) / len(good)
        for s in keys:
            a = ctx.agent(s)
            acc.rate("ksr", a, 0.0 if s in death_at else 1.0, alive_share, group=f"role:{ctx.roles[s]}")
            acc.rate("ksr", a, 0.0 if s in death_at else 1.0, alive_share)
            acc.mean("wd_ksr", a, death_at.get(s, length) / length, lived_share)


class SheriffBadge(Family):
    """badge_capture, badge_pass_good, badge_end_side: running for, handing on and keeping the badge."""

    EVENTS = frozenset({"sheriff_candidates", "sheriff_withdrew", "sheriff_elected", "badge_moved"})

    def __init__(self, ctx: GameContext):
        super().__init__(ctx)
        self.candidates: list[int] = []
        self.any_badge = False

    def event(self, pos: int, ev: dict[str, Any], t: str, phase: str) -> None:
        ctx, acc = self.ctx, self.acc
        if t == "sheriff_candidates":
            self.candidates = list(ev.get("seats") or [])
        elif t == "sheriff_withdrew":
            self.candidates = [s for s in self.candidates if s != ev.get("seat")]
        elif t == "sheriff_elected":
            winner = ev.get("seat")
            self.any_badge = self.any_badge or winner is not None
            if len(self.candidates) >= 2:
                for s in self.candidates:
                    acc.rate("badge_capture", ctx.agent(s), 1.0 if s == winner else 0.0, 1.0 / len(self.candidates),
                             group=f"side:{ctx.side(s)}")
            self.candidates = []
        elif t == "badge_moved" and ev.get("action") in ("passed", "torn") and ev.get("from_seat") is not None:
            giver = ev["from_seat"]
            others = [x for x in ctx.alive if x != giver]
            if not others:
                return
            to = ev.get("to_seat")
            hit = 1.0 if (ev.get("action") == "passed" and to is not None and not ctx.wolf.get(to, False)) else 0.0
            chance = sum(1 for x in others if not ctx.wolf.get(x, False)) / len(others)
            acc.rate("badge_pass_good", ctx.agent(giver), hit, chance, group=f"side:{ctx.side(giver)}")

    def finish(self) -> None:
        ctx = self.ctx
        if not self.any_badge:
            return
        holder = ctx.sheriff
        holder_side = ctx.side(holder) if holder is not None else None
        for a, side in sorted({(ctx.agent(s), ctx.side(s)) for s in ctx.seats}):
            self.acc.rate("badge_end_side", a, 1.0 if holder_side == side else 0.0, group=f"side:{side}")


class WinShape(Family):
    """win_margin and win_days: by how much and how fast an agent's side wins."""

    def finish(self) -> None:
        ctx = self.ctx
        if ctx.good_won not in (0.0, 1.0):
            return
        winner = "good" if ctx.good_won == 1.0 else "wolf"
        alive_w = sum(1 for s in ctx.alive if ctx.side(s) == winner)
        alive_l = len(ctx.alive) - alive_w
        days = max(day_of(ctx.end_phase), 1)
        for a in sorted({ctx.agent(s) for s in ctx.seats if ctx.side(s) == winner}):
            self.acc.mean("win_margin", a, float(alive_w - alive_l), group=f"side:{winner}")
            self.acc.mean("win_days", a, float(days), group=f"side:{winner}")


class VoteSway(Family):
    """vote_sway: other voters whose first-round exile ballot matches a speaker's, per discussion speech."""

    def finish(self) -> None:
        ctx = self.ctx
        spoke: set[tuple[int, int]] = set()
        for _, speaker, day, kind in ctx.speeches:
            if kind != "discussion" or (day, speaker) in spoke:
                continue
            spoke.add((day, speaker))
            ballots = ctx.first_exile_round.get(day, [])
            target = next((t for v, t in ballots if v == speaker), None)
            if target is None:
                continue
            a = ctx.agent(speaker)
            for voter, choice in ballots:
                if voter == speaker or choice is None:
                    continue
                opts = ctx.vote_opts.get(voter) or ctx.seats
                if target not in opts:
                    continue
                self.acc.rate("vote_sway", a, 1.0 if choice == target else 0.0, 1.0 / len(opts),
                              group=f"side:{ctx.side(speaker)}")


#: Every family, in the order they see a line (the order matters only within one line).
FAMILIES: list[type[Family]] = [Outcomes, Reliability, Voting, Claims, Beliefs, Sheriff, NightSkills, SpeakingOrder,
                                Position, KeyRoles, SheriffBadge, WinShape, VoteSway]


def _begin(game: RawGame, acc: Accumulator) -> GameContext | None:
    """Count the game, keep its header and record; None when it is not scored (unfinished, abandoned)."""
    avail = acc.avail
    result = game.result
    if result is None:
        avail.incomplete += 1
        return None
    if result.get("abandoned"):
        avail.abandoned += 1
        return None
    header = game.header
    roles = {int(k): str(v) for k, v in result["roles"].items()}
    agent_of = {a["seat"]: (a.get("label") or a["spec"]) for a in header["agents"]}
    board = header["preset"]
    winner = str(result["winner"])
    avail.games += 1
    # Only what the config card needs: ten thousand full switch tables would just weigh on memory.
    # Games with equal summaries share one dict, and each game's seed is an int in acc.seeds.
    summary = {
        "preset": board, "rules": header.get("rules") or {},
        "switches_key": hash(tuple(sorted((k, repr(v)) for k, v in (header.get("switches") or {}).items()))),
        "agents": roster_keys(acc, header["agents"]), "lang": header.get("lang", "en"),
        "package_version": header.get("package_version", "?"), "fork": header.get("fork"),
    }
    summary_key = json.dumps(summary, sort_keys=True, default=str)
    acc.headers.append(acc.header_kinds.setdefault(summary_key, summary))
    seed = header.get("seed")
    if isinstance(seed, int) and not isinstance(seed, bool) and -2**63 <= seed < 2**63:
        acc.seeds.append(seed)
    seating = tuple((s, agent_of.get(s, "?"), roles[s]) for s in sorted(roles))
    seats = acc.seatings.get(seating)
    if seats is None:
        seats = acc.seatings[seating] = tuple(
            SeatRecord(seat=s, agent=agent, role=role, side="wolf" if is_wolf_card(role) else "good")
            for s, agent, role in seating)
    # Fields of checked types (the header and result were read as such): built without re-validation,
    # its seats shared with every game of the same seating.
    fields = dict(game_id=header["game_id"], board=board, winner=winner, seed=seed, seats=seats)
    acc.records.append(GameRecord.model_construct(**fields, abandoned=False)
                       if type(seed) in (int, type(None)) and type(fields["game_id"]) is str and type(board) is str
                       else GameRecord(**fields))
    acc.start_game(board, header.get("seed"), header["game_id"], game.path)
    return GameContext(game=game, acc=acc, roles=roles, agent_of=agent_of, board=board, winner=winner)


def score_game(game: RawGame, acc: Accumulator, families: list[type[Family]] | None = None) -> None:
    """Fold one transcript into the accumulator: one shared pass, every family as a visitor."""
    ctx = _begin(game, acc)
    if ctx is None:
        return
    visitors = [f(ctx) for f in (families or FAMILIES)]
    on_decision = [v.decision for v in visitors if v.DECISIONS]
    on_event: dict[str, list[Callable[[int, dict[str, Any], str, str], None]]] = defaultdict(list)
    for v in visitors:
        for t in v.EVENTS:
            on_event[t].append(v.event)
    for pos, line in enumerate(game.lines):
        if line["type"] == "decision":
            ctx.before_decision(line)
            for fn in on_decision:
                fn(pos, line)
            continue
        ev = line["event"]
        t = ev["type"]
        phase = ev.get("phase", "")
        ctx.before_event(pos, ev, t, phase)
        for handler in on_event.get(t, ()):
            handler(pos, ev, t, phase)
        ctx.after_event(ev, t, phase)
    for v in visitors:
        v.finish()
