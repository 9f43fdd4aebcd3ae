"""The one provider interface: ``async generate(messages, *, schema, options) -> ProviderReply``.

Adapters (OpenAI, Anthropic, LangChain, the stand-in ``mock``) translate these models to and from
their SDK and raise :class:`ProviderError` with ``retryable`` set; everything providers share
(timeouts, retries, concurrency caps, usage and cost) lives once in :mod:`agents.providers.wrapper`.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field


class ContentPart(BaseModel):
    """A piece of a message. ``cache`` marks the end of a stable prefix a provider may cache."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str
    cache: bool = False


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    role: Literal["system", "user", "assistant"]
    parts: tuple[ContentPart, ...]

    @classmethod
    def of(cls, role: Literal["system", "user", "assistant"], *texts: str, cache_last: bool = False) -> "ChatMessage":
        parts = [ContentPart(text=t) for t in texts if t]
        if cache_last and parts:
            parts[-1] = ContentPart(text=parts[-1].text, cache=True)
        return cls(role=role, parts=tuple(parts))

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.parts)

    def to_json(self) -> dict[str, Any]:
        """Transcript form: plain role/content, the cache marks as the index of cached parts."""
        out: dict[str, Any] = {"role": self.role, "content": self.text}
        marks = [i for i, p in enumerate(self.parts) if p.cache]
        if marks:
            out["cache_after_part"] = marks
        return out


class AnswerSchema(BaseModel):
    """The structured answer asked for: a JSON Schema (strict-compatible) with a name for tools."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = "answer"
    description: str = "Your answer to the referee's question."
    json_schema: dict[str, Any]


class GenerateOptions(BaseModel):
    """Per-call generation options; ``None`` leaves the provider's default."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    temperature: float | None = None
    max_tokens: int | None = Field(default=None, ge=1, description=(
        "the reply's token limit; None: sized per call from the answer's field limits, the table's "
        "language and the model's kind (agents.providers.budget)"))
    seed: int | None = None
    reasoning_effort: Literal["none", "minimal", "low", "medium", "high", "xhigh", "max"] | None = Field(
        default=None, description="OpenAI reasoning effort (none..xhigh); Anthropic output_config.effort "
        "(low, medium, high, xhigh, max)")
    thinking_budget: int | Literal["adaptive"] | None = Field(
        default=None, description="Anthropic thinking: a token budget (>= 1024, on top of max_tokens) or "
        "'adaptive' (the model decides how much to think)")
    reasoning_summary: Literal["auto", "concise", "detailed"] | None = Field(
        default="auto", description="OpenAI Responses API: ask for a summary of the model's reasoning "
        "(recorded as the seat's private thinking); None asks for none")
    structured: Literal["native", "tool", "json_object", "prompt"] = Field(
        default="native",
        description="native: the provider's schema-constrained output (OpenAI json_schema, Anthropic "
        "output_config.format); tool: Anthropic forced tool use (models without structured outputs); "
        "json_object: JSON mode without a schema (servers that lack json_schema); prompt: no constraint, "
        "the JSON is extracted from the text. On an OpenAI-compatible server a refused mode falls back to the "
        "next (native -> json_object -> prompt)")
    grammar_max_length: int = Field(
        default=500, ge=0, description="grammar-constrained servers (json_object with the schema beside it, "
        "llama.cpp): the longest maxLength the grammar keeps; longer limits are left out of it (the prompt "
        "and the legal set still bound the text): llama-cpp-python 0.3.36 compiles 1000 and crashes at 1200")


class Usage(BaseModel):
    """Token usage of one call (or a sum of calls)."""

    model_config = ConfigDict(extra="forbid")

    input: int = 0
    output: int = 0
    cached: int = Field(default=0, description="input tokens served from the provider's prompt cache")
    cache_write: int = Field(default=0, description="input tokens written to the cache (Anthropic)")
    reasoning: int = Field(default=0, description="output tokens spent on hidden reasoning/thinking")

    def add(self, other: "Usage") -> None:
        self.input += other.input
        self.output += other.output
        self.cached += other.cached
        self.cache_write += other.cache_write
        self.reasoning += other.reasoning


