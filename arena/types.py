"""Vocabulary shared by the whole engine: roles, camps, death causes, phases, decision kinds.

Seats are plain integers 1..N. Display names come from templates in ``prompts/``.
"""

from __future__ import annotations

import re
from enum import StrEnum
from functools import lru_cache
from typing import Any, ClassVar, Iterable


class Role(str):
    """A card id, such as ``"witch"``. The set of cards is open: each role module declares its card in its
    :class:`~arena.rules.registry.RoleSpec` and the registry lists them (a board dealing any other card is
    refused at setup), so adding a role does not touch this module. The constants below name the cards
    that rules about other roles refer to."""

    __slots__ = ()

    VILLAGER: ClassVar[Role]
    WEREWOLF: ClassVar[Role]
    SEER: ClassVar[Role]
    WITCH: ClassVar[Role]
    HUNTER: ClassVar[Role]
    GUARD: ClassVar[Role]
    ELDER: ClassVar[Role]
    IDIOT: ClassVar[Role]
    CUPID: ClassVar[Role]
    THIEF: ClassVar[Role]
    LITTLE_GIRL: ClassVar[Role]
    SCAPEGOAT: ClassVar[Role]
    TRAVELER: ClassVar[Role]
    MAID: ClassVar[Role]
    WHITE_WOLF_KING: ClassVar[Role]
    BLACK_WOLF_KING: ClassVar[Role]
    WAR_WOLF: ClassVar[Role]
    BIG_WOLF_BROTHER: ClassVar[Role]
    LITTLE_WOLF_BROTHER: ClassVar[Role]
    WILD_WOLF: ClassVar[Role]
    FIRE_WOLF: ClassVar[Role]

    @property
    def value(self) -> str:
        """The id as a plain string (as an enum member's ``value``)."""
        return str.__str__(self)

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        return core_schema.no_info_after_validator_function(
            _card_id, core_schema.str_schema(),
            serialization=core_schema.plain_serializer_function_ser_schema(str.__str__, when_used="json"))


def _card_id(value: str) -> Role:
    known = _CARD_IDS.get(value)  # events name a card many times a game: check each id once, share one Role
    if known is not None:
        return known
    if not _CARD_ID.fullmatch(value):
        raise ValueError(f"not a card id: {value!r} (lower-case letters and underscores, e.g. 'witch')")
    role = Role(value)
    if len(_CARD_IDS) < 256:  # bounded: a file naming thousands of made-up cards does not grow it for ever
        _CARD_IDS[value] = role
    return role


_CARD_ID = re.compile(r"[a-z][a-z_]*")
_CARD_IDS: dict[str, Role] = {}  # the ids validated so far (a handful: the cards of the boards played)

for _name in ("villager", "werewolf", "seer", "witch", "hunter", "guard", "elder", "idiot", "cupid", "thief",
              "little_girl", "scapegoat", "traveler", "maid", "white_wolf_king", "black_wolf_king", "war_wolf",
              "big_wolf_brother", "little_wolf_brother", "wild_wolf", "fire_wolf"):
    setattr(Role, _name.upper(), Role(_name))

_wolf_cards: frozenset[Role] | None = None


def wolf_cards() -> frozenset[Role]:
    """The cards of the wolves camp, as the role modules declare them (:mod:`arena.rules.registry`)."""
    global _wolf_cards
    if _wolf_cards is None:
        from arena.rules.registry import registry  # the role modules sit above; asked once, then kept

        _wolf_cards = registry().wolf_cards()
    return _wolf_cards


def is_wolf_card(role: Role | str) -> bool:
    return role in (_wolf_cards or wolf_cards())


class Camp(StrEnum):
    VILLAGE = "village"
    WOLVES = "wolves"
    LOVERS = "lovers"


class Winner(StrEnum):
    VILLAGE = "village"
    WOLVES = "wolves"
    LOVERS = "lovers"
    DRAW = "draw"


class WinReason(StrEnum):
    """Why a game ended (R97-R104), as python-chess's ``Termination``: an id in transcripts, a localised text
    everywhere a person reads it (``reason`` in ``prompts/<lang>/narration.yaml``)."""

    LOVERS_ONLY = "lovers_only"  # every living player is in the lovers camp (R175)
    TOWN_KILL = "town_kill"  # only the wolf camp is left (R171)
    SIDE_KILL_GODS = "side_kill_gods"  # every god is out (R172)
    SIDE_KILL_VILLAGERS = "side_kill_villagers"  # every ordinary villager is out (R172)
    NO_WOLVES_OR_THIRD_PARTY = "no_wolves_or_third_party"  # the village wins (R170)
    ALL_WOLVES_DEAD = "all_wolves_dead"  # village_win=all_wolves_dead, a non-wolf of a bad camp alive (R171)
    NOBODY_ALIVE = "nobody_alive"
    SHERIFF_DECIDES = "sheriff_decides"  # two players left and one holds the badge (R100)
    NO_ELIMINATION_NIGHT_AND_DAY = "no_elimination_night_and_day"  # draw_rule (R102)
    SIX_PHASES_WITHOUT_DEATH = "six_phases_without_death"  # the engine's safety draw (R103)
    DAY_LIMIT = "day_limit"
    NO_RESULT = "no_result"  # the flow stopped without a result


