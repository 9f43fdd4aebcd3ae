"""Precision and recall of the claims reader (arena/evaluate/claims.py) per claim type and language.

    python benchmarks/claim_extractor.py [--set labelled|tuning|frozen|frozen2] [--misses]
    python benchmarks/claim_extractor.py --reader model --model KIND:MODEL [--set tuning]
    python benchmarks/claim_extractor.py --talker 3     # also: the speeches of 3 mock:talker games per language

Without --set it prints every set: the original labelled set (tests/data/claims_labelled.jsonl),
the chat-model-style tuning set (claims_tuning.jsonl), the first frozen set (claims_frozen.jsonl,
written before the first tuning round, tuned on since the second) and the second held-out set
(claims_frozen2.jsonl, written before the second tuning round). Per set: one table for all
speeches, one per language, and the number of speeches that credit the speaker with a check it
never made. --misses lists the disagreements of every set but frozen2; frozen2's are shown only
with --misses-frozen2 (looking at them and then tuning would unfreeze it).
--reader model calibrates the model-judged reader (agents/claims_reading.py, any provider the
arena supports: openai:gpt-4.1-mini, anthropic:MODEL, local:MODEL@URL) against the same labels; it
makes one call per speech, so it costs money and needs a key or a local server.
docs/metrics.md records the figures; tests/test_claims.py asserts them.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.evaluate.claim_benchmark import SETS, Reader, false_check_speeches, load_labelled, score_rows  # noqa: E402
from arena.evaluate.claims import REGEX_READER, parse_claims  # noqa: E402


READER: Reader = parse_claims


def table(title: str, rows: list[dict]) -> None:
    scores, _ = score_rows(rows, READER)
    print(f"\n{title} ({len(rows)} speeches; {len(false_check_speeches(rows, READER))} credit the speaker with a "
          f"check it never made)")
    print(f"{'claim type':<16} {'TP':>4} {'FP':>4} {'FN':>4} {'precision':>10} {'recall':>8}")
    for s in scores:
        p = "—" if s.precision is None else f"{s.precision:.3f}"
        r = "—" if s.recall is None else f"{s.recall:.3f}"
        print(f"{s.claim_type:<16} {s.true_positives:>4} {s.false_positives:>4} {s.false_negatives:>4} {p:>10} {r:>8}")


def main(argv: list[str]) -> int:
    global READER
    names = list(SETS)
    model = None
    if "--reader" in argv and argv[argv.index("--reader") + 1:argv.index("--reader") + 2] == ["model"]:
        if "--model" not in argv or argv.index("--model") + 1 >= len(argv):
            print("--reader model needs --model KIND:MODEL", file=sys.stderr)
            return 2
        from agents.providers import ProviderConfigError
        from agents.claims_reading import reader_from_spec

        try:
            model = reader_from_spec(argv[argv.index("--model") + 1])
        except ProviderConfigError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        READER = model
    if "--set" in argv:
        i = argv.index("--set")
        if i + 1 >= len(argv) or argv[i + 1] not in SETS:
            print(f"--set takes one of: {', '.join(SETS)}", file=sys.stderr)
            return 2
        names = [argv[i + 1]]
    sets: list[tuple[str, list[dict]]] = [(name, load_labelled(SETS[name])) for name in names]
    if "--talker" in argv:
        from agents.claims_reading import talker_rows

        games = int(argv[argv.index("--talker") + 1])
        sets.append((f"mock:talker ({games} std-12-guard games per language, its own labels)",
                     talker_rows("std-12-guard", "en", range(1, games + 1)) +
                     talker_rows("std-12-guard", "zh", range(1, games + 1))))
    for name, rows in sets:
        table(f"{name}: all", rows)
        for lang in ("en", "zh"):
            table(f"{name}: {lang}", [r for r in rows if r["lang"] == lang])
        if name == "labelled":
            table("labelled: held out (written after the first extractor was tuned)",
                  [r for r in rows if r["id"].startswith("held")])
        if ("--misses" in argv and name != "frozen2") or ("--misses-frozen" in argv and name == "frozen") or \
                ("--misses-frozen2" in argv and name == "frozen2"):
            _, misses = score_rows(rows, READER)
            text = {r["id"]: r["text"] for r in rows}
            for rid, t, extra, missing in misses:
                print(f"{rid} {t}: extra {sorted(extra)} missing {sorted(missing)} | {text[rid]!r}")
    print(f"\nreader: {model.name if model is not None else REGEX_READER}")
    if model is not None:
        model.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
