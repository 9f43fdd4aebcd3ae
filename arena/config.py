"""Boards and rule variants as data (RULES.md §5, §6).

`configs/profiles.yaml` holds one full switch set per seed document, `configs/presets.yaml` the board
presets. A rule set is resolved in the order profile -> preset values -> caller overrides
(CONFORMANCE.md "Precedence of rules"). Every model forbids unknown fields, so a typo in a switch name
is an error that names it.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from arena.resources import data_dir
from arena.types import Role

CONFIG_DIR = data_dir("configs")


class ConfigError(ValueError):
    """A board, profile or switch is wrong; the message names what."""


class Switches(BaseModel):
    """Every variant switch of RULES.md §6.1, with the recommended default ("rec.")."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    thief_deal_guard: Literal["no_two_wolves_no_thief_wolf", "no_two_wolves", "none"] = "no_two_wolves_no_thief_wolf"
    night_order: Literal["order_000", "order_001", "order_004a", "order_004c", "order_003"] = "order_000"
    call_absent_roles: Literal["configured_only", "always", "n1_pretend"] = "configured_only"
    sheriff: bool = True
    sheriff_election_time: Literal["before_d1_announcement", "after_d1_discussion"] = "before_d1_announcement"
    campaign_start: Literal["lowest", "highest", "alternate_per_game"] = "lowest"
    sheriff_voters: Literal["non_candidates", "all"] = "non_candidates"
    sheriff_tie: Literal["pk_speech_revote", "revote", "no_sheriff"] = "pk_speech_revote"
    sheriff_pk_voters: Literal["non_candidates", "non_candidates_and_losers", "all"] = "non_candidates"
    sheriff_second_tie: Literal["no_sheriff", "retry_next_day"] = "no_sheriff"
    election_self_destruct: Literal["badge_lost", "postpone_third_loses"] = "badge_lost"
    sheriff_vote_weight: Literal[2, 1.5, 2.5] = 2  # type: ignore[valid-type]  # floats: pydantic checks the three
    aux_police: bool = False
    badge_on_death: Literal["pass_or_tear", "must_pass"] = "pass_or_tear"
    speech_order: Literal["alternate_sides", "sheriff_chooses", "sheriff_free"] = "alternate_sides"
    day1_speech_rounds: Literal[1, 2] = 1
    speech_seconds: Literal["none", "tiered_120_150_180", "flat_120", "flat_90_last_120"] = "none"
    self_destruct: bool = True
    self_destruct_last_words: bool = True
    self_destruct_silences_day: bool = False
    last_words: Literal[
        "n1_all_n2_single", "n1_and_day", "day1_only", "wolf_pool_all", "wolf_pool_kill_exile", "none"
    ] = "n1_and_day"
    lover_suicide_last_words: Literal["as_timing", "none"] = "as_timing"
    shot_victim_last_words: Literal["as_shooter_timing", "none"] = "as_shooter_timing"
    reveal_role_on_death: bool = False
    dawn_announcement: Literal["seat_order", "by_cause"] = "seat_order"
    ballot_visibility: Literal["public", "secret"] = "public"
    lover_vote_ban_scope: Literal["exile", "all_votes"] = "exile"
    exile_tie: Literal["pk_once", "pk_twice", "no_exile", "revote_until_decided"] = "pk_once"
    witch_self_save: Literal["never", "first_night_only", "if_no_living_guard", "always"] = "never"
    witch_potions_per_night: Literal["one", "both", "one_kind"] = "one"
    witch_self_poison: bool = True
    witch_informed_after_antidote: bool = False
    witch_informed_guarded_kill: bool = True
    witch_informed_elder_first_hit: bool = False
    witch_original_potion: bool = False
    guard_repeat: Literal["refuse", "void"] = "refuse"
    guard_splash_over_12: bool = False
    seer_result: Literal["wolf_or_good", "exact_role"] = "wolf_or_good"
    seer_first_night_extra_check: bool = False
    hunter_blocked_by: Literal["poison_and_lover", "poison", "nothing"] = "poison_and_lover"
    hunter_status_signal: Literal["every_night", "none"] = "every_night"
    hunting_gun: bool = False
    cupid_self_link: bool = True
    cupid_may_skip: bool = True
    cupid_camp: Literal["follows_lovers", "good_unless_mixed", "always_good", "always_third"] = "follows_lovers"
    lovers_know_roles: bool = False
    witness: bool = False
    elder_model: Literal["two_lives", "immune_unless_last_god"] = "two_lives"
    elder_penalty_scope: Literal["all_good_skills", "good_god_skills"] = "all_good_skills"
    idiot_after_reveal: Literal["no_vote", "no_vote_punish_voters", "may_interject"] = "no_vote"
    thief_pick: Literal["must_take_wolf_forced", "may_keep_two_wolves_forced", "must_take_free"] = "must_take_wolf_forced"
    scapegoat_ban_mode: Literal["ban_list", "allow_list"] = "ban_list"
    scapegoat_reveals_tied: bool = True
    little_girl_discovery: Literal["chance", "always", "never"] = "chance"
    win_mode: Literal["town_kill", "side_kill", "villagers_or_key_roles"] = "side_kill"
    third_party_counts_for_side_kill: bool = True
    cupid_side_class: Literal["none", "villager"] = "none"
    #: R171: 000 「殺死所有狼人及壞身份」 (a living wolves- or lovers-camp member blocks the village) or 004 §C
    #: 「所有狼人死亡」 (every wolf card dead is enough, whatever camp Cupid plays for).
    village_win: Literal["wolves_and_bad_identities_dead", "all_wolves_dead"] = "wolves_and_bad_identities_dead"
    knife_first: Literal["after_antidote", "before_witch"] = "after_antidote"
    two_player_sheriff_win: bool = False
    draw_rule: Literal["none", "no_elimination_night_and_day"] = "none"
    first_kill_protection: bool = False
    #: R24: rounds of proposals the knife holders exchange (team-visible) before the final show; 0: they
    #: show their numbers blind. 004 §A's one-minute limit is counted as rounds.
    wolf_conferral_rounds: int = Field(default=1, ge=0, le=5)
    #: 004 §C: one wolf firmly objecting blocks that target.
    wolf_conferral_veto: bool = False
    #: A one-line team message from each knife holder in every conferral round.
    wolf_conferral_messages: bool = False