class ProviderReply(BaseModel):
    """What came back: the text, the parsed structured answer if the provider gave one, native
    thinking text (or a reasoning summary) if any, a refusal, token usage, and where the reply came
    from: the model snapshot that served it, its finish reason and the ids a provider's support
    desk asks for."""

    model_config = ConfigDict(extra="forbid")

    text: str = ""
    parsed: dict[str, Any] | None = None
    thinking: str | None = None
    refusal: str | None = Field(default=None, description="the model declined; its words, if it gave any")
    usage: Usage = Field(default_factory=Usage)
    model: str | None = Field(default=None, description="the model id the provider says served the call")
    finish_reason: str | None = None
    request_id: str | None = Field(default=None, description="the provider's request id (a response header)")
    response_id: str | None = Field(default=None, description="the provider's id of the reply body")
    system_fingerprint: str | None = None
    api: str | None = Field(default=None, description="which API served it: chat, responses, messages, ...")
    structured: str | None = Field(default=None, description=(
        "the structured mode the server answered in when it is not the one asked (it refused that one)"))
    repair: str | None = Field(default=None, description=(
        "what the adapter fixed to read ``parsed`` (raw control characters inside JSON strings)"))

    def provenance(self) -> dict[str, str]:
        """Where the reply came from, as a transcript records it (the fields the provider gave)."""
        fields = ("api", "model", "finish_reason", "request_id", "response_id", "system_fingerprint", "structured")
        return {name: value for name in fields if isinstance(value := getattr(self, name), str)}

    @property
    def truncated(self) -> bool:
        """The reply was cut off by the token limit (every API names it differently)."""
        return self.finish_reason in ("length", "max_tokens", "max_output_tokens", "model_context_window_exceeded")


class ProviderError(Exception):
    """A call failed. ``retryable`` says whether trying again can succeed (429, 5xx, timeouts,
    dropped connections); ``retry_after`` is the server's hint in seconds. The message never
    carries a credential (adapters pass it through :func:`agents.providers.secrets.redact`)."""

    def __init__(self, message: str, *, retryable: bool, status: int | None = None,
                 retry_after: float | None = None, kind: str = "error"):
        from agents.providers.secrets import redact

        super().__init__(redact(message))
        self.retryable = retryable
        self.status = status
        self.retry_after = retry_after
        self.kind = kind  # "timeout", "rate_limit", "server", "connection", "client", "config"


class ProviderConfigError(ProviderError):
    """The provider cannot be set up (missing SDK, missing key, bad option): never retried."""

    def __init__(self, message: str):
        super().__init__(message, retryable=False, kind="config")


@runtime_checkable
class Provider(Protocol):
    """One model behind one SDK. ``name`` keys the concurrency cap and the price table."""

    name: str
    model: str

    async def generate(self, messages: list[ChatMessage], *, schema: AnswerSchema | None,
                       options: GenerateOptions) -> ProviderReply: ...


def retryable_status(status: int | None) -> bool:
    """429 and 5xx can succeed later (408/409 too, as the SDKs agree); other 4xx cannot."""
    return status is not None and (status in (408, 409, 429) or status >= 500)


def parse_retry_after(headers: Any) -> float | None:
    """Seconds from ``retry-after-ms``, ``retry-after`` (seconds or an HTTP date); None if absent."""
    if headers is None:
        return None
    try:
        ms = headers.get("retry-after-ms")
        if ms is not None:
            return max(float(ms) / 1000.0, 0.0)
        value = headers.get("retry-after")
    except Exception:
        return None
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        import email.utils
        import time as _time

        when = email.utils.parsedate_to_datetime(value)
        return max(when.timestamp() - _time.time(), 0.0)
    except Exception:
        return None


def short_error_body(body: Any, limit: int = 300) -> str:
    """The useful part of an error body (``{"error": {"message": ...}}`` or text), shortened."""
    message: Any = body
    if isinstance(body, dict):
        err = body.get("error", body)
        message = err.get("message", err) if isinstance(err, dict) else err
    text = str(message) if message is not None else ""
    return text if len(text) <= limit else text[: limit - 1] + "…"


class PerLoopClient:
    """One SDK client per event loop: an async client's connection pool belongs to the loop that
    opened it, so a client made under one ``asyncio.run`` must not be reused under the next."""

    def __init__(self, factory: Any):
        self._factory = factory
        self._client: Any = None
        self._loop: Any = None

    def get(self) -> Any:
        import asyncio

        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if self._client is None or (loop is not None and loop is not self._loop):
            self._client = self._factory()
            self._loop = loop
        return self._client
