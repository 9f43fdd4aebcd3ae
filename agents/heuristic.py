"""``bot:heuristic``: the arena's default opponent, a rule-based player for every core role.

It plays to win with the table conventions every Chinese 12-player table knows:

* the seer checks the most suspicious unchecked player, claims on day 1 (running for sheriff) and
  repeats all its results in every speech and in its last words;
* the witch saves on night 1 (and a claimed seer on the nights the guard cannot cover him), and
  poisons a player a trusted seer checked as a wolf, a fake seer, or, when she is about to die or
  late in the game, the most suspicious player; never at random;
* the guard protects nobody on night 1 (so he never cancels the witch's night-1 save, 同守同救), then
  the claimed seer whenever the no-repeat rule allows;
* the hunter shoots a checked wolf or the clearly most suspicious player, else nobody;
* wolves knife as one: every wolf derives the same target from facts all wolves share (public
  events, the wolf channel and the game seed), gods first, and re-knife a target the guard saved
  (he cannot guard twice running); they sometimes counter-claim seer (悍跳) with fake checks, vote
  together, and bus a teammate the village has already caught;
* villagers follow the trusted seer's checks and the sheriff's vote call, and read votes: whoever
  votes against the trusted seer's information becomes suspect.

The extended roles (RULES.md §3.7-3.23) follow the same spirit:

* Cupid links himself with a player (or, where he may not, two others) and names a witness in 003;
  lovers never harm their partner (or their camp) and a camp that turns out to be a third party (a
  wolf-and-good couple, or 003's lovers camp) plays to kill everyone else: with the wolves against
  the village while that still leaves the camp able to outvote the wolves, then against the wolves;
* the thief takes a wolf card only when forced, otherwise the best god card; the maid takes the card
  of an exiled player she believes was a god;
* two seers (003) trust each other and use the extra first-night check; the little girl peeks while
  the risk is worth it and names what she saw, like the traveler; the hunter fires the hunting gun on
  a sure wolf; the witch handles several victims and the original potion;
* a claimed elder is exiled, poisoned or shot only when he is as good as a known wolf; the scapegoat
  bans suspects (or allows trusted players); the sheriff appoints a trusted auxiliary police;
* the 003 wolves add their solo kills, the fire wolf's disable and the kings' takes to the knife's
  target order: a claimed seer or god first, never a wolf, never the claimed hunter if avoidable.

Everything the bot knows comes from its own visible events, folded incrementally into
:class:`Memory`. Speeches are generated from ``prompts/<lang>/bot_speech.yaml`` and read back with
the patterns beside the templates (both languages), so bots understand each other and humans can
read them. All randomness: ``random.Random(f"{seed}:bot:{seat}")`` for the seat's own choices, plus
streams derived from the game seed and public facts for choices a team must make identically
(``{seed}:wolfteam:...``) or the whole village should agree on (``{seed}:public:...``).
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, Iterable, Sequence

import yaml

from agents.base import SyncAgent
from arena.evaluate.claims import parse_claims
from arena.actions import (Answer, ChooseOption, ChooseSeat, ChooseSeats, DecisionRequest, IllegalAnswer, LegalSet,
                           Speak)
from arena.observation import Observation
from arena.resources import data_dir
from arena.types import Kind, Role, is_wolf_card, parse_phase

#: The version of the bot's judgement (what it decides from what it sees). Bump it whenever a change moves
#: any decision: a bench entry records it, and ``arena bench compare`` refuses entries played against
#: different reference bots (issue #26).
BOT_VERSION = "heuristic-2"

PROMPTS_DIR = data_dir("prompts")
SPEECH_FILE = "bot_speech.yaml"
SPEECH_LANGS = ("en", "zh")

GOD_ROLES = frozenset({"seer", "witch", "hunter", "guard", "idiot", "elder"})
# Roles a speech can claim besides the seer; the first five are the core table's.
CLAIM_ROLES = ("hunter", "witch", "guard", "idiot", "villager", "elder", "little_girl", "traveler")
# Claims that make a speaker look good (a wolf rarely claims a checkable power role).
GOD_CLAIMS = frozenset({"hunter", "witch", "guard", "idiot", "elder"})
# Roles whose claim carries night information about wolves (the little girl's peek, the traveler's hint).
INFO_ROLES = ("little_girl", "traveler")
# What a thief would rather hold, best first (a wolf card only when forced). Cupid last: his link can
# only cost the village (a lover chain, or a wolf-and-good couple leaving it).
CARD_VALUE = {"seer": 10, "witch": 9, "guard": 8, "hunter": 7, "elder": 6, "idiot": 5, "scapegoat": 4,
              "little_girl": 4, "maid": 3, "traveler": 3, "villager": 1, "thief": 1, "cupid": 0}
# Wolf cards a forced thief prefers: solo kills and takes first, the latent brother last.
WOLF_CARD_VALUE = {"wild_wolf": 8, "black_wolf_king": 7, "white_wolf_king": 6, "fire_wolf": 5, "war_wolf": 4,
                   "werewolf": 3, "big_wolf_brother": 2, "little_wolf_brother": 1}

# Belief scale: the bot's estimate that a seat is a wolf.
PRIOR = 0.3
CHECKED_WOLF = 0.97
FAKE_SEER = 0.9
CHECKED_GOOD = 0.05
TRUSTED = 0.02
HUNTER_SHOOT_MIN = 0.7  # below this the hunter keeps his bullet: a wrong shot is a free kill for the wolves
KNOWN_WOLF = 0.85  # at or above: a checked wolf or a fake seer, as good as certain
POISON_MIN = 0.85  # a confident poison: a checked wolf or a fake seer
POISON_LATE_MIN = 0.6  # from night 3 on: strong vote evidence is enough
POISON_DYING_MIN = 0.55  # the witch is tonight's victim and cannot save herself: use it or lose it
INFO_WOLF = 0.9  # a wolf named by an uncontested little girl or traveler: as sure as a fake seer
HUNTING_GUN_MIN = KNOWN_WOLF  # the once-a-game night gun: only on a checked wolf or a fake seer
#: Speeches that say nothing (a normalised text; a copy of an earlier speech of the day counts too).
SILENT_WORDS = frozenset({"", "pass", "过", "过。", "跳过"})
EMPTY_SPEECH = 0.08  # suspicion per speech that says nothing: a seat that will not talk hides something
LATE_ROLE = 0.25  # a unique god role claimed after another seat claimed it (the counter-claim is the usual liar)
PEEK_P = 0.5  # the little girl's chance to peek on a night: a 1-in-2 catch trades her for the knife's victim


# ---- speech book -------------------------------------------------------------------------------

@lru_cache(maxsize=None)
def allows_none(legal: LegalSet) -> bool:
    """Whether a seat question may be answered with nobody (only seat and seat-list questions can)."""
    return isinstance(legal, (ChooseSeat, ChooseSeats)) and legal.allow_none


@lru_cache(maxsize=None)  # read-only: every speech of every bot reads it; parse each file once per process
def speech_book(lang: str) -> dict[str, Any]:
    """The templates and patterns of one language (English when the language has no file)."""
    path = PROMPTS_DIR / lang / SPEECH_FILE
    if not path.exists():
        path = PROMPTS_DIR / "en" / SPEECH_FILE
    return yaml.safe_load(path.read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def speech_version() -> str:
    """``speech:<8 hex>``: a hash of every language's speech file (a bot speaks from its own
    language's templates and reads speeches with every language's patterns)."""
    h = hashlib.sha256()
    for lang in SPEECH_LANGS:
        path = PROMPTS_DIR / lang / SPEECH_FILE
        if path.exists():
            h.update(f"{lang}/{SPEECH_FILE}\0".encode())
            h.update(path.read_bytes().replace(b"\r\n", b"\n"))
            h.update(b"\0")
    return "speech:" + h.hexdigest()[:8]


@lru_cache(maxsize=1)
def speech_patterns() -> dict[str, list[re.Pattern[str]]]:
    """Every language's patterns, merged per key: any bot reads any language."""
    merged: dict[str, list[re.Pattern[str]]] = {}
    for lang in SPEECH_LANGS:
        for key, regexes in (speech_book(lang).get("patterns") or {}).items():
            merged.setdefault(key, []).extend(re.compile(r, re.IGNORECASE) for r in regexes)
    return merged


@dataclass
class ParsedSpeech:
    """What one speech says, as far as the patterns can tell."""

    seer_claim: bool = False
    checks: list[tuple[int, str]] = field(default_factory=list)  # in the order spoken
    fakes: list[int] = field(default_factory=list)
    votes: list[int] = field(default_factory=list)
    roles: set[str] = field(default_factory=set)  # hunter / witch / guard / idiot / villager claims
    saved: list[int] = field(default_factory=list)
    poisoned: list[int] = field(default_factory=list)
    info_wolves: list[int] = field(default_factory=list)  # seen by a little girl or named to a traveler
    fellows: list[int] = field(default_factory=list)  # "X is the other seer" (two seers, 003)


@lru_cache(maxsize=4096)  # every seat at the table parses the same speech: parse it once (read-only result)
def parse_speech(text: str, players: int) -> ParsedSpeech:
    """Read claims from a speech in any known language. Seat numbers outside 1..players are ignored."""
    pats = speech_patterns()
    out = ParsedSpeech()

    def seats(key: str) -> list[tuple[int, int]]:
        found: list[tuple[int, int]] = []
        for pat in pats.get(key, []):
            for m in pat.finditer(text):
                value = next((g for g in m.groups() if g), None)
                if value is not None and 1 <= int(value) <= players:
                    found.append((m.start(), int(value)))
        return sorted(found)

    claims = parse_claims(text, players)  # the arena's one claim extractor: the speaker's own claims only
    out.seer_claim = "seer" in claims.roles
    out.fakes = [s for _, s in seats("fake_seer")]
    checks: dict[int, str] = {}
    for seat, result in claims.checks + claims.loose_checks:
        checks.setdefault(seat, result)
    out.checks = list(checks.items())
    out.votes = [s for _, s in seats("vote")]
    out.roles.update(r for r in claims.roles if r in CLAIM_ROLES)
    out.saved = [s for _, s in seats("witch_saved")]
    out.poisoned = [s for _, s in seats("witch_poisoned")]
    out.info_wolves = list(dict.fromkeys(s for _, s in seats("saw_wolf") + seats("traveler_wolf")))
    out.fellows = [s for _, s in seats("fellow_seer")]
    return out


# ---- memory --------------------------------------------------------------------------------------

