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

Everything the bot knows comes from its own visible events, folded incrementally into
:class:`Memory`. Speeches are generated from ``prompts/<lang>/bot_speech.yaml`` and read back with
the patterns beside the templates (both languages), so bots understand each other and humans can
read them. All randomness: ``random.Random(f"{seed}:bot:{seat}")`` for the seat's own choices, plus
streams derived from the game seed and public facts for choices a team must make identically
(``{seed}:wolfteam:...``) or the whole village should agree on (``{seed}:public:...``).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Sequence

import yaml

from agents.base import SyncAgent
from arena.actions import Answer, DecisionRequest, IllegalAnswer
from arena.observation import Observation
from arena.types import Kind, Role, is_wolf_card, parse_phase

PROMPTS_DIR = Path(__file__).resolve().parent.parent / "prompts"
SPEECH_FILE = "bot_speech.yaml"
SPEECH_LANGS = ("en", "zh")

GOD_ROLES = frozenset({"seer", "witch", "hunter", "guard", "idiot", "elder"})

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


# ---- speech book -------------------------------------------------------------------------------

@lru_cache(maxsize=None)
def speech_book(lang: str) -> dict[str, Any]:
    """The templates and patterns of one language (English when the language has no file)."""
    path = PROMPTS_DIR / lang / SPEECH_FILE
    if not path.exists():
        path = PROMPTS_DIR / "en" / SPEECH_FILE
    return yaml.safe_load(path.read_text(encoding="utf-8"))


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

    def present(key: str) -> bool:
        return any(p.search(text) for p in pats.get(key, []))

    out.seer_claim = present("seer_claim")
    fakes = seats("fake_seer")
    out.fakes = [s for _, s in fakes]
    fake_positions = {pos for pos, _ in fakes}
    wolf_checks = [(pos, s, "wolf") for pos, s in seats("check_wolf") if pos not in fake_positions]
    good_checks = [(pos, s, "good") for pos, s in seats("check_good")]
    checks: dict[int, str] = {}
    for _, seat, result in sorted(wolf_checks + good_checks):
        checks.setdefault(seat, result)  # two patterns may read the same statement
    out.checks = list(checks.items())
    out.votes = [s for _, s in seats("vote")]
    for role in ("hunter", "witch", "guard", "idiot", "villager"):
        if present(f"{role}_claim"):
            out.roles.add(role)
    out.saved = [s for _, s in seats("witch_saved")]
    out.poisoned = [s for _, s in seats("witch_poisoned")]
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
        elif t == "pk_platform" and e.ballot == "exile":
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
            self.witch_told[parse_phase(e.phase)[1]] = e.victim
        elif t == "witch_saved":
            self.witch_saved[parse_phase(e.phase)[1]] = e.target
        elif t == "witch_poisoned":
            self.witch_poisoned[parse_phase(e.phase)[1]] = e.target
        elif t == "guard_protected":
            self.guarded[parse_phase(e.phase)[1]] = e.target if e.effective else None
        elif t == "wolf_knife":
            self.knives[parse_phase(e.phase)[1]] = e.target
        elif t == "hunter_shot":
            self.shot.add(e.target)
            self.revealed[e.seat] = "hunter"
        elif t == "hunter_status":
            self.hunter_can_shoot = e.can_shoot

    def _speech(self, e: Any) -> None:
        self.speech_count += 1
        self.speeches_today.append((e.seat, e.kind))
        parsed = parse_speech(e.text, self.players)
        c = self.claim(e.seat)
        day = parse_phase(e.phase)[1]
        if parsed.seer_claim and c.seer_since is None:
            c.seer_since = self.speech_count
            c.seer_day = day
        if c.seer_since is not None:
            for target, result in parsed.checks:
                if target != e.seat:
                    c.checks[target] = result
            c.fakes.update(s for s in parsed.fakes if s != e.seat)
        c.roles.update(parsed.roles)
        c.saved.update(parsed.saved)
        for target in parsed.votes:
            if target != e.seat:
                c.votes.append((day, target))


# ---- the bot -------------------------------------------------------------------------------------

