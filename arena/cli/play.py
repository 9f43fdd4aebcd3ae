"""``arena play``: one full game, narrated in the terminal, with its transcript written to disk."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any, Optional

import typer

from arena.cli.common import friendly
from arena.untrusted import printable

DEFAULT_PRESET = "std-12-guard"


def transcript_path(out: Path, preset: str, seed: int) -> Path:
    """A fresh file name: never overwrite an earlier game's transcript."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{preset}-seed{seed}.jsonl"
    i = 2
    while path.exists():
        path = out / f"{preset}-seed{seed}-{i}.jsonl"
        i += 1
    return path


@friendly
def play_command(
    preset: str = typer.Option(DEFAULT_PRESET, "--preset", "-p", help="Board preset id (see `arena presets`)."),
    players: int = typer.Option(None, "--players", "-n", help="Player count, for a board made for a range of "
                                                                "counts (classic-millers: 8-18)."),
    seed: int = typer.Option(None, "--seed", "-s", help="Game seed; the same seed and answers give the same game. "
                                                          "Default: a random seed, printed."),
    agents: str = typer.Option(None, "--agents", "-a",
                               help="One agent spec for every seat, or a comma-separated list, one per seat: "
                                    "bot:heuristic, bot:random, human, openai:MODEL, anthropic:MODEL, ..."),
    lang: str = typer.Option("en", "--lang", "-l", help="Language of narration and prompts: en or zh."),
    out: Path = typer.Option(Path("transcripts"), "--out", "-o", help="Folder for the transcript."),
    rule: list[str] = typer.Option([], "--rule", "-r", help="Override a switch, e.g. -r sheriff=false (repeatable)."),
    human: int = typer.Option(None, "--human", help="Take this seat yourself in the terminal."),
    watch: bool = typer.Option(False, "--watch", help="Live table view in the terminal (rich)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print only the result line."),
    god_view: bool = typer.Option(True, "--god-view/--public-view",
                                  help="Narrate night actions too (spectator), or only public events."),
    timeout: list[str] = typer.Option([], "--timeout", help="Seconds one model call may take: SECONDS for every "
                                      "model seat, or SEAT=SECONDS for one (repeatable)."),
    retries: list[str] = typer.Option([], "--retries", help="Retries of a failed model call: N for every model "
                                      "seat, or SEAT=N (repeatable)."),
    decision_deadline: list[str] = typer.Option([], "--decision-deadline", help="Seconds one whole decision of a "
                                                "model seat may take (calls, retries, re-asks): S or SEAT=S."),
    beliefs: Optional[str] = typer.Option(None, "--beliefs", help="Belief elicitation of every model seat: off, "
                                          "votes (with each exile vote, the default), day_end (once after each "
                                          "day's discussion) or every_speech (a short update after each speech)."),
    option: list[str] = typer.Option([], "--option", help="A seat option KEY=VALUE for every model seat, or "
                                     "SEAT:KEY=VALUE for one (repeatable; values are YAML scalars), e.g. "
                                     "--option memory=summary --option max_tokens=300; see docs/llm.md."),
    game_deadline: Optional[float] = typer.Option(None, "--game-deadline", min=1,
                                                  help="Seconds the whole game may take before it is abandoned "
                                                       "(default: 4 hours with model seats, none with a human)."),
) -> None:
    """Play one game of Werewolf with bots, models or yourself at the table.

    With no options: a 12-player std-12-guard game of bot:heuristic seats, narrated here, its
    transcript written under transcripts/.
    """
    from agents.registry import make_operator_agent, parse_agents_option
    from arena.config import board_id, resolve_rules
    from arena.engine import GameSetup
    from arena.narration import Narrator, templates
    from arena.referee import run_game
    from arena.stopping import GameStopped
    from arena.transcript import TranscriptWriter

    templates(lang)  # fail fast on an unknown language
    overrides = parse_rule_overrides(rule)
    preset = board_id(preset, players)  # classic-millers with --players 10 is the board classic-millers-10
    rules = resolve_rules(preset, overrides)
    if seed is None:
        seed = random.SystemRandom().randrange(1, 10**9)
    players = rules.players
    specs = parse_agents_option(agents, players)
    if human is not None:
        if not 1 <= human <= players:
            raise typer.BadParameter(f"--human must be a seat from 1 to {players}, got {human}")
        specs[human - 1] = "human"
    human_seats = [i + 1 for i, s in enumerate(specs) if s == "human"]
    seat_options = per_seat_options(players, specs, timeout=timeout, max_retries=retries,
                                    decision_deadline=decision_deadline)
    if beliefs is not None:
        from arena.rules.beliefs import check_mode

        try:
            mode = check_mode(beliefs)
        except ValueError as exc:
            raise typer.BadParameter(str(exc), param_hint="--beliefs") from None
        for i, spec in enumerate(specs):
            if is_model_spec(spec):
                seat_options[i]["beliefs"] = mode
    for seat, key, value in parse_seat_options(option, specs):
        for i in range(players) if seat is None else [seat - 1]:
            if is_model_spec(specs[i]):
                seat_options[i][key] = value
    seat_agents = [make_operator_agent(spec, seat=i + 1, seed=seed, **{"lang": lang, **seat_options[i]})
                   for i, spec in enumerate(specs)]
    if game_deadline is None and not human_seats and any(is_model_spec(s) for s in specs):
        game_deadline = DEFAULT_GAME_DEADLINE
    setup = GameSetup(preset=preset, seed=seed, rules=overrides)
    path = transcript_path(out, preset, seed)
    # A human player sees only his seat; a spectator may see everything.
    narrator = Narrator(lang, god_view=god_view and not human_seats, seat=human_seats[0] if human_seats else None,
                        says_view=True)
    on_event = None
    live = None
    if watch:
        from arena.live import LiveView  # issue: live terminal view

        # a player watches from his seat and cannot switch to the god view; a spectator can
        live = LiveView(lang=lang, god_view=god_view and not human_seats, players=players,
                        seat=human_seats[0] if human_seats else None, allow_toggle=not human_seats)
        on_event = live.on_event
    elif human_seats:
        # Each human player follows the table from his seat as it happens, to the end, alive or dead.
        watchers = [seat_agents[s - 1].watch for s in human_seats]
        for s in human_seats:  # the role card at the reveal names the board's rules
            seat_agents[s - 1].switches = rules.switches.model_dump(mode="json")

        def on_event(event: Any) -> None:
            for watch in watchers:
                watch(event)
    elif not quiet:
        def on_event(event: Any) -> None:
            text = narrator.line(event)
            if text:
                typer.echo(printable(text))
    with TranscriptWriter(path) as writer:
        try:
            result = asyncio.run(run_game(setup, seat_agents, writer=writer, specs=specs, lang=lang,
                                          on_event=on_event, deadline=game_deadline))
        except GameStopped as exc:
            typer.secho(f"error: {exc}; game abandoned (not rated), transcript so far: {path}", err=True,
                        fg=typer.colors.RED)
            raise typer.Exit(1) from None
        except KeyboardInterrupt:
            typer.echo(f"\nGame abandoned; transcript so far: {path}", err=True)
            raise typer.Exit(130) from None
        finally:
            if live is not None:
                live.close()
    if not quiet:  # the game is over: every card is shown, to a human player too
        typer.echo(narrator.roles_line({s: p.card.value for s, p in result.game.state.players.items()}))
    typer.echo(narrator.t["result_line"].format(winner_id=result.winner, reason=narrator.reason(result.reason),
                                                winner=narrator.t["winner"].get(result.winner, result.winner),
                                                seed=seed, path=path))


