"""Every fold and renderer of events knows every event class, and takes its lists from one place.

The event union (``arena.events.Event``) is the one source: ``arena.table`` derives the list of event
types from it and gives each its page icon and seat marker, which the replay page (viewer.js, through
the page's data) and the terminal's live view both draw. Narration, the replay page's text and the
LLM renderer are held to every event by tests/test_coverage.py; the reducer, the LLM renderer, the
narration and a seat's summary (``SeatView``) are ``match`` statements ending in ``assert_never``, so
the type checker names a new class they miss. This file covers the rest: a new event class fails
here until the table, the heuristic bot's memory, the live view and the page know it.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

from agents.heuristic import UNFOLDED, Memory
from arena.live import DELAYS, MARKS, TableState
from arena.observation import _KEPT, SeatView
from arena.table import EVENT_CLASSES, EVENT_ICON, EVENT_TYPES, MARKER_ICON, table_mark, wolf_cards
from arena.rules.registry import registry
from tests.test_coverage import all_events, played, synthetic_events

ROOT = Path(__file__).resolve().parent.parent
ASSETS = ROOT / "arena" / "viewer_assets"
VIEWER_JS = (ASSETS / "viewer.js").read_text(encoding="utf-8")
VIEWER_CSS = (ASSETS / "viewer.css").read_text(encoding="utf-8")


def page_icons() -> set[str]:
    """The names of the inline SVG symbols viewer.js can draw (its table ``P``)."""
    block = VIEWER_JS[VIEWER_JS.index("const P = {"):VIEWER_JS.index("};", VIEWER_JS.index("const P = {"))]
    return set(re.findall(r"^\s+([a-z]+): '", block, re.M))


def js_event_types() -> set[str]:
    """Every event type viewer.js names: switch cases, comparisons with ``.type`` and lists tested with it."""
    named = set(re.findall(r'case "(\w+)"', VIEWER_JS))
    named |= set(re.findall(r'\.type [!=]== "(\w+)"', VIEWER_JS))
    for listed in re.findall(r"\[([^\]]*)\]\.includes\(e\.type\)", VIEWER_JS):
        named |= set(re.findall(r'"(\w+)"', listed))
    return named


def test_the_event_types_are_the_union_s() -> None:
    assert len(EVENT_TYPES) == len(set(EVENT_TYPES)) == len(EVENT_CLASSES) > 40
    assert "game_ended" in EVENT_TYPES and "maid_swapped" in EVENT_TYPES


def test_every_event_type_has_an_icon_the_page_can_draw() -> None:
    missing = [t for t in EVENT_TYPES if t not in EVENT_ICON]
    assert not missing, f"arena/table.py EVENT_ICON has no icon for event type(s) {missing}"
    assert not set(EVENT_ICON) - set(EVENT_TYPES), "EVENT_ICON names event types that do not exist"
    unknown = {icon for icon in EVENT_ICON.values() if icon is not None} - page_icons()
    assert not unknown, f"viewer.js has no symbol for icon(s) {unknown}"


def test_every_marker_an_event_leaves_is_drawn_on_the_page_and_in_the_terminal() -> None:
    left = {mark[1] for e in all_events() if (mark := table_mark(e)) is not None}
    assert left == set(MARKER_ICON), "MARKER_ICON and the markers table_mark leaves differ"
    for marker in MARKER_ICON:
        assert marker in MARKS, f"arena/live.py MARKS has no glyph for marker {marker!r}"
        assert f".marker.{marker} " in VIEWER_CSS, f"viewer.css has no colour for marker {marker!r}"
    assert set(MARKER_ICON.values()) <= page_icons()


def test_viewer_js_names_only_real_event_types_and_no_hand_list_of_cards() -> None:
    named = js_event_types()
    assert named, "the pattern finding viewer.js's event types found none"
    assert named <= set(EVENT_TYPES), f"viewer.js names event types that do not exist: {named - set(EVENT_TYPES)}"
    assert "EVENT_ICON" not in VIEWER_JS  # icons come with each event (arena/table.py)
    cards = [c for c in wolf_cards() if c != "werewolf"]
    assert not [c for c in cards if f'"{c}"' in VIEWER_JS], "viewer.js lists wolf cards: use DATA.meta.wolf_cards"
    assert set(wolf_cards()) == {str(role) for role, spec in registry().specs.items() if spec.camp == "wolves"}


def test_the_live_view_names_only_real_event_types() -> None:
    assert set(DELAYS) <= set(EVENT_TYPES)
    source = (ROOT / "arena" / "live.py").read_text(encoding="utf-8")
    named = set(re.findall(r'e\.type == "(\w+)"', source))
    for listed in re.findall(r"e\.type in \(([^)]*)\)", source):
        named |= set(re.findall(r'"(\w+)"', listed))
    assert named and named <= set(EVENT_TYPES)


def samples_of(cls: type) -> list[Any]:
    """Events of the class from real games on every board, and built ones with each value of each field
    (a phase field holds a phase: the folds read the night number from it)."""
    phases = [n for n in cls.model_fields if n.endswith("phase") and n != "phase"]
    built = [e.model_copy(update={n: "N1" for n in phases}) for e in synthetic_events(cls)]
    return [e for e in played()[0] if type(e) is cls][:20] + built


@pytest.mark.parametrize("cls", EVENT_CLASSES, ids=lambda c: c.__name__)
def test_every_fold_takes_every_event_class(cls: type) -> None:
    samples = samples_of(cls)
    assert samples, f"no sample of {cls.__name__}"
    for e in samples:
        memory = Memory(players=12, alive=set(range(1, 13)))
        memory.apply(e)  # raises for an event type it neither folds nor lists in UNFOLDED
        TableState(players=12).apply(e)
        SeatView(seat=1, players=12, alive=set(range(1, 13))).apply(e)
        table_mark(e)


def _heuristic_folded() -> set[str]:
    source = (ROOT / "agents" / "heuristic.py").read_text(encoding="utf-8")
    body = source[source.index("    def apply(self, e: Any) -> None:"):source.index("    def _speech(self")]
    folded = set(re.findall(r'\bt == "(\w+)"', body))
    for listed in re.findall(r"\bt in \(([^)]*)\)", body):
        folded |= set(re.findall(r'"(\w+)"', listed))
    return folded


def test_the_heuristic_memory_decides_on_every_event_type_once() -> None:
    folded = _heuristic_folded()
    assert folded <= set(EVENT_TYPES), f"Memory.apply folds event types that do not exist: {folded - set(EVENT_TYPES)}"
    assert UNFOLDED <= set(EVENT_TYPES), f"UNFOLDED names event types that do not exist: {UNFOLDED - set(EVENT_TYPES)}"
    assert not folded & UNFOLDED, f"folded and listed as unfolded: {folded & UNFOLDED}"
    assert folded | UNFOLDED == set(EVENT_TYPES), f"neither folded nor unfolded: {set(EVENT_TYPES) - folded - UNFOLDED}"


def test_a_new_event_type_stops_the_heuristic_memory_by_name() -> None:
    class Brand:
        type = "brand_new_event"

    with pytest.raises(ValueError, match="no fold for event 'brand_new_event'"):
        Memory().apply(Brand())


def test_a_seat_s_summary_keeps_exactly_the_classes_it_has_cases_for() -> None:
    tree = ast.parse((ROOT / "arena" / "observation.py").read_text(encoding="utf-8"))
    apply = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "apply")
    match = next(n for n in ast.walk(apply) if isinstance(n, ast.Match))
    single = {c.pattern.cls.id for c in match.cases
              if isinstance(c.pattern, ast.MatchClass) and isinstance(c.pattern.cls, ast.Name)}
    assert single == {cls.__name__ for cls in _KEPT}
