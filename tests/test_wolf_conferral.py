"""R24's conferral (000 Judge note (4), 004 §A one minute, 004 §C veto): the knife holders propose in
rounds seen by the wolf team only, then show one number together; bots use it; the LLM prompt of the
final show lists the teammates' proposals."""

from __future__ import annotations

import re

import pytest

from agents.bots import RandomBot
from agents.heuristic import HeuristicBot
from agents.llm_prompts import PromptBuilder
from arena.config import resolve_rules
from tests.helpers import random_game


class PromptRecorder(HeuristicBot):
    """A heuristic seat that also builds the LLM prompt of every wolf question it is asked."""

    def __init__(self, seat: int, seed: int, lang: str, seen: list):
        super().__init__(seat, seed)
        self.prompt_lang = lang
        self.seen = seen

    def decide_sync(self, observation, request):
        if request.kind in ("wolf_kill", "wolf_propose", "wolf_veto"):
            built = PromptBuilder(self.prompt_lang, self.seat).build(observation, request)
            text = "\n".join(p.text for m in built.messages for p in m.parts)
            self.seen.append((self.seat, request, text, observation))
        return super().decide_sync(observation, request)


def play(preset: str, seed: int, lang: str = "en", rules: dict | None = None):
    n = resolve_rules(preset).preset.players
    seen: list = []
    agents = [PromptRecorder(s, seed, lang, seen) for s in range(1, n + 1)]
    result, transcript = random_game(preset, seed, rules, agents=agents, transcript=True)
    return result, transcript, seen


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_final_show_prompt_lists_every_teammates_proposal(lang):
    """R24: the final show's prompt names each teammate's latest proposal (seat and target)."""
    _, _, seen = play("std-12-guard", 5, lang)
    shows = [(seat, req, text) for seat, req, text, _ in seen
             if req.kind == "wolf_kill" and len(req.context["wolves"]) > 1]
    assert shows
    for seat, req, text in shows:
        proposals = req.context["proposals"]
        assert proposals and all(s != seat for s, _ in proposals)
        for mate, target in proposals:
            if lang == "en":
                want = f"#{mate} → " + ("nobody" if target is None else f"#{target}")
            else:
                want = f"{mate}号想刀" + ("无人" if target is None else f"{target}号")
            assert want in text, (want, text[-600:])


def test_proposals_are_seen_by_the_wolf_team_only():
    _, transcript, seen = play("std-12-guard", 8)
    wolves = {seat for seat, *_ in seen}
    for line in transcript.splitlines():
        if '"wolf_proposal"' in line and '"type":"wolf_proposal"' in line.replace(" ", ""):
            assert '"team":"wolves"' in line.replace(" ", "")
    # every seat's observation of a proposal is a wolf's
    for seat, _, _, observation in seen:
        assert seat in wolves
        assert all(e.visibility.allows(seat) for e in observation.events)


def test_blind_show_has_no_proposals():
    """wolf_conferral_rounds=0: the old blind show, nobody is asked to propose."""
    _, _, seen = play("std-12-guard", 5, rules={"wolf_conferral_rounds": 0})
    assert seen and all(req.kind == "wolf_kill" and "proposals" not in req.context for _, req, _, _ in seen)


def test_rounds_stop_once_the_team_agrees_and_run_all_rounds_otherwise():
    """Heuristic wolves agree in round 1; a random wolf beside them keeps the rounds going."""
    _, _, seen = play("std-12-guard", 5, rules={"wolf_conferral_rounds": 3})
    rounds = {req.context["round"] for _, req, _, _ in seen if req.kind == "wolf_propose"}
    assert rounds == {1}
    n = 12
    agents = [RandomBot(s, 11) if s == 1 else HeuristicBot(s, 11) for s in range(1, n + 1)]
    _, transcript = random_game("std-12-guard", 11, {"wolf_conferral_rounds": 3}, agents=agents, transcript=True)
    found = {int(r) for r in re.findall(r'"type":"wolf_proposal".*?"round":(\d)', transcript.replace(" ", ""))}
    assert found <= {1, 2, 3}


def empty_knife_share(rules: dict, seeds: range) -> float:
    """The share of wolf-knife nights with no target, heuristic wolves beside random ones (seats 1-3)."""
    empty = nights = 0
    for seed in seeds:
        agents = [RandomBot(s, seed) if s in (1, 2, 3) else HeuristicBot(s, seed) for s in range(1, 13)]
        result, _ = random_game("std-12-guard", seed, rules, agents=agents)
        knives = [e for e in result.game.log if e.type == "wolf_knife"]
        nights += len(knives)
        empty += sum(1 for e in knives if e.target is None)
    return empty / max(nights, 1)


def test_heuristic_follows_a_teammates_agreed_proposal():
    """A heuristic wolf beside random ones shows the proposal its teammates agree on: fewer empty
    knives than the blind show."""
    seeds = range(30)
    assert empty_knife_share({"wolf_conferral_rounds": 2}, seeds) < empty_knife_share({"wolf_conferral_rounds": 0}, seeds)
