"""Night steps, their order (R18-R23) and the dawn's resolution into death batches (R24-R35)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from arena.events import NightStep
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

    @property
    def phase(self) -> str:
        return f"N{self.number}"


def steps_for(game: "Game", number: int) -> list[str]:
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
    from arena.rules import cupid, elder, guard, hunter, little_girl, seer, thief, witch, wolves

    night = Night(number=number, alive_at_start=game.state.alive_seats())
    handlers = {
        "thief": thief.night_step,
        "cupid": cupid.cupid_step,
        "lovers": cupid.lovers_step,
        "guard": guard.night_step,
        "little_girl": little_girl.night_step,
        "wolves": wolves.night_step,
        "witch": witch.night_step,
        "seer": seer.night_step,
        "hunter": hunter.night_step,
    }
    # Rules that read a finished step: the elder's extra life reads the knife (R130, R131).
    after = {"wolves": elder.after_knife}
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


def knife_outcome(night: Night) -> int | None:
    """The wolves' victim after guard and antidote (R32): guard xor save protects; both kill (同守同救).

    An elder whose immunity or extra life absorbs the knife does not die of it (R28, R130, R131).
    """
    target = night.knife
    if target is None or night.extra.get("elder_absorbs") == target:
        return None
    guarded = night.guarded == target
    saved = night.saved == target
    return target if guarded == saved else None


def night_batches(night: Night) -> tuple[list[tuple[int, Cause]], list[tuple[int, Cause]]]:
    """Batch K (wolf attacks) and batch P (poison...) of R34."""
    batch_k: list[tuple[int, Cause]] = []
    victim = knife_outcome(night)
    if victim is not None:
        batch_k.append((victim, Cause.WOLF))
    caught = night.extra.get("little_girl_killed")
    if isinstance(caught, int):
        batch_k.append((caught, Cause.LITTLE_GIRL))  # R153: unsavable, in batch K
    batch_p: list[tuple[int, Cause]] = []
    if night.poisoned is not None:
        if night.poisoned == victim:
            # Knifed and poisoned: one death in batch K that carries both causes, so rules that
            # test "died by poison" (the hunter, the elder) still see the poison (OQ3).
            batch_k.append((victim, Cause.POISON))
        else:
            batch_p.append((night.poisoned, Cause.POISON))
    return batch_k, batch_p
