"""What the referee asks for: a decision request with its legal set, and the validation of answers.

An answer is a plain JSON value whose type the legal set fixes (a seat or ``None``, a boolean, a
list of seats, a text, ...). ``LegalSet.check`` is the one place where an answer is judged: it
returns the normalised value or raises :class:`IllegalAnswer` with a message an agent can act on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType
from typing import Any, ClassVar, Literal, Mapping, NamedTuple, Union

from pydantic import BaseModel, ConfigDict, Field, model_serializer


class IllegalAnswer(ValueError):
    """The answer cannot be parsed or is not allowed now. The message says why."""


def _as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().lstrip("+").isdigit():
        return int(value.strip())
    return None


class _Legal:
    """Legal sets are plain frozen dataclasses: the referee makes one per decision, hundreds per
    game, so they skip pydantic's validation; ``to_json`` gives their transcript form."""

    type: ClassVar[str]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        for name in self.__slots__:  # type: ignore[attr-defined]
            value = getattr(self, name)
            out[name] = list(value) if isinstance(value, tuple) else value
        return out


@dataclass(frozen=True, slots=True)
class ChooseSeat(_Legal):
    """One seat from ``options``, or ``None`` when ``allow_none`` (abstain, empty knife, no shot...)."""

    type: ClassVar[str] = "seat"
    options: tuple[int, ...]
    allow_none: bool = True

    def check(self, value: Any) -> int | None:
        if value is None:
            if self.allow_none:
                return None
            raise IllegalAnswer(f"a seat is required; choose one of {list(self.options)}")
        seat = _as_int(value)
        if seat is None:
            raise IllegalAnswer(f"expected a seat number{' or null' if self.allow_none else ''}, got {value!r}")
        if seat not in self.options:
            raise IllegalAnswer(f"seat {seat} is not a legal choice; legal: {list(self.options)}"
                                + (" or null" if self.allow_none else ""))
        return seat


@dataclass(frozen=True, slots=True)
class ChooseBool(_Legal):
    type: ClassVar[str] = "bool"

    def check(self, value: Any) -> bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in {"true", "yes", "y", "1"}:
            return True
        if isinstance(value, str) and value.strip().lower() in {"false", "no", "n", "0"}:
            return False
        raise IllegalAnswer(f"expected true or false, got {value!r}")


@dataclass(frozen=True, slots=True)
class ChooseSeats(_Legal):
    """Several distinct seats from ``options``: exactly ``min_count``..``max_count`` of them."""

    type: ClassVar[str] = "seats"
    options: tuple[int, ...]
    min_count: int
    max_count: int
    allow_none: bool = False

    def check(self, value: Any) -> list[int] | None:
        if value is None or value == []:
            if self.allow_none:
                return None
            raise IllegalAnswer(f"choose {self._count()} seats from {list(self.options)}")
        if not isinstance(value, (list, tuple)):
            raise IllegalAnswer(f"expected a list of seats, got {value!r}")
        seats = [_as_int(v) for v in value]
        if any(s is None for s in seats):
            raise IllegalAnswer(f"expected seat numbers, got {value!r}")
        if len(set(seats)) != len(seats):
            raise IllegalAnswer(f"seats must be distinct, got {value!r}")
        bad = [s for s in seats if s not in self.options]
        if bad:
            raise IllegalAnswer(f"seat(s) {bad} not allowed; legal: {list(self.options)}")
        if not self.min_count <= len(seats) <= self.max_count:
            raise IllegalAnswer(f"choose {self._count()} seats, got {len(seats)}")
        return sorted(seats)  # type: ignore[arg-type]

    def _count(self) -> str:
        return str(self.min_count) if self.min_count == self.max_count else f"{self.min_count} to {self.max_count}"


@dataclass(frozen=True, slots=True)
class ChooseOption(_Legal):
    """One of a few named options (the thief's center card index, a direction...)."""

    type: ClassVar[str] = "option"
    options: tuple[Any, ...]

    def check(self, value: Any) -> Any:
        for option in self.options:
            if value == option and type(value) is type(option):
                return option
        as_int = _as_int(value)
        if as_int is not None and as_int in self.options:
            return as_int
        raise IllegalAnswer(f"{value!r} is not one of {list(self.options)}")


