"""The idiot's variants after his reveal (R138). The reveal itself (R137) is in :func:`arena.rules.cycle.exile`;
his lost vote and the refusal of ballots for him are in :mod:`arena.rules.vote`.

``idiot_after_reveal=no_vote_punish_voters`` (003): every player whose ballot named him in the vote that
exiled him loses his vote in the next day's exile vote (public :class:`VotersPunished`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.events import VotersPunished
from arena.types import parse_phase

if TYPE_CHECKING:
    from arena.engine import Game


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