DEFAULT_GAME_DEADLINE = 4 * 3600.0
MODEL_PREFIXES = ("openai:", "anthropic:", "langchain:", "local:", "mock:")


def is_model_spec(spec: str) -> bool:
    return spec.startswith(MODEL_PREFIXES)


def per_seat_options(players: int, specs: list[str], **flags: list[str]) -> list[dict[str, Any]]:
    """Options for each seat from flags given as ``VALUE`` (every model seat) or ``SEAT=VALUE``.
    Bots and humans take none of them: a flag naming such a seat is an error."""
    from arena.config import ConfigError

    options: list[dict[str, Any]] = [{} for _ in range(players)]
    for name, items in flags.items():
        flag = "--" + {"max_retries": "retries"}.get(name, name).replace("_", "-")
        for item in items:
            seat_text, eq, value_text = item.rpartition("=")
            try:
                value: float = (int if name == "max_retries" else float)(value_text)
            except ValueError:
                raise ConfigError(f"{flag} expects {'N' if name == 'max_retries' else 'SECONDS'} or SEAT=..., "
                                  f"got {item!r}") from None
            if value < 0 or (value == 0 and name != "max_retries"):
                raise ConfigError(f"{flag} {item}: the value must be {'>= 0' if name == 'max_retries' else '> 0'}")
            if eq:
                if not seat_text.isdigit() or not 1 <= int(seat_text) <= players:
                    raise ConfigError(f"{flag} {item}: the seat must be a number from 1 to {players}")
                seat = int(seat_text)
                if not is_model_spec(specs[seat - 1]):
                    raise ConfigError(f"{flag} {item}: seat {seat} is {specs[seat - 1]}, not a model seat")
                options[seat - 1][name] = value
            else:
                for i, spec in enumerate(specs):
                    if is_model_spec(spec):
                        options[i].setdefault(name, value)
    return options


