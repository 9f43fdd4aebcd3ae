"""Tournaments: a YAML config, a balanced deterministic schedule, concurrent games, an index that
makes ``--resume`` exact, deterministic shards and a merge.

Layout of an output folder::

    OUT/tournament.json   the config and the schedule's fingerprint (resume refuses a changed config)
    OUT/index.jsonl       one line per state change of a game: scheduled, started, done, failed
    OUT/games/ID.jsonl    one transcript per finished game
    OUT/games/ID.jsonl.part  a game being played (renamed when complete, deleted by --resume)

A transcript is written under ``.part`` and renamed only after its result line, so a finished file
is always complete; whatever a crash leaves behind is a ``.part`` that resume discards and replays.

Schedules (``seating``):

* ``sides``: for every deal and every ordered pair (X, Y) of roster entries, X holds every good seat
  and Y every wolf seat; the pair (Y, X) on the same seed and deal is its mirror. Paired comparisons
  on identical deals; every entry plays every role exactly as often as the deck deals it.
* ``mixed``: blocks of k games per deal (k = roster size); in game j of a block seat s plays for entry
  (s - 1 + j) mod k, so across a block every seat, and so every card of that deal, is played once by
  every entry (k = 2: the mirror swaps every seat).
* ``self``: every entry fills the whole table alone, on every deal (the board's own side balance).

Executors (:mod:`arena.executors`, one protocol): ``async`` (games as coroutines in this process),
``process`` (a worker process per concurrent game), ``ray`` (a Ray task per game,
:mod:`arena.ray_executor`, imported only then: the task returns the transcript's text and this
process stores it, so index and resume are the same for all three). ``watch`` plays one chosen game
in this process, in a thread, feeding a live view.

``rate_limits`` names each provider account's allowance once (requests and tokens per minute); every
game of the run, whichever executor plays it, shares it (:mod:`arena.ratelimit`).

This module never imports ``agents``: the caller passes an agent factory (``agents.registry:make_operator_agent``
from the CLI), named by import path so that worker processes can rebuild it.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Literal, Sequence

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from arena.config import ConfigError
from arena.credentials import credential_problems, scrub
from arena.durable import FolderBusy, FolderLock, cut_torn_tail, write_atomic
from arena.executors import (
    AsyncExecutor,
    Executor,
    ExecutorChoice,
    GameJob,
    GameOutcome,
    ProcessExecutor,
    ScheduledGame,
    TournamentError,
    limits_for,
    play_scheduled,
    resolve_factory,
    store_transcript,
    transcript_path,
)
from arena.ratelimit import RateLimit
from arena.stopping import GameStopped, SeatUnreachable
from arena.user_yaml import UserFileError, load_user_file, load_user_json

__all__ = ["TournamentError", "TournamentConfig", "RunOptions", "run_tournament", "store_transcript", "Executor"]

# A tournament config is the operator's own file: its specs are trusted (a langchain class path may be built).
DEFAULT_FACTORY = "agents.registry:make_operator_agent"


# --- config -------------------------------------------------------------------------------------


class RosterEntry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    label: str = Field(min_length=1)
    agent: str = Field(min_length=1, description="agent spec, e.g. bot:heuristic or openai:gpt-4o-mini")
    options: dict[str, Any] = Field(default_factory=dict, description="passed to the agent factory")

    @field_validator("options")
    @classmethod
    def _no_credentials(cls, options: dict[str, Any]) -> dict[str, Any]:
        # Options are persisted (tournament.json, transcript headers): a key here would be on disk.
        problems = credential_problems(options)
        if problems:
            raise ValueError(f"credentials are not accepted in options ({', '.join(problems)}): keys come only "
                             "from OPENAI_API_KEY / ANTHROPIC_API_KEY or the keys file")
        return options

    @field_validator("agent")
    @classmethod
    def _no_credentials_in_spec(cls, agent: str) -> str:
        if credential_problems(agent):
            raise ValueError("the agent spec holds a URL with a user name, password or key in it; keys come only from "
                             "OPENAI_API_KEY / ANTHROPIC_API_KEY or the keys file")
        return agent


class BoardEntry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    preset: str
    rules: dict[str, Any] = Field(default_factory=dict, description="switch overrides on top of the preset")
    players: int | None = Field(default=None, description="player count of a board made for a range of counts "
                                                          "(classic-millers: 8-18)")

    @model_validator(mode="before")
    @classmethod
    def _concrete_board(cls, data: Any) -> Any:
        """A parametric board (``classic-millers`` with ``players: 10``) is played as its concrete board
        (``classic-millers-10``), which names one deck in every transcript and report."""
        from arena.config import board_id, parametric_boards

        if not isinstance(data, dict) or not isinstance(data.get("preset"), str):
            return data
        players = data.get("players")
        if (players is not None and isinstance(players, int)) or data["preset"] in parametric_boards():
            try:
                return {**data, "preset": board_id(data["preset"], players)}
            except ConfigError as exc:
                raise ValueError(str(exc)) from None
        return data


class TournamentConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = "tournament"
    roster: list[RosterEntry] = Field(min_length=1)
    boards: list[BoardEntry] = Field(min_length=1)
    deals: int = Field(10, ge=1, description="seeds per board; each deal is played by a whole block of games")
    seed: int = 0
    seating: Literal["sides", "mixed", "self"] = "sides"
    include_self_play: bool = Field(False, description="add self-play games (seating 'self') on every deal")
    lang: str = "en"
    out: str = "tournaments/out"
    concurrency: int = Field(4, ge=1)
    rate_limits: dict[str, RateLimit] = Field(default_factory=dict, description=(
        "per provider account (a provider's name, or a seat's `account` option): requests_per_minute, "
        "tokens_per_minute; shared by every game of the run on every executor"))
    game_deadline: float | None = Field(14400.0, gt=0, description=(
        "seconds one game may take in all; past it the game is abandoned (None: no limit)"))
    max_fallback_share: float | None = Field(0.25, ge=0, le=1, description=(
        "a finished game where some seat's model answers fell back to the default more often than this "
        "is flagged in the index and the summary (None: never flag)"))

    @field_validator("roster")
    @classmethod
    def _unique_labels(cls, roster: list[RosterEntry]) -> list[RosterEntry]:
        labels = [r.label for r in roster]
        dupes = sorted({x for x in labels if labels.count(x) > 1})
        if dupes:
            raise ValueError(f"roster labels must be unique; repeated: {', '.join(dupes)}")
        return roster


def load_config(path: str | Path, **overrides: Any) -> TournamentConfig:
    path = Path(path)
    try:
        raw = load_user_file(path, as_json=False) or {}
    except OSError as exc:
        raise TournamentError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except UserFileError as exc:
        raise TournamentError(str(exc)) from None
    if not isinstance(raw, dict):
        raise TournamentError(f"{path}: expected a mapping at the top level")
    raw.update({k: v for k, v in overrides.items() if v is not None})
    try:
        return TournamentConfig(**raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err.get("loc", ()))
        raise TournamentError(f"{path}: {where}: {err.get('msg')}") from None


# --- schedule -----------------------------------------------------------------------------------


def _deal_of(preset: str, rules: dict[str, Any], seed: int, game_index: int) -> list[str]:
    """The cards the engine deals for this seed (the engine is pure: building a game plays nothing)."""
    from arena.engine import Game, GameSetup

    game = Game(GameSetup(preset=preset, seed=seed, rules=dict(rules), game_index=game_index))
    return [game.state.players[s].card.value for s in sorted(game.state.players)]


def build_schedule(cfg: TournamentConfig) -> list[ScheduledGame]:
    """The whole schedule, deterministic in the config (shards and resume depend on that)."""
    from arena.types import is_wolf_card

    roster = list(cfg.roster)
    games: list[ScheduledGame] = []

    def add(board: BoardEntry, b: int, d: int, seed: int, deal: list[str], entries: list[RosterEntry], variant: str):
        games.append(ScheduledGame(
            index=len(games), game_id=f"{cfg.name}-b{b}-d{d:04d}-{variant}", preset=board.preset,
            rules=dict(board.rules), seed=seed, game_index=d, deal=deal, specs=[e.agent for e in entries],
            labels=[e.label for e in entries], options=[dict(e.options) for e in entries],
            group=f"{cfg.name}-b{b}-d{d:04d}", variant=variant, deadline=cfg.game_deadline))

    for b, board in enumerate(cfg.boards):
        for d in range(cfg.deals):
            seed = cfg.seed + d
            deal = _deal_of(board.preset, board.rules, seed, d)
            n = len(deal)
            if cfg.seating == "sides" and len(roster) > 1:
                for x in roster:
                    for y in roster:
                        if x.label == y.label:
                            continue
                        entries = [y if is_wolf_card(card) else x for card in deal]
                        add(board, b, d, seed, deal, entries, f"{x.label}-v-{y.label}")
            elif cfg.seating == "mixed" and len(roster) > 1:
                k = len(roster)
                for j in range(k):
                    entries = [roster[(s + j) % k] for s in range(n)]
                    add(board, b, d, seed, deal, entries, f"rot{j}")
            if cfg.seating == "self" or cfg.include_self_play or len(roster) == 1:
                for x in roster:
                    add(board, b, d, seed, deal, [x] * n, f"self-{x.label}")
    return games


def first_kill_series(schedule: Sequence[ScheduledGame]) -> dict[str, list[str]]:
    """For each game of a board played under ``first_kill_protection`` (004 §C-conduct 5), the ids of the
    earlier games of its series, oldest first: the same board and seating variant on the deals before it (a
    player is the occupant of a seat, the same from deal to deal)."""
    from arena.config import resolve_rules

    series: dict[tuple[str, str], list[ScheduledGame]] = {}
    for game in schedule:
        if resolve_rules(game.preset, dict(game.rules)).switches.first_kill_protection:
            series.setdefault((game.group.rsplit("-d", 1)[0], game.variant), []).append(game)
    out: dict[str, list[str]] = {}
    for games in series.values():
        games.sort(key=lambda g: g.game_index)
        for i, game in enumerate(games):
            out[game.game_id] = [g.game_id for g in games[max(0, i - 2):i]]
    return out


def with_first_kill_protection(game: ScheduledGame, out: Path, earlier_ids: Sequence[str]) -> ScheduledGame:
    """The game with the seats its series' earlier (finished) games protect from the night-1 knife."""
    from arena.rules.first_kill import earlier_game_of, protected_seats
    from arena.transcript import read_transcript

    earlier = []
    for game_id in earlier_ids:
        path = transcript_path(out, game_id)
        if not path.exists():  # that game failed: the series goes on as if it had not been played
            continue
        earlier.append(earlier_game_of(line.event for line in read_transcript(path).events))
    return game.model_copy(update={"first_kill_protected": protected_seats(len(game.specs), earlier)})


