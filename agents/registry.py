"""Agent specs -> agents. ``--agents`` and config files name seats by spec strings:

    bot:random | bot:heuristic | bot:scripted | bot:silent | bot:claim-seer | bot:random-speech | bot:copycat | human | openai:MODEL | anthropic:MODEL | langchain:... | mock:...

Each prefix registers a factory; factories import their SDKs lazily, so a user with only one
provider installed or configured never imports the others.

Trust: a spec says where it came from (:func:`parse_seat_spec`). ``langchain:package.module:Class``
imports a module and builds a class, so it is accepted only from the operator (the command line, a
config file the operator names); a spec from anywhere else (a web request, a transcript's header)
is refused before anything is imported. A bare string given to :func:`make_agent` is untrusted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

AgentFactory = Callable[..., Any]

_FACTORIES: dict[str, AgentFactory] = {}
_TAKES_TRUST: set[str] = set()  # prefixes whose factory is told whether its spec is trusted


class AgentSpecError(ValueError):
    """An agent spec cannot be understood; the message names the spec and what is known."""


def register(prefix: str, factory: AgentFactory, *, takes_trust: bool = False) -> None:
    """Register ``factory(rest, seat=..., seed=..., **options)`` for specs ``prefix:rest`` (or ``prefix``).
    ``takes_trust``: the factory also gets ``trusted=`` (it may build classes a trusted spec names)."""
    _FACTORIES[prefix] = factory
    if takes_trust:
        _TAKES_TRUST.add(prefix)


@dataclass(frozen=True)
class SeatSpec:
    """A seat spec and whether it came from the operator (see :func:`parse_seat_spec`)."""

    text: str
    prefix: str
    rest: str
    trusted: bool


def parse_seat_spec(spec: str, *, trusted: bool) -> SeatSpec:
    """Check ``spec`` without building anything. ``trusted``: it came from the operator (the command
    line, the operator's own config). An untrusted spec that would import a module or build a class
    (``langchain:package.module:Class``) is refused here, before any import; so is an unknown prefix."""
    if not isinstance(spec, str):
        raise AgentSpecError(f"an agent spec must be a string, got {type(spec).__name__}")
    text = spec.strip()
    if not text:
        raise AgentSpecError("empty agent spec")
    prefix, _, rest = text.partition(":")
    if prefix not in _FACTORIES:
        _load_plugins()
    if prefix not in _FACTORIES:
        raise AgentSpecError(f"unknown agent spec {text!r}; known prefixes: {', '.join(known_prefixes())}")
    if prefix == "langchain" and not trusted:
        from agents.providers.base import ProviderConfigError
        from agents.providers.langchain_provider import names_class_path, parse_spec  # neither imports an SDK

        if names_class_path(rest):
            raise AgentSpecError(
                f"{text!r} names a Python class to import and build; a class path is accepted only from the "
                "operator's command line or config, not from here. Use a registered langchain model "
                "(langchain:NAME[:MODEL])")
        try:
            parse_spec(rest)
        except ProviderConfigError as exc:
            raise AgentSpecError(str(exc)) from None
    return SeatSpec(text=text, prefix=prefix, rest=rest, trusted=trusted)


def _bot(rest: str, *, seat: int, seed: int, **options: Any) -> Any:
    from agents import bots

    if options.get("seed_salt"):  # a second, independent stream for the same bot (the A/A self-test)
        seed = seed * 1_000_003 + int(options["seed_salt"])
    if rest == "random":
        return bots.RandomBot(seat, seed)
    if rest == "heuristic":
        from agents.heuristic import HeuristicBot

        return HeuristicBot(seat, seed, lang=options.get("lang", "en"), beliefs=options.get("beliefs"))
    if rest == "scripted":
        return bots.ScriptedBot(seat, seed, script=options.get("script"))
    from agents.trivial import TRIVIAL_BOTS  # the leaderboard gate's trivial talkers (arena bench selftest)

    if rest in TRIVIAL_BOTS:
        return TRIVIAL_BOTS[rest](seat, seed, lang=options.get("lang", "en"))
    known = ", ".join(f"bot:{n}" for n in ("random", "heuristic", "scripted", *TRIVIAL_BOTS))
    raise AgentSpecError(f"unknown bot {rest!r}; known: {known}")


register("bot", _bot)


def load_plugin_modules(modules: list[str] | tuple[str, ...] = ()) -> None:
    """Import modules that register agent prefixes (``--plugin``), then every installed package's
    ``werewolf_arena.agents`` entry point: a Python policy benches without editing the arena."""
    import importlib
    from importlib.metadata import entry_points

    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError as exc:
            raise AgentSpecError(f"--plugin {module}: cannot import it ({exc})") from None
    for ep in entry_points(group="werewolf_arena.agents"):
        try:
            loaded = ep.load()
        except ImportError as exc:
            raise AgentSpecError(f"entry point {ep.name} ({ep.value}): cannot import it ({exc})") from None
        if callable(loaded):  # an entry point may name a factory: register it under the entry point's name
            register(ep.name, loaded)


def known_prefixes() -> list[str]:
    _load_plugins()
    return sorted(_FACTORIES)


def _load_plugins() -> None:
    """Modules that register more prefixes (LLM providers, the human seat), if present."""
    import importlib

    for module in ("agents.llm_specs", "agents.human"):
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise


def make_agent(spec: str | SeatSpec, *, seat: int, seed: int = 0, **options: Any) -> Any:
    """The agent for ``spec``. A plain string is untrusted (see :func:`parse_seat_spec`); the
    operator's specs come as ``parse_seat_spec(text, trusted=True)`` or through :func:`make_operator_agent`."""
    parsed = spec if isinstance(spec, SeatSpec) else parse_seat_spec(spec, trusted=False)
    factory = _FACTORIES[parsed.prefix]
    if parsed.prefix in _TAKES_TRUST:
        options["trusted"] = parsed.trusted
    agent = factory(parsed.rest, seat=seat, seed=seed, **options)
    if not getattr(agent, "spec", None) or agent.spec in ("sync",):
        agent.spec = parsed.text
    return agent


def make_operator_agent(spec: str, *, seat: int, seed: int = 0, **options: Any) -> Any:
    """:func:`make_agent` for a spec the operator wrote (the command line, a tournament config): the
    factory tournaments name by import path."""
    return make_agent(parse_seat_spec(spec, trusted=True), seat=seat, seed=seed, **options)


def parse_agents_option(value: str | None, players: int, default: str = "bot:heuristic") -> list[str]:
    """``--agents``: one spec for every seat, or a comma-separated list with one spec per seat."""
    if value is None or not value.strip():
        return [default] * players
    parts = [p.strip() for p in value.split(",")]
    if len(parts) == 1:
        return parts * players
    if len(parts) != players:
        raise AgentSpecError(f"--agents lists {len(parts)} specs but the board has {players} seats "
                             "(give one spec for all seats, or exactly one per seat)")
    if any(not p for p in parts):
        raise AgentSpecError("--agents has an empty entry")
    return parts
