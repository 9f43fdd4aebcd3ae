"""``arena serve`` in a real headless Chromium (Debian's, driven by Playwright; no browser download).

Two people in two browsers take seats 1 and 2 against ten bots, through the pages only: the lobby
makes the table, each page answers its questions with the controls it shows, one player closes
the tab and comes back (the same question is waiting), one decision is left to time out (its
default applies), and a spectator page follows the game live. ``ARENA_SCREENSHOTS=DIR`` keeps
screenshots of the pages (desktop and phone-sized) in DIR.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
playwright_api = pytest.importorskip("playwright.sync_api")

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (.ci/run installs it)")]

SCRIPT_SPEECH = "<script>window.pwned = 1</script><b>bold?</b> I am seat 1."
DESKTOP = {"width": 1280, "height": 860}
PHONE = {"width": 390, "height": 844}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serving(app: Any) -> Iterator[str]:
    """``app`` served by uvicorn on a free loopback port in a thread, for as long as the block runs."""
    import uvicorn

    port = free_port()
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert srv.started, "the server did not start"
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        srv.should_exit = True
        thread.join(timeout=20)


@pytest.fixture()
def server(tmp_path: Path):
    from arena.web.app import create_app

    app = create_app(tmp_path)
    with serving(app) as url:
        yield url, app


#: Script errors and refused scripts or styles (Content-Security-Policy) on any page: none expected.
PAGE_ERRORS: list[str] = []


def listen(page: Any) -> None:
    page.on("pageerror", lambda exc: PAGE_ERRORS.append(f"{page.url}: {exc}"))
    page.on("console", lambda msg: PAGE_ERRORS.append(f"{page.url}: {msg.text}") if msg.type == "error" else None)


class Player:
    """One person at one browser page: answers what the page asks, with the page's controls."""

    def __init__(self, browser: Any, url: str, viewport: dict[str, int]):
        self.browser = browser
        self.url = url
        self.viewport = viewport
        self.context = browser.new_context(viewport=viewport)
        self.page = self.open()
        self.answered = 0
        self.spoke_script = False
        self.timed_out = False
        self.lapsed: str | None = None  # the question left to time out
        self.click_table = True  # answer one seat question by clicking the table
        self.clicked_seat: int | None = None
        self.clicked_rid: str | None = None

    def open(self) -> Any:
        page = self.context.new_page()
        listen(page)
        page.goto(self.url)
        page.wait_for_selector("#seat-panel")
        return page

    def reopen(self) -> None:
        """Close the tab and open the seat's link again."""
        self.page.close()
        self.page = self.open()

    def pending(self) -> str | None:
        """The id of the question waiting for this page's answer, if its controls are live."""
        panel = self.page.locator("#seat-panel")
        if panel.get_attribute("data-state") != "ask":
            return None
        if self.page.locator("#sp-controls button:not([disabled])").count() == 0:
            return None
        return panel.get_attribute("data-rid")

    def ended(self) -> bool:
        return self.page.locator("#seat-panel").get_attribute("data-state") == "ended"

    def answer(self) -> None:
        try:
            self._answer()
        except playwright_api.Error:  # the question was settled meanwhile (it timed out, the page redrew)
            return
        self.answered += 1

    def _answer(self) -> None:
        page = self.page
        controls = page.locator("#sp-controls")
        if controls.locator("textarea").count():
            text = SCRIPT_SPEECH if not self.spoke_script else f"Speech number {self.answered}: I trust seat 3."
            self.spoke_script = True
            controls.locator("textarea").fill(text, timeout=3000)
            controls.locator("button.primary").click(timeout=3000)
        elif controls.locator("button.primary").count():  # several seats: pick as many as needed
            for button in controls.locator("button.choice").all():
                if not page.locator("#sp-controls button.primary").is_disabled():
                    break
                button.click(timeout=3000)
            controls.locator("button.primary").click(timeout=3000)
        elif self.click_table and page.locator("#seats .seat.pickable").count():
            # a seat question answered on the table itself: click the first legal seat's disc
            seat = page.locator("#seats .seat.pickable").first
            self.clicked_seat = int(seat.get_attribute("data-seat"))
            self.clicked_rid = page.locator("#seat-panel").get_attribute("data-rid")
            seat.locator(".disc").click(timeout=3000)
            self.click_table = False
        else:
            choices = controls.locator("button.choice")
            if choices.count() == 0:  # nothing to choose from but "skip"
                controls.locator("button.skip").click(timeout=3000)
                return
            # yes/no questions: "no" (a wolf who always said yes would blow itself up every day)
            (choices.last if choices.count() == 2 and page.locator("#seat-panel").get_attribute("data-kind")
             not in ("witch_save",) else choices.first).click(timeout=3000)


