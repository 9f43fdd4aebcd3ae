"""Fact-recall audit (#25 item 2): does the prompt a seat got hold the facts a strong player relies on?

    PYTHONPATH=. python benchmarks/recall_audit.py --games 2 --lang en zh --memory full summary

Plays ``mock:talker`` games (the same game under each memory: the stand-in never reads its prompt)
and, for every model decision from day 3 on, checks each fact the seat could know against the text
of the prompt it was sent. The facts come from the seat's visible events (the referee's visibility
of the log, the observation the decision was asked with), never from the prompt builder; what a
speech claimed comes from the talker's own labels. A fact is found when its line (in the templates'
words) sits in the prompt's block of the phase it happened in, so a fact under the wrong day is
missed; a speech is found when its whole text is there; a claim when its speech is there whole or
the seat's own summary of that day states it. Prints found/total per fact class and memory.
"""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from agents.llm_prompts import EventRenderer, prompt_book, quote_speech
from agents.providers.talker import phrase_book, spoken, summary_item
from agents.registry import make_agent
from arena.config import get_preset
from arena.engine import GameSetup
from arena.referee import run_game

PRESETS = ("std-12-guard", "cupid-thief-12", "advanced-seed003")
SHOTS = {"hunter_shot", "self_destructed", "role_revealed", "idiot_revealed", "hunting_gun_fired", "king_took",
         "wild_wolf_kill", "fire_wolf_used", "brother_kill", "elder_life_lost"}


def fact_class(e: Any, seat: int, phase: str) -> str | None:
    """The class of a non-speech event as a fact for ``seat`` deciding in ``phase`` (None: not audited)."""
    t = e.type
    day = int(phase[1:])
    if t == "ballot_cast":
        if e.ballot in ("sheriff", "sheriff_pk"):
            return "ballots: sheriff elections"
        if e.phase == "D1":
            return "ballots: D1 exile"
        return "ballots: earlier days" if int(e.phase[1:]) < day else "ballots: today"
    if t in ("sheriff_candidates", "sheriff_withdrew"):
        return "sheriff candidates and withdrawals"
    if t in ("sheriff_elected", "badge_moved"):
        return "sheriff and badge moves"
    if t == "deaths_announced":
        return "peaceful nights" if not e.seats else "deaths announced"
    if t == "exile_result":
        return "exiles"
    if t in SHOTS:
        return "shots, self-destructs, reveals"
    if t == "witch_told" and e.seat == seat:
        return "the witch's knife (刀口) each night"
    if t == "wolf_knife":
        return "the wolves' own knife each night"
    if t == "seer_result" and e.seat == seat:
        return "own checks (with their night)"
    if t in ("witch_saved", "witch_poisoned") and e.seat == seat:
        return "own potions"
    if t == "guard_protected" and e.seat == seat:
        return "own guards"
    if t == "wolf_team":
        return "teammates"
    if t in ("lovers_linked", "lovers_recognised"):
        return "lover facts"
    return None


def blocks(text: str, renderer: EventRenderer, phases: list[str]) -> dict[str, str]:
    """The prompt's text by phase: from a phase's header to the next header (or the end)."""
    found = sorted((i, p) for p in phases if (i := text.find("\n" + renderer.phase_header(p) + "\n")) >= 0
                   or (i := text.find(renderer.phase_header(p) + "\n")) == 0)
    return {p: text[i:(found[k + 1][0] if k + 1 < len(found) else len(text))] for k, (i, p) in enumerate(found)}


def declared_item(renderer: EventRenderer, c: Any) -> str:
    """A claim as the speaker's declaration states it (prompts/<lang>/llm_decisions.yaml ``declared``)."""
    t = renderer.b.decisions["declared"]
    results = renderer.t.get("results", {})
    return t[c.what].format(role=renderer.role(c.role), seat=renderer.s(c.target), then=renderer.s(c.then),
                            night=c.night or "?", result=results.get(c.result or "", c.result or "?"))


