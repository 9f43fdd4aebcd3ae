"""Credentials: where they come from, and making sure they go nowhere else.

Keys come only from the SDKs' own environment variables (``OPENAI_API_KEY``, ``OPENAI_BASE_URL``,
``ANTHROPIC_API_KEY``, ``ANTHROPIC_BASE_URL``) or from a user file outside the project
(``$WEREWOLF_ARENA_KEYS``, default ``~/.config/werewolf-arena/keys.yaml``)::

    openai:    {api_key: sk-..., base_url: https://...}
    anthropic: {api_key: sk-ant-...}
    local:     {"http://gpu-box:8000/v1": KEY}     # a key for one local: endpoint

A key goes only where it belongs (:func:`key_for_endpoint`): the OpenAI key to OpenAI's endpoint or
to the base URL the user set for it (``OPENAI_BASE_URL``, the keys file's ``base_url``, a seat's
``base_url`` option); a ``local:MODEL@URL`` endpoint gets no key unless one is configured for that
URL (the seat's ``api_key_env: NAME`` option naming an environment variable, the keys file's
``local:`` entry, or the URL being the OpenAI base URL the user set).

Agent options and board configs never hold a key (they end up in transcript headers), and no base
URL may carry one (``https://user:KEY@host``: the SDK would send it as HTTP Basic auth, and a server
echoing the header would put it in an error message). A keys file that cannot be read is an error,
never silently skipped. Every error message built in ``agents.providers`` passes through
:func:`redact`, which removes every known key value in every form it travels in (as is,
URL-encoded, base64 as in a Basic auth header, hex) and anything shaped like a credential.
"""

from __future__ import annotations

import base64
import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

import yaml

from arena.credentials import KEY_OPTION_NAMES, credential_problems, strip_url_credentials, url_has_credentials
from arena.user_yaml import load_user_yaml

KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
BASE_URL_ENV = {"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL"}
SECRET_ENV_NAMES = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_ORG_ID")

# Things that look like credentials even when we did not hand them out ourselves (a server echoing
# a header, a key pasted into a base URL).
_KEY_SHAPES = [
    re.compile(r"sk-[A-Za-z0-9_\-]{6,}"),
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._\-]{6,}"),
    re.compile(r"(?i)(basic\s+)[A-Za-z0-9+/=_\-]{6,}"),
    re.compile(r"(?i)((?:x-api-key|api[_-]?key|authorization)[\"']?\s*[:=]\s*[\"']?)[^\s\"',}]{6,}"),
]

_extra_secrets: set[str] = set()


def keys_file() -> Path:
    return Path(os.environ.get("WEREWOLF_ARENA_KEYS", "~/.config/werewolf-arena/keys.yaml")).expanduser()


def _keys_file_error(path: Path, what: str) -> Exception:
    from agents.providers.base import ProviderConfigError

    return ProviderConfigError(f"keys file {path}: {what}; fix it or remove it (no key is read from a broken file)")


