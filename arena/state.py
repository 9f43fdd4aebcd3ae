"""The game state and its one reducer.

State = the setup (rule set, seats) plus the event log folded by :func:`apply_event`. The referee
emits events and never assigns state fields directly, so replaying the log rebuilds the state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Literal, TypeVar, assert_never

from arena.config import RuleSet
from arena import events as ev
from arena.events import Event
from arena.rules.registry import Registry, registry
from arena.types import Cause, Role, Winner, is_wolf_card, parse_phase

T = TypeVar("T")
R = TypeVar("R")


@dataclass
class Player:
    seat: int
    card: Role
    alive: bool = True
    revealed: bool = False
    death_phase: str | None = None


@dataclass
class Death:
    seat: int
    cause: Cause
    causes: tuple[Cause, ...]
    phase: str
    batch: int


@dataclass
class GameState:
    rules: RuleSet
    players: dict[int, Player]
    version: int = 0  # how many events have been applied
    cards_version: int = 0  # how many events changed a card or a link: camps are memoised on it
    center: list[Role] = field(default_factory=list)
    phase: str = "N1"
    sheriff: int | None = None
    badge: Literal["unused", "held", "torn", "lost"] = "unused"
    aux_police: int | None = None  # 003 (R95)
    deaths: list[Death] = field(default_factory=list)
    #: Each role's own record (the witch's potions, the guard's last target...), by record class; declared
    #: by the role's spec (:class:`arena.rules.registry.RoleState`) and read through the role's module.
    records: dict[type, Any] = field(default_factory=lambda: registry().initial_records())
    winner: Winner | None = None
    win_reason: str = ""
    # Memos of derived data (see derived()): not state, so neither shown nor compared.
    _derived: dict[str, tuple[object, Any]] = field(default_factory=dict, repr=False, compare=False)

    # ---- derived views -------------------------------------------------------------
    @property
    def n(self) -> int:
        return len(self.players)

    @property
    def night(self) -> bool:
        return parse_phase(self.phase)[0]

    @property
    def day_number(self) -> int:
        return parse_phase(self.phase)[1]

    def __post_init__(self) -> None:
        #: The registry narrowed to this board's deck: rule code asks the hooks of the cards the game can hold.
        #: Not a state field (the deck decides it). Set here, not by a cached_property: an attribute added after
        #: __init__ stops CPython from specialising every attribute read on the state.
        self.hooks: Registry = registry().dealt(self.rules.preset.cards)

    def record(self, kind: type[R]) -> R:
        """The role record of class ``kind`` (the reducer alone replaces it)."""
        record: R = self.records[kind]
        return record

    def derived(self, name: str, key: object, compute: Callable[["GameState"], T]) -> T:
        """``compute(self)``, worked out again only when ``key`` differs from the last call's under
        ``name``. For data derived from the state (never state itself) that rule code asks many times
        but that changes only with a counter the reducer keeps: ``cards_version`` (cards and links)
        or the number of deaths. Callers treat the result as read-only."""
        cached = self._derived.get(name)
        if cached is not None and cached[0] == key:
            return cached[1]
        value = compute(self)
        self._derived[name] = (key, value)
        return value

    def alive_seats(self) -> list[int]:
        """The living seats in order (a player dies only through the reducer, which records the death)."""
        return list(self.derived("alive_seats", len(self.deaths), _alive_seats))

    def is_alive(self, seat: int) -> bool:
        return self.players[seat].alive

    def card(self, seat: int) -> Role:
        return self.players[seat].card

    def holders(self, role: Role, *, alive_only: bool = True) -> list[int]:
        seats = self._seats_by_card().get(role, ())
        if not alive_only:
            return list(seats)
        players = self.players
        return [s for s in seats if players[s].alive]

    def _seats_by_card(self) -> dict[Role, tuple[int, ...]]:
        return self.derived("seats_by_card", self.cards_version, _seats_by_card)

    def wolf_card_seats(self, *, alive_only: bool = True) -> list[int]:
        return [s for s, p in self.players.items() if is_wolf_card(p.card) and (p.alive or not alive_only)]

    def in_game(self, role: Role) -> bool:
        """The role is held by a player (alive or dead), not buried in the center."""
        return any(p.card == role for p in self.players.values())

    def configured(self, role: Role) -> bool:
        """The role is in the board's deck (held, dead or buried): its night step is called (R21)."""
        return role in self.rules.preset.cards

    def deaths_in(self, phase: str) -> list[Death]:
        return [d for d in self.deaths if d.phase == phase]

    def skill_disabled(self, seat: int) -> bool:
        """R133, R169: the seat's skills are lost (each card that takes skills keeps its own record)."""
        for took in self.hooks.skill_takers:  # a loop, not any(): no generator when the deck has no such card
            if took(self, seat):
                return True
        return False

    def partner(self, seat: int) -> int | None:
        """R40, R143: the seat's lover, through the card that made the link (Cupid's record)."""
        for hook in self.hooks.partner_hooks:
            other = hook(self, seat)
            if other is not None:
                return other
        return None


def _alive_seats(state: GameState) -> tuple[int, ...]:
    return tuple(s for s, p in state.players.items() if p.alive)


def _seats_by_card(state: GameState) -> dict[Role, tuple[int, ...]]:
    by_card: dict[Role, list[int]] = {}
    for seat, player in state.players.items():
        by_card.setdefault(player.card, []).append(seat)
    return {card: tuple(seats) for card, seats in by_card.items()}