def audit_decision(lang: str, seat: int, events: list[Any], phase: str, prompt: str, labels: dict[str, Any],
                   tally: dict[str, list[int]]) -> None:
    book = prompt_book(lang)
    talk = phrase_book(lang)
    renderer = EventRenderer(book, seat)
    phases = list(dict.fromkeys(e.phase for e in events))
    by_phase = blocks(prompt, renderer, phases)
    day = int(phase[1:])

    def count(cls: str, found: bool) -> None:
        row = tally.setdefault(cls, [0, 0])
        row[0] += int(found)
        row[1] += 1

    for e in events:
        block = by_phase.get(e.phase, "")
        if e.type == "speech":
            whole = quote_speech(e.text, book.mark) in block
            speech_day = int(e.phase[1:])
            if e.kind == "last_words":
                count("last words", whole)
            if phase.startswith("D") and e.phase == phase:
                count("today's speeches whole", whole)
            if phase.startswith("N") and speech_day == day - 1:
                count("night decisions see the day just ended", whole)
            said = spoken(labels, e.text)
            for c in (said.own if said else ()):
                if c.what == "vote_call":
                    continue
                found = whole or summary_item(talk, c, speech_day) in block or declared_item(renderer, c) in block
                count("own earlier public claims" if e.seat == seat else "claims with their day", found)
                if c.what == "badge_flow":
                    count("badge flows (警徽流)", found)
            continue
        cls = fact_class(e, seat, phase)
        if cls is None:
            continue
        line = renderer.line(e)
        if line:
            count(cls, line in block)


def play(preset: str, lang: str, seed: int, memory: str, tally: dict[str, list[int]]) -> dict[str, Any]:
    players = get_preset(preset).players
    agents = [make_agent("mock:talker", seat=s, seed=seed, memory=memory) for s in range(1, players + 1)]
    seen: list[tuple[int, list[Any], str, str]] = []
    for agent in agents:
        decide = agent.decide

        async def wrapped(observation: Any, request: Any, decide: Any = decide, seat: int = agent.seat) -> Any:
            answer = await decide(observation, request)
            phase = request.phase
            prompt = answer.extras.prompt if answer.extras else None
            if prompt and phase[1:].isdigit() and int(phase[1:]) >= 3:
                user = next((m["content"] for m in prompt if m["role"] == "user"), "")
                seen.append((seat, list(observation.events), phase, user))
            return answer
        agent.decide = wrapped  # type: ignore[method-assign]
    asyncio.run(run_game(GameSetup(preset=preset, seed=seed), agents, lang=lang))
    labels = agents[0].provider.provider.labels  # type: ignore[attr-defined]
    for seat, events, phase, user in seen:
        audit_decision(lang, seat, events, phase, user, labels, tally)
    return {"decisions": len(seen), "calls": sum(a.calls for a in agents),
            "input": sum(a.usage.input for a in agents), "cached": sum(a.usage.cached for a in agents)}


def audit(presets: list[str], langs: list[str], memories: list[str], games: int,
          seed: int = 0) -> tuple[dict[str, dict[str, list[int]]], dict[str, int]]:
    """Per memory: fact class -> [found, total]; and the decisions audited per memory."""
    results: dict[str, dict[str, list[int]]] = {}
    decisions: dict[str, int] = {}
    for memory in memories:
        tally: dict[str, list[int]] = {}
        for preset in presets:
            for lang in langs:
                for g in range(games):
                    decisions[memory] = decisions.get(memory, 0) + play(preset, lang, seed + g, memory, tally)["decisions"]
        results[memory] = tally
    return results, decisions


def print_table(results: dict[str, dict[str, list[int]]], decisions: dict[str, int]) -> None:
    memories = list(results)
    classes = sorted({c for t in results.values() for c in t})
    print(f"{'fact':44s}" + "".join(f"{m:>22s}" for m in memories))
    for cls in classes:
        cells = []
        for m in memories:
            found, total = results[m].get(cls, [0, 0])
            cells.append(f"{found / total:7.1%} ({found}/{total})" if total else "—")
        print(f"{cls:44s}" + "".join(f"{c:>22s}" for c in cells))
    print(f"{'decisions audited (day 3 on)':44s}" + "".join(f"{decisions.get(m, 0):>22d}" for m in memories))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=1, help="games per board and language")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--preset", nargs="+", default=list(PRESETS))
    ap.add_argument("--lang", nargs="+", default=["en", "zh"], choices=["en", "zh"])
    ap.add_argument("--memory", nargs="+", default=["full", "summary"], choices=["full", "summary"])
    args = ap.parse_args()
    unknown = [p for p in args.preset if p not in PRESETS and not _known(p)]
    if unknown:
        raise SystemExit(f"unknown preset(s): {', '.join(unknown)}")
    results, decisions = audit(args.preset, args.lang, args.memory, args.games, args.seed)
    print_table(results, decisions)


def _known(preset: str) -> bool:
    try:
        get_preset(preset)
        return True
    except Exception:
        return False


if __name__ == "__main__":
    main()
