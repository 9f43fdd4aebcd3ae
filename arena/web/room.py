"""One table of ``arena serve``: a game driven by the referee, its human seats and its watchers.

The game runs in :func:`arena.referee.run_game` (the same async driver as ``arena play``); a human
seat is an agent whose ``decide`` waits for an answer from the seat's browser. Every event the
referee emits is appended to the room's log; each connection keeps a cursor into that log and is
sent the events its view allows, filtered by :func:`arena.observation.visible_events` (a seat) or
:func:`arena.observation.public_events` (a spectator of a table with human players). Nothing is
judged here about what a seat may know.

A pending question has an unguessable id. An answer must quote it: an answer to a question already
settled, or to another seat's, is refused. Reconnecting shows the same pending question again.
A time limit (the ``speech_seconds`` switch's for speeches, the table's action limit; both off unless
the table turns them on) or a
human gone longer than the table's grace settles it with the decision's default, recorded in the
transcript as a default with the reason.
"""

from __future__ import annotations

import asyncio
import json
import random
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Literal

from pydantic import BaseModel, ConfigDict, Field

from agents.base import timed
from agents.human import SELF_DESTRUCT_KINDS, own_speech_request
from arena.actions import Answer, AnswerExtras, DecisionRequest, IllegalAnswer, Speak
from arena.events import Event
from arena.narration import LANGS
from arena.observation import Observation, public_events, visible_events
from arena.web.guard import refusal_words

if TYPE_CHECKING:
    from arena.web.seats import SeatChoices

#: The seat spec the lobby uses for a seat left open for a person.
HUMAN = "human"
#: Speeches a seat may let go with an empty answer (as in the terminal).
OPTIONAL_SPEECHES = frozenset({"idiot_interject", "interjection_reply"})
#: Seconds a spectator is given to read an event of each type, at pace 1 (a speech: more if long).
READING_SECONDS = {"speech": 1.6, "vote_result": 1.4, "deaths_announced": 1.4, "phase_started": 0.9,
                   "game_ended": 1.0, "exile_result": 1.2, "ballot_cast": 0.25, "wolf_knife_vote": 0.25}
MAX_PAUSE = 8.0
#: Events after which a human seat's role card is made anew (its card, its team, a card taken over).
ROLE_CARD_EVENTS = frozenset({"role_assigned", "wolf_team", "maid_swapped"})
#: A table in one of these states plays no more.
ENDED = ("finished", "failed", "expired")

Send = Callable[[dict[str, Any]], Awaitable[None]]


class TableSpec(BaseModel):
    """A table as the lobby asks for it."""

    model_config = ConfigDict(extra="forbid")

    preset: str = "std-12-guard"
    lang: Literal["en", "zh"] = "en"
    #: One seat name per seat, from what the server offers (:mod:`arena.web.seats`: the bots,
    #: ``human`` for a seat left open for a person, the operator's model seats); none: bots everywhere.
    seats: list[str] | None = Field(None, max_length=64)
    #: Switch overrides, ``name=value`` as on the command line (``speech_seconds=flat_120``).
    rules: list[str] = Field(default_factory=list, max_length=64)
    seed: int | None = Field(None, ge=0)
    #: Time a human's speeches by the rules' ``speech_seconds`` switch (R64). Off by default, even on
    #: boards whose rules give a limit: a countdown is the table's choice.
    speech_timer: bool = False
    #: Seconds a human seat has for any decision that is not a speech (004's vote countdown); none: no limit.
    action_seconds: float | None = Field(None, gt=0, le=3600)
    #: Seconds a human seat may be disconnected before its decisions get their defaults.
    grace_seconds: float = Field(120.0, ge=0, le=86400)
    #: Reading time between events for the people watching (1: normal; 0: as fast as the bots go).
    pace: float = Field(1.0, ge=0, le=10)


@dataclass(eq=False)
class Question:
    """A decision put to a human seat, waiting for its browser."""

    rid: str
    request: DecisionRequest
    future: asyncio.Future[Answer]
    asked_at: float
    seconds: float | None
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    #: the seat's own speech, asked in place of the self-destruct offer before it: the page shows the
    #: self-destruct button beside the speech box
    self_destruct: bool = False

    def remaining(self, now: float) -> float | None:
        return None if self.seconds is None else max(0.0, self.asked_at + self.seconds - now)


