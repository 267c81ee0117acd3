// Meteors Judge dashboard: live updates (Server-Sent Events), the Dispute button, the replay player
// and the calibration clicks. No framework; every page works without it, this only adds liveliness.
"use strict";

const CSRF = document.querySelector('meta[name="csrf-token"]').content;
const PAGE = document.body.dataset.page;

async function api(method, url, body) {
  const response = await fetch(url, {
    method,
    headers: { "Content-Type": "application/json", "X-CSRF-Token": CSRF },
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "same-origin",
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return node;
}

function toast(message, kind = "error") {
  const box = el("div", { class: `flash ${kind}` }, message);
  document.querySelector("main").prepend(box);
  setTimeout(() => box.remove(), 6000);
}

// ---------------------------------------------------------------- live updates
const handlers = {};
function on(kind, fn) { (handlers[kind] = handlers[kind] || []).push(fn); }

function connect() {
  const dot = document.getElementById("conn");
  const after = document.body.dataset.eventsAfter;
  const source = new EventSource(after ? `/api/events?after=${after}` : "/api/events");
  source.onopen = () => dot && dot.classList.add("ok");
  source.onerror = () => dot && dot.classList.remove("ok");
  for (const kind of ["status", "judge", "verdict", "launch", "clip", "game", "dispute", "warning"]) {
    source.addEventListener(kind, (event) => {
      const data = JSON.parse(event.data);
      data.id = data.id ?? Number(event.lastEventId);
      for (const fn of handlers[kind] || []) fn(data);
    });
  }
}

// ---------------------------------------------------------------- verdict card (Live page)
// the card is rendered by the server (one template for every page); this swaps the newest one in
async function showVerdictCard(slot, launchId) {
  const response = await fetch(`/launches/${launchId}/card`, { credentials: "same-origin" });
  if (!response.ok) return;
  const holder = document.createElement("div");
  holder.innerHTML = await response.text();
  slot.replaceChildren(...holder.children);
}

document.addEventListener("click", async (event) => {
  const button = event.target.closest("button.dispute");
  if (!button) return;
  const id = button.dataset.launch;
  const reason = window.prompt("Why is this call disputed?", "disputed at the table");
  if (reason === null) return;
  try {
    await api("POST", `/api/launches/${id}/dispute`, { reason: reason.length >= 3 ? reason : "disputed at the table", who: "referee" });
    window.location.href = `/launches/${id}`;
  } catch (error) { toast(error.message); }
});

function livePage() {
  const state = document.getElementById("judge-state");
  const message = document.getElementById("camera-message");
  const log = document.getElementById("judge-log");
  const slot = document.getElementById("verdict-slot");
  on("status", (s) => {
    state.textContent = s.state.replaceAll("_", " ");
    state.dataset.state = s.state;
    message.textContent = s.message + (s.reconnect_in ? ` (reconnecting in ${s.reconnect_in} s)` : "");
    message.className = s.connected ? "" : "warn";
  });
  // the judge's events: the remembered ones came with the page, the stream sends only later ones
  let lastShown = 0;
  const logEvent = (e) => {
    if (e.id && e.id <= lastShown) return;
    lastShown = e.id || lastShown;
    const empty = document.getElementById("judge-log-empty");
    if (empty) empty.remove();
    log.prepend(el("li", { "data-id": e.id || "" }, `frame ${e.frame}: ${e.kind}${e.message && e.message !== e.kind ? ` — ${e.message}` : ""}`));
    while (log.children.length > 40) log.lastChild.remove();
  };
  for (const e of JSON.parse(document.getElementById("judge-history").textContent)) logEvent(e);
  on("judge", (e) => {
    if (e.kind === "state") state.textContent = e.message.replaceAll("_", " ");
    logEvent(e);
  });
  const show = (launch) => showVerdictCard(slot, launch.id);
  on("verdict", show);
  on("launch", (launch) => {
    const current = document.getElementById("verdict-card");
    if (current && String(current.dataset.launch) === String(launch.id)) show(launch);
  });
  on("warning", (w) => toast(w.message));
  const summary = document.getElementById("game-summary");
  const renderGame = (g) => {
    if (!g.view) return;
    const v = g.view;
    summary.replaceChildren(el("h3", {}, `Game #${g.game_id} · era ${v.era}, turn ${v.turn} · ${v.phase.replaceAll("_", " ")}`));
    if (v.launch) summary.append(el("p", {}, `Launching: ${v.launch.launcher_name} — ${v.launch.dinosaur || "no card"} (${v.launch.difficulty}), needs ${v.launch.min_bounces} bounce(s), ocean level ${v.launch.ocean_level ?? "?"}`));
    const list = el("ul", { class: "foodlist" });
    for (const p of v.players) list.append(el("li", {}, `${p.name}: ${p.food} food, ${p.hatchling_count} hatchlings`));
    summary.append(list);
  };
  on("game", renderGame);
  fetch("/api/status").then((r) => r.json()).then(async (s) => {
    if (s.live) { state.textContent = s.live.state.replaceAll("_", " "); message.textContent = s.live.message; }
    if (s.active_game) {
      const g = await (await fetch(`/api/games/${s.active_game}`)).json();
      renderGame({ game_id: s.active_game, view: g.view });
    }
  });
}

// ---------------------------------------------------------------- game page: reload on change
function gamePage() {
  const bar = document.getElementById("gamebar");
  const id = bar && bar.dataset.game;
  let timer = null;
  on("game", (g) => {
    if (String(g.game_id) !== String(id)) return;
    if (document.activeElement && ["INPUT", "SELECT"].includes(document.activeElement.tagName)) return;
    clearTimeout(timer);
    timer = setTimeout(() => window.location.reload(), 400);
  });
}

// ---------------------------------------------------------------- replay player
async function launchPage() {
  const player = document.getElementById("player");
  if (!player) return;
  const id = player.dataset.launch;
  const info = await (await fetch(`/api/launches/${id}/clip.json`)).json();
  const canvas = document.getElementById("replay");
  const ctx = canvas.getContext("2d");
  const seek = document.getElementById("seek");
  const label = document.getElementById("frame-no");
  const playButton = document.getElementById("play");
  const speed = document.getElementById("speed");
  const images = [];
  let frame = 0, playing = false, timer = null;
  seek.max = info.frames - 1;
  const first = info.first_frame ?? 0;
  const marks = { release: info.release_frame, rest: info.rest_frame, bounces: info.bounce_frames || [] };

  function load(n) {
    if (!images[n]) { images[n] = new Image(); images[n].src = info.frame_url.replace("{n}", n); }
    return images[n];
  }
  function draw() {
    const image = load(frame);
    const paint = () => {
      if (canvas.width !== image.naturalWidth && image.naturalWidth) { canvas.width = image.naturalWidth; canvas.height = image.naturalHeight; }
      ctx.drawImage(image, 0, 0, canvas.width, canvas.height);
      const judged = first + frame;
      let tag = "";
      if (judged === marks.release) tag = "▲ release";
      if (marks.bounces.includes(judged)) tag = "● bounce";
      if (judged === marks.rest) tag = "■ rest";
      if (tag) { ctx.font = "bold 28px sans-serif"; ctx.fillStyle = "#ffeb3b"; ctx.fillText(tag, 20, canvas.height - 24); }
    };
    if (image.complete) paint(); else image.onload = paint;
    seek.value = frame;
    label.textContent = `frame ${frame + 1}/${info.frames} (judge frame ${first + frame})`;
    for (let k = 1; k <= 6; k++) if (frame + k < info.frames) load(frame + k);
  }
  function step(delta) { frame = Math.max(0, Math.min(info.frames - 1, frame + delta)); draw(); }
  function tick() {
    if (!playing) return;
    if (frame >= info.frames - 1) { pause(); return; }
    step(1);
    timer = setTimeout(tick, 1000 / (info.fps * parseFloat(speed.value)));
  }
  function play() { playing = true; playButton.textContent = "❚❚ Pause"; if (frame >= info.frames - 1) frame = 0; tick(); }
  function pause() { playing = false; clearTimeout(timer); playButton.textContent = "▶ Play"; }
  playButton.onclick = () => (playing ? pause() : play());
  document.getElementById("prev").onclick = () => { pause(); step(-1); };
  document.getElementById("next").onclick = () => { pause(); step(1); };
  seek.oninput = () => { pause(); frame = parseInt(seek.value, 10); draw(); };
  document.addEventListener("keydown", (e) => {
    if (["INPUT", "SELECT", "TEXTAREA"].includes(e.target.tagName)) return;
    if (e.key === "ArrowLeft") { pause(); step(-1); }
    if (e.key === "ArrowRight") { pause(); step(1); }
    if (e.key === " ") { e.preventDefault(); playing ? pause() : play(); }
  });
  // marks on the slider
  const wrap = seek.parentElement;
  const list = el("datalist", { id: "marks" });
  for (const f of [marks.release, ...marks.bounces, marks.rest]) if (f != null) list.append(el("option", { value: f - first }));
  wrap.append(list); seek.setAttribute("list", "marks");
  // start near the release
  frame = marks.release != null ? Math.max(0, Math.min(info.frames - 1, marks.release - first)) : 0;
  draw();
}

// ---------------------------------------------------------------- calibration
function calibrationPage() {
  const figures = document.getElementById("cal-figures");
  const image = document.getElementById("calframe");
  const hint = document.getElementById("cal-hint");
  const render = (info) => {
    const f = info.figures || {};
    const q = f.quality || {};
    const rows = [
      ["Calibrated", info.calibrated ? "yes" : "no"],
      ["Markers seen", (f.markers_seen || []).join(", ") || "—"],
      ["Markers missing", (f.markers_missing || []).join(", ") || "none"],
      ["Reprojection (median / max)", q.reprojection_median_px != null ? `${q.reprojection_median_px.toFixed(2)} / ${q.reprojection_max_px.toFixed(2)} px` : "—"],
      ["Table error (median)", q.table_error_median_mm != null ? `${q.table_error_median_mm.toFixed(2)} mm` : "—"],
      ["Herd line", info.herd_line_mm ? `${info.herd_line_mm.map((p) => `(${p[0].toFixed(0)}, ${p[1].toFixed(0)})`).join(" – ")} mm${info.herd_line_source ? ` from ${info.herd_line_source}` : ""}` : "not set"],
      ["Meteor colour", info.meteor_rgb ? `rgb(${info.meteor_rgb.join(", ")})` : "not learnt"],
    ];
    const table = el("table", { class: "list" });
    for (const [k, v] of rows) table.append(el("tr", {}, el("th", {}, k), el("td", {}, v)));
    if (info.meteor_rgb) table.append(el("tr", {}, el("th", {}, ""), el("td", {}, el("span", { class: "swatch", style: `background: rgb(${info.meteor_rgb.join(",")})` }))));
    const verdict = info.verdict || { good: false, text: "calibration unknown" };
    figures.replaceChildren(el("p", { id: "cal-verdict", class: verdict.good ? "verdict-good" : "verdict-bad" },
      verdict.good ? "✔ " : "✘ ", verdict.text.charAt(0).toUpperCase() + verdict.text.slice(1)), table);
    for (const w of info.warnings || []) figures.append(el("p", { class: "warn" }, "⚠ " + w));
  };
  render(JSON.parse(document.getElementById("cal-initial").textContent));
  if (!image) return;
  let mode = null, points = [];
  const refresh = () => { image.src = `/api/calibration/frame.jpg?t=${Date.now()}`; };
  document.getElementById("refresh").onclick = refresh;
  document.getElementById("mode-herd").onclick = () => { mode = "herd"; points = []; hint.textContent = "click the first point of the herd line"; };
  document.getElementById("mode-meteor").onclick = () => { mode = "meteor"; hint.textContent = "click the meteor"; };
  document.getElementById("recalibrate").onclick = async () => {
    try { render(await api("POST", "/api/calibration/solve")); refresh(); } catch (error) { toast(error.message); }
  };
  image.addEventListener("click", async (event) => {
    const rect = image.getBoundingClientRect();
    const x = (event.clientX - rect.left) * image.naturalWidth / rect.width;
    const y = (event.clientY - rect.top) * image.naturalHeight / rect.height;
    try {
      if (mode === "herd") {
        points.push([x, y]);
        if (points.length === 1) { hint.textContent = "now the second point"; return; }
        render(await api("POST", "/api/calibration/herd-line", { points_px: points }));
        hint.textContent = "herd line set"; mode = null; refresh();
      } else if (mode === "meteor") {
        render(await api("POST", "/api/calibration/meteor", { x, y }));
        hint.textContent = "meteor colour learnt"; mode = null;
      }
    } catch (error) { toast(error.message); mode = null; hint.textContent = ""; }
  });
  setInterval(() => { if (!mode) refresh(); }, 5000);
}

// times are stored in UTC; show them in the browser's own time
for (const node of document.querySelectorAll("time[datetime]")) {
  const date = new Date(node.getAttribute("datetime"));
  if (!Number.isNaN(date.getTime())) node.textContent = date.toLocaleTimeString();
}

connect();
if (PAGE === "live") livePage();
if (PAGE === "game") gamePage();
if (PAGE === "launch") launchPage();
if (PAGE === "calibration") calibrationPage();
