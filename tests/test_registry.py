"""The role registry (arena/rules/registry.py): every list about roles is derived from the role modules'
specs, and the derivation gives what the rulebook says (R18-R23 night orders, R5 camps)."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING
import typing

import pytest

from arena.config import Switches
from arena.rules.registry import NightStepSpec, RoleSpec, build, registry
from arena.state import GameState
from arena.types import Camp, Role, wolf_cards

if TYPE_CHECKING:
    from arena.engine import Game


def test_every_card_named_in_the_vocabulary_has_a_role_module() -> None:
    named = {value for value in vars(Role).values() if isinstance(value, Role)}
    assert len(named) == 21 and named <= registry().roles


def test_wolf_cards_are_the_specs_of_the_wolves_camp() -> None:
    assert wolf_cards() == {r for r, s in registry().specs.items() if s.camp == Camp.WOLVES}
    assert wolf_cards() == {Role.WEREWOLF, Role.WHITE_WOLF_KING, Role.BLACK_WOLF_KING, Role.WAR_WOLF,
                            Role.BIG_WOLF_BROTHER, Role.LITTLE_WOLF_BROTHER, Role.WILD_WOLF, Role.FIRE_WOLF}


def test_night_orders_are_the_rulebooks() -> None:
    # R18 (000, 001, 004 §A, 004 §C) and R19 (003), with R20's first-night-only calls.
    orders = registry().night_orders()
    assert orders["order_000"] == [
        ("thief", "n1"), ("cupid", "n1"), ("lovers", "n1"), ("guard", "all"), ("elder", "all"), ("wolves", "all"),
        ("witch", "all"), ("seer", "all"), ("hunter", "all"), ("idiot", "all")]
    assert orders["order_001"] == [
        ("thief", "n1"), ("cupid", "n1"), ("lovers", "n1"), ("seer", "all"), ("little_girl", "all"),
        ("wolves", "all"), ("witch", "all")]
    assert orders["order_004a"] == [
        ("thief", "n1"), ("cupid", "n1"), ("lovers", "n1"), ("guard", "all"), ("wolves", "all"), ("witch", "all"),
        ("seer", "all"), ("hunter", "all")]
    assert orders["order_004c"] == [
        ("thief", "n1"), ("cupid", "n1"), ("lovers", "n1"), ("hunter", "n1"), ("elder", "n1"), ("guard", "all"),
        ("wolves", "all"), ("seer", "all"), ("witch", "all")]
    assert orders["order_003"] == [
        ("thief", "n1"), ("cupid", "n1"), ("lovers", "all"), ("wolves_recognise", "n1"), ("guard", "all"),
        ("little_wolf_brother", "all"), ("wolves", "all"), ("wild_wolf", "all"), ("fire_wolf", "all"),
        ("hunting_gun", "all"), ("witch", "all"), ("seer", "all")]


def test_the_night_order_switch_offers_exactly_the_registrys_orders() -> None:
    allowed = set(typing.get_args(Switches.model_fields["night_order"].annotation))
    assert allowed == set(registry().night_orders())


def test_every_step_is_called_for_a_card_of_its_role_or_always() -> None:
    # R21: a step is configured by the card of the role that declares it (the wolves' steps always are).
    for role, spec in registry().specs.items():
        for step in spec.steps:
            assert step.called_for in (role, None), (role, step.name)
            assert step.called_for is not None or spec.camp == Camp.WOLVES, step.name


def test_roles_add_no_fields_to_the_game_state() -> None:
    """Roles do not add flags to the game state: its fields are the table's own (seats, phase, badge,
    deaths, result); a role's own state is its record in ``records``."""
    table = {"rules", "players", "version", "cards_version", "center", "phase", "sheriff", "badge", "aux_police",
             "deaths", "winner", "win_reason", "records", "_derived"}
    fields = {f.name for f in dataclasses.fields(GameState)}
    assert fields == table, f"state fields that are not the table's: {sorted(fields - table)}"


def test_role_records_are_one_per_role_and_folded_only_by_the_reducer() -> None:
    """A role's own state is a frozen record declared by its spec (one record class per role); the events
    that change it are folded by the reducer, so replaying the log rebuilds every record."""
    from arena.state import Player, apply_event
    from arena.rules.witch import Potions

    kinds = [type(s.record.initial) for s in registry().specs.values() if s.record is not None]
    assert len(set(kinds)) == len(kinds) >= 6
    for kind in kinds:
        assert dataclasses.is_dataclass(kind) and kind.__dataclass_params__.frozen, kind  # type: ignore[attr-defined]
    deal = ["hunter", "witch", "seer", "werewolf", "werewolf", "werewolf", "villager", "villager", "hermit"]
    game = _play_knifing("test-hermit-9", deal, victim=8, nights=1, save=True)
    assert game.state.record(Potions) == Potions(antidote=False, poison=True)  # R113: the antidote is spent
    replayed = GameState(rules=game.state.rules, players={s: Player(s, Role(c)) for s, c in enumerate(deal, 1)})
    for event in game.log:
        apply_event(replayed, event)
    assert replayed.records == game.state.records != registry().initial_records()