@dataclass(eq=False)
class Watcher:
    """One connection: a seat (its own view) or a spectator (public or god view)."""

    seat: int | None
    god: bool = False
    cursor: int = 0  # events of the room's log already looked at
    sent: int = 0  # events sent: the next one's number in this connection's stream
    asked: str | None = None  # the question id last shown
    settled: int = 0  # settlements already reported
    result_sent: bool = False
    standing: dict[str, Any] | None = None  # the standing actions last shown

    @property
    def view(self) -> str:
        return f"seat:{self.seat}" if self.seat is not None else ("god" if self.god else "public")

    def shown(self, events: list[Event]) -> list[Event]:
        if self.seat is not None:
            return visible_events(events, self.seat)
        return list(events) if self.god else public_events(events)


class WebSeat:
    """The agent of a human seat in the browser: asks its room and waits."""

    spec = HUMAN
    deterministic = False

    def __init__(self, room: "Room", seat: int):
        self.room = room
        self.seat = seat

    async def decide(self, observation: Observation, request: DecisionRequest) -> Answer:
        from agents.llm_prompts import PromptBuilder

        started = time.perf_counter()
        self.room.may_self_destruct(self.seat, PromptBuilder.may_self_destruct(observation, observation.view()))
        if request.kind in SELF_DESTRUCT_KINDS:
            return timed(await self.room.self_destruct_offer(self.seat, request), started)
        kept = self.room.kept_speech.pop(self.seat, None)
        if kept is not None and isinstance(request.legal, Speak) and request.kind in ("speech", "last_words"):
            kept.value = request.check(kept.value)
            return timed(kept, started)
        return timed(await self.room.ask(self.seat, request), started)


class Paced:
    """A bot or model that waits, before it answers, for the people at the table to read what just
    happened; at pace 0 it still lets the event loop run the other tables and the lobby (a bot decides
    synchronously, so a game of bots would otherwise hold the loop from its first decision to its last)."""

    def __init__(self, agent: Any, room: "Room"):
        self.agent = agent
        self.room = room

    def __getattr__(self, name: str) -> Any:
        if name == "decide_sync":  # the driver must take the async path, where pauses can happen
            raise AttributeError(name)
        return getattr(self.agent, name)

    async def decide(self, observation: Observation, request: DecisionRequest) -> Any:
        await self.room.pause()
        return await self.agent.decide(observation, request)


def reading_seconds(event: Event) -> float:
    if event.type == "speech":
        return min(6.0, READING_SECONDS["speech"] + len(event.text) / 30)
    return READING_SECONDS.get(event.type, 0.2)


class TableError(ValueError):
    """The lobby's table cannot be made: the message names what is wrong."""


