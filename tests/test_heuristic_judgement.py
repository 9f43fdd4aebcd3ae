"""The reference bot punishes what real tables punish (issue #26): silence and parroting, a seer story
the events or the claimant's own ballots contradict, a late counter-claim, a unique god role claimed
twice. Each test builds a table by hand and reads the bot's beliefs or its trusted seer."""

from __future__ import annotations

from typing import Any, Sequence

from agents.heuristic import BOT_VERSION, PRIOR, HeuristicBot
from arena import events as ev
from arena.observation import Observation
from arena.types import Role
from tests.test_heuristic_bot import CORE_COUNTS, phase, said


def listener(events: Sequence[Any], seat: int = 1, role: str = "villager",
             switches: dict[str, Any] | None = None) -> HeuristicBot:
    start = [ev.GameStarted(phase="N1", players=12, preset="test", role_counts=dict(CORE_COUNTS)),
             ev.RoleAssigned(phase="N1", visibility=ev.only(seat), seat=seat, role=Role(role)), phase("N1")]
    bot = HeuristicBot(seat, 0)
    bot._absorb(Observation(seat=seat, players=12, preset="test", switches=dict(switches or {}),
                            events=start + list(events)))
    bot._cache = {}
    return bot


def ballot(voter: int, target: int | None, day: str = "D1") -> ev.BallotCast:
    return ev.BallotCast(phase=day, ballot="exile", voter=voter, target=target, weight=1.0)


TALK = "I am a villager. I suspect 9. I will vote 9."


def test_the_bot_version_is_stated() -> None:
    assert BOT_VERSION.startswith("heuristic-")


def test_silence_is_suspicious() -> None:
    table = [phase("D1"), said(3, "pass"), said(4, TALK), said(5, "Pass.")]
    bel = listener(table).beliefs()
    assert bel[3] > bel[4] and bel[5] > bel[4]
    assert bel[3] > PRIOR and bel[7] == PRIOR  # 7 never spoke on this table: no evidence either way
    # last words say nothing of the living: a silent last speech is not held against anyone
    quiet_end = listener([phase("D1"), said(3, "pass", kind="last_words")]).beliefs()
    assert quiet_end[3] == PRIOR


def test_a_word_for_word_copy_of_the_previous_speech_counts_as_silence() -> None:
    copied = listener([phase("D1"), said(4, TALK), said(5, TALK)]).beliefs()
    own = listener([phase("D1"), said(4, TALK), said(5, "I am a villager. I suspect 10. I will vote 10.")]).beliefs()
    assert copied[5] > own[5]
    assert copied[4] == own[4]  # the original speaker is not blamed


def test_a_wolf_check_on_the_knifed_seat_exposes_the_claimant() -> None:
    """Two day-1 claims; seat 6, whom claimant 3 called a wolf, dies alone in night 2: the wolves'
    victim is good, so 3 lied and 8 is the seer."""
    table = [phase("D1"), said(3, "I am the seer. My checks: 6 is a wolf. Vote 6."),
             said(8, "I am the seer. My checks: 10 is a wolf. Vote 10."), phase("N2"),
             ev.DeathsAnnounced(phase="D2", seats=[6], death_phase="N2"), phase("D2")]
    bot = listener(table)
    trusted, fakes = bot.seer_status()
    assert trusted == 8 and fakes == {3}
    # The control: with two deaths that night (the witch may have poisoned the checked wolf) claim order stands.
    two = table[:-2] + [ev.DeathsAnnounced(phase="D2", seats=[2, 6], death_phase="N2"), phase("D2")]
    assert listener(two).seer_status()[0] == 3


def test_a_late_counter_claim_loses_and_the_village_is_sure_of_it() -> None:
    early = [phase("D1"), said(3, "I am the seer. My checks: 6 is a wolf. Vote 6.")]
    late = early + [phase("N2"), ev.DeathsAnnounced(phase="D2", seats=[2], death_phase="N2"), phase("D2"),
                    said(8, "I am the seer. My checks: 3 is a wolf. Vote 3.", phase="D2")]
    bot = listener(late)
    assert bot.seer_status() == (3, {8}) and bot.seer_confident()
    same_day = early + [said(8, "I am the seer. My checks: 3 is a wolf. Vote 3.")]
    assert not listener(same_day).seer_confident()  # on one day, claim order alone settles nothing


def test_a_claimant_who_will_not_vote_its_own_wolf_check_loses_the_seer_fight() -> None:
    table = [phase("D1"), said(3, "I am the seer. My checks: 6 is a wolf. Vote 6."),
             said(8, "I am the seer. My checks: 10 is a wolf. Vote 10."), ballot(3, 11), ballot(8, 10)]
    assert listener(table).seer_status()[0] == 8
    kept = table[:-2] + [ballot(3, 6), ballot(8, 10)]
    assert listener(kept).seer_status()[0] == 3  # the control: it voted its check, claim order stands


def test_stories_no_seer_can_tell_are_fakes() -> None:
    one_claim = [phase("D1"), said(3, "I am the seer. My checks: 6 is a wolf. Vote 6.")]
    assert listener(one_claim).seer_status() == (3, set())
    too_many = [phase("D1"), said(3, "I am the seer. My checks: 6 is a wolf, 7 is a wolf. Vote 6.")]
    assert listener(too_many).seer_status() == (None, {3})  # two results after one night
    extra = listener(too_many, switches={"seer_first_night_extra_check": True})
    assert extra.seer_status() == (3, set())  # unless the rules give the seer a second first-night check
    flipped = one_claim + [said(3, "I am the seer. My checks: 6 is good. Vote 7.", kind="discussion")]
    assert listener(flipped).seer_status() == (None, {3})
    voted_cleared = [phase("D1"), said(3, "I am the seer. My checks: 6 is good. Vote 7."), ballot(3, 6)]
    assert listener(voted_cleared).seer_status() == (None, {3})


def test_a_unique_god_role_claimed_twice_costs_the_second_claimant() -> None:
    table = [phase("D1"), said(4, "I am the hunter; exile me and I will shoot."),
             said(5, "I am the hunter; exile me and I will shoot.")]
    bel = listener(table).beliefs()
    assert bel[5] > PRIOR > bel[4]
    both = listener([phase("D1"), said(4, "I am the seer. I am the witch.")]).beliefs()
    assert both[4] > PRIOR
    # a villager one day and the hunter the next: two cards, and no trust for the god claim
    changed = listener([phase("D1"), said(4, "I am a villager."), phase("D2"),
                        said(4, "I am the hunter; exile me and I will shoot.", phase="D2")]).beliefs()
    assert changed[4] > PRIOR
