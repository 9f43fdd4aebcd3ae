"""Speaking: order (R61-R65), time limits as length guidance (R64), and self-destruct (R66-R71)."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from arena.actions import YES_OR_NO, Speak, SpeechOrderChoice
from arena.events import BadgeMoved, RoleRevealed, SelfDestructed, Speech, SpeechOrder
from arena.flow import DayEnds
from arena.rules import beliefs, deaths
from arena.rules.registry import registry
from arena.types import Cause, Kind, parse_phase

if TYPE_CHECKING:
    from arena.engine import Game
    from arena.flow import Flow

# R64 ``speech_seconds``: (normal, auxiliary police, sheriff, last speaker or None). 003 gives 180 s to the
# sheriff alone, so with no sheriff nobody has it; 004 §C gives 120 s to the last (vote-calling) speaker.
_SECONDS = {"none": None, "tiered_120_150_180": (120, 150, 180, None), "flat_120": (120, 120, 120, 120),
            "flat_90_last_120": (90, 90, 120, 120)}
CHARS_PER_SECOND = 4  # a spoken pace, to turn a time limit into a length a model can respect


def speech_seconds(game: "Game", seat: int, *, last: bool = False) -> int | None:
    tiers = _SECONDS[game.sw.speech_seconds]
    if tiers is None:
        return None
    if seat == game.state.sheriff:
        return tiers[2]
    if last and tiers[3] is not None:
        return tiers[3]
    if seat == game.state.aux_police:
        return tiers[1]  # R64, R158: the auxiliary police speaks up to 150 s (003)
    return tiers[0]


def speak_legal(game: "Game", seat: int, *, last: bool = False) -> Speak:
    return _speak_for(speech_seconds(game, seat, last=last))


@lru_cache(maxsize=16)
def _speak_for(seconds: int | None) -> Speak:
    """One immutable legal set per time limit, shared by every speech that has it."""
    return Speak(max_chars=max(600, (seconds or 500) * CHARS_PER_SECOND), seconds=seconds)


def ring(game: "Game", start: int, direction: str) -> list[int]:
    """Every seat once, starting at ``start``, going ascending (k+1) or descending (R1)."""
    n = game.state.n
    step = 1 if direction == "ascending" else -1
    return [((start - 1 + step * i) % n) + 1 for i in range(n)]


def neighbour(game: "Game", seat: int, direction: str) -> int:
    """The next seat from ``seat`` in ``direction`` (the second seat of its ring)."""
    step = 1 if direction == "ascending" else -1
    return ((seat - 1 + step) % game.state.n) + 1


def last_dead(game: "Game") -> int | None:
    """R63, OQ20: the player who died last, by when he died, not by when he was announced (a wolf who
    self-destructs in the D1 election dies after the N1 victims announced after him); within one
    announcement, the last it names. Each announcement's deaths happened at its latest batch number (a
    dawn's batches K and P are told together; a batch number grows with every batch, R39)."""
    batch_of = {death.seat: death.batch for death in game.state.deaths}
    latest, latest_batch = None, -1
    for event in game.log:
        if event.type == "deaths_announced" and event.seats:
            batch = max(batch_of.get(seat, 0) for seat in event.seats)
            if batch >= latest_batch:
                latest, latest_batch = event.seats[-1], batch
    return latest


def sheriff_order_choice(game: "Game", sheriff: int) -> SpeechOrderChoice:
    """R62: the first speakers the sheriff may name. ``sheriff_chooses`` (004 §C 警长指定以死者或自己左右的某一个人
    开始): a neighbour of himself or of a player who died; ``sheriff_free`` (003 能夠決定放逐投票環節發言順序):
    any living player but himself. (A neighbour who is dead is skipped like every dead seat of the ring.)"""
    if game.sw.speech_order == "sheriff_free":
        return SpeechOrderChoice(starts=tuple(s for s in game.state.alive_seats() if s != sheriff),
                                 starts_from="anyone")
    starts = set()
    for seat in [sheriff] + [d.seat for d in game.state.deaths]:
        starts.add(neighbour(game, seat, "ascending"))
        starts.add(neighbour(game, seat, "descending"))
    starts.discard(sheriff)
    return SpeechOrderChoice(starts=tuple(sorted(starts)))