class HeuristicBot(SyncAgent):
    """A decent rule-based player for villager, werewolf, seer, witch, hunter, guard and idiot."""

    spec = "bot:heuristic"
    deterministic = True
    #: Tests set this to see the bot's own errors; in play an error falls back to the default answer.
    strict = False

    def __init__(self, seat: int, seed: int, lang: str = "en"):
        self.seat = seat
        self.seed = seed
        self.lang = lang if lang in SPEECH_LANGS else "en"
        self.rng = random.Random(f"{seed}:bot:{seat}")
        self.mem = Memory()
        self._seen = 0
        self._cache: dict[str, Any] = {}
        # A wolf designated to counter-claim seer keeps its invented results here (in claim order).
        self.fake_checks: dict[int, str] = {}

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
        return Answer(value=value)

    def _absorb(self, observation: Observation) -> None:
        events: Sequence[Any] = observation.events
        if self.mem.players == 0:
            self.mem.players = observation.players
            self.mem.alive = set(range(1, observation.players + 1))
        fresh = events[self._seen:] if len(events) >= self._seen else observation.new_events
        for event in fresh:
            self.mem.apply(event)
        self._seen = len(events)

    def _safe_default(self, request: DecisionRequest) -> Any:
        try:
            return request.check(request.default)
        except IllegalAnswer:
            legal = request.legal
            if legal.type == "seat" and legal.options:
                return legal.options[0]
            if legal.type == "option" and legal.options:
                return legal.options[0]
            if legal.type == "text":
                return "pass"
            return request.default

    def _decide(self, req: DecisionRequest) -> Any:
        kind = req.kind
        handler = {
            Kind.GUARD: self._guard,
            Kind.WOLF_KILL: self._wolf_kill,
            Kind.WITCH_SAVE: self._witch_save,
            Kind.WITCH_POISON: self._witch_poison,
            Kind.SEER_CHECK: self._seer_check,
            Kind.SHERIFF_RUN: self._sheriff_run,
            Kind.SHERIFF_WITHDRAW: self._sheriff_withdraw,
            Kind.SHERIFF_VOTE: self._sheriff_vote,
            Kind.SHERIFF_PK_VOTE: self._sheriff_vote,
            Kind.SELF_DESTRUCT_ELECTION: self._self_destruct_election,
            Kind.SELF_DESTRUCT: lambda r: False,  # by day it only confirms the seer: keep the wolf
            Kind.VOTE: self._vote,
            Kind.PK_VOTE: self._vote,
            Kind.HUNTER_SHOOT: self._hunter_shoot,
            Kind.BADGE: self._badge,
            Kind.SPEECH: self._speech,
            Kind.LAST_WORDS: self._speech,
            Kind.IDIOT_REVEAL: lambda r: True,  # revealing keeps the idiot alive
            Kind.SPEECH_ORDER_PICK: lambda r: r.default,
        }.get(kind)
        if handler is None:
            return self._safe_default(req)
        return handler(req)

    # ---- shared helpers ------------------------------------------------------------------------
    @property
    def is_wolf(self) -> bool:
        return self.mem.role is not None and is_wolf_card(self.mem.role)

    def _options(self, req: DecisionRequest) -> list[int]:
        return list(getattr(req.legal, "options", ()))

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

    # ---- seer trust ------------------------------------------------------------------------------
    def seer_status(self, private: bool = True) -> tuple[int | None, set[int]]:
        """(the seer claimant this seat trusts, the claimants it takes for fakes).

        ``private=False`` uses public facts only: what the village as a whole can conclude, which
        is also what the wolves predict the village will do.
        """
        key = f"seer:{private}"
        if key in self._cache:
            return self._cache[key]
        m = self.mem
        claimants = m.seer_claimants()
        fakes: set[int] = set()
        trusted: int | None = None
        confident = True
        if private and m.role == "seer":
            fakes = {c for c in claimants if c != self.seat}
            trusted = self.seat
        elif private and self.is_wolf:
            fakes = {c for c in claimants if c in m.wolves}
            real = [c for c in claimants if c not in m.wolves]
            trusted = real[0] if real else None
        else:
            score: dict[int, float] = {}
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
                s = 0.0
                if c == claimants[0]:
                    s += 0.15  # the real seer rarely waits; a counter-claim usually comes second
                if m.died_at_night(c):
                    s += 0.4  # the wolves knife the real seer, not their own fake
                if private and cl.checks.get(self.seat) == "good":
                    s += 0.1
                if private and m.role == "witch":
                    if c in m.witch_told.values():
                        s += 1.0  # the wolves knifed this claimant: he is the real one
                    for target, result in cl.checks.items():
                        if result == "wolf" and target in m.witch_told.values():
                            fakes.add(c)  # his "wolf" was the wolves' victim
                score[c] = s
            live = [c for c in claimants if c not in fakes]
            if live:
                ranked = sorted(live, key=lambda c: (-score[c], claimants.index(c)))
                trusted = ranked[0]
                if len(ranked) > 1:
                    # Two live stories cannot both be true: the weaker one is the wolves'. With only
                    # weak evidence (claim order) the bot acts on it but does not stake a shot on it.
                    confident = score[ranked[0]] - score[ranked[1]] >= 0.3
                    fakes.update(ranked[1:])
        self._cache[key] = (trusted, fakes)
        self._cache[f"seer_confident:{private}"] = confident
        return trusted, fakes

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
        score: dict[int, float] = {}
        if trusted is not None:
            score[trusted] = trusted_level
            story = m.claims.get(trusted, Claims())
            for s, r in story.checks.items():
                score[s] = wolf_check if r == "wolf" else good_check
            for s in story.fakes:
                score.setdefault(s, fake_seer)
        for s in fakes:
            score[s] = max(score.get(s, 0.0), fake_seer)
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
            for d, b, v, t in m.ballots:
                if v not in revealed_wolves and (d, b, t) in wolf_votes:
                    evidence[v] += 0.1
        for s, c in m.claims.items():
            for _, target in c.votes:
                if target in known_good:
                    evidence[s] += 0.05
            if c.roles & {"hunter", "witch", "guard", "idiot"}:
                evidence[s] -= 0.15
            for t in c.saved:
                evidence[t] -= 0.1
        if private and m.role == "witch":
            for victim in m.witch_told.values():
                if victim is not None:
                    evidence[victim] -= 0.25  # the wolves do not knife their own
        out: dict[int, float] = {}
        for s in range(1, n + 1):
            if s in fixed:
                out[s] = fixed[s]
            elif s in score:
                out[s] = min(0.99, max(0.01, score[s] + evidence[s] * 0.3))
            else:
                out[s] = min(0.95, max(0.02, PRIOR + evidence[s]))
        self._cache[key] = out
        return out

    # ---- night decisions ------------------------------------------------------------------------
    def _guard(self, req: DecisionRequest) -> int | None:
        last = req.context.get("last_guarded")
        options = [s for s in self._options(req) if s != last]  # under guard_repeat=void a repeat is wasted
        m = self.mem
        if m.day == 1 and req.legal.allow_none:
            return None  # night 1: the witch will save; guarding too would kill (同守同救)
        trusted, _ = self.seer_status()
        if trusted is not None and trusted in options and trusted in m.alive:
            return trusted
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

    def _witch_save(self, req: DecisionRequest) -> bool:
        if req.legal.type != "bool":
            return False  # the save is not allowed now
        m = self.mem
        victim = req.context.get("victim")
        if victim is None:
            return False
        night = m.day
        if night == 1:
            return True  # the first-night save: the victim is almost surely good
        bel = self.beliefs()
        trusted, _ = self.seer_status()
        if victim in m.seer_claimants() and bel.get(victim, PRIOR) < 0.5 and not self._guard_covers(victim, night):
            return True
        if not self._in_game("guard") and bel.get(victim, PRIOR) <= CHECKED_GOOD:
            return True  # a cleared player or revealed god: nobody else can protect him
        return victim == trusted and not self._guard_covers(victim, night)

    def _witch_poison(self, req: DecisionRequest) -> int | None:
        options = [s for s in self._options(req) if s != self.seat]
        if not options:
            return None
        m = self.mem
        bel = self.beliefs()
        target = self._argmax(options, bel, f"poison:{m.day}")
        if target is None:
            return None
        dying = m.witch_told.get(m.day) == self.seat and m.witch_saved.get(m.day) != self.seat
        threshold = POISON_DYING_MIN if dying else POISON_LATE_MIN if m.day >= 3 else POISON_MIN
        return target if bel[target] >= threshold else None

    def _seer_check(self, req: DecisionRequest) -> int | None:
        options = self._options(req)
        m = self.mem
        _, fakes = self.seer_status()
        fresh = [s for s in options if s not in m.seer_results and s not in fakes and s not in m.revealed]
        pool = fresh or [s for s in options if s not in m.seer_results] or options
        if not pool:
            return None
        bel = self.beliefs(private=False)  # who looks worst to the table, before my own results
        jitter = {s: bel.get(s, PRIOR) + self.rng.random() * 0.05 for s in pool}
        return max(pool, key=lambda s: jitter[s])

    def _wolf_kill(self, req: DecisionRequest) -> int | None:
        target = self.team_knife(self.mem.day)
        return target if target in self._options(req) else None

    def team_knife(self, night: int) -> int | None:
        """The knife every wolf computes alike: only wolf-shared facts and the game seed go in."""
        m = self.mem
        options = sorted(s for s in m.alive if s not in m.wolves)
        if not options:
            return None
        r = random.Random(f"{self.seed}:wolfteam:{night}")
        pub = self.beliefs(private=False)
        claimants = [c for c in m.seer_claimants() if c in options]
        real_seers = [c for c in claimants if c not in m.wolves]
        last = m.knives.get(night - 1)
        # A high-value target that survived last night's knife was guarded or saved: the guard
        # cannot cover him twice running, and the antidote is single-use.
        if last is not None and last in options and (last in real_seers or m.revealed.get(last) in GOD_ROLES):
            return last
        trusted_pub, _ = self.seer_status(private=False)
        if trusted_pub is not None and trusted_pub in m.wolves:
            real_seers = []  # our fake is believed: a knifed real seer would be believed posthumously
        for seer in real_seers:
            if not self._guard_covers(seer, night):
                return seer  # on the nights the guard (by convention) covers him, knife elsewhere
        gods = [s for s in options if m.revealed.get(s) in GOD_ROLES - {"hunter"}]
        claimed = [s for s in options if m.claims.get(s, Claims()).roles & {"witch", "guard", "idiot"}]
        for group in (gods, claimed):
            if group:
                return r.choice(sorted(group))
        # Otherwise someone the village trusts (worth more to them than a suspect they may exile
        # for us), never a claimed hunter, who would shoot back.
        quiet = [s for s in options if "hunter" not in m.claims.get(s, Claims()).roles] or options
        quiet.sort(key=lambda s: (pub.get(s, PRIOR), s))
        keep = quiet[: max(1, (len(quiet) + 1) // 2)]
        return r.choice(keep)

    def _self_destruct_election(self, req: DecisionRequest) -> bool:
        """自爆吞警徽: a wolf the real seer has just exposed is lost anyway; exploding now costs the
        village the badge (the seer's tool) and the day's exile."""
        m = self.mem
        if not self.is_wolf or not self.seer_confident(private=False):
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
        if self.is_wolf:
            pub = self.beliefs(private=False)
            mates = [s for s in options if s in m.wolves and pub.get(s, PRIOR) < 0.5]
            if mates:
                return self._argmin(mates, pub, "badge")
            if req.legal.allow_none:
                return None
            return self._argmax(options, pub, "badge")
        bel = self.beliefs()
        trusted, _ = self.seer_status()
        if trusted is not None and trusted in options:
            return trusted
        return self._argmin(options, bel, "badge")

    # ---- votes ---------------------------------------------------------------------------------------
    def _vote(self, req: DecisionRequest) -> int | None:
        options = [s for s in self._options(req) if s != self.seat]
        if not options:
            return None
        if self.is_wolf:
            return self.team_vote(options)
        return self.good_vote(options)

    def good_vote(self, options: list[int]) -> int | None:
        m = self.mem
        bel = self.beliefs()
        tag = f"vote:{m.day}"
        best = self._argmax(options, bel, tag)
        if best is None:
            return None
        if bel[best] >= KNOWN_WOLF:
            return best  # a checked or revealed wolf beats any vote call
        call = self.leader_call()
        if call is not None and call in options and bel.get(call, PRIOR) > CHECKED_GOOD:
            return call  # follow the leader: votes concentrated win, split votes lose
        return best

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

    # ---- death skills ----------------------------------------------------------------------------
    def _hunter_shoot(self, req: DecisionRequest) -> int | None:
        options = self._options(req)
        if not options:
            return None
        bel = self.beliefs()
        if self.is_wolf:  # not expected (hunters are good), but never shoot a teammate
            goods = [s for s in options if s not in self.mem.wolves]
            return self._argmin(goods, self.beliefs(private=False), "shot") if goods else None
        target = self._argmax(options, bel, f"shot:{self.mem.phase}")
        return target if target is not None and bel[target] >= HUNTER_SHOOT_MIN else None

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

    def _speech_target(self) -> int | None:
        """The seat this speaker will vote today (what it tells the table)."""
        m = self.mem
        options = [s for s in m.alive if s != self.seat and m.revealed.get(s) != "idiot"]
        if m.pk_platform:
            options = [s for s in m.pk_platform if s != self.seat and s in m.alive] or options
        if not options:
            return None
        if self.is_wolf:
            return self.team_vote(options)
        return self.good_vote(options)

    def _seer_speech(self) -> list[str]:
        m = self.mem
        parts = [self._t("seer_claim")]
        checks = {s: m.seer_results[s] for s in m.check_order}
        if checks:
            parts.append(self._checks_text(checks))
        _, fakes = self.seer_status()
        for f in sorted(fakes):
            parts.append(self._t("fake_seer", seat=f))
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
        if last_words or on_platform or (in_danger and role in ("hunter", "villager", "idiot")):
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
        return [self._t("villager_claim")]


__all__ = ["HeuristicBot", "Memory", "parse_speech", "speech_book", "speech_patterns"]
