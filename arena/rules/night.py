"""Night steps, their order (R18-R23) and the dawn's resolution into death batches (R24-R35)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Callable

from arena.events import NightStep
from arena.rules import (cupid, elder, fire_wolf, guard, hunter, little_girl, seer, thief, traveler, war_wolf,
                         wild_wolf, witch, wolf_brothers, wolves)
from arena.types import Cause, Role

if TYPE_CHECKING:
    from arena.engine import Flow, Game

# Each order lists (step, nights) with nights "n1" (first night only) or "all" (R18, R20).
NIGHT_ORDERS: dict[str, list[tuple[str, str]]] = {
    "order_000": [("thief", "n1"), ("cupid", "n1"), ("lovers", "n1"), ("guard", "all"), ("elder", "all"),
                  ("wolves", "all"), ("witch", "all"), ("seer", "all"), ("hunter", "all"), ("idiot", "all")],
    "order_001": [("thief", "n1"), ("cupid", "n1"), ("lovers", "n1"), ("seer", "all"), ("little_girl", "all"),
                  ("wolves", "all"), ("witch", "all")],
    "order_004a": [("thief", "n1"), ("cupid", "n1"), ("lovers", "n1"), ("guard", "all"), ("wolves", "all"),
                   ("witch", "all"), ("seer", "all"), ("hunter", "all")],
    "order_004c": [("thief", "n1"), ("cupid", "n1"), ("lovers", "n1"), ("hunter", "n1"), ("elder", "n1"),
                   ("guard", "all"), ("wolves", "all"), ("seer", "all"), ("witch", "all")],
    "order_003": [("thief", "n1"), ("cupid", "n1"), ("lovers", "all"), ("wolves_recognise", "n1"),
                  ("guard", "all"), ("little_wolf_brother", "all"), ("wolves", "all"), ("wild_wolf", "all"),
                  ("fire_wolf", "all"), ("hunting_gun", "all"), ("witch", "all"), ("seer", "all")],
}
# 001 has the little girl peek inside the wolves' step (R18 "Wolves (+ Little Girl may peek)"); on a board
# of another order that deals her, her step is called right before the wolves' (R152).
LITTLE_GIRL_BEFORE = "wolves"

# The card whose presence in the deck makes a step "configured" (R21).
STEP_ROLE: dict[str, Role | None] = {
    "thief": Role.THIEF, "cupid": Role.CUPID, "lovers": Role.CUPID, "guard": Role.GUARD, "elder": Role.ELDER,
    "wolves": None, "witch": Role.WITCH, "seer": Role.SEER, "hunter": Role.HUNTER, "idiot": Role.IDIOT,
    "wolves_recognise": None, "little_wolf_brother": Role.LITTLE_WOLF_BROTHER, "wild_wolf": Role.WILD_WOLF,
    "fire_wolf": Role.FIRE_WOLF, "hunting_gun": Role.HUNTER,
    "little_girl": Role.LITTLE_GIRL,
}


#: Wolf attacks (R27): their deaths go to batch K; the elder's life and the traveler's N1 immunity apply.
WOLF_ATTACKS = frozenset({Cause.WOLF, Cause.WOLF_BROTHER, Cause.WILD_WOLF})


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
    """Scratch facts of one night, gathered step by step and resolved at dawn."""

    number: int
    alive_at_start: list[int]
    guarded: int | None = None
    knife: int | None = None
    saved: int | None = None
    poisoned: int | None = None
    witch_shown: int | None = None
    later_hand_blocked: bool = False  # knife_first=before_witch: the knife alone already wins (R35)
    extra: dict[str, object] = field(default_factory=dict)
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
    return game.state.derived("night_steps", number == 1, lambda state: tuple(_steps_for(game, number)))


def _steps_for(game: "Game", number: int) -> list[str]:
    sw = game.sw
    out = []
    order = list(NIGHT_ORDERS[sw.night_order])
    if game.state.configured(Role.LITTLE_GIRL) and not any(step == "little_girl" for step, _ in order):
        at = next(i for i, (step, _) in enumerate(order) if step == LITTLE_GIRL_BEFORE)
        order.insert(at, ("little_girl", "all"))
    for step, nights in order:
        if nights == "n1" and number != 1:
            continue
        role = STEP_ROLE.get(step)
        configured = role is None or game.state.configured(role)
        if not configured and sw.call_absent_roles == "always":
            configured = True
        if not configured and sw.call_absent_roles == "n1_pretend" and step in ("thief", "cupid", "lovers"):
            configured = True
        if configured:
            out.append(step)
    return out


def run_night(game: "Game", number: int) -> "Flow":
    """Call every step of the night in order; only living, able holders are asked (R16, R21)."""
    night = Night(number=number, alive_at_start=game.state.alive_seats())
    handlers = _step_handlers()
    # Rules that read a finished step: immunities and the elder's extra life read the knife (R28).
    after = {"wolves": resolve_knife}
    announced = number != 1
    for step in steps_for(game, number):
        if not announced and step != "thief":
            game.announce_wolf_team()  # after the thief's pick, so a thief who took a wolf is one (R150)
            announced = True
        game.emit(NightStep(phase=night.phase, step=step))
        handler = handlers.get(step)
        if handler is not None:
            yield from handler(game, night)
        if step in after:
            after[step](game, night)
    if not announced:
        game.announce_wolf_team()
    elder.end_of_night(game, night)
    return night


@lru_cache(maxsize=1)
def _step_handlers() -> dict[str, Callable[["Game", Night], "Flow"]]:
    """Each night step's rule function, by step name (built on first use, once every role module is loaded)."""
    return {
        "thief": thief.night_step,
        "cupid": cupid.cupid_step,
        "lovers": cupid.lovers_step,
        "guard": guard.night_step,
        "little_girl": little_girl.night_step,
        "wolves": wolves.night_step,
        "witch": witch.night_step,
        "seer": seer.night_step,
        "hunter": hunter.night_step,
        "little_wolf_brother": wolf_brothers.night_step,
        "wild_wolf": wild_wolf.night_step,
        "fire_wolf": fire_wolf.night_step,
        "hunting_gun": hunter.hunting_gun_step,
    }


