"""Claims reading that needs agents (arena/ never imports them): the model-judged claims reader, and
the labelled speeches of ``mock:talker`` games for the claims benchmark.

The model-judged reader: a model reads each speech with a fixed prompt (prompts/<lang>/claims_reader.yaml).

Optional, for researchers who score real games (``arena score --claims-reader model --claims-model
KIND:MODEL``); the rule-based reader (:func:`arena.evaluate.claims.parse_claims`) stays the offline
default and the one the bots and the LLM prompts use. Any provider the arena supports serves it
(:func:`agents.providers.make_provider`). What the model answers is checked before it counts: seats
that the speech does not name, roles outside the arena's list and results other than good/wolf are
dropped, and a call that fails or answers nonsense falls back to the rule-based reader (counted, and
shown in the report's reader line). ``benchmarks/claim_extractor.py --reader model`` calibrates it
against the same labelled sets as the rule-based reader.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Literal

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from arena.evaluate.claim_benchmark import CLAIM_TYPES
from arena.evaluate.claims import ROLE_WORDS_EN, Claims, _normalise, parse_claims
from arena.resources import data_dir

PROMPT_FILE = "claims_reader.yaml"
ROLES = frozenset(ROLE_WORDS_EN.values())
_CJK = re.compile(r"[\u3400-\u9fff]")


class _Check(BaseModel):
    model_config = ConfigDict(extra="ignore")
    seat: int
    result: Literal["good", "wolf"]


class _ReportedRole(BaseModel):
    model_config = ConfigDict(extra="ignore")
    seat: int
    role: str


class _ReportedCheck(BaseModel):
    model_config = ConfigDict(extra="ignore")
    by: int
    seat: int
    result: Literal["good", "wolf"]


class ModelClaims(BaseModel):
    """The answer the prompt asks for."""

    model_config = ConfigDict(extra="ignore")
    roles: list[str] = []
    checks: list[_Check] = []
    reported_roles: list[_ReportedRole] = []
    reported_checks: list[_ReportedCheck] = []


ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False,
    "required": ["roles", "checks", "reported_roles", "reported_checks"],
    "properties": {
        "roles": {"type": "array", "items": {"type": "string"}},
        "checks": {"type": "array", "items": {
            "type": "object", "additionalProperties": False, "required": ["seat", "result"],
            "properties": {"seat": {"type": "integer"}, "result": {"type": "string", "enum": ["good", "wolf"]}}}},
        "reported_roles": {"type": "array", "items": {
            "type": "object", "additionalProperties": False, "required": ["seat", "role"],
            "properties": {"seat": {"type": "integer"}, "role": {"type": "string"}}}},
        "reported_checks": {"type": "array", "items": {
            "type": "object", "additionalProperties": False, "required": ["by", "seat", "result"],
            "properties": {"by": {"type": "integer"}, "seat": {"type": "integer"},
                           "result": {"type": "string", "enum": ["good", "wolf"]}}}},
    },
}


def load_prompt(lang: str) -> dict[str, str]:
    """The fixed prompt of one language: ``system`` and ``user`` (with {players} and {speech})."""
    path = data_dir("prompts") / lang / PROMPT_FILE
    book = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    if not isinstance(book.get("system"), str) or not isinstance(book.get("user"), str):
        raise ValueError(f"{path}: needs the texts 'system' and 'user'")
    return {"system": book["system"], "user": book["user"]}


def prompt_hash() -> str:
    """sha256 (first 12 hex digits) of both languages' prompts: recorded with every figure it produced."""
    h = hashlib.sha256()
    for lang in ("en", "zh"):
        h.update((data_dir("prompts") / lang / PROMPT_FILE).read_bytes())
    return h.hexdigest()[:12]


def seats_named(text: str, players: int) -> set[int]:
    """Every number 1..players the speech writes (as digits, full-width digits or 十一号)."""
    return {n for n in map(int, re.findall(r"(?<!\d)\d{1,2}(?!\d)", _normalise(text))) if 1 <= n <= players}


def to_claims(answer: ModelClaims, text: str, players: int) -> Claims:
    """The model's answer as :class:`Claims`, keeping only what the speech can hold: named seats,
    known roles, a reported check's announcer other than its target."""
    named = seats_named(text, players)
    out = Claims()
    for role in answer.roles:
        if role in ROLES and role not in out.roles:
            out.roles.append(role)
    for c in answer.checks:
        if c.seat in named and (c.seat, c.result) not in out.checks:
            out.checks.append((c.seat, c.result))
    for r in answer.reported_roles:
        if r.seat in named and r.role in ROLES and (r.seat, r.role) not in out.reported_roles:
            out.reported_roles.append((r.seat, r.role))
    for k in answer.reported_checks:
        item = (k.by, k.seat, k.result)
        if k.by in named and k.seat in named and k.by != k.seat and item not in out.reported_checks:
            out.reported_checks.append(item)
    return out


