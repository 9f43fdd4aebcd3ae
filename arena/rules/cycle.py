"""The phase cycle (R15): N1, D1, N2, D2 ... until a result, with the day's steps in order.

This module is the only writer of the flow's bookkeeping (:class:`arena.flow.FlowState`, ``game.flow``;
``tests/test_architecture.py`` holds to it). The other rules ask it (:func:`number_batch`,
:func:`take_last_words_unit`, :func:`may_ask_appointment`), return values to it (a batch's result, an
election held over) or raise :class:`~arena.flow.DayEnds`, which says what ended the day.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.events import ExileResult, PhaseStarted
from arena.flow import DayEnds
from arena.rules import aux_police, beliefs, deaths, night as night_rules, sheriff, speech, vote
from arena.rules.registry import registry
from arena.types import Cause, Winner, WinReason, phase_name

if TYPE_CHECKING:
    from arena.engine import Game
    from arena.flow import Flow

MAX_DAYS = 60  # far beyond any real game; the draw rules end stalled games long before (R103)


def play(game: "Game") -> "Flow":
    game.flow.election_due = game.sw.sheriff and game.sw.sheriff_election_time == "before_d1_announcement"
    for k in range(1, MAX_DAYS + 1):
        if k > 1:
            game.emit(PhaseStarted(phase=phase_name(True, k)))
        night = yield from night_rules.run_night(game, k)
        if k == 1:  # the pool counts the wolf cards held once the thief has picked (OQ24); none is spent at night
            game.flow.last_words_pool = deaths.initial_pool(game)
        game.emit(PhaseStarted(phase=phase_name(False, k)))
        yield from dawn(game, night)
        check_draw(game, had_death=bool(game.state.deaths_in(night.phase)))
        yield from day(game, k)
        check_draw(game, had_death=bool(game.state.deaths_in(phase_name(False, k))))
    game.end(Winner.DRAW, WinReason.DAY_LIMIT)


def check_draw(game: "Game", had_death: bool) -> None:
    """R102 (a night and the adjacent day without anyone going out) and the engine's safety R103."""
    game.flow.phases_without_death = 0 if had_death else game.flow.phases_without_death + 1
    if game.sw.draw_rule == "no_elimination_night_and_day" and game.flow.phases_without_death >= 2:
        game.end(Winner.DRAW, WinReason.NO_ELIMINATION_NIGHT_AND_DAY)
    if game.flow.phases_without_death >= 6:
        game.end(Winner.DRAW, WinReason.SIX_PHASES_WITHOUT_DEATH)


def dawn(game: "Game", night: "night_rules.Night") -> "Flow":
    """R46: batch K -> check -> batch P -> check -> (election) -> announcement -> skills -> badge -> last words."""
    batch_k, batch_p = night_rules.night_batches(game, night)
    departed = list(night.departed_early)  # a caught little girl died at once (R153); announced now
    batch = deaths.process_batch(game, batch_k, night.phase)
    departed += batch.departed
    # A dawn that ends the game is announced in the order of every dawn (R38), batch K alone included.
    deaths.finish_if_won(game, batch.result, announce=[d.seat for d in deaths.announcement_order(game, departed)],
                         death_phase=night.phase)
    batch = deaths.process_batch(game, batch_p, night.phase)
    departed += batch.departed
    ordered = deaths.announcement_order(game, departed)
    deaths.finish_if_won(game, batch.result, announce=[d.seat for d in ordered], death_phase=night.phase)
    game.flow.day_silenced = False
    ended_early = False
    if game.flow.election_due and game.state.badge == "unused":
        ended_early = yield from run_election(game, night.election_participants)
    deaths.announce_deaths(game, [d.seat for d in ordered], night.phase)
    chain = deaths.Chain(departed=list(ordered), night_count=len(ordered))
    try:
        yield from deaths.consequences(game, chain)
        yield from aux_police.appoint(game)  # R15 step 5, R95 (003): the sheriff appoints at daybreak
    except DayEnds as ended:
        day_ends(game, ended)
        ended_early = True
    game.flow.day_ended_early = ended_early


