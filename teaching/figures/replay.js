"use strict";
// The replay of a Frank-Wolfe run, in the browser: teaching/figures/replay.py packs the run's sparse
// steps; this file rebuilds any iterate mu_t from them and draws it as SVG. No network, no rerun.
// The model (inflate, unpack, Run, nextStep, sentence) is tested under node (tests/teaching/test_replay_js.py).

const TYPES = { f4: Float32Array, f8: Float64Array, i4: Int32Array, u1: Uint8Array };
const EVERY = 64;
let K = 1; // font scale of the drawing (presentation mode: larger), set by mount // a dense checkpoint of mu every EVERY iterations: any t is at most EVERY steps away

async function inflate(b64) {
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function unpack(bytes, manifest) {
  const arrays = {};
  for (const [name, [dtype, offset, length]] of Object.entries(manifest))
    arrays[name] = new TYPES[dtype](bytes.buffer, bytes.byteOffset + offset, length);
  return arrays;
}

class Run {
  constructor(meta, a) {
    Object.assign(this, { meta, a, T: meta.steps, n: meta.atoms });
    this.start = new Int32Array(this.T + 1); // step t touches a.touched_*[start[t] .. start[t + 1])
    this.size = new Int32Array(this.T + 1); // active-set size |S_t|
    this.checkpoints = [];
    const mu = new Float64Array(this.n);
    a.start_atom.forEach((l, i) => (mu[l] = a.start_mu[i]));
    let count = a.start_atom.length;
    this.size[0] = count;
    this.checkpoints.push(mu.slice());
    for (let t = 0; t < this.T; t++) {
      this.start[t + 1] = this.start[t] + a.touched_count[t];
      count += this.apply(mu, t);
      this.size[t + 1] = count;
      if ((t + 1) % EVERY === 0) this.checkpoints.push(mu.slice());
    }
  }

  apply(mu, t) { // mu_t -> mu_{t+1} in place; returns the change of the active-set size
    const s = this.a.scale[t];
    if (s !== 1) for (let l = 0; l < this.n; l++) mu[l] *= s;
    let change = 0;
    for (let j = this.start[t]; j < this.start[t + 1]; j++) {
      const l = this.a.touched_atom[j], was = mu[l] > 0;
      mu[l] = this.a.touched_mu[j];
      change += (mu[l] > 0) - was;
    }
    return change;
  }

  mu(t) { // the dense iterate mu_t
    const mu = this.checkpoints[Math.floor(t / EVERY)].slice();
    for (let s = t - (t % EVERY); s < t; s++) this.apply(mu, s);
    return mu;
  }

  touched(t) { // atoms step t -> t + 1 set explicitly
    return Array.from(this.a.touched_atom.subarray(this.start[t], this.start[t + 1]));
  }

  kind(t) { return this.meta.kinds[this.a.kind[t]]; } // of step t -> t + 1
  direction(t) { return this.meta.directions[this.a.direction[t]]; }
  relativeGap(t) { return this.a.gap[t] / Math.max(Math.abs(this.a.objective[t]), 1e-300); }
}

function sentenceSamples(run) { // every sentence template filled with the widest numbers the run has
  const wide = String(run.n - 1), number = "0.000123", list = [];
  for (const text of Object.values(run.meta.sentences))
    list.push(text.replace(/\{(toward|away|inner|n)\}/g, wide).replace(/\{(rho|rho_max)\}/g, number)
      .replace("{left}", [wide, wide].join(", ")) + run.meta.sentences["pruned|"].replace("{left}", wide));
  return list;
}

const DIRECTION_WORDS = { towards: "towards", away: "away", pairwise: "pairwise", corrective: "fully-corrective" };

function stepKind(run, s) { // what step s -> s + 1 is called on its badge: a drop or swap step, else its direction's
  const kind = run.kind(s);
  return kind === "drop" || kind === "swap" ? kind : DIRECTION_WORDS[run.direction(s)] || kind;
}

function nextStep(run, t, which) { // the first iterate after t reached by a step badged "<which> step"
  for (let s = t; s < run.T; s++) if (stepKind(run, s) === which) return s + 1;
  return -1;
}

function legendUses(run) { // which marks the replay of this run can draw: its legend names only these
  const uses = { away: false, left: false, moved: false };
  for (let s = 0; s < run.T; s++) {
    const dir = run.direction(s), leaves = run.size[s + 1] < run.size[s] || run.kind(s) === "swap";
    if (dir !== "corrective" && run.a.away[s] >= 0) uses.away = true;
    if (leaves || run.kind(s) === "drop") uses.left = true;
    if (dir === "pairwise" && run.a.away[s] >= 0 && leaves) uses.moved = true;
  }
  return uses;
}

const fmt = (v) => (Number.isInteger(v) && Math.abs(v) < 1e6 ? String(v)
  : Math.abs(v) >= 1e-3 && Math.abs(v) < 1e4 ? String(+v.toPrecision(3)) : v.toExponential(2));
let TRUTH_DASH = "#000000"; // the true ratio: teaching.figures.base.TRUTH, set by mount
const CURVE = "#CC79A7", TOWARD = "#0072B2", AWAY = "#D55E00", MOVED = "#5a2d91";

function describe(run, t, before, after) { // what step t - 1 -> t did: words and the atoms to mark
  if (t === 0) {
    const n = before.filter((m) => m > 0).length;
    return { kind: "start", text: run.meta.sentences["start|"].replace("{n}", n), left: [], entered: [], badge: "start" };
  }
  const s = t - 1, kind = run.kind(s), dir = run.direction(s), away = run.a.away[s];
  const left = run.touched(s).filter((l) => before[l] > 0 && after[l] === 0);
  const entered = run.touched(s).filter((l) => before[l] === 0 && after[l] > 0);
  const rhoMax = dir === "towards" ? 1 : dir === "away" ? before[away] / (1 - before[away])
    : dir === "pairwise" ? before[away] : NaN;
  const fill = (text) => text.replace("{toward}", run.a.toward[s]).replace("{away}", away)
    .replace("{rho}", fmt(run.a.rho[s])).replace(/\{rho_max\}/g, fmt(rhoMax))
    .replace("{inner}", run.a.inner[s]).replace("{left}", left.join(", "));
  let text = fill(run.meta.sentences[`${dir}|${kind}`] || `${dir} step (${kind}).`);
  const expected = kind === "drop" || kind === "swap" ? left.length : 0;
  if (left.length > expected) text += fill(run.meta.sentences["pruned|"]);
  return { kind, dir, text, left, entered, rhoMax, toward: run.a.toward[s], away, badge: `${stepKind(run, s)} step` };
}

// ------------------------------------------------------------------------------------------ drawing
const SVG = (w, h, body) => `<svg width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">${body}</svg>`;
const esc = (s) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;");

function ticks(lo, hi, count) {
  const step0 = (hi - lo) / count, mag = 10 ** Math.floor(Math.log10(step0));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((v) => v >= step0);
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(+v.toPrecision(12));
  return out;
}

function axes(box, x, y, xs, ys, xTitle, yTitle, right) { // x, y: value -> pixel; box: [l, t, r, b]
  const [l, t, r, b] = box;
  let out = `<rect x="${l}" y="${t}" width="${r - l}" height="${b - t}" fill="none" stroke="#ddd"/>`;
  for (const v of xs) out += `<line x1="${x(v)}" x2="${x(v)}" y1="${t}" y2="${b}" stroke="#eee"/>` +
    `<text x="${x(v)}" y="${b + 15 * K}" text-anchor="middle" font-size="0.95em">${fmt(v)}</text>`;
  for (const [v, label] of ys) out += `<line x1="${l}" x2="${r}" y1="${y(v)}" y2="${y(v)}" stroke="#eee"/>` +
    `<text x="${l - 4}" y="${y(v) + 4}" text-anchor="end" font-size="0.95em">${label}</text>`;
  out += `<text x="${(l + r) / 2}" y="${b + 31 * K}" text-anchor="middle" font-size="1em">${esc(xTitle)}</text>`;
  out += `<text transform="translate(${13 * K},${(t + b) / 2}) rotate(-90)" text-anchor="middle" font-size="1em">${esc(yTitle)}</text>`;
  if (right) out += right;
  return out;
}

function path(xs, ys, x, y) {
  let d = "";
  for (let i = 0; i < xs.length; i++) d += (i ? "L" : "M") + x(xs[i]).toFixed(1) + "," + y(ys[i]).toFixed(1);
  return d;
}

function curve(run, mu) { // w_t(x) = sum_l alpha_l exp(-(x - c_l)^2 / (2 sigma^2)) on the grid
  const { grid, beta, position } = run.a, k = -0.5 / run.meta.sigma ** 2, w = new Float64Array(grid.length);
  for (let l = 0; l < run.n; l++) if (mu[l] > 0) {
    const alpha = beta[l] * mu[l];
    for (let i = 0; i < grid.length; i++) w[i] += alpha * Math.exp(k * (grid[i] - position[l]) ** 2);
  }
  return w;
}

function mainChart(run, t, width, before, after, step) {
  const m = run.meta, oneD = m.one_d, pos = run.a.position, k = run.scale, H = Math.round(300 * k);
  const legend = legendRows(oneD, 62 * k, width - 10, k, run.uses); // one or two rows, as the width allows
  const box = [62 * k, legend.height + 12 * k, width - (oneD ? 62 * k : 20), H - 40 * k];
  const alphaOf = (mu, l) => run.a.beta[l] * mu[l];
  const { lo, hi } = run;
  const x = (v) => box[0] + ((v - lo) / (hi - lo || 1)) * (box[2] - box[0]);
  let aTop = run.finalAlpha;
  for (let l = 0; l < run.n; l++) aTop = Math.max(aTop, alphaOf(after, l), alphaOf(before, l));
  aTop *= 1.08;
  const ya = (v) => box[3] - (v / aTop) * (box[3] - box[1]);
  let body = "", right = "";
  if (oneD) {
    const wNow = curve(run, after), wBefore = curve(run, before);
    const wTop = 1.08 * Math.max(run.finalW, ...wNow, ...wBefore);
    const yw = (v) => box[3] - (v / wTop) * (box[3] - box[1]);
    body += axes(box, x, yw, ticks(lo, hi, 6), ticks(0, wTop, 5).map((v) => [v, fmt(v)]), m.x_title, "w(x)");
    right = ticks(0, aTop, 5).map((v) => `<text x="${box[2] + 4}" y="${ya(v) + 4}" font-size="0.95em" fill="#777">${fmt(v)}</text>`).join("") +
      `<text transform="translate(${width - 6 * k},${(box[1] + box[3]) / 2}) rotate(-90)" text-anchor="middle" font-size="1em" fill="#777">alpha_l (stems)</text>`;
    if (run.a.truth) body += `<path d="${path(run.a.grid, run.a.truth, x, yw)}" fill="none" stroke="${TRUTH_DASH}" stroke-dasharray="6 4" stroke-width="2"/>`;
    if (t > 0) body += `<path d="${path(run.a.grid, wBefore, x, yw)}" fill="none" stroke="${CURVE}" stroke-opacity="0.35" stroke-width="5"/>`;
    body += `<path d="${path(run.a.grid, wNow, x, yw)}" fill="none" stroke="${CURVE}" stroke-width="3"/>`;
  } else {
    body += axes(box, x, ya, ticks(lo, hi, 8), ticks(0, aTop, 5).map((v) => [v, fmt(v)]), m.x_title, "alpha_l");
  }
  body += right;
  for (let l = 0; l < run.n; l++) if (after[l] > 0) {
    const px = x(pos[l]), py = ya(alphaOf(after, l));
    body += `<line x1="${px}" x2="${px}" y1="${box[3]}" y2="${py}" stroke="#777" stroke-width="2"/><circle cx="${px}" cy="${py}" r="3.5" fill="#777"/>`;
  }
  const mark = (l, shape, colour, label, dy) => {
    const px = x(pos[l]), py = ya(Math.max(alphaOf(after, l), alphaOf(before, l)));
    const sym = shape === "up" ? `M${px},${py - 16}l-7,12h14z` : shape === "down" ? `M${px},${py - 4}l-7,-12h14z`
      : `M${px - 7},${py - 7}l14,14M${px + 7},${py - 7}l-14,14`;
    return `<path d="${sym}" fill="${shape === "x" ? "none" : colour}" stroke="${colour}" stroke-width="${shape === "x" ? 3.5 : 1}"/>` +
      `<text x="${px}" y="${py - 20 - dy}" text-anchor="middle" font-size="1em" font-weight="700" fill="${colour}">${esc(label)}</text>`;
  };
  if (t > 0) {
    if (step.left.length || step.kind === "swap") { // the mass that moved: an arrow from the away atom to l^FW
      const from = step.dir === "corrective" ? -1 : step.away;
      if (from >= 0 && step.dir !== "away") body += `<path d="M${x(pos[from])},${ya(alphaOf(before, from)) - 6} Q${(x(pos[from]) + x(pos[step.toward])) / 2},${Math.max(box[1], Math.min(ya(alphaOf(before, from)), ya(alphaOf(after, step.toward))) - 70)} ${x(pos[step.toward])},${ya(alphaOf(after, step.toward)) - 18}" fill="none" stroke="${MOVED}" stroke-width="2" marker-end="url(#head)"/>`;
    }
    for (const l of step.left) body += `<line x1="${x(pos[l])}" x2="${x(pos[l])}" y1="${box[3]}" y2="${ya(alphaOf(before, l))}" stroke="${AWAY}" stroke-width="2" stroke-dasharray="3 3"/>` + mark(l, "x", AWAY, `left: ${l}`, 0);
    if (step.dir !== "corrective" && step.away >= 0 && !step.left.includes(step.away)) body += mark(step.away, "down", AWAY, `away ${step.away}`, 0);
    if (step.dir !== "away" || step.kind === "good") body += mark(step.toward, "up", TOWARD, (step.entered.includes(step.toward) ? "entered: " : "towards ") + step.toward, 14);
  }
  const defs = `<defs><marker id="head" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0L10,5L0,10z" fill="${MOVED}"/></marker></defs>`;
  return SVG(width, H, defs + legend.svg + body);
}

function legendRows(oneD, left, right, k, uses) {
  const away = [uses.away ? "▼ l^AFW" : "", uses.left ? "✕ left" : ""].filter(Boolean).join("  ");
  const entries = [[CURVE, "w_t(x)", ""], [CURVE, "w_(t-1)(x)", "0.35"], [TRUTH_DASH, "true ratio", "", "6 4"],
    ["#777", "alpha_l", ""], [TOWARD, "▲ l^FW", ""], [AWAY, away, ""], [MOVED, uses.moved ? "→ moved" : "", ""]]
    .filter((e, i) => (oneD || i >= 3) && e[1]);
  let lx = left, y = 12 * k, svg = "";
  for (const [c, label, op, dash] of entries) {
    const w = (36 + label.length * 7) * k;
    if (lx + w > right && lx > left) { lx = left; y += 20 * k; }
    svg += `<line x1="${lx}" x2="${lx + 18 * k}" y1="${y}" y2="${y}" stroke="${c}" stroke-width="3" stroke-opacity="${op || 1}" ${dash ? `stroke-dasharray="${dash}"` : ""}/><text x="${lx + 22 * k}" y="${y + 4 * k}" font-size="0.95em">${label}</text>`;
    lx += w;
  }
  return { svg, height: y + 10 * k };
}

function logRange(values) { // [lo, hi] in log10, whole decades bounding the positive values; zeros sit at lo
  let lo = Infinity, hi = -Infinity;
  for (const v of values) if (v > 0 && Number.isFinite(v)) { lo = Math.min(lo, Math.log10(v)); hi = Math.max(hi, Math.log10(v)); }
  if (!Number.isFinite(lo)) return [-1, 0]; // no positive value: one decade below 1
  lo = Math.floor(lo); hi = Math.ceil(hi);
  return [lo, hi > lo ? hi : lo + 1];
}

function smallChart(run, width, values, logY, title, marks) { // a static curve; the cursor is added per t
  const k = run.scale, H = Math.round(150 * k), box = [62 * k, 22 * k, width - 24 * k, H - 36 * k], T = run.T; // room for the last tick label
  let lo = 0, hi = 0;
  if (logY) [lo, hi] = logRange(values); // bounded by the values shown: a zero is drawn at the floor 10^lo
  else { for (const v of values) hi = Math.max(hi, v); hi = Math.max(hi * 1.1, 1); }
  const tr = (v) => (logY ? Math.log10(Math.max(v, 10 ** lo)) : v);
  const x = (v) => box[0] + (v / (T || 1)) * (box[2] - box[0]);
  const y = (v) => box[3] - ((tr(v) - lo) / (hi - lo || 1)) * (box[3] - box[1]);
  const yt = logY ? ticks(lo, hi, 4).filter(Number.isInteger).map((e) => [10 ** e, `1e${e}`]) : ticks(lo, hi, 4).map((v) => [v, fmt(v)]);
  let body = axes(box, x, y, ticks(0, T, 5), yt, "iteration t", "", "");
  body += `<text x="${box[0]}" y="${14 * k}" font-size="1em" font-weight="700">${esc(title)}</text>`;
  const ts = Array.from(values, (_, i) => i);
  body += `<path d="${path(ts, values, x, y)}" fill="none" stroke="${run.meta.color}" stroke-width="2"/>`;
  for (const [t, colour] of marks) body += `<line x1="${x(t)}" x2="${x(t)}" y1="${box[1]}" y2="${box[1] + 7}" stroke="${colour}" stroke-width="2"/>`;
  return { html: SVG(width, H, body + `<g class="cursor"></g>`), x, y, box, floor: logY ? 10 ** lo : null };
}

function gapWords(value, floor) { // the relative gap as the tooltip and the numbers line say it
  return value > 0 ? fmt(value) : `0 (exactly zero: drawn at the axis floor ${fmt(floor)})`;
}

function reserve(element, texts) { // the height of the tallest text, kept: the drawing below never jumps
  element.style.minHeight = "";
  let tallest = 0;
  for (const text of texts) { element.textContent = text; tallest = Math.max(tallest, element.getBoundingClientRect().height); }
  element.style.minHeight = `${Math.ceil(tallest)}px`;
}

function useAppFont(doc) { // the app's own font (Streamlit's "Source Sans"), taken from the page around the replay
  try {
    const host = window.parent.document;
    if (host === doc) return;
    let css = "";
    for (const sheet of host.styleSheets) {
      let rules;
      try { rules = sheet.cssRules; } catch (e) { continue; } // another origin's sheet
      for (const rule of rules) if (rule.constructor.name === "CSSFontFaceRule")
        css += rule.cssText.replace(/url\((["']?)([^"')]+)\1\)/g, (m, q, u) => `url("${new URL(u, sheet.href || host.baseURI).href}")`);
    }
    const style = doc.createElement("style");
    style.textContent = `${css}body{font-family:${getComputedStyle(host.body).fontFamily}}`;
    doc.head.appendChild(style);
  } catch (e) { /* not the app's origin: the CSS fallback font stays */ }
}

const SPEEDS = [1, 2, 5, 10, 30], SPEED = 5; // Play's steps per second: the choices and the first one

function addressLink(T) { // the position in the page's address (the app's setting "step"), so that a link carries it
  let host = null, timer = null;
  try { if (window.parent !== window && window.parent.location.search !== undefined) host = window.parent; } catch (e) { /* another origin */ }
  const read = () => {
    if (!host) return 0;
    const step = parseInt(new URLSearchParams(host.location.search).get("step"), 10);
    return Number.isFinite(step) ? Math.max(0, Math.min(T, step)) : 0;
  };
  const write = (t, playing) => {
    if (!host) return;
    const url = new URL(host.location.href);
    if (t > 0) url.searchParams.set("step", t); else url.searchParams.delete("step");
    if (url.href !== host.location.href) host.history.replaceState(host.history.state, "", url.href); // no new entry
    clearTimeout(timer);
    // once the replay rests, the app reads the address as after Back (its settings follow: one rerun, no new
    // history entry); while it plays, only the address changes
    if (!playing) timer = setTimeout(() => host.dispatchEvent(new PopStateEvent("popstate", { state: host.history.state })), 1200);
  };
  const follow = (onStep) => {
    if (!host) return;
    const listener = () => onStep(read());
    host.addEventListener("popstate", listener);
    addEventListener("pagehide", () => { clearTimeout(timer); host.removeEventListener("popstate", listener); });
  };
  return { read, write, follow };
}

function mount(root, meta, arrays) {
  useAppFont(document);
  const run = new Run(meta, arrays);
  TRUTH_DASH = meta.truth_color;
  const xs = meta.one_d ? arrays.grid : arrays.position; // the x range of the main chart, fixed for the run
  run.lo = xs.reduce((a, b) => Math.min(a, b), Infinity);
  run.hi = xs.reduce((a, b) => Math.max(a, b), -Infinity);
  run.scale = K = parseFloat(getComputedStyle(document.body).getPropertyValue("--scale")) || 1; // presentation mode
  const last = run.mu(run.T);
  run.finalAlpha = last.reduce((top, m, l) => Math.max(top, run.a.beta[l] * m), 0);
  run.finalW = meta.one_d ? Math.max(...curve(run, last), ...(run.a.truth || [])) : 0;
  run.uses = legendUses(run);
  const jumps = meta.jumps.map((k) => `<button data-next="${k}">Next ${k} step</button>`).join("");
  const speeds = SPEEDS.map((v) => `<option value="${v}"${v === SPEED ? " selected" : ""}>${v}</option>`).join("");
  root.innerHTML = `<div class="bar"><button data-go="-1">Back</button><button data-go="1">Step</button>
    <button data-play>Play</button><label class="speed">speed <select data-speed aria-label="steps per second">${speeds}</select> steps/s</label>
    ${jumps}<input type="range" min="0" max="${run.T}" value="0" aria-label="iteration">
    <span class="t"></span><span class="of">of ${run.T}</span><span class="kind"></span></div>
    <div class="say" aria-live="polite"></div><div class="nums"></div><div class="main"></div><div class="row"><div class="gap"></div><div class="size"></div></div>`;
  const $ = (s) => root.querySelector(s), slider = $("input");
  const half = root.clientWidth < 640 ? root.clientWidth : Math.floor((root.clientWidth - 8) / 2); // narrow: stacked
  const gaps = Float64Array.from(run.a.gap, (_, t) => run.relativeGap(t));
  const marks = [];
  for (let s = 0; s < run.T; s++) if (run.kind(s) === "drop" || run.kind(s) === "swap") marks.push([s + 1, run.kind(s) === "drop" ? AWAY : MOVED]);
  const small = [[".gap", smallChart(run, half, gaps, true, "relative duality gap (log)", [])],
                 [".size", smallChart(run, half, run.size, false, "active-set size |S_t| (ticks: drop, swap)", marks)]];
  for (const [sel, chart] of small) $(sel).innerHTML = chart.html;
  const floor = small[0][1].floor;
  $(".t").style.minWidth = `${14 + String(run.T).length}ch`; // "iteration t = " and the most digits
  const numbers = (t, step, wide) => (t > 0 ? `step size ρ = ${wide || fmt(run.a.rho[t - 1])}` +
      (isNaN(step.rhoMax) ? "" : `, bound ρ_max = ${wide || fmt(step.rhoMax)}`) + " · " : "") +
    `duality gap at t: ${wide || fmt(run.a.gap[t])} (relative ${wide ? gapWords(0, floor) : gapWords(gaps[t], floor)}) · ` +
    `F = ${wide ? (-1.23456e-5).toPrecision(6) : run.a.objective[t].toPrecision(6)} · active atoms |S_t| = ${wide ? run.n : run.size[t]}`;
  let t = 0, timer = null;
  const link = addressLink(run.T);
  const show = (next, fromAddress) => {
    t = Math.max(0, Math.min(run.T, next));
    const after = run.mu(t), before = t > 0 ? run.mu(t - 1) : after, step = describe(run, t, before, after);
    slider.value = t;
    $(".t").textContent = `iteration t = ${t}`;
    $(".kind").textContent = step.badge;
    $(".kind").className = `kind ${step.kind}`;
    $(".say").textContent = step.text;
    $(".nums").textContent = numbers(t, step);
    $(".main").innerHTML = mainChart(run, t, root.clientWidth, before, after, step);
    for (const [sel, chart] of small) {
      const v = sel === ".gap" ? gaps[t] : run.size[t];
      const tip = sel === ".gap" ? `iteration ${t}: relative duality gap ${gapWords(v, floor)}` : `iteration ${t}: ${v} active atoms`;
      root.querySelector(`${sel} .cursor`).innerHTML = `<title>${esc(tip)}</title><line x1="${chart.x(t)}" x2="${chart.x(t)}" y1="${chart.box[1]}" y2="${chart.box[3]}" stroke="#262730" stroke-width="1.5"/><circle cx="${chart.x(t)}" cy="${chart.y(v)}" r="5" fill="#262730"><title>${esc(tip)}</title></circle>`;
    }
    root.querySelectorAll("[data-next]").forEach((b) => (b.disabled = nextStep(run, t, b.dataset.next) < 0));
    $("[data-go='-1']").disabled = t === 0;
    $("[data-go='1']").disabled = t === run.T;
    if (!fromAddress) link.write(t, timer !== null);
  };
  const reserveAll = () => {
    reserve($(".say"), sentenceSamples(run));
    reserve($(".nums"), [numbers(Math.min(1, run.T), { rhoMax: 0.5 }, "1.23e-10")]); // the widest numbers line
  };
  reserveAll();
  const stop = () => {
    if (timer === null) return;
    clearInterval(timer); timer = null; $("[data-play]").textContent = "Play";
    link.write(t, false); // paused: the address (and the server's settings) learn where
  };
  const play = () => {
    clearInterval(timer);
    timer = setInterval(() => (t >= run.T ? stop() : show(t + 1)), 1000 / Number($("[data-speed]").value));
  };
  root.addEventListener("click", (e) => {
    const b = e.target.closest("button");
    if (!b) return;
    if (b.dataset.go) { stop(); show(t + Number(b.dataset.go)); }
    if (b.dataset.next) { stop(); const n = nextStep(run, t, b.dataset.next); if (n >= 0) show(n); }
    if (b.hasAttribute("data-play")) {
      if (timer) return stop();
      if (t >= run.T) show(0); // from the start again
      b.textContent = "Pause";
      play();
    }
  });
  slider.addEventListener("input", () => { stop(); show(Number(slider.value)); });
  $("[data-speed]").addEventListener("change", () => { if (timer) play(); }); // the new speed from the next step
  link.follow((step) => { if (step !== t) { stop(); show(step, true); } }); // Back / Forward of the page
  addEventListener("resize", () => { reserveAll(); show(t); }); // a new width re-wraps the texts: measure again
  show(link.read(), true);
  return { run, show };
}

async function load(doc) {
  const { meta, blob } = JSON.parse(doc.getElementById("replay-data").textContent);
  return { meta, arrays: unpack(await inflate(blob), meta.manifest) };
}

if (typeof module !== "undefined") module.exports = { inflate, unpack, Run, nextStep, stepKind, legendUses, describe, load, logRange, sentenceSamples };
else load(document).then(({ meta, arrays }) => { window.replay = mount(document.getElementById("replay"), meta, arrays); });
