"""The role registry: every role module declares itself with a :class:`RoleSpec`, and every list about
roles is derived here from those declarations instead of being kept by hand.

A role module (``arena/rules/<role>.py``) exports ``SPEC`` (or ``SPECS`` for a module with several cards,
like the wolf brothers). The spec says what the rulebook says about the card: its camp, its night
step(s) and where each sits in every night order (R18-R20), the decision kinds it asks, its death-time
skill, the hooks it has into shared steps (an immunity to attacks, surviving a batch, a reprieve on
exile...) and the state fields it owns. Generic modules ask the registry ("who acts on a death?",
"which steps tonight?") and never name a role.

The registry finds the role modules itself (every module of this package that defines ``SPEC`` or
``SPECS``), so adding a role touches its own module, its texts in ``prompts/`` and a board in
``configs/`` if it is dealt.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any, Callable, Generic, Iterable, Literal, Mapping, TypeVar

from arena.types import Camp, Cause, Kind, Role

if TYPE_CHECKING:
    from arena.config import Switches
    from arena.engine import Game
    from arena.flow import Flow
    from arena.rules.deaths import Chain, Departed
    from arena.rules.night import Night
    from arena.state import GameState

Nights = Literal["n1", "all"]
Record = TypeVar("Record")
StepFn = Callable[["Game", "Night"], "Flow"]


@dataclass(frozen=True)
class NightStepSpec:
    """One night step of a role (R18-R23)."""

    name: str
    #: The rule function; ``None`` for a step that is called (the table closes its eyes and opens them)
    #: but where the referee asks nobody, like the idiot's or the elder's call in 000.
    run: StepFn | None
    #: Night order id -> (slot, nights): the step's place in that order (lower slots first) and whether it
    #: is called on the first night only or every night. Orders the step is absent from are left out.
    sits: Mapping[str, tuple[int, Nights]]
    #: R21: the card whose presence in the deck calls the step; ``None``: always called.
    called_for: Role | None = None
    #: ``call_absent_roles=n1_pretend`` calls this step on N1 even without its card (R22).
    pretend_when_absent: bool = False
    #: On a board whose order does not list the step but whose deck holds its card, the step is called
    #: every night right before this one (R152: the little girl right before the wolves).
    elsewhere_before: str | None = None
    #: A rule that reads the finished step (R28: immunities read the wolves' knife).
    after: Callable[["Game", "Night"], None] | None = None
    #: Whether the card acts in this step under the switches in force (the hunting gun only with
    #: ``hunting_gun``); ``None``: whenever the card is dealt. R18 merges a step the chosen order lacks only then.
    acts: Callable[["Switches"], bool] | None = None


@dataclass(frozen=True)
class DeathSkill:
    """A skill used when its holder dies (R43): the hunter's shot, the black wolf king's take."""

    kind: Kind
    usable: Callable[["Game", "Departed"], bool]
    #: Announce the skill used on ``target``; False when it comes to nothing (the target does not die).
    announce: Callable[["Game", "Departed", int], bool]


@dataclass(frozen=True)
class AttackShield:
    """An immunity applied to a night attack before anything else (R28). ``rank`` orders the shields."""

    rank: int
    #: True when the attack on ``target`` by ``cause`` is void. May record facts on the night or tell a seat.
    void: Callable[["Game", "Night", int, Cause], bool]


@dataclass(frozen=True)
class RoleState(Generic[Record]):
    """A role's own state: one frozen record per game (keyed by its class on
    :attr:`arena.state.GameState.records`), read through the role's module. The reducer is its only writer:
    for each event class in ``folds`` it replaces the record by ``fold(record, event, state)``."""

    initial: Record
    folds: Mapping[type, Callable[[Record, Any, "GameState"], Record]]


@dataclass(frozen=True)
class RoleSpec:
    """Everything the referee needs to know about one card."""

    role: Role
    camp: Camp  # the camp the card belongs to when dealt (R5); Cupid, the thief and the maid may change it
    steps: tuple[NightStepSpec, ...] = ()
    #: The decision kinds the card's holder is asked because of the card.
    kinds: tuple[Kind, ...] = ()
    death_skill: DeathSkill | None = None
    shield: AttackShield | None = None
    #: R165-like: does the holder survive a batch in which these causes hit him?
    survives: Callable[["Game", int, list[Cause]], bool] | None = None
    #: R41: called with every death of a batch before it is recorded; returns further seats that die in it.
    in_batch: Callable[["Game", dict[int, list[Cause]]], list[int]] | None = None
    #: Called once the night's steps are done, before the dawn resolves it.
    end_of_night: Callable[["Game", "Night"], None] | None = None
    #: R137: the holder, just exiled, may be spared (the flow yields True when the exile does not kill).
    exile_reprieve: Callable[["Game", int], "Flow"] | None = None
    #: Called after every day speech (the seat, the speech kind, in an election): R138's interjections. Returns
    #: None when it has nothing to ask, so most speeches build no generator.
    after_speech: Callable[["Game", int, str, bool], "Flow | None"] | None = None
    #: Called after every exile's consequences (R160: the maid may take the exiled player's card).
    after_exile: Callable[["Game", int], "Flow"] | None = None
    #: R148: the living seats that hold the wolves' knife instead of the wolf cards (an empty list: not now).
    takes_the_knife: Callable[["Game"], list[int]] | None = None
    #: R167: the holder of this wolf card does not (yet) act or read as a wolf.
    latent: Callable[["Game", int], bool] | None = None
    #: R108: what the seer's check reads for the holder ("wolf"/"good"); None: by the card's camp.
    seen_as: Callable[["Game", int], Literal["wolf", "good"] | None] | None = None
    #: R153: the wolves may name no one tonight.
    forbids_knife: Callable[["Night"], bool] | None = None
    #: R66: a wolf card may self-destruct unless this is False.
    self_destructs: bool = True
    #: R162: the holder has just self-destructed (the chain holds the batch's departed).
    on_self_destruct: Callable[["Game", int, "Chain"], "Flow"] | None = None
    #: R84, R156: the voters of today's exile vote, narrowed.
    restrict_voters: Callable[["Game", list[int]], list[int]] | None = None
    #: R155: the exile vote ended tied between these seats (the flow may end the day).
    exile_tie: Callable[["Game", list[int]], "Flow"] | None = None
    #: R133, OQ41: a good card with a skill the elder's penalty removes: "god" under every
    #: ``elder_penalty_scope``, "other" only under ``all_good_skills``.
    good_skill: Literal["god", "other"] | None = None
    #: R138, OQ42: this seat (a holder of the card or not) neither votes nor may be voted for.
    voteless: Callable[["GameState", int], bool] | None = None
    #: OQ51: a night-time take (the black wolf king's) on the holder fails to kill; records what it costs.
    absorbs_take: Callable[["Game", int], bool] | None = None
    #: R30: the absorbed (void) knife on the holder is shown to the witch as a pending victim.
    absorbed_hit_shown: Callable[["Game", "Night", int], bool] | None = None
    #: R133, R169: this seat's skills were taken by the card's holder (the elder's penalty, the fire wolf).
    takes_skills: Callable[["GameState", int], bool] | None = None
    #: R40, R143: a seat's partner through a link the card made (Cupid's lovers); None: none.
    partner: Callable[["GameState", int], int | None] | None = None
    #: R144, R170: a seat's camp through a link the card made; None: the camp of his card.
    camp_of: Callable[["GameState", int], Camp | None] | None = None
    #: R139: the holder is removed at once when his skill is lost.
    dies_without_skill: Callable[["GameState", int], bool] | None = None
    #: R173: the side-kill class the holder counts in instead of the board's god/villager lists.
    side_class: Callable[["GameState"], Literal["god", "villager"] | None] | None = None
    #: R173: that class counts whatever the holder's camp, the wolves' included (Cupid: "whatever happens,
    #: Cupid counts among the ordinary villagers"); otherwise a wolves-camp holder never counts.
    side_class_whatever_camp: bool = False
    #: The role's own record (potions left, a skill used...), folded from its events by the reducer.
    record: RoleState[Any] | None = None


@dataclass(frozen=True, eq=False)  # hashed by identity: its derived lists are memoised on it
class Registry:
    specs: Mapping[Role, RoleSpec]
    #: Every night step by name.
    steps: Mapping[str, NightStepSpec] = field(default_factory=dict)

    # ---- lists that used to be kept by hand -------------------------------------------------
    @cached_property
    def roles(self) -> frozenset[Role]:
        """The roles the referee implements (a board with any other card is refused)."""
        return frozenset(self.specs)

    def night_order(self, order: str) -> list[tuple[str, Nights]]:
        """The steps of one night order, as (step, nights), in the order they are called (R18)."""
        return list(_night_order(self, order))

    def night_orders(self) -> dict[str, list[tuple[str, Nights]]]:
        names = sorted({o for step in self.steps.values() for o in step.sits})
        return {name: self.night_order(name) for name in names}

    def step_role(self, step: str) -> Role | None:
        return self.steps[step].called_for

    def wolf_cards(self) -> frozenset[Role]:
        return self._wolf_cards

    @cached_property
    def _wolf_cards(self) -> frozenset[Role]:
        return frozenset(r for r, s in self.specs.items() if s.camp == Camp.WOLVES)

    def spec(self, role: Role) -> RoleSpec:
        return self.specs[role]

    def dealt(self, cards: Iterable[Role]) -> "Registry":
        """The registry of one board: only the specs of the cards in its deck (held, dead or buried), so a
        game asks the hooks of the cards it can hold and no others. A card's hooks act through the card's
        own record or holder, so a card outside the deck has nothing to say; the night steps stay whole
        (R22 calls some steps of absent cards)."""
        return _dealt(self, frozenset(cards))

    def owner_of_kind(self, kind: Kind) -> Role | None:
        return next((r for r, s in self.specs.items() if kind in s.kinds), None)

    # ---- hooks into shared steps -------------------------------------------------------------
    @property
    def shields(self) -> tuple[AttackShield, ...]:
        return _shields(self)

    @cached_property
    def survivors(self) -> tuple[Callable[["Game", int, list[Cause]], bool], ...]:
        return tuple(s.survives for s in self.specs.values() if s.survives is not None)

    @cached_property
    def batch_hooks(self) -> tuple[Callable[["Game", dict[int, list[Cause]]], list[int]], ...]:
        return tuple(s.in_batch for s in self.specs.values() if s.in_batch is not None)

    @cached_property
    def end_of_night_hooks(self) -> tuple[Callable[["Game", "Night"], None], ...]:
        return tuple(s.end_of_night for s in self.specs.values() if s.end_of_night is not None)

    @cached_property
    def after_exile_hooks(self) -> tuple[Callable[["Game", int], "Flow"], ...]:
        return tuple(s.after_exile for s in self.specs.values() if s.after_exile is not None)

    @cached_property
    def after_speech_hooks(self) -> tuple[Callable[["Game", int, str, bool], "Flow | None"], ...]:
        return tuple(s.after_speech for s in self.specs.values() if s.after_speech is not None)

    def initial_records(self) -> dict[type, Any]:
        """Every role's record at the start of a game, by record class."""
        return {type(s.record.initial): s.record.initial for s in self.specs.values() if s.record is not None}

    @cached_property
    def record_folds(self) -> dict[type, tuple[tuple[type, Callable[[Any, Any, "GameState"], Any]], ...]]:
        """Event class -> (record class, fold) for every role record that event changes."""
        folds: dict[type, list[tuple[type, Callable[[Any, Any, "GameState"], Any]]]] = {}
        for spec in self.specs.values():
            if spec.record is not None:
                for event, fold in spec.record.folds.items():
                    folds.setdefault(event, []).append((type(spec.record.initial), fold))
        return {event: tuple(pairs) for event, pairs in folds.items()}

    @cached_property
    def knife_takers(self) -> tuple[Callable[["Game"], list[int]], ...]:
        return tuple(s.takes_the_knife for s in self.specs.values() if s.takes_the_knife is not None)

    def knife_holders(self, game: "Game") -> list[int]:
        """Every living wolf-card holder knifes (R26); a wolf lover too (OQ7); not the latent little wolf
        brother (R167). In 003, once every wolves-camp player is dead, the living lovers camp knifes (R148)."""
        for takers in self.knife_takers:
            holders = takers(game)
            if holders:
                return holders
        return [s for s in game.state.wolf_card_seats() if not self.is_latent(game, s)]

    def is_latent(self, game: "Game", seat: int) -> bool:
        """R167: the seat's wolf card does not act or read as a wolf (yet)."""
        hook = self.specs[game.state.card(seat)].latent
        return hook is not None and hook(game, seat)

    def seer_reading(self, game: "Game", seat: int) -> Literal["wolf", "good"]:
        """R108: "wolf" for a wolves-camp card unless the card reads otherwise (the latent little brother)."""
        spec = self.specs[game.state.card(seat)]
        reading = spec.seen_as(game, seat) if spec.seen_as is not None else None
        return reading or ("wolf" if spec.camp == Camp.WOLVES else "good")

    def knife_forbidden(self, night: "Night") -> bool:
        return any(s.forbids_knife(night) for s in self.specs.values() if s.forbids_knife is not None)

    @cached_property
    def self_destruct_cards(self) -> frozenset[Role]:
        """R66: the wolf cards that may self-destruct."""
        return frozenset(r for r, s in self.specs.items() if s.camp == Camp.WOLVES and s.self_destructs)

    def self_destruct_seats(self, game: "Game") -> list[int]:
        """R66: the living wolf cards (not the big wolf brother) when the rules have self-destruct, in
        seat order. Asked before every speech (R67), so it only checks the few seats holding such a card."""
        if not game.sw.self_destruct:
            return []
        state = game.state
        players = state.players
        seats = state.derived("self_destruct_card_seats", state.cards_version, self._self_destruct_card_seats)
        return [s for s in seats if players[s].alive]

    def _self_destruct_card_seats(self, state: "GameState") -> tuple[int, ...]:
        """The seats holding a card that may self-destruct, living or dead (worked out again only after a
        card changes)."""
        cards = self.self_destruct_cards
        return tuple(s for s, p in state.players.items() if p.card in cards)

    @cached_property
    def voter_restrictions(self) -> tuple[Callable[["Game", list[int]], list[int]], ...]:
        return tuple(s.restrict_voters for s in self.specs.values() if s.restrict_voters is not None)

    @cached_property
    def skill_takers(self) -> tuple[Callable[["GameState", int], bool], ...]:
        return tuple(s.takes_skills for s in self.specs.values() if s.takes_skills is not None)

    @cached_property
    def partner_hooks(self) -> tuple[Callable[["GameState", int], int | None], ...]:
        return tuple(s.partner for s in self.specs.values() if s.partner is not None)

    @cached_property
    def camp_hooks(self) -> tuple[Callable[["GameState", int], Camp | None], ...]:
        return tuple(s.camp_of for s in self.specs.values() if s.camp_of is not None)

    @cached_property
    def voteless_hooks(self) -> tuple[Callable[["GameState", int], bool], ...]:
        return tuple(s.voteless for s in self.specs.values() if s.voteless is not None)

    @cached_property
    def exile_tie_hooks(self) -> tuple[Callable[["Game", list[int]], "Flow"], ...]:
        return tuple(s.exile_tie for s in self.specs.values() if s.exile_tie is not None)

    def good_skills(self, scope: str) -> frozenset[Role]:
        """R133, OQ41: the cards whose skills the elder's penalty removes under ``elder_penalty_scope``."""
        return frozenset(r for r, s in self.specs.items()
                         if s.good_skill == "god" or (s.good_skill == "other" and scope == "all_good_skills"))


