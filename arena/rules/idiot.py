"""The idiot's variants after his reveal (R138). The reveal itself (R137) is :func:`reveal_on_exile`;
his lost vote and the refusal of ballots for him are in :mod:`arena.rules.vote`.

``idiot_after_reveal=no_vote_punish_voters`` (003): every player whose ballot named him in the vote that
exiled him loses his vote in the next exile vote that is held (public :class:`VotersPunished`): the next
day's, or a later day's when a self-destruct leaves a day without one.

``idiot_after_reveal=may_interject`` (004 §C role 10, R65, OQ43): from his reveal on, a living revealed idiot
may talk with whoever is speaking by day, never with a player giving last words. The engine offers it after
each day speech by another seat (campaign, campaign PK, discussion, PK): the idiot is asked
``idiot_interject`` (free text, default ``"pass"`` = he stays silent); if he says something it is a public
``interjection`` speech and the speaker is asked ``interjection_reply`` (default ``"pass"`` = no answer),
a public ``interjection_reply`` speech when answered. One exchange per speech. His vote is gone as under
``no_vote`` (vote.py: a revealed idiot never votes, whatever the value of the switch).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from arena.actions import YES_OR_NO, Speak
from arena.events import ExileResult, IdiotRevealed, Speech, VotersPunished
from arena.types import Camp, Kind, Role, parse_phase
from arena.rules.registry import NightStepSpec, RoleSpec, RoleState

if TYPE_CHECKING:
    from arena.engine import Game
    from arena.flow import Flow
    from arena.state import GameState

#: Interjections and replies are remarks, not speeches with a time slot (R64 is silent): the shortest
#: speech length the engine grants (speech.speak_legal's floor), one immutable legal set for all of them.
INTERJECTION = Speak(max_chars=600, seconds=None)
PASS = "pass"
_SILENT = frozenset({"pass", "过"})
#: Speech kinds during which the idiot may talk with the speaker: every day speech but last words.
_INTERJECTABLE = frozenset({"campaign", "campaign_pk", "discussion", "pk"})


@dataclass(frozen=True)
class Reveals:
    """The idiot's record: the seats of revealed idiots (R137) and the voters punished by a reveal
    (R138 ``no_vote_punish_voters``: the first day whose exile vote they may lose, and the seats)."""

    revealed: frozenset[int] = frozenset()
    punished: tuple[int, tuple[int, ...]] | None = None


def _revealed(record: Reveals, e: IdiotRevealed, state: "GameState") -> Reveals:
    return replace(record, revealed=record.revealed | {e.seat})


def _punished(record: Reveals, e: VotersPunished, state: "GameState") -> Reveals:
    return replace(record, punished=(e.day, tuple(e.seats)))


def revealed(state: "GameState", seat: int) -> bool:
    """R137: the seat has revealed his idiot card on exile."""
    return seat in state.record(Reveals).revealed


def restricted_voters(game: "Game", voters: list[int]) -> list[int]:
    """R138 ``no_vote_punish_voters``: the next exile vote held after his reveal is without the voters it
    punished (a day without a vote, cut short by a self-destruct, leaves it for the next one)."""
    from arena.rules.vote import restriction_holds_today

    punished = game.state.record(Reveals).punished
    if punished is None or not restriction_holds_today(game, punished[0]):
        return voters
    return [s for s in voters if s not in punished[1]]


def punish_voters(game: "Game", idiot: int) -> None:
    if game.sw.idiot_after_reveal != "no_vote_punish_voters":
        return
    phase = game.state.phase
    ballots = [e for e in game.log if e.type == "ballot_cast" and e.phase == phase and e.ballot in ("exile", "pk")]
    if not ballots:
        return
    last_round = max((e.ballot == "pk", e.round) for e in ballots)
    voters = sorted(e.voter for e in ballots if (e.ballot == "pk", e.round) == last_round and e.target == idiot)
    if voters:
        game.emit(VotersPunished(phase=phase, seat=idiot, seats=voters, day=parse_phase(phase)[1] + 1))


def is_silence(text: str) -> bool:
    """``"pass"`` (or 过), whatever the case and a closing full stop: the seat says nothing."""
    return text.strip().rstrip(".。!！").strip().lower() in _SILENT


def interjecting_idiots(game: "Game", speaker: int, *, election: bool = False) -> list[int]:
    """The revealed idiots who may talk with ``speaker`` now, in seat order (one on every real board).

    Living, or, in an election held before the night's deaths are announced, dead in that night: such
    players still take part in the election as if alive (R49, OQ14), and silencing him there would
    announce his death early."""
    state = game.state
    night = "N" + state.phase[1:]
    out = []
    for seat in state.record(Reveals).revealed:
        if seat == speaker:
            continue
        player = state.players[seat]
        if player.alive or (election and player.death_phase == night):
            out.append(seat)
    return sorted(out)


def interject(game: "Game", speaker: int, kind: str, *, election: bool = False) -> "Flow":
    """R138 ``may_interject``: after ``speaker``'s day speech of ``kind``, each revealed idiot may talk with him."""
    if game.sw.idiot_after_reveal != "may_interject" or kind not in _INTERJECTABLE:
        return
    for idiot in interjecting_idiots(game, speaker, election=election):
        phase = game.state.phase
        text = yield from game.ask(idiot, Kind.IDIOT_INTERJECT, INTERJECTION, PASS,
                                   context={"speaker": speaker, "speech": kind})
        if is_silence(text):
            continue
        game.emit(Speech(phase=phase, seat=idiot, kind="interjection", text=text))
        reply = yield from game.ask(speaker, Kind.INTERJECTION_REPLY, INTERJECTION, PASS,
                                    context={"idiot": idiot, "speech": kind})
        if not is_silence(reply):
            game.emit(Speech(phase=phase, seat=speaker, kind="interjection_reply", text=reply))


