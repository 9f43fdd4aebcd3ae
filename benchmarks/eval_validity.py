"""Does the evaluator separate bot:heuristic from bot:random, and after how many games?

    python benchmarks/eval_validity.py TOURNAMENT_DIR [--resamples 1000]
    python benchmarks/eval_validity.py --generate 400

Reads a heuristic-vs-random tournament (balanced `sides` seating: every deal played twice, the
entries swapped between village and wolves), orders its games by schedule (deal, then mirror), and
fits the role-aware Bradley-Terry model with its game bootstrap on growing prefixes of whole deals.
Prints, for each prefix, both entries' skill intervals and whether they overlap, then the smallest
number of games from which on the 95% intervals never overlap again. Also prints the OpenSkill and
raw win-rate view of the full set for comparison.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.evaluate.load import find_transcripts, load_game  # noqa: E402
from arena.evaluate.metrics import LEGAL_SET_KINDS, Accumulator, score_game  # noqa: E402
from arena.evaluate.ratings import RatingConfig, bradley_terry, openskill_ratings, pairwise_table  # noqa: E402


def records_of(paths: list[Path]):  # type: ignore[no-untyped-def]
    acc = Accumulator()
    for path in find_transcripts(paths):
        score_game(load_game(path, event_types=frozenset(), full_decision_kinds=LEGAL_SET_KINDS), acc)
    return acc.records


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("--generate", type=int, default=0)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--step", type=int, default=0, help="prefix step in games (default: grows ~1.3x)")
    parser.add_argument("--chunks", type=int, nargs="*", default=[10, 20, 40, 60, 100],
                        help="replicate sizes (games) for the power table")
    parser.add_argument("--chunk-resamples", type=int, default=300)
    args = parser.parse_args()
    paths = list(args.paths)
    if args.generate:
        from benchmarks.score_speed import generate  # type: ignore[import-not-found]

        out = Path(tempfile.mkdtemp(prefix="validity-"))
        generate(args.generate, out)
        paths.append(out)
    records = sorted(records_of(paths), key=lambda g: g.game_id)  # ids sort by board, deal, then mirror
    n = len(records)
    print(f"{n} games; agents: {sorted({s.agent for g in records for s in g.seats})}")
    sizes: list[int] = []
    k = 4
    while k < n:
        sizes.append(k)
        k = k + args.step if args.step else max(k + 2, int(k * 1.3) // 2 * 2)
    sizes.append(n)
    cfg = RatingConfig(n_resamples=args.resamples, seed=0)
    separated_from: int | None = None
    for size in sizes:
        fit = bradley_terry(records[:size], cfg)
        a, b = fit.agents[0], fit.agents[1]
        sep = a.skill.low > b.skill.high
        if sep and separated_from is None:
            separated_from = size
        elif not sep:
            separated_from = None
        print(f"{size:6d} games  {a.agent:>10} {a.skill.estimate:+.3f} [{a.skill.low:+.3f}, {a.skill.high:+.3f}]  "
              f"{b.agent:>10} {b.skill.estimate:+.3f} [{b.skill.low:+.3f}, {b.skill.high:+.3f}]  "
              f"{'separated' if sep else 'overlap'}")
    print(f"95% intervals separate for good from {separated_from} games on" if separated_from
          else "95% intervals still overlap at the full set")
    # One tournament's prefix can separate early by luck; disjoint replicate tournaments of n games
    # show how often n games are enough.
    print("replicates: disjoint chunks of n games (whole deals), share whose 95% intervals separate")
    for size in args.chunks:
        chunks = [records[i:i + size] for i in range(0, n - size + 1, size)]
        if len(chunks) < 2:
            continue
        hits = 0
        for chunk in chunks:
            fit = bradley_terry(chunk, RatingConfig(n_resamples=args.chunk_resamples, seed=1))
            hits += fit.agents[0].skill.low > fit.agents[1].skill.high
        print(f"  n={size:5d}: {hits}/{len(chunks)} replicates separated ({100 * hits / len(chunks):.0f}%)")
    for r in openskill_ratings(records):
        print(f"OpenSkill {r.agent:>10}: mu {r.mu:.2f} ± {1.96 * r.sigma:.2f} (rank {r.rank})")
    for c in pairwise_table(records):
        print(f"pairwise {c.agent} vs {c.opponent}: {c.rate:.3f} [{c.low:.3f}, {c.high:.3f}] over {c.games} games")


if __name__ == "__main__":
    main()