def attack_void(game: "Game", night: Night, target: int, cause: Cause) -> bool:
    """R28: immunities applied to an attack before anything else (war wolf, traveler on N1, wild wolf on a
    wolf card, the elder's immunity or extra life). May tell the traveler (R159)."""
    from arena.types import is_wolf_card

    if war_wolf.immune(game, target, cause):
        return True
    if cause == Cause.WILD_WOLF and is_wolf_card(game.state.card(target)):
        return True
    if cause in WOLF_ATTACKS and traveler.shields(game, night, target):
        return True
    if cause in WOLF_ATTACKS and elder.absorbs(game, target):
        night.extra["elder_absorbs"] = target
        return True
    return False


def resolve_knife(game: "Game", night: Night) -> None:
    """After the wolves' step: immunities against the joint knife (R28)."""
    if night.knife is not None and attack_void(game, night, night.knife, Cause.WOLF):
        night.extra["knife_void"] = True


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
    if target is None or night.extra.get("elder_absorbs") == target or night.extra.get("knife_void"):
        return None
    return target if is_protected(night, target) == is_saved(night, target) else None


def attack_lands(night: Night, attack: Attack) -> bool:
    """003's further attacks resolve like the knife: guard (OQ8) xor antidote protects."""
    if attack.void:
        return False
    return is_protected(night, attack.target) == is_saved(night, attack.target)


def pending_victims(game: "Game", night: Night) -> list[int]:
    """R30: the night's pending victims as the witch may be shown them, in seat order: targets of attacks
    that will kill unless saved, after immunities and (unless ``witch_informed_guarded_kill``) guards; the
    elder's extra-life hit only with ``witch_informed_elder_first_hit`` (via :func:`elder.witch_sees`)."""
    sw = game.sw
    out: set[int] = set()
    hits = [(night.knife, bool(night.extra.get("knife_void")))] if night.knife is not None else []
    hits += [(a.target, a.void) for a in night.attacks]
    for target, void in hits:
        if void and night.extra.get("elder_absorbs") == target:
            if elder.witch_sees(game, night, target) is None:
                continue
        elif void:
            continue
        if is_protected(night, target) and not sw.witch_informed_guarded_kill:
            continue
        out.add(target)
    return sorted(out)


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
    caught = night.extra.get("little_girl_killed")
    if isinstance(caught, int):
        batch_k.append((caught, Cause.LITTLE_GIRL))  # R153: unsavable, in batch K
    in_k = {seat for seat, _ in batch_k}
    grieving = {partner for seat in in_k if (partner := game.state.partner(seat)) is not None
                and partner not in in_k and game.state.is_alive(partner)}
    batch_p: list[tuple[int, Cause]] = []
    later: list[tuple[int, Cause]] = [(a.target, a.cause) for a in night.attacks
                                      if a.cause not in WOLF_ATTACKS and attack_lands(night, a)]  # hunting gun
    poisoned = ([night.poisoned] if night.poisoned is not None else []) + list(night.poisons)
    later += [(seat, Cause.POISON) for seat in poisoned]
    later += [(seat, Cause.SKILL_LOSS) for seat in night.extra.get("skill_loss", [])]  # type: ignore[union-attr]
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
