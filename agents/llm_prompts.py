"""Prompts for an LLM seat, rendered from ``prompts/<lang>/llm_*.yaml`` and from the seat's
:class:`~arena.observation.Observation` alone (its visible events; nothing else about the game).

Layout, for provider prompt caches (which serve any exact prefix the same account sent before, from
any conversation): the system message starts with the rules of the board in force and how to read
the record and answer, the same text for every seat of the table (nothing seat-specific in it, not
even the seat number), marked as a cacheable prefix all seats share; then the seat's own briefing
(seat, card, teammates, and under summary memory the card's rules for that role), marked too. The
history follows, one part per phase, the last one marked as the end of the seat's cacheable prefix;
whatever changes from one question to the next (the state line, the seat's notes, the question)
comes last. Under full memory each prompt therefore starts with the whole of the seat's previous
prompt but for its last part (unless the seat's card has changed), and with the table's rules.

Memory strategies:

``full``     every visible event, verbatim.
``summary``  every referee line verbatim too (the facts are cheap); today's speeches (at night, the
             day just ended's) whole; of earlier days the seat's own speeches and the last words whole,
             the other speeches folded into the summary the seat's own model wrote at the end of that
             day (:meth:`PromptBuilder.build_day_summary`), kept for the rest of the game. Nothing is
             cut to a length; the recall audit (benchmarks/recall_audit.py) checks it.

Other players' speeches are untrusted data: each is quoted on one line, inside
``<speech seat=N>…</speech>`` (or ``#N: «…»``, ``N号：「…」`` in Chinese, in the short belief-update
prompt), with angle brackets and those quote marks, line breaks and the referee's mark
neutralised, so no text a player says can close the quote or start a line in the referee's voice.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Iterable, NamedTuple, Sequence, assert_never

import yaml

from agents.llm_answer import BELIEF_KINDS
from agents.providers.base import ChatMessage, ContentPart
from arena import events as ev
from arena.events import Event
from arena.observation import Observation, SeatView
from arena.resources import data_dir
from arena.untrusted import one_line

PROMPTS_DIR = data_dir("prompts")
LANGS = ("en", "zh")
#: Context fields that name a seat: None there is "nobody" in words, never "None".
SEAT_FIELDS = frozenset({"current", "victim", "before_speaker", "target", "seat"})
SKIPPED_EVENTS = frozenset({"night_step", "thought", "player_died", "phase_started"})
#: Angle brackets and their look-alikes (fullwidth, small form, CJK, mathematical): a model reads
#: ``＜/speech＞`` as the tag it resembles.
# Whatever a player writes, it cannot close the quote its line is in: the summary's «…» and 「…」 as
# well as the full record's <speech>…</speech>.
_ANGLES = str.maketrans({c: "‹" for c in "<＜﹤〈⟨〈«"} | {c: "›" for c in ">＞﹥〉⟩〉»"} | {"「": "『", "」": "』"})


@dataclass(frozen=True)
class PromptBook:
    system: dict[str, Any]
    roles: dict[str, Any]
    events: dict[str, Any]
    decisions: dict[str, Any]
    reasons: dict[str, str] = field(default_factory=dict)  # reason ids in words (the narration's table)

    @property
    def mark(self) -> str:
        return str(self.system.get("referee_mark", "⚖"))


@lru_cache(maxsize=4)
def prompt_book(lang: str) -> PromptBook:
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r}; choose one of {', '.join(LANGS)}")
    d = PROMPTS_DIR / lang

    def load(name: str) -> dict[str, Any]:
        return yaml.safe_load((d / f"llm_{name}.yaml").read_text(encoding="utf-8")) or {}

    from arena.narration import templates

    return PromptBook(load("system"), load("roles"), load("events"), load("decisions"),
                      reasons=dict(templates(lang)["reason"]))


def quote_speech(text: str, mark: str = "⚖") -> str:
    """One line of untrusted text that cannot close its quote or pose as the referee."""
    s = one_line(text).translate(_ANGLES).replace(mark, "")
    return re.sub(r"[ \t]{2,}", " ", s).strip()


class _Fields(dict):
    """``str.format_map`` that leaves unknown fields visible instead of raising."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def fmt(template: str, **fields: Any) -> str:
    return template.format_map(_Fields(fields))