def find_game(schedule: Sequence[ScheduledGame], game_id: str) -> ScheduledGame:
    """The scheduled game with this id; the error names a few real ids."""
    for game in schedule:
        if game.game_id == game_id:
            return game
    examples = ", ".join(g.game_id for g in schedule[:3])
    raise TournamentError(f"no game {game_id!r} in this schedule (or shard); ids look like {examples}")


def parse_shard(text: str | None) -> tuple[int, int] | None:
    """``I/N`` (1-based) -> (I, N)."""
    if not text:
        return None
    try:
        i, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise TournamentError(f"--shard must look like I/N (e.g. 2/4), got {text!r}") from None
    if not 1 <= i <= n:
        raise TournamentError(f"--shard {text}: need 1 <= I <= N")
    return i, n


def shard_of(schedule: Sequence[ScheduledGame], shard: tuple[int, int] | None) -> list[ScheduledGame]:
    """Deterministic split: game k goes to shard (k mod N) + 1, so shards interleave blocks evenly."""
    if shard is None:
        return list(schedule)
    i, n = shard
    return [g for g in schedule if g.index % n == i - 1]


def fingerprint(cfg: TournamentConfig, schedule: Sequence[ScheduledGame]) -> str:
    # The protected seats are worked out while the tournament runs, not part of what it schedules.
    # A deadline changes how long a game may take, never what is played: resume may change it.
    blob = json.dumps([g.model_dump(mode="json", exclude={"first_kill_protected", "deadline"}) for g in schedule],
                      sort_keys=True).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


