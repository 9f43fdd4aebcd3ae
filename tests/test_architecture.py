"""Principles that keep the referee honest (docs/design.md): the engine never imports an agent or
an LLM SDK, and prompt text lives in prompts/, not in engine code."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ARENA = Path(__file__).resolve().parents[1] / "arena"
FORBIDDEN = ("agents", "openai", "anthropic", "langchain", "langchain_core", "httpx")


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_engine_modules_import_no_agent_and_no_sdk() -> None:
    # The CLI and its browser counterpart (``arena serve``) are the places that wire agents to the referee.
    offenders = {}
    for path in ARENA.rglob("*.py"):
        if {"cli", "web"} & set(path.relative_to(ARENA).parts):
            continue
        bad = imported_modules(path) & set(FORBIDDEN)
        if bad:
            offenders[str(path.relative_to(ARENA))] = sorted(bad)
    assert not offenders, offenders


def test_playing_a_game_loads_no_sdk() -> None:
    code = (
        "import sys\n"
        "from arena.engine import new_game\n"
        "from arena.referee import play_sync\n"
        "g = new_game('std-12-guard', seed=1)\n"
        "print(','.join(m for m in ('openai', 'anthropic', 'langchain_core') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
