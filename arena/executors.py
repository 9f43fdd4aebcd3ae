"""Where a tournament's games run: one :class:`Executor` protocol, three executors.

An executor plays one scheduled game and leaves its finished transcript under ``OUT/games/ID.jsonl``
(written as ``.part`` and renamed when complete); the tournament driver owns everything else (the
index, progress, resume). Executors:

* :class:`AsyncExecutor`: games as coroutines in this process;
* :class:`ProcessExecutor`: a worker process per concurrent game (a clean forkserver pool);
* ``RayExecutor`` (:mod:`arena.ray_executor`, imported only when chosen): a Ray task per game that
  returns the transcript's text, which this process stores.

Every executor joins the tournament's shared rate limits (:mod:`arena.ratelimit`) where its games
run: in this process, in each pool worker (a file-locked bucket shared by the machine), on each Ray
worker (one limiter actor).

This module imports neither ``arena.tournament`` (the schedule's game model lives here) nor
``agents``: the agent factory is named by import path
(``agents.registry:make_agent``) so that worker processes can rebuild it.
"""

from __future__ import annotations

import asyncio
import importlib
import io
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, NamedTuple, Protocol

from pydantic import BaseModel, ConfigDict, Field

from arena import ratelimit
from arena.config import ConfigError
from arena.gc_policy import relax_young_collections
from arena.parent_watch import process_identity, watch_parent


class TournamentError(ConfigError):
    """A tournament cannot run as asked (bad config, unreachable cluster, a changed output folder...)."""


