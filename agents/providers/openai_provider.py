"""OpenAI through the official ``openai`` SDK (3.x): the Responses API and Chat Completions, and
OpenAI-compatible servers (vLLM, Ollama, llama.cpp's server) through a base URL.

``api``: ``responses`` (``client.responses.create``) is the default for OpenAI's reasoning models
(o-series, gpt-5), which give their reasoning summaries only there: ``reasoning.summary`` is asked
for and the summary text comes back as :attr:`ProviderReply.thinking`, the seat's private
reasoning. ``store`` is off unless a seat turns it on (nothing is kept on OpenAI's side). ``chat``
(``chat.completions.create``) is the default for other models and always for ``local:`` servers.

Structured answers use a strict ``json_schema`` format (the schema's enums carry the legal set).
An OpenAI-compatible server (``local:``, or a base URL that is not OpenAI's own) that refuses a
structured mode (HTTP 400/422/500/501 with a ``response_format``) is asked again at once in the
next one down, ``json_schema`` -> ``json_object`` (with the schema beside it, which llama.cpp's
server turns into a grammar) -> no format at all (the prompt's own instructions); the mode that
answered is kept for that endpoint and model for the rest of the process and named in the reply's
provenance (``structured``). Such servers get ``max_tokens`` (always bounded), and grammars without
any ``maxLength`` over ``grammar_max_length`` (a long one makes llama.cpp's grammar compiler crash).
A reply whose only fault is raw control characters inside its strings (a grammar allows raw
newlines) is read with ``json.loads(strict=False)`` and recorded as a repair. Reasoning models get
``reasoning_effort`` and no temperature. The SDK's own retries are off:
:mod:`agents.providers.wrapper` owns them.
"""

from __future__ import annotations

import json
from typing import Any, Literal
from urllib.parse import urlsplit

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

LOCAL_PLACEHOLDER_KEY = "not-needed"  # local servers ignore the key, but the SDK wants one
# Model names that reason before answering and give their reasoning summaries only through Responses.
REASONING_MODEL_PREFIXES = ("o1", "o3", "o4", "gpt-5", "codex")
OPENAI_HOST = "api.openai.com"
# The structured modes an OpenAI-compatible server is tried in, best first, and the statuses with
# which servers refuse one they lack (llama-cpp-python: 500 on json_schema; others 400/422/501).
STRUCTURED_LADDER = ("native", "json_object", "prompt")
REFUSED_FORMAT_STATUSES = frozenset({400, 422, 500, 501})
# (base URL, model) -> the structured mode that server answered in, once one was refused.
_SERVER_MODES: dict[tuple[str, str], str] = {}
REPAIR_CONTROL_CHARS = "raw control characters inside JSON strings, read with json.loads(strict=False)"


def wants_responses(model: str) -> bool:
    """OpenAI's reasoning models (o-series, gpt-5 and later): Responses by default."""
    name = model.rsplit("/", 1)[-1].lower()
    return name.startswith(REASONING_MODEL_PREFIXES)