def _file_entry(provider: str) -> dict[str, Any]:
    """The keys file's entry for ``provider``; {} when there is no file or no entry. A file that is
    there but cannot be read or understood is an error: carrying on would run without the key the
    user meant to give. Messages name the place, never the content (it holds keys)."""
    path = keys_file()
    if not path.exists():
        return {}
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise _keys_file_error(path, "not UTF-8 text") from None
    except OSError as exc:
        raise _keys_file_error(path, f"cannot read it ({exc.strerror or type(exc).__name__})") from None
    try:
        data = load_user_yaml(text)  # no aliases, nesting bounded: a hostile file is an error, not a crash
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        raise _keys_file_error(path, f"not valid YAML{where}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise _keys_file_error(path, "expected a mapping of provider names (openai:, anthropic:) at the top")
    entry = data.get(provider)
    if entry is None:
        return {}
    if not isinstance(entry, dict):
        raise _keys_file_error(path, f"{provider}: expected a mapping such as {{api_key: ..., base_url: ...}}")
    for name in ("api_key", "base_url"):
        value = entry.get(name)
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise _keys_file_error(path, f"{provider}: {name} must be a non-empty string")
    for value in entry.values():
        if isinstance(value, str) and value and _looks_secret(value):
            remember_secret(value)
    url = entry.get("base_url")
    if isinstance(url, str):
        check_base_url(url, f"{path} {provider}.base_url")
    return entry


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
    if value:
        check_base_url(value, env or "base URL")
        return value
    return _file_entry(provider).get("base_url") or None


def same_endpoint(a: str, b: str) -> bool:
    """Two base URLs name the same endpoint (case of scheme and host, a trailing slash aside)."""
    from urllib.parse import urlsplit

    pa, pb = urlsplit(a.strip()), urlsplit(b.strip())
    return (pa.scheme.lower(), pa.netloc.lower(), pa.path.rstrip("/")) == \
        (pb.scheme.lower(), pb.netloc.lower(), pb.path.rstrip("/"))


def key_from_env(name: str, source: str) -> str:
    """The key in the environment variable the user named (a seat's ``api_key_env``)."""
    from agents.providers.base import ProviderConfigError

    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise ProviderConfigError(f"{source}: api_key_env must name an environment variable, got {name!r}")
    value = os.environ.get(name)
    if not value:
        raise ProviderConfigError(f"{source}: api_key_env names {name}, which is not set")
    remember_secret(value)
    return value


def local_endpoint_key(url: str, key_env: str | None = None) -> str | None:
    """The key configured for the local endpoint ``url``, or None (it then gets none): the seat's
    ``api_key_env``, else the keys file's ``local:`` entry for the URL, else the OpenAI key when the
    URL is the OpenAI base URL the user set. ``OPENAI_API_KEY`` alone never reaches a local URL."""
    if key_env is not None:
        return key_from_env(key_env, f"local endpoint {strip_url_credentials(url)}")
    for endpoint, value in _file_entry("local").items():
        if isinstance(endpoint, str) and same_endpoint(endpoint, url):
            if not isinstance(value, str) or not value.strip():
                raise _keys_file_error(keys_file(), f"local: the key for {endpoint} must be a non-empty string")
            remember_secret(value)
            return value
    openai_url = base_url("openai")
    if openai_url is not None and same_endpoint(openai_url, url):
        return api_key("openai")
    return None


def check_base_url(url: str, source: str) -> None:
    """Refuse a URL with a user name, password or query key: the SDK would send it on every call
    (user info as Basic auth) and it would be written wherever the URL is. The message shows the
    URL without it."""
    if url_has_credentials(url):
        from agents.providers.base import ProviderConfigError

        raise ProviderConfigError(
            f"{source}: {strip_url_credentials(url)} carries a user name, password or key in the URL; remove it and "
            "give the key through OPENAI_API_KEY / ANTHROPIC_API_KEY or the keys file")


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


_B64_CHARS = "A-Za-z0-9+/_\\-"


@lru_cache(maxsize=64)
def _encodings(secret: str) -> tuple[tuple[str, re.Pattern[str] | None], ...]:
    """Every form ``secret`` travels in: as is, JSON- and URL-escaped, hex, and base64 (standard
    and URL-safe) at each of the three byte alignments it can have inside a longer encoded string
    (``user:KEY`` in a Basic auth header). A base64 form comes with a pattern for the whole token
    around it, which is removed entirely (its edges still encode parts of the key)."""
    raw = secret.encode("utf-8")
    plain = {secret, quote(secret, safe=""), quote_plus(secret), raw.hex(), raw.hex().upper(),
             secret.encode("unicode_escape").decode("ascii")}
    forms: list[tuple[str, re.Pattern[str] | None]] = [(p, None) for p in sorted(plain, key=len, reverse=True)]
    for skip in range(3):
        chunk = raw[skip:]
        chunk = chunk[: len(chunk) // 3 * 3]
        if len(chunk) < 6:  # shorter needles would match ordinary base64 by chance
            continue
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            needle = encode(chunk).decode("ascii")
            token = re.compile(f"[{_B64_CHARS}]*{re.escape(needle)}[{_B64_CHARS}]*=*")
            forms.append((needle, token))
    return tuple(forms)


def redact_known(text: str) -> str:
    """``text`` with every known credential, in any of its encodings, replaced by ``***``: for a
    model's own words (a reply), which key *shapes* would mangle ("risk-assessment")."""
    for secret in _known_secrets():
        for needle, token in _encodings(secret):
            if needle in text:
                text = token.sub("***", text) if token is not None else text.replace(needle, "***")
    return text


def redact(text: Any) -> str:
    """``text`` with every known credential (in any of its encodings) and anything shaped like one
    replaced by ``***``; URLs lose their user info."""
    s = redact_known(str(text))
    for shape in _KEY_SHAPES:
        s = shape.sub(lambda m: (m.group(1) if m.groups() else "") + "***", s)
    return strip_url_credentials(s)


FORBIDDEN_OPTIONS = KEY_OPTION_NAMES


def reject_key_options(options: dict[str, Any]) -> None:
    """Keys in agent options (at any depth, e.g. in ``model_kwargs``) and URLs with a user name or
    password would be written into transcripts: refuse them, naming where without echoing them."""
    problems = credential_problems(options)
    if problems:
        from agents.providers.base import ProviderConfigError

        raise ProviderConfigError(
            f"credentials are not accepted in options ({', '.join(problems)}): put keys in the SDK's environment "
            f"variable (OPENAI_API_KEY / ANTHROPIC_API_KEY) or in {keys_file()}")
