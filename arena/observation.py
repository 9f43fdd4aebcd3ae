"""A seat's view of the game: the events its visibility allows, and nothing else.

``visible_events`` is the only filter; everything an agent is shown (its prompt, a human's screen,
a bot's memory) is derived from an :class:`Observation`. ``SeatView`` folds the visible events into
the facts a player at the table would keep in mind.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence, assert_never

import arena.events as ev

from arena.events import (BadgeMoved, BallotCast, DeathsAnnounced, Event, IdiotRevealed, PhaseStarted, RoleAssigned,
                          RoleRevealed, SeerResult, SheriffElected, Speech, WolfTeam)


def visible_events(log: Iterable[Event], seat: int) -> list[Event]:
    return [e for e in log if e.visibility.allows(seat)]


def public_events(log: Iterable[Event]) -> list[Event]:
    """The events shown to everybody: what a spectator of a table with human players may see."""
    return [e for e in log if e.visibility.to == "all"]


@dataclass
class Observation:
    """What one seat is shown at a decision.

    ``events`` is the seat's whole visible history in order; ``new_from`` is the index of the first
    event the seat has not been shown at an earlier decision (for incremental memory).
    """

    seat: int
    players: int
    preset: str
    switches: dict[str, Any]
    events: Sequence[Event]
    new_from: int = 0
    lang: str = "en"

    @property
    def new_events(self) -> Sequence[Event]:
        return self.events[self.new_from :]

    def view(self) -> "SeatView":
        return SeatView.from_events(self.seat, self.players, self.events)


#: The event classes a seat's summary folds: the cases of ``SeatView.apply`` before its list of the rest.
_KEPT: frozenset[type] = frozenset({PhaseStarted, RoleAssigned, WolfTeam, DeathsAnnounced, SheriffElected, BadgeMoved,
                                    SeerResult, RoleRevealed, IdiotRevealed, Speech, BallotCast})


@dataclass
class SeatView:
    """Facts a seat can know, folded from its visible events only."""

    seat: int
    players: int
    role: str | None = None
    phase: str = "N1"
    alive: set[int] = field(default_factory=set)
    wolves: list[int] = field(default_factory=list)
    sheriff: int | None = None
    seer_results: dict[int, str] = field(default_factory=dict)
    revealed: dict[int, str] = field(default_factory=dict)
    idiot_revealed: set[int] = field(default_factory=set)
    speeches: list[tuple[str, int, str, str]] = field(default_factory=list)
    ballots: list[tuple[str, str, int, int | None]] = field(default_factory=list)
    dead: list[int] = field(default_factory=list)

    @classmethod
    def from_events(cls, seat: int, players: int, events: Iterable[Event]) -> "SeatView":
        view = cls(seat=seat, players=players, alive=set(range(1, players + 1)))
        for event in events:
            view.apply(event)
        return view

    def apply(self, e: Event) -> None:
        if type(e) not in _KEPT:  # most of the log: leave before the match walks its classes
            return
        match e:
            case PhaseStarted():
                self.phase = e.phase
            case RoleAssigned() if e.seat == self.seat:
                self.role = e.role.value
            case WolfTeam():
                self.wolves = list(e.wolves)
            case DeathsAnnounced():
                for s in e.seats:
                    self.alive.discard(s)
                    self.dead.append(s)
            case SheriffElected():
                self.sheriff = e.seat
            case BadgeMoved():
                self.sheriff = e.to_seat if e.action == "passed" else None
            case SeerResult():
                self.seer_results[e.target] = e.result
            case RoleRevealed():
                self.revealed[e.seat] = e.role.value
            case IdiotRevealed():
                self.idiot_revealed.add(e.seat)
            case Speech():
                self.speeches.append((e.phase, e.seat, e.kind, e.text))
            case BallotCast():
                self.ballots.append((e.phase, e.ballot, e.voter, e.target))
            case (ev.GameStarted() | ev.RoleAssigned() | ev.CenterCards() | ev.NightStep() | ev.GuardProtected() |
                  ev.WolfKnifeVote() | ev.WolfProposal() | ev.WolfVeto() | ev.WolfTeamMessage() | ev.WolfKnife() |
                  ev.WitchTold() | ev.WitchSaved() | ev.WitchPoisoned() | ev.HunterStatus() | ev.PlayerDied() |
                  ev.SheriffCandidates() | ev.SheriffWithdrew() | ev.VoteResult() | ev.SpeechOrder() |
                  ev.SelfDestructed() | ev.HunterShot() | ev.PkPlatform() | ev.ExileResult() | ev.AnswerRefused() |
                  ev.Thought() | ev.LoversLinked() | ev.LoversRecognised() | ev.ThiefCards() | ev.ElderLifeLost() |
                  ev.SkillsLost() | ev.LittleGirlPeeked() | ev.LittleGirlCaught() | ev.LittleGirlKill() |
                  ev.ScapegoatBan() | ev.TravelerInfo() | ev.SeersMet() | ev.WitnessNamed() | ev.HuntingGunFired() |
                  ev.BrotherKill() | ev.WildWolfKill() | ev.FireWolfUsed() | ev.KingTook() | ev.MaidSwapped() |
                  ev.AuxPoliceAppointed() | ev.VotersPunished() | ev.GameEnded()):
                pass  # nothing a seat's summary keeps (returned above; another seat's card: the guard)
            case _:
                assert_never(e)
