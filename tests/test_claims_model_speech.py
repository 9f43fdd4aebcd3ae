"""The claims reader on speech as chat models write it (#32, #26 item 6, #25 item 4): bullet lists,
tables, emoji, quotes and recaps of other seats, traditional characters, vote calls, 银水, questions.

Three labelled sets: tests/data/claims_tuning.jsonl (the reader was tuned on it),
tests/data/claims_frozen.jsonl (written and committed before the first tuning round; tuned on from
the second) and tests/data/claims_frozen2.jsonl (written and committed before the second round).
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
#: (true positives, false positives, false negatives) per claim type, set and language as
#: benchmarks/claim_extractor.py prints them and docs/metrics.md records them. The tests below fail
#: when the reader regresses: any false positive more than measured (precision first), or more than
#: RECALL_MARGIN misses more than measured in a field.
MEASURED = {
    ("tuning", "en"): {"roles": (122, 0, 0), "checks": (84, 0, 1), "reported_roles": (102, 0, 1),
                       "reported_checks": (61, 0, 4)},
    ("tuning", "zh"): {"roles": (117, 0, 0), "checks": (65, 0, 0), "reported_roles": (84, 0, 1),
                       "reported_checks": (56, 0, 0)},
    # the first frozen set: held out for the first tuning round, tuned on from the second (branch claims2)
    ("frozen", "en"): {"roles": (65, 0, 0), "checks": (44, 0, 0), "reported_roles": (56, 0, 5),
                       "reported_checks": (33, 0, 1)},
    ("frozen", "zh"): {"roles": (70, 0, 0), "checks": (37, 0, 0), "reported_roles": (50, 0, 2),
                       "reported_checks": (36, 0, 0)},
    # the second frozen set, after the reader was fixed on its misses (docs/metrics.md gives the
    # first, held-out measurement: these figures are no longer held out)
    ("frozen2", "en"): {"roles": (51, 0, 0), "checks": (32, 0, 0), "reported_roles": (46, 0, 1),
                        "reported_checks": (26, 1, 4)},
    ("frozen2", "zh"): {"roles": (53, 0, 0), "checks": (29, 0, 0), "reported_roles": (37, 0, 1),
                        "reported_checks": (27, 0, 0)},
}
#: one more miss per field than measured is tolerated (a rephrased pattern may trade one item for
#: another); a false positive never is
RECALL_MARGIN = 1
#: sha256 of the second held-out set as first committed (af38830, the first commit of branch claims2,
#: before the second tuning round): it must never change
FROZEN2_SHA256 = "cbe0af35642ad26c271fa91e2c7235598e4f0940d83b157240737009e44cecb8"


def test_the_frozen_set_is_the_one_committed_before_the_reader_was_tuned() -> None:
    assert hashlib.sha256(SETS["frozen"].read_bytes()).hexdigest() == FROZEN_SHA256


def test_the_second_frozen_set_is_the_one_committed_before_the_second_tuning_round() -> None:
    assert hashlib.sha256(SETS["frozen2"].read_bytes()).hexdigest() == FROZEN2_SHA256
    rows = load_labelled(SETS["frozen2"])
    assert len({r["id"] for r in rows}) == len(rows) >= 120
    assert sum(r["lang"] == "en" for r in rows) >= 60 and sum(r["lang"] == "zh" for r in rows) >= 60


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


def counts(rows: list[dict]) -> dict[str, tuple[int, int, int]]:
    scores, _ = score_rows(rows)
    return {s.claim_type: (s.true_positives, s.false_positives, s.false_negatives) for s in scores}


@pytest.mark.parametrize("name,lang", sorted(MEASURED))
def test_the_reader_holds_its_measured_figures(name: str, lang: str) -> None:
    rows = [r for r in load_labelled(SETS[name]) if r["lang"] == lang]
    got = counts(rows)
    assert set(got) == set(CLAIM_TYPES)
    for claim_type, (tp, fp, fn) in MEASURED[(name, lang)].items():
        assert got[claim_type][0] + got[claim_type][2] == tp + fn, f"{name} {lang} {claim_type}: the labels changed"
        assert got[claim_type][1] <= fp, f"{name} {lang} {claim_type}: precision fell: {got[claim_type]} vs {(tp, fp, fn)}"
        assert got[claim_type][2] <= fn + RECALL_MARGIN, \
            f"{name} {lang} {claim_type}: recall fell: {got[claim_type]} vs {(tp, fp, fn)}"
    assert false_check_speeches(rows) == []


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
    # second tuning round (#32)
    ("First, my identity: seer. Second, my checks: I checked #10 on night one — wolf.", ["seer"], [(10, "wolf")]),
    ("I checked #7 last night. He's a werewolf. Yes, I'm claiming seer.", ["seer"], [(7, "wolf")]),
    ("I'm the seer. Night 1: #5. Result: good. Night 2: #8. Result: werewolf.", ["seer"], [(5, "good"), (8, "wolf")]),
    ("Seer claim. #9 ✅ (night 1), #3 ❌ (night 2). #3 is a wolf; vote #3.", ["seer"], [(9, "good"), (3, "wolf")]),
    ("I'm the seer. My gold water from last night is #1. My second was #4, a good player.", ["seer"],
     [(1, "good"), (4, "good")]),
    ("As the seer: so far that gives me two gold waters: 4 and 11.", ["seer"], [(4, "good"), (11, "good")]),
    ("I'm the seer and my check is… I'll wait. Forget what I just started to say.", [], []),
    ("I'll speak as a villager. 5 is not the seer, I am.", ["villager", "seer"], []),
    ("我自己是平民，没有信息。但我这张牌本身是猎人。", ["villager", "hunter"], []),
    # fixed after the first measurement on claims_frozen2.jsonl
    ("I am the seer. Night two, #3 — werewolf. I know #3 will say I'm the wolf; let him.", ["seer"], [(3, "wolf")]),
    ("Jumping seer. N1: #2 ✅. N2: #17 ❌.", ["seer"], [(2, "good"), (17, "wolf")]),
    ("Seer, day 1.\n\nN1 check → **#18**, result: **good**.", ["seer"], [(18, "good")]),
    ("I'm a werewolf hunter — I mean I'm hunting wolves. My actual card is villager.", ["villager"], []),
    ("昨天我说7号是我的金水，其实我是乱说的，我是平民。", ["villager"], []),
    ("他给我发金水，我是狼他也会发。我就一张民牌。", ["villager"], []),
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
    # second tuning round (#32)
    ("Two seer claims: #3 (gold on #6) and #9 (wolf on #3). One witch claim: #6.",
     [(3, "seer"), (9, "seer"), (6, "witch")], [(3, 6, "good"), (9, 3, "wolf")]),
    ("The two seer claims are #5 and #10. #5's check: #10 is a wolf.", [(5, "seer"), (10, "seer")], [(5, 10, "wolf")]),
    ("Player 8 claims hunter, player 2 claims hunter too; one of them lies.", [(8, "hunter"), (2, "hunter")], []),
    ("About the sheriff: #6 ran as seer and gave #1 a gold water; #11 ran as seer and gave #6 a kill.",
     [(6, "seer"), (11, "seer")], [(6, 1, "good"), (11, 6, "wolf")]),
    ("The person who died last night, #7, had claimed guard. The wolves left #3 — the self-proclaimed seer — alive.",
     [(7, "guard"), (3, "seer")], []),
    ("I'm the hunter, and #8, your counter-claim of hunter is nonsense.", [(8, "hunter")], []),
    ("I don't know who the seer is. #3 claims it, #8 claims it.", [(3, "seer"), (8, "seer")], []),
    ("#1 called #6 a wolf without ever claiming seer, and then walked it back.", [], []),
    ("跳预言家的是4号和12号，女巫是6号，猎人是8号。", [(4, "seer"), (12, "seer"), (6, "witch"), (8, "hunter")], []),
    ("现在场上只有一个预言家起跳，就是3号，他给了10号查杀。", [(3, "seer")], [(3, 10, "wolf")]),
    ("11号你为什么说你是女巫？", [(11, "witch")], []),
    ("5号说自己是猎人，这不可能，5号是悍跳的狼。", [(5, "hunter")], []),
    ("6号第一天说他验了2号是狼，今天又说他验的2号是好人。", [], [(6, 2, "wolf"), (6, 2, "good")]),
    # fixed after the first measurement on claims_frozen2.jsonl
    ("5号和12号对跳预言家，5号给12号查杀，12号给5号查杀。", [(5, "seer"), (12, "seer")], [(5, 12, "wolf"), (12, 5, "wolf")]),
    ("- 1号：报预言家，1号→4号 查杀\n- 7号：报女巫，银水12号", [(1, "seer"), (7, "witch")], [(1, 4, "wolf")]),
    ("根据10号的遗言，他是预言家，最后一晚验了6号是狼。", [(10, "seer")], [(10, 6, "wolf")]),
    ("1. #2 — claimed seer, gave #8 a gold water\n2. #4 — said he's the idiot; fine", [(2, "seer"), (4, "idiot")],
     [(2, 8, "good")]),
    ("I poisoned #4 because he fake-claimed seer and gave #12 a kill.", [(4, "seer")], [(4, 12, "wolf")]),
    ('Let me quote #10 exactly, because it matters: "I am the guard, and I protected #2."', [(10, "guard")], []),
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
