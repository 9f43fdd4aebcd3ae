"""The wolves (R24-R26, R66-R71, R106): the joint knife by consensus, and self-destruct."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.actions import Speak, choose_seat
from arena.events import WolfKnife, WolfKnifeVote, WolfProposal, WolfTeamMessage, WolfVeto, only
from arena.rules import first_kill
from arena.types import Camp, Kind, Role
from arena.rules.registry import NightStepSpec, RoleSpec, registry

if TYPE_CHECKING:
    from arena.engine import Game
    from arena.flow import Flow
    from arena.rules.night import Night
    from arena.state import GameState


def knife_holders(game: "Game") -> list[int]:
    """The seats that hold the wolves' knife (:meth:`arena.rules.registry.Registry.knife_holders`)."""
    return game.state.hooks.knife_holders(game)


def consensus(choices: dict[int, int | None]) -> int | None:
    """All name the same player, else the knife is empty (R24)."""
    targets = set(choices.values())
    if len(targets) == 1:
        return next(iter(targets))
    return None


#: The conferral's one-line team message (one line of a few words, as the gesture it stands for).
TEAM_MESSAGE = Speak(max_chars=120)


def night_step(game: "Game", night: "Night") -> "Flow":
    holders = knife_holders(game)
    if not holders:
        return
    if game.state.hooks.knife_forbidden(night):  # R153: the caught little girl is tonight's only kill
        game.emit(WolfKnife(phase=night.phase, visibility=only(*holders, team="wolves"), target=None))
        return
    # Self-knife allowed (R25); on night 1 never a seat protected from the first kill (004 §C-conduct 5).
    legal = choose_seat(first_kill.knife_targets(game, night.number, night.alive_at_start))
    team = only(*holders, team="wolves")
    proposals = yield from confer(game, night, holders, legal)
    vetoed = (yield from veto(game, night, holders, proposals)) if game.sw.wolf_conferral_veto else set()
    if vetoed:
        legal = choose_seat(tuple(s for s in legal.options if s not in vetoed))
    requests = [game.request(s, Kind.WOLF_KILL, legal, None, context=show_context(holders, s, proposals, vetoed))
                for s in holders]
    choices = yield from game.ask_all(requests)
    for seat in sorted(choices):
        game.emit(WolfKnifeVote(phase=night.phase, visibility=team, seat=seat, target=choices[seat]))
    night.knife = consensus(choices)
    game.emit(WolfKnife(phase=night.phase, visibility=team, target=night.knife))


def teammates_proposals(holders: list[int], seat: int, latest: dict[int, int | None]) -> list[list[int | None]]:
    """[[teammate, target], ...]: the latest proposal of each of ``seat``'s teammates who made one."""
    return [[s, latest[s]] for s in holders if s != seat and s in latest]


def show_context(holders: list[int], seat: int, latest: dict[int, int | None], vetoed: set[int]) -> dict:
    context: dict = {"wolves": holders}
    if len(holders) > 1 and latest:
        context["proposals"] = teammates_proposals(holders, seat, latest)
    if vetoed:
        context["vetoed"] = sorted(vetoed)
    return context


def confer(game: "Game", night: "Night", holders: list[int], legal) -> "Flow":
    """R24 (000 Judge note (4), 004 §A): the knife holders propose a target in up to
    ``wolf_conferral_rounds`` rounds, each seeing its teammates' latest proposals (and, with
    ``wolf_conferral_messages``, their one-line messages), before the final show. The rounds stop early
    once every holder proposes the same player. A lone knife holder has nobody to confer with.
    Returns each holder's latest proposal."""
    rounds = game.sw.wolf_conferral_rounds
    latest: dict[int, int | None] = {}
    if len(holders) < 2 or rounds < 1:
        return latest
    team = only(*holders, team="wolves")
    for number in range(1, rounds + 1):
        if game.sw.wolf_conferral_messages:
            asks = [game.request(s, Kind.WOLF_MESSAGE, TEAM_MESSAGE, "pass",
                                 context={"wolves": holders, "round": number, "rounds": rounds,
                                          "proposals": teammates_proposals(holders, s, latest)})
                    for s in holders]
            said = yield from game.ask_all(asks)
            for seat in sorted(said):
                text = " ".join(str(said[seat]).split())
                if text and text.lower() != "pass":
                    game.emit(WolfTeamMessage(phase=night.phase, visibility=team, seat=seat, text=text, round=number))
        asks = [game.request(s, Kind.WOLF_PROPOSE, legal, None,
                             context={"wolves": holders, "round": number, "rounds": rounds,
                                      "proposals": teammates_proposals(holders, s, latest)})
                for s in holders]
        proposed = yield from game.ask_all(asks)
        for seat in sorted(proposed):
            latest[seat] = proposed[seat]
            game.emit(WolfProposal(phase=night.phase, visibility=team, seat=seat, target=proposed[seat], round=number))
        if consensus(latest) is not None and len(latest) == len(holders):
            break
    return latest


def veto(game: "Game", night: "Night", holders: list[int], latest: dict[int, int | None]) -> "Flow":
    """004 §C-role 1: after the proposals each wolf may firmly object to one target a teammate proposed;
    an objected target cannot be tonight's knife (the others showing it anyway leaves the knife empty)."""
    asks = []
    for seat in holders:
        targets = sorted({t for s, t in latest.items() if s != seat and t is not None})
        if targets:
            asks.append(game.request(seat, Kind.WOLF_VETO, choose_seat(tuple(targets)), None,
                                     context={"wolves": holders,
                                              "proposals": teammates_proposals(holders, seat, latest)}))
    objections = yield from game.ask_all(asks)
    vetoed: set[int] = set()
    team = only(*holders, team="wolves")
    for seat in sorted(objections):
        if objections[seat] is not None:
            vetoed.add(objections[seat])
            game.emit(WolfVeto(phase=night.phase, visibility=team, seat=seat, target=objections[seat]))
    return vetoed


def self_destruct_cards() -> frozenset[Role]:
    """R66: the wolf cards that may self-destruct (every one but the big wolf brother)."""
    return registry().self_destruct_cards


def self_destruct_seats(game: "Game") -> list[int]:
    """R66: who may self-destruct now (:meth:`arena.rules.registry.Registry.self_destruct_seats`)."""
    return registry().self_destruct_seats(game)


def recognise_step(game: "Game", night: "Night") -> "Flow":
    """003's separate N1 call where the wolves open their eyes and see each other (R18); the wolf team
    itself is told once the thief has picked (:meth:`arena.engine.Game.announce_wolf_team`)."""
    return
    yield  # a generator, like every step


def resolve_knife(game: "Game", night: "Night") -> None:
    from arena.rules.night import resolve_knife as resolve

    resolve(game, night)


SPEC = RoleSpec(
    role=Role.WEREWOLF, camp=Camp.WOLVES, kinds=(Kind.WOLF_KILL, Kind.WOLF_PROPOSE, Kind.WOLF_VETO, Kind.WOLF_MESSAGE, Kind.SELF_DESTRUCT, Kind.SELF_DESTRUCT_ELECTION),
    steps=(NightStepSpec("wolves_recognise", None, sits={"order_003": (40, "n1")}),
           NightStepSpec("wolves", night_step, after=resolve_knife,
                         sits={"order_000": (60, "all"), "order_001": (60, "all"), "order_004a": (50, "all"),
                               "order_004c": (70, "all"), "order_003": (70, "all")})),
)