@dataclass
class ModelClaimsReader:
    """Reads speeches with a model; ``reader(text, players) -> Claims`` like :func:`parse_claims`."""

    provider: Any  # agents.providers.Provider
    max_tokens: int = 800
    timeout: float = 60.0
    tries: int = 2
    calls: int = 0
    fallbacks: int = 0
    _cache: dict[tuple[str, int], Claims] = field(default_factory=dict)
    _loop: asyncio.AbstractEventLoop | None = None

    @property
    def name(self) -> str:
        """How the report names this reader: provider, model, prompt hash, and the fallbacks so far."""
        return (f"model {self.provider.name}:{self.provider.model} (prompt {prompt_hash()}, "
                f"{self.calls} calls, {self.fallbacks} fell back to the regex reader)")

    def __call__(self, text: str, players: int) -> Claims:
        key = (text, players)
        if key not in self._cache:
            self._cache[key] = self._read(text, players)
        return self._cache[key]

    def _read(self, text: str, players: int) -> Claims:
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
        self.calls += 1
        answer = self._loop.run_until_complete(self._ask(text, players))
        if answer is None:
            self.fallbacks += 1
            return parse_claims(text, players)
        return to_claims(answer, text, players)

    async def _ask(self, text: str, players: int) -> ModelClaims | None:
        from agents.providers import AnswerSchema, ChatMessage, GenerateOptions, ProviderError

        prompt = load_prompt("zh" if _CJK.search(text) else "en")
        messages = [ChatMessage.of("system", prompt["system"]),
                    ChatMessage.of("user", prompt["user"].format(players=players, speech=text))]
        schema = AnswerSchema(name="claims", description="The claims of the speech.", json_schema=ANSWER_SCHEMA)
        options = GenerateOptions(temperature=0, max_tokens=self.max_tokens, seed=0)
        for _ in range(self.tries):
            try:
                reply = await asyncio.wait_for(self.provider.generate(messages, schema=schema, options=options),
                                               self.timeout)
            except (ProviderError, asyncio.TimeoutError):
                continue
            answer = _parse_answer(reply.parsed, reply.text)
            if answer is not None:
                return answer
        return None

    def close(self) -> None:
        if self._loop is not None:
            self._loop.close()
            self._loop = None


def _parse_answer(parsed: dict[str, Any] | None, text: str) -> ModelClaims | None:
    data: Any = parsed
    if data is None:
        m = re.search(r"\{.*\}", text or "", re.S)
        if not m:
            return None
        try:
            data = json.loads(m.group(0))
        except json.JSONDecodeError:
            return None
    try:
        return ModelClaims.model_validate(data)
    except ValidationError:
        return None


def reader_from_spec(spec: str, *, base_url: str | None = None, timeout: float = 60.0) -> ModelClaimsReader:
    """``KIND:MODEL`` (openai:gpt-4.1-mini, anthropic:claude-..., local:qwen@http://127.0.0.1:8080/v1, mock:x)."""
    from agents.providers import PROVIDER_KINDS, ProviderConfigError, make_provider

    kind, _, model = spec.partition(":")
    if not model or kind not in PROVIDER_KINDS:
        raise ProviderConfigError(f"claims reader model {spec!r}: write KIND:MODEL with KIND one of "
                                  f"{', '.join(PROVIDER_KINDS)} (e.g. openai:gpt-4.1-mini)")
    if "@" in model and base_url is None:
        model, _, base_url = model.partition("@")
    # The spec is the operator's (--claims-model, a benchmark's argument): a langchain class path may be built.
    extra = {"trusted": True} if kind == "langchain" else {}
    return ModelClaimsReader(make_provider(kind, model, base_url=base_url, timeout=timeout, **extra), timeout=timeout)


def talker_rows(preset: str, lang: str, seeds: Iterable[int]) -> list[dict[str, Any]]:
    """The speeches of ``mock:talker`` games (agents/providers/talker.py) with the labels its ledger keeps,
    as labelled rows: another author's phrasings of the shapes of #32. Conditional claims are
    ``unsure`` (counted neither way)."""
    import asyncio

    from agents.registry import make_agent
    from arena.config import get_preset
    from arena.engine import GameSetup
    from arena.referee import run_game

    rows: list[dict[str, Any]] = []
    for seed in seeds:
        # declare_claims off: the speeches as spoken, without the line of declared claims an LLM seat appends
        agents = [make_agent("mock:talker", seat=s, seed=seed, declare_claims=False)
                  for s in range(1, get_preset(preset).players + 1)]
        events: list[Any] = []
        asyncio.run(run_game(GameSetup(preset=preset, seed=seed), agents, lang=lang, on_event=events.append))
        ledger = agents[0].provider.provider.labels  # type: ignore[attr-defined]
        for i, e in enumerate(ev for ev in events if ev.type == "speech"):
            lab = ledger.get(e.text)
            if lab is None:
                continue
            row: dict[str, Any] = {"id": f"talker-{lang}-{seed}-{i}", "lang": lang, "text": e.text, "roles": [],
                                   "checks": [], "reported_roles": [], "reported_checks": [],
                                   "unsure": {t: [] for t in CLAIM_TYPES}}
            for claims, own in ((lab.own, True), (lab.reported, False)):
                for c in claims:
                    item: tuple[str, list[Any]] | None = None
                    if c.what == "role":
                        item = ("roles", [c.role]) if own else ("reported_roles", [c.by, c.role])
                    elif c.what == "check":
                        item = ("checks", [c.target, c.result]) if own else ("reported_checks", [c.by, c.target, c.result])
                    if item is None:
                        continue
                    field_name, value = item
                    target = row["unsure"][field_name] if c.conditional else row[field_name]
                    if value not in target:
                        target.append(value[0] if field_name == "roles" and not c.conditional else value)
            rows.append(row)
    return rows
