"""The [web] extra declares the WebSocket library uvicorn serves the tables' sockets with (#23 point
9: it worked only because another package, langsmith, pulled websockets in)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]


def web_extra() -> dict[str, Requirement]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return {(r := Requirement(text)).name: r for text in data["project"]["optional-dependencies"]["web"]}


def test_the_web_extra_declares_websockets_with_a_bounded_version() -> None:
    req = web_extra().get("websockets")
    assert req is not None, "the [web] extra must name the WebSocket library"
    assert any(s.operator == "<" for s in req.specifier) and any(s.operator == ">=" for s in req.specifier)


def test_uvicorns_auto_protocol_is_the_declared_library_and_its_version_is_allowed() -> None:
    import websockets
    from uvicorn.protocols.websockets.auto import AutoWebSocketsProtocol

    assert AutoWebSocketsProtocol is not None and AutoWebSocketsProtocol.__module__.startswith(
        "uvicorn.protocols.websockets.websockets")
    assert web_extra()["websockets"].specifier.contains(websockets.__version__)
