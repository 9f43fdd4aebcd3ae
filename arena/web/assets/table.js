/* The live table of `arena serve`, on top of the replay page (window.ArenaViewer).
 *
 * The server sends this page only the events its view may show (a seat's, the public's, or the god
 * view on tables without human players), already numbered for this connection; the page appends
 * them to the replay page's data and follows the game. A seat's page also gets the question its
 * seat must answer, with the legal choices, and answers it by the question's id. Every text from
 * the game (speeches above all) is put on the page with textContent, never as HTML.
 */
(function () {
  "use strict";
  const V = window.ArenaViewer;
  const D = V.data;
  const LIVE = D.live;
  const VIEW = D.views[LIVE.view];
  const token = LIVE.seat ? decodeURIComponent(location.pathname.split("/").pop()) : null;
  const $ = (id) => document.getElementById(id);
  document.body.classList.add("live", LIVE.seat ? "live-seat" : "live-watch");

  const state = { ws: null, ask: null, sending: false, ended: false, dead: false, retry: 0, timer: null,
    deadline: null, ttsFrom: null, role: null, message: null, status: null, lang: null,
    standing: null, card: null, cardShown: false, result: null, againError: null };

  function W() { return D.labels[V.lang()].web; }
  function fmt(template, fields) { return String(template).replace(/\{(\w+)\}/g, (m, k) => (k in fields ? fields[k] : m)); }
  function seatName(seat) { return fmt(D.labels[V.lang()].seat_fmt, { seat: seat }); }
  function button(text, cls, onClick) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = text;
    if (cls) b.className = cls;
    b.addEventListener("click", onClick);
    return b;
  }

  // ---- the socket ------------------------------------------------------------------------------
  function connect() {
    let query = "";
    if (token) query = "?token=" + encodeURIComponent(token);
    else if (LIVE.view === "public") query = "?view=public";
    const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws/" + LIVE.table + query);
    state.ws = ws;
    ws.onmessage = (m) => handle(JSON.parse(m.data));
    ws.onopen = () => { state.retry = 0; };
    ws.onclose = () => {
      if (state.ws !== ws || state.ended) return;
      setStatus("reconnecting");
      state.retry = Math.min(state.retry + 1, 6);
      setTimeout(connect, 300 * state.retry);
    };
  }

  function send(value) {
    if (!state.ask || !state.ws || state.ws.readyState !== 1) return;
    state.sending = true;
    state.message = null;
    state.ws.send(JSON.stringify({ type: "answer", rid: state.ask.rid, value: value }));
    $("sp-card").open = false;  // the card was read: it folds away (its title reopens it)
    renderAsk();
  }

  function handle(msg) {
    switch (msg.type) {
      case "hello":
        // the server sends the whole stream again: start from a clean table
        D.events.length = 0; VIEW.events.length = 0; D.phases.length = 0; D.result = null;
        state.ask = null; state.sending = false; state.dead = false; state.role = null;
        setStatus(msg.status, msg.waiting_for);
        renderAsk();
        break;
      case "events": receive(msg.events); break;
      case "ask":
        // a refusal belonged to the last question; a "time is up" notice stays until the player acts
        state.ask = msg; state.sending = false;
        if (state.message && state.message[2]) state.message = null;
        state.deadline = msg.remaining === null ? null : performance.now() + msg.remaining * 1000;
        renderAsk();
        break;
      case "settled":
        if (state.ask && state.ask.rid === msg.rid) state.ask = null;
        state.sending = false;
        // a default applied: say which answer it was
        state.message = msg.why === "timeout" || msg.why === "absent" ? [msg.why === "timeout" ? "timed_out" : "absent", { value: msg.value }] : null;
        renderAsk();
        break;
      case "standing":
        state.standing = msg.self_destruct;
        if (msg.card && !state.card) state.cardShown = false;  // a new card opens once
        state.card = msg.card;
        renderAsk();
        break;
      case "refused":
        state.sending = false;
        if (msg.error === "unknown message") break;
        state.message = ["refused", { error: localError(msg) }, true];
        renderAsk();
        break;
      case "status": setStatus(msg.status); break;
      case "result":
        state.ended = true; state.ask = null;
        if (msg.result) { D.result = msg.result; D.meta.seed = msg.result.seed; state.result = msg.result; }
        setStatus(msg.status);
        V.refresh(true);
        renderAsk();
        break;
      case "error":
        state.ended = true;
        state.message = ["refused", { error: localError(msg) }, true];
        renderAsk();
        break;
    }
  }

  function receive(events) {
    const follow = V.atEnd();
    for (const e of events) {
      D.events.push(e);
      VIEW.events.push(e.seq);
      if (LIVE.seat && e.type === "role_assigned" && e.seat === LIVE.seat) state.role = e.role;
      const last = D.phases[D.phases.length - 1];
      if (last && last.phase === e.stage) last.end = e.seq;
      else D.phases.push({ phase: e.stage, start: e.seq, end: e.seq });
    }
    V.refresh(follow);
    readAloud(events);
  }

  // ---- speech read aloud (the browser's own synthesis) ------------------------------------------------
  function readAloud(events) {
    if (!events.length) return;
    const from = state.ttsFrom;
    state.ttsFrom = events[events.length - 1].seq + 1;
    if (from === null || !$("sp-tts").checked || !("speechSynthesis" in window)) return;  // never the backlog
    for (const e of events) {
      if (e.type !== "speech" || e.seq < from) continue;
      const u = new SpeechSynthesisUtterance(seatName(e.seat) + ": " + e.text);
      u.lang = V.lang() === "zh" ? "zh-CN" : "en-US";
      window.speechSynthesis.speak(u);
    }
  }

  // ---- the panel ------------------------------------------------------------------------------------
  function setStatus(status, waiting) {
    state.status = [status, waiting || []];
    renderHead();
  }

  function renderHead() {
    const w = W();
    let who = LIVE.seat ? fmt(w.your_seat, { seat: LIVE.seat }) : w.spectating;
    if (state.role) who += " · " + ((D.labels[V.lang()].role || {})[state.role] || state.role);
    $("sp-who").textContent = who;
    let text = "";
    if (state.status) {
      const [status, waiting] = state.status;
      text = status === "reconnecting" ? w.reconnecting : (w.status[status] || status);
      if (status === "waiting" && waiting.length) text += " · " + fmt(w.waiting_for, { seats: waiting.join(w.list_sep || ", ") });
    } else text = w.connecting;
    $("sp-status").textContent = text;
    $("sp-tts-label").textContent = w.read_aloud;
  }

  function renderAsk() {
    const w = W();
    markPickable();
    renderHead();
    const panel = $("seat-panel");
    const q = $("sp-question"), box = $("sp-controls"), msg = $("sp-message");
    box.textContent = "";
    q.textContent = "";
    const ask = state.ask;
    panel.dataset.state = ask ? "ask" : (state.ended ? "ended" : "idle");
    panel.dataset.rid = ask ? ask.rid : "";
    panel.dataset.kind = ask ? ask.kind : "";
    if (ask) {
      const asked = ask.question[V.lang()] || ask.question.en;
      // "your turn to speak" says it already
      q.textContent = ask.legal.type === "text" ? asked : w.your_turn + " · " + asked;
      controls(ask, box, w);
      if (state.sending) for (const el of box.querySelectorAll("button, textarea, select")) el.disabled = true;
    } else if (LIVE.seat && !state.ended) {
      q.textContent = state.dead ? w.you_died : w.waiting_turn;
    } else if (state.ended) {
      q.textContent = w.game_over;
    }
    msg.className = "sp-message" + (state.message && state.message[2] ? " error" : "");
    msg.dataset.kind = state.message ? state.message[0] : "";
    let said = state.message ? fmt(w[state.message[0]], state.message[1] || {}) : "";
    if (state.message && state.message[1] && "value" in state.message[1]) {
      said += " " + fmt(w.default_was, { value: valueText(state.message[1].value, w) });
    }
    msg.textContent = said;
    if (ask && ask.seconds !== null) {  // the answer the countdown gives when it runs out
      const d = document.createElement("span");
      d.className = "sp-default";
      d.textContent = " (" + fmt(w.default_was, { value: valueText(ask.default, w) }) + ")";
      q.appendChild(d);
    }
    renderBoom(w);
    renderPicks(w);
    renderEnd(w);
    renderCard(w);
    tickTimer();
  }

  // ---- the standing self-destruct (R66-R67): a button by day, never a question ----------------------
  function renderBoom(w) {
    const b = $("sp-boom");
    const sd = state.standing;
    const show = !!(LIVE.seat && sd && sd.eligible && sd.day && !state.dead && !state.ended);
    b.hidden = !show;
    if (!show) return;
    b.classList.toggle("armed", !!sd.armed);
    b.textContent = sd.armed ? w.self_destruct_armed : w.self_destruct;
  }

  function selfDestruct(armed) {
    if (!state.ws || state.ws.readyState !== 1) return;
    state.ws.send(JSON.stringify({ type: "self_destruct", armed: armed }));
  }

  $("sp-boom").addEventListener("click", () => {
    const sd = state.standing || {};
    // at the seat's own speech it acts at once; otherwise it arms (or disarms) the next speech's offer
    selfDestruct(state.ask && state.ask.self_destruct ? true : !sd.armed);
  });

  // ---- the wolves' conferral: teammates' current picks on the seats, and the knife's rule --------------
  const WOLF_KINDS = ["wolf_propose", "wolf_kill", "wolf_veto", "wolf_message"];
  function teamPicks() {
    if (!state.ask || !WOLF_KINDS.includes(state.ask.kind)) return null;
    const picks = new Map();
    for (const e of D.events) {
      if (e.stage !== state.ask.phase || e.seat === LIVE.seat) continue;
      if (e.type === "wolf_proposal" || e.type === "wolf_knife_vote") picks.set(e.seat, e.target);
    }
    return picks;
  }

  function renderPicks(w) {
    const el = $("sp-picks");
    for (const node of document.querySelectorAll("#seats .pick-badge")) node.remove();
    const picks = teamPicks();
    el.hidden = picks === null;
    if (picks === null) return;
    const items = [];
    const byTarget = new Map();
    for (const [seat, target] of picks) {
      items.push(fmt(w.pick_item, { seat: seatName(seat), target: target === null ? w.no_kill : seatName(target) }));
      if (target !== null) byTarget.set(target, (byTarget.get(target) || []).concat([seat]));
    }
    el.textContent = (items.length ? fmt(w.teammates_picks, { picks: items.join(w.list_sep || ", ") }) + " · " : "") + w.knife_rule;
    for (const [target, seats] of byTarget) {
      const node = document.querySelector('#seats .seat[data-seat="' + target + '"]');
      if (!node) continue;
      const badge = document.createElement("span");
      badge.className = "pick-badge";
      badge.textContent = fmt(W().pick_badge, { seats: seats.join("·") });
      node.appendChild(badge);
    }
  }

  // ---- the role card, once it is dealt --------------------------------------------------------------
  function renderCard(w) {
    const box = $("sp-card");
    const card = state.card && (state.card[V.lang()] || state.card.en);
    box.hidden = !card || state.ended;
    if (!card) return;
    $("sp-card-title").textContent = w.role_card;
    $("sp-card-text").textContent = card;
    if (!state.cardShown) { box.open = true; state.cardShown = true; }
  }

  // ---- the end: won or lost, the replay, and the next game ------------------------------------------
  function renderEnd(w) {
    const box = $("sp-end");
    const r = state.result;
    box.hidden = !r;
    if (!r) return;
    box.textContent = "";
    if (LIVE.seat && r.camps) {
      const verdict = document.createElement("div");
      const camp = r.camps[String(LIVE.seat)];
      const won = r.winner === "draw" ? null : camp === r.winner;
      verdict.className = "sp-verdict " + (won === null ? "draw" : won ? "won" : "lost");
      verdict.textContent = won === null ? w.draw : won ? w.you_won : w.you_lost;
      box.appendChild(verdict);
    }
    const name = String(r.transcript || "").replace(/\.jsonl$/, "");
    const links = document.createElement("div");
    links.className = "sp-links";
    for (const [text, href] of [[w.replay_link, "/games/" + name + ".html"], [w.transcript_link, "/games/" + name + ".jsonl"]]) {
      const a = document.createElement("a");
      a.href = href; a.textContent = text; a.target = "_blank"; a.rel = "noopener";
      links.appendChild(a);
    }
    if (LIVE.again) links.appendChild(button(w.play_again, "primary again", playAgain));
    box.appendChild(links);
    if (state.againError) {
      const e = document.createElement("div");
      e.className = "sp-message error";
      e.textContent = state.againError;
      box.appendChild(e);
    }
  }

  function playAgain() {
    fetch("/api/tables", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(LIVE.again) })
      .then((r) => r.json().then((body) => [r.ok, body]))
      .then(([ok, body]) => {
        if (!ok) throw new Error(localError(body));
        location.href = (LIVE.seat && body.seats[String(LIVE.seat)]) || body.spectator;
      })
      .catch((err) => { state.againError = fmt(W().refused, { error: err.message }); renderAsk(); });
  }

  function localError(body) { return (body.error_text && body.error_text[V.lang()]) || body.error || "?"; }

  // a seat question: the legal seats on the table can be clicked too
  function markPickable() {
    for (const node of document.querySelectorAll("#seats .seat.pickable")) node.classList.remove("pickable");
    if (!state.ask || state.ask.legal.type !== "seat" || state.sending) return;
    for (const s of state.ask.legal.options) {
      const node = document.querySelector('#seats .seat[data-seat="' + s + '"]');
      if (node) node.classList.add("pickable");
    }
  }

  function valueText(value, w) {
    if (value === true) return w.answer_yes;
    if (value === false) return w.answer_no;
    if (value === null) return D.labels[V.lang()].none_choice || "—";
    if (value === "pass") return w.pass;
    if (typeof value === "number") return seatName(value);
    return String(value);
  }

  function controls(ask, box, w) {
    const legal = ask.legal;
    const skipText = fmt(w.skip, { meaning: ask.skip[V.lang()] || ask.skip.en });
    if (legal.type === "seat") {
      for (const s of legal.options) box.appendChild(button(seatName(s), "choice", () => send(s)));
      if (legal.allow_none) box.appendChild(button(skipText, "skip", () => send(null)));
    } else if (legal.type === "bool") {
      box.appendChild(button(w.answer_yes, "choice", () => send(true)));
      box.appendChild(button(w.answer_no, "choice", () => send(false)));
    } else if (legal.type === "option") {
      for (const o of legal.options) box.appendChild(button(valueText(o, w), "choice", () => send(o)));
    } else if (legal.type === "seats") {
      const chosen = new Set();
      const count = legal.min_count === legal.max_count ? String(legal.min_count) : legal.min_count + "-" + legal.max_count;
      const go = button(fmt(w.choose_n, { count: count }), "primary", () => send([...chosen]));
      const update = () => { go.disabled = chosen.size < legal.min_count || chosen.size > legal.max_count; };
      for (const s of legal.options) {
        const b = button(seatName(s), "choice", () => {
          if (chosen.has(s)) chosen.delete(s); else chosen.add(s);
          b.classList.toggle("on", chosen.has(s));
          update();
        });
        box.appendChild(b);
      }
      box.appendChild(go);
      update();
      if (legal.allow_none) box.appendChild(button(skipText, "skip", () => send(null)));
    } else if (legal.type === "speech_order") {
      const label = document.createElement("span");
      label.textContent = w["first_speaker_" + legal.starts_from] || w.first_speaker;
      const select = document.createElement("select");
      for (const s of legal.starts) {
        const o = document.createElement("option");
        o.value = String(s); o.textContent = seatName(s);
        select.appendChild(o);
      }
      box.appendChild(label); box.appendChild(select);
      for (const dir of legal.directions) {
        box.appendChild(button(w[dir] || dir, "choice", () => send({ start: Number(select.value), direction: dir })));
      }
    } else if (legal.type === "text") {
      const area = document.createElement("textarea");
      area.maxLength = legal.max_chars;
      area.id = "sp-speech";
      const count = document.createElement("span");
      count.className = "count";
      const recount = () => { count.textContent = area.value.length + " / " + legal.max_chars; };
      area.addEventListener("input", recount);
      recount();
      box.appendChild(area);
      box.appendChild(button(w.send, "primary", () => send(area.value)));
      box.appendChild(button(w.pass, "skip", () => send(ask.optional ? "" : "pass")));
      if (ask.self_destruct) box.appendChild(button(w.self_destruct_instead, "boom", () => selfDestruct(true)));
      box.appendChild(count);
      setTimeout(() => area.focus(), 0);
    }
  }

  function tickTimer() {
    const el = $("sp-timer");
    clearTimeout(state.timer);
    if (!state.ask || state.deadline === null) { el.hidden = true; return; }
    const left = Math.max(0, Math.ceil((state.deadline - performance.now()) / 1000));
    el.hidden = false;
    el.textContent = fmt(W().time_left, { n: left });
    el.classList.toggle("low", left <= 5);
    state.timer = setTimeout(tickTimer, 250);
  }

  // ---- speech bubbles at the seats, and the panel's language with the page's -----------------------------
  V.afterRender = (st) => {
    const e = st.current;
    if (e && e.type === "speech") {
      const seat = document.querySelector('#seats .seat[data-seat="' + e.seat + '"]');
      if (seat) {
        // a short bubble that points into the table, where no other seat sits (the centre shows the whole speech)
        const bubble = document.createElement("div");
        const left = parseFloat(seat.style.left), top = parseFloat(seat.style.top);
        bubble.className = "bubble " + (top < 40 ? "below" : "above") + (left < 25 ? " to-right" : left > 75 ? " to-left" : "");
        bubble.textContent = e.text.length > 48 ? e.text.slice(0, 46) + "…" : e.text;
        seat.appendChild(bubble);
      }
    }
    markPickable();  // the replay page drew the seats anew
    renderPicks(W());
    // a player who is out keeps watching from the seat (the table's fold says who is out)
    const dead = !!LIVE.seat && V.atEnd() && st.dead.has(LIVE.seat);
    if (state.lang !== V.lang() || (dead && !state.dead)) {
      state.lang = V.lang();
      state.dead = state.dead || dead;
      renderAsk();
    }
  };

  // clicks on a pickable seat answer the question (caught before the replay page's own seat clicks)
  $("seats").addEventListener("click", (ev) => {
    const node = ev.target.closest && ev.target.closest(".seat.pickable");
    if (!node || !state.ask || state.ask.legal.type !== "seat") return;
    ev.stopPropagation();
    send(Number(node.dataset.seat));
  }, true);

  const tts = $("sp-tts");
  tts.checked = localStorage.getItem("arena.tts") === "1";
  tts.addEventListener("change", () => {
    localStorage.setItem("arena.tts", tts.checked ? "1" : "0");
    if (!tts.checked && "speechSynthesis" in window) window.speechSynthesis.cancel();
  });
  state.lang = V.lang();
  renderAsk();
  connect();
})();
