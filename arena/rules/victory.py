"""Camps and win conditions (RULES.md §4, R97-R104, R170-R177)."""

from __future__ import annotations

from arena.state import GameState
from arena.rules.registry import registry
from arena.types import Camp, Winner, WinReason, is_wolf_card


def camps(state: GameState) -> dict[int, Camp]:
    """Every seat's camp, recomputed only when a card or a link has changed since the last call.

    Camps are checked after every batch of deaths and before every speech but change only through
    events (the thief, the maid, Cupid), so the result is memoised per applied event (derived data,
    not state).
    """
    return state.derived("camps", state.cards_version, _camps)


def _camps(state: GameState) -> dict[int, Camp]:
    return {seat: _camp_of(state, seat) for seat in state.players}


def camp_of(state: GameState, seat: int) -> Camp:
    """A player's camp from the current cards and links (R5, R144, R170)."""
    return camps(state)[seat]


def _camp_of(state: GameState, seat: int) -> Camp:
    for hook in state.hooks.camp_hooks:  # R144, R170: Cupid's link
        camp = hook(state, seat)
        if camp is not None:
            return camp
    return Camp.WOLVES if is_wolf_card(state.card(seat)) else Camp.VILLAGE


def contenders(state: GameState) -> set[Camp]:
    """Camps with a qualifying living member (R99): taken just before a batch."""
    out: set[Camp] = set()
    camp_by_seat = camps(state)
    for seat, player in state.players.items():
        if not player.alive:
            continue
        camp = camp_by_seat[seat]
        if camp == Camp.WOLVES and not is_wolf_card(player.card):
            continue  # a Cupid placed with the wolves does not keep them in contention
        out.add(camp)
    return out


def side_kill_classes(state: GameState) -> dict[str, list[int]]:
    """Seats counted as god / villager for the side-kill win (R173, §4.4); wolves never count, but for a
    card whose class counts whatever the camp (Cupid under ``cupid_side_class=villager``).

    Made of cards, links and switches only, so memoised like :func:`camps` (read-only for callers).
    """
    return state.derived("side_kill_classes", state.cards_version, _side_kill_classes)


def _side_kill_classes(state: GameState) -> dict[str, list[int]]:
    sw = state.rules.switches
    preset = state.rules.preset
    specs = registry().specs
    classes: dict[str, list[int]] = {"god": [], "villager": []}
    camp_by_seat = camps(state)
    for seat, player in state.players.items():
        card = player.card
        spec = specs[card]
        own = spec.side_class
        side = own(state) if own is not None else None  # Cupid's or the elder's class by the switches
        if side is None or not spec.side_class_whatever_camp:  # R173: Cupid's class is his whatever his camp
            camp = camp_by_seat[seat]
            if camp == Camp.WOLVES:
                continue
            if camp == Camp.LOVERS and not sw.third_party_counts_for_side_kill:
                continue
        if side is not None:
            classes[side].append(seat)
        elif card in preset.god_roles:
            classes["god"].append(seat)
        elif card in preset.villager_roles:
            classes["villager"].append(seat)
    return classes


def _wolves_meet_goal(state: GameState, alive: list[int]) -> WinReason | None:
    mode = state.rules.switches.win_mode
    if mode == "town_kill":
        camp_by_seat = camps(state)
        if all(camp_by_seat[s] == Camp.WOLVES for s in alive):
            return WinReason.TOWN_KILL
        return None
    # side_kill: all gods or all villagers dead (R172). villagers_or_key_roles (004 §C): all ordinary
    # villagers or all key roles dead, the key roles being the god class (OQ55): the same count.
    classes = side_kill_classes(state)
    alive_set = set(alive)
    for name in ("god", "villager"):
        members = classes[name]
        # A class with no member at the start never triggers the win (OQ56).
        if members and not any(s in alive_set for s in members):
            return WinReason.SIDE_KILL_GODS if name == "god" else WinReason.SIDE_KILL_VILLAGERS
    return None


def _village_meets_goal(state: GameState, alive: list[int], alive_camps: list[Camp]) -> WinReason | None:
    """R171 by ``village_win``: nobody of the wolves or lovers camp alive (000: 「殺死所有狼人及壞身份」), or under
    ``all_wolves_dead`` no wolf card alive (004 §C-win: 「好人阵营胜利条件：所有狼人死亡」), so a Cupid playing for
    the wolves or a third-party Cupid whose lovers are dead no longer holds the game open."""
    if not any(c in (Camp.WOLVES, Camp.LOVERS) for c in alive_camps):
        return WinReason.NO_WOLVES_OR_THIRD_PARTY
    if state.rules.switches.village_win == "all_wolves_dead" and not any(is_wolf_card(state.card(s)) for s in alive):
        return WinReason.ALL_WOLVES_DEAD
    return None


def check_winner(state: GameState, before: set[Camp], *,
                 also_dead: frozenset[int] = frozenset()) -> tuple[Winner, WinReason] | None:
    """The result after a batch, by priority lovers > wolves > village (R98), or None.

    ``before`` is :func:`contenders` taken just before the batch: an eliminated camp cannot win (R99).
    ``also_dead`` asks "what if these died too?" without touching the state (R35's knife-first check).
    """
    alive = [s for s in state.alive_seats() if s not in also_dead] if also_dead else state.alive_seats()
    camp_by_seat = camps(state)
    alive_camps = [camp_by_seat[s] for s in alive]
    if Camp.LOVERS in before and alive and all(c == Camp.LOVERS for c in alive_camps):
        return Winner.LOVERS, WinReason.LOVERS_ONLY
    if Camp.WOLVES in before:
        goal = _wolves_meet_goal(state, alive)
        if goal:
            return Winner.WOLVES, goal
    if Camp.VILLAGE in before:
        village = _village_meets_goal(state, alive, alive_camps)
        if village:
            return Winner.VILLAGE, village
    if not alive:
        return Winner.DRAW, WinReason.NOBODY_ALIVE
    return None
