"""Every bad file is exit 2 with file and line (#23): deeply nested YAML or JSON (bounded before the
parser recurses), bytes that are not UTF-8 (named with their offset), in tournament configs, bench
suites and scenarios; and scenario lines that could never apply are errors, not silent passes."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.user_yaml import MAX_NESTING

runner = CliRunner()

SCENARIO = {
    "schema": "werewolf-scenario/1", "name": "guarded", "preset": "std-12-guard", "rules": {"sheriff": False},
    "deal": ["werewolf", "werewolf", "werewolf", "werewolf", "seer", "witch", "hunter", "guard",
             "villager", "villager", "villager", "villager"],
    "script": {"1": {"N1.wolf_kill": 9}, "2": {"N1.wolf_kill": 9}, "3": {"N1.wolf_kill": 9},
               "4": {"N1.wolf_kill": 9}, "8": {"N1.guard": 9}},
    "stop_after": "D1", "expect": {"deaths": {}}, "rules_cited": ["R27"],
}
DEEP = 200_000  # the attack: 200k levels, 400 KB, a RecursionError on main
HOSTILE_TEXTS = {
    "deep-flow-yaml": ("yaml", "name: x\nroster: " + "[" * DEEP + "]" * DEEP + "\n", ":2: not valid YAML: nested more than"),
    "deep-block-yaml": ("yaml", "name: x\nroster:\n" + "- " * 5000 + "1\n", ":3: not valid YAML: nested more than"),
    "not-utf8": ("yaml", b"name: x\nroster: [\xff\xfe]\n", ":2: byte 17 (0xff) is not UTF-8 text"),
}


def write(path: Path, content: str | bytes) -> Path:
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return path


@pytest.mark.parametrize("case", list(HOSTILE_TEXTS))
def test_a_hostile_tournament_config_is_exit_2_with_file_and_line(tmp_path: Path, case: str) -> None:
    _, content, message = HOSTILE_TEXTS[case]
    path = write(tmp_path / "t.yaml", content)
    result = runner.invoke(app, ["tournament", str(path)])
    assert result.exit_code == 2, result.output
    assert f"{path}{message}" in result.output and "internal error" not in result.output


@pytest.mark.parametrize("case", list(HOSTILE_TEXTS))
def test_a_hostile_bench_suite_is_a_clear_error(tmp_path: Path, case: str) -> None:
    from arena.bench import BenchError, load_suite

    _, content, message = HOSTILE_TEXTS[case]
    path = write(tmp_path / "suite.yaml", content)
    with pytest.raises(BenchError) as info:
        load_suite(path)
    assert f"{path}{message}" in str(info.value)
    result = runner.invoke(app, ["bench", "run", str(path), "--agent", "bot:random"])
    assert result.exit_code == 2 and "internal error" not in result.output, result.output


SCENARIO_FILES = {
    "deep-json": ("json", '{"schema": "werewolf-scenario/1",\n "name": ' + "[" * DEEP + "]" * DEEP + "}",
                  ":2: nested more than"),
    "deep-yaml": ("yaml", "schema: werewolf-scenario/1\nname: " + "[" * DEEP + "]" * DEEP, ":2: not valid YAML: nested"),
    "not-utf8-json": ("json", b'{"schema": "werewolf-scenario/1",\n"name": "\xc3\x28"}', ":2: byte 43 (0xc3) is not UTF-8"),
    "bad-json": ("json", '{"schema": "werewolf-scenario/1",\n\n "name": }', ":3: not valid JSON"),
}


@pytest.mark.parametrize("case", list(SCENARIO_FILES))
def test_a_hostile_scenario_file_is_exit_2_with_file_and_line(tmp_path: Path, case: str) -> None:
    suffix, content, message = SCENARIO_FILES[case]
    path = write(tmp_path / f"s.{suffix}", content)
    result = runner.invoke(app, ["scenario", "run", str(path)])
    assert result.exit_code == 2, result.output
    assert f"{path}{message}" in result.output and "internal error" not in result.output


def test_nesting_up_to_the_bound_still_loads(tmp_path: Path) -> None:
    from arena.user_yaml import load_user_file

    fine = "[" * (MAX_NESTING - 1) + "]" * (MAX_NESTING - 1)
    assert load_user_file(write(tmp_path / "ok.json", '{"a": ' + fine + "}")) is not None
    assert load_user_file(write(tmp_path / "ok.yaml", "a: " + fine)) is not None
    assert load_user_file(write(tmp_path / "s.json", '{"a": "' + "[" * 10_000 + '"}'))["a"].startswith("[[")


def scenario_with(change) -> dict:  # type: ignore[no-untyped-def]
    data = copy.deepcopy(SCENARIO)
    change(data)
    return data


NEVER_APPLIES = {
    "seat-0": (lambda d: d["script"].update({"0": {"N1.wolf_kill": 9}}), "script.0: seat 0 does not exist"),
    "seat-99": (lambda d: d["script"].update({"99": {"N1.guard": 9}}), "script.99: seat 99 does not exist"),
    "unknown-decision": (lambda d: d["script"].update({"1": {"N1.fly_to_moon": 3}}),
                         "script.1.N1.fly_to_moon: 'fly_to_moon' is not a decision the referee asks"),
    "string-seat-in-deaths": (lambda d: d["expect"].update(deaths={"N1": [{"seat": "9", "cause": "wolf"}]}),
                              "expect.deaths.N1.0.seat: Input should be a valid integer"),
    "string-alive": (lambda d: d["expect"].update(alive="1,2,3"), "expect.alive: Input should be a valid list"),
    "bad-phase": (lambda d: d["expect"].update(deaths={"night1": []}), "expect.deaths: not a phase: 'night1'"),
}


@pytest.mark.parametrize("case", list(NEVER_APPLIES))
def test_a_scenario_line_that_can_never_apply_is_an_error_not_a_pass(tmp_path: Path, case: str) -> None:
    change, message = NEVER_APPLIES[case]
    path = tmp_path / "s.json"
    path.write_text(json.dumps(scenario_with(change)), encoding="utf-8")
    result = runner.invoke(app, ["scenario", "run", str(path)])
    assert result.exit_code == 1 and result.output.startswith("FAIL"), result.output
    assert message in result.output, result.output


def test_the_sound_scenario_passes(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps(SCENARIO), encoding="utf-8")
    result = runner.invoke(app, ["scenario", "run", str(path)])
    assert result.exit_code == 0, result.output


def test_a_deeply_nested_keys_file_is_an_error_naming_it(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from agents.providers import ProviderConfigError
    from agents.registry import make_operator_agent

    keys = write(tmp_path / "keys.yaml", "openai: " + "[" * DEEP + "]" * DEEP)
    monkeypatch.setenv("WEREWOLF_ARENA_KEYS", str(keys))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ProviderConfigError, match="not valid YAML at line 1"):
        make_operator_agent("openai:gpt-4o-mini", seat=1)


def test_an_index_line_that_is_not_utf8_is_a_damaged_line_not_a_crash(tmp_path: Path) -> None:
    import asyncio

    from arena.tournament import RunOptions, run_tournament
    from tests.test_eval_tournament import config

    out = tmp_path / "t"
    asyncio.run(run_tournament(config(tmp_path, deals=1), RunOptions(out=out, executor="async")))
    with open(out / "index.jsonl", "ab") as fh:
        fh.write(b'{"game_id": "\xff\xfe", "status": "done", "time": 1}\n')
    result = runner.invoke(app, ["verify", str(out)])
    assert result.exit_code == 0 and "internal error" not in result.output, result.output


def test_a_deeply_nested_option_value_is_a_usage_error() -> None:
    result = runner.invoke(app, ["bench", "run", "--agent", "bot:random", "--option", "x=" + "[" * 5000])
    assert result.exit_code == 2 and "nested more than" in result.output, result.output