class EventRenderer:
    """One visible event -> one line of the seat's record (or None when not worth a line)."""

    def __init__(self, book: PromptBook, seat: int):
        self.b = book
        self.t = book.events
        self.seat = seat

    def s(self, seat: int | None) -> str:
        return self.t["nobody"] if seat is None else fmt(self.t["seat"], n=seat)

    def seats(self, seats: Iterable[int]) -> str:
        seats = list(seats)
        sep = str(self.t.get("seat_sep", self.sep))  # "#1 #3 #4": a third fewer tokens than "#1, #3, #4"
        return sep.join(self.s(x) for x in seats) if seats else self.t["none_seats"]

    @property
    def sep(self) -> str:
        """The list separator of the language ("、" in Chinese)."""
        return str(self.t.get("list_sep", ", "))

    def role(self, role: Any) -> str:
        value = getattr(role, "value", role)
        return self.b.system.get("role_names", {}).get(value, str(value))

    def reason(self, reason: Any) -> str:
        value = getattr(reason, "value", reason)
        return self.b.reasons.get(value, str(value))

    def phase_header(self, phase: str) -> str:
        night = phase.startswith("N")
        return fmt(self.t["phase_night" if night else "phase_day"], n=phase[1:])

    def line(self, e: Any, *, speech_limit: int | None = None) -> str | None:
        k = e.type
        if k in SKIPPED_EVENTS:
            return None
        if k == "speech":
            text = quote_speech(e.text, self.b.mark)
            if speech_limit and len(text) > speech_limit:
                text = text[:speech_limit].rstrip() + self.t.get("digest_cut", "…")
            kind = self.t.get("speech_kinds", {}).get(e.kind, e.kind)
            short = self.t["events"].get("speech_short")
            if speech_limit and short:  # summary memory: the kind only when it is not a plain discussion
                attr = "" if e.kind == "discussion" else fmt(self.t["events"].get("speech_kind_attr", ""), kind=kind)
                return fmt(short, n=e.seat, kind=attr, text=text)
            return fmt(self.t["events"]["speech"], n=e.seat, kind=kind, text=text)
        body = self._body(e)
        return None if body is None else f"{self.b.mark} {body}"

    def declared_items(self, text: str) -> str | None:
        """The items of the claims a speech declares (its last line, :meth:`PromptBuilder.declaration`)."""
        line = str(self.b.decisions.get("declared", {}).get("line", ""))
        head, _, tail = line.partition("{items}")
        at = text.rfind("\n" + head)
        if not head or at < 0 or not text.endswith(tail):
            return None
        return text[at + 1 + len(head): len(text) - len(tail)] or None

    def phase_name(self, phase: str) -> str:
        return fmt(self.t.get("digest_phase_night" if phase.startswith("N") else "digest_phase_day", "{p}"),
                   n=phase[1:], p=phase)

    def _body(self, e: Event, words: dict[str, str] | None = None) -> str | None:
        """One event as the seat reads it (without the referee mark), or None for an event the record
        does not show as a line (SKIPPED_EVENTS). Every event class has its case: a new one fails the
        type checker here (assert_never) and tests/test_coverage.py until it gets its words."""
        w = self.t["events"] if not words else {**self.t["events"], **words}  # the words of event lines
        s, seats = self.s, self.seats
        match e:
            case ev.PhaseStarted() | ev.NightStep() | ev.Thought() | ev.PlayerDied():
                return None  # the phase is a header; steps, thoughts and causes of death are not lines
            case ev.Speech():
                return None  # rendered as a quoted speech by line()
            case ev.GameStarted():
                return fmt(w["game_started"], players=e.players)
            case ev.RoleAssigned():
                return fmt(w["role_assigned"], role=self.role(e.role)) if e.seat == self.seat else None
            case ev.CenterCards():
                return fmt(w["center_cards"], cards=self.sep.join(self.role(c) for c in e.cards))
            case ev.WolfTeam():
                return fmt(w["wolf_team"], wolves=seats(e.wolves))
            case ev.GuardProtected():
                return fmt(w["guard_protected"], target=s(e.target)) if e.target is not None \
                    else w["guard_protected_none"]
            case ev.WolfKnifeVote():
                return fmt(w["wolf_knife_vote"], seat=s(e.seat), target=s(e.target))
            case ev.WolfKnife():
                return fmt(w["wolf_knife"], target=s(e.target)) if e.target is not None else w["wolf_knife_empty"]
            case ev.WolfProposal():
                return fmt(w["wolf_proposal"], seat=s(e.seat), target=s(e.target), round=e.round)
            case ev.WolfVeto():
                return fmt(w["wolf_veto"], seat=s(e.seat), target=s(e.target))
            case ev.WolfTeamMessage():
                return fmt(w["wolf_team_message"], seat=s(e.seat), text=quote_speech(e.text, self.b.mark))
            case ev.WitchTold():
                if e.victims and len(e.victims) > 1 and "witch_told_many" in w:
                    return fmt(w["witch_told_many"], victims=seats(e.victims))
                return fmt(w["witch_told"], victim=s(e.victim)) if e.victim is not None else w["witch_told_none"]
            case ev.WitchSaved() | ev.WitchPoisoned():
                return fmt(w[e.type], target=s(e.target))
            case ev.SeerResult():
                result = self.t.get("results", {}).get(e.result)
                return fmt(w["seer_result"], target=s(e.target), result=result or self.role(e.result))
            case ev.HunterStatus():
                return fmt(w["hunter_status"], status=w["hunter_can" if e.can_shoot else "hunter_cannot"])
            case ev.DeathsAnnounced():
                return fmt(w["deaths_announced"], seats=seats(e.seats)) if e.seats else w["deaths_announced_none"]
            case ev.RoleRevealed():
                return fmt(w["role_revealed"], seat=s(e.seat), role=self.role(e.role))
            case ev.SheriffCandidates():
                return fmt(w["sheriff_candidates"], seats=seats(e.seats)) if e.seats \
                    else w["sheriff_candidates_none"]
            case ev.SheriffWithdrew():
                return fmt(w["sheriff_withdrew"], seat=s(e.seat))
            case ev.BallotCast():
                if e.target is None:
                    return fmt(w["ballot_abstain"], voter=s(e.voter))
                weight = fmt(w["ballot_weight"], weight=f"{e.weight:g}") if e.weight != 1 else ""
                return fmt(w["ballot_cast"], voter=s(e.voter), target=s(e.target), weight=weight)
            case ev.VoteResult():
                name = self.t.get("ballot_names", {}).get(e.ballot, e.ballot)
                if not e.tally:
                    return fmt(w["vote_result_empty"], ballot=name)
                item = self.t.get("tally_item", "{seat}: {votes}")
                tally = self.sep.join(fmt(item, seat=s(int(k)), votes=f"{v:g}")
                                      for k, v in sorted(e.tally.items(), key=lambda kv: int(kv[0])))
                return fmt(w["vote_result"], ballot=name, tally=tally)
            case ev.SheriffElected():
                return fmt(w["sheriff_elected"], seat=s(e.seat)) if e.seat is not None \
                    else fmt(w["sheriff_elected_none"], reason=self.reason(e.reason))
            case ev.BadgeMoved():
                return fmt(w[f"badge_{e.action}"], from_seat=s(e.from_seat), to_seat=s(e.to_seat))
            case ev.SpeechOrder():
                return fmt(w["speech_order"], order=seats(e.order))
            case ev.SelfDestructed() | ev.IdiotRevealed():
                return fmt(w[e.type], seat=s(e.seat))
            case ev.HunterShot():
                return fmt(w["hunter_shot"], seat=s(e.seat), target=s(e.target))
            case ev.PkPlatform():
                return fmt(w["pk_platform"], seats=seats(e.seats))
            case ev.ExileResult():
                return fmt(w["exile_result"], seat=s(e.seat)) if e.seat is not None \
                    else fmt(w["exile_result_none"], reason=self.reason(e.reason))
            case ev.AnswerRefused():
                return fmt(w["answer_refused"], kind=e.kind, error=quote_speech(e.error, self.b.mark), used=e.used)
            case ev.GameEnded():
                winner = self.t.get("winners", {}).get(e.winner.value, e.winner.value)
                return fmt(w["game_ended"], winner=winner, reason=self.reason(e.reason))
            case ev.LoversLinked() | ev.LoversRecognised():
                return fmt(w[e.type], lovers=seats(e.lovers))
            case ev.ThiefCards():
                return fmt(w["thief_cards"], cards=self.sep.join(self.role(c) for c in e.cards))
            case ev.SkillsLost():
                return fmt(w["skills_lost"], seats=seats(e.seats))
            case ev.ElderLifeLost() | ev.LittleGirlCaught():
                return fmt(w[e.type], seat=s(e.seat))
            case ev.LittleGirlPeeked():
                return fmt(w["little_girl_peeked"], wolves=seats(e.wolves))
            case ev.LittleGirlKill():
                return fmt(w["little_girl_kill" if e.killed else "little_girl_spared"], seat=s(e.seat))
            case ev.ScapegoatBan():
                return fmt(w["scapegoat_ban" if e.mode == "ban" else "scapegoat_allow"], seat=s(e.seat),
                           day=e.day, seats=seats(e.seats))
            case ev.TravelerInfo():
                return fmt(w["traveler_info"], wolf=s(e.wolf)) if e.wolf is not None else w["traveler_info_none"]
            case ev.SeersMet():
                return fmt(w["seers_met"], seers=seats(e.seers))
            case ev.WitnessNamed():
                return fmt(w["witness_named"], cupid=s(e.cupid), witness=s(e.witness)) if e.witness is not None \
                    else fmt(w["witness_named_none"], cupid=s(e.cupid))
            case ev.HuntingGunFired() | ev.WildWolfKill() | ev.FireWolfUsed():
                return fmt(w[e.type], target=s(e.target))
            case ev.BrotherKill():
                return fmt(w["brother_kill"], target=s(e.target)) if e.target is not None else w["brother_kill_none"]
            case ev.KingTook():
                return fmt(w[f"{e.king}_king_took"], seat=s(e.seat), target=s(e.target))
            case ev.MaidSwapped():
                return fmt(w["maid_swapped"], seat=s(e.seat), from_seat=s(e.from_seat))
            case ev.AuxPoliceAppointed():
                return fmt(w["aux_police_appointed"], sheriff=s(e.sheriff), seat=s(e.seat)) if e.seat is not None \
                    else fmt(w["aux_police_appointed_none"], sheriff=s(e.sheriff))
            case ev.VotersPunished():
                return fmt(w["voters_punished"], seat=s(e.seat), day=e.day, seats=seats(e.seats))
            case _:
                assert_never(e)