#: Events that only record what was said or asked: most of the log, so they leave the reducer first.
_NO_STATE_CHANGE: frozenset[type] = frozenset({
    ev.Speech, ev.NightStep, ev.BallotCast, ev.WolfKnifeVote, ev.WolfProposal, ev.WolfVeto, ev.WolfTeamMessage,
    ev.DeathsAnnounced, ev.WolfKnife, ev.SeerResult, ev.HunterStatus, ev.SpeechOrder, ev.WitchTold, ev.VoteResult,
    ev.ExileResult, ev.SheriffWithdrew, ev.SheriffCandidates, ev.PkPlatform, ev.HunterShot, ev.SelfDestructed,
    ev.Thought, ev.AnswerRefused, ev.GameStarted, ev.WolfTeam, ev.LoversRecognised, ev.ThiefCards,
    ev.LittleGirlPeeked, ev.LittleGirlCaught, ev.LittleGirlKill, ev.TravelerInfo, ev.SeersMet, ev.WildWolfKill,
    ev.KingTook,
})
#: Events whose case below changes a card or the lovers/witness links (what a camp is made of).
_CARD_OR_LINK = frozenset[type]((ev.RoleAssigned, ev.LoversLinked, ev.WitnessNamed))
#: Events that change only a role's record: once folded they leave the reducer without walking the match
#: (the same classes as the match's record case below; tests/test_registry.py holds the two together).
_RECORD_ONLY: frozenset[type] = frozenset({
    ev.GuardProtected, ev.WitchSaved, ev.WitchPoisoned, ev.HuntingGunFired, ev.BrotherKill, ev.FireWolfUsed,
    ev.MaidSwapped, ev.ElderLifeLost, ev.VotersPunished, ev.ScapegoatBan, ev.SkillsLost, ev.LoversLinked,
    ev.WitnessNamed,
})


#: Event class -> the role records it changes (the registry's ``record_folds``), loaded on first use.
_record_folds: dict[type, tuple[tuple[type, Callable[[Any, Any, GameState], Any]], ...]] | None = None


def _load_record_folds() -> dict[type, tuple[tuple[type, Callable[[Any, Any, GameState], Any]], ...]]:
    global _record_folds
    _record_folds = registry().record_folds
    return _record_folds


def apply_event(state: GameState, e: Event) -> None:
    """The reducer: the only code that changes a GameState after setup. Every event class has its case
    (the type checker holds it to that: ``assert_never``)."""
    state.version += 1
    kind = type(e)
    if kind in _NO_STATE_CHANGE:
        return
    if kind in _CARD_OR_LINK:
        state.cards_version += 1
    folds = _record_folds.get(kind) if _record_folds is not None else _load_record_folds().get(kind)
    if folds is not None:
        records = state.records
        for record_kind, fold in folds:
            records[record_kind] = fold(records[record_kind], e, state)
        if kind in _RECORD_ONLY:
            return
    match e:
        case ev.PhaseStarted():
            state.phase = e.phase
        case ev.RoleAssigned():
            state.players[e.seat].card = e.role
        case ev.PlayerDied():
            if state.aux_police == e.seat:
                state.aux_police = None  # R96
            player = state.players[e.seat]
            player.alive = False
            player.death_phase = e.phase
            state.deaths.append(Death(e.seat, e.cause, tuple(e.causes), e.phase, e.batch))
        case ev.RoleRevealed():
            state.players[e.seat].revealed = True
        case ev.IdiotRevealed():
            state.players[e.seat].revealed = True  # and the idiot's record, folded above
        case ev.SheriffElected():
            if e.seat is not None:
                state.sheriff = e.seat
                state.badge = "held"
        case ev.BadgeMoved():
            state.aux_police = None  # R96: the auxiliary police goes with any change of the badge
            if e.action == "passed":
                state.sheriff = e.to_seat
            else:
                state.sheriff = None
                state.badge = "torn" if e.action == "torn" else "lost"
        case ev.AuxPoliceAppointed():
            state.aux_police = e.seat
        case ev.CenterCards():
            state.center = list(e.cards)
        case ev.GameEnded():
            state.winner = e.winner
            state.win_reason = e.reason.value
        case (ev.Speech() | ev.NightStep() | ev.BallotCast() | ev.WolfKnifeVote() | ev.WolfProposal() | ev.WolfVeto()
              | ev.WolfTeamMessage() | ev.DeathsAnnounced() | ev.WolfKnife() | ev.SeerResult() | ev.HunterStatus()
              | ev.SpeechOrder() | ev.WitchTold() | ev.VoteResult() | ev.ExileResult() | ev.SheriffWithdrew()
              | ev.SheriffCandidates() | ev.PkPlatform() | ev.HunterShot() | ev.SelfDestructed() | ev.Thought()
              | ev.AnswerRefused() | ev.GameStarted() | ev.WolfTeam() | ev.LoversRecognised() | ev.ThiefCards()
              | ev.LittleGirlPeeked() | ev.LittleGirlCaught() | ev.LittleGirlKill() | ev.TravelerInfo()
              | ev.SeersMet() | ev.WildWolfKill() | ev.KingTook()):
            pass  # _NO_STATE_CHANGE: returned above
        case (ev.GuardProtected() | ev.WitchSaved() | ev.WitchPoisoned() | ev.HuntingGunFired() | ev.BrotherKill()
              | ev.FireWolfUsed() | ev.MaidSwapped() | ev.ElderLifeLost() | ev.VotersPunished() | ev.ScapegoatBan()
              | ev.SkillsLost() | ev.LoversLinked() | ev.WitnessNamed()):
            pass  # a role's own record: folded above by the role's spec (_RECORD_ONLY returned there)
        case _:
            assert_never(e)
