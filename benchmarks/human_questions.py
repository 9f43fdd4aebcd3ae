"""How many questions a human wolf is asked in one game, in the terminal and in the browser (#28).

Seat 5 holds a werewolf card; every other seat is ``bot:heuristic``; the person answers every question
with its first choice (no, skip, a one-line speech) and never self-destructs, so that the same seed
gives the same game whatever the seat is asked. Self-destruct offers (R67, before every day speech) are
counted apart: with the standing self-destruct there should be none.

    PYTHONPATH=. python benchmarks/human_questions.py [--games 3]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from collections import Counter
from pathlib import Path

from tests.test_standing_self_destruct import DEAL, PRESET, WOLF_SEAT, ScriptedPlayer, wolf_seed_list

OFFERS = ("self_destruct", "self_destruct_election")


def terminal(seed: int) -> Counter[str]:
    from agents.registry import make_agent
    from arena.engine import GameSetup
    from arena.referee import run_game

    player = ScriptedPlayer(WOLF_SEAT)
    agents = [player if s == WOLF_SEAT else make_agent("bot:heuristic", seat=s, seed=seed) for s in range(1, 13)]
    asyncio.run(run_game(GameSetup(preset=PRESET, seed=seed, deal=DEAL), agents))
    return Counter(str(r.kind) for r in player.asked)


def browser(seed: int) -> Counter[str]:
    from tests.test_web import create, operator_client, play_seat, sign_in, token_of

    with tempfile.TemporaryDirectory() as tmp, operator_client(Path(tmp)) as client:
        sign_in(client)
        seats = ["bot:heuristic"] * 12
        seats[WOLF_SEAT - 1] = "human"
        made = create(client, seats=seats, seed=seed)
        with client.websocket_connect(f"/ws/{made['id']}?token={token_of(made['seats'][str(WOLF_SEAT)])}") as ws:
            return Counter(m["kind"] for m in play_seat(ws) if m["type"] == "ask")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3)
    games = parser.parse_args().games
    for name, play, seeds in (("terminal", terminal, range(2, 2 + games)), ("browser", browser, wolf_seed_list(WOLF_SEAT, games))):
        for seed in seeds:
            kinds = play(seed)
            offers = sum(kinds[k] for k in OFFERS)
            print(f"{name:8} seed {seed}: {sum(kinds.values())} questions, {offers} self-destruct offers; "
                  + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))


if __name__ == "__main__":
    main()
