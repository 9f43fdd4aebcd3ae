"""16 concurrent games against one rate-limited model account, with and without the shared limiter.

A loopback OpenAI-compatible server (``tests.llm_loopback.RateLimitedModel``) answers any answer
schema and allows ``--rate`` requests per second (a one-second burst); above that it answers 429
with ``Retry-After``, as a provider account does. A tournament of ``--games`` games (an LLM seat
entry against ``bot:heuristic``, seating ``sides``) runs all of them at once, twice:

* without shared limits: every call backs off alone when it meets a 429;
* with ``rate_limits: {local: {requests_per_minute: <90% of the server's rate>}}`` in the config:
  every game takes its calls from one shared bucket (in-process for ``--executor async``, a
  file-locked bucket for ``--executor process``).

Printed per run: 429s the server sent, calls it answered, decisions that fell back to the default
because a call finally failed, wall time and games per minute.

    python benchmarks/rate_limits.py                      # 16 games, 20 requests/s, async
    python benchmarks/rate_limits.py --executor process   # the same across worker processes
"""

from __future__ import annotations

import argparse
import logging
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.tournament import RunOptions, TournamentConfig, run_tournament  # noqa: E402
from tests.llm_loopback import LoopbackServer, RateLimitedModel  # noqa: E402


def fallbacks(out: Path) -> int:
    count = 0
    for path in (out / "games").glob("*.jsonl"):
        for raw in path.read_bytes().splitlines():
            if raw.startswith(b'{"type":"decision"') and b"provider error" in raw:
                line = json.loads(raw)
                count += bool(line.get("defaulted"))
    return count


def one_run(args: argparse.Namespace, shared: bool) -> dict[str, float]:
    model = RateLimitedModel(args.rate, retry_after=args.retry_after)
    with LoopbackServer() as srv, tempfile.TemporaryDirectory() as tmp:
        srv.default = model  # type: ignore[assignment]
        llm = {"label": "llm", "agent": f"local:loopback@{srv.url}/v1",
               "options": {"max_retries": args.max_retries, "backoff_base": 0.5, "timeout": 30}}
        cfg = TournamentConfig(
            name="rate-limits", roster=[llm, {"label": "bot", "agent": "bot:heuristic"}],
            boards=[{"preset": args.board}], deals=max(args.games // 2, 1), seating="sides",
            concurrency=args.games, out=str(Path(tmp) / "out"),
            rate_limits={"local": {"requests_per_minute": args.rate * 60 * args.share}} if shared else {})
        started = time.monotonic()
        result = asyncio.run(run_tournament(cfg, RunOptions(executor=args.executor)))
        seconds = time.monotonic() - started
        return {"games": result.played, "failed": len(result.failed), "429s": model.limited, "answered": model.ok,
                "fallbacks": fallbacks(Path(tmp) / "out"), "seconds": seconds,
                "games_per_minute": result.played / seconds * 60}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=16)
    parser.add_argument("--rate", type=float, default=20.0, help="requests per second the server allows")
    parser.add_argument("--share", type=float, default=0.9, help="the limiter's rate as a share of the server's")
    parser.add_argument("--retry-after", type=float, default=1.0)
    parser.add_argument("--max-retries", type=int, default=4, help="the seats' retries per call")
    parser.add_argument("--board", default="std-tucheng-9")
    parser.add_argument("--executor", choices=["async", "process"], default="async")
    args = parser.parse_args()
    # An SDK client dropped after its event loop closed logs a harmless "Event loop is closed".
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    print(f"{args.games} concurrent games on {args.board}, server limit {args.rate:g} requests/s "
          f"(429 + Retry-After {args.retry_after:g}s above it), executor {args.executor}")
    for shared in (False, True):
        r = one_run(args, shared)
        name = "shared limiter " if shared else "no shared limit"
        print(f"{name}: {r['429s']:5d} 429s, {r['answered']:5d} calls answered, {r['fallbacks']:3d} fallbacks, "
              f"{r['games']:.0f} games ({r['failed']:.0f} failed) in {r['seconds']:.1f}s = "
              f"{r['games_per_minute']:.1f} games/minute")


if __name__ == "__main__":
    main()
