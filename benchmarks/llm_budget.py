"""LLM budget of a std-12 game with stand-in seats: calls, prompt tokens (full history vs rolling
summary), the cached-token share, and the wall time against the sequential bound.

    python benchmarks/llm_budget.py --games 5 --latency 0.05

The stand-in answers with realistic lengths (400-char reasoning, 600-char speeches) and counts
tokens as characters/4; its simulated prefix cache counts the prefix shared with the seat's
previous prompt (in 128-token blocks from 1024 tokens on, as OpenAI does). The sequential bound is
latency x the number of question rounds in which at least one seat called the model: rounds are
asked concurrently by the referee, so a perfect driver takes exactly that long.
"""

from __future__ import annotations

import argparse
import asyncio
import time

from agents.registry import make_agent
from arena.engine import GameSetup
from arena.referee import run_game


class RoundCounter:
    """Counts question rounds with at least one model call, by watching call start times."""

    def __init__(self) -> None:
        self.rounds = 0
        self._open = False

    def wrap(self, agent):
        inner = agent.decide
        counter = self

        async def decide(observation, request):
            calls_before = agent.calls
            answer = await inner(observation, request)
            if agent.calls > calls_before and not counter._open:
                counter.rounds += 1
                counter._open = True
                asyncio.get_running_loop().call_soon(counter._close)
            return answer

        agent.decide = decide
        return agent

    def _close(self) -> None:
        self._open = False


def play(memory: str, seed: int, latency: float) -> dict:
    counter = RoundCounter()
    agents = [counter.wrap(make_agent("mock:bench", seat=s, seed=seed, memory=memory, latency=latency))
              for s in range(1, 13)]
    start = time.perf_counter()
    result = asyncio.run(run_game(GameSetup(preset="std-12-guard", seed=seed), agents))
    wall = time.perf_counter() - start
    return {"calls": sum(a.calls for a in agents), "input": sum(a.usage.input for a in agents),
            "cached": sum(a.usage.cached for a in agents), "days": int(result.phase[1:]),
            "wall": wall, "bound": counter.rounds * latency}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=5)
    ap.add_argument("--latency", type=float, default=0.05)
    args = ap.parse_args()
    for memory in ("full", "summary"):
        rows = [play(memory, seed, args.latency) for seed in range(args.games)]
        n = len(rows)
        calls = sum(r["calls"] for r in rows) / n
        tokens = sum(r["input"] for r in rows) / n
        cached = sum(r["cached"] for r in rows) / max(sum(r["input"] for r in rows), 1)
        days = sum(r["days"] for r in rows) / n
        ratio = sum(r["wall"] for r in rows) / max(sum(r["bound"] for r in rows), 1e-9)
        print(f"{memory:8s} games={n} days/game={days:.1f} llm_calls/game={calls:.0f} "
              f"prompt_tokens/game={tokens:,.0f} tokens/day={tokens / days:,.0f} cached_share={cached:.0%} "
              f"wall/sequential_bound={ratio:.2f}")


if __name__ == "__main__":
    main()
