"""The seats a table of ``arena serve`` may have: what the operator configured, nothing else.

A request from the web names a seat by a name from this list: a bot, ``human``, or a model seat the
operator named at start-up, in a server config file or with ``--seat NAME=SPEC``::

    # serve.yaml (arena serve --config serve.yaml)
    seats:
      gpt-mini: {provider: openai, model: gpt-4o-mini, options: {temperature: 0.7}}
      qwen: {provider: local, model: qwen2.5-7b, endpoint: "http://127.0.0.1:8080/v1"}
      lc-ollama: {spec: "langchain:ollama:llama3.1"}
    allow_hosts: [arena.lan]
    max_tables: 20
    table_wait_seconds: 1800

A request never carries a spec of its own: it cannot make the server import a module, build a
class (``langchain:pkg.module:Class``) or post to a URL; those come only from the operator.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from arena.web.room import HUMAN

#: Bots a web table may seat without any configuration (``bot:scripted`` needs a script: not offered).
BOT_SEATS = ("bot:heuristic", "bot:random")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$")


class ServeConfigError(ValueError):
    """The server config or a ``--seat`` cannot be used; the message names which and why."""


class ModelSeat(BaseModel):
    """One model seat the operator offers: a provider, a model and (for a server of one's own) an endpoint,
    or a full agent spec."""

    model_config = ConfigDict(extra="forbid")

    provider: Literal["openai", "anthropic", "local", "langchain", "mock"] | None = None
    model: str | None = None
    #: The server's base URL (``local``: required; ``openai``/``anthropic``: another compatible server).
    endpoint: str | None = None
    #: A full agent spec instead of provider/model/endpoint (``langchain:pkg.module:Class:model``).
    spec: str | None = None
    #: Agent options, as in a tournament roster (temperature, timeout, ...); never a key.
    options: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _one_way(self) -> "ModelSeat":
        if self.spec is not None:
            if self.provider or self.model or self.endpoint:
                raise ValueError("give either spec or provider/model/endpoint, not both")
        elif self.provider is None or not self.model:
            raise ValueError("name a provider and a model (or give a spec)")
        elif self.provider == "local" and not self.endpoint:
            raise ValueError("a local seat needs its endpoint, e.g. http://127.0.0.1:8080/v1")
        return self

    def agent_spec(self) -> tuple[str, dict[str, Any]]:
        """The agent spec and options :func:`agents.registry.make_operator_agent` takes."""
        if self.spec is not None:
            return self.spec.strip(), dict(self.options)
        options = dict(self.options)
        if self.provider == "local":
            return f"local:{self.model}@{self.endpoint}", options
        if self.endpoint:
            options["base_url"] = self.endpoint
        return f"{self.provider}:{self.model}", options


class ServeConfig(BaseModel):
    """The server config file of ``arena serve --config``."""

    model_config = ConfigDict(extra="forbid")

    seats: dict[str, ModelSeat] = Field(default_factory=dict)
    #: Host names the server answers to besides its address and loopback (a LAN name, a proxy's name).
    allow_hosts: list[str] = Field(default_factory=list)
    #: Tables waiting or playing at once; one more is refused until one ends.
    max_tables: int = Field(20, ge=1, le=1000)
    #: Seconds a table may wait for its people to join; then it is closed and forgotten.
    table_wait_seconds: float = Field(1800, gt=0, le=7 * 86400)


@dataclass(frozen=True)
class SeatChoice:
    name: str
    spec: str
    options: dict[str, Any] = field(default_factory=dict)
    #: Shown in the lobby's seat menu; the spec (which may name an endpoint) stays on the server.
    kind: str = "bot"
    #: One of the bots or ``human``, offered by every server (not the operator's configuration).
    builtin: bool = False


class SeatChoices:
    """Name -> seat, as the operator configured them, plus the bots and ``human``."""

    def __init__(self, models: dict[str, ModelSeat] | None = None):
        self.choices: dict[str, SeatChoice] = {name: SeatChoice(name, name, builtin=True) for name in BOT_SEATS}
        self.choices[HUMAN] = SeatChoice(HUMAN, HUMAN, kind="human", builtin=True)
        for name, seat in (models or {}).items():
            if not _NAME.match(name):
                raise ServeConfigError(f"seat name {name!r}: use letters, digits, '.', '_' or '-' "
                                       "(at most 40, no ':'), e.g. gpt-mini")
            if name in self.choices:
                raise ServeConfigError(f"seat name {name!r} is taken (by a bot or `human`): choose another")
            spec, options = seat.agent_spec()
            self.choices[name] = SeatChoice(name, spec, options, kind=spec.partition(":")[0])

    def get(self, name: str) -> SeatChoice | None:
        return self.choices.get(name)

    def names(self) -> list[str]:
        return list(self.choices)

    def configured(self) -> list[SeatChoice]:
        return [c for c in self.choices.values() if not c.builtin]

    def listing(self) -> list[dict[str, str]]:
        return [{"name": c.name, "kind": c.kind} for c in self.choices.values()]

    def check(self) -> None:
        """Build each model seat once, so that a bad spec, option or a missing key stops the server at
        start-up with its name, not a table later."""
        from agents.registry import make_operator_agent  # the operator's config: a class path may be built

        for choice in self.configured():
            try:
                make_operator_agent(choice.spec, seat=1, seed=0, lang="en", **choice.options)
            except Exception as exc:  # the message names the spec's problem; ours names the seat
                raise ServeConfigError(f"seat {choice.name!r} ({choice.spec}): {exc}") from None


def parse_seat_option(value: str) -> tuple[str, ModelSeat]:
    """``--seat NAME=SPEC`` (``gpt=openai:gpt-4o-mini``, ``qwen=local:qwen@http://127.0.0.1:8080/v1``)."""
    name, sep, spec = value.partition("=")
    if not sep or not name.strip() or not spec.strip():
        raise ServeConfigError(f"--seat {value!r}: write NAME=SPEC, e.g. gpt=openai:gpt-4o-mini")
    return name.strip(), ModelSeat(spec=spec.strip())


def load_serve_config(path: Path) -> ServeConfig:
    from arena.user_yaml import load_user_yaml

    try:
        raw = load_user_yaml(path.read_text(encoding="utf-8")) or {}
    except OSError as exc:
        raise ServeConfigError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except UnicodeDecodeError as exc:
        raise ServeConfigError(f"{path}: not UTF-8 (byte {exc.start})") from None
    except (yaml.YAMLError, RecursionError) as exc:
        raise ServeConfigError(f"{path}: not valid YAML ({str(exc)[:300]})") from None
    if not isinstance(raw, dict):
        raise ServeConfigError(f"{path}: expected a mapping at the top level (seats:, allow_hosts:, ...)")
    try:
        return ServeConfig.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err.get("loc", ())) or "config"
        raise ServeConfigError(f"{path}: {where}: {err.get('msg')}") from None
