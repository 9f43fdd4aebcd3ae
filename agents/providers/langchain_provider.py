"""Any LangChain chat model (a ``langchain_core`` ``BaseChatModel``), so every provider LangChain
supports can sit at the table.

Specs: ``langchain:NAME[:MODEL]`` for a registered name (``openai``, ``anthropic``, ``ollama``,
``google``, ``mistral``, ``groq``...) or ``langchain:package.module:Class[:MODEL]`` for any class.
The structured answer uses ``with_structured_output(..., include_raw=True)`` where the model has it
(usage and the raw text stay available), and falls back to JSON extraction from plain text.
"""

from __future__ import annotations

import importlib
from typing import Any

from agents.providers import secrets
from agents.providers.base import (
    AnswerSchema,
    ChatMessage,
    GenerateOptions,
    ProviderConfigError,
    ProviderError,
    ProviderReply,
    Usage,
    parse_retry_after,
    retryable_status,
    short_error_body,
)

# Registered names -> (module, class, the SDK whose environment variables it reads).
KNOWN_MODELS: dict[str, tuple[str, str, str | None]] = {
    "openai": ("langchain_openai", "ChatOpenAI", "openai"),
    "anthropic": ("langchain_anthropic", "ChatAnthropic", "anthropic"),
    "ollama": ("langchain_ollama", "ChatOllama", None),
    "google": ("langchain_google_genai", "ChatGoogleGenerativeAI", None),
    "mistral": ("langchain_mistralai", "ChatMistralAI", None),
    "groq": ("langchain_groq", "ChatGroq", None),
    "deepseek": ("langchain_deepseek", "ChatDeepSeek", None),
}


def register_model(name: str, module: str, cls: str) -> None:
    """Make ``langchain:NAME`` mean ``module:cls``."""
    KNOWN_MODELS[name] = (module, cls, None)


def names_class_path(rest: str) -> bool:
    """``rest`` (after ``langchain:``) names a module and class to import rather than a registered
    name: only the operator may write one (it imports and constructs whatever it names)."""
    parts = rest.split(":")
    return "." in parts[0] or len(parts) >= 2 and parts[1][:1].isupper()


def parse_spec(rest: str) -> tuple[str, str, str | None, str | None]:
    """``openai:gpt-4o-mini`` or ``pkg.mod:Class:model`` -> (module, class, model, sdk)."""
    parts = rest.split(":")
    if not parts or not parts[0]:
        raise ProviderConfigError("empty langchain spec; use langchain:NAME[:MODEL] or "
                                  "langchain:package.module:Class[:MODEL]")
    if names_class_path(rest):
        if len(parts) < 2:
            raise ProviderConfigError(f"langchain:{rest}: give the class as package.module:Class")
        return parts[0], parts[1], (":".join(parts[2:]) or None), None
    if parts[0] not in KNOWN_MODELS:
        raise ProviderConfigError(f"unknown langchain model {parts[0]!r}; known: {', '.join(sorted(KNOWN_MODELS))}, "
                                  "or langchain:package.module:Class")
    module, cls, sdk = KNOWN_MODELS[parts[0]]
    return module, cls, (":".join(parts[1:]) or None), sdk


