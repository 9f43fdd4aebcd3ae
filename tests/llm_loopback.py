"""A loopback HTTP server that speaks just enough OpenAI (Chat Completions, Responses) and
Anthropic Messages for the real SDKs to talk to it. Tests queue replies (status, headers, body,
delay) and read back the requests the SDKs sent. A request with ``"stream": true`` gets its reply
as server-sent events in the API's own event grammar (Anthropic's ``message_start`` ...
``message_stop``), built from the same message body a non-streamed reply would carry; ``sse``
sends hand-written events (an ``error`` event mid-stream). It binds 127.0.0.1 on a random port in
a thread: no internet needed, and no mocking library (the SDKs use httpx2, which httpx mocks do
not intercept).
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    status: int = 200
    body: Any = None  # dict -> JSON; str -> sent as is
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    sse: list[tuple[str, Any]] | None = None  # (event, data) pairs sent as a stream, as they are


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    body: Any


def openai_completion(content: str | None, *, model: str = "gpt-test", prompt_tokens: int = 120,
                      completion_tokens: int = 30, cached: int = 0, reasoning: int = 0,
                      extra_message: dict[str, Any] | None = None, finish_reason: str = "stop") -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": None}
    message.update(extra_message or {})
    return {
        "id": "chatcmpl-test", "object": "chat.completion", "created": 1700000000, "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason, "logprobs": None}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens,
                  "prompt_tokens_details": {"cached_tokens": cached},
                  "completion_tokens_details": {"reasoning_tokens": reasoning}},
    }


def openai_response(text: str | None, *, model: str = "o4-mini-2025-04-16", summary: list[str] | None = None,
                    refusal: str | None = None, input_tokens: int = 200, output_tokens: int = 300, cached: int = 0,
                    reasoning: int = 250, incomplete: str | None = None) -> dict[str, Any]:
    """A Responses API reply: a reasoning item with summary parts, then the assistant message."""
    output: list[dict[str, Any]] = []
    if summary is not None:
        output.append({"id": "rs_1", "type": "reasoning",
                       "summary": [{"type": "summary_text", "text": t} for t in summary]})
    content: list[dict[str, Any]] = []
    if text is not None:
        content.append({"type": "output_text", "text": text, "annotations": []})
    if refusal is not None:
        content.append({"type": "refusal", "refusal": refusal})
    if content:
        output.append({"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
                       "content": content})
    return {
        "id": "resp_test", "object": "response", "created_at": 1700000000, "model": model,
        "status": "incomplete" if incomplete else "completed",
        "incomplete_details": {"reason": incomplete} if incomplete else None, "error": None,
        "output": output, "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
        "usage": {"input_tokens": input_tokens, "input_tokens_details": {"cached_tokens": cached},
                  "output_tokens": output_tokens, "output_tokens_details": {"reasoning_tokens": reasoning},
                  "total_tokens": input_tokens + output_tokens},
    }


def anthropic_events(message: dict[str, Any]) -> list[tuple[str, Any]]:
    """The server-sent events that stream ``message`` (a Messages API body) the way the API does."""
    start = {**message, "content": [], "stop_reason": None, "stop_sequence": None,
             "usage": {**message["usage"], "output_tokens": 1}}
    events: list[tuple[str, Any]] = [("message_start", {"type": "message_start", "message": start})]
    for index, block in enumerate(message["content"]):
        kind = block["type"]
        empty = {"thinking": {"type": "thinking", "thinking": "", "signature": ""},
                 "text": {"type": "text", "text": ""},
                 "tool_use": {"type": "tool_use", "id": block.get("id"), "name": block.get("name"), "input": {}}}[kind]
        events.append(("content_block_start", {"type": "content_block_start", "index": index, "content_block": empty}))
        if kind == "thinking":
            deltas = [{"type": "thinking_delta", "thinking": block["thinking"]},
                      {"type": "signature_delta", "signature": block.get("signature", "sig")}]
        elif kind == "text":
            half = len(block["text"]) // 2  # two deltas: the SDK must join them
            deltas = [{"type": "text_delta", "text": block["text"][:half]},
                      {"type": "text_delta", "text": block["text"][half:]}]
        else:
            deltas = [{"type": "input_json_delta", "partial_json": json.dumps(block["input"])}]
        events += [("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d}) for d in deltas]
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    events.append(("message_delta", {"type": "message_delta",
                                     "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                                     "usage": {"output_tokens": message["usage"]["output_tokens"]}}))
    events.append(("message_stop", {"type": "message_stop"}))
    return events


def anthropic_message(*, text: str | None = None, tool_input: dict[str, Any] | None = None, tool_name: str = "answer",
                      thinking: str | None = None, model: str = "claude-test", input_tokens: int = 100,
                      output_tokens: int = 40, cache_read: int = 0, cache_write: int = 0,
                      stop_reason: str | None = None) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if thinking is not None:
        content.append({"type": "thinking", "thinking": thinking, "signature": "sig"})
    if text is not None:
        content.append({"type": "text", "text": text})
    if tool_input is not None:
        content.append({"type": "tool_use", "id": "toolu_1", "name": tool_name, "input": tool_input})
    return {
        "id": "msg_test", "type": "message", "role": "assistant", "model": model, "content": content,
        "stop_reason": stop_reason or ("tool_use" if tool_input is not None else "end_turn"), "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens,
                  "cache_read_input_tokens": cache_read, "cache_creation_input_tokens": cache_write},
    }


class LoopbackServer:
    """``with LoopbackServer() as srv: srv.queue(Reply(...)); url = srv.url``."""

    def __init__(self) -> None:
        self.replies: list[Reply] = []
        self.seen: list[Seen] = []
        self.default: Reply | None = None
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_GET(self) -> None:
                self._send(Reply(body={"object": "list", "data": [{"id": "loopback", "object": "model"}]}))

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"null")
                except json.JSONDecodeError:
                    body = raw.decode("utf-8", "replace")
                with server._lock:
                    server.seen.append(Seen(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                    reply = server.replies.pop(0) if server.replies else server.default
                if reply is None:
                    reply = Reply(status=500, body={"error": {"message": "no reply queued", "type": "test"}})
                if callable(reply):
                    reply = reply(body, self.headers)
                if reply.delay:
                    time.sleep(reply.delay)
                streamed = isinstance(body, dict) and body.get("stream") is True
                if reply.sse is not None:
                    self._send_events(reply, reply.sse)
                elif streamed and reply.status == 200 and isinstance(reply.body, dict) \
                        and reply.body.get("type") == "message":
                    self._send_events(reply, anthropic_events(reply.body))
                else:
                    self._send(reply)

            def _send_events(self, reply: Reply, events: list[tuple[str, Any]]) -> None:
                data = "".join(f"event: {name}\ndata: {json.dumps(payload)}\n\n" for name, payload in events)
                self._send(Reply(status=reply.status, body=data,
                                 headers={**reply.headers, "content-type": "text/event-stream"}))

            def _send(self, reply: Reply) -> None:
                payload = reply.body if isinstance(reply.body, str) else json.dumps(reply.body)
                data = payload.encode("utf-8")
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", reply.headers.get("content-type", "application/json"))
                    self.send_header("content-length", str(len(data)))
                    for k, v in reply.headers.items():
                        if k.lower() != "content-type":
                            self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def queue(self, *replies: Reply) -> None:
        with self._lock:
            self.replies.extend(replies)

    def __enter__(self) -> "LoopbackServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def schema_instance(schema: Any) -> Any:
    """A value that satisfies ``schema`` (the subset answer schemas use): the first enum value, the
    first non-null branch, the shortest array allowed. A stand-in model for load tests."""
    if not isinstance(schema, dict):
        return None
    if "enum" in schema:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    for key in ("anyOf", "oneOf"):
        if key in schema:
            branches = [b for b in schema[key] if b.get("type") != "null"] or schema[key]
            return schema_instance(branches[0])
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        props = schema.get("properties", {})
        return {name: schema_instance(props[name]) for name in schema.get("required", list(props))}
    if kind == "array":
        n = schema.get("minItems", 0)
        items = schema.get("items", {})
        if "enum" in items:
            return items["enum"][:n]
        return [schema_instance(items) for _ in range(n)]
    if kind == "string":
        return "ok"
    if kind == "boolean":
        return False
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    return None


class RateLimitedModel:
    """A loopback model behind a request-rate limit, like a provider account: a token bucket of
    ``per_second`` requests (burst: one second's worth); above it, 429 with ``Retry-After``. Below
    it, an OpenAI Chat Completion whose content satisfies the request's schema."""

    def __init__(self, per_second: float, retry_after: float = 1.0):
        self.per_second = per_second
        self.retry_after = retry_after
        self.tokens = per_second
        self.updated = time.monotonic()
        self.ok = 0
        self.limited = 0
        self._lock = threading.Lock()

    def __call__(self, body: Any, headers: Any) -> Reply:
        with self._lock:
            now = time.monotonic()
            self.tokens = min(self.tokens + (now - self.updated) * self.per_second, self.per_second)
            self.updated = now
            if self.tokens < 1:
                self.limited += 1
                return Reply(status=429, headers={"retry-after": f"{self.retry_after:g}"},
                             body={"error": {"message": "Rate limit reached for requests", "type": "requests",
                                             "code": "rate_limit_exceeded"}})
            self.tokens -= 1
            self.ok += 1
        fmt = (body or {}).get("response_format") or {}
        schema = fmt.get("schema") or (fmt.get("json_schema") or {}).get("schema") or {}
        return Reply(body=openai_completion(json.dumps(schema_instance(schema)), model="loopback-1"))