def test_clashing_declarations_are_refused_with_the_names() -> None:
    def step(name: str, slot: int) -> NightStepSpec:
        return NightStepSpec(name, None, sits={"order_000": (slot, "all")})

    a = RoleSpec(role=Role.SEER, camp=Camp.VILLAGE, steps=(step("seer", 80),))
    b = RoleSpec(role=Role.GUARD, camp=Camp.VILLAGE, steps=(step("guard", 80),))
    with pytest.raises(RuntimeError, match="'seer' and 'guard' share slot 80"):
        build({Role.SEER: a, Role.GUARD: b})
    c = RoleSpec(role=Role.GUARD, camp=Camp.VILLAGE, steps=(step("seer", 40),))
    with pytest.raises(RuntimeError, match="night step 'seer' is declared twice"):
        build({Role.SEER: a, Role.GUARD: c})


def _play_knifing(preset: str, deal: list[str], victim: int, nights: int, save: bool = False) -> "Game":
    from arena.engine import Game, GameSetup

    game = Game(GameSetup(preset=preset, seed=0, deal=deal))
    while not game.over and game.state.phase != f"D{nights}":
        answers = {}
        for r in game.pending():
            answers[r.id] = victim if r.kind == "wolf_kill" else (save if r.kind == "witch_save" else r.default)
        game.submit(answers)
    return game


def test_the_test_only_hermit_survives_the_first_nights_knife_only() -> None:
    """The role added to show what adding a role takes (arena/rules/hermit.py, test-hermit-9): a wolf
    attack on N1 is void, the N2 one kills him."""
    deal = ["hunter", "witch", "seer", "werewolf", "werewolf", "werewolf", "villager", "villager", "hermit"]
    first = _play_knifing("test-hermit-9", deal, victim=9, nights=1)
    assert first.state.is_alive(9) and not first.state.deaths
    second = _play_knifing("test-hermit-9", deal, victim=9, nights=2)
    assert not second.state.is_alive(9) and second.state.deaths[0].phase == "N2"


@pytest.mark.parametrize("preset", ["cupid-tucheng-9", "std-12-idiot", "std-12-elder", "test-mixed-12",
                                    "lyingman-s3-cupid-thief-12", "advanced-seed003"])
def test_every_role_record_is_rebuilt_from_the_log(preset: str) -> None:
    """#18: the link, the idiot's reveals, the vote restrictions and the lost skills are role records, not
    GameState fields: replaying a whole bot game's log through the reducer rebuilds every record."""
    from agents.bots import RandomBot
    from arena.config import get_preset
    from arena.engine import GameSetup
    from arena.referee import play_sync
    from arena.state import Player, apply_event

    fields = {f.name for f in dataclasses.fields(GameState)} | {f.name for f in dataclasses.fields(Player)}
    assert not fields & {"lovers", "cupid", "witness", "disabled", "vote_restriction", "idiot_revealed"}
    n = get_preset(preset).players
    changed = False
    for seed in range(3):
        game = play_sync(GameSetup(preset=preset, seed=seed), [RandomBot(s, seed) for s in range(1, n + 1)]).game
        first = next(e for e in game.log if e.type == "role_assigned")
        deal = {e.seat: e.role for e in game.log if e.type == "role_assigned" and e.phase == first.phase}
        replayed = GameState(rules=game.state.rules, players={s: Player(s, deal.get(s, game.state.card(s)))
                                                               for s in game.state.players})
        for event in game.log:
            apply_event(replayed, event)
        assert replayed.records == game.state.records, (preset, seed)
        changed |= replayed.records != registry().initial_records()
    assert changed, preset


def test_record_only_events_leave_the_reducer_early() -> None:
    """The reducer returns after folding a _RECORD_ONLY event (speed): that set is exactly the match's
    record case, and every one of them has a fold."""
    import ast
    import inspect

    from arena import state

    tree = ast.parse(inspect.getsource(state.apply_event))
    record_case = next(c for c in ast.walk(tree) if isinstance(c, ast.match_case)
                       and "GuardProtected" in ast.unparse(c.pattern))
    named = {n.attr for n in ast.walk(record_case.pattern) if isinstance(n, ast.Attribute)}
    assert named == {k.__name__ for k in state._RECORD_ONLY}
    folded = set(registry().record_folds)
    assert state._RECORD_ONLY <= folded
