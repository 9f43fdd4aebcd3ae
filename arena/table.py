"""What a picture of the table shows of each event: its icon and the marker it leaves on a seat.

The replay page (``arena/viewer_assets/viewer.js``, through the data :mod:`arena.viewer` builds) and
the terminal's live view (:mod:`arena.live`) both draw from here, so a new event class is given its
icon and marker once. Icon names are the page's inline SVG symbols; the terminal has its own glyph
for each marker.
"""

from __future__ import annotations

from typing import Any, get_args

from pydantic import BaseModel

from arena.events import (
    Event,
    GuardProtected,
    HunterShot,
    PlayerDied,
    SeerResult,
    SelfDestructed,
    WitchPoisoned,
    WitchSaved,
    WolfKnife,
)
from arena.types import wolf_cards as types_wolf_cards

#: Every event class of the union, in its declared order.
EVENT_CLASSES: tuple[type[BaseModel], ...] = get_args(get_args(Event)[0])
#: Every event's ``type`` tag, in the same order.
EVENT_TYPES: tuple[str, ...] = tuple(cls.model_fields["type"].default for cls in EVENT_CLASSES)

#: The page's icon for each event type (None: the event draws no icon, a phase heading).
EVENT_ICON: dict[str, str | None] = {
    "game_started": "users", "role_assigned": "card", "center_cards": "card", "wolf_team": "users",
    "phase_started": None, "night_step": "moon", "guard_protected": "shield", "wolf_knife_vote": "knife",
    "wolf_proposal": "knife", "wolf_veto": "x", "wolf_team_message": "speech", "wolf_knife": "knife",
    "witch_told": "antidote", "witch_saved": "antidote", "witch_poisoned": "poison", "seer_result": "eye",
    "hunter_status": "gun", "player_died": "skull", "deaths_announced": "skull", "role_revealed": "card",
    "sheriff_candidates": "star", "sheriff_withdrew": "star", "ballot_cast": "ballot", "vote_result": "ballot",
    "sheriff_elected": "star", "badge_moved": "star", "speech_order": "list", "speech": "speech",
    "self_destructed": "bomb", "idiot_revealed": "card", "hunter_shot": "gun", "pk_platform": "scale",
    "exile_result": "scale", "answer_refused": "alert", "thought": "thought",
    "lovers_linked": "users", "lovers_recognised": "users", "thief_cards": "card", "elder_life_lost": "shield",
    "skills_lost": "alert", "little_girl_peeked": "eye", "little_girl_caught": "alert",
    "little_girl_kill": "knife", "scapegoat_ban": "ballot", "traveler_info": "eye", "seers_met": "eye",
    "witness_named": "users", "hunting_gun_fired": "gun", "brother_kill": "knife", "wild_wolf_kill": "knife",
    "fire_wolf_used": "alert", "king_took": "card", "maid_swapped": "card", "aux_police_appointed": "star",
    "voters_punished": "skull", "game_ended": "flag",
}


def table_mark(e: Any) -> tuple[int, str] | None:
    """The marker an event leaves on a seat until the phase ends (seat, marker), if any."""
    if isinstance(e, SeerResult):
        return (e.target, "eye-wolf" if e.result == "wolf" else "eye-good") if e.target else None
    if isinstance(e, (GuardProtected, WolfKnife, WitchSaved, WitchPoisoned, HunterShot)):
        return (e.target, _TARGET_MARK[type(e)]) if e.target else None
    if isinstance(e, (PlayerDied, SelfDestructed)):
        return (e.seat, _SEAT_MARK[type(e)]) if e.seat else None
    return None


_TARGET_MARK: dict[type, str] = {GuardProtected: "shield", WolfKnife: "knife", WitchSaved: "antidote",
                                 WitchPoisoned: "poison", HunterShot: "gun"}
_SEAT_MARK: dict[type, str] = {PlayerDied: "death", SelfDestructed: "bomb"}


#: Every marker an event can leave (table_mark), and the page icon that draws it.
MARKER_ICON: dict[str, str] = {"shield": "shield", "knife": "knife", "antidote": "antidote", "poison": "poison",
                               "eye-good": "eye", "eye-wolf": "eye", "death": "skull", "gun": "gun", "bomb": "bomb"}


def wolf_cards() -> list[str]:
    """The cards of the wolves' camp (as the role modules declare them), for drawing a seat's camp."""
    return sorted(str(role) for role in types_wolf_cards())