class OpenAIProvider:
    """``openai:MODEL`` and ``local:MODEL@URL``. ``local`` uses a placeholder key when none is set,
    ``max_tokens`` instead of ``max_completion_tokens`` and JSON mode with the schema beside it."""

    def __init__(self, model: str, *, base_url: str | None = None, local: bool = False,
                 timeout: float = 60.0, organization: str | None = None, name: str | None = None,
                 api: Literal["auto", "chat", "responses"] = "auto", store: bool = False,
                 api_key_env: str | None = None, compatible: bool | None = None):
        try:
            import openai
        except ImportError as exc:  # pragma: no cover - openai is a core dependency
            raise ProviderConfigError("the openai package is not installed (pip install openai)") from exc
        self._openai = openai
        self.model = model
        self.local = local
        self.name = name or ("local" if local else "openai")
        url = base_url or (None if local else secrets.base_url("openai"))
        if local:
            if url is None:
                raise ProviderConfigError("local: give the server's URL (local:MODEL@http://HOST:PORT/v1)")
            # A local endpoint gets a key only when one is configured for it, never OPENAI_API_KEY by default.
            key = secrets.local_endpoint_key(url, api_key_env)
        elif api_key_env is not None:
            key = secrets.key_from_env(api_key_env, f"openai:{model}")
        else:
            key = secrets.api_key("openai")  # OpenAI's endpoint, or the base URL the user set for it
        if not key:
            if not local and url is None:
                raise ProviderConfigError("no OpenAI key: set OPENAI_API_KEY (or put one in "
                                          f"{secrets.keys_file()}), or use local:MODEL@URL for a local server")
            key = LOCAL_PLACEHOLDER_KEY
        self.base_url = url
        # An OpenAI-compatible server (vLLM, Ollama, llama.cpp...), not OpenAI's own API: by the
        # host unless the seat says (a proxy in front of OpenAI itself: compatible=false).
        self.compatible = bool(compatible) if compatible is not None else (
            local or (url is not None and urlsplit(str(url)).hostname != OPENAI_HOST))
        if api not in ("auto", "chat", "responses"):
            raise ProviderConfigError(f"api={api!r}: choose auto, chat or responses")
        self.api = api if api != "auto" else ("responses" if not local and wants_responses(model) else "chat")
        self.store = bool(store)
        # SDK retries off (the wrapper retries, honouring Retry-After); the SDK timeout is a backstop
        # just above the wrapper's own per-attempt timeout.
        self._client_args: dict[str, Any] = dict(api_key=key, base_url=url, organization=organization,
                                                 max_retries=0, timeout=timeout + 5.0)
        if local and organization is None:
            # The SDK would add OPENAI_ORG_ID / OPENAI_PROJECT_ID from the environment: OpenAI account
            # names that a local server has no business receiving.
            self._client_args["default_headers"] = {"OpenAI-Organization": openai.Omit(),
                                                    "OpenAI-Project": openai.Omit()}
        self._clients = PerLoopClient(lambda: self._openai.AsyncOpenAI(**self._client_args))

    @property
    def client(self) -> Any:
        return self._clients.get()

    def reasons(self, options: GenerateOptions) -> bool:
        """Whether the reply's token limit must also hold hidden reasoning: an effort other than
        none, or one of OpenAI's reasoning models at its default effort."""
        if options.reasoning_effort is not None:
            return options.reasoning_effort != "none"
        return not self.compatible and wants_responses(self.model)

    # ---- request ----------------------------------------------------------------------------
    def request_params(self, messages: list[ChatMessage], schema: AnswerSchema | None,
                       options: GenerateOptions) -> dict[str, Any]:
        params: dict[str, Any] = {
            "model": self.model,
            # Parts are joined and their cache marks dropped: OpenAI caches by itself, serving any
            # exact prefix (from 1024 tokens on) that recent requests sent, whichever conversation.
            "messages": [{"role": m.role, "content": m.text} for m in messages],
        }
        limit = max_tokens_of(self, options, schema, messages=messages)
        if self.compatible:
            params["max_tokens"] = limit  # compatible servers know only max_tokens
        else:
            params["max_completion_tokens"] = limit
        if options.reasoning_effort is not None:
            params["reasoning_effort"] = options.reasoning_effort  # reasoning models reject temperature
        elif options.temperature is not None:
            params["temperature"] = options.temperature
        if options.seed is not None:
            params["seed"] = options.seed
        if schema is not None and options.structured == "native":
            params["response_format"] = {"type": "json_schema", "json_schema": {
                "name": schema.name, "description": schema.description,
                "schema": strict_subset(schema.json_schema), "strict": True}}
        elif schema is not None and options.structured == "json_object":
            fmt: dict[str, Any] = {"type": "json_object"}
            if self.compatible:  # llama.cpp turns it into a grammar
                fmt["schema"] = grammar_subset(schema.json_schema, options.grammar_max_length)
            params["response_format"] = fmt
        return params

    def responses_params(self, messages: list[ChatMessage], schema: AnswerSchema | None,
                         options: GenerateOptions) -> dict[str, Any]:
        params: dict[str, Any] = {
            "model": self.model,
            "input": [{"role": "developer" if m.role == "system" else m.role, "content": m.text} for m in messages],
            "max_output_tokens": max_tokens_of(self, options, schema, messages=messages),
            "store": self.store,
        }
        reasoning: dict[str, Any] = {}
        if options.reasoning_effort is not None:
            reasoning["effort"] = options.reasoning_effort
        if options.reasoning_summary is not None and (options.reasoning_effort not in (None, "none")
                                                      or wants_responses(self.model)):
            reasoning["summary"] = options.reasoning_summary
        if reasoning:
            params["reasoning"] = reasoning
        elif options.temperature is not None:
            params["temperature"] = options.temperature  # reasoning models reject temperature
        if schema is not None and options.structured in ("native", "tool"):
            params["text"] = {"format": {"type": "json_schema", "name": schema.name, "description": schema.description,
                                         "schema": strict_subset(schema.json_schema), "strict": True}}
        elif schema is not None and options.structured == "json_object":
            params["text"] = {"format": {"type": "json_object"}}
        return params

    async def generate(self, messages: list[ChatMessage], *, schema: AnswerSchema | None,
                       options: GenerateOptions) -> ProviderReply:
        if self.api == "responses":
            structured = schema is not None and options.structured != "prompt"
            response = await self._send(self.client.responses.create, self.responses_params(messages, schema, options))
            return self.parse_response(response, structured)
        modes = self._modes(schema, options)
        refused: list[str] = []
        for mode in modes:
            asked = options if mode == options.structured else options.model_copy(update={"structured": mode})
            try:
                completion = await self._send(self.client.chat.completions.create,
                                              self.request_params(messages, schema, asked))
            except ProviderError as err:
                if mode == modes[-1] or err.status not in REFUSED_FORMAT_STATUSES:
                    raise
                refused.append(f"{_FORMAT_NAMES[mode]} refused (HTTP {err.status})")
                continue
            # JSON is read from any reply to a schema'd question: in the plain mode too, the prompt asks for it.
            reply = self.parse_completion(completion, schema is not None)
            if refused:
                _SERVER_MODES[(str(self.base_url), self.model)] = mode
                reply.structured = f"{_FORMAT_NAMES[mode]} ({'; '.join(refused)})"
            elif mode != options.structured:
                reply.structured = _FORMAT_NAMES[mode]  # as this server answered before
            return reply
        raise AssertionError("unreachable: the last mode raises")  # pragma: no cover

    def _modes(self, schema: AnswerSchema | None, options: GenerateOptions) -> tuple[str, ...]:
        """The structured modes to try in order: the one asked alone, or on a compatible server the
        ladder from the one asked (or the one this server answered in before) down."""
        if schema is None or not self.compatible or options.structured not in STRUCTURED_LADDER:
            return (options.structured,)
        start = STRUCTURED_LADDER.index(options.structured)
        known = _SERVER_MODES.get((str(self.base_url), self.model))
        if known is not None:
            start = max(start, STRUCTURED_LADDER.index(known))
        return STRUCTURED_LADDER[start:]

    async def _send(self, create: Any, params: dict[str, Any]) -> Any:
        """One SDK call, its failures as :class:`ProviderError`."""
        try:
            return await create(**params)
        except self._openai.APITimeoutError:
            raise ProviderError("the OpenAI request timed out", retryable=True, kind="timeout") from None
        except self._openai.APIConnectionError as exc:
            raise ProviderError(f"cannot reach the OpenAI endpoint: {exc}", retryable=True,
                                kind="connection") from None
        except self._openai.APIStatusError as exc:
            raise _status_error(exc) from None

    # ---- reply ------------------------------------------------------------------------------
    def parse_response(self, response: Any, structured: bool) -> ProviderReply:
        """A Responses API reply: reasoning items (their summaries), message items (output text or a
        refusal). ``status: incomplete`` with ``max_output_tokens`` is a cut-off."""
        texts: list[str] = []
        summaries: list[str] = []
        refusals: list[str] = []
        for item in getattr(response, "output", None) or []:
            kind = getattr(item, "type", None)
            if kind == "reasoning":
                summaries += [getattr(part, "text", "") or "" for part in getattr(item, "summary", None) or []]
            elif kind == "message":
                for part in getattr(item, "content", None) or []:
                    if getattr(part, "type", None) == "output_text":
                        texts.append(part.text or "")
                    elif getattr(part, "type", None) == "refusal":
                        refusals.append(getattr(part, "refusal", "") or "")
        text = "".join(texts)
        refusal = "".join(refusals) or None
        if refusal and not text:
            text = refusal
        status = getattr(response, "status", None)
        incomplete = getattr(getattr(response, "incomplete_details", None), "reason", None)
        finish = incomplete if status == "incomplete" and incomplete else ("refusal" if refusal else status)
        parsed, repair = _parse_json(text) if structured and not refusal and status != "incomplete" else (None, None)
        return ProviderReply(text=text, parsed=parsed, repair=repair, thinking="\n\n".join(s for s in summaries if s) or None,
                             refusal=refusal, usage=_responses_usage(getattr(response, "usage", None)),
                             model=getattr(response, "model", None), finish_reason=finish,
                             request_id=getattr(response, "_request_id", None),
                             response_id=getattr(response, "id", None), api="responses")

    def parse_completion(self, completion: Any, structured: bool) -> ProviderReply:
        if not getattr(completion, "choices", None):
            raise ProviderError("the reply has no choices", retryable=True, kind="server")
        choice = completion.choices[0]
        message = choice.message
        text = message.content or ""
        refusal = getattr(message, "refusal", None)
        if refusal and not text:
            text = refusal
        extra = getattr(message, "model_extra", None) or {}
        thinking = extra.get("reasoning_content") or extra.get("reasoning") or None
        parsed, repair = _parse_json(text) if structured and not (refusal and text == refusal) else (None, None)
        return ProviderReply(text=text, parsed=parsed, repair=repair, thinking=thinking if isinstance(thinking, str) else None,
                             refusal=refusal or None, usage=_usage(getattr(completion, "usage", None)),
                             model=getattr(completion, "model", None),
                             finish_reason=getattr(choice, "finish_reason", None),
                             request_id=getattr(completion, "_request_id", None),
                             response_id=getattr(completion, "id", None),
                             system_fingerprint=getattr(completion, "system_fingerprint", None),
                             api="chat")


