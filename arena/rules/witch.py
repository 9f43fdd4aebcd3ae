"""The witch (R30-R31, R112-R120): what she is told, the antidote, the poison, one potion a night."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from arena.actions import ONLY_NO, YES_OR_NO, ChooseBool, ChooseOption, choose_seat
from arena.events import MaidSwapped, WitchPoisoned, WitchSaved, WitchTold, only
from arena.rules import deaths
from arena.rules.night import is_protected
from arena.types import Camp, Kind, Role
from arena.rules.registry import NightStepSpec, RoleSpec, RoleState, registry

if TYPE_CHECKING:
    from arena.engine import Game
    from arena.flow import Flow
    from arena.rules.night import Night
    from arena.state import GameState


@dataclass(frozen=True)
class Potions:
    """The witch's potions (R112-R113): the antidote and the poison unused, 003's original potion used."""

    antidote: bool = True
    poison: bool = True
    original_used: bool = False


def potions(state: "GameState") -> Potions:
    return state.record(Potions)


def _potion_spent(left: Potions, event: WitchSaved | WitchPoisoned, state: "GameState") -> Potions:
    if event.potion == "original":
        return replace(left, original_used=True)
    return replace(left, antidote=False) if isinstance(event, WitchSaved) else replace(left, poison=False)


def _maid_took_the_card(left: Potions, event: MaidSwapped, state: "GameState") -> Potions:
    """R160: a maid who becomes the witch has one original potion and nothing else."""
    return Potions(antidote=False, poison=False) if state.card(event.seat) == Role.WITCH else left


def has_original(game: "Game") -> bool:
    """003's third potion (R112): unused, or the single one a maid got by taking the witch's card (R160)."""
    return game.sw.witch_original_potion and not potions(game.state).original_used


def shown_victims(game: "Game", night: "Night") -> tuple[bool, list[int]]:
    """(is she told at all, the pending victims) per R30, R119: once her antidote (003: and her original
    potion) is spent she is no longer told, unless ``witch_informed_after_antidote``."""
    if not (potions(game.state).antidote or has_original(game) or game.sw.witch_informed_after_antidote):
        return False, []
    return True, pending_victims(game, night)


def pending_victims(game: "Game", night: Night) -> list[int]:
    """R30: the night's pending victims as the witch may be shown them, in seat order: targets of attacks
    that will kill unless saved, after immunities and (unless ``witch_informed_guarded_kill``) guards; the
    elder's extra-life hit only with ``witch_informed_elder_first_hit`` (the card's ``absorbed_hit_shown``: :func:`arena.rules.elder.witch_sees`)."""
    sw = game.sw
    out: set[int] = set()
    hits = [(night.knife, night.knife_void)] if night.knife is not None else []
    hits += [(a.target, a.void) for a in night.attacks]
    for target, void in hits:
        if void and night.elder_absorbs == target:
            shown = registry().spec(game.state.card(target)).absorbed_hit_shown
            if shown is None or not shown(game, night, target):
                continue
        elif void:
            continue
        if is_protected(night, target) and not sw.witch_informed_guarded_kill:
            continue
        out.add(target)
    return sorted(out)


def may_self_save(game: "Game", night: "Night", witch: int) -> bool:
    """R116 ``witch_self_save``."""
    rule = game.sw.witch_self_save
    if rule == "always":
        return True
    if rule == "first_night_only":
        return night.number == 1
    if rule == "if_no_living_guard":
        return not game.state.holders(Role.GUARD)
    return False


def can_save(game: "Game", night: "Night", witch: int, victim: int | None, potion: str = "antidote") -> bool:
    available = potions(game.state).antidote if potion == "antidote" else has_original(game)
    if victim is None or not available or night.later_hand_blocked or game.state.skill_disabled(witch):
        return False  # R120: a disabled witch is still shown the victim but cannot use a potion
    return victim != witch or may_self_save(game, night, witch)


def kind_allowed(game: "Game", kind: str, used: list[str]) -> bool:
    """R118 ``witch_potions_per_night``: ``one`` potion a night; ``one_kind``: several bottles of one kind
    (antidote + original as antidote, or poison + original as poison); ``both``: anything."""
    rule = game.sw.witch_potions_per_night
    if rule == "one":
        return not used
    if rule == "one_kind":
        return all(u == kind for u in used)
    return True


def poison_targets(game: "Game", night: "Night", witch: int, saved_tonight: bool | list[str],
                   potion: str = "poison") -> tuple[int, ...]:
    """Living players she may poison now; empty when she may not poison (every answer but null is refused)."""
    sw = game.sw
    used = saved_tonight if isinstance(saved_tonight, list) else (["save"] if saved_tonight else [])
    available = potions(game.state).poison if potion == "poison" else has_original(game)
    if not available or night.later_hand_blocked or game.state.skill_disabled(witch):
        return ()
    if not kind_allowed(game, "poison", used):
        return ()  # one potion a night (R118); one_kind allows two of one kind, not save + poison
    poisoned = ([night.poisoned] if night.poisoned is not None else []) + night.poisons
    targets = [s for s in night.alive_at_start if (sw.witch_self_poison or s != witch) and s not in poisoned]
    # never save and poison one player (OQ38)
    return tuple(s for s in targets if s != night.saved and s not in night.saves)


def night_step(game: "Game", night: "Night") -> "Flow":
    for witch in game.state.holders(Role.WITCH):
        if game.sw.knife_first == "before_witch" and deaths.knife_alone_wins(game, night):
            night.later_hand_blocked = True  # R35: her skills are "later hand" and cannot be used
        told, victims = shown_victims(game, night)
        used: list[str] = []
        if told:
            game.emit(WitchTold(phase=night.phase, visibility=only(witch), seat=witch,
                                victim=victims[0] if victims else None,
                                victims=victims if len(victims) > 1 else None))
            if victims:
                yield from _save(game, night, witch, victims, "antidote", used)
                if has_original(game):
                    yield from _save(game, night, witch, victims, "original", used)
        yield from _poison(game, night, witch, "poison", used)
        if has_original(game):
            yield from _poison(game, night, witch, "original", used)


def _save(game: "Game", night: "Night", witch: int, victims: list[int], potion: str, used: list[str]) -> "Flow":
    """Asked whenever a victim is shown; a save she may not make is refused (R9). One victim: true/false;
    several (003): the seat to save, or false."""
    from arena.rules.night import is_saved

    allowed = kind_allowed(game, "save", used)
    candidates = [v for v in victims if allowed and not is_saved(night, v) and can_save(game, night, witch, v, potion)]
    kind = Kind.WITCH_SAVE if potion == "antidote" else Kind.WITCH_ORIGINAL_SAVE
    if len(victims) == 1:
        legal = _bool_or_false(bool(candidates))
        context: dict[str, Any] = {"victim": victims[0]}
    else:
        legal = ChooseOption(options=tuple(candidates) + (False,))
        context = {"victims": list(victims)}
    answer = yield from game.ask(witch, kind, legal, False, context=context)
    if answer is False or answer is None or not candidates:
        return
    target = candidates[0] if answer is True else answer
    if night.saved is None:
        night.saved = target
    else:
        night.saves.add(target)
    used.append("save")
    game.emit(WitchSaved(phase=night.phase, visibility=only(witch), seat=witch, target=target, potion=potion))


def _poison(game: "Game", night: "Night", witch: int, potion: str, used: list[str]) -> "Flow":
    targets = poison_targets(game, night, witch, used, potion)
    kind = Kind.WITCH_POISON if potion == "poison" else Kind.WITCH_ORIGINAL_POISON
    has = potions(game.state).poison if potion == "poison" else has_original(game)
    target = yield from game.ask(witch, kind, choose_seat(targets), None, context={"has_poison": has})
    if target is None:
        return
    if night.poisoned is None:
        night.poisoned = target
    else:
        night.poisons.append(target)
    used.append("poison")
    game.emit(WitchPoisoned(phase=night.phase, visibility=only(witch), seat=witch, target=target, potion=potion))


def _bool_or_false(allowed: bool) -> ChooseBool | ChooseOption:
    return YES_OR_NO if allowed else ONLY_NO


SPEC = RoleSpec(
    role=Role.WITCH, camp=Camp.VILLAGE,
    kinds=(Kind.WITCH_SAVE, Kind.WITCH_POISON, Kind.WITCH_ORIGINAL_SAVE, Kind.WITCH_ORIGINAL_POISON),
    steps=(NightStepSpec("witch", night_step, called_for=Role.WITCH,
                         sits={"order_000": (70, "all"), "order_001": (70, "all"), "order_004a": (60, "all"),
                               "order_004c": (90, "all"), "order_003": (110, "all")}),),
    record=RoleState(Potions(), {WitchSaved: _potion_spent, WitchPoisoned: _potion_spent,
                                 MaidSwapped: _maid_took_the_card}),
    good_skill="god",
)