@dataclass
class Claims:
    """What one seat has said about itself and others, accumulated over the game."""

    seer_since: int | None = None  # index of the speech where it first claimed seer (claim order)
    seer_day: int | None = None
    checks: dict[int, str] = field(default_factory=dict)
    fakes: set[int] = field(default_factory=set)
    roles: set[str] = field(default_factory=set)
    saved: set[int] = field(default_factory=set)
    votes: list[tuple[int, int]] = field(default_factory=list)  # (day, target) vote calls / intents
    info_wolves: set[int] = field(default_factory=set)  # wolves named as a little girl / traveler
    fellows: set[int] = field(default_factory=set)  # seats vouched for as the other seer
    # What real tables punish (issue #26): talk that says nothing, and stories the events or the
    # speaker's own ballots contradict.
    empty_speeches: int = 0  # "pass", or a word-for-word copy of the speech just before it
    flipped_checks: bool = False  # re-told a check with the other result
    broke_checks: int = 0  # exile ballots cast elsewhere while one of its own wolf checks was alive to vote
    voted_own_good: int = 0  # exile ballots on a seat it had itself checked good
    late_roles: set[str] = field(default_factory=set)  # unique god roles it claimed after another seat did


#: Event types the memory deliberately does not fold (it learns their facts from other events, or
#: plays as if it had not seen them).
UNFOLDED = frozenset({
    "center_cards", "night_step", "wolf_proposal", "wolf_veto", "wolf_team_message", "player_died", "vote_result",
    "speech_order", "exile_result", "answer_refused", "thought", "elder_life_lost", "skills_lost",
    "little_girl_caught", "little_girl_kill", "scapegoat_ban", "hunting_gun_fired", "fire_wolf_used",
    "aux_police_appointed", "voters_punished", "game_ended",
})


@dataclass
class Memory:
    """Facts folded from the seat's visible events. Public facts are identical for every seat."""

    players: int = 0
    role: str | None = None
    role_counts: dict[str, int] = field(default_factory=dict)
    phase: str = "N1"
    wolves: set[int] = field(default_factory=set)
    alive: set[int] = field(default_factory=set)
    night_deaths: dict[int, list[int]] = field(default_factory=dict)
    day_deaths: dict[int, list[int]] = field(default_factory=dict)
    revealed: dict[int, str] = field(default_factory=dict)  # seat -> card, by a public reveal
    sheriff: int | None = None
    candidates: list[int] = field(default_factory=list)
    withdrawn: set[int] = field(default_factory=set)
    ballots: list[tuple[int, str, int, int | None]] = field(default_factory=list)  # (day, ballot, voter, target)
    claims: dict[int, Claims] = field(default_factory=dict)
    speech_count: int = 0
    speeches_today: list[tuple[int, str]] = field(default_factory=list)  # (seat, kind)
    last_text: str = ""  # the day's latest speech, normalised: repeating it word for word says nothing
    pk_platform: list[int] = field(default_factory=list)
    # private knowledge
    seer_results: dict[int, str] = field(default_factory=dict)
    check_order: list[int] = field(default_factory=list)
    witch_told: dict[int, int | None] = field(default_factory=dict)
    witch_saved: dict[int, int] = field(default_factory=dict)
    witch_poisoned: dict[int, int] = field(default_factory=dict)
    guarded: dict[int, int | None] = field(default_factory=dict)
    knives: dict[int, int | None] = field(default_factory=dict)  # night -> wolves' consensus target
    hunter_can_shoot: bool = True
    shot: set[int] = field(default_factory=set)  # hunter-shot seats: their night death was no knife
    calls_at_vote: dict[int, int | None] = field(default_factory=dict)  # day -> sheriff's call when voting began
    switches: dict[str, Any] = field(default_factory=dict)
    # extended roles: public facts
    maid_from: dict[int, int] = field(default_factory=dict)  # maid -> the exiled seat whose card she took
    # extended roles: private knowledge
    lovers: tuple[int, int] | None = None  # known to Cupid, the lovers and (003) the witness
    cupid: int | None = None
    witness: int | None = None
    camp_roles: dict[int, str] = field(default_factory=dict)  # cards told by lovers_recognised
    camp_told: set[int] = field(default_factory=set)  # 003: Cupid, lovers and witness know each other
    thief_cards: list[str] = field(default_factory=list)
    peeked: dict[int, list[int]] = field(default_factory=dict)  # night -> wolves the little girl saw awake
    peek_alive: set[int] = field(default_factory=set)  # who was alive when she saw them
    traveler_wolf: int | None = None
    fellow_seers: set[int] = field(default_factory=set)
    witch_victims: dict[int, list[int]] = field(default_factory=dict)
    knife_voters: dict[int, set[int]] = field(default_factory=dict)  # night -> wolves who voted the knife
    solo_kills: dict[int, int | None] = field(default_factory=dict)  # night -> the brother's / wild wolf's own kill
    lovers_knife: bool = False  # 003: the wolves are gone and the lovers camp holds the knife
    lovers_knife_nights: set[int] = field(default_factory=set)  # the nights this seat knifed with the camp

    @property
    def day(self) -> int:
        return parse_phase(self.phase)[1]

    @property
    def is_night(self) -> bool:
        return parse_phase(self.phase)[0]

    def claim(self, seat: int) -> Claims:
        return self.claims.setdefault(seat, Claims())

    def seer_claimants(self) -> list[int]:
        """Seats that claimed seer, in claim order."""
        found = [(c.seer_since, s) for s, c in self.claims.items() if c.seer_since is not None]
        return [s for _, s in sorted(found)]

    def died_at_night(self, seat: int) -> bool:
        """Died in a night (knife or poison), not by a night hunter's shot."""
        return seat not in self.shot and any(seat in seats for seats in self.night_deaths.values())

    def sheriff_call(self, day: int) -> int | None:
        """The sheriff's latest vote call of that day, if he made one."""
        if self.sheriff is None:
            return None
        calls = [t for d, t in self.claims.get(self.sheriff, Claims()).votes if d == day]
        return calls[-1] if calls else None

    def apply(self, e: Any) -> None:
        t = e.type
        if t == "game_started":
            self.players = e.players
            self.role_counts = dict(e.role_counts)
            self.alive = set(range(1, e.players + 1))
        elif t == "role_assigned":
            self.role = e.role.value
        elif t == "phase_started":
            self.phase = e.phase
            if not self.is_night:
                self.speeches_today = []
                self.last_text = ""
                self.pk_platform = []
        elif t == "wolf_team":
            self.wolves = set(e.wolves)
        elif t == "deaths_announced":
            night, k = parse_phase(e.death_phase)
            for s in e.seats:
                self.alive.discard(s)
                (self.night_deaths if night else self.day_deaths).setdefault(k, []).append(s)
        elif t == "role_revealed":
            self.revealed[e.seat] = e.role.value
        elif t == "idiot_revealed":
            self.revealed[e.seat] = "idiot"
        elif t == "self_destructed":
            self.revealed.setdefault(e.seat, "werewolf")
        elif t == "sheriff_candidates":
            self.candidates = list(e.seats)
        elif t == "sheriff_withdrew":
            self.withdrawn.add(e.seat)
        elif t == "sheriff_elected":
            self.sheriff = e.seat
        elif t == "badge_moved":
            self.sheriff = e.to_seat if e.action == "passed" else None
        elif t == "ballot_cast":
            day = parse_phase(e.phase)[1]
            if e.ballot == "exile" and day not in self.calls_at_vote:
                self.calls_at_vote[day] = self.sheriff_call(day)
            self.ballots.append((day, e.ballot, e.voter, e.target))
            if e.ballot == "exile":
                self._judge_ballot(e.voter, e.target)
        elif t == "pk_platform":
            if e.ballot == "exile":
                self.pk_platform = list(e.seats)
        elif t == "speech":
            self._speech(e)
        elif t == "seer_result":
            if e.result in ("none", "", None):
                return  # skills disabled: no result to remember
            if e.target not in self.seer_results:
                self.check_order.append(e.target)
            # Under seer_result=exact_role the result is the card: fold it to wolf / good.
            self.seer_results[e.target] = "wolf" if e.result == "wolf" or is_wolf_card(e.result) else "good"
        elif t == "witch_told":
            night_no = parse_phase(e.phase)[1]
            self.witch_told[night_no] = e.victim
            self.witch_victims[night_no] = list(e.victims or ([e.victim] if e.victim is not None else []))
        elif t == "witch_saved":
            self.witch_saved[parse_phase(e.phase)[1]] = e.target
        elif t == "witch_poisoned":
            self.witch_poisoned[parse_phase(e.phase)[1]] = e.target
        elif t == "guard_protected":
            self.guarded[parse_phase(e.phase)[1]] = e.target if e.effective else None
        elif t == "wolf_knife":
            self.knives[parse_phase(e.phase)[1]] = e.target
        elif t == "wolf_knife_vote":
            self.knife_voters.setdefault(parse_phase(e.phase)[1], set()).add(e.seat)
        elif t == "hunter_shot":
            self.shot.add(e.target)
            self.revealed[e.seat] = "hunter"
        elif t == "hunter_status":
            self.hunter_can_shoot = e.can_shoot
        else:
            self._apply_extended(e)

    def _judge_ballot(self, voter: int, target: int | None) -> None:
        """A seer claimant's first-round exile ballot against its own story: elsewhere while one of its
        wolf checks stood alive to be voted, or on a seat it had checked good."""
        c = self.claims.get(voter)
        if c is None or c.seer_since is None:
            return
        if target is not None and c.checks.get(target) == "good":
            c.voted_own_good += 1
        open_wolves = [s for s, r in c.checks.items() if r == "wolf" and s in self.alive and s != voter
                       and self.revealed.get(s) != "idiot"]
        if open_wolves and target not in open_wolves:
            c.broke_checks += 1

    def _apply_extended(self, e: Any) -> None:
        """Events of the extended roles (RULES.md §3.7-3.23)."""
        t = e.type
        if t == "lovers_linked":
            self.cupid = e.cupid
            if len(e.lovers) == 2:
                self.lovers = (min(e.lovers), max(e.lovers))
        elif t == "lovers_recognised":
            self.lovers = (min(e.lovers), max(e.lovers))
            self.camp_roles.update({s: r.value for s, r in (e.roles or {}).items()})
            self.camp_told = set(e.camp or ())
        elif t == "witness_named":
            self.cupid = e.cupid
            self.witness = e.witness
        elif t == "thief_cards":
            self.thief_cards = [c.value for c in e.cards]
        elif t == "little_girl_peeked":
            self.peeked[parse_phase(e.phase)[1]] = list(e.wolves)
            self.peek_alive = set(self.alive)
        elif t in ("brother_kill", "wild_wolf_kill"):
            self.solo_kills[parse_phase(e.phase)[1]] = e.target
        elif t == "traveler_info":
            self.traveler_wolf = e.wolf
        elif t == "seers_met":
            self.fellow_seers = set(e.seers)
        elif t == "maid_swapped":
            self.revealed.pop(e.seat, None)  # she no longer holds the maid card; the table does not know hers
            self.maid_from[e.seat] = e.from_seat
        elif t == "king_took":
            self.revealed[e.seat] = "white_wolf_king" if e.king == "white" else "black_wolf_king"
        elif t not in UNFOLDED:
            # Every event type is folded above or listed as unfolded; tests/test_event_folds.py holds
            # both against the event union, so a new event class is a decision made here.
            raise ValueError(f"the heuristic bot's memory has no fold for event {t!r}: fold it in Memory.apply "
                             "or list it in UNFOLDED")

    def _speech(self, e: Any) -> None:
        self.speech_count += 1
        self.speeches_today.append((e.seat, e.kind))
        parsed = parse_speech(e.text, self.players)
        c = self.claim(e.seat)
        day = parse_phase(e.phase)[1]
        words = " ".join(str(e.text).split()).lower()
        if e.kind != "last_words":
            if words.strip(" .。!！") in SILENT_WORDS or words == self.last_text:
                c.empty_speeches += 1
            self.last_text = words
        if parsed.seer_claim and c.seer_since is None:
            c.seer_since = self.speech_count
            c.seer_day = day
        if c.seer_since is not None:
            for target, result in parsed.checks:
                if target != e.seat:
                    if c.checks.get(target, result) != result:
                        c.flipped_checks = True
                    c.checks[target] = result
            c.fakes.update(s for s in parsed.fakes if s != e.seat)
        for role in parsed.roles - c.roles:
            if role in GOD_CLAIMS and any(role in o.roles for s, o in self.claims.items() if s != e.seat):
                c.late_roles.add(role)  # a unique god card claimed twice: one of the two lies
        c.roles.update(parsed.roles)
        c.saved.update(parsed.saved)
        if c.roles & set(INFO_ROLES):
            c.info_wolves.update(s for s in parsed.info_wolves if s != e.seat)
        if c.seer_since is not None:
            c.fellows.update(s for s in parsed.fellows if s != e.seat)
        for target in parsed.votes:
            if target != e.seat:
                c.votes.append((day, target))


