"""Every shipped board, played to the end by random bots over many seeds.

Each game must terminate with a legal winner, and no private event may reach a seat the rules keep it
from: the visibility of every event is checked against an oracle written from the rules (RULES.md R4,
R10, R16, R142, R149, R152-R153), independently of the code that emitted it. The number of seeds per
board is 30 in the default run and ``BOARD_GAMES`` (default 200) more in the slow run (``-m slow``).
"""

from __future__ import annotations

import os
from collections import Counter

import pytest

from agents.bots import RandomBot
from arena.config import get_preset, presets, resolve_rules
from arena.engine import GameSetup
from arena.referee import play_sync
from arena.rules.cupid import link
from arena.rules.setup import center_allowed
from arena.rules.victory import _wolves_meet_goal, camp_of
from arena.types import Camp, Role, Winner, is_wolf_card

#: Seeds per board: a few in the default run, many more in the slow one (other seeds).
QUICK_GAMES = 30
GAMES = int(os.environ.get("BOARD_GAMES", "200"))

#: Every shipped board (tests/test_coverage.py checks that every role is dealt on one of them).
NEW_BOARDS = list(presets())

#: Events anyone may see.
PUBLIC_TYPES = {
    "game_started", "phase_started", "night_step", "deaths_announced", "role_revealed", "sheriff_candidates",
    "sheriff_withdrew", "vote_result", "sheriff_elected", "badge_moved", "speech_order", "speech",
    "self_destructed", "idiot_revealed", "hunter_shot", "pk_platform", "exile_result", "game_ended",
    "scapegoat_ban", "king_took", "maid_swapped", "aux_police_appointed", "voters_punished",
}
#: Events only the referee sees: causes of death, the center, hidden night facts.
REFEREE_TYPES = {"player_died", "center_cards", "elder_life_lost", "skills_lost"}
#: Events private to the one seat named in the event's ``seat`` field.
OWN_SEAT_TYPES = {
    "role_assigned", "thief_cards", "seer_result", "witch_told", "witch_saved", "witch_poisoned", "guard_protected",
    "hunter_status", "little_girl_peeked", "answer_refused", "thought", "traveler_info", "hunting_gun_fired",
    "brother_kill", "wild_wolf_kill", "fire_wolf_used",
}
#: Events of the wolves' step: only wolf-card holders may see them.
WOLF_TYPES = {"wolf_team", "wolf_knife_vote", "wolf_proposal", "wolf_veto", "wolf_team_message", "wolf_knife", "little_girl_caught", "little_girl_kill"}


def _seats(event) -> set[int] | str:
    vis = event.visibility
    return set(vis.seats) if vis.to == "seats" else vis.to