def parse_seat_options(items: list[str], specs: list[str]) -> list[tuple[int | None, str, Any]]:
    """``--option KEY=VALUE`` (every model seat) or ``SEAT:KEY=VALUE`` (one seat) as (seat or None,
    key, value), values read as YAML scalars. Whether the key and value suit the seat is for the
    agent's factory to say (an unknown key is named with the known ones)."""
    import yaml

    from arena.config import ConfigError
    from arena.user_yaml import load_user_yaml

    if items and not any(is_model_spec(s) for s in specs):
        raise ConfigError("--option sets options of model seats, and no seat at this table is a model "
                          f"({', '.join(sorted(set(specs)))})")
    out: list[tuple[int | None, str, Any]] = []
    for item in items:
        target, eq, raw = item.partition("=")
        seat_text, colon, key = target.rpartition(":")
        key = key.strip()
        if not eq or not key:
            raise ConfigError(f"--option expects KEY=VALUE or SEAT:KEY=VALUE, got {item!r}")
        seat: int | None = None
        if colon:
            if not seat_text.strip().isdigit() or not 1 <= int(seat_text) <= len(specs):
                raise ConfigError(f"--option {item}: the seat must be a number from 1 to {len(specs)}")
            seat = int(seat_text)
            if not is_model_spec(specs[seat - 1]):
                raise ConfigError(f"--option {item}: seat {seat} is {specs[seat - 1]}, not a model seat")
        try:
            value = load_user_yaml(raw.strip()) if raw.strip() else raw
        except yaml.YAMLError as exc:
            raise ConfigError(f"--option {key}: not a YAML value ({exc})") from None
        out.append((seat, key, value))
    return out


def parse_rule_overrides(items: list[str]) -> dict[str, Any]:
    """``name=value`` pairs; values are read as YAML scalars (true, 1.5, pk_once)."""
    import yaml

    from arena.config import ConfigError
    from arena.user_yaml import load_user_yaml

    out: dict[str, Any] = {}
    for item in items:
        name, eq, raw = item.partition("=")
        if not eq or not name.strip():
            raise ConfigError(f"--rule expects name=value, got {item!r}")
        try:
            out[name.strip()] = load_user_yaml(raw.strip()) if raw.strip() else raw
        except yaml.YAMLError as exc:
            raise ConfigError(f"--rule {name.strip()}: not a YAML value ({exc})") from None
    return out


if __name__ == "__main__":  # pragma: no cover
    typer.run(play_command)
