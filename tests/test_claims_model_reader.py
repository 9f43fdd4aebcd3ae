"""The optional model-judged claims reader (agents/claims_reading.py), offline: a loopback
OpenAI-compatible server the test starts stands in for the model (#26 item 6, #32)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from arena.evaluate.claim_benchmark import SETS, load_labelled, score_rows
from arena.evaluate.claims import REGEX_READER, read_claims
from agents.claims_reading import PROMPT_FILE, ModelClaimsReader, load_prompt, prompt_hash, reader_from_spec
from arena.evaluate.ratings import RatingConfig
from arena.evaluate.report import render, score
from arena.resources import data_dir
from llm_loopback import LoopbackServer, Reply, openai_completion
from test_eval_metrics import game1, game2, game3

SPEECH = re.compile(r"<<<\n(.*)\n>>>", re.S)


def speech_of(body: dict[str, Any]) -> str:
    user = next(m for m in body["messages"] if m["role"] == "user")
    content = user["content"] if isinstance(user["content"], str) else "".join(p["text"] for p in user["content"])
    m = SPEECH.search(content)
    assert m, content
    return m.group(1)


def oracle(rows: list[dict[str, Any]]) -> Any:
    """A model that answers each speech with its labels, plus what a careless model adds: a seat the
    speech never names (23) and a role that is no card (king). The reader must drop both."""
    labels = {r["text"]: r for r in rows}

    def reply(body: dict[str, Any], headers: Any) -> Reply:
        row = labels.get(speech_of(body))
        answer: dict[str, Any] = {"roles": [], "checks": [], "reported_roles": [], "reported_checks": []}
        if row is not None:
            answer = {"roles": row["roles"] + ["king"],
                      "checks": [{"seat": s, "result": r} for s, r in row["checks"]] + [{"seat": 23, "result": "wolf"}],
                      "reported_roles": [{"seat": s, "role": r} for s, r in row["reported_roles"]],
                      "reported_checks": [{"by": b, "seat": s, "result": r} for b, s, r in row["reported_checks"]]}
        return Reply(body=openai_completion(json.dumps(answer)))
    return reply


def reader_at(url: str) -> ModelClaimsReader:
    return reader_from_spec(f"local:claims-judge@{url}/v1", timeout=10)


def test_the_prompt_is_fixed_in_both_languages_and_hashed() -> None:
    for lang in ("en", "zh"):
        prompt = load_prompt(lang)
        assert "{speech}" in prompt["user"] and "{players}" in prompt["user"]
        assert "银水" in prompt["system"]  # the witch's save is named as no check in both
    assert re.fullmatch(r"[0-9a-f]{12}", prompt_hash())
    assert (data_dir("prompts") / "en" / PROMPT_FILE).exists()


def test_calibration_against_the_labels_runs_through_the_provider_and_drops_what_the_speech_cannot_hold() -> None:
    rows = [r for r in load_labelled(SETS["tuning"])][:40]
    with LoopbackServer() as srv:
        srv.default = oracle(rows)  # type: ignore[assignment]
        reader = reader_at(srv.url)
        scores, misses = score_rows(rows, reader)
        reader.close()
        assert len(srv.seen) == len(rows)  # one call per speech, none repeated
        sent = srv.seen[0].body
    assert misses == []  # the labels came back whole; seat 23 and "king" were dropped
    assert all(s.precision in (None, 1.0) and s.recall in (None, 1.0) for s in scores)
    assert sent["temperature"] == 0 and sent["messages"][0]["role"] == "system"
    assert reader.fallbacks == 0 and reader.calls == len(rows)
    assert "local:claims-judge" in reader.name and prompt_hash() in reader.name


def test_a_failing_or_nonsense_answer_falls_back_to_the_regex_reader_and_is_counted() -> None:
    text = "I am the seer. I checked seat 5: wolf."
    with LoopbackServer() as srv:
        srv.queue(Reply(status=500, body={"error": {"message": "down", "type": "server"}}),
                  Reply(body=openai_completion("I think there are claims here, sorry no JSON")))
        reader = reader_at(srv.url)
        got = reader(text, 12)
        reader.close()
    assert got.roles == ["seer"] and got.checks_given(False) == [(5, "wolf")]  # the regex reader's reading
    assert reader.fallbacks == 1 and "1 fell back" in reader.name


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    game1(tmp_path)
    game2(tmp_path)
    game3(tmp_path)
    return tmp_path


def test_the_report_uses_and_names_the_reader(folder: Path) -> None:
    by_regex = score([folder], rating=RatingConfig(n_resamples=10))
    assert by_regex.claims_reader == REGEX_READER and by_regex.availability.speeches_with_claims > 0
    with LoopbackServer() as srv:  # a model that reads no claim anywhere
        srv.default = Reply(body=openai_completion(json.dumps(
            {"roles": [], "checks": [], "reported_roles": [], "reported_checks": []})))
        reader = reader_at(srv.url)
        by_model = score([folder], rating=RatingConfig(n_resamples=10), claims_reader=reader)
        reader.close()
    assert by_model.availability.speeches_with_claims == 0
    assert by_model.claims_reader.startswith("model local:claims-judge") and "0 fell back" in by_model.claims_reader
    assert f"Claims read by: {by_model.claims_reader}" in render(by_model, "md")
    assert read_claims("I am the seer.", 12).roles == ["seer"]  # outside the block: the regex reader again


def test_score_command_takes_the_model_reader_and_names_bad_input(folder: Path) -> None:
    from arena.cli.score import score_command

    app = typer.Typer()
    app.command("score")(score_command)
    app.command("noop")(lambda: None)
    with LoopbackServer() as srv:
        srv.default = Reply(body=openai_completion(json.dumps(
            {"roles": ["seer"], "checks": [], "reported_roles": [], "reported_checks": []})))
        result = CliRunner().invoke(app, ["score", str(folder), "--resamples", "10", "--claims-reader", "model",
                                          "--claims-model", f"local:judge@{srv.url}/v1"])
    assert result.exit_code == 0, result.output
    assert "Claims read by: model local:judge" in result.output
    missing = CliRunner().invoke(app, ["score", str(folder), "--claims-reader", "model"])
    assert missing.exit_code == 2 and "--claims-model" in missing.output
    bad = CliRunner().invoke(app, ["score", str(folder), "--claims-reader", "model", "--claims-model", "gpt"])
    assert bad.exit_code == 2 and "KIND:MODEL" in bad.output
