"""The driver: asks the agents what the engine waits for, submits their answers, writes the transcript.

The engine (``arena.engine``) never waits on anything; this loop does. Decisions the engine asks at
once are asked of their agents concurrently and submitted together; the engine applies them in
seat order, so the transcript never depends on which agent answered first. An agent that raises,
hangs past its own timeout or answers nonsense cannot stop the game: its decision gets the
documented default and the fault is recorded.
"""

from __future__ import annotations

import asyncio
import bisect
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Awaitable, Callable, Sequence

from arena import __version__
from arena.actions import Answer, DecisionRequest
from arena.engine import Game, GameSetup
from arena.events import Event
from arena.observation import Observation
from arena.provenance import build_info
from arena.rules.night import stated_night_order
from arena.stopping import GameDeadline, GameStopped
from arena.transcript import (
    ITEMS_CAP,
    PROMPT_CAP_CHARS,
    HeaderLine,
    ResultLine,
    SeatAgent,
    TranscriptWriter,
    capped_text,
    capped_value,
    decision_line_json,
    event_line_json,
)


@dataclass
class GameResult:
    winner: str
    reason: str
    phase: str
    game: Game
    decisions: int
    refused: int
    abandoned: bool = False
    path: str | None = None


class SeatLog:
    """The events one seat may see, filtered from the game log lazily, when the seat first looks.

    A bot that never reads its history (``bot:random``) never pays for filtering it. ``positions``
    maps each visible event to its index in the game log, so a view can end at any log position.
    """

    __slots__ = ("seat", "log", "events", "positions", "cursor", "last_shown_upto")

    def __init__(self, seat: int, log: list[Event]):
        self.seat = seat
        self.log = log
        self.events: list[Event] = []
        self.positions: list[int] = []
        self.cursor = 0
        self.last_shown_upto = 0

    def sync(self, upto: int) -> None:
        seat = self.seat
        log = self.log
        for i in range(self.cursor, upto):
            event = log[i]
            if event.visibility.allows(seat):
                self.events.append(event)
                self.positions.append(i)
        if upto > self.cursor:
            self.cursor = upto

    def count_until(self, upto: int) -> int:
        self.sync(upto)
        return bisect.bisect_left(self.positions, upto)


class TableInfo:
    """What every observation of one table shares: read through, never copied per decision."""

    __slots__ = ("players", "preset", "switches", "lang")

    def __init__(self, players: int, preset: str, switches: dict[str, Any], lang: str):
        self.players = players
        self.preset = preset
        self.switches = switches
        self.lang = lang


class LazyObservation(Observation):
    """An :class:`Observation` whose events are filtered only if the agent reads them.

    One is made per decision (about 150 a bot game), so it holds four references and derives the
    rest on access."""

    _events: list[Event] | None = None

    def __init__(self, seat_log: SeatLog, upto: int, shown_upto: int, info: TableInfo):
        self.seat_log = seat_log
        self._upto = upto
        self._shown_upto = shown_upto
        self._info = info

    @property
    def events(self) -> list[Event]:  # type: ignore[override]
        if self._events is None:
            count = self.seat_log.count_until(self._upto)
            self._events = self.seat_log.events[:count]
        return self._events

    @property
    def new_from(self) -> int:  # type: ignore[override]
        return self.seat_log.count_until(self._shown_upto)

    @property
    def seat(self) -> int:  # type: ignore[override]
        return self.seat_log.seat

    @property
    def players(self) -> int:  # type: ignore[override]
        return self._info.players

    @property
    def preset(self) -> str:  # type: ignore[override]
        return self._info.preset

    @property
    def switches(self) -> dict[str, Any]:  # type: ignore[override]
        return self._info.switches

    @property
    def lang(self) -> str:  # type: ignore[override]
        return self._info.lang


def _agent_version(agent: Any, lang: str) -> str | None:
    """An agent's ``prompt_version``: a string, or a callable given the game's language (an agent
    whose templates follow the table's language only knows which it uses once it sees the game)."""
    version = getattr(agent, "prompt_version", None)
    if callable(version):
        version = version(lang)
    return version if isinstance(version, str) and version else None