@dataclass(frozen=True, slots=True)
class SpeechOrderChoice(_Legal):
    """R62: the first speaker and a direction. ``starts_from`` says in a word which starts the rule allows, so a
    seat can say it: ``neighbours`` (``sheriff_chooses``: a neighbour of the sheriff or of a dead player) or
    ``anyone`` (``sheriff_free``: any living player but the sheriff)."""

    type: ClassVar[str] = "speech_order"
    starts: tuple[int, ...]
    directions: tuple[str, ...] = ("ascending", "descending")
    starts_from: Literal["neighbours", "anyone"] = "neighbours"

    def check(self, value: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise IllegalAnswer(f"expected {{'start': seat, 'direction': 'ascending'|'descending'}}, got {value!r}")
        start = _as_int(value.get("start"))
        direction = value.get("direction")
        if start not in self.starts:
            raise IllegalAnswer(f"start {value.get('start')!r} not allowed; legal: {list(self.starts)}")
        if direction not in self.directions:
            raise IllegalAnswer(f"direction must be one of {list(self.directions)}")
        return {"start": start, "direction": direction}


@dataclass(frozen=True, slots=True)
class Speak(_Legal):
    """Free text; a time limit, where the rules give one, is passed on as length guidance (R64)."""

    type: ClassVar[str] = "text"
    max_chars: int = 2000
    seconds: int | None = None

    def check(self, value: Any) -> str:
        if value is None:
            raise IllegalAnswer("a speech is required (say \"pass\" to say nothing)")
        if not isinstance(value, str):
            raise IllegalAnswer(f"a speech must be text, got {type(value).__name__}")
        text = value.strip()
        if not text:
            raise IllegalAnswer("the speech is empty (say \"pass\" to say nothing)")
        return text[: self.max_chars]


@dataclass(frozen=True, slots=True)
class RateSeats(_Legal):
    """A private belief report: P(wolf) in [0, 1] for some of ``seats`` (every one is asked), or
    ``None`` for no report. Not a move of the game: the referee records it and nothing else."""

    type: ClassVar[str] = "beliefs"
    seats: tuple[int, ...]

    def check(self, value: Any) -> dict[int, float] | None:
        if value is None:
            return None
        if not isinstance(value, dict):
            raise IllegalAnswer(f"expected an object of seat: P(wolf) for seats {list(self.seats)}, got {value!r}")
        out: dict[int, float] = {}
        for key, p in value.items():
            seat = _as_int(key.strip().lstrip("#") if isinstance(key, str) else key)
            if seat not in self.seats:
                raise IllegalAnswer(f"seat {key!r} is not rated here; rate seats {list(self.seats)}")
            if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
                raise IllegalAnswer(f"P(wolf) of seat {seat} must be a number from 0 to 1, got {p!r}")
            out[seat] = float(p)
        if not out:
            raise IllegalAnswer(f"rate at least one of seats {list(self.seats)} (or answer null)")
        return dict(sorted(out.items()))


@lru_cache(maxsize=4096)
def choose_seat(options: tuple[int, ...], allow_none: bool = True) -> ChooseSeat:
    """The shared :class:`ChooseSeat` of these options (legal sets are immutable; a vote makes one per
    voter, and the same few option sets recur game after game)."""
    return ChooseSeat(options=options, allow_none=allow_none)


#: Legal sets are immutable, so the two that never vary are shared by every request that has them.
YES_OR_NO = ChooseBool()
ONLY_NO = ChooseOption(options=(False,))  # a yes/no question this seat may only answer no to (R9)

LegalSet = Union[ChooseSeat, ChooseBool, ChooseSeats, ChooseOption, SpeechOrderChoice, Speak, RateSeats]


#: The context of a request that carries none (read-only, shared).
NO_CONTEXT: Mapping[str, Any] = MappingProxyType({})


class DecisionRequest(NamedTuple):
    """What the referee waits for from one seat.

    ``phase`` is the phase a scenario script keys the answer by (for death skills, the phase of the
    death: R2, CONFORMANCE.md); ``asked_in`` is the phase in which the question is put.
    ``context`` holds facts this seat is entitled to that matter for this question.

    A named tuple: immutable, so an agent cannot change what the referee checks its answer against,
    and cheaper to make than a frozen dataclass (the referee makes about 150 a bot game).
    """

    id: int
    seat: int
    kind: str
    phase: str
    asked_in: str
    legal: LegalSet
    default: Any = None
    context: Mapping[str, Any] = NO_CONTEXT

    @property
    def key(self) -> str:
        return f"{self.phase}.{self.kind}"

    def check(self, value: Any) -> Any:
        return self.legal.check(value)


class ReplyProvenance(BaseModel):
    """Where one model reply came from, as its provider reported it (absent fields were not given)."""

    model_config = ConfigDict(extra="forbid")

    api: str | None = None
    model: str | None = Field(default=None, description="the model id the provider says served the call")
    finish_reason: str | None = None
    request_id: str | None = None
    response_id: str | None = None
    system_fingerprint: str | None = None
    structured: str | None = Field(default=None, description=(
        "the structured mode the server answered in, when it refused the one asked (an OpenAI-compatible server)"))


class ModelUsage(BaseModel):
    """What a decision cost in model calls: tokens by kind, money, calls, retried transport faults,
    and each reply's provenance. The decision line's ``usage``."""

    model_config = ConfigDict(extra="forbid")

    input: int = Field(default=0, description="every prompt token, cached ones included")
    output: int = 0
    cached: int = 0
    cache_write: int = 0
    reasoning: int = Field(default=0, description="hidden reasoning or thinking tokens, a part of output")
    cost_usd: float | None = Field(default=None, description="None when a model is not in the price table")
    calls: int = 0
    retries: int = 0
    transport_errors: list[str] = Field(default_factory=list)
    provider: str | None = None
    model: str | None = None
    replies: list[ReplyProvenance] = Field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        data = self.model_dump(exclude={"replies"})
        data["replies"] = [r.model_dump(exclude_none=True) for r in self.replies]
        return data


class AnswerAttempt(BaseModel):
    """One try at a decision by an agent that re-asks: what came back and what was wrong with it."""

    model_config = ConfigDict(extra="forbid")

    raw: Any = None
    error: str | None = None
    truncated: bool = Field(default=False, description=(
        "the reply was cut off by the token limit (finish_reason length, stop_reason max_tokens, max_output_tokens)"))
    repair: str | None = Field(default=None, description=(
        "what was fixed to read an otherwise valid reply (not a re-ask): raw control characters in JSON "
        "strings; left out of the record when nothing was"))

    @model_serializer(mode="wrap")
    def _without_empty_repair(self, handler: Any) -> Any:
        data = handler(self)
        if isinstance(data, dict) and data.get("repair") is None:
            data.pop("repair", None)
        return data


class AnswerExtras(BaseModel):
    """How an answer came about: one typed record, written into the answer's decision line.

    ``default_applies``: the agent gave no answer (it crashed, timed out, or a replay has none) and
    the request's default is used; ``fallback``: the agent itself settled on the default after
    unusable output. ``note`` says why no model was asked (a single legal choice, a script line).
    ``latency_ms``: the wall-clock time the agent took, as the agent measured it
    (:func:`agents.base.timed`); deterministic agents (bots, replays) never measure it, so that the
    same seed gives the same transcript bytes, and replays compare no time field.
    """

    model_config = ConfigDict(extra="forbid")

    default_applies: bool = False
    fallback: bool = False
    error: str | None = None
    attempts: list[AnswerAttempt] = Field(default_factory=list)
    prompt: Any = None
    raw_reply: Any = None
    memory: Any = None
    usage: ModelUsage | None = None
    note: str | None = None
    latency_ms: float | None = None

    @property
    def defaulted(self) -> bool:
        return self.default_applies or self.fallback


@dataclass(slots=True)
class Answer:
    """An agent's reply to a decision: the action value, the seat's private material (reasoning,
    notes, beliefs: stored once, here) and, for agents that have more to tell, ``extras``."""

    value: Any = None
    reasoning: str | None = None
    notes: str | None = None
    beliefs: dict[int, float] | None = None
    extras: AnswerExtras | None = None

    @classmethod
    def default_of(cls, request: "DecisionRequest", error: str | None = None) -> "Answer":
        """No answer: the request's default applies, and ``error`` says why."""
        return cls(value=request.default, extras=AnswerExtras(default_applies=True, error=error))