# --- index --------------------------------------------------------------------------------------


class IndexEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    game_id: str
    status: Literal["scheduled", "started", "done", "failed", "abandoned"]
    time: float
    winner: str | None = None
    error: str | None = None
    fallback_share: float | None = Field(None, description="the largest share of one seat's model answers that fell back")
    flagged: str | None = Field(None, description="why a finished game should not be trusted (e.g. its fallback share)")
    seconds: float | None = None
    tokens: float | None = None
    cost: float | None = None
    sha256: str | None = Field(default=None, description="a done game's transcript digest (arena.transcript."
                                                          "transcript_digest), checked by --resume and arena verify")


class Index:
    """The append-only state log of every scheduled game. The last line of a game wins."""

    def __init__(self, path: Path):
        self.path = path
        self._tail_checked = False
        self.state: dict[str, IndexEntry] = {}
        self.done_count: dict[str, int] = {}
        if path.exists():
            # Bytes, not text: a line that is not UTF-8 fails validation like any damaged line.
            for number, raw in enumerate(path.read_bytes().splitlines(), start=1):
                if not raw.strip():
                    continue
                try:
                    entry = IndexEntry.model_validate_json(raw)
                except ValidationError:
                    continue  # a line torn by a kill: the state it meant to record is redone
                self.state[entry.game_id] = entry
                if entry.status == "done":
                    self.done_count[entry.game_id] = self.done_count.get(entry.game_id, 0) + 1

    def write(self, entry: IndexEntry) -> None:
        if not self._tail_checked:
            # A kill mid-append leaves a line without its newline; appending to it would glue the
            # next entry onto the torn one and lose both. The torn state is redone anyway.
            cut_torn_tail(self.path)
            self._tail_checked = True
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(entry.model_dump_json(exclude_none=True) + "\n")
            fh.flush()  # survives a killed process; no fsync: a power cut only costs a replayed game
        self.state[entry.game_id] = entry
        if entry.status == "done":
            self.done_count[entry.game_id] = self.done_count.get(entry.game_id, 0) + 1


def fallback_share(path: Path) -> float | None:
    """The largest share, over the seats, of a seat's model answers that fell back to the default
    (a decision line with usage is one that went to a model); None when no seat asked a model."""
    try:
        blob = path.read_bytes()
    except OSError:
        return None
    from arena.transcript import decision_usages

    asked: dict[int, int] = {}
    fell_back: dict[int, int] = {}
    for line in decision_usages(blob):
        seat: int = line["seat"]
        asked[seat] = asked.get(seat, 0) + 1
        if line.get("defaulted"):
            fell_back[seat] = fell_back.get(seat, 0) + 1
    if not asked:
        return None
    return round(max(fell_back.get(seat, 0) / n for seat, n in asked.items()), 4)


