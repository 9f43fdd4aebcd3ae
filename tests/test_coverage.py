"""Coverage of words, walked from the role registry and the event vocabulary: nothing a seat, a spectator
or a model is shown may fall back to a generic line or a dump of fields.

- every role has its card in every language (the LLM card and one-line brief, its name everywhere);
- every decision kind has an LLM question and a human-seat question in every language, and every kind a
  role module asks is one of the vocabulary;
- every night step has the words the referee says when calling it; every death cause has its words;
- every event type has a narration, a replay-page line and an LLM rendering in every language;
- every role is dealt on some shipped board (tests/test_boards.py plays every board and checks its leaks).

A failure names what is missing, e.g. ``zh: kind 'maid_swap' has no human question (prompts/zh/human.yaml
kinds)``. Events are rendered from every class of :data:`arena.events.Event` with each value of their
choice fields, and from the events of real games on every board.
"""

from __future__ import annotations

import random
import re
import typing
from functools import lru_cache
from typing import Any, Literal, get_args, get_origin

import pytest
import yaml

from agents.bots import random_choice
from agents.human import HumanAgent
from agents.llm_prompts import SKIPPED_EVENTS, EventRenderer, PromptBuilder, prompt_book
from arena.actions import ChooseSeat, DecisionRequest, RateSeats, Speak
from arena.rules.idiot import INTERJECTION
from arena.config import presets
from arena.engine import Game, GameSetup
from arena.events import Event, NightStep, Visibility
from arena.narration import LANGS, PROMPTS_DIR, Narrator
from arena.observation import SeatView
from arena.rules.registry import registry
from arena.types import Cause, Kind, Role
from arena.viewer import EventText

#: A ``{field}`` left in a rendered text: a template named a field its renderer does not fill.
UNFILLED = re.compile(r"\{[a-z_]+\}")
EVENT_CLASSES: tuple[type, ...] = get_args(get_args(Event)[0])


def _yaml(lang: str, name: str) -> dict[str, Any]:
    return yaml.safe_load((PROMPTS_DIR / lang / name).read_text(encoding="utf-8"))


# ---- samples -------------------------------------------------------------------------------

def _choices(annotation: Any) -> list[Any]:
    """Values worth rendering for one field: each choice of a Literal/enum/bool, a seat and None."""
    origin = get_origin(annotation)
    if origin is Literal:
        return list(get_args(annotation))
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        out: list[Any] = []
        for arg in get_args(annotation):
            out += [None] if arg is type(None) else _choices(arg)[:2]
        return out
    if origin is list:
        inner = get_args(annotation)[0]
        return [[2, 5] if inner is int else [_choices(inner)[0], _choices(inner)[-1]], []]
    if origin is dict:
        return [{"2": 1.0, "5": 2.0}, {}]
    if isinstance(annotation, type):
        if issubclass(annotation, bool):
            return [True, False]
        if issubclass(annotation, int):
            return [3]
        if issubclass(annotation, float):
            return [1.5]
        if issubclass(annotation, str) and hasattr(annotation, "__members__"):
            return list(annotation)  # an enum: every member
        if issubclass(annotation, str):
            return ["a reason"]
    return [None]


def synthetic_events(cls: type) -> list[Any]:
    """One event of the class per value of each field (the others at their first value)."""
    hints = typing.get_type_hints(cls)
    fields = {n: _choices(hints[n]) for n in cls.model_fields if n not in ("type", "visibility", "phase")}
    if cls is NightStep:
        fields["step"] = list(registry().steps)  # every step the registry calls
    base = {n: values[0] for n, values in fields.items()}
    out = []
    for name, values in [("", [None]), *fields.items()]:
        for value in values:
            data = dict(base, phase="N1", visibility=Visibility(to="all"))
            if name:
                data[name] = value
            try:
                out.append(cls(**data))
            except ValueError:
                continue  # a combination the model refuses (e.g. a step name that is not a step)
    return out