# ---- history and memory ------------------------------------------------------------------

def latest_proposal(events: Sequence[Any], seat: int, phase: str) -> tuple[int | None] | None:
    """``seat``'s latest conferral proposal in ``phase``, as ``(target,)`` (``(None,)``: no kill), or
    None when it made none that night."""
    for e in reversed(events):
        if e.phase != phase:
            break  # a phase's events are consecutive in the log
        if e.type == "wolf_proposal" and e.seat == seat:
            return (e.target,)
    return None


def phase_blocks(events: Sequence[Any]) -> list[tuple[str, list[Any]]]:
    """Consecutive events grouped by their phase, in log order."""
    blocks: list[tuple[str, list[Any]]] = []
    for e in events:
        if blocks and blocks[-1][0] == e.phase:
            blocks[-1][1].append(e)
        else:
            blocks.append((e.phase, [e]))
    return blocks


@dataclass
class History:
    parts: list[str]
    record: dict[str, Any] = field(default_factory=dict)


def folded_before(phase: str) -> int:
    """Summary memory: the first day whose speeches a prompt in ``phase`` shows whole (today's; at
    night, the day just ended). Speeches of earlier days are folded into the seat's own summaries."""
    n = int(phase[1:]) if phase[1:].isdigit() else 1
    return n if phase.startswith("D") else n - 1


def render_history(renderer: EventRenderer, events: Sequence[Any], *, strategy: str,
                   summaries: dict[int, str] | None = None, whole_from: int | None = None) -> History:
    """``full``: every phase verbatim. ``summary``: every referee line of every phase verbatim too
    (ballots, candidates, knives, peaceful nights, checks: the facts cost few tokens), and every
    speech of today and, at night, of the day just ended, whole; of earlier days the seat's own
    speeches and all last words stay whole, the others are folded into the summary the seat wrote of
    that day with the whole day in view (``summaries``, day -> text), never cut to a length.
    ``whole_from``: the first day shown whole (default :func:`folded_before` of the last phase)."""
    blocks = phase_blocks(events)
    parts: list[str] = []
    folded: list[str] = []
    summaries = summaries or {}
    first_whole = folded_before(blocks[-1][0]) if whole_from is None and blocks else (whole_from or 0)
    for phase, evs in blocks:
        day = int(phase[1:]) if phase[1:].isdigit() else 0
        fold = strategy == "summary" and phase.startswith("D") and day < first_whole
        lines = []
        for e in evs:
            if fold and e.type == "speech" and e.kind != "last_words" and e.seat != renderer.seat:
                items = renderer.declared_items(e.text)  # a declaration is a public statement: it stays
                if items:
                    kind = renderer.t.get("speech_kinds", {}).get(e.kind, e.kind)
                    lines.append(fmt(renderer.t["declared_folded"], n=e.seat, kind=kind,
                                     items=quote_speech(items, renderer.b.mark)))
                continue
            ln = renderer.line(e)
            if ln:
                lines.append(ln)
        if fold:
            folded.append(phase)
            if summaries.get(day):
                lines.append(fmt(renderer.t["own_summary"], mark=renderer.b.mark, day=day, text=quote_speech(summaries[day], renderer.b.mark)))
        if lines:
            parts.append("\n".join([renderer.phase_header(phase), *lines]) + "\n")
    record: dict[str, Any] = {"strategy": strategy, "events": len(events), "phases": len(blocks)}
    if strategy == "summary":
        record.update(folded=folded, summaries=sorted(d for d in summaries if f"D{d}" in folded))
    return History(parts=parts, record=record)


