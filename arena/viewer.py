"""``arena view``: a transcript as one self-contained HTML replay page.

The page is a template (``arena/viewer_assets/``) with its CSS, script and the game data inlined:
it opens offline from disk, with no network and no CDN. Visibility is decided here, in Python,
with the one filter every agent is held to (:func:`arena.observation.visible_events`): for the god
view and for every seat the page receives the list of event indices (and decision lines) that view
may show, and only renders those. The script never judges what a seat could know.

Event lines are rendered to text here too, in both languages, from the narration templates
(``prompts/<lang>/narration.yaml``) and the viewer's own labels (``prompts/<lang>/viewer.yaml``), so
the page can switch language without re-reading a transcript.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

import yaml

from arena.events import (AnswerRefused, BadgeMoved, BallotCast, CenterCards, DeathsAnnounced, Event, ExileResult,
                          GameEnded, GameStarted, GuardProtected, HunterShot, HunterStatus, IdiotRevealed, NightStep,
                          PhaseStarted, PkPlatform, PlayerDied, RoleAssigned, RoleRevealed, SeerResult, SelfDestructed,
                          SheriffCandidates, SheriffElected, SheriffWithdrew, Speech, SpeechOrder, Thought, VoteResult,
                          WitchPoisoned, WitchSaved, WitchTold, WolfKnife, WolfKnifeVote, WolfTeam)
from arena.narration import LANGS, PROMPTS_DIR, Narrator, board_title, reason_text, templates
from arena.observation import visible_events
from arena.table import EVENT_ICON, MARKER_ICON, table_mark, wolf_cards
from arena.untrusted import one_line
from arena.transcript import DecisionLine, EventLine, HeaderLine, ResultLine, read_transcript

ASSETS_DIR = Path(__file__).resolve().parent / "viewer_assets"

#: Long prompts (an LLM seat's whole context) are cut to keep pages light; the transcript keeps all.
MAX_PROMPT_CHARS = 6000

# Emoji at the start of narration templates: the page draws its own icons (no emoji font needed).
_LEADING_SYMBOLS = re.compile(r"^[\s\u2190-\u2bff\u2600-\u27bf\U0001F000-\U0001FFFF\ufe0f\u200d=]+")
_TRAILING = re.compile(r"[\s=]+$")


@lru_cache(maxsize=4)
def viewer_labels(lang: str) -> dict[str, Any]:
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r}; choose one of {', '.join(LANGS)}")
    return yaml.safe_load((PROMPTS_DIR / lang / "viewer.yaml").read_text(encoding="utf-8"))


def _clean(template: str) -> str:
    """A narration template without its leading emoji, indentation and newlines."""
    return _TRAILING.sub("", _LEADING_SYMBOLS.sub("", template.replace("\n", " ")))


class EventText:
    """One event as a line of text in one language (no icons: the page adds them)."""

    def __init__(self, lang: str):
        self.n = templates(lang)
        self.v = viewer_labels(lang)
        self.narrator = Narrator(lang, god_view=True)  # used for wording only, never to filter
        self.lang = lang
        self.sep = self.narrator.sep

    def s(self, seat: int | None) -> str:
        return self.n["nobody"] if seat is None else self.n["seat"].format(seat=seat)

    def seats(self, seats: Iterable[int]) -> str:
        seats = list(seats)
        return self.sep.join(self.s(x) for x in seats) if seats else self.n["nobody"]

    def role(self, role: Any) -> str:
        value = getattr(role, "value", role)
        return self.v["role"].get(value) or self.n["role"].get(value, value)

    def reason(self, reason: Any) -> str:
        return reason_text(reason, self.n)

    def t(self, key: str, **fields: Any) -> str:
        return _clean(self.n[key]).format(**fields)

    def line(self, e: Event) -> str:
        v, ev = self.v, self.v["events"]
        if isinstance(e, GameStarted):
            roles = self.sep.join(f"{self.role(r)}×{n}" for r, n in e.role_counts.items())
            return ev["game_started"].format(preset=e.preset, players=e.players, roles=roles,
                                             title=board_title(e.preset, e.players, self.lang))
        if isinstance(e, RoleAssigned):
            return self.t("deal", seat=self.s(e.seat), role=self.role(e.role))
        if isinstance(e, CenterCards):
            return ev["center_cards"].format(cards=self.sep.join(self.role(c) for c in e.cards))
        if isinstance(e, WolfTeam):
            return self.t("wolf_team", seats=self.seats(e.wolves))
        if isinstance(e, PhaseStarted):
            return self.t("night" if e.phase.startswith("N") else "day", n=e.phase[1:])
        if isinstance(e, NightStep):
            return self.n["step_name"][e.step]
        if isinstance(e, GuardProtected):
            if e.target is None and "guard_protected_none" in self.n:  # 空守
                return self.t("guard_protected_none", seat=self.s(e.seat))
            return self.t("guard_protected", seat=self.s(e.seat), target=self.s(e.target))
        if isinstance(e, WolfKnifeVote):
            if e.target is None:
                return ev["wolf_knife_vote_none"].format(seat=self.s(e.seat))
            return ev["wolf_knife_vote"].format(seat=self.s(e.seat), target=self.s(e.target))
        if isinstance(e, WolfKnife):
            return self.t("wolf_knife", target=self.s(e.target)) if e.target else self.t("wolf_knife_empty")
        if isinstance(e, WitchTold):
            if e.victim is None:
                return ev["witch_told_none"].format(seat=self.s(e.seat))
            return ev["witch_told"].format(seat=self.s(e.seat), victim=self.s(e.victim))
        if isinstance(e, (WitchSaved, WitchPoisoned)):
            return self.t(e.type, seat=self.s(e.seat), target=self.s(e.target))
        if isinstance(e, SeerResult):
            result = v["seer_result"].get(e.result) or self.role(e.result)
            return self.t("seer_result", seat=self.s(e.seat), target=self.s(e.target), result=result)
        if isinstance(e, HunterStatus):
            status = ev["hunter_can"] if e.can_shoot else ev["hunter_cannot"]
            return ev["hunter_status"].format(seat=self.s(e.seat), status=status)
        if isinstance(e, PlayerDied):
            cause = getattr(e.cause, "value", e.cause)
            return ev["player_died"].format(seat=self.s(e.seat), cause=self.n["cause"][cause])
        if isinstance(e, DeathsAnnounced):
            return self.t("deaths_announced", seats=self.seats(e.seats)) if e.seats else self.t("peaceful_night")
        if isinstance(e, RoleRevealed):
            return self.t("role_revealed", seat=self.s(e.seat), role=self.role(e.role))
        if isinstance(e, SheriffCandidates):
            if not e.seats:
                return self.t("sheriff_no_candidates")
            return self.t("sheriff_candidates", seats=self.seats(e.seats))
        if isinstance(e, SheriffWithdrew):
            return self.t("sheriff_withdrew", seat=self.s(e.seat))
        if isinstance(e, SheriffElected):
            if e.seat is None:
                return self.t("sheriff_none", reason=self.reason(e.reason))
            return self.t("sheriff_elected", seat=self.s(e.seat), reason=self.reason(e.reason))
        if isinstance(e, BadgeMoved):
            return self.t(f"badge_{e.action}", from_seat=self.s(e.from_seat), to_seat=self.s(e.to_seat))
        if isinstance(e, SpeechOrder):
            item = ev.get("order_item", "{n}")
            return ev["speech_order"].format(order=" → ".join(item.format(n=s) for s in e.order))
        if isinstance(e, Speech):
            tag = self.n["speech_tag"].get(e.kind, "")
            return ev.get("speech", "{seat}{tag}: {text}").format(seat=self.s(e.seat), tag=tag, text=one_line(e.text))
        if isinstance(e, BallotCast):
            weight = ev["weight"].format(weight=f"{e.weight:g}") if e.weight != 1 else ""
            if e.target is None:
                return self.t("ballot_abstain", voter=self.s(e.voter)) + weight
            return self.t("ballot", voter=self.s(e.voter), target=self.s(e.target)) + weight
        if isinstance(e, VoteResult):
            item = self.n.get("tally_item", "{seat}: {votes}")
            tally = self.sep.join(item.format(seat=self.s(int(seat)), votes=f"{n:g}")
                                  for seat, n in e.tally.items()) or self.n["nobody"]
            return v["ballot"].get(e.ballot, e.ballot) + " · " + self.t("tally", tally=tally)
        if isinstance(e, PkPlatform):
            return self.t("pk_platform", seats=self.seats(e.seats))
        if isinstance(e, ExileResult):
            if e.seat is None:
                return self.t("exile_none", reason=self.reason(e.reason))
            if e.reason == "idiot_revealed":
                return ev["exile_idiot"].format(seat=self.s(e.seat))
            return self.t("exile_result", seat=self.s(e.seat))
        if isinstance(e, IdiotRevealed):
            return self.t("idiot_revealed", seat=self.s(e.seat))
        if isinstance(e, SelfDestructed):
            return self.t("self_destructed", seat=self.s(e.seat))
        if isinstance(e, HunterShot):
            return self.t("hunter_shot", seat=self.s(e.seat), target=self.s(e.target))
        if isinstance(e, AnswerRefused):
            kind = self.v["kind"].get(e.kind) or e.kind
            return self.t("answer_refused", seat=self.s(e.seat), kind=kind, error=one_line(e.error))
        if isinstance(e, Thought):
            return ev["thought"].format(seat=self.s(e.seat), text=one_line(e.reasoning or e.notes or "…"))
        if isinstance(e, GameEnded):
            winner = getattr(e.winner, "value", e.winner)
            return self.t("game_ended", winner=self.n["winner"].get(winner, winner), reason=self.reason(e.reason))
        # the extended roles' events: the narration's words (it has words for every event)
        return _clean(self.narrator.text(e))


def _read_ordered(path: str | Path) -> tuple[HeaderLine, list[EventLine], list[tuple[DecisionLine, int]],
                                             ResultLine | None, bool]:
    """The transcript's lines, with each decision tagged by the number of events written before it.

    A decision line is written right before the events its answer caused, so that count is the
    index of the first event the page shows it with.
    """
    t = read_transcript(path)
    return t.header, t.events, list(zip(t.decisions, t.decision_positions)), t.result, t.torn_tail


def _cut(value: Any) -> Any:
    if isinstance(value, str) and len(value) > MAX_PROMPT_CHARS:
        return value[:MAX_PROMPT_CHARS] + f"\n… ({len(value) - MAX_PROMPT_CHARS} more characters in the transcript)"
    if value is not None and not isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False, indent=1, default=str)
        return _cut(text)
    return value


def _stages(log: list[Event]) -> list[str]:
    """The phase in force at each event: the last ``phase_started`` before it.

    An event's own ``phase`` can name an earlier phase (a night death is recorded at dawn with the
    night's phase), so the timeline and the log group events by the phase in force instead.
    """
    stages: list[str] = []
    current = log[0].phase if log else "N1"
    for e in log:
        if e.type == "phase_started":
            current = e.phase
        stages.append(current)
    return stages


def _phases(stages: list[str]) -> list[dict[str, Any]]:
    """Contiguous runs of events by the phase in force, for the timeline strip."""
    runs: list[dict[str, Any]] = []
    for i, stage in enumerate(stages):
        if runs and runs[-1]["phase"] == stage:
            runs[-1]["end"] = i
        else:
            runs.append({"phase": stage, "start": i, "end": i})
    return runs


def event_json(e: Event, seq: int, stage: str, texts: dict[str, EventText]) -> dict[str, Any]:
    """One event as the page draws it: its fields, its place and its line in every language."""
    data = e.model_dump(mode="json")
    data["seq"] = seq
    data["stage"] = stage
    data["line"] = {code: texts[code].line(e) for code in LANGS}
    data["icon"] = EVENT_ICON[e.type]
    data["mark"] = table_mark(e)
    if e.type == "game_ended":
        data["reason_text"] = {code: texts[code].reason(e.reason) for code in LANGS}
    return data


def build_view_data(path: str | Path, lang: str | None = None) -> dict[str, Any]:
    """Everything the page needs, with every view's visible events decided here."""
    header, event_lines, decisions, result, torn = _read_ordered(path)
    log: list[Event] = [line.event for line in event_lines]
    players = len(header.agents)
    lang = lang or (header.lang if header.lang in LANGS else "en")
    texts = {code: EventText(code) for code in LANGS}

    stages = _stages(log)
    events_json = [event_json(e, i, stages[i], texts) for i, e in enumerate(log)]

    decisions_json = []
    for line, at in decisions:
        decisions_json.append({
            "id": line.id, "seat": line.seat, "kind": line.kind, "phase": line.phase,
            "at": min(at, max(len(log) - 1, 0)), "answer": line.answer, "value": line.value,
            "refused": line.refused, "error": line.error, "defaulted": line.defaulted, "agent": line.agent,
            "reasoning": line.reasoning, "notes": line.notes, "beliefs": line.beliefs,
            "prompt": _cut(line.prompt), "raw_reply": _cut(line.raw_reply),
            "attempts": len(line.attempts), "usage": line.usage, "latency_ms": line.latency_ms,
        })

    # identity, not equality: two events can be equal field for field (a repeated night step)
    index_of = {id(e): i for i, e in enumerate(log)}
    views: dict[str, dict[str, Any]] = {
        "god": {"events": list(range(len(log))), "decisions": list(range(len(decisions))), "roles_at_end": True},
    }
    for seat in range(1, players + 1):
        views[f"seat:{seat}"] = {
            "events": [index_of[id(e)] for e in visible_events(log, seat)],
            "decisions": [i for i, (line, _) in enumerate(decisions) if line.visibility.allows(seat)],
            "roles_at_end": False,
        }

    return {
        "meta": page_meta(
            game_id=header.game_id, preset=header.preset, seed=header.seed, players=players, lang=lang,
            transcript_lang=header.lang, package_version=header.package_version,
            agents=[{"seat": a.seat, "spec": a.spec, "label": a.label} for a in header.agents],
            complete=result is not None, torn=torn, source=Path(path).name),
        "events": events_json,
        "decisions": decisions_json,
        "views": views,
        "phases": _phases(stages),
        "result": None if result is None else {
            "winner": result.winner, "reason": result.reason, "phase": result.phase,
            "roles": {str(k): v for k, v in result.roles.items()}, "alive": result.alive,
            "abandoned": result.abandoned,
        },
        "labels": {code: page_labels(code) for code in LANGS},
    }


