"""Core referee rules that outcome keys of a scenario cannot show (RULES.md, in-scope R-numbers).

Each test names the rule(s) it checks. Games are set up with a fixed deal and driven through
``game.pending()`` / ``game.submit()``; the tests inspect ``game.log`` (events and their visibility).
The last two tests check that every in-scope R-number and every core switch value is exercised by a
scenario in ``tests/scenarios`` (or by a test here).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Callable

import pytest

from arena.config import presets, resolve_rules
from arena.engine import Game, GameSetup
from arena.rules.speech import neighbour, ring
from arena.rules.victory import camp_of, check_winner
from arena.types import Camp, Role, Winner, phase_order

SCENARIOS = Path(__file__).parent / "scenarios"

# std-12-guard as in the conformance examples: wolves 1-4, seer 5, witch 6, hunter 7, guard 8, villagers 9-12.
G12 = ["werewolf"] * 4 + ["seer", "witch", "hunter", "guard"] + ["villager"] * 4
I12 = ["werewolf"] * 4 + ["seer", "witch", "hunter", "idiot"] + ["villager"] * 4
NO_SHERIFF = {"sheriff": False}


def game(preset: str = "std-12-guard", deal: list[str] | None = None, rules: dict[str, Any] | None = None,
         **kw: Any) -> Game:
    return Game(GameSetup(preset=preset, rules=dict(rules or {}), deal=list(deal or G12), **kw))


Answer = Callable[[Game, Any], Any]


def drive(g: Game, script: dict[int, dict[str, Any]] | None = None, *, until: str | None = None,
          answer: Answer | None = None, on_requests: Callable[[Game, list], None] | None = None) -> Game:
    """Play ``g``: each request gets ``answer(g, request)`` if that returns something other than ...,
    else the scripted value for "<phase>.<kind>", else its default; stop once ``until`` is over."""
    script = script or {}
    while not g.over:
        if until is not None and phase_order(g.state.phase) > phase_order(until):
            break
        requests = g.pending()
        if not requests:
            break
        if on_requests is not None:
            on_requests(g, requests)
        answers = {}
        for r in requests:
            value = answer(g, r) if answer is not None else ...
            if value is ...:
                value = script.get(r.seat, {}).get(r.key, r.default)
            answers[r.id] = value
        g.submit(answers)
    return g


def knife(target: int, phase: str = "N1", wolves=(1, 2, 3, 4)) -> dict[int, dict[str, Any]]:
    return {w: {f"{phase}.wolf_kill": target} for w in wolves}


def merge(*parts: dict[int, dict[str, Any]]) -> dict[int, dict[str, Any]]:
    out: dict[int, dict[str, Any]] = {}
    for part in parts:
        for seat, answers in part.items():
            out.setdefault(seat, {}).update(answers)
    return out


def events(g: Game, type_: str, phase: str | None = None) -> list:
    return [e for e in g.log if e.type == type_ and (phase is None or e.phase == phase)]


def night_steps(g: Game, phase: str) -> list[str]:
    return [e.step for e in events(g, "night_step", phase)]


# ---- §0 engine model ------------------------------------------------------------------------

def test_R1_seats_ascending_ring_wraps_and_speaking_skips_the_dead():
    """R1: seats 1..N clockwise; ascending k -> k+1 with N wrapping to 1; speaking orders skip the dead."""
    g = game(rules=NO_SHERIFF)
    assert ring(g, 11, "ascending")[:3] == [11, 12, 1]
    assert ring(g, 2, "descending")[:3] == [2, 1, 12]
    assert neighbour(g, 12, "ascending") == 1 and neighbour(g, 1, "descending") == 12
    drive(g, knife(12), until="D1")
    order = events(g, "speech_order", "D1")[0].order
    assert order == list(range(1, 12))  # starts after the dead 12, wraps to 1, and 12 is skipped
    quiet = drive(game(rules=NO_SHERIFF), until="D1")  # nobody has died yet: seat 1, ascending (R63, OQ20)
    assert events(quiet, "speech_order", "D1")[0].order == list(range(1, 13))


def test_R4_R16_hidden_information_and_night_privacy():
    """R4, R16: a player knows only his card and what a rule tells him; night actions and results are
    private to the acting role (the wolves' to the wolf team); deaths are announced without causes."""
    g = drive(game(rules=NO_SHERIFF), merge(knife(9), {8: {"N1.guard": 10}, 6: {"N1.witch_poison": 1},
                                                          5: {"N1.seer_check": 2}}), until="D1")
    wolves = (1, 2, 3, 4)
    for e in g.log:
        vis = e.visibility
        if e.type == "role_assigned":
            assert vis.to == "seats" and vis.seats == (e.seat,)
        elif e.type in ("wolf_team", "wolf_knife_vote", "wolf_proposal", "wolf_veto", "wolf_team_message", "wolf_knife"):
            assert vis.to == "seats" and vis.seats == wolves
        elif e.type in ("guard_protected", "witch_told", "witch_saved", "witch_poisoned", "seer_result",
                        "hunter_status", "answer_refused"):
            assert vis.to == "seats" and vis.seats == (e.seat,), e.type
        elif e.type == "player_died":
            assert vis.to == "referee"  # causes are never announced (OQ2)
        elif e.type == "deaths_announced":
            assert vis.to == "all" and "cause" not in e.model_dump()
    assert events(g, "deaths_announced", "D1")[0].seats == [1, 9]
    # A villager's view of N1 holds nothing but the public night steps.
    seen = [e.type for e in g.log if e.phase == "N1" and e.visibility.allows(10)]
    assert set(seen) <= {"game_started", "phase_started", "night_step", "role_assigned"}


def test_R9_R16_only_the_called_role_is_asked_at_night():
    """R9, R16: at night only the seats of the active step receive decision requests, with their legal set."""
    asked: list[tuple[str, int, str]] = []

    def record(g: Game, requests: list) -> None:
        if g.state.night:
            asked.extend((r.kind, r.seat, g.log[-1].step if g.log[-1].type == "night_step" else "") for r in requests)

    drive(game(rules=NO_SHERIFF), knife(9), until="N1", on_requests=record)
    by_kind = {(kind, seat) for kind, seat, _ in asked}
    assert by_kind == {("guard", 8), ("wolf_kill", 1), ("wolf_kill", 2), ("wolf_kill", 3), ("wolf_kill", 4),
                       ("wolf_propose", 1), ("wolf_propose", 2), ("wolf_propose", 3), ("wolf_propose", 4),
                       ("witch_save", 6), ("witch_poison", 6), ("seer_check", 5)}
    assert {seat for _, seat, _ in asked}.isdisjoint({7, 9, 10, 11, 12})  # villagers and the hunter act not


def test_R10_deal_one_private_card_per_seat_no_sheriff_card_seeded():
    """R10: one card per seat, seen by its holder only; the sheriff is not dealt; the deal comes from the
    seed's `deal` stream, so the same seed gives the same deal."""
    a = Game(GameSetup(preset="std-12-guard", seed=7))
    b = Game(GameSetup(preset="std-12-guard", seed=7))
    cards_a = [a.state.card(s) for s in range(1, 13)]
    assert cards_a == [b.state.card(s) for s in range(1, 13)]
    assert sorted(cards_a) == sorted(resolve_rules("std-12-guard").preset.cards)
    assert a.state.sheriff is None and a.state.badge == "unused"
    assigned = events(a, "role_assigned")
    assert sorted(e.seat for e in assigned) == list(range(1, 13))
    assert all(e.visibility.seats == (e.seat,) for e in assigned)


def test_R15_R46_day_steps_in_order():
    """R15, R46: election (before the announcement), announcement, death skills, last words, discussion,
    exile vote and its consequences, in that order."""
    script = merge(knife(7), {7: {"N1.hunter_shoot": 12}, 5: {"D1.sheriff_run": True}},
                   {s: {"D1.vote": 10} for s in (1, 2, 3, 4)})
    g = drive(game(), script, until="D1")
    d1 = [e for e in g.log if e.phase == "D1"]

    def first(pred) -> int:
        return next(i for i, e in enumerate(d1) if pred(e))

    steps = [
        first(lambda e: e.type == "sheriff_elected"),
        first(lambda e: e.type == "deaths_announced" and e.death_phase == "N1"),
        first(lambda e: e.type == "hunter_shot"),
        first(lambda e: e.type == "speech" and e.kind == "last_words"),
        first(lambda e: e.type == "speech" and e.kind == "discussion"),
        first(lambda e: e.type == "vote_result" and e.ballot == "exile"),
        first(lambda e: e.type == "exile_result"),
    ]
    assert steps == sorted(steps)


def test_R15_R48_after_discussion_election_sits_between_speeches_and_exile_vote():
    """R15 step 8, R48: with sheriff_election_time=after_d1_discussion the election follows the D1 speeches."""
    g = drive(game(rules={"sheriff_election_time": "after_d1_discussion"}), until="D1")
    kinds = [(e.type, getattr(e, "ballot", getattr(e, "kind", None))) for e in g.log if e.phase == "D1"]
    last_speech = max(i for i, k in enumerate(kinds) if k == ("speech", "discussion"))
    sheriff_vote = kinds.index(("vote_result", "sheriff"))
    exile_vote = kinds.index(("vote_result", "exile"))
    assert last_speech < sheriff_vote < exile_vote


# ---- §2.3 night steps and orders ------------------------------------------------------------

@pytest.mark.parametrize("order, n1, n2", [
    ("order_000", ["guard", "wolves", "witch", "seer", "hunter"], ["guard", "wolves", "witch", "seer", "hunter"]),
    ("order_004a", ["guard", "wolves", "witch", "seer", "hunter"], ["guard", "wolves", "witch", "seer", "hunter"]),
    ("order_004c", ["hunter", "guard", "wolves", "seer", "witch"], ["guard", "wolves", "seer", "witch"]),
    # order_001 has no guard step: the guard dealt on this board gets its order_003 place, right after the
    # lovers' step (the nearest step before it there that order_001 has), so it is called before the seer (R18).
    ("order_001", ["guard", "seer", "wolves", "witch"], ["guard", "seer", "wolves", "witch"]),
])
def test_R18_R20_night_orders(order, n1, n2):
    """R18: each night_order calls the configured roles' steps in its own order, and a card with no step in it
    gets its step merged from order_003; R20: order_004c's hunter identification is N1 only."""
    g = drive(game(rules={"sheriff": False, "night_order": order}), until="N2")
    assert night_steps(g, "N1") == n1
    assert night_steps(g, "N2") == n2


def test_R140_idiot_step_every_night_without_decision():
    """R140: in order_000 the idiot wakes every night and looks at the referee; nothing is asked of him."""
    asked = []
    g = drive(game("std-12-idiot", I12, NO_SHERIFF), until="N2",
              on_requests=lambda g, rs: asked.extend(r.seat for r in rs if g.state.night))
    assert night_steps(g, "N1")[-1] == "idiot" and night_steps(g, "N2")[-1] == "idiot"
    assert 8 not in asked


def test_R21_steps_of_dead_roles_are_still_called():
    """R21: a configured role's step is called every night even when its holder is dead; no one is asked."""
    asked = []
    g = drive(game(rules=NO_SHERIFF), merge(knife(6), knife(5, "N2")), until="N3",
              on_requests=lambda g, rs: asked.extend((g.state.phase, r.seat) for r in rs))
    for phase in ("N2", "N3"):
        assert "witch" in night_steps(g, phase)
        assert (phase, 6) not in asked
    assert "seer" in night_steps(g, "N3") and ("N3", 5) not in asked


def test_R123_hunter_status_signal_every_night():
    """R123: with hunter_status_signal=every_night the hunter is told privately each night whether his gun
    would work (no when poisoned); with hunter_status_signal=none he is told nothing."""
    g = drive(game(rules=NO_SHERIFF), merge(knife(9), {6: {"N2.witch_poison": 7}}), until="N2")
    status = {e.phase: e.can_shoot for e in events(g, "hunter_status")}
    assert status == {"N1": True, "N2": False}
    assert all(e.visibility.seats == (7,) for e in events(g, "hunter_status"))
    quiet = drive(game(rules={"sheriff": False, "hunter_status_signal": "none"}), until="N2")
    assert events(quiet, "hunter_status") == []


def test_R124_R21_shot_hunter_step_kept_but_nothing_asked():
    """R124: after the hunter has revealed and shot, his step may be dropped; the engine keeps calling it
    (R21, leaks nothing) but sends the dead hunter no status and asks him nothing."""
    g = drive(game(rules=NO_SHERIFF), merge(knife(7), {7: {"N1.hunter_shoot": 1}}), until="N2")
    assert events(g, "hunter_shot")[0].target == 1
    assert "hunter" in night_steps(g, "N2")
    assert [e.phase for e in events(g, "hunter_status")] == ["N1"]


def test_R110_R111_R125_R129_core_boards_one_seer_no_hunting_gun_no_guard_with_elder():
    """R111: 003's two seers and extra N1 check are not on core boards (one seer, one check a night);
    R125: the 003 hunting gun is off (hunting_gun=false); R129: guard and elder are never dealt together;
    R110: the seer is called and checks every night he is alive and able."""
    core = ["std-12-guard", "std-12-idiot", "std-tucheng-9", "lyingman-s3-guard-idiot-12"]
    for preset_id in core:
        rules = resolve_rules(preset_id)
        assert rules.preset.cards.count(Role.SEER) == 1
        assert rules.switches.seer_first_night_extra_check is False
        assert rules.switches.hunting_gun is False
    for preset_id, preset in presets().items():
        if preset_id.startswith(("std-", "lyingman-", "cupid-")):
            assert not (Role.GUARD in preset.cards and Role.ELDER in preset.cards), preset_id
    g = drive(game(rules=NO_SHERIFF), until="N3")
    assert [e.phase for e in events(g, "seer_result")] == ["N1", "N2", "N3"]


def test_R108_R109_seer_result_is_a_word_not_a_gesture():
    """R108, R109: the engine reports the seer's result as a word ("wolf" / "good" under
    seer_result=wolf_or_good, the card under exact_role), never as a thumb gesture."""
    g = drive(game(rules=NO_SHERIFF), {5: {"N1.seer_check": 1, "N2.seer_check": 9}}, until="N2")
    assert [(e.target, e.result) for e in events(g, "seer_result")] == [(1, "wolf"), (9, "good")]


# ---- deaths, last words ---------------------------------------------------------------------

@pytest.mark.parametrize("announcement, order", [("seat_order", [3, 9]), ("by_cause", [9, 3])])
def test_R38_R45_R79_last_words_in_announcement_order(announcement, order):
    """R38: seat_order announces the dead by seat, by_cause wolf victims before the poisoned; R45, R79:
    last words follow the announcement order."""
    g = drive(game(rules={"sheriff": False, "dawn_announcement": announcement}),
              merge(knife(9), {6: {"N1.witch_poison": 3}}), until="D1")
    assert events(g, "deaths_announced", "D1")[0].seats == order
    assert [e.seat for e in events(g, "speech", "D1") if e.kind == "last_words"] == order


def test_R37_peaceful_night_is_announced():
    """R37: at dawn the referee announces who died, or that nobody died (平安夜)."""
    g = drive(game(rules=NO_SHERIFF), merge(knife(9), {8: {"N1.guard": 9}}), until="D1")
    announced = events(g, "deaths_announced", "D1")
    assert len(announced) == 1 and announced[0].seats == [] and announced[0].visibility.to == "all"


# ---- sheriff and speaking ---------------------------------------------------------------------

def test_R51_alternate_per_game_second_game_starts_high():
    """R51: campaign_start=alternate_per_game starts low in the first game of a series, high in the next."""
    runs = {6: {"D1.sheriff_run": True}, 10: {"D1.sheriff_run": True}}
    for index, order in ((0, [6, 10]), (1, [10, 6])):
        g = drive(game(rules={"campaign_start": "alternate_per_game"}, game_index=index), runs, until="D1")
        assert [e.seat for e in events(g, "speech", "D1") if e.kind == "campaign"] == order


def test_R52_R56_withdrawal_after_pk_speeches():
    """R52 (OQ15), R56: after a tie the tied candidates speak again and may withdraw; if only one is
    left he is elected without a revote."""
    script = {5: {"D1.sheriff_run": True}, 6: {"D1.sheriff_run": True},
              1: {"D1.sheriff_vote": 5}, 2: {"D1.sheriff_vote": 6}, 3: {"D1.sheriff_pk_vote": 6}}

    def answer(g: Game, r) -> Any:
        if r.kind == "sheriff_withdraw":
            return r.seat == 6 and bool(events(g, "pk_platform", "D1"))
        return ...

    g = drive(game(), script, until="D1", answer=answer)
    assert [e.seat for e in events(g, "speech", "D1") if e.kind == "campaign_pk"] == [5, 6]
    assert [e.seat for e in events(g, "sheriff_withdrew", "D1")] == [6]
    assert [e.ballot for e in events(g, "vote_result", "D1")][:1] == ["sheriff"]
    assert "sheriff_pk" not in [e.ballot for e in events(g, "vote_result", "D1")]
    assert g.state.sheriff == 5


def test_R61_day1_speech_rounds():
    """R61: day1_speech_rounds=2 (004 §A) gives D1 two full rounds of speeches, day1_speech_rounds=1 one;
    later days always one."""
    for rounds in (1, 2):
        g = drive(game(rules={"sheriff": False, "day1_speech_rounds": rounds}), knife(9, "N2"), until="D2")
        d1 = [e.seat for e in events(g, "speech", "D1") if e.kind == "discussion"]
        d2 = [e.seat for e in events(g, "speech", "D2") if e.kind == "discussion"]
        assert len(d1) == 12 * rounds and sorted(set(d1)) == list(range(1, 13))
        assert len(d2) == 11


def test_R62_alternate_sides_d1_side_alternates_per_game_on_lyingman_board():
    """R62 (OQ1): emulating 004 §B (lyingman_004b, whose campaign_start=alternate_per_game), odd-numbered
    games start D1 on the sheriff's ascending side and even-numbered games on the descending side."""
    deal = ["werewolf"] * 4 + ["seer", "witch", "hunter", "guard", "idiot"] + ["villager"] * 3
    g = drive(game("lyingman-s3-guard-idiot-12", deal, game_index=1), {6: {"D1.sheriff_run": True}}, until="D1")
    order = events(g, "speech_order", "D1")[0].order
    assert order[0] == 5 and order[-1] == 6


def test_R62_sheriff_chooses_start_must_be_a_neighbour():
    """R62: with speech_order=sheriff_chooses the first speaker must be a neighbour of the sheriff or of a
    dead player; any other start is refused and the default (his ascending neighbour, ascending) is used."""
    script = merge(knife(9), {6: {"D1.sheriff_run": True, "D1.speech_order_pick": {"start": 1, "direction": "descending"}}})
    g = drive(game(rules={"speech_order": "sheriff_chooses"}), script, until="D1")
    refused = [d.request.key for d in g.decisions if d.refused]
    assert refused == ["D1.speech_order_pick"]
    assert events(g, "speech_order", "D1")[0].order == [7, 8, 10, 11, 12, 1, 2, 3, 4, 5, 6]


def test_R89_pk_speeches_in_ascending_seat_order():
    """R89 (OQ30): the tied players give their PK speeches in ascending seat order."""
    script = {1: {"D1.vote": 11}, 2: {"D1.vote": 11}, 4: {"D1.vote": 3}, 5: {"D1.vote": 3}}
    g = drive(game(rules=NO_SHERIFF), script, until="D1")
    assert [e.seat for e in events(g, "speech", "D1") if e.kind == "pk"] == [3, 11]


def test_R64_speech_time_limits_passed_on():
    """R64: speech_seconds is presentation: each speech request carries its limit (sheriff / last speaker
    longer under the tiered and 004 §C values), none without limits."""
    seen: dict[str, set] = {}
    for value in ("none", "flat_120", "tiered_120_150_180"):
        got: set = set()
        drive(game(rules={"speech_seconds": value, "sheriff_election_time": "before_d1_announcement"}),
              {5: {"D1.sheriff_run": True}}, until="D1",
              on_requests=lambda g, rs, got=got: got.update(
                  (r.seat == g.state.sheriff, r.legal.seconds) for r in rs if r.kind == "speech"
                  and r.context.get("speech") == "discussion"))
        seen[value] = got
    assert seen["none"] == {(False, None), (True, None)}
    assert seen["flat_120"] == {(False, 120), (True, 120)}
    assert seen["tiered_120_150_180"] == {(False, 120), (True, 180)}


def test_R67_self_destruct_during_pk_speeches():
    """R67, R68: a wolf may self-destruct during the PK speeches; the revote is cancelled and night falls."""
    script = {1: {"D1.vote": 10}, 2: {"D1.vote": 10}, 3: {"D1.vote": 11}, 4: {"D1.vote": 11},
              5: {"D1.pk_vote": 10}, 6: {"D1.pk_vote": 10}}

    def answer(g: Game, r) -> Any:
        if r.kind == "self_destruct":
            return r.seat == 1 and bool(events(g, "pk_platform", "D1"))
        return ...

    g = drive(game(rules=NO_SHERIFF), script, until="D1", answer=answer)
    assert [(d.seat, d.cause.value) for d in g.state.deaths] == [(1, "self_destruct")]
    assert [e.ballot for e in events(g, "vote_result", "D1")] == ["exile"]  # no PK revote
    assert events(g, "speech_order", "N2") == [] and g.state.phase == "N2"


def test_R82_ballot_visibility():
    """R82: ballot_visibility=public announces who voted for whom; secret only the totals."""
    script = {s: {"D1.vote": 10} for s in (1, 2, 3)}
    for value, to in (("public", "all"), ("secret", "referee")):
        g = drive(game(rules={"sheriff": False, "ballot_visibility": value}), script, until="D1")
        assert {e.visibility.to for e in events(g, "ballot_cast", "D1")} == {to}
        result = events(g, "vote_result", "D1")[0]
        assert result.visibility.to == "all" and result.tally == {10: 3.0}


INTERJECT = {"sheriff": False, "idiot_after_reveal": "may_interject"}


def _reveal_idiot_on_d1(n2_target: int) -> dict[int, dict[str, Any]]:
    """I12: the wolves knife 9 on N1, exile the idiot 8 on D1 (he reveals) and knife ``n2_target`` on N2."""
    return merge(knife(9), knife(n2_target, "N2"), {w: {"D1.vote": 8} for w in (1, 2, 3, 4)})


def test_R138_may_interject_after_each_day_speech_of_another_seat():
    """R138 may_interject (004 §C role 10, OQ43), R65: from his reveal on, after every day speech by another seat
    (discussion, PK) the living revealed idiot is asked idiot_interject (default "pass"); a line is a public
    interjection, right after that speech, and the speaker is asked interjection_reply (default "pass": no answer).
    "pass" emits nothing and asks no reply. Never after his own speech nor after last words; he has no vote."""
    script = merge(_reveal_idiot_on_d1(12), {5: {"D2.vote": 1}, 6: {"D2.vote": 1}, 7: {"D2.vote": 2},
                                             10: {"D2.vote": 2}})
    replies = {5: "I am the seer.", 1: "I am no wolf."}
    asked: list[tuple[str, int, str, Any]] = []

    def answer(g: Game, r) -> Any:
        if r.kind == "idiot_interject":
            asked.append((r.kind, r.context["speaker"], r.context["speech"], r.default))
            assert r.seat == 8 and r.legal.type == "text"
            wanted = r.context["speaker"] in (5, 6, 12) or (r.context["speaker"], r.context["speech"]) == (1, "pk")
            return f"{r.context['speaker']}, explain yourself." if wanted else "pass"
        if r.kind == "interjection_reply":
            asked.append((r.kind, r.seat, r.context["speech"], r.default))
            assert r.context["idiot"] == 8
            return replies.get(r.seat, "Pass.")
        return ...

    g = drive(game("std-12-idiot", deal=I12, rules=INTERJECT), script, until="D2", answer=answer)
    said = [(e.seat, e.kind) for e in events(g, "speech", "D2")]
    assert said == [(12, "last_words"),
                    (1, "discussion"), (2, "discussion"), (3, "discussion"), (4, "discussion"),
                    (5, "discussion"), (8, "interjection"), (5, "interjection_reply"),
                    (6, "discussion"), (8, "interjection"),  # 6 answers "Pass.": no reply
                    (7, "discussion"), (8, "discussion"), (10, "discussion"), (11, "discussion"),
                    (1, "pk"), (8, "interjection"), (1, "interjection_reply"), (2, "pk")]
    speakers = [a[1] for a in asked if a[0] == "idiot_interject"]
    assert speakers == [1, 2, 3, 4, 5, 6, 7, 10, 11, 1, 2]  # not after 12's last words nor his own speech
    assert {a[3] for a in asked} == {"pass"}
    assert [(a[1], a[2]) for a in asked if a[0] == "interjection_reply"] == [(5, "discussion"), (6, "discussion"),
                                                                              (1, "pk")]
    assert all(e.visibility.to == "all" for e in events(g, "speech", "D2"))
    assert not [d for d in g.decisions if d.request.seat == 8 and d.request.kind in ("vote", "pk_vote")
                and d.request.phase == "D2"]
    assert 8 not in events(g, "vote_result", "D2")[0].voters


def test_R138_interjection_in_a_later_election_and_OQ14_night_dead_idiot():
    """R138 may_interject, R49/OQ14, R58: campaign speeches are day speeches too. An election retried on D2
    (sheriff_second_tie=retry_next_day) is held before the N2 deaths are announced, so the idiot knifed on N2
    still takes part and may interject there, as if alive; from the announcement on he is silent."""
    rules = dict(INTERJECT, sheriff=True, sheriff_second_tie="retry_next_day", sheriff_tie="pk_speech_revote",
                 sheriff_pk_voters="non_candidates")
    script = merge(_reveal_idiot_on_d1(8), {
        5: {"D1.sheriff_run": True, "D2.sheriff_run": True},
        10: {"D1.sheriff_vote": 5, "D1.sheriff_pk_vote": 5},
        11: {"D1.sheriff_vote": 6, "D1.sheriff_pk_vote": 6},
        8: {"D1.idiot_interject": "not yet", "D2.idiot_interject": "Who are you?"},
        6: {"D1.sheriff_run": True, "D2.sheriff_run": True, "D2.interjection_reply": "A villager."},
    })
    g = drive(game("std-12-idiot", deal=I12, rules=rules), script, until="D2")
    assert [e.reason for e in events(g, "sheriff_elected", "D1")] == ["second_tie_retry"]
    assert events(g, "idiot_revealed", "D1") and not [e for e in events(g, "speech", "D1") if e.seat == 8
                                                      and e.kind == "interjection"]
    assert [(d.seat, d.phase) for d in g.state.deaths] == [(9, "N1"), (8, "N2")]
    said = [(e.seat, e.kind) for e in events(g, "speech", "D2")]
    assert said[:5] == [(5, "campaign"), (8, "interjection"),  # 5 does not answer
                        (6, "campaign"), (8, "interjection"), (6, "interjection_reply")]
    assert (8, "interjection") not in said[5:]  # announced dead: silent in the discussion


# ---- win checks --------------------------------------------------------------------------------

def test_R98_simultaneous_results_wolves_before_village():
    """R98 (R177 case 4): when one check meets the village's and the wolves' conditions, the wolves win."""
    g = game(rules=NO_SHERIFF)
    before = {Camp.VILLAGE, Camp.WOLVES}
    gone = frozenset({1, 2, 3, 4, 5, 6, 7, 8})  # the last wolf and the last god gone together (hypothetically)
    assert check_winner(g.state, before, also_dead=gone)[0] == Winner.WOLVES


def test_R99_eliminated_camp_cannot_win_later():
    """R99: a camp can win at a check only if it had a qualifying living member just before the batch."""
    g = game(rules=NO_SHERIFF)
    gone = frozenset({1, 2, 3, 4, 9, 10, 11, 12})
    assert check_winner(g.state, {Camp.VILLAGE}, also_dead=gone)[0] == Winner.VILLAGE
    assert check_winner(g.state, {Camp.VILLAGE, Camp.WOLVES}, also_dead=gone)[0] == Winner.WOLVES


def test_R170_camps_follow_the_cards():
    """R170: at a check every wolf-card holder is in the wolves, everyone else in the village (no lovers)."""
    g = game("std-12-idiot", I12, NO_SHERIFF)
    assert [camp_of(g.state, s) for s in range(1, 13)] == [Camp.WOLVES] * 4 + [Camp.VILLAGE] * 8


# ---- coverage of the core rules and switches ----------------------------------------------------

IN_SCOPE = ([1, 2, 3, 4, 9, 10, 15, 16, 17, 18, 20, 21, 24, 25, 26] + list(range(29, 40)) + list(range(42, 70))
            + [72, 73, 74, 75, 77, 78, 79, 81, 82, 83, 84, 86, 87, 88, 89, 90, 92, 93, 94]
            + list(range(97, 104)) + list(range(105, 130)) + [137, 138, 139, 140, 170, 171, 172, 173, 174, 177,
                                                                  179, 181])

CORE_SWITCH_VALUES = {
    "sheriff": ["true", "false"],
    "sheriff_election_time": ["before_d1_announcement", "after_d1_discussion"],
    "campaign_start": ["lowest", "highest", "alternate_per_game"],
    "sheriff_voters": ["non_candidates", "all"],
    "sheriff_tie": ["pk_speech_revote", "revote", "no_sheriff"],
    "sheriff_pk_voters": ["non_candidates", "non_candidates_and_losers", "all"],
    "sheriff_second_tie": ["no_sheriff", "retry_next_day"],
    "election_self_destruct": ["badge_lost", "postpone_third_loses"],
    "sheriff_vote_weight": ["2", "1.5", "2.5"],
    "badge_on_death": ["pass_or_tear", "must_pass"],
    "speech_order": ["alternate_sides", "sheriff_chooses", "sheriff_free"],
    "day1_speech_rounds": ["1", "2"],
    "self_destruct": ["true", "false"],
    "self_destruct_last_words": ["true", "false"],
    "self_destruct_silences_day": ["false", "true"],
    "last_words": ["n1_all_n2_single", "n1_and_day", "day1_only", "wolf_pool_all", "wolf_pool_kill_exile", "none"],
    "shot_victim_last_words": ["as_shooter_timing", "none"],
    "dawn_announcement": ["seat_order", "by_cause"],
    "ballot_visibility": ["public", "secret"],
    "exile_tie": ["pk_once", "pk_twice", "no_exile", "revote_until_decided"],
    "witch_self_save": ["never", "first_night_only", "if_no_living_guard", "always"],
    "witch_potions_per_night": ["one", "both"],
    "witch_self_poison": ["true", "false"],
    "witch_informed_after_antidote": ["false", "true"],
    "witch_informed_guarded_kill": ["true", "false"],
    "guard_repeat": ["refuse", "void"],
    "seer_result": ["wolf_or_good", "exact_role"],
    "hunter_blocked_by": ["poison_and_lover", "poison", "nothing"],
    "hunter_status_signal": ["every_night", "none"],
    "idiot_after_reveal": ["no_vote", "may_interject"],
    "win_mode": ["town_kill", "side_kill"],
    "knife_first": ["after_antidote", "before_witch"],
    "two_player_sheriff_win": ["true", "false"],
    "draw_rule": ["none", "no_elimination_night_and_day"],
    "night_order": ["order_000", "order_004a", "order_004c", "order_001"],
    "reveal_role_on_death": ["false", "true"],
}


def _scenario_files() -> list[dict[str, Any]]:
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(SCENARIOS.rglob("*.json"))]


