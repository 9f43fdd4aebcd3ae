"""Rules conformance scenarios (CONFORMANCE.md): a fixed deal and script, and what the referee must decide."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal, Optional

from pydantic import (BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr, TypeAdapter, ValidationError,
                      field_validator)

from arena.actions import Answer, AnswerExtras
from arena.config import ConfigError, board_id, parametric_boards, resolve_rules
from arena.engine import Game, GameSetup, SetupError
from arena.referee import Table, run_table_sync
from arena.rules.first_kill import EarlierGame, protected_seats
from arena.types import Kind, parse_phase, phase_order
from arena.user_yaml import UserFileError, load_user_file

SCENARIO_SCHEMA = "werewolf-scenario/1"


class ScenarioError(ValueError):
    """A scenario file is malformed; the message names the file and the field."""


class ScenarioFileError(ScenarioError):
    """The file cannot be read as data at all (not UTF-8, bad YAML/JSON, nested too deep): exit 2."""


class Scenario(BaseModel):
    model_config = ConfigDict(extra="forbid")

    schema_: Literal["werewolf-scenario/1"] = Field(alias="schema")
    name: str
    preset: str
    rules: dict[str, Any] = Field(default_factory=dict)
    deal: list[str]
    center: list[str] = Field(default_factory=list)
    script: dict[str, dict[str, Any]] = Field(default_factory=dict)
    seed: int = 0
    stop_after: str | None = None
    expect: dict[str, Any] = Field(default_factory=dict)
    rules_cited: list[str] = Field(default_factory=list)
    seeds_cited: list[str] = Field(default_factory=list)  # the seed passages the expectation rests on
    # Project extension for first_kill_protection (004 §C-conduct 5): the series' earlier games at this table,
    # oldest first, and the seats of players new to it.
    earlier_games: list[EarlierGame] = Field(default_factory=list)
    newcomers: list[int] = Field(default_factory=list)
    why: str = ""

    @field_validator("script")
    @classmethod
    def _script_keys(cls, script: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        for seat, answers in script.items():
            if not seat.isdigit():
                raise ValueError(f"script key {seat!r} is not a seat number")
            for key in answers:
                phase, dot, kind = key.partition(".")
                if not dot or not kind:
                    raise ValueError(f"script[{seat}] key {key!r} is not '<phase>.<decision>'")
                parse_phase(phase)
        return script

    @field_validator("stop_after")
    @classmethod
    def _stop(cls, value: str | None) -> str | None:
        if value is not None:
            parse_phase(value)
        return value


class _Death(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    seat: int
    cause: str


class _Refusal(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    seat: int
    key: str


_SeatsByPhase = dict[str, list[StrictInt]]
#: What each ``expect`` key holds (CONFORMANCE.md); a value of another shape is an error, never a
#: comparison that cannot match or, worse, cannot fail.
EXPECT_TYPES: dict[str, TypeAdapter[Any]] = {key: TypeAdapter(t) for key, t in {
    "deaths": dict[str, list[_Death]], "exhaustive": StrictBool, "winner": Optional[StrictStr],
    "sheriff": dict[str, Optional[StrictInt]], "last_words": _SeatsByPhase, "alive": list[StrictInt],
    "revealed": list[StrictInt], "can_vote": _SeatsByPhase, "pk_can_vote": _SeatsByPhase,
    "seer_results": dict[str, dict[str, dict[str, StrictStr]]], "witch_told": dict[str, Optional[StrictInt]],
    "refused": list[_Refusal], "error": StrictStr, "events": list[dict[str, Any]],
    "absent_events": list[dict[str, Any]], "announced": _SeatsByPhase}.items()}
EXPECT_KEYS = set(EXPECT_TYPES)
# expect keys whose mapping is keyed by phase
_BY_PHASE = {"deaths", "sheriff", "last_words", "can_vote", "pk_can_vote", "seer_results", "witch_told", "announced"}
DECISION_KINDS = frozenset(k.value for k in Kind)


def _check_script_and_expect(scenario: Scenario, source: str) -> None:
    """A script line for a seat the deal does not have, a decision the engine never asks, or an
    ``expect`` value of the wrong shape would make a scenario pass without testing anything."""
    seats = len(scenario.deal)
    for seat, answers in scenario.script.items():
        if not 1 <= int(seat) <= seats:
            raise ScenarioError(f"{source}: field script.{seat}: seat {seat} does not exist (the deal has "
                                f"seats 1 to {seats})")
        for key in answers:
            kind = key.partition(".")[2]
            if kind not in DECISION_KINDS:
                raise ScenarioError(f"{source}: field script.{seat}.{key}: {kind!r} is not a decision the "
                                    f"referee asks; known: {', '.join(sorted(DECISION_KINDS))}")
    for key, value in scenario.expect.items():
        try:
            EXPECT_TYPES[key].validate_python(value)
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in (key, *err.get("loc", ())))
            raise ScenarioError(f"{source}: field expect.{where}: {err.get('msg')} "
                                f"(got {err.get('input')!r})") from None
        if key in _BY_PHASE:
            for phase in value:
                try:
                    parse_phase(phase)
                except ValueError as exc:
                    raise ScenarioError(f"{source}: field expect.{key}: {exc}") from None


class ScenarioOutcome(BaseModel):
    name: str
    passed: bool
    expected: dict[str, Any]
    actual: dict[str, Any]
    error: str | None = None
    file: str | None = None
    bad_file: bool = False  # the file could not be read as data (the command exits 2)


def load(path: str | Path) -> dict[str, Any]:
    path = Path(path)
    try:
        data = load_user_file(path, as_json=path.suffix not in (".yaml", ".yml"))
    except OSError as exc:
        raise ScenarioFileError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except UserFileError as exc:
        raise ScenarioFileError(str(exc)) from None
    if not isinstance(data, dict):
        raise ScenarioError(f"{path}: a scenario is a JSON object")
    return data


def parse(data: dict[str, Any], source: str = "<scenario>") -> Scenario:
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err.get("loc", ())) or "(top level)"
        raise ScenarioError(f"{source}: field {where}: {err.get('msg')}") from None
    unknown = sorted(set(scenario.expect) - EXPECT_KEYS)
    if unknown:
        raise ScenarioError(f"{source}: field expect: unknown key(s) {', '.join(unknown)}")
    _check_script_and_expect(scenario, source)
    if scenario.preset in parametric_boards():  # a parametric board takes its player count from the deal (R182)
        try:
            concrete = board_id(scenario.preset, len(scenario.deal))
        except ConfigError as exc:
            raise ScenarioError(f"{source}: field preset: {exc} (the deal has {len(scenario.deal)} cards)") from None
        scenario = scenario.model_copy(update={"preset": concrete})
    return scenario


INTERRUPT_KINDS = frozenset({"self_destruct", "self_destruct_election"})


def scripted_value(script: dict[str, Any], request: Any) -> tuple[bool, Any]:
    """(found, value) for a request from a seat's script (CONFORMANCE.md "script").

    ``self_destruct`` answers follow the conformance table: ``true`` acts at the first chance, a
    seat number acts just before that seat's speech, ``false`` never.
    """
    key = request.key
    if key not in script:
        return False, request.default
    value = script[key]
    if request.kind in INTERRUPT_KINDS and not isinstance(value, bool):
        value = request.context.get("before_speaker") == value if isinstance(value, int) else bool(value)
    return True, value


class ScriptedSeat:
    """A seat that answers from its script and takes the default for anything unscripted."""

    spec = "bot:scripted"
    deterministic = True

    def __init__(self, seat: int, script: dict[str, Any] | None = None):
        self.seat = seat
        self.script = dict(script or {})

    def decide_sync(self, observation: Any, request: Any) -> Answer:
        found, value = scripted_value(self.script, request)
        return Answer(value=value, extras=AnswerExtras(note=f"scripted: {found}"))

    async def decide(self, observation: Any, request: Any) -> Answer:
        return self.decide_sync(observation, request)


def play(scenario: Scenario) -> Game:
    """Set the game up from the scenario and play it until ``stop_after`` ends (or the game does)."""
    protected = protected_seats(len(scenario.deal), scenario.earlier_games, scenario.newcomers)
    setup = GameSetup(preset=scenario.preset, seed=scenario.seed, rules=dict(scenario.rules), deal=scenario.deal,
                      center=scenario.center or None, first_kill_protected=tuple(protected))
    game = Game(setup)
    agents = [ScriptedSeat(seat, script=scenario.script.get(str(seat), {}))
              for seat in range(1, game.state.n + 1)]
    table = Table(game, agents)
    stop = phase_order(scenario.stop_after) if scenario.stop_after else None
    if stop is None:
        run_table_sync(table)
        return game
    while not game.over:
        if phase_order(game.state.phase) > stop:
            break
        requests = game.pending()
        if not requests:
            break
        table.submit({r.id: agents[r.seat - 1].decide_sync(table.observation(r.seat), r) for r in requests})
    return game


def actual_outcome(game: Game, scenario: Scenario) -> dict[str, Any]:
    """Every key of ``expect`` as the referee decided it."""
    state = game.state
    stop = phase_order(scenario.stop_after) if scenario.stop_after else None

    def within(phase: str) -> bool:
        return stop is None or phase_order(phase) <= stop

    out: dict[str, Any] = {}
    keys = set(scenario.expect) - {"exhaustive", "error"}
    if "deaths" in keys:
        deaths: dict[str, list[dict[str, Any]]] = {}
        for d in state.deaths:
            deaths.setdefault(d.phase, []).append({"seat": d.seat, "cause": d.cause.value})
        out["deaths"] = deaths
    if "winner" in keys:
        out["winner"] = state.winner.value if state.winner else None
    if "alive" in keys:
        out["alive"] = state.alive_seats()
    if "sheriff" in keys:
        out["sheriff"] = _sheriff_by_phase(game, scenario.expect["sheriff"])
    if "last_words" in keys:
        words: dict[str, list[int]] = {p: [] for p in scenario.expect["last_words"]}
        for e in game.log:
            if e.type == "speech" and e.kind == "last_words":
                words.setdefault(e.phase, []).append(e.seat)
        out["last_words"] = {p: s for p, s in words.items() if within(p)}
    if "announced" in keys:  # project extension: the first announcement of each phase's deaths, in order
        announced: dict[str, list[int]] = {}
        for e in game.log:
            if e.type == "deaths_announced" and e.death_phase not in announced:
                announced[e.death_phase] = list(e.seats)
        out["announced"] = announced
    if "revealed" in keys:
        out["revealed"] = sorted({e.seat for e in game.log if e.type in ("role_revealed", "idiot_revealed")})
    for key, ballot in (("can_vote", "exile"), ("pk_can_vote", "pk")):
        if key in keys:
            voters: dict[str, list[int]] = {}
            for e in game.log:
                if e.type == "vote_result" and e.ballot == ballot and e.phase not in voters:
                    voters[e.phase] = list(e.voters)
            out[key] = voters
    if "seer_results" in keys:
        results: dict[str, dict[str, dict[str, str]]] = {}
        for e in game.log:
            if e.type == "seer_result":
                results.setdefault(e.phase, {}).setdefault(str(e.seat), {})[str(e.target)] = e.result
        out["seer_results"] = results
    if "witch_told" in keys:
        out["witch_told"] = {e.phase: e.victim for e in game.log if e.type == "witch_told"}
    if "events" in keys:
        out["events"] = [_find_event(game, spec) for spec in scenario.expect["events"]]
    if "absent_events" in keys:  # each spec with the event that wrongly matches it, or None
        out["absent_events"] = [_find_event(game, spec) for spec in scenario.expect["absent_events"]]
    if "refused" in keys:
        out["refused"] = [{"seat": d.request.seat, "key": d.request.key} for d in game.decisions
                          if d.refused and d.request.key in scenario.script.get(str(d.request.seat), {})]
    return out


def _event_view(event: Any) -> dict[str, Any]:
    """An event as a scenario names it: its fields, and ``visible_to`` = "all", "referee" or the seats."""
    data = event.model_dump(mode="json")
    vis = data.pop("visibility")
    data["visible_to"] = vis["to"] if vis["to"] != "seats" else list(vis["seats"])
    return data


def _matches(want: Any, got: Any) -> bool:
    if isinstance(want, dict) and isinstance(got, dict):
        return all(k in got and _matches(v, got[k]) for k, v in want.items())
    if isinstance(want, list) and isinstance(got, list) and want and all(isinstance(x, int) for x in want):
        return sorted(want) == sorted(got)  # seat lists compare as sets
    return want == got


def _find_event(game: Game, spec: Any) -> dict[str, Any] | None:
    """Project extensions ``expect.events`` / ``expect.absent_events``: the first logged event whose fields
    include ``spec``'s (None when there is none)."""
    if not isinstance(spec, dict):
        return None
    for event in game.log:
        view = _event_view(event)
        if _matches(spec, view):
            return view
    return None