def page_meta(*, game_id: str, preset: str, seed: int | str, players: int, lang: str, transcript_lang: str,
              package_version: str, agents: list[dict[str, Any]], complete: bool, torn: bool,
              source: str) -> dict[str, Any]:
    """The page's ``meta``: the one builder of it for the replay page and for the web table's live page
    (arena/web/app.py), which viewer.js reads alike. Every key is a required argument, so a key added here
    is handed by both pages or neither; the table's constants (wolf cards, seat marker icons) come with it."""
    return {
        "game_id": game_id, "preset": preset, "seed": seed, "players": players, "lang": lang,
        "transcript_lang": transcript_lang, "package_version": package_version, "agents": agents,
        "complete": complete, "torn": torn, "source": source,
        "wolf_cards": wolf_cards(), "marker_icon": MARKER_ICON,
    }


def page_labels(lang: str) -> dict[str, Any]:
    labels = dict(viewer_labels(lang))
    narration = templates(lang)
    labels["winner_name"] = narration["winner"]
    labels["seat_fmt"] = narration["seat"]
    labels["speech_tag"] = narration["speech_tag"]
    labels["list_sep"] = narration.get("list_sep", ", ")
    from arena.config import presets

    labels["preset_titles"] = {p.id: (p.title_zh if lang == "zh" else p.title_en) or p.id for p in presets().values()}
    return labels


