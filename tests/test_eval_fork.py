"""Counterfactual forks: replay to a decision, play on, name the parent."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from agents.registry import make_agent
from arena.engine import GameSetup
from arena.evaluate.ratings import RatingConfig
from arena.evaluate.report import Report, render, score
from arena.fork import ForkError, fork_game
from arena.referee import run_game
from arena.transcript import (
    DecisionLine,
    ForkOrigin,
    HeaderLine,
    ResultLine,
    SeatAgent,
    TranscriptWriter,
    read_transcript,
)

SPECS = ["bot:heuristic"] * 6 + ["bot:random"] * 6


@pytest.fixture()
def parent(tmp_path: Path) -> Path:
    path = tmp_path / "parent.jsonl"
    agents = [make_agent(s, seat=i + 1, seed=11) for i, s in enumerate(SPECS)]
    with TranscriptWriter(path) as w:
        asyncio.run(run_game(GameSetup(preset="std-12-guard", seed=11), agents, writer=w, specs=SPECS, game_id="parent"))
    return path


def test_fork_at_the_start_with_the_same_agents_is_the_parent(parent: Path, tmp_path: Path) -> None:
    result = asyncio.run(fork_game(parent, 1, make_agent, out=tmp_path / "forks"))
    child, original = read_transcript(result.path), read_transcript(parent)
    assert child.header.fork is not None and child.header.fork.parent == "parent" and child.header.fork.at_decision == 1
    assert [e.model_dump() for e in child.events] == [e.model_dump() for e in original.events]
    assert result.winner == result.parent_winner


def test_fork_replays_the_prefix_then_plays_on(parent: Path, tmp_path: Path) -> None:
    original = read_transcript(parent)
    at = len(original.decisions) // 2
    result = asyncio.run(fork_game(parent, at, make_agent, specs=["bot:random"] * 12, out=tmp_path))
    child = read_transcript(result.path)
    before = [(d.id, d.seat, d.kind, d.answer) for d in original.decisions if d.id < at]
    assert [(d.id, d.seat, d.kind, d.answer) for d in child.decisions if d.id < at] == before
    assert child.complete and child.header.agents[0].spec == "bot:random"
    assert Path(result.path).name.startswith("parent-fork")
    assert not list(tmp_path.glob("*.part"))


def test_fork_rejects_a_decision_out_of_range(parent: Path) -> None:
    with pytest.raises(ForkError, match="numbered"):
        asyncio.run(fork_game(parent, 10**6, make_agent))


# --- the evaluator pairs forks with their parents (hand-made transcripts) ---------------------

FEW = RatingConfig(n_resamples=50)  # the ratings are not under test here

ROLES = {1: "seer", 2: "villager", 3: "werewolf", 4: "villager"}
AGENTS = {1: "A", 2: "A", 3: "B", 4: "A"}


def hand_made(folder: Path, game_id: str, winner: str | None, agents: dict[int, str] | None = None,
              fork: tuple[str, int] | None = None) -> Path:
    """A short transcript written with the real line models: header, two decisions, result (or none)."""
    agents = agents or AGENTS
    path = folder / f"{game_id}.jsonl"
    header = HeaderLine(game_id=game_id, preset="test-board", rules={}, switches={}, seed=1,
                        agents=[SeatAgent(seat=s, spec=f"bot:{a}", label=a) for s, a in sorted(agents.items())],
                        package_version="test", fork=ForkOrigin(parent=fork[0], at_decision=fork[1]) if fork else None)
    with TranscriptWriter(path) as w:
        w.write(header)
        for i, seat in enumerate((1, 3), start=1):
            w.write(DecisionLine(id=i, seat=seat, kind="vote", phase="D1", asked_in="D1",
                                 legal={"type": "seat", "options": [2, 4], "allow_none": True}, answer=2, value=2,
                                 visibility={"to": "seats", "seats": [seat]}, agent=agents[seat]))
        if winner is not None:
            w.write(ResultLine(winner=winner, reason="test", phase="D2", roles=ROLES, alive=[1, 2],
                               decisions=2, refused=0))
    return path


def test_evaluator_pairs_forks_with_their_parents(tmp_path: Path) -> None:
    hand_made(tmp_path, "p", "wolves")
    hand_made(tmp_path, "q", "village")
    hand_made(tmp_path, "u", None)  # unfinished parent
    # Seat 1 (the seer, village side) handed from A to C: the village's loss turns into a win...
    hand_made(tmp_path, "p-fork5-a", "village", {**AGENTS, 1: "C"}, ("p", 5))
    # ...and on another parent the same swap throws a win away.
    hand_made(tmp_path, "q-fork2-a", "wolves", {**AGENTS, 1: "C"}, ("q", 2))
    # The wolf (seat 3) handed from B to C: the wolves still win.
    hand_made(tmp_path, "p-fork5-b", "wolves", {**AGENTS, 3: "C"}, ("p", 5))
    # The same agents (re-seeded): the winner changes by chance alone.
    hand_made(tmp_path, "p-fork7-c", "village", None, ("p", 7))
    hand_made(tmp_path, "x-fork3", "village", None, ("missing", 3))
    hand_made(tmp_path, "u-fork1", "village", None, ("u", 1))

    report = score([tmp_path], rating=FEW, with_openskill=False)
    forks = report.forks
    assert forks is not None
    pairs = {p.fork: p for p in forks.pairs}
    assert sorted(pairs) == ["p-fork5-a", "p-fork5-b", "p-fork7-c", "q-fork2-a"]

    a = pairs["p-fork5-a"]
    assert (a.parent, a.at_decision, a.parent_winner, a.fork_winner) == ("p", 5, "wolves", "village")
    assert a.outcome_changed and a.village_change == 1.0
    assert [(s.seat, s.role, s.side, s.parent_agent, s.fork_agent) for s in a.swapped] == [(1, "seer", "village", "A", "C")]
    assert pairs["q-fork2-a"].village_change == -1.0
    b = pairs["p-fork5-b"]
    assert not b.outcome_changed and b.village_change == 0.0
    assert [(s.seat, s.side, s.parent_agent, s.fork_agent) for s in b.swapped] == [(3, "wolves", "B", "C")]
    assert pairs["p-fork7-c"].swapped == [] and pairs["p-fork7-c"].outcome_changed
    assert (forks.unchanged_agents, forks.unchanged_agents_outcome_changed) == (1, 1)

    effects = {(e.side, e.parent_agent, e.fork_agent): e for e in forks.effects}
    assert set(effects) == {("village", "A", "C"), ("wolves", "B", "C")}
    village = effects[("village", "A", "C")]
    assert (village.pairs, village.mean_change, village.turned_to_win, village.turned_to_loss) == (2, 0.0, 1, 1)
    assert (village.low, village.high) == (-1.0, 1.0)  # +1 and -1: the interval spans everything
    wolves = effects[("wolves", "B", "C")]
    assert (wolves.pairs, wolves.mean_change, wolves.low) == (1, 0.0, None)  # one pair: no interval

    unpaired = {u.fork: u.reason for u in forks.unpaired}
    assert unpaired == {"x-fork3": "the parent is not among the scored transcripts",
                        "u-fork1": "the parent is unfinished"}

    md = render(report, "md")
    assert "## Forks" in md and "#1 seer: A → C" in md and "| village | A → C | 2 | +0.000 [-1.000, +1.000] | 1 | 1 |" in md
    assert "x-fork3 (parent missing): the parent is not among the scored transcripts" in md
    assert '"forks"' in render(report, "json")
    assert "<h2>Forks</h2>" in render(report, "html")


def test_no_forks_no_fork_section(tmp_path: Path) -> None:
    hand_made(tmp_path, "p", "wolves")
    report = score([tmp_path], rating=FEW, with_openskill=False)
    assert report.forks is None and "## Forks" not in render(report, "md")


def test_a_real_fork_pairs_with_its_parent(parent: Path, tmp_path: Path) -> None:
    original = read_transcript(parent)
    specs = list(SPECS)
    specs[0] = "bot:random"  # seat 1 changes agent from the fork point on
    result = asyncio.run(fork_game(parent, len(original.decisions) // 2, make_agent, specs=specs, out=tmp_path))
    report = score([parent, result.path], rating=FEW, with_openskill=False)
    assert report.forks is not None and len(report.forks.pairs) == 1 and not report.forks.unpaired
    pair = report.forks.pairs[0]
    assert (pair.parent, pair.fork, pair.fork_winner) == ("parent", result.game_id, result.winner)
    assert [(s.seat, s.parent_agent, s.fork_agent) for s in pair.swapped] == [(1, "bot:heuristic", "bot:random")]
    assert pair.swapped[0].role == original.result.roles[1]


def test_a_new_seat_keeps_the_roster_label_of_its_spec(tmp_path: Path) -> None:
    path = tmp_path / "labelled.jsonl"
    labels = ["H"] * 6 + ["R"] * 5 + ["R2"]  # bot:random under two labels: ambiguous
    agents = [make_agent(s, seat=i + 1, seed=5) for i, s in enumerate(SPECS)]
    with TranscriptWriter(path) as w:
        asyncio.run(run_game(GameSetup(preset="std-12-guard", seed=5), agents, writer=w, specs=SPECS,
                             game_id="labelled", labels=labels))
    specs = ["bot:random"] + SPECS[1:11] + ["bot:heuristic"]
    child = read_transcript(asyncio.run(fork_game(path, 5, make_agent, specs=specs, out=tmp_path / "f")).path)
    names = {a.seat: a.label for a in child.header.agents}
    assert names[12] == "H"  # bot:heuristic had one name in the parent: the fork reuses it
    assert names[1] is None  # bot:random had two: no guess
    assert names[2] == "H" and names[7] == "R"  # unchanged seats keep theirs


# --- forks stay out of the ratings unless --include-forks (real bot games and forks) ---------------

LABELS = ["heuristic"] * 6 + ["random"] * 6
FORKS_PER_PARENT = 2


@pytest.fixture(scope="module")
def family(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``parents/``: three bot games; ``forks/``: two forks of each (the village handed to bot:random from
    mid-game; the same agents re-seeded from a quarter in). Score the root for both, ``parents/`` alone."""
    root = tmp_path_factory.mktemp("family")
    for seed in (21, 22, 23):
        path = root / "parents" / f"g{seed}.jsonl"
        agents = [make_agent(s, seat=i + 1, seed=seed) for i, s in enumerate(SPECS)]
        with TranscriptWriter(path) as w:
            asyncio.run(run_game(GameSetup(preset="std-12-guard", seed=seed), agents, writer=w, specs=SPECS,
                                 game_id=f"g{seed}", labels=LABELS))
        n = len(read_transcript(path).decisions)
        asyncio.run(fork_game(path, n // 2, make_agent, specs=["bot:random"] * 6 + SPECS[6:], out=root / "forks"))
        asyncio.run(fork_game(path, n // 4, make_agent, agent_seed=seed + 100, out=root / "forks"))
    return root


def _win_counts(report) -> dict[tuple[str, str], tuple[float, int]]:
    """win_rate per (agent, group): (value, games)."""
    rows = next(m for m in report.metrics if m.id == "win_rate").rows
    return {(r.agent, r.group): (r.value, r.n) for r in rows}


def test_forks_are_kept_out_of_the_ratings_by_default(family: Path) -> None:
    forks = 3 * FORKS_PER_PARENT
    alone = score([family / "parents"], rating=FEW)
    both = score([family], rating=FEW)
    assert not both.forks_counted and both.forks_excluded == forks
    # Everything that assumes independent games is what the parents alone give.
    assert both.ratings == alone.ratings and both.ratings.games_used == 3
    assert both.openskill == alone.openskill and both.pairwise == alone.pairwise
    assert _win_counts(both) == _win_counts(alone)
    assert both.metrics == alone.metrics and both.balance == alone.balance
    assert both.availability == alone.availability
    # The forks are still paired with their parents, and the card still lists what was played.
    assert both.forks is not None and len(both.forks.pairs) == forks and not both.forks.unpaired
    assert both.config is not None and both.config.forks == forks and sum(both.config.boards.values()) == 3 + forks

    md = render(both, "md")
    assert f"{forks} forked games excluded from ratings, win rates and metrics" in md
    assert "--include-forks" in md and "Forks are not counted in the ratings" in md
    assert f"| forks | {forks} (kept out of the ratings and metrics) |" in md
    assert f"{forks} forked games excluded from ratings" in render(both, "html")
    data = json.loads(render(both, "json"))
    assert (data["forks_counted"], data["forks_excluded"]) == (False, forks)

    # A folder of forks alone rates nothing by default, and says why.
    only = score([family / "forks"], rating=FEW)
    assert only.ratings.games_used == 0 and only.forks_excluded == forks
    assert f"{forks} forked games excluded" in render(only, "md")


def _without_paths(metrics: list) -> list:
    """Metric results without the rows' example transcripts (the same games live in other folders here)."""
    return [m.model_dump(exclude={"rows": {"__all__": {"examples"}}}) for m in metrics]


def test_include_forks_counts_them_as_ordinary_games(family: Path, tmp_path: Path) -> None:
    forks = 3 * FORKS_PER_PARENT
    alone = score([family / "parents"], rating=FEW)
    counted = score([family], rating=FEW, include_forks=True)
    assert counted.forks_counted and counted.forks_excluded == 0
    assert counted.ratings.games_used == 3 + forks and counted.ratings != alone.ratings
    assert counted.openskill != alone.openskill
    wins, wins_alone = _win_counts(counted), _win_counts(alone)
    assert wins != wins_alone and sum(n for _, n in wins.values()) > sum(n for _, n in wins_alone.values())
    assert counted.availability.games == 3 + forks
    # Counted exactly as if they were ordinary games: the same transcripts with the fork origin erased.
    plain = tmp_path / "plain"
    for path in sorted(family.rglob("*.jsonl")):
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        header = json.loads(lines[0])
        header["fork"] = None
        (plain / path.parent.name).mkdir(parents=True, exist_ok=True)
        (plain / path.parent.name / path.name).write_text(json.dumps(header) + "\n" + "".join(lines[1:]),
                                                          encoding="utf-8")
    as_ordinary = score([plain], rating=FEW)
    assert as_ordinary.forks is None and as_ordinary.forks_excluded == 0
    assert counted.ratings == as_ordinary.ratings and counted.openskill == as_ordinary.openskill
    assert wins == _win_counts(as_ordinary) and _without_paths(counted.metrics) == _without_paths(as_ordinary.metrics)
    assert counted.forks is not None and len(counted.forks.pairs) == forks  # paired all the same
    md = render(counted, "md")
    assert f"{forks} forked games counted as ordinary games" in md and "excluded" not in md.split("## Config")[0]
    assert "Forks also count as ordinary games" in md


def test_old_reports_without_the_fork_fields_still_load(family: Path) -> None:
    data = json.loads(render(score([family / "parents"], rating=FEW), "json"))
    del data["forks_counted"], data["forks_excluded"]
    old = Report.model_validate(data)
    assert old.forks_counted and old.forks_excluded == 0  # before the option, forks were always counted


def test_score_command_include_forks(family: Path, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from arena.cli.main import app

    runner = CliRunner()
    forks = 3 * FORKS_PER_PARENT
    base = ["score", str(family), "--format", "json", "--resamples", "10"]
    default = runner.invoke(app, base)
    assert default.exit_code == 0, default.output
    data = json.loads(default.stdout)
    assert (data["forks_counted"], data["forks_excluded"], data["ratings"]["games_used"]) == (False, forks, 3)
    included = runner.invoke(app, base + ["--include-forks"])
    assert included.exit_code == 0, included.output
    data = json.loads(included.stdout)
    assert (data["forks_counted"], data["forks_excluded"], data["ratings"]["games_used"]) == (True, 0, 3 + forks)
    out = tmp_path / "report.md"
    written = runner.invoke(app, ["score", str(family), "--resamples", "10", "-o", str(out)])
    assert written.exit_code == 0 and f"({forks} forked games excluded from ratings)" in written.output
    assert f"{forks} forked games excluded from ratings" in out.read_text(encoding="utf-8")
    assert "--include-forks" in runner.invoke(app, ["score", "--help"]).output