# ---- the whole prompt --------------------------------------------------------------------

#: The sections of a prompt, in order (``BuiltPrompt.sections``): what a token budget is spent on.
SECTIONS = ("rules", "role", "digest", "recent", "state", "notes", "question")


class LastBeliefs(NamedTuple):
    """A seat's newest belief report, kept by its agent for the next update: the phase it was given in,
    how many of the seat's visible events it had seen, and the beliefs."""

    phase: str
    seen: int
    beliefs: dict[int, float]


@dataclass
class BuiltPrompt:
    messages: list[ChatMessage]
    memory: dict[str, Any]
    legal_text: str
    belief_seats: list[int]
    #: The prompt's text by section (:data:`SECTIONS`): the rules block, the seat's briefing, the
    #: digest of older phases, the phases kept verbatim, the state lines, the notes, the question.
    sections: dict[str, str] = field(default_factory=dict)


class PromptBuilder:
    def __init__(self, lang: str, seat: int, *, memory: str = "full", self_destruct: str = "own_turn",
                 claims_line: str = "off", declare_claims: bool = False):
        if memory not in ("full", "summary"):
            raise ValueError(f"unknown memory strategy {memory!r}; use full or summary")
        self.lang = lang
        self.book = prompt_book(lang)
        self.seat = seat
        self.memory = memory
        #: Summary memory: the seat's own summary of each day it has written (day -> text), appended
        #: and kept (:meth:`agents.llm.LLMAgent` asks for one at the end of each day).
        self.summaries: dict[int, str] = {}
        #: ``off``: no claims line; ``reader``: the automatic reading of the speeches, labelled as such.
        self.claims_line = claims_line
        #: Speech answers list their public claims (``claims``), appended to the speech (#25 item 4).
        self.declare_claims = declare_claims
        self.renderer = EventRenderer(self.book, seat)
        #: When this seat is offered to self-destruct (the agent's policy), told to a seat that may.
        self.self_destruct = self_destruct
        self._events: Sequence[Any] = ()  # the observation's events while a prompt is built

    # -- system: rules of the board in force, then the role briefing --
    def deck(self, observation: Observation) -> dict[str, int]:
        for e in observation.events:
            if e.type == "game_started":
                return {str(k): int(v) for k, v in e.role_counts.items()}
        from arena.config import get_preset

        counts: dict[str, int] = {}
        for card in get_preset(observation.preset).cards:
            counts[card.value] = counts.get(card.value, 0) + 1
        return counts

    def rule_lines(self, observation: Observation, kind: str | None = None) -> tuple[list[str], list[str]]:
        """The rule lines of the board in force: (the table's, the seat's own). Full memory: every
        switch that applies to the deck, all of them the table's. Summary memory: the compact card
        (``card_rules``), the same data but only the switches that matter to the seat's own
        decisions; the lines for everyone (``_for: all``) are the table's, the lines for the seat's
        role go with its briefing, so that the rules block stays the same for every seat.
        A card line with ``_kinds`` bears only on those decision kinds: it is left out of both lists
        and given with the question instead (:meth:`kind_rule_lines`, for ``kind``)."""
        sy = self.book.system
        deck = self.deck(observation)
        card = self.memory == "summary" and "card" in sy
        view = observation.view()
        role = getattr(view.role, "value", view.role) if card else None
        table_lines: list[str] = []
        seat_lines: list[str] = []
        for switch, table in ((sy.get("card_rules") if card else sy.get("rules")) or {}).items():
            if switch not in observation.switches:
                continue
            needs = table.get("_role")
            if needs and needs not in deck:
                continue
            needs_switch = table.get("_if")
            needs = [needs_switch] if isinstance(needs_switch, str) else list(needs_switch or [])
            if not all(observation.switches.get(n) for n in needs):
                continue
            if table.get("_unless") and observation.switches.get(table["_unless"]):
                continue  # another entry says it for this board (003's witch: _unless witch_original_potion)
            audience = table.get("_for", "all") if card else "all"
            if audience != "all" and role not in audience:
                continue
            kinds = table.get("_kinds") if card else None
            if (kinds is None) != (kind is None) or (kinds is not None and kind not in kinds):
                continue  # kind None: the lines for every decision; else the ones that bear on kind alone
            line = table.get(observation.switches[table.get("_by", switch)])  # _by: the switch whose value picks the line
            if line:
                (table_lines if audience == "all" else seat_lines).append(sy.get("rule_prefix", "- ") + line)
        if kind is None:  # what every card on the board does, for every seat (the same lines for all)
            table_lines = self.card_lines(observation) + table_lines
        return table_lines, seat_lines

    def card_lines(self, observation: Observation) -> list[str]:
        """One line per card dealt on this board saying what it does (``cards`` in llm_system.yaml), so
        that every seat knows every card's power, not only its own. An entry may be a mapping: ``_`` the
        line, and ``switch: {value: line}`` a board's own version of the card (003's three-potion witch)."""
        cards = self.book.system.get("cards") or {}
        prefix = self.book.system.get("rule_prefix", "- ")
        lines = []
        for role in self.deck(observation):
            entry = cards.get(getattr(role, "value", role))
            line = entry
            if isinstance(entry, dict):
                line = entry.get("_")
                for switch, by_value in entry.items():
                    value = observation.switches.get(switch)
                    if switch != "_" and isinstance(by_value, dict) and value in by_value:
                        line = by_value[value]
                        break
            if isinstance(line, str) and line:
                lines.append(prefix + line)
        return lines

    def kind_rule_lines(self, observation: Observation, kind: str) -> list[str]:
        """Summary memory: the card's lines that bear only on decisions of ``kind`` (``_kinds``),
        given with the question rather than in every prompt's rules block."""
        if self.memory != "summary":
            return []
        table_lines, seat_lines = self.rule_lines(observation, kind)
        return table_lines + seat_lines

    def system_text(self, observation: Observation, rules: Sequence[str] | None = None) -> str:
        """The rules of the board in force and how to read and answer: the same text for every seat
        of the table (the seat and its card come after it, in :meth:`role_text`). Full memory: every
        switch that applies to the deck. Summary memory: the compact card (``card``/``card_rules``)
        with the switches that matter to every seat. ``rules``: the table's lines of
        :meth:`rule_lines`, when already known."""
        sy = self.book.system
        deck = self.deck(observation)
        card = self.memory == "summary" and "card" in sy
        deck_text = sy.get("deck_sep", ", ").join(
            fmt(sy["deck_item_one"] if card and n == 1 and "deck_item_one" in sy else sy["deck_item"],
                role=self.renderer.role(r), count=n) for r, n in deck.items())
        if rules is None:
            rules = self.rule_lines(observation)[0]
        title = observation.preset
        try:
            from arena.config import get_preset

            preset = get_preset(observation.preset)
            title = (preset.title_zh if self.lang == "zh" else preset.title_en) or preset.id
        except Exception:
            pass
        return fmt(sy["card" if card else "system"], players=observation.players, title=title, deck=deck_text,
                   rules="\n".join(rules), referee=self.book.mark).strip() + "\n"

    def role_text(self, view: SeatView, rules: Sequence[str] = (), may_self_destruct: bool = False) -> str:
        """The seat's own briefing: its seat, card and teammates, then ``rules`` (summary memory:
        the card's lines for this role)."""
        ro = self.book.roles
        if view.role is None:
            return "\n" + fmt(ro["unknown_role"], seat=self.seat) + "\n"
        brief = self.memory == "summary" and "brief" in ro
        table = ro.get("brief" if brief else "roles", {})
        header = ro.get("header_brief", ro["header"]) if brief else ro["header"]
        lines = [fmt(header, seat=self.seat, role=self.renderer.role(view.role)),
                 table[view.role]]  # every card has its lines (tests/test_coverage.py)
        if view.wolves and self.seat in view.wolves:
            lines.append(fmt(ro["team"], team=self.renderer.seats(view.wolves)))
        if may_self_destruct:  # the rules allow it before any speech; this seat is asked when its policy says
            lines.append(ro.get("self_destruct_offer", {}).get(self.self_destruct, ""))
        text = (ro.get("brief_sep", " ") if brief else "\n").join(ln for ln in lines if ln)
        return "\n" + "\n".join([text, *rules]) + "\n"

    @staticmethod
    def may_self_destruct(observation: Observation, view: SeatView) -> bool:
        """R66: the rules in force let this seat's card self-destruct."""
        from arena.rules.wolves import self_destruct_cards

        role = getattr(view.role, "value", view.role)
        return bool(observation.switches.get("self_destruct")) and role in {r.value for r in self_destruct_cards()}

    # -- the question --
    def legal_text(self, legal: Any) -> str:
        t = self.book.decisions["legal"]
        kind = getattr(legal, "type", None)
        r = self.renderer
        if kind == "seat":
            return fmt(t["seat_none" if legal.allow_none else "seat"], options=r.seats(legal.options))
        if kind == "bool":
            return t["bool"]
        if kind == "seats":
            count = str(legal.min_count) if legal.min_count == legal.max_count else f"{legal.min_count}-{legal.max_count}"
            return fmt(t["seats_none" if legal.allow_none else "seats"], count=count,
                       options=r.sep.join(str(o) for o in legal.options))
        if kind == "option":
            # Each option as the JSON the answer holds (null, false, "keep"), never Python's None/False.
            return fmt(t["option"], options=", ".join(json.dumps(o, ensure_ascii=False) for o in legal.options))
        if kind == "speech_order":
            return fmt(t["speech_order"], starts=", ".join(str(s) for s in legal.starts),
                       directions=", ".join(f'"{d}"' for d in legal.directions),
                       starts_rule=t["speech_order_starts"][legal.starts_from])
        if kind == "text":
            return t["text"]
        if kind == "beliefs":
            return fmt(t["beliefs"], options=r.seats(legal.seats))
        return str(getattr(legal, "to_json", lambda: legal)())

    def question(self, request: Any, view: SeatView, legal_text: str, notes: str | None,
                 belief_seats: list[int], speech_chars: int | None) -> str:
        """The prompt's last part, all of it volatile: the state line, the notes, the question."""
        return "\n".join(self.question_sections(request, view, legal_text, notes, belief_seats, speech_chars).values())

    def question_sections(self, request: Any, view: SeatView, legal_text: str, notes: str | None,
                          belief_seats: list[int], speech_chars: int | None,
                          rules: Sequence[str] = ()) -> dict[str, str]:
        """The prompt's last part by section (``state``, ``notes``, ``question``), all of it volatile.
        The seat, its card and the answer format are not repeated here: the system prompt has them
        (summary memory's compact card gives the JSON shape in one line; a question that wants beliefs
        adds their shape)."""
        d = self.book.decisions
        r = self.renderer
        night = view.phase.startswith("N")
        phase_name = fmt(d["phase_night" if night else "phase_day"], n=view.phase[1:])
        now_key = "now_short" if self.memory == "summary" and "now_short" in d else "now"
        order = self.speaking_order(view, self._events)
        # summary memory: when today's speaking order lists exactly the living, it is the alive list too
        order_is_alive = (self.memory == "summary" and "now_ordered" in d and order is not None
                          and sorted(order) == sorted(view.alive))
        now = fmt(d["now_ordered" if order_is_alive else now_key], phase_name=phase_name,
                  alive=r.seats(sorted(view.alive)), sheriff=r.s(view.sheriff))
        ctx = dict(request.context or {})
        fields: dict[str, Any] = {"seat": self.seat, "phase": request.phase, "legal": legal_text, "kind": request.kind}
        for key, value in ctx.items():
            if isinstance(value, int) and not isinstance(value, bool) and key not in ("round", "rounds"):
                fields[key] = r.s(value)
            elif isinstance(value, (list, tuple)) and all(isinstance(v, int) for v in value):
                fields[key] = r.seats(value)
            elif value is None and key in SEAT_FIELDS:
                fields[key] = r.s(None)  # "nobody", not "None"
            else:
                fields[key] = value
        fields.setdefault("victim", r.s(ctx.get("victim")))
        fields["proposals"] = self.proposals_text(ctx) if "proposals" in ctx else ""
        last = ctx.get("last_guarded")
        fields["last_guarded_note"] = fmt(d["last_guarded"], seat=r.s(last)) if last is not None else ""
        speech_kind = ctx.get("speech")
        fields["speech_kind"] = self.book.events.get("speech_kinds", {}).get(speech_kind, speech_kind or "")
        fields["length"] = fmt(d["speech_length"], chars=speech_chars) if speech_chars else ""
        fields.setdefault("wolves", r.seats(view.wolves))
        fields.setdefault("before_speaker", r.s(ctx.get("before_speaker")))
        mode = ctx.get("mode")
        if mode is not None:  # the scapegoat's rule in words (ban_list / allow_list, R156)
            fields["scapegoat_rule"] = d["scapegoat_rule"][mode]
        template = d["kinds"][request.kind]  # every kind has its question (tests/test_coverage.py)
        if ctx.get("victims") and request.kind in d.get("kinds_many", {}):  # 003: several attacks hit (R30, R114)
            template = d["kinds_many"][request.kind]
        ask = [*rules, fmt(template, **fields)]
        if getattr(request.legal, "type", None) == "text" and "listeners" in d:  # a speaker knows what its listeners keep
            ask.append(d["listeners"][self.memory])
            if self.declare_claims:
                ask.append(d["declared"]["ask"])
        if belief_seats:
            ask.append(d["beliefs_short" if self.memory == "summary" and "beliefs_short" in d else "beliefs_ask"])
        return {"state": "\n".join([now, *self.state_lines(view, self._events, order_is_alive=order_is_alive)]),
                "notes": fmt(d["notes"], notes=notes) if notes else d["no_notes"],
                "question": "\n".join(ask)}

    @staticmethod
    def speaking_order(view: SeatView, events: Sequence[Any]) -> list[int] | None:
        """Today's speaking order, once the referee has announced it."""
        for e in reversed(events):
            if e.phase != view.phase:
                return None
            if e.type == "speech_order":
                return list(e.order)
        return None

    def state_lines(self, view: SeatView, events: Sequence[Any], *, order_is_alive: bool = False) -> list[str]:
        """What this seat knows, gathered from its visible events so that it need not dig through the
        record: its own checks, potions and guards, today's speaking order, the public claims (as
        claims) and the votes so far. Volatile, so it sits with the question, after the cached prefix."""
        from arena.evaluate.claims import parse_claims

        st = self.book.decisions.get("state", {})
        if not st:
            return []
        r = self.renderer
        role = getattr(view.role, "value", view.role)
        checks: list[str] = []
        guards: list[str] = []
        saved = poisoned = False
        order: list[int] | None = None
        claims: dict[int, list[str]] = {}
        votes: list[tuple[str, str]] = []  # (day, the vote in words)
        ballots: dict[tuple[str, str, int], list[Any]] = {}  # (phase, ballot, round) -> the ballots seen
        results = self.book.events.get("results", {})
        for e in events:
            t = e.type
            if t == "seer_result" and getattr(e, "seat", self.seat) == self.seat:
                checks.append(fmt(st["check_item"], seat=r.s(e.target), result=results.get(e.result) or r.role(e.result)))
            elif t == "guard_protected" and e.seat == self.seat:
                night = e.phase[1:]
                guards.append(fmt(st["guard_item"], n=night, seat=r.s(e.target)) if e.target is not None
                              else fmt(st["guard_item_none"], n=night))
            elif t == "witch_saved" and e.seat == self.seat and getattr(e, "potion", "antidote") == "antidote":
                saved = True
            elif t == "witch_poisoned" and e.seat == self.seat and getattr(e, "potion", "poison") == "poison":
                poisoned = True
            elif t == "speech_order":
                order = list(e.order) if e.phase == view.phase else None
            elif t == "phase_started" and e.phase != view.phase:
                order = None
            elif t == "speech" and self.claims_line == "reader":
                # An automatic reading of the speeches (arena.evaluate.claims), every item with its day;
                # off by default: a reading that is not exact states things nobody said (#25 item 4).
                found = parse_claims(e.text, view.players)
                said = claims.setdefault(e.seat, [])
                day = fmt(st["claim_day"], n=e.phase[1:])
                for claimed in found.roles:
                    item = fmt(st["claim_role"], role=r.role(claimed)) + day
                    if item not in said:
                        said.append(item)
                for seat, result in found.checks_given("seer" in found.roles or any(
                        r.role("seer") in x for x in said)):
                    item = fmt(st["claim_check"], seat=r.s(seat), result=results.get(result, result)) + day
                    if item not in said:
                        said.append(item)
            elif t == "ballot_cast":
                ballots.setdefault((e.phase, e.ballot, e.round), []).append(e)
            elif t == "vote_result" and e.tally:
                votes.append((e.phase[1:], self.vote_item(e, ballots.get((e.phase, e.ballot, e.round), []))))
        lines: list[str] = []
        if role == "witch":
            lines.append(fmt(st["potions"], antidote=st["used" if saved else "left"],
                             poison=st["used" if poisoned else "left"]))
        if role in ("seer",) or checks:
            lines.append(fmt(st["checks"], items=r.sep.join(checks)) if checks else st["checks_none"])
        if role == "guard" or guards:
            lines.append(fmt(st["guards"], items=r.sep.join(guards)) if guards else st["guards_none"])
        if order:
            lines.append(fmt(st["speaking_order_alive" if order_is_alive else "speaking_order"], order=r.seats(order)))
        ledger = [fmt(st["claim_seat"], seat=r.s(s), items=r.sep.join(items)) for s, items in sorted(claims.items()) if items]
        if ledger:
            lines.append(fmt(st["claims"], items=st.get("claims_sep", "; ").join(ledger)))
        if votes and self.memory != "summary":  # summary memory: every ballot is in the record already, once
            lines.append(fmt(st["votes"], items=st.get("claims_sep", "; ").join(item for _, item in votes)))
        return lines

    def vote_item(self, result: Any, ballots: Sequence[Any]) -> str:
        """One vote of the "votes so far" line: who voted for whom, grouped by target ("D2 exile:
        1,3→8 2→5"; "第2天放逐：1号、3号投8号，2号投5号"), when the seat saw every ballot; else (secret
        ballots) the totals the referee announced."""
        st = self.book.decisions["state"]
        r = self.renderer
        phase = r.phase_name(result.phase)
        counted = sum(b.weight for b in ballots if b.target is not None)
        if "vote_ballots" in st and ballots and abs(counted - sum(result.tally.values())) < 1e-9:
            name = st.get("ballot_short", {}).get(result.ballot, result.ballot)
            groups: dict[int | None, list[str]] = {}
            for b in ballots:
                voter = fmt(st["vote_seat"], n=b.voter)
                if b.weight != 1 and b.target is not None:
                    voter += fmt(st["vote_weight"], weight=f"{b.weight:g}")
                groups.setdefault(b.target, []).append(voter)
            sep = st.get("vote_voter_sep", ",")
            parts = [fmt(st["vote_group"], voters=sep.join(groups[t]), target=fmt(st["vote_seat"], n=t))
                     for t in sorted(t for t in groups if t is not None)]
            if None in groups:
                parts.append(fmt(st["vote_abstain"], voters=sep.join(groups[None])))
            return fmt(st["vote_ballots"], phase=phase, ballot=name, groups=st.get("vote_group_sep", " ").join(parts))
        name = self.book.events.get("ballot_names", {}).get(result.ballot, result.ballot)
        tally = r.sep.join(fmt(self.book.events.get("tally_item", "{seat}: {votes}"), seat=r.s(int(k)), votes=f"{v:g}")
                           for k, v in sorted(result.tally.items(), key=lambda kv: int(kv[0])))
        return fmt(st["vote_item"], phase=phase, ballot=name, tally=tally)

    def proposals_text(self, ctx: dict[str, Any]) -> str:
        """R24's conferral: the teammates' latest proposals (and the targets objected to), in words."""
        d = self.book.decisions
        r = self.renderer
        pairs = [p for p in ctx.get("proposals") or [] if isinstance(p, (list, tuple)) and len(p) == 2]
        text = fmt(d["proposals"], items=d.get("list_sep", ", ").join(
            fmt(d["proposal_item" if t is not None else "proposal_item_none"], seat=r.s(s), target=r.s(t))
            for s, t in pairs)) if pairs else d["proposals_none"]
        own = self.own_proposal() if self.memory == "summary" and "proposal_own" in d else None
        if own is not None:  # summary memory keeps no proposal line in the record: say the seat's own here
            text += fmt(d["proposal_own"], target=r.s(own[0])) if own[0] is not None else d["proposal_own_none"]
        if ctx.get("vetoed"):
            text += fmt(d["vetoed_note"], seats=r.seats(ctx["vetoed"]))
        return text

    def own_proposal(self) -> tuple[int | None] | None:
        """This seat's latest proposal of the night the prompt is built in, if it made one."""
        return latest_proposal(self._events, self.seat, self._events[-1].phase) if self._events else None

    def repair(self, error: str, legal_text: str) -> str:
        return fmt(self.book.decisions["repair"], error=error, legal=legal_text).strip()

    def build(self, observation: Observation, request: Any, *, notes: str | None = None,
              beliefs: bool = True, speech_chars: int | None = None,
              self_destruct_kind: str | None = None) -> BuiltPrompt:
        """The prompt for ``request``. ``self_destruct_kind``: the request is the seat's own speech,
        asked together with the self-destruct question of that kind that comes right before it (the
        question ends with its clause, and the rule lines of both kinds come with it)."""
        view = observation.view()
        table_rules, seat_rules = self.rule_lines(observation)
        # Two cache marks: after the rules (every seat of the table sends the same), after the briefing.
        system = ChatMessage(role="system", parts=(
            ContentPart(text=self.system_text(observation, table_rules), cache=True),
            ContentPart(text=self.role_text(view, seat_rules, self.may_self_destruct(observation, view)), cache=True)))
        # a decision of the night (a dawn shot, say, asked once the day has begun) sees the day that ended before it
        whole_from = min(folded_before(str(request.phase)), folded_before(observation.events[-1].phase)) \
            if observation.events else None
        history = render_history(self.renderer, observation.events, strategy=self.memory, summaries=self.summaries,
                                 whole_from=whole_from)
        belief_seats = sorted(s for s in view.alive if s != self.seat) if beliefs and request.kind in BELIEF_KINDS else []
        legal_text = self.legal_text(request.legal)
        parts = [ContentPart(text=p) for p in history.parts]
        if parts:
            parts[-1] = ContentPart(text=parts[-1].text, cache=True)
        self._events = observation.events
        kind_rules = self.kind_rule_lines(observation, getattr(request.kind, "value", request.kind))
        if self_destruct_kind:
            kind_rules += [ln for ln in self.kind_rule_lines(observation, self_destruct_kind) if ln not in kind_rules]
        asked = self.question_sections(request, view, legal_text, notes, belief_seats, speech_chars, kind_rules)
        if self_destruct_kind:
            asked["question"] += "\n" + self.book.decisions["self_destruct_clause"][self_destruct_kind]
        parts.append(ContentPart(text="\n".join(asked.values())))
        user = ChatMessage(role="user", parts=tuple(parts))
        memory = dict(history.record)
        memory["notes"] = notes
        folded = set(history.record.get("folded", ()))
        blocks = [(part, part.split("\n", 1)[0]) for part in history.parts]
        digest = "".join(p for p, head in blocks if any(head == self.renderer.phase_header(f) for f in folded))
        sections = {"rules": system.parts[0].text, "role": system.parts[1].text, "digest": digest,
                    "recent": "".join(history.parts)[len(digest):], **asked}
        return BuiltPrompt(messages=[system, user], memory=memory, legal_text=legal_text, belief_seats=belief_seats,
                           sections=sections)

    def build_belief(self, observation: Observation, request: Any, *, notes: str | None = None,
                     last: "LastBeliefs | None" = None) -> BuiltPrompt:
        """The belief update of modes ``day_end`` and ``every_speech``: a short prompt of its own, with
        no board rules and no history, only the seat's card, what it knows (the state lines), its notes,
        its last beliefs (``last``, kept by the agent) and what it has seen since them (speeches cut as
        in summary memory)."""
        bt = self.book.decisions["belief"]
        r = self.renderer
        view = observation.view()
        team = fmt(bt["team"], wolves=r.seats(view.wolves)) if view.wolves and self.seat in view.wolves else ""
        system = fmt(bt["system"], players=observation.players, seat=self.seat,
                     role=r.role(view.role) if view.role else "?", team=team)
        events = observation.events
        lines = [fmt(self.book.decisions["now_short" if "now_short" in self.book.decisions else "now"],
                     phase_name=fmt(self.book.decisions["phase_night" if view.phase.startswith("N") else "phase_day"],
                                    n=view.phase[1:]),
                     alive=r.seats(sorted(view.alive)), sheriff=r.s(view.sheriff))]
        self._events = events
        state = self.state_lines(view, events)
        notes_line = fmt(self.book.decisions["notes"], notes=notes) if notes else self.book.decisions["no_notes"]
        lines += [*state, notes_line]
        if last is not None:
            items = r.sep.join(fmt(bt["item"], seat=r.s(int(k)), p=f"{float(v):.2f}")
                               for k, v in sorted(last.beliefs.items(), key=lambda kv: int(kv[0])))
            lines.append(fmt(bt["last"], phase=r.phase_name(last.phase), items=items))
        else:
            lines.append(bt["last_none"])
        limit = int(self.book.events.get("summary_speech_chars", 200))
        new = [ln for ln in (r.line(e, speech_limit=limit) for e in events[last.seen if last else 0:]) if ln]
        lines += [bt["new"], *new] if new else [bt["new_none"]]
        asked_from = len(lines)
        ctx = request.context or {}
        if ctx.get("after") == "speech":
            lines.append(fmt(bt["after_speech"], speaker=r.s(ctx.get("speaker"))))
        elif ctx.get("after") == "day_end":
            lines.append(bt["after_day_cut_short" if ctx.get("cut_short") else "after_day_end"])
        legal_text = self.legal_text(request.legal)
        lines.append(fmt(self.book.decisions["kinds"][request.kind], legal=legal_text))
        lines.append(fmt(bt["answer"], seats=r.sep.join(str(x) for x in request.legal.seats)))
        messages = [ChatMessage.of("system", system), ChatMessage.of("user", "\n".join(lines))]
        memory = {"strategy": "belief_update", "since": last.phase if last is not None else None,
                  "new_lines": len(new), "notes": notes}
        sections = {"role": system, "recent": "\n".join(new), "state": "\n".join([lines[0], *state]),
                    "notes": notes_line, "question": "\n".join(lines[asked_from:])}
        return BuiltPrompt(messages=messages, memory=memory, legal_text=r.sep.join(str(x) for x in request.legal.seats),
                           belief_seats=list(request.legal.seats), sections=sections)

    def declaration(self, claims: Sequence[dict[str, Any]]) -> str:
        """The line a speech's declared claims add to it (``declared.line``), in the table's words."""
        t = self.book.decisions["declared"]
        r = self.renderer
        results = self.book.events.get("results", {})
        items = [fmt(t[c["kind"]], role=r.role(c.get("role")), seat=r.s(c.get("seat")), then=r.s(c.get("then")),
                     night=c.get("night") or "?", result=results.get(c.get("result") or "", c.get("result") or "?"))
                 for c in claims]
        return fmt(t["line"], items=t.get("sep", "; ").join(items))

    def build_day_summary(self, observation: Observation, day: int, chars: int) -> BuiltPrompt:
        """Summary memory's end-of-day call: the seat's prompt with day ``day`` shown whole (and the
        same cacheable prefix as its decisions), asking for its own summary of that day."""
        view = observation.view()
        table_rules, seat_rules = self.rule_lines(observation)
        system = ChatMessage(role="system", parts=(
            ContentPart(text=self.system_text(observation, table_rules), cache=True),
            ContentPart(text=self.role_text(view, seat_rules, self.may_self_destruct(observation, view)), cache=True)))
        history = render_history(self.renderer, observation.events, strategy=self.memory, summaries=self.summaries,
                                 whole_from=day)
        parts = [ContentPart(text=p) for p in history.parts]
        question = fmt(self.book.decisions["day_summary"], day=day, chars=chars)
        parts.append(ContentPart(text=question))
        memory = {**history.record, "day_summary": day}
        return BuiltPrompt(messages=[system, ChatMessage(role="user", parts=tuple(parts))], memory=memory,
                           legal_text="", belief_seats=[], sections={"question": question})

    def belief_repair(self, error: str, seats_text: str) -> str:
        return fmt(self.book.decisions["belief"]["repair"], error=error, legal=seats_text).strip()

