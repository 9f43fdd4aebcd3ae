"""LLM budget of a std-12 game with stand-in seats: calls, prompt tokens (full history vs rolling
summary), the cached-token share, and the wall time against the sequential bound.

    python benchmarks/llm_budget.py --games 5 --latency 0.05

Then, per day of the game (night d and day d together), the prompt tokens and tokens per call of
each memory strategy, averaged over the games that reached that day: under summary memory the
tokens per call stay flat, so a game's prompt tokens grow linearly with its number of days.

The stand-in answers with realistic lengths (400-char reasoning, 600-char speeches) and counts
prompt tokens with a real offline BPE vocabulary (``--tokenizer``, default o200k_base, from the
``bpe-openai`` package of the ``bench`` extra; ``chars4`` is the old characters/4 estimate).
``--memory summary --games 40`` checks summary memory's budget: it lists the games whose prompt
tokens (all twelve seats together) exceed ``--limit`` (100k).

Its simulated prefix cache is account-wide, as OpenAI's and Anthropic's are:
the twelve stand-ins of a game share one cache, which serves the longest prefix of a prompt that
any earlier prompt of the game began with; ``cached_share`` applies OpenAI's rules to it (nothing
under 1024 tokens, then 128-token blocks). The sequential bound is latency x the number of question
rounds in which at least one seat called the model: a round's questions are asked concurrently, so
a perfect driver takes exactly that long.

Two prefix shares, both counting every token (no cache minimum), both of all prompt tokens:

- stable prefix shared with the seat's own previous prompt (a per-conversation cache);
- prefix servable by an account-wide prefix cache: the longest prefix any earlier prompt of the
  game (any seat) began with. This is what the providers cache, and what issue 4's 80% is judged by.
"""

from __future__ import annotations

import argparse
import asyncio
import time

from agents.llm_prompts import SECTIONS, PromptBuilder
from agents.providers.mock import token_counter
from agents.registry import make_agent
from arena.engine import GameSetup
from arena.referee import run_game


def play(memory: str, seed: int, latency: float, tokenizer: str = "o200k_base", rules: dict | None = None,
         lang: str = "en", beliefs: str = "votes", agent: str = "mock:bench", preset: str = "std-12-guard") -> dict:
    """One game; the sequential bound counts the referee's question rounds that made a model call
    (the engine's ``pending()`` is called once per round, so calls are compared round to round)."""
    from arena.engine import Game

    from arena.config import get_preset

    agents = [make_agent(agent, seat=s, seed=seed, memory=memory, latency=latency, tokenizer=tokenizer,
                         beliefs=beliefs) for s in range(1, get_preset(preset).players + 1)]
    rounds_with_calls = 0
    last_total = 0
    original = Game.pending

    def pending(game):
        nonlocal rounds_with_calls, last_total
        total = sum(a.calls for a in agents)
        if total > last_total:
            rounds_with_calls += 1
        last_total = total
        return original(game)

    per_day: dict[int, list[int]] = {}  # day -> [calls, prompt tokens]
    per_kind: dict[str, list[int]] = {}  # decision kind -> [calls, prompt tokens]
    per_section: dict[str, int] = dict.fromkeys(SECTIONS, 0)  # prompt section -> tokens
    per_seat: dict[int, int] = {}  # seat -> prompt tokens
    count = token_counter(tokenizer)

    def metered(agent):
        decide = agent.decide

        async def wrapped(observation, request):
            calls, tokens = agent.calls, agent.usage.input
            answer = await decide(observation, request)
            for table, key in ((per_day, int(request.phase[1:])), (per_kind, str(request.kind))):
                row = table.setdefault(key, [0, 0])
                row[0] += agent.calls - calls
                row[1] += agent.usage.input - tokens
            per_seat[agent.seat] = per_seat.get(agent.seat, 0) + agent.usage.input - tokens
            return answer
        agent.decide = wrapped

    def build(builder, *args, **kwargs):
        built = original_build(builder, *args, **kwargs)
        for name, text in built.sections.items():
            per_section[name] += count(text)
        return built

    def build_belief(builder, *args, **kwargs):  # belief modes day_end / every_speech: their own prompt
        built = original_build_belief(builder, *args, **kwargs)
        for name, text in built.sections.items():
            per_section[name] += count(text)
        return built

    for a in agents:
        metered(a)
    original_build = PromptBuilder.build
    original_build_belief = PromptBuilder.build_belief
    patches = {(Game, "pending"): pending, (PromptBuilder, "build"): build, (PromptBuilder, "build_belief"): build_belief}
    saved = {key: getattr(*key) for key in patches}
    for (owner, name), value in patches.items():
        setattr(owner, name, value)
    try:
        start = time.perf_counter()
        result = asyncio.run(run_game(GameSetup(preset=preset, seed=seed, rules=rules or {}), agents,
                                      lang=lang))
        wall = time.perf_counter() - start
    finally:
        for (owner, name), value in saved.items():
            setattr(owner, name, value)
    mocks = [a.provider.provider for a in agents]
    return {"calls": sum(a.calls for a in agents), "input": sum(a.usage.input for a in agents),
            "cached": sum(a.usage.cached for a in agents), "days": int(result.phase[1:]),
            "stable": sum(m.stable_prefix_tokens for m in mocks),
            "servable": sum(m.servable_prefix_tokens for m in mocks), "wall": wall,
            "bound": rounds_with_calls * latency, "per_day": per_day, "per_kind": per_kind,
            "per_section": per_section, "largest_seat": max(per_seat.values(), default=0)}


