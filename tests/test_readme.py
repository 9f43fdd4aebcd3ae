"""The README works on a fresh clone: its sample game is what `arena play --seed 7` prints, its
commands run, and every document it points to is inside the repository."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _blocks(after: str) -> list[str]:
    """The fenced code blocks that follow the first occurrence of ``after``."""
    return re.findall(r"```[a-z]*\n(.*?)```", README[README.index(after):], re.S)


def test_every_document_it_points_to_is_in_the_repository() -> None:
    assert "../shared" not in README  # a clone has no sibling folder
    linked = set(re.findall(r"`((?:docs|configs|benchmarks|tests)/[\w./-]+)`", README))
    linked |= set(re.findall(r"\]\(((?!https?:)[^)#]+)\)", README))
    assert "docs/rules.md" in linked and "docs/scenarios.md" in linked
    missing = sorted(p for p in linked if not (ROOT / p).exists())
    assert not missing, missing
    rules = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert all(f"**R{n}**" in rules for n in (1, 12, 76, 82, 153, 184))


def test_set_up_makes_a_virtual_environment_before_installing() -> None:
    setup = README[README.index("## Set-up"):README.index("## Playing")]
    assert "python3 -m venv .venv" in setup
    assert setup.index("python3 -m venv") < setup.index('pip install -e ".[dev,eval]"')
    assert "python -m pytest -m slow" in setup and "minutes" in setup


def test_the_sample_game_is_what_seed_7_prints(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sample = _blocks("`arena play --seed 7` plays exactly the game sampled here")[0].splitlines()
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["play", "--seed", "7"])
    assert result.exit_code == 0, result.output
    printed = result.output.splitlines()
    at = 0
    for line in sample:
        if line.strip() in ("", "..."):
            continue
        # "..." stands for what the sample leaves out: the text before it must start a printed line.
        head = line.split("...")[0].rstrip() if "..." in line else None
        for i in range(at, len(printed)):
            if printed[i] == line if head is None else printed[i].startswith(head):
                at = i + 1
                break
        else:
            pytest.fail(f"the README's sample line {line!r} is not printed (in order) by arena play --seed 7")


def test_the_decision_listing_for_fork_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    block = _blocks("The decision numbers `arena fork --at` takes")[0].strip()
    assert block.startswith("python -c ") and block.endswith("transcripts/std-12-guard-seed7.jsonl")
    monkeypatch.chdir(tmp_path)
    assert CliRunner().invoke(app, ["play", "--seed", "7", "-q"]).exit_code == 0
    code = block[len("python -c "):].rsplit(" ", 1)[0]
    listed = subprocess.run([sys.executable, "-c", code.strip().strip('"'), "transcripts/std-12-guard-seed7.jsonl"],
                            capture_output=True, text=True, check=True, cwd=tmp_path).stdout.splitlines()
    assert listed[0].split() == ["1", "N1", "9", "guard"] and len(listed) > 50
    ids = [int(line.split()[0]) for line in listed]
    assert ids == list(range(1, len(ids) + 1))