def script_json(data: Any) -> str:
    """JSON safe inside a <script> element: no '</script>', '<!--' or '&' can close or confuse it."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_html(data: dict[str, Any]) -> str:
    template = (ASSETS_DIR / "viewer.html").read_text(encoding="utf-8")
    css = (ASSETS_DIR / "viewer.css").read_text(encoding="utf-8")
    script = (ASSETS_DIR / "viewer.js").read_text(encoding="utf-8")
    title = f"{viewer_labels(data['meta']['lang'])['title']} · {data['meta']['game_id']}"
    # str.replace, not format: the CSS and script are full of braces
    return (template.replace("__TITLE__", _html_escape(title))
            .replace("__LANG__", data["meta"]["lang"])
            .replace("/*__CSS__*/", css)
            .replace("/*__DATA__*/", script_json(data))
            .replace("/*__JS__*/", script))


def _html_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def default_output(transcript: Path) -> Path:
    return transcript.with_suffix(".html")


def write_view(transcript: str | Path, out: str | Path | None = None, lang: str | None = None) -> Path:
    """Write the replay page of ``transcript`` and return its path."""
    transcript = Path(transcript)
    out_path = Path(out) if out is not None else default_output(transcript)
    html = render_html(build_view_data(transcript, lang))
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(html, encoding="utf-8")
    return out_path
