"""A module no test imports on purpose: a web request naming ``langchain:tests.web_canary:Canary`` must
leave it unimported (``tests/test_web_security.py``). Importing it, or building the class, records it."""

from __future__ import annotations

from typing import Any

BUILT: list[dict[str, Any]] = []


class Canary:
    def __init__(self, **kwargs: Any):
        BUILT.append(kwargs)