def discussion_order(game: "Game") -> "Flow":
    """R62-R63: from the sheriff's side (alternating by day) or from the last death; sheriff last."""
    state = game.state
    alive = set(state.alive_seats())
    sheriff = state.sheriff if state.sheriff in alive else None
    day = parse_phase(state.phase)[1]
    if sheriff is not None:
        if game.sw.speech_order in ("sheriff_chooses", "sheriff_free"):
            legal = sheriff_order_choice(game, sheriff)
            # His ascending neighbour; under sheriff_free the first living one, the same order (a legal start).
            default_start = next((s for s in ring(game, sheriff, "ascending")[1:] if s in legal.starts),
                                 neighbour(game, sheriff, "ascending"))
            choice = yield from game.ask(sheriff, Kind.SPEECH_ORDER_PICK, legal,
                                         {"start": default_start, "direction": "ascending"})
            start, direction = choice["start"], choice["direction"]
        else:
            # Switch hands each day (换手): D1 from the ascending side, D2 descending... (OQ1). 004 §B
            # also alternates the D1 side between games; its profile is the one that alternates the
            # campaign start per game, so the same marker flips the side for odd game indexes.
            flip = game.sw.campaign_start == "alternate_per_game" and game.setup.game_index % 2 == 1
            direction = "ascending" if (day % 2 == 1) != flip else "descending"
            start = neighbour(game, sheriff, direction)
        order = [s for s in ring(game, start, direction) if s in alive and s != sheriff] + [sheriff]
        context = "sheriff"
    else:
        dead = last_dead(game)
        start = neighbour(game, dead, "ascending") if dead is not None else 1
        order = [s for s in ring(game, start, "ascending") if s in alive]
        context = "last_death" if dead is not None else "seat_one"
    game.emit(SpeechOrder(phase=state.phase, order=order, context=context))
    return order


def speeches(game: "Game", order: list[int], kind: str, *, election: bool = False) -> "Flow":
    """Each seat speaks in turn; before each speech the wolves may self-destruct (R67)."""
    for i, seat in enumerate(order):
        if not game.state.is_alive(seat) and not election:
            continue
        legal = speak_legal(game, seat, last=i == len(order) - 1)
        yield from offer_self_destruct(game, before_speaker=seat, election=election, speech=kind, legal=legal)
        decision = Kind.LAST_WORDS if kind == "last_words" else Kind.SPEECH
        text = yield from game.ask(seat, decision, legal, "pass", context={"speech": kind})
        game.emit(Speech(phase=game.state.phase, seat=seat, kind=kind, text=text))
        if game.setup.beliefs:  # most tables elicit none: no generator per speech then
            yield from beliefs.after_speech(game, seat, kind)
        for hook in game.state.hooks.after_speech_hooks:  # R138 (004 §C): the revealed idiot may talk with him
            flow = hook(game, seat, kind, election)
            if flow is not None:
                yield from flow


def offer_self_destruct(game: "Game", before_speaker: int, *, election: bool = False, speech: str,
                        legal: Speak) -> "Flow":
    """Offer every eligible wolf the chance to self-destruct now; the lowest accepting seat acts (OQ22).
    The offer says which speech comes next (its kind and the speaker's length limit, ``legal``), so a
    wolf about to speak can weigh both in one answer (an LLM agent asks them in one model call)."""
    eligible = registry().self_destruct_seats(game)
    if not eligible:
        return
    kind = Kind.SELF_DESTRUCT_ELECTION if election else Kind.SELF_DESTRUCT
    context = {"before_speaker": before_speaker, "speech": speech, "max_chars": legal.max_chars}
    requests = [game.request(s, kind, YES_OR_NO, False, context=context) for s in eligible]
    answers = yield from game.ask_all(requests)
    takers = sorted(s for s, yes in answers.items() if yes)
    if takers:
        yield from self_destruct(game, takers[0], election=election)


def self_destruct(game: "Game", seat: int, *, election: bool) -> "Flow":
    """R68: reveal, die (a batch of its own), badge, own last words per switch; the day ends."""
    state = game.state
    game.emit(SelfDestructed(phase=state.phase, seat=seat, during="election" if election else "day"))
    game.emit(RoleRevealed(phase=state.phase, seat=seat, role=state.card(seat), reason="self_destruct"))
    batch = deaths.process_batch(game, [(seat, Cause.SELF_DESTRUCT)], state.phase)
    deaths.announce_deaths(game, [d.seat for d in batch.departed], state.phase)
    deaths.finish_if_won(game, batch.result)
    chain = deaths.Chain(departed=batch.departed)
    hook = registry().spec(state.card(seat)).on_self_destruct
    if hook is not None:  # R162: a white wolf king takes one player with him
        yield from hook(game, seat, chain)
    yield from deaths.death_skills(game, chain)
    yield from deaths.badge_step(game, chain)
    # R68, R76: all speaking stops at once; nobody but the wolf speaks, not even a lover who dies with it.
    deaths.assign_last_words(game, chain, silenced=True)
    for d in chain.departed:  # only the wolf's own last words (pointing the knife)
        if d.speaks:
            text = yield from game.ask(d.seat, Kind.LAST_WORDS, speak_legal(game, d.seat), "pass")
            game.emit(Speech(phase=state.phase, seat=d.seat, kind="last_words", text=text))
            yield from beliefs.after_speech(game, d.seat, "last_words")
    # The day ends; with ``self_destruct_silences_day`` it takes the rest of today's last words too.
    raise DayEnds(seat, silences_day=game.sw.self_destruct_silences_day, in_election=election)


__all__ = ["discussion_order", "speeches", "offer_self_destruct", "speak_legal", "BadgeMoved"]
