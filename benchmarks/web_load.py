"""Load on ``arena serve``: many bot tables at once, each watched live by several spectators.

Starts ``arena serve`` in its own process, makes TABLES tables of ``bot:heuristic`` seats (with a
small reading pace, so the games last long enough to be watched live), connects SPECTATORS
WebSockets to each, and waits for every spectator to receive its table's result. Repeats ROUNDS
times and prints, per round: wall time, events and messages delivered, the server's resident
memory (now and peak, from /proc) so that growth across rounds shows, and how long the lobby took
to answer meanwhile (a request every 50 ms while the tables play: median, 95th percentile, worst).

    python benchmarks/web_load.py [--tables 20] [--spectators 5] [--rounds 3] [--pace 0.02]
    python benchmarks/web_load.py --pace 0 --spectators 1 --rounds 2          # bots as fast as they go
    python benchmarks/web_load.py --pace 0 --arena-root /work/main            # another checkout's server
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from websockets.asyncio.client import connect

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def memory_mb(pid: int) -> tuple[float, float]:
    """(resident now, peak resident) of a process, in MB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            fields[name] = int(value.split()[0]) / 1024
    return fields["VmRSS"], fields["VmHWM"]


async def watch(url: str) -> tuple[int, int, str]:
    """Follow one table to its result: (events, messages, winner)."""
    events = messages = 0
    async with connect(url, max_size=2**22) as ws:
        async for raw in ws:
            message = json.loads(raw)
            messages += 1
            if message["type"] == "events":
                events += len(message["events"])
            elif message["type"] == "result":
                result = message["result"] or {}
                return events, messages, result.get("winner", message.get("error") or "?")
    raise RuntimeError(f"{url}: closed before the result")


async def probe_lobby(client: httpx.AsyncClient, stop: asyncio.Event) -> list[float]:
    """Seconds each lobby request took, one every 50 ms until ``stop``."""
    took = []
    while not stop.is_set():
        started = time.perf_counter()
        (await client.get("/api/tables")).raise_for_status()
        took.append(time.perf_counter() - started)
        try:
            await asyncio.wait_for(stop.wait(), 0.05)
        except asyncio.TimeoutError:
            pass
    return took


async def one_round(base: str, ws_base: str, tables: int, spectators: int, pace: float,
                    headers: dict[str, str]) -> dict[str, float]:
    async with httpx.AsyncClient(base_url=base, timeout=60, headers=headers) as client:
        stop = asyncio.Event()
        probe = asyncio.ensure_future(probe_lobby(client, stop))
        start = time.perf_counter()
        ids = []
        for _ in range(tables):
            response = await client.post("/api/tables", json={"preset": "std-12-guard", "pace": pace})
            response.raise_for_status()
            ids.append(response.json()["id"])
        watchers = [watch(f"{ws_base}/ws/{table}") for table in ids for _ in range(spectators)]
        results = await asyncio.gather(*watchers)
        wall = time.perf_counter() - start
        stop.set()
        took = sorted(await probe)
    finished = sum(1 for _, _, winner in results if winner in ("village", "wolves", "lovers", "none"))
    return {"wall": wall, "connections": len(results), "finished": finished,
            "events": sum(r[0] for r in results), "messages": sum(r[1] for r in results),
            "probes": len(took), "median": statistics.median(took), "p95": took[int(0.95 * (len(took) - 1))],
            "worst": took[-1]}


async def main_async(args: argparse.Namespace) -> int:
    port = free_port()
    out = Path(tempfile.mkdtemp(prefix="arena-web-load-"))
    token = secrets.token_urlsafe(32)
    env = {**os.environ, "ARENA_SERVE_TOKEN": token, "PYTHONPATH": str(args.arena_root)}
    headers = {"authorization": f"Bearer {token}"}
    over_cap = ["--max-tables", str(args.tables)] if args.tables > 20 else []  # 20: the server's default cap
    server = subprocess.Popen([sys.executable, "-m", "arena", "serve", "--port", str(port), "--out", str(out),
                               *over_cap],
                              cwd=args.arena_root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        base, ws_base = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
        async with httpx.AsyncClient(base_url=base) as client:
            for _ in range(200):
                try:
                    await client.get("/api/presets")
                    break
                except httpx.TransportError:
                    await asyncio.sleep(0.05)
        idle, _ = memory_mb(server.pid)
        print(f"arena serve pid {server.pid}: {idle:.1f} MB resident when idle")
        print(f"{args.tables} tables of 12 bot:heuristic seats (std-12-guard, pace {args.pace}), "
              f"{args.spectators} spectators each")
        for n in range(1, args.rounds + 1):
            figures = await one_round(base, ws_base, args.tables, args.spectators, args.pace, headers)
            now, peak = memory_mb(server.pid)
            print(f"round {n}: {figures['finished']:.0f}/{figures['connections']:.0f} spectators saw their table "
                  f"finish in {figures['wall']:.1f} s; {figures['events']:.0f} events in "
                  f"{figures['messages']:.0f} messages ({figures['events'] / figures['wall']:.0f} events/s); "
                  f"server {now:.1f} MB resident, peak {peak:.1f} MB")
            print(f"  lobby meanwhile: {figures['probes']:.0f} requests, median {figures['median'] * 1000:.0f} ms, "
                  f"95th percentile {figures['p95'] * 1000:.0f} ms, worst {figures['worst'] * 1000:.0f} ms")
            if figures["finished"] != figures["connections"]:
                print("error: not every table finished", file=sys.stderr)
                return 1
        files = len(list(out.glob("*.jsonl")))
        print(f"{files} transcripts written to {out}")
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--spectators", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--pace", type=float, default=0.02,
                        help="reading pace of every table (0.02: a game lasts a few seconds; 0: bots as fast as they go)")
    parser.add_argument("--arena-root", type=Path, default=ROOT,
                        help="the checkout whose `arena serve` runs (to compare two versions on one machine)")
    args = parser.parse_args()
    if not sys.platform.startswith("linux"):
        print("this benchmark reads the server's memory from /proc (Linux only)", file=sys.stderr)
        return 2
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