def _sheriff_by_phase(game: Game, wanted: dict[str, Any]) -> dict[str, Any]:
    """Who holds the badge at the end of each phase asked about."""
    holder: int | None = None
    at_end: dict[str, int | None] = {}
    current = "N1"
    for e in game.log:
        if e.type == "phase_started":
            at_end[current] = holder
            current = e.phase
        elif e.type == "sheriff_elected" and e.seat is not None:
            holder = e.seat
        elif e.type == "badge_moved":
            holder = e.to_seat if e.action == "passed" else None
    at_end[current] = holder
    return {p: at_end.get(p) for p in wanted}


def compare(expected: dict[str, Any], actual: dict[str, Any]) -> list[str]:
    problems = []
    exhaustive = bool(expected.get("exhaustive"))
    for key, want in expected.items():
        if key in ("exhaustive", "error"):
            continue
        got = actual.get(key)
        if key == "deaths":
            phases = set(want) | (set(got or {}) if exhaustive else set())
            for phase in sorted(phases, key=phase_order):
                w = sorted((d["seat"], d["cause"]) for d in want.get(phase, []))
                g = sorted((d["seat"], d["cause"]) for d in (got or {}).get(phase, []))
                if w != g:
                    problems.append(f"deaths {phase}: expected {w}, got {g}")
        elif key in ("last_words", "can_vote", "pk_can_vote"):
            for phase, seats in want.items():
                g = sorted((got or {}).get(phase, []))
                if sorted(seats) != g:
                    problems.append(f"{key} {phase}: expected {sorted(seats)}, got {g}")
        elif key in ("alive", "revealed"):
            if sorted(want) != sorted(got or []):
                problems.append(f"{key}: expected {sorted(want)}, got {sorted(got or [])}")
        elif key == "refused":
            w = sorted((r["seat"], r["key"]) for r in want)
            g = sorted((r["seat"], r["key"]) for r in got or [])
            if w != g:
                problems.append(f"refused: expected {w}, got {g}")
        elif key == "events":
            for i, spec in enumerate(want or []):
                if (got or [None] * (i + 1))[i] is None:
                    problems.append(f"events: no event matches {json.dumps(spec, ensure_ascii=False)}")
        elif key == "absent_events":
            for i, spec in enumerate(want or []):
                found = (got or [None] * (i + 1))[i]
                if found is not None:
                    problems.append(f"absent_events: {json.dumps(spec, ensure_ascii=False)} matches "
                                    f"{json.dumps(found, ensure_ascii=False)}")
        elif key == "announced":
            for phase, seats in want.items():
                if (got or {}).get(phase) != seats:
                    problems.append(f"announced {phase}: expected {seats} in this order, got {(got or {}).get(phase)}")
        elif key in ("sheriff", "witch_told", "seer_results"):
            for phase, value in want.items():
                if phase not in (got or {}) and key == "witch_told":
                    problems.append(f"{key} {phase}: expected {value!r}, but the witch was not told")
                elif (got or {}).get(phase) != value:
                    problems.append(f"{key} {phase}: expected {value!r}, got {(got or {}).get(phase)!r}")
        elif want != got:
            problems.append(f"{key}: expected {want!r}, got {got!r}")
    return problems


