"""Deaths and their consequences (R37-R46, R72-R80, R92-R94).

A batch of simultaneous deaths is processed as R39 says: lover chain -> win check; then, if the
game goes on, death skills (each shot a new batch) -> badge -> last words.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from arena.actions import choose_seat
from arena.events import BadgeMoved, DeathsAnnounced, PlayerDied, REFEREE, RoleRevealed, Speech
from arena.rules import aux_police, beliefs, cycle, speech
from arena.rules.registry import registry
from arena.rules.victory import check_winner, contenders
from arena.types import WOLF_ATTACKS, Cause, Kind, is_wolf_card, parse_phase, primary_cause

def a_wolf_has_died(game: "Game") -> bool:
    """A wolf card's holder is dead (R164 the wild wolf's kill stops, OQ54 the fire wolf's skill wakes)."""
    return any(not p.alive and is_wolf_card(p.card) for p in game.state.players.values())


if TYPE_CHECKING:
    from arena.engine import Game
    from arena.flow import Flow
    from arena.rules.night import Night
    from arena.types import Winner, WinReason

#: Who speaks under ``wolf_pool_kill_exile`` (R73, 004 §C 只有被杀死和被票死有遗言): every player the wolves kill
#: (the knife, also the lovers camp's; the wild wolf's and the little wolf brother's kills, R27; the little girl
#: they catch, R153) and every player voted out (the exiled; the scapegoat, who dies in the vote instead, R156).
POOL_SPEAKING_CAUSES = WOLF_ATTACKS | {Cause.LITTLE_GIRL, Cause.EXILE, Cause.SCAPEGOAT}

# Order of causes in a `by_cause` dawn announcement (R38).
_ANNOUNCE_CAUSE_ORDER = [Cause.WOLF, Cause.WOLF_BROTHER, Cause.WILD_WOLF, Cause.LITTLE_GIRL, Cause.HUNTING_GUN,
                         Cause.POISON, Cause.LOVER, Cause.SKILL_LOSS]


@dataclass
class Departed:
    """A death within one chain of consequences, with what decides its last words."""

    seat: int
    phase: str
    causes: tuple[Cause, ...]
    shooter: int | None = None  # for a shot victim: who shot
    speaks: bool | None = None


@dataclass
class Chain:
    """Everything that died from one trigger (a dawn, an exile, a self-destruct) and its shots."""

    departed: list[Departed] = field(default_factory=list)
    night_count: int = 0  # players announced at dawn before shots, for n1_all_n2_single (R74)

    def seats(self) -> list[int]:
        return [d.seat for d in self.departed]


@dataclass
class Batch:
    """One batch of simultaneous deaths (R39): who died, and the result it gave (R42), which the caller
    announces with :func:`finish_if_won` once it has announced the deaths."""

    departed: list[Departed] = field(default_factory=list)
    result: "tuple[Winner, WinReason] | None" = None


def process_batch(game: "Game", hits: list[tuple[int, Cause]], phase: str) -> Batch:
    """Kill a batch (R39-R42): lover chain, referee records, win check. The result, if any, is the
    batch's: the caller ends the game with :func:`finish_if_won` after announcing the deaths."""
    if not hits:  # a night's empty batch still takes its number (batch numbers count every batch)
        cycle.number_batch(game)
        return Batch()
    state = game.state
    hooks = state.hooks  # the deck's cards only
    survivors = hooks.survivors

    def survives(seat: int, cs: list[Cause]) -> bool:  # R165: the war wolf dies only by exile or self-destruct
        return bool(survivors) and any(survive(game, seat, cs) for survive in survivors)

    causes: dict[int, list[Cause]] = {}
    for seat, cause in hits:
        if state.is_alive(seat):
            causes.setdefault(seat, []).append(cause)
    for seat in [s for s, cs in causes.items() if survives(s, cs)]:
        del causes[seat]
    for seat in list(causes):  # R40: the other lover dies at once, in the same batch
        partner = state.partner(seat)
        if partner is not None and state.is_alive(partner) and partner not in causes:
            if not survives(partner, [Cause.LOVER]):  # OQ52
                causes[partner] = [Cause.LOVER]
    for hook in hooks.batch_hooks:  # R41: the elder's penalty inside the batch; a revealed idiot goes
        for seat in hook(game, causes):
            causes[seat] = [Cause.SKILL_LOSS]
            partner = state.partner(seat)
            if partner is not None and state.is_alive(partner) and partner not in causes:
                if not survives(partner, [Cause.LOVER]):
                    causes[partner] = [Cause.LOVER]
    number = cycle.number_batch(game)
    if not causes:
        return Batch()
    # Taken before anyone in the batch dies (R99); nothing above changes a card or who is alive.
    before = contenders(state)
    for seat in sorted(causes):  # the referee's record of one batch: simultaneous, so in seat order
        cs = tuple(causes[seat])
        game.emit(PlayerDied(phase=phase, visibility=REFEREE, seat=seat, cause=primary_cause(cs), causes=list(cs),
                             batch=number))
    # R79: the batch in the order its deaths happened (``causes`` was filled in that order): the hit players
    # first, then whoever each takes along (a lover after the partner whose death caused his grief). A day
    # batch is announced, takes its skills and spends the last-words pool in this order; a dawn reorders its
    # batches for the announcement (R38, :func:`announcement_order`).
    departed = [Departed(seat=seat, phase=phase, causes=tuple(cs)) for seat, cs in causes.items()]
    return Batch(departed, check_winner(state, before))