def check_visibility(game) -> list[str]:
    """Every event against the rules' oracle; returns the problems found."""
    state = game.state
    problems = []
    first_card: dict[int, Role] = {}
    for e in game.log:
        if e.type == "role_assigned" and e.seat not in first_card:
            first_card[e.seat] = e.role
    wolf_holders = {s for s, p in state.players.items() if is_wolf_card(p.card)}
    lovers_camp = {s for s in state.players if camp_of(state, s) == Camp.LOVERS}
    if game.sw.cupid_camp == "always_third":
        wolf_holders |= lovers_camp  # 003: the lovers camp takes the knife once the wolves are gone (R148)
    cards: dict[int, Role] = {}  # each seat's card as the log goes (the thief's and the maid's change it)
    for i, e in enumerate(game.log):
        if e.type == "role_assigned":
            cards[e.seat] = e.role
        seers = {s for s, c in cards.items() if c == Role.SEER}
        seen = _seats(e)
        where = f"event {i} {e.type} {e.phase}"
        if e.type in PUBLIC_TYPES:
            if seen != "all":
                problems.append(f"{where}: public event shown to {seen}")
        elif e.type == "ballot_cast":
            if seen not in ("all", "referee"):
                problems.append(f"{where}: ballot shown to {seen}")
        elif e.type in REFEREE_TYPES:
            if seen != "referee":
                problems.append(f"{where}: referee-only event shown to {seen}")
        elif e.type in OWN_SEAT_TYPES:
            if seen != {e.seat}:
                problems.append(f"{where}: private to {e.seat} but shown to {seen}")
            if e.type == "thief_cards" and first_card.get(e.seat) != Role.THIEF:
                problems.append(f"{where}: center cards shown to a non-thief {e.seat}")
            if e.type == "little_girl_peeked" and state.card(e.seat) != Role.LITTLE_GIRL:
                problems.append(f"{where}: peek by a non-little-girl {e.seat}")
        elif e.type in WOLF_TYPES:
            if seen == "all" or seen == "referee" or not seen <= wolf_holders:
                problems.append(f"{where}: wolves' event shown to {seen} (wolf cards: {sorted(wolf_holders)})")
            if e.type == "wolf_team" and not set(e.wolves) <= wolf_holders:
                problems.append(f"{where}: wolf team {e.wolves} not wolf-card holders {sorted(wolf_holders)}")
        elif e.type == "lovers_linked":
            if seen != {e.cupid} or state.card(e.cupid) != Role.CUPID:
                problems.append(f"{where}: Cupid's link shown to {seen}")
        elif e.type == "lovers_recognised":
            linked = link(state)
            camp = set(linked.lovers or ())
            if game.sw.witness:  # 003: the whole lovers camp knows each other (R147)
                camp |= {x for x in (linked.cupid, linked.witness) if x is not None}
            if linked.lovers is None or seen != camp or set(e.lovers) != set(linked.lovers):
                problems.append(f"{where}: lovers' recognition shown to {seen}, lovers {linked.lovers}")
            if e.roles is not None and not game.sw.lovers_know_roles:
                problems.append(f"{where}: lovers shown cards with lovers_know_roles=false")
        elif e.type == "witness_named":
            camp = {link(state).cupid, *(link(state).lovers or ()), *([e.witness] if e.witness is not None else [])}
            if seen != camp:
                problems.append(f"{where}: witness shown to {seen}, camp {camp}")
        elif e.type == "seers_met":
            if seen != seers or set(e.seers) != seers:
                problems.append(f"{where}: seers' meeting shown to {seen}, seers {sorted(seers)}")
        else:
            problems.append(f"{where}: event type not classified by the oracle (add it to a visibility set)")
    return problems


def check_winner(game) -> list[str]:
    state = game.state
    winner = state.winner
    alive = state.alive_seats()
    camps = {s: camp_of(state, s) for s in alive}
    if winner is None:
        return ["the game did not end"]
    if state.win_reason == "sheriff_decides":  # R100, the day's decisive move
        ok = game.sw.two_player_sheriff_win and len(alive) == 2 and state.sheriff in alive
        ok = ok and winner.value == camp_of(state, state.sheriff).value
        return [] if ok else [f"decisive move without its conditions: {camps}, sheriff {state.sheriff}"]
    if winner == Winner.VILLAGE and any(c != Camp.VILLAGE for c in camps.values()):
        return [f"village won with {camps}"]
    if winner == Winner.LOVERS and (not alive or any(c != Camp.LOVERS for c in camps.values())):
        return [f"lovers won with {camps}"]
    if winner == Winner.LOVERS and link(state).lovers is None:
        return ["lovers won without a link"]
    if winner == Winner.WOLVES and not _wolves_meet_goal(state, alive):
        return [f"wolves won without meeting their goal ({state.win_reason}); alive {camps}"]
    if winner == Winner.WOLVES and not any(
            is_wolf_card(state.card(s)) and camp_of(state, s) == Camp.WOLVES for s in state.players):
        return ["wolves won without a wolf card in the wolf camp"]
    return []


def play(preset: str, seed: int):
    n = get_preset(preset).players
    result = play_sync(GameSetup(preset=preset, seed=seed), [RandomBot(s, seed) for s in range(1, n + 1)])
    return result.game


