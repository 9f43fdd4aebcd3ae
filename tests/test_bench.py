"""`arena bench`: suite -> leaderboard entry, compare, and the A/A self-test."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.bench import (
    BenchEntry,
    BenchError,
    compare_entries,
    compare_markdown,
    load_entry,
    load_suite,
    run_bench,
    selftest,
    selftest_config,
)
from arena.cli.main import app
from arena.tournament import RunOptions, build_schedule, run_tournament

SMALL_SUITE = """
name: tiny
version: "0"
boards: [{preset: std-12-guard}]
deals: 1
seed: 7
reference:
  - {label: ref-random, agent: "bot:random"}
headline: [win_rate@side:good, vote_accuracy, ksr]
resamples: 50
"""


def test_the_shipped_suite_runs_end_to_end_on_a_reduced_size(tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["bench", "run", "werewolf-bench", "--agent", "bot:heuristic", "--label", "cand",
                                      "--deals", "1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    entry = load_entry(out / "entry.json")
    assert entry.card.reduced and entry.card.deals == 1 and entry.card.games == 6
    assert entry.card.suite == "werewolf-bench" and entry.card.suite_version == "3"
    assert {r.label for r in entry.reference} == {"ref-heuristic", "ref-random"}
    assert [h.metric for h in entry.headline][:2] == ["vote_accuracy", "seer_wolf_hit"]
    assert entry.roles and entry.cost.decisions > 0
    assert "cand" in entry.card.prompt_hashes
    from agents.heuristic import BOT_VERSION

    assert entry.schema_version == 2 and entry.card.reference_bot_version == BOT_VERSION
    assert len(entry.card.rules_sha256) == 64 and entry.card.prices_sha256 and entry.card.date
    assert entry.card.skipped_games == 0 and entry.card.fallback_games == []
    assert entry.anchor == "ref-heuristic" and entry.gap.deals == 2 and len(entry.deal_gaps) == 2
    assert {h.metric for h in entry.reference_headline["ref-heuristic"]} == {h.metric for h in entry.headline}
    md = (out / "entry.md").read_text(encoding="utf-8")
    assert "Minimal detectable difference at 80% power" in md and "Too small to rank" in md
    old = json.loads((out / "entry.json").read_text(encoding="utf-8")) | {"schema_version": 1}
    (out / "old.json").write_text(json.dumps(old), encoding="utf-8")
    with pytest.raises(BenchError, match="schema version 1"):
        load_entry(out / "old.json")
    assert (out / "entry.md").read_text(encoding="utf-8").startswith("# cand on werewolf-bench v3")
    # an entry never separates entries from a handful of games (6 here, under the 10-game floor)
    assert {r.rank for r in [entry.rating, *entry.reference]} == {1}


def test_same_suite_same_bot_gives_the_same_entry_and_resuming_changes_nothing(tmp_path: Path) -> None:
    suite = tmp_path / "tiny.yaml"
    suite.write_text(SMALL_SUITE, encoding="utf-8")
    a = asyncio.run(run_bench(suite, "bot:heuristic", label="h", out=tmp_path / "a"))
    b = asyncio.run(run_bench(suite, "bot:heuristic", label="h", out=tmp_path / "b"))
    again = asyncio.run(run_bench(suite, "bot:heuristic", label="h", out=tmp_path / "a"))  # resumes: nothing to play
    assert a.model_dump_json() == b.model_dump_json() == again.model_dump_json()  # the date is the day's: one day
    other = asyncio.run(run_bench(suite, "bot:random", label="h", out=tmp_path / "c"))
    assert other.model_dump_json() != a.model_dump_json()


def _entries(tmp_path: Path, suite_text: str, specs: tuple[str, ...]) -> list[str]:
    suite = tmp_path / "suite.yaml"
    suite.write_text(suite_text, encoding="utf-8")
    paths = []
    for spec in specs:
        name = spec.split(":")[1]
        e = asyncio.run(run_bench(suite, spec, label=name, out=tmp_path / name, executor="process"))
        p = tmp_path / f"{name}.json"
        p.write_text(e.model_dump_json(), encoding="utf-8")
        paths.append(str(p))
    return paths


RANKED_SUITE = SMALL_SUITE.replace("deals: 1", "deals: 8")


def test_compare_prints_tiers_pair_tests_and_a_labelled_plot(tmp_path: Path) -> None:
    paths = _entries(tmp_path, RANKED_SUITE, ("bot:heuristic", "bot:random"))
    result = CliRunner().invoke(app, ["bench", "compare", *paths, "--plot", str(tmp_path / "cmp.png")])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Too small to rank" not in out
    assert "| tier | entry | gap to reference" in out and "ref-random (reference)" in out
    assert "| heuristic − random |" in out or "| random − heuristic |" in out
    assert "not separated" in out or "separated" in out
    assert max(len(line.split("|")) - 2 for line in out.splitlines() if line.startswith("| tier")) <= 5  # narrow
    assert (tmp_path / "cmp.png").stat().st_size > 1000
    heuristic, random = (load_entry(p) for p in paths)
    # bot:random against itself: zero gap every deal; bot:heuristic beats it.
    assert random.gap.estimate == 0 and heuristic.gap.estimate > 0
    tier_of = {name: i for i, tier in enumerate(compare_entries([heuristic, random]).tiers) for name in tier}
    assert tier_of["heuristic"] <= tier_of["random"]


def test_runs_too_small_refuse_to_rank_and_mixed_suites_are_refused(tmp_path: Path) -> None:
    paths = _entries(tmp_path, SMALL_SUITE, ("bot:heuristic", "bot:random"))
    result = CliRunner().invoke(app, ["bench", "compare", *paths])
    assert result.exit_code == 0, result.output
    assert "Too small to rank" in result.output and "| — | heuristic |" in result.output
    a, b = load_entry(paths[0]), load_entry(paths[1])
    other = b.model_copy(update={"card": b.card.model_copy(update={"suite_version": "9"})})
    with pytest.raises(BenchError, match="not on one scale.*suite_version: 0, 9.*--allow-mixed"):
        compare_markdown([a, other])
    assert "Mixed scales" in compare_markdown([a, other], allow_mixed=True)
    bot = b.model_copy(update={"card": b.card.model_copy(update={"reference_bot_version": "heuristic-0"})})
    with pytest.raises(BenchError, match="reference_bot_version"):
        compare_markdown([a, bot])
    other_path = tmp_path / "other.json"
    other_path.write_text(other.model_dump_json(), encoding="utf-8")
    result = CliRunner().invoke(app, ["bench", "compare", paths[0], str(other_path)])
    assert result.exit_code == 2 and "--allow-mixed" in result.output


def test_bad_suites_and_entries_say_what_is_wrong(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(SMALL_SUITE.replace("deals: 1", "deals: 0"), encoding="utf-8")
    with pytest.raises(BenchError, match="deals"):
        load_suite(bad)
    with pytest.raises(BenchError, match="shipped suites: werewolf-bench"):
        load_suite("no-such-suite")
    (tmp_path / "x.json").write_text("{}", encoding="utf-8")
    result = CliRunner().invoke(app, ["bench", "compare", str(tmp_path / "x.json")])
    assert result.exit_code == 2 and "not a bench entry" in result.output


def test_the_entry_schema_is_printed() -> None:
    result = CliRunner().invoke(app, ["bench", "schema"])
    assert result.exit_code == 0
    schema = json.loads(result.output)
    assert schema["properties"]["schema_name"]["const"] == "werewolf-bench-entry"
    assert schema == BenchEntry.model_json_schema()


def _events(path: Path) -> list[str]:
    return [line for line in path.read_text(encoding="utf-8").splitlines() if '"type":"event"' in line.replace(" ", "")]


def test_aa_labels_draw_independent_seeds(tmp_path: Path) -> None:
    """Two labels of one bot must not replay each other's games with the names swapped."""
    r = selftest("bot:heuristic", replicates=2, deals=2, resamples=50, out=tmp_path / "aa")
    assert r.replicates == 2 and r.games_per_replicate == 4 and len(r.gaps) == 2
    cfg = selftest_config("bot:heuristic", ["std-12-guard"], 2, seed=0 + 100_003)
    deal = [g for g in build_schedule(cfg) if g.group == build_schedule(cfg)[0].group]
    assert len(deal) == 2  # one deal, seated both ways
    a, b = (_events(tmp_path / "aa" / "rep-000" / "games" / f"{g.game_id}.jsonl") for g in deal)
    assert a and b and a != b
    # The control: without their own seed streams the two labels play the very same game twice.
    same = cfg.model_copy(update={"roster": [e.model_copy(update={"options": {}}) for e in cfg.roster]})
    asyncio.run(run_tournament(same, RunOptions(out=tmp_path / "same")))
    a, b = (_events(tmp_path / "same" / "games" / f"{g.game_id}.jsonl") for g in deal)
    assert a == b


@pytest.mark.slow
def test_aa_false_separations_are_near_the_nominal_rate(tmp_path: Path) -> None:
    r = selftest("bot:heuristic", replicates=40, deals=10, resamples=200, out=tmp_path / "aa", executor="process")
    assert r.rate_low <= r.nominal, r
    assert r.false_separations <= 6, r  # nominal 5% of 40 = 2; 6 or more has p < 0.05 under the nominal rate
