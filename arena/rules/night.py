"""Night steps, their order (R18-R23) and the dawn's resolution into death batches (R24-R35)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from arena.events import NightStep
from arena.rules.registry import Nights, NightStepSpec, registry
from arena.types import WOLF_ATTACKS, Cause

if TYPE_CHECKING:
    from arena.config import RuleSet
    from arena.engine import Game
    from arena.flow import Flow
    from arena.rules.deaths import Departed


def night_orders() -> dict[str, list[tuple[str, Nights]]]:
    """Each night order as (step, nights), nights "n1" (first night only) or "all" (R18, R20), derived
    from where every role's steps say they sit."""
    return dict(registry().night_orders())


@dataclass
class Attack:
    """A night attack other than the wolves' joint knife (003: R27): the little wolf brother's awakening
    kill, the wild wolf's kill, the hunting gun. ``void`` when an immunity stopped it (R28)."""

    target: int
    cause: Cause
    source: int
    void: bool = False


@dataclass
class Night:
    """Facts of one night, gathered step by step and resolved at dawn. Every step writes its own fields."""

    number: int
    alive_at_start: list[int]  # who may still act or be targeted tonight; those who die at once leave it
    election_participants: list[int] = field(default_factory=list)  # alive at dusk (R49), set by run_night
    departed_early: list["Departed"] = field(default_factory=list)  # died at once (R153); announced at dawn
    guarded: int | None = None
    knife: int | None = None
    knife_void: bool = False  # an immunity stopped the joint knife (R28)
    elder_absorbs: int | None = None  # the elder whose immunity or extra life takes a wolf attack (R28.4)
    traveler_told: bool = False  # the traveler has been shown the nearest wolf tonight (R159)
    little_girl_killed: int | None = None  # the caught little girl, tonight's only kill (R153)
    skill_loss: list[int] = field(default_factory=list)  # revealed idiots whose skill the fire wolf took (R169)
    saved: int | None = None
    poisoned: int | None = None
    later_hand_blocked: bool = False  # knife_first=before_witch: the knife alone already wins (R35)
    attacks: list[Attack] = field(default_factory=list)  # 003's further attacks (R27)
    protected: set[int] = field(default_factory=set)  # everyone the guard protects (splash, R29)
    saves: set[int] = field(default_factory=set)  # further antidote-like saves (003's original potion)
    poisons: list[int] = field(default_factory=list)  # further poisons (003's original potion)
    phase: str = field(init=False)  # "N<number>": read by every step, so computed once

    def __post_init__(self) -> None:
        self.phase = f"N{self.number}"


def steps_for(game: "Game", number: int) -> tuple[str, ...]:
    """The steps called on night ``number``. They depend only on the rules and on whether it is the
    first night, so each game works them out once for N1 and once for the nights after."""
    return game.state.derived("night_steps", number == 1,
                              lambda state: tuple(called_steps(game.rules, first_night=number == 1)))


#: The order whose places R18 gives the steps another order lacks (003's holds every card that acts at night).
FULL_ORDER = "order_003"


def merged_steps(rules: "RuleSet") -> list[str]:
    """R18: the steps of the board's cards that act at night but have no step in the chosen order (004 §C's
    order on the 003 board: little wolf brother, wild wolf, fire wolf, hunting gun), in ``order_003``'s order."""
    roles = registry()
    cards = rules.preset.cards
    listed = {step for step, _ in roles.night_order(rules.switches.night_order)}
    return [name for name, _ in roles.night_order(FULL_ORDER)
            if name not in listed and (spec := roles.steps[name]).called_for is not None
            and spec.called_for in cards and (spec.acts is None or spec.acts(rules.switches))]


def merged_order(rules: "RuleSet") -> list[tuple[str, Nights]]:
    """R18: the chosen night order with each merged step (:func:`merged_steps`) at its place in ``order_003``:
    right after the nearest step before it there that the chosen order also has (after the steps merged
    there before it), or first when there is none; then R152's steps called before another on boards of
    other orders (the little girl before the wolves)."""
    roles = registry()
    order = roles.night_order(rules.switches.night_order)
    chosen = {step for step, _ in order}
    missing = set(merged_steps(rules))
    full = roles.night_order(FULL_ORDER)
    anchor: str | None = None  # the nearest step of order_003 so far that the chosen order has
    after: dict[str | None, int] = {}  # steps merged after each anchor so far
    for name, nights in full:
        if name in chosen:
            anchor = name
        elif name in missing:
            at = (next(i for i, (step, _) in enumerate(order) if step == anchor) + 1 if anchor is not None else 0)
            at += after.get(anchor, 0)
            after[anchor] = after.get(anchor, 0) + 1
            order.insert(at, (name, nights))
    listed = {step for step, _ in order}
    for step in roles.steps.values():  # a step called on boards of other orders that deal its card (R152)
        if step.elsewhere_before and step.name not in listed and step.called_for is not None \
                and step.called_for in rules.preset.cards:
            at = next(i for i, (name, _) in enumerate(order) if name == step.elsewhere_before)
            order.insert(at, (step.name, "all"))
    return order


def stated_night_order(rules: "RuleSet") -> dict[str, list[str]] | None:
    """R18: what the configured game says of its night order when steps were merged into it (the transcript
    header's ``night_order``): the steps called on N1 and on later nights; None when nothing was merged."""
    if not merged_steps(rules):
        return None
    return {"N1": called_steps(rules, first_night=True), "later": called_steps(rules, first_night=False)}


