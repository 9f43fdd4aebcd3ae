"""Precision and recall of a claims reader on labelled speeches (``tests/data/claims_*.jsonl``).

Four sets: ``claims_labelled.jsonl`` (short speeches: bot transcripts and hand-written, the
original set), ``claims_tuning.jsonl`` (chat-model-style speeches the reader was tuned on),
``claims_frozen.jsonl`` (chat-model-style speeches written and committed before the first tuning
round; held out for that round, tuned on from the second) and ``claims_frozen2.jsonl`` (written and
committed before the second tuning round, never tuned on: the fair estimate).

Each line holds a speech and what it claims, labelled by hand: ``roles`` the speaker claims,
``checks`` (seat, result) it reports as its own seer results (with a checking word, or stated flatly
by a speaker who claims seer in the same speech), ``reported_roles`` (seat, role) it says another
seat claimed, and ``reported_checks`` (by, target, result) it attributes to another seat. Hedged
suspicions, questions, hypotheticals, negations, endorsements ("5 is the real seer") and votes are
not claims. A predicted item counts as a true positive only when it matches a labelled item exactly.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Iterable

from pydantic import BaseModel, ConfigDict

from arena.evaluate.claims import Claims, parse_claims

CLAIM_TYPES = ("roles", "checks", "reported_roles", "reported_checks")
DATA_DIR = Path(__file__).resolve().parents[2] / "tests" / "data"
#: the labelled sets by name, as ``benchmarks/claim_extractor.py --set`` takes them
SETS = {"labelled": DATA_DIR / "claims_labelled.jsonl", "tuning": DATA_DIR / "claims_tuning.jsonl",
        "frozen": DATA_DIR / "claims_frozen.jsonl", "frozen2": DATA_DIR / "claims_frozen2.jsonl"}
#: a reader: speech text and seat count -> the claims it reads
Reader = Callable[[str, int], Claims]
#: Seat numbers in the labelled set go up to 18 (the largest shipped board).
PLAYERS = 24


class TypeScore(BaseModel):
    model_config = ConfigDict(extra="forbid")

    claim_type: str
    true_positives: int
    false_positives: int
    false_negatives: int
    precision: float | None
    recall: float | None


def load_labelled(path: str | Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


def predicted(claims: Claims) -> dict[str, set[tuple[Any, ...]]]:
    return {
        "roles": {(r,) for r in claims.roles},
        "checks": {tuple(c) for c in claims.checks_given(False)},
        "reported_roles": {tuple(x) for x in claims.reported_roles},
        "reported_checks": {tuple(x) for x in claims.reported_checks},
    }


def labelled(row: dict[str, Any]) -> dict[str, set[tuple[Any, ...]]]:
    return {
        "roles": {(r,) for r in row["roles"]},
        "checks": {tuple(c) for c in row["checks"]},
        "reported_roles": {tuple(x) for x in row["reported_roles"]},
        "reported_checks": {tuple(x) for x in row["reported_checks"]},
    }


def false_check_speeches(rows: Iterable[dict[str, Any]], reader: Reader = parse_claims) -> list[str]:
    """Ids of the speeches in which the reader credits the speaker with a check it never made."""
    return [row["id"] for row in rows
            if predicted(reader(row["text"], PLAYERS))["checks"] - labelled(row)["checks"]]


def score_rows(rows: Iterable[dict[str, Any]], reader: Reader = parse_claims
               ) -> tuple[list[TypeScore], list[tuple[str, str, set, set]]]:
    """Scores per claim type, and the misses as (id, type, false positives, false negatives)."""
    tp = dict.fromkeys(CLAIM_TYPES, 0)
    fp = dict.fromkeys(CLAIM_TYPES, 0)
    fn = dict.fromkeys(CLAIM_TYPES, 0)
    misses = []
    for row in rows:
        got = predicted(reader(row["text"], PLAYERS))
        want = labelled(row)
        unsure = {t: {tuple(x) for x in row.get("unsure", {}).get(t, [])} for t in CLAIM_TYPES}
        for t in CLAIM_TYPES:
            got[t] -= unsure[t] - want[t]  # a conditional claim the labels leave open counts neither way
            tp[t] += len(got[t] & want[t])
            fp[t] += len(got[t] - want[t])
            fn[t] += len(want[t] - got[t])
            if got[t] != want[t]:
                misses.append((row["id"], t, got[t] - want[t], want[t] - got[t]))
    scores = [
        TypeScore(claim_type=t, true_positives=tp[t], false_positives=fp[t], false_negatives=fn[t],
                  precision=tp[t] / (tp[t] + fp[t]) if tp[t] + fp[t] else None,
                  recall=tp[t] / (tp[t] + fn[t]) if tp[t] + fn[t] else None)
        for t in CLAIM_TYPES
    ]
    return scores, misses

