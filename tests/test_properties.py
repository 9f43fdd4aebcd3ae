"""Properties that must hold for every game (hypothesis): termination with a legal winner, no leak of
hidden information into any seat's observation, determinism, and replay."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from agents.bots import RandomBot
from arena.actions import Answer, DecisionRequest
from arena.engine import GameSetup
from arena.observation import Observation
from arena.referee import play_sync
from arena.replay import replay
from arena.transcript import TranscriptWriter, read_transcript
from arena.rules.victory import camp_of
from arena.types import Camp, Winner, is_wolf_card
from tests.helpers import CORE_SWITCHES, playable_presets, random_game, switch_values

PRESETS = playable_presets()
LEGAL_WINNERS = {w.value for w in Winner}


@st.composite
def game_configs(draw: Any) -> tuple[str, int, dict[str, Any]]:
    preset = draw(st.sampled_from(PRESETS))
    seed = draw(st.integers(min_value=0, max_value=2**31))
    names = draw(st.lists(st.sampled_from(CORE_SWITCHES), max_size=6, unique=True))
    rules = {name: draw(st.sampled_from(switch_values(name))) for name in names}
    return preset, seed, rules


class LeakCheckingBot(RandomBot):
    """A random bot that checks every observation it is handed against the true deal."""

    def __init__(self, seat: int, seed: int, truth: dict[str, Any]):
        super().__init__(seat, seed)
        self.truth = truth
        self.seen: list[Any] = []

    def decide_sync(self, observation: Observation, request: DecisionRequest) -> Answer:
        # The driver turns an agent's exception into a recorded default (the game never dies), so
        # violations are collected and asserted after the game instead of raised here.
        try:
            self._check(observation, request)
        except AssertionError as exc:
            self.truth.setdefault("violations", []).append(str(exc))
        return super().decide_sync(observation, request)

    def _check(self, observation: Observation, request: DecisionRequest) -> None:
        assert observation.seat == self.seat and request.seat == self.seat
        game = self.truth["game"]
        me = self.seat
        my_card = game.state.card(me)
        # Each event is checked when it is first shown (the history before was checked earlier).
        assert list(observation.events[: observation.new_from]) == self.seen, "history changed"
        self.seen = list(observation.events)
        for e in observation.new_events:
            assert e.visibility.allows(me), f"seat {me} shown {e.type} not visible to it"
            t = e.type
            if t in ("player_died", "center_cards"):
                raise AssertionError(f"seat {me} shown referee-only {t}")
            if t in ("role_assigned", "thought", "answer_refused"):
                assert e.seat == me, f"seat {me} shown seat {e.seat}'s {t}"
            if t in ("wolf_team", "wolf_knife_vote", "wolf_proposal", "wolf_veto", "wolf_team_message", "wolf_knife"):
                # Wolves, or in 003 the lovers camp once it holds the knife (R148).
                assert (is_wolf_card(my_card) or me in self.truth["wolves_at_start"]
                        or camp_of(game.state, me) == Camp.LOVERS), f"non-wolf {me} shown {t}"
            if t in ("seer_result", "witch_told", "witch_saved", "witch_poisoned", "guard_protected",
                     "hunter_status"):
                assert e.seat == me, f"seat {me} shown seat {e.seat}'s private {t}"
            if t == "ballot_cast" and game.sw.ballot_visibility == "secret" and e.ballot in ("exile", "pk"):
                raise AssertionError("secret ballots shown to a seat")


def check_game_terminates_with_a_legal_winner_and_leaks_nothing(config: tuple[str, int, dict[str, Any]]) -> None:
    preset, seed, rules = config
    setup = GameSetup(preset=preset, seed=seed, rules=rules)
    n = setup.resolve().players
    truth: dict[str, Any] = {}
    agents = [LeakCheckingBot(s, seed, truth) for s in range(1, n + 1)]
    from arena.engine import Game
    from arena.referee import Table, run_table_sync

    game = Game(setup)
    truth["game"] = game
    truth["wolves_at_start"] = {s for s in game.state.players if is_wolf_card(game.state.card(s))}
    run_table_sync(Table(game, agents))
    assert not truth.get("violations"), truth["violations"][:3]
    assert not any(r.error and "agent error" in r.error for r in game.decisions)
    assert game.over
    assert game.state.winner.value in LEGAL_WINNERS
    assert game.log[-1].type == "game_ended"
    # every decision applied a legal value
    for record in game.decisions:
        assert record.request.check(record.value) == record.value or record.value == record.request.default


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_configs())
def test_games_terminate_with_a_legal_winner_and_leak_nothing(config: tuple[str, int, dict[str, Any]]) -> None:
    check_game_terminates_with_a_legal_winner_and_leaks_nothing(config)


@pytest.mark.slow
@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_configs())
def test_thousands_of_games_terminate_with_a_legal_winner_and_leak_nothing(config: tuple[str, int, dict[str, Any]]) -> None:
    check_game_terminates_with_a_legal_winner_and_leaks_nothing(config)


class LeakCheckingModel:
    """A stand-in model seat (agents/providers/mock.py) that elicits beliefs in ``mode``: every
    observation it is handed is checked like LeakCheckingBot's, and every belief update's prompt
    must start from this seat's own last report (no other seat's)."""

    spec = "mock:stand-in"
    deterministic = False

    def __init__(self, seat: int, seed: int, truth: dict[str, Any], mode: str):
        from agents.registry import make_agent

        self.seat = seat
        self.belief_mode = mode
        self.inner = make_agent(self.spec, seat=seat, seed=seed, beliefs=mode)
        self.checker = LeakCheckingBot(seat, seed, truth)
        self.truth = truth
        self.last: dict[int, float] | None = None

    async def decide(self, observation: Observation, request: DecisionRequest) -> Answer:
        try:
            self.checker._check(observation, request)
        except AssertionError as exc:
            self.truth.setdefault("violations", []).append(str(exc))
        answer = await self.inner.decide(observation, request)
        if request.kind == "belief" and answer.extras is not None and answer.extras.prompt:
            text = "\n".join(m["content"] for m in answer.extras.prompt)
            expected = ", ".join(f"#{k} {v:.2f}" for k, v in sorted(self.last.items())) if self.last else None
            if expected is None and "Your last beliefs" in text:
                self.truth.setdefault("violations", []).append(f"seat {self.seat} shown beliefs it never gave")
            if expected is not None and f"): {expected}." not in text:
                self.truth.setdefault("violations", []).append(f"seat {self.seat}'s update does not start from its own last report")
        if answer.beliefs:
            self.last = answer.beliefs
        return answer


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_configs(), st.lists(st.integers(min_value=1, max_value=8), min_size=1, max_size=3, unique=True),
       st.sampled_from(["every_speech", "day_end"]))
def test_model_seats_eliciting_beliefs_leak_nothing(config: tuple[str, int, dict[str, Any]], model_seats: list[int],
                                                    mode: str) -> None:
    """The leak property with stand-in model seats in belief mode every_speech (or day_end): no seat is
    shown another's beliefs, and the game still ends with a legal winner."""
    import asyncio

    from arena.engine import Game
    from arena.referee import Table, run_table, with_belief_modes

    preset, seed, rules = config
    setup = GameSetup(preset=preset, seed=seed, rules=rules)
    n = setup.resolve().players
    truth: dict[str, Any] = {}
    agents: list[Any] = [LeakCheckingModel(s, seed, truth, mode) if s in model_seats else LeakCheckingBot(s, seed, truth)
                         for s in range(1, n + 1)]
    game = Game(with_belief_modes(setup, agents))
    truth["game"] = game
    truth["wolves_at_start"] = {s for s in game.state.players if is_wolf_card(game.state.card(s))}
    asyncio.run(run_table(Table(game, agents)))
    assert not truth.get("violations"), truth["violations"][:3]
    assert game.over and game.state.winner is not None and game.state.winner.value in LEGAL_WINNERS
    asked = {r.request.seat for r in game.decisions if r.request.kind == "belief"}
    assert asked <= set(model_seats)
    alive, heard = set(range(1, n + 1)), set()
    for e in game.log:
        if e.type == "player_died":
            alive.discard(e.seat)
        elif e.type == "speech":
            heard |= {s for s in model_seats if s in alive and s != e.seat}
    if mode == "every_speech":
        assert asked == heard, f"asked {asked}, heard a speech {heard}"
    for e in game.log:
        if e.type == "thought":
            assert e.visibility.seats == (e.seat,) or list(e.visibility.seats) == [e.seat]


