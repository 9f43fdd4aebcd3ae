"""Wall time of a std-12 game of stand-in seats that take LATENCY seconds a call, against its
critical path: the wall a driver would take if every question round that calls a model took one
latency (a round's questions are asked concurrently; rounds follow one another).

    PYTHONPATH=. python benchmarks/concurrency.py --latency 0.5 --beliefs votes,every_speech --caps 8,24

``--caps`` plays the same game (seed, answers) once per per-endpoint cap (``concurrency``), so the
figures compare within one run. Prints wall, critical path, their ratio, calls and the largest round.
Wall time is the figure here (the seats sleep, they do not compute), so a loaded machine moves it
little.
"""

from __future__ import annotations

import argparse
import asyncio
import time

from agents.registry import make_agent
from arena.engine import Game, GameSetup
from arena.referee import run_game


def play(seed: int, latency: float, beliefs: str, cap: int | None) -> dict:
    options = {"memory": "summary", "latency": latency, "beliefs": beliefs}
    if cap is not None:
        options["concurrency"] = cap
    agents = [make_agent("mock:bench", seat=s, seed=seed, **options) for s in range(1, 13)]
    rounds: list[int] = []  # model calls made by each question round
    last = 0
    original = Game.pending

    def pending(game: Game):  # called once per round by the async driver
        nonlocal last
        total = sum(a.calls for a in agents)
        if total > last:
            rounds.append(total - last)
        last = total
        return original(game)

    Game.pending = pending  # type: ignore[method-assign]
    try:
        start = time.perf_counter()
        asyncio.run(run_game(GameSetup(preset="std-12-guard", seed=seed), agents))
        wall = time.perf_counter() - start
    finally:
        Game.pending = original  # type: ignore[method-assign]
    total = sum(a.calls for a in agents)
    if total > last:
        rounds.append(total - last)
    return {"wall": wall, "critical": len(rounds) * latency, "calls": total, "rounds": len(rounds),
            "largest": max(rounds, default=0)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--latency", type=float, default=0.5)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--beliefs", default="votes", help="belief modes, comma-separated (off, votes, day_end, every_speech)")
    ap.add_argument("--caps", default="default", help="per-endpoint caps to compare, comma-separated ('default': the policy's)")
    args = ap.parse_args()
    caps = [None if c.strip() == "default" else int(c) for c in args.caps.split(",")]
    print(f"{'beliefs':13s} {'cap':>7s} {'calls':>6s} {'rounds':>6s} {'largest':>7s} {'wall s':>7s} {'critical s':>10s} {'ratio':>6s}")
    for beliefs in args.beliefs.split(","):
        for cap in caps:
            r = play(args.seed, args.latency, beliefs.strip(), cap)
            print(f"{beliefs:13s} {cap if cap is not None else 'default':>7} {r['calls']:>6} {r['rounds']:>6} "
                  f"{r['largest']:>7} {r['wall']:>7.1f} {r['critical']:>10.1f} {r['wall'] / r['critical']:>6.2f}")


if __name__ == "__main__":
    main()