def _agent_settings(agent: Any) -> dict[str, Any] | None:
    """An agent's ``settings`` (its non-secret options), if it offers them as a mapping."""
    settings = getattr(agent, "settings", None)
    if callable(settings):
        settings = settings()
    return dict(settings) if isinstance(settings, dict) and settings else None


@lru_cache(maxsize=64)
def _switches_json(switches: Any) -> dict[str, Any]:
    """Switches are frozen, so their JSON form is computed once per rule set (read-only by contract)."""
    return switches.model_dump(mode="json")


class Table:
    """Per-game wiring between a :class:`Game`, its agents and a transcript writer."""

    def __init__(self, game: Game, agents: Sequence[Any], *, writer: TranscriptWriter | None = None,
                 lang: str = "en", on_event: Callable[[Event], None] | None = None):
        n = game.state.n
        if len(agents) != n:
            raise ValueError(f"{len(agents)} agents for {n} seats")
        self.game = game
        self.agents = list(agents)
        self.writer = writer
        self.lang = lang
        self.on_event = on_event
        self.seat_logs = {s: SeatLog(s, game.log) for s in range(1, n + 1)}
        self._written = 0
        self._switches = _switches_json(game.rules.switches)
        self._records_written = 0
        self._info = TableInfo(n, game.rules.preset.id, self._switches, lang)
        self.answers: dict[int, Answer] = {}  # by request id, until their decision lines are written
        self.abandoned = False
        if on_event is not None:
            game.listeners.append(on_event)
            for event in game.log:  # the setup events emitted before we listened
                on_event(event)

    # ---- observation ----------------------------------------------------------------------
    def observation(self, seat: int) -> Observation:
        log = self.seat_logs[seat]
        upto = len(self.game.log)
        obs = LazyObservation(log, upto, log.last_shown_upto, self._info)
        log.last_shown_upto = upto
        return obs

    # ---- transcript -----------------------------------------------------------------------
    def header(self, game_id: str, specs: Sequence[str], labels: Sequence[str | None] | None = None,
               fork: Any = None) -> HeaderLine:
        setup = self.game.setup
        return HeaderLine(
            game_id=game_id, preset=setup.preset, rules=dict(setup.rules), switches=self._switches, seed=setup.seed,
            game_index=setup.game_index,
            deal=list(setup.deal) if setup.deal is not None else None,
            center=list(setup.center) if setup.center is not None else None,
            first_kill_protected=list(setup.first_kill_protected) or None,
            beliefs=dict(setup.beliefs) or None, night_order=stated_night_order(self.game.rules),
            agents=[SeatAgent(seat=i + 1, spec=spec, label=(labels[i] if labels else None),
                              version=_agent_version(self.agents[i], self.lang) if i < len(self.agents) else None,
                              settings=capped_value(_agent_settings(self.agents[i]), 1000) if i < len(self.agents) else None)
                    for i, spec in enumerate(specs)],
            lang=self.lang, package_version=__version__, fork=fork,
            # A game that cannot be replayed from the seed says which code and templates played it.
            build=build_info() if any(not getattr(a, "deterministic", True) for a in self.agents) else None)

    def flush_events(self) -> None:
        log = self.game.log
        if self.writer is not None:
            for seq in range(self._written, len(log)):
                self.writer.write_json(event_line_json(seq, log[seq]))
        self._written = len(log)

    def flush_decisions(self) -> None:
        records = self.game.decisions
        if self.writer is not None:
            for record in records[self._records_written:]:
                rid = record.request.id
                self.writer.write_json(decision_line_json(record, self.agents[record.request.seat - 1],
                                                          self.answers.get(rid)))
            # Every answer handed in has been recorded by now (the engine records each pending request).
            self.answers.clear()
        self._records_written = len(records)

    def result_line(self) -> ResultLine:
        state = self.game.state
        return ResultLine(
            winner=(state.winner.value if state.winner else "none"), reason=state.win_reason, phase=state.phase,
            roles={s: p.card.value for s, p in state.players.items()}, alive=state.alive_seats(),
            decisions=len(self.game.decisions), refused=sum(1 for d in self.game.decisions if d.refused),
            abandoned=self.abandoned)

    # ---- one round of questions ----------------------------------------------------------------
    def submit(self, answers: dict[int, Any]) -> None:
        """Hand the engine the answers to its pending requests, by request id (a missing one gets
        the request's default), and write what they caused."""
        requests = self.game.pending()
        self.submit_round(requests, [answers.get(r.id, _MISSING) for r in requests])

    def submit_round(self, requests: Sequence[DecisionRequest], answers: Sequence[Any]) -> None:
        """The same with one answer per pending request, in order (the drivers' form). An answer is an
        :class:`Answer` or a bare value (an agent with nothing to add but its choice). The engine gets
        the values; the rest of each answer (reasoning, notes, beliefs, extras) is stored once, on its
        decision line."""
        values = []
        answers = list(answers)
        for i, (request, a) in enumerate(zip(requests, answers)):
            if not isinstance(a, Answer):
                values.append(request.default if a is _MISSING else a if type(a) in _ATOMS else capped_value(a))
                continue
            if a.reasoning or a.notes or a.extras is not None or type(a.value) not in _ATOMS:
                a = answers[i] = capped_answer(a)
            extras = a.extras
            values.append(request.default if extras is not None and extras.default_applies else a.value)
        self.game.submit_in_order(values)
        if self.writer is not None:  # the decision lines read each answer's extras
            for request, a in zip(requests, answers):
                if isinstance(a, Answer):
                    self.answers[request.id] = a
            self.flush_decisions()
            self.flush_events()


