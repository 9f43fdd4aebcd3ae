"""Anthropic Messages API through the official ``anthropic`` SDK (2.x).

The structured answer is asked for with structured outputs (``output_config.format``: a JSON
Schema the reply is constrained to), which works with and without thinking. The schema goes
through the SDK's own ``transform_schema`` (constraints the API does not enforce, such as
``maxLength``, move into descriptions; the legal set's check still enforces them).
``structured="tool"`` keeps the older way, a forced tool whose ``input_schema`` is the answer
schema, for models and proxies without structured outputs (with thinking the tool can only be
offered, ``tool_choice: auto``).

Thinking: ``thinking_budget`` N asks for manual extended thinking with N tokens on top of
``max_tokens``; ``"adaptive"`` lets the model decide. A call with thinking is streamed (long
thinking turns are what the SDK wants streamed) and the final message assembled by the SDK. The
thinking text comes back as :attr:`ProviderReply.thinking`, which the seat records as its private
reasoning. ``reasoning_effort`` goes to ``output_config.effort``.

``cache_control`` marks the end of each stable part of the prompt: the rules (the same for every
seat of a table, so one seat's cache entry serves the others: Anthropic's cache is not per
conversation), the seat's briefing, then the history.
"""

from __future__ import annotations

from typing import Any

from agents.providers import secrets
from agents.providers.budget import max_tokens_of
from agents.providers.base import (
    AnswerSchema,
    ChatMessage,
    GenerateOptions,
    ProviderConfigError,
    ProviderError,
    PerLoopClient,
    ProviderReply,
    Usage,
    parse_retry_after,
    retryable_status,
    short_error_body,
)

MAX_CACHE_BREAKPOINTS = 4  # the API's limit per request
ANTHROPIC_EFFORTS = ("low", "medium", "high", "xhigh", "max")  # output_config.effort


