"""The seat page and the replay page on a phone (390×844) and a desktop (1280×800), in a real headless
Chromium (Debian's, driven by Playwright, as tests/test_web_browser.py): no horizontal overflow; the
open question, its buttons and its countdown inside the viewport while the table stays above it; the
standing self-destruct button on a wolf's seat page by day. Screenshots are taken in the test and
checked; ``ARENA_SCREENSHOTS=DIR`` keeps them (docs/web.md shows them)."""

from __future__ import annotations

import json
import re
import os
import shutil
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")
pytest.importorskip("uvicorn", reason="the web extra is not installed: pip install -e '.[web]'")
playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed: pip install -e '.[browser]'")

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")]

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
SIZES = {"phone": PHONE, "desktop": DESKTOP}
WOLF_SEAT = 5


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    from arena.web.app import create_app
    from tests.test_web_browser import serving

    app = create_app(tmp_path_factory.mktemp("web"))
    with serving(app) as url:
        yield url, app


@pytest.fixture(scope="module")
def browser():
    with playwright_api.sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield chromium
        chromium.close()


@pytest.fixture()
def shots(tmp_path: Path) -> Path:
    kept = os.environ.get("ARENA_SCREENSHOTS")
    return Path(kept) if kept else tmp_path


def make_table(base: str, app: Any, **body: Any) -> dict[str, Any]:
    request = urllib.request.Request(base + "/api/tables", data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json",
                                              "Authorization": "Bearer " + app.state.operator_token})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def overflow(page: Any) -> int:
    """How far the page is wider than its viewport (0: it fits)."""
    return page.evaluate("document.documentElement.scrollWidth - window.innerWidth")


def in_viewport(page: Any, selector: str) -> list[str]:
    """Every visible element of ``selector`` that is not wholly inside the viewport."""
    return page.evaluate("""sel => [...document.querySelectorAll(sel)].filter(el => el.offsetParent !== null)
        .map(el => [el, el.getBoundingClientRect()])
        .filter(([el, r]) => r.left < 0 || r.top < 0 || r.right > innerWidth + 0.5 || r.bottom > innerHeight + 0.5)
        .map(([el, r]) => `${el.textContent.trim()} at ${Math.round(r.left)},${Math.round(r.top)}-${Math.round(r.right)},${Math.round(r.bottom)}`)""",
                         selector)


def wolf_seed() -> int:
    from tests.test_standing_self_destruct import wolf_seed as seed_for

    return seed_for(WOLF_SEAT)


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_the_open_question_and_its_buttons_are_in_view_and_nothing_overflows(server, browser, shots, size, lang) -> None:
    base, app = server
    seats = ["bot:heuristic"] * 12
    seats[WOLF_SEAT - 1] = "human"
    made = make_table(base, app, preset="std-12-guard", lang=lang, seats=seats, seed=wolf_seed(), pace=0,
                      action_seconds=600)
    page = browser.new_context(viewport=SIZES[size]).new_page()
    page.goto(base + made["seats"][str(WOLF_SEAT)])
    page.wait_for_selector('#seat-panel[data-state="ask"]', timeout=30000)
    page.wait_for_timeout(300)  # the table's redraw after the question
    name = f"web-seat-{size}-{lang}.png"
    page.screenshot(path=str(shots / name))
    assert (shots / name).stat().st_size > 10_000
    assert overflow(page) <= 0, f"{size}: the page is {overflow(page)} px wider than the screen"
    assert page.locator("#sp-controls button").count() > 0
    assert not in_viewport(page, "#sp-controls button, #sp-question, #sp-timer"), in_viewport(
        page, "#sp-controls button, #sp-question, #sp-timer")
    table = page.locator("#table").bounding_box()
    panel = page.locator("#seat-panel").bounding_box()
    assert table["y"] < panel["y"], "the table is above the question"
    assert page.locator("footer.timeline").is_hidden(), "a live seat page has no replay controls"
    page.context.close()


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_the_replay_page_fits_a_phone(server, browser, shots, size) -> None:
    base, app = server
    made = make_table(base, app, preset="std-12-guard", lang="zh", seed=3, pace=0)
    lobby = app.state.lobby
    deadline = time.monotonic() + 60
    while lobby.rooms[made["id"]].status != "finished":
        assert time.monotonic() < deadline, "the bot table did not finish"
        time.sleep(0.1)
    page = browser.new_context(viewport=SIZES[size]).new_page()
    page.goto(f"{base}/games/std-12-guard-{made['id']}.html")
    page.wait_for_selector("#seats .seat")
    page.evaluate("document.getElementById('btn-last').click()")
    page.wait_for_timeout(300)
    page.screenshot(path=str(shots / f"web-replay-{size}.png"))
    assert overflow(page) <= 0, f"the replay page is {overflow(page)} px wider than a {size} screen"
    page.context.close()


