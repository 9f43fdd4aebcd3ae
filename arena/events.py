"""The event union. Every event carries who may see it; a seat's view is a filter of the log.

Events are the canonical record of what happened. The referee (``arena.engine``) is their only
writer; ``arena.state`` folds them into the game state; ``arena.observation`` filters them per seat.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator

from arena.types import LEGACY_WIN_REASONS, Cause, Role, Winner, WinReason


class Visibility(BaseModel):
    """Who may see an event: everybody, the listed seats (``team`` names why), or the referee only."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    to: Literal["all", "seats", "referee"]
    seats: tuple[int, ...] = ()
    team: str | None = None

    def allows(self, seat: int) -> bool:
        if self.to == "all":
            return True
        if self.to == "seats":
            return seat in self.seats
        return False


PUBLIC = Visibility(to="all")
REFEREE = Visibility(to="referee")


def only(*seats: int, team: str | None = None) -> Visibility:
    """The visibility "these seats only". Visibilities are immutable, so one instance per seat set is
    shared by every event that has it (a game asks for a few dozen, mostly of a single seat)."""
    key = (seats, team)
    visibility = _ONLY.get(key)
    if visibility is None:
        if len(_ONLY) > 4096:
            _ONLY.clear()
        visibility = _ONLY[key] = Visibility(to="seats", seats=tuple(sorted(set(seats))), team=team)
    return visibility


_ONLY: dict[tuple[tuple[int, ...], str | None], Visibility] = {}


