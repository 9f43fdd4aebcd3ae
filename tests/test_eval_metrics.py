"""Every metric against hand-made transcripts whose answers are worked out by hand in the comments."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.evaluate.load import load_game
from arena.evaluate.metrics import (
    CATALOGUE,
    LEGAL_SET_KINDS,
    SCORED_EVENTS,
    Accumulator,
    MetricResult,
    finish_metrics,
    score_game,
)
from arena.events import (
    BadgeMoved,
    BallotCast,
    SheriffCandidates,
    SheriffWithdrew,
    SpeechOrder,
    ExileResult,
    GuardProtected,
    HunterShot,
    PlayerDied,
    SeerResult,
    SheriffElected,
    Speech,
    VoteResult,
    WitchPoisoned,
    WitchSaved,
    WolfKnife,
    WolfKnifeVote,
    only,
)
from arena.transcript import DecisionLine, EventLine, HeaderLine, ResultLine, SeatAgent, TranscriptWriter


class Builder:
    """Writes a transcript line by line with the real line models, so the evaluator reads real files."""

    def __init__(self, roles: dict[int, str], agents: dict[int, str], game_id: str = "t", board: str = "test-board"):
        self.roles = roles
        self.agents = agents
        self.game_id = game_id
        self.board = board
        self.lines: list[Any] = []
        self.seq = 0
        self.decision_id = 0

    def ev(self, event: Any) -> "Builder":
        self.lines.append(EventLine(seq=self.seq, event=event))
        self.seq += 1
        return self

    def dec(self, seat: int, kind: str, phase: str, options: list[int] | None = None, value: Any = None,
            **extra: Any) -> "Builder":
        self.decision_id += 1
        legal = {"type": "seat", "options": options, "allow_none": True} if options is not None else {"type": "text"}
        self.lines.append(DecisionLine(id=self.decision_id, seat=seat, kind=kind, phase=phase, asked_in=phase,
                                       legal=legal, answer=value, value=value, visibility=only(seat),
                                       agent=self.agents[seat], **extra))
        return self

    def write(self, folder: Path, winner: str, alive: list[int] | None = None) -> Path:
        path = folder / f"{self.game_id}.jsonl"
        header = HeaderLine(game_id=self.game_id, preset=self.board, rules={}, switches={}, seed=1,
                            agents=[SeatAgent(seat=s, spec=f"bot:{a}", label=a) for s, a in sorted(self.agents.items())],
                            package_version="test")
        with TranscriptWriter(path) as w:
            w.write(header)
            for line in self.lines:
                w.write(line)
            w.write(ResultLine(winner=winner, reason="test", phase="D9", roles=self.roles, alive=alive or [],
                               decisions=self.decision_id, refused=0))
        return path


def score_files(*paths: Path) -> dict[str, MetricResult]:
    acc = Accumulator()
    for path in paths:
        score_game(load_game(path, event_types=SCORED_EVENTS, full_decision_kinds=LEGAL_SET_KINDS), acc)
    return {m.id: m for m in finish_metrics(acc)}


def row(metrics: dict[str, MetricResult], metric: str, agent: str, group: str = "all"):
    m = metrics[metric]
    assert m.status == "ok", f"{metric}: {m.status} {m.needs}"
    found = [r for r in m.rows if r.agent == agent and r.group == group]
    assert found, f"{metric}: no row for {agent}/{group}; rows: {[(r.agent, r.group) for r in m.rows]}"
    return found[0]


# --- game 1: votes, steering, the sheriff's ballot, night skills, hunter -----------------------
#
# Seats 1 seer, 2 witch, 3 guard, 4 hunter (agent A); 5, 6 villagers and 7, 8 wolves (agent B).
ROLES1 = {1: "seer", 2: "witch", 3: "guard", 4: "hunter", 5: "villager", 6: "villager", 7: "werewolf", 8: "werewolf"}
AGENTS1 = {1: "A", 2: "A", 3: "A", 4: "A", 5: "B", 6: "B", 7: "B", 8: "B"}


def game1(folder: Path) -> Path:
    b = Builder(ROLES1, AGENTS1, "game1")
    b.dec(1, "seer_check", "N1", [2, 3, 4, 5, 6, 7, 8], 7).ev(SeerResult(phase="N1", seat=1, target=7, result="wolf"))
    b.ev(SheriffElected(phase="D1", seat=2, reason="elected"))
    # Day 1 exile vote: 1->7, 2->8, 3->5, 4 abstains, 5->7, 6->1, wolves 7, 8 -> 1. Seat 1 is exiled.
    ballots = {1: 7, 2: 8, 3: 5, 4: None, 5: 7, 6: 1, 7: 1, 8: 1}
    for voter, target in ballots.items():
        b.dec(voter, "vote", "D1", [s for s in range(1, 9) if s != voter], target)
    for voter, target in ballots.items():
        b.ev(BallotCast(phase="D1", ballot="exile", voter=voter, target=target, weight=1.5 if voter == 2 else 1))
    b.ev(VoteResult(phase="D1", ballot="exile", tally={1: 3, 7: 2, 8: 1.5, 5: 1}, top=[1], voters=list(range(1, 9))))
    b.ev(ExileResult(phase="D1", seat=1, reason="exiled"))
    b.ev(PlayerDied(phase="D1", seat=1, cause="exile", causes=["exile"], batch=1))
    # Night 2: guard 3 protects 5; wolves vote 7->5 (villager), 8->2 (witch); the knife is 5; the
    # witch poisons 8. Seat 5 survives (guarded), 8 dies.
    b.dec(3, "guard", "N2", [2, 3, 4, 5, 6, 7, 8], 5).ev(GuardProtected(phase="N2", seat=3, target=5))
    b.ev(WolfKnifeVote(phase="N2", seat=7, target=5)).ev(WolfKnifeVote(phase="N2", seat=8, target=2))
    b.ev(WolfKnife(phase="N2", target=5))
    b.ev(WitchPoisoned(phase="N2", seat=2, target=8))
    b.ev(PlayerDied(phase="N2", seat=8, cause="poison", causes=["poison"], batch=2))
    # Day 2: the hunter 4 is exiled (no ballots recorded) and shoots 7.
    b.ev(ExileResult(phase="D2", seat=4, reason="exiled"))
    b.ev(PlayerDied(phase="D2", seat=4, cause="exile", causes=["exile"], batch=3))
    b.ev(HunterShot(phase="D2", seat=4, target=7))
    b.ev(PlayerDied(phase="D2", seat=7, cause="shot", causes=["shot"], batch=4))
    return b.write(folder, "village", alive=[2, 3, 5, 6])


def test_game1_votes_and_steering(tmp_path: Path) -> None:
    m = score_files(game1(tmp_path))
    # A's good ballots: 1->7 hit, 2->8 hit, 3->5 miss (4 abstained): 2/3; chance 2 wolves / 7 targets.
    acc = row(m, "vote_accuracy", "A")
    assert (acc.value, acc.n) == (pytest.approx(2 / 3), 3)
    assert acc.chance == pytest.approx(2 / 7)
    assert acc.corrected == pytest.approx((2 / 3 - 2 / 7) / (1 - 2 / 7))
    assert row(m, "vote_accuracy", "A", "D1").n == 3
    b = row(m, "vote_accuracy", "B")  # 5->7 hit, 6->1 miss
    assert (b.value, b.n) == (0.5, 2)
    ab = row(m, "vote_abstention", "A")
    assert (ab.value, ab.n, ab.chance) == (0.25, 4, pytest.approx(1 / 8))
    # Without the wolves' two ballots on seat 1, it has one vote against 7's two: steered.
    st = row(m, "wolf_steered_exile", "B")
    assert (st.value, st.n) == (1.0, 2)
    # Exile avoidance: D1 (8 alive) both wolves survive; D2 (6 alive) wolf 7 survives the vote.
    ea = row(m, "exile_avoidance", "B")
    assert (ea.value, ea.n) == (1.0, 3)
    assert ea.chance == pytest.approx((7 / 8 + 7 / 8 + 5 / 6) / 3)
    # The sheriff (seat 2, agent A) voted 8; none of the other non-blank ballots followed. Seat 8
    # could not vote for itself, so its ballot is no evidence either way: five ballots count.
    sf = row(m, "sheriff_follow", "A")
    assert (sf.value, sf.n, sf.chance) == (0.0, 5, pytest.approx(1 / 7))


def test_game1_role_skills_and_outcomes(tmp_path: Path) -> None:
    m = score_files(game1(tmp_path))
    seer = row(m, "seer_wolf_hit", "A")
    assert (seer.value, seer.n, seer.chance) == (1.0, 1, pytest.approx(2 / 7))
    knife = row(m, "knife_on_gods", "B")  # 7->5 villager, 8->2 witch; living good {2,3,4,5,6}: 3 gods
    assert (knife.value, knife.n, knife.chance) == (0.5, 2, pytest.approx(3 / 5))
    poison = row(m, "witch_poison_accuracy", "A")  # others alive {3..8}: 2 wolves of 6
    assert (poison.value, poison.chance) == (1.0, pytest.approx(2 / 6))
    guard = row(m, "guard_success", "A")
    assert (guard.value, guard.n, guard.chance) == (1.0, 1, pytest.approx(1 / 7))
    hunter = row(m, "hunter_shot_accuracy", "A")  # others alive {2,3,5,6,7}: one wolf of 5
    assert (hunter.value, hunter.chance) == (1.0, pytest.approx(1 / 5))
    assert row(m, "win_rate", "A", "side:good").value == 1.0
    assert row(m, "win_rate", "B", "side:wolf").value == 0.0
    assert row(m, "win_rate", "B", "side:wolf").chance == 0.0  # the only game: the village won it
    assert row(m, "win_rate", "A", "role:seer").n == 1
    assert row(m, "win_rate", "B", "role:villager").n == 1  # two villager seats, one game: one trial
    assert m["self_play_balance"].status == "needs"
    inv = row(m, "invalid_answers", "A")
    assert (inv.value, inv.n) == (0.0, 6)  # seats 1-4: one check, four votes, one guard


# --- game 2: beliefs, persuasion, claims, reasoning, usage, reliability --------------------------
#
# Seats 1 seer, 2 villager (agent A); 3, 4 villagers (agent B); 5, 6 wolves (agent C). Seat 1 is
# the sheriff. Day 1: seats 2, 3, 1, 5 speak in that order; then everybody votes.
ROLES2 = {1: "seer", 2: "villager", 3: "villager", 4: "villager", 5: "werewolf", 6: "werewolf"}
AGENTS2 = {1: "A", 2: "A", 3: "B", 4: "B", 5: "C", 6: "C"}
B2A = {1: 0.1, 3: 0.2, 4: 0.2, 5: 0.3, 6: 0.6}  # seat 2 before speaking: top suspect 6
B3A = {1: 0.2, 2: 0.2, 4: 0.2, 5: 0.7, 6: 0.3}  # seat 3 before speaking: 5
B1 = {2: 0.0, 3: 0.0, 4: 0.0, 5: 1.0, 6: 0.5}  # the seer: 5
B2V = {1: 0.1, 3: 0.2, 4: 0.2, 5: 0.8, 6: 0.4}  # seat 2 at the vote: 5
B3V = {1: 0.5, 2: 0.2, 4: 0.2, 5: 0.4, 6: 0.3}  # seat 3 at the vote: top suspect 1, yet votes 5


def game2(folder: Path) -> Path:
    b = Builder(ROLES2, AGENTS2, "game2")
    b.dec(1, "seer_check", "N1", [2, 3, 4, 5, 6], 5).ev(SeerResult(phase="N1", seat=1, target=5, result="wolf"))
    b.ev(SheriffElected(phase="D1", seat=1, reason="elected"))
    b.dec(2, "speech", "D1", beliefs=B2A).ev(Speech(phase="D1", seat=2, kind="discussion", text="pass"))
    b.dec(3, "speech", "D1", beliefs=B3A).ev(Speech(phase="D1", seat=3, kind="discussion", text="pass"))
    b.dec(1, "speech", "D1", beliefs=B1)
    b.ev(Speech(phase="D1", seat=1, kind="discussion", text="I am the seer. I checked seat 5: wolf."))
    b.dec(5, "speech", "D1", defaulted=True)
    b.ev(Speech(phase="D1", seat=5, kind="discussion", text="I am the seer. I checked 3 last night: wolf."))
    votes = {1: 5, 2: 5, 3: 5, 4: 5, 5: 3, 6: 3}
    extra: dict[int, dict[str, Any]] = {
        1: {"beliefs": B1}, 2: {"beliefs": B2V},
        3: {"beliefs": B3V, "reasoning": "Seat 5 is the wolf, 1 maybe.", "latency_ms": 200.0,
            "usage": {"input_tokens": 100, "output_tokens": 20, "cached": 40, "reasoning": 5, "cost_usd": 0.01}},
        4: {"reasoning": "I think seat 6 and seat 2 are odd.", "usage": {"total_tokens": 50}},
        6: {"attempts": [{"raw": '{"act', "error": "cut off", "truncated": True}, {"raw": 3}]},
    }
    for voter, target in votes.items():
        b.dec(voter, "vote", "D1", [s for s in range(1, 7) if s != voter], target, **extra.get(voter, {}))
    for voter, target in votes.items():
        b.ev(BallotCast(phase="D1", ballot="exile", voter=voter, target=target, weight=1.5 if voter == 1 else 1))
    b.ev(VoteResult(phase="D1", ballot="exile", tally={5: 4.5, 3: 2}, top=[5], voters=list(range(1, 7))))
    b.ev(ExileResult(phase="D1", seat=5, reason="exiled"))
    b.ev(PlayerDied(phase="D1", seat=5, cause="exile", causes=["exile"], batch=1))
    return b.write(folder, "village", alive=[1, 2, 3, 4])


def test_game2_deduction_from_beliefs(tmp_path: Path) -> None:
    m = score_files(game2(tmp_path))
    # A's last daily reports (seat 1: B1, seat 2: B2V) rank both wolves above every good seat.
    assert row(m, "belief_auroc", "A").value == 1.0
    assert row(m, "belief_auroc", "A", "D1").value == 1.0
    # B3V: wolves 0.4, 0.3 against goods 0.5, 0.2, 0.2: 4 of 6 pairs ordered right.
    auc = row(m, "belief_auroc", "B")
    assert (auc.value, auc.n, auc.chance) == (pytest.approx(4 / 6), 5, 0.5)
    brier = row(m, "belief_brier", "B")
    assert brier.value == pytest.approx((0.25 + 0.04 + 0.04 + 0.36 + 0.49) / 5)
    assert brier.chance == pytest.approx(0.4 * 0.6)
    # Seats 1, 2 vote their top suspect; seat 3 votes 5 while its top suspect is 1.
    assert row(m, "belief_vote_gap", "A").value == 0.0
    gap = row(m, "belief_vote_gap", "B")
    assert (gap.value, gap.n, gap.chance) == (1.0, 1, pytest.approx(0.8))
    # Disguise of the wolves (prior 2/5): seat 1 rates 5, 6 at 1.0, 0.5; seat 2 at 0.8, 0.4; seat 3 at 0.4, 0.3.
    dis = row(m, "disguise", "C")
    assert (dis.value, dis.n) == (pytest.approx((-0.6 - 0.1 - 0.4 + 0.0 + 0.0 + 0.1) / 6), 6)


def test_game2_persuasion(tmp_path: Path) -> None:
    m = score_files(game2(tmp_path))
    # Seat 3's speech (target 5): listener 2 moves 6 -> 5 across 4 speeches: +1/4 over 1 listener.
    assert row(m, "speech_swing", "B").value == pytest.approx(0.25)
    # Seat 1's speech (target 5): listener 2 +1/4; listener 3 moves 5 -> 1 across 3 speeches: -1/3.
    assert row(m, "speech_swing", "A").value == pytest.approx((0.25 - 1 / 3) / 2)
    # Seat 5 (a wolf, no beliefs: its target is its ballot, 3): nobody moves to or from 3.
    assert row(m, "speech_swing", "C").value == 0.0
    assert row(m, "speech_swing", "C", "side:wolf").n == 1
    # Sheriff 1 voted 5; of the good voters, only seat 2 meant another seat (6) before the sheriff spoke.
    pull = row(m, "sheriff_pull", "A")
    assert (pull.value, pull.n, pull.chance) == (1.0, 1, pytest.approx(1 / 4))
    follow = row(m, "sheriff_follow", "A")  # 2, 3, 4 follow, 6 does not (5 could not vote for itself)
    assert (follow.value, follow.n, follow.chance) == (0.75, 4, pytest.approx(1 / 5))


def test_game2_claims(tmp_path: Path) -> None:
    m = score_files(game2(tmp_path))
    # The seer's role claim and its check on 5 are true; the wolf's seer claim and check on 3 are false.
    truth_a = row(m, "claim_truth", "A", "side:good")
    assert (truth_a.value, truth_a.n) == (1.0, 2)
    truth_c = row(m, "claim_truth", "C", "side:wolf")
    assert (truth_c.value, truth_c.n) == (0.0, 2)
    assert truth_c.chance == pytest.approx((1 / 6 + 1 / 5) / 2)  # one seer in 6 cards; one wolf among 5 others
    assert row(m, "good_false_statements", "A").value == 0.0
    fc = row(m, "false_check_exiled", "C")  # seat 3 was not exiled on D1 or D2
    assert (fc.value, fc.n, fc.chance) == (0.0, 1, pytest.approx(1 / 6))
    # The wolf's seer claim: listeners' beliefs in 5 move 1.0->1.0, 0.3->0.8, 0.7->0.4: up on average.
    fb = row(m, "false_claim_believed", "C")
    assert (fb.value, fb.n) == (0.0, 1)


def test_game2_honesty_and_reliability(tmp_path: Path) -> None:
    m = score_files(game2(tmp_path))
    # Seat 3 names seat 5 and votes 5 (chance 1/5); seat 4 names 6 and 2 and votes 5 (chance 2/5).
    rc = row(m, "reasoning_consistency", "B")
    assert (rc.value, rc.n, rc.chance) == (0.5, 2, pytest.approx(0.3))
    assert row(m, "tokens_per_decision", "B").value == pytest.approx(85.0)
    tg = row(m, "tokens_per_game", "B")
    assert (tg.value, tg.n) == (pytest.approx(85.0), 2)
    assert row(m, "cost_per_game", "B").value == pytest.approx(0.01)
    # Seat 3 names each part of its tokens; seat 4 only a total, so it counts in none of them.
    pt = row(m, "prompt_tokens_per_game", "B")
    assert (pt.value, pt.n) == (100.0, 1)
    assert row(m, "completion_tokens_per_game", "B").value == 20.0
    assert row(m, "cached_tokens_per_game", "B").value == 40.0
    assert row(m, "reasoning_tokens_per_game", "B").value == 5.0
    assert [r.agent for r in m["prompt_tokens_per_game"].rows] == ["B"]
    assert row(m, "latency_ms", "B").value == pytest.approx(200.0)
    inv = row(m, "invalid_answers", "C")  # seat 6's first attempt failed; seat 5's speech and vote were fine
    assert (inv.value, inv.n) == (pytest.approx(1 / 3), 3)
    fb = row(m, "fallback_rate", "C")  # seat 5's speech fell back to the default
    assert (fb.value, fb.n) == (pytest.approx(1 / 3), 3)
    cut = row(m, "truncated_replies", "C")  # seat 6's first reply was cut off by the token limit: apart from fallbacks
    assert (cut.value, cut.n) == (pytest.approx(1 / 3), 3)
    assert row(m, "invalid_answers", "A").n == 5  # seer check, two speeches, two votes


# --- game 3: 同守同救, a good save, self-play -----------------------------------------------------


def game3(folder: Path, name: str = "game3") -> Path:
    roles = {1: "seer", 2: "witch", 3: "guard", 4: "villager", 5: "villager", 6: "werewolf"}
    agents = {s: "S" for s in roles}
    b = Builder(roles, agents, name)
    # N1: guard and antidote both on the knifed seat 5: it dies (同守同救).
    b.dec(3, "guard", "N1", [1, 2, 3, 4, 5, 6], 5).ev(GuardProtected(phase="N1", seat=3, target=5))
    b.ev(WolfKnife(phase="N1", target=5)).ev(WitchSaved(phase="N1", seat=2, target=5))
    b.ev(PlayerDied(phase="N1", seat=5, cause="wolf", causes=["wolf"], batch=1))
    # N2: the guard protects 1, the knife is 4, the antidote... is gone; 4 dies.
    b.dec(3, "guard", "N2", [1, 2, 4, 6], 1).ev(GuardProtected(phase="N2", seat=3, target=1))
    b.ev(WolfKnife(phase="N2", target=4))
    b.ev(PlayerDied(phase="N2", seat=4, cause="wolf", causes=["wolf"], batch=2))
    return b.write(folder, "wolves", alive=[1, 2, 3, 6])


def test_game3_guard_and_witch(tmp_path: Path) -> None:
    m = score_files(game3(tmp_path))
    assert row(m, "same_guard_save", "S", "as guard").value == 1.0
    same = row(m, "same_guard_save", "S", "as witch")
    assert (same.value, same.n, same.chance) == (1.0, 1, pytest.approx(1 / 6))
    assert row(m, "witch_save_precision", "S").value == 0.0  # the saved seat died anyway
    g = row(m, "guard_success", "S")  # N1: on the knife but the antidote killed; N2: elsewhere
    assert (g.value, g.n) == (0.0, 2)
    assert g.chance == pytest.approx((1 / 6 + 1 / 4) / 2)


def test_self_play_balance(tmp_path: Path) -> None:
    paths = [game3(tmp_path, f"sp{i}") for i in range(3)]
    m = score_files(*paths)
    sp = row(m, "self_play_balance", "S", "test-board")
    assert (sp.value, sp.n, sp.chance) == (0.0, 3, 0.5)


def test_missing_data_says_what_it_needs(tmp_path: Path) -> None:
    m = score_files(game1(tmp_path))
    for metric in ("belief_auroc", "belief_brier", "belief_vote_gap", "disguise", "speech_swing", "sheriff_pull",
                   "false_claim_believed"):
        assert m[metric].status == "needs" and "beliefs" in (m[metric].needs or ""), metric
    for metric in ("claim_truth", "false_check_exiled", "good_false_statements"):
        assert m[metric].status == "needs" and "claims" in (m[metric].needs or ""), metric
    assert m["tokens_per_game"].status == "needs" and m["tokens_per_game"].rows == []
    assert m["reasoning_consistency"].status == "needs"
    assert m["witch_save_precision"].status == "empty"  # data of this kind exists; no save happened


def test_beliefs_only_at_votes_cannot_measure_persuasion(tmp_path: Path) -> None:
    b = Builder(ROLES2, AGENTS2, "votes-only")
    for voter, target in {1: 5, 2: 5, 3: 5, 4: 5}.items():
        b.dec(voter, "vote", "D1", [s for s in range(1, 7) if s != voter], target, beliefs=B2V if voter != 1 else B1)
        b.ev(BallotCast(phase="D1", ballot="exile", voter=voter, target=target, weight=1))
    m = score_files(b.write(tmp_path, "village"))
    assert m["belief_auroc"].status == "ok"
    for metric in ("speech_swing", "sheriff_pull"):
        assert m[metric].status == "needs" and "speech decisions" in (m[metric].needs or ""), metric


def every_speech_game(folder: Path) -> Path:
    """Belief mode every_speech: listeners report (kind "belief") after each speech they hear."""
    b = Builder(ROLES2, AGENTS2, "every-speech")
    b.ev(SheriffElected(phase="D1", seat=1, reason="elected"))

    def report(seat: int, beliefs: dict[int, float]) -> None:
        b.dec(seat, "belief", "D1", value=beliefs, beliefs=beliefs)

    report(1, {2: 0.0, 3: 0.0, 4: 0.0, 5: 0.9, 6: 0.5})  # the seer's case: 5
    report(2, {1: 0.2, 3: 0.2, 4: 0.2, 5: 0.3, 6: 0.5})
    report(3, {1: 0.2, 2: 0.2, 4: 0.2, 5: 0.4, 6: 0.3})
    report(4, {1: 0.5, 2: 0.2, 3: 0.2, 5: 0.1, 6: 0.3})  # seat 4 reports again only two speeches later
    b.ev(Speech(phase="D1", seat=1, kind="discussion", text="I checked 5: wolf. Vote 5."))
    report(2, {1: 0.1, 3: 0.2, 4: 0.2, 5: 0.7, 6: 0.4})
    report(3, {1: 0.1, 2: 0.2, 4: 0.2, 5: 0.5, 6: 0.3})
    b.ev(Speech(phase="D1", seat=5, kind="discussion", text="Seat 1 is lying; vote 1."))
    report(2, {1: 0.3, 3: 0.2, 4: 0.2, 5: 0.6, 6: 0.4})
    report(3, {1: 0.1, 2: 0.2, 4: 0.2, 5: 0.5, 6: 0.3})
    report(4, {1: 0.0, 2: 0.2, 3: 0.2, 5: 0.9, 6: 0.3})
    for voter, target in {1: 5, 2: 5, 3: 5, 4: 5, 5: 1, 6: 1}.items():
        b.ev(BallotCast(phase="D1", ballot="exile", voter=voter, target=target, weight=1))
    return b.write(folder, "village", alive=[1, 2, 3, 4])


def test_every_speech_beliefs_measure_each_speech(tmp_path: Path) -> None:
    """speech_shift / speech_trust read the belief reports just before and just after one speech;
    seat 4, whose two reports span both speeches, counts for neither."""
    m = score_files(every_speech_game(tmp_path))
    # Seat 1 (A, target 5): listener 2 moves P(5) 0.3 -> 0.7, listener 3 0.4 -> 0.5.
    shift = row(m, "speech_shift", "A")
    assert (shift.value, shift.n) == (pytest.approx((0.4 + 0.1) / 2), 1)
    # ... and trusts seat 1 more: 0.2 -> 0.1 for both.
    assert row(m, "speech_trust", "A").value == pytest.approx(0.1)
    # Seat 5 (C, a wolf with no beliefs: its target is its ballot, 1): 2 moves P(1) 0.1 -> 0.3, 3 stays.
    assert row(m, "speech_shift", "C").value == pytest.approx(0.1)
    assert row(m, "speech_shift", "C", "side:wolf").n == 1
    # ... and is suspected less: 0.7 -> 0.6 by seat 2, 0.5 -> 0.5 by seat 3.
    assert row(m, "speech_trust", "C").value == pytest.approx(0.05)
    # Reports between speeches are what the intent-based metrics need too. Sheriff 1 votes 5: seat 2
    # (prior intent 6) and seat 4 (prior intent 1) follow it; seat 3 meant 5 already.
    assert m["speech_swing"].status == "ok"
    pull = row(m, "sheriff_pull", "A")
    assert (pull.value, pull.n) == (1.0, 2)


def test_every_metric_has_a_test_and_a_doc() -> None:
    tested = Path(__file__).read_text(encoding="utf-8")
    docs = (Path(__file__).resolve().parent.parent / "docs" / "metrics.md").read_text(encoding="utf-8")
    for metric in CATALOGUE:
        assert f'"{metric.id}"' in tested, f"no test names {metric.id}"
        assert f"`{metric.id}`" in docs, f"docs/metrics.md does not document {metric.id}"


def test_fast_and_full_loading_agree(tmp_path: Path) -> None:
    path = game2(tmp_path)
    fast, full = Accumulator(), Accumulator()
    score_game(load_game(path, event_types=SCORED_EVENTS, full_decision_kinds=LEGAL_SET_KINDS), fast)
    score_game(load_game(path), full)
    assert [r.model_dump() for r in finish_metrics(fast)] == [r.model_dump() for r in finish_metrics(full)]


def test_game1_key_role_survival_and_the_shape_of_the_win(tmp_path: Path) -> None:
    m = score_files(game1(tmp_path))
    # God roles 1-4 (agent A): 2 and 3 survive; good seats alive at the end: 2, 3, 5, 6 of 1-6.
    r = row(m, "ksr", "A")
    assert (r.value, r.n, r.chance) == (0.5, 4, pytest.approx(4 / 6))
    # Phases N1=1, D1=2, N2=3, D2=4, ... D9=18 (the result line's phase): the seer lived 2/18, the
    # hunter 4/18, the witch and the guard the whole game.
    r = row(m, "wd_ksr", "A")
    assert r.value == pytest.approx((2 / 18 + 1 + 1 + 4 / 18) / 4)
    # The village won with 4 good seats and no wolf alive, on day 9; both entries held good seats.
    for agent in ("A", "B"):
        assert row(m, "win_margin", agent, "side:good").value == 4.0
        assert row(m, "win_days", agent, "side:good").value == 9.0


# --- game 4: the badge, the day-1 order and vote sway ---------------------------------------------
ROLES4 = {1: "seer", 2: "witch", 3: "villager", 4: "villager", 5: "werewolf", 6: "werewolf"}
AGENTS4 = {1: "A", 2: "A", 3: "A", 4: "B", 5: "B", 6: "B"}


def game4(folder: Path) -> Path:
    b = Builder(ROLES4, AGENTS4, "game4")
    b.ev(SheriffCandidates(phase="D1", seats=[1, 3, 5])).ev(SheriffWithdrew(phase="D1", seat=5))
    b.ev(SheriffElected(phase="D1", seat=1, reason="elected"))
    b.ev(SpeechOrder(phase="D1", order=[2, 3, 4, 5, 6, 1], context="sheriff"))
    for seat in (2, 3):
        b.ev(Speech(phase="D1", seat=seat, kind="discussion", text="Vote 5."))
    ballots = {2: 5, 3: 5, 4: 5, 5: 2, 6: 5, 1: 5}
    for voter, target in ballots.items():
        b.dec(voter, "vote", "D1", [s for s in range(1, 7) if s != voter], target)
    for voter, target in ballots.items():
        b.ev(BallotCast(phase="D1", ballot="exile", voter=voter, target=target, weight=1))
    b.ev(ExileResult(phase="D1", seat=5, reason="exiled")).ev(PlayerDied(phase="D1", seat=5, cause="exile",
                                                                          causes=["exile"], batch=1))
    b.ev(PlayerDied(phase="N2", seat=1, cause="wolf", causes=["wolf"], batch=2))
    b.ev(BadgeMoved(phase="N2", action="passed", from_seat=1, to_seat=6))
    b.ev(ExileResult(phase="D2", seat=6, reason="exiled")).ev(PlayerDied(phase="D2", seat=6, cause="exile",
                                                                          causes=["exile"], batch=3))
    return b.write(folder, "village", alive=[2, 3, 4])


def test_game4_badge_position_and_vote_sway(tmp_path: Path) -> None:
    m = score_files(game4(tmp_path))
    # Candidates 1 and 3 remain (5 withdrew); 1 wins.
    r = row(m, "badge_capture", "A", "side:good")
    assert (r.value, r.n, r.chance) == (0.5, 2, 0.5)
    # The dying sheriff 1 passes the badge to 6, a wolf; good seats among 2, 3, 4, 6: 3 of 4.
    r = row(m, "badge_pass_good", "A", "side:good")
    assert (r.value, r.n, r.chance) == (0.0, 1, 0.75)
    # The badge ends on seat 6: the wolves' side.
    assert row(m, "badge_end_side", "B", "side:wolf").value == 1.0
    assert row(m, "badge_end_side", "A", "side:good").value == 0.0
    # Day-1 order 2 3 4 5 6 1: quartiles 1 1 2 3 3 4. The village won.
    assert row(m, "position_win_rate", "A", "side:good d1q1").value == 1.0
    assert row(m, "position_win_rate", "A", "side:good d1q1").n == 2
    assert row(m, "position_win_rate", "B", "side:wolf d1q3").value == 0.0
    assert row(m, "position_win_rate", "A", "side:good seat:01").n == 1
    # Speakers 2 and 3 voted 5; the other voters who could vote 5 (not 5 itself) all did; 5 targets each.
    r = row(m, "vote_sway", "A", "side:good")
    assert (r.value, r.n, r.chance) == (1.0, 8, pytest.approx(0.2))


def test_scoring_counters_match_the_availability_report():
    """The fast counters bumped while scoring and the reported availability name the same fields."""
    from dataclasses import fields

    from arena.evaluate.accumulate import Availability, Counts

    assert [f.name for f in fields(Counts)] == list(Availability.model_fields)


def test_a_fallback_after_a_cut_off_reply_is_counted_apart(tmp_path: Path) -> None:
    """#25 item 8: a decision settled by the default because the model's last reply was cut off at
    the token limit counts in cut_off_fallback_rate, not in fallback_rate."""
    b = Builder(ROLES2, AGENTS2, "cutoff")
    cut = [{"raw": '{"reas', "error": "cut off", "truncated": True}, {"raw": '{"re', "error": "cut off", "truncated": True}]
    b.dec(5, "speech", "D1", defaulted=True, attempts=cut)
    b.dec(6, "speech", "D1", defaulted=True, attempts=[{"raw": "x", "error": "not JSON"}])
    b.dec(5, "speech", "D2", attempts=[{"raw": '{"re', "error": "cut off", "truncated": True}, {"raw": "ok"}])
    m = score_files(b.write(tmp_path, "village", alive=[1, 2, 3, 4]))
    cut_rate, plain = row(m, "cut_off_fallback_rate", "C"), row(m, "fallback_rate", "C")
    assert (cut_rate.value, cut_rate.n) == (pytest.approx(1 / 3), 3)  # seat 5's D1 speech
    assert (plain.value, plain.n) == (pytest.approx(1 / 3), 3)  # seat 6's: its reply was not cut off
    assert row(m, "truncated_replies", "C").value == pytest.approx(2 / 3)  # seat 5's two speeches


def test_false_check_pull_counts_other_agents_voters_turned_onto_the_target(tmp_path: Path) -> None:
    """Wolf 5 (C) falsely calls villager 2 a wolf. Before the claim seat 1 (A) and seat 3 (B) meant to vote
    elsewhere, seat 4 (B) meant 2 already; seat 6 is C's own good seat. 1 votes 2, 3 does not: 1 of 2
    (seat 4 had no intent to change, seat 6 is the liar's own audience and does not count)."""
    roles = {1: "seer", 2: "villager", 3: "villager", 4: "villager", 5: "werewolf", 6: "villager"}
    agents = {1: "A", 2: "A", 3: "B", 4: "B", 5: "C", 6: "C"}
    b = Builder(roles, agents, "false-check")
    before = {1: {2: 0.2, 3: 0.1, 4: 0.1, 5: 0.3, 6: 0.6}, 3: {1: 0.1, 2: 0.2, 4: 0.1, 5: 0.3, 6: 0.6},
              4: {1: 0.1, 2: 0.7, 3: 0.1, 5: 0.3, 6: 0.2}, 6: {1: 0.6, 2: 0.2, 3: 0.1, 4: 0.1, 5: 0.3}}
    for seat, beliefs in before.items():
        b.dec(seat, "belief", "D1", value=beliefs, beliefs=beliefs)
    b.ev(Speech(phase="D1", seat=5, kind="discussion", text="I am the seer. I checked 2: wolf. Vote 2."))
    for voter, target in {1: 2, 3: 6, 4: 2, 6: 2, 5: 2, 2: 5}.items():
        b.ev(BallotCast(phase="D1", ballot="exile", voter=voter, target=target, weight=1))
    m = score_files(b.write(tmp_path, "village", alive=[1, 2, 3, 4, 6]))
    pull = row(m, "false_check_pull", "C")
    assert (pull.value, pull.n) == (0.5, 2)
    assert pull.chance == pytest.approx(1 / 4)  # 5 legal targets, the prior intent aside
