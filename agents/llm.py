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
``"always"`` asks the model every time, ``"never"`` never does.
"""

from __future__ import annotations

import hashlib
import time
from functools import lru_cache
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

from agents.base import timed
from agents.llm_answer import AnswerFormatError, answer_schema, belief_schema, clean_beliefs, read_answer, read_beliefs
from agents.llm_prompts import LANGS, PROMPTS_DIR, LastBeliefs, PromptBuilder
from agents.providers.base import ChatMessage, GenerateOptions, Usage
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
)
from arena.observation import Observation
from arena.stopping import SeatUnreachable

SELF_DESTRUCT_KINDS = frozenset({"self_destruct", "self_destruct_election"})
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
    summary_window: int = Field(default=1, ge=1, description=(
        "phases kept verbatim under summary memory (1: the current one; the phase before keeps no speech "
        "under summary memory, so it reads as well, in fewer tokens, as a digest line)"))
    summary_speech_chars: int | None = Field(default=None, ge=20, description=(
        "summary memory: speeches in the phases kept are cut to this (None: the template's "
        "summary_speech_chars, 200 in English, 100 in Chinese)"))
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
                                                 window=self.options.summary_window,
                                                 speech_chars=self.options.summary_speech_chars,
                                                 self_destruct=self.options.self_destruct)
        return self._builders[lang]

    # ---- decisions that need no model -----------------------------------------------------
    def _skip(self, request: DecisionRequest) -> Answer | None:
        if request.kind in SELF_DESTRUCT_KINDS:
            policy = self.options.self_destruct
            own_turn = (request.context or {}).get("before_speaker") == self.seat
            if policy == "never" or (policy == "own_turn" and not own_turn):
                return Answer(value=False, extras=AnswerExtras(
                    note=f"self_destruct={policy}: answered without a model call"))
        only = _only_choice(request.legal)
        if only is not _NO_SINGLE:
            return Answer(value=only, extras=AnswerExtras(note="a single legal choice"))
        return None

    # ---- the decision --------------------------------------------------------------------
    async def decide(self, observation: Observation, request: DecisionRequest) -> Answer:
        started = time.perf_counter()
        return timed(await self._decide(observation, request), started)

    async def _decide(self, observation: Observation, request: DecisionRequest) -> Answer:
        skipped = self._skip(request)
        if skipped is not None:
            return skipped
        lang = self.options.lang or observation.lang or "en"
        speech_chars = None
        if getattr(request.legal, "type", None) == "text":
            limits = [x for x in (getattr(request.legal, "max_chars", None), self.options.speech_max_chars) if x]
            speech_chars = min(limits) if limits else None
        belief_update = request.kind == BELIEF_UPDATE
        if belief_update:  # day_end / every_speech: a short prompt of its own, answered with beliefs only
            built = self.builder(lang).build_belief(observation, request, notes=self.notes, last=self.last_beliefs)
            schema = belief_schema(built.belief_seats)
        else:
            built = self.builder(lang).build(observation, request, notes=self.notes,
                                             beliefs=self.options.beliefs == "votes", speech_chars=speech_chars)
            schema = answer_schema(request, belief_seats=built.belief_seats,
                                   reasoning_chars=self.options.reasoning_max_chars,
                                   notes_chars=self.options.notes_max_chars, speech_chars=speech_chars)
        messages: list[ChatMessage] = list(built.messages)
        attempts: list[AnswerAttempt] = []
        usage = Usage()
        # Retried transport failures (429, 5xx, timeouts) are not re-asks: they are listed in the
        # record so that every fault a provider had is in the transcript; each reply's provenance too.
        record = ModelUsage(cost_usd=0.0, provider=self.provider.name, model=self.provider.model)
        raw_reply: Any = None
        last_error: str | None = None
        legal_type = getattr(request.legal, "type", None)

        deadline = time.monotonic() + self.provider.policy.decision_deadline
        for attempt in range(self.options.max_repairs + 1):
            if attempt and time.monotonic() >= deadline:
                last_error = f"decision deadline of {self.provider.policy.decision_deadline:g}s passed ({last_error})"
                break
            result = await self.provider.call(messages, schema=schema, options=self.generate, deadline=deadline)
            record.calls += 1
            record.retries += max(len(result.tries) - 1, 0)
            record.transport_errors += [t.error for t in result.tries if t.error]
            usage.add(result.usage)
            record.cost_usd = (None if record.cost_usd is None or result.cost_usd is None
                               else round(record.cost_usd + result.cost_usd, 8))
            if not result.ok:
                self._stop_if_unreachable(result)
                last_error = f"provider error: {result.error}"
                attempts.append(AnswerAttempt(raw=None, error=last_error))
                break  # the wrapper has already retried what can succeed; re-asking cannot help
            self.reached = True
            reply = result.reply
            assert reply is not None
            record.replies.append(ReplyProvenance(**reply.provenance()))
            # A server may echo what it was sent: the recorded reply never holds a known key.
            raw = redact_known(reply.text[: self.options.raw_reply_max_chars])
            raw_reply = {"text": raw, "thinking": redact_known(reply.thinking)} if reply.thinking else raw
            try:
                if belief_update:
                    value = request.check(read_beliefs(reply.text, reply.parsed, built.belief_seats))
                else:
                    read = read_answer(reply.text, reply.parsed, legal_type)
                    value = request.check(read.action)
            except (AnswerFormatError, IllegalAnswer, RecursionError) as exc:
                last_error = redact(_why_unusable(reply, str(exc)))
                attempts.append(AnswerAttempt(raw=raw, error=last_error))
                builder = self.builder(lang)
                messages = messages + [
                    ChatMessage.of("assistant", raw or "(empty reply)"),
                    ChatMessage.of("user", builder.belief_repair(last_error, built.legal_text) if belief_update
                                   else builder.repair(last_error, built.legal_text)),
                ]
                continue
            attempts.append(AnswerAttempt(raw=raw))
            if belief_update:
                self._remember_beliefs(observation, request, value)
                extras = self._extras(messages, attempts, raw_reply, usage, record, built.memory)
                return Answer(value=value, beliefs=value, extras=extras)
            if read.notes:
                self.notes = read.notes[: self.options.notes_max_chars]
            beliefs = clean_beliefs(read.beliefs_raw, built.belief_seats) if built.belief_seats else None
            self._remember_beliefs(observation, request, beliefs)
            extras = self._extras(messages, attempts, raw_reply, usage, record, built.memory)
            return Answer(value=value, reasoning=read.reasoning, notes=read.notes, beliefs=beliefs, extras=extras)

        extras = self._extras(messages, attempts, raw_reply, usage, record, built.memory)
        extras.fallback, extras.error = True, last_error
        return Answer(value=request.default, extras=extras)

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

    def _extras(self, messages: list[ChatMessage], attempts: list[AnswerAttempt], raw_reply: Any, usage: Usage,
                record: ModelUsage, memory: dict[str, Any]) -> AnswerExtras:
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
        return AnswerExtras(attempts=attempts, prompt=prompt, raw_reply=raw_reply, usage=record, memory=memory)


_NO_SINGLE = object()


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
    return _NO_SINGLE
