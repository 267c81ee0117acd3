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
    else if (key === "style") node.style.cssText = value; // CSSOM: allowed by the page's CSP, an attribute is not
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
    // a warning (a launch the judge could not judge, a calibration problem) stands out for the referee
    const attrs = e.kind === "warning" ? { "data-id": e.id || "", class: "warn" } : { "data-id": e.id || "" };
    log.prepend(el("li", attrs, `${e.kind === "warning" ? "⚠ " : ""}frame ${e.frame}: ${e.kind}${e.message && e.message !== e.kind ? ` — ${e.message}` : ""}`));
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
    if (v.launch) summary.append(el("p", {}, `Launching: ${v.launch.launcher_name} — ${v.launch.dinosaur || "no card"} (${v.launch.difficulty}), needs ${v.launch.min_bounces} table bounce${v.launch.min_bounces === 1 ? "" : "s"}, ocean level ${v.launch.ocean_level ?? "?"}`));
    const list = el("ul", { class: "foodlist" });
    for (const p of v.players) list.append(el("li", {}, `${p.name}: ${p.food} food, ${p.hatchling_count} hatchlings`));
    summary.append(list);
  };
  on("game", renderGame);
  // the banner while throws would not count (the game waits for a decision, or for the referee)
  const banner = document.getElementById("not-counting");
  const refreshBanner = async () => {
    const s = await (await fetch("/api/status")).json();
    banner.hidden = !s.throws_not_counting;
    document.getElementById("not-counting-reason").textContent = s.throws_not_counting || "";
  };
  on("game", refreshBanner);
  on("launch", refreshBanner);
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
// the moment a clip frame shows, named from the verdict's key frames (not the judge's live state)
function momentOf(keys, index) {
  const at = keys.find((k) => k.clip_index === index);
  if (at) return at.label;
  const before = keys.filter((k) => k.clip_index < index);
  const last = before[before.length - 1];
  if (!last) return keys.length ? "held" : "";
  return { hold: "held", release: "in flight", bounce: "in flight", box: "in the box", rest: "at rest" }[last.name];
}

function drawCross(ctx, [x, y], size, colour) {
  ctx.strokeStyle = colour; ctx.lineWidth = 3;
  ctx.beginPath(); ctx.moveTo(x - size, y); ctx.lineTo(x + size, y); ctx.moveTo(x, y - size); ctx.lineTo(x, y + size); ctx.stroke();
}

// the judge's marks over frame `index`: each appears at its own frame and stays
function drawMarks(ctx, info, index) {
  const marks = info.marks;
  if (!marks) return;
  const judged = info.first_frame + index;
  const release = info.key_frames.find((k) => k.name === "release");
  if (marks.release && release && judged >= release.frame) {
    ctx.setLineDash([6, 4]); ctx.strokeStyle = "#00e5ff"; ctx.lineWidth = 2;
    ctx.beginPath(); ctx.moveTo(...marks.release.meteor); ctx.lineTo(...marks.release.ground); ctx.stroke(); ctx.setLineDash([]);
    drawCross(ctx, marks.release.meteor, 10, "#ffffff");
    ctx.fillStyle = "#00e5ff"; ctx.beginPath(); ctx.arc(...marks.release.ground, 5, 0, 2 * Math.PI); ctx.fill();
  }
  marks.bounces.forEach((b, i) => {
    if (judged < b.frame) return;
    ctx.strokeStyle = "#ff40ff"; ctx.lineWidth = 3;
    ctx.beginPath(); ctx.arc(...b.px, 12, 0, 2 * Math.PI); ctx.stroke();
    ctx.font = "bold 18px sans-serif"; ctx.fillStyle = "#ff40ff"; ctx.fillText(String(i + 1), b.px[0] + 14, b.px[1] - 10);
  });
  const rest = info.key_frames.find((k) => k.name === "rest");
  if (marks.rest && rest && judged >= rest.frame) {
    const [x, y] = marks.rest;
    ctx.strokeStyle = "#4caf50"; ctx.lineWidth = 3;
    ctx.beginPath(); ctx.moveTo(x - 9, y - 9); ctx.lineTo(x + 9, y + 9); ctx.moveTo(x + 9, y - 9); ctx.lineTo(x - 9, y + 9); ctx.stroke();
  }
}