@lru_cache(maxsize=1)
def played() -> tuple[list[Any], list[DecisionRequest]]:
    """Events and requests of random games on every shipped board (a few seeds each)."""
    events: dict[tuple[str, str], Any] = {}
    requests: dict[str, list[DecisionRequest]] = {}
    for preset in presets():
        for seed in range(8):
            game = Game(GameSetup(preset=preset, seed=seed))
            rng = random.Random(seed)
            while not game.over:
                pending = game.pending()
                for r in pending:
                    requests.setdefault(r.kind, [])
                    if len(requests[r.kind]) < 3:
                        requests[r.kind].append(r)
                game.submit({r.id: random_choice(r, rng) for r in pending})
            for e in game.log:  # a few of each type, with their variants of "nobody"
                events.setdefault((e.type, repr(sorted(e.model_dump(exclude={"phase", "visibility"}).items()))[:80]), e)
    for kind, (legal, context) in RARE_REQUESTS.items():  # kinds random games on the shipped boards seldom reach
        if kind.value not in requests:
            requests[kind.value] = [DecisionRequest(1, 2, kind.value, "D2", "D2", legal, None, context)]
    return list(events.values()), [r for rs in requests.values() for r in rs]


#: Requests built the way their rule module builds them, for kinds that need a switch no shipped board
#: sets (R138 ``may_interject``) or a rare course of play (the big wolf brother dying before the little).
RARE_REQUESTS = {
    Kind.IDIOT_INTERJECT: (INTERJECTION, {"speaker": 3, "speech": "discussion"}),
    Kind.INTERJECTION_REPLY: (INTERJECTION, {"idiot": 4, "speech": "pk"}),
    Kind.BROTHER_KILL: (ChooseSeat(options=(1, 3, 5)), {}),
    # 004 §C's veto and the conferral's team messages (wolf_conferral_veto / _messages; few boards set them)
    Kind.WOLF_VETO: (ChooseSeat(options=(5, 9)), {"wolves": [2, 4, 7], "proposals": [[4, 9], [7, 5]]}),
    Kind.WOLF_MESSAGE: (Speak(max_chars=120), {"wolves": [2, 4], "round": 1, "rounds": 2, "proposals": []}),
    # the black wolf king's take needs him to die with the skill usable, which random games rarely reach
    Kind.WOLF_KING_SHOOT: (ChooseSeat(options=(1, 3, 5)), {}),
    # asked only of seats in belief mode day_end / every_speech (bots have none)
    Kind.BELIEF: (RateSeats(seats=(1, 3, 5)), {"after": "speech", "speaker": 3, "speech": "discussion"}),
}


def all_events() -> list[Any]:
    samples: list[Any] = []
    for cls in EVENT_CLASSES:
        samples += synthetic_events(cls)
    return samples + played()[0]


# ---- roles, kinds, steps, causes ------------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_every_role_has_its_card_and_its_name(lang: str) -> None:
    roles = _yaml(lang, "llm_roles.yaml")
    names = {"LLM role name (llm_system.yaml role_names)": _yaml(lang, "llm_system.yaml")["role_names"],
             "narration name (narration.yaml role)": _yaml(lang, "narration.yaml")["role"],
             "replay-page name (viewer.yaml role)": _yaml(lang, "viewer.yaml")["role"],
             "LLM card (llm_roles.yaml roles)": roles["roles"], "LLM brief (llm_roles.yaml brief)": roles["brief"]}
    missing = [f"{lang}: role {role.value!r} has no {what}" for role in registry().roles
               for what, table in names.items() if not table.get(role.value)]
    assert not missing, "\n".join(missing)


@pytest.mark.parametrize("lang", LANGS)
def test_every_decision_kind_has_an_llm_and_a_human_question(lang: str) -> None:
    llm = _yaml(lang, "llm_decisions.yaml")["kinds"]
    human = _yaml(lang, "human.yaml")["kinds"]
    missing = []
    for kind in Kind:
        if not llm.get(kind.value):
            missing.append(f"{lang}: kind {kind.value!r} has no LLM question (prompts/{lang}/llm_decisions.yaml kinds)")
        if not human.get(kind.value):
            missing.append(f"{lang}: kind {kind.value!r} has no human question (prompts/{lang}/human.yaml kinds)")
    assert not missing, "\n".join(missing)
    assert set(llm) <= {k.value for k in Kind}, f"questions for unknown kinds: {set(llm) - {k.value for k in Kind}}"


