"""The exile vote (R81-R91): simultaneous ballots, weights, ties, the PK platform; and the tally used by every vote."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.actions import choose_seat
from arena.events import BallotCast, PkPlatform, REFEREE, VoteResult, PUBLIC
from arena.rules import aux_police, speech
from arena.types import Kind, parse_phase

if TYPE_CHECKING:
    from arena.engine import Game
    from arena.flow import Flow


def tally(ballots: dict[int, int | None], weights: dict[int, float]) -> tuple[dict[int, float], list[int]]:
    """Totals per target and the seats sharing the top (ties exact: counted in half-votes, R86)."""
    halves: dict[int, int] = {}
    for voter, target in ballots.items():
        if target is None:
            continue
        halves[target] = halves.get(target, 0) + round(weights.get(voter, 1) * 2)
    if not halves:
        return {}, []
    best = max(halves.values())
    top = sorted(t for t, h in halves.items() if h == best)
    return {t: h / 2 for t, h in sorted(halves.items())}, top


_BALLOT_KINDS = {"sheriff": Kind.SHERIFF_VOTE, "sheriff_pk": Kind.SHERIFF_PK_VOTE, "exile": Kind.VOTE,
                 "pk": Kind.PK_VOTE}


def lover_ban(game: "Game", voter: int, ballot: str) -> int | None:
    """R85: a lover may not vote for the other lover (exile votes, or every vote per switch)."""
    if ballot in ("sheriff", "sheriff_pk") and game.sw.lover_vote_ban_scope != "all_votes":
        return None
    return game.state.partner(voter)


def cast(game: "Game", ballot: str, voters: list[int], targets: list[int], round_no: int = 1,
         weights: dict[int, float] | None = None) -> "Flow":
    """Collect simultaneous ballots (R82), publish them per ``ballot_visibility``, return (tally, top)."""
    kind = _BALLOT_KINDS[ballot]
    requests = []
    for voter in voters:
        banned = lover_ban(game, voter, ballot)
        # Nobody may vote for himself (OQ26); a ballot for oneself or a banned seat is refused.
        options = tuple([t for t in targets if t != voter and t != banned])
        requests.append(game.request(voter, kind, choose_seat(options), None,
                                     context={"candidates": list(targets), "round": round_no}))
    ballots = yield from game.ask_all(requests)
    weights = weights or {}
    # R82: `secret` covers every ballot of the game, the sheriff election and its revote included.
    visibility = PUBLIC if game.sw.ballot_visibility == "public" else REFEREE
    for voter in sorted(ballots):
        game.emit(BallotCast(phase=game.state.phase, visibility=visibility, ballot=ballot, round=round_no,
                             voter=voter, target=ballots[voter], weight=weights.get(voter, 1)))
    totals, top = tally(ballots, weights)
    game.emit(VoteResult(phase=game.state.phase, ballot=ballot, round=round_no, tally=totals, top=top,
                         voters=sorted(voters)))
    return totals, top


def exile_weights(game: "Game") -> dict[int, float]:
    sheriff = game.state.sheriff
    weights = aux_police.weight(game)  # R95: the auxiliary police's 1.5 (003)
    if sheriff is not None:
        weights[sheriff] = float(game.sw.sheriff_vote_weight)
    return weights


def has_vote(game: "Game", seat: int) -> bool:
    """R138, OQ42: a revealed idiot has no vote in any vote for the rest of the game, elections included."""
    state = game.state
    for voteless in state.hooks.voteless_hooks:
        if voteless(state, seat):
            return False
    return True


def _with_vote(game: "Game") -> list[int]:
    """The living seats that may vote and be voted for (OQ42): each deck card's ``voteless`` hook is asked
    once per seat, and not at all on a board without such a card."""
    state = game.state
    seats = state.alive_seats()
    for voteless in state.hooks.voteless_hooks:
        seats = [s for s in seats if not voteless(state, s)]
    return seats


def eligible_voters(game: "Game") -> list[int]:
    """R84: the living, less a revealed idiot (R138)."""
    voters = _with_vote(game)
    for restrict in game.state.hooks.voter_restrictions:  # R138, R156: the punished voters, the scapegoat's list
        voters = restrict(game, voters)
    return voters


def restriction_holds_today(game: "Game", first_day: int) -> bool:
    """R138, R156: does a loss of "the next exile vote" (下一輪放逐投票, 003 Roles 6-7), set for day ``first_day``
    or later, fall on today's exile vote? Yes from ``first_day`` on until the first day on which an exile vote is
    held, that day's PK included; a day without one (cut short by a self-destruct) does not use it up."""
    state = game.state
    night, today = parse_phase(state.phase)
    if night or today < first_day:
        return False
    held: int | None = None  # the first day from first_day on whose exile vote was held
    for e in reversed(game.log):  # the latest first: stop at the first exile vote before first_day
        if isinstance(e, VoteResult) and e.ballot == "exile":
            day = parse_phase(e.phase)[1]
            if day < first_day:
                break
            held = day
    return held is None or held == today


