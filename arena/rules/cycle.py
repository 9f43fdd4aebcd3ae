"""The phase cycle (R15): N1, D1, N2, D2 ... until a result, with the day's steps in order."""

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
    game.flow.last_words_pool = deaths.initial_pool(game)
    game.flow.election_due = game.sw.sheriff and game.sw.sheriff_election_time == "before_d1_announcement"
    for k in range(1, MAX_DAYS + 1):
        if k > 1:
            game.emit(PhaseStarted(phase=phase_name(True, k)))
        night = yield from night_rules.run_night(game, k)
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
    departed += deaths.process_batch(game, batch_k, night.phase)
    # A dawn that ends the game is announced in the order of every dawn (R38), batch K alone included.
    deaths.finish_if_won(game, announce=[d.seat for d in deaths.announcement_order(game, departed)],
                         death_phase=night.phase)
    departed += deaths.process_batch(game, batch_p, night.phase)
    ordered = deaths.announcement_order(game, departed)
    deaths.finish_if_won(game, announce=[d.seat for d in ordered], death_phase=night.phase)
    game.flow.day_silenced = False
    ended_early = False
    if game.flow.election_due and game.state.badge == "unused":
        ended_early = yield from run_election(game, night.election_participants)
    deaths.announce_deaths(game, [d.seat for d in ordered], night.phase)
    chain = deaths.Chain(departed=list(ordered), night_count=len(ordered))
    try:
        yield from deaths.consequences(game, chain)
        yield from aux_police.appoint(game)  # R15 step 5, R95 (003): the sheriff appoints at daybreak
    except DayEnds:
        ended_early = True
    game.flow.day_ended_early = ended_early


def run_election(game: "Game", participants: list[int]) -> "Flow":
    """Hold the election; True if a self-destruct ended the day (R69)."""
    game.flow.election_due = False
    try:
        yield from sheriff.election(game, participants)
    except DayEnds:
        sheriff.self_destruct_in_election(game)
        return True
    return False


def day(game: "Game", k: int) -> "Flow":
    if game.flow.day_ended_early:
        return
    try:
        yield from day_programme(game, k)
    except DayEnds:
        yield from beliefs.after_day_cut_short(game)
        return


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
    exiled = yield from vote.exile_vote(game)
    if exiled is None:
        game.emit(ExileResult(phase=state.phase, seat=None, reason="no_exile"))
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
    departed = deaths.process_batch(game, [(seat, Cause.EXILE)], state.phase)
    departed.sort(key=lambda d: (d.seat != seat, d.seat))  # the exiled first, then a lover (OQ12)
    deaths.announce_deaths(game, [d.seat for d in departed], state.phase)
    deaths.finish_if_won(game)
    yield from deaths.consequences(game, deaths.Chain(departed=departed))
    for hook in roles.after_exile_hooks:  # R160 (003): after the exiled player's last words
        yield from hook(game, seat)
