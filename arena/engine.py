"""The referee: a pure, synchronous state machine that says what it waits for and accepts answers.

    game = Game(setup)
    while not game.over:
        requests = game.pending()          # one or more DecisionRequests, simultaneous
        game.submit({r.id: answer, ...})   # illegal answers are refused and replaced by r.default

The game flow is written as generators (``arena.rules.*`` and the phase cycle below) that ``yield``
batches of decision requests and receive the validated answers; nothing here does I/O, imports
an agent or reads the clock. All randomness comes from named streams derived from the seed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import lru_cache, partial
from operator import itemgetter
from typing import Any, Callable, Iterable, NamedTuple, Sequence

from arena.actions import NO_CONTEXT, DecisionRequest, IllegalAnswer
from arena.config import RuleSet, resolve_rules
from arena.events import (
    AnswerRefused,
    CenterCards,
    Event,
    GameEnded,
    GameStarted,
    PhaseStarted,
    RoleAssigned,
    WolfTeam,
    only,
    REFEREE,
)
from arena.flow import DayEnds, Flow, FlowState, GameOver, SetupError
from arena.state import GameState, Player, apply_event
from arena.types import Role, Winner, WinReason, is_wolf_card, phase_name


@dataclass
class GameSetup:
    """Everything that fixes a game before the first decision."""

    preset: str
    seed: int = 0
    rules: dict[str, Any] = field(default_factory=dict)
    deal: list[str] | None = None
    center: list[str] | None = None
    game_index: int = 0  # position in a series, for switches that alternate per game (R51)
    # Seats the wolves may not knife on night 1 under first_kill_protection (004 §C-conduct 5): worked out
    # from the series' earlier games by arena.rules.first_kill.protected_seats.
    first_kill_protected: tuple[int, ...] = ()
    # Seats the referee asks for private beliefs outside their decisions, by mode (``day_end`` or
    # ``every_speech``, arena.rules.beliefs); a measurement, not a rule. Empty: nobody is asked.
    beliefs: dict[int, str] = field(default_factory=dict)

    def resolve(self) -> RuleSet:
        try:
            key = (self.preset, tuple(sorted(self.rules.items())))
            hash(key)
        except TypeError:  # an unhashable override value: resolve (and let validation name it)
            return resolve_rules(self.preset, self.rules)
        return _resolved_rules(key)


@lru_cache(maxsize=256)
def _resolved_rules(key: tuple[str, tuple[tuple[str, Any], ...]]) -> RuleSet:
    """Rule sets are frozen, so a tournament's thousands of games of one board share one (and skip
    re-validating its switches)."""
    return resolve_rules(key[0], dict(key[1]))


#: Requests sort by seat, then by id (a request is a named tuple: ``id`` first, ``seat`` second).
_seat_then_id = itemgetter(1, 0)


class DecisionRecord(NamedTuple):
    """A decision as the referee saw it: asked, answered, applied (immutable, one per decision)."""

    request: DecisionRequest
    answer: Any
    value: Any
    refused: bool
    error: str | None


#: Named tuples built from a tuple of every field, skipping the keyword-handling ``__new__`` the
#: class generates (the referee makes one of each per decision).
_new_request = partial(tuple.__new__, DecisionRequest)
_new_record = partial(tuple.__new__, DecisionRecord)


class Game:
    """One game of Werewolf. The only writer of its state."""

    def __init__(self, setup: GameSetup, rules: RuleSet | None = None):
        self.setup = setup
        self.rules = rules or setup.resolve()
        self.sw = self.rules.switches
        self.seed = setup.seed
        self.log: list[Event] = []
        self.decisions: list[DecisionRecord] = []
        self._next_request_id = 1
        self._rngs: dict[str, random.Random] = {}
        self._pending: list[DecisionRequest] = []
        self.flow = FlowState()  # bookkeeping of the flow that is not game state
        self.state = self._deal()
        self.listeners: list[Callable[[Event], None]] = []
        self._flow = self._run()
        self._advance(None)

    # ---- public API ------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.state.winner is not None

    def pending(self) -> list[DecisionRequest]:
        return list(self._pending)

    def submit(self, answers: dict[int, Any]) -> None:
        """Answer every pending request (missing ids get their default). Refusals are recorded.

        The engine takes the values only: what an agent says about its answer (reasoning, notes,
        beliefs, usage, latency) is the driver's to record, on the answer's decision line."""
        self.submit_in_order([answers.get(r.id, r.default) for r in self._pending])

    def submit_in_order(self, answers: Sequence[Any]) -> None:
        """Answer the pending requests with one answer each, in the order :meth:`pending` gave them.

        The driver's form of :meth:`submit`: it answers every request it was given, so it skips
        building and reading a dict by request id on every round of questions."""
        if self.state.winner is not None:
            raise RuntimeError("the game is over")
        pending = self._pending
        if len(answers) != len(pending):
            raise ValueError(f"{len(answers)} answers for {len(pending)} pending requests")
        values = []
        record = self.decisions.append
        for request, answer in zip(pending, answers):  # already in seat order: ask_all sorts them
            try:
                value = request.legal.check(answer)
            except IllegalAnswer as exc:
                value, error = request.default, str(exc)
                record(_new_record((request, answer, value, True, error)))
                self.emit(AnswerRefused(phase=self.state.phase, visibility=only(request.seat), seat=request.seat,
                                        decision_id=request.id, kind=request.kind, error=error, used=value))
            else:
                record(_new_record((request, answer, value, False, None)))
            values.append(value)
        self._advance(values)

    def rng(self, name: str) -> random.Random:
        """A named random stream derived from the game's seed (ARCHITECTURE principle 10)."""
        if name not in self._rngs:
            self._rngs[name] = random.Random(f"{self.seed}:{name}")
        return self._rngs[name]

    # ---- used by rule modules ------------------------------------------------------------
    def emit(self, event: Event) -> None:
        self.log.append(event)
        apply_event(self.state, event)
        for listener in self.listeners:
            listener(event)

    def request(self, seat: int, kind: str, legal: Any, default: Any = None, *, phase: str | None = None,
                context: dict[str, Any] | None = None) -> DecisionRequest:
        asked_in = self.state.phase
        self._next_request_id += 1
        return _new_request((self._next_request_id - 1, seat, kind, phase or asked_in, asked_in, legal, default,
                             context or NO_CONTEXT))

    def ask(self, seat: int, kind: str, legal: Any, default: Any = None, *, phase: str | None = None,
            context: dict[str, Any] | None = None) -> Flow:
        """Ask one seat; returns the applied value."""
        values = yield [self.request(seat, kind, legal, default, phase=phase, context=context)]
        return values[0]

    def ask_all(self, requests: Iterable[DecisionRequest]) -> Flow:
        """Ask several seats at once (simultaneous decisions, R82); returns {seat: value}.

        The requests are put in seat order here, the order in which ``submit`` applies them."""
        reqs = sorted(requests, key=_seat_then_id)
        if not reqs:
            return {}
        values = yield reqs
        return dict(zip([r.seat for r in reqs], values))

    def end(self, winner: Winner, reason: WinReason) -> None:
        self.emit(GameEnded(phase=self.state.phase, winner=winner, reason=reason))
        raise GameOver()

    # ---- internals ---------------------------------------------------------------------
    def _advance(self, values: list[Any] | None) -> None:
        """Resume the flow with the checked values of the requests it yielded, in their order."""
        try:
            self._pending = self._flow.send(values) if values is not None else next(self._flow)
        except StopIteration:
            self._pending = []

    def _deal(self) -> GameState:
        from arena.rules import setup as setup_rules

        seats, center = setup_rules.deal_cards(self.rules, self.setup, self.rng("deal"))
        players = {i + 1: Player(seat=i + 1, card=card) for i, card in enumerate(seats)}
        state = GameState(rules=self.rules, players=players, center=list(center))
        return state

    def _run(self) -> Flow:
        from arena.rules import cycle

        try:
            self._announce_setup()
            yield from cycle.play(self)
        except GameOver:
            return
        if not self.over:  # the cycle only returns through a result; guard anyway
            self.emit(GameEnded(phase=self.state.phase, winner=Winner.DRAW, reason=WinReason.NO_RESULT))

    def _announce_setup(self) -> None:
        state = self.state
        counts: dict[str, int] = {}
        for card in self.rules.preset.cards:
            counts[card.value] = counts.get(card.value, 0) + 1
        self.emit(GameStarted(phase="N1", players=state.n, preset=self.rules.preset.id, role_counts=counts))
        for seat, player in state.players.items():
            self.emit(RoleAssigned(phase="N1", visibility=only(seat), seat=seat, role=player.card))
        if state.center:
            self.emit(CenterCards(phase="N1", visibility=REFEREE, cards=list(state.center)))
        self.emit(PhaseStarted(phase=phase_name(True, 1)))

    def announce_wolf_team(self) -> None:
        wolves = [s for s in self.state.players if is_wolf_card(self.state.card(s))]
        if wolves:
            self.emit(WolfTeam(phase=self.state.phase, visibility=only(*wolves, team="wolves"), wolves=wolves))


def new_game(preset: str, seed: int = 0, rules: dict[str, Any] | None = None, **kw: Any) -> Game:
    return Game(GameSetup(preset=preset, seed=seed, rules=dict(rules or {}), **kw))


__all__ = ["Game", "GameSetup", "GameOver", "DayEnds", "SetupError", "DecisionRecord", "Flow", "new_game", "Role"]