#: The free texts transcripts carried before reasons were ids, read as the ids that replaced them.
LEGACY_WIN_REASONS = {
    "every living player is in the lovers camp": WinReason.LOVERS_ONLY,
    "no wolf or third party alive": WinReason.NO_WOLVES_OR_THIRD_PARTY,
    "nobody alive": WinReason.NOBODY_ALIVE,
    "two players left: the sheriff decides": WinReason.SHERIFF_DECIDES,
    "a night and a day without anyone going out": WinReason.NO_ELIMINATION_NIGHT_AND_DAY,
    "six phases without anyone going out": WinReason.SIX_PHASES_WITHOUT_DEATH,
    "day limit": WinReason.DAY_LIMIT,
    "no result": WinReason.NO_RESULT,
}


class Cause(StrEnum):
    """Death causes of R7, in the precedence order used to pick the recorded cause (OQ3)."""

    WOLF = "wolf"
    WOLF_BROTHER = "wolf_brother"
    WILD_WOLF = "wild_wolf"
    LITTLE_GIRL = "little_girl"
    HUNTING_GUN = "hunting_gun"
    POISON = "poison"
    SHOT = "shot"
    WHITE_WOLF_KING = "white_wolf_king"
    EXILE = "exile"
    SELF_DESTRUCT = "self_destruct"
    SCAPEGOAT = "scapegoat"
    LOVER = "lover"
    SKILL_LOSS = "skill_loss"
    REFEREE = "referee"


#: Wolf attacks (R27): their deaths go to batch K; the elder's life and the traveler's N1 immunity apply.
WOLF_ATTACKS = frozenset({Cause.WOLF, Cause.WOLF_BROTHER, Cause.WILD_WOLF})

CAUSE_PRECEDENCE = list(Cause)
_CAUSE_RANK = {cause: rank for rank, cause in enumerate(CAUSE_PRECEDENCE)}


def primary_cause(causes: Iterable[Cause]) -> Cause:
    """The recorded cause when several lethal effects hit one player in a batch (R7, OQ3)."""
    return min(causes, key=_CAUSE_RANK.__getitem__)


class Kind(StrEnum):
    """Decision kinds, named as in the conformance format (CONFORMANCE.md, RULES.md R9)."""

    THIEF_PICK = "thief_pick"
    CUPID_LINK = "cupid_link"
    GUARD = "guard"
    WOLF_KILL = "wolf_kill"
    WOLF_PROPOSE = "wolf_propose"
    WOLF_VETO = "wolf_veto"
    WOLF_MESSAGE = "wolf_message"
    WITCH_SAVE = "witch_save"
    WITCH_POISON = "witch_poison"
    SEER_CHECK = "seer_check"
    SHERIFF_RUN = "sheriff_run"
    SHERIFF_WITHDRAW = "sheriff_withdraw"
    SHERIFF_VOTE = "sheriff_vote"
    SHERIFF_PK_VOTE = "sheriff_pk_vote"
    SELF_DESTRUCT_ELECTION = "self_destruct_election"
    SELF_DESTRUCT = "self_destruct"
    VOTE = "vote"
    PK_VOTE = "pk_vote"
    HUNTER_SHOOT = "hunter_shoot"
    BADGE = "badge"
    SPEECH = "speech"
    LAST_WORDS = "last_words"
    IDIOT_REVEAL = "idiot_reveal"
    IDIOT_INTERJECT = "idiot_interject"
    INTERJECTION_REPLY = "interjection_reply"
    SPEECH_ORDER_PICK = "speech_order_pick"
    LITTLE_GIRL_PEEK = "little_girl_peek"
    LITTLE_GIRL_KILL = "little_girl_kill"
    SCAPEGOAT_BAN = "scapegoat_ban"
    MAID_SWAP = "maid_swap"
    CUPID_WITNESS = "cupid_witness"
    AUX_POLICE_APPOINT = "aux_police_appoint"
    WHITE_WOLF_KING_TAKE = "white_wolf_king_take"
    WOLF_KING_SHOOT = "wolf_king_shoot"
    BROTHER_KILL = "brother_kill"
    WILD_WOLF_KILL = "wild_wolf_kill"
    FIRE_WOLF_DISABLE = "fire_wolf_disable"
    HUNTING_GUN_SHOOT = "hunting_gun_shoot"
    SEER_CHECK_EXTRA = "seer_check_extra"
    WITCH_ORIGINAL_SAVE = "witch_original_save"
    WITCH_ORIGINAL_POISON = "witch_original_poison"
    # Not a move of the game: a seat that elicits beliefs (day_end, every_speech) reports P(wolf) per seat.
    BELIEF = "belief"


def phase_name(is_night: bool, number: int) -> str:
    """`N3` or `D3` (R2)."""
    return f"{'N' if is_night else 'D'}{number}"


@lru_cache(maxsize=256)
def parse_phase(phase: str) -> tuple[bool, int]:
    """Inverse of :func:`phase_name`; raises ValueError on anything else. (Cached: the state asks it
    for the day number and the night flag many times a game, of a handful of phases.)"""
    if len(phase) < 2 or phase[0] not in "ND" or not phase[1:].isdigit() or int(phase[1:]) < 1:
        raise ValueError(f"not a phase: {phase!r} (expected N<k> or D<k>, k >= 1)")
    return phase[0] == "N", int(phase[1:])


def phase_order(phase: str) -> int:
    """A sortable index: N1 < D1 < N2 < D2 ..."""
    night, k = parse_phase(phase)
    return 2 * k - (1 if night else 0)
