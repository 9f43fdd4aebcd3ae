"""``arena score DIR... [--format md|json|html]``: the evaluator's report from transcripts only."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import List, Optional

import typer

from arena.cli.common import friendly


class ReportFormat(str, Enum):
    md = "md"
    json = "json"
    html = "html"


@friendly
def score_command(
    paths: List[Path] = typer.Argument(..., help="Transcript files or folders (searched recursively for *.jsonl)."),
    fmt: ReportFormat = typer.Option(ReportFormat.md, "--format", "-f", help="md, json, or html (plots inlined)."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Write the report here instead of stdout."),
    resamples: int = typer.Option(1000, help="Bootstrap resamples (whole games) for the rating intervals."),
    seed: int = typer.Option(0, help="Seed of the bootstrap's random generator."),
    strict: bool = typer.Option(False, help="Validate every transcript line with the pydantic models (slower)."),
    include_forks: bool = typer.Option(False, "--include-forks",
                                       help="Count forked games (arena fork) as ordinary games in the ratings, win "
                                            "rates and metrics. By default they share their parent's prefix, so they "
                                            "are only compared with their parents (the Forks section)."),
) -> None:
    """Score tournaments: ratings with intervals, deduction, deception, persuasion, role skill, reliability.

    Every metric and its chance baseline is defined in docs/metrics.md.
    """
    from arena.evaluate.ratings import RatingConfig
    from arena.evaluate.report import render, score

    report = score(paths, rating=RatingConfig(n_resamples=resamples, seed=seed), strict=strict,
                   include_forks=include_forks)
    text = render(report, fmt.value)
    if out is None:
        typer.echo(text, nl=False)
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    excluded = f" ({report.forks_excluded} forked games excluded from ratings)" if report.forks_excluded else ""
    typer.echo(f"{report.availability.games} games scored{excluded} in {report.seconds.get('total', 0):.1f}s -> {out}",
               err=True)
