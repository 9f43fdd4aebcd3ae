"""Hostile files: bad bytes, deep nesting, odd schema versions, edited or damaged transcripts, alias
bombs and oversized fields. None of them may crash a command (exit 3) or pass as sound."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agents.bots import RandomBot
from arena.actions import Answer, AnswerAttempt, AnswerExtras, ModelUsage
from arena.cli.main import app
from arena.engine import GameSetup
from arena.referee import play_sync
from arena.transcript import FIELD_CAP_CHARS, TranscriptError, TranscriptWriter, read_transcript

runner = CliRunner()


def bot_game(path: Path, seed: int = 4, preset: str = "std-12-guard") -> Path:
    with TranscriptWriter(path) as writer:
        play_sync(GameSetup(preset=preset, seed=seed), [RandomBot(s, seed) for s in range(1, 13)], writer=writer,
                  specs=["bot:random"] * 12)
    return path


def rewrite(path: Path, number: int, line: bytes | None) -> Path:
    """Replace line ``number`` (1-based; None deletes it) and keep the rest byte for byte."""
    lines = path.read_bytes().split(b"\n")[:-1]
    if line is None:
        del lines[number - 1]
    else:
        lines[number - 1] = line
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def edit_json(path: Path, number: int, change) -> Path:  # type: ignore[no-untyped-def]
    lines = path.read_bytes().split(b"\n")
    data = json.loads(lines[number - 1 if number > 0 else len(lines) - 2])
    change(data)
    return rewrite(path, number if number > 0 else len(lines) - 1, json.dumps(data).encode())


# ---- 7: bad bytes, nesting and versions are messages, never crashes ---------------------------

BAD_LINES = {
    "invalid-utf8": b'{"type":"event","seq":3,"event":{"type":"speech","text":"\xff\xfe\xc3"}}',
    "deep-nesting": b'{"type":"event","seq":3,"event":' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    "deep-in-a-field": b'{"type":"decision","prompt":' + b'{"a":' * 3000 + b"1" + b"}" * 3000 + b"}",
}


@pytest.mark.parametrize("bad", list(BAD_LINES), ids=list(BAD_LINES))
@pytest.mark.parametrize("command", ["replay", "view", "verify"])
def test_bad_bytes_and_deep_nesting_are_a_clear_error_not_an_internal_one(tmp_path: Path, bad: str,
                                                                          command: str) -> None:
    path = rewrite(bot_game(tmp_path / "g.jsonl"), 5, BAD_LINES[bad])
    args = [command, str(path)] + (["--out", str(tmp_path / "g.html")] if command == "view" else [])
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert "internal error" not in result.output and f"{path}:5" in result.output


@pytest.mark.parametrize("version, message", [
    (None, "has no schema_version"), ("2", "must be a whole number"), (-1, "is not a version"),
    (0, "is not a version"), (True, "must be a whole number"), (99, "newer than this arena reads"),
])
def test_schema_versions_get_clear_messages(tmp_path: Path, version: object, message: str) -> None:
    def change(header: dict) -> None:
        if version is None:
            del header["schema_version"]
        else:
            header["schema_version"] = version

    path = edit_json(bot_game(tmp_path / "g.jsonl"), 1, change)
    with pytest.raises(TranscriptError, match=message):
        read_transcript(path)
    from arena.evaluate.load import load_game

    with pytest.raises(TranscriptError, match=message):
        load_game(path)


def test_resume_does_not_count_a_damaged_transcript_as_done(tmp_path: Path) -> None:
    from arena.evaluate.report import score
    from arena.tournament import Index, RunOptions, run_tournament, transcript_path
    from tests.test_eval_tournament import config

    cfg = config(tmp_path, deals=2)
    out = tmp_path / "t"
    asyncio.run(run_tournament(cfg, RunOptions(out=out, executor="async")))
    games = sorted((out / "games").glob("*.jsonl"))
    assert len(games) == 4
    # A damaged event line in the middle (a disk error, a stray edit): the fast reader skips events
    # unparsed, so only the digest or a full read can see it.
    rewrite(games[0], 20, b'{"type":"event","seq":19,"event":{"type":"spe' + b"\x00garbage")
    result = asyncio.run(run_tournament(cfg, RunOptions(out=out, executor="async", resume=True)))
    assert result.played == 1 and result.skipped == 3
    read_transcript(games[0])  # replayed whole
    index = Index(out / "index.jsonl")
    assert all(e.status == "done" and e.sha256 for e in index.state.values())
    assert score([out / "games"]).skipped == []
    # Without a digest in the index (an older run) the damage is found by a full read.
    rewrite(games[1], 20, b'{"type":"event","seq":19,"event":{"type":"spe' + b"\x00garbage")
    lines = [json.loads(x) for x in (out / "index.jsonl").read_text().splitlines()]
    (out / "index.jsonl").write_text("".join(json.dumps({k: v for k, v in x.items() if k != "sha256"}) + "\n"
                                             for x in lines))
    result = asyncio.run(run_tournament(cfg, RunOptions(out=out, executor="async", resume=True)))
    assert result.played == 1 and transcript_path(out, games[1].stem).exists()
    read_transcript(games[1])


# ---- 8: replay and verify check what the evaluator reads --------------------------------------

@pytest.mark.parametrize("edit, message", [
    (lambda r: r.update(alive=r["alive"][:-1]), "result: recorded alive"),
    (lambda r: r["roles"].update({"1": "idiot"}), "result: recorded roles {'1': 'idiot'}"),
    (lambda r: r.update(decisions=r["decisions"] + 1), "result: recorded decisions"),
    (lambda r: r.update(refused=r["refused"] + 1), "result: recorded refused"),
    (lambda r: r.update(reason="nobody"), "result: recorded reason"),
], ids=["alive", "roles", "decisions", "refused", "reason"])
def test_replay_checks_the_result_line(tmp_path: Path, edit, message: str) -> None:  # type: ignore[no-untyped-def]
    path = edit_json(bot_game(tmp_path / "g.jsonl"), -1, edit)
    result = runner.invoke(app, ["replay", str(path)])
    assert result.exit_code == 1 and message in result.output, result.output


def test_replay_checks_the_header_seats_and_each_decision(tmp_path: Path) -> None:
    path = edit_json(bot_game(tmp_path / "a.jsonl"), 1, lambda h: h["agents"][2].update(spec="openai:gpt-4o"))
    result = runner.invoke(app, ["replay", str(path)])
    assert result.exit_code == 1 and "the header seats 'openai:gpt-4o' at seat 3" in result.output
    path = edit_json(bot_game(tmp_path / "b.jsonl"), 1, lambda h: h.update(agents=h["agents"][:-1]))
    assert "the board has 12 seats" in runner.invoke(app, ["replay", str(path)]).output
    lines = (tmp_path / "c.jsonl").read_bytes() if False else bot_game(tmp_path / "c.jsonl").read_bytes().split(b"\n")
    number = next(i for i, raw in enumerate(lines, 1) if raw.startswith(b'{"type":"decision"') and b'"refused":false' in raw)
    path = edit_json(tmp_path / "c.jsonl", number, lambda d: d.update(refused=True))
    result = runner.invoke(app, ["replay", str(path)])
    assert result.exit_code == 1 and "recorded refused True, replayed False" in result.output


def test_a_game_without_a_result_line_is_incomplete_not_ok(tmp_path: Path) -> None:
    path = rewrite(bot_game(tmp_path / "g.jsonl"), len((tmp_path / "g.jsonl").read_bytes().split(b"\n")) - 1, None)
    result = runner.invoke(app, ["replay", str(path)])
    assert result.exit_code == 1 and result.output.startswith("INCOMPLETE"), result.output
    assert runner.invoke(app, ["replay", str(bot_game(tmp_path / "ok.jsonl"))]).exit_code == 0


def test_verify_finds_an_edited_transcript_without_replaying(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from arena import replay as replay_module
    from arena.tournament import RunOptions, run_tournament
    from tests.test_eval_tournament import config

    out = tmp_path / "t"
    asyncio.run(run_tournament(config(tmp_path, deals=2), RunOptions(out=out, executor="async")))
    monkeypatch.setattr(replay_module, "replay", lambda *a, **k: pytest.fail("verify replayed a game"))
    assert runner.invoke(app, ["verify", str(out)]).exit_code == 0
    games = sorted((out / "games").glob("*.jsonl"))
    # one changed byte in a speech: every line still valid, the game still replays
    raw = games[0].read_bytes()
    at = raw.index(b'"type":"speech"')
    at = raw.index(b'"text":"', at) + 8
    games[0].write_bytes(raw[:at] + (b"X" if raw[at:at + 1] != b"X" else b"Y") + raw[at + 1:])
    # labels swapped in another game's header
    edit_json(games[1], 1, lambda h: [a.update(label="random" if a["label"] == "heuristic" else "heuristic")
                                      for a in h["agents"]])
    result = runner.invoke(app, ["verify", str(out)])
    assert result.exit_code == 1, result.output
    assert f"{games[0].stem}: the transcript changed" in result.output
    assert f"{games[1].stem}: the transcript changed" in result.output
    assert "FAILED: 2 of 4 games" in result.output


def test_verify_checks_seats_against_the_schedule_when_no_digest_was_kept(tmp_path: Path) -> None:
    from arena.tournament import RunOptions, run_tournament
    from tests.test_eval_tournament import config

    out = tmp_path / "t"
    asyncio.run(run_tournament(config(tmp_path, deals=1), RunOptions(out=out, executor="async")))
    lines = [json.loads(x) for x in (out / "index.jsonl").read_text().splitlines()]
    (out / "index.jsonl").write_text("".join(json.dumps({k: v for k, v in x.items() if k != "sha256"}) + "\n"
                                             for x in lines))
    game = sorted((out / "games").glob("*.jsonl"))[0]
    edit_json(game, 1, lambda h: [a.update(label="random" if a["label"] == "heuristic" else "heuristic")
                                  for a in h["agents"]])
    result = runner.invoke(app, ["verify", str(out)])
    assert result.exit_code == 1 and f"{game.stem}: the header seats" in result.output, result.output


# ---- 6: every recorded field is capped; configs refuse aliases --------------------------------

class _Flooding:
    """An agent that answers legally but writes a megabyte into every field it may."""

    spec = "flood"
    deterministic = True

    def __init__(self, seat: int):
        self.bot = RandomBot(seat, 1)

    def decide_sync(self, observation, request):  # type: ignore[no-untyped-def]
        value = self.bot.decide_sync(observation, request)
        mb = "\x1b" + "w" * 1_000_000
        return Answer(value=value, reasoning=mb, notes=mb, extras=AnswerExtras(
            raw_reply={"text": mb, "thinking": mb}, attempts=[AnswerAttempt(raw=mb, error=mb)], error=mb,
            usage=ModelUsage(transport_errors=[mb]), prompt=[{"role": "user", "content": "p" * 1_000_000}],
            memory=list(range(100_000))))


def test_every_recorded_field_is_capped_and_says_so(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    with TranscriptWriter(path) as writer:
        play_sync(GameSetup(preset="std-12-guard", seed=1), [_Flooding(s) for s in range(1, 13)], writer=writer)
    size = path.stat().st_size
    transcript = read_transcript(path)
    lines = path.read_bytes().split(b"\n")
    assert max(len(x) for x in lines) < 400_000, "a decision line stays small"
    assert size < 400_000 * len(lines)
    d = transcript.decisions[0]
    for text in (d.reasoning, d.notes, d.raw_reply["text"], d.raw_reply["thinking"], d.attempts[0].raw,
                 d.attempts[0].error, d.usage["transport_errors"][0], d.error):
        assert len(text) < FIELD_CAP_CHARS + 100 and text.endswith("more characters cut]")
    assert d.memory[-1] == "…[99,000 more items cut]"
    assert not [e for e in transcript.events if e.event.type == "thought"], "reasoning is stored once, capped above"
    result = runner.invoke(app, ["view", str(path), "--out", str(tmp_path / "g.html")])
    assert result.exit_code == 0, result.output


ALIAS_BOMB = """name: bomb
roster:
  - label: a
    agent: bot:random
    options: &l9 {x: &l1 [lol, lol, lol, lol, lol, lol, lol, lol, lol]}
  - {label: b, agent: "bot:random", options: {y: [*l1, *l1, *l1, *l1, *l1, *l1, *l1, *l1, *l1]}}
