"""``arena fork TRANSCRIPT --at DECISION [--agents SPEC] [--seed N]``: a counterfactual continuation."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Callable, Optional

import typer

from arena.cli.common import friendly


@friendly
def fork_command(
    transcript: Path = typer.Argument(..., help="The parent transcript (.jsonl)."),
    at: int = typer.Option(..., "--at", help="Decision id to play on from: decisions before it replay the parent's answers."),
    agents: Optional[str] = typer.Option(None, "--agents", "-a",
                                         help="From the fork point: one spec for every seat, or one per seat "
                                              "(comma-separated). Default: the parent's agents."),
    seed: Optional[int] = typer.Option(None, "--seed", "-s",
                                       help="Seed for the new agents (the game's own seed, and so the deal, stay)."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Folder or .jsonl path (default: next to the parent)."),
) -> None:
    """Replay a game up to a decision, then play on with other agents; the new transcript names its parent."""
    from agents.registry import make_agent, make_operator_agent, parse_agents_option
    from arena.fork import fork_game
    from arena.transcript import read_transcript

    specs = None
    factory: Callable[..., Any] = make_agent  # the parent's specs come from a file: untrusted (no class path is built from one)
    if agents:
        players = len(read_transcript(transcript).header.agents)
        specs = parse_agents_option(agents, players)
        factory = make_operator_agent  # the operator's own --agents
    result = asyncio.run(fork_game(transcript, at, factory, specs=specs, agent_seed=seed, out=out))
    typer.echo(f"fork of {result.parent} at decision {result.at_decision}: {result.winner} wins "
               f"(parent: {result.parent_winner}) -> {result.path}")