def operator_context(browser: Any, base: str, app: Any, size: str) -> Any:
    """A browser that opened the operator's start-up URL (the token is in its cookie)."""
    context = browser.new_context(viewport=SIZES[size])
    context.new_page().goto(base + "/?token=" + app.state.operator_token)
    return context


def test_the_wolf_sees_teammates_picks_on_the_seats_and_the_knife_rule(server, browser, shots) -> None:
    base, app = server
    seats = ["bot:heuristic"] * 12
    seats[WOLF_SEAT - 1] = "human"
    made = make_table(base, app, preset="std-12-guard", lang="zh", seats=seats, seed=wolf_seed(), pace=0)
    page = browser.new_context(viewport=PHONE).new_page()
    page.goto(base + made["seats"][str(WOLF_SEAT)])
    for _ in range(6):  # the proposal rounds, then the final show
        page.wait_for_selector('#seat-panel[data-state="ask"]', timeout=30000)
        if page.locator("#seat-panel").get_attribute("data-kind") == "wolf_kill":
            break
        page.locator("#sp-controls button.choice").first.click()
        page.wait_for_function("() => document.getElementById('seat-panel').dataset.kind !== 'wolf_propose' || "
                               "document.querySelector('#sp-controls button:not([disabled])') !== null")
    assert page.locator("#seat-panel").get_attribute("data-kind") == "wolf_kill"
    page.wait_for_timeout(200)
    page.screenshot(path=str(shots / "web-knife-phone-zh.png"))
    picks = page.locator("#sp-picks").inner_text()
    assert "须一致，否则空刀" in picks and "狼队：" in picks, picks
    assert page.locator("#seats .pick-badge").count() >= 1
    page.context.close()


