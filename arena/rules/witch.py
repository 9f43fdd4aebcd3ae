"""The witch (R30-R31, R112-R120): what she is told, the antidote, the poison, one potion a night."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.actions import ChooseBool, ChooseSeat
from arena.events import WitchPoisoned, WitchSaved, WitchTold, only
from arena.types import Kind, Role

if TYPE_CHECKING:
    from arena.engine import Flow, Game
    from arena.rules.night import Night


def shown_victim(game: "Game", night: "Night") -> tuple[bool, int | None]:
    """(is she told at all, the pending victim or None for "nobody died") per R30, R119."""
    sw = game.sw
    if not game.state.antidote and not sw.witch_informed_after_antidote:
        return False, None
    victim = night.knife
    if victim is not None and night.guarded == victim and not sw.witch_informed_guarded_kill:
        victim = None
    from arena.rules import elder

    return True, elder.witch_sees(game, night, victim)  # the elder's extra-life hit (R30, R130)


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


def can_save(game: "Game", night: "Night", witch: int, victim: int | None) -> bool:
    if victim is None or not game.state.antidote or night.later_hand_blocked or game.state.skill_disabled(witch):
        return False  # R120: a disabled witch is still shown the victim but cannot use a potion
    return victim != witch or may_self_save(game, night, witch)


def poison_targets(game: "Game", night: "Night", witch: int, saved_tonight: bool) -> tuple[int, ...]:
    """Living players she may poison now; empty when she may not poison (every answer but null is refused)."""
    sw = game.sw
    if not game.state.poison or night.later_hand_blocked or game.state.skill_disabled(witch):
        return ()
    if saved_tonight and sw.witch_potions_per_night in ("one", "one_kind"):
        return ()  # one potion a night (R118); one_kind allows two of one kind, not save + poison
    targets = [s for s in night.alive_at_start if sw.witch_self_poison or s != witch]
    if saved_tonight:
        targets = [s for s in targets if s != night.saved]  # never save and poison one player (OQ38)
    return tuple(targets)


def night_step(game: "Game", night: "Night") -> "Flow":
    from arena.rules import deaths

    for witch in game.state.holders(Role.WITCH):
        if game.sw.knife_first == "before_witch" and deaths.knife_alone_wins(game, night):
            night.later_hand_blocked = True  # R35: her skills are "later hand" and cannot be used
        told, victim = shown_victim(game, night)
        saved = False
        if told:
            night.witch_shown = victim
            game.emit(WitchTold(phase=night.phase, visibility=only(witch), seat=witch, victim=victim))
            if victim is not None:
                legal_save = can_save(game, night, witch, victim)
                # Asked whenever a victim is shown; a save she may not make is refused (R9).
                answer = yield from game.ask(witch, Kind.WITCH_SAVE, _bool_or_false(legal_save), False,
                                             context={"victim": victim})
                if answer and legal_save:
                    saved = True
                    night.saved = victim
                    game.emit(WitchSaved(phase=night.phase, visibility=only(witch), seat=witch, target=victim))
        targets = poison_targets(game, night, witch, saved)
        target = yield from game.ask(witch, Kind.WITCH_POISON, ChooseSeat(options=targets), None,
                                     context={"has_poison": game.state.poison})
        if target is not None:
            night.poisoned = target
            game.emit(WitchPoisoned(phase=night.phase, visibility=only(witch), seat=witch, target=target))


def _bool_or_false(allowed: bool):
    from arena.actions import ChooseOption

    return ChooseBool() if allowed else ChooseOption(options=(False,))