_ATOMS = frozenset({int, bool, type(None)})


def capped_answer(answer: Answer) -> Answer:
    """The answer with every string an agent wrote cut to what a transcript line may hold (the cut
    says so in the text), so that no agent can make a transcript, or a viewer reading it, unbounded."""
    extras = answer.extras
    if extras is not None:
        update: dict[str, Any] = {
            "error": capped_value(extras.error), "note": capped_value(extras.note),
            "attempts": [a.model_copy(update={"raw": capped_value(a.raw), "error": capped_value(a.error)})
                         for a in extras.attempts[:ITEMS_CAP]],
            "prompt": capped_value(extras.prompt, PROMPT_CAP_CHARS), "raw_reply": capped_value(extras.raw_reply),
            "memory": capped_value(extras.memory)}
        if extras.usage is not None:
            update["usage"] = extras.usage.model_copy(update={
                "transport_errors": capped_value(extras.usage.transport_errors),
                "replies": extras.usage.replies[:ITEMS_CAP]})
        extras = extras.model_copy(update=update)
    return replace(answer, value=capped_value(answer.value),
                   reasoning=capped_text(answer.reasoning) if answer.reasoning else answer.reasoning,
                   notes=capped_text(answer.notes) if answer.notes else answer.notes, extras=extras)


#: Marks a request :meth:`Table.submit` was given no answer for (``None`` is an answer: abstain).
_MISSING: Any = object()


def _fault(request: DecisionRequest, exc: BaseException) -> Answer:
    """An agent crashed: the decision falls back to its default, and the fault is recorded."""
    return Answer.default_of(request, f"agent error: {type(exc).__name__}: {exc}")


async def _ask(agent: Any, observation: Observation, request: DecisionRequest) -> Answer:
    try:
        answer = await agent.decide(observation, request)
        if not isinstance(answer, Answer):
            answer = Answer(value=answer)
    except (asyncio.CancelledError, GameStopped):  # a stopped game is abandoned, not played on defaults
        raise
    except Exception as exc:  # a misbehaving agent is a game fact, never a crash (brief: "never dies")
        answer = _fault(request, exc)
    return answer


async def run_table(table: Table) -> None:
    """Drive a game to its end with async agents."""
    game = table.game
    table.flush_events()
    while not game.over:
        requests = game.pending()
        if not requests:
            break
        # Every question of the round is answered (or stopped) before the round's outcome is looked
        # at: a seat that stops the game must not leave the others' calls running on.
        results = await asyncio.gather(*(_ask(table.agents[r.seat - 1], table.observation(r.seat), r)
                                         for r in requests), return_exceptions=True)
        for outcome in results:
            if isinstance(outcome, BaseException):
                raise outcome
        table.submit_round(requests, results)  # type: ignore[arg-type]  # exceptions raised above