SWITCH_NAMES = frozenset(Switches.model_fields)


class Preset(BaseModel):
    """A board of RULES.md §5: its deck, classes for the side-kill count, profile and own switches."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    seed_doc: str
    players: int = Field(ge=3)
    cards: list[Role]
    profile: Literal[
        "face_to_face_000", "classic_001", "advanced_003", "competition_004a", "lyingman_004b", "last_words_004c"
    ]
    switches: dict[str, Any] = Field(default_factory=dict)
    god_roles: list[Role] = Field(default_factory=list)
    villager_roles: list[Role] = Field(default_factory=list)
    title_zh: str = ""
    title_en: str = ""
    note: str = ""

    @field_validator("switches")
    @classmethod
    def _known_switches(cls, value: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(value) - SWITCH_NAMES)
        if unknown:
            raise ValueError(f"unknown switch(es): {', '.join(unknown)}")
        return value

    @property
    def center_size(self) -> int:
        return len(self.cards) - self.players


class RuleSet(BaseModel):
    """A resolved board: the preset plus the switches in force."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    preset: Preset
    switches: Switches

    @property
    def players(self) -> int:
        return self.preset.players


@lru_cache(maxsize=1)
def _profiles() -> dict[str, dict[str, Any]]:
    raw = yaml.safe_load((CONFIG_DIR / "profiles.yaml").read_text(encoding="utf-8"))
    return {name: dict(values or {}) for name, values in raw.items()}


