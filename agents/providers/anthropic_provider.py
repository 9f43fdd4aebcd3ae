"""Anthropic Messages API through the official ``anthropic`` SDK (2.x).

The structured answer is a tool whose ``input_schema`` is the answer schema, forced with
``tool_choice``. Extended thinking (``thinking_budget``) cannot be combined with a forced tool, so
with thinking on the tool is offered with ``tool_choice: auto`` and the prompt asks for it; a reply
without the tool falls back to JSON extraction from the text. ``cache_control`` marks the end of
each stable part of the prompt: the rules (the same for every seat of a table, so one seat's cache
entry serves the others: Anthropic's cache is not per conversation), the seat's briefing, then the
history.
"""

from __future__ import annotations

from typing import Any

from agents.providers import secrets
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


class AnthropicProvider:
    name = "anthropic"

    def __init__(self, model: str, *, base_url: str | None = None, timeout: float = 60.0):
        try:
            import anthropic
        except ImportError as exc:  # pragma: no cover - anthropic is a core dependency
            raise ProviderConfigError("the anthropic package is not installed (pip install anthropic)") from exc
        self._anthropic = anthropic
        self.model = model
        key = secrets.api_key("anthropic")
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
        params: dict[str, Any] = {
            "model": self.model,
            "max_tokens": options.max_tokens + (thinking or 0),
            "messages": turns,
        }
        if system_blocks:
            params["system"] = system_blocks
        if thinking:
            params["thinking"] = {"type": "enabled", "budget_tokens": max(int(thinking), 1024)}
        elif options.temperature is not None and self._accepts("temperature"):
            # Thinking requires the default temperature; SDK 2.x's create() has no temperature at all.
            params["temperature"] = options.temperature
        if schema is not None and options.structured != "prompt":
            params["tools"] = [{"name": schema.name, "description": schema.description,
                                "input_schema": schema.json_schema}]
            # A forced tool is incompatible with extended thinking.
            params["tool_choice"] = {"type": "auto"} if thinking else {"type": "tool", "name": schema.name}
        return params

    async def generate(self, messages: list[ChatMessage], *, schema: AnswerSchema | None,
                       options: GenerateOptions) -> ProviderReply:
        params = self.request_params(messages, schema, options)
        a = self._anthropic
        try:
            message = await self.client.messages.create(**params)
        except a.APITimeoutError:
            raise ProviderError("the Anthropic request timed out", retryable=True, kind="timeout") from None
        except a.APIConnectionError as exc:
            raise ProviderError(f"cannot reach the Anthropic endpoint: {exc}", retryable=True,
                                kind="connection") from None
        except a.APIStatusError as exc:
            status = getattr(exc, "status_code", None)
            retry_after = parse_retry_after(getattr(getattr(exc, "response", None), "headers", None))
            kind = "rate_limit" if status == 429 else "server" if status and status >= 500 else "client"
            raise ProviderError(f"HTTP {status}: {short_error_body(getattr(exc, 'body', None) or exc.message)}",
                                retryable=retryable_status(status), status=status, retry_after=retry_after,
                                kind=kind) from None
        return self.parse_message(message, schema)

    # ---- reply ------------------------------------------------------------------------------
    def parse_message(self, message: Any, schema: AnswerSchema | None) -> ProviderReply:
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
        if parsed is not None and not text:
            import json

            text = json.dumps(parsed, ensure_ascii=False)  # the raw reply a transcript shows
        return ProviderReply(text=text, parsed=parsed, thinking="\n".join(thinking) or None,
                             usage=_usage(getattr(message, "usage", None)), model=getattr(message, "model", None),
                             finish_reason=getattr(message, "stop_reason", None))


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