def check_board(preset: str, seeds: range) -> None:
    winners = Counter()
    for seed in seeds:
        game = play(preset, seed)
        problems = check_winner(game) + check_visibility(game)
        assert not problems, f"{preset} seed {seed}: " + "; ".join(problems[:5])
        winners[game.state.winner.value] += 1
        dealt = next((e.cards for e in game.log if e.type == "center_cards"), None)
        if dealt is not None:  # R12: the random deal respects thief_deal_guard (OQ4)
            assert center_allowed(game.rules, list(dealt)), f"{preset} seed {seed}: center {dealt}"
    assert sum(winners.values()) == len(seeds)


@pytest.mark.parametrize("preset", NEW_BOARDS)
def test_board_plays_to_a_legal_end_without_leaks(preset):
    check_board(preset, range(QUICK_GAMES))


@pytest.mark.slow
@pytest.mark.parametrize("preset", NEW_BOARDS)
def test_board_plays_to_a_legal_end_without_leaks_over_many_seeds(preset):
    check_board(preset, range(QUICK_GAMES, QUICK_GAMES + GAMES))


@pytest.mark.parametrize("preset", ["cupid-thief-12", "test-mixed-12", "classic-millers-14"])
def test_boards_are_deterministic(preset):
    for seed in range(5):
        a, b = play(preset, seed), play(preset, seed)
        assert [e.model_dump() for e in a.log] == [e.model_dump() for e in b.log]


def test_every_new_board_is_playable():
    from arena.rules.setup import unsupported_roles

    for preset in NEW_BOARDS:
        assert not unsupported_roles(resolve_rules(preset)), preset


def test_classic_millers_decks_follow_the_recipe():
    """R182 / OQ58: the parametric classic board is one concrete preset per player count."""
    for n in range(8, 19):
        p = presets()[f"classic-millers-{n}"]
        cards = Counter(p.cards)
        wolves = 2 if n <= 11 else 3 if n <= 15 else 4
        assert cards[Role.WEREWOLF] == wolves
        assert cards[Role.SEER] == cards[Role.WITCH] == cards[Role.HUNTER] == 1
        assert cards[Role.CUPID] == (n >= 9)
        assert cards[Role.LITTLE_GIRL] == (n >= 10)
        assert cards[Role.THIEF] == (n >= 11)
        assert p.center_size == (2 if n >= 11 else 0)
        assert cards[Role.VILLAGER] <= 13
        assert p.players == n and p.profile == "classic_001"


def test_classic_millers_is_one_parametric_board():
    """R182: `classic-millers` plus a player count names the concrete board of that count; a missing or
    out-of-range count, or a count that a fixed board does not have, is an error that says so."""
    from arena.config import ConfigError, board_id, parametric_boards

    assert list(parametric_boards()) == ["classic-millers"]
    assert [board_id("classic-millers", n) for n in (8, 18)] == ["classic-millers-8", "classic-millers-18"]
    assert board_id("std-12-guard") == board_id("std-12-guard", 12) == "std-12-guard"
    for args, fragment in [(("classic-millers",), "8-18 players: give the player count"),
                           (("classic-millers", 19), "got 19"), (("std-12-guard", 9), "has 12 players, not 9")]:
        with pytest.raises(ConfigError, match=fragment):
            board_id(*args)
    with pytest.raises(ConfigError, match="give the player count"):
        resolve_rules("classic-millers")


def test_an_out_of_range_classic_millers_id_names_the_range_and_unknown_ids_list_the_parametric_board():
    """R182: `classic-millers-7` or `-19` is not merely "unknown": the error gives the board's 8-18 range;
    an unknown preset's list of known boards names `classic-millers` itself with its range."""
    from arena.config import ConfigError, get_preset

    for bad in ("classic-millers-7", "classic-millers-19"):
        with pytest.raises(ConfigError, match=r"'classic-millers' is for 8-18 players, got (7|19)$"):
            get_preset(bad)
    with pytest.raises(ConfigError, match=r"classic-millers \(8-18 players, --players N\)"):
        get_preset("no-such-board")


def test_a_tournament_board_may_be_classic_millers_with_a_player_count():
    from pydantic import ValidationError

    from arena.tournament import BoardEntry

    assert BoardEntry(preset="classic-millers", players=12).preset == "classic-millers-12"
    with pytest.raises(ValidationError, match="give the player count"):
        BoardEntry(preset="classic-millers")