def announce_deaths(game: "Game", seats: list[int], death_phase: str) -> None:
    """Tell the table who is out (R37); with ``reveal_role_on_death`` their cards turn face up."""
    game.emit(DeathsAnnounced(phase=game.state.phase, seats=list(seats), death_phase=death_phase))
    if game.sw.reveal_role_on_death:
        for seat in seats:
            game.emit(RoleRevealed(phase=game.state.phase, seat=seat, role=game.state.card(seat), reason="death"))


def finish_if_won(game: "Game", result: "tuple[Winner, WinReason] | None", announce: list[int] | None = None,
                  death_phase: str | None = None) -> None:
    """End the game if a batch produced a result (R42), announcing the deaths first."""
    if result is None:
        return
    if announce:
        announce_deaths(game, announce, death_phase or game.state.phase)
    game.end(*result)


def announcement_order(game: "Game", departed: list[Departed]) -> list[Departed]:
    if game.sw.dawn_announcement == "by_cause":
        return sorted(departed, key=lambda d: (_ANNOUNCE_CAUSE_ORDER.index(primary_cause(d.causes))
                                               if primary_cause(d.causes) in _ANNOUNCE_CAUSE_ORDER else 99, d.seat))
    return sorted(departed, key=lambda d: d.seat)


def knife_alone_wins(game: "Game", night: "Night") -> bool:
    """R35 ``before_witch``: would the knife (after guard and immunities) already give a result?"""
    from arena.rules.night import is_protected

    target = night.knife
    if target is None or is_protected(night, target):
        return False
    if night.knife_void or night.elder_absorbs == target:
        return False  # an immunity or the elder's extra life takes it (R28)
    state = game.state
    dying = {target}
    partner = state.partner(target)
    if partner is not None:
        dying.add(partner)
    return check_winner(state, contenders(state), also_dead=frozenset(dying)) is not None


# ---- death skills -------------------------------------------------------------------------

def death_skills(game: "Game", chain: Chain, start: int = 0) -> "Flow":
    """R43: each dead player with a usable death skill (the hunter's shot, the black wolf king's take)
    decides it, in announcement order."""
    specs = registry().specs
    i = start
    while i < len(chain.departed):
        d = chain.departed[i]
        i += 1
        skill = specs[game.state.card(d.seat)].death_skill
        if skill is None or not skill.usable(game, d):
            continue
        options = tuple(s for s in game.state.alive_seats() if s != d.seat)
        target = yield from game.ask(d.seat, skill.kind, choose_seat(options), None, phase=d.phase)
        if target is None:
            continue
        if not skill.announce(game, d, target):  # R164, OQ51: a take the elder absorbs kills nobody
            continue
        # The target dies at the same time as the shooter (R75): a batch in the shooter's phase.
        shot = process_batch(game, [(target, Cause.SHOT)], d.phase)
        for s in shot.departed:
            s.shooter = d.seat
        announce_deaths(game, [s.seat for s in shot.departed], d.phase)
        finish_if_won(game, shot.result)
        chain.departed.extend(shot.departed)


