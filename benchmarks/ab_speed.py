"""CPU time of two checkouts of the referee, taking turns on the same games: which is faster, and by how much.

    git worktree add /tmp/before <commit>
    taskset -c 0 python benchmarks/ab_speed.py /tmp/before [.] [--batches 30] [--games 20] [--mode driver]

Two worker processes, one per checkout, play the same batch of std-12-guard games in turn (the
order alternating), so a slow spell of a shared machine hits both alike; the ratio of their CPU
times is taken per batch. Prints the median ratio with its quartiles and the ratio of the totals.
On the development machines the quartiles span about +-8% and the totals ratio of 30 batches
moves by about 3% between runs: trust a difference larger than that, and for smaller ones count
instructions (engine_instructions.py). Modes: ``driver`` (bot:random agents), ``engine`` (answers
drawn inline), ``transcript`` (driver writing a JSONL transcript to memory).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

WORKER = r"""
import io, random, sys, time
mode = sys.argv[1]
from agents.bots import RandomBot, random_choice
from arena.engine import Game, GameSetup
from arena.referee import play_sync
from arena.transcript import TranscriptWriter

def one(seed):
    setup = GameSetup(preset="std-12-guard", seed=seed)
    if mode == "engine":
        game, rng = Game(setup), random.Random(seed)
        while not game.over:
            game.submit({r.id: random_choice(r, rng) for r in game.pending()})
        return
    writer = TranscriptWriter(stream=io.StringIO()) if mode == "transcript" else None
    play_sync(setup, [RandomBot(s, seed) for s in range(1, 13)], writer=writer)

for seed in range(10_000, 10_020):  # warm up: imports, caches
    one(seed)
print("ready", flush=True)
for line in sys.stdin:
    start, count = map(int, line.split())
    began = time.process_time()
    for seed in range(start, start + count):
        one(seed)
    print(time.process_time() - began, flush=True)
"""


def start(tree: Path, mode: str) -> subprocess.Popen[str]:
    # Run from the tree: ``python -c`` puts the working directory first on sys.path, so started from
    # another checkout the worker would import that one.
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONHASHSEED="0")
    worker = subprocess.Popen([sys.executable, "-c", WORKER, mode], cwd=tree, env=env, text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert worker.stdout is not None
    if worker.stdout.readline().strip() != "ready":
        raise SystemExit(f"the worker for {tree} did not start")
    return worker


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path, help="the checkout to compare against (e.g. a git worktree)")
    parser.add_argument("after", type=Path, nargs="?", default=Path(__file__).resolve().parent.parent,
                        help="the checkout under test (default: this one)")
    parser.add_argument("--batches", type=int, default=30)
    parser.add_argument("--games", type=int, default=20, help="games per batch")
    parser.add_argument("--mode", choices=("driver", "engine", "transcript"), default="driver")
    args = parser.parse_args()
    trees = [args.before.resolve(), args.after.resolve()]
    for tree in trees:
        if not (tree / "arena" / "engine.py").is_file():
            raise SystemExit(f"{tree} is not a checkout of the arena (no arena/engine.py)")
    workers = [start(tree, args.mode) for tree in trees]
    times: list[list[float]] = [[], []]
    for batch in range(args.batches):
        for i in ((0, 1) if batch % 2 == 0 else (1, 0)):
            stdin, stdout = workers[i].stdin, workers[i].stdout
            assert stdin is not None and stdout is not None
            stdin.write(f"{batch * args.games} {args.games}\n")
            stdin.flush()
            times[i].append(float(stdout.readline()))
    for worker in workers:
        assert worker.stdin is not None
        worker.stdin.close()
        worker.wait()
    ratios = [before / after for before, after in zip(*times)]
    q1, _, q3 = statistics.quantiles(ratios, n=4)
    played = args.batches * args.games
    print(f"{args.mode}, {args.batches} batches of {args.games} games, taking turns")
    print(f"time before / time after: median {statistics.median(ratios):.3f} (quartiles {q1:.3f}-{q3:.3f}), "
          f"totals {sum(times[0]) / sum(times[1]):.3f}")
    for label, tree, spent in (("before", trees[0], times[0]), ("after", trees[1], times[1])):
        print(f"  {label:6s} {played / sum(spent):6.1f} games/s overall, fastest batch "
              f"{args.games / min(spent):6.1f}  ({tree})")


if __name__ == "__main__":
    main()