def after_speech(game: "Game", speaker: int, kind: str, election: bool) -> "Flow | None":
    """The hook after every day speech: None (no generator) unless an interjection may follow (R138)."""
    if game.sw.idiot_after_reveal != "may_interject" or kind not in _INTERJECTABLE:
        return None
    return interject(game, speaker, kind, election=election)


def reveal_on_exile(game: "Game", seat: int) -> "Flow":
    """R137, R139: the exiled idiot may reveal his card and stay; True when he does."""
    state = game.state
    if revealed(state, seat) or state.skill_disabled(seat):
        return False
    reveal = yield from game.ask(seat, Kind.IDIOT_REVEAL, YES_OR_NO, True)
    if not reveal:
        return False
    game.emit(IdiotRevealed(phase=state.phase, seat=seat))
    game.emit(ExileResult(phase=state.phase, seat=seat, reason="idiot_revealed"))
    punish_voters(game, seat)  # R138 no_vote_punish_voters (003)
    return True


def dies_without_skill(state: "GameState", seat: int) -> bool:
    """R139: a revealed idiot whose skill is lost is removed at once (``skill_loss``)."""
    return revealed(state, seat)


SPEC = RoleSpec(
    role=Role.IDIOT, camp=Camp.VILLAGE, kinds=(Kind.IDIOT_REVEAL, Kind.IDIOT_INTERJECT),
    # Called in 000 though he does nothing at night (R137 is a day skill).
    steps=(NightStepSpec("idiot", None, called_for=Role.IDIOT, sits={"order_000": (100, "all")}),),
    exile_reprieve=reveal_on_exile,
    good_skill="god", dies_without_skill=dies_without_skill,
    voteless=revealed, restrict_voters=restricted_voters, after_speech=after_speech,
    record=RoleState(Reveals(), {IdiotRevealed: _revealed, VotersPunished: _punished}),
)