@lru_cache(maxsize=None)
def _night_order(registry: Registry, order: str) -> tuple[tuple[str, Nights], ...]:
    placed = sorted((step.sits[order][0], step.name, step.sits[order][1])
                    for step in registry.steps.values() if order in step.sits)
    return tuple((name, nights) for _, name, nights in placed)


@lru_cache(maxsize=64)
def _dealt(registry: Registry, cards: frozenset[Role]) -> Registry:
    return Registry(specs={r: s for r, s in registry.specs.items() if r in cards}, steps=registry.steps)


@lru_cache(maxsize=None)
def _shields(registry: Registry) -> tuple[AttackShield, ...]:
    return tuple(sorted((s.shield for s in registry.specs.values() if s.shield is not None), key=lambda x: x.rank))


def _role_modules() -> list[str]:
    import arena.rules as package

    return sorted(m.name for m in pkgutil.iter_modules(package.__path__) if not m.name.startswith("_"))


@lru_cache(maxsize=1)
def registry() -> Registry:
    """Every role module's spec, checked for clashes (two specs for one card, two steps of one name,
    two steps in one slot of a night order)."""
    specs: dict[Role, RoleSpec] = {}
    for name in _role_modules():
        module = importlib.import_module(f"arena.rules.{name}")
        declared = getattr(module, "SPECS", None) or ((module.SPEC,) if hasattr(module, "SPEC") else ())
        for spec in declared:
            if spec.role in specs:
                raise RuntimeError(f"role {spec.role.value!r} is declared twice (arena.rules.{name})")
            specs[spec.role] = spec
    return build(specs)


def build(specs: Mapping[Role, RoleSpec]) -> Registry:
    steps: dict[str, NightStepSpec] = {}
    for spec in specs.values():
        for step in spec.steps:
            if step.name in steps:
                raise RuntimeError(f"night step {step.name!r} is declared twice")
            steps[step.name] = step
    slots: dict[tuple[str, int], str] = {}
    for step in steps.values():
        for order, (slot, _) in step.sits.items():
            other = slots.setdefault((order, slot), step.name)
            if other != step.name:
                raise RuntimeError(f"night order {order}: steps {other!r} and {step.name!r} share slot {slot}")
        if step.elsewhere_before is not None and step.elsewhere_before not in steps and step.elsewhere_before not in {
                s.name for sp in specs.values() for s in sp.steps}:
            raise RuntimeError(f"night step {step.name!r} is called before an unknown step {step.elsewhere_before!r}")
    return Registry(specs=dict(specs), steps=steps)
