"""A human seat: the player sits at the table in the terminal (``arena play --human SEAT``).

The player sees the game only through the seat's :class:`~arena.observation.Observation`, the same
filtered view any agent gets, narrated from the templates in ``prompts/<lang>/``. At each decision
the legal choices are listed; the answer is a seat number, ``skip`` where abstaining is legal, yes
or no, or a line of free text for speeches. An answer that cannot be used (not a number, a dead
seat, an illegal target, an empty speech) gets a message and the same question again: nothing is
lost, and the referee only ever receives answers that ``request.check`` accepted.

Ctrl-C at a question asks whether to abandon the game; yes raises :class:`GameAbandoned` (a
``KeyboardInterrupt``), which the referee records as an abandoned game before the program exits.
Input is read with ``asyncio.to_thread`` so the seats around the human keep their event loop.
"""

from __future__ import annotations

import asyncio
import re
import signal
import sys
import threading
import time
from functools import lru_cache
from typing import IO, Any

import yaml

from agents.base import timed
from arena.actions import (Answer, AnswerExtras, ChooseBool, ChooseOption, ChooseSeat, ChooseSeats, DecisionRequest,
                           IllegalAnswer, Speak, SpeechOrderChoice)
from arena.events import Event
from arena.narration import LANGS, PROMPTS_DIR, Narrator, templates
from arena.observation import Observation, SeatView
from arena.untrusted import printable

_NO_FORCED = object()
#: Private events the terminal narration has no line for, worded by the replay page's templates.
SPELLED_OUT = frozenset({"wolf_knife_vote", "wolf_proposal", "wolf_veto", "wolf_team_message", "witch_told", "hunter_status"})
#: Speeches a seat may simply let go (R138's interjections and replies, asked after every day speech):
#: an empty line means "pass" there instead of an error.
OPTIONAL_SPEECHES = frozenset({"idiot_interject", "interjection_reply"})
#: The referee's self-destruct offers (R67, before every day speech): answered by the player's standing
#: choice, never put as a question of their own.
SELF_DESTRUCT_KINDS = frozenset({"self_destruct", "self_destruct_election"})
_terminal_lock: asyncio.Lock | None = None


def _terminal() -> asyncio.Lock:
    """One question on the terminal at a time, should two human seats share it."""
    global _terminal_lock
    if _terminal_lock is None:
        _terminal_lock = asyncio.Lock()
    return _terminal_lock


class GameAbandoned(KeyboardInterrupt):
    """The human chose to leave; the referee writes the result line with ``abandoned=true``."""


@lru_cache(maxsize=4)
def human_templates(lang: str) -> dict[str, Any]:
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r}; choose one of {', '.join(LANGS)}")
    return yaml.safe_load((PROMPTS_DIR / lang / "human.yaml").read_text(encoding="utf-8"))


def question_text(lang: str, request: DecisionRequest) -> str:
    """The question a decision puts to a human seat, in ``lang`` (the terminal's and the browser's)."""
    t, n = human_templates(lang), templates(lang)

    def s(seat: int | None) -> str:
        return n["nobody"] if seat is None else n["seat"].format(seat=seat)

    ctx = request.context
    template = t["kinds"][request.kind]  # every kind has its question (tests/test_coverage.py)
    fields = {"kind": request.kind}
    for name in ("victim", "before_speaker", "speaker", "idiot", "little_girl", "exiled", "current"):
        fields[name] = s(ctx.get(name))
    mode = ctx.get("mode")
    fields["scapegoat_rule"] = t["scapegoat_rule"][mode] if mode is not None else ""
    return template.format(**fields)


def own_speech_request(offer: DecisionRequest, seconds: int | None = None) -> DecisionRequest:
    """The speech that follows a self-destruct offer made right before the seat's own speech, asked in
    its place (the offer names the speech and its length limit): one question, not two."""
    context = offer.context
    kind = "last_words" if context.get("speech") == "last_words" else "speech"
    return DecisionRequest(id=offer.id, seat=offer.seat, kind=kind, phase=offer.phase, asked_in=offer.asked_in,
                           legal=Speak(max_chars=int(context.get("max_chars") or 2000), seconds=seconds), default="pass",
                           context={"speech": context.get("speech")})