def called_steps(rules: "RuleSet", *, first_night: bool) -> list[str]:
    """The steps called on the first night or on a later one (R18-R21), in order."""
    sw = rules.switches
    cards = rules.preset.cards
    roles = registry()
    out = []
    for name, nights in merged_order(rules):
        if nights == "n1" and not first_night:
            continue
        spec = roles.steps[name]
        role = spec.called_for
        configured = role is None or role in cards
        if not configured and sw.call_absent_roles == "always":
            configured = True
        if not configured and sw.call_absent_roles == "n1_pretend" and spec.pretend_when_absent:
            configured = True
        if configured:
            out.append(name)
    return out


def run_night(game: "Game", number: int) -> "Flow":
    """Call every step of the night in order; only living, able holders are asked (R16, R21)."""
    alive = game.state.alive_seats()
    night = Night(number=number, alive_at_start=alive, election_participants=list(alive))
    steps: dict[str, NightStepSpec] = registry().steps  # type: ignore[assignment]
    announced = number != 1
    for name in steps_for(game, number):
        if not announced and name != "thief":
            game.announce_wolf_team()  # after the thief's pick, so a thief who took a wolf is one (R150)
            announced = True
        game.emit(NightStep(phase=night.phase, step=name))
        step = steps[name]
        if step.run is not None:
            yield from step.run(game, night)
        if step.after is not None:  # a rule that reads the finished step (R28: immunities read the knife)
            step.after(game, night)
    if not announced:
        game.announce_wolf_team()
    for hook in game.state.hooks.end_of_night_hooks:
        hook(game, night)
    return night


def attack_void(game: "Game", night: Night, target: int, cause: Cause) -> bool:
    """R28: immunities applied to an attack before anything else, in the order of their ranks (war wolf,
    wild wolf on a wolf card, traveler on N1, the elder's immunity or extra life). Each role's shield may
    record a fact on the night or tell its holder (R159)."""
    return any(shield.void(game, night, target, cause) for shield in game.state.hooks.shields)


def resolve_knife(game: "Game", night: Night) -> None:
    """After the wolves' step: immunities against the joint knife (R28)."""
    if night.knife is not None and attack_void(game, night, night.knife, Cause.WOLF):
        night.knife_void = True


def add_attack(game: "Game", night: Night, target: int, cause: Cause, source: int) -> Attack:
    attack = Attack(target=target, cause=cause, source=source)
    attack.void = attack_void(game, night, target, cause)
    night.attacks.append(attack)
    return attack


def is_protected(night: Night, seat: int) -> bool:
    return night.guarded == seat or seat in night.protected


def is_saved(night: Night, seat: int) -> bool:
    return night.saved == seat or seat in night.saves


def knife_outcome(night: Night) -> int | None:
    """The wolves' victim after guard and antidote (R32): guard xor save protects; both kill (同守同救).

    An elder whose immunity or extra life absorbs the knife does not die of it (R28, R130, R131).
    """
    target = night.knife
    if target is None or night.elder_absorbs == target or night.knife_void:
        return None
    return target if is_protected(night, target) == is_saved(night, target) else None


def attack_lands(night: Night, attack: Attack) -> bool:
    """003's further attacks resolve like the knife: guard (OQ8) xor antidote protects."""
    if attack.void:
        return False
    return is_protected(night, attack.target) == is_saved(night, attack.target)


def night_batches(game: "Game", night: Night) -> tuple[list[tuple[int, Cause]], list[tuple[int, Cause]]]:
    """Batch K (wolf attacks) and batch P (poison...) of R34.

    A seat dies once however many effects hit it that night, and its death keeps every one of them
    (OQ3): a later hit on a seat that batch K already kills, directly or as the other lover (R40), joins
    that death in batch K instead of being dropped as spent on a dead man."""
    batch_k: list[tuple[int, Cause]] = []
    victim = knife_outcome(night)
    if victim is not None:
        batch_k.append((victim, Cause.WOLF))
    for attack in night.attacks:  # 003: the wolf brother's and the wild wolf's kills (R34)
        if attack.cause in WOLF_ATTACKS and attack_lands(night, attack):
            batch_k.append((attack.target, attack.cause))
    # A caught little girl died at once (R153): she is in ``night.departed_early``, not in a dawn batch.
    in_k = {seat for seat, _ in batch_k}
    grieving = {partner for seat in in_k if (partner := game.state.partner(seat)) is not None
                and partner not in in_k and game.state.is_alive(partner)}
    batch_p: list[tuple[int, Cause]] = []
    later: list[tuple[int, Cause]] = [(a.target, a.cause) for a in night.attacks
                                      if a.cause not in WOLF_ATTACKS and attack_lands(night, a)]  # hunting gun
    poisoned = ([night.poisoned] if night.poisoned is not None else []) + list(night.poisons)
    later += [(seat, Cause.POISON) for seat in poisoned]
    later += [(seat, Cause.SKILL_LOSS) for seat in night.skill_loss]
    for seat, cause in later:
        if seat in in_k:
            # Knifed and poisoned: one death in batch K that carries both causes, so rules that
            # test "died by poison" (the hunter, the elder) still see the poison (OQ3).
            batch_k.append((seat, cause))
        elif seat in grieving:
            # The other lover of a batch K death, poisoned too: he dies of grief and of the poison.
            if (seat, Cause.LOVER) not in batch_k:
                batch_k.append((seat, Cause.LOVER))
            batch_k.append((seat, cause))
        else:
            batch_p.append((seat, cause))
    return batch_k, batch_p