def test_two_people_and_ten_bots_play_a_whole_game_in_chromium_while_a_spectator_watches(server: Any) -> None:
    base, app = server
    shots = Path(os.environ["ARENA_SCREENSHOTS"]) if os.environ.get("ARENA_SCREENSHOTS") else None
    with playwright_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            run_game(browser, base, app, shots)
        finally:
            browser.close()


def run_game(browser: Any, base: str, app: Any, shots: Path | None) -> None:
    # ---- the lobby: seats 1 and 2 open for people, ten bots, a 15 s action limit -------------------
    PAGE_ERRORS.clear()
    lobby = browser.new_context(viewport=DESKTOP).new_page()
    listen(lobby)
    # the operator opens the URL `arena serve` printed: the token goes into a cookie, the address loses it
    lobby.goto(base + "/?token=" + app.state.operator_token)
    assert lobby.url == base + "/"
    lobby.wait_for_selector('select[data-seat="12"]')
    lobby.select_option("#preset", "std-12-guard")
    lobby.select_option('select[data-seat="1"]', "human")
    lobby.select_option('select[data-seat="2"]', "human")
    lobby.select_option("#action-limit", "15")
    lobby.fill("#pace", "0.05")
    lobby.fill("#seed", "7")  # the game depends on the answers only: seats 1 and 2 live long enough here
    if shots:
        lobby.screenshot(path=str(shots / "web-lobby.png"))
    lobby.click("#create")
    lobby.wait_for_selector("#invites a")
    rows = lobby.locator("#invites li").all()
    invites = {int(re.search(r"\d+", row.locator("b").inner_text()).group()): row.locator("a").first.get_attribute("href")
               for row in rows}
    assert sorted(invites) == [1, 2]
    spectator_href = lobby.locator("#made > a").get_attribute("href")
    table_id = spectator_href.rsplit("/", 1)[1]
    room = app.state.lobby.rooms[table_id]

    # ---- a spectator watches from the start; the two people join from two browsers ------------------
    spectator = browser.new_context(viewport=DESKTOP).new_page()
    listen(spectator)
    spectator.goto(base + spectator_href)
    # speech read aloud: the browser's synthesis is recorded instead of heard
    spectator.evaluate("() => { window.spoken = []; speechSynthesis.speak = (u) => window.spoken.push([u.text, u.lang]); }")
    spectator.check("#sp-tts")
    one = Player(browser, base + invites[1], DESKTOP)
    two = Player(browser, base + invites[2], PHONE)
    two.page.click('.lang-switch button[data-lang="zh"]')  # the second player reads Chinese
    two.page.wait_for_selector("#sp-who:has-text('号')")
    seen_live = 0
    reconnected = False
    deadline = time.monotonic() + 420
    while not (one.ended() and two.ended()):
        assert time.monotonic() < deadline, "the game did not finish in time"
        assert room.status != "failed", room.error
        for player in (one, two):
            if player.lapsed and not player.timed_out:  # the notice stays until the player answers again
                player.timed_out = player.page.locator("#sp-message").get_attribute("data-kind") == "timed_out"
            rid = player.pending()
            if rid is None:
                continue
            if player is one and not reconnected and player.answered == 2:
                # close the tab with a question open; the same question waits on the new page
                kind = player.page.locator("#seat-panel").get_attribute("data-kind")
                player.reopen()
                player.page.wait_for_function(
                    "rid => document.getElementById('seat-panel').dataset.rid === rid", arg=rid, timeout=15000)
                assert player.page.locator("#seat-panel").get_attribute("data-kind") == kind
                reconnected = True
            if player is two and player.lapsed is None and player.answered >= 2 and \
                    player.page.locator("#sp-controls textarea").count() == 0:
                # leave one decision unanswered: its countdown runs out and the default applies
                assert player.page.locator("#sp-timer").is_visible()
                if shots:
                    player.page.screenshot(path=str(shots / "web-seat-phone.png"))
                player.lapsed = rid
            if player.lapsed == rid:
                continue
            if player is one and player.answered == 4 and shots:
                player.page.screenshot(path=str(shots / "web-seat-desktop.png"))
            player.answer()
        seen_live = max(seen_live, spectator.evaluate("ArenaViewer.data.events.length"))
        if seen_live and shots and not (shots / "web-spectator.png").exists() and seen_live > 60:
            spectator.screenshot(path=str(shots / "web-spectator.png"))
        time.sleep(0.05)

    assert reconnected and one.timed_out is False and two.timed_out
    assert one.clicked_seat is not None, "no seat question was answered on the table"
    # ---- what the transcript recorded -------------------------------------------------------------
    from arena.observation import public_events
    from arena.transcript import read_transcript

    transcript = read_transcript(room.path)
    assert transcript.result is not None and not transcript.result.abandoned
    humans = [d for d in transcript.decisions if d.seat in (1, 2)]
    timed_out = [d for d in humans if d.defaulted]
    assert len(timed_out) == 1 and timed_out[0].seat == 2 and "time limit" in timed_out[0].error
    assert [d for d in humans if d.seat == 1 and not d.defaulted and d.value == one.clicked_seat]
    log = [line.event for line in transcript.events]
    speeches = [e for e in log if e.type == "speech" and e.seat == 1]
    assert speeches and speeches[0].text == SCRIPT_SPEECH.strip()

    # ---- the spectator followed live and saw the public view only; the script speech stayed text -------
    spectator.wait_for_function("ArenaViewer.data.result !== null", timeout=20000)
    assert spectator.evaluate("ArenaViewer.data.events.length") == len(public_events(log))
    assert spectator.evaluate("Object.keys(ArenaViewer.data.views)") == ["public"]
    assert 0 < seen_live
    # another site's page cannot make a table with the operator's browser (its cookie is SameSite=Strict, and
    # a cross-site text/plain post is refused anyway); nor can a page that never had the token
    evil = lobby.context.new_page()  # the operator's own browser, on a page of another site (localhost)
    evil.goto(base.replace("127.0.0.1", "localhost") + "/api/presets")
    status = evil.evaluate("""url => fetch(url, {method: "POST", mode: "no-cors", body: '{"preset": "std-12-guard"}',
                                           headers: {"content-type": "text/plain"}}).then(r => r.status, e => "failed")""",
                           base + "/api/tables")
    assert status in (0, "failed") and len(app.state.lobby.rooms) == 1
    stranger = browser.new_context().new_page()
    assert stranger.goto(base + "/").status == 401
    for page in (spectator, one.page, two.page):
        assert page.evaluate("window.pwned === undefined")
        assert page.locator("#seats script, #log script, #center script").count() == 0
    spoken = spectator.evaluate("window.spoken")
    assert spoken and all(lang == "en-US" for _, lang in spoken)
    assert any(text.startswith("#1: <script>") for text, _ in spoken)
    spectator.evaluate("document.getElementById('btn-last').click()")
    log_text = spectator.locator("#log").inner_text()
    assert "<script>window.pwned = 1</script>" in log_text
    assert spectator.locator("#result-chip").inner_text().strip()
    assert not PAGE_ERRORS, PAGE_ERRORS
    if shots:
        spectator.screenshot(path=str(shots / "web-spectator-end.png"))