@pytest.mark.parametrize("operator", [True, False])
def test_the_end_says_won_or_lost_links_the_replay_and_offers_the_operator_the_next_game(
        server, browser, shots, operator) -> None:
    from tests.test_web_browser import Player

    base, app = server
    seats = ["bot:heuristic"] * 12
    seats[WOLF_SEAT - 1] = "human"
    made = make_table(base, app, preset="std-12-guard", lang="zh", seats=seats, seed=wolf_seed(), pace=0)
    size = "phone" if operator else "desktop"
    context = operator_context(browser, base, app, size) if operator else browser.new_context(viewport=SIZES[size])
    player = Player.__new__(Player)  # the test_web_browser player's answers, on this page
    player.browser, player.url, player.viewport, player.context = browser, base + made["seats"][str(WOLF_SEAT)], SIZES[size], context
    player.page = context.new_page()
    player.page.goto(player.url)
    player.answered, player.spoke_script, player.click_table = 0, True, False
    deadline = time.monotonic() + 240
    while not player.ended():
        assert time.monotonic() < deadline, "the game did not end"
        if player.pending():
            player.answer()
        time.sleep(0.05)
    page = player.page
    page.wait_for_selector(".sp-verdict")
    page.screenshot(path=str(shots / f"web-end-{size}-zh.png"))
    result = app.state.lobby.rooms[made["id"]].result
    won = result["camps"][str(WOLF_SEAT)] == result["winner"]
    assert page.locator(".sp-verdict").inner_text() == ("你赢了" if won else "你输了")
    name = result["transcript"].removesuffix(".jsonl")
    assert page.locator(".sp-links a").nth(0).get_attribute("href") == f"/games/{name}.html"
    assert page.locator(".sp-links a").nth(1).get_attribute("href") == f"/games/{name}.jsonl"
    assert overflow(page) <= 0
    again = page.locator(".sp-links button.again")
    if not operator:  # a player who is not the operator gets the links only
        assert again.count() == 0
        return
    before = set(app.state.lobby.rooms)
    again.click()
    deadline = time.monotonic() + 15
    while not set(app.state.lobby.rooms) - before:
        assert time.monotonic() < deadline, "no new table"
        time.sleep(0.05)
    (new,) = set(app.state.lobby.rooms) - before
    room = app.state.lobby.rooms[new]
    assert room.seat_names == seats and room.lang == "zh" and room.preset == "std-12-guard"
    token = next(t for t, s in room.tokens.items() if s == WOLF_SEAT)
    page.wait_for_url(re.compile(rf".*/play/{re.escape(new)}/{re.escape(token)}(#.*)?$"), timeout=15000)
    page.context.close()


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_by_day_the_wolf_has_the_self_destruct_button_and_bubbles_leave_the_neighbours_free(
        server, browser, shots, size) -> None:
    base, app = server
    seats = ["bot:heuristic"] * 12
    seats[WOLF_SEAT - 1] = "human"
    made = make_table(base, app, preset="std-12-guard", lang="zh", seats=seats, seed=wolf_seed(), pace=0)
    page = browser.new_context(viewport=SIZES[size]).new_page()
    page.goto(base + made["seats"][str(WOLF_SEAT)])
    deadline = time.monotonic() + 60
    while True:  # answer until the own speech of day 1, asked with the self-destruct beside it
        assert time.monotonic() < deadline, "no own speech"
        page.wait_for_selector('#seat-panel[data-state="ask"]', timeout=30000)
        if page.locator("#sp-controls button.boom").count():
            break
        if page.locator("#sp-controls textarea").count():
            page.locator("#sp-controls textarea").fill("我是好人。")
            page.locator("#sp-controls button.primary").click()
        else:
            page.locator("#sp-controls button").last.click()  # "no", or skip: a quiet wolf
        page.wait_for_timeout(150)
    page.wait_for_timeout(200)
    page.screenshot(path=str(shots / f"web-day-{size}-zh.png"))
    assert page.locator("#sp-boom").is_visible() and page.locator("#sp-boom").inner_text() == "自爆"
    assert page.locator("#sp-controls button.boom").inner_text() == "不发言，直接自爆"
    assert not in_viewport(page, "#sp-controls button, #sp-boom")
    assert overflow(page) <= 0
    covered = page.evaluate("""() => {
        const bubble = document.querySelector('#seats .bubble');
        if (!bubble) return null;
        const b = bubble.getBoundingClientRect(), own = bubble.closest('.seat');
        return [...document.querySelectorAll('#seats .seat .disc')].filter(d => d.closest('.seat') !== own)
          .map(d => [d.closest('.seat').dataset.seat, d.getBoundingClientRect()])
          .filter(([s, r]) => r.left < b.right && b.left < r.right && r.top < b.bottom && b.top < r.bottom).map(([s]) => s);
    }""")
    assert covered is not None, "the last speech has no bubble"
    assert covered == [], f"the speech bubble covers seat(s) {covered}"
    page.locator("#sp-controls button.boom").click()  # at once: the seat reveals before its speech
    page.wait_for_function("() => ArenaViewer.data.events.some(e => e.type === 'self_destructed')", timeout=20000)
    assert page.locator("#sp-boom").is_hidden()
    page.context.close()


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_the_lobby_fits_names_the_board_in_full_and_offers_sit_here(server, browser, shots, size) -> None:
    base, app = server
    context = operator_context(browser, base, app, size)
    page = context.new_page()
    page.goto(base + "/")
    page.wait_for_selector('select[data-seat="12"]')
    page.click('.lang button[data-lang="zh"]')
    page.select_option('select[data-seat="5"]', "human")
    page.click("#create")
    page.wait_for_selector("#invites a.sit")
    page.wait_for_timeout(300)
    page.screenshot(path=str(shots / f"web-lobby-{size}-zh.png"), full_page=True)
    assert overflow(page) <= 0
    # the board's whole name fits its select
    clipped = page.evaluate("""() => {
        const s = document.getElementById('preset'), ctx = document.createElement('canvas').getContext('2d');
        ctx.font = getComputedStyle(s).font;
        return ctx.measureText(s.options[s.selectedIndex].textContent).width - (s.clientWidth - 40);
    }""")
    assert clipped <= 0, f"the board's name is cut by {clipped:.0f} px"
    speech = page.locator("#speech-limit").inner_text()
    assert "R64" not in speech and "004" not in speech and "每人2分钟" in speech
    sit = page.locator("#invites a.sit")
    assert sit.inner_text() == "坐这里"
    href = sit.get_attribute("href")
    sit.click()
    page.wait_for_url(base + href + "*")
    page.wait_for_selector('#seat-panel[data-state="ask"], #seat-panel[data-state="idle"]', timeout=20000)
    context.close()
