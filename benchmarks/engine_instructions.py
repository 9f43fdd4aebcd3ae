"""Machine instructions per game of the referee with `bot:random` seats, counted by valgrind.

    python benchmarks/engine_instructions.py [--mode driver|engine|transcript] [--games 30] [--layouts 4] [--tree PATH] [--default-gc]

Time on a shared machine moves by 10-40% from one run to the next, which hides any change smaller
than that; an instruction count does not move at all (same seeds, PYTHONHASHSEED=0). It is not
time (a cache miss costs more than an add), but a change that does not lower it rarely makes the
referee faster. The script plays 5 and then 5+games games under ``valgrind --tool=callgrind`` and
divides the difference by games, so start-up, imports and one-time caches cancel out. ``--tree``
measures another checkout (for example a ``git worktree`` of the commit before a change).

One count depends on where the interpreter's objects land in memory: CPython's attribute cache is a
small table indexed by the address of the attribute's name, so a layout where hot names collide
costs several percent more instructions for the same games (we saw 10.32 M and 10.97 M per game for
one checkout whose environment differed by 333 bytes). Any edit moves the layout, so one count
cannot tell a 3% change from a lucky layout. ``--layouts N`` counts under N layouts (an unused argument
longer by a few hundred bytes each time) and prints their mean and range; compare means.
Needs valgrind; takes about a minute per layout.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

PLAY = """
import gc, sys
sys.path.insert(0, {bench!r})
from engine_speed import engine_only, with_agents
gc.set_threshold({young}, *gc.get_threshold()[1:])  # the arena's processes use 10,000 (arena.gc_policy)
with_agents("std-12-guard", 3, True)  # imports, config files, schemas: paid before counting starts
n = int(sys.argv[1])
engine_only("std-12-guard", n) if {mode!r} == "engine" else with_agents("std-12-guard", n, {mode!r} == "transcript")
"""


def count(tree: Path, mode: str, games: int, young: int, pad: int = 0) -> int:
    # ``pad`` bytes of an unused argument shift where the interpreter's objects land in memory (see --layouts).
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=str(tree))
    script = PLAY.format(bench=str(tree / "benchmarks"), mode=mode, young=young)
    # Run from the tree: ``python -c`` puts the working directory first on sys.path. The count goes in at a
    # fixed width: a longer argument moves every object the interpreter allocates after it (see --layouts).
    out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
                          "-c", script, f"{games:06d}", "x" * pad], env=env, cwd=tree, capture_output=True, text=True, check=True)
    found = re.search(r"Collected : ([\d,]+)", out.stderr)
    if not found:
        raise SystemExit(f"valgrind printed no count:\n{out.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("driver", "engine", "transcript"), default="driver",
                        help="driver: bot:random agents through the referee's driver; engine: answers drawn inline; "
                             "transcript: the driver writing a JSONL transcript to memory")
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--default-gc", action="store_true",
                        help="CPython's default young-generation GC threshold (700) instead of the arena's (10,000)")
    parser.add_argument("--layouts", type=int, default=4,
                        help="count under this many memory layouts and print their mean (default 4; 1: one layout)")
    parser.add_argument("--tree", type=Path, default=Path(__file__).resolve().parent.parent,
                        help="the checkout to measure (default: this one)")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (apt-get install valgrind)")
    tree = args.tree.resolve()
    young = 700 if args.default_gc else 10_000
    warm = PLAY.format(bench=str(tree / "benchmarks"), mode=args.mode, young=young)
    subprocess.run([sys.executable, "-c", warm, "1"],
                   env=dict(os.environ, PYTHONPATH=str(tree)), cwd=tree, check=True)  # writes the .pyc files first
    per_game = []
    for layout in range(args.layouts):
        pad = layout * 13  # a few bytes more each time: the interpreter's own allocations land elsewhere
        few, many = count(tree, args.mode, 5, young, pad), count(tree, args.mode, 5 + args.games, young, pad)
        per_game.append((many - few) / args.games / 1e6)
    spread = f" (mean of {len(per_game)} layouts, {min(per_game):.3f}-{max(per_game):.3f})" if len(per_game) > 1 else ""
    print(f"{tree} ({args.mode}, GC threshold {young}): {statistics.fmean(per_game):.3f} M instructions "
          f"per std-12-guard game{spread}")


if __name__ == "__main__":
    main()
