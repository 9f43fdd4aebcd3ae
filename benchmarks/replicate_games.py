"""Load for the evaluator's benchmarks: copies of real transcripts, each copy its own game and deal.

    python benchmarks/replicate_games.py SRC DST N     # N transcripts in DST, cycling through SRC's

Copy k of a game gets the game id ``<id>-c<k>`` and the seed ``seed + k * 1_000_000`` in its header,
so the evaluator counts every copy as a distinct game of a distinct deal (a mirrored pair stays a
pair); everything after the header line is copied byte for byte. At about 120 KiB per heuristic
game, 100,000 copies take about 12 GB: put DST under /tmp and remove it afterwards.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

SEED_STRIDE = 1_000_000


def replicate(src: Path, dst: Path, total: int) -> int:
    sources = sorted(p for p in src.rglob("*.jsonl") if p.name != "index.jsonl")
    if not sources:
        raise SystemExit(f"{src}: no transcripts")
    dst.mkdir(parents=True, exist_ok=True)
    blobs = [p.read_bytes().split(b"\n", 1) for p in sources]
    headers = [json.loads(first) for first, _ in blobs]
    written = 0
    for k in range(-(-total // len(sources))):
        folder = dst / f"c{k:04d}"  # a few thousand files per folder
        folder.mkdir(exist_ok=True)
        for header, (_, rest) in zip(headers, blobs):
            if written == total:
                return written
            copy = dict(header, game_id=f"{header['game_id']}-c{k}")
            if isinstance(header.get("seed"), int):
                copy["seed"] = header["seed"] + k * SEED_STRIDE
            line = json.dumps(copy, ensure_ascii=False, separators=(",", ":")).encode()
            (folder / f"{copy['game_id']}.jsonl").write_bytes(line + b"\n" + rest)
            written += 1
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("src", type=Path)
    parser.add_argument("dst", type=Path)
    parser.add_argument("n", type=int)
    args = parser.parse_args()
    print(f"{replicate(args.src, args.dst, args.n)} transcripts -> {args.dst}", file=sys.stderr)


if __name__ == "__main__":
    main()