def run_table_sync(table: Table) -> None:
    """The same loop without an event loop, for agents that all decide synchronously (bots)."""
    game = table.game
    deciders = [agent.decide_sync for agent in table.agents]  # looked up once: this loop is the bots' hot path
    observation = table.observation
    submit = table.submit_round
    table.flush_events()
    requests = game.pending()
    while requests:  # the engine asks nothing more once the game is over
        answers = []
        for r in requests:
            try:
                answer = deciders[r.seat - 1](observation(r.seat), r)  # an Answer or a bare value
            except Exception as exc:
                answer = _fault(r, exc)
            answers.append(answer)
        submit(requests, answers)
        requests = game.pending()


def with_belief_modes(setup: GameSetup, agents: Sequence[Any]) -> GameSetup:
    """The setup with the seats the referee asks for beliefs (arena.rules.beliefs): the setup's own
    list when it has one (a replay), else each agent's ``belief_mode``. Bots have none."""
    from arena.rules.beliefs import check_modes

    modes = setup.beliefs or {i + 1: mode for i, a in enumerate(agents)
                              if isinstance(mode := getattr(a, "belief_mode", None), str)}
    modes = check_modes(modes, len(agents))
    return setup if modes == setup.beliefs else replace(setup, beliefs=modes)


def _start(setup: GameSetup, agents: Sequence[Any], specs: Sequence[str] | None, writer: TranscriptWriter | None,
           lang: str, game_id: str | None, labels: Sequence[str | None] | None,
           on_event: Callable[[Event], None] | None, fork: Any = None) -> Table:
    game = Game(with_belief_modes(setup, agents))
    table = Table(game, agents, writer=writer, lang=lang, on_event=on_event)
    specs = list(specs or [getattr(a, "spec", type(a).__name__) for a in agents])
    if writer is not None:
        writer.write(table.header(game_id or f"{setup.preset}-{setup.seed}", specs, labels, fork))
    return table


def _finish(table: Table, writer: TranscriptWriter | None) -> GameResult:
    table.flush_events()
    if writer is not None:
        writer.write(table.result_line())
    state = table.game.state
    return GameResult(winner=state.winner.value if state.winner else "none", reason=state.win_reason,
                      phase=state.phase, game=table.game, decisions=len(table.game.decisions),
                      refused=sum(1 for d in table.game.decisions if d.refused), abandoned=table.abandoned,
                      path=str(writer.path) if writer is not None and writer.path else None)


async def run_game(setup: GameSetup, agents: Sequence[Any], *, writer: TranscriptWriter | None = None,
                   specs: Sequence[str] | None = None, lang: str = "en", game_id: str | None = None,
                   labels: Sequence[str | None] | None = None, on_event: Callable[[Event], None] | None = None,
                   fork: Any = None, deadline: float | None = None) -> GameResult:
    """Play one game to the end with any agents and write its transcript (if a writer is given).

    ``deadline``: seconds the whole game may take (agents that answer at once never reach it); past
    it, or when an agent stops the game (:class:`arena.stopping.GameStopped`), the game is written as
    abandoned and the exception is raised."""
    table = _start(setup, agents, specs, writer, lang, game_id, labels, on_event, fork)
    try:
        if all(hasattr(a, "decide_sync") for a in agents):
            run_table_sync(table)
        elif deadline is None:
            await run_table(table)
        else:
            try:
                await asyncio.wait_for(run_table(table), timeout=deadline)
            except (asyncio.TimeoutError, TimeoutError):
                raise GameDeadline(deadline) from None
    except (KeyboardInterrupt, asyncio.CancelledError, GameStopped):
        table.abandoned = True
        table.flush_decisions()
        table.flush_events()
        if writer is not None:
            writer.write(table.result_line())
        raise
    return _finish(table, writer)


def play_sync(setup: GameSetup, agents: Sequence[Any], *, writer: TranscriptWriter | None = None,
              specs: Sequence[str] | None = None, lang: str = "en", game_id: str | None = None,
              on_event: Callable[[Event], None] | None = None) -> GameResult:
    """The fast path for all-bot games: no event loop at all."""
    table = _start(setup, agents, specs, writer, lang, game_id, None, on_event)
    run_table_sync(table)
    return _finish(table, writer)


def play(setup: GameSetup, agents: Sequence[Any], **kw: Any) -> GameResult:
    """Blocking convenience wrapper around :func:`run_game`."""
    return asyncio.run(run_game(setup, agents, **kw))


AsyncAnswer = Callable[[Observation, DecisionRequest], Awaitable[Answer]]