def print_breakdown(rows: list[dict]) -> None:
    """Where a game's prompt tokens go: by decision kind (calls and tokens per game, tokens per call)
    and by prompt section (each section tokenized alone, so the sections' sum differs from the
    prompts' count by a few tokens at each seam)."""
    n = len(rows)
    total = sum(r["input"] for r in rows) / n
    kinds: dict[str, list[int]] = {}
    for r in rows:
        for kind, (calls, tokens) in r["per_kind"].items():
            row = kinds.setdefault(kind, [0, 0])
            row[0] += calls
            row[1] += tokens
    print(f"{'':8s} by decision kind (per game):  {'kind':24s} {'calls':>7} {'tokens':>9} {'share':>6} {'tok/call':>8}")
    for kind, (calls, tokens) in sorted(kinds.items(), key=lambda kv: -kv[1][1]):
        if calls:
            print(f"{'':38s}{kind:24s} {calls / n:7.1f} {tokens / n:9,.0f} {tokens / n / max(total, 1):6.1%} "
                  f"{tokens / calls:8,.0f}")
    sections = {name: sum(r["per_section"][name] for r in rows) / n for name in SECTIONS}
    summed = sum(sections.values())
    print(f"{'':8s} by prompt section (per game): {'section':24s} {'':>7} {'tokens':>9} {'share':>6}")
    for name, tokens in sections.items():
        print(f"{'':38s}{name:24s} {'':>7} {tokens:9,.0f} {tokens / max(summed, 1):6.1%}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=5)
    ap.add_argument("--latency", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=0, help="first seed (games use seed, seed+1, ...)")
    ap.add_argument("--tokenizer", default="o200k_base", choices=["o200k_base", "cl100k_base", "chars4"])
    ap.add_argument("--memory", default="full,summary", help="memory strategies, comma-separated")
    ap.add_argument("--rule", action="append", default=[], help="switch=value for every game (repeatable)")
    ap.add_argument("--limit", type=int, default=100_000,
                    help="report the games whose prompt tokens (all twelve seats together) exceed this")
    ap.add_argument("--lang", default="en", choices=["en", "zh"], help="the table's language")
    ap.add_argument("--agent", default="mock:bench", choices=["mock:bench", "mock:talker"], help=(
        "the stand-in: mock:bench speaks word salad of realistic length; mock:talker speaks as a chat model does"))
    ap.add_argument("--preset", default="std-12-guard", help="the board")
    ap.add_argument("--beliefs", default="votes",
                    help="belief modes of every seat, comma-separated: off, votes, day_end, every_speech")
    ap.add_argument("--breakdown", action=argparse.BooleanOptionalAction, default=True,
                    help="print where the tokens go: per decision kind and per prompt section")
    args = ap.parse_args()
    by_day: dict[str, dict[int, list[list[int]]]] = {}
    import yaml

    rules = {k: yaml.safe_load(v) for k, _, v in (r.partition("=") for r in args.rule)}
    from arena.config import get_preset

    try:
        get_preset(args.preset)
    except Exception as exc:
        ap.error(f"--preset: {exc}")
    print(f"tokenizer: {args.tokenizer}; language: {args.lang}; board: {args.preset}; stand-in: {args.agent}"
          + (f"; rules: {rules}" if rules else ""))
    print("prompt tokens per game: every prompt sent by the twelve seats together, cached or not")
    from arena.rules.beliefs import check_mode

    try:
        modes = [check_mode(m) for m in args.beliefs.split(",")]
    except ValueError as exc:
        ap.error(f"--beliefs: {exc}")
    for memory, mode in [(m, b) for m in args.memory.split(",") for b in modes]:
        seeds = range(args.seed, args.seed + args.games)
        rows = [play(memory, seed, args.latency, args.tokenizer, rules, args.lang, mode, args.agent, args.preset)
                for seed in seeds]
        over = [(seed, r["input"]) for seed, r in zip(seeds, rows) if r["input"] > args.limit]
        label = memory if len(modes) == 1 and mode == "votes" else f"{memory}/{mode}"
        for r in rows:
            for day, row in r["per_day"].items():
                by_day.setdefault(label, {}).setdefault(day, []).append(row)
        n = len(rows)
        calls = sum(r["calls"] for r in rows) / n
        tokens = sum(r["input"] for r in rows) / n
        cached = sum(r["cached"] for r in rows) / max(sum(r["input"] for r in rows), 1)
        stable = sum(r["stable"] for r in rows) / max(sum(r["input"] for r in rows), 1)
        servable = sum(r["servable"] for r in rows) / max(sum(r["input"] for r in rows), 1)
        days = sum(r["days"] for r in rows) / n
        bound = sum(r["bound"] for r in rows)
        ratio = f"{sum(r['wall'] for r in rows) / bound:.2f}" if bound else "n/a (--latency 0)"
        print(f"{label:8s} games={n} days/game={days:.1f} llm_calls/game={calls:.0f} "
              f"prompt_tokens/game={tokens:,.0f} tokens/day={tokens / days:,.0f} cached_share={cached:.1%} "
              f"wall/sequential_bound={ratio}")
        longest = max(zip(seeds, rows), key=lambda sr: sr[1]["input"])
        print(f"{'':8s} largest game: seed {longest[0]}, {longest[1]['days']} days, "
              f"{longest[1]['calls']} calls, {longest[1]['input']:,} prompt tokens")
        print(f"{'':8s} games over {args.limit:,} prompt tokens: {len(over)} of {n}"
              + (": " + ", ".join(f"seed {s} {t:,}" for s, t in over) if over else ""))
        print(f"{'':8s} largest single seat: {max(r['largest_seat'] for r in rows):,} prompt tokens in one game")
        print(f"{'':8s} stable prefix shared with the seat's own previous prompt: {stable:.1%}")
        print(f"{'':8s} prefix servable by an account-wide prefix cache (what the providers cache): {servable:.1%}")
        print(f"{'':8s} not served from the cache (OpenAI's rules): {1 - cached:.1%} "
              f"= {tokens * (1 - cached):,.0f} tokens/game")
        if args.breakdown:
            print_breakdown(rows)
    print("per day (night d + day d; mean over the games that reached it):")
    print(f"{'day':>3} {'games':>5} " + " ".join(f"{m + ' calls':>13} {m + ' tokens':>14} {m + ' tok/call':>16}"
                                             for m in by_day))
    for day in sorted({d for table in by_day.values() for d in table}):
        cells = []
        for m in by_day:
            rows_d = by_day[m].get(day, [])
            k = max(len(rows_d), 1)
            calls = sum(r[0] for r in rows_d) / k
            tokens = sum(r[1] for r in rows_d) / k
            cells.append(f"{calls:13.1f} {tokens:14,.0f} {tokens / max(calls, 1e-9):16,.0f}")
        print(f"{day:>3} {max(len(t.get(day, [])) for t in by_day.values()):>5} " + " ".join(cells))


if __name__ == "__main__":
    main()