class LangChainProvider:
    name = "langchain"

    def __init__(self, rest: str | None = None, *, chat_model: Any = None, model: str | None = None,
                 base_url: str | None = None, timeout: float = 60.0, model_kwargs: dict[str, Any] | None = None,
                 trusted: bool = False):
        """``trusted``: ``rest`` came from the operator; only then may it name a class to import and build."""
        if chat_model is not None:
            self.chat_model = chat_model
            self.model = model or getattr(chat_model, "model_name", None) or getattr(chat_model, "model", None) \
                or type(chat_model).__name__
            self.sdk = None
            self.price_provider = None
            return
        module_name, cls_name, spec_model, sdk = parse_spec(rest or "")
        if not trusted and names_class_path(rest or ""):
            raise ProviderConfigError(f"langchain:{rest} names a class to import and build; a class path is "
                                      "accepted only from the operator's command line or config")
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise ProviderConfigError(f"langchain:{rest} needs the {module_name.replace('_', '-')} package "
                                      f"(pip install '{module_name.replace('_', '-')}')") from exc
        cls = getattr(module, cls_name, None)
        if cls is None:
            raise ProviderConfigError(f"{module_name} has no {cls_name}")
        self.model = model or spec_model or ""
        self.sdk = sdk
        self.price_provider = sdk  # langchain:openai:gpt-4o-mini costs what openai:gpt-4o-mini costs
        kwargs: dict[str, Any] = dict(model_kwargs or {})
        if self.model:
            kwargs.setdefault("model", self.model)
        if sdk is not None:
            # The wrapper owns retries; langchain-openai and langchain-anthropic read the SDK's own
            # environment variables for the key, so only the base URL is passed on.
            kwargs.setdefault("max_retries", 0)
            kwargs.setdefault("timeout", timeout + 5.0)
            url = base_url or secrets.base_url(sdk)
            if url:
                kwargs.setdefault("base_url", url)
            key = secrets.api_key(sdk)  # registered so that redact() knows it; the SDK reads it itself
            if key is None:
                raise ProviderConfigError(f"no key for langchain:{rest}: set {secrets.KEY_ENV[sdk]}")
        elif base_url:
            kwargs.setdefault("base_url", base_url)
        try:
            self.chat_model = cls(**kwargs)
        except Exception as exc:
            raise ProviderConfigError(f"cannot build {cls_name}: {type(exc).__name__}: {exc}") from None
        if not self.model:
            self.model = getattr(self.chat_model, "model_name", None) or getattr(self.chat_model, "model", "") or ""

    def _messages(self, messages: list[ChatMessage]) -> list[Any]:
        from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

        kinds = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}
        return [kinds[m.role](content=m.text) for m in messages]

    def _bound(self, schema: AnswerSchema | None, options: GenerateOptions) -> tuple[Any, bool]:
        """The runnable to call. Temperature and token limits are set when the model is built
        (``model_kwargs``): ``bind`` would hide ``with_structured_output`` on some models."""
        if schema is None or options.structured == "prompt":
            return self.chat_model, False
        json_schema = {"title": schema.name, "description": schema.description, **schema.json_schema}
        try:
            return self.chat_model.with_structured_output(json_schema, include_raw=True), True
        except (NotImplementedError, AttributeError, TypeError, ValueError):
            return self.chat_model, False  # no native structured output: JSON is extracted from the text

    async def generate(self, messages: list[ChatMessage], *, schema: AnswerSchema | None,
                       options: GenerateOptions) -> ProviderReply:
        runnable, structured = self._bound(schema, options)
        try:
            out = await runnable.ainvoke(self._messages(messages))
        except ProviderError:
            raise
        except Exception as exc:
            raise map_sdk_exception(exc) from None
        if structured and isinstance(out, dict) and "raw" in out:
            raw, parsed = out.get("raw"), out.get("parsed")
            if parsed is not None and hasattr(parsed, "model_dump"):
                parsed = parsed.model_dump()
            reply = _reply_from_message(raw)
            reply.parsed = parsed if isinstance(parsed, dict) else None
            if reply.parsed is not None and not reply.text:
                import json

                reply.text = json.dumps(reply.parsed, ensure_ascii=False)
            return reply
        return _reply_from_message(out)


def _reply_from_message(message: Any) -> ProviderReply:
    if message is None:
        return ProviderReply()
    content = getattr(message, "content", "")
    texts, thinking = [], []
    if isinstance(content, str):
        texts.append(content)
    else:
        for block in content or []:
            if isinstance(block, str):
                texts.append(block)
            elif isinstance(block, dict) and block.get("type") == "text":
                texts.append(block.get("text", ""))
            elif isinstance(block, dict) and block.get("type") in ("thinking", "reasoning"):
                thinking.append(block.get("thinking") or block.get("reasoning") or "")
    extra = getattr(message, "additional_kwargs", {}) or {}
    if isinstance(extra.get("reasoning_content"), str):
        thinking.append(extra["reasoning_content"])
    meta = getattr(message, "usage_metadata", None) or {}
    inp = meta.get("input_token_details") or {}
    out = meta.get("output_token_details") or {}
    usage = Usage(input=meta.get("input_tokens", 0) or 0, output=meta.get("output_tokens", 0) or 0,
                  cached=inp.get("cache_read", 0) or 0, cache_write=inp.get("cache_creation", 0) or 0,
                  reasoning=out.get("reasoning", 0) or 0)
    text = "".join(texts)
    if not text and getattr(message, "tool_calls", None):
        import json

        text = json.dumps(message.tool_calls[0].get("args", {}), ensure_ascii=False)
    resp_meta = getattr(message, "response_metadata", {}) or {}
    return ProviderReply(text=text, thinking="\n".join(t for t in thinking if t) or None, usage=usage,
                         model=resp_meta.get("model_name") or resp_meta.get("model"),
                         finish_reason=resp_meta.get("finish_reason") or resp_meta.get("stop_reason"))


def map_sdk_exception(exc: BaseException) -> ProviderError:
    """Classify an exception from whatever SDK a LangChain model uses, by its shape."""
    name = type(exc).__name__
    status = getattr(exc, "status_code", None)
    if status is None:
        status = getattr(getattr(exc, "response", None), "status_code", None)
    if isinstance(status, int):
        retry_after = parse_retry_after(getattr(getattr(exc, "response", None), "headers", None))
        kind = "rate_limit" if status == 429 else "server" if status >= 500 else "client"
        body = getattr(exc, "body", None) or getattr(exc, "message", None) or str(exc)
        return ProviderError(f"HTTP {status}: {short_error_body(body)}", retryable=retryable_status(status),
                             status=status, retry_after=retry_after, kind=kind)
    if "Timeout" in name or isinstance(exc, TimeoutError):
        return ProviderError(f"{name}: the request timed out", retryable=True, kind="timeout")
    if "Connection" in name:
        return ProviderError(f"{name}: {exc}", retryable=True, kind="connection")
    return ProviderError(f"{name}: {exc}", retryable=False, kind="unexpected")