def _words(values: list[Any]) -> set[str]:
    return {str(v).lower() for v in values}


class HumanAgent:
    """Asks the person at the terminal. One instance per human seat."""

    spec = "human"
    deterministic = False

    def __init__(self, seat: int, lang: str = "en", *, stdin: IO[str] | None = None, stdout: IO[str] | None = None):
        self.seat = seat
        self.lang = lang
        self.t = human_templates(lang)
        self.n = templates(lang)
        self.sep: str = self.n.get("list_sep", ", ")  # 、 between Chinese list items
        from arena.viewer import EventText, viewer_labels

        self.v = viewer_labels(lang)
        self.text = EventText(lang)
        self.narrator = Narrator(lang, god_view=False, seat=seat)
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout
        self.color = bool(getattr(self.stdout, "isatty", lambda: False)())
        self._pending: asyncio.Future[str] | None = None  # the one outstanding line read, kept across Ctrl-C
        self._welcomed = False
        #: Set once the table narrates to this seat as events happen (:meth:`watch`); questions then
        #: print no news of their own.
        self._watched: SeatView | None = None
        self._interrupted = asyncio.Event()
        self.skip_words = _words(self.t["skip_words"])
        self.yes_words = _words(self.t["yes_words"])
        self.no_words = _words(self.t["no_words"])
        self.self_destruct_words = _words(self.t["self_destruct_words"])
        #: The standing self-destruct: offered today (the command works), armed (reveal at the next offer).
        self._may_self_destruct = False
        self._armed = False
        self._hinted_in: str | None = None
        #: (offer id, text): the speech typed at the offer right before the seat's own speech
        self._kept_speech: tuple[int, str] | None = None
        #: The table's rule switches, set by ``arena play`` so the role card shows at the reveal itself;
        #: unset, the card shows at the seat's first question (whose observation carries them).
        self.switches: dict[str, Any] | None = None
        self._seen: list[Event] = []  # the events this seat saw, for the card printed from :meth:`watch`
        self._preset = ""
        self._card_of: str | None = None  # the card whose role card was printed last

    # ---- the agent interface ---------------------------------------------------------------
    async def decide(self, observation: Observation, request: DecisionRequest) -> Answer:
        from arena import live

        started = time.perf_counter()
        view = observation.view()
        async with _terminal():
            # Ctrl-C from here on asks before leaving, instead of asyncio's cancel. Installed before
            # the question is printed, so a Ctrl-C typed as soon as it shows is never missed.
            loop = asyncio.get_running_loop()
            self._interrupted = asyncio.Event()
            previous = None
            if threading.current_thread() is threading.main_thread():
                previous = signal.signal(signal.SIGINT, lambda *_: loop.call_soon_threadsafe(self._interrupted.set))
            try:
                return timed(await self._decide(observation, request, view), started)
            finally:
                if previous is not None:
                    signal.signal(signal.SIGINT, previous)

    async def _decide(self, observation: Observation, request: DecisionRequest, view: SeatView) -> Answer:
        from arena import live

        with live.paused():  # a live table view must not redraw over the question
            self._events = observation.events
            self._show_news(observation, view)
            if request.kind in SELF_DESTRUCT_KINDS:
                return await self._self_destruct_offer(request, view)
            kept, self._kept_speech = self._kept_speech, None
            if kept is not None and isinstance(request.legal, Speak) and request.kind in ("speech", "last_words"):
                return Answer(value=request.check(kept[1]), extras=AnswerExtras(raw_reply=kept[1]))
            self._may_self_destruct = self._can_self_destruct(observation, view, request)
            if not self._may_self_destruct:
                self._armed = False
            forced = self._forced(request)
            if forced is not _NO_FORCED:
                self._say(self.t["forced"].format(question=self._question_text(request),
                                                  value=self._value_text(forced)), dim=True)
                return Answer(value=forced)
            self._ask(request, view)
            while True:
                line = await self._read_answer()
                if line is None:  # Ctrl-C, then "go on": the same question again
                    self._ask(request, view)
                    continue
                if line.strip().lower() in self.self_destruct_words:
                    self._toggle_self_destruct()
                    self._ask(request, view, again=True)
                    continue
                try:
                    value = request.check(self.parse(line, request, view))
                except IllegalAnswer as exc:
                    self._say("✗ " + str(exc), error=True)
                    self._ask(request, view, again=True)
                    continue
                return Answer(value=value, extras=AnswerExtras(raw_reply=line))

    # ---- the standing self-destruct (R66-R67) ---------------------------------------------------
    async def _self_destruct_offer(self, request: DecisionRequest, view: SeatView) -> Answer:
        """The referee offers before every day speech; the player is not asked. Yes if the player armed
        the self-destruct (the command typed at any prompt today, or now waiting on the terminal);
        right before the seat's own speech the speech itself is asked, with the command beside it."""
        self._kept_speech = None
        self._may_self_destruct = True
        if self._hinted_in != request.asked_in:
            self._hinted_in = request.asked_in
            self._say(self.t["self_destruct_hint"], dim=True)
        typed = self._typed_line()
        if typed is not None and typed.strip().lower() in self.self_destruct_words:
            self._armed = True
        elif typed is not None:  # an answer typed ahead: the next question's
            self._pending = asyncio.get_running_loop().create_future()
            self._pending.set_result(typed + "\n")
        if self._armed:
            self._armed = False
            self._say(self.t["self_destruct_now"], bold=True)
            return Answer(value=True, extras=AnswerExtras(raw_reply="self-destruct (standing choice)"))
        if request.context.get("before_speaker") != self.seat:
            return Answer(value=False, extras=AnswerExtras(note="standing choice: not armed"))
        speech = own_speech_request(request)
        self._ask(speech, view, extra=self.t["self_destruct_own_turn"])
        while True:
            line = await self._read_answer()
            if line is None:
                self._ask(speech, view, extra=self.t["self_destruct_own_turn"])
                continue
            if line.strip().lower() in self.self_destruct_words:
                self._say(self.t["self_destruct_now"], bold=True)
                return Answer(value=True, extras=AnswerExtras(raw_reply=line))
            try:
                text = speech.check(self.parse(line, speech, view))
            except IllegalAnswer as exc:
                self._say("✗ " + str(exc), error=True)
                self._ask(speech, view, again=True, extra=self.t["self_destruct_own_turn"])
                continue
            self._kept_speech = (request.id, text)
            return Answer(value=False, extras=AnswerExtras(raw_reply=line, note="the seat's speech follows"))

    def _can_self_destruct(self, observation: Observation, view: SeatView, request: DecisionRequest) -> bool:
        """R66-R67: by day, alive, holding a wolf card the rules in force let self-destruct."""
        from agents.llm_prompts import PromptBuilder

        return (request.asked_in.startswith("D") and self.seat in view.alive
                and PromptBuilder.may_self_destruct(observation, view))

    def _toggle_self_destruct(self) -> None:
        if not self._may_self_destruct:
            self._say(self.t["self_destruct_not_now"], error=True)
            return
        self._armed = not self._armed
        self._say(self.t["self_destruct_armed" if self._armed else "self_destruct_disarmed"], bold=True)

    def _typed_line(self) -> str | None:
        """A whole line already typed on a terminal, read without waiting (None: nothing typed). Never a
        blocking read: a read left waiting would keep the program from exiting at the game's end."""
        pending = self._pending
        if pending is not None:
            if not pending.done():
                return None
            self._pending = None
            line = pending.result()
            return None if line == "" else line.rstrip("\r\n")
        try:
            if not self.stdin.isatty():
                return None
            import select

            if not select.select([self.stdin], [], [], 0)[0]:
                return None
        except (AttributeError, OSError, ValueError):
            return None
        line = self.stdin.readline()
        return None if line == "" else line.rstrip("\r\n")

    # ---- what the player is shown ----------------------------------------------------------
    def s(self, seat: int | None) -> str:
        return self.n["nobody"] if seat is None else self.n["seat"].format(seat=seat)

    def seats(self, seats: Any) -> str:
        seats = sorted(seats)
        return self.sep.join(self.s(x) for x in seats) if seats else self.n["nobody"]

    def role(self, role: str | None) -> str:
        if not role:
            return self.t["unknown_role"]
        return self.v["role"].get(role, role)

    def _say(self, text: str, *, error: bool = False, dim: bool = False, bold: bool = False, end: str = "\n") -> None:
        if self.color and (error or dim or bold):
            code = "31" if error else "2" if dim else "1"
            text = f"\x1b[{code}m{printable(text)}\x1b[0m"
        else:
            text = printable(text)
        self.stdout.write(text + end)
        self.stdout.flush()

    def _welcome(self, role: str | None) -> None:
        if not self._welcomed:
            self._welcomed = True
            self._say(self.t["banner"].format(seat=self.seat, role=self.role(role)), bold=True)
            self._say(self.t["welcome"].format(seat=self.seat, role=self.role(role)))

    def _event_line(self, event: Event) -> str | None:
        line = self.narrator.line(event)
        if line is None and event.type in SPELLED_OUT and event.visibility.allows(self.seat):
            line = ("  🐺 " if event.type.startswith("wolf_") else "  ") + self.text.line(event)
        return line

    def _show_card(self, observation: Observation) -> None:
        """The role card (agents/role_card.py, the browser's too), once per card the seat holds."""
        from agents.role_card import role_card

        role = observation.view().role
        if role is None or role == self._card_of:
            return
        self._card_of = role
        # the referee's observation is in the table's language; the card is in the seat's own
        own = Observation(seat=self.seat, players=observation.players, preset=observation.preset,
                          switches=observation.switches, events=list(observation.events), lang=self.lang)
        card = role_card(own, knife_rule=self.t["role_card_knife"], self_destruct_rule=self.t["role_card_self_destruct"])
        self._say(self.t["role_card"], bold=True)
        self._say(card)

    def _show_news(self, observation: Observation, view: SeatView) -> None:
        self._welcome(view.role)
        self._show_card(observation)
        if self._watched is not None:
            return  # every event was narrated as it happened
        from arena import live

        shown = live.active()
        if shown is not None and getattr(shown, "seat", None) == self.seat:
            return  # the live view already draws this seat's events
        for event in observation.new_events:
            line = self._event_line(event)
            if line:
                self._say(line)

    def watch(self, event: Event) -> None:
        """Narrate one event of the game as it happens, if this seat may see it.

        Wired by ``arena play`` as the table's event listener, so the player follows the table
        between questions and to the very end: the last tally, the exile, the result. A player who
        is out keeps watching, as a spectator of the same seat: still only what the seat may see."""
        if self._watched is None:
            if event.type != "game_started":
                return
            self._watched = SeatView(seat=self.seat, players=event.players, alive=set(range(1, event.players + 1)))
            self._preset = event.preset
        if not event.visibility.allows(self.seat):
            return
        view = self._watched
        was_alive = self.seat in view.alive
        view.apply(event)
        self._seen.append(event)
        if event.type == "role_assigned" and event.seat == self.seat:
            self._welcome(view.role)
            if self.switches is not None:
                self._show_card(Observation(seat=self.seat, players=view.players, preset=self._preset,
                                            switches=self.switches, events=self._seen, lang=self.lang))
        line = self._event_line(event)
        if line:
            self._say(line)
        if was_alive and self.seat not in view.alive:
            self._say(self.t["spectating"].format(seat=self.s(self.seat)), dim=True)

    def _status(self, view: SeatView) -> str:
        dead = sorted(set(range(1, view.players + 1)) - view.alive)
        lines = [self.t["status"].format(alive=self.seats(view.alive), dead=self.seats(dead),
                                         sheriff=self.s(view.sheriff))]
        if view.wolves and self.seat in view.wolves:
            lines.append(self.t["wolves"].format(wolves=self.seats(view.wolves)))
        if view.seer_results:
            checks = self.sep.join(self.t["check_wolf" if r == "wolf" else "check_good"].format(seat=self.s(s))
                               for s, r in view.seer_results.items())
            lines.append(self.t["checks"].format(checks=checks))
        # the same state an LLM seat is told: potions, guards, speaking order, public claims, votes so far
        from agents.llm_prompts import PromptBuilder

        state = PromptBuilder(self.lang, self.seat).state_lines(view, getattr(self, "_events", ()))
        checks_prefix = PromptBuilder(self.lang, self.seat).book.decisions["state"]["checks"].split("{")[0]
        lines += [ln for ln in state if not (view.seer_results and ln.startswith(checks_prefix))]
        if view.sheriff is None:  # no sheriff today: the order line says nothing of one
            lines = [self._without_sheriff_clause(ln) for ln in lines]
        return "\n".join(lines)

    def _without_sheriff_clause(self, line: str) -> str:
        from agents.llm_prompts import prompt_book

        state = prompt_book(self.lang).decisions["state"]
        for key in ("speaking_order", "speaking_order_alive"):
            head, _, tail = state[key].partition("{order}")
            if line.startswith(head) and line.endswith(tail):
                return head + line[len(head):len(line) - len(tail)] + self.t["order_end"][key]
        return line

    def _question_text(self, request: DecisionRequest) -> str:
        return question_text(self.lang, request)

    def _choices_text(self, request: DecisionRequest) -> str:
        legal = request.legal
        if isinstance(legal, ChooseSeat):
            text = self.t["choices_seat"].format(options=self.sep.join(str(o) for o in legal.options))
            if request.kind == "wolf_kill":  # the final show: the teammates' proposals are above
                text = self.t["knife_rule"] + "\n" + text
            if legal.allow_none:
                meaning = self.t["skip_meaning"].get(request.kind) or self.t["skip_meaning"]["other"]
                text += "\n" + self.t["choices_skip"].format(meaning=meaning)
            return text
        if isinstance(legal, ChooseBool):
            default = ""
            if request.default is False:
                default = self.t["default_no"]
            elif request.default is True:
                default = self.t["default_yes"]
            return self.t["choices_bool"].format(default=default)
        if isinstance(legal, Speak):
            return self.t["choices_text_optional" if request.kind in OPTIONAL_SPEECHES else "choices_text"]
        if isinstance(legal, ChooseSeats):
            count = str(legal.min_count) if legal.min_count == legal.max_count else f"{legal.min_count}-{legal.max_count}"
            return self.t["choices_seats"].format(count=count, options=self.sep.join(str(o) for o in legal.options),
                                                  skip=self.t["choices_seats_skip"] if legal.allow_none else "")
        if isinstance(legal, ChooseOption):
            return self.t["choices_option"].format(options=self.sep.join(self._value_text(o) for o in legal.options))
        if isinstance(legal, SpeechOrderChoice):
            starts = list(legal.starts)
            return self.t["choices_order"].format(example=starts[0] if starts else 1,
                                                  starts=self.t["order_starts"][legal.starts_from],
                                                  options=self.sep.join(str(s) for s in starts))
        return ""

    def _ask(self, request: DecisionRequest, view: SeatView, *, again: bool = False, extra: str = "") -> None:
        if not again:
            self._say("")
            self._say(self._status(view), dim=True)
        phase = request.asked_in
        phase_text = self.v["night" if phase.startswith("N") else "day"].format(n=phase[1:])
        self._say(self.t["question"].format(phase=phase_text, text=self._question_text(request)), bold=True)
        self._say("   " + self._choices_text(request).replace("\n", "\n   "))
        if extra:
            self._say(extra)
        self._say(self.t["prompt"], end="")

    def _value_text(self, value: Any) -> str:
        if value is True:
            return self.v["answer_yes"]
        if value is False:
            return self.v["answer_no"]
        if value is None:
            return self.v["none_choice"]
        return str(value)

    # ---- reading and parsing answers -------------------------------------------------------
    def _forced(self, request: DecisionRequest) -> Any:
        """A question with one possible answer (a save she may not make) is answered for the player."""
        legal = request.legal
        if isinstance(legal, ChooseOption) and len(legal.options) == 1:
            return legal.options[0]
        if isinstance(legal, ChooseSeat) and not legal.options and legal.allow_none:
            return None
        return _NO_FORCED

    def error(self, key: str, **fields: Any) -> IllegalAnswer:
        return IllegalAnswer(self.t["errors"][key].format(**fields))

    def parse(self, line: str, request: DecisionRequest, view: SeatView) -> Any:
        """The typed line as a value for ``request.check``; raises IllegalAnswer with a clear message."""
        text = line.strip()
        legal = request.legal
        if isinstance(legal, Speak):
            if not text and request.kind in OPTIONAL_SPEECHES:
                return "pass"
            if not text:
                raise self.error("empty_speech")
            return text
        lowered = text.lower()
        if isinstance(legal, ChooseBool):
            if not text and isinstance(request.default, bool):
                return request.default
            if lowered in self.yes_words:
                return True
            if lowered in self.no_words:
                return False
            raise self.error("yes_no") if text else self.error("empty")
        if not text:
            raise self.error("empty")
        if isinstance(legal, ChooseSeat):
            if lowered in self.skip_words:
                if not legal.allow_none:
                    raise self.error("skip_not_allowed")
                return None
            seat = self._seat_number(text)
            self._check_seat(seat, legal.options, view)
            return seat
        if isinstance(legal, ChooseSeats):
            if lowered in self.skip_words:
                return None
            seats = [self._seat_number(part) for part in re.split(r"[\s,，、]+", text) if part]
            for seat in seats:
                self._check_seat(seat, legal.options, view)
            if not legal.min_count <= len(seats) <= legal.max_count:
                count = str(legal.min_count) if legal.min_count == legal.max_count else \
                    f"{legal.min_count}-{legal.max_count}"
                raise self.error("count", count=count)
            return seats
        if isinstance(legal, ChooseOption):
            for option in legal.options:
                if lowered == str(option).lower() or lowered == self._value_text(option).lower():
                    return option
            return text
        if isinstance(legal, SpeechOrderChoice):
            parts = re.split(r"[\s,，、]+", text)
            try:
                start = self._seat_number(parts[0])
            except IllegalAnswer:
                raise self.error("bad_order", example=(legal.starts or (1,))[0]) from None
            direction = parts[1].lower() if len(parts) > 1 else ""
            if direction in _words(self.t["asc_words"]):
                return {"start": start, "direction": "ascending"}
            if direction in _words(self.t["desc_words"]):
                return {"start": start, "direction": "descending"}
            raise self.error("bad_order", example=(legal.starts or (1,))[0])
        return text

    def _seat_number(self, text: str) -> int:
        match = re.fullmatch(r"#?\s*(\d+)\s*号?", text.strip())
        if not match:
            raise self.error("not_a_number", text=text.strip())
        return int(match.group(1))

    def _check_seat(self, seat: int, options: Any, view: SeatView) -> None:
        if seat in options:
            return
        if not 1 <= seat <= view.players:
            raise self.error("no_such_seat", seat=seat)
        if seat not in view.alive:
            raise self.error("dead_seat", seat=self.s(seat))
        raise self.error("illegal_seat", seat=self.s(seat))

    async def _next(self, interrupted: asyncio.Event) -> tuple[str, str | None]:
        """("line", text), ("eof", None) or ("interrupt", None). A read cut short by Ctrl-C stays
        pending and delivers the next line typed, so no keystroke is lost or read twice."""
        if self._pending is None:
            self._pending = asyncio.ensure_future(asyncio.to_thread(self.stdin.readline))
        waiter = asyncio.ensure_future(interrupted.wait())
        try:
            waiting: set[asyncio.Future[Any]] = {self._pending, waiter}
            done, _ = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiter.cancel()
        if self._pending in done:
            line = self._pending.result()
            self._pending = None
            if line == "":
                return "eof", None
            return "line", line.rstrip("\r\n")
        interrupted.clear()
        return "interrupt", None

    async def _read_answer(self) -> str | None:
        """The next line typed, or None after Ctrl-C when the player chose to go on."""
        interrupted = self._interrupted
        kind, text = await self._next(interrupted)
        if kind == "line":
            return text
        if kind == "eof":  # stdin closed: nobody is left to answer
            self._say("\n" + self.t["abandoned"], error=True)
            raise GameAbandoned()
        self._say("\n" + self.t["abandon_question"], end="")
        while True:
            kind, text = await self._next(interrupted)
            if kind == "interrupt":
                self._say("\n" + self.t["abandon_second"])
                self._say(self.t["abandon_question"], end="")
                continue
            if kind == "eof" or (text or "").strip().lower() in self.yes_words:
                self._say(self.t["abandoned"], error=True)
                raise GameAbandoned()
            self._say(self.t["resumed"], dim=True)
            return None


def _factory(rest: str, *, seat: int, seed: int = 0, **options: Any) -> HumanAgent:
    return HumanAgent(seat, lang=options.get("lang", "en"))


def _register() -> None:
    from agents import registry

    registry.register("human", _factory)


_register()