_FORMAT_NAMES = {"native": "json_schema", "json_object": "json_object", "prompt": "no response_format"}


def _parse_json(text: str) -> tuple[dict[str, Any] | None, str | None]:
    """The structured reply as a dict and the repair it needed, if any; None hands it to the seat's
    tolerant extraction and re-ask. Raw newlines or tabs inside strings (which llama.cpp's JSON
    grammar lets through) are the one fault read here: the text is otherwise valid JSON."""
    if not text:
        return None, None
    repair = None
    try:
        value = json.loads(text)
    except RecursionError:  # nesting deeper than json's decoder goes
        return None, None
    except ValueError:
        try:
            value = json.loads(text, strict=False)
        except (ValueError, RecursionError):
            return None, None
        repair = REPAIR_CONTROL_CHARS
    return (value, repair) if isinstance(value, dict) else (None, None)


# Keywords left out of a strict schema: not every model accepts them in strict mode, and the
# legal set's check (with a re-ask) enforces them anyway.
STRICT_UNSUPPORTED = frozenset({"minItems", "maxItems", "minimum", "maximum", "maxLength", "minLength"})


def grammar_subset(schema: Any, max_length: int) -> Any:
    """``schema`` without any ``maxLength`` over ``max_length``: llama.cpp compiles a string limit
    into a grammar rule per character, and a limit in the thousands crashes its server."""
    if isinstance(schema, dict):
        return {k: grammar_subset(v, max_length) for k, v in schema.items()
                if not (k == "maxLength" and isinstance(v, int) and v > max_length)}
    if isinstance(schema, list):
        return [grammar_subset(v, max_length) for v in schema]
    return schema