def eligible_targets(game: "Game") -> list[int]:
    """R83: living players; a revealed idiot cannot be voted for (OQ42)."""
    return _with_vote(game)


def _no_ballot(voters: list[int]) -> str:
    """Why a vote without a valid ballot exiles nobody (OQ27): nobody could vote, or nobody named anyone."""
    return "no_ballot" if voters else "nobody_may_vote"


def exile_vote(game: "Game") -> "Flow":
    """Run the day's exile vote; returns (the exiled seat, "exiled"), or (None, why nobody is: ``tie`` without a
    PK, ``second_tie`` after the PK, ``third_tie`` after 003's two PKs, ``revote_limit`` after the last revote,
    ``no_ballot`` / ``nobody_may_vote`` when a round has no valid ballot)."""
    voters = eligible_voters(game)
    _, top = yield from cast(game, "exile", voters, eligible_targets(game), 1, exile_weights(game))
    if len(top) <= 1:
        return (top[0], "exiled") if top else (None, _no_ballot(voters))  # no valid ballot: nobody (OQ27)
    for tie in game.state.hooks.exile_tie_hooks:  # R155, OQ47: the scapegoat dies instead; the day then ends
        yield from tie(game, top)
    rule = game.sw.exile_tie
    if rule == "no_exile":
        return None, "tie"
    if rule == "revote_until_decided":
        for round_no in range(2, 5):  # at most three revotes (OQ29)
            game.emit(PkPlatform(phase=game.state.phase, ballot="exile", seats=top, stage=round_no - 1))
            yield from speech.speeches(game, top, "pk")
            voters = eligible_voters(game)
            _, top = yield from cast(game, "pk", voters, top, round_no, exile_weights(game))
            if len(top) == 1:
                return top[0], "exiled"
            if not top:
                return None, _no_ballot(voters)
        return None, "revote_limit"
    stages = 2 if rule == "pk_twice" else 1
    platform = top
    for stage in range(1, stages + 1):
        game.emit(PkPlatform(phase=game.state.phase, ballot="exile", seats=platform, stage=stage))
        # Stage 1: the tied speak (ascending, OQ30); pk_twice stage 2: the other players speak (R88).
        speakers = platform if stage == 1 else [s for s in eligible_voters(game) if s not in platform]
        yield from speech.speeches(game, sorted(speakers), "pk")
        pk_voters = [s for s in eligible_voters(game) if s not in platform]
        _, top = yield from cast(game, "pk", pk_voters, platform, stage + 1, exile_weights(game))
        if len(top) == 1:
            return top[0], "exiled"
        if not top:
            return None, _no_ballot(pk_voters)
        platform = top
    return None, "second_tie" if stages == 1 else "third_tie"  # tied again after the PK(s): peaceful day