class AnthropicProvider:
    name = "anthropic"

    def __init__(self, model: str, *, base_url: str | None = None, timeout: float = 60.0,
                 api_key_env: str | None = None):
        try:
            import anthropic
        except ImportError as exc:  # pragma: no cover - anthropic is a core dependency
            raise ProviderConfigError("the anthropic package is not installed (pip install anthropic)") from exc
        self._anthropic = anthropic
        self.model = model
        # The key goes to Anthropic's endpoint or the base URL the user set for it (a seat's base_url,
        # ANTHROPIC_BASE_URL, the keys file); api_key_env names another variable for that endpoint.
        key = secrets.key_from_env(api_key_env, f"anthropic:{model}") if api_key_env is not None \
            else secrets.api_key("anthropic")
        if not key:
            raise ProviderConfigError(f"no Anthropic key: set ANTHROPIC_API_KEY (or put one in {secrets.keys_file()})")
        self.base_url = base_url or secrets.base_url("anthropic")
        self._client_args = dict(api_key=key, base_url=self.base_url, max_retries=0, timeout=timeout + 5.0)
        self._clients = PerLoopClient(lambda: self._anthropic.AsyncAnthropic(**self._client_args))

    @property
    def client(self) -> Any:
        return self._clients.get()

    def _accepts(self, name: str) -> bool:
        import inspect

        try:
            return name in inspect.signature(self._anthropic.resources.messages.AsyncMessages.create).parameters
        except (AttributeError, TypeError, ValueError):
            return False

    def _output_schema(self, schema: AnswerSchema) -> dict[str, Any]:
        transform = getattr(self._anthropic, "transform_schema", None)
        return transform(schema.json_schema) if transform is not None else schema.json_schema

    # A sized limit stays within what every current thinking model takes (Claude Opus 4.1: 32,000).
    max_output_tokens = 32000

    def reasons(self, options: GenerateOptions) -> bool:
        """Adaptive thinking spends its tokens inside max_tokens (a fixed budget is added on top)."""
        return options.thinking_budget == "adaptive"

    # ---- request ----------------------------------------------------------------------------
    def request_params(self, messages: list[ChatMessage], schema: AnswerSchema | None,
                       options: GenerateOptions) -> dict[str, Any]:
        system_blocks: list[dict[str, Any]] = []
        turns: list[dict[str, Any]] = []
        for m in messages:
            blocks = [_block(p.text, p.cache) for p in m.parts if p.text]
            if m.role == "system":
                system_blocks.extend(blocks)
            elif turns and turns[-1]["role"] == m.role:
                turns[-1]["content"].extend(blocks)  # the API wants alternating turns
            else:
                turns.append({"role": m.role, "content": blocks})
        _limit_breakpoints(system_blocks + [b for t in turns for b in t["content"]])
        thinking = options.thinking_budget
        budget = 0 if thinking in (None, "adaptive") else max(int(thinking), 1024)
        params: dict[str, Any] = {
            "model": self.model,
            "max_tokens": max_tokens_of(self, options, schema, messages=messages) + budget,
            "messages": turns,
        }
        if system_blocks:
            params["system"] = system_blocks
        if thinking == "adaptive":
            params["thinking"] = {"type": "adaptive"}
        elif budget:
            params["thinking"] = {"type": "enabled", "budget_tokens": budget}
        elif options.temperature is not None and self._accepts("temperature"):
            # Thinking requires the default temperature; SDK 2.x's create() has no temperature at all.
            params["temperature"] = options.temperature
        output_config: dict[str, Any] = {}
        if options.reasoning_effort is not None:
            if options.reasoning_effort not in ANTHROPIC_EFFORTS:
                raise ProviderConfigError(f"reasoning_effort={options.reasoning_effort!r}: Anthropic takes "
                                          f"{', '.join(ANTHROPIC_EFFORTS)}")
            output_config["effort"] = options.reasoning_effort
        if schema is not None and options.structured == "tool":
            params["tools"] = [{"name": schema.name, "description": schema.description,
                                "input_schema": schema.json_schema}]
            # A forced tool is incompatible with thinking.
            params["tool_choice"] = {"type": "auto"} if thinking else {"type": "tool", "name": schema.name}
        elif schema is not None and options.structured != "prompt":
            output_config["format"] = {"type": "json_schema", "schema": self._output_schema(schema)}
        if output_config:
            params["output_config"] = output_config
        return params

    async def generate(self, messages: list[ChatMessage], *, schema: AnswerSchema | None,
                       options: GenerateOptions) -> ProviderReply:
        params = self.request_params(messages, schema, options)
        a = self._anthropic
        request_id = None
        try:
            if "thinking" in params:
                async with self.client.messages.stream(**params) as stream:
                    message = await stream.get_final_message()
                    request_id = stream.request_id
            else:
                message = await self.client.messages.create(**params)
        except a.APITimeoutError:
            raise ProviderError("the Anthropic request timed out", retryable=True, kind="timeout") from None
        except a.APIConnectionError as exc:
            raise ProviderError(f"cannot reach the Anthropic endpoint: {exc}", retryable=True,
                                kind="connection") from None
        except a.APIStatusError as exc:
            raise _status_error(exc) from None
        if isinstance(message, (str, bytes)) or getattr(message, "content", None) is None:
            # A 200 that is not a Messages reply (a proxy's HTML page, an empty body): the SDK hands
            # back the raw text. Retried like any server fault, never taken as an empty answer.
            raise ProviderError(f"the reply is not a Messages API response: {short_error_body(str(message), 120)!r}",
                                retryable=True, kind="server")
        reply = self.parse_message(message, schema)
        reply.request_id = request_id or getattr(message, "_request_id", None)
        return reply

    # ---- reply ------------------------------------------------------------------------------
    def parse_message(self, message: Any, schema: AnswerSchema | None) -> ProviderReply:
        import json

        texts: list[str] = []
        thinking: list[str] = []
        parsed = None
        for block in getattr(message, "content", None) or []:
            kind = getattr(block, "type", None)
            if kind == "text":
                texts.append(block.text)
            elif kind == "thinking":
                thinking.append(getattr(block, "thinking", "") or "")
            elif kind == "tool_use" and (schema is None or block.name == schema.name) and parsed is None:
                parsed = block.input if isinstance(block.input, dict) else None
        text = "".join(texts)
        stop = getattr(message, "stop_reason", None)
        if parsed is None and text and schema is not None and stop not in ("max_tokens", "refusal"):
            # Structured outputs: the text is the schema-constrained JSON (a cut-off or refused
            # reply is not, and goes to the seat's tolerant reader as it is).
            try:
                value = json.loads(text)
                parsed = value if isinstance(value, dict) else None
            except json.JSONDecodeError:
                parsed = None
        if parsed is not None and not text:
            text = json.dumps(parsed, ensure_ascii=False)  # the raw reply a transcript shows
        refusal = None
        if stop == "refusal":
            details = getattr(message, "stop_details", None)
            refusal = text or getattr(details, "explanation", None) or "refused"
        return ProviderReply(text=text, parsed=parsed, thinking="\n".join(thinking) or None, refusal=refusal,
                             usage=_usage(getattr(message, "usage", None)), model=getattr(message, "model", None),
                             finish_reason=stop, response_id=getattr(message, "id", None), api="messages")


