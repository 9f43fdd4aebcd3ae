"""The one claim extractor (arena/evaluate/claims.py): who claims what, measured on labelled speeches."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.heuristic import parse_speech
from arena.evaluate.claim_benchmark import CLAIM_TYPES, load_labelled, score_rows
from arena.evaluate.claims import parse_claims

DATA = Path(__file__).parent / "data" / "claims_labelled.jsonl"

#: (true positives, false positives, false negatives) per claim type, as benchmarks/claim_extractor.py
#: prints them and docs/metrics.md records them. The test fails on any false positive more than
#: these, or on more than one miss more per field; a change that improves a figure updates all three.
REPORTED_ALL = {"roles": (232, 0, 1), "checks": (186, 0, 0), "reported_roles": (105, 0, 2),
                "reported_checks": (29, 0, 0)}
REPORTED_HELD_OUT = {"roles": (29, 0, 1), "checks": (19, 0, 0), "reported_roles": (15, 0, 0),
                     "reported_checks": (7, 0, 0)}


def test_the_labelled_set_is_large_and_covers_both_languages_and_sources() -> None:
    rows = load_labelled(DATA)
    assert len(rows) >= 300
    assert len({r["id"] for r in rows}) == len(rows)
    for lang in ("en", "zh"):
        assert sum(1 for r in rows if r["lang"] == lang and r["id"].startswith("bot")) >= 50
        assert sum(1 for r in rows if r["lang"] == lang and not r["id"].startswith("bot")) >= 100
    # the hard cases are there: reported speech, negation, hedges, counter-claims
    assert sum(1 for r in rows if r["reported_roles"]) >= 60
    assert sum(1 for r in rows if r["reported_checks"]) >= 20
    assert any(r["roles"] and r["reported_roles"] for r in rows)


@pytest.mark.parametrize("subset,expected", [("all", REPORTED_ALL), ("held", REPORTED_HELD_OUT)])
def test_precision_and_recall_per_claim_type_are_the_reported_figures(subset: str, expected: dict) -> None:
    rows = load_labelled(DATA)
    if subset == "held":
        rows = [r for r in rows if r["id"].startswith("held")]
    scores, _ = score_rows(rows)
    got = {s.claim_type: (s.true_positives, s.false_positives, s.false_negatives) for s in scores}
    assert set(got) == set(CLAIM_TYPES)
    for claim_type, (tp, fp, fn) in expected.items():
        assert got[claim_type][0] + got[claim_type][2] == tp + fn  # the labels are the ones measured
        assert got[claim_type][1] <= fp and got[claim_type][2] <= fn + 1, (claim_type, got[claim_type])


def test_bot_speeches_are_read_perfectly() -> None:
    rows = [r for r in load_labelled(DATA) if r["id"].startswith("bot")]
    scores, misses = score_rows(rows)
    assert misses == []


@pytest.mark.parametrize("text", ["I am the seer, 8 is a wolf.", "我是预言家，8号查杀。"])
def test_own_claims_are_the_speakers(text: str) -> None:
    c = parse_claims(text, 12)
    assert c.roles == ["seer"] and c.checks_given(False) == [(8, "wolf")]
    assert c.reported_roles == [] and c.reported_checks == []


@pytest.mark.parametrize("text", ["5 claimed seer and called 8 a wolf.", "5号起跳预言家，给了8号查杀。"])
def test_reported_claims_are_not_the_speakers(text: str) -> None:
    c = parse_claims(text, 12)
    assert c.roles == [] and c.checks_given(True) == []
    assert c.reported_roles == [(5, "seer")] and c.reported_checks == [(5, 8, "wolf")]


@pytest.mark.parametrize("text", ["I am not the seer.", "我不是预言家。", "If I were the seer I would check 8.",
                                  "如果我是预言家，我会验8号。", "I think 8 is a wolf.", "我觉得8号是狼。", "Is 8 a wolf?",
                                  "I never said I am the seer."])
def test_negations_hypotheticals_hedges_and_questions_claim_nothing(text: str) -> None:
    c = parse_claims(text, 12)
    assert c.roles == [] and c.checks_given(True) == []


def test_the_heuristic_bot_reads_speech_through_the_same_extractor() -> None:
    reported = parse_speech("5 claimed seer and called 8 a wolf.", 12)
    assert not reported.seer_claim and reported.checks == []
    own = parse_speech("5号起跳预言家，但我才是真预言家，8号是我的查杀。", 12)
    assert own.seer_claim and own.checks == [(8, "wolf")]
