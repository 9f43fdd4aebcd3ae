"""The replay page, opened for real in headless Chromium.

Each page is rendered by ``arena view`` and loaded from disk with the network off; the tests read
the DOM Chromium builds (``--dump-dom``) at chosen steps (``#step=K&view=...``) and compare what
a viewer sees with what the transcript says that view may see, computed here with the referee's
own filter (:func:`arena.observation.visible_events`).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from llm_style import write_llm_style_transcript  # noqa: E402

from arena.observation import visible_events  # noqa: E402
from arena.table import wolf_cards  # noqa: E402
from arena.transcript import read_transcript  # noqa: E402
from arena.viewer import build_view_data, write_view  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
NIGHT_ACTIONS = {"guard_protected", "wolf_knife_vote", "wolf_proposal", "wolf_veto", "wolf_team_message", "wolf_knife", "witch_told", "witch_saved", "witch_poisoned",
                 "seer_result", "hunter_status", "player_died", "thought", "role_assigned", "wolf_team"}
NOT_LOGGED = {"phase_started", "thought"}  # the log shows phase headings and the Minds tab shows thoughts
WOLF_CARDS = set(wolf_cards())  # the referee's, as the page is given them

needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (.ci/run installs it)")


# ---- a small DOM tree from Chromium's serialised DOM -----------------------------------------
class Node:
    def __init__(self, tag: str, attrs: dict[str, str], parent: "Node | None"):
        self.tag, self.attrs, self.parent = tag, attrs, parent
        self.children: list[Node] = []
        self.text_parts: list[str] = []

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())

    def text(self) -> str:
        return "".join(self.text_parts) + "".join(c.text() for c in self.children)

    def find_all(self, pred: Any) -> list["Node"]:
        out = [self] if pred(self) else []
        for child in self.children:
            out.extend(child.find_all(pred))
        return out


VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", {}, None)
        self.cur = self.root
        self.in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: v or "" for k, v in attrs}, self.cur)
        self.cur.children.append(node)
        if tag == "script":
            self.in_script = True
        if tag not in VOID:
            self.cur = node

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.cur.children.append(Node(tag, {k: v or "" for k, v in attrs}, self.cur))

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self.in_script = False
        node = self.cur
        while node is not self.root and node.tag != tag:
            node = node.parent  # type: ignore[assignment]
        if node is not self.root:
            self.cur = node.parent  # type: ignore[assignment]

    def handle_data(self, data: str) -> None:
        if not self.in_script:  # the embedded data is not what a viewer sees
            self.cur.text_parts.append(data)


class Page:
    """What Chromium rendered: the parts of the DOM the tests look at."""

    def __init__(self, dom: str):
        builder = TreeBuilder()
        builder.feed(dom)
        self.root = builder.root
        app = self.root.find_all(lambda n: n.attrs.get("id") == "app")
        assert app, "the page did not render (no #app)"
        self.app = app[0]
        # everything a viewer can read, without the embedded data and the page's script
        self.visible_text = self.app.text()

    @property
    def step(self) -> int:
        return int(self.app.attrs["data-step"])

    @property
    def view(self) -> str:
        return self.app.attrs["data-view"]

    def log_seqs(self) -> list[int]:
        log = self.by_id("log")
        return [int(n.attrs["data-seq"]) for n in log.find_all(lambda n: "ev" in n.classes)]

    def seats(self) -> dict[int, dict[str, str]]:
        nodes = self.app.find_all(lambda n: "seat" in n.classes and "data-seat" in n.attrs)
        return {int(n.attrs["data-seat"]): n.attrs for n in nodes}

    def markers(self) -> dict[int, list[str]]:
        out: dict[int, list[str]] = {}
        for seat in self.app.find_all(lambda n: "seat" in n.classes and "data-seat" in n.attrs):
            kinds = [m.attrs["data-kind"] for m in seat.find_all(lambda n: "marker" in n.classes)]
            if kinds:
                out[int(seat.attrs["data-seat"])] = kinds
        return out

    def arrows(self) -> list[tuple[int, int, str]]:
        paths = self.app.find_all(lambda n: n.tag == "path" and "arrow" in n.classes)
        return [(int(p.attrs["data-voter"]), int(p.attrs["data-target"]), " ".join(sorted(p.classes - {"arrow", "fresh", "heavy"})))
                for p in paths]

    def decisions(self) -> list[dict[str, str]]:
        return [n.attrs for n in self.by_id("minds").find_all(lambda n: "decision" in n.classes)]

    def by_id(self, ident: str) -> Node:
        found = self.app.find_all(lambda n: n.attrs.get("id") == ident)
        assert found, f"no #{ident}"
        return found[0]

    def now(self) -> dict[str, str]:
        return self.by_id("center").find_all(lambda n: "now" in n.classes)[0].attrs


def dump_dom(url: str, *flags: str) -> str:
    with tempfile.TemporaryDirectory(prefix="arena-chromium-") as profile:
        proc = subprocess.run(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-extensions",
             "--enable-logging=stderr", "--v=0", f"--user-data-dir={profile}", *flags, "--dump-dom", url],
            capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    errors = [line for line in proc.stderr.splitlines() if "CONSOLE" in line and "Uncaught" in line]
    assert not errors, f"the page's script failed: {errors}"
    return proc.stdout


def open_pages(html: Path, fragments: list[str]) -> dict[str, Page]:
    """Load the page once per URL fragment, in parallel (each Chromium takes a second or two)."""
    urls = {frag: f"{html.resolve().as_uri()}#{frag}" for frag in fragments}
    with ThreadPoolExecutor(max_workers=6) as pool:
        doms = dict(zip(urls, pool.map(dump_dom, urls.values())))
    return {frag: Page(dom) for frag, dom in doms.items()}


# ---- the game under test ------------------------------------------------------------------------
class Game:
    """A transcript plus the facts the tests check the page against."""

    def __init__(self, path: Path):
        self.path = path
        self.t = read_transcript(path)
        self.log = [line.event for line in self.t.events]
        self.roles = {int(s): r for s, r in self.t.result.roles.items()} if self.t.result else {}
        self.players = len(self.t.header.agents)

    def visible(self, seat: int) -> list[int]:
        index = {id(e): i for i, e in enumerate(self.log)}
        return [index[id(e)] for e in visible_events(self.log, seat)]

    def first(self, type_: str, after: int = 0, **fields: Any) -> int:
        for i, e in enumerate(self.log):
            if i >= after and e.type == type_ and all(getattr(e, k) == v for k, v in fields.items()):
                return i
        raise AssertionError(f"no {type_} {fields} after {after}")

    def seats_with(self, role_pred: Any) -> list[int]:
        return sorted(s for s, r in self.roles.items() if role_pred(r))


@pytest.fixture(scope="module")
def workdir() -> Any:
    with tempfile.TemporaryDirectory(prefix="arena-viewer-") as tmp:
        yield Path(tmp)


@pytest.fixture(scope="module")
def llm_game(workdir: Path) -> Game:
    """A std-12 game with LLM-style decision lines (speeches, reasoning, beliefs, prompts)."""
    return Game(write_llm_style_transcript(workdir / "llm.jsonl", preset="std-12-guard", seed=7))


@pytest.fixture(scope="module")
def llm_page(llm_game: Game, workdir: Path) -> Path:
    out = workdir / "llm.html"
    proc = subprocess.run([sys.executable, "-m", "arena.cli.main", "view", str(llm_game.path), "-o", str(out)],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert out.exists() and "wrote" in proc.stdout
    return out


# ---- tests that need no browser ---------------------------------------------------------------------
def test_page_is_one_offline_file(llm_page: Path) -> None:
    html = llm_page.read_text(encoding="utf-8")
    assert "<link" not in html
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", html), "the page loads something remotely"
    assert "@import" not in html and not re.search(r"url\(\s*['\"]?https?:", html)
    assert re.search(r"<script[^>]*\ssrc=", html) is None
    # the data block cannot be closed early by a speech that contains markup
    data = re.search(r'<script id="game-data" type="application/json">(.*?)</script>', html, re.S)
    assert data and json.loads(data.group(1))["meta"]["players"] == 12


def test_view_lists_come_from_the_visibility_filter(llm_game: Game) -> None:
    data = build_view_data(llm_game.path)
    assert data["views"]["god"]["events"] == list(range(len(llm_game.log)))
    for seat in range(1, llm_game.players + 1):
        view = data["views"][f"seat:{seat}"]
        assert view["events"] == llm_game.visible(seat)
        assert {data["decisions"][i]["seat"] for i in view["decisions"]} == {seat}
        assert view["roles_at_end"] is False
    assert len(data["decisions"]) == len(llm_game.t.decisions)


def test_markup_in_a_speech_stays_text(workdir: Path, llm_game: Game) -> None:
    lines = llm_game.path.read_text(encoding="utf-8").splitlines()
    for i, raw in enumerate(lines):
        row = json.loads(raw)
        if row.get("type") == "event" and row["event"]["type"] == "speech":
            row["event"]["text"] = "</script><script>alert(1)</script><b>hi</b>"
            lines[i] = json.dumps(row, ensure_ascii=False)
            break
    path = workdir / "markup.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    html = write_view(path, workdir / "markup.html").read_text(encoding="utf-8")
    assert "</script><script>alert(1)" not in html
    assert html.count("</script>") == 2  # the data block and the page script, nothing else


# ---- in the browser ----------------------------------------------------------------------------------------
@needs_chromium
def test_god_view_shows_everything_step_by_step(llm_game: Game, llm_page: Path) -> None:
    g = llm_game
    knife_n2 = g.first("wolf_knife", after=g.first("phase_started", phase="N2"))
    exile_d1 = g.first("vote_result", ballot="exile")
    end = len(g.log) - 1
    pages = open_pages(llm_page, [f"step={k}&view=god" for k in (5, knife_n2, exile_d1, end)])

    for k in (5, knife_n2, exile_d1, end):
        page = pages[f"step={k}&view=god"]
        assert page.step == k and page.view == "god"
        assert page.log_seqs() == [i for i in range(k + 1) if g.log[i].type not in NOT_LOGGED]
        assert page.now()["data-seq"] == str(max(i for i in range(k + 1) if g.log[i].type != "thought"))

    # every card is shown once dealt, and the log narrates the deal
    seats = pages[f"step={end}&view=god"].seats()
    assert {s: a["data-role"] for s, a in seats.items()} == {s: r for s, r in g.roles.items()}
    early = pages["step=5&view=god"].seats()
    assert [early[s]["data-role"] for s in range(1, 6)] == [g.roles[s] for s in range(1, 6)]
    assert early[6]["data-role"] == ""  # seat 6's card is dealt at event 6

    # a night: the wolves' knife votes as arrows, the knife on its victim, the guard's shield
    night = pages[f"step={knife_n2}&view=god"]
    knife = g.log[knife_n2]
    votes = [(e.seat, e.target, "knife") for e in g.log[:knife_n2] if e.type == "wolf_knife_vote" and e.phase == "N2"
             and e.target is not None]
    assert sorted(night.arrows()) == sorted(votes)
    assert "knife" in night.markers().get(knife.target, [])
    guard = [e for e in g.log[:knife_n2] if e.type == "guard_protected" and e.phase == "N2"]
    if guard and guard[0].target:
        assert "shield" in night.markers()[guard[0].target]
    assert "Night 2" in night.visible_text

    # a vote: one arrow per ballot, voter to target, and the tally on the table
    vote = pages[f"step={exile_d1}&view=god"]
    ballots = [(e.voter, e.target, "exile") for e in g.log[:exile_d1]
               if e.type == "ballot_cast" and e.ballot == "exile" and e.phase == g.log[exile_d1].phase
               and e.target is not None]
    assert sorted(vote.arrows()) == sorted(ballots)
    tally = g.log[exile_d1].tally
    bars = vote.by_id("center").find_all(lambda n: "bar" in n.classes)
    assert {int(b.attrs["data-target"]): float(b.find_all(lambda n: "n" in n.classes)[0].text()) for b in bars} == \
        {int(s): float(v) for s, v in tally.items()}

    # the end: the winner and every role
    last = pages[f"step={end}&view=god"]
    result = last.by_id("result")
    assert result.attrs["data-winner"] == g.t.result.winner
    assert "win" in result.text()
    dead = {s for s, a in last.seats().items() if a["data-alive"] == "0"}
    assert dead == set(range(1, g.players + 1)) - set(g.t.result.alive)
    # the god view's Minds tab holds every seat's decisions with their reasoning
    assert {d["data-seat"] for d in last.decisions()} >= {str(s) for s in g.t.result.alive}


@needs_chromium
def test_seat_views_show_only_what_the_seat_knew(llm_game: Game, llm_page: Path) -> None:
    g = llm_game
    wolves = g.seats_with(lambda r: r in WOLF_CARDS)
    villager = g.seats_with(lambda r: r == "villager")[0]
    seer = g.seats_with(lambda r: r == "seer")[0]
    wolf = wolves[0]
    knife_n1 = g.first("wolf_knife")
    seer_n1 = g.first("seer_result")
    exile_d1 = g.first("vote_result", ballot="exile")
    end = len(g.log) - 1
    # each Chromium load costs a second or two: look at the steps that matter for each seat
    plan = {villager: (knife_n1, exile_d1, end), wolf: (knife_n1, seer_n1), seer: (seer_n1, end)}
    pages = open_pages(llm_page, [f"step={k}&view=seat:{s}" for s, ks in plan.items() for k in ks])

    for seat, steps in plan.items():
        visible = g.visible(seat)
        for k in steps:
            page = pages[f"step={k}&view=seat:{seat}"]
            assert page.view == f"seat:{seat}" and page.step == k
            # the log is exactly the seat's visible events up to the step
            assert page.log_seqs() == [i for i in visible if i <= k and g.log[i].type not in NOT_LOGGED]
            # cards: its own, what the table was shown (self-destructs, the hunter), and nothing else
            public_roles = {e.seat: e.role.value for e in g.log[:k + 1] if e.type == "role_revealed"}
            for s, attrs in page.seats().items():
                if s == seat:
                    assert attrs["data-role"] == g.roles[seat]
                else:
                    assert attrs["data-role"] == public_roles.get(s, ""), (seat, k, s)
            # its own decision lines only
            assert {d["data-seat"] for d in page.decisions()} <= {str(seat)}
            text = page.visible_text
            for s, role in g.roles.items():
                if s != seat and s not in public_roles:
                    assert f"#{s} is the {role}" not in text
            assert "referee only" not in text

    # the villager sees no night action at all, and no wolf
    for k in plan[villager]:
        page = pages[f"step={k}&view=seat:{villager}"]
        night_kinds = {"shield", "knife", "antidote", "poison", "eye-good", "eye-wolf", "death"}
        assert not any(set(kinds) & night_kinds for kinds in page.markers().values()), page.markers()
        assert not any(kind == "knife" for _, _, kind in page.arrows())
        assert all(a["data-known"] in ("",) for s, a in page.seats().items() if s != villager)
        for phrase in ("shows the final knife", "The wolves knife", "protects", "poisons", "checks #", "The wolves are"):
            assert phrase not in page.visible_text, phrase

    # a wolf sees its pack (as wolves, not their exact cards) and the knife, but not the seer's check
    page = pages[f"step={knife_n1}&view=seat:{wolf}"]
    known = {s: a["data-known"] for s, a in page.seats().items()}
    assert all(known[w] == "wolf_mate" for w in wolves)
    assert sorted(page.arrows()) == sorted((e.seat, e.target, "knife") for e in g.log[:knife_n1]
                                          if e.type == "wolf_knife_vote" and e.target is not None)
    assert "The wolves are" in page.visible_text
    seer_page = pages[f"step={seer_n1}&view=seat:{wolf}"]
    assert "checks #" not in seer_page.visible_text
    assert not any(k.startswith("eye") for kinds in seer_page.markers().values() for k in kinds)

    # the seer sees its own check, and nobody else's night
    check = g.log[seer_n1]
    page = pages[f"step={seer_n1}&view=seat:{seer}"]
    expect = "known_wolf" if check.result == "wolf" else "known_good"
    assert page.seats()[check.target]["data-known"] in (expect, "")  # a revealed card outranks the check
    assert f"checks #{check.target}" in page.visible_text
    assert "shows the final knife" not in page.visible_text
    assert not any(kind == "knife" for _, _, kind in page.arrows())

    # at the end a seat learns who won, but the page does not deal out every card
    end_page = pages[f"step={end}&view=seat:{villager}"]
    assert end_page.by_id("result").attrs["data-winner"] == g.t.result.winner
    assert not end_page.by_id("result").find_all(lambda n: "roles-grid" in n.classes)


@needs_chromium
def test_chinese_labels_and_a_real_referee_game(workdir: Path) -> None:
    out = workdir / "random"
    proc = subprocess.run([sys.executable, "-m", "arena.cli.main", "play", "--agents", "bot:random", "--seed", "3",
                           "--preset", "std-12-guard", "-o", str(out), "-q"], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    transcript = next(out.glob("*.jsonl"))
    page_path = write_view(transcript, workdir / "random-zh.html", lang="zh")
    g = Game(transcript)
    end = len(g.log) - 1
    pages = open_pages(page_path, [f"step={end}&view=god", "step=0&view=seat:1&lang=en"])
    zh = pages[f"step={end}&view=god"]
    assert zh.app.attrs["data-lang"] == "zh"
    for label in ("上帝视角", "记录", "心声", "第1夜"):
        assert label in zh.visible_text, label
    assert zh.by_id("result").attrs["data-winner"] == g.t.result.winner
    en = pages["step=0&view=seat:1&lang=en"]
    assert en.app.attrs["data-lang"] == "en" and "God view" in en.visible_text
    assert en.log_seqs() == [0]


def test_an_unfinished_transcript_still_makes_a_page(workdir: Path, llm_game: Game) -> None:
    """An abandoned game (or one cut by a crash) is shown up to where it stopped."""
    lines = llm_game.path.read_text(encoding="utf-8").splitlines()
    events = [i for i, raw in enumerate(lines) if json.loads(raw)["type"] == "event"]
    cut = lines[: events[len(events) // 2]]
    result = json.loads(lines[-1])
    result["abandoned"] = True
    abandoned = workdir / "abandoned.jsonl"
    abandoned.write_text("\n".join(cut + [json.dumps(result)]) + "\n", encoding="utf-8")
    torn = workdir / "torn.jsonl"
    torn.write_text("\n".join(cut) + '\n{"type":"event","seq":', encoding="utf-8")
    for path in (abandoned, torn):
        data = build_view_data(path)
        assert len(data["events"]) == len(events) // 2
        assert all(d["at"] < len(data["events"]) for d in data["decisions"])
        assert write_view(path).exists()
    assert build_view_data(abandoned)["result"]["abandoned"] is True
    assert build_view_data(torn)["meta"]["torn"] is True and build_view_data(torn)["result"] is None


@needs_chromium
def test_autoplay_runs_to_the_end(llm_game: Game, llm_page: Path) -> None:
    """Play from the start in a seat's view; Chromium's virtual time runs the timers at once."""
    seat = 4
    url = f"{llm_page.resolve().as_uri()}#step=0&view=seat:{seat}&play=1"
    page = Page(dump_dom(url, "--virtual-time-budget=3600000"))
    last = [i for i in llm_game.visible(seat) if llm_game.log[i].type not in NOT_LOGGED][-1]
    assert page.step == last and page.view == f"seat:{seat}"
    assert page.by_id("result").attrs["data-winner"] == llm_game.t.result.winner
