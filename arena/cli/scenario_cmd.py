"""``arena scenario run FILE_OR_DIR...``: run conformance scenarios (CONFORMANCE.md)."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from arena.cli.common import friendly

scenario_app = typer.Typer(help="Rules conformance scenarios.", no_args_is_help=True)


@scenario_app.command("run")
@friendly
def run(
    paths: list[Path] = typer.Argument(..., help="Scenario files or folders of them."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per scenario."),
) -> None:
    """Run scenarios: PASS/FAIL per scenario; exit 0 only when all pass, 2 when a file cannot be read as
    data (not UTF-8, bad YAML/JSON, nested too deep), else 1 when one fails."""
    from arena.scenario import collect, run_file

    files = collect(list(paths))
    if not files:
        typer.secho("error: no scenario files found", err=True, fg=typer.colors.RED)
        raise typer.Exit(2)
    failed = bad_files = 0
    for path in files:
        outcome = run_file(path)
        failed += not outcome.passed
        bad_files += outcome.bad_file
        if as_json:
            typer.echo(json.dumps({"name": outcome.name, "passed": outcome.passed, "expected": outcome.expected,
                                   "actual": outcome.actual, "error": outcome.error}, ensure_ascii=False))
        else:
            typer.echo(f"PASS {outcome.name}" if outcome.passed else f"FAIL {outcome.name}: {outcome.error}")
    if not as_json:
        typer.echo(f"{len(files) - failed} passed, {failed} failed")
    raise typer.Exit(2 if bad_files else 1 if failed else 0)