class ParametricBoard(BaseModel):
    """A board whose deck depends on the player count (``classic-millers``, R182): a recipe gives each role's
    count by the first player count it applies from; ``fill`` roles complete the deck (N cards, N + 2 with a
    thief, R11). Each count is also the concrete preset ``<id>-<N>``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    seed_doc: str
    players_range: tuple[int, int]
    recipe: dict[Role, dict[int, int] | Literal["fill"]]
    profile: str
    switches: dict[str, Any] = Field(default_factory=dict)
    god_roles: list[Role] = Field(default_factory=list)
    villager_roles: list[Role] = Field(default_factory=list)
    title_zh: str = ""
    title_en: str = ""

    def deck(self, players: int) -> list[Role]:
        counts: dict[Role, int | None] = {}
        for role, steps in self.recipe.items():
            counts[role] = None if steps == "fill" else max(
                (n for start, n in steps.items() if start <= players), default=0)
        size = players + (2 if counts.get(Role.THIEF) else 0)
        filler = size - sum(n for n in counts.values() if n is not None)
        cards: list[Role] = []
        for role, n in counts.items():
            cards += [role] * (filler if n is None else n)
        return cards

    def preset(self, players: int) -> Preset:
        lo, hi = self.players_range
        if not lo <= players <= hi:
            raise ConfigError(f"preset {self.id!r} is for {lo}-{hi} players, got {players}")
        return Preset(id=f"{self.id}-{players}", seed_doc=self.seed_doc, players=players, cards=self.deck(players),
                      profile=self.profile, switches=self.switches, god_roles=self.god_roles,  # type: ignore[arg-type]
                      villager_roles=self.villager_roles, title_zh=self.title_zh.format(players=players),
                      title_en=self.title_en.format(players=players))


@lru_cache(maxsize=1)
def _preset_tables() -> tuple[dict[str, Preset], dict[str, ParametricBoard]]:
    raw = yaml.safe_load((CONFIG_DIR / "presets.yaml").read_text(encoding="utf-8"))
    fixed: dict[str, Preset] = {}
    parametric: dict[str, ParametricBoard] = {}
    for preset_id, body in raw.items():
        try:
            if "recipe" in body:
                board = parametric[preset_id] = ParametricBoard(id=preset_id, **body)
                lo, hi = board.players_range
                for n in range(lo, hi + 1):
                    fixed[f"{preset_id}-{n}"] = board.preset(n)
            else:
                fixed[preset_id] = Preset(id=preset_id, **body)
        except ValidationError as exc:
            raise ConfigError(f"configs/presets.yaml, preset {preset_id!r}: {_first_error(exc)}") from None
    return fixed, parametric


def presets() -> dict[str, Preset]:
    """Every concrete board by id, a parametric board's per-count aliases (``classic-millers-10``) included."""
    return _preset_tables()[0]


def parametric_boards() -> dict[str, ParametricBoard]:
    """The boards whose deck depends on the player count, by id (``classic-millers``)."""
    return _preset_tables()[1]


def board_id(preset_id: str, players: int | None = None) -> str:
    """The concrete preset id for ``preset_id`` at ``players`` seats: a parametric board needs the count
    (``classic-millers`` at 10 is ``classic-millers-10``); a fixed board must have that many seats."""
    board = parametric_boards().get(preset_id)
    if board is not None:
        lo, hi = board.players_range
        if players is None:
            raise ConfigError(f"preset {preset_id!r} is for {lo}-{hi} players: give the player count "
                              f"(--players N), or name one board such as {preset_id}-{lo}")
        return board.preset(players).id
    preset = get_preset(preset_id)
    if players is not None and players != preset.players:
        raise ConfigError(f"preset {preset_id!r} has {preset.players} players, not {players}")
    return preset_id


def profile_switches(profile: str) -> dict[str, Any]:
    if profile not in _profiles():
        raise ConfigError(f"unknown profile {profile!r}; known: {', '.join(sorted(_profiles()))}")
    return dict(_profiles()[profile])


def get_preset(preset_id: str) -> Preset:
    table = presets()
    if preset_id not in table:
        if preset_id in parametric_boards():
            board_id(preset_id)  # raises: which player count?
        boards = parametric_boards()
        stem, _, count = preset_id.rpartition("-")
        if stem in boards and count.isdigit():
            board_id(stem, int(count))  # raises: out of the board's player range
        known = sorted(table) + [f"{name} ({b.players_range[0]}-{b.players_range[1]} players, --players N)"
                                 for name, b in sorted(boards.items())]
        raise ConfigError(f"unknown preset {preset_id!r}; known: {', '.join(known)}")
    return table[preset_id]


def resolve_rules(preset_id: str, overrides: dict[str, Any] | None = None) -> RuleSet:
    """Profile, then the preset's own values, then ``overrides`` (a ``profile`` key replaces the profile)."""
    preset = get_preset(preset_id)
    overrides = dict(overrides or {})
    profile = overrides.pop("profile", preset.profile)
    unknown = sorted(set(overrides) - SWITCH_NAMES)
    if unknown:
        raise ConfigError(f"unknown switch(es): {', '.join(unknown)}")
    values = profile_switches(profile)
    values.update(preset.switches)
    values.update(overrides)
    try:
        switches = Switches(**values)
    except ValidationError as exc:
        raise ConfigError(f"rules for preset {preset_id!r}: {_first_error(exc)}") from None
    return RuleSet(preset=preset, switches=switches)


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err.get("loc", ()))
    return f"{where}: {err.get('msg')} (got {err.get('input')!r})" if where else str(err.get("msg"))
