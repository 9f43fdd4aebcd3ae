"""Who may do what on ``arena serve``: the operator's token, the Host and Origin checks, size and
depth limits on what a request may carry.

- The operator's token (printed at start-up, or set with ``--token`` / ``ARENA_SERVE_TOKEN``) is
  the only credential that makes tables, and so the only one that spends keys. The start-up URL
  carries it once (``/?token=...``); the lobby then keeps it in an HttpOnly, SameSite=Strict cookie,
  so another site's page can neither read it nor have the browser send it. Scripts may send it as
  ``Authorization: Bearer TOKEN``. It is compared in constant time.
- Every HTTP request and WebSocket handshake names a Host this server answers to (its address,
  loopback names, ``--allow-host``): a DNS-rebinding page, whose Host is the attacker's own name, is
  refused before anything runs. A WebSocket handshake or a state-changing request from a browser
  page must come from this server's own origin.
- A request body over :data:`MAX_BODY_BYTES` is refused (413); JSON nested deeper than
  :data:`MAX_JSON_DEPTH` is refused before the recursive decoder sees it.
"""

from __future__ import annotations

import hmac
import json
import re
import secrets
from functools import lru_cache
from itertools import accumulate
from typing import Any, Iterable, Mapping
from urllib.parse import urlsplit

import yaml

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from arena.narration import LANGS, PROMPTS_DIR

#: A request body larger than this is refused: a table's request is a few hundred bytes.
MAX_BODY_BYTES = 64 * 1024
#: JSON nested deeper than this is refused unparsed (json's decoder recurses: 15,000 ``[`` raised
#: RecursionError); an answer or a table request needs three levels.
MAX_JSON_DEPTH = 32
#: Host names every server answers to: a DNS-rebinding page cannot make its Host one of these.
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
#: Addresses that mean "every interface": not a Host any browser sends.
WILDCARD_HOSTS = frozenset({"0.0.0.0", "::", ""})
#: The shortest operator token ``--token`` takes (a generated one has 43 characters).
MIN_TOKEN_CHARS = 16
#: A JSON string (strict JSON: a quote outside a string always opens one); linear, no backtracking.
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKETS = re.compile(r"[\[\]{}]")
_URL_SAFE = re.compile(r"[A-Za-z0-9._~-]+")


@lru_cache(maxsize=4)
def web_labels(lang: str) -> dict[str, Any]:
    return yaml.safe_load((PROMPTS_DIR / lang / "web.yaml").read_text(encoding="utf-8"))


class Words(str):
    """A text the browser may show, in every language (the str itself is the English one, which the API's
    ``error`` field and the server's own callers keep); the page picks its language's from :attr:`texts`."""

    texts: dict[str, str]

    def __new__(cls, texts: Mapping[str, str]) -> "Words":
        words = super().__new__(cls, texts["en"])
        words.texts = dict(texts)
        return words

    def text(self, lang: str) -> str:
        return self.texts.get(lang, str(self))


def refusal_words(key: str, **fields: Any) -> Words:
    """A refusal's words from prompts/*/web.yaml ``refusals``; a field that is :class:`Words` (a nested
    detail, a field's name) is put in each language's own words, any other is quoted as it is."""
    return Words({code: str(web_labels(code)["refusals"][key]).format(
        **{name: value.text(code) if isinstance(value, Words) else value for name, value in fields.items()})
        for code in LANGS})


def field_name(where: str) -> Words:
    """A table request's field (``seed``, ``seats.3``) as the lobby names it in each language."""
    head, _, rest = where.partition(".")
    return Words({code: str(web_labels(code)["field_names"].get(head, head)) + (f" {rest}" if rest else "")
                  for code in LANGS})


class BadJSON(ValueError):
    """Text that is not JSON, or nests too deep to parse; the message says which (in both languages:
    ``args[0]`` is :class:`Words`)."""


