"""LLM agent specs, registered with :mod:`agents.registry` (which imports this module on demand):

    openai:MODEL                  the official openai SDK (OPENAI_API_KEY; OPENAI_BASE_URL or base_url=)
    anthropic:MODEL               the official anthropic SDK (ANTHROPIC_API_KEY; ANTHROPIC_BASE_URL)
    langchain:NAME[:MODEL]        a registered LangChain chat model (openai, anthropic, ollama, ...)
    langchain:pkg.module:Class[:MODEL]   any langchain-core BaseChatModel (the operator's specs only)
    local:MODEL@http://HOST:PORT/v1      an OpenAI-compatible local server (vLLM, Ollama, llama.cpp);
                                  no key unless one is configured for that URL (api_key_env=, keys file)
    mock:NAME                     the stand-in model (``mock:flaky`` injects 30% faults of every kind)

Options (config file or ``make_agent(..., **options)``) are split three ways: provider and call
policy (base_url, timeout, max_retries, concurrency, ...), generation (temperature, max_tokens,
seed, reasoning_effort, thinking_budget, structured) and the agent's own (:class:`LLMAgentOptions`).
An unknown option is an error that names it; a key in options is refused (see ``secrets``).
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from agents.llm import LLMAgent, LLMAgentOptions
from agents.providers import make_provider
from agents.providers.base import GenerateOptions, ProviderConfigError
from agents.providers.mock import MockConfig, table_cache
from agents.providers.secrets import check_base_url, reject_key_options
from agents.providers.wrapper import CallPolicy, ManagedProvider
from agents.registry import AgentSpecError, register

POLICY_FIELDS = set(CallPolicy.model_fields)
GENERATE_FIELDS = set(GenerateOptions.model_fields)
AGENT_FIELDS = set(LLMAgentOptions.model_fields)
MOCK_FIELDS = set(MockConfig.model_fields) - {"seed"}
PROVIDER_FIELDS = {"base_url", "model_kwargs", "organization", "api", "store", "api_key_env", "compatible"}
# Which OpenAI API a seat uses, whether OpenAI may store its calls, and whether its base URL is an
# OpenAI-compatible server (max_tokens, structured-mode fallback) or OpenAI behind a proxy.
OPENAI_ONLY = {"api", "store", "compatible"}
# The environment variable holding the key for this seat's endpoint (its name, never the key).
KEY_ENV_KINDS = ("openai", "local", "anthropic")
# Options the CLI or a config may pass to every seat that mean nothing to an LLM seat.
IGNORED = {"script", "label"}

# Stand-in presets; explicit options override them. The flaky one keeps its timeouts and
# Retry-After short so that a demo game with faults still plays in seconds.
MOCK_PRESETS: dict[str, dict[str, Any]] = {
    "flaky": {"fault_rate": 0.3, "timeout": 1.0, "retry_after": 0.1, "backoff_base": 0.05},
    "slow": {"latency": 0.5, "latency_jitter": 0.1},
}


# Seat-option profiles: ``profile: NAME`` sets these, and options given beside it override them.
# ``small``: a small local model (SmolLM2-135M on two CPU cores) - summary memory, no belief reports
# (fewer calls), short fields kept inside the grammar (short answers that always close), a bounded
# reply, only the question recorded (short transcripts).
PROFILES: dict[str, dict[str, Any]] = {
    "small": {"memory": "summary", "summary_max_chars": 300, "declare_claims": False, "beliefs": "off",
              "reasoning_max_chars": 160, "notes_max_chars": 100, "speech_max_chars": 160,
              "max_tokens": 300, "max_repairs": 1, "record_prompt": "question",
              # llama-cpp-python serves one request at a time: queue here, where the wait is not
              # counted against an attempt's timeout, and give a CPU-bound model its time.
              "concurrency": 1, "timeout": 300.0, "decision_deadline": 900.0},
}
# A local server on a CPU takes seconds to minutes per answer, and queues the requests it cannot
# serve at once: the cloud defaults (60 s an attempt, 180 s a decision) time it out.
LOCAL_POLICY = {"timeout": 300.0, "decision_deadline": 900.0}


def apply_profile(options: dict[str, Any]) -> dict[str, Any]:
    """``options`` with its ``profile`` expanded (explicit options win)."""
    if "profile" not in options:
        return options
    rest = dict(options)
    name = rest.pop("profile")
    if name not in PROFILES:
        raise AgentSpecError(f"profile {name!r} is not known; known: {', '.join(sorted(PROFILES))}")
    return {**PROFILES[name], **rest}


def split_options(kind: str, options: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any],
                                                              dict[str, Any], dict[str, Any]]:
    reject_key_options(options)
    policy, generate, agent, provider, mock = {}, {}, {}, {}, {}
    unknown = []
    for key, value in options.items():
        if key in IGNORED:
            continue
        if key in POLICY_FIELDS:
            policy[key] = value
        elif key in GENERATE_FIELDS:
            generate[key] = value
        elif key in AGENT_FIELDS:
            agent[key] = value
        elif key in PROVIDER_FIELDS:
            provider[key] = value
        elif kind == "mock" and key in MOCK_FIELDS:
            mock[key] = value
        else:
            unknown.append(key)
    misplaced = sorted(OPENAI_ONLY & set(provider)) if kind not in ("openai", "local") else []
    if misplaced:
        raise AgentSpecError(f"option(s) {', '.join(misplaced)} apply to openai: and local: seats only, not {kind}")
    if "api_key_env" in provider and kind not in KEY_ENV_KINDS:
        raise AgentSpecError(f"option api_key_env applies to {', '.join(k + ':' for k in KEY_ENV_KINDS)} seats "
                             f"only, not {kind}")
    if unknown:
        known = sorted({"profile"} | POLICY_FIELDS | GENERATE_FIELDS | AGENT_FIELDS | PROVIDER_FIELDS
                       | (MOCK_FIELDS if kind == "mock" else set()))
        raise AgentSpecError(f"unknown option(s) for {kind}: {', '.join(sorted(unknown))}; known: {', '.join(known)}")
    return policy, generate, agent, provider, mock


def build_llm_agent(kind: str, rest: str, *, seat: int, seed: int = 0, trusted: bool = False,
                    **options: Any) -> LLMAgent:
    """``trusted``: the spec is the operator's (a langchain class path is built only then)."""
    if kind == "mock":
        options = {**MOCK_PRESETS.get(rest, {}), **options}
    options = apply_profile(options)
    policy_opts, gen_opts, agent_opts, provider_opts, mock_opts = split_options(kind, options)
    model = rest
    base_url = provider_opts.pop("base_url", None)
    if kind == "local":
        model, sep, url = rest.partition("@")
        if not sep or not url:
            raise AgentSpecError(f"local:{rest}: write local:MODEL@http://HOST:PORT/v1")
        base_url = url
        for key, value in LOCAL_POLICY.items():
            policy_opts.setdefault(key, value)
        # structured stays native: a server that refuses json_schema (llama.cpp's) is asked again in
        # json_object with the schema beside it, then with no format (OpenAIProvider.generate).
    if base_url is not None:
        check_base_url(str(base_url), f"{kind}:{model or rest} base_url")
    if kind in ("openai", "anthropic", "local") and not model:
        raise AgentSpecError(f"{kind}: name a model, e.g. {kind}:{'gpt-4o-mini' if kind != 'anthropic' else 'claude-sonnet-4-6'}")
    try:
        policy = CallPolicy(**policy_opts)
        generate = GenerateOptions(**gen_opts)
        agent_options = LLMAgentOptions(**agent_opts)
        extra: dict[str, Any] = dict(provider_opts)
        if kind == "langchain":
            # LangChain models take these when built (see LangChainProvider._bound).
            kwargs = dict(extra.pop("model_kwargs", None) or {})
            for key in ("temperature", "max_tokens"):
                if key in gen_opts:
                    kwargs.setdefault(key, gen_opts[key])
            extra["model_kwargs"] = kwargs
            extra["trusted"] = trusted
        if kind == "mock":
            # The seat's own random stream; one simulated prompt cache for the table's stand-ins of
            # this model (an account's cache is shared by all its conversations).
            extra = {"config": MockConfig(**{**mock_opts, "seed": seed * 1000 + seat}),
                     "cache": table_cache(model or "stand-in", seed, seat)}
        provider = make_provider(kind, model, base_url=base_url, timeout=policy.timeout, **extra)
    except ProviderConfigError:
        raise
    except ValidationError as exc:
        raise AgentSpecError(f"{kind}:{rest}: {option_errors(exc)}") from None
    except (TypeError, ValueError) as exc:
        raise AgentSpecError(f"{kind}:{rest}: {exc}") from None
    cap_key = f"{kind}:{getattr(provider, 'base_url', None) or base_url or ''}"
    managed = ManagedProvider(provider, policy, cap_key=cap_key, jitter_seed=seed * 1000 + seat)
    return LLMAgent(f"{kind}:{rest}", seat, managed, options=agent_options, generate=generate)


def option_errors(exc: ValidationError) -> str:
    """A bad option value in one line per option: its name, the value given and what is expected."""
    parts = []
    for error in exc.errors():
        name = ".".join(str(x) for x in error.get("loc", ())) or "option"
        parts.append(f"option {name}={error.get('input')!r}: {error.get('msg')}")
    return "; ".join(parts)


def _factory(kind: str):
    def factory(rest: str, *, seat: int, seed: int = 0, trusted: bool = False, **options: Any) -> LLMAgent:
        return build_llm_agent(kind, rest, seat=seat, seed=seed, trusted=trusted, **options)

    factory.__name__ = f"make_{kind}_agent"
    return factory


for _kind in ("openai", "anthropic", "langchain", "local", "mock"):
    register(_kind, _factory(_kind), takes_trust=True)
