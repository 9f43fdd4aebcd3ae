"""What a credential looks like in a config, so that none is ever written down.

Configs and agent options end up in ``tournament.json`` and in transcript headers. A key there
(an ``api_key`` option, a base URL with ``user:KEY@``) would be on disk for good, so configs that
hold one are refused (:func:`credential_problems`) and whatever is persisted is scrubbed first
(:func:`scrub`) in case a new option name slips past the refusal.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit, urlunsplit

#: Option names that carry a key (compared in lower case).
KEY_OPTION_NAMES = ("api_key", "apikey", "key", "auth_token", "anthropic_api_key", "openai_api_key",
                    "password", "secret", "token", "access_token")

# A URL whose authority holds user info (``scheme://user[:password]@host``), anywhere in a string
# (an agent spec such as ``local:MODEL@http://user:KEY@host/v1`` holds one after its own ``@``).
# A password is matched up to its ``@`` whatever it holds: an unencoded ``/`` or ``#`` in a key
# must not hide it (a path holding ``:`` and ``@`` is refused too, which costs a user an escape).
_URL_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)([^/\s@?#:]*:[^\s@]*|[^/\s@?#:]+)@")
# A key in a URL's query (``?key=...``, ``&api_key=...``), as some gateways take it.
_URL_QUERY_KEY = re.compile(r"(?i)([?&](?:" + "|".join(re.escape(n) for n in KEY_OPTION_NAMES) + r")=)[^&#\s]+")


def url_has_credentials(text: str) -> bool:
    """True when ``text`` holds a URL with a user name, a password or a query key in it."""
    return bool(_URL_USERINFO.search(text) or ("://" in text and _URL_QUERY_KEY.search(text)))


def strip_url_credentials(text: str) -> str:
    """``text`` with the user info and query keys of every URL in it replaced by ``***``."""
    text = _URL_USERINFO.sub(lambda m: m.group(1) + "***@", text)
    return _URL_QUERY_KEY.sub(lambda m: m.group(1) + "***", text) if "://" in text else text


def strip_userinfo(url: str) -> str:
    """One URL without its user info (``http://u:k@h:1/v1`` -> ``http://h:1/v1``)."""
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))


def credential_problems(value: Any, where: str = "") -> list[str]:
    """Where ``value`` (options, a spec, nested lists and dicts) holds a credential: a list of
    dotted paths with what was found there, never the value itself."""
    found: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            path = f"{where}.{key}" if where else str(key)
            if str(key).lower() in KEY_OPTION_NAMES and item not in (None, ""):
                found.append(f"{path} (a key option)")
            else:
                found.extend(credential_problems(item, path))
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            found.extend(credential_problems(item, f"{where}[{i}]"))
    elif isinstance(value, str) and url_has_credentials(value):
        found.append(f"{where or 'value'} (a URL with a user name, password or key in it)")
    return found


def scrub(value: Any) -> Any:
    """A copy of ``value`` with key options replaced by ``***`` and URL user info stripped."""
    if isinstance(value, dict):
        return {k: ("***" if str(k).lower() in KEY_OPTION_NAMES and v not in (None, "") else scrub(v))
                for k, v in value.items()}
    if isinstance(value, list):
        return [scrub(v) for v in value]
    if isinstance(value, tuple):
        return tuple(scrub(v) for v in value)
    if isinstance(value, str):
        return strip_url_credentials(value)
    return value
