"""LLM-style transcripts without a model: a bot that talks, reasons and keeps beliefs.

The viewer tests (and the README screenshot) need games whose speeches have content and whose
decision lines carry reasoning, beliefs, a prompt and a raw reply, as an LLM seat's would. This
bot plays legal random moves (from the seeded stream ``bot:<seat>``) and fills in the rest from
what its own observation shows, so it never "knows" more than its seat may.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from agents.base import SyncAgent
from agents.bots import random_choice
from arena.actions import Answer, AnswerExtras, DecisionRequest, ModelUsage
from arena.engine import GameSetup
from arena.observation import Observation
from arena.referee import play_sync
from arena.transcript import TranscriptWriter

LINES = {
    "en": {
        "seer_claim": "I am the seer. Last night I checked #{target}: {result}. Follow my badge flow.",
        "suspect": "#{target} was too quiet and voted oddly; I read them as a wolf. I'm a plain villager.",
        "wolf_fake": "I'm a good card with nothing to hide. #{target}'s story doesn't add up; vote them out.",
        "last": "My last words: I trust #{trust}, watch #{target}.",
        "campaign": "Give me the badge: I will keep a clear speaking order and hunt the wolves. My first read: #{target}.",
        "reason": "Weighing the speeches so far, #{target} looks most suspicious to me.",
        "good": "good",
        "wolf": "a wolf",
    },
    "zh": {
        "seer_claim": "我是预言家，昨晚验了{target}号，是{result}。警徽流请大家记好。",
        "suspect": "{target}号发言太少、投票奇怪，我觉得是狼。我是平民。",
        "wolf_fake": "我是好人身份，没什么好藏的。{target}号的逻辑对不上，出他。",
        "last": "遗言：我相信{trust}号，注意{target}号。",
        "campaign": "把警徽给我，我会安排清晰的发言顺序，带大家找狼。我首先关注{target}号。",
        "reason": "综合目前的发言，{target}号最可疑。",
        "good": "好人",
        "wolf": "狼人",
    },
}


def _legal_json(request: DecisionRequest) -> Any:
    legal = request.legal
    return legal.to_json() if hasattr(legal, "to_json") else legal.model_dump()


class ChattyBot(SyncAgent):
    """Random legal moves, with speeches, reasoning and beliefs built from the seat's own view."""

    deterministic = True

    def __init__(self, seat: int, seed: int, lang: str = "en"):
        self.seat = seat
        self.seed = seed
        self.rng = random.Random(f"{seed}:bot:{seat}")
        self.lang = lang
        self.spec = "mock:chatty-llm"

    def decide_sync(self, observation: Observation, request: DecisionRequest) -> Answer:
        view = observation.view()
        others = sorted(s for s in view.alive if s != self.seat) or [self.seat]
        text = LINES[self.lang]
        target = self.rng.choice(others)
        wolves = set(view.wolves)
        beliefs = {s: (1.0 if s in wolves else round(self.rng.random(), 2))
                   for s in others}
        for checked, result in view.seer_results.items():
            beliefs[checked] = 0.95 if result == "wolf" else 0.05
        value: Any
        if request.legal.type == "text":
            value = self._speech(view, request, target)
        elif request.kind in ("self_destruct", "self_destruct_election"):
            value = False  # a model rarely throws the game; random bots do it far too often
        elif request.kind == "wolf_kill" and wolves:
            # the pack agrees: every wolf draws the same victim from a stream keyed by the night
            victims = sorted(set(request.legal.options) - wolves)
            value = random.Random(f"{self.seed}:{request.phase}:knife").choice(victims) if victims else None
        elif request.kind == "sheriff_withdraw":
            value = self.rng.random() < 0.1
        else:
            value = random_choice(request, self.rng)
        reasoning = text["reason"].format(target=target)
        prompt = f"[seat {self.seat}] decision {request.kind} in {request.asked_in}; legal: {_legal_json(request)}"
        raw = json.dumps({"reasoning": reasoning, "answer": value}, ensure_ascii=False)
        return Answer(value=value, reasoning=reasoning, beliefs=beliefs,
                      extras=AnswerExtras(prompt=prompt, raw_reply=raw, usage=ModelUsage(input=900, output=60)))

    def _speech(self, view: Any, request: DecisionRequest, target: int) -> str:
        text = LINES[self.lang]
        kind = request.context.get("speech", "discussion")
        if kind == "last_words":
            trust = min(view.alive - {target}, default=target)
            return text["last"].format(trust=trust, target=target)
        if kind.startswith("campaign"):
            return text["campaign"].format(target=target)
        if view.role == "seer" and view.seer_results:
            checked, result = list(view.seer_results.items())[-1]
            return text["seer_claim"].format(target=checked, result=text["wolf" if result == "wolf" else "good"])
        if view.role == "werewolf":
            return text["wolf_fake"].format(target=target)
        return text["suspect"].format(target=target)


def write_llm_style_transcript(path: str | Path, *, preset: str = "std-12-guard", seed: int = 7,
                               lang: str = "en") -> Path:
    """Play one ChattyBot game and write its transcript to ``path``."""
    from arena.config import resolve_rules

    players = resolve_rules(preset, {}).players
    agents = [ChattyBot(seat, seed, lang) for seat in range(1, players + 1)]
    labels = [f"Chatty-{seat}" for seat in range(1, players + 1)]
    path = Path(path)
    with TranscriptWriter(path) as writer:
        play_sync(GameSetup(preset=preset, seed=seed), agents, writer=writer,
                  specs=[a.spec for a in agents], lang=lang)
    # labels are a header field; play_sync does not take them, so patch the header line in place
    lines = path.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    for agent, label in zip(header["agents"], labels):
        agent["label"] = label
    lines[0] = json.dumps(header, ensure_ascii=False)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


if __name__ == "__main__":  # python tests/llm_style.py OUT.jsonl [seed] [lang]
    import sys

    out = write_llm_style_transcript(sys.argv[1], seed=int(sys.argv[2]) if len(sys.argv) > 2 else 7,
                                     lang=sys.argv[3] if len(sys.argv) > 3 else "en")
    print(out)
