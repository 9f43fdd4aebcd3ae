"""How fast does the evaluator score a tournament? (Target: 10,000 bot games in under a minute, one core.)

    python benchmarks/score_speed.py DIR                     # score the transcripts under DIR
    python benchmarks/score_speed.py --generate 10000        # play a heuristic-vs-random tournament first
    python benchmarks/score_speed.py DIR --copies 100000 --keep /tmp/load   # score copies of DIR's games

Prints the number of games, wall and CPU seconds per stage (read and metrics, Bradley-Terry with its
1,000-resample bootstrap, OpenSkill and the pairwise table, rendering), and peak memory. It asserts
nothing: these machines are shared, so also compare the CPU seconds, which contention inflates less.
BLAS is held to one thread, and nothing else runs in parallel.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one core, before numpy loads
os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.evaluate.ratings import RatingConfig  # noqa: E402
from arena.evaluate.report import render, score  # noqa: E402


def generate(n_games: int, out: Path) -> None:
    from arena.tournament import RunOptions, TournamentConfig, run_tournament

    cfg = TournamentConfig(
        name="bench", roster=[{"label": "heuristic", "agent": "bot:heuristic"}, {"label": "random", "agent": "bot:random"}],
        boards=[{"preset": "std-12-guard"}], deals=max(1, n_games // 2), seed=1, seating="sides", out=str(out),
        concurrency=1)
    t = time.perf_counter()
    result = asyncio.run(run_tournament(cfg, RunOptions(out=out)))
    print(f"generated {result.played} games in {time.perf_counter() - t:.1f}s -> {out}")


def make_copies(paths: list[Path], n: int, out: Path) -> None:
    """``n`` transcripts copied round-robin from the games under ``paths``, each with its own game id
    and seed (so each is its own game and cluster to the evaluator), in folders of 1,000."""
    import json

    from arena.evaluate.load import find_transcripts

    sources = [p for p in find_transcripts(paths) if p.name != "index.jsonl"]
    if not sources:
        raise SystemExit("no transcripts to copy")
    texts = [p.read_bytes() for p in sources]
    t = time.perf_counter()
    for i in range(n):
        text = texts[i % len(texts)]
        first, _, rest = text.partition(b"\n")
        header = json.loads(first)
        header["game_id"] = f"copy{i:07d}-{header['game_id']}"
        header["seed"] = 1_000_000 + i
        folder = out / f"{i // 1000:04d}"
        if i % 1000 == 0:
            folder.mkdir(parents=True, exist_ok=True)
        (folder / f"copy{i:07d}.jsonl").write_bytes(json.dumps(header).encode() + b"\n" + rest)
    print(f"copied {n} transcripts from {len(sources)} games in {time.perf_counter() - t:.1f}s -> {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("--generate", type=int, default=0, help="play this many games first (into a temp folder)")
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--copies", type=int, default=0, help="score this many copies of the given games instead")
    parser.add_argument("--keep", type=Path, default=None, help="folder for the copies (reused if it holds them)")
    args = parser.parse_args()
    paths = list(args.paths)
    if args.copies:
        out = args.keep or Path(tempfile.mkdtemp(prefix="score-copies-"))
        if not (out / f"{(args.copies - 1) // 1000:04d}" / f"copy{args.copies - 1:07d}.jsonl").is_file():
            make_copies(paths, args.copies, out)
        paths = [out / f"{i:04d}" for i in range((args.copies + 999) // 1000)]
    if args.generate:
        out = Path(tempfile.mkdtemp(prefix="score-bench-"))
        generate(args.generate, out)
        paths.append(out)
    if not paths:
        parser.error("give transcript folders or --generate N")

    import arena.evaluate.report as report_module

    stage_cpu: dict[str, float] = {}

    def cpu_of(name: str, fn):  # type: ignore[no-untyped-def]
        def timed(*a, **k):  # type: ignore[no-untyped-def]
            t0 = time.process_time()
            try:
                return fn(*a, **k)
            finally:
                stage_cpu[name] = stage_cpu.get(name, 0.0) + time.process_time() - t0
        return timed

    for name in ("openskill_ratings", "pairwise_table", "bradley_terry"):
        if hasattr(report_module, name):
            setattr(report_module, name, cpu_of(name, getattr(report_module, name)))
    wall, cpu = time.perf_counter(), time.process_time()
    report = score(paths, rating=RatingConfig(n_resamples=args.resamples))
    wall_score, cpu_score = time.perf_counter() - wall, time.process_time() - cpu
    t = time.perf_counter()
    md = render(report, "md")
    html = render(report, "html")
    render_s = time.perf_counter() - t
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    games = report.availability.games
    print(f"games scored:            {games}")
    for stage, seconds in report.seconds.items():
        print(f"  {stage:<22} {seconds:8.2f} s wall")
    print(f"scoring total:           {wall_score:8.2f} s wall, {cpu_score:.2f} s CPU "
          f"({1000 * cpu_score / max(games, 1):.2f} ms CPU per game)")
    print(f"rendering md + html:     {render_s:8.2f} s ({len(md) // 1024} KiB md, {len(html) // 1024} KiB html)")
    for name, seconds in stage_cpu.items():
        print(f"  {name:<22} {seconds:8.2f} s CPU")
    print(f"peak memory:             {peak_mb:8.0f} MiB")
    print(f"under a minute:          {'yes' if wall_score < 60 else 'NO'} (wall), {'yes' if cpu_score < 60 else 'NO'} (CPU)")
    lead = report.ratings.agents
    if len(lead) >= 2:
        print(f"leader: {lead[0].agent} {lead[0].skill.estimate:+.3f} [{lead[0].skill.low:+.3f}, {lead[0].skill.high:+.3f}]; "
              f"next: {lead[1].agent} {lead[1].skill.estimate:+.3f} [{lead[1].skill.low:+.3f}, {lead[1].skill.high:+.3f}]")


if __name__ == "__main__":
    main()
