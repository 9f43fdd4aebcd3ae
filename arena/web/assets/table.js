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

  const state = { ws: null, ask: null, sending: false, ended: false, dead: false, retry: 0, timer: null,
    deadline: null, ttsFrom: null, role: null, message: null, status: null, lang: null };

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
        state.message = msg.why === "timeout" ? ["timed_out"] : msg.why === "absent" ? ["absent"] : null;
        renderAsk();
        break;
      case "refused":
        state.sending = false;
        state.message = ["refused", { error: msg.error }, true];
        renderAsk();
        break;
      case "status": setStatus(msg.status); break;
      case "result":
        state.ended = true; state.ask = null;
        if (msg.result) { D.result = msg.result; D.meta.seed = msg.result.seed; }
        setStatus(msg.status);
        V.refresh(true);
        renderAsk();
        break;
      case "error":
        state.ended = true;
        state.message = ["refused", { error: msg.error }, true];
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
      q.textContent = w.your_turn + " · " + (ask.question[V.lang()] || ask.question.en);
      controls(ask, box, w);
      if (state.sending) for (const el of box.querySelectorAll("button, textarea, select")) el.disabled = true;
    } else if (LIVE.seat && !state.ended) {
      q.textContent = state.dead ? w.you_died : w.waiting_turn;
    } else if (state.ended) {
      q.textContent = w.game_over;
    }
    msg.className = "sp-message" + (state.message && state.message[2] ? " error" : "");
    msg.dataset.kind = state.message ? state.message[0] : "";
    msg.textContent = state.message ? fmt(w[state.message[0]], state.message[1] || {}) : "";
    tickTimer();
  }

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
        const bubble = document.createElement("div");
        bubble.className = "bubble";
        bubble.textContent = e.text.length > 160 ? e.text.slice(0, 157) + "…" : e.text;
        seat.appendChild(bubble);
      }
    }
    markPickable();  // the replay page drew the seats anew
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
