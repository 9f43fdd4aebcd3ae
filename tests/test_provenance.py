"""Provenance and private thinking in transcripts: the header's build record (commit, templates) for
games with model seats and none for bot games; each decision line's reply provenance; native
thinking recorded in the thinking seat's own decision lines and nowhere another seat could read it."""

from __future__ import annotations

import asyncio
import io
import json
import subprocess
from pathlib import Path

from agents.llm import LLMAgent
from agents.providers.base import ProviderReply, Usage
from agents.providers.wrapper import CallPolicy, ManagedProvider
from agents.registry import make_agent
from arena.engine import GameSetup
from arena.provenance import NOT_A_CHECKOUT, git_state, template_hashes
from arena.referee import run_game
from arena.transcript import TranscriptWriter
from tests.llm_loopback import schema_instance


class ThinkingModel:
    """A model that thinks out loud in private (a marker naming its seat) and answers legally."""

    name = "thinking-test"

    def __init__(self, seat: int):
        self.model = "thinker-2026-01-01"
        self.seat = seat

    async def generate(self, messages, *, schema, options):  # type: ignore[no-untyped-def]
        answer = schema_instance(schema.json_schema) if schema is not None else {}
        return ProviderReply(text=json.dumps(answer), parsed=answer, thinking=f"PRIVATE-THOUGHT-OF-SEAT-{self.seat}",
                             usage=Usage(input=100, output=20, reasoning=12), model=self.model,
                             finish_reason="end_turn", request_id=f"req-{self.seat}", api="messages")


def play(agents: list, specs: list[str], seed: int = 4) -> list[dict]:
    buffer = io.StringIO()
    asyncio.run(run_game(GameSetup(preset="std-12-guard", seed=seed), agents, writer=TranscriptWriter(stream=buffer),
                         specs=specs))
    return [json.loads(line) for line in buffer.getvalue().splitlines()]


def test_thinking_stays_in_the_thinking_seats_own_decision_lines():
    thinkers = {2, 7}
    agents = [LLMAgent("thinking:test", s, ManagedProvider(ThinkingModel(s), CallPolicy(timeout=5)))
              if s in thinkers else make_agent("bot:heuristic", seat=s, seed=4) for s in range(1, 13)]
    lines = play(agents, [a.spec for a in agents])
    header, decisions = lines[0], [x for x in lines if x["type"] == "decision"]
    events = [x for x in lines if x["type"] == "event"]
    assert header["build"]["templates"] and header["build"]["version"]
    for seat in thinkers:
        marker = f"PRIVATE-THOUGHT-OF-SEAT-{seat}"
        own = [d for d in decisions if d["seat"] == seat and d["usage"]]
        assert own and all(d["raw_reply"]["thinking"] == marker for d in own)
        assert all(d["visibility"] == {"to": "seats", "seats": [seat], "team": None} for d in own)
        # Nowhere another seat could read it: no event, no other seat's line (its prompts included).
        assert marker not in json.dumps(events)
        assert marker not in json.dumps([d for d in decisions if d["seat"] != seat])
        replies = [r for d in own for r in d["usage"]["replies"]]
        assert replies[0] == {"api": "messages", "model": "thinker-2026-01-01", "finish_reason": "end_turn",
                              "request_id": f"req-{seat}"}
        assert all(d["usage"]["reasoning"] == 12 * d["usage"]["calls"] for d in own)


def test_bot_games_carry_no_build_record_so_their_bytes_do_not_follow_the_commit():
    agents = [make_agent("bot:heuristic", seat=s, seed=4) for s in range(1, 13)]
    header = play(agents, ["bot:heuristic"] * 12)[0]
    assert "build" not in header


def test_the_build_record_names_the_commit_and_hashes_every_template():
    commit, dirty = git_state()
    root = Path(__file__).resolve().parent.parent
    if (root / ".git").exists():
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True).stdout
        assert commit == head.strip() and isinstance(dirty, bool)
    else:
        assert commit == NOT_A_CHECKOUT
    hashes = template_hashes()
    assert "en/llm_system.yaml" in hashes and "zh/llm_system.yaml" in hashes
    assert all(len(h) == 12 for h in hashes.values())


def test_outside_a_checkout_the_commit_says_so(tmp_path: Path):
    assert git_state.__wrapped__(tmp_path) == (NOT_A_CHECKOUT, None)  # type: ignore[attr-defined]