def badge_step(game: "Game", chain: Chain) -> "Flow":
    """R44, R92-R93: a sheriff who died in the chain passes or tears the badge."""
    sheriff = game.state.sheriff
    if sheriff is None or game.state.is_alive(sheriff) or sheriff not in chain.seats():
        return
    d = next(x for x in chain.departed if x.seat == sheriff)
    living = tuple(game.state.alive_seats())
    must_pass = game.sw.badge_on_death == "must_pass"
    default = living[0] if (must_pass and living) else None  # OQ31: lowest living seat
    target = yield from game.ask(sheriff, Kind.BADGE, choose_seat(living, allow_none=not must_pass), default,
                                 phase=d.phase)
    if target is None:
        game.emit(BadgeMoved(phase=game.state.phase, action="torn", from_seat=sheriff, to_seat=None))
    else:
        game.emit(BadgeMoved(phase=game.state.phase, action="passed", from_seat=sheriff, to_seat=target))
        yield from aux_police.appoint(game)  # R95: the new sheriff appoints on obtaining the badge


# ---- last words ------------------------------------------------------------------------------

def _timing_entitled(game: "Game", d: Departed, chain: Chain) -> bool:
    """Entitlement by timing alone (R73 values other than the pools)."""
    rule = game.sw.last_words
    night, k = parse_phase(d.phase)
    if rule == "none":
        return False
    if rule == "n1_all_n2_single":
        if not night:
            return True
        return k == 1 or (k == 2 and chain.night_count == 1)
    if rule == "n1_and_day":
        return (night and k == 1) or not night
    if rule == "day1_only":
        return k == 1
    return False


def assign_last_words(game: "Game", chain: Chain, *, silenced: bool = False) -> None:
    """Decide who speaks (R73-R78). Pools are consumed in announcement order by every death."""
    sw = game.sw
    pooled = sw.last_words in ("wolf_pool_all", "wolf_pool_kill_exile")
    by_seat = {d.seat: d for d in chain.departed}
    for d in chain.departed:
        if d.speaks is not None:
            continue
        if pooled:
            has_unit = cycle.take_last_words_unit(game)
            speaks = has_unit
            if sw.last_words == "wolf_pool_kill_exile":
                speaks = has_unit and not POOL_SPEAKING_CAUSES.isdisjoint(d.causes)
        elif d.shooter is not None:
            shooter = by_seat.get(d.shooter)
            speaks = bool(shooter and shooter.speaks)
        else:
            speaks = _timing_entitled(game, d, chain)
        if d.shooter is not None and sw.shot_victim_last_words == "none":
            speaks = False
        if Cause.LOVER in d.causes and len(d.causes) == 1 and sw.lover_suicide_last_words == "none":
            speaks = False
        if Cause.SELF_DESTRUCT in d.causes:  # R68: "pointing the knife" only if the switch allows it
            speaks = sw.self_destruct_last_words and (has_unit if pooled else True)
        if silenced and Cause.SELF_DESTRUCT not in d.causes:
            speaks = False
        d.speaks = speaks


def last_words_step(game: "Game", chain: Chain) -> "Flow":
    """R45, R72: entitled players speak in announcement order; a wolf may self-destruct first (R67)."""
    for d in list(chain.departed):
        if not d.speaks:
            continue
        legal = speech.speak_legal(game, d.seat)
        yield from speech.offer_self_destruct(game, before_speaker=d.seat, speech="last_words", legal=legal)
        text = yield from game.ask(d.seat, Kind.LAST_WORDS, legal, "pass")
        game.emit(Speech(phase=game.state.phase, seat=d.seat, kind="last_words", text=text))
        yield from beliefs.after_speech(game, d.seat, "last_words")


def consequences(game: "Game", chain: Chain, *, silenced: bool = False) -> "Flow":
    """Death skills -> badge -> last words for a chain (R43-R45, OQ11-OQ12)."""
    yield from death_skills(game, chain)
    yield from badge_step(game, chain)
    assign_last_words(game, chain, silenced=silenced or game.flow.day_silenced)
    yield from last_words_step(game, chain)


def initial_pool(game: "Game") -> int:
    """Last-words pool size: wolf cards held by players after the thief's pick (OQ24)."""
    return sum(1 for p in game.state.players.values() if is_wolf_card(p.card))