def transcript_complete(path: Path, digest: str | None = None) -> tuple[bool, str | None]:
    """(complete and not abandoned, winner) for a transcript on disk. With the ``digest`` the index
    recorded, a file that differs from it is not complete; without one, every line is validated
    (the fast reader skips lines it does not need, so it would miss a damaged one)."""
    from arena.evaluate.load import load_game
    from arena.transcript import TranscriptError, read_bounded, read_transcript, transcript_digest

    try:
        if digest is not None:
            if transcript_digest(read_bounded(path)) != digest:
                return False, None
            game = load_game(path, event_types=frozenset(), full_decision_kinds=frozenset())
            result = game.result
        else:
            full = read_transcript(path)
            result = full.result.model_dump() if full.result is not None else None
    except TranscriptError:
        return False, None
    if result is None or result.get("abandoned"):
        return False, None
    return True, str(result.get("winner"))


def file_digest(path: Path) -> str:
    from arena.transcript import read_bounded, transcript_digest

    return transcript_digest(read_bounded(path))


# --- playing ------------------------------------------------------------------------------------


class WatchStopped(Exception):
    """The watched game was stopped because the tournament around it was interrupted."""


def _play_watched(game: ScheduledGame, out: Path, factory_path: str, lang: str, on_event: Callable[[Any], None],
                  stop: Any) -> GameOutcome:
    """The watched game, in a thread of this process with its own event loop: the live view paces it
    with sleeps, which must hold up neither the other games nor the driver's bookkeeping."""

    def guarded(event: Any) -> None:
        if stop.is_set():  # the tournament was interrupted: stop drawing and give the thread back
            raise WatchStopped(game.game_id)
        on_event(event)

    return asyncio.run(play_scheduled(game, out, resolve_factory(factory_path), lang, on_event=guarded))


@dataclass
class Progress:
    total: int
    done: int = 0
    failed: int = 0
    running: int = 0
    skipped: int = 0
    abandoned: int = 0
    flagged: int = 0
    tokens: float = 0.0
    cost: float = 0.0
    started: float = field(default_factory=time.monotonic)
    played: int = 0

    def eta_seconds(self) -> float | None:
        remaining = self.total - self.done - self.skipped
        if self.played == 0 or remaining <= 0:
            return None
        return (time.monotonic() - self.started) / self.played * remaining


class TournamentResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    out: str
    scheduled: int
    played: int
    skipped: int = Field(description="already done before this run (resume)")
    failed: list[str]
    discarded_parts: int
    seconds: float
    abandoned: list[str] = Field(default_factory=list, description="games stopped before their end (not rated)")
    flagged: list[str] = Field(default_factory=list, description="finished games over the fallback-share limit")
    stopped: str | None = Field(None, description="why the tournament stopped early: the seat that cannot be reached")


def persisted_config(cfg: TournamentConfig) -> dict[str, Any]:
    """The config as ``tournament.json`` stores it: never a key option, never a URL's user info."""
    return scrub(cfg.model_dump(mode="json"))