def strict_subset(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: strict_subset(v) for k, v in schema.items() if k not in STRICT_UNSUPPORTED}
    if isinstance(schema, list):
        return [strict_subset(v) for v in schema]
    return schema


def _usage(u: Any) -> Usage:
    """Chat Completions usage (prompt/completion tokens and their details)."""
    return _usage_of(u, "prompt_tokens", "completion_tokens", "prompt_tokens_details", "completion_tokens_details")


def _responses_usage(u: Any) -> Usage:
    """Responses API usage (input/output tokens and their details)."""
    return _usage_of(u, "input_tokens", "output_tokens", "input_tokens_details", "output_tokens_details")


def _usage_of(u: Any, inp: str, out: str, inp_details: str, out_details: str) -> Usage:
    if u is None:
        return Usage()
    cached = getattr(getattr(u, inp_details, None), "cached_tokens", None) or 0
    reasoning = getattr(getattr(u, out_details, None), "reasoning_tokens", None) or 0
    return Usage(input=getattr(u, inp, 0) or 0, output=getattr(u, out, 0) or 0, cached=cached, reasoning=reasoning)


def _status_error(exc: Any) -> ProviderError:
    status = getattr(exc, "status_code", None)
    response = getattr(exc, "response", None)
    retry_after = parse_retry_after(getattr(response, "headers", None))
    kind = "rate_limit" if status == 429 else "server" if status and status >= 500 else "client"
    return ProviderError(f"HTTP {status}: {short_error_body(getattr(exc, 'body', None) or exc.message)}",
                         retryable=retryable_status(status), status=status, retry_after=retry_after, kind=kind)
