"""The human seat, played for real through a pseudo-terminal, and the live terminal view.

``arena play --human SEAT`` runs in a pty as it would in a terminal window; the test reads the
screen, answers each question (first with wrong inputs, then properly) and plays the game to
the end. Ctrl-C is the real control character, turned into SIGINT by the terminal driver.
"""

from __future__ import annotations

import codecs
import io
import json
import os
import pty
import re
import select
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
PRESET = "std-tucheng-9"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
QUESTION = re.compile(r"❓ (?P<question>[^\n]*)\n(?P<choices>(?:   [^\n]*\n)+)> $")


class Terminal:
    """A program running in a pseudo-terminal, read and typed into like a person would."""

    def __init__(self, argv: list[str], env: dict[str, str] | None = None, cwd: Path = ROOT):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the pty is its controlling terminal
            try:
                os.chdir(cwd)
                os.execvpe(argv[0], argv, {**os.environ, **(env or {})})
            finally:
                os._exit(127)
        self.screen = ""  # everything printed so far, ANSI codes removed, \r\n as \n
        self.seen = 0     # how far the test has read
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.status: int | None = None

    def _pump(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return True
        try:
            data = os.read(self.fd, 65536)
        except OSError:  # the child closed the terminal
            data = b""
        if not data:
            return False
        text = self._decoder.decode(data)
        self.screen += ANSI.sub("", text).replace("\r\n", "\n").replace("\r", "")
        return True

    def expect(self, pattern: str | re.Pattern[str], timeout: float = 30) -> re.Match[str]:
        """Wait until the unread output matches; consume up to the end of the match."""
        regex = re.compile(pattern) if isinstance(pattern, str) else pattern
        deadline = time.monotonic() + timeout
        while True:
            match = regex.search(self.screen, self.seen)
            if match:
                self.seen = match.end()
                return match
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {regex.pattern!r}; last output:\n{self.screen[-3000:]}")
            if not self._pump(0.2):
                match = regex.search(self.screen, self.seen)
                if match:
                    self.seen = match.end()
                    return match
                raise AssertionError(f"the program ended before {regex.pattern!r}; last output:\n{self.screen[-3000:]}")

    def type(self, text: str) -> None:
        os.write(self.fd, text.encode("utf-8"))

    def line(self, text: str) -> None:
        self.type(text + "\r")

    def ctrl_c(self) -> None:
        self.type("\x03")

    def wait(self, timeout: float = 30) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            while self._pump(0.05):
                if not select.select([self.fd], [], [], 0)[0]:
                    break
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                while self._pump(0.05) and select.select([self.fd], [], [], 0)[0]:
                    pass
                self.status = os.waitstatus_to_exitcode(status)
                os.close(self.fd)
                return self.status
        os.kill(self.pid, signal.SIGKILL)
        raise AssertionError(f"the program did not exit; last output:\n{self.screen[-3000:]}")


def play_args(out: Path, seed: int, seat: int, lang: str = "en", *extra: str) -> list[str]:
    return [sys.executable, "-m", "arena.cli.main", "play", "--preset", PRESET, "--agents", "bot:random",
            "--seed", str(seed), "--human", str(seat), "--lang", lang, "-o", str(out),
            # the blind knife: the seeded games these scripted inputs were written for
            "-r", "wolf_conferral_rounds=0", *extra]


def read_lines(out: Path) -> list[dict[str, Any]]:
    path = next(out.glob("*.jsonl"))
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


class Question:
    def __init__(self, match: re.Match[str], screen_before: str):
        self.text = match.group("question")
        self.choices = match.group("choices")
        statuses = re.findall(r"Alive: ([^\n]*?)   Out: ([^\n]*?)   Sheriff", screen_before)
        alive, dead = statuses[-1] if statuses else ("", "")
        self.alive = [int(x) for x in re.findall(r"#(\d+)", alive)]
        self.dead = [int(x) for x in re.findall(r"#(\d+)", dead)]

    @property
    def kind(self) -> str:
        c = self.choices
        if "Choices:" in c:
            return "seat"
        if "yes or no" in c:
            return "bool"
        if "Type one line" in c:
            return "text"
        if "seat numbers separated" in c:
            return "seats"
        if "first speaker" in c:
            return "order"
        return "option"

    @property
    def options(self) -> list[int]:
        m = re.search(r"(?:Choices|from): ([\d, ]+)", self.choices)
        return [int(x) for x in m.group(1).replace(" ", "").split(",") if x] if m else []

    @property
    def can_skip(self) -> bool:
        return "'skip'" in self.choices


def test_a_human_plays_a_full_game_with_wrong_inputs_and_ctrl_c() -> None:
    seat = 3
    with tempfile.TemporaryDirectory(prefix="arena-human-") as tmp:
        out = Path(tmp)
        term = Terminal(play_args(out, seed=5, seat=seat))
        term.expect(r"You are seat 3\. Your card: ")
        tried: set[str] = set()
        answered = 0
        while True:
            m = term.expect(re.compile(QUESTION.pattern + r"|(?P<end>(?:winner: |胜方：)[^\n]*\n)", re.M), timeout=60)
            if m.group("end"):
                break
            q = Question(m, term.screen[:m.start()])
            answered += 1
            if q.kind == "seat":
                if "not_a_number" not in tried:
                    tried.add("not_a_number")
                    term.line("abc")
                    term.expect(r'"abc" is not a seat number\.\n')
                    term.expect(QUESTION)
                if "no_such_seat" not in tried:
                    tried.add("no_such_seat")
                    term.line("42")
                    term.expect(r"There is no seat 42 at this table\.\n")
                    term.expect(QUESTION)
                if q.dead and "dead_seat" not in tried:
                    tried.add("dead_seat")
                    term.line(str(q.dead[0]))
                    term.expect(rf"Seat #{q.dead[0]} is already out\.\n")
                    term.expect(QUESTION)
                illegal = [s for s in q.alive if s not in q.options]
                if illegal and "illegal_seat" not in tried:
                    tried.add("illegal_seat")
                    term.line(str(illegal[0]))
                    term.expect(rf"Seat #{illegal[0]} cannot be chosen now\.\n")
                    term.expect(QUESTION)
                if not q.can_skip and "skip_refused" not in tried:
                    tried.add("skip_refused")
                    term.line("skip")
                    term.expect(r"skipping is not allowed\.\n")
                    term.expect(QUESTION)
                if "ctrl_c" not in tried:  # Ctrl-C, then decline to abandon: the same question again
                    tried.add("ctrl_c")
                    term.ctrl_c()
                    term.expect(r"Abandon the game\? .*\[y/N\] ")
                    term.line("n")
                    term.expect(r"Back to the game\.\n")
                    term.expect(QUESTION)
                if q.can_skip and "skip" not in tried:
                    tried.add("skip")
                    term.line("skip")
                else:
                    term.line(f"#{q.options[0]}" if answered % 2 else str(q.options[-1]))
            elif q.kind == "bool":
                if "yes_no" not in tried:
                    tried.add("yes_no")
                    term.line("maybe")
                    term.expect(r"Please answer yes or no\.\n")
                    term.expect(QUESTION)
                term.line("")  # Enter takes the default (no): never self-destruct, never run
            elif q.kind == "text":
                if "empty_speech" not in tried:
                    tried.add("empty_speech")
                    term.line("   ")
                    term.expect(r"Your speech is empty: type something, or 'pass' to say nothing\.\n")
                    term.expect(QUESTION)
                term.line(f"I am seat {seat} and I am a good person, speech {answered}.")
            elif q.kind == "order":
                term.line(f"{q.options[0]} asc")
            else:
                pytest.fail(f"unexpected question {q.text!r}: {q.choices!r}")
        assert term.wait() == 0, term.screen[-2000:]
        assert {"not_a_number", "no_such_seat", "dead_seat", "yes_no", "empty_speech", "ctrl_c"} <= tried, tried

        lines = read_lines(out)
        result = lines[-1]
        assert result["type"] == "result" and not result["abandoned"]
        mine = [d for d in lines if d["type"] == "decision" and d["seat"] == seat]
        assert len(mine) >= answered - 1 and all(d["agent"] == "human" for d in mine)
        assert not any(d["refused"] for d in mine), "a wrong input reached the referee"
        said = [e["event"]["text"] for e in lines if e["type"] == "event" and e["event"]["type"] == "speech"
                and e["event"]["seat"] == seat]
        assert any(text.startswith(f"I am seat {seat}") for text in said)


def test_ctrl_c_then_yes_abandons_and_the_transcript_says_so() -> None:
    with tempfile.TemporaryDirectory(prefix="arena-human-") as tmp:
        out = Path(tmp)
        term = Terminal(play_args(out, seed=5, seat=3))
        term.expect(QUESTION)
        term.ctrl_c()
        term.expect(r"Abandon the game\? .*\[y/N\] ")
        term.line("y")
        term.expect(r"Game abandoned\.")
        assert term.wait() == 130
        result = read_lines(out)[-1]
        assert result["type"] == "result" and result["abandoned"] is True


def test_chinese_prompts_and_messages() -> None:
    with tempfile.TemporaryDirectory(prefix="arena-human-") as tmp:
        out = Path(tmp)
        term = Terminal(play_args(out, 5, 3, "zh"))
        term.expect(r"你是3号，身份：")
        m = term.expect(QUESTION)
        assert "❓ 第" in m.group(0)
        term.line("不知道")
        term.expect(r"「不知道」不是座位号。|请回答 是 或 否|发言不能为空")
        term.expect(QUESTION)
        term.ctrl_c()
        term.expect(r"要放弃这局游戏吗？")
        term.line("是")
        term.expect(r"游戏已放弃。")
        assert term.wait() == 130


def test_watching_while_playing_keeps_the_seat_view() -> None:
    """--watch with a human seat: the live table pauses for each question and never shows god view."""
    with tempfile.TemporaryDirectory(prefix="arena-human-") as tmp:
        out = Path(tmp)
        term = Terminal(play_args(out, 5, 3, "en", "--watch"), env={"ARENA_LIVE_PACE": "0"})
        questions = 0
        while True:
            m = term.expect(re.compile(QUESTION.pattern + r"|(?P<end>(?:winner: |胜方：)[^\n]*\n)", re.M), timeout=60)
            if m.group("end"):
                break
            questions += 1
            q = Question(m, term.screen[:m.start()])
            answer = {"seat": lambda: str(q.options[0]) if q.options else "skip", "bool": lambda: "n",
                      "text": lambda: "pass", "order": lambda: f"{q.options[0]} asc"}.get(q.kind, lambda: "")()
            term.line(answer)
        assert term.wait() == 0
        assert questions > 0
        assert "Seat 3" in term.screen and "God view" not in term.screen
        assert "god view on/off" not in term.screen


def _answer_simply(term: Terminal) -> int:
    """Answer every question with its first legal choice (no, pass) until the game ends; returns where
    the screen stood after the last question was answered."""
    after_last = 0
    while True:
        m = term.expect(re.compile(QUESTION.pattern + r"|(?P<end>(?:winner: |胜方：)[^\n]*\n)", re.M), timeout=60)
        if m.group("end"):
            return after_last
        q = Question(m, term.screen[:m.start()])
        answer = {"seat": lambda: str(q.options[0]) if q.options else "skip", "bool": lambda: "n",
                  "text": lambda: "pass", "order": lambda: f"{q.options[0]} asc"}.get(q.kind, lambda: "")()
        term.line(answer)
        after_last = m.end()


@pytest.mark.parametrize("seed", [1, 4])
def test_the_player_sees_the_game_to_its_end_alive_or_dead(seed: int) -> None:
    """After the player's last question the table goes on being told: the last tally, the exile, the
    result and every card. Out of the game, the player keeps watching it from the same seat."""
    seat = 3
    with tempfile.TemporaryDirectory(prefix="arena-human-") as tmp:
        out = Path(tmp)
        term = Terminal(play_args(out, seed, seat))
        after_last = _answer_simply(term)
        assert term.wait() == 0
        lines = read_lines(out)
        events = [line["event"] for line in lines if line["type"] == "event"]
        result = lines[-1]
        tail = term.screen[after_last:]
        assert "🏁 Game over" in tail and tail.index("🏁 Game over") < tail.index("Roles: ")
        last_tally = next(e for e in reversed(events) if e["type"] == "vote_result")
        tally = ", ".join(f"#{s}: {v:g}" for s, v in last_tally["tally"].items())
        assert f"Tally: {tally}" in term.screen
        for e in events:  # every exile is told, the last one included
            if e["type"] == "exile_result" and e["seat"] is not None and e.get("reason") != "idiot_revealed":
                assert f"#{e['seat']} is exiled." in term.screen, e
        if seat in result["alive"]:
            assert "You are out" not in term.screen
            return
        out_at = term.screen.index("You are out. You keep watching the game from #3")
        assert out_at < term.screen.index("🏁 Game over")
        watched = term.screen[out_at:]
        # a spectator of his seat: public speeches and ballots go on; the night stays dark
        assert "🗣" in watched or "🗳" in watched
        assert "God view" not in term.screen


# ---- the live view, rendered into a string --------------------------------------------------------
FRAME_AFTER = {"wolf_team", "wolf_knife", "guard_protected", "witch_poisoned", "witch_saved", "seer_result",
               "vote_result", "deaths_announced", "role_revealed", "game_ended"}


def _watch(god_view: bool, seat: int | None = None) -> tuple[str, Any]:
    from rich.console import Console

    from agents.bots import RandomBot
    from arena.engine import GameSetup
    from arena.live import LiveView
    from arena.referee import play_sync

    buffer = io.StringIO()
    console = Console(file=buffer, width=140, force_terminal=False, color_system=None)
    live = LiveView(lang="en", god_view=god_view, players=12, seat=seat, console=console, pace=0)
    frames: list[str] = []

    def on_event(event: Any) -> None:
        live.on_event(event)
        if event.type not in FRAME_AFTER:  # drawing every frame would take seconds
            return
        with console.capture() as capture:
            console.print(live.render())
        frames.append(capture.get())

    result = play_sync(GameSetup(preset="std-12-guard", seed=3, rules={"wolf_conferral_rounds": 0}), [RandomBot(s, 3) for s in range(1, 13)],
                       on_event=on_event)
    live.close()
    return "\n".join(frames), result


def test_live_view_god_view_shows_cards_and_nights_public_view_does_not() -> None:
    god, result = _watch(god_view=True)
    roles = {s: p.card.value for s, p in result.game.state.players.items()}
    assert "God view" in god and "werewolf" in god
    assert "The wolves knife" in god or "empty knife" in god
    assert "Exile vote" in god and "→" in god
    assert "Out:" in god and "Game over" in god

    public, _ = _watch(god_view=False)
    assert "Public view" in public and "God view" not in public
    for phrase in ("wolves knife", "protects", "poisons", "checks #", "The wolves are"):
        assert phrase not in public, phrase
    # only cards the table was shown (self-destructs, the hunter) ever appear
    revealed = {e.seat for e in result.game.log if e.type == "role_revealed"}
    hidden_wolves = [s for s, r in roles.items() if r == "werewolf" and s not in revealed]
    for s in hidden_wolves:
        assert f"#{s} is the werewolf" not in public

    seer = next(s for s, r in roles.items() if r == "seer")
    seat_view, _ = _watch(god_view=False, seat=seer)
    assert f"Seat {seer}" in seat_view and "(you)" in seat_view
    assert "checks #" in seat_view and "wolves knife" not in seat_view


def test_live_view_toggle_is_for_spectators_only() -> None:
    from rich.console import Console

    from arena.live import LiveView

    console = Console(file=io.StringIO(), force_terminal=False)
    spectator = LiveView(lang="zh", god_view=True, players=9, console=console, pace=0, keys=False)
    assert spectator.toggle_god_view() and not spectator.god_view
    assert spectator.toggle_god_view() and spectator.god_view
    spectator.close()
    player = LiveView(lang="en", god_view=False, players=9, seat=2, console=console, pace=0, keys=False)
    assert not player.toggle_god_view() and not player.god_view
    player.close()


# ---- every kind of question, answered in-process -----------------------------------------------------
def _ask(request: Any, typed: list[str], lang: str = "en", seat: int = 3, dead: tuple[int, ...] = ()) -> tuple[Any, str]:
    """Answer one request by 'typing' lines; returns (value, everything printed)."""
    import asyncio

    from agents.human import HumanAgent
    from arena.events import DeathsAnnounced, GameStarted, RoleAssigned, only
    from arena.observation import Observation
    from arena.types import Role

    events = [GameStarted(phase="N1", players=9, preset=PRESET, role_counts={"villager": 9}),
              RoleAssigned(phase="N1", visibility=only(seat), seat=seat, role=Role.WITCH)]
    if dead:
        events.append(DeathsAnnounced(phase="D1", seats=list(dead), death_phase="N1"))
    obs = Observation(seat=seat, players=9, preset=PRESET, switches={}, events=events, lang=lang)
    out = io.StringIO()
    agent = HumanAgent(seat, lang=lang, stdin=io.StringIO("".join(line + "\n" for line in typed)), stdout=out)
    answer = asyncio.run(agent.decide(obs, request))
    return answer.value, out.getvalue()


def _request(kind: str, legal: Any, default: Any = None, **context: Any) -> Any:
    from arena.actions import DecisionRequest

    return DecisionRequest(id=1, seat=3, kind=kind, phase="N2", asked_in="N2", legal=legal, default=default,
                           context=context)


def test_every_kind_of_answer_and_its_error_messages() -> None:
    from arena.actions import ChooseBool, ChooseOption, ChooseSeat, ChooseSeats, Speak, SpeechOrderChoice

    value, out = _ask(_request("witch_poison", ChooseSeat(options=(1, 2, 4, 6))),
                      ["", "two", "0", "5", "3", "#4"], dead=(5,))
    assert value == 4
    for message in ("Please type an answer.", '"two" is not a seat number.', "There is no seat 0",
                    "Seat #5 is already out.", "Seat #3 cannot be chosen now.", "or 'skip' to keep the poison"):
        assert message in out, message
    assert out.count("❓ Night 2 · Use your poison tonight? On whom?") == 6  # asked again after each error

    assert _ask(_request("vote", ChooseSeat(options=(1, 2))), ["skip"])[0] is None
    value, out = _ask(_request("hunter_shoot", ChooseSeat(options=(1, 2), allow_none=False)), ["skip", "2号"])
    assert value == 2 and "skipping is not allowed" in out

    value, out = _ask(_request("witch_save", ChooseBool(), False, victim=6), ["maybe", "y"])
    assert value is True and "#6 was knifed tonight. Use your antidote?" in out and "Please answer yes or no." in out
    assert _ask(_request("self_destruct", ChooseBool(), False, before_speaker=4), [""])[0] is False

    value, out = _ask(_request("witch_save", ChooseOption(options=(False,)), False, victim=6), [])
    assert value is False and "Only one answer is possible here: no" in out

    value, out = _ask(_request("speech", Speak()), ["", "   ", "I am the witch; #6 was knifed."])
    assert value == "I am the witch; #6 was knifed." and out.count("Your speech is empty") == 2

    # R138 may_interject: asked after every day speech, so a bare Enter stays silent there
    value, out = _ask(_request("idiot_interject", Speak(max_chars=600), "pass", speaker=5, speech="discussion"), [""])
    assert value == "pass" and "#5 has just spoken." in out and "just Enter to stay silent" in out
    value, out = _ask(_request("interjection_reply", Speak(max_chars=600), "pass", idiot=8), ["Not me."])
    assert value == "Not me." and "The idiot #8 spoke to you." in out

    value, out = _ask(_request("cupid_link", ChooseSeats(options=(1, 2, 4), min_count=2, max_count=2)),
                      ["1", "1 12", "1 4"])
    assert value == [1, 4] and "There is no seat 12" in out and "Choose 2 seats." in out

    value, out = _ask(_request("speech_order_pick", SpeechOrderChoice(starts=(2, 4))), ["2 sideways", "4 desc"])
    assert value == {"start": 4, "direction": "descending"} and "e.g. '2 asc'" in out

    value, out = _ask(_request("thief_pick", ChooseOption(options=(0, 1))), ["7", "1"])
    assert value == 1 and "Options: 0, 1" in out


def test_chinese_answers() -> None:
    from arena.actions import ChooseBool, ChooseSeat

    value, out = _ask(_request("vote", ChooseSeat(options=(1, 2, 4))), ["三号", "5", "4号"], lang="zh", dead=(5,))
    assert value == 4 and "「三号」不是座位号。" in out and "5号已经出局了。" in out and "放逐投票：投谁？" in out
    assert _ask(_request("vote", ChooseSeat(options=(1, 2))), ["弃票"], lang="zh")[0] is None
    assert _ask(_request("sheriff_run", ChooseBool(), False), ["是"], lang="zh")[0] is True
