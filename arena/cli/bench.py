"""``arena bench``: run a versioned suite for one agent, compare entries, and the A/A self-test."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import List, Optional

import typer

from arena.cli.common import friendly

bench_app = typer.Typer(help="Benchmark suites (configs/bench/): one command to a comparable leaderboard entry.",
                        no_args_is_help=True)


def _options(pairs: List[str]) -> dict:
    """``k=v`` pairs to agent options (YAML scalars: 0.7, true, text)."""
    import yaml

    from arena.user_yaml import load_user_yaml

    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise typer.BadParameter(f"--option {pair!r}: expected key=value")
        try:
            out[key] = load_user_yaml(value)  # no aliases, nesting bounded
        except yaml.YAMLError as exc:
            raise typer.BadParameter(f"--option {pair[:80]!r}: not a YAML value ({getattr(exc, 'problem', None) or exc})")
    return out


@bench_app.command("run")
@friendly
def run_command(
    suite: str = typer.Argument("werewolf-bench", help="Suite YAML, or the name of one in configs/bench/."),
    agent: str = typer.Option(..., "--agent", "-a", help="Agent spec to benchmark, e.g. openai:gpt-4o-mini."),
    label: Optional[str] = typer.Option(None, "--label", help="Name of the entry (default: the spec)."),
    option: List[str] = typer.Option([], "--option", help="Agent option key=value (repeatable)."),
    out: Optional[Path] = typer.Option(None, "--out", "-o",
                                       help="Folder for the games and the entry (default bench/<suite>-<version>/<label>)."),
    deals: Optional[int] = typer.Option(None, "--deals", help="Play fewer deals per board than the suite (a reduced run, "
                                                               "marked as such in the entry)."),
    concurrency: Optional[int] = typer.Option(None, "--concurrency", "-j", help="Games at once."),
    executor: str = typer.Option("async", "--executor", help="async (LLM seats) or process (CPU-bound bots)."),
    plugin: List[str] = typer.Option([], "--plugin", help="Import this module first (repeatable): a module that calls "
                                                          "agents.registry.register(prefix, factory) for a Python policy."),
) -> None:
    """Play the suite for an agent (resumable: run it again to finish) and write entry.json and entry.md."""
    from agents.registry import load_plugin_modules
    from arena.bench import BenchError, entry_json, entry_markdown, run_bench

    if executor not in ("async", "process"):
        raise BenchError(f"--executor {executor!r}: use async or process")
    load_plugin_modules(plugin)
    entry = asyncio.run(run_bench(suite, agent, label=label, out=out, deals=deals, options=_options(option),
                                  concurrency=concurrency, executor=executor))  # type: ignore[arg-type]
    folder = Path(out) if out else Path("bench") / f"{entry.card.suite}-{entry.card.suite_version}" / _folder(entry.label)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "entry.json").write_text(entry_json(entry), encoding="utf-8")
    md = entry_markdown(entry)
    (folder / "entry.md").write_text(md, encoding="utf-8")
    typer.echo(md, nl=False)
    typer.echo(f"wrote {folder / 'entry.json'} and {folder / 'entry.md'}", err=True)


def _folder(label: str) -> str:
    from arena.bench import _safe

    return _safe(label)


@bench_app.command("compare")
@friendly
def compare_command(
    entries: List[Path] = typer.Argument(..., help="entry.json files written by `arena bench run`."),
    plot: Optional[Path] = typer.Option(None, "--plot", help="Also write the gaps to the reference as a PNG plot here."),
    allow_mixed: bool = typer.Option(False, "--allow-mixed", help="Show entries of different suite versions, rules or "
                                                                  "reference bots, each group apart (never ranked together)."),
) -> None:
    """Tiers of entries not separated from each other (deal-paired tests, Holm), every pair's difference, and a plot."""
    from arena.bench import compare_markdown, compare_plot, load_entry

    loaded = [load_entry(p) for p in entries]
    typer.echo(compare_markdown(loaded, allow_mixed=allow_mixed), nl=False)
    if plot is not None:
        typer.echo(f"wrote {compare_plot(loaded, plot, allow_mixed=allow_mixed)}", err=True)


@bench_app.command("selftest")
@friendly
def selftest_command(
    agent: str = typer.Option("bot:heuristic", "--agent", "-a", help="The agent to test against itself."),
    replicates: int = typer.Option(20, "--replicates", "-r", help="Independent A/A tournaments."),
    deals: Optional[int] = typer.Option(None, "--deals", help="Deals per replicate (each deal is played twice, mixed "
                                                               "seating; default 10); with --trivial, deals per board "
                                                               "(default: the suite's)."),
    board: List[str] = typer.Option(["std-12-guard"], "--board", help="Board preset (repeatable)."),
    seed: int = typer.Option(0, "--seed", help="Base seed; replicate r uses its own seeds from it."),
    resamples: int = typer.Option(300, "--resamples", help="Bootstrap resamples per replicate."),
    out: Path = typer.Option(Path("bench/selftest"), "--out", "-o", help="Folder for the replicates' games."),
    executor: str = typer.Option("async", "--executor", help="async or process."),
    trivial: bool = typer.Option(False, "--trivial", help="Instead of the A/A test: the trivial-policy gate. Each "
                                                          "trivial talker (bot:silent, bot:claim-seer, "
                                                          "bot:random-speech, bot:copycat) plays the suite; none may "
                                                          "rank above the reference or be rewarded by a headline metric."),
    suite: str = typer.Option("werewolf-bench", "--suite", help="The suite the gate plays (with --trivial)."),
) -> None:
    """A/A: one agent under two labels with independent seeds; count replicates the leaderboard separates.
    With --trivial: the trivial-policy gate (exit 1 when it fails)."""
    from arena.bench import BenchError, gate_markdown, selftest, trivial_gate

    if trivial:
        if executor not in ("async", "process"):
            raise BenchError(f"--executor {executor!r}: use async or process")
        if deals is not None and deals < 1:
            raise BenchError("--deals must be at least 1")
        gate = trivial_gate(suite, deals=deals, out=out if out != Path("bench/selftest") else Path("bench/gate"),
                            executor=executor)  # type: ignore[arg-type]
        typer.echo(gate_markdown(gate), nl=False)
        if not gate.passed:
            raise typer.Exit(1)
        return

    r = selftest(agent, replicates=replicates, deals=10 if deals is None else deals, boards=board, seed=seed, resamples=resamples, out=out,
                 executor=executor)  # type: ignore[arg-type]
    typer.echo(f"A/A self-test of {r.agent}: {r.replicates} replicates of {r.games_per_replicate} games")
    typer.echo(f"false separations: {r.false_separations}/{r.replicates} = {r.rate:.3f} "
               f"[{r.rate_low:.3f}, {r.rate_high:.3f}] (nominal {r.nominal:.2f}, Holm-corrected ranks)")
    if r.saturated_replicates:
        typer.echo(f"warning: {r.saturated_replicates} replicate(s) had a saturated design (an entry won all or none "
                   "of its games): add deals")
    verdict = "consistent with" if r.rate_low <= r.nominal else "ABOVE"
    typer.echo(f"the false-separation rate is {verdict} the nominal rate")
    if r.rate_low > r.nominal:
        raise typer.Exit(1)


@bench_app.command("schema")
def schema_command() -> None:
    """Print the JSON Schema of a leaderboard entry (entry.json)."""
    from arena.bench import entry_schema

    typer.echo(entry_schema(), nl=False)