def run_file(path: str | Path) -> ScenarioOutcome:
    source = str(path)
    try:
        data = load(path)
    except ScenarioError as exc:
        return ScenarioOutcome(name=Path(path).stem, passed=False, expected={}, actual={}, error=str(exc), file=source,
                               bad_file=isinstance(exc, ScenarioFileError))
    name = str(data.get("name") or Path(path).stem)
    return run_data(data, source, name)


def run_data(data: dict[str, Any], source: str, name: str) -> ScenarioOutcome:
    expect = data.get("expect")
    expected: dict[str, Any] = expect if isinstance(expect, dict) else {}
    want_error = expected.get("error")
    try:
        scenario = parse(data, source)
        resolve_rules(scenario.preset, scenario.rules)
        game = play(scenario)
    except (ScenarioError, ConfigError, SetupError) as exc:
        message = str(exc)
        if want_error is not None:
            ok = want_error in message
            return ScenarioOutcome(name=name, passed=ok, expected=expected, actual={"error": message},
                                   error=None if ok else f"error {message!r} lacks {want_error!r}", file=source)
        return ScenarioOutcome(name=name, passed=False, expected=expected, actual={}, error=message, file=source)
    if want_error is not None:
        return ScenarioOutcome(name=name, passed=False, expected=expected, actual={},
                               error=f"expected an error containing {want_error!r}, but the scenario ran", file=source)
    actual = actual_outcome(game, scenario)
    problems = compare(scenario.expect, actual)
    return ScenarioOutcome(name=scenario.name, passed=not problems, expected=scenario.expect, actual=actual,
                           error="; ".join(problems) or None, file=source)


def collect(paths: list[str | Path]) -> list[Path]:
    files: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            # pending/ holds scenarios for rules not implemented yet; name it explicitly to run them.
            files.extend(sorted(x for x in p.rglob("*") if x.suffix in (".json", ".yaml", ".yml")
                                and "pending" not in x.relative_to(p).parts))
        else:
            files.append(p)
    return files
