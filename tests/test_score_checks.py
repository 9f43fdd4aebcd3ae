"""`arena score` checks what it scores (#23): a tournament folder's games are verified against the
index's digests first, as `arena verify` does; a changed or added game stops the command (exit 1)
unless --allow-unverified, which scores it and lists it in the report."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from tests.test_hostile_files import edit_json

runner = CliRunner()


@pytest.fixture
def tournament(tmp_path: Path) -> Path:
    from arena.tournament import RunOptions, run_tournament
    from tests.test_eval_tournament import config

    out = tmp_path / "t"
    asyncio.run(run_tournament(config(tmp_path, deals=2), RunOptions(out=out, executor="async")))
    return out


def flip_winner(game: Path) -> None:
    edit_json(game, -1, lambda r: r.update(winner="wolves" if r["winner"] != "wolves" else "village"))


def score(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["score", "--resamples", "20", "--format", "json", *args])


def test_a_sound_tournament_scores_with_no_unverified_game(tournament: Path) -> None:
    result = score(str(tournament))
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["unverified"] == []


@pytest.mark.parametrize("scored", ["folder", "games-folder", "one-file"])
def test_a_flipped_winner_is_refused_with_exit_1_naming_the_game(tournament: Path, scored: str) -> None:
    game = sorted((tournament / "games").glob("*.jsonl"))[0]
    flip_winner(game)
    target = {"folder": tournament, "games-folder": tournament / "games", "one-file": game}[scored]
    result = score(str(target))
    assert result.exit_code == 1, result.output
    assert f"{game.stem}: the transcript changed since it was recorded" in result.output
    assert "nothing scored" in result.output and "--allow-unverified" in result.output


def test_allow_unverified_scores_and_flags_the_changed_game(tournament: Path) -> None:
    game = sorted((tournament / "games").glob("*.jsonl"))[0]
    flip_winner(game)
    result = score("--allow-unverified", str(tournament))
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert len(report["unverified"]) == 1 and game.stem in report["unverified"][0]
    assert report["availability"]["games"] == 4
    md = runner.invoke(app, ["score", "--resamples", "20", "--allow-unverified", str(tournament)])
    assert "Unverified: 1 game(s) scored although they fail `arena verify`" in md.stdout


def test_a_transcript_added_to_a_tournament_folder_is_not_scored_unnoticed(tournament: Path) -> None:
    game = sorted((tournament / "games").glob("*.jsonl"))[0]
    shutil.copy(game, tournament / "games" / "extra-win.jsonl")
    result = score(str(tournament))
    assert result.exit_code == 1 and "extra-win.jsonl is not a game of this tournament's index" in result.output


def test_loose_transcripts_outside_a_tournament_are_scored_as_before(tournament: Path, tmp_path: Path) -> None:
    loose = tmp_path / "loose"
    loose.mkdir()
    for game in (tournament / "games").glob("*.jsonl"):
        shutil.copy(game, loose / game.name)
    flip_winner(sorted(loose.glob("*.jsonl"))[0])  # nothing to check it against
    assert score(str(loose)).exit_code == 0


def test_an_abandoned_game_edited_to_claim_a_result_is_not_rated_unnoticed(tournament: Path) -> None:
    from arena.tournament import Index, IndexEntry

    game = sorted((tournament / "games").glob("*.jsonl"))[0]
    Index(tournament / "index.jsonl").write(IndexEntry(game_id=game.stem, status="abandoned", time=1.0))
    edit_json(game, -1, lambda r: r.update(abandoned=True))  # as the arena writes an abandoned game
    assert score(str(tournament)).exit_code == 0
    edit_json(game, -1, lambda r: r.update(abandoned=False))  # edited to count as a finished game
    result = score(str(tournament))
    assert result.exit_code == 1 and "the index records it abandoned, its transcript a finished game" in result.output
