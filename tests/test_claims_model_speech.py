"""The claims reader on speech as chat models write it (#32, #26 item 6, #25 item 4): bullet lists,
tables, emoji, quotes and recaps of other seats, traditional characters, vote calls, 银水, questions.

Two labelled sets: tests/data/claims_tuning.jsonl (the reader was tuned on it) and
tests/data/claims_frozen.jsonl (written and committed before the reader was touched; never tuned on).
`python benchmarks/claim_extractor.py` prints the figures; docs/metrics.md records them.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from arena.evaluate.claim_benchmark import CLAIM_TYPES, SETS, false_check_speeches, load_labelled, score_rows
from arena.evaluate.claims import parse_claims

#: sha256 of the frozen set as first committed: the set must never change after the reader was tuned
FROZEN_SHA256 = "01c827c546381d577fccd28902ecc8453362d8ea1a6e2be37c29086cb801daf0"
#: (true positives, false positives, false negatives) per claim type on the frozen set, as
#: benchmarks/claim_extractor.py prints them and docs/metrics.md records them
REPORTED_FROZEN = {"roles": (131, 1, 4), "checks": (72, 0, 9), "reported_roles": (87, 2, 26),
                   "reported_checks": (64, 1, 6)}


def test_the_frozen_set_is_the_one_committed_before_the_reader_was_tuned() -> None:
    assert hashlib.sha256(SETS["frozen"].read_bytes()).hexdigest() == FROZEN_SHA256


@pytest.mark.parametrize("name", ["tuning", "frozen"])
def test_the_model_style_sets_are_large_and_balanced(name: str) -> None:
    rows = load_labelled(SETS[name])
    assert len({r["id"] for r in rows}) == len(rows)
    assert sum(r["lang"] == "en" for r in rows) >= 80 and sum(r["lang"] == "zh" for r in rows) >= 80
    assert sum(1 for r in rows if r["reported_checks"]) >= 40
    assert any("|" in r["text"] for r in rows) and any("- " in r["text"] for r in rows)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_on_the_tuning_set_every_field_reaches_the_targets(lang: str) -> None:
    rows = [r for r in load_labelled(SETS["tuning"]) if r["lang"] == lang]
    scores, _ = score_rows(rows)
    for s in scores:
        assert s.precision is not None and s.precision >= 0.97, s
        assert s.recall is not None and s.recall >= 0.90, s
    assert false_check_speeches(rows) == []


def test_the_frozen_set_figures_are_the_reported_ones() -> None:
    scores, _ = score_rows(load_labelled(SETS["frozen"]))
    got = {s.claim_type: (s.true_positives, s.false_positives, s.false_negatives) for s in scores}
    assert set(got) == set(CLAIM_TYPES)
    assert got == REPORTED_FROZEN


def own(text: str) -> tuple[list[str], list[tuple[int, str]]]:
    c = parse_claims(text, 18)
    return c.roles, c.checks_given(False)


def reported(text: str) -> tuple[list[tuple[int, str]], list[tuple[int, int, str]]]:
    c = parse_claims(text, 18)
    return sorted(c.reported_roles), sorted(c.reported_checks)


@pytest.mark.parametrize("text,roles,checks", [
    ("- **Role:** Seer\n- **N1:** Seat 9 → good", ["seer"], [(9, "good")]),
    ("| Night | Seat | Result |\n|---|---|---|\n| N1 | #7 | ✅ |\n| N2 | #2 | 🐺 |", [], [(7, "good"), (2, "wolf")]),
    ("I'm the seer. N1: #3 ✅. N2: #8 🐺.", ["seer"], [(3, "good"), (8, "wolf")]),
    ("Let me jump: seer. Kill on #2.", ["seer"], [(2, "wolf")]),
    ("I have to come out now as the seer. I investigated seat 6, and my result was werewolf.", ["seer"], [(6, "wolf")]),
    ("#11 is the wolf I checked. **Claim:** Seer", ["seer"], [(11, "wolf")]),
    ("I checked #2 and he's village-aligned.", [], [(2, "good")]),
    ("我報預言家。昨晚驗了４號，４號是查殺。", ["seer"], [(4, "wolf")]),
    ("我是预言家，十一号是我的查杀。", ["seer"], [(11, "wolf")]),
    ("12号位发言，我是守卫。", ["guard"], []),
    ("I said I was the hunter yesterday — I lied. I'm a villager.", ["villager"], []),
    ("Oh yeah, and I'm the witch, the seer and the guard all at once.", [], []),
    ("我之前说我是预言家，那是骗狼的，我是守卫。", ["guard"], []),
])
def test_own_claims_in_model_formats(text: str, roles: list[str], checks: list[tuple[int, str]]) -> None:
    got_roles, got_checks = own(text)
    assert got_roles == roles and sorted(got_checks) == sorted(checks)


@pytest.mark.parametrize("text", [
    "我今天这票出8号，好人不要分票。",  # a vote call
    "我是女巫，5号是我的银水。",  # the witch's save is no seer's check
    "我的警徽流：今晚验7号，明晚验9号。",  # a plan
    "I'll vote #8 today. Good people, don't split the vote.",
    "我觉得2号是狼，4号是好人，这是我的判断，不是验人。",
    "Is #8 a wolf? Did #4 check him?",
])
def test_vote_calls_silver_water_plans_hedges_and_questions_are_no_checks(text: str) -> None:
    assert parse_claims(text, 18).checks_given(True) == []


@pytest.mark.parametrize("text,roles,checks", [
    ('#5 opened with: "I\'m the seer, #12 is my wolf check." I\'m a villager.', [(5, "seer")], [(5, 12, "wolf")]),
    ("9号警上首置位起跳预言家，给了2号金水；13号对跳预言家，给9号发查杀。", [(9, "seer"), (13, "seer")],
     [(9, 2, "good"), (13, 9, "wolf")]),
    ("Seat 6 told everyone he's the guard.", [(6, "guard")], []),
    ("8号第一天说他验了2号是狼。", [], [(8, 2, "wolf")]),
    ("- #1 → claims Seer → #4 good, #11 wolf\n- #6 → claims Hunter", [(1, "seer"), (6, "hunter")],
     [(1, 4, "good"), (1, 11, "wolf")]),
    ("| Seat | Claim | Checks |\n|---|---|---|\n| #2 | Seer | #7 → wolf |", [(2, "seer")], [(2, 7, "wolf")]),
    ("Is #3 good? #6 says so, but #6 also said he's the witch, so how would he know?", [(6, "witch")], []),
])
def test_reported_claims_are_credited_to_the_seat_that_made_them(text: str, roles: list, checks: list) -> None:
    c = parse_claims(text, 18)
    assert (sorted(c.reported_roles), sorted(c.reported_checks)) == (sorted(roles), sorted(checks))
    assert c.checks_given(True) == [] and "seer" not in c.roles


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_on_mock_talker_speeches_no_speaker_is_credited_with_a_check_it_never_made(lang: str) -> None:
    """Another author's phrasings (mock:talker, with the labels of its own ledger): the claims line a
    model sees must never credit a check that was not made; the speaker's own claims are read."""
    from agents.claims_reading import talker_rows

    rows = talker_rows("std-12-guard", lang, [1])
    scores = {s.claim_type: s for s in score_rows(rows)[0]}
    assert len(rows) > 30 and false_check_speeches(rows) == []
    assert scores["checks"].precision == 1.0 and (scores["checks"].recall or 0) >= 0.9
    assert scores["roles"].precision == 1.0 and (scores["roles"].recall or 0) >= 0.9
