"""The LLM seat: render the prompt, call the model, read the answer, repair, fall back.

One decision:

1. Render the prompt from the seat's observation (``agents.llm_prompts``): rules, answer format
   and role, the history (full or rolling summary), then the state line, the seat's own notes and
   the question.
2. Ask the provider (through :class:`~agents.providers.wrapper.ManagedProvider`: timeouts,
   retries, caps, usage) for the structured answer of ``agents.llm_answer``.
3. Read the JSON (native structured output, or extracted from prose) and check the action with
   the request's legal set. An unreadable or illegal answer is re-asked with the exact error, at
   most ``max_repairs`` times (default 2); then the request's ``default`` is used.
4. Return an :class:`~arena.actions.Answer` whose ``extras`` (:class:`~arena.actions.AnswerExtras`)
   record every attempt and its error, the prompt, the raw reply (with native thinking, if any),
   usage, cost and each reply's provenance, and the memory in force.

Self-destruct questions (``self_destruct``, ``self_destruct_election``) are put to every living
wolf before every speech: by default (``self_destruct="own_turn"``) the agent answers ``False``
without a model call except right before its own speech, which keeps calls per game bounded.
``"always"`` asks the model every time, ``"never"`` never does. Right before its own speech the
question is folded into the speech's: one call asks for the speech and a ``self_destruct``
boolean; the speech is kept for the speech request that follows, if nothing has happened since
(:class:`KeptSpeech`), and the model is asked again otherwise.

The wolves' final show needs no call when the conferral already agrees: when the seat's own latest
proposal equals every teammate's, the agent shows it (:meth:`LLMAgent._agreed_show`).
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

from agents.base import timed
from agents.llm_answer import (
    DESTRUCT_BEFORE_KEY,
    AnswerFormatError,
    ReadAnswer,
    answer_schema,
    belief_schema,
    clean_beliefs,
    read_answer,
    read_beliefs,
    read_claims,
    read_self_destruct,
    read_summary,
)
from agents.llm_prompts import LANGS, PROMPTS_DIR, LastBeliefs, PromptBuilder, latest_proposal
from agents.providers.base import AnswerSchema, ChatMessage, GenerateOptions, Usage
from agents.providers.budget import DEFAULT_EFFORT, REASONING_HEADROOM, max_tokens_of, sized_max_tokens
from agents.providers.secrets import FORBIDDEN_OPTIONS, redact, redact_known
from agents.providers.wrapper import ManagedProvider
from arena.actions import (
    Answer,
    AnswerAttempt,
    AnswerExtras,
    DecisionRequest,
    IllegalAnswer,
    ModelUsage,
    ReplyProvenance,
    Speak,
)
from arena.observation import Observation
from arena.stopping import SeatUnreachable

SELF_DESTRUCT_KINDS = frozenset({"self_destruct", "self_destruct_election"})
WOLF_SHOW = "wolf_kill"  # the wolves' final show (R24), after their conferral
BELIEF_UPDATE = "belief"  # the referee's belief request (arena.rules.beliefs)
# A refused key, a forbidden model, an unknown model or path: no later call can succeed.
FATAL_STATUSES = frozenset({401, 403, 404})
# Failures that mean the endpoint is not there at all (when it has never answered this seat).
DOWN_KINDS = frozenset({"connection", "timeout", "breaker", "deadline", "server"})


class LLMAgentOptions(BaseModel):
    """Per-seat behaviour. Generation options (temperature...) live in :class:`GenerateOptions`."""

    model_config = ConfigDict(extra="forbid")

    lang: Literal["en", "zh"] | None = Field(default=None, description="None: the observation's language")
    memory: Literal["full", "summary"] = "full"
    summary_max_chars: int = Field(default=1200, ge=100, description=(
        "summary memory: the length asked of the seat's own summary of each day, written at its end"))
    claims_line: Literal["off", "reader"] = Field(default="off", description=(
        "off: no claims line in the prompt; reader: the automatic reading of the speeches "
        "(arena.evaluate.claims), labelled as such, each item with its day"))
    declare_claims: bool = Field(default=True, description=(
        "a speech answer lists the public claims it makes (\"claims\"); they are appended to the speech, "
        "in the table's words, so every listener reads them exactly (#25 item 4)"))
    max_repairs: int = Field(default=2, ge=0, description="re-asks after an unusable answer")
    self_destruct: Literal["own_turn", "always", "never"] = "own_turn"
    beliefs: Literal["off", "votes", "day_end", "every_speech"] = Field(default="votes", description=(
        "belief elicitation: off; votes (P(wolf) per seat with each exile vote); day_end (one report "
        "after each day's discussion); every_speech (a short update after each speech heard)"))
    notes_max_chars: int = Field(default=600, ge=1)
    reasoning_max_chars: int = Field(default=1500, ge=1, description="maxLength asked of the reasoning field")
    speech_max_chars: int | None = Field(default=800, description="asked-for length of a speech (<= the legal max)")
    record_prompt: Literal["full", "question", "none"] = "full"
    raw_reply_max_chars: int = 4000

    @field_validator("beliefs", mode="before")
    @classmethod
    def _belief_mode(cls, value: Any) -> str:
        from arena.rules.beliefs import check_mode

        return check_mode(value)  # true/false of older configs mean votes/off; a bad name says the modes


@lru_cache(maxsize=8)
def prompt_version(lang: str | None = None) -> str:
    """``prompts:<8 hex>``: a hash of the template files an LLM seat renders from
    (``prompts/<lang>/llm_*.yaml``; every language's when ``lang`` is None). Line endings are
    normalised, so a Windows checkout hashes the same."""
    langs = [lang] if lang in LANGS else list(LANGS)
    h = hashlib.sha256()
    for code in langs:
        for path in sorted((PROMPTS_DIR / code).glob("llm_*.yaml")):
            h.update(f"{code}/{path.name}\0".encode())
            h.update(path.read_bytes().replace(b"\r\n", b"\n"))
            h.update(b"\0")
    return "prompts:" + h.hexdigest()[:8]


def _endpoint(url: Any) -> str | None:
    """``scheme://host[:port]`` of a base URL: no user, password, path or query (where keys hide)."""
    if not url:
        return None
    try:
        parts = urlsplit(str(url))
        host = parts.hostname
        port = parts.port
    except ValueError:
        return None
    if not host:
        return None
    return redact(f"{parts.scheme}://{host}{f':{port}' if port else ''}")


def _clean(settings: dict[str, Any]) -> dict[str, Any]:
    """Settings without anything key-shaped: a forbidden name is dropped, every string redacted."""
    out: dict[str, Any] = {}
    for key, value in settings.items():
        if key.lower() in FORBIDDEN_OPTIONS or key.lower() in ("base_url", "model_kwargs", "headers"):
            continue
        if isinstance(value, dict):
            value = _clean(value)
        elif isinstance(value, str):
            value = redact(value)
        out[key] = value
    return out


class LLMAgent:
    """An :class:`agents.base.Agent` backed by a language model.

    ``prompt_version(lang)`` and ``settings`` go into the transcript header (the referee reads
    them with ``getattr``): which templates the seat rendered from and its non-secret options, in
    the vocabulary of a config file's options (never a key, a base URL only as scheme and host).
    """

    deterministic = False

    def __init__(self, spec: str, seat: int, provider: ManagedProvider, *,
                 options: LLMAgentOptions | None = None, generate: GenerateOptions | None = None):
        self.spec = spec
        self.seat = seat
        self.provider = provider
        self.options = options or LLMAgentOptions()
        self.generate = generate or GenerateOptions()
        self.notes: str | None = None
        self.last_beliefs: LastBeliefs | None = None
        self._builders: dict[str, PromptBuilder] = {}
        self.calls = 0
        self.usage = Usage()
        self.reached = False  # has the endpoint ever answered this seat?
        self._kept: KeptSpeech | None = None  # the speech given with the last self-destruct answer
        self._summary_calls: list[tuple[int, _Asked]] = []  # day summaries asked since the last decision
        self._lang = "en"  # the language of the game being played (for sizing max_tokens)
        #: A wolf's standing instruction (#25 item 7): (day phase, the seat before whose speech it
        #: self-destructs, or None), from its latest day answer; answers the offers before others' speeches.
        self._destruct_before: tuple[str, int | None] | None = None

    @property
    def belief_mode(self) -> str:
        """How this seat reports beliefs (arena.rules.beliefs): the referee asks ``day_end`` and
        ``every_speech`` seats itself."""
        return self.options.beliefs

    def prompt_version(self, lang: str | None = None) -> str:
        """The hash of the templates this seat uses in a game whose language is ``lang``."""
        return prompt_version(self.options.lang or lang)

    @property
    def settings(self) -> dict[str, Any]:
        inner = self.provider.provider
        settings: dict[str, Any] = {"provider": self.provider.name, "model": self.provider.model}
        endpoint = _endpoint(getattr(inner, "base_url", None))
        if endpoint:
            settings["endpoint"] = endpoint
        for name in ("api", "store"):  # the OpenAI adapter's API choice, as resolved for this model
            if hasattr(inner, name):
                settings[name] = getattr(inner, name)
        settings.update(self.generate.model_dump(mode="json"))
        settings.update(self.options.model_dump(mode="json"))
        settings.update(self.provider.policy.model_dump(mode="json"))
        config = getattr(inner, "config", None)
        if self.provider.name == "mock" and isinstance(config, BaseModel):
            # The stand-in's fault injection and latency; its seed is per seat, like a jitter seed.
            mock = config.model_dump(mode="json", exclude_defaults=True, exclude={"seed"})
            if mock:
                settings["mock"] = mock
        return _clean(settings)

    def builder(self, lang: str) -> PromptBuilder:
        if lang not in self._builders:
            self._builders[lang] = PromptBuilder(lang, self.seat, memory=self.options.memory,
                                                 self_destruct=self.options.self_destruct,
                                                 claims_line=self.options.claims_line,
                                                 declare_claims=self.options.declare_claims)
        return self._builders[lang]

    # ---- decisions that need no model -----------------------------------------------------
    def _skip(self, observation: Observation, request: DecisionRequest) -> Answer | None:
        if request.kind in SELF_DESTRUCT_KINDS:
            policy = self.options.self_destruct
            before = (request.context or {}).get("before_speaker")
            own_turn = before == self.seat
            standing = self._destruct_before
            if policy == "own_turn" and not own_turn and standing is not None and standing == (request.phase, before):
                return Answer(value=True, extras=AnswerExtras(note=(
                    f"self_destruct={policy}: the seat's standing instruction (its latest day answer) names "
                    f"#{before}: self-destructs without a model call")))
            if policy == "never" or (policy == "own_turn" and not own_turn):
                return Answer(value=False, extras=AnswerExtras(
                    note=f"self_destruct={policy}: answered without a model call"))
        if request.kind == WOLF_SHOW:
            agreed = self._agreed_show(observation, request)
            if agreed is not None:
                return agreed
        only = _only_choice(request.legal)
        if only is not _NO_SINGLE:
            return Answer(value=only, extras=AnswerExtras(note="a single legal choice"))
        return None

    def _agreed_show(self, observation: Observation, request: DecisionRequest) -> Answer | None:
        """R24's final show when the conferral already agrees: this seat's latest proposal tonight
        equals the latest proposal of every other knife holder (the same seat, or all no kill), so
        the seat shows it without a model call. Anything else (a teammate who has not proposed, a
        target since objected to) is put to the model."""
        ctx = request.context or {}
        wolves, proposals = ctx.get("wolves") or (), ctx.get("proposals") or ()
        latest = latest_proposal(observation.events, self.seat, request.asked_in)
        if latest is None or not proposals:
            return None
        own = latest[0]
        theirs = {p[0]: p[1] for p in proposals if isinstance(p, (list, tuple)) and len(p) == 2}
        if set(theirs) != set(wolves) - {self.seat} or any(t != own for t in theirs.values()):
            return None
        try:
            value = request.check(own)
        except IllegalAnswer:
            return None
        said = "no kill" if own is None else f"#{own}"
        note = (f"the conferral agrees ({said}, this seat's own latest proposal and every teammate's): "
                "shown without a model call")
        return Answer(value=value, extras=AnswerExtras(note=note, memory={"agreed": own, "note": note}))

    # ---- the decision --------------------------------------------------------------------
    async def decide(self, observation: Observation, request: DecisionRequest) -> Answer:
        started = time.perf_counter()
        return timed(await self._decide(observation, request), started)

    def _speech_chars(self, request: DecisionRequest) -> int | None:
        """The length a speech is asked for: the legal set's limit or the seat's own, the shorter."""
        if getattr(request.legal, "type", None) != "text":
            return None
        limits = [x for x in (getattr(request.legal, "max_chars", None), self.options.speech_max_chars) if x]
        return min(limits) if limits else None

    async def _decide(self, observation: Observation, request: DecisionRequest) -> Answer:
        kept, self._kept = self._kept, None  # a kept speech answers only the very next request
        self._lang = self.options.lang or observation.lang or "en"  # sizes max_tokens (generation)
        if kept is not None:
            reused = kept.answer(observation, request, self._speech_chars(request))
            if reused is not None:
                return reused
        skipped = self._skip(observation, request)
        if skipped is not None:
            return skipped
        self._tell_stand_in(observation, request)
        await self._summarize_days(observation)
        ctx = request.context or {}
        if (request.kind in SELF_DESTRUCT_KINDS and ctx.get("before_speaker") == self.seat
                and ctx.get("speech") and ctx.get("max_chars")):  # the offer says which speech comes next
            return await self._self_destruct_with_speech(observation, request)
        lang = self.options.lang or observation.lang or "en"
        speech_chars = self._speech_chars(request)
        builder = self.builder(lang)
        belief_update = request.kind == BELIEF_UPDATE
        if belief_update:  # day_end / every_speech: a short prompt of its own, answered with beliefs only
            built = builder.build_belief(observation, request, notes=self.notes, last=self.last_beliefs)
            schema = belief_schema(built.belief_seats)
            asked = await self._ask(built.messages, schema,
                                    lambda reply: request.check(read_beliefs(reply.text, reply.parsed, built.belief_seats)),
                                    lambda error: builder.belief_repair(error, built.legal_text))
            extras = self._extras(asked, built.memory)
            if not asked.ok:
                return self._fallback(request, asked, extras)
            self._remember_beliefs(observation, request, asked.value)
            return Answer(value=asked.value, beliefs=asked.value, extras=extras)

        built = builder.build(observation, request, notes=self.notes,
                              beliefs=self.options.beliefs == "votes", speech_chars=speech_chars)
        destruct_before = self._destruct_seats(builder, observation, request)
        schema = answer_schema(request, belief_seats=built.belief_seats,
                               reasoning_chars=self.options.reasoning_max_chars,
                               notes_chars=self.options.notes_max_chars, speech_chars=speech_chars,
                               claims=self.options.declare_claims, destruct_before=destruct_before)
        legal_type = getattr(request.legal, "type", None)

        def parse(reply: Any) -> tuple[ReadAnswer, Any]:
            read = read_answer(reply.text, reply.parsed, legal_type)
            value = request.check(read.action)
            if legal_type == "text":
                value = self._declared(builder, request, read, value, observation.players)
            return read, value

        asked = await self._ask(built.messages, schema, parse, lambda error: builder.repair(error, built.legal_text))
        extras = self._extras(asked, built.memory)
        if not asked.ok:
            return self._fallback(request, asked, extras)
        read, value = asked.value
        self._keep_notes(read)
        self._keep_destruct_before(request, read, destruct_before)
        beliefs = clean_beliefs(read.beliefs_raw, built.belief_seats) if built.belief_seats else None
        self._remember_beliefs(observation, request, beliefs)
        return Answer(value=value, reasoning=read.reasoning, notes=read.notes, beliefs=beliefs, extras=extras)

    async def _self_destruct_with_speech(self, observation: Observation, request: DecisionRequest) -> Answer:
        """The self-destruct question right before this seat's own speech, asked in one call with
        the speech: the answer carries the speech in ``action`` and the ``self_destruct`` boolean.
        The speech is kept for the speech request that follows (:class:`KeptSpeech`); a wolf that
        self-destructs gives none. It is asked as the speech the referee's offer says comes next (its
        kind and this seat's length limit, in the offer's context)."""
        lang = self.options.lang or observation.lang or "en"
        builder = self.builder(lang)
        ctx = request.context or {}
        speech = DecisionRequest(
            id=request.id, seat=self.seat, kind="speech", phase=request.phase, asked_in=request.asked_in,
            legal=Speak(max_chars=int(ctx["max_chars"])), default="pass", context={"speech": ctx["speech"]})
        speech_chars = self._speech_chars(speech)
        built = builder.build(observation, speech, notes=self.notes, beliefs=False, speech_chars=speech_chars,
                              self_destruct_kind=str(request.kind))
        schema = answer_schema(speech, reasoning_chars=self.options.reasoning_max_chars,
                               notes_chars=self.options.notes_max_chars, speech_chars=speech_chars,
                               self_destruct=True, claims=self.options.declare_claims)

        def parse(reply: Any) -> tuple[ReadAnswer, bool, str | None]:
            read = read_answer(reply.text, reply.parsed, "text")
            destruct = request.check(read_self_destruct(read))
            # The answer is judged whole: a bad speech is re-asked even beside a self-destruct (which
            # then gives none), as any bad part of an answer is.
            text = self._declared(builder, speech, read, speech.check(read.action), observation.players)
            return (read, True, None) if destruct else (read, False, text)

        asked = await self._ask(built.messages, schema, parse, lambda error: builder.repair(error, built.legal_text))
        extras = self._extras(asked, built.memory)
        if not asked.ok:
            return self._fallback(request, asked, extras)
        read, destruct, text = asked.value
        self._keep_notes(read)
        if destruct:
            extras.note = "asked with this seat's speech in one model call: it self-destructs, so the speech is not given"
        else:
            assert text is not None
            self._kept = KeptSpeech.of(request, observation, str(speech.context["speech"]), text)
            extras.note = ("asked with this seat's speech in one model call: the speech answers the speech "
                           "request that follows, if nothing happens before it")
        # The decision line says so too (its memory record): the prompt asked for the speech as well.
        extras.memory = {**(extras.memory or {}), "asked_with_speech": speech.context["speech"],
                         "speech_kept": not destruct}
        return Answer(value=destruct, reasoning=read.reasoning, notes=read.notes, extras=extras)

    async def _summarize_days(self, observation: Observation) -> None:
        """Summary memory: at this seat's first call after a day has ended, its model writes its own
        summary of that day with the whole day in view; the summary is kept (appended, never rewritten)
        and replaces that day's other speeches in later prompts (agents.llm_prompts.render_history)."""
        if self.options.memory != "summary" or not observation.events:
            return
        lang = self.options.lang or observation.lang or "en"
        builder = self.builder(lang)
        phase = observation.events[-1].phase
        ended = sorted({int(e.phase[1:]) for e in observation.events
                        if e.phase.startswith("D") and e.phase[1:].isdigit() and e.phase != phase})
        for day in ended:
            if day in builder.summaries:
                continue
            chars = self.options.summary_max_chars
            built = builder.build_day_summary(observation, day, chars)
            schema = AnswerSchema(name="day_summary", json_schema={
                "type": "object", "properties": {"summary": {"type": "string", "maxLength": chars,
                                                             "description": "your own summary of the day"}},
                "required": ["summary"], "additionalProperties": False})

            def parse(reply: Any) -> str:
                return read_summary(reply.text, reply.parsed, chars)

            asked = await self._ask(built.messages, schema, parse, lambda error: builder.repair(error, ""))
            builder.summaries[day] = str(asked.value) if asked.ok else ""  # a failed summary is not re-asked
            self._summary_calls.append((day, asked))

    def generation(self, schema: Any) -> GenerateOptions:
        """The call's generation options. ``max_tokens`` left unset is sized to the answer asked (#25
        item 8, :func:`agents.providers.budget.max_tokens_of`): the schema's string limits at the
        table's language's tokens per character, the JSON around them, and for a reasoning model the
        reasoning it spends inside the same limit, by its effort. A seat's own ``max_tokens`` wins."""
        if self.generate.max_tokens is not None:
            return self.generate
        return self.generate.model_copy(update={"max_tokens": max_tokens_of(
            self.provider.provider, self.generate, schema, lang=self.options.lang or self._lang)})

    def _tell_stand_in(self, observation: Observation, request: DecisionRequest) -> None:
        """``mock:talker``'s side channel: the seat's own observation before its call, the facts a real
        model reads in its prompt (the stand-in never reads the prompt, so a game plays the same
        under every memory strategy)."""
        self._lang = self.options.lang or observation.lang or "en"
        observe = getattr(self.provider.provider, "observe", None)
        if observe is not None:
            observe(observation, request, self.options.lang or observation.lang or "en")

    def _destruct_seats(self, builder: PromptBuilder, observation: Observation, request: DecisionRequest) -> list[int] | None:
        """The seats a wolf may name in its standing self-destruct instruction: on a day decision, under
        the own_turn policy, when its card may self-destruct; the living others (None: no field)."""
        if (self.options.self_destruct != "own_turn" or not str(request.phase).startswith("D")
                or request.kind in SELF_DESTRUCT_KINDS):
            return None
        view = observation.view()
        if not builder.may_self_destruct(observation, view) or self.seat not in view.alive:
            return None
        return sorted(s for s in view.alive if s != self.seat) or None

    def _keep_destruct_before(self, request: DecisionRequest, read: ReadAnswer, seats: list[int] | None) -> None:
        if seats is None:
            return
        named = (read.payload or {}).get(DESTRUCT_BEFORE_KEY)
        legal = isinstance(named, int) and not isinstance(named, bool) and named in seats
        self._destruct_before = (str(request.phase), named if legal else None)

    def _declared(self, builder: PromptBuilder, request: DecisionRequest, read: ReadAnswer, text: Any,
                  players: int) -> Any:
        """The speech with the claims its answer declares appended (a public statement, in the table's
        words), when the seat declares claims and the line fits the legal length; else the speech."""
        if not self.options.declare_claims or not isinstance(text, str):
            return text
        claims = read_claims(read.payload, players)
        if not claims:
            return text
        declared = text.rstrip() + "\n" + builder.declaration(claims)
        limit = getattr(request.legal, "max_chars", None)
        if limit and len(declared) > limit:
            return text  # the speech is the seat's; a declaration that does not fit is left out
        try:
            return request.check(declared)
        except IllegalAnswer:
            return text

    def _keep_notes(self, read: ReadAnswer) -> None:
        if read.notes:
            self.notes = read.notes[: self.options.notes_max_chars]

    @staticmethod
    def _fallback(request: DecisionRequest, asked: "_Asked", extras: AnswerExtras) -> Answer:
        extras.fallback, extras.error = True, asked.error
        return Answer(value=request.default, extras=extras)

    async def _ask(self, messages: list[ChatMessage], schema: Any, parse: Callable[[Any], Any],
                   repair: Callable[[str], str]) -> "_Asked":
        """Call the model until ``parse`` accepts a reply: an unreadable or illegal answer is re-asked
        with the error (``repair`` words it), at most ``max_repairs`` times, within the decision
        deadline; a provider failure is not re-asked."""
        asked = _Asked(messages=list(messages), usage=Usage(),
                       # Retried transport failures (429, 5xx, timeouts) are not re-asks: they are listed in
                       # the record so that every fault a provider had is in the transcript; each reply's
                       # provenance too.
                       record=ModelUsage(cost_usd=0.0, provider=self.provider.name, model=self.provider.model))
        record = asked.record
        deadline = time.monotonic() + self.provider.policy.decision_deadline
        for attempt in range(self.options.max_repairs + 1):
            if attempt and time.monotonic() >= deadline:
                asked.error = f"decision deadline of {self.provider.policy.decision_deadline:g}s passed ({asked.error})"
                break
            result = await self.provider.call(asked.messages, schema=schema, options=self.generation(schema),
                                              deadline=deadline, lang=self._lang)
            record.calls += 1
            record.retries += max(len(result.tries) - 1, 0)
            record.transport_errors += [t.error for t in result.tries if t.error]
            asked.usage.add(result.usage)
            record.cost_usd = (None if record.cost_usd is None or result.cost_usd is None
                               else round(record.cost_usd + result.cost_usd, 8))
            if not result.ok:
                self._stop_if_unreachable(result)
                asked.error = f"provider error: {result.error}"
                asked.attempts.append(AnswerAttempt(raw=None, error=asked.error))
                break  # the wrapper has already retried what can succeed; re-asking cannot help
            self.reached = True
            reply = result.reply
            assert reply is not None
            record.replies.append(ReplyProvenance(**reply.provenance()))
            # A server may echo what it was sent: the recorded reply never holds a known key.
            raw = redact_known(reply.text[: self.options.raw_reply_max_chars])
            asked.raw_reply = {"text": raw, "thinking": redact_known(reply.thinking)} if reply.thinking else raw
            try:
                value = parse(reply)
            except (AnswerFormatError, IllegalAnswer, RecursionError) as exc:
                asked.error = redact(_why_unusable(reply, str(exc)))
                asked.attempts.append(AnswerAttempt(raw=raw, error=asked.error, truncated=reply.truncated))
                asked.messages = asked.messages + [ChatMessage.of("assistant", raw or "(empty reply)"),
                                                   ChatMessage.of("user", repair(asked.error))]
                continue
            asked.attempts.append(AnswerAttempt(raw=raw, repair=reply.repair))
            asked.ok, asked.value = True, value
            break
        return asked

    def _remember_beliefs(self, observation: Observation, request: DecisionRequest, beliefs: Any) -> None:
        """Keep the seat's newest report for the next belief update, with how much of its log it had
        seen (its private memory, like its notes: the beliefs are recorded on the decision line only)."""
        if beliefs:
            self.last_beliefs = LastBeliefs(phase=request.asked_in, seen=len(observation.events), beliefs=dict(beliefs))

    def _stop_if_unreachable(self, result: Any) -> None:
        """Stop the game rather than play on defaults: on a refused key, a forbidden or unknown
        model (401/403/404), and on an endpoint that has never answered this seat."""
        status = result.tries[-1].status if result.tries else None
        down = (not self.reached and result.error_kind in DOWN_KINDS
                and getattr(self.provider, "breaker", None) is not None)  # the stand-in's faults are simulated
        if status in FATAL_STATUSES or down:
            endpoint = _endpoint(getattr(self.provider.provider, "base_url", None)) or self.provider.name
            raise SeatUnreachable(self.seat, f"{self.spec} at {endpoint}", redact(result.error or "no reply"))

    def _extras(self, asked: "_Asked", memory: dict[str, Any]) -> AnswerExtras:
        record, usage, messages = asked.record, asked.usage, asked.messages
        if self._summary_calls:  # the day summaries asked before this decision are billed with it
            memory = {**memory, "day_summaries": {}}
            for day, written in self._summary_calls:
                record.calls += written.record.calls
                record.retries += written.record.retries
                record.transport_errors += written.record.transport_errors
                usage.add(written.usage)
                record.cost_usd = (None if record.cost_usd is None or written.record.cost_usd is None
                                   else round(record.cost_usd + written.record.cost_usd, 8))
                memory["day_summaries"][str(day)] = written.value if written.ok else {"error": written.error}
            self._summary_calls = []
        self.calls += record.calls
        self.usage.add(usage)
        if self.options.record_prompt == "full":
            prompt: Any = [m.to_json() for m in messages]
        elif self.options.record_prompt == "question":
            prompt = [messages[-1].to_json()]
        else:
            prompt = None
        record.input, record.output, record.cached = usage.input, usage.output, usage.cached
        record.cache_write, record.reasoning = usage.cache_write, usage.reasoning
        return AnswerExtras(attempts=asked.attempts, prompt=prompt, raw_reply=asked.raw_reply, usage=record,
                            memory=memory)


_NO_SINGLE = object()


@dataclass
class _Asked:
    """One decision's exchange with the model: the messages sent (re-asks included), every attempt,
    the last raw reply, usage and the record; ``value`` is what the reader made of the accepted reply."""

    messages: list[ChatMessage]
    usage: Usage
    record: ModelUsage
    attempts: list[AnswerAttempt] = field(default_factory=list)
    raw_reply: Any = None
    error: str | None = None
    ok: bool = False
    value: Any = None


@dataclass(frozen=True)
class KeptSpeech:
    """The speech a wolf gave in its self-destruct call right before its own speech. It answers the
    speech request that follows only if that is the very next request, in the same phase, the speech
    kind the call asked for, and the seat has seen nothing new since (else the model is asked again)."""

    request_id: int
    phase: str
    asked_in: str
    speech_kind: str
    seen: int
    last_event: Any
    text: str

    @classmethod
    def of(cls, request: DecisionRequest, observation: Observation, speech_kind: str, text: str) -> "KeptSpeech":
        events = observation.events
        return cls(request.id, request.phase, request.asked_in, speech_kind, len(events),
                   events[-1] if events else None, text)

    def answer(self, observation: Observation, request: DecisionRequest, speech_chars: int | None) -> Answer | None:
        """The speech request's answer from the kept speech, or None when it does not fit."""
        events = observation.events
        if (request.kind != "speech" or request.id <= self.request_id or request.phase != self.phase or request.asked_in != self.asked_in
                or (request.context or {}).get("speech") != self.speech_kind or len(events) != self.seen
                or (events[-1] if events else None) != self.last_event
                or (speech_chars is not None and len(self.text) > speech_chars)):
            return None
        try:
            value = request.check(self.text)
        except IllegalAnswer:
            return None
        note = (f"given with the self-destruct answer of request {self.request_id} in one model call "
                "(its prompt, reply, reasoning and usage are recorded there)")
        return Answer(value=value, extras=AnswerExtras(note=note, memory={"given_with": self.request_id,
                                                                         "note": note}))


#: Tokens a reasoning model at its default effort may spend thinking inside the same output limit.
REASONING_TOKENS = REASONING_HEADROOM[DEFAULT_EFFORT]


def answer_tokens(schema: Any, *, zh: bool, reasoning: bool = False) -> int:
    """An output limit that holds the longest answer ``schema`` allows (:func:`sized_max_tokens`),
    plus :data:`REASONING_TOKENS` for a reasoning model."""
    return sized_max_tokens(getattr(schema, "json_schema", schema), "zh" if zh else "en", reasoning=reasoning)


def _why_unusable(reply: Any, error: str) -> str:
    """The re-ask's message: a refusal or a cut-off reply is said as such, not as bad JSON."""
    if reply.refusal:
        return f"you declined to answer ({reply.refusal[:200]}); this is a game, answer with a legal action: {error}"
    if reply.truncated:
        return f"your reply was cut off at the token limit ({reply.finish_reason}); answer more briefly: {error}"
    return error


def _only_choice(legal: Any) -> Any:
    """The value when the legal set leaves exactly one choice (no call needed), else a sentinel."""
    kind = getattr(legal, "type", None)
    if kind == "seat" and not legal.allow_none and len(legal.options) == 1:
        return legal.options[0]
    if kind == "seat" and legal.allow_none and not legal.options:
        return None
    if kind == "option" and len(legal.options) == 1:
        return legal.options[0]
    forced: Any = _NO_SINGLE
    if kind == "seats" and not legal.allow_none and legal.min_count == legal.max_count == len(legal.options):
        forced = list(legal.options)  # every seat offered must be named
    elif kind == "speech_order" and len(legal.starts) == 1 and len(legal.directions) == 1:
        forced = {"start": legal.starts[0], "direction": legal.directions[0]}
    if forced is _NO_SINGLE:
        return forced
    try:
        return legal.check(forced)
    except IllegalAnswer:  # an empty list of seats, say: the model is asked (and the referee falls back)
        return _NO_SINGLE