def loads_bounded(text: str | bytes, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``json.loads``, after a linear scan has checked that brackets outside strings nest at most
    ``max_depth`` deep, so the recursive decoder never meets a nesting it cannot hold."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BadJSON(refusal_words("not_utf8", byte=exc.start)) from None
    structure = _BRACKETS.findall(_JSON_STRING.sub("", text))
    depth = max(accumulate(1 if ch in "[{" else -1 for ch in structure), default=0)
    if depth > max_depth:
        raise BadJSON(refusal_words("too_deep", depth=max_depth))
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadJSON(refusal_words("not_json", msg=exc.msg, pos=exc.pos)) from None


def new_token() -> str:
    return secrets.token_urlsafe(32)


def check_token_text(token: str) -> str:
    """An operator token set by flag or environment; a message naming what is wrong otherwise."""
    if len(token) < MIN_TOKEN_CHARS or not _URL_SAFE.fullmatch(token):
        raise ValueError(f"the operator token must be at least {MIN_TOKEN_CHARS} characters of A-Z, a-z, 0-9, "
                         "'-', '_', '.' or '~' (it travels in a URL; leave it unset and `arena serve` makes one)")
    return token


def host_name(host_header: str) -> str | None:
    """The name part of a Host header (``[::1]:8000`` -> ``::1``), lower-cased; None if malformed."""
    value = host_header.strip().lower()
    if value.startswith("["):
        name, bracket, rest = value[1:].partition("]")
        if not bracket or (rest and not (rest.startswith(":") and rest[1:].isdigit())):
            return None
        return name
    name, colon, port = value.rpartition(":")
    if not colon:
        name = value
    elif not port.isdigit() or ":" in name:
        return None
    return name if name and all(c.isalnum() or c in ".-_" for c in name) else None


class Operator:
    """The operator's credential: one token, checked in constant time."""

    def __init__(self, token: str):
        self.token = token
        self._expected = token.encode("utf-8")

    def matches(self, candidate: str | None) -> bool:
        if not candidate:
            return False
        return hmac.compare_digest(candidate.encode("utf-8", "surrogateescape"), self._expected)

    @staticmethod
    def cookie_name(scope: Scope) -> str:
        """Cookies are per host, not per port: two servers on one machine keep one cookie each."""
        server = scope.get("server") or ("", 0)
        return f"arena_operator_{server[1] or 0}"

    def allows(self, request: Request) -> bool:
        auth = request.headers.get("authorization", "")
        if auth.lower().startswith("bearer ") and self.matches(auth[7:].strip()):
            return True
        return self.matches(request.cookies.get(self.cookie_name(request.scope)))


def same_origin(headers: Headers) -> bool:
    """No Origin (not a browser page: such a client needs the token anyway), or this server's own."""
    origin = headers.get("origin")
    if origin is None:
        return True
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and parts.netloc.lower() == headers.get("host", "").strip().lower()


def refused(status: int, error: str) -> JSONResponse:
    """A refusal the browser may show, in both languages: ``error`` is the English text, ``error_text``
    each language's, its detail (:class:`Words`) in that language too."""
    texts = {}
    for code in LANGS:
        table = web_labels(code)["api_errors"]
        detail = error.text(code) if isinstance(error, Words) else error
        texts[code] = str(table.get(str(status), table["other"])).format(detail=detail)
    return JSONResponse({"error": str(error), "error_text": texts}, status_code=status)


class Guard:
    """ASGI middleware before every route: the Host check (HTTP and WebSocket), the WebSocket
    handshake's Origin, and a declared body size over the limit."""

    def __init__(self, app: ASGIApp, *, allowed_hosts: Iterable[str], max_body: int = MAX_BODY_BYTES):
        self.app = app
        self.allowed = frozenset(h.strip().strip("[]").lower() for h in allowed_hosts if h.strip())
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        error = self.refuse(scope["type"], headers)
        if error is None:
            await self.app(scope, receive, send)
            return
        status, text = error
        if scope["type"] == "websocket" and "websocket.http.response" not in scope.get("extensions", {}):
            await send({"type": "websocket.close", "code": 1008, "reason": text[:120]})
            return
        await refused(status, text)(scope, receive, send)

    def refuse(self, kind: str, headers: Headers) -> tuple[int, Words] | None:
        name = host_name(headers.get("host", ""))
        if name is None or name not in self.allowed:
            return 421 if name else 400, refusal_words("host", hosts=", ".join(sorted(self.allowed)))
        if kind == "websocket" and not same_origin(headers):
            return 403, refusal_words("foreign_socket")
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_body):
            return 413, refusal_words("too_large", kib=self.max_body // 1024)
        return None


def allowed_hosts(bound: str, extra: Iterable[str] = ()) -> set[str]:
    """The Host names a server bound to ``bound`` answers to."""
    hosts = set(LOOPBACK_HOSTS) | {h.strip().lower() for h in extra if h.strip()}
    if bound.strip("[]").lower() not in WILDCARD_HOSTS:
        hosts.add(bound.strip("[]").lower())
    return hosts
