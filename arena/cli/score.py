"""``arena score DIR... [--format md|json|html]``: the evaluator's report from transcripts only."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, List, Optional

import typer

from arena.cli.common import friendly

if TYPE_CHECKING:
    from arena.evaluate.report import Report


class ClaimsReaderKind(str, Enum):
    regex = "regex"
    model = "model"


class ReportFormat(str, Enum):
    md = "md"
    json = "json"
    html = "html"


@friendly
def score_command(
    paths: List[Path] = typer.Argument(..., help="Transcript files or folders (searched recursively for *.jsonl)."),
    fmt: ReportFormat = typer.Option(ReportFormat.md, "--format", "-f", help="md, json, or html (plots inlined)."),
    out: Optional[Path] = typer.Option(None, "--out", "-o",
                                       help="Write the report here instead of stdout (html: always a file, by "
                                            "default report.html in the first folder scored)."),
    resamples: int = typer.Option(1000, help="Bootstrap resamples (whole games) for the rating intervals."),
    seed: int = typer.Option(0, help="Seed of the bootstrap's random generator."),
    strict: bool = typer.Option(False, help="Validate every transcript line with the pydantic models (slower)."),
    pages: bool = typer.Option(False, "--replay-pages",
                               help="html: also write the replay page of every game a metric row links to "
                                    "(beside its transcript, as `arena view` does)."),
    allow_unverified: bool = typer.Option(False, "--allow-unverified",
                                          help="Score games of a tournament folder that fail `arena verify` (a "
                                               "transcript changed since it was recorded, missing, or unknown "
                                               "to the index) and list them in the report. Without it such "
                                               "games stop the command with exit 1."),
    claims_reader: ClaimsReaderKind = typer.Option(
        ClaimsReaderKind.regex, "--claims-reader",
        help="Who reads the speeches for the claim metrics: regex (the rule-based reader, offline, the default) or "
             "model (a model with a fixed prompt; needs --claims-model). The report names the reader."),
    claims_model: Optional[str] = typer.Option(
        None, "--claims-model",
        help="KIND:MODEL of the model reader (openai:gpt-4.1-mini, anthropic:MODEL, local:MODEL@URL, langchain:...)."),
    include_forks: bool = typer.Option(False, "--include-forks",
                                       help="Count forked games (arena fork) as ordinary games in the ratings, win "
                                            "rates and metrics. By default they share their parent's prefix, so they "
                                            "are only compared with their parents (the Forks section)."),
) -> None:
    """Score tournaments: ratings with intervals, deduction, deception, persuasion, role skill, reliability.

    Every metric and its chance baseline is defined in docs/metrics.md.
    """
    from arena.evaluate.load import find_transcripts
    from arena.evaluate.ratings import RatingConfig
    from arena.evaluate.report import render, score
    from arena.tournament import unverified_transcripts
    from arena.transcript import TranscriptError

    # Tournament folders are checked first, as `arena verify` checks them: a changed game is not rated unnoticed.
    unverified = unverified_transcripts(find_transcripts(paths))
    if unverified and not allow_unverified:
        for problem in unverified[:20]:
            typer.secho(problem, err=True, fg=typer.colors.RED)
        more = f" (and {len(unverified) - 20} more)" if len(unverified) > 20 else ""
        typer.secho(f"error: {len(unverified)} game(s) fail `arena verify`{more}; nothing scored. Restore them, "
                    "or score them anyway with --allow-unverified (they are then listed in the report)",
                    err=True, fg=typer.colors.RED)
        raise typer.Exit(1)
    reader = None
    if claims_reader is ClaimsReaderKind.model:
        from agents.providers import ProviderConfigError
        from agents.claims_reading import reader_from_spec

        if not claims_model:
            raise ProviderConfigError("--claims-reader model needs --claims-model KIND:MODEL (e.g. openai:gpt-4.1-mini)")
        reader = reader_from_spec(claims_model)
    elif claims_model:
        from agents.providers import ProviderConfigError

        raise ProviderConfigError("--claims-model is only read with --claims-reader model")
    report = score(paths, rating=RatingConfig(n_resamples=resamples, seed=seed), strict=strict,
                   include_forks=include_forks, claims_reader=reader)
    if reader is not None:
        reader.close()
        typer.echo(f"claims read by {report.claims_reader}", err=True)
    report.unverified = unverified
    if report.availability.games == 0 and not report.forks_excluded:
        raise TranscriptError(_nothing_scored(paths, report))
    if out is None and fmt is ReportFormat.html:  # a page belongs in a file, as `arena view` writes one
        out = default_html_path(paths)
    text = render(report, fmt.value, base=out.parent.resolve() if out is not None else None)
    if pages and fmt is ReportFormat.html:
        from arena.evaluate.report import replay_pages

        typer.echo(f"wrote {len(replay_pages(report))} replay pages beside their transcripts", err=True)
    if out is None:
        typer.echo(text, nl=False)
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    excluded = f" ({report.forks_excluded} forked games excluded from ratings)" if report.forks_excluded else ""
    typer.echo(f"{report.availability.games} games scored{excluded} in {report.seconds.get('total', 0):.1f}s",
               err=True)
    typer.echo(f"wrote {out}")


def default_html_path(paths: List[Path]) -> Path:
    """report.html in the first folder scored (or beside the first transcript named)."""
    first = paths[0]
    return (first if first.is_dir() else first.parent) / "report.html"


def _nothing_scored(paths: List[Path], report: "Report") -> str:
    """Why no game could be scored: unreadable files, unfinished games, or no transcript at all."""
    names = ", ".join(str(p) for p in paths)
    skipped, availability = report.skipped, report.availability
    reasons = []
    if skipped:
        reasons.append(f"{len(skipped)} unreadable transcript(s), the first: {skipped[0]}")
    if availability.incomplete or availability.abandoned:
        reasons.append(f"{availability.incomplete} unfinished and {availability.abandoned} abandoned game(s) left out")
    detail = "; ".join(reasons) if reasons else "no *.jsonl transcript found"
    return f"no finished game to score in {names} ({detail})"
