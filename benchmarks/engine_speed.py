"""Games per second and peak memory of the referee with `bot:random` seats (one core, one process).

    python benchmarks/engine_speed.py [--games 200] [--repeat 7] [--preset std-12-guard] [--breakdown] [--profile]

Prints figures; it asserts nothing. Rates use this process's CPU time (time.process_time). Each
figure plays the same games (seeds 0..games-1) ``--repeat`` times, the modes taking turns, and
prints the fastest repeat and the median one. As with ``timeit``, the fastest repeat is the
figure for the code: the same work never gets faster by chance, while on a shared machine other
processes (and the hypervisor) slow some repeats by 10-40%. The median says how much they did.
The figures use the garbage-collector setting of the arena's own processes (``arena.gc_policy``);
one line repeats the driver's figure with CPython's default setting, so the difference stays visible.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import pstats
import statistics
import time
import tracemalloc
from typing import Callable

from agents.bots import RandomBot
from arena.engine import Game, GameSetup
from arena.gc_policy import YOUNG_GENERATION_THRESHOLD
from arena.referee import Table, play_sync, run_table_sync
from arena.transcript import TranscriptWriter


def engine_only(preset: str, games: int) -> float:
    """The engine with answers drawn inline: no agents, no observations, no transcript."""
    import random

    from agents.bots import random_choice

    start = time.process_time()
    for seed in range(games):
        game = Game(GameSetup(preset=preset, seed=seed))
        rng = random.Random(seed)
        while not game.over:
            game.submit({r.id: random_choice(r, rng) for r in game.pending()})
    return games / (time.process_time() - start)


SIZES: dict[str, float] = {}  # per-game averages seen by the last with_agents run


def with_agents(preset: str, games: int, transcripts: bool) -> float:
    decisions = events = 0
    start = time.process_time()
    for seed in range(games):
        setup = GameSetup(preset=preset, seed=seed)
        n = setup.resolve().players
        agents = [RandomBot(s, seed) for s in range(1, n + 1)]
        writer = TranscriptWriter(stream=io.StringIO()) if transcripts else None
        result = play_sync(setup, agents, writer=writer)
        decisions += result.decisions
        events += len(result.game.log)
    elapsed = time.process_time() - start
    SIZES.update(decisions=decisions / games, events=events / games, us_per_decision=elapsed / decisions * 1e6)
    return games / elapsed


def peak_memory_kib(preset: str, games: int) -> float:
    tracemalloc.start()
    for seed in range(games):
        setup = GameSetup(preset=preset, seed=seed)
        n = setup.resolve().players
        play_sync(setup, [RandomBot(s, seed) for s in range(1, n + 1)], writer=TranscriptWriter(stream=io.StringIO()))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 1024


def object_costs(preset: str, games: int) -> None:
    """The cost of the objects every game makes many of, against the cost of a whole game."""
    import timeit

    from arena.actions import YES_OR_NO
    from arena.engine import _new_record, _new_request
    from arena.events import Speech

    per_game = 1 / with_agents(preset, games, False)
    decisions, events = SIZES["decisions"], SIZES["events"]
    n = 50_000
    event = timeit.timeit(lambda: Speech(phase="D1", seat=3, kind="discussion", text="pass"), number=n) / n
    request = timeit.timeit(lambda: _new_request((1, 2, "self_destruct", "D1", "D1", YES_OR_NO, False,
                                                  {"before_speaker": 3})), number=n) / n
    record = timeit.timeit(lambda: _new_record((None, False, False, False, None)), number=n) / n
    print(f"a game: {per_game * 1e3:.2f} ms CPU, {decisions:.0f} decisions, {events:.0f} events")
    for name, cost, count in (("event (validated, frozen pydantic model)", event, events),
                              ("decision request (named tuple)", request, decisions),
                              ("decision record (named tuple)", record, decisions)):
        print(f"  {name:42s} {cost * 1e6:5.2f} us each, {count * cost / per_game:4.0%} of a game")
    print(f"300 games/s leaves {1e6 / 300 / decisions:.1f} us per decision; now {per_game * 1e6 / decisions:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per repeat (seeds 0..games-1)")
    parser.add_argument("--repeat", type=int, default=7, help="how many times each figure plays those games")
    parser.add_argument("--preset", default="std-12-guard")
    parser.add_argument("--profile", action="store_true", help="print the top functions by cumulative time")
    parser.add_argument("--breakdown", action="store_true", help="print what the most numerous objects cost")
    args = parser.parse_args()
    g = args.games
    Game(GameSetup(preset=args.preset, seed=0))  # warm caches (config files, pydantic schemas)
    with_agents(args.preset, min(g, 20), True)
    print(f"preset {args.preset}, bot:random seats, one process: {g} games, {args.repeat} repeats of each figure;")
    print(f"GC young-generation threshold {YOUNG_GENERATION_THRESHOLD} as in the arena's own processes "
          "(arena.gc_policy) unless a line says otherwise")
    arena_gc, default_gc = YOUNG_GENERATION_THRESHOLD, 700
    modes: tuple[tuple[str, int, Callable[[], float]], ...] = (
        ("engine only (inline random answers)", arena_gc, lambda: engine_only(args.preset, g)),
        ("driver + bot:random agents, no transcript", arena_gc, lambda: with_agents(args.preset, g, False)),
        ("  the same with CPython's default GC threshold", default_gc, lambda: with_agents(args.preset, g, False)),
        ("driver + agents + JSONL transcript (memory)", arena_gc, lambda: with_agents(args.preset, g, True)),
    )
    rates: dict[str, list[float]] = {label: [] for label, _, _ in modes}
    sizes: dict[str, float] = {}
    for _ in range(args.repeat):  # the modes take turns, so a slow spell of the machine hits them alike
        for label, young_threshold, run in modes:
            gc.set_threshold(young_threshold, *gc.get_threshold()[1:])
            gc.collect()  # every mode starts from the same heap
            rates[label].append(run())
            if label == modes[1][0] and (not sizes or SIZES["us_per_decision"] < sizes["us_per_decision"]):
                sizes = dict(SIZES)  # the per-game figures of the fastest driver repeat
    print(f"{'games/s':>55s} {'fastest':>8s} {'median':>8s}")
    for label, values in rates.items():
        print(f"{label:46s} {max(values):17.1f} {statistics.median(values):8.1f}")
    print(f"  per game: {sizes['decisions']:.0f} decisions, {sizes['events']:.0f} events; "
          f"{sizes['us_per_decision']:.1f} us of CPU per decision in the fastest repeat, everything included")
    print(f"peak traced memory over {min(g, 200)} games: {peak_memory_kib(args.preset, min(g, 200)):8.0f} KiB")
    if args.breakdown:
        object_costs(args.preset, min(g, 300))
    if args.profile:
        prof = cProfile.Profile()
        prof.enable()
        with_agents(args.preset, min(g, 300), True)
        prof.disable()
        pstats.Stats(prof).sort_stats("cumulative").print_stats(25)


if __name__ == "__main__":
    main()