def test_every_kind_a_role_asks_is_in_the_vocabulary_and_asked_by_one_role() -> None:
    owners: dict[Kind, list[Role]] = {}
    for role, spec in registry().specs.items():
        for kind in spec.kinds:
            owners.setdefault(Kind(kind), []).append(role)
    assert not {k: o for k, o in owners.items() if len(o) > 1}


@pytest.mark.parametrize("lang", LANGS)
def test_questions_render_with_every_field_filled(lang: str) -> None:
    """Questions of real requests on every board: LLM and human seat, no ``{field}`` left unfilled."""
    _, requests = played()
    missing = [f"no sample request of kind {k.value!r} (add one to RARE_REQUESTS)" for k in Kind
               if k.value not in {r.kind for r in requests}]
    assert not missing, "\n".join(missing)
    problems = []
    for request in requests:
        builder = PromptBuilder(lang, request.seat)
        view = SeatView(seat=request.seat, players=12, alive=set(range(1, 13)), role="seer")
        llm = builder.question(request, view, builder.legal_text(request.legal), None, [], 300)
        human = HumanAgent(request.seat, lang)._question_text(request)
        for who, text in (("LLM", llm), ("human", human)):
            if UNFILLED.search(text):
                problems.append(f"{lang}: {who} question for {request.kind!r} leaves {UNFILLED.findall(text)}: {text}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("lang", LANGS)
def test_every_night_step_and_death_cause_has_its_words(lang: str) -> None:
    narration = _yaml(lang, "narration.yaml")
    missing = [f"{lang}: night step {step!r} has no words (prompts/{lang}/narration.yaml step_name)"
               for step in registry().steps if not narration["step_name"].get(step)]
    missing += [f"{lang}: death cause {cause.value!r} has no words (prompts/{lang}/narration.yaml cause)"
                for cause in Cause if not narration["cause"].get(cause.value)]
    assert not missing, "\n".join(missing)


def test_every_role_is_dealt_on_some_shipped_board() -> None:
    dealt = {card for preset in presets().values() for card in preset.cards}
    missing = sorted(r.value for r in registry().roles - dealt)
    assert not missing, f"roles no shipped board deals (add a board in configs/presets.yaml): {missing}"


# ---- events ---------------------------------------------------------------------------------

def _render_all(lang: str) -> list[str]:
    narrator = Narrator(lang, god_view=True)
    page = EventText(lang)
    book = prompt_book(lang)
    problems = []
    for e in all_events():
        renderers = {"narration": narrator.text, "replay page": page.line,
                     "LLM": EventRenderer(book, getattr(e, "seat", None) or 1)._body}
        for who, render in renderers.items():
            try:
                text = render(e)
            except KeyError as exc:
                problems.append(f"{lang}: event {e.type!r} has no {who} text ({exc})")
                continue
            if text is None and not (who == "LLM" and (e.type in SKIPPED_EVENTS or e.type in ("speech", "role_assigned"))):
                problems.append(f"{lang}: event {e.type!r} has no {who} text")
            elif text is not None and (UNFILLED.search(text) or f"{e.type}:" in text):
                problems.append(f"{lang}: {who} text of {e.type!r} is not worded: {text!r}")
    return sorted(set(problems))


@pytest.mark.parametrize("lang", LANGS)
def test_every_event_type_is_worded_by_every_renderer(lang: str) -> None:
    problems = _render_all(lang)
    assert not problems, "\n".join(problems)


def test_the_samples_cover_every_event_class() -> None:
    seen = {e.type for e in all_events()}
    assert seen == {cls.model_fields["type"].default for cls in EVENT_CLASSES}