class _Event(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    phase: str
    visibility: Visibility = PUBLIC


class GameStarted(_Event):
    type: Literal["game_started"] = "game_started"
    players: int
    preset: str
    role_counts: dict[str, int]


class RoleAssigned(_Event):
    """A seat learns its own card (R10); also used when the thief takes a new card."""

    type: Literal["role_assigned"] = "role_assigned"
    seat: int
    role: Role


class CenterCards(_Event):
    type: Literal["center_cards"] = "center_cards"
    cards: list[Role]


class WolfTeam(_Event):
    """The wolves open their eyes on N1 and recognise each other (R106)."""

    type: Literal["wolf_team"] = "wolf_team"
    wolves: list[int]


class PhaseStarted(_Event):
    type: Literal["phase_started"] = "phase_started"


class NightStep(_Event):
    """The referee calls a night step, whether or not its holder can act (R21): leaks nothing."""

    type: Literal["night_step"] = "night_step"
    step: str


class GuardProtected(_Event):
    type: Literal["guard_protected"] = "guard_protected"
    seat: int
    target: int | None
    effective: bool = True


class WolfKnifeVote(_Event):
    type: Literal["wolf_knife_vote"] = "wolf_knife_vote"
    seat: int
    target: int | None


class WolfProposal(_Event):
    """A knife holder's proposal in round ``round`` of the wolves' conferral (R24: wolves confer before
    they show one number); ``None`` proposes no kill. Seen by the wolf team only."""

    type: Literal["wolf_proposal"] = "wolf_proposal"
    seat: int
    target: int | None
    round: int


class WolfVeto(_Event):
    """004 §C: a wolf firmly objects to a target; that target cannot be tonight's knife."""

    type: Literal["wolf_veto"] = "wolf_veto"
    seat: int
    target: int


class WolfTeamMessage(_Event):
    """A one-line message from a knife holder to its team during the conferral."""

    type: Literal["wolf_team_message"] = "wolf_team_message"
    seat: int
    text: str
    round: int


class WolfKnife(_Event):
    """The consensus result of the wolves' knife (R24): ``None`` is an empty knife."""

    type: Literal["wolf_knife"] = "wolf_knife"
    target: int | None


class WitchTold(_Event):
    type: Literal["witch_told"] = "witch_told"
    seat: int
    victim: int | None
    victims: list[int] | None = None  # 003: every pending victim when several attacks hit (R30, R114)


class WitchSaved(_Event):
    type: Literal["witch_saved"] = "witch_saved"
    seat: int
    target: int
    potion: Literal["antidote", "original"] = "antidote"  # 003's original potion used as an antidote (R112)


class WitchPoisoned(_Event):
    type: Literal["witch_poisoned"] = "witch_poisoned"
    seat: int
    target: int
    potion: Literal["poison", "original"] = "poison"  # 003's original potion used as a poison (R112)


class SeerResult(_Event):
    type: Literal["seer_result"] = "seer_result"
    seat: int
    target: int
    result: str  # "wolf" / "good", or the card under seer_result=exact_role; "none" when disabled


class HunterStatus(_Event):
    type: Literal["hunter_status"] = "hunter_status"
    seat: int
    can_shoot: bool


class PlayerDied(_Event):
    """A death as the referee records it; never public (causes are not announced, OQ2)."""

    type: Literal["player_died"] = "player_died"
    seat: int
    cause: Cause
    causes: list[Cause]
    batch: int


class DeathsAnnounced(_Event):
    """What the table is told: who is out (an empty list is a peaceful night)."""

    type: Literal["deaths_announced"] = "deaths_announced"
    seats: list[int]
    death_phase: str


class RoleRevealed(_Event):
    type: Literal["role_revealed"] = "role_revealed"
    seat: int
    role: Role
    reason: str


class SheriffCandidates(_Event):
    type: Literal["sheriff_candidates"] = "sheriff_candidates"
    seats: list[int]


class SheriffWithdrew(_Event):
    type: Literal["sheriff_withdrew"] = "sheriff_withdrew"
    seat: int


class BallotCast(_Event):
    type: Literal["ballot_cast"] = "ballot_cast"
    ballot: Literal["sheriff", "sheriff_pk", "exile", "pk"]
    round: int = 1
    voter: int
    target: int | None
    weight: float


class VoteResult(_Event):
    type: Literal["vote_result"] = "vote_result"
    ballot: Literal["sheriff", "sheriff_pk", "exile", "pk"]
    round: int = 1
    tally: dict[int, float]
    top: list[int]
    voters: list[int]


class SheriffElected(_Event):
    type: Literal["sheriff_elected"] = "sheriff_elected"
    seat: int | None
    reason: str


class BadgeMoved(_Event):
    """The badge changes hands or leaves the game: ``passed``, ``torn`` or ``lost`` (R92-R94)."""

    type: Literal["badge_moved"] = "badge_moved"
    action: Literal["passed", "torn", "lost"]
    from_seat: int | None
    to_seat: int | None


class SpeechOrder(_Event):
    type: Literal["speech_order"] = "speech_order"
    order: list[int]
    context: str


class Speech(_Event):
    """Something a player says aloud. ``interjection``: a revealed idiot talking with the current speaker,
    and ``interjection_reply``: the speaker's answer (R138 ``may_interject``; schema version 2)."""

    type: Literal["speech"] = "speech"
    seat: int
    kind: Literal["campaign", "campaign_pk", "discussion", "pk", "last_words", "interjection", "interjection_reply"]
    text: str


class SelfDestructed(_Event):
    type: Literal["self_destructed"] = "self_destructed"
    seat: int
    during: Literal["election", "day"]


class IdiotRevealed(_Event):
    type: Literal["idiot_revealed"] = "idiot_revealed"
    seat: int


class HunterShot(_Event):
    type: Literal["hunter_shot"] = "hunter_shot"
    seat: int
    target: int


class PkPlatform(_Event):
    type: Literal["pk_platform"] = "pk_platform"
    ballot: Literal["sheriff", "exile"]
    seats: list[int]
    stage: int = 1


class ExileResult(_Event):
    type: Literal["exile_result"] = "exile_result"
    seat: int | None
    reason: str


class AnswerRefused(_Event):
    """The seat's answer was not legal; the documented default was used (R9). Only the seat sees it."""

    type: Literal["answer_refused"] = "answer_refused"
    seat: int
    decision_id: int
    kind: str
    error: str
    used: object = None


class Thought(_Event):
    """A seat's private reasoning, notes and beliefs at a decision. Only that seat ever sees it.

    No longer made: the engine takes answers' values only, and the reasoning, notes and beliefs are
    stored once, on the decision line. Kept so that transcripts written before still read (their
    decision lines hold the same text; the replay passes over these events)."""

    type: Literal["thought"] = "thought"
    seat: int
    decision_id: int
    reasoning: str | None = None
    notes: str | None = None
    beliefs: dict[int, float] | None = None


class LoversLinked(_Event):
    """Cupid's link on N1 (R141); only Cupid sees it. ``lovers`` is empty when he links nobody (OQ44)."""

    type: Literal["lovers_linked"] = "lovers_linked"
    cupid: int
    lovers: list[int]


class LoversRecognised(_Event):
    """The two lovers wake and learn each other's seat, and cards under ``lovers_know_roles`` (R142)."""

    type: Literal["lovers_recognised"] = "lovers_recognised"
    lovers: list[int]
    roles: dict[int, Role] | None = None
    camp: list[int] | None = None  # 003 (witness): Cupid, the lovers and the witness know each other (R147)


class ThiefCards(_Event):
    """The thief is shown the two center cards (R149); only he sees them."""

    type: Literal["thief_cards"] = "thief_cards"
    seat: int
    cards: list[Role]


class ElderLifeLost(_Event):
    """The elder's extra life absorbs a wolf attack (R130, R131); referee only, like every night result."""

    type: Literal["elder_life_lost"] = "elder_life_lost"
    seat: int


class SkillsLost(_Event):
    """Seats whose skills are disabled for the rest of the game (elder penalty R133, fire wolf R169)."""

    type: Literal["skills_lost"] = "skills_lost"
    seats: list[int]
    reason: Literal["elder_penalty", "fire_wolf"]


class LittleGirlPeeked(_Event):
    """The little girl peeks during the wolves' step and sees the wolves awake (R152, OQ46)."""

    type: Literal["little_girl_peeked"] = "little_girl_peeked"
    seat: int
    wolves: list[int]


class LittleGirlCaught(_Event):
    """The wolves catch the little girl peeking and learn her seat (R153)."""

    type: Literal["little_girl_caught"] = "little_girl_caught"
    seat: int


class LittleGirlKill(_Event):
    """The wolves' decision on a caught little girl (R153): killed at once, or left alone."""

    type: Literal["little_girl_kill"] = "little_girl_kill"
    seat: int
    killed: bool


class ScapegoatBan(_Event):
    """The scapegoat names who loses (``ban``: in the next exile vote held from day ``day`` on) or keeps (``allow``:
    in day ``day``'s exile vote) the vote (R156)."""

    type: Literal["scapegoat_ban"] = "scapegoat_ban"
    seat: int
    mode: Literal["ban", "allow"]
    seats: list[int]
    day: int


class TravelerInfo(_Event):
    """The traveler, attacked by the wolves on N1, learns the nearest wolf card's seat (R159)."""

    type: Literal["traveler_info"] = "traveler_info"
    seat: int
    wolf: int | None


class SeersMet(_Event):
    """003's seers know each other (R111); only they see it."""

    type: Literal["seers_met"] = "seers_met"
    seers: list[int]


class WitnessNamed(_Event):
    """003: Cupid and the lovers name the witness (R147)."""

    type: Literal["witness_named"] = "witness_named"
    cupid: int
    witness: int | None


class HuntingGunFired(_Event):
    """003: the hunter's once-a-game hunting gun (R125); only he sees it."""

    type: Literal["hunting_gun_fired"] = "hunting_gun_fired"
    seat: int
    target: int


class BrotherKill(_Event):
    """003: the little wolf brother's awakening kill (R167); only he sees it (``target`` null: none)."""

    type: Literal["brother_kill"] = "brother_kill"
    seat: int
    target: int | None


class WildWolfKill(_Event):
    """003: the wild wolf's solo kill (R168); only he sees it."""

    type: Literal["wild_wolf_kill"] = "wild_wolf_kill"
    seat: int
    target: int


class FireWolfUsed(_Event):
    """003: the fire wolf disables a player's skills (R169); only he sees his choice."""

    type: Literal["fire_wolf_used"] = "fire_wolf_used"
    seat: int
    target: int


class KingTook(_Event):
    """003: a wolf king takes a player with him (R162 white, on self-destruct; R164 black, on death)."""

    type: Literal["king_took"] = "king_took"
    seat: int
    target: int
    king: Literal["white", "black"]


class MaidSwapped(_Event):
    """003: the maid reveals herself and takes the exiled player's card (R160); the card is told to her alone."""

    type: Literal["maid_swapped"] = "maid_swapped"
    seat: int
    from_seat: int


class AuxPoliceAppointed(_Event):
    """003: the sheriff appoints (or replaces, or drops) the auxiliary police (R95-R96)."""

    type: Literal["aux_police_appointed"] = "aux_police_appointed"
    sheriff: int
    seat: int | None


class VotersPunished(_Event):
    """003 idiot (``no_vote_punish_voters``): who voted for him loses the vote in the next exile vote held from day
    ``day`` on (R138)."""

    type: Literal["voters_punished"] = "voters_punished"
    seat: int
    seats: list[int]
    day: int


class GameEnded(_Event):
    type: Literal["game_ended"] = "game_ended"
    winner: Winner
    reason: WinReason

    @field_validator("reason", mode="before")
    @classmethod
    def _legacy_reason(cls, value: Any) -> Any:
        """Older transcripts wrote the reason as an English sentence; read it as its id."""
        return LEGACY_WIN_REASONS.get(value, value) if isinstance(value, str) else value


Event = Annotated[
    Union[
        GameStarted,
        RoleAssigned,
        CenterCards,
        WolfTeam,
        PhaseStarted,
        NightStep,
        GuardProtected,
        WolfKnifeVote,
        WolfProposal,
        WolfVeto,
        WolfTeamMessage,
        WolfKnife,
        WitchTold,
        WitchSaved,
        WitchPoisoned,
        SeerResult,
        HunterStatus,
        PlayerDied,
        DeathsAnnounced,
        RoleRevealed,
        SheriffCandidates,
        SheriffWithdrew,
        BallotCast,
        VoteResult,
        SheriffElected,
        BadgeMoved,
        SpeechOrder,
        Speech,
        SelfDestructed,
        IdiotRevealed,
        HunterShot,
        PkPlatform,
        ExileResult,
        AnswerRefused,
        Thought,
        LoversLinked,
        LoversRecognised,
        ThiefCards,
        ElderLifeLost,
        SkillsLost,
        LittleGirlPeeked,
        LittleGirlCaught,
        LittleGirlKill,
        ScapegoatBan,
        TravelerInfo,
        SeersMet,
        WitnessNamed,
        HuntingGunFired,
        BrotherKill,
        WildWolfKill,
        FireWolfUsed,
        KingTook,
        MaidSwapped,
        AuxPoliceAppointed,
        VotersPunished,
        GameEnded,
    ],
    Field(discriminator="type"),
]

EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)
