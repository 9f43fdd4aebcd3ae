"""Four corners of the seeds the referee once decided differently (issue #24); each rule test cites its R-number.
The scenarios in tests/scenarios/ruling-4*.json play the same rulings through whole games."""

from __future__ import annotations

from arena.config import resolve_rules
from arena.engine import Game, GameSetup
from arena.events import LoversLinked, only


def _cupid_thief_game(profile_rules: dict[str, object]) -> Game:
    deal = ["werewolf", "werewolf", "werewolf", "seer", "witch", "hunter", "idiot", "cupid", "thief",
            "villager", "villager", "villager"]
    setup = GameSetup(preset="cupid-thief-12", deal=deal, center=["villager", "villager"], rules=profile_rules)
    return Game(setup, rules=resolve_rules("cupid-thief-12", profile_rules))


def test_R173_cupid_who_linked_two_wolves_still_counts_as_a_villager() -> None:
    """R173, R146 (004 §C-role 7: 不管如何，丘比特计入普通村民人数): with cupid_side_class=villager Cupid is in the
    villager class even in the wolves camp; with cupid_side_class=none a wolves-camp Cupid counts nowhere."""
    from arena.rules.victory import camp_of, side_kill_classes
    from arena.types import Camp

    for side_class, counted in (("villager", True), ("none", False)):
        game = _cupid_thief_game({"profile": "last_words_004c", "cupid_side_class": side_class})
        game.emit(LoversLinked(phase="N1", visibility=only(8), cupid=8, lovers=[1, 2]))
        assert camp_of(game.state, 8) == Camp.WOLVES  # cupid_camp=follows_lovers: he plays for the wolves
        classes = side_kill_classes(game.state)
        assert (8 in classes["villager"]) is counted, side_class
        assert 8 not in classes["god"] and not {1, 2} & {*classes["villager"], *classes["god"]}


def test_R138_R156_the_next_exile_vote_is_the_next_one_held() -> None:
    """R138, R156 (003 Roles 6-7: 失去下一輪放逐投票的投票權): a loss set for day 2 falls on day 2's vote and its PK;
    a day without a vote (D2 cut short) passes it on to D3; once a vote was held it is spent."""
    from arena.events import PhaseStarted, VoteResult
    from arena.rules.vote import restriction_holds_today

    game = _cupid_thief_game({})
    holds = []
    for phase, vote_held in (("N1", False), ("D1", True), ("N2", False), ("D2", False), ("N3", False),
                             ("D3", True), ("N4", False), ("D4", True)):
        game.emit(PhaseStarted(phase=phase))
        holds.append((phase, restriction_holds_today(game, 2)))
        if vote_held:
            game.emit(VoteResult(phase=phase, ballot="exile", tally={}, top=[], voters=[]))
            holds.append((phase + " PK", restriction_holds_today(game, 2)))
    assert [p for p, h in holds if h] == ["D2", "D3", "D3 PK"]
