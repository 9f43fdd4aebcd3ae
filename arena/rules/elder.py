"""The elder (R28, R130-R136): an extra life against wolf attacks, and the penalty when the village kills him.

- ``elder_model=two_lives`` (R130): the first knife that would kill him costs his extra life; the witch is
  told nobody died (unless ``witch_informed_elder_first_hit``, then an antidote on him is wasted, OQ40);
  the next knife is an ordinary knife (shown, savable). A guard blocking the knife keeps both lives (OQ9).
- ``elder_model=immune_unless_last_god`` (R131, 003): while another good-camp god lives, wolf attacks do
  nothing to him; once he is the last good god, the first one costs his extra life.
- Poison, exile and a hunter's shot kill him whatever his lives (R132) and, like any death of his by
  these causes (knife-and-poison included, OQ3), cost every good role its skills (R133), scope per
  ``elder_penalty_scope`` (OQ41): the identities lose them, so a card of the scope taken later (the maid's
  swap, R160) comes without them. The penalty applies inside the batch of his death (R41): a revealed
  idiot dies in the same batch (``skill_loss``, R139), and skills of players dying with him are already
  gone (OQ10). No penalty when he dies to the wolves or as a suicide lover.
- The referee keeps calling every step (R134): the disabled roles are still asked; their answers have
  no effect (seer: result ``none``; witch: potions refused; hunter: no shot; guard: no protection).

The night records ``elder_absorbs`` (the seat whose immunity or extra life takes a wolf attack tonight, set
by this role's shield, :func:`shield`), read by :func:`arena.rules.night.knife_outcome` and by the witch's
information (R30).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

from arena.events import ElderLifeLost, REFEREE, SkillsLost
from arena.types import WOLF_ATTACKS, Camp, Cause, Role
from arena.rules.registry import AttackShield, NightStepSpec, RoleSpec, RoleState, registry

if TYPE_CHECKING:
    from arena.engine import Game
    from arena.rules.night import Night
    from arena.state import GameState

@dataclass(frozen=True)
class LivesLost:
    """The elders whose extra life is gone (R130), the seats whose skills his penalty took (R133), and the cards
    it voided (OQ41: the identities, whoever holds them later)."""

    seats: frozenset[int] = frozenset()
    disabled: frozenset[int] = frozenset()
    voided: frozenset[Role] = frozenset()


def _skills_lost(lost: LivesLost, event: SkillsLost, state: "GameState") -> LivesLost:
    if event.reason != "elder_penalty":
        return lost
    voided = registry().good_skills(state.rules.switches.elder_penalty_scope)
    return replace(lost, disabled=lost.disabled | set(event.seats), voided=lost.voided | voided)


def took_skills(state: "GameState", seat: int) -> bool:
    """R133, OQ41: the elder's penalty took this seat's skills, or voided the card it holds now (the maid who
    takes an exiled hunter's card after it takes a void gun, R160: 所有好人神邊身份技能永久性失效)."""
    lost = state.record(LivesLost)
    return seat in lost.disabled or state.card(seat) in lost.voided


def _life_lost(lost: LivesLost, event: ElderLifeLost, state: "GameState") -> LivesLost:
    return replace(lost, seats=lost.seats | {event.seat})


#: Causes of the elder's death that trigger the penalty (R133): the village's own killings.
PENALTY_CAUSES = frozenset({Cause.EXILE, Cause.POISON, Cause.SHOT, Cause.HUNTING_GUN})


def has_extra_life(game: "Game", seat: int) -> bool:
    return seat not in game.state.record(LivesLost).seats and not game.state.skill_disabled(seat)


def other_good_god_alive(game: "Game", seat: int) -> bool:
    from arena.rules.victory import camp_of

    state = game.state
    gods = set(state.rules.preset.god_roles)
    return any(s != seat and state.card(s) in gods and camp_of(state, s) == Camp.VILLAGE
               for s in state.alive_seats())


def absorbs(game: "Game", seat: int) -> bool:
    """Does a wolf attack on ``seat`` tonight fail to kill because he is an able elder (R28.4)?"""
    state = game.state
    if state.card(seat) != Role.ELDER or state.skill_disabled(seat):
        return False
    if game.sw.elder_model == "immune_unless_last_god" and other_good_god_alive(game, seat):
        return True
    return has_extra_life(game, seat)


def witch_sees(game: "Game", night: "Night", victim: int | None) -> int | None:
    """R30: the extra-life hit is not shown to the witch unless ``witch_informed_elder_first_hit``; an
    immunity (003, another god alive) is never a pending victim."""
    if victim is None or night.elder_absorbs != victim:
        return victim
    immune = game.sw.elder_model == "immune_unless_last_god" and other_good_god_alive(game, victim)
    if immune or not game.sw.witch_informed_elder_first_hit:
        return None
    return victim


def absorbs_take(game: "Game", target: int) -> bool:
    """OQ51: a night-time take on an able elder fails; it costs his extra life unless he is immune."""
    if not absorbs(game, target):
        return False
    if not (game.sw.elder_model == "immune_unless_last_god" and other_good_god_alive(game, target)):
        game.emit(ElderLifeLost(phase=game.state.phase, visibility=REFEREE, seat=target))
    return True


def absorbed_hit_shown(game: "Game", night: "Night", seat: int) -> bool:
    return witch_sees(game, night, seat) is not None


def end_of_night(game: "Game", night: "Night") -> None:
    """The absorbed knife costs the extra life unless the guard alone blocked it (OQ9); an antidote on
    it is wasted (OQ40). Immunity while other gods live costs nothing (R131)."""
    seat = night.elder_absorbs
    if seat is None:
        return
    if game.sw.elder_model == "immune_unless_last_god" and other_good_god_alive(game, seat):
        return
    guarded_only = night.guarded == seat and night.saved != seat
    if not guarded_only:
        game.emit(ElderLifeLost(phase=night.phase, visibility=REFEREE, seat=seat))


def penalty_in_batch(game: "Game", causes: dict[int, list[Cause]]) -> list[int]:
    """R41, R133: called by the batch with every seat dying in it (lover chain included). If an elder dies
    by a penalty cause, disable the scope's skills now and return the revealed idiots who must go too."""
    state = game.state
    triggered = [seat for seat, cs in causes.items()
                 if state.card(seat) == Role.ELDER and PENALTY_CAUSES & set(cs)
                 and not (set(cs) & PENALTY_CAUSES == {Cause.SHOT} and shot_by_wolf_king(game, seat))]
    if not triggered:
        return []
    scope = registry().good_skills(game.sw.elder_penalty_scope)  # each card says if the penalty takes it
    seats = sorted(s for s in state.players if state.card(s) in scope and not state.skill_disabled(s))
    if seats:
        game.emit(SkillsLost(phase=state.phase, visibility=REFEREE, seats=seats, reason="elder_penalty"))
    return lost_idiots(game, seats, causes)


def shot_by_wolf_king(game: "Game", seat: int) -> bool:
    """OQ51: the black wolf king's take is not a good god's skill; the hunter's shot is."""
    for event in reversed(game.log):
        if event.type in ("hunter_shot", "king_took") and event.target == seat:
            return event.type == "king_took"
    return False


def lost_idiots(game: "Game", seats: list[int], causes: dict[int, list[Cause]]) -> list[int]:
    """R139: those who are removed at once when their skill is lost (a revealed idiot, ``skill_loss``)."""
    state = game.state
    specs = registry().specs
    return [s for s in seats if (dies := specs[state.card(s)].dies_without_skill) is not None and dies(state, s)
            and state.is_alive(s) and s not in causes]


def side_class(state: "GameState") -> Literal["villager"] | None:
    """R136 (004 §C): with a thief in the game the elder counts as an ordinary villager, not a key role."""
    sw = state.rules.switches
    return "villager" if sw.win_mode == "villagers_or_key_roles" and Role.THIEF in state.rules.preset.cards else None


def shield(game: "Game", night: "Night", target: int, cause: Cause) -> bool:
    """R28.4: the elder's immunity or extra life takes a wolf attack; the night records whose."""
    if cause in WOLF_ATTACKS and absorbs(game, target):
        night.elder_absorbs = target
        return True
    return False


SPEC = RoleSpec(
    role=Role.ELDER, camp=Camp.VILLAGE,
    # The elder is called in 000 and 004 §C but is asked nothing (R130): his life is a passive rule.
    steps=(NightStepSpec("elder", None, called_for=Role.ELDER, sits={"order_000": (50, "all"), "order_004c": (50, "n1")}),),
    shield=AttackShield(rank=40, void=shield), in_batch=penalty_in_batch, end_of_night=end_of_night,
    side_class=side_class, absorbs_take=absorbs_take, absorbed_hit_shown=absorbed_hit_shown,
    takes_skills=took_skills, record=RoleState(LivesLost(), {ElderLifeLost: _life_lost, SkillsLost: _skills_lost}),
)
