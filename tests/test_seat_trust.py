"""No class is built from an untrusted spec (#23): ``langchain:package.module:Class`` imports a module
and constructs a class, so only the operator's specs (command line, config) may name one. A spec
from anywhere else is refused by :func:`agents.registry.parse_seat_spec` before any import."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from agents.providers import ProviderConfigError, make_provider
from agents.registry import AgentSpecError, make_agent, make_operator_agent, parse_seat_spec

EVIL_MODULE = '''
from pathlib import Path
Path({marker!r}).joinpath("imported").write_text("yes")

class Boom:
    def __init__(self, **kwargs):
        Path({marker!r}).joinpath("constructed").write_text("yes")
'''


@pytest.fixture
def evil(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A module ``evil_seat_module`` whose import and whose class's constructor each leave a file."""
    (tmp_path / "evil_seat_module.py").write_text(EVIL_MODULE.format(marker=str(tmp_path)), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("evil_seat_module", None)
    yield tmp_path
    sys.modules.pop("evil_seat_module", None)


@pytest.fixture
def imports(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every module importlib.import_module is asked for while the test runs."""
    asked: list[str] = []
    real = importlib.import_module

    def recording(name: str, package: str | None = None):  # type: ignore[no-untyped-def]
        asked.append(name)
        return real(name, package)

    monkeypatch.setattr(importlib, "import_module", recording)
    return asked


def test_popen_from_an_untrusted_spec_is_refused_before_anything_is_imported(imports, monkeypatch) -> None:
    import subprocess

    built: list[object] = []
    monkeypatch.setattr(subprocess, "Popen", lambda *a, **k: built.append(a))
    for attempt in (lambda: parse_seat_spec("langchain:subprocess:Popen", trusted=False),
                    lambda: make_agent("langchain:subprocess:Popen", seat=1)):
        with pytest.raises(AgentSpecError, match="names a Python class to import and build"):
            attempt()
    with pytest.raises(ProviderConfigError, match="class path is accepted only from the operator"):
        make_provider("langchain", "subprocess:Popen")
    assert built == [] and "subprocess" not in imports


@pytest.mark.parametrize("spec", ["langchain:evil_seat_module:Boom", "langchain:evil_seat_module.sub:Boom:model",
                                  "  langchain:evil_seat_module:Boom  "])
def test_an_untrusted_class_path_never_imports_or_constructs(evil: Path, spec: str) -> None:
    with pytest.raises(AgentSpecError, match="accepted only from the operator"):
        make_agent(spec, seat=1)
    assert not (evil / "imported").exists() and "evil_seat_module" not in sys.modules


def test_the_operators_class_path_is_built(evil: Path) -> None:
    # The same spec from the command line or a config: imported and constructed (so the test above
    # would see an import if one happened).
    make_operator_agent("langchain:evil_seat_module:Boom", seat=1)
    assert (evil / "imported").exists() and (evil / "constructed").exists()


def test_untrusted_specs_that_build_nothing_arbitrary_still_parse() -> None:
    for spec in ("bot:heuristic", "human", "mock:flaky", "openai:gpt-4o-mini", "local:m@http://127.0.0.1:9/v1",
                 "langchain:openai:gpt-4o-mini", "langchain:anthropic"):
        parsed = parse_seat_spec(spec, trusted=False)
        assert parsed.text == spec and not parsed.trusted
    with pytest.raises(AgentSpecError, match="unknown langchain model 'os'"):
        parse_seat_spec("langchain:os", trusted=False)
    with pytest.raises(AgentSpecError, match="unknown agent spec"):
        parse_seat_spec("evil_seat_module:Boom", trusted=False)
    with pytest.raises(AgentSpecError, match="must be a string"):
        parse_seat_spec(["bot:random"], trusted=False)  # type: ignore[arg-type]


def test_fork_takes_no_class_path_from_a_transcripts_header(evil: Path, tmp_path: Path) -> None:
    # A transcript is a file from anywhere: `arena fork` on it with the parent's own agents must not
    # build what its header names; the operator's --agents may.
    from typer.testing import CliRunner

    from arena.cli.main import app
    from tests.test_hostile_files import bot_game, edit_json

    path = edit_json(bot_game(tmp_path / "g.jsonl"), 1,
                     lambda h: h["agents"][0].update(spec="langchain:evil_seat_module:Boom"))
    result = CliRunner().invoke(app, ["fork", str(path), "--at", "3"])
    assert result.exit_code == 2 and "names a Python class to import and build" in result.output, result.output
    assert not (evil / "imported").exists()