# Error types the API may send inside a stream that has already answered 200: trying again can succeed.
RETRYABLE_STREAM_ERRORS = {"overloaded_error": "overloaded", "api_error": "server", "rate_limit_error": "rate_limit"}


def _status_error(exc: Any) -> ProviderError:
    status = getattr(exc, "status_code", None)
    body = getattr(exc, "body", None)
    retry_after = parse_retry_after(getattr(getattr(exc, "response", None), "headers", None))
    message = short_error_body(body or getattr(exc, "message", str(exc)))
    if status is not None and status < 400:
        # An ``error`` event inside a stream (say overloaded mid-reply): the HTTP status was 200.
        err = body.get("error") if isinstance(body, dict) else None
        kind = RETRYABLE_STREAM_ERRORS.get(str(err.get("type")) if isinstance(err, dict) else "")
        return ProviderError(f"error in the stream: {message}", retryable=kind is not None,
                             kind=kind or "server", retry_after=retry_after)
    kind = ("rate_limit" if status == 429 else "overloaded" if status == 529
            else "server" if status and status >= 500 else "client")
    return ProviderError(f"HTTP {status}: {message}", retryable=retryable_status(status), status=status,
                         retry_after=retry_after, kind=kind)


def _block(text: str, cache: bool) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "text", "text": text}
    if cache:
        block["cache_control"] = {"type": "ephemeral"}
    return block


def _limit_breakpoints(blocks: list[dict[str, Any]]) -> None:
    """Keep at most the API's limit of cache marks: the first (the end of the rules, the prefix
    every seat of the table sends) and the latest ones (the prefix the seat's next call shares).
    The agent's prompts carry three (rules, seat briefing, history), so none is dropped today."""
    marked = [b for b in blocks if "cache_control" in b]
    for b in marked[1: max(len(marked) - (MAX_CACHE_BREAKPOINTS - 1), 1)]:
        del b["cache_control"]


def _usage(u: Any) -> Usage:
    if u is None:
        return Usage()
    read = getattr(u, "cache_read_input_tokens", None) or 0
    write = getattr(u, "cache_creation_input_tokens", None) or 0
    details = getattr(u, "output_tokens_details", None)
    reasoning = getattr(details, "thinking_tokens", None) or 0
    # Anthropic's input_tokens excludes cache reads and writes; Usage.input counts all input.
    return Usage(input=(u.input_tokens or 0) + read + write, output=u.output_tokens or 0, cached=read,
                 cache_write=write, reasoning=reasoning)
