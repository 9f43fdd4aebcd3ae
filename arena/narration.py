"""Narrate events as a table game is told, from the templates in ``prompts/<lang>/narration.yaml``.

``god_view`` shows night actions and every ballot, secret ones included (a spectator's view, and it says
so); without it only what the given seat may see is narrated, through the same visibility filter as
everything else, or with no seat what every player sees (the public view).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, assert_never

import yaml

from arena.config import ConfigError, presets
from arena import events as ev
from arena.events import Event
from arena.resources import data_dir
from arena.untrusted import one_line

SEAT_FIELDS = {"seat", "cupid", "target", "from_seat", "witness", "wolf", "sheriff"}
SEAT_LIST_FIELDS = {"lovers", "seats", "wolves", "seers"}
#: What the terminal story leaves out (it has words for them: :meth:`Narrator.text`): the caller of each
#: night step, what the witch and the hunter are told, the wolves' single votes, the speaking order, causes
#: of death (the story says who is out), the center and the seats' private thoughts.
LEFT_OUT_OF_STORY = frozenset({"night_step", "witch_told", "hunter_status", "wolf_knife_vote", "speech_order",
                               "player_died", "center_cards", "thought"})
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


@lru_cache(maxsize=4)
def kind_names(lang: str) -> dict[str, str]:
    """Decision kinds in words (``kind`` in ``prompts/<lang>/viewer.yaml``); a kind without words keeps its id."""
    labels = yaml.safe_load((PROMPTS_DIR / lang / "viewer.yaml").read_text(encoding="utf-8"))
    return dict(labels.get("kind", {}))


def board_title(preset_id: str, players: int, lang: str) -> str:
    """A board's title in a language (``title_zh`` / ``title_en`` in configs/presets.yaml), or its id when the
    board has none (a scenario's own deck)."""
    preset = presets().get(preset_id) or presets().get(f"{preset_id}-{players}")
    return (getattr(preset, f"title_{lang}", "") if preset else "") or preset_id


class Narrator:
    def __init__(self, lang: str = "en", god_view: bool = True, seat: int | None = None, *, says_view: bool = False):
        self.t = templates(lang)
        self.lang = lang
        self.sep: str = self.t.get("list_sep", ", ")  # 、 between Chinese list items
        self.god_view = god_view
        self.seat = seat
        # The story opens by saying it is the god view (arena play's narration); the live view and the replay
        # page word lines with a god-view narrator but say whose view it is themselves.
        self.says_view = says_view
        self._round: tuple[str, str, int] | None = None

    def s(self, seat: int | None) -> str:
        return self.t["nobody"] if seat is None else self.t["seat"].format(seat=seat)

    def seats(self, seats: list[int]) -> str:
        return self.sep.join(self.s(x) for x in seats) if seats else self.t["nobody"]

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
        if self.seat is None:  # the public view: what every player sees
            return e.visibility.to == "all"
        return e.visibility.allows(self.seat)

    def line(self, e: Event) -> str | None:
        """One event as the terminal story tells it, or None when it is not told (or not visible)."""
        if not self.visible(e) or e.type in LEFT_OUT_OF_STORY:
            return None
        if e.type == "exile_result" and e.reason == "idiot_revealed":
            return None  # the reveal's own line says it
        if e.type == "game_started" and self.god_view and self.says_view:  # no player sees it all
            return self.text(e) + "\n" + self.t["god_view_note"]
        if e.type == "ballot_cast":
            title = ""
            if self._round != (e.phase, e.ballot, e.round):  # the first ballot of a round gets the title
                self._round = (e.phase, e.ballot, e.round)
                title = self.t["vote_title"][e.ballot] + "\n"
                if e.visibility.to != "all":  # R82 secret ballots: only the god view lists them
                    title += self.t["secret_ballots_god_view"] + "\n"
            return title + self.text(e)
        if e.type == "vote_result":
            title = "" if self._round == (e.phase, e.ballot, e.round) else self.t["vote_title"][e.ballot] + "\n"
            return title + self.text(e)
        return self.text(e)

    def text(self, e: Event) -> str:
        """Every event in words, whatever the view (tests/test_coverage.py renders each class)."""
        t = self.t
        s, seats = self.s, self.seats
        match e:
            case ev.GameStarted():
                roles = self.sep.join(f"{self.role(r)}×{n}" for r, n in e.role_counts.items())
                return t["game_started"].format(preset=e.preset, players=e.players, roles=roles,
                                                title=board_title(e.preset, e.players, self.lang))
            case ev.RoleAssigned():
                return t["deal"].format(seat=s(e.seat), role=self.role(e.role))
            case ev.CenterCards():
                return t["center_cards"].format(cards=self.sep.join(self.role(c) for c in e.cards))
            case ev.WolfTeam():
                return t["wolf_team"].format(seats=seats(e.wolves))
            case ev.PhaseStarted():
                return t["night" if e.phase.startswith("N") else "day"].format(n=e.phase[1:])
            case ev.NightStep():
                return t["night_step"].format(step=t["step_name"][e.step])
            case ev.GuardProtected():
                if e.target is None and "guard_protected_none" in t:  # 空守: a guard who protects nobody
                    return t["guard_protected_none"].format(seat=s(e.seat))
                return t["guard_protected"].format(seat=s(e.seat), target=s(e.target))
            case ev.WolfKnifeVote():
                if e.target is None:
                    return t["wolf_knife_vote_none"].format(seat=s(e.seat))
                return t["wolf_knife_vote"].format(seat=s(e.seat), target=s(e.target))
            case ev.WolfKnife():
                return t["wolf_knife"].format(target=s(e.target)) if e.target else t["wolf_knife_empty"]
            case ev.WitchTold():
                if e.victim is None:
                    return t["witch_told_none"].format(seat=s(e.seat))
                return t["witch_told"].format(seat=s(e.seat), victim=seats(e.victims or [e.victim]))
            case ev.WitchSaved() | ev.WitchPoisoned():
                return t[e.type].format(seat=s(e.seat), target=s(e.target))
            case ev.SeerResult():
                return t["seer_result"].format(seat=s(e.seat), target=s(e.target), result=self.seer_result(e.result))
            case ev.HunterStatus():
                status = t["hunter_can" if e.can_shoot else "hunter_cannot"]
                return t["hunter_status"].format(seat=s(e.seat), status=status)
            case ev.PlayerDied():
                return t["player_died"].format(seat=s(e.seat), cause=t["cause"][e.cause.value])
            case ev.DeathsAnnounced():
                return t["deaths_announced"].format(seats=seats(e.seats)) if e.seats else t["peaceful_night"]
            case ev.RoleRevealed():
                return t["role_revealed"].format(seat=s(e.seat), role=self.role(e.role))
            case ev.SheriffCandidates():
                return t["sheriff_candidates"].format(seats=seats(e.seats)) if e.seats else t["sheriff_no_candidates"]
            case ev.SheriffWithdrew():
                return t["sheriff_withdrew"].format(seat=s(e.seat))
            case ev.BallotCast():
                if e.target is None:
                    return t["ballot_abstain"].format(voter=s(e.voter))
                return t["ballot"].format(voter=s(e.voter), target=s(e.target))
            case ev.VoteResult():
                item = t.get("tally_item", "{seat}: {votes}")
                tally = self.sep.join(item.format(seat=s(seat), votes=f"{v:g}") for seat, v in e.tally.items()) or t["nobody"]
                return t["tally"].format(tally=tally)
            case ev.SheriffElected():
                if e.seat is None:
                    return t["sheriff_none"].format(reason=self.reason(e.reason))
                return t["sheriff_elected"].format(seat=s(e.seat), reason=self.reason(e.reason))
            case ev.BadgeMoved():
                return t[f"badge_{e.action}"].format(from_seat=s(e.from_seat), to_seat=s(e.to_seat))
            case ev.SpeechOrder():
                return t["speech_order"].format(order=seats(e.order))
            case ev.Speech():
                return t["speech"].format(seat=s(e.seat), tag=t["speech_tag"].get(e.kind, ""), text=one_line(e.text))
            case ev.SelfDestructed() | ev.IdiotRevealed():
                return t[e.type].format(seat=s(e.seat))
            case ev.HunterShot():
                return t["hunter_shot"].format(seat=s(e.seat), target=s(e.target))
            case ev.PkPlatform():
                return t["pk_platform"].format(seats=seats(e.seats))
            case ev.ExileResult():
                if e.seat is None:  # why nobody is: a tie, a second tie, no valid ballot...
                    return t["exile_none"].format(reason=self.reason(e.reason))
                return t["exile_result"].format(seat=s(e.seat))
            case ev.AnswerRefused():
                kind = kind_names(self.lang).get(e.kind) or e.kind
                return t["answer_refused"].format(seat=s(e.seat), kind=kind, error=e.error)
            case ev.Thought():
                return t["thought"].format(seat=s(e.seat), text=one_line(e.reasoning or e.notes or "…"))
            case ev.GameEnded():
                return t["game_ended"].format(winner=t["winner"].get(e.winner.value, e.winner.value),
                                              reason=self.reason(e.reason))
            case ev.ScapegoatBan():
                return t["scapegoat_ban"].format(seat=s(e.seat), mode=t["scapegoat_mode"][e.mode], seats=seats(e.seats))
            case (ev.LoversLinked() | ev.LoversRecognised() | ev.ThiefCards() | ev.ElderLifeLost() | ev.SkillsLost()
                  | ev.LittleGirlPeeked() | ev.LittleGirlCaught() | ev.LittleGirlKill() | ev.TravelerInfo()
                  | ev.SeersMet() | ev.WitnessNamed() | ev.HuntingGunFired() | ev.BrotherKill() | ev.WildWolfKill()
                  | ev.FireWolfUsed() | ev.KingTook() | ev.MaidSwapped() | ev.AuxPoliceAppointed()
                  | ev.VotersPunished() | ev.WolfProposal() | ev.WolfVeto() | ev.WolfTeamMessage()):
                return self._fill(e)
            case _:
                assert_never(e)

    def _fill(self, e: Event) -> str:
        """Events of the extended roles: their template with seat-like fields as seats, seat lists as
        lists, cards as roles."""
        fields: dict[str, Any] = {}
        for name, value in e.model_dump().items():
            if name in SEAT_FIELDS:
                fields[name] = self.s(value)
            elif name in SEAT_LIST_FIELDS:
                fields[name] = self.seats(list(value or []))
            elif name == "cards":
                fields[name] = self.sep.join(self.role(c) for c in value)
            elif name == "reason":
                fields[name] = self.reason(value)
            else:
                fields[name] = value
        if isinstance(e, ev.LittleGirlKill):
            fields["killed_text"] = self.t["little_girl_kill_verb"][bool(e.killed)]
        if isinstance(e, ev.KingTook):
            fields["king"] = {"white": self.role("white_wolf_king"), "black": self.role("black_wolf_king")}[e.king]
            fields["king"] = fields["king"].replace(" wolf king", "").replace("狼王", "")
        return self.t[e.type].format(**fields)

    def roles_line(self, roles: dict[int, str]) -> str:
        item = self.t.get("roles_item", "{seat} {role}")
        return self.t["roles_line"].format(roles=self.sep.join(item.format(seat=self.s(s), role=self.role(r))
                                                               for s, r in roles.items()))
