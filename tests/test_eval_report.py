"""The report end to end on hand-made transcripts: score, render md/json/html, and the CLI command."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from arena.evaluate.ratings import RatingConfig
from arena.evaluate.report import Report, render, score
from arena.transcript import TranscriptError
from test_eval_metrics import game1, game2, game3


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    game1(tmp_path)
    game2(tmp_path)
    game3(tmp_path)
    (tmp_path / "crashed.jsonl").write_text("", encoding="utf-8")  # a transcript killed before its header
    return tmp_path


def test_score_and_render_every_format(folder: Path) -> None:
    report = score([folder], rating=RatingConfig(n_resamples=20))
    assert report.availability.games == 3 and len(report.skipped) == 1
    md = render(report, "md")
    assert "## Leaderboard" in md and "## Deduction" in md and "## Config card" in md and "Power:" in md
    assert "\nneeds " not in md.split("## Outcomes")[0]  # ratings never "need": they use outcomes only
    again = Report.model_validate(json.loads(render(report, "json")))
    assert again.availability == report.availability
    page = render(report, "html")
    assert page.startswith("<!doctype html>") and "data:image/png;base64," in page
    assert "<script" not in page and "http" not in page.split("<body>")[1].split("data:image")[0]
    # Agent B is priced (game 2) and rated: its cost per game is plotted against its rating.
    assert "<h3>Cost versus rating</h3><img alt=\"cost_vs_rating\" src=\"data:image/png;base64," in page


def test_a_metric_without_data_says_so(tmp_path: Path) -> None:
    game1(tmp_path)
    md = render(score([tmp_path], rating=RatingConfig(n_resamples=10)), "md")
    assert "needs beliefs" in md and "needs role or check claims" in md


def test_a_newer_schema_file_is_skipped_with_a_line_and_refused_under_strict(tmp_path: Path) -> None:
    path = game1(tmp_path)
    lines = path.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header["schema_version"] = 99
    path.write_text("\n".join([json.dumps(header)] + lines[1:]) + "\n", encoding="utf-8")
    report = score([tmp_path], rating=RatingConfig(n_resamples=10))
    assert len(report.skipped) == 1 and "newer" in report.skipped[0] and str(path) in report.skipped[0]
    with pytest.raises(TranscriptError, match="newer"):
        score([tmp_path], rating=RatingConfig(n_resamples=10), strict=True)


def test_score_command(folder: Path, tmp_path: Path) -> None:
    from arena.cli.score import score_command

    app = typer.Typer()
    app.command("score")(score_command)
    app.command("noop")(lambda: None)  # two commands, so typer keeps the subcommand name
    out = tmp_path / "out" / "report.html"
    result = CliRunner().invoke(app, ["score", str(folder), "--format", "html", "--resamples", "10", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_text(encoding="utf-8").startswith("<!doctype html>")
    result = CliRunner().invoke(app, ["score", str(tmp_path / "missing")])
    assert result.exit_code == 2 and "no such file" in result.output


def test_score_html_writes_a_file_and_says_where(folder: Path) -> None:
    from arena.cli.main import app

    result = CliRunner().invoke(app, ["score", str(folder), "--format", "html", "--resamples", "10"])
    assert result.exit_code == 0, result.output
    page = folder / "report.html"
    assert f"wrote {page}" in result.output and "<!doctype html>" not in result.output
    assert page.read_text(encoding="utf-8").startswith("<!doctype html>")


def test_score_with_no_readable_game_is_an_error(tmp_path: Path) -> None:
    from arena.cli.main import app

    empty, broken = tmp_path / "empty", tmp_path / "broken"
    empty.mkdir()
    broken.mkdir()
    (broken / "crashed.jsonl").write_text("", encoding="utf-8")
    (broken / "garbage.jsonl").write_text("not a transcript\n", encoding="utf-8")
    for folder, why in ((empty, "no *.jsonl transcript found"), (broken, "2 unreadable transcript(s)")):
        result = CliRunner().invoke(app, ["score", str(folder), "--resamples", "10"])
        assert result.exit_code == 2, result.output
        assert f"no finished game to score in {folder} ({why}" in result.output, result.output
        assert "Leaderboard" not in result.output


def test_html_rows_link_to_their_games_and_the_page_shows_win_rates_and_balance(folder: Path) -> None:
    from arena.cli.main import app

    out = folder / "site" / "report.html"
    result = CliRunner().invoke(app, ["score", str(folder), "--format", "html", "--resamples", "10", "-o", str(out),
                                      "--replay-pages"])
    assert result.exit_code == 0, result.output
    page = out.read_text(encoding="utf-8")
    assert "<h2>Win rate by side and role</h2>" in page and 'alt="win_rates"' in page
    assert "<h3>Seats per agent</h3>" in page and "<h3>Roles per agent</h3>" in page
    assert "distinct switch sets" in page and "Holm" in page
    links = re.findall(r'<a href="([^"]+\.html)">', page)
    assert links, "no metric row links to a game"
    for href in set(links):
        assert (out.parent / href).resolve().exists(), href  # --replay-pages wrote the page it links to