@settings(max_examples=60, deadline=None)
@given(game_configs())
def test_same_seed_same_bytes(config: tuple[str, int, dict[str, Any]]) -> None:
    preset, seed, rules = config
    _, first = random_game(preset, seed, rules, transcript=True)
    _, second = random_game(preset, seed, rules, transcript=True)
    assert first == second
    assert first.count("\n") > 10


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(config=game_configs())
def test_replay_reproduces_the_game(tmp_path_factory: Any, config: tuple[str, int, dict[str, Any]]) -> None:
    preset, seed, rules = config
    path = tmp_path_factory.mktemp("replay") / "game.jsonl"
    setup = GameSetup(preset=preset, seed=seed, rules=rules)
    n = setup.resolve().players
    with TranscriptWriter(path) as writer:
        result = play_sync(setup, [RandomBot(s, seed) for s in range(1, n + 1)], writer=writer)
    report = replay(path)
    assert report.ok, report.first_difference
    assert report.winner == result.winner == read_transcript(path).result.winner


@settings(max_examples=200, deadline=None)
@given(game_configs())
def test_memoised_views_of_the_state_always_equal_a_fresh_count(config: tuple[str, int, dict[str, Any]]) -> None:
    """The living seats, a card's holders and the self-destruct candidates are memoised on counters the
    reducer keeps (deaths, card changes); at every question they equal a count from the players."""
    import random

    from agents.bots import random_choice
    from arena.engine import Game
    from arena.rules.wolves import self_destruct_cards, self_destruct_seats

    preset, seed, rules = config
    game = Game(GameSetup(preset=preset, seed=seed, rules=rules))
    rng = random.Random(seed)
    while not game.over:
        state = game.state
        players = state.players.items()
        assert state.alive_seats() == [s for s, p in players if p.alive]
        for card in {p.card for _, p in players}:
            assert state.holders(card) == [s for s, p in players if p.card == card and p.alive]
            assert state.holders(card, alive_only=False) == [s for s, p in players if p.card == card]
        expected = [s for s, p in players if p.alive and p.card in self_destruct_cards()] if game.sw.self_destruct else []
        assert self_destruct_seats(game) == expected
        game.submit({r.id: random_choice(r, rng) for r in game.pending()})
