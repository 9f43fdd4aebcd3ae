"""Precision and recall of a claims reader on labelled speeches (``tests/data/claims_*.jsonl``).

Three sets: ``claims_labelled.jsonl`` (short speeches: bot transcripts and hand-written, the
original set), ``claims_tuning.jsonl`` (chat-model-style speeches the reader was tuned on) and
``claims_frozen.jsonl`` (chat-model-style speeches written and committed before the reader was
touched, never tuned on: the fair estimate).

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
        "frozen": DATA_DIR / "claims_frozen.jsonl"}
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


def talker_rows(preset: str, lang: str, seeds: Iterable[int]) -> list[dict[str, Any]]:
    """The speeches of ``mock:talker`` games (agents/providers/talker.py) with the labels its ledger keeps,
    as labelled rows: another author's phrasings of the shapes of #32. Conditional claims are
    ``unsure`` (counted neither way)."""
    import asyncio

    from agents.registry import make_agent
    from arena.config import get_preset
    from arena.engine import GameSetup
    from arena.referee import run_game

    rows: list[dict[str, Any]] = []
    for seed in seeds:
        agents = [make_agent("mock:talker", seat=s, seed=seed) for s in range(1, get_preset(preset).players + 1)]
        events: list[Any] = []
        asyncio.run(run_game(GameSetup(preset=preset, seed=seed), agents, lang=lang, on_event=events.append))
        ledger = agents[0].provider.provider.labels  # type: ignore[attr-defined]
        for i, e in enumerate(ev for ev in events if ev.type == "speech"):
            lab = ledger.get(e.text)
            if lab is None:
                continue
            row: dict[str, Any] = {"id": f"talker-{lang}-{seed}-{i}", "lang": lang, "text": e.text, "roles": [],
                                   "checks": [], "reported_roles": [], "reported_checks": [],
                                   "unsure": {t: [] for t in CLAIM_TYPES}}
            for claims, own in ((lab.own, True), (lab.reported, False)):
                for c in claims:
                    item: tuple[str, list[Any]] | None = None
                    if c.what == "role":
                        item = ("roles", [c.role]) if own else ("reported_roles", [c.by, c.role])
                    elif c.what == "check":
                        item = ("checks", [c.target, c.result]) if own else ("reported_checks", [c.by, c.target, c.result])
                    if item is None:
                        continue
                    field_name, value = item
                    target = row["unsure"][field_name] if c.conditional else row[field_name]
                    if value not in target:
                        target.append(value[0] if field_name == "roles" and not c.conditional else value)
            rows.append(row)
    return rows
