"""Agent specs -> agents. ``--agents`` and config files name seats by spec strings:

    bot:random | bot:heuristic | bot:scripted | bot:silent | bot:claim-seer | bot:random-speech | bot:copycat | human | openai:MODEL | anthropic:MODEL | langchain:... | mock:...

Each prefix registers a factory; factories import their SDKs lazily, so a user with only one
provider installed or configured never imports the others.
"""

from __future__ import annotations

from typing import Any, Callable

AgentFactory = Callable[..., Any]

_FACTORIES: dict[str, AgentFactory] = {}


class AgentSpecError(ValueError):
    """An agent spec cannot be understood; the message names the spec and what is known."""


def register(prefix: str, factory: AgentFactory) -> None:
    """Register ``factory(rest, seat=..., seed=..., **options)`` for specs ``prefix:rest`` (or ``prefix``)."""
    _FACTORIES[prefix] = factory


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


def make_agent(spec: str, *, seat: int, seed: int = 0, **options: Any) -> Any:
    spec = spec.strip()
    if not spec:
        raise AgentSpecError("empty agent spec")
    prefix, _, rest = spec.partition(":")
    if prefix not in _FACTORIES:
        _load_plugins()
    if prefix not in _FACTORIES:
        raise AgentSpecError(f"unknown agent spec {spec!r}; known prefixes: {', '.join(known_prefixes())}")
    agent = _FACTORIES[prefix](rest, seat=seat, seed=seed, **options)
    if not getattr(agent, "spec", None) or agent.spec in ("sync",):
        agent.spec = spec
    return agent


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
