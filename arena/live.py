"""``arena play --watch``: the game as it unfolds, drawn in the terminal with rich.

The table (every seat, alive or out, the sheriff's badge, who is speaking, known cards), the
current speech, the votes as they are revealed and the latest lines of narration. A spectator
sees the god view (every card and night action) and may toggle it with ``g``; a human player's
view starts without it and cannot turn it on. Which events a view shows is decided by the event's
own visibility: the god view shows everything, a seat's view what ``Visibility.allows(seat)`` lets
through, the public view what is shown to all.

Bots decide in microseconds, so events are paced (``pace`` seconds scale; ``ARENA_LIVE_PACE`` sets
it, ``0`` turns it off) to make a game watchable; nothing is paced when output is not a terminal.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Iterator

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from arena.events import (BadgeMoved, BallotCast, DeathsAnnounced, Event, GameEnded, IdiotRevealed, PhaseStarted,
                          RoleAssigned, RoleRevealed, SeerResult, SheriffElected, Speech, VoteResult, WolfKnifeVote,
                          WolfTeam)
from arena.narration import Narrator
from arena.table import table_mark
from arena.types import is_wolf_card
from arena.untrusted import one_line, printable
from arena.viewer import EventText, viewer_labels

#: Seconds an event of each type stays on screen before the next one, at pace 1.
DELAYS = {"speech": 1.4, "vote_result": 1.2, "deaths_announced": 1.2, "phase_started": 0.9, "game_ended": 1.0,
          "ballot_cast": 0.2, "wolf_knife_vote": 0.2, "night_step": 0.35, "exile_result": 1.0}
DEFAULT_DELAY = 0.3
ROLE_STYLE = {"wolves": "bold red", "god": "bold magenta", "villager": "bold green"}
MARKS = {"shield": "[cyan]⛨[/]", "knife": "[red]🗡[/]", "antidote": "[green]✚[/]", "poison": "[magenta]☠[/]",
         "eye-good": "[green]◉[/]", "eye-wolf": "[red]◉[/]", "death": "[red]✝[/]", "gun": "[yellow]⌖[/]",
         "bomb": "[red]✸[/]"}

_active: "LiveView | None" = None


def active() -> "LiveView | None":
    """The live view drawing right now, if any (a human seat pauses it while its player types)."""
    return _active


@contextmanager
def paused() -> Iterator[None]:
    """Stop redrawing while the terminal is needed for something else (a human's prompt)."""
    view = _active
    if view is None:
        yield
        return
    with view.suspended():
        yield


def camp_of(role: str | None) -> str:
    if not role:
        return ""
    if is_wolf_card(role):
        return "wolves"
    return "villager" if role == "villager" else "god"


@dataclass
class TableState:
    """What one view of the table shows, folded from the events that view may see."""

    players: int
    phase: str = "N1"
    dead: set[int] = field(default_factory=set)
    roles: dict[int, str] = field(default_factory=dict)
    known: dict[int, str] = field(default_factory=dict)
    sheriff: int | None = None
    speaker: int | None = None
    speech: tuple[int, str, str] | None = None  # seat, kind, text
    vote: dict[str, Any] | None = None
    marks: dict[int, list[str]] = field(default_factory=dict)
    winner: str | None = None
    reason: str = ""

    def apply(self, e: Event) -> None:
        self.speaker = None
        mark = table_mark(e)  # the marker an event leaves: arena/table.py, shared with the replay page
        if mark is not None:
            self.marks.setdefault(mark[0], []).append(mark[1])
        if isinstance(e, PhaseStarted):
            self.phase = e.phase
            self.marks = {}
            self.vote = None
            self.speech = None
        elif isinstance(e, (RoleAssigned, RoleRevealed)):
            self.roles[e.seat] = e.role.value
        elif isinstance(e, IdiotRevealed):
            self.roles[e.seat] = "idiot"
        elif isinstance(e, WolfTeam):
            for w in e.wolves:
                self.known.setdefault(w, "wolf_mate")
        elif isinstance(e, SeerResult):
            self.known[e.target] = "known_wolf" if e.result == "wolf" else "known_good"
        elif isinstance(e, DeathsAnnounced):
            self.dead.update(e.seats)
        elif isinstance(e, SheriffElected):
            self.sheriff = e.seat
        elif isinstance(e, BadgeMoved):
            self.sheriff = e.to_seat if e.action == "passed" else None
        elif isinstance(e, (BallotCast, WolfKnifeVote)):
            ballot = "knife" if isinstance(e, WolfKnifeVote) else e.ballot
            key = (e.phase, ballot, getattr(e, "round", 1))
            if self.vote is None or self.vote["key"] != key:
                self.vote = {"key": key, "ballot": ballot, "ballots": {}, "tally": None}
            voter = e.seat if isinstance(e, WolfKnifeVote) else e.voter
            self.vote["ballots"][voter] = e.target
        elif isinstance(e, VoteResult):
            key = (e.phase, e.ballot, e.round)
            if self.vote is None or self.vote["key"] != key:
                self.vote = {"key": key, "ballot": e.ballot, "ballots": {}, "tally": None}
            self.vote["tally"] = {int(k): v for k, v in e.tally.items()}
        elif isinstance(e, Speech):
            self.speaker = e.seat
            self.speech = (e.seat, e.kind, one_line(e.text))
            self.vote = None
        elif isinstance(e, GameEnded):
            self.winner = e.winner.value
            self.reason = e.reason


class _Side:
    """One way of looking at the table (god, a seat, the public): its state and narration."""

    def __init__(self, players: int, lang: str, allows: Any):
        self.allows = allows
        self.state = TableState(players)
        self.lines: deque[str] = deque(maxlen=10)
        self.narrator = Narrator(lang, god_view=True)  # filtering is ours; it only words the lines
        self.text = EventText(lang)

    def feed(self, e: Event) -> bool:
        if not self.allows(e):
            return False
        self.state.apply(e)
        line = self.narrator.line(e)
        if line is None and e.type in ("role_assigned", "wolf_knife_vote", "witch_told", "player_died"):
            line = self.text.line(e)
        if line:
            line = printable(line)
            indent = "  " if e.type == "ballot_cast" else ""  # ballots sit under their vote's title
            for part in line.strip("\n").split("\n"):
                if part.strip():
                    self.lines.append(indent + part.strip() if part.startswith("    ") else part.strip())
        return True


class LiveView:
    """Draws the table in the terminal as events arrive (``on_event``); ``close`` when the game ends."""

    def __init__(self, lang: str = "en", god_view: bool = True, players: int = 12, *, seat: int | None = None,
                 allow_toggle: bool | None = None, console: Console | None = None, pace: float | None = None,
                 labels: dict[int, str] | None = None, keys: bool = True):
        global _active
        self.lang = lang
        self.players = players
        self.seat = seat
        self.labels = labels or {}
        self.v = viewer_labels(lang)
        self.console = console or Console()
        # a player's view never turns into the god view; a spectator's may, both ways
        self.allow_toggle = (seat is None and god_view) if allow_toggle is None else allow_toggle
        self.god_view = god_view
        if pace is None:
            env = os.environ.get("ARENA_LIVE_PACE")
            pace = float(env) if env else (1.0 if self.console.is_terminal else 0.0)
        self.pace = pace
        self.god = _Side(players, lang, lambda e: True)
        if seat is not None:
            self.restricted = _Side(players, lang, lambda e: e.visibility.allows(seat))
        else:
            self.restricted = _Side(players, lang, lambda e: e.visibility.to == "all")
        self._lock = threading.RLock()
        self._live: Live | None = Live(self.render(), console=self.console, auto_refresh=False, transient=False,
                                       redirect_stdout=False, redirect_stderr=False)
        self._live.start()
        self._closed = False
        self._keys: _KeyReader | None = None
        if keys and self.allow_toggle and sys.stdin.isatty() and self.console.is_terminal:
            self._keys = _KeyReader(self._on_key)
            self._keys.start()
        _active = self

    # ---- events --------------------------------------------------------------------------
    @property
    def side(self) -> _Side:
        return self.god if self.god_view else self.restricted

    def on_event(self, event: Event) -> None:
        with self._lock:
            shown_god = self.god.feed(event)
            shown_restricted = self.restricted.feed(event)
            shown = shown_god if self.god_view else shown_restricted
            if shown and self._live is not None:
                self._live.update(self.render(), refresh=True)
        if shown and self.pace > 0:
            time.sleep(DELAYS.get(event.type, DEFAULT_DELAY) * self.pace)

    def toggle_god_view(self) -> bool:
        """Switch between the god view and the public (or seat) view; refused for a player."""
        if not self.allow_toggle:
            return False
        with self._lock:
            self.god_view = not self.god_view
            self.refresh()
        return True

    def _on_key(self, key: str) -> None:
        if key.lower() == "g":
            self.toggle_god_view()

    def refresh(self) -> None:
        with self._lock:
            if self._live is not None:
                self._live.update(self.render(), refresh=True)

    @contextmanager
    def suspended(self) -> Iterator[None]:
        """Stop drawing (the last frame stays on screen) while someone else uses the terminal."""
        with self._lock:
            live, self._live = self._live, None
            if live is not None:
                live.stop()
        try:
            yield
        finally:
            with self._lock:
                if not self._closed and self._live is None:
                    self._live = Live(self.render(), console=self.console, auto_refresh=False, transient=False,
                                      redirect_stdout=False, redirect_stderr=False)
                    self._live.start()

    def close(self) -> None:
        global _active
        with self._lock:
            self._closed = True
            if self._keys is not None:
                self._keys.stop()
            if self._live is not None:
                self._live.update(self.render(), refresh=True)
                self._live.stop()
                self._live = None
        if _active is self:
            _active = None

    # ---- drawing ---------------------------------------------------------------------------
    def seat_name(self, seat: int | None) -> str:
        return self.god.text.s(seat)

    def render(self) -> RenderableType:
        side = self.side
        st = side.state
        night = st.phase.startswith("N")
        phase = self.v["night" if night else "day"].format(n=st.phase[1:])
        mode = self.v["god_view"] if self.god_view else (
            self.v["seat_view"].format(seat=self.seat) if self.seat is not None else self.v["public_view"])
        hint = f"  [dim]({self.v['toggle_hint']})[/]" if self.allow_toggle else ""
        title = f"[bold]{self.v['title']}[/] · {'🌙' if night else '☀'}  [bold]{phase}[/] · [italic]{mode}[/]{hint}"
        parts: list[RenderableType] = [Panel(self._seats(st), title=title, border_style="blue" if night else "yellow")]
        if st.speech is not None:
            seat, kind, text = st.speech
            tag = self.v["speech_kind"].get(kind, "")
            head = f"🗣  {self.seat_name(seat)}" + (f" · {tag}" if tag else "")
            parts.append(Panel(Text(text), title=head, title_align="left",
                               border_style="bold yellow" if st.speaker == seat else "dim"))
        if st.vote is not None:
            parts.append(self._votes(st))
        if st.winner is not None:
            winner = side.narrator.t["winner"].get(st.winner, st.winner)
            reason = side.text.reason(st.reason)
            parts.append(Panel(Text(self.v["winner"].format(winner=winner) + f" · {reason}", style="bold"),
                               border_style="green" if st.winner == "village" else "red"))
        parts.append(Panel(Text("\n".join(side.lines)), title=self.v["log"], title_align="left", border_style="dim"))
        return Group(*parts)

    def _seats(self, st: TableState) -> Table:
        per_row = self.players if self.players <= 6 else (self.players + 1) // 2  # two rows, as at a table
        grid = Table.grid(expand=True, padding=(0, 1))
        for _ in range(per_row):
            grid.add_column(ratio=1)
        cells = [self._cell(st, seat) for seat in range(1, self.players + 1)]
        for i in range(0, len(cells), per_row):
            row = cells[i:i + per_row]
            grid.add_row(*(row + [Text("")] * (per_row - len(row))))
        return grid

    def _cell(self, st: TableState, seat: int) -> Panel:
        role = st.roles.get(seat)
        known = st.known.get(seat)
        lines = Text()
        lines.append(f"{self.seat_name(seat)}", style="bold")
        if st.sheriff == seat:
            lines.append(" ★", style="bold yellow")
        if seat == self.seat:
            lines.append(f" ({self.v['you']})", style="cyan")
        if seat in self.labels:
            lines.append("\n" + self.labels[seat][:14], style="dim")
        if role:
            lines.append("\n" + self.v["role"].get(role, role), style=ROLE_STYLE.get(camp_of(role), ""))
        elif known:
            lines.append("\n" + self.v[known], style="red" if known != "known_good" else "green")
        dead = seat in st.dead
        # a dead seat says so once ("✝ dead" below), not with a death marker too
        marks = " ".join(MARKS[m] for m in st.marks.get(seat, []) if m in MARKS and not (dead and m == "death"))
        if marks:
            lines.append_text(Text.from_markup("\n" + marks))
        if st.vote is not None and seat in st.vote["ballots"]:
            target = st.vote["ballots"][seat]
            lines.append("\n→ " + (self.seat_name(target) if target else self.v["abstain"]), style="yellow")
        if dead:
            lines.stylize("dim strike")
            lines.append("\n✝ " + self.v["dead"], style="red")
        style = "bold yellow" if st.speaker == seat else ("red" if dead else "grey50")
        return Panel(lines, border_style=style, padding=(0, 1))

    def _votes(self, st: TableState) -> Panel:
        vote = st.vote or {}
        tally: dict[int, float] = vote.get("tally") or {}
        if not tally:
            for target in vote["ballots"].values():
                if target:
                    tally[target] = tally.get(target, 0) + 1
        table = Table.grid(padding=(0, 1))
        table.add_column(justify="right")
        table.add_column()
        table.add_column(justify="right")
        top = max(tally.values(), default=1) or 1
        for target, n in sorted(tally.items(), key=lambda kv: (-kv[1], kv[0])):
            bar = "█" * max(1, round(20 * n / top))
            table.add_row(self.seat_name(target), Text(bar, style="red" if vote["ballot"] == "knife" else "yellow"),
                          f"{n:g}")
        name = self.v["ballot"].get(vote["ballot"], vote["ballot"])
        return Panel(table, title=f"🗳  {name}", title_align="left", border_style="yellow")


class _KeyReader:
    """Reads single key presses from the terminal in a thread (spectator's god-view toggle)."""

    def __init__(self, callback: Any):
        self.callback = callback
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="live-keys", daemon=True)
        self._saved: Any = None

    def start(self) -> None:
        import termios
        import tty

        fd = sys.stdin.fileno()
        self._saved = termios.tcgetattr(fd)
        tty.setcbreak(fd)
        self._thread.start()

    def _run(self) -> None:
        import select

        fd = sys.stdin.fileno()
        while not self._stop.is_set():
            ready, _, _ = select.select([fd], [], [], 0.2)
            if ready:
                key = os.read(fd, 1).decode(errors="ignore")
                if key:
                    self.callback(key)

    def stop(self) -> None:
        import termios

        self._stop.set()
        self._thread.join(timeout=1)
        if self._saved is not None:
            termios.tcsetattr(sys.stdin.fileno(), termios.TCSADRAIN, self._saved)
            self._saved = None
