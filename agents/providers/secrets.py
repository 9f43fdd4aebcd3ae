"""Credentials: where they come from, and making sure they go nowhere else.

Keys come only from the SDKs' own environment variables (``OPENAI_API_KEY``, ``OPENAI_BASE_URL``,
``ANTHROPIC_API_KEY``, ``ANTHROPIC_BASE_URL``) or from a user file outside the project
(``$WEREWOLF_ARENA_KEYS``, default ``~/.config/werewolf-arena/keys.yaml``)::

    openai:    {api_key: sk-..., base_url: https://...}
    anthropic: {api_key: sk-ant-...}

Agent options and board configs never hold a key (they end up in transcript headers). Every
error message built in ``agents.providers`` passes through :func:`redact`, which removes every
known key value and anything shaped like one.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import yaml

KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
BASE_URL_ENV = {"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL"}
SECRET_ENV_NAMES = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_ORG_ID")

# Things that look like credentials even when we did not hand them out ourselves (a server echoing
# a header, a key pasted into a base URL).
_KEY_SHAPES = [
    re.compile(r"sk-[A-Za-z0-9_\-]{6,}"),
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._\-]{6,}"),
    re.compile(r"(?i)((?:x-api-key|api[_-]?key|authorization)[\"']?\s*[:=]\s*[\"']?)[^\s\"',}]{6,}"),
]

_extra_secrets: set[str] = set()


def keys_file() -> Path:
    return Path(os.environ.get("WEREWOLF_ARENA_KEYS", "~/.config/werewolf-arena/keys.yaml")).expanduser()


def _file_entry(provider: str) -> dict[str, Any]:
    path = keys_file()
    if not path.is_file():
        return {}
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError):
        return {}  # a broken keys file must not print its content in a traceback
    entry = data.get(provider) if isinstance(data, dict) else None
    if isinstance(entry, dict):
        for value in entry.values():
            if isinstance(value, str) and value and _looks_secret(value):
                remember_secret(value)
        return entry
    return {}


def _looks_secret(value: str) -> bool:
    return not value.startswith(("http://", "https://"))


def api_key(provider: str) -> str | None:
    """The key for ``provider`` ("openai" or "anthropic"): environment first, then the keys file."""
    env = KEY_ENV.get(provider)
    value = os.environ.get(env) if env else None
    if not value:
        value = _file_entry(provider).get("api_key")
    if value:
        remember_secret(value)
    return value or None


def base_url(provider: str) -> str | None:
    env = BASE_URL_ENV.get(provider)
    value = os.environ.get(env) if env else None
    return value or _file_entry(provider).get("base_url") or None


def remember_secret(value: str) -> None:
    if value and len(value) >= 4:
        _extra_secrets.add(value)


def _known_secrets() -> list[str]:
    values = set(_extra_secrets)
    for name in SECRET_ENV_NAMES:
        v = os.environ.get(name)
        if v and len(v) >= 4:
            values.add(v)
    return sorted(values, key=len, reverse=True)


def redact(text: Any) -> str:
    """``text`` with every known credential and anything shaped like one replaced by ``***``."""
    s = str(text)
    for secret in _known_secrets():
        if secret in s:
            s = s.replace(secret, "***")
    for shape in _KEY_SHAPES:
        s = shape.sub(lambda m: (m.group(1) if m.groups() else "") + "***", s)
    return s


FORBIDDEN_OPTIONS = ("api_key", "apikey", "key", "auth_token", "anthropic_api_key", "openai_api_key")


def reject_key_options(options: dict[str, Any]) -> None:
    """Keys in agent options would be written into transcripts: refuse them (without echoing them)."""
    bad = sorted(k for k in options if k.lower() in FORBIDDEN_OPTIONS)
    if bad:
        from agents.providers.base import ProviderConfigError

        raise ProviderConfigError(
            f"option(s) {', '.join(bad)} not accepted: put keys in the SDK's environment variable "
            f"(OPENAI_API_KEY / ANTHROPIC_API_KEY) or in {keys_file()}")
