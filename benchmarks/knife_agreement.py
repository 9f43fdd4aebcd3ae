"""The wolves' knife before and after the conferral (R24): empty-knife nights as a share of nights
with a knife, by table type, with the blind show (``wolf_conferral_rounds=0``) and with the board's
own conferral (std-12-guard: one round of proposals).

    python benchmarks/knife_agreement.py --games 20

Table types: every seat bot:heuristic; one wolf seat bot:random beside heuristic wolves; one wolf
seat a stand-in model (mock:bench) beside heuristic wolves; every wolf a stand-in. The village is
bot:heuristic throughout. Agreement = the share of knives where every holder named the same seat.
"""

from __future__ import annotations

import argparse
import asyncio

from agents.heuristic import HeuristicBot
from agents.registry import make_agent
from arena.engine import Game, GameSetup
from arena.referee import run_game
from arena.types import is_wolf_card

TABLES = ("heuristic", "random_wolf", "standin_wolf", "standin_wolves")


def seats_for(table: str, wolves: list[int], seat: int, seed: int):
    if table == "random_wolf" and seat == wolves[0]:
        return make_agent("bot:random", seat=seat, seed=seed)
    if (table == "standin_wolf" and seat == wolves[0]) or (table == "standin_wolves" and seat in wolves):
        return make_agent("mock:bench", seat=seat, seed=seed, latency=0.0)
    return HeuristicBot(seat, seed)


def play(table: str, seed: int, rules: dict) -> tuple[int, int]:
    setup = GameSetup(preset="std-12-guard", seed=seed, rules=rules)
    deal = Game(setup).state.players
    wolves = sorted(s for s, p in deal.items() if is_wolf_card(p.card))
    agents = [seats_for(table, wolves, s, seed) for s in range(1, 13)]
    result = asyncio.run(run_game(setup, agents))
    knives = [e for e in result.game.log if e.type == "wolf_knife"]
    return len(knives), sum(1 for e in knives if e.target is None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--tables", default=",".join(TABLES))
    args = parser.parse_args()
    print(f"{'table':16} {'conferral':10} {'nights':>6} {'empty':>6} {'empty %':>8}")
    for table in args.tables.split(","):
        for label, rules in (("blind", {"wolf_conferral_rounds": 0}), ("board", {})):
            nights = empty = 0
            for seed in range(args.games):
                n, e = play(table, seed, rules)
                nights += n
                empty += e
            print(f"{table:16} {label:10} {nights:6d} {empty:6d} {100 * empty / max(nights, 1):7.1f}%")


if __name__ == "__main__":
    main()