def run_election(game: "Game", participants: list[int]) -> "Flow":
    """Hold the election; True if a self-destruct ended the day (R69)."""
    game.flow.election_due = False
    try:
        game.flow.election_due = yield from sheriff.election(game, participants)  # held over (R58)?
    except DayEnds as ended:
        day_ends(game, ended)
        game.flow.election_due = sheriff.self_destruct_in_election(game, game.flow.election_self_destructs)
        return True
    return False


def day(game: "Game", k: int) -> "Flow":
    if game.flow.day_ended_early:
        return
    try:
        yield from day_programme(game, k)
    except DayEnds as ended:
        day_ends(game, ended)
        yield from beliefs.after_day_cut_short(game)


def day_ends(game: "Game", ended: DayEnds) -> None:
    """Record what ended the day: a self-destruct that takes today's last words (R68), one during the
    election (counted for R59 ``postpone_third_loses``)."""
    if ended.silences_day:
        game.flow.day_silenced = True
    if ended.in_election:
        game.flow.election_self_destructs += 1


def day_programme(game: "Game", k: int) -> "Flow":
    state = game.state
    sw = game.sw
    # R100: the decisive move by day, two players left and one holds the badge.
    alive = state.alive_seats()
    if sw.two_player_sheriff_win and len(alive) == 2 and state.sheriff in alive:
        from arena.rules.victory import camp_of

        game.end(Winner(camp_of(state, state.sheriff).value), WinReason.SHERIFF_DECIDES)
    rounds = sw.day1_speech_rounds if k == 1 else 1
    for _ in range(rounds):
        order = yield from speech.discussion_order(game)
        yield from speech.speeches(game, order, "discussion")
    yield from beliefs.after_discussion(game)
    if k == 1 and sw.sheriff and sw.sheriff_election_time == "after_d1_discussion" and state.badge == "unused":
        yield from sheriff.election_after_discussion(game)
    exiled, why = yield from vote.exile_vote(game)
    if exiled is None:
        game.emit(ExileResult(phase=state.phase, seat=None, reason=why))  # a tie, a second tie, no ballot...
        return
    yield from exile(game, exiled)


def exile(game: "Game", seat: int) -> "Flow":
    """R90: the exiled player dies, with skills, badge and last words, unless his card spares him (R137:
    the idiot's reveal); then every role that acts after an exile does (R160: the maid)."""
    state = game.state
    roles = registry()
    reprieve = roles.specs[state.card(seat)].exile_reprieve
    if reprieve is not None:
        spared = yield from reprieve(game, seat)
        if spared:
            return
    game.emit(ExileResult(phase=state.phase, seat=seat, reason="exiled"))
    batch = deaths.process_batch(game, [(seat, Cause.EXILE)], state.phase)  # the exiled first, then a lover (R79)
    deaths.announce_deaths(game, [d.seat for d in batch.departed], state.phase)
    deaths.finish_if_won(game, batch.result)
    yield from deaths.consequences(game, deaths.Chain(departed=batch.departed))
    for hook in roles.after_exile_hooks:  # R160 (003): after the exiled player's last words
        yield from hook(game, seat)


# ---- what the other rules ask of the flow ---------------------------------------------------

def number_batch(game: "Game") -> int:
    """The next batch number: every batch of deaths takes one, empty night batches too (R39)."""
    game.flow.batch_counter += 1
    return game.flow.batch_counter


def take_last_words_unit(game: "Game") -> bool:
    """Spend one unit of the ``wolf_pool_*`` last-words pool (R73, OQ24); False once it is spent."""
    if game.flow.last_words_pool <= 0:
        return False
    game.flow.last_words_pool -= 1
    return True


def may_ask_appointment(game: "Game", sheriff: int) -> bool:
    """Whether the sheriff is yet to be asked to appoint an auxiliary police this phase (R95): he is
    asked once, so a badge that came to him at this very dawn is not followed by a second question."""
    asked = (game.state.phase, sheriff)
    if game.flow.aux_police_asked == asked:
        return False
    game.flow.aux_police_asked = asked
    return True