class Room:
    """One table: its game, its seats' tokens, its log and the people connected to it."""

    def __init__(self, spec: TableSpec, out_dir: Path, choices: "SeatChoices | None" = None):
        from agents.registry import make_operator_agent  # every choice is the operator's (arena.web.seats)
        from arena.web.seats import SeatChoices
        from arena.cli.play import parse_rule_overrides
        from arena.config import ConfigError, resolve_rules

        try:
            self.overrides = parse_rule_overrides(spec.rules)
            rules = resolve_rules(spec.preset, self.overrides)
        except (ConfigError, ValueError) as exc:
            raise TableError(refusal_words("rules", detail=str(exc))) from None
        players = rules.players
        seats = [s.strip() for s in spec.seats] if spec.seats else ["bot:heuristic"] * players
        if len(seats) != players:
            raise TableError(refusal_words("seat_count", preset=spec.preset, players=players, given=len(seats)))
        choices = choices or SeatChoices()
        chosen = []
        for i, name in enumerate(seats):
            choice = choices.get(name)
            if choice is None:  # a request names a seat; it never brings a spec of its own
                raise TableError(refusal_words("seat_unknown", seat=i + 1, name=repr(name[:80]),
                                               offered=", ".join(choices.names())))
            chosen.append(choice)
        self.spec = spec
        self.id = secrets.token_urlsafe(9)
        self.preset = spec.preset
        self.lang = spec.lang
        self.players = players
        self.seed = spec.seed if spec.seed is not None else random.SystemRandom().randrange(1, 10**9)
        #: what the lobby and the pages show: the seat names the operator configured (a model seat's
        #: spec may name the operator's endpoint); the transcript records the specs
        self.seat_names = seats
        self.specs = [c.spec for c in chosen]
        self.labels = [None if c.builtin else c.name for c in chosen]
        self.human_seats = [i + 1 for i, s in enumerate(self.specs) if s == HUMAN]
        #: token -> seat; a token is the only way to act for a seat
        self.tokens = {secrets.token_urlsafe(18): seat for seat in self.human_seats}
        self.agents: list[Any] = []
        for i, choice in enumerate(chosen):
            if choice.spec == HUMAN:
                self.agents.append(WebSeat(self, i + 1))
                continue
            try:
                agent = make_operator_agent(choice.spec, seat=i + 1, seed=self.seed, lang=self.lang,
                                            **choice.options)
            except Exception as exc:  # a provider without its key: the lobby says which seat
                raise TableError(refusal_words("seat_agent", seat=i + 1, name=repr(choice.name), detail=str(exc))) from None
            self.agents.append(Paced(agent, self))
        self.path = out_dir / f"{self.preset}-{self.id}.jsonl"
        self.log: list[Event] = []
        self.json: list[dict[str, Any]] = []  # each event as the page draws it, numbered per connection
        self._index: dict[int, int] = {}
        self._stage = "N1"
        self._paused_upto = 0
        self.pending: dict[int, Question] = {}
        self.settlements: dict[int, list[dict[str, Any]]] = {s: [] for s in self.human_seats}
        self.joined: set[int] = set()
        #: the standing self-destruct (R66-R67) of each human seat: whether its card may, whether armed
        self.self_destruct_eligible: dict[int, bool] = {s: False for s in self.human_seats}
        self.self_destruct_armed: dict[int, bool] = {s: False for s in self.human_seats}
        self.kept_speech: dict[int, Answer] = {}  # a speech given in place of the offer before it
        self._blown: set[int] = set()
        from arena.rules.speech import _SECONDS

        self.speech_tiers: tuple[int | None, ...] = _SECONDS[rules.switches.speech_seconds] or ()
        self.switches: dict[str, Any] = rules.switches.model_dump(mode="json")
        #: each human seat's role card ({lang: text}), made when its card is dealt and its team known
        self.role_cards: dict[int, dict[str, str]] = {}
        self.connections: dict[int, int] = {s: 0 for s in self.human_seats}
        self.away_since: dict[int, float | None] = {s: None for s in self.human_seats}
        self.watchers = 0
        self.status: Literal["waiting", "running", "finished", "failed", "expired"] = "waiting"
        self.error: str | None = None
        self.result: dict[str, Any] | None = None
        self.task: asyncio.Task[None] | None = None
        self._started_at: float | None = None
        #: the game's wall-clock length once it is over (the lobby lists it)
        self.seconds: float | None = None
        self._changed = asyncio.Event()
        from arena.viewer import EventText

        self._texts = {code: EventText(code) for code in LANGS}

    # ---- lifecycle ------------------------------------------------------------------------------
    @property
    def god_view_allowed(self) -> bool:
        """A spectator with the god view could coach a human player: only tables of machines have it."""
        return not self.human_seats

    def start_if_ready(self) -> None:
        if self.status == "waiting" and self.joined >= set(self.human_seats):
            self.status = "running"
            self.task = asyncio.get_running_loop().create_task(self._run())
            self.notify()

    async def _run(self) -> None:
        from arena.engine import GameSetup
        from arena.referee import run_game
        from arena.transcript import TranscriptWriter

        setup = GameSetup(preset=self.preset, seed=self.seed, rules=self.overrides)
        self._started_at = time.monotonic()
        try:
            with TranscriptWriter(self.path) as writer:
                result = await run_game(setup, self.agents, writer=writer, specs=self.specs, lang=self.lang,
                                        game_id=f"{self.preset}-{self.id}", labels=self.labels,
                                        on_event=self._on_event)
            state = result.game.state
            from arena.rules.victory import camps

            self.result = {"winner": result.winner, "reason": result.reason, "phase": result.phase,
                           "camps": {str(s): c.value for s, c in camps(state).items()},
                           "roles": {str(s): p.card.value for s, p in state.players.items()},
                           "alive": state.alive_seats(), "abandoned": False, "seed": self.seed,
                           "transcript": self.path.name}
            self.status = "finished"
        except asyncio.CancelledError:
            self.status, self.error = "failed", "the server stopped"
            raise
        except Exception as exc:  # the table fails alone; the server and the other tables go on
            self.status, self.error = "failed", f"{type(exc).__name__}: {exc}"
        finally:
            self.seconds = time.monotonic() - self._started_at
            for question in self.pending.values():
                question.future.cancel()
            self.agents = []  # their memories are in the transcript; a finished table keeps only its log
            self._texts = {}
            self.notify()

    def stop(self) -> None:
        if self.task is not None and not self.task.done():
            self.task.cancel()

    def expire(self, waited: float) -> bool:
        """Close a table still waiting for its people: its agents go, its watchers are told."""
        if self.status != "waiting":
            return False
        self.status = "expired"
        self.error = f"not every seat was joined within {waited:g} s: the table was closed"
        self.agents = []
        self._texts = {}
        self.notify()
        return True

    # ---- events ---------------------------------------------------------------------------------
    def _on_event(self, event: Event) -> None:
        from arena.viewer import event_json

        if event.type == "phase_started":
            self._stage = event.phase
            if event.phase.startswith("N"):  # R67: never at night; an unused arming ends with the day
                for seat in self.self_destruct_armed:
                    self.self_destruct_armed[seat] = False
        self._index[id(event)] = len(self.log)
        self.log.append(event)
        self.json.append(event_json(event, -1, self._stage, self._texts))
        if event.type in ROLE_CARD_EVENTS:
            for seat in self.human_seats:
                if event.visibility.allows(seat):
                    self.role_cards[seat] = self.role_card(seat)
        self.notify()

    def role_card(self, seat: int) -> dict[str, str]:
        """The seat's card in both languages (:func:`agents.role_card.role_card`, the terminal's too)."""
        from agents.role_card import role_card
        from arena.web.guard import web_labels

        card: dict[str, str] = {}
        for code in LANGS:
            observation = Observation(seat=seat, players=self.players, preset=self.preset, switches=self.switches,
                                      events=visible_events(self.log, seat), lang=code)
            words = web_labels(code)
            card[code] = role_card(observation, knife_rule=words["knife_rule"],
                                   self_destruct_rule=words["self_destruct_rule"])
        return card

    def notify(self) -> None:
        """Wake every connection: something new to send."""
        self._changed.set()
        self._changed = asyncio.Event()

    async def pause(self) -> None:
        """Before a bot answers: reading time for what the table saw since the last pause. Only public
        events count: a pause that grew with hidden events would tell the players they happened.
        At pace 0, one turn of the event loop: the other tables and the lobby go on meanwhile."""
        if self.spec.pace <= 0:
            await asyncio.sleep(0)
            return
        upto = len(self.log)
        if upto <= self._paused_upto:
            return
        seconds = sum(reading_seconds(e) for e in public_events(self.log[self._paused_upto:upto]))
        self._paused_upto = upto
        await asyncio.sleep(min(MAX_PAUSE, seconds * self.spec.pace))

    # ---- human seats ------------------------------------------------------------------------------
    def seat_of(self, token: str | None) -> int | None:
        if not token:
            return None
        for known, seat in self.tokens.items():
            if secrets.compare_digest(known, token):
                return seat
        return None

    def time_limit(self, request: DecisionRequest) -> float | None:
        legal = request.legal
        if isinstance(legal, Speak):  # R64's limit, carried by the speech's legal set
            return float(legal.seconds) if legal.seconds and self.spec.speech_timer else None
        return self.spec.action_seconds

    # ---- the standing self-destruct ----------------------------------------------------------------
    def may_self_destruct(self, seat: int, eligible: bool) -> None:
        if self.self_destruct_eligible.get(seat) != eligible:
            self.self_destruct_eligible[seat] = eligible
            self.notify()

    def standing(self, seat: int) -> dict[str, Any]:
        """What the seat's page shows of its standing actions."""
        return {"type": "standing", "card": self.role_cards.get(seat), "self_destruct": {
            "eligible": self.self_destruct_eligible.get(seat, False) and self.status == "running",
            "day": self._stage.startswith("D"), "armed": self.self_destruct_armed.get(seat, False)}}

    async def self_destruct_offer(self, seat: int, request: DecisionRequest) -> Answer:
        """The referee's offer before a day speech, answered at once by the seat's standing choice; before
        the seat's own speech, the speech is asked in its place with the self-destruct button beside it."""
        # a speech kept from an earlier offer was never asked for (another wolf self-destructed first)
        self.kept_speech.pop(seat, None)
        if self.self_destruct_armed.get(seat):
            self.self_destruct_armed[seat] = False
            self.notify()
            return Answer(value=True, extras=AnswerExtras(raw_reply="self-destruct (standing choice)"))
        if request.context.get("before_speaker") != seat:
            return Answer(value=False, extras=AnswerExtras(note="standing choice: not armed"))
        speech = own_speech_request(request, self._speech_seconds(int(request.context.get("max_chars") or 0)))
        answer = await self.ask(seat, speech, self_destruct=True)
        if seat in self._blown:
            self._blown.discard(seat)
            return Answer(value=True, extras=AnswerExtras(raw_reply="self-destruct (button, own turn)"))
        self.kept_speech[seat] = answer  # the speech request that follows takes it (a default stays one)
        return Answer(value=False, extras=AnswerExtras(note="the seat's speech follows"))

    def _speech_seconds(self, max_chars: int) -> int | None:
        """The limit of the speech an offer announces (it carries the length the limit gives, R64)."""
        from arena.rules.speech import _speak_for

        fits = [t for t in self.speech_tiers if t and _speak_for(t).max_chars == max_chars]
        return max(fits) if fits else None

    def set_self_destruct(self, seat: int, armed: Any) -> str | None:
        """The page's self-destruct button; an error message when it cannot be used now."""
        if not isinstance(armed, bool):
            return refusal_words("armed_bool")
        if armed and not (self.self_destruct_eligible.get(seat) and self._stage.startswith("D")
                          and self.status == "running"):
            return refusal_words("self_destruct_not_now")
        question = self.pending.get(seat)
        if armed and question is not None and question.self_destruct and not question.future.done():
            self._blown.add(seat)  # the own speech's turn: at once
            question.future.set_result(Answer(value=question.request.default))
            self.settlements[seat].append({"type": "settled", "rid": question.rid, "why": "self_destruct",
                                           "value": None})
            question.wake.set()
        else:
            self.self_destruct_armed[seat] = armed
        self.notify()
        return None

    async def ask(self, seat: int, request: DecisionRequest, *, self_destruct: bool = False) -> Answer:
        loop = asyncio.get_running_loop()
        question = Question(rid=secrets.token_urlsafe(12), request=request, future=loop.create_future(),
                            asked_at=loop.time(), seconds=self.time_limit(request), self_destruct=self_destruct)
        self.pending[seat] = question
        self.notify()
        try:
            while not question.future.done():
                now = loop.time()
                deadlines = []
                if question.seconds is not None:
                    deadlines.append((question.asked_at + question.seconds, "timeout"))
                away = self.away_since.get(seat)
                if away is not None:
                    deadlines.append((away + self.spec.grace_seconds, "absent"))
                timeout = None
                if deadlines:
                    at, why = min(deadlines)
                    if at <= now:
                        self._settle(seat, question, why)
                        break
                    timeout = at - now
                question.wake.clear()
                waker = loop.create_task(question.wake.wait())
                try:
                    awaited: set[asyncio.Future[Any]] = {question.future, waker}
                    await asyncio.wait(awaited, timeout=timeout,
                                       return_when=asyncio.FIRST_COMPLETED)
                finally:
                    waker.cancel()
        finally:
            if self.pending.get(seat) is question:
                del self.pending[seat]
                self.notify()
        return question.future.result()

    def _settle(self, seat: int, question: Question, why: str) -> None:
        """The decision's default, recorded as a default with the reason."""
        request = question.request
        if why == "timeout":
            error = f"no answer within the time limit of {question.seconds:g} s: the default applies"
        else:
            error = f"the player was away longer than the grace of {self.spec.grace_seconds:g} s: the default applies"
        question.future.set_result(Answer.default_of(request, error))
        self.settlements[seat].append({"type": "settled", "rid": question.rid, "why": why,
                                       "value": request.default})

    def answer(self, seat: int, rid: Any, value: Any) -> str | None:
        """Hand a seat's answer to its pending question; an error message when it is refused."""
        question = self.pending.get(seat)
        if question is None or question.future.done() or not isinstance(rid, str) \
                or not secrets.compare_digest(question.rid, rid):
            return refusal_words("question_closed")
        request = question.request
        legal = request.legal
        if isinstance(legal, Speak):
            if isinstance(value, str) and len(value) > legal.max_chars:
                return refusal_words("speech_too_long", max=legal.max_chars)
            if (value is None or (isinstance(value, str) and not value.strip())) and request.kind in OPTIONAL_SPEECHES:
                value = "pass"
        try:
            checked = request.check(value)
        except IllegalAnswer as exc:
            return refusal_words("illegal_answer", detail=str(exc))
        raw = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        question.future.set_result(Answer(value=checked, extras=AnswerExtras(raw_reply=raw)))
        self.settlements[seat].append({"type": "settled", "rid": rid, "why": "answered", "value": checked})
        question.wake.set()
        self.notify()
        return None

    def connected(self, seat: int) -> None:
        self.joined.add(seat)
        self.connections[seat] += 1
        self.away_since[seat] = None
        self._wake(seat)
        self.start_if_ready()

    def disconnected(self, seat: int) -> None:
        self.connections[seat] -= 1
        if self.connections[seat] <= 0:
            self.connections[seat] = 0
            self.away_since[seat] = asyncio.get_running_loop().time()
            self._wake(seat)

    def _wake(self, seat: int) -> None:
        question = self.pending.get(seat)
        if question is not None:
            question.wake.set()

    def question_message(self, question: Question) -> dict[str, Any]:
        from agents.human import human_templates, question_text

        request = question.request
        skip = {}
        for code in LANGS:
            meanings = human_templates(code)["skip_meaning"]
            skip[code] = meanings.get(request.kind) or meanings["other"]
        return {"type": "ask", "rid": question.rid, "kind": request.kind, "phase": request.asked_in,
                "legal": request.legal.to_json(), "default": request.default,
                "question": {code: question_text(code, request) for code in LANGS}, "skip": skip,
                "optional": request.kind in OPTIONAL_SPEECHES, "seconds": question.seconds,
                "self_destruct": question.self_destruct,
                "remaining": question.remaining(asyncio.get_running_loop().time())}

    # ---- what a connection is sent -------------------------------------------------------------------
    def summary(self) -> dict[str, Any]:
        """What the lobby lists about a table: no tokens, no seed while it is played, and not the
        number of events either (it would tell a player when hidden night actions happen)."""
        return {"id": self.id, "preset": self.preset, "lang": self.lang, "players": self.players,
                "status": self.status, "specs": self.seat_names, "humans": self.human_seats,
                "waiting_for": sorted(set(self.human_seats) - self.joined), "watchers": self.watchers,
                "error": self.error,
                "result": self.result if self.status == "finished" else None}

    async def stream(self, watcher: Watcher, send: Send) -> None:
        """Send a connection everything its view allows, as it happens, until the game is over."""
        await send({"type": "hello", "view": watcher.view, "seat": watcher.seat, "status": self.status,
                    "waiting_for": sorted(set(self.human_seats) - self.joined)})
        status = self.status
        while True:
            changed = self._changed
            if self.status != status:
                status = self.status
                await send({"type": "status", "status": status, "error": self.error})
            if watcher.cursor < len(self.log):
                new = self.log[watcher.cursor:]
                watcher.cursor += len(new)
                batch = []
                for event in watcher.shown(new):
                    data = dict(self.json[self._index[id(event)]])
                    data["seq"] = watcher.sent
                    watcher.sent += 1
                    batch.append(data)
                if batch:
                    await send({"type": "events", "events": batch})
            if watcher.seat is not None:
                await self._send_question(watcher, send)
            if self.status in ENDED and watcher.cursor >= len(self.log):
                if not watcher.result_sent:
                    watcher.result_sent = True
                    await send({"type": "result", "status": self.status, "error": self.error, "result": self.result})
                return
            await changed.wait()

    async def _send_question(self, watcher: Watcher, send: Send) -> None:
        seat = watcher.seat
        assert seat is not None
        standing = self.standing(seat)
        if standing != watcher.standing:
            watcher.standing = standing
            await send(standing)
        done = self.settlements[seat]
        while watcher.settled < len(done):
            message = done[watcher.settled]
            watcher.settled += 1
            if watcher.asked == message["rid"]:
                watcher.asked = None
                await send(message)
        question = self.pending.get(seat)
        if question is not None and not question.future.done() and watcher.asked != question.rid:
            watcher.asked = question.rid
            await send(self.question_message(question))