// the release, zoomed on the ground point and the nearest point of the herd line: the signed distance between them
function drawInset(inset, image, info) {
  const ctx = inset.getContext("2d");
  const marks = info.marks || {};
  const release = marks.release;
  const ground = release ? release.ground : [image.naturalWidth / 2, image.naturalHeight / 2];
  const foot = release && release.line_foot ? release.line_foot : ground;
  // the smallest zoom (at most 4×) holding the meteor, the ground point and the line's nearest point
  const points = release ? [release.meteor, ground, foot] : [ground];
  const xs = points.map((p) => p[0]), ys = points.map((p) => p[1]);
  const aspect = inset.height / inset.width;
  const span = Math.max(Math.max(...xs) - Math.min(...xs), (Math.max(...ys) - Math.min(...ys)) / aspect);
  const w = Math.min(image.naturalWidth, Math.max(inset.width / 4, span / 0.7)), h = w * aspect;
  const zoom = inset.width / w;
  const cx = (Math.max(...xs) + Math.min(...xs)) / 2, cy = (Math.max(...ys) + Math.min(...ys)) / 2;
  const sx = Math.max(0, Math.min(image.naturalWidth - w, cx - w / 2));
  const sy = Math.max(0, Math.min(image.naturalHeight - h, cy - h / 2));
  ctx.drawImage(image, sx, sy, w, h, 0, 0, inset.width, inset.height);
  const at = ([x, y]) => [(x - sx) * zoom, (y - sy) * zoom];
  if (release) {  // the signed distance (yellow), under the herd line
    ctx.setLineDash([6, 4]); ctx.lineWidth = 2; ctx.strokeStyle = "#ffeb3b";
    ctx.beginPath(); ctx.moveTo(...at(ground)); ctx.lineTo(...at(foot)); ctx.stroke(); ctx.setLineDash([]);
  }
  if (marks.herd_line) {  // through the foot of the distance, which lies on the line (the lens may bend it)
    ctx.strokeStyle = "#ff3030"; ctx.lineWidth = 3;
    ctx.beginPath(); ctx.moveTo(...at(marks.herd_line[0]));
    if (release && release.line_foot) ctx.lineTo(...at(release.line_foot));
    ctx.lineTo(...at(marks.herd_line[1])); ctx.stroke();
  }
  if (release) {
    ctx.setLineDash([6, 4]); ctx.lineWidth = 2; ctx.strokeStyle = "#00e5ff";
    ctx.beginPath(); ctx.moveTo(...at(release.meteor)); ctx.lineTo(...at(ground)); ctx.stroke(); ctx.setLineDash([]);
    drawCross(ctx, at(release.meteor), 12, "#ffffff");
    ctx.fillStyle = "#00e5ff"; ctx.beginPath(); ctx.arc(...at(ground), 6, 0, 2 * Math.PI); ctx.fill();
  }
  const words = document.getElementById("release-words").textContent.trim();
  ctx.font = "bold 18px sans-serif"; ctx.lineWidth = 4; ctx.strokeStyle = "#000"; ctx.fillStyle = "#ffeb3b";
  ctx.strokeText(words, 10, inset.height - 12); ctx.fillText(words, 10, inset.height - 12);
  Object.assign(inset.dataset, { sx, sy, zoom, drawn: "1" });
}

