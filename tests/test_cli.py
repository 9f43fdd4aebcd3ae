"""The command line: the default game, clear one-line errors, and the informational commands."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from arena.cli.main import app

runner = CliRunner()


def test_play_default_writes_a_replayable_transcript(tmp_path: Path) -> None:
    result = runner.invoke(app, ["play", "--seed", "7", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "Night 1 falls" in result.output and "Game over" in result.output
    files = list(tmp_path.glob("std-12-guard-seed7*.jsonl"))
    assert len(files) == 1
    header = json.loads(files[0].read_text(encoding="utf-8").splitlines()[0])
    assert header["preset"] == "std-12-guard" and [a["spec"] for a in header["agents"]] == ["bot:heuristic"] * 12
    replay = runner.invoke(app, ["replay", str(files[0])])
    assert replay.exit_code == 0 and "identical" in replay.output


def test_play_in_chinese(tmp_path: Path) -> None:
    result = runner.invoke(app, ["play", "--seed", "3", "--lang", "zh", "--agents", "bot:random", "-o",
                                 str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "天黑请闭眼" in result.output


def test_two_games_never_overwrite_each_other(tmp_path: Path) -> None:
    for _ in range(2):
        assert runner.invoke(app, ["play", "-s", "1", "-a", "bot:random", "-q", "-o", str(tmp_path)]).exit_code == 0
    assert len(list(tmp_path.glob("*.jsonl"))) == 2


def test_bad_input_is_one_clear_line(tmp_path: Path) -> None:
    cases = [
        (["play", "--preset", "nope"], "unknown preset 'nope'"),
        (["play", "--agents", "foo:bar"], "unknown agent spec 'foo:bar'"),
        (["play", "--agents", "bot:random,bot:random"], "lists 2 specs but the board has 12 seats"),
        (["play", "-r", "witch_self_save=sometimes"], "witch_self_save"),
        (["play", "-r", "nonsense"], "--rule expects name=value"),
        (["play", "--lang", "fr"], "unknown language 'fr'"),
        (["rules", "show", "nope"], "unknown preset"),
        (["play", "--preset", "classic-millers"], "give the player count (--players N)"),
        (["play", "--preset", "classic-millers", "--players", "19"], "for 8-18 players, got 19"),
        (["replay", str(tmp_path / "missing.jsonl")], "cannot read"),
    ]
    for args, message in cases:
        result = runner.invoke(app, args + ([] if args[0] != "play" else ["-o", str(tmp_path)]))
        assert result.exit_code == 2, (args, result.output)
        assert message in result.output, (args, result.output)
        assert "Traceback" not in result.output


def test_presets_rules_and_schema() -> None:
    presets = runner.invoke(app, ["presets"])
    assert presets.exit_code == 0 and "std-12-guard" in presets.output and "playable" in presets.output
    shown = runner.invoke(app, ["rules", "show", "std-12-guard"])
    assert shown.exit_code == 0
    assert "side-kill" in shown.output and "屠边" in shown.output and "witch_self_save" in shown.output
    schema = runner.invoke(app, ["schema"])
    assert schema.exit_code == 0 and "DecisionLine" in schema.output


def test_scenario_run_exit_codes(tmp_path: Path) -> None:
    scenarios = Path(__file__).parent / "scenarios"
    ok = runner.invoke(app, ["scenario", "run", str(scenarios / "core-01-guard-and-antidote-same-target.json")])
    assert ok.exit_code == 0 and ok.output.startswith("PASS")
    data = json.loads((scenarios / "core-01-guard-and-antidote-same-target.json").read_text())
    data["expect"]["winner"] = "wolves"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    failed = runner.invoke(app, ["scenario", "run", "--json", str(bad)])
    assert failed.exit_code == 1
    record = json.loads(failed.output.splitlines()[0])
    assert record["passed"] is False and record["actual"]["winner"] is None and "winner" in record["error"]


def test_user_mistakes_are_usage_errors_not_internal_errors(tmp_path: Path, monkeypatch) -> None:
    """A seat the board does not have, a missing key, a missing optional SDK package: exit 2, one
    line naming the mistake, never 'internal error' (exit 3)."""
    import sys

    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("WEREWOLF_ARENA_KEYS", str(tmp_path / "no-keys.yaml"))
    human = runner.invoke(app, ["play", "--human", "13", "-o", str(tmp_path)])
    assert human.exit_code == 2 and "--human must be a seat from 1 to 12, got 13" in human.output, human.output
    no_key = runner.invoke(app, ["play", "--agents", "openai:gpt-4o-mini", "-o", str(tmp_path)])
    assert no_key.exit_code == 2 and "OPENAI_API_KEY" in no_key.output, no_key.output
    monkeypatch.setitem(sys.modules, "anthropic", None)  # the optional SDK is not installed
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key-not-used")
    no_sdk = runner.invoke(app, ["play", "--agents", "anthropic:claude-sonnet-4-5", "-o", str(tmp_path)])
    assert no_sdk.exit_code == 2 and "pip install anthropic" in no_sdk.output, no_sdk.output
    for result in (human, no_key, no_sdk):
        assert "internal error" not in result.output and "Traceback" not in result.output
    assert not list(tmp_path.glob("*.jsonl"))  # refused before any game began


def test_classic_millers_with_a_player_count(tmp_path: Path) -> None:
    """R182: one parametric board; `--players N` plays the N-seat deck, recorded as classic-millers-N."""
    result = runner.invoke(app, ["play", "--preset", "classic-millers", "--players", "10", "-s", "2", "-a",
                                 "bot:random", "-q", "-o", str(tmp_path)])
    assert result.exit_code == 0, result.output
    (path,) = tmp_path.glob("classic-millers-10-seed2*.jsonl")
    header = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert header["preset"] == "classic-millers-10" and len(header["agents"]) == 10
    shown = runner.invoke(app, ["rules", "show", "classic-millers", "--players", "16"])
    assert shown.exit_code == 0 and "werewolf ×4" in shown.output


def test_boolean_flags_are_shown_as_flags_in_help() -> None:
    """A flag takes no value, so help must not offer one (typer 0.29 printed ``--watch <bool>`` while
    ``--quiet true`` was refused; pyproject bounds typer below it)."""
    for command in (["play", "--help"], ["tournament", "--help"], ["serve", "--help"]):
        result = runner.invoke(app, command, env={"COLUMNS": "200", "TERM": "dumb"})
        assert result.exit_code == 0, result.output
        assert "<bool>" not in result.output and "BOOLEAN" not in result.output, (command, result.output)


def test_a_broken_pipe_from_a_socket_is_an_internal_error_not_silence() -> None:
    """Only a closed reader of our own output may end a command quietly: a model server's broken
    socket once sent the whole process's output to /dev/null and exited 0."""
    import pytest
    import typer

    from arena.cli.common import friendly

    @friendly
    def talks_to_a_server() -> None:
        raise BrokenPipeError(32, "Broken pipe")

    with pytest.raises(typer.Exit) as stopped:
        talks_to_a_server()
    assert stopped.value.exit_code == 3


def test_output_piped_into_head_ends_quietly() -> None:
    import subprocess
    import sys

    run = subprocess.run(["bash", "-c", f"set -o pipefail; {sys.executable} -m arena play --seed 2 | head -1"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.count("\n") == 1 and "Traceback" not in run.stderr and "internal error" not in run.stderr
