"""Precision and recall of the claim extractor (arena/evaluate/claims.py) per claim type.

    python benchmarks/claim_extractor.py [--misses]

Reads the labelled speeches of tests/data/claims_labelled.jsonl and prints one table for all of
them and one per language and source (bot transcripts, hand-written model-like speeches).
docs/metrics.md records the figures; tests/test_claims.py asserts them.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.evaluate.claim_benchmark import load_labelled, score_rows  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "claims_labelled.jsonl"


def table(title: str, rows: list[dict]) -> None:
    scores, _ = score_rows(rows)
    print(f"\n{title} ({len(rows)} speeches)")
    print(f"{'claim type':<16} {'TP':>4} {'FP':>4} {'FN':>4} {'precision':>10} {'recall':>8}")
    for s in scores:
        p = "—" if s.precision is None else f"{s.precision:.3f}"
        r = "—" if s.recall is None else f"{s.recall:.3f}"
        print(f"{s.claim_type:<16} {s.true_positives:>4} {s.false_positives:>4} {s.false_negatives:>4} {p:>10} {r:>8}")


def main() -> None:
    rows = load_labelled(DATA)
    table("all", rows)
    table("held out (written after the extractor was tuned)", [r for r in rows if r["id"].startswith("held")])
    for lang in ("en", "zh"):
        for src in ("bot", "hand", "held"):
            table(f"{lang}, {src}", [r for r in rows if r["lang"] == lang and r["id"].startswith(src)])
    if "--misses" in sys.argv:
        _, misses = score_rows(rows)
        text = {r["id"]: r["text"] for r in rows}
        for rid, t, extra, missing in misses:
            print(f"{rid} {t}: extra {sorted(extra)} missing {sorted(missing)} | {text[rid]}")


if __name__ == "__main__":
    main()