boards: [{preset: std-12-guard}]
"""


def test_a_yaml_alias_bomb_in_a_config_is_refused(tmp_path: Path) -> None:
    from arena.tournament import TournamentError, load_config

    path = tmp_path / "bomb.yaml"
    path.write_text(ALIAS_BOMB, encoding="utf-8")
    with pytest.raises(TournamentError, match="aliases"):
        load_config(path)
    result = runner.invoke(app, ["scenario", "run", str(path)])  # a scenario file that cannot load fails
    assert result.exit_code == 2 and "aliases (*name) are not accepted" in result.output, result.output
    result = runner.invoke(app, ["play", "--rule", "sheriff=&a [*a]", "--agents", "bot:random"])
    assert result.exit_code == 2 and "alias" in result.output, result.output


def test_readers_refuse_an_oversized_line_or_file(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import arena.transcript as transcript_module
    from arena.evaluate.load import load_game

    path = bot_game(tmp_path / "g.jsonl")
    monkeypatch.setattr(transcript_module, "MAX_LINE_BYTES", 2000)
    with pytest.raises(TranscriptError, match="more than a line may hold"):
        read_transcript(path)
    monkeypatch.setattr(transcript_module, "MAX_TRANSCRIPT_BYTES", 10_000)
    with pytest.raises(TranscriptError, match="more than a transcript may hold"):
        load_game(path)
