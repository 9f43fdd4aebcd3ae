"""Narrate events as a table game is told, from the templates in ``prompts/<lang>/narration.yaml``.

``god_view`` shows night actions (a spectator's view); without it only what the given seat may
see is narrated, through the same visibility filter as everything else.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import yaml

from arena.config import ConfigError
from arena.events import Event
from arena.resources import data_dir
from arena.untrusted import one_line

SEAT_FIELDS = {"seat", "cupid", "target", "from_seat", "witness", "wolf", "sheriff"}
SEAT_LIST_FIELDS = {"lovers", "seats", "wolves", "seers"}
GENERIC = {"lovers_linked", "lovers_recognised", "thief_cards", "elder_life_lost", "skills_lost",
           "little_girl_peeked", "little_girl_caught", "little_girl_kill", "scapegoat_ban", "traveler_info",
           "seers_met", "witness_named", "hunting_gun_fired", "brother_kill", "wild_wolf_kill", "fire_wolf_used",
           "king_took", "maid_swapped", "aux_police_appointed", "voters_punished"}
PROMPTS_DIR = data_dir("prompts")
LANGS = ("en", "zh")


@lru_cache(maxsize=4)
def templates(lang: str) -> dict[str, Any]:
    if lang not in LANGS:
        raise ConfigError(f"unknown language {lang!r}; choose one of {', '.join(LANGS)}")
    return yaml.safe_load((PROMPTS_DIR / lang / "narration.yaml").read_text(encoding="utf-8"))


def reason_text(reason: Any, texts: dict[str, Any] | str) -> str:
    """A reason id in the words of a language (``reason`` in ``prompts/<lang>/narration.yaml``); ``texts`` is
    a language code or its loaded templates. An id without words is shown as it is rather than lost."""
    table = templates(texts) if isinstance(texts, str) else texts
    value = getattr(reason, "value", reason)
    return table["reason"].get(value, value)


class Narrator:
    def __init__(self, lang: str = "en", god_view: bool = True, seat: int | None = None):
        self.t = templates(lang)
        self.god_view = god_view
        self.seat = seat
        self._round: tuple[str, str, int] | None = None

    def s(self, seat: int | None) -> str:
        return self.t["nobody"] if seat is None else self.t["seat"].format(seat=seat)

    def seats(self, seats: list[int]) -> str:
        return ", ".join(self.s(x) for x in seats) if seats else self.t["nobody"]

    def role(self, role: Any) -> str:
        value = getattr(role, "value", role)
        return self.t["role"].get(value, value)

    def reason(self, reason: Any) -> str:
        """A reason id (a :class:`~arena.types.WinReason`, an election's or exile's outcome) in words."""
        return reason_text(reason, self.t)

    def seer_result(self, result: str) -> str:
        """``wolf`` / ``good``, or an exact card (``seer_result=exact_role``), in words."""
        return self.t["seer_result_words"].get(result) or self.role(result)

    def visible(self, e: Event) -> bool:
        if self.god_view:
            return e.type not in ("player_died", "center_cards", "thought", "wolf_knife_vote", "role_assigned")
        return self.seat is not None and e.visibility.allows(self.seat)

    def line(self, e: Event) -> str | None:
        """One event as text, or None when it is not narrated (or not visible)."""
        if not self.visible(e):
            return None
        t = self.t
        k = e.type
        if k == "game_started":
            roles = ", ".join(f"{self.role(r)}×{n}" for r, n in e.role_counts.items())
            return t["game_started"].format(preset=e.preset, players=e.players, roles=roles)
        if k == "role_assigned":
            return t["deal"].format(seat=self.s(e.seat), role=self.role(e.role))
        if k == "wolf_team":
            return t["wolf_team"].format(seats=self.seats(e.wolves))
        if k == "phase_started":
            return t["night" if e.phase.startswith("N") else "day"].format(n=e.phase[1:])
        if k == "guard_protected":
            return t["guard_protected"].format(seat=self.s(e.seat), target=self.s(e.target))
        if k == "wolf_knife":
            return t["wolf_knife"].format(target=self.s(e.target)) if e.target else t["wolf_knife_empty"]
        if k in ("witch_saved", "witch_poisoned"):
            return t[k].format(seat=self.s(e.seat), target=self.s(e.target))
        if k == "seer_result":
            return t["seer_result"].format(seat=self.s(e.seat), target=self.s(e.target), result=self.seer_result(e.result))
        if k == "deaths_announced":
            return t["deaths_announced"].format(seats=self.seats(e.seats)) if e.seats else t["peaceful_night"]
        if k == "sheriff_candidates":
            return t["sheriff_candidates"].format(seats=self.seats(e.seats)) if e.seats else t["sheriff_no_candidates"]
        if k == "sheriff_withdrew":
            return t["sheriff_withdrew"].format(seat=self.s(e.seat))
        if k == "sheriff_elected":
            if e.seat is None:
                return t["sheriff_none"].format(reason=self.reason(e.reason))
            return t["sheriff_elected"].format(seat=self.s(e.seat), reason=self.reason(e.reason))
        if k == "badge_moved":
            return t[f"badge_{e.action}"].format(from_seat=self.s(e.from_seat), to_seat=self.s(e.to_seat))
        if k == "speech":
            return t["speech"].format(seat=self.s(e.seat), tag=t["speech_tag"].get(e.kind, ""), text=one_line(e.text))
        if k == "ballot_cast":
            title = ""
            if self._round != (e.phase, e.ballot, e.round):  # the first ballot of a round gets the title
                self._round = (e.phase, e.ballot, e.round)
                title = t["vote_title"][e.ballot] + "\n"
            if e.target is None:
                return title + t["ballot_abstain"].format(voter=self.s(e.voter))
            return title + t["ballot"].format(voter=self.s(e.voter), target=self.s(e.target))
        if k == "vote_result":
            tally = ", ".join(f"{self.s(seat)}: {v:g}" for seat, v in e.tally.items()) or self.t["nobody"]
            title = "" if self._round == (e.phase, e.ballot, e.round) else t["vote_title"][e.ballot] + "\n"
            return title + t["tally"].format(tally=tally)
        if k == "pk_platform":
            return t["pk_platform"].format(seats=self.seats(e.seats))
        if k == "exile_result":
            if e.seat is None:
                return t["exile_none"]
            return None if e.reason == "idiot_revealed" else t["exile_result"].format(seat=self.s(e.seat))
        if k == "idiot_revealed":
            return t["idiot_revealed"].format(seat=self.s(e.seat))
        if k == "self_destructed":
            return t["self_destructed"].format(seat=self.s(e.seat))
        if k == "hunter_shot":
            return t["hunter_shot"].format(seat=self.s(e.seat), target=self.s(e.target))
        if k == "role_revealed":
            return t["role_revealed"].format(seat=self.s(e.seat), role=self.role(e.role))
        if k == "answer_refused":
            return t["answer_refused"].format(seat=self.s(e.seat), kind=e.kind, error=e.error)
        if k in GENERIC and k in t:
            return self._generic(e)
        if k == "game_ended":
            return t["game_ended"].format(winner=t["winner"].get(e.winner.value, e.winner.value),
                                          reason=self.reason(e.reason))
        return None

    def _generic(self, e: Event) -> str:
        """Events of the extended roles: seat-like fields as seats, seat lists as lists, cards as roles."""
        fields: dict[str, Any] = {}
        for name, value in e.model_dump().items():
            if name in SEAT_FIELDS:
                fields[name] = self.s(value)
            elif name in SEAT_LIST_FIELDS:
                fields[name] = self.seats(list(value or []))
            elif name == "cards":
                fields[name] = ", ".join(self.role(c) for c in value)
            elif name == "reason":
                fields[name] = self.reason(value)
            else:
                fields[name] = value
        if e.type == "little_girl_kill":
            fields["killed_text"] = self.t["little_girl_kill_verb"][bool(e.killed)]
        if e.type == "king_took":
            fields["king"] = {"white": self.role("white_wolf_king"), "black": self.role("black_wolf_king")}[e.king]
            fields["king"] = fields["king"].replace(" wolf king", "").replace("狼王", "")
        return self.t[e.type].format(**fields)

    def roles_line(self, roles: dict[int, str]) -> str:
        return self.t["roles_line"].format(roles=", ".join(f"{self.s(s)} {self.role(r)}" for s, r in roles.items()))