def _this_file_text() -> str:
    return Path(__file__).read_text(encoding="utf-8")


def test_every_core_rule_is_cited():
    """Every in-scope R-number is cited by a scenario (tests/scenarios, pending/ included) or a test here."""
    cited: set[int] = set()
    for data in _scenario_files():
        cited.update(int(r[1:]) for r in data.get("rules_cited", []) if re.fullmatch(r"R\d+", r))
    cited.update(int(n) for n in re.findall(r"\bR(\d+)", _this_file_text()[: _this_file_text().index("IN_SCOPE =")]))
    missing = [f"R{n}" for n in IN_SCOPE if n not in cited]
    assert not missing, f"no scenario or test cites {missing}"


def test_every_core_switch_value_is_exercised():
    """Every value of every core switch is named as `switch=value` in a scenario's "why" (or a test here)."""
    text = "\n".join(d.get("why", "") for d in _scenario_files()) + _this_file_text()[: _this_file_text().index("IN_SCOPE =")]
    missing = [f"{k}={v}" for k, values in CORE_SWITCH_VALUES.items() for v in values
               if not re.search(rf"\b{k}={re.escape(v)}(?![\w.])", text)]
    assert not missing, f"no scenario or test exercises {missing}"


def test_R136_elder_counts_as_a_villager_with_a_thief_under_004c():
    """R136 (OQ55): in 004 §C (win_mode=villagers_or_key_roles) a thief in the game makes the elder an
    ordinary villager for the wolves' win; on other boards, and without a thief, he stays a god."""
    from arena.config import Preset, RuleSet, Switches, profile_switches
    from arena.engine import Game, GameSetup
    from arena.rules.victory import side_kill_classes

    base = ["werewolf", "werewolf", "werewolf", "seer", "witch", "hunter", "elder"]  # the elder sits at 7

    def classes(profile: str, with_thief: bool) -> dict[str, list[int]]:
        seats = base + (["thief"] if with_thief else ["villager"]) + ["villager"] * 4
        center = ["villager", "villager"] if with_thief else []
        preset = Preset(id="r136-test", seed_doc="004", players=12, cards=seats + center, profile=profile,
                        god_roles=["seer", "witch", "hunter", "elder"], villager_roles=["villager"])
        rules = RuleSet(preset=preset, switches=Switches(**profile_switches(profile)))
        game = Game(GameSetup(preset="r136-test", deal=seats, center=center or None), rules=rules)
        return side_kill_classes(game.state)

    assert 7 in classes("last_words_004c", True)["villager"]
    assert 7 in classes("last_words_004c", False)["god"]
    assert 7 in classes("face_to_face_000", True)["god"]


def test_first_kill_protection_seats_follow_the_seed():
    """004 §C-conduct 5 (RULES.md Appendix A.3, switch first_kill_protection): last game's first kill; above 12
    players the first kills and first votes of the last two games; one or two newcomers, not three."""
    from arena.rules.first_kill import EarlierGame, protected_seats

    older, last = EarlierGame(n1_victims=[3], d1_exile=6), EarlierGame(n1_victims=[5, 8], d1_exile=7)
    assert protected_seats(12, []) == []
    assert protected_seats(12, [older, last]) == [5, 8]
    assert protected_seats(13, [EarlierGame(n1_victims=[1]), older, last]) == [3, 5, 6, 7, 8]
    assert protected_seats(12, [last], newcomers=[1, 2]) == [1, 2, 5, 8]
    assert protected_seats(12, [last], newcomers=[1, 2, 4]) == [5, 8]
