"""Model providers behind one small interface (see :mod:`agents.providers.base`).

Adapters are imported lazily by :func:`make_provider`: a user with only an Anthropic key never
imports ``openai`` or ``langchain``; importing this package imports no SDK at all.
"""

from __future__ import annotations

from typing import Any

from agents.providers.base import (
    AnswerSchema,
    ChatMessage,
    ContentPart,
    GenerateOptions,
    Provider,
    ProviderConfigError,
    ProviderError,
    ProviderReply,
    Usage,
)

__all__ = [
    "AnswerSchema", "ChatMessage", "ContentPart", "GenerateOptions", "Provider", "ProviderConfigError",
    "ProviderError", "ProviderReply", "Usage", "make_provider", "PROVIDER_KINDS",
]

PROVIDER_KINDS = ("openai", "anthropic", "langchain", "local", "mock")


def make_provider(kind: str, model: str, *, base_url: str | None = None, timeout: float = 60.0,
                  **extra: Any) -> Provider:
    """Build one adapter. ``extra`` goes to the adapter (``config`` for mock, ``model_kwargs`` for langchain)."""
    if kind == "openai":
        from agents.providers.openai_provider import OpenAIProvider

        return OpenAIProvider(model, base_url=base_url, timeout=timeout, **extra)
    if kind == "local":
        from agents.providers.openai_provider import OpenAIProvider

        return OpenAIProvider(model, base_url=base_url, local=True, timeout=timeout, **extra)
    if kind == "anthropic":
        from agents.providers.anthropic_provider import AnthropicProvider

        return AnthropicProvider(model, base_url=base_url, timeout=timeout, **extra)
    if kind == "langchain":
        from agents.providers.langchain_provider import LangChainProvider

        return LangChainProvider(model, base_url=base_url, timeout=timeout, **extra)
    if kind == "mock":
        from agents.providers.mock import MockProvider

        if model.split("-")[0] == "talker":
            from agents.providers.talker import TalkerProvider

            return TalkerProvider(model, **extra)
        return MockProvider(model, **extra)
    raise ProviderConfigError(f"unknown provider {kind!r}; known: {', '.join(PROVIDER_KINDS)}")