# ---- the bot -------------------------------------------------------------------------------------

class HeuristicBot(SyncAgent):
    """A decent rule-based player for every role of RULES.md: the seven core roles and the extended ones."""

    spec = "bot:heuristic"
    deterministic = True
    #: Tests set this to see the bot's own errors; in play an error falls back to the default answer.
    strict = False

    def __init__(self, seat: int, seed: int, lang: str = "en", beliefs: str | None = None):
        self.seat = seat
        self.seed = seed
        self.lang = lang if lang in SPEECH_LANGS else "en"
        # A listener for the bench's belief metrics (issue #26): with a mode (arena.rules.beliefs) the bot
        # reports its private P(wolf), at its exile votes ("votes") or when the referee asks; none by default.
        self.belief_mode = None if beliefs in (None, "off") else str(beliefs)
        self.rng = random.Random(f"{seed}:bot:{seat}")
        self.mem = Memory()
        self._seen = 0
        self._cache: dict[str, Any] = {}
        # A wolf designated to counter-claim seer keeps its invented results here (in claim order).
        self.fake_checks: dict[int, str] = {}
        self.interjected: set[tuple[int, int]] = set()  # (day, speaker) a revealed idiot talked with

    @property
    def prompt_version(self) -> str:
        """For the transcript header: the bot's judgement and the speech templates it talks and listens
        with (``heuristic-2 speech:6de90af8``), so a bench entry reads the reference's version from the
        games it played."""
        return f"{BOT_VERSION} {speech_version()}"

    @property
    def settings(self) -> dict[str, Any]:
        return {"lang": self.lang} if self.belief_mode is None else {"lang": self.lang, "beliefs": self.belief_mode}

    # ---- the one entry point ----------------------------------------------------------------
    def decide_sync(self, observation: Observation, request: DecisionRequest) -> Answer:
        self._absorb(observation)
        self._cache = {}
        try:
            value = self._decide(request)
            value = request.check(value)
        except Exception:  # a bug here must never cost the seat a legal answer
            if self.strict:
                raise
            value = self._safe_default(request)
        if request.kind == Kind.BELIEF and isinstance(value, dict):
            return Answer(value=value, beliefs=value)  # the referee's own request: the report is the answer
        if self.belief_mode is not None and request.kind in (Kind.VOTE, Kind.PK_VOTE):
            return Answer(value=value, beliefs=self._reported_beliefs())
        return Answer(value=value)

    def _reported_beliefs(self, seats: Iterable[int] | None = None) -> dict[int, float]:
        """The private P(wolf) of the other living seats (or of ``seats``), rounded for the transcript."""
        bel = self.beliefs()
        wanted = seats if seats is not None else sorted(self.mem.alive - {self.seat})
        return {s: round(bel.get(s, PRIOR), 3) for s in wanted}

    def _absorb(self, observation: Observation) -> None:
        events: Sequence[Any] = observation.events
        if self.mem.players == 0:
            self.mem.players = observation.players
            self.mem.alive = set(range(1, observation.players + 1))
            self.mem.switches = dict(observation.switches or {})
        fresh = events[self._seen:] if len(events) >= self._seen else observation.new_events
        for event in fresh:
            self.mem.apply(event)
        self._seen = len(events)

    def _safe_default(self, request: DecisionRequest) -> Any:
        try:
            return request.check(request.default)
        except IllegalAnswer:
            legal = request.legal
            if isinstance(legal, (ChooseSeat, ChooseOption)) and legal.options:
                return legal.options[0]
            if isinstance(legal, Speak):
                return "pass"
            return request.default

    def _decide(self, req: DecisionRequest) -> Any:
        kind = req.kind
        handlers: dict[str, Callable[[DecisionRequest], Any]] = {
            Kind.GUARD: self._guard,
            Kind.WOLF_KILL: self._wolf_kill,
            Kind.WOLF_PROPOSE: self._wolf_kill,
            Kind.WOLF_VETO: self._wolf_veto,
            Kind.WOLF_MESSAGE: lambda r: "pass",  # its proposal says it all
            Kind.WITCH_SAVE: self._witch_save,
            Kind.WITCH_POISON: self._witch_poison,
            Kind.SEER_CHECK: self._seer_check,
            Kind.SHERIFF_RUN: self._sheriff_run,
            Kind.SHERIFF_WITHDRAW: self._sheriff_withdraw,
            Kind.SHERIFF_VOTE: self._sheriff_vote,
            Kind.SHERIFF_PK_VOTE: self._sheriff_vote,
            Kind.SELF_DESTRUCT_ELECTION: self._self_destruct_election,
            Kind.SELF_DESTRUCT: self._self_destruct,
            Kind.VOTE: self._vote,
            Kind.PK_VOTE: self._vote,
            Kind.HUNTER_SHOOT: self._hunter_shoot,
            Kind.BADGE: self._badge,
            Kind.SPEECH: self._speech,
            Kind.LAST_WORDS: self._speech,
            Kind.IDIOT_REVEAL: lambda r: True,  # revealing keeps the idiot alive
            Kind.IDIOT_INTERJECT: self._interject,
            Kind.INTERJECTION_REPLY: lambda r: "pass",  # the speaker lets the remark stand
            Kind.SPEECH_ORDER_PICK: lambda r: r.default,
            Kind.THIEF_PICK: self._thief_pick,
            Kind.CUPID_LINK: self._cupid_link,
            Kind.CUPID_WITNESS: self._cupid_witness,
            Kind.SEER_CHECK_EXTRA: self._seer_check,
            Kind.WITCH_ORIGINAL_SAVE: self._witch_save,
            Kind.WITCH_ORIGINAL_POISON: self._witch_poison,
            Kind.HUNTING_GUN_SHOOT: self._hunting_gun,
            Kind.LITTLE_GIRL_PEEK: self._little_girl_peek,
            Kind.LITTLE_GIRL_KILL: self._little_girl_kill,
            Kind.BROTHER_KILL: self._solo_kill,
            Kind.WILD_WOLF_KILL: self._solo_kill,
            Kind.FIRE_WOLF_DISABLE: self._fire_wolf_disable,
            Kind.WHITE_WOLF_KING_TAKE: self._king_take,
            Kind.WOLF_KING_SHOOT: self._king_take,
            Kind.SCAPEGOAT_BAN: self._scapegoat_ban,
            Kind.MAID_SWAP: self._maid_swap,
            Kind.AUX_POLICE_APPOINT: self._aux_police,
            Kind.BELIEF: lambda r: self._reported_beliefs(getattr(r.legal, "seats", None)),
        }
        handler = handlers.get(kind)
        if handler is None:
            return self._safe_default(req)
        return handler(req)

    # ---- shared helpers ------------------------------------------------------------------------
    @property
    def is_wolf(self) -> bool:
        return self.mem.role is not None and is_wolf_card(self.mem.role)

    def _options(self, req: DecisionRequest) -> list[int]:
        return [o for o in getattr(req.legal, "options", ()) if isinstance(o, int) and not isinstance(o, bool)]

    def _tiebreak(self, tag: str) -> dict[int, float]:
        """A public, seed-derived order: every bot that ranks by the same scores breaks ties alike."""
        key = f"tb:{tag}"
        if key not in self._cache:
            r = random.Random(f"{self.seed}:public:{tag}")
            self._cache[key] = {s: r.random() for s in range(1, self.mem.players + 1)}
        return self._cache[key]

    def _argmax(self, seats: Iterable[int], score: dict[int, float], tag: str) -> int | None:
        tb = self._tiebreak(tag)
        seats = list(seats)
        if not seats:
            return None
        return max(seats, key=lambda s: (round(score.get(s, PRIOR), 6), tb[s]))

    def _argmin(self, seats: Iterable[int], score: dict[int, float], tag: str) -> int | None:
        tb = self._tiebreak(tag)
        seats = list(seats)
        if not seats:
            return None
        return min(seats, key=lambda s: (round(score.get(s, PRIOR), 6), tb[s]))

    def _in_game(self, role: str) -> bool:
        return self.mem.role_counts.get(role, 0) > 0

    def _claimed(self, seat: int, role: str) -> bool:
        """Has this seat claimed the role in a speech, or had the card turned face up?"""
        return self.mem.revealed.get(seat) == role or role in self.mem.claims.get(seat, Claims()).roles

    def _spared(self, seat: int, bel: dict[int, float]) -> bool:
        """A claimed elder is exiled, poisoned or shot only when he is as good as a known wolf: the
        village's own killing of a real elder costs every good role its skills (R133)."""
        return self._in_game("elder") and self._claimed(seat, "elder") and bel.get(seat, PRIOR) < KNOWN_WOLF

    # ---- lovers and camps --------------------------------------------------------------------------
    def _link_members(self) -> set[int]:
        """Everyone this seat knows to be tied by Cupid's link: the lovers, Cupid, 003's witness."""
        m = self.mem
        out = set(m.lovers or ()) | set(m.camp_told)
        for s in (m.cupid, m.witness):
            if s is not None:
                out.add(s)
        return out

    def _card_is_wolf(self, seat: int) -> bool | None:
        """Does this seat hold a wolf card, as far as this seat can tell (None: no idea)?"""
        m = self.mem
        if seat == self.seat:
            return self.is_wolf
        if seat in m.camp_roles:
            return is_wolf_card(m.camp_roles[seat])
        if seat in m.revealed:
            return is_wolf_card(m.revealed[seat])
        if self.is_wolf:
            return seat in m.wolves
        b = self.beliefs().get(seat, PRIOR)
        return True if b >= KNOWN_WOLF else False if b <= CHECKED_GOOD else None

    def lovers_mixed(self) -> bool | None:
        """Is the couple one wolf and one good player (a third party, R144)? None while unknown."""
        lovers = self.mem.lovers
        if lovers is None:
            return None
        a, b = (self._card_is_wolf(s) for s in lovers)
        if a is None or b is None:
            return None
        return a != b

    def camp(self) -> str:
        """The side this seat plays for: ``village``, ``wolves`` or ``lovers`` (R144, R147)."""
        if "camp" in self._cache:
            return self._cache["camp"]
        m = self.mem
        base = "wolves" if self.is_wolf else "village"
        camp = base
        if self.seat in self._link_members():
            mode = m.switches.get("cupid_camp", "follows_lovers")
            if mode == "always_third":
                camp = "lovers"
            elif self.lovers_mixed():
                is_lover = self.seat in (m.lovers or ())
                camp = "lovers" if is_lover or mode != "always_good" else base
        self._cache["camp"] = camp
        return camp

    def friends(self) -> set[int]:
        """Seats this one never votes, poisons, shoots or knifes: its lover (their deaths are one, R143),
        and every member of a camp the link made; Cupid spares his couple unless it is his enemy."""
        if "friends" in self._cache:
            return self._cache["friends"]
        m = self.mem
        out: set[int] = set()
        if m.lovers is not None and self.seat in m.lovers:
            out |= set(m.lovers)
        if self.camp() == "lovers":
            out |= self._link_members()
        elif self.seat == m.cupid and m.lovers is not None:
            enemy = m.switches.get("cupid_camp") == "always_good" and self.lovers_mixed()
            if not enemy:
                out |= set(m.lovers)
        out.discard(self.seat)
        self._cache["friends"] = out
        return out

    # ---- seer trust ------------------------------------------------------------------------------
    def seer_status(self, private: bool = True) -> tuple[int | None, set[int]]:
        """(the seer claimant this seat trusts most, the claimants it takes for fakes).

        ``private=False`` uses public facts only: what the village as a whole can conclude, which
        is also what the wolves predict the village will do. With two seers in the deck (003) the
        two best-supported claimants are trusted (:meth:`trusted_seers`).
        """
        key = f"seer:{private}"
        if key in self._cache:
            return self._cache[key]
        m = self.mem
        claimants = m.seer_claimants()
        slots = max(1, m.role_counts.get("seer", 1))
        fakes: set[int] = set()
        trusted_list: list[int] = []
        confident = True
        if private and m.role == "seer":
            mates = m.fellow_seers - {self.seat}
            fakes = {c for c in claimants if c != self.seat and c not in mates}
            trusted_list = [self.seat] + [c for c in claimants if c in mates]
        elif private and self.is_wolf:
            fakes = {c for c in claimants if c in m.wolves}
            trusted_list = [c for c in claimants if c not in m.wolves][:slots]
        else:
            score: dict[int, float] = {}
            told = {v for vs in m.witch_victims.values() for v in vs}
            for c in claimants:
                cl = m.claims[c]
                card = m.revealed.get(c)
                if card is not None and is_wolf_card(card):
                    fakes.add(c)
                    continue
                for target, result in cl.checks.items():
                    shown = m.revealed.get(target)
                    if shown is not None and (is_wolf_card(shown) != (result == "wolf")):
                        fakes.add(c)  # a result contradicted by a revealed card
                if private and cl.checks.get(self.seat) == "wolf":
                    fakes.add(c)  # "checked" me, and I know I am good
                if self._impossible_story(cl):
                    fakes.add(c)
                s = 0.0
                if c == claimants[0]:
                    s += 0.15  # the real seer rarely waits; a counter-claim usually comes second
                first_day = m.claims[claimants[0]].seer_day
                if cl.seer_day is not None and first_day is not None and cl.seer_day > first_day:
                    s -= 0.3  # a counter-claim on a later day: the real seer claims from day 1
                if m.died_at_night(c):
                    s += 0.4  # the wolves knife the real seer, not their own fake
                # A wolf check on a seat that died alone in a night: the knife's victim, and the wolves
                # do not knife their own (a night with two deaths may be the witch's poison on him).
                s -= 0.4 * sum(1 for t, r in cl.checks.items() if r == "wolf" and self._knifed(t))
                s -= 0.3 * min(cl.broke_checks, 2)  # would not vote its own wolf check
                if private and cl.checks.get(self.seat) == "good":
                    s += 0.1
                if private and m.role == "witch":
                    if c in told:
                        s += 1.0  # the wolves knifed this claimant: he is the real one
                    # His "wolf" was the wolves' victim; with a hunting gun in play a victim may be a
                    # wolf the hunter shot, so the tell only holds without one.
                    if not m.switches.get("hunting_gun"):
                        for target, result in cl.checks.items():
                            if result == "wolf" and target in told:
                                fakes.add(c)
                score[c] = s
            for c in score:  # two seers who vouch for each other (003) are both real
                if any(f in score and c in m.claims[f].fellows for f in m.claims[c].fellows):
                    score[c] += 0.3
            live = [c for c in claimants if c not in fakes]
            if live:
                ranked = sorted(live, key=lambda c: (-score[c], claimants.index(c)))
                trusted_list = ranked[:slots]
                if len(ranked) > slots:
                    # Stories beyond the seer count cannot all be true: the weaker ones are the wolves'.
                    # With only weak evidence (claim order) the bot acts on it but stakes no shot on it.
                    confident = score[ranked[slots - 1]] - score[ranked[slots]] >= 0.3
                    fakes.update(ranked[slots:])
        trusted = trusted_list[0] if trusted_list else None
        self._cache[key] = (trusted, fakes)
        self._cache[f"seers:{private}"] = trusted_list
        self._cache[f"seer_confident:{private}"] = confident
        return trusted, fakes

    def _impossible_story(self, cl: Claims) -> bool:
        """A seer story no real seer can tell: more checks than nights so far, a check re-told with the
        other result, more wolves than the deck holds, a ballot on a seat it had itself cleared, or a
        second card claimed beside the seer's."""
        m = self.mem
        nights = m.day + (1 if m.switches.get("seer_first_night_extra_check") else 0)
        wolves = sum(n for card, n in m.role_counts.items() if is_wolf_card(card)) or 4
        found = sum(1 for r in cl.checks.values() if r == "wolf")
        return (len(cl.checks) > nights or cl.flipped_checks or found > wolves or cl.voted_own_good > 0
                or bool(cl.roles))  # a seer who also claimed another card (the witch, a villager...)

    def _knifed(self, seat: int) -> bool:
        """Died at night, the only death of that night (so the knife's victim, not a poisoned wolf)."""
        m = self.mem
        if not m.died_at_night(seat):
            return False
        return any(seat in seats and len(seats) == 1 for seats in m.night_deaths.values())

    def trusted_seers(self, private: bool = True) -> list[int]:
        """Every seer claimant this seat believes, most trusted first (two with two seers in the deck)."""
        self.seer_status(private)
        return self._cache[f"seers:{private}"]

    def seer_confident(self, private: bool = True) -> bool:
        """Is the seer fight (if any) settled by real evidence rather than claim order alone?"""
        self.seer_status(private)
        return self._cache[f"seer_confident:{private}"]

    # ---- beliefs ----------------------------------------------------------------------------------
    def beliefs(self, private: bool = True) -> dict[int, float]:
        """Estimated wolf likelihood of every seat (dead ones too, for reading old votes)."""
        key = f"bel:{private}"
        if key in self._cache:
            return self._cache[key]
        m = self.mem
        n = m.players
        trusted, fakes = self.seer_status(private)
        trusted_list = self.trusted_seers(private)
        sure = self.seer_confident(private)
        wolf_check, good_check, fake_seer, trusted_level = (
            (CHECKED_WOLF, CHECKED_GOOD, FAKE_SEER, TRUSTED) if sure else (0.75, 0.15, 0.65, 0.15))
        fixed: dict[int, float] = {}
        for s, card in m.revealed.items():
            fixed[s] = 1.0 if is_wolf_card(card) else 0.0
        if private:
            if self.is_wolf:
                for s in range(1, n + 1):
                    fixed[s] = 1.0 if s in m.wolves else 0.0
            else:
                fixed[self.seat] = 0.0
                if m.role == "seer":
                    for s, r in m.seer_results.items():
                        fixed.setdefault(s, 1.0 if r == "wolf" else 0.0)
                for s in m.fellow_seers:
                    fixed.setdefault(s, 0.0)  # 003: the seers know each other
                self._private_sightings(fixed)
            for s, card in m.camp_roles.items():
                fixed.setdefault(s, 1.0 if is_wolf_card(card) else 0.0)
        score: dict[int, float] = {}
        checked: set[int] = set()
        for t in trusted_list:
            score[t] = trusted_level
        for i, t in enumerate(trusted_list):
            story = m.claims.get(t, Claims())
            for s, r in story.checks.items():
                if s in trusted_list or (i > 0 and s in checked):
                    continue  # on a conflict the most trusted seer's word stands
                score[s] = wolf_check if r == "wolf" else good_check
                checked.add(s)
            for s in story.fakes:
                score.setdefault(s, fake_seer)
        for s in fakes:
            score[s] = max(score.get(s, 0.0), fake_seer)
        self._info_claims(score, fixed, fakes, good_check)
        known_good = {s for s, v in {**score, **fixed}.items() if v <= CHECKED_GOOD}
        known_wolf = {s for s, v in {**score, **fixed}.items() if v >= FAKE_SEER}
        evidence = {s: 0.0 for s in range(1, n + 1)}
        for day, ballot, voter, target in m.ballots:
            if ballot == "exile":
                call = m.calls_at_vote.get(day)
                if call is not None and target is not None and target != call and target not in known_wolf \
                        and call not in known_good:
                    evidence[voter] += 0.06  # broke from the sheriff's call: a bloc of these is the wolves
            if ballot in ("exile", "pk"):
                if target is None:
                    evidence[voter] += 0.03
                elif target in known_good:
                    evidence[voter] += 0.15  # voted out a player the seer cleared
                elif target in known_wolf:
                    evidence[voter] -= 0.08
            else:  # sheriff ballots
                if target in fakes:
                    evidence[voter] += 0.12
                elif target is not None and target == trusted:
                    evidence[voter] -= 0.05
        # Voting along with a player later shown to be a wolf.
        revealed_wolves = {s for s, c in m.revealed.items() if is_wolf_card(c)}
        if revealed_wolves:
            wolf_votes = {(d, b, t) for d, b, v, t in m.ballots if v in revealed_wolves and t is not None}
            for d, b, v, voted in m.ballots:
                if v not in revealed_wolves and (d, b, voted) in wolf_votes:
                    evidence[v] += 0.1
        for s, c in m.claims.items():
            for _, target in c.votes:
                if target in known_good:
                    evidence[s] += 0.05
            two_cards = len(c.roles) + (c.seer_since is not None) > 1  # claimed two cards: one is a lie
            if c.roles & (GOD_CLAIMS | set(INFO_ROLES)) and not c.late_roles and not two_cards:
                evidence[s] -= 0.15
            evidence[s] += LATE_ROLE * len(c.late_roles) + EMPTY_SPEECH * min(c.empty_speeches, 4)
            if two_cards:
                evidence[s] += 0.3
            for t in c.saved:
                evidence[t] -= 0.1
        if private and m.role == "witch":
            for victims in m.witch_victims.values():
                for victim in victims:
                    evidence[victim] -= 0.25  # the wolves do not knife their own
        out: dict[int, float] = {}
        for s in range(1, n + 1):
            if s in fixed:
                out[s] = fixed[s]
            elif s in score:
                out[s] = min(0.99, max(0.01, score[s] + evidence[s] * 0.3))
            else:
                out[s] = min(0.95, max(0.02, PRIOR + evidence[s]))
        for maid, source in m.maid_from.items():
            if maid not in fixed:
                out[maid] = out.get(source, PRIOR)  # she now holds the card the village exiled
        self._cache[key] = out
        return out

    def _private_sightings(self, fixed: dict[int, float]) -> None:
        """What the little girl saw (every awake wolf, so everyone else alive then is good) and the
        wolf the traveler was told of."""
        m = self.mem
        if m.peeked:
            seen = {w for wolves in m.peeked.values() for w in wolves}
            if seen:
                for s in seen:
                    fixed[s] = 1.0
                for s in m.peek_alive - seen:
                    fixed.setdefault(s, 0.0)
        if m.traveler_wolf is not None:
            fixed[m.traveler_wolf] = 1.0

    def _info_claims(self, score: dict[int, float], fixed: dict[int, float], fakes: set[int],
                     good_check: float) -> None:
        """Wolves named by a little girl or a traveler: believed when the role is in the deck, nobody
        else claims it, the claimant is not a known wolf, and no trusted seer cleared the seat."""
        m = self.mem
        for claimant, cl in m.claims.items():
            if not cl.info_wolves or claimant in fakes or fixed.get(claimant, 0.0) >= 0.5:
                continue
            role = next((r for r in INFO_ROLES if r in cl.roles), None)
            if role is None or not self._in_game(role):
                continue
            rivals = [s for s, c in m.claims.items() if role in c.roles]
            if len(rivals) > m.role_counts.get(role, 1):
                continue  # contested: one of them lies, trust neither
            for s in cl.info_wolves:
                if score.get(s, PRIOR) > good_check:
                    score[s] = max(score.get(s, 0.0), INFO_WOLF)

    # ---- night decisions ------------------------------------------------------------------------
    def _guard(self, req: DecisionRequest) -> int | None:
        last = req.context.get("last_guarded")
        options = [s for s in self._options(req) if s != last]  # under guard_repeat=void a repeat is wasted
        m = self.mem
        if m.day == 1 and allows_none(req.legal):
            return None  # night 1: the witch will save; guarding too would kill (同守同救)
        trusted, _ = self.seer_status()
        if trusted is not None and trusted in options and trusted in m.alive:
            return trusted
        partner = [s for s in options if m.lovers is not None and self.seat in m.lovers and s in m.lovers
                   and s != self.seat]
        if partner:
            return partner[0]  # a lover guards his partner: their deaths are one
        bel = self.beliefs()
        if m.sheriff is not None and m.sheriff in options and bel.get(m.sheriff, PRIOR) < 0.2:
            return m.sheriff
        if self.seat in options and self.rng.random() < 0.5:
            return self.seat
        low = [s for s in options if bel.get(s, PRIOR) <= 0.3] or options
        return self.rng.choice(low) if low else None

    def _guard_covers(self, seat: int, night: int) -> bool:
        """Would the guard (by the convention above) protect this claimed seer tonight?"""
        if not self._in_game("guard"):
            return False
        day = self.mem.claims.get(seat, Claims()).seer_day
        if day is None:
            return False
        return night > day and (night - day - 1) % 2 == 0

    def _witch_save(self, req: DecisionRequest) -> Any:
        """``witch_save`` and ``witch_original_save``: true/false for one shown victim; with several
        victims (003) the seat to save, or false."""
        legal = req.legal
        if isinstance(legal, ChooseOption):
            seats = [o for o in legal.options if isinstance(o, int) and not isinstance(o, bool)]
            if not seats:
                return False  # the save is not allowed now
            pick = self._save_choice(seats)
            return pick if pick is not None else False
        if legal.type != "bool":
            return False
        victim = req.context.get("victim")
        if victim is None:
            return False
        return self._save_choice([victim]) == victim

    def _save_choice(self, victims: list[int]) -> int | None:
        """Which shown victim the witch saves, if any."""
        m = self.mem
        friends = self.friends()
        for v in victims:
            if v in friends:
                return v  # a lover saves her partner: his death is hers
        if m.switches.get("witch_informed_elder_first_hit"):
            # She is shown the hit his extra life absorbs anyway: an antidote on a claimed elder is
            # likely wasted (OQ40). Otherwise a shown elder is on his last life: save him as anyone.
            victims = [v for v in victims if not self._claimed(v, "elder")]
        if not victims:
            return None
        night = m.day
        bel = self.beliefs()
        if night == 1:
            return self._argmin(victims, bel, "save:1")  # the first-night save: the victim is almost surely good
        trusted_list = self.trusted_seers()
        for victim in sorted(victims, key=lambda v: (bel.get(v, PRIOR), v)):
            covered = self._guard_covers(victim, night)
            if victim in m.seer_claimants() and bel.get(victim, PRIOR) < 0.5 and not covered:
                return victim
            if not self._in_game("guard") and bel.get(victim, PRIOR) <= CHECKED_GOOD:
                return victim  # a cleared player or revealed god: nobody else can protect him
            if victim in trusted_list and not covered:
                return victim
        return None

    def _witch_poison(self, req: DecisionRequest) -> int | None:
        """``witch_poison`` and ``witch_original_poison``."""
        friends = self.friends()
        options = [s for s in self._options(req) if s != self.seat and s not in friends]
        if not options:
            return None
        m = self.mem
        bel = self.beliefs()
        options = [s for s in options if not self._spared(s, bel)]
        target = self._argmax(options, bel, f"poison:{m.day}")
        if target is None:
            return None
        dying = self.seat in m.witch_victims.get(m.day, []) and m.witch_saved.get(m.day) != self.seat
        threshold = POISON_DYING_MIN if dying else POISON_LATE_MIN if m.day >= 3 else POISON_MIN
        return target if bel[target] >= threshold else None

    def _seer_check(self, req: DecisionRequest) -> int | None:
        """``seer_check`` and 003's ``seer_check_extra``: the most suspicious unchecked player."""
        options = self._options(req)
        m = self.mem
        _, fakes = self.seer_status()
        known = set(m.seer_results) | m.fellow_seers | self.friends()
        fresh = [s for s in options if s not in known and s not in fakes and s not in m.revealed]
        pool = fresh or [s for s in options if s not in m.seer_results] or options
        if not pool:
            return None
        bel = self.beliefs(private=False)  # who looks worst to the table, before my own results
        jitter = {s: bel.get(s, PRIOR) + self.rng.random() * 0.05 for s in pool}
        return max(pool, key=lambda s: jitter[s])

    def _hunting_gun(self, req: DecisionRequest) -> int | None:
        """003's once-a-game night gun: only on a wolf as sure as a checked one."""
        friends = self.friends()
        options = [s for s in self._options(req) if s not in friends]
        bel = self.beliefs()
        target = self._argmax(options, bel, f"gun:{self.mem.day}")
        if target is None or bel[target] < HUNTING_GUN_MIN or self._spared(target, bel):
            return None
        return target

    def _little_girl_peek(self, req: DecisionRequest) -> bool:
        """Peek until she has seen the wolves once (one look shows every awake wolf). Caught (1 in 2
        under ``chance``) she is likely killed, but then the wolves kill nobody else that night, so the
        risk costs the village one player at most while a clean look exposes the whole pack."""
        if req.legal.type != "bool":
            return False  # skills lost: only "no" is legal
        m = self.mem
        if any(m.peeked.values()):
            return False
        rule = m.switches.get("little_girl_discovery", "chance")
        if rule == "never":
            return True
        if rule == "always":
            return False  # a sure catch: she would die with what she saw
        return self.rng.random() < PEEK_P

    def _little_girl_kill(self, req: DecisionRequest) -> bool:
        """A caught little girl has seen the pack: kill her (unless she is this wolf's own lover)."""
        girl = req.context.get("little_girl")
        return girl not in self.friends()

    def _cupid_link(self, req: DecisionRequest) -> list[int] | None:
        """Himself and the player he believes most likely good (on N1: a seeded pick), or, where he
        may not link himself, the two such players."""
        legal = req.legal
        options = list(getattr(legal, "options", ()))
        others = [s for s in options if s != self.seat]
        if len(options) < 2 or not others:
            return None if allows_none(legal) else req.default
        bel = self.beliefs()
        order = sorted(others, key=lambda s: (bel.get(s, PRIOR) + self.rng.random() * 0.05, s))
        if self.seat in options:
            return sorted([self.seat, order[0]])
        return sorted(order[:2]) if len(order) >= 2 else (None if allows_none(legal) else req.default)

    def _cupid_witness(self, req: DecisionRequest) -> int | None:
        """003: a witness adds a member (and a vote) to the lovers camp: name the likeliest good player."""
        options = self._options(req)
        if not options:
            return None
        bel = self.beliefs()
        return min(options, key=lambda s: (bel.get(s, PRIOR) + self.rng.random() * 0.05, s))

    def _thief_pick(self, req: DecisionRequest) -> int | None:
        """A wolf card only when forced; otherwise the best god card, else a villager card (or keep)."""
        m = self.mem
        center = list(req.context.get("center") or m.thief_cards)
        options = list(getattr(req.legal, "options", ()))
        picks = [o for o in options if isinstance(o, int) and not isinstance(o, bool) and 1 <= o <= len(center)]
        goods = [o for o in picks if not is_wolf_card(center[o - 1])]
        wolves = [o for o in picks if is_wolf_card(center[o - 1])]
        if not goods and None not in options:
            if not wolves:
                return self._safe_default(req)
            return max(wolves, key=lambda o: (WOLF_CARD_VALUE.get(center[o - 1], 0), -o))
        value: dict[int | None, int] = {o: CARD_VALUE.get(center[o - 1], 1) for o in goods}
        if None in options:
            value[None] = CARD_VALUE["thief"]  # keeping the card: a villager-side good player (R150)
        return max(value, key=lambda o: (value[o], o is not None, -(o or 0)))

    # ---- the wolves' night ------------------------------------------------------------------------
    def _wolf_kill(self, req: DecisionRequest) -> int | None:
        m = self.mem
        holders = [s for s in req.context.get("wolves") or [] if isinstance(s, int)]
        options = self._options(req)
        if self.camp() == "lovers" and holders and set(holders) <= self._link_members() | {self.seat}:
            m.lovers_knife = True  # 003 (R148): the wolves are gone and the lovers camp knifes
            m.lovers_knife_nights.add(m.day)
            target = self.lovers_knife_target()
            return target if target in options else None
        target = self.team_knife(m.day, holders or None)
        if target in self.friends():
            target = None  # never the partner or the camp: the consensus fails and nobody dies
        followed = self._teammates_agreed_target(req, options)
        if followed is not None and followed != target:
            # R24: a split knife is an empty knife; the teammates' common choice beats our own
            # unless ours is the seat the village trusts as its seer (no better target than that).
            trusted, _ = self.seer_status(private=False)
            if target is None or target != trusted:
                return followed
        return target if target in options else None

    def _teammates_agreed_target(self, req: DecisionRequest, options: Iterable[Any]) -> int | None:
        """The one seat every teammate who proposed in the conferral names, when it is a legal knife
        that is not one of ours; else None."""
        named = {t for s, t in (req.context.get("proposals") or []) if s != self.seat}
        if len(named) != 1:
            return None
        target = next(iter(named))
        team = {s for s in req.context.get("wolves") or [] if isinstance(s, int)}
        if target is None or target not in options or target in self.friends() | team | {self.seat}:
            return None
        return target

    def _wolf_veto(self, req: DecisionRequest) -> int | None:
        """004 §C: object only to a teammate's proposal that names one of ours."""
        friends = self.friends() | {self.seat} | {s for s in req.context.get("wolves") or [] if isinstance(s, int)}
        return next((o for o in self._options(req) if o in friends), None)

    def lovers_knife_target(self) -> int | None:
        """The lovers camp's knife, computed alike by every member from facts they all share (public
        ones and the camp's own knives): the player the village trusts most, its seer first; not a
        claimed elder nor anyone who already survived the camp's knife (an immunity, a guard)."""
        m = self.mem
        camp = self._link_members() | {self.seat}
        options = sorted(s for s in m.alive if s not in camp)
        survived = {m.knives.get(n) for n in m.lovers_knife_nights if n < m.day}
        pool = [s for s in options if s not in survived and not self._claimed(s, "elder")] or options
        if not pool:
            return None
        trusted, _ = self.seer_status(private=False)
        if trusted in pool:
            return trusted
        return self._argmin(pool, self.beliefs(private=False), f"lknife:{m.day}")

    def team_knife(self, night: int, holders: Iterable[int] | None = None) -> int | None:
        """The knife every wolf computes alike: only wolf-shared facts and the game seed go in."""
        order = self.wolf_targets(night, holders)
        return order[0] if order else None

    def wolf_targets(self, night: int, holders: Iterable[int] | None = None) -> list[int]:
        """The wolves' targets tonight, best first; the knife takes the first, the solo kills and the
        fire wolf the next ones. ``holders``: tonight's knife holders, when known."""
        holders = sorted(holders) if holders is not None else None
        key = f"wt:{night}:{holders}"
        if key in self._cache:
            return self._cache[key]
        m = self.mem
        options = sorted(s for s in m.alive if s not in m.wolves)
        if not options:
            self._cache[key] = []
            return []
        r = random.Random(f"{self.seed}:wolfteam:{night}")
        pub = self.beliefs(private=False)
        claimants = [c for c in m.seer_claimants() if c in options]
        real_seers = [c for c in claimants if c not in m.wolves]
        elders = [s for s in options if self._claimed(s, "elder")]  # his extra life or immunity absorbs a knife
        first: int | None = None
        last = m.knives.get(night - 1)
        # Every holder tonight saw last night's knife only if all of them knifed then (an awakened
        # little brother or a maid who took a wolf card did not): else nobody uses it, so all agree.
        team = set(holders) if holders is not None else {s for s in m.wolves if s in m.alive}
        shared_last = team <= m.knife_voters.get(night - 1, set())
        # A high-value target that survived last night's knife was guarded or saved: the guard
        # cannot cover him twice running, and the antidote is single-use.
        if shared_last and last is not None and last in options and (
                last in real_seers or m.revealed.get(last) in GOD_ROLES - {"elder"}):
            first = last
        trusted_pub, _ = self.seer_status(private=False)
        if trusted_pub is not None and trusted_pub in m.wolves:
            real_seers = []  # our fake is believed: a knifed real seer would be believed posthumously
        if first is None:
            first = next((seer for seer in real_seers if not self._guard_covers(seer, night)), None)
            # on the nights the guard (by convention) covers him, knife elsewhere
        gods = [s for s in options if m.revealed.get(s) in GOD_ROLES - {"hunter", "elder"}]
        claimed = [s for s in options if m.claims.get(s, Claims()).roles & {"witch", "guard", "idiot"}
                   and s not in elders]
        if first is None:
            for group in (gods, claimed):
                if group:
                    first = r.choice(sorted(group))
                    break
        # Otherwise someone the village trusts (worth more to them than a suspect they may exile
        # for us), never a claimed hunter, who would shoot back, nor a claimed elder.
        hunters = [s for s in options if "hunter" in m.claims.get(s, Claims()).roles]
        quiet = [s for s in options if s not in hunters and s not in elders] or options
        quiet.sort(key=lambda s: (pub.get(s, PRIOR), s))
        keep = quiet[: max(1, (len(quiet) + 1) // 2)]
        if first is None:
            first = r.choice(keep)
        # The rest of the order, from a stream of its own so the knife stays what it always was.
        more = random.Random(f"{self.seed}:wolfteam:{night}:more")
        shuffled = keep[:]
        more.shuffle(shuffled)
        order: list[int] = []
        for s in [first, *real_seers, *sorted(gods), *sorted(claimed), *shuffled, *quiet, *hunters, *elders]:
            if s not in order:
                order.append(s)
        self._cache[key] = order
        return order

    def _solo_kill(self, req: DecisionRequest) -> int | None:
        """003's extra kills (the awakened little brother's, the wild wolf's): the next target after
        tonight's knife, so two threats die instead of one."""
        m = self.mem
        if self.camp() != "wolves":
            return None  # a wolf in the lovers camp does not thin the village for the wolves' sake
        options = set(self._options(req))
        knife = m.knives.get(m.day)  # known when the step follows the knife (the wild wolf's)
        if knife is None:
            knife = self.team_knife(m.day)
        friends = self.friends()
        for s in self.wolf_targets(m.day):
            if s != knife and s in options and s not in m.wolves and s not in friends:
                return s
        return None

    def _fire_wolf_disable(self, req: DecisionRequest) -> int | None:
        """Once a wolf has died: silence a claimed god, the real seer first; a revealed idiot dies of
        it. Never tonight's knife or solo-kill victim (wasted). Late in the game, the player the
        village trusts most (likely a hidden god)."""
        m = self.mem
        if self.camp() != "wolves":
            return None
        busy = {m.knives.get(m.day), m.solo_kills.get(m.day)}
        avoid = m.wolves | self.friends() | busy
        options = [s for s in self._options(req) if s not in avoid]
        if not options:
            return None
        pub = self.beliefs(private=False)
        tag = f"fire:{m.day}"
        trusted = [s for s in self.trusted_seers(private=False) if s in options]
        seers = trusted or [c for c in m.seer_claimants() if c in options]
        groups = [seers, [s for s in options if m.revealed.get(s) == "idiot"]]
        groups += [[s for s in options if self._claimed(s, role)] for role in ("witch", "guard", "hunter", "elder")]
        for group in groups:
            if group:
                return self._argmin(group, pub, tag)
        if m.day >= 4:
            return self._argmin(options, pub, tag)
        return None

    def _king_take(self, req: DecisionRequest) -> int | None:
        """A wolf king's take (white on self-destruct, black on death): the real seer, else a god,
        never a wolf; a claimed hunter (he would shoot back) or elder (a night take is absorbed) last."""
        m = self.mem
        avoid = m.wolves | self.friends()
        options = [s for s in self._options(req) if s not in avoid and s != self.seat]
        if not options:
            return None
        pub = self.beliefs(private=False)
        tag = f"take:{m.phase}"
        trusted = [s for s in self.trusted_seers(private=False) if s in options]
        seers = trusted or [c for c in m.seer_claimants() if c in options]
        gods = [s for s in options if m.revealed.get(s) in GOD_ROLES - {"hunter", "elder"}]
        claimed = [s for s in options if self._claimed(s, "witch") or self._claimed(s, "guard")]
        for group in (seers, gods, claimed):
            if group:
                return self._argmin(group, pub, tag)
        plain = [s for s in options if not self._claimed(s, "hunter") and not self._claimed(s, "elder")]
        return self._argmin(plain or options, pub, tag)

    def _self_destruct(self, req: DecisionRequest) -> bool:
        """By day a self-destruct only confirms the seer, except for the white wolf king: caught, he
        explodes (the day ends without an exile) and takes the real seer or a god with him."""
        m = self.mem
        if m.role != "white_wolf_king" or self.camp() != "wolves" or not self.seer_confident(private=False):
            return False
        if self.beliefs(private=False).get(self.seat, PRIOR) < KNOWN_WOLF:
            return False
        targets = [s for s in m.alive if s not in m.wolves and s != self.seat
                   and (s in m.seer_claimants() or self._claimed(s, "witch") or self._claimed(s, "guard"))]
        return bool(targets)

    def _self_destruct_election(self, req: DecisionRequest) -> bool:
        """自爆吞警徽: a wolf the real seer has just exposed is lost anyway; exploding now costs the
        village the badge (the seer's tool) and the day's exile."""
        m = self.mem
        if not self.is_wolf or self.camp() != "wolves" or not self.seer_confident(private=False):
            return False
        if self.beliefs(private=False).get(self.seat, PRIOR) < KNOWN_WOLF:
            return False
        running = [c for c in m.candidates if c not in m.withdrawn]
        return any(c in running and c not in m.wolves for c in m.seer_claimants())

    # ---- sheriff -------------------------------------------------------------------------------------
    def _sheriff_run(self, req: DecisionRequest) -> bool:
        m = self.mem
        if m.role == "seer" or self._is_faker():
            return True
        p = {"villager": 0.3, "werewolf": 0.15}.get(m.role or "", 0.1)
        return self.rng.random() < p

    def _sheriff_withdraw(self, req: DecisionRequest) -> bool:
        m = self.mem
        if m.role == "seer" or self.seat in m.seer_claimants():
            return False
        running = [c for c in m.candidates if c not in m.withdrawn]
        # Make room for a claimed seer: the badge is the seer's tool.
        return any(c in running and c != self.seat for c in m.seer_claimants())

    def _sheriff_vote(self, req: DecisionRequest) -> int | None:
        options = self._options(req)
        if not options:
            return None
        m = self.mem
        if self.camp() == "lovers":
            mine = [s for s in options if s in self.friends()]
            if mine:
                return self._argmin(mine, self.beliefs(private=False), "sheriff")
        if self.is_wolf:
            mine = [s for s in options if s in m.wolves]
            if mine:
                return self._argmin(mine, self.beliefs(private=False), "sheriff")
            trusted, _ = self.seer_status()  # the real seer must not get the badge
            others = [s for s in options if s != trusted]
            return self._argmax(others, self.beliefs(private=False), "sheriff") if others else None
        bel = self.beliefs()
        best = self._argmin(options, bel, "sheriff")
        return best if best is not None and bel[best] < 0.6 else None

    def _badge(self, req: DecisionRequest) -> int | None:
        options = [s for s in self._options(req) if s != self.seat]
        if not options:
            return self._safe_default(req)
        m = self.mem
        if self.camp() == "lovers":
            mine = [s for s in options if s in self.friends()]
            if mine:
                return self._argmin(mine, self.beliefs(private=False), "badge")
        if self.is_wolf:
            pub = self.beliefs(private=False)
            mates = [s for s in options if s in m.wolves and pub.get(s, PRIOR) < 0.5]
            if mates:
                return self._argmin(mates, pub, "badge")
            if allows_none(req.legal):
                return None
            return self._argmax(options, pub, "badge")
        bel = self.beliefs()
        trusted, _ = self.seer_status()
        if trusted is not None and trusted in options:
            return trusted
        return self._argmin(options, bel, "badge")

    def _aux_police(self, req: DecisionRequest) -> int | None:
        """003: the sheriff's auxiliary police (a 1.5 vote): the other trusted seer, else the player he
        trusts most; a wolf sheriff picks a teammate the village does not suspect. ``None`` keeps the
        current one when he is as good a choice."""
        options = self._options(req)
        if not options:
            return None
        m = self.mem
        current = req.context.get("current")
        if self.camp() == "wolves" and self.is_wolf:
            score = self.beliefs(private=False)
            mates = [s for s in options if s in m.wolves and score.get(s, PRIOR) < 0.5]
            choice = self._argmin(mates, score, "aux") if mates else None
        else:
            score = self.beliefs()
            mine = [s for s in options if s in self.friends()] if self.camp() == "lovers" else []
            seers = [s for s in self.trusted_seers() if s in options]
            choice = mine[0] if mine else seers[0] if seers else self._argmin(options, score, "aux")
            if choice is not None and not mine and not seers and score.get(choice, PRIOR) >= PRIOR:
                choice = None  # nobody trusted: a 1.5 vote is better left unused than handed to a wolf
        if choice is None or choice == current:
            return None
        if current in options and score.get(current, PRIOR) <= score.get(choice, PRIOR) + 0.05:
            return None  # keep him: a swap for a hair's difference only shows the table our doubts
        return choice

    # ---- votes ---------------------------------------------------------------------------------------
    def _vote(self, req: DecisionRequest) -> int | None:
        options = [s for s in self._options(req) if s != self.seat]
        if not options:
            return None
        return self.vote_choice(options)

    def vote_choice(self, options: list[int]) -> int | None:
        """Whom this seat votes (and tells the table it will vote) among ``options``."""
        if self.camp() == "lovers":
            return self.camp_vote(options)
        friends = self.friends()
        options = [s for s in options if s not in friends] or options
        if self.is_wolf:
            return self.team_vote(options)
        return self.good_vote(options)

    def good_vote(self, options: list[int]) -> int | None:
        m = self.mem
        bel = self.beliefs()
        tag = f"vote:{m.day}"
        pool = [s for s in options if not self._spared(s, bel)] or options  # a claimed elder only if caught
        best = self._argmax(pool, bel, tag)
        if best is None:
            return None
        if bel[best] >= KNOWN_WOLF:
            return best  # a checked or revealed wolf beats any vote call
        call = self.leader_call()
        if call is not None and call in pool and bel.get(call, PRIOR) > CHECKED_GOOD:
            return call  # follow the leader: votes concentrated win, split votes lose
        return best

    def camp_vote(self, options: list[int]) -> int | None:
        """A third-party camp (a wolf-and-good couple, 003's lovers camp) must kill everyone else.
        It sides with the wolves against the village while the camp can still outvote the wolves left
        afterwards, and against the wolves otherwise. A member holding a wolf card knows the wolves;
        the others follow his vote call, or vote like the village (the wolves are everyone's enemy)."""
        m = self.mem
        friends = self.friends()
        opts = [s for s in options if s not in friends] or options
        pub = self.beliefs(private=False)
        tag = f"vote:{m.day}"
        if not self.is_wolf:
            for lead in sorted(friends):
                if lead in m.alive and self._card_is_wolf(lead):
                    calls = [t for d, t in m.claims.get(lead, Claims()).votes if d == m.day]
                    if calls and calls[-1] in opts:
                        return calls[-1]
            if m.lovers_knife:
                return self._argmax(opts, pub, tag)  # the wolves are gone: the village is all that is left
            return self.good_vote(opts)
        wolves = {s for s in m.wolves if s in m.alive and s not in friends and s != self.seat}
        village = [s for s in opts if s not in m.wolves]
        camp_alive = 1 + sum(1 for s in friends if s in m.alive)
        if village and len(wolves) < camp_alive:
            return self.team_vote(village)
        hunted = [s for s in opts if s in wolves]
        return self._argmax(hunted or opts, pub, tag)

    def leader(self, private: bool = True) -> int | None:
        """Whose vote call the good side follows: a sheriff it does not suspect, else the trusted seer."""
        m = self.mem
        if m.sheriff is not None and m.sheriff in m.alive and self.beliefs(private).get(m.sheriff, PRIOR) < 0.5:
            return m.sheriff
        trusted, _ = self.seer_status(private)
        if trusted is not None and trusted in m.alive and self.seer_confident(private):
            return trusted
        return None

    def leader_call(self, private: bool = True) -> int | None:
        """The leader's latest vote call today (None when this seat is the leader itself)."""
        m = self.mem
        lead = self.leader(private)
        if lead is None or lead == self.seat:
            return None
        calls = [t for d, t in m.claims.get(lead, Claims()).votes if d == m.day]
        return calls[-1] if calls else None

    def team_vote(self, options: list[int]) -> int | None:
        """The wolves' common vote: pile onto the good player the village already leans to; bus a
        teammate who is caught anyway (it buys trust); never split."""
        m = self.mem
        pub = self.beliefs(private=False)
        tag = f"vote:{m.day}"  # the village's own tie-break: the wolves know where its votes go
        lead = self.leader(private=False)
        call = None
        if lead is not None and lead not in m.wolves:
            calls = [t for d, t in m.claims.get(lead, Claims()).votes if d == m.day]
            call = calls[-1] if calls else None
        if call is not None and call in options and call not in m.wolves:
            return call  # the good side's own call on a good player: ride it, and look good doing so
        cands = sorted(set(options) | ({self.seat} if self.seat in m.alive else set()))
        village_top = self._argmax(cands, pub, tag)
        goods = [s for s in options if s not in m.wolves]
        if village_top is not None and village_top in m.wolves:
            if pub[village_top] >= KNOWN_WOLF and village_top != self.seat and village_top in options:
                return village_top  # bus: he is lost, and voting him keeps our cover
            return self._argmax(goods, pub, tag) if goods else None
        if village_top is not None and village_top in options:
            return village_top
        return self._argmax(goods, pub, tag) if goods else None

    # ---- day skills -----------------------------------------------------------------------------------
    def _scapegoat_ban(self, req: DecisionRequest) -> list[int] | None:
        """After his death on a tie: ``ban_list`` takes the vote from the suspects; ``allow_list`` gives
        it only to trusted players (at least three, so one night kill cannot silence the vote)."""
        options = self._options(req)
        m = self.mem
        mode = req.context.get("mode") or m.switches.get("scapegoat_ban_mode", "ban_list")
        friends = self.friends()
        bel = self.beliefs()
        if mode == "allow_list":
            ranked = sorted(options, key=lambda s: (s not in friends, bel.get(s, PRIOR), s))
            allowed = [s for s in ranked if s in friends or bel.get(s, PRIOR) <= 0.15]
            for s in ranked:
                if len(allowed) >= 3:
                    break
                if s not in allowed and bel.get(s, PRIOR) < 0.5:
                    allowed.append(s)
            return sorted(allowed) or None
        suspects = [s for s in options if s not in friends and bel.get(s, PRIOR) >= 0.5]
        suspects.sort(key=lambda s: (-bel.get(s, PRIOR), s))
        return sorted(suspects[: max(0, len(options) - 1)]) or None

    def _maid_swap(self, req: DecisionRequest) -> bool:
        """003: take the exiled player's card when she believes it is a god's (a claimed seer she trusts
        or a claimed witch, guard or hunter she does not suspect). Never a likely wolf card: it would
        make her a wolf."""
        if req.legal.type != "bool":
            return False  # a lover or disabled maid may only say no
        m = self.mem
        exiled = req.context.get("exiled")
        if exiled is None or self.camp() == "wolves":
            return False
        bel = self.beliefs()
        if bel.get(exiled, PRIOR) >= 0.5:
            return False
        c = m.claims.get(exiled, Claims())
        _, fakes = self.seer_status()
        seer = c.seer_since is not None and exiled not in fakes
        return seer or bool(c.roles & {"witch", "guard", "hunter"})

    # ---- death skills ----------------------------------------------------------------------------
    def _hunter_shoot(self, req: DecisionRequest) -> int | None:
        friends = self.friends()
        options = [s for s in self._options(req) if s not in friends]
        if not options:
            return None
        bel = self.beliefs()
        if self.is_wolf:  # not expected (hunters are good), but never shoot a teammate
            goods = [s for s in options if s not in self.mem.wolves]
            return self._argmin(goods, self.beliefs(private=False), "shot") if goods else None
        target = self._argmax(options, bel, f"shot:{self.mem.phase}")
        if target is None or bel[target] < HUNTER_SHOOT_MIN or self._spared(target, bel):
            return None
        return target

    # ---- speeches ---------------------------------------------------------------------------------
    def _t(self, key: str, **kw: Any) -> str:
        book = speech_book(self.lang)["templates"]
        tpl = book.get(key) or speech_book("en")["templates"][key]
        if isinstance(tpl, list):
            tpl = self.rng.choice(tpl)
        return tpl.format(**kw)

    def _checks_text(self, checks: dict[int, str] | Iterable[tuple[int, str]]) -> str:
        items = list(checks.items()) if isinstance(checks, dict) else list(checks)
        parts = [self._t("check_wolf" if r == "wolf" else "check_good", seat=s) for s, r in items]
        return self._t("checks", checks=self._t("list_sep").join(parts))

    def _is_faker(self) -> bool:
        """Is this wolf the team's designated counter-claimer (悍跳)? Decided from the seed alone,
        so every wolf knows who it is without talking."""
        m = self.mem
        if not self.is_wolf or not m.wolves or m.role_counts.get("seer", 0) == 0:
            return False
        r = random.Random(f"{self.seed}:wolfteam:fake")
        if r.random() >= 0.5:
            return False
        return r.choice(sorted(m.wolves)) == self.seat

    def _speech(self, req: DecisionRequest) -> str:
        m = self.mem
        kind = req.context.get("speech", "last_words" if req.kind == Kind.LAST_WORDS else "discussion")
        last_words = req.kind == Kind.LAST_WORDS
        parts: list[str] = []
        if last_words:
            parts.append(self._t("last_words_intro"))
        if m.role == "seer":
            parts += self._seer_speech()
        elif self.is_wolf and self.seat in m.revealed:
            parts += self._unmasked_wolf_speech()
        elif self._is_faker() and (m.seer_claimants() == [] or self.seat in m.seer_claimants()
                                   or m.day == 1):
            parts += self._fake_seer_speech()
        elif self.is_wolf:
            parts += self._wolf_speech(kind)
        else:
            parts += self._good_speech(kind, last_words)
        if kind == "campaign" and m.role != "seer" and not self.is_wolf:
            parts.insert(0, self._t("campaign"))
        text = " ".join(p for p in parts if p) if self.lang != "zh" else "".join(p for p in parts if p)
        return text or self._t("pass")

    def _interject(self, req: DecisionRequest) -> str:
        """R138 may_interject: the revealed idiot, who has no vote, speaks up only to push his suspicion:
        when the speaker is the seat he would vote and he leans wolf on him, once per speaker and day."""
        speaker = req.context.get("speaker")
        day = self.mem.day
        if not isinstance(speaker, int) or (day, speaker) in self.interjected or self._speech_target() != speaker:
            return "pass"
        if self.beliefs().get(speaker, PRIOR) <= PRIOR + 0.05:
            return "pass"
        self.interjected.add((day, speaker))
        return self._t("interject", seat=speaker)

    def _speech_target(self) -> int | None:
        """The seat this speaker will vote today (what it tells the table)."""
        m = self.mem
        options = [s for s in m.alive if s != self.seat and m.revealed.get(s) != "idiot"]
        if m.pk_platform:
            options = [s for s in m.pk_platform if s != self.seat and s in m.alive] or options
        if not options:
            return None
        return self.vote_choice(options)

    def _seer_speech(self) -> list[str]:
        m = self.mem
        parts = [self._t("seer_claim")]
        checks = {s: m.seer_results[s] for s in m.check_order}
        if checks:
            parts.append(self._checks_text(checks))
        _, fakes = self.seer_status()
        for f in sorted(fakes):
            parts.append(self._t("fake_seer", seat=f))
        for f in sorted(m.fellow_seers - {self.seat}):
            parts.append(self._t("fellow_seer", seat=f))  # 003: two seers vouch for each other
        target = self._speech_target()
        if target is not None:
            parts.append(self._t("vote_call", seat=target))  # the seer leads the vote
        return parts

    def _fake_seer_speech(self) -> list[str]:
        m = self.mem
        self._extend_fake_checks()
        parts = [self._t("seer_claim"), self._checks_text(self.fake_checks)]
        real = [c for c in m.seer_claimants() if c != self.seat and c not in m.wolves]
        for f in real:
            parts.append(self._t("fake_seer", seat=f))
        live_wolf_checks = [s for s, r in self.fake_checks.items() if r == "wolf" and s in m.alive]
        target = live_wolf_checks[-1] if live_wolf_checks else self._speech_target()
        if target is not None:
            parts.append(self._t("vote_call", seat=target))
        return parts

    def _extend_fake_checks(self) -> None:
        """One invented result per night so far: a 查杀 on a good player (the real seer first), or
        a 金水 on a teammate once a wolf-check is already on the table."""
        m = self.mem
        goods = sorted(s for s in m.alive if s not in m.wolves)
        while len(self.fake_checks) < m.day and goods:
            real = [c for c in m.seer_claimants() if c not in m.wolves and c in m.alive]
            open_wolf = any(r == "wolf" and s in m.alive for s, r in self.fake_checks.items())
            fresh_goods = [s for s in goods if s not in self.fake_checks]
            mates = [s for s in sorted(m.wolves) if s != self.seat and s in m.alive and s not in self.fake_checks]
            if real and real[0] not in self.fake_checks:
                self.fake_checks[real[0]] = "wolf"
            elif not open_wolf and fresh_goods:
                self.fake_checks[self.rng.choice(fresh_goods)] = "wolf"
            elif mates and self.rng.random() < 0.5:
                self.fake_checks[self.rng.choice(mates)] = "good"
            elif fresh_goods:
                self.fake_checks[self.rng.choice(fresh_goods)] = "good"
            else:
                break

    def _unmasked_wolf_speech(self) -> list[str]:
        """The table has seen this wolf's card (a self-destruct): a claim to be good would fool nobody,
        so the wolf owns it and spends its words on a good seat the pack wants gone."""
        parts = [self._t("unmasked_wolf")]
        target = self._speech_target()
        if target is not None:
            parts.append(self._t("suspect", seat=target))
        return parts

    def _wolf_speech(self, kind: str) -> list[str]:
        m = self.mem
        parts = [self._t("villager_claim") if self.rng.random() < 0.6 else self._t("good_side")]
        trusted_pub, _ = self.seer_status(private=False)
        accuser = next((c for c in m.seer_claimants() if m.claims[c].checks.get(self.seat) == "wolf"), None)
        if accuser is not None:
            parts.append(self._t("deny_wolf", seat=accuser))
        elif trusted_pub is not None and trusted_pub != self.seat:
            parts.append(self._t("trust_seer", seat=trusted_pub))  # say what the village says
        target = self._speech_target()
        if target is not None:
            if self.rng.random() < 0.5:
                parts.append(self._t("suspect", seat=target))
            parts.append(self._t("vote_call" if m.sheriff == self.seat else "will_vote", seat=target))
        return parts

    def _good_speech(self, kind: str, last_words: bool) -> list[str]:
        m = self.mem
        parts: list[str] = []
        role = m.role or "villager"
        # Gods stay hidden unless their life is on the line: on the PK platform, or named by the
        # sheriff or by several speakers (the hunter only needs a hint: his gun deters the vote).
        on_platform = self.seat in m.pk_platform
        in_danger = on_platform or self._called_on_me()
        info = self._info_reveal()
        if info:
            parts += info  # a little girl or traveler with a wolf to name says so at once, like a seer
        elif role == "elder" or last_words or on_platform or (in_danger and role in ("hunter", "villager", "idiot")):
            # The elder claims from his first speech: the wolves' first attack is absorbed anyway, and
            # the claim keeps the village from exiling or poisoning him (which would cost its skills).
            parts += self._role_reveal(role)
        elif role == "villager":
            parts.append(self._t("villager_claim"))
        else:
            parts.append(self._t("good_side"))
        trusted, _ = self.seer_status()
        if trusted is not None and trusted != self.seat:
            parts.append(self._t("trust_seer", seat=trusted))
        target = self._speech_target()
        bel = self.beliefs()
        if target is not None and bel.get(target, PRIOR) > PRIOR + 0.05:
            if m.sheriff == self.seat and kind == "discussion":
                parts.append(self._t("sheriff_sum"))
                parts.append(self._t("vote_call", seat=target))
            else:
                parts.append(self._t("suspect", seat=target))
                parts.append(self._t("will_vote", seat=target))
        elif target is not None and m.sheriff == self.seat and kind == "discussion":
            parts.append(self._t("sheriff_sum"))
            parts.append(self._t("vote_call", seat=target))
        else:
            parts.append(self._t("nothing_known"))
        return parts

    def _called_on_me(self) -> bool:
        m = self.mem
        if m.sheriff is not None and m.sheriff != self.seat and m.sheriff_call(m.day) == self.seat:
            return True
        callers = {s for s, c in m.claims.items() if s != self.seat
                   for d, t in c.votes if d == m.day and t == self.seat}
        return len(callers) >= 3

    def _role_reveal(self, role: str) -> list[str]:
        """Last words (or a PK defence): tell the table what this seat was and what it did."""
        m = self.mem
        if role == "witch":
            parts = [self._t("witch_claim")]
            for night, seat in sorted(m.witch_saved.items()):
                parts.append(self._t("witch_saved", seat=seat, night=night))
            for night, seat in sorted(m.witch_poisoned.items()):
                parts.append(self._t("witch_poisoned", seat=seat, night=night))
            return parts
        if role == "guard":
            guarded = [s for _, s in sorted(m.guarded.items()) if s is not None]
            parts = [self._t("guard_claim")]
            if guarded:
                parts.append(self._t("guard_history", seats=self._t("list_sep").join(str(s) for s in guarded)))
            return parts
        if role == "hunter":
            return [self._t("hunter_claim")]
        if role == "idiot":
            return [self._t("idiot_claim")]
        if role == "elder":
            return [self._t("elder_claim")]  # exiling him costs every good role its skills
        return [self._t("villager_claim")]

    def _info_reveal(self) -> list[str]:
        """The little girl's sighting or the traveler's hint, once she or he has one."""
        m = self.mem
        seen = sorted({w for wolves in m.peeked.values() for w in wolves})
        if seen and m.role == "little_girl":
            sep = self._t("list_sep")
            return [self._t("little_girl_claim"), self._t("saw_wolves", seats=sep.join(
                self._t("saw_wolf", seat=w) for w in seen))]
        if m.traveler_wolf is not None and m.role == "traveler":
            return [self._t("traveler_claim"), self._t("traveler_wolf", seat=m.traveler_wolf)]
        return []


__all__ = ["BOT_VERSION", "HeuristicBot", "Memory", "parse_speech", "speech_book", "speech_patterns"]
