"""The sheriff election (R47-R60): candidacy, campaign, withdrawal, ballots, PK and second tie."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.actions import YES_OR_NO, ChooseSeat
from arena.events import BadgeMoved, PkPlatform, SheriffCandidates, SheriffElected, SheriffWithdrew
from arena.rules import speech, vote
from arena.types import Kind

if TYPE_CHECKING:
    from arena.engine import Game
    from arena.flow import Flow


def campaign_order(game: "Game", candidates: list[int]) -> list[int]:
    """R51 ``campaign_start``: from the lowest or highest number; ``alternate_per_game`` by game index."""
    rule = game.sw.campaign_start
    descending = rule == "highest" or (rule == "alternate_per_game" and game.setup.game_index % 2 == 1)
    return sorted(candidates, reverse=descending)


def _withdrawals(game: "Game", candidates: list[int]) -> "Flow":
    requests = [game.request(s, Kind.SHERIFF_WITHDRAW, YES_OR_NO, False) for s in candidates]
    answers = yield from game.ask_all(requests)
    for seat in sorted(s for s, yes in answers.items() if yes):
        game.emit(SheriffWithdrew(phase=game.state.phase, seat=seat))
    return [s for s in candidates if not answers.get(s)]


def _no_sheriff(game: "Game", reason: str, *, retry: bool = False) -> bool:
    """Nobody is elected; returns whether the election is held again the next day (R58)."""
    game.emit(SheriffElected(phase=game.state.phase, seat=None, reason=reason))
    return retry


def election(game: "Game", participants: list[int]) -> "Flow":
    """R48-R59 with ``before_d1_announcement``: the night's dead still take part (R49, OQ14). Returns
    whether the election is held over to the next day (R58 ``retry_next_day``)."""
    sw = game.sw
    requests = [game.request(s, Kind.SHERIFF_RUN, YES_OR_NO, False) for s in participants]
    runs = yield from game.ask_all(requests)
    ran = sorted(s for s, yes in runs.items() if yes)
    game.emit(SheriffCandidates(phase=game.state.phase, seats=ran))
    if not ran:
        return _no_sheriff(game, "no_candidate")
    yield from speech.speeches(game, campaign_order(game, ran), "campaign", election=True)
    remaining = yield from _withdrawals(game, ran)
    if not remaining:
        return _no_sheriff(game, "all_withdrew")
    if len(remaining) == 1:
        game.emit(SheriffElected(phase=game.state.phase, seat=remaining[0], reason="unopposed"))
        return False
    non_candidates = [s for s in participants if s not in ran and vote.has_vote(game, s)]
    voters = non_candidates if sw.sheriff_voters == "non_candidates" else [
        s for s in participants if s not in set(ran) - set(remaining) and vote.has_vote(game, s)]
    # `all`: withdrawn candidates lose their vote (R52)
    if not voters:
        return _no_sheriff(game, "nobody_may_vote")
    _, top = yield from vote.cast(game, "sheriff", voters, remaining, 1)
    if len(top) == 1:
        game.emit(SheriffElected(phase=game.state.phase, seat=top[0], reason="elected"))
        return False
    if not top or sw.sheriff_tie == "no_sheriff":
        return _second_tie(game) if not top else _no_sheriff(game, "tie")
    platform = top
    game.emit(PkPlatform(phase=game.state.phase, ballot="sheriff", seats=platform))
    if sw.sheriff_tie == "pk_speech_revote":
        yield from speech.speeches(game, campaign_order(game, platform), "campaign_pk", election=True)
        platform = yield from _withdrawals(game, platform)
        if not platform:
            return _no_sheriff(game, "all_withdrew")
        if len(platform) == 1:
            game.emit(SheriffElected(phase=game.state.phase, seat=platform[0], reason="unopposed"))
            return False
    if sw.sheriff_pk_voters == "non_candidates":
        pk_voters = non_candidates
    elif sw.sheriff_pk_voters == "non_candidates_and_losers":
        pk_voters = non_candidates + [s for s in remaining if s not in top and vote.has_vote(game, s)]
    else:
        pk_voters = voters
    # `all` keeps the first round's voters, tied candidates included (R57); self-votes are refused.
    pk_voters = sorted(pk_voters)
    if not pk_voters:
        return _second_tie(game)
    _, top = yield from vote.cast(game, "sheriff_pk", pk_voters, platform, 2)
    if len(top) == 1:
        game.emit(SheriffElected(phase=game.state.phase, seat=top[0], reason="elected_after_pk"))
        return False
    return _second_tie(game)


def _second_tie(game: "Game") -> bool:
    """R58 ``sheriff_second_tie``; a vote with no valid ballot counts as a second tie (OQ27)."""
    retry = game.sw.sheriff_second_tie == "retry_next_day"
    return _no_sheriff(game, "second_tie_retry" if retry else "second_tie", retry=retry)


def election_after_discussion(game: "Game") -> "Flow":
    """R48 ``after_d1_discussion`` (001, OQ17): every living player votes for another; a tie elects nobody."""
    alive = game.state.alive_seats()
    _, top = yield from vote.cast(game, "sheriff", [s for s in alive if vote.has_vote(game, s)], alive, 1)
    if len(top) == 1:
        game.emit(SheriffElected(phase=game.state.phase, seat=top[0], reason="elected"))
    else:
        _no_sheriff(game, "tie" if top else "no_ballot")


def self_destruct_in_election(game: "Game", self_destructs: int) -> bool:
    """R59 ``election_self_destruct``: the badge is lost, or the election postponed (the third
    self-destruct in elections, ``self_destructs`` counting this one, loses it). Returns whether it is
    postponed."""
    if game.sw.election_self_destruct == "postpone_third_loses" and self_destructs < 3:
        return True
    game.emit(BadgeMoved(phase=game.state.phase, action="lost", from_seat=None, to_seat=None))
    return False


__all__ = ["election", "election_after_discussion", "self_destruct_in_election", "ChooseSeat"]