class ScheduledGame(BaseModel):
    """One game of a tournament's schedule: what an executor plays (handed to workers as JSON)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    index: int
    game_id: str
    preset: str
    rules: dict[str, Any]
    seed: int
    game_index: int = Field(description="the deal's number, for switches that alternate per game")
    deal: list[str] | None = None
    specs: list[str]
    labels: list[str]
    options: list[dict[str, Any]]
    group: str = Field(description="games on the same seed and deal share a group (mirrors, rotations)")
    variant: str
    first_kill_protected: list[int] = Field(default_factory=list, description=(
        "seats spared the night-1 knife (first_kill_protection), worked out when the game starts from the "
        "earlier games of its series"))
    deadline: float | None = Field(None, description="the game's total deadline in seconds")


class GameOutcome(NamedTuple):
    winner: str
    tokens: float | None
    cost: float | None


@dataclass(frozen=True)
class GameJob:
    """What every game of one tournament run shares: where transcripts go, how agents are made, the
    table language and the shared rate limits (JSON, as handed to a worker)."""

    out: Path
    factory_path: str
    lang: str
    limits_json: str | None = None


@dataclass(frozen=True)
class ExecutorChoice:
    """An executor by name (``async``, ``process``, ``ray``), with a Ray cluster's address and the
    CPUs each game takes there; :func:`arena.tournament.make_executor` builds it for a run."""

    name: str = "async"
    ray_address: str | None = None
    ray_task_cpus: float = 1.0


class Executor(Protocol):
    """Plays scheduled games; ``slots`` is how many it runs well at once (the driver's default)."""

    def slots(self) -> int: ...

    async def play(self, game: ScheduledGame) -> GameOutcome: ...

    def close(self) -> None: ...


# ---- one game ----------------------------------------------------------------------------------

def transcript_path(out: Path, game_id: str) -> Path:
    return out / "games" / f"{game_id}.jsonl"


def resolve_factory(path: str) -> Callable[..., Any]:
    module, _, attr = path.partition(":")
    try:
        return getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise TournamentError(f"cannot load the agent factory {path!r}: {exc}") from None


def usage_totals(blob: bytes) -> tuple[float | None, float | None]:
    """(tokens, cost) summed over a transcript's decision lines; (None, None) when none has usage."""
    from arena.transcript import decision_usages, usage_cost, usage_tokens

    lines = list(decision_usages(blob))
    if not lines:
        return None, None
    tokens = sum(usage_tokens(line["usage"]) or 0.0 for line in lines)
    cost = sum(usage_cost(line["usage"]) or 0.0 for line in lines)
    return tokens, cost


async def play_into(game: ScheduledGame, writer: Any, factory: Callable[..., Any], lang: str,
                    on_event: Callable[[Any], None] | None = None) -> str:
    """Play one game of the schedule into ``writer``; returns the winner."""
    from arena.engine import GameSetup
    from arena.referee import run_game

    setup = GameSetup(preset=game.preset, seed=game.seed, rules=dict(game.rules), game_index=game.game_index,
                      first_kill_protected=tuple(game.first_kill_protected))
    agents = [factory(spec, seat=i + 1, seed=game.seed, lang=lang, **game.options[i])
              for i, spec in enumerate(game.specs)]
    result = await run_game(setup, agents, writer=writer, specs=game.specs, lang=lang, game_id=game.game_id,
                            labels=game.labels, on_event=on_event, deadline=game.deadline)
    return result.winner


async def play_scheduled(game: ScheduledGame, out: Path, factory: Callable[..., Any], lang: str,
                         on_event: Callable[[Any], None] | None = None) -> GameOutcome:
    """Play one game into ``ID.jsonl.part`` and rename it when complete."""
    from arena.transcript import TranscriptWriter

    final = transcript_path(out, game.game_id)
    part = final.with_name(final.name + ".part")
    part.unlink(missing_ok=True)
    with TranscriptWriter(part) as writer:
        winner = await play_into(game, writer, factory, lang, on_event)
    os.replace(part, final)  # atomic: a transcript under its final name is always complete
    return GameOutcome(winner, *usage_totals(final.read_bytes()))


def store_transcript(out: Path, game_id: str, text: str) -> None:
    """Write a transcript played elsewhere (a Ray worker) the way a local game ends: ``.part``, then rename."""
    final = transcript_path(out, game_id)
    part = final.with_name(final.name + ".part")
    with open(part, "w", encoding="utf-8") as fh:  # the same encoding and newlines as TranscriptWriter
        fh.write(text)
    os.replace(part, final)


def _scheduled(game_json: str) -> ScheduledGame:
    return ScheduledGame.model_validate_json(game_json)


def play_to_text(game_json: str, factory_path: str, lang: str,
                 limits_json: str | None = None) -> tuple[str, str, float | None, float | None]:
    """Play one game in memory: (transcript text, winner, tokens, cost).

    For executors whose workers may sit on other machines (Ray): the worker never touches the output
    folder; the driver stores the text, so the index, the ``.part`` discipline and resume stay local.
    """
    from arena.transcript import TranscriptWriter

    relax_young_collections()  # a Ray worker plays game after game (arena.gc_policy)
    if limits_json != _joined.get("limits"):
        ratelimit.install_json(limits_json)
        _joined["limits"] = limits_json
    game = _scheduled(game_json)
    buffer = io.StringIO()
    writer = TranscriptWriter(stream=buffer)
    winner = asyncio.run(play_into(game, writer, resolve_factory(factory_path), lang))
    text = buffer.getvalue()
    tokens, cost = usage_totals(text.encode("utf-8"))
    return text, winner, tokens, cost


_joined: dict[str, str | None] = {}  # the limits this worker has installed (a Ray worker runs many games)


# ---- the local executors -----------------------------------------------------------------------

class AsyncExecutor:
    """Games as coroutines of this process's event loop."""

    def __init__(self, job: GameJob, slots: int):
        self.job = job
        self._slots = slots
        self._factory = resolve_factory(job.factory_path)
        ratelimit.install_json(job.limits_json)

    def slots(self) -> int:
        return self._slots

    async def play(self, game: ScheduledGame) -> GameOutcome:
        return await play_scheduled(game, self.job.out, self._factory, self.job.lang)

    def close(self) -> None:
        ratelimit.install(None)


def _pool_context() -> Any:
    """Workers start from a clean server process, not by forking this one: a fork copies locks that
    other threads hold at that instant (the watched game's thread, rich's refresh thread, an import
    in progress) and the child can hang on them forever."""
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def _join_limits(limits_json: str | None, parent: tuple[int, bytes | None] | None = None) -> None:
    relax_young_collections()  # a worker process plays game after game (arena.gc_policy)
    ratelimit.install_json(limits_json)
    if parent is not None:
        watch_parent(*parent)  # the worker ends with the main process (arena.parent_watch)


def _play_in_worker(game_json: str, out: str, factory_path: str, lang: str) -> GameOutcome:
    return asyncio.run(play_scheduled(_scheduled(game_json), Path(out), resolve_factory(factory_path), lang))


class ProcessExecutor:
    """A pool of worker processes, one game each at a time."""

    def __init__(self, job: GameJob, slots: int):
        self.job = job
        self._slots = slots
        self._pool = ProcessPoolExecutor(max_workers=slots, mp_context=_pool_context(),
                                         initializer=_join_limits, initargs=(job.limits_json, process_identity()))
        ratelimit.install_json(job.limits_json)  # a watched game plays in this process, under the same limits

    def slots(self) -> int:
        return self._slots

    async def play(self, game: ScheduledGame) -> GameOutcome:
        loop = asyncio.get_running_loop()
        winner, tokens, cost = await loop.run_in_executor(
            self._pool, _play_in_worker, game.model_dump_json(), str(self.job.out), self.job.factory_path,
            self.job.lang)
        return GameOutcome(winner, tokens, cost)

    def close(self) -> None:
        self._pool.shutdown(cancel_futures=True)
        ratelimit.install(None)


def limits_for(accounts: dict[str, Any], backend: str) -> str | None:
    """The JSON a worker joins the shared limits with (None when the tournament sets none)."""
    if not accounts:
        return None
    return ratelimit.LimitsSetup(accounts=accounts, backend=backend).model_dump_json()