def read_meta(folder: Path) -> dict[str, Any]:
    """``folder/tournament.json``; a missing, empty or damaged file is a :class:`TournamentError`."""
    path = Path(folder) / "tournament.json"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TournamentError(f"{folder}: not a tournament output folder (no tournament.json)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise TournamentError(f"{path}: cannot read ({getattr(exc, 'strerror', None) or exc})") from None
    try:
        meta = load_user_json(text)
    except UserFileError as exc:
        meta = exc
    if not isinstance(meta, dict) or not isinstance(meta.get("config"), dict):
        what = "empty" if not text.strip() else "damaged (not the JSON this arena writes)"
        raise TournamentError(f"{path} is {what}; it cannot be resumed: delete the folder's tournament.json "
                              "to start the schedule's bookkeeping afresh, or use another --out")
    return meta


def prepare_out(cfg: TournamentConfig, out: Path, schedule: list[ScheduledGame], resume: bool,
                shard: tuple[int, int] | None) -> Index:
    out.mkdir(parents=True, exist_ok=True)
    (out / "games").mkdir(exist_ok=True)
    meta_path = out / "tournament.json"
    meta = {"config": persisted_config(cfg), "fingerprint": fingerprint(cfg, schedule),
            "shard": list(shard) if shard else None, "games": len(schedule)}
    if meta_path.exists():
        old = read_meta(out)
        if old.get("fingerprint") != meta["fingerprint"] or old.get("shard") != meta["shard"]:
            raise TournamentError(f"{out} holds a different tournament (config, schedule or shard changed); "
                                  "use another --out or delete it")
        if not resume:
            index = Index(out / "index.jsonl")
            if any(e.status != "scheduled" for e in index.state.values()):
                raise TournamentError(f"{out} already holds games of this tournament; pass --resume to finish it")
    else:
        write_atomic(meta_path, json.dumps(meta, indent=2))
    index = Index(out / "index.jsonl")
    for game in schedule:
        if game.game_id not in index.state:
            index.write(IndexEntry(game_id=game.game_id, status="scheduled", time=time.time()))
    return index


ExecutorName = Literal["async", "process", "ray"]
EXECUTOR_NAMES: tuple[str, ...] = ("async", "process", "ray")


@dataclass(frozen=True)
class RunOptions:
    """How to run a tournament's schedule; the config says what to play. The CLI, the bench and tests
    build one, and it refuses a bad value when it is made (a :class:`TournamentError` naming each).

    ``executor``: ``async`` (coroutines in this process), ``process`` (a worker process per concurrent
    game) or ``ray`` (a Ray task per game, see :mod:`arena.ray_executor`), by name or as an
    :class:`arena.executors.ExecutorChoice` (a Ray cluster's address and CPUs per game), or any
    :class:`arena.executors.Executor` (closed when the run ends).
    ``watch``: the id of one game to play first, in this process, handing each of its events to
    ``on_watch_event`` (a live view) while the other games run on the executor as usual.
    """

    out: Path | None = None  # default: the config's ``out``
    resume: bool = False
    shard: tuple[int, int] | None = None  # (I, N), 1-based: play only shard I of N
    concurrency: int | None = None  # default: the config's (with Ray, at least the cluster's CPUs)
    executor: ExecutorName | ExecutorChoice | Executor = "async"
    factory_path: str = DEFAULT_FACTORY  # ``module:callable`` building an agent (worker processes import it)
    on_progress: Callable[[Progress], None] | None = None
    watch: str | None = None
    on_watch_event: Callable[[Any], None] | None = None

    def __post_init__(self) -> None:
        if isinstance(self.out, str):
            object.__setattr__(self, "out", Path(self.out))
        problems = [p for p in self._problems() if p]
        if problems:
            raise TournamentError("run options: " + "; ".join(problems))

    def _problems(self) -> Iterator[str]:
        if self.out is not None and not isinstance(self.out, Path):
            yield f"out must be a folder path, got {self.out!r}"
        if not isinstance(self.resume, bool):
            yield f"resume must be true or false, got {self.resume!r}"
        shard = self.shard
        if shard is not None:
            if not (isinstance(shard, tuple) and len(shard) == 2 and all(type(x) is int for x in shard)):
                yield f"shard must be a pair (I, N) of whole numbers, got {shard!r}"
            elif not 1 <= shard[0] <= shard[1]:
                yield f"shard {shard[0]}/{shard[1]}: need 1 <= I <= N"
        if self.concurrency is not None and (type(self.concurrency) is not int or self.concurrency < 1):
            yield f"concurrency must be a whole number of games >= 1, got {self.concurrency!r}"
        executor = self.executor
        name = executor if isinstance(executor, str) else executor.name if isinstance(executor, ExecutorChoice) else None
        if name is not None and name not in EXECUTOR_NAMES:
            yield f"unknown executor {name!r}; choose {', '.join(EXECUTOR_NAMES)} or pass an Executor"
        elif name is None and not all(callable(getattr(executor, m, None)) for m in ("slots", "play", "close")):
            yield (f"executor must be a name ({', '.join(EXECUTOR_NAMES)}), an ExecutorChoice or an object with "
                   f"slots(), play() and close(); got {type(executor).__name__}")
        if isinstance(executor, ExecutorChoice) and not executor.ray_task_cpus > 0:
            yield f"ray_task_cpus must be > 0, got {executor.ray_task_cpus!r}"
        module, colon, attr = self.factory_path.partition(":") if isinstance(self.factory_path, str) else ("", "", "")
        if not (module and colon and attr):
            yield f"factory_path must look like 'package.module:callable', got {self.factory_path!r}"
        if self.watch is not None and not (isinstance(self.watch, str) and self.watch):
            yield f"watch must be a game id, got {self.watch!r}"
        if self.on_watch_event is not None and self.watch is None:
            yield "on_watch_event is set but no game is watched (watch=None)"
        for hook in ("on_progress", "on_watch_event"):
            value = getattr(self, hook)
            if value is not None and not callable(value):
                yield f"{hook} must be callable, got {type(value).__name__}"


async def run_tournament(cfg: TournamentConfig, options: RunOptions | None = None) -> TournamentResult:
    """Play every unfinished game of (this shard of) the schedule, as ``options`` say (defaults: the
    config's folder and concurrency, the async executor, no resume, no shard, no watched game)."""
    opts = options if options is not None else RunOptions()
    if not isinstance(opts, RunOptions):
        raise TournamentError(f"run_tournament takes its options as RunOptions, got {type(opts).__name__}")
    t0 = time.monotonic()
    out = opts.out or Path(cfg.out)
    check_before_start(cfg, resolve_factory(opts.factory_path))
    schedule = shard_of(build_schedule(cfg), opts.shard)
    if opts.shard is not None and first_kill_series(schedule):
        raise TournamentError("a board under first_kill_protection plays its deals as one series, each game "
                              "after the one before it: it cannot be split into shards")
    if opts.watch is not None:
        find_game(schedule, opts.watch)  # fail before touching the output folder
    lock = lock_folder(out)
    runner: Executor | None = None
    try:
        job = GameJob(out=out, factory_path=opts.factory_path, lang=cfg.lang)
        executor, concurrency = opts.executor, opts.concurrency
        if isinstance(executor, (str, ExecutorChoice)):
            choice = executor if isinstance(executor, ExecutorChoice) else ExecutorChoice(executor)
            runner = make_executor(choice, job, concurrency or cfg.concurrency, accounts=dict(cfg.rate_limits))
            # A cluster is sized by its CPUs, not by the config's one-machine concurrency.
            slots = concurrency or (max(cfg.concurrency, runner.slots()) if choice.name == "ray" else cfg.concurrency)
        else:
            runner, slots = executor, concurrency or executor.slots()
        watched = Watch(opts.watch, opts.on_watch_event or (lambda event: None), job) if opts.watch is not None else None
        return await _run_locked(cfg, opts, out, schedule, runner, slots, watched, t0)
    finally:
        if runner is not None:
            runner.close()
        lock.release()


@dataclass(frozen=True)
class Watch:
    """The one game played in this process, in a thread, its events handed to a live view."""

    game_id: str
    on_event: Callable[[Any], None]
    job: GameJob


def check_before_start(cfg: TournamentConfig, factory: Callable[..., Any]) -> None:
    """Refuse a tournament that cannot play, before any file is written: every board must resolve to a
    playable rule set, and every roster entry's agent must build (a known spec, valid options, its
    key, its SDK installed). One clear error now, not one failed game per schedule entry later."""
    from arena.config import resolve_rules
    from arena.rules.setup import unsupported_roles

    for i, board in enumerate(cfg.boards):
        try:
            rules = resolve_rules(board.preset, dict(board.rules))
        except ConfigError as exc:
            raise TournamentError(f"boards[{i}]: {exc}") from None
        missing = unsupported_roles(rules)
        if missing:
            raise TournamentError(f"boards[{i}]: preset {board.preset!r} uses role(s) the referee does not "
                                  f"implement yet: {', '.join(missing)}")
    for entry in cfg.roster:
        try:
            factory(entry.agent, seat=1, seed=cfg.seed, lang=cfg.lang, **entry.options)
        except Exception as exc:  # whatever the factory raises, the entry is what the user must fix
            raise TournamentError(f"roster entry {entry.label!r} ({entry.agent}): {exc}") from None


def lock_folder(out: Path) -> FolderLock:
    """The output folder's lock: two runners in one folder would play games twice and race on renames."""
    lock = FolderLock(out)
    try:
        lock.acquire()
    except FolderBusy as exc:
        raise TournamentError(f"{exc}: wait for it to finish, or use another --out") from None
    return lock


async def _run_locked(cfg: TournamentConfig, opts: RunOptions, out: Path, schedule: list[ScheduledGame],
                      runner: Executor, slots: int, watch: Watch | None, t0: float) -> TournamentResult:
    on_progress = opts.on_progress
    index = prepare_out(cfg, out, schedule, opts.resume, opts.shard)
    # Whatever a crash left half-written is discarded and replayed.
    parts = list((out / "games").glob("*.jsonl.part"))
    for part in parts:
        part.unlink()
    todo: list[ScheduledGame] = []
    skipped = 0
    for game in schedule:
        path = transcript_path(out, game.game_id)
        entry = index.state.get(game.game_id)
        digest = entry.sha256 if entry is not None and entry.status == "done" else None
        complete, winner = transcript_complete(path, digest) if path.exists() else (False, None)
        if complete:
            if entry is None or entry.status != "done":
                # Killed between the rename and the index line: the file is the proof; record it.
                index.write(IndexEntry(game_id=game.game_id, status="done", time=time.time(), winner=winner,
                                       sha256=file_digest(path)))
            skipped += 1
            continue
        if path.exists():
            path.unlink()  # should not happen (rename is atomic), but never trust a partial file
        todo.append(game)
    if watch is not None:
        if not any(g.game_id == watch.game_id for g in todo):
            raise TournamentError(f"--watch {watch.game_id}: that game is already finished in {out}; "
                                  f"replay it with `arena view {transcript_path(out, watch.game_id)}`")
        todo.sort(key=lambda g: g.game_id != watch.game_id)  # the watched game starts at once, not last

    progress = Progress(total=len(schedule), skipped=skipped)
    failed: list[str] = []
    semaphore = asyncio.Semaphore(slots)
    series = first_kill_series(schedule)
    finished = {g.game_id: asyncio.Event() for g in todo}  # a game of a series waits for the one before it
    watch_stop = threading.Event()

    async def play_watched(game: ScheduledGame) -> GameOutcome:
        try:
            assert watch is not None
            return await asyncio.to_thread(_play_watched, game, out, watch.job.factory_path, cfg.lang,
                                           watch.on_event, watch_stop)
        except asyncio.CancelledError:
            watch_stop.set()  # the thread cannot be cancelled; it stops at the game's next event
            raise

    def report() -> None:
        if on_progress is not None:
            on_progress(progress)

    abandoned: list[str] = []
    flagged: list[str] = []
    stopped: list[str] = []  # the first unreachable seat stops the whole tournament
    tasks: list[asyncio.Future[None]] = []

    async def one(game: ScheduledGame) -> None:
        try:
            earlier = series.get(game.game_id)
            if earlier:
                # Waited for outside the semaphore, so a waiting game never holds the slot its predecessor needs.
                for game_id in earlier:
                    if game_id in finished:
                        await finished[game_id].wait()
                game = with_first_kill_protection(game, out, earlier)
            await play_one(game)
        finally:
            finished[game.game_id].set()

    async def play_one(game: ScheduledGame) -> None:
        async with semaphore:
            if stopped:
                return
            index.write(IndexEntry(game_id=game.game_id, status="started", time=time.time()))
            progress.running += 1
            report()
            start = time.monotonic()
            try:
                watched = watch is not None and game.game_id == watch.game_id
                winner, tokens, cost = await (play_watched(game) if watched else runner.play(game))
            except (KeyboardInterrupt, asyncio.CancelledError):
                raise
            except GameStopped as exc:  # recorded as abandoned: never rated, replayed by --resume
                abandoned.append(game.game_id)
                progress.abandoned += 1
                index.write(IndexEntry(game_id=game.game_id, status="abandoned", time=time.time(),
                                       error=str(exc)[:500]))
                if isinstance(exc, SeatUnreachable) and not stopped:
                    # Every other game with this seat's entry would stop the same way: stop now.
                    stopped.append(f"{game.game_id}: {exc}")
                    for task in tasks:
                        if task is not asyncio.current_task():
                            task.cancel()
            except Exception as exc:  # an engine or agent bug fails this game, not the tournament
                failed.append(game.game_id)
                progress.failed += 1
                index.write(IndexEntry(game_id=game.game_id, status="failed", time=time.time(),
                                       error=f"{type(exc).__name__}: {exc}"[:500]))
            else:
                progress.done += 1
                progress.played += 1
                progress.tokens += tokens or 0.0
                progress.cost += cost or 0.0
                share = fallback_share(transcript_path(out, game.game_id))
                flag = None
                if share is not None and cfg.max_fallback_share is not None and share > cfg.max_fallback_share:
                    flag = f"a seat fell back on {share:.0%} of its model answers (limit {cfg.max_fallback_share:.0%})"
                    flagged.append(game.game_id)
                    progress.flagged += 1
                index.write(IndexEntry(game_id=game.game_id, status="done", time=time.time(), winner=winner,
                                       seconds=round(time.monotonic() - start, 3), tokens=tokens, cost=cost,
                                       fallback_share=share, flagged=flag,
                                       sha256=file_digest(transcript_path(out, game.game_id))))
            finally:
                progress.running -= 1
                report()

    report()
    tasks.extend(asyncio.ensure_future(one(g)) for g in todo)
    try:
        outcomes = await asyncio.gather(*tasks, return_exceptions=True)
    finally:
        watch_stop.set()
    for outcome in outcomes:
        if isinstance(outcome, BaseException) and not (stopped and isinstance(outcome, asyncio.CancelledError)):
            raise outcome
    return TournamentResult(out=str(out), scheduled=len(schedule), played=progress.played, skipped=skipped,
                            failed=failed, discarded_parts=len(parts), seconds=round(time.monotonic() - t0, 3),
                            abandoned=abandoned, flagged=flagged, stopped=stopped[0] if stopped else None)


def make_executor(choice: ExecutorChoice, job: GameJob, slots: int, *, accounts: dict[str, RateLimit]) -> Executor:
    """The chosen executor, joined to the run's shared rate limits: one process's buckets (async), a
    file-locked bucket in the output folder (process pool), one Ray actor (ray)."""
    from dataclasses import replace

    name = choice.name
    if name == "async":
        return AsyncExecutor(replace(job, limits_json=limits_for(accounts, "local")), slots)
    if name == "process":
        folder = job.out / ".ratelimit"
        return ProcessExecutor(replace(job, limits_json=limits_for(accounts, f"file:{folder}")), slots)
    if name == "ray":
        from arena.ray_executor import RayExecutor  # lazily: Ray is an optional extra

        return RayExecutor(job, choice.ray_address, task_cpus=choice.ray_task_cpus, accounts=accounts)
    raise TournamentError(f"unknown executor {name!r}; choose async, process or ray")


# --- merge --------------------------------------------------------------------------------------


class MergeResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    out: str
    games: int
    duplicates: int
    missing: list[str]


def merge_outputs(sources: Sequence[Path], out: Path) -> MergeResult:
    """Combine shard folders of one tournament: every finished transcript once, one index."""
    metas = [read_meta(Path(src)) for src in sources]
    configs = {json.dumps(m["config"], sort_keys=True) for m in metas}
    if len(configs) != 1:
        raise TournamentError("the folders come from different tournament configs; refusing to merge")
    cfg = TournamentConfig(**metas[0]["config"])
    schedule = build_schedule(cfg)
    (out / "games").mkdir(parents=True, exist_ok=True)
    lock = lock_folder(out)
    try:
        return _merge_locked(sources, out, cfg, schedule)
    finally:
        lock.release()


def _merge_locked(sources: Sequence[Path], out: Path, cfg: TournamentConfig,
                  schedule: list[ScheduledGame]) -> MergeResult:
    import shutil

    index = Index(out / "index.jsonl")
    copied: set[str] = set(g for g, e in index.state.items() if e.status == "done")
    duplicates = 0
    for src in sources:
        for path in sorted((Path(src) / "games").glob("*.jsonl")):
            game_id = path.name[: -len(".jsonl")]
            complete, winner = transcript_complete(path)
            if not complete:
                continue
            target = transcript_path(out, game_id)
            if game_id in copied or target.exists():
                duplicates += 1
                if target.exists() and target.read_bytes() != path.read_bytes():
                    raise TournamentError(f"{game_id}: two different transcripts in the shards; refusing to merge")
                continue
            shutil.copyfile(path, target)
            copied.add(game_id)
            index.write(IndexEntry(game_id=game_id, status="done", time=time.time(), winner=winner,
                                   sha256=file_digest(target)))
    meta = {"config": persisted_config(cfg), "fingerprint": fingerprint(cfg, schedule), "shard": None,
            "games": len(schedule), "merged_from": [str(s) for s in sources]}
    write_atomic(out / "tournament.json", json.dumps(meta, indent=2))
    missing = [g.game_id for g in schedule if g.game_id not in copied]
    return MergeResult(out=str(out), games=len(copied), duplicates=duplicates, missing=missing)


# --- verify -------------------------------------------------------------------------------------


class VerifyResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    out: str
    checked: int = Field(description="done games whose transcripts were checked")
    problems: list[str] = Field(default_factory=list, description="one line per game that failed a check")
    unhashed: int = Field(default=0, description="done games the index has no digest for (older runs)")
    abandoned: list[str] = Field(default_factory=list, description=(
        "games the index records abandoned (stopped before their end: not rated, replayed by --resume)"))


def verify_tournament(out: Path, *, read_hashed: bool = True) -> VerifyResult:
    """Check a tournament folder without replaying: every game the index calls done has its
    transcript, the transcript's bytes match the digest recorded when it was done, it has a result
    line, and its header seats the agents and labels the schedule gave it. ``read_hashed=False``
    (``arena score``, which reads every game itself) reads only the games without a digest: a game
    whose bytes match its digest is the file the runner checked and stored."""
    from arena.transcript import TranscriptError, read_transcript

    meta_path = out / "tournament.json"
    try:
        meta = load_user_json(meta_path.read_text(encoding="utf-8"))  # UnicodeDecodeError is a ValueError
        cfg = TournamentConfig(**meta["config"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise TournamentError(f"{out}: not a readable tournament folder ({exc})") from None
    scheduled = {g.game_id: g for g in build_schedule(cfg)}
    index = Index(out / "index.jsonl")
    result = VerifyResult(out=str(out), checked=0)
    for game_id, entry in sorted(index.state.items()):
        if entry.status == "abandoned":
            result.abandoned.append(game_id)
        if entry.status != "done":
            continue
        result.checked += 1
        path = transcript_path(out, game_id)
        if not path.exists():
            result.problems.append(f"{game_id}: done in the index, but {path} is missing")
            continue
        if entry.sha256 is None:
            result.unhashed += 1
        elif file_digest(path) != entry.sha256:
            result.problems.append(f"{game_id}: the transcript changed since it was recorded (digest differs)")
            continue
        elif not read_hashed:
            if game_id not in scheduled:
                result.problems.append(f"{game_id}: not in this tournament's schedule")
            continue
        try:
            transcript = read_transcript(path)
        except TranscriptError as exc:
            result.problems.append(f"{game_id}: {exc}")
            continue
        if transcript.result is None:
            result.problems.append(f"{game_id}: no result line (incomplete)")
        game = scheduled.get(game_id)
        seated = [(a.spec, a.label) for a in transcript.header.agents]
        if game is None:
            result.problems.append(f"{game_id}: not in this tournament's schedule")
        elif seated != list(zip(game.specs, game.labels)):
            result.problems.append(f"{game_id}: the header seats {seated}, the schedule "
                                   f"{list(zip(game.specs, game.labels))}")
    return result


def unverified_transcripts(transcripts: list[Path]) -> list[str]:
    """What ``arena score`` must not rate unnoticed: for every tournament folder holding one of
    ``transcripts`` (a folder with ``tournament.json`` above it), the problems :func:`verify_tournament`
    finds, and each transcript there that the index does not know (added after the run). A game
    the index calls abandoned or failed has no digest; a transcript outside any tournament folder
    has nothing to be checked against."""
    folders: dict[Path, list[Path]] = {}
    for path in transcripts:
        folder = next((d for d in path.resolve().parents if (d / "tournament.json").is_file()), None)
        if folder is not None:
            folders.setdefault(folder, []).append(path)
    problems: list[str] = []
    for folder, inside in sorted(folders.items()):
        try:
            result = verify_tournament(folder, read_hashed=False)
        except TournamentError as exc:
            problems.append(str(exc))
            continue
        problems += [f"{folder}: {p}" for p in result.problems]
        state = Index(folder / "index.jsonl").state
        status = {transcript_path(folder, game_id).resolve(): entry.status for game_id, entry in state.items()}
        for path in sorted(inside):
            known = status.get(path.resolve())
            if known not in ("done", "abandoned", "failed"):
                problems.append(f"{folder}: {path.name} is not a game of this tournament's index (added after the run?)")
            elif known != "done" and _claims_a_finished_game(path):
                # No digest is kept for a game that did not finish: its transcript must not claim it did.
                problems.append(f"{folder}: {path.stem}: the index records it {known}, its transcript a finished game")
    return problems


def _claims_a_finished_game(path: Path) -> bool:
    """The transcript's last line is a result line that is not abandoned."""
    with open(path, "rb") as fh:
        fh.seek(0, 2)
        fh.seek(max(fh.tell() - 65536, 0))
        tail = fh.read().rstrip(b"\n").rpartition(b"\n")[2]
    try:
        last = json.loads(tail)
    except ValueError:
        return False
    return isinstance(last, dict) and last.get("type") == "result" and not last.get("abandoned")
