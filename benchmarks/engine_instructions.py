"""Machine instructions per game of the referee with `bot:random` seats, counted by valgrind.

    python benchmarks/engine_instructions.py [--mode driver|engine|transcript] [--games 30] [--tree PATH] [--default-gc]

Time on a shared machine moves by 10-40% from one run to the next, which hides any change smaller
than that; an instruction count does not move at all (same seeds, PYTHONHASHSEED=0). It is not
time (a cache miss costs more than an add), but a change that does not lower it rarely makes the
referee faster. The script plays 5 and then 5+games games under ``valgrind --tool=callgrind`` and
divides the difference by games, so start-up, imports and one-time caches cancel out. ``--tree``
measures another checkout (for example a ``git worktree`` of the commit before a change).
Needs valgrind; takes about a minute.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
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


def count(tree: Path, mode: str, games: int, young: int) -> int:
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=str(tree))
    script = PLAY.format(bench=str(tree / "benchmarks"), mode=mode, young=young)
    # Run from the tree: ``python -c`` puts the working directory first on sys.path.
    out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
                          "-c", script, str(games)], env=env, cwd=tree, capture_output=True, text=True, check=True)
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
    few, many = count(tree, args.mode, 5, young), count(tree, args.mode, 5 + args.games, young)
    print(f"{tree} ({args.mode}, GC threshold {young}): {(many - few) / args.games / 1e6:.3f} M instructions "
          "per std-12-guard game")


if __name__ == "__main__":
    main()
