"""Hash the bot-game transcripts of every shipped board, to show a refactor changed no byte.

Run it from a checkout's root before and after a change and compare the output:

    python benchmarks/transcript_hashes.py 16 > before.txt
    ... change ...
    python benchmarks/transcript_hashes.py 16 > after.txt && diff before.txt after.txt

Each board plays SEEDS games (two of every three with random bots, one with heuristic bots);
time fields are dropped because they legitimately differ between runs.
"""

from __future__ import annotations

import hashlib
import io
import re
import sys

sys.path.insert(0, ".")

from agents.bots import RandomBot  # noqa: E402
from agents.heuristic import HeuristicBot  # noqa: E402
from arena.config import presets  # noqa: E402
from arena.engine import GameSetup  # noqa: E402
from arena.referee import play_sync  # noqa: E402
from arena.transcript import TranscriptWriter  # noqa: E402

_TIME_FIELDS = re.compile(r'"(started_at|finished_at|created|time|wall_ms|latency)":[^,}]*')


def main(seeds_per_board: int) -> None:
    total = hashlib.sha256()
    games = 0
    for preset in presets():
        board_hash = hashlib.sha256()
        for seed in range(seeds_per_board):
            setup = GameSetup(preset=preset, seed=seed)
            seats = setup.resolve().players
            bot = HeuristicBot if seed % 3 == 2 else RandomBot
            agents = [bot(seat, seed) for seat in range(1, seats + 1)]
            buffer = io.StringIO()
            play_sync(setup, agents, writer=TranscriptWriter(stream=buffer))
            board_hash.update(_TIME_FIELDS.sub("", buffer.getvalue()).encode())
            games += 1
        print(preset, board_hash.hexdigest()[:16])
        total.update(board_hash.digest())
    print("games", games, "total", total.hexdigest())


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 16)
