/* Werewolf Arena replay page.
 *
 * The data block holds the whole transcript plus, for every view (god, seat:N), the indices of the
 * events and decision lines that view may show. Those lists were computed in Python with the
 * referee's visibility filter; this script only renders what a view's lists contain and never
 * decides on its own what a seat could know.
 *
 * URL hash: #step=K&view=god|seat:N&lang=en|zh&tab=log|minds&sel=N&play=1
 * K is the index (seq) of an event in the transcript; the page shows every event of the view up
 * to and including K. "step=end" jumps to the last event.
 */
(function () {
  "use strict";

  const DATA = JSON.parse(document.getElementById("game-data").textContent);
  const EV = DATA.events;
  const DEC = DATA.decisions;
  const N = DATA.meta.players;

  const WOLF_ROLES = new Set(DATA.meta.wolf_cards);  // the referee's wolf cards (arena/table.py)
  const NOT_STEPS = new Set(["thought"]);  // shown in the log and Minds tab, but not a stop of their own

  // ---- icons (inline SVG, stroke = currentColor) -------------------------------------------
  const P = {
    moon: '<path d="M21 12.8A9 9 0 1 1 11.2 3a7 7 0 0 0 9.8 9.8z"/>',
    sun: '<circle cx="12" cy="12" r="4.2"/><path d="M12 1.5v3M12 19.5v3M4.2 4.2l2.1 2.1M17.7 17.7l2.1 2.1M1.5 12h3M19.5 12h3M4.2 19.8l2.1-2.1M17.7 6.3l2.1-2.1"/>',
    shield: '<path d="M12 22s8-4 8-10V5l-8-3-8 3v7c0 6 8 10 8 10z"/>',
    knife: '<path d="M14.5 17.5 3 6V3h3l11.5 11.5"/><path d="m13 19 6-6"/><path d="m16 16 4 4"/><path d="m19 21 2-2"/>',
    antidote: '<path d="M9 3h6"/><path d="M10 3v6.5L5 18a2 2 0 0 0 1.7 3h10.6a2 2 0 0 0 1.7-3l-5-8.5V3"/><path d="M7.5 15h9"/>',
    poison: '<path d="M12 2.5a7.5 7.5 0 0 0-7.5 7.5c0 2.8 1.4 4.7 3 5.8V19h9v-3.2c1.6-1.1 3-3 3-5.8A7.5 7.5 0 0 0 12 2.5z"/><circle cx="9.3" cy="10.5" r="1.4"/><circle cx="14.7" cy="10.5" r="1.4"/><path d="M10.5 19v2.5M13.5 19v2.5"/>',
    skull: '<path d="M12 2.5a7.5 7.5 0 0 0-7.5 7.5c0 2.8 1.4 4.7 3 5.8V19h9v-3.2c1.6-1.1 3-3 3-5.8A7.5 7.5 0 0 0 12 2.5z"/><circle cx="9.3" cy="10.5" r="1.4"/><circle cx="14.7" cy="10.5" r="1.4"/><path d="M10.5 19v2.5M13.5 19v2.5"/>',
    eye: '<path d="M1.5 12S5.5 4.5 12 4.5 22.5 12 22.5 12 18.5 19.5 12 19.5 1.5 12 1.5 12z"/><circle cx="12" cy="12" r="3"/>',
    star: '<polygon points="12 2 15.1 8.3 22 9.3 17 14.1 18.2 21 12 17.8 5.8 21 7 14.1 2 9.3 8.9 8.3 12 2"/>',
    gun: '<circle cx="12" cy="12" r="8.5"/><circle cx="12" cy="12" r="2.5"/><path d="M12 1.5v4M12 18.5v4M1.5 12h4M18.5 12h4"/>',
    speech: '<path d="M21 15a2 2 0 0 1-2 2H8l-5 4V5a2 2 0 0 1 2-2h14a2 2 0 0 1 2 2z"/>',
    ballot: '<path d="m9 11 3 3L22 4"/><path d="M21 12v7a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2h11"/>',
    scale: '<path d="M12 3v18M6 21h12M3 7h18"/><path d="M6 7 3 14a3 3 0 0 0 6 0z"/><path d="m18 7-3 7a3 3 0 0 0 6 0z"/>',
    bomb: '<polygon points="13 2 3 14 12 14 11 22 21 10 12 10 13 2"/>',
    thought: '<path d="M18 10h-1.3A8 8 0 1 0 9 20h9a5 5 0 0 0 0-10z"/>',
    flag: '<path d="M4 15s1-1 4-1 5 2 8 2 4-1 4-1V3s-1 1-4 1-5-2-8-2-4 1-4 1z"/><path d="M4 22v-7"/>',
    alert: '<path d="M10.3 3.9 1.8 18a2 2 0 0 0 1.7 3h17a2 2 0 0 0 1.7-3L13.7 3.9a2 2 0 0 0-3.4 0z"/><path d="M12 9v4M12 17h.01"/>',
    card: '<rect x="5" y="2.5" width="14" height="19" rx="2"/><path d="M9 8h6M9 12h6"/>',
    users: '<path d="M17 21v-2a4 4 0 0 0-4-4H5a4 4 0 0 0-4 4v2"/><circle cx="9" cy="7" r="4"/><path d="M23 21v-2a4 4 0 0 0-3-3.9M16 3.1a4 4 0 0 1 0 7.8"/>',
    list: '<path d="M10 6h11M10 12h11M10 18h11M4 6h1v4M4 10h2M6 18H4c0-1 2-2 2-3s-1-1.5-2-1"/>',
    lock: '<rect x="4" y="11" width="16" height="10" rx="2"/><path d="M8 11V7a4 4 0 0 1 8 0v4"/>',
    play: '<polygon points="7 4 20 12 7 20 7 4" fill="currentColor"/>',
    pause: '<rect x="6" y="4" width="4" height="16" fill="currentColor"/><rect x="14" y="4" width="4" height="16" fill="currentColor"/>',
    prev: '<polyline points="15 18 9 12 15 6"/>',
    next: '<polyline points="9 18 15 12 9 6"/>',
    first: '<polyline points="17 18 11 12 17 6"/><path d="M7 6v12"/>',
    last: '<polyline points="7 18 13 12 7 6"/><path d="M17 6v12"/>',
    x: '<path d="M18 6 6 18M6 6l12 12"/>',
    dot: '<circle cx="12" cy="12" r="2.2" fill="currentColor"/>',
  };
  function icon(name) {
    return '<svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" ' +
      'stroke-linejoin="round" aria-hidden="true">' + (P[name] || P.dot) + "</svg>";
  }

  // ---- small helpers ----------------------------------------------------------------------
  function esc(text) {
    return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  }
  function fmt(template, fields) {
    return String(template).replace(/\{(\w+)\}/g, (m, k) => (k in fields ? fields[k] : m));
  }
  function el(tag, cls, html) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (html !== undefined) node.innerHTML = html;
    return node;
  }
  function campOf(role) {
    if (!role) return "";
    if (WOLF_ROLES.has(role)) return "wolves";
    if (role === "villager") return "villager";
    return "god";
  }
  function isNight(phase) { return !!phase && phase[0] === "N"; }

  // ---- state of the page --------------------------------------------------------------------
  const ui = {
    view: DATA.views.god ? "god" : Object.keys(DATA.views)[0],  // a live seat's page has its seat's view only
    lang: DATA.meta.lang in DATA.labels ? DATA.meta.lang : "en",
    step: -1,          // seq of the last event shown (-1: before the first)
    tab: "log",
    selected: null,    // seat whose beliefs are drawn on the table
    playing: false,
    timer: null,
    lastRenderedStep: null,
  };
  function L() { return DATA.labels[ui.lang]; }
  function t(key, fields) {
    const v = L()[key];
    return v === undefined ? key : fields ? fmt(v, fields) : v;
  }
  function seatName(seat) { return fmt(L().seat_fmt, { seat: seat }); }
  function roleName(role) { return (L().role && L().role[role]) || role; }
  // a built-in seat in the page's language (the spec itself is the transcript's); a model seat by its name
  function agentName(a) { return a.label || (L().spec_names || {})[a.spec] || a.spec; }
  function agentOf(seat) { return DATA.meta.agents.find((a) => a.seat === seat) || { seat: seat, spec: "?" }; }
  function viewData() { return DATA.views[ui.view] || DATA.views.god || DATA.views[Object.keys(DATA.views)[0]]; }
  function viewSeat() { return ui.view.startsWith("seat:") ? Number(ui.view.slice(5)) : null; }
  function steps() { return viewData().events.filter((i) => !NOT_STEPS.has(EV[i].type)); }

  // ---- fold the view's visible events up to the step into what the table shows -------------------
  function fold() {
    const st = {
      phase: null, dead: new Set(), roles: {}, known: {}, sheriff: null, markers: {}, vote: null,
      candidates: new Set(), pk: new Set(), current: null, ended: null, deathsAt: {},
    };
    const mark = (seat, kind) => { if (seat) (st.markers[seat] = st.markers[seat] || []).push(kind); };
    const openVote = (key, ballot, round) => {
      if (!st.vote || st.vote.key !== key) st.vote = { key: key, ballot: ballot, round: round, ballots: [], tally: null, top: [] };
      return st.vote;
    };
    for (const i of viewData().events) {
      if (i > ui.step) break;
      const e = EV[i];
      if (e.mark) mark(e.mark[0], e.mark[1]);  // the marker an event leaves (arena/table.py)
      switch (e.type) {
        case "phase_started":
          st.phase = e.phase; st.markers = {}; st.vote = null; st.pk = new Set(); st.candidates = new Set(); break;
        case "night_step": if (st.vote && st.vote.ballot === "knife") st.vote = null; break;
        case "role_assigned": st.roles[e.seat] = e.role; break;
        case "role_revealed": st.roles[e.seat] = e.role; break;
        case "idiot_revealed": st.roles[e.seat] = "idiot"; break;
        case "wolf_team": for (const w of e.wolves) st.known[w] = "wolf_mate"; break;
        case "seer_result": st.known[e.target] = e.result === "wolf" ? "known_wolf" : "known_good"; break;
        case "wolf_knife_vote": {
          const v = openVote("knife:" + e.phase, "knife", 1);
          v.ballots.push({ voter: e.seat, target: e.target, weight: 1, seq: i }); break;
        }
        case "self_destructed": st.vote = null; break;
        case "deaths_announced": for (const s of e.seats) { st.dead.add(s); st.deathsAt[s] = e.phase; } break;
        case "sheriff_candidates": st.candidates = new Set(e.seats); break;
        case "sheriff_withdrew": st.candidates.delete(e.seat); break;
        case "sheriff_elected": st.sheriff = e.seat; st.candidates = new Set(); st.pk = new Set(); break;
        case "badge_moved": st.sheriff = e.action === "passed" ? e.to_seat : null; st.candidates = new Set(); break;
        case "ballot_cast": {
          const v = openVote(e.phase + ":" + e.ballot + ":" + e.round, e.ballot, e.round);
          v.ballots.push({ voter: e.voter, target: e.target, weight: e.weight, seq: i }); break;
        }
        case "vote_result": {
          const v = openVote(e.phase + ":" + e.ballot + ":" + e.round, e.ballot, e.round);
          v.tally = e.tally; v.top = e.top; break;
        }
        case "pk_platform": st.pk = new Set(e.seats); break;
        case "exile_result": st.pk = new Set(); break;
        case "speech": case "speech_order": st.vote = null; break;
        case "game_ended": st.ended = e; st.vote = null; break;
        default: break;
      }
      if (!NOT_STEPS.has(e.type)) st.current = e;
    }
    return st;
  }

  // ---- geometry: seats on an ellipse, in the SVG's 1000x640 coordinates -------------------------
  const DISC_R = 34.5;  // half of .disc's width (72% of a 9.6%-wide seat) in SVG units
  const CENTER = { x: 500, y: 300 };
  function seatPos(seat) {
    const a = -Math.PI + (seat - 0.5) * (2 * Math.PI / N);
    return { x: CENTER.x + 405 * Math.cos(a), y: CENTER.y + 245 * Math.sin(a) };
  }

  // ---- render ------------------------------------------------------------------------------------
  function renderChrome() {
    document.documentElement.lang = ui.lang === "zh" ? "zh-CN" : "en";
    document.getElementById("title").textContent = t("title");
    const seed = DATA.meta.seed === "?" ? L().seed_hidden : DATA.meta.seed;  // a live game's seed comes with the result
    const board = (L().preset_titles || {})[DATA.meta.preset] || DATA.meta.preset;
    document.getElementById("subtitle").textContent = t("subtitle", { preset: board, seed: seed, players: N });
    document.getElementById("view-label").textContent = t("view");
    const select = document.getElementById("view-select");
    select.innerHTML = "";
    for (const key of Object.keys(DATA.views)) {
      const opt = document.createElement("option");
      opt.value = key;
      if (key === "god") opt.textContent = t("god_view");
      else if (key === "public") opt.textContent = t("public_view");
      else {
        const seat = Number(key.slice(5));
        const a = agentOf(seat);
        opt.textContent = t("seat_view", { seat: seat }) + " · " + agentName(a);
      }
      select.appendChild(opt);
    }
    select.value = ui.view;
    for (const b of document.querySelectorAll(".lang-switch button")) b.classList.toggle("on", b.dataset.lang === ui.lang);
    document.getElementById("tab-log").textContent = t("log");
    document.getElementById("tab-minds").textContent = t("minds");
    const buttons = { "btn-first": ["first", "first"], "btn-prev": ["prev", "prev"], "btn-next": ["next", "next"], "btn-last": ["last", "last"] };
    for (const id in buttons) {
      const b = document.getElementById(id);
      b.innerHTML = icon(buttons[id][0]);
      b.title = t(buttons[id][1]);
      b.setAttribute("aria-label", t(buttons[id][1]));
    }
    document.getElementById("speed").title = t("speed");
  }

  function render() {
    const st = fold();
    const app = document.getElementById("app");
    app.dataset.step = String(ui.step);
    app.dataset.view = ui.view;
    app.dataset.lang = ui.lang;
    const phase = st.phase || (st.current && st.current.stage) || "N1";
    document.body.classList.toggle("night", isNight(phase));
    document.body.classList.toggle("day", !isNight(phase));
    renderResultChip(st);
    renderSeats(st);
    renderArrows(st);
    renderCenter(st, phase);
    renderNote(st);
    renderLog();
    renderMinds();
    renderTimeline();
    const play = document.getElementById("btn-play");
    play.innerHTML = icon(ui.playing ? "pause" : "play");
    play.title = t(ui.playing ? "pause" : "play");
    play.setAttribute("aria-label", play.title);
    ui.lastRenderedStep = ui.step;
    writeHash();
    if (live.afterRender) live.afterRender(st, ui);
  }

  function renderResultChip(st) {
    const chip = document.getElementById("result-chip");
    chip.className = "result-chip";
    chip.textContent = "";
    if (st.ended) {
      const winner = st.ended.winner;
      chip.classList.add(winner);
      chip.textContent = t("winner", { winner: (L().winner_name || {})[winner] || winner });
    }
  }

  function beliefsOf(seat) {
    // the latest decision line of that seat with beliefs, among the lines this view may show
    const view = viewData();
    let found = null;
    for (const di of view.decisions) {
      const d = DEC[di];
      if (d.at > ui.step) break;
      if (d.seat === seat && d.beliefs) found = d;
    }
    return found;
  }

  function renderSeats(st) {
    const box = document.getElementById("seats");
    box.innerHTML = "";
    const me = viewSeat();
    const speaking = st.current && st.current.type === "speech" ? st.current.seat : null;
    const tally = currentTally(st);
    const abstainers = new Set();
    if (st.vote) for (const b of st.vote.ballots) if (b.target === null || b.target === undefined) abstainers.add(b.voter);
    const sel = ui.selected !== null ? ui.selected : me;
    const belief = sel ? beliefsOf(sel) : null;
    for (let seat = 1; seat <= N; seat++) {
      const pos = seatPos(seat);
      const role = st.roles[seat] || "";
      const known = st.known[seat] || "";
      const camp = campOf(role);
      const node = el("div", "seat");
      node.dataset.seat = String(seat);
      node.dataset.role = role;
      node.dataset.known = known;
      node.dataset.alive = st.dead.has(seat) ? "0" : "1";
      node.dataset.sheriff = st.sheriff === seat ? "1" : "0";
      if (camp) node.classList.add("camp-" + camp);
      else if (known === "wolf_mate" || known === "known_wolf") node.classList.add("known-wolf");
      else if (known === "known_good") node.classList.add("known-good");
      if (st.dead.has(seat)) node.classList.add("dead");
      if (speaking === seat) node.classList.add("speaking");
      if (seat === me) node.classList.add("me");
      if (seat === ui.selected) node.classList.add("selected");
      if (st.candidates.has(seat)) node.classList.add("candidate");
      if (st.pk.has(seat)) node.classList.add("pk");
      node.style.left = (pos.x / 10) + "%";
      node.style.top = ((pos.y - DISC_R) / 6.4) + "%";  // the disc's centre sits on the ellipse
      const a = agentOf(seat);
      let chipText = "";
      if (role) chipText = roleName(role);
      else if (known) chipText = t(known);
      const markers = (st.markers[seat] || []).concat(abstainers.has(seat) ? ["abstain"] : []);
      let html = '<div class="disc"><span class="num">' + seat + '</span><span class="dead-mark">' + icon("x") + "</span></div>";
      if (st.sheriff === seat) html += '<div class="sheriff" title="' + esc(t("sheriff")) + '">' + icon("star") + "</div>";
      if (markers.length) {
        html += '<div class="markers">' + markers.map((m) => '<span class="marker ' + m + '" data-kind="' + m + '">' +
          icon(m === "abstain" ? "x" : DATA.meta.marker_icon[m] || m) + "</span>").join("") + "</div>";
      }
      if (tally && tally.counts[seat]) html += '<div class="tally ' + tally.ballot + '">' + fmtNum(tally.counts[seat]) + "</div>";
      if (belief && belief.beliefs && seat !== sel && belief.beliefs[seat] !== undefined) {
        const p = Number(belief.beliefs[seat]);
        html += '<div class="belief" style="background:' + beliefColor(p) + '">' + Math.round(p * 100) + "%</div>";
      }
      html += '<div class="nameplate"><span class="name">' + esc(agentName(a)) + "</span>" +
        (a.label ? '<span class="spec">' + esc(a.spec) + "</span>" : "") + "</div>";
      html += '<div class="rolechip">' + esc(chipText) + "</div>";
      node.innerHTML = html;
      node.addEventListener("click", () => { ui.selected = ui.selected === seat ? null : seat; render(); });
      box.appendChild(node);
    }
  }
  function fmtNum(x) { return Number.isInteger(x) ? String(x) : String(Math.round(x * 10) / 10); }
  function beliefColor(p) {
    const r = Math.round(91 + (255 - 91) * p), g = Math.round(227 - (227 - 93) * p), b = Math.round(176 - (176 - 108) * p);
    return "rgb(" + r + "," + g + "," + b + ")";
  }

  function currentTally(st) {
    if (!st.vote) return null;
    const counts = {};
    if (st.vote.tally) for (const k in st.vote.tally) counts[Number(k)] = st.vote.tally[k];
    else for (const b of st.vote.ballots) if (b.target) counts[b.target] = (counts[b.target] || 0) + (b.weight || 1);
    return { ballot: st.vote.ballot, counts: counts, top: st.vote.top || [] };
  }

  function renderArrows(st) {
    const svg = document.getElementById("arrows");
    const colors = { exile: "#ffaa4c", pk: "#ff7b54", sheriff: "#f5c451", sheriff_pk: "#f5c451", knife: "#ff4d5e" };
    let html = "<defs>";
    for (const k in colors) {
      html += '<marker id="head-' + k + '" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="5" markerHeight="5" orient="auto-start-reverse">' +
        '<path d="M0 0 L10 5 L0 10 z" fill="' + colors[k] + '"/></marker>';
    }
    html += "</defs>";
    if (st.vote) {
      const latest = st.current ? st.current.seq : -1;
      for (const b of st.vote.ballots) {
        if (!b.target) continue;
        const from = seatPos(b.voter), to = seatPos(b.target);
        const d = curve(from, to, DISC_R + 6);
        const cls = "arrow " + st.vote.ballot + (b.weight > 1 ? " heavy" : "") + (b.seq === latest ? " fresh" : "");
        html += '<path class="' + cls + '" data-voter="' + b.voter + '" data-target="' + b.target + '" d="' + d +
          '" marker-end="url(#head-' + st.vote.ballot + ')"/>';
      }
    }
    svg.innerHTML = html;
  }
  function curve(a, b, radius) {
    // a gentle arc, bowed toward the table's centre, from disc edge to disc edge
    const dx = b.x - a.x, dy = b.y - a.y, len = Math.hypot(dx, dy) || 1;
    let px = -dy / len, py = dx / len;  // unit normal; flip it to face the centre
    const mx = (a.x + b.x) / 2, my = (a.y + b.y) / 2;
    if ((CENTER.x - mx) * px + (CENTER.y - my) * py < 0) { px = -px; py = -py; }
    const bow = 0.16 * len;
    const cx = mx + px * bow, cy = my + py * bow;
    const trim = (from, to, r) => {
      const ddx = to.x - from.x, ddy = to.y - from.y, l = Math.hypot(ddx, ddy) || 1;
      return { x: from.x + ddx / l * r, y: from.y + ddy / l * r };
    };
    const s = trim(a, { x: cx, y: cy }, DISC_R + 2);
    const e = trim(b, { x: cx, y: cy }, radius);
    return "M" + s.x.toFixed(1) + " " + s.y.toFixed(1) + " Q" + cx.toFixed(1) + " " + cy.toFixed(1) + " " + e.x.toFixed(1) + " " + e.y.toFixed(1);
  }

  function seatChip(seat, st) {
    const role = st && st.roles[seat];
    const camp = campOf(role);
    return '<span class="chip' + (camp ? " camp-" + camp : "") + '">' + esc(seat) + "</span>";
  }

  function renderCenter(st, phase) {
    const center = document.getElementById("center");
    const title = '<div class="phase-title">' + icon(isNight(phase) ? "moon" : "sun") +
      esc(t(isNight(phase) ? "night" : "day", { n: phase.slice(1) })) + "</div>";
    const e = st.current;
    let body = "";
    let cls = "now";
    if (!e) {
      body = '<div class="intro">' + esc(t("intro")) + "</div>";
    } else if (e.type === "game_ended") {
      body = resultCard(st, e);
    } else if (e.type === "speech") {
      const a = agentOf(e.seat);
      const tag = (L().speech_kind || {})[e.kind];
      body = '<div class="who">' + seatChip(e.seat, st) + "<span>" + esc(agentName(a)) + "</span>" +
        (tag ? '<span class="tag">' + esc(tag) + "</span>" : "") + "</div>" +
        '<div class="quote" data-seq="' + e.seq + '">' + esc(e.text) + "</div>";
      const why = speechDecision(e);
      if (why && why.reasoning) body += '<div class="why">' + icon("thought") + "<span>" + esc(why.reasoning) + "</span></div>";
    } else if (st.vote && ["ballot_cast", "vote_result", "wolf_knife_vote", "wolf_knife", "pk_platform", "sheriff_elected", "exile_result"].includes(e.type)) {
      body = voteCard(st, e);
    } else if (e.type === "deaths_announced") {
      body = '<div class="caption">' + icon("skull") + "<span>" + esc(e.line[ui.lang]) + "</span></div>";
      if (e.seats.length) body += '<div class="deaths">' + e.seats.map((s) => seatChip(s, st)).join("") + "</div>";
    } else {
      body = '<div class="caption">' + icon(e.icon || (isNight(phase) ? "moon" : "sun")) +
        "<span>" + esc(e.line[ui.lang]) + "</span></div>";
    }
    if (e && e.visibility && e.visibility.to !== "all") cls += " secret";
    center.innerHTML = title + '<div class="' + cls + '" data-seq="' + (e ? e.seq : -1) + '" data-type="' + (e ? e.type : "") + '">' + body + "</div>";
  }

  const SPEECH_DECISIONS = ["speech", "last_words", "idiot_interject", "interjection_reply"];

  function speechDecision(e) {
    // the decision line that produced this speech, if it is among the lines this view may show
    let found = null;
    for (const di of viewData().decisions) {
      const d = DEC[di];
      if (d.at > e.seq) break;
      if (d.seat === e.seat && SPEECH_DECISIONS.includes(d.kind)) found = d;
    }
    return found && found.value === e.text ? found : null;
  }

  function voteCard(st, e) {
    const v = st.vote;
    const tally = currentTally(st);
    const name = (L().ballot || {})[v.ballot] || v.ballot;
    let html = '<div class="vote-title">' + icon(v.ballot === "knife" ? "knife" : "ballot") + "<span>" + esc(name) +
      (v.round > 1 ? " · " + esc(t("vote_round", { n: v.round })) : "") + "</span></div>";
    const entries = Object.keys(tally.counts).map(Number).sort((a, b) => tally.counts[b] - tally.counts[a] || a - b);
    const max = Math.max(1, ...entries.map((s) => tally.counts[s]));
    html += '<div class="bars">';
    for (const s of entries) {
      const top = tally.top.includes(s);
      html += '<div class="bar ' + v.ballot + (top ? " top" : "") + '" data-target="' + s + '">' + seatChip(s, st) +
        '<div class="fill" style="width:' + (100 * tally.counts[s] / max).toFixed(1) + '%"></div><span class="n">' +
        fmtNum(tally.counts[s]) + "</span></div>";
    }
    html += "</div>";
    const abst = v.ballots.filter((b) => !b.target).map((b) => b.voter);
    if (abst.length) html += '<div class="abstainers">' + esc(abst.map(seatName).join(L().list_sep || ", ")) + " · " + esc(t("abstain")) + "</div>";
    if (!["ballot_cast", "wolf_knife_vote", "vote_result"].includes(e.type)) {
      html += '<div class="caption" style="margin-top:.6cqw">' + icon(e.icon) + "<span>" + esc(e.line[ui.lang]) + "</span></div>";
    }
    return html;
  }

  function resultCard(st, e) {
    const winner = e.winner;
    let html = '<div class="result-card ' + esc(winner) + '" id="result" data-winner="' + esc(winner) + '">' +
      "<h2>" + esc(t("winner", { winner: (L().winner_name || {})[winner] || winner })) + "</h2>" +
      '<div class="reason">' + esc(e.reason_text ? e.reason_text[ui.lang] : e.reason) + "</div>";
    // Python decides whether a view reveals every card at the end (the god view does)
    if (viewData().roles_at_end && DATA.result) {
      html += '<div class="roles-grid">';
      for (let s = 1; s <= N; s++) {
        const role = DATA.result.roles[String(s)];
        html += "<div>" + '<span class="chip camp-' + campOf(role) + '">' + s + "</span>" + esc(roleName(role)) + "</div>";
      }
      html += "</div>";
    }
    return html + "</div>";
  }

  function renderNote(st) {
    const note = document.getElementById("table-note");
    const sel = ui.selected !== null ? ui.selected : viewSeat();
    if (sel && beliefsOf(sel)) note.textContent = t("beliefs_of", { seat: sel });
    else if (DATA.meta.complete === false) note.textContent = DATA.result && DATA.result.abandoned ? t("abandoned") : t("unfinished");
    else if (DATA.result && DATA.result.abandoned) note.textContent = t("abandoned");
    else note.textContent = "";
  }

  function renderLog() {
    const log = document.getElementById("log");
    const view = viewData();
    const frag = document.createDocumentFragment();
    let phase = null;
    let current = null;
    for (const i of view.events) {
      if (i > ui.step) break;
      const e = EV[i];
      if (e.stage !== phase) {
        phase = e.stage;
        const head = el("div", "phase-head", icon(isNight(phase) ? "moon" : "sun") + "<span>" +
          esc(t(isNight(phase) ? "night" : "day", { n: phase.slice(1) })) + "</span>");
        frag.appendChild(head);
      }
      if (e.type === "phase_started" || e.type === "thought") continue;
      const vis = e.visibility || { to: "all" };
      const node = el("div", "ev t-" + e.type + (vis.to === "seats" ? " secret" : vis.to === "referee" ? " referee" : ""));
      node.dataset.seq = String(i);
      node.dataset.type = e.type;
      let html = icon(e.icon || "dot") + "<div>";
      if (e.type === "speech") {
        const tag = (L().speech_kind || {})[e.kind];
        html += "<b>" + esc(seatName(e.seat)) + "</b>" + (tag ? " · " + esc(tag) : "") + '<span class="said">' + esc(e.text) + "</span>";
      } else {
        html += esc(e.line[ui.lang]);
      }
      if (ui.view === "god" && vis.to !== "all" && e.type !== "thought") {
        html += '<span class="lock">' + esc(vis.to === "referee" ? t("referee_only") : t("shown_to", { seats: vis.seats.map(seatName).join(L().list_sep || ", ") })) + "</span>";
      }
      html += "</div>";
      node.innerHTML = html;
      node.addEventListener("click", () => { stop(); ui.step = i; render(); });
      if (!NOT_STEPS.has(e.type)) current = node;
      frag.appendChild(node);
    }
    log.innerHTML = "";
    log.appendChild(frag);
    if (current) {
      current.classList.add("current");
      // keep the newest line in sight without scrolling the page itself
      log.scrollTop = Math.max(0, current.offsetTop - log.clientHeight + current.offsetHeight + 24);
    }
  }

  function formatAnswer(value) {
    if (value === null || value === undefined) return t("none_choice");
    if (value === true) return t("answer_yes");
    if (value === false) return t("answer_no");
    if (typeof value === "number") return seatName(value);
    if (Array.isArray(value)) return value.map((v) => (typeof v === "number" ? seatName(v) : String(v))).join(", ");
    if (typeof value === "object") return Object.keys(value).map((k) => k + ": " + value[k]).join(", ");
    const s = String(value);
    return s.length > 40 ? s.slice(0, 40) + "…" : s;
  }

  function renderMinds() {
    const minds = document.getElementById("minds");
    const view = viewData();
    const shown = view.decisions.filter((di) => DEC[di].at <= ui.step);
    minds.innerHTML = "";
    if (!shown.length) {
      minds.appendChild(el("div", "empty", esc(t("no_decisions"))));
      return;
    }
    const recent = shown.slice(-60).reverse();
    for (const di of recent) {
      const d = DEC[di];
      const node = el("div", "decision");
      node.dataset.id = String(d.id);
      node.dataset.seat = String(d.seat);
      const a = agentOf(d.seat);
      let html = '<div class="head"><span class="chip">' + d.seat + '</span><span class="kind">' +
        esc((L().kind || {})[d.kind] || d.kind) + "</span>" + '<span class="muted" style="margin:0">' + esc(d.phase) + " · " + esc(agentName(a)) + "</span>" +
        '<span class="ans" title="' + esc(typeof d.value === "string" ? d.value : "") + '">' + esc(formatAnswer(d.value)) + "</span></div>";
      if (d.refused) html += '<span class="flag">' + esc(t("refused", { error: d.error || "" })) + "</span>";
      else if (d.defaulted) html += '<span class="flag">' + esc(t("defaulted")) + "</span>";
      if (d.reasoning) html += '<div class="reasoning">' + esc(d.reasoning) + "</div>";
      if (d.notes) html += '<div class="reasoning muted">' + esc(d.notes) + "</div>";
      if (d.beliefs) {
        html += '<div class="muted">' + esc(t("beliefs")) + '</div><div class="beliefs">';
        const seats = Object.keys(d.beliefs).map(Number).sort((x, y) => x - y);
        for (const s of seats) {
          const p = Number(d.beliefs[s]);
          html += '<div class="b"><span>' + s + '</span><i><b style="width:' + Math.round(p * 100) + "%;background:" + beliefColor(p) + '"></b></i></div>';
        }
        html += "</div>";
      }
      if (d.prompt) html += "<details><summary>" + esc(t("prompt")) + "</summary><pre>" + esc(d.prompt) + "</pre></details>";
      if (d.raw_reply) html += "<details><summary>" + esc(t("raw_reply")) + "</summary><pre>" + esc(d.raw_reply) + "</pre></details>";
      node.innerHTML = html;
      minds.appendChild(node);
    }
  }

  function renderTimeline() {
    const list = steps();
    const pos = Math.max(0, lastIndexAtOrBefore(list, ui.step));
    const scrub = document.getElementById("scrubber");
    scrub.max = String(Math.max(0, list.length - 1));
    scrub.value = String(ui.step < (list[0] ?? 0) ? 0 : pos);
    const strip = document.getElementById("phase-strip");
    strip.innerHTML = "";
    const curPhase = ui.step >= 0 && EV[ui.step] ? EV[ui.step].stage : null;
    for (const run of DATA.phases) {
      const inRun = list.filter((i) => i >= run.start && i <= run.end);
      if (!inRun.length) continue;
      const seg = el("div", "seg " + run.phase[0]);
      seg.style.flexGrow = String(inRun.length);
      seg.textContent = run.phase;
      seg.title = t(isNight(run.phase) ? "night" : "day", { n: run.phase.slice(1) });
      if (inRun[0] <= ui.step) seg.classList.add("past");
      if (run.phase === curPhase) seg.classList.add("here");
      for (const i of inRun) {
        const e = EV[i];
        if (e.type === "deaths_announced" && e.seats.length) {
          const dot = el("span", "death");
          dot.style.left = (100 * inRun.indexOf(i) / inRun.length) + "%";
          seg.appendChild(dot);
        }
      }
      seg.addEventListener("click", () => { stop(); ui.step = inRun[0]; render(); });
      strip.appendChild(seg);
    }
    const counter = document.getElementById("counter");
    counter.innerHTML = esc(t("step", { k: ui.step < (list[0] ?? 0) ? 0 : pos + 1, n: list.length })) +
      '<span class="keys">' + esc(t("keys")) + "</span>";
  }

  function lastIndexAtOrBefore(list, step) {
    let lo = 0, hi = list.length - 1, ans = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid] <= step) { ans = mid; lo = mid + 1; } else hi = mid - 1;
    }
    return ans;
  }

  // ---- navigation ----------------------------------------------------------------------------------
  function go(delta) {
    const list = steps();
    if (!list.length) return;
    const pos = lastIndexAtOrBefore(list, ui.step);
    let next;
    if (delta > 0) next = pos + 1 < list.length ? list[pos + 1] : list[list.length - 1];
    else next = pos - 1 >= 0 ? list[pos - 1] : list[0];
    if (delta > 0 && pos < 0) next = list[0];
    ui.step = next;
    render();
  }
  function delayFor(e) {
    const speed = Number(document.getElementById("speed").value) || 1;
    let ms = 900;
    if (!e) ms = 600;
    else if (e.type === "speech") ms = Math.min(7000, 1600 + 28 * e.text.length);
    else if (e.type === "ballot_cast" || e.type === "wolf_knife_vote") ms = 320;
    else if (e.type === "role_assigned" || e.type === "night_step") ms = 380;
    else if (e.type === "vote_result" || e.type === "deaths_announced" || e.type === "game_ended") ms = 1800;
    return ms / speed;
  }
  function tick() {
    const list = steps();
    const pos = lastIndexAtOrBefore(list, ui.step);
    if (pos >= list.length - 1) { stop(); render(); return; }
    ui.step = list[pos + 1];
    render();
    ui.timer = setTimeout(tick, delayFor(EV[ui.step]));
  }
  function play() {
    const list = steps();
    if (lastIndexAtOrBefore(list, ui.step) >= list.length - 1) ui.step = -1;  // replay from the start
    ui.playing = true;
    clearTimeout(ui.timer);
    ui.timer = setTimeout(tick, 250);
    render();
  }
  function stop() {
    ui.playing = false;
    clearTimeout(ui.timer);
    ui.timer = null;
  }

  // ---- URL hash --------------------------------------------------------------------------------------
  function readHash() {
    const params = new URLSearchParams(location.hash.replace(/^#/, ""));
    const view = params.get("view");
    if (view && DATA.views[view]) ui.view = view;
    const lang = params.get("lang");
    if (lang && DATA.labels[lang]) ui.lang = lang;
    const tab = params.get("tab");
    if (tab === "log" || tab === "minds") ui.tab = tab;
    const sel = Number(params.get("sel"));
    ui.selected = sel >= 1 && sel <= N ? sel : null;
    const step = params.get("step");
    const list = steps();
    if (step === "end") ui.step = EV.length - 1;
    else if (step !== null && step !== "" && !isNaN(Number(step))) ui.step = Math.max(-1, Math.min(EV.length - 1, Math.floor(Number(step))));
    else if (ui.lastRenderedStep === null) ui.step = list.length ? list[0] : -1;
    return params.get("play") === "1";
  }
  let writingHash = false;
  function writeHash() {
    const params = new URLSearchParams();
    params.set("step", String(ui.step));
    params.set("view", ui.view);
    params.set("lang", ui.lang);
    if (ui.tab !== "log") params.set("tab", ui.tab);
    if (ui.selected !== null) params.set("sel", String(ui.selected));
    const hash = "#" + params.toString().replace(/%3A/g, ":");
    if (location.hash === hash) return;
    try {
      history.replaceState(null, "", hash);
    } catch (err) {
      writingHash = true;
      location.hash = hash;
    }
  }

  function setTab(tab) {
    ui.tab = tab;
    document.getElementById("log").hidden = tab !== "log";
    document.getElementById("minds").hidden = tab !== "minds";
    for (const b of document.querySelectorAll(".tabs button")) b.classList.toggle("on", b.dataset.tab === tab);
  }

  // ---- wiring -----------------------------------------------------------------------------------------
  function init() {
    const autoplay = readHash();
    renderChrome();
    setTab(ui.tab);
    render();
    document.getElementById("view-select").addEventListener("change", (ev) => { ui.view = ev.target.value; ui.selected = null; render(); });
    for (const b of document.querySelectorAll(".lang-switch button")) {
      b.addEventListener("click", () => { ui.lang = b.dataset.lang; renderChrome(); render(); });
    }
    for (const b of document.querySelectorAll(".tabs button")) b.addEventListener("click", () => { setTab(b.dataset.tab); writeHash(); });
    document.getElementById("btn-first").addEventListener("click", () => { stop(); const l = steps(); ui.step = l.length ? l[0] : -1; render(); });
    document.getElementById("btn-last").addEventListener("click", () => { stop(); const l = steps(); ui.step = l.length ? l[l.length - 1] : -1; render(); });
    document.getElementById("btn-prev").addEventListener("click", () => { stop(); go(-1); });
    document.getElementById("btn-next").addEventListener("click", () => { stop(); go(1); });
    document.getElementById("btn-play").addEventListener("click", () => { if (ui.playing) { stop(); render(); } else play(); });
    document.getElementById("scrubber").addEventListener("input", (ev) => {
      stop();
      const l = steps();
      ui.step = l[Number(ev.target.value)] ?? ui.step;
      render();
    });
    document.addEventListener("keydown", (ev) => {
      if (ev.target && ["SELECT", "INPUT", "TEXTAREA"].includes(ev.target.tagName)) return;
      if (ev.key === "ArrowRight") { stop(); go(1); ev.preventDefault(); }
      else if (ev.key === "ArrowLeft") { stop(); go(-1); ev.preventDefault(); }
      else if (ev.key === " ") { if (ui.playing) { stop(); render(); } else play(); ev.preventDefault(); }
      else if (ev.key === "Home") { document.getElementById("btn-first").click(); }
      else if (ev.key === "End") { document.getElementById("btn-last").click(); }
    });
    window.addEventListener("hashchange", () => {
      if (writingHash) { writingHash = false; return; }
      stop();
      const again = readHash();
      renderChrome();
      setTab(ui.tab);
      render();
      if (again) play();
    });
    if (autoplay) play();
    // transitions and entrance animations start with the first step the viewer takes
    const animate = () => document.body.classList.add("animate");
    for (const type of ["keydown", "pointerdown"]) document.addEventListener(type, animate, { once: true });
    if (autoplay) animate();
  }

  // ---- the live table (arena serve) appends events to DATA as they happen -------------------------
  // It asks atEnd() before appending and refresh(follow) after: a viewer at the latest step follows
  // the game, one who stepped back stays where he is.
  const live = {
    data: DATA,
    afterRender: null,
    atEnd: function () { const l = steps(); return !l.length || ui.step >= l[l.length - 1]; },
    refresh: function (follow) {
      const l = steps();
      if (follow) ui.step = l.length ? l[l.length - 1] : -1;
      renderChrome();
      render();
    },
    setLang: function (lang) { if (DATA.labels[lang]) { ui.lang = lang; renderChrome(); render(); } },
    lang: function () { return ui.lang; },
  };
  window.ArenaViewer = live;

  init();
})();