// "download WebM": the server makes it in the background; the page shows how far it has got
function webmButton() {
  const link = document.getElementById("webm");
  const status = document.getElementById("webm-progress");
  if (!link) return;
  link.addEventListener("click", async (event) => {
    event.preventDefault();
    if (link.dataset.busy) return;
    link.dataset.busy = "1";
    const bar = el("progress", { max: 1, value: 0 });
    const text = el("span", {}, " making the WebM…");
    status.replaceChildren(bar, text);
    try {
      for (;;) {
        const job = await (await fetch(link.dataset.progress, { credentials: "same-origin" })).json();
        if (job.state === "error" || job.error) throw new Error(job.error || "the WebM could not be made");
        bar.max = Math.max(1, job.total); bar.value = job.done;
        text.textContent = ` making the WebM: ${job.done} of ${job.total} frames`;
        if (job.state === "ready") break;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      const ready = el("a", { href: link.href, id: "webm-ready", download: `launch_${link.dataset.launch}.webm` }, "WebM ready: save it again");
      status.replaceChildren(ready);
      ready.click();  // a download, the page stays
    } catch (error) { status.textContent = ""; toast(error.message); }
    delete link.dataset.busy;
  });
}

async function launchPage() {
  webmButton();
  const player = document.getElementById("player");
  if (!player) return;
  const id = player.dataset.launch;
  const info = await (await fetch(`/api/launches/${id}/clip.json`)).json();
  const canvas = document.getElementById("replay");
  const ctx = canvas.getContext("2d");
  const seek = document.getElementById("seek");
  const label = document.getElementById("frame-no");
  const stateLabel = document.getElementById("state-label");
  const playButton = document.getElementById("play");
  const speed = document.getElementById("speed");
  const keys = info.key_frames || [];
  const images = [];
  let frame = 0, playing = false, timer = null;
  seek.max = info.frames - 1;
  const first = info.first_frame ?? 0;

  function load(n) {
    if (!images[n]) { images[n] = new Image(); images[n].src = info.frame_url.replace("{n}", n); }
    return images[n];
  }
  function draw() {
    const image = load(frame);
    const shown = frame;
    const paint = () => {
      if (shown !== frame) return;
      if (canvas.width !== image.naturalWidth && image.naturalWidth) { canvas.width = image.naturalWidth; canvas.height = image.naturalHeight; }
      ctx.drawImage(image, 0, 0, canvas.width, canvas.height);
      drawMarks(ctx, info, frame);
      canvas.dataset.frame = String(frame);
    };
    if (image.complete && image.naturalWidth) paint(); else image.onload = paint;
    seek.value = frame;
    const moment = momentOf(keys, frame);
    stateLabel.textContent = moment;
    stateLabel.dataset.moment = moment;
    label.textContent = `frame ${frame + 1}/${info.frames} (judge frame ${first + frame})`;
    for (const button of document.querySelectorAll("#keyframes button.key")) button.classList.toggle("on", Number(button.dataset.index) === frame);
    for (let k = 1; k <= 6; k++) if (frame + k < info.frames) load(frame + k);
  }
  function go(n) { frame = Math.max(0, Math.min(info.frames - 1, n)); draw(); }
  function step(delta) { go(frame + delta); }
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
  seek.oninput = () => { pause(); go(parseInt(seek.value, 10)); };
  for (const button of document.querySelectorAll("#keyframes button.key")) {
    button.onclick = () => { pause(); go(Number(button.dataset.index)); };
  }
  document.addEventListener("keydown", (e) => {
    if (["INPUT", "SELECT", "TEXTAREA"].includes(e.target.tagName)) return;
    if (e.key === "ArrowLeft") { pause(); step(-1); }
    if (e.key === "ArrowRight") { pause(); step(1); }
    if (e.key === " ") { e.preventDefault(); playing ? pause() : play(); }
  });
  // key frames marked on the slider
  const list = el("datalist", { id: "marks" });
  for (const k of keys) list.append(el("option", { value: k.clip_index, label: k.label }));
  seek.parentElement.append(list); seek.setAttribute("list", "marks");
  // the zoom on the release
  const inset = document.getElementById("inset");
  const release = keys.find((k) => k.name === "release");
  if (inset && release) {
    const image = load(release.clip_index);
    if (image.complete && image.naturalWidth) drawInset(inset, image, info);
    else image.addEventListener("load", () => drawInset(inset, image, info), { once: true });
  }
  // start at the release
  go(release ? release.clip_index : 0);
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
