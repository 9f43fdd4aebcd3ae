"""How many tokens a reply may take (``max_tokens``) when a seat does not set it: sized from the
answer's own limits (each string field's ``maxLength`` x the tokens a character takes in the table's
language, plus the JSON around them) and the model's kind (a reasoning model spends hidden tokens
inside the same limit: OpenAI's Responses ``max_output_tokens`` and Chat ``max_completion_tokens``
cover them, so it gets headroom by its effort). A seat's own ``max_tokens`` always wins.

Tokens per character, measured with the offline BPE vocabularies (``bpe-openai``) on the rule
documents (/work/shared/seeds, RULES.md): Chinese 0.76-0.87 (o200k_base) and 1.16-1.27
(cl100k_base); English 0.32 in both. The figures below take the worse vocabulary with a margin, so
an answer that keeps to its limits always fits.
"""

from __future__ import annotations

from typing import Any

TOKENS_PER_CHAR = {"en": 0.4, "zh": 1.3}
# A JSON answer's braces, quotes, keys and commas: per property, and once per object.
TOKENS_PER_PROPERTY = 8
TOKENS_PER_OBJECT = 8
SCALAR_TOKENS = 6  # a seat number, a boolean, null, a probability such as 0.35
# A string field without a maxLength (a claim's role, a legal set this agent does not know): room for this many characters.
UNBOUNDED_STRING_CHARS = 100
ROUND_TO = 256
# Hidden reasoning a reasoning model may spend before it answers, by its effort (None: the model's
# default, medium). OpenAI suggests reserving about 25,000 tokens for reasoning and output at first.
REASONING_HEADROOM = {"none": 0, "minimal": 2048, "low": 8192, "medium": 24576, "high": 32768,
                      "xhigh": 49152, "max": 49152}
DEFAULT_EFFORT = "medium"


def answer_tokens(schema: Any, lang: str) -> int:
    """The most tokens an answer to ``schema`` takes when every string keeps to its ``maxLength``."""
    per_char = TOKENS_PER_CHAR.get(lang, max(TOKENS_PER_CHAR.values()))
    if not isinstance(schema, dict):
        return SCALAR_TOKENS
    if "anyOf" in schema:
        return max(answer_tokens(option, lang) for option in schema["anyOf"])
    kind = schema.get("type")
    if kind == "object":
        props = schema.get("properties") or {}
        return TOKENS_PER_OBJECT + sum(TOKENS_PER_PROPERTY + answer_tokens(v, lang) for v in props.values())
    if kind == "array":
        items = schema.get("maxItems") or len((schema.get("items") or {}).get("enum") or ()) or 1
        return TOKENS_PER_OBJECT + int(items) * (2 + answer_tokens(schema.get("items"), lang))
    if kind == "string":
        if "enum" in schema:
            return max((int(len(str(v)) * per_char) + 2 for v in schema["enum"]), default=SCALAR_TOKENS)
        chars = schema.get("maxLength") or UNBOUNDED_STRING_CHARS
        return int(chars * per_char) + 2
    return SCALAR_TOKENS


def reasoning_headroom(reasoning: bool, effort: str | None) -> int:
    """Hidden tokens to leave a reasoning model inside its output limit (none for other models)."""
    if not reasoning:
        return 0
    return REASONING_HEADROOM.get(effort or DEFAULT_EFFORT, REASONING_HEADROOM[DEFAULT_EFFORT])


def sized_max_tokens(schema: Any, lang: str, *, reasoning: bool = False, effort: str | None = None) -> int:
    """``max_tokens`` for one call: the answer's most tokens (rounded up to a multiple of 256) plus a
    reasoning model's headroom. ``schema`` is the answer's JSON Schema (None: a free-text reply)."""
    need = answer_tokens(schema if schema is not None else {"type": "string"}, lang)
    rounded = -(-need // ROUND_TO) * ROUND_TO
    return rounded + reasoning_headroom(reasoning, effort)


def guess_lang(text: str) -> str:
    """``zh`` when the text holds Chinese characters, else ``en`` (for callers that do not say)."""
    return "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in text) else "en"


def provider_reasons(provider: Any, options: Any) -> bool:
    """Whether the model spends hidden reasoning tokens inside its output limit: the provider says
    (``reasons(options)``: OpenAI's reasoning models, Anthropic's adaptive thinking), else any
    reasoning effort asked other than none."""
    reasons = getattr(provider, "reasons", None)
    if callable(reasons):
        return bool(reasons(options))
    return options.reasoning_effort not in (None, "none")


def max_tokens_of(provider: Any, options: Any, schema: Any, *, lang: str | None = None,
                  messages: Any = ()) -> int:
    """The ``max_tokens`` a call sends: the seat's own, else :func:`sized_max_tokens` for the
    answer's schema (an :class:`AnswerSchema` or None), the language (guessed from the messages when
    not given) and the model's kind."""
    if options.max_tokens is not None:
        return int(options.max_tokens)
    json_schema = getattr(schema, "json_schema", schema)
    if lang is None:
        lang = guess_lang("".join(getattr(m, "text", "") for m in messages))
    sized = sized_max_tokens(json_schema, lang, reasoning=provider_reasons(provider, options),
                             effort=options.reasoning_effort)
    ceiling = getattr(provider, "max_output_tokens", None)  # the most the provider's models take
    return min(sized, int(ceiling)) if isinstance(ceiling, int) else sized
