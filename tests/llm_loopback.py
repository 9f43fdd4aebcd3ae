"""A loopback HTTP server that speaks just enough OpenAI Chat Completions and Anthropic Messages
for the real SDKs to talk to it. Tests queue replies (status, headers, body, delay) and read back
the requests the SDKs sent. It binds 127.0.0.1 on a random port in a thread: no internet needed,
and no mocking library (the SDKs use httpx2, which httpx mocks do not intercept).
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


def anthropic_message(*, text: str | None = None, tool_input: dict[str, Any] | None = None, tool_name: str = "answer",
                      thinking: str | None = None, model: str = "claude-test", input_tokens: int = 100,
                      output_tokens: int = 40, cache_read: int = 0, cache_write: int = 0) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if thinking is not None:
        content.append({"type": "thinking", "thinking": thinking, "signature": "sig"})
    if text is not None:
        content.append({"type": "text", "text": text})
    if tool_input is not None:
        content.append({"type": "tool_use", "id": "toolu_1", "name": tool_name, "input": tool_input})
    return {
        "id": "msg_test", "type": "message", "role": "assistant", "model": model, "content": content,
        "stop_reason": "tool_use" if tool_input is not None else "end_turn", "stop_sequence": None,
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
                self._send(reply)

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
