// rgt view: draws the automaton laid out by rgt on a canvas. Written for rgt (MIT OR Apache-2.0);
// no library, no network.
"use strict";
(function () {
  const status = document.getElementById("rgt-status");
  window.addEventListener("error", (e) => {
    status.dataset.rendered = "error";
    status.textContent = "error: " + e.message;
  });
  const t0 = performance.now();
  const D = JSON.parse(document.getElementById("rgt-data").textContent);
  const N = D.nodes.length;
  const E = D.edges.length / 3;
  const H = D.nodeH;
  const X = Float64Array.from(D.x), Y = Float64Array.from(D.y), W = new Float64Array(N);
  for (let v = 0; v < N; v++) W[v] = Math.min(D.maxW, D.padW + D.charW * [...D.nodes[v]].length);
  D.x = D.y = null;
  const NC = Int32Array.from(D.nc);
  D.nc = null;
  // Edges come as (from − previous from, to − from, label).
  const EF = new Uint32Array(E), ET = new Uint32Array(E), EL = new Uint32Array(E), EK = new Uint8Array(E);
  const CHECK = new Int32Array(E).fill(-1);
  const LCHECK = new Int32Array(D.labels.length).fill(-1);
  for (let i = 0; i < D.lcheck.length; i += 2) LCHECK[D.lcheck[i]] = D.lcheck[i + 1];
  for (let e = 0, i = 0, f = 0; e < E; e++, i += 3) {
    f += D.edges[i];
    EF[e] = f; ET[e] = f + D.edges[i + 1]; EL[e] = D.edges[i + 2];
    EK[e] = D.lkind.charCodeAt(EL[e]) - 48;
    CHECK[e] = LCHECK[EL[e]];
  }
  D.edges = null;
  const CL = D.clusters.map((c) => ({
    kind: c[0], size: c[1], x: c[2], y: c[3], w: c[4], h: c[5], collapsed: false,
    title: typeof c[6] === "number" ? "check from " + D.nodes[c[6]] : c[6],
  }));
  const STEPS = D.steps;
  const canvas = document.getElementById("canvas");
  const ctx = canvas.getContext("2d");
  const tip = document.getElementById("tip");
  document.getElementById("title").textContent = D.title;
  document.title = (D.title ? D.title + " — " : "") + "rgt view";

  // World extent.
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (let v = 0; v < N; v++) {
    minX = Math.min(minX, X[v] - W[v] / 2); maxX = Math.max(maxX, X[v] + W[v] / 2);
    minY = Math.min(minY, Y[v] - H / 2); maxY = Math.max(maxY, Y[v] + H / 2);
  }
  for (const c of CL) {
    minX = Math.min(minX, c.x); maxX = Math.max(maxX, c.x + c.w);
    minY = Math.min(minY, c.y); maxY = Math.max(maxY, c.y + c.h);
  }
  if (!isFinite(minX)) { minX = minY = 0; maxX = maxY = 100; }

  // Steps: which edges exist now (cur) and in the step before (prev).
  let step = STEPS.length - 1;
  const cur = new Uint8Array(E), prev = new Uint8Array(E);
  const nodeOn = new Uint8Array(N); // 2 shown, 1 only on removed edges, 0 hidden
  function replay(upto, into) {
    into.fill(0);
    for (let s = 0; s <= upto; s++) {
      const a = STEPS[s].add, d = STEPS[s].del;
      for (let i = 0; i < a.length; i += 2) into.fill(1, a[i], a[i + 1]);
      for (let i = 0; i < d.length; i += 2) into.fill(0, d[i], d[i + 1]);
    }
  }
  function setStep(s) {
    step = Math.max(0, Math.min(STEPS.length - 1, s));
    replay(step, cur);
    if (step > 0) replay(step - 1, prev); else prev.set(cur);
    nodeOn.fill(0);
    for (let e = 0; e < E; e++) {
      if (cur[e]) {
        nodeOn[EF[e]] = 2; nodeOn[ET[e]] = 2;
        if (CHECK[e] >= 0) nodeOn[CHECK[e]] = 2;
      } else if (prev[e]) {
        if (!nodeOn[EF[e]]) nodeOn[EF[e]] = 1;
        if (!nodeOn[ET[e]]) nodeOn[ET[e]] = 1;
      }
    }
    for (const v of [D.begin, D.end]) if (v >= 0) nodeOn[v] = 2;
    renderSteps();
    schedule();
  }

  // Collapsed clusters: where each node is drawn.
  const PX = new Float64Array(N), PY = new Float64Array(N);
  const hiddenIn = new Int32Array(N); // the collapsed cluster a node is drawn as, or -1
  function recollapse() {
    for (let v = 0; v < N; v++) {
      const c = NC[v];
      if (c >= 0 && CL[c].collapsed) {
        hiddenIn[v] = c; PX[v] = CL[c].x + CL[c].w / 2; PY[v] = CL[c].y + 12;
      } else {
        hiddenIn[v] = -1; PX[v] = X[v]; PY[v] = Y[v];
      }
    }
    edgeGrid = null;
    schedule();
  }

  // View transform: screen = world * scale + (tx, ty).
  let scale = 1, tx = 0, ty = 0, cw = 1, ch = 1, dpr = 1;
  function resize() {
    dpr = window.devicePixelRatio || 1;
    cw = canvas.clientWidth || 800; ch = canvas.clientHeight || 600;
    canvas.width = Math.round(cw * dpr); canvas.height = Math.round(ch * dpr);
  }
  function fitTo(x0, y0, x1, y1, maxScale) {
    const pad = 20;
    scale = Math.min((cw - 2 * pad) / Math.max(1, x1 - x0), (ch - 2 * pad) / Math.max(1, y1 - y0), maxScale);
    tx = (cw - (x1 - x0) * scale) / 2 - x0 * scale;
    ty = Math.max(pad, (ch - (y1 - y0) * scale) / 2) - y0 * scale;
    schedule();
  }
  function fit() { fitTo(minX, minY, maxX, maxY, 1.5); }

  let selected = -1, found = new Set();
  let hoverNode = -1, hoverEdge = -1;

  // Edge geometry: a vertical curve downwards, an arc on the right side otherwise.
  function geom(e) {
    const a = EF[e], b = ET[e];
    const x1 = PX[a], y1 = PY[a], x2 = PX[b], y2 = PY[b];
    const ha = hiddenIn[a] >= 0 ? 0 : H / 2, hb = hiddenIn[b] >= 0 ? 0 : H / 2;
    if (y2 - y1 > H / 2) {
      const sy = y1 + ha, ey = y2 - hb, d = (ey - sy) / 2;
      return [x1, sy, x1, sy + d, x2, ey - d, x2, ey];
    }
    const wa = hiddenIn[a] >= 0 ? 0 : W[a] / 2, wb = hiddenIn[b] >= 0 ? 0 : W[b] / 2;
    const sx = x1 + wa, ex = x2 + wb;
    if (a === b) return [sx, y1 - 5, sx + 30, y1 - 25, sx + 30, y1 + 25, sx, y1 + 5];
    const bulge = 30 + Math.abs(y2 - y1) * 0.15;
    const m = Math.max(sx, ex) + bulge;
    return [sx, y1, m, y1, m, y2, ex, y2];
  }
  function bez(g, t) {
    const u = 1 - t;
    return [u * u * u * g[0] + 3 * u * u * t * g[2] + 3 * u * t * t * g[4] + t * t * t * g[6],
      u * u * u * g[1] + 3 * u * u * t * g[3] + 3 * u * t * t * g[5] + t * t * t * g[7]];
  }
  // 0 hidden, 1 shown, 2 added in this step, 3 removed in this step
  function edgeState(e) {
    if (cur[e]) return step > 0 && !prev[e] ? 2 : 1;
    return prev[e] ? 3 : 0;
  }
  function edgeVisible(e) {
    const a = EF[e], b = ET[e];
    return !(hiddenIn[a] >= 0 && hiddenIn[a] === hiddenIn[b]);
  }

  const COLOURS = ["#8c959f", "#9a3412", "#1f6feb"];
  let pending = false;
  function schedule() {
    if (!pending) { pending = true; requestAnimationFrame(() => { pending = false; draw(); }); }
  }
  function truncate(s, n) { return s.length > n ? s.slice(0, Math.max(1, n - 1)) + "…" : s; }

  function draw() {
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, cw, ch);
    ctx.setTransform(dpr * scale, 0, 0, dpr * scale, dpr * tx, dpr * ty);
    const vx0 = -tx / scale, vy0 = -ty / scale, vx1 = (cw - tx) / scale, vy1 = (ch - ty) / scale;
    const px = 1 / scale; // one screen pixel in world units
    const inView = (x0, y0, x1, y1) => x1 >= vx0 && x0 <= vx1 && y1 >= vy0 && y0 <= vy1;
    // Clusters.
    ctx.lineWidth = px;
    for (let i = 0; i < CL.length; i++) {
      const c = CL[i];
      if (!inView(c.x, c.y, c.x + c.w, c.y + (c.collapsed ? 24 : c.h))) continue;
      const fill = c.kind === "check" ? "#eef6ff" : c.kind === "graph" ? "#f4f1fb" : "#fff4e5";
      ctx.fillStyle = c.collapsed ? "#d8dee4" : fill;
      ctx.strokeStyle = c.kind === "check" ? "#80b3ff" : c.kind === "graph" ? "#b7a6e0" : "#f0b35e";
      const h = c.collapsed ? 24 : c.h;
      ctx.fillRect(c.x, c.y, c.w, h);
      ctx.strokeRect(c.x, c.y, c.w, h);
      // Titles at a fixed screen size, for boxes wide enough on screen.
      if (c.w * scale >= 50) {
        const fs = 12 / Math.min(scale, 1);
        ctx.font = "bold " + fs + "px system-ui, sans-serif";
        ctx.textBaseline = "alphabetic";
        ctx.fillStyle = "#24292f";
        ctx.fillText(truncate((c.collapsed ? "▸ " : "▾ ") + c.title + " (" + c.size + ")", Math.max(4, Math.floor(c.w / (fs * 0.6)))), c.x + 6 / Math.min(scale, 1), c.y + 4 + fs);
      }
    }
    // Edges, batched by style.
    const fast = scale < 0.08;
    const batches = [[], [], [], [], []]; // plain, tag, check, added, removed
    let shown = 0;
    for (let e = 0; e < E; e++) {
      const st = edgeState(e);
      if (!st || !edgeVisible(e)) continue;
      const a = EF[e], b = ET[e];
      const x0 = Math.min(PX[a], PX[b]) - 60, x1 = Math.max(PX[a] + W[a] / 2, PX[b] + W[b] / 2) + 80 + Math.abs(PY[b] - PY[a]) * 0.15;
      const y0 = Math.min(PY[a], PY[b]) - 30, y1 = Math.max(PY[a], PY[b]) + 30;
      if (!inView(x0, y0, x1, y1)) continue;
      shown++;
      batches[st === 2 ? 3 : st === 3 ? 4 : EK[e]].push(e);
    }
    const STYLE = [[COLOURS[0], 1], [COLOURS[1], 1], [COLOURS[2], 1.6], ["#1a7f37", 3], ["#cf222e", 3]];
    for (let k = 0; k < 5; k++) {
      const list = batches[k];
      if (!list.length) continue;
      ctx.strokeStyle = STYLE[k][0];
      ctx.lineWidth = Math.max(STYLE[k][1], k >= 3 ? 3 * px : 0.6 * px);
      ctx.setLineDash(k === 4 ? [6, 4] : []);
      ctx.globalAlpha = fast && k < 3 ? 0.5 : 1;
      ctx.beginPath();
      for (const e of list) {
        const g = geom(e);
        ctx.moveTo(g[0], g[1]);
        if (fast) ctx.lineTo(g[6], g[7]); else ctx.bezierCurveTo(g[2], g[3], g[4], g[5], g[6], g[7]);
      }
      ctx.stroke();
      if (!fast && scale > 0.35) {
        ctx.fillStyle = STYLE[k][0];
        ctx.beginPath();
        for (const e of list) {
          const g = geom(e);
          const dx = g[6] - g[4], dy = g[7] - g[5], l = Math.hypot(dx, dy) || 1;
          const ux = dx / l, uy = dy / l, s = 6;
          ctx.moveTo(g[6], g[7]);
          ctx.lineTo(g[6] - ux * s - uy * s * 0.5, g[7] - uy * s + ux * s * 0.5);
          ctx.lineTo(g[6] - ux * s + uy * s * 0.5, g[7] - uy * s - ux * s * 0.5);
          ctx.closePath();
        }
        ctx.fill();
      }
    }
    ctx.setLineDash([]);
    ctx.globalAlpha = 1;
    // The checks of the selected node: dotted links to their sub-automata.
    if (selected >= 0) {
      ctx.strokeStyle = COLOURS[2]; ctx.lineWidth = 1.5 * px; ctx.setLineDash([4 * px, 4 * px]);
      ctx.beginPath();
      for (const e of adjacency().out[selected]) {
        if (CHECK[e] >= 0 && edgeState(e)) { ctx.moveTo(PX[selected], PY[selected]); ctx.lineTo(PX[CHECK[e]], PY[CHECK[e]]); }
      }
      ctx.stroke(); ctx.setLineDash([]);
    }
    // Nodes.
    const text = scale * 11 >= 6;
    ctx.font = "10.5px ui-monospace, Menlo, Consolas, monospace";
    ctx.textBaseline = "middle";
    for (let pass = 0; pass < 2; pass++) {
      for (let v = 0; v < N; v++) {
        if (!nodeOn[v] || hiddenIn[v] >= 0) continue;
        const w = W[v], x = X[v] - w / 2, y = Y[v] - H / 2;
        if (!inView(x, y, x + w, y + H)) continue;
        const special = v === D.begin || v === D.end || v === selected || found.has(v);
        if ((pass === 1) !== special) continue;
        ctx.globalAlpha = nodeOn[v] === 1 ? 0.35 : 1;
        ctx.fillStyle = v === D.begin ? "#4ac26b" : v === D.end ? "#e5534b" : found.has(v) ? "#f2cc60" : scale > 0.3 ? "#eaeef2" : "#b6bec7";
        if (scale > 0.3 && (v === D.begin || v === D.end)) ctx.fillStyle = v === D.begin ? "#c6f0c2" : "#f4c7c3";
        ctx.fillRect(x, y, w, H);
        if (special || scale > 0.3) {
          ctx.lineWidth = (v === selected ? 3 : 1) * px;
          ctx.strokeStyle = v === selected ? "#bf8700" : "#afb8c1";
          ctx.strokeRect(x, y, w, H);
        }
        if (text) {
          ctx.fillStyle = "#24292f";
          ctx.fillText(truncate(D.nodes[v], Math.floor((w - 10) / 6.35)), x + 5, Y[v]);
        }
      }
    }
    ctx.globalAlpha = 1;
    // Edge labels when zoomed in (not too many).
    if (document.getElementById("labels").checked && scale >= 0.7 && shown <= 4000) {
      ctx.font = "10px ui-monospace, Menlo, Consolas, monospace";
      ctx.textBaseline = "middle";
      for (let k = 0; k < 5; k++) {
        for (const e of batches[k]) {
          const s = D.labels[EL[e]];
          if (!s) continue;
          const g = geom(e), m = bez(g, 0.5), t = truncate(s, 48);
          const tw = ctx.measureText(t).width;
          ctx.fillStyle = "rgba(255,255,255,0.85)";
          ctx.fillRect(m[0] + 3, m[1] - 6, tw + 4, 12);
          ctx.fillStyle = k === 3 ? "#1a7f37" : k === 4 ? "#cf222e" : EK[e] === 0 ? "#57606a" : COLOURS[EK[e]];
          ctx.fillText(t, m[0] + 5, m[1]);
        }
      }
    }
    // Hover highlight.
    if (hoverEdge >= 0 && edgeState(hoverEdge) && edgeVisible(hoverEdge)) {
      const g = geom(hoverEdge);
      ctx.strokeStyle = "#bf8700"; ctx.lineWidth = 3 * px;
      ctx.beginPath(); ctx.moveTo(g[0], g[1]); ctx.bezierCurveTo(g[2], g[3], g[4], g[5], g[6], g[7]); ctx.stroke();
    }
  }

  // Lazily built indexes: adjacency and spatial grids for hovering.
  let adj = null;
  function adjacency() {
    if (adj) return adj;
    const out = Array.from({ length: N }, () => []), inc = Array.from({ length: N }, () => []);
    for (let e = 0; e < E; e++) { out[EF[e]].push(e); inc[ET[e]].push(e); }
    adj = { out, inc };
    return adj;
  }
  const CELL = 128;
  let nodeGrid = null, edgeGrid = null;
  const key = (cx, cy) => cx * 1000003 + cy;
  function gridAdd(g, cx, cy, item) {
    const k = key(cx, cy);
    const l = g.get(k);
    if (l) { if (l[l.length - 1] !== item) l.push(item); } else g.set(k, [item]);
  }
  function nodesGrid() {
    if (nodeGrid) return nodeGrid;
    nodeGrid = new Map();
    for (let v = 0; v < N; v++) {
      const c0 = Math.floor((X[v] - W[v] / 2) / CELL), c1 = Math.floor((X[v] + W[v] / 2) / CELL), r = Math.floor(Y[v] / CELL);
      for (let c = c0; c <= c1; c++) gridAdd(nodeGrid, c, r, v);
    }
    return nodeGrid;
  }
  function edgesGrid() {
    if (edgeGrid) return edgeGrid;
    edgeGrid = new Map();
    for (let e = 0; e < E; e++) {
      const g = geom(e);
      let [lx, ly] = bez(g, 0);
      const steps = Math.min(64, 2 + Math.ceil((Math.abs(g[6] - g[0]) + Math.abs(g[7] - g[1]) + 2 * Math.abs(g[2] - g[0])) / (CELL / 2)));
      for (let i = 1; i <= steps; i++) {
        const [x, y] = bez(g, i / steps);
        for (const [px, py] of [[lx, ly], [x, y]]) gridAdd(edgeGrid, Math.floor(px / CELL), Math.floor(py / CELL), e);
        lx = x; ly = y;
      }
    }
    return edgeGrid;
  }
  function nodeAt(wx, wy) {
    const l = nodesGrid().get(key(Math.floor(wx / CELL), Math.floor(wy / CELL)));
    if (!l) return -1;
    for (const v of l) {
      if (nodeOn[v] && hiddenIn[v] < 0 && Math.abs(wx - X[v]) <= W[v] / 2 && Math.abs(wy - Y[v]) <= H / 2) return v;
    }
    return -1;
  }
  function edgeAt(wx, wy) {
    const l = edgesGrid().get(key(Math.floor(wx / CELL), Math.floor(wy / CELL)));
    if (!l) return -1;
    let best = -1, bd = 6 / scale;
    for (const e of l) {
      if (!edgeState(e) || !edgeVisible(e)) continue;
      const g = geom(e);
      let [lx, ly] = bez(g, 0);
      for (let i = 1; i <= 16; i++) {
        const [x, y] = bez(g, i / 16);
        const dx = x - lx, dy = y - ly, len2 = dx * dx + dy * dy || 1;
        const t = Math.max(0, Math.min(1, ((wx - lx) * dx + (wy - ly) * dy) / len2));
        const d = Math.hypot(wx - lx - t * dx, wy - ly - t * dy);
        if (d < bd) { bd = d; best = e; }
        lx = x; ly = y;
      }
    }
    return best;
  }
  function clusterHeaderAt(wx, wy) {
    for (let i = CL.length - 1; i >= 0; i--) {
      const c = CL[i];
      if (wx >= c.x && wx <= c.x + c.w && wy >= c.y && wy <= c.y + 24) return i;
    }
    return -1;
  }

  // Side panel.
  const info = document.getElementById("info"), results = document.getElementById("results"), stepsEl = document.getElementById("steps");
  function el(tag, cls, text) { const x = document.createElement(tag); if (cls) x.className = cls; if (text !== undefined) x.textContent = text; return x; }
  function edgeItem(e, other, arrow) {
    const li = el("li");
    const st = edgeState(e);
    li.append(el("span", st === 2 ? "add" : st === 3 ? "del" : "", arrow + " " + D.nodes[other]));
    const lab = D.labels[EL[e]];
    li.append(el("span", "lab", lab ? "  " + lab : "  (skip)"));
    if (st === 2) li.append(el("span", "add", "  added"));
    if (st === 3) li.append(el("span", "del", "  removed"));
    li.onclick = () => goTo(other, false);
    return li;
  }
  function showInfo(v) {
    info.replaceChildren();
    if (v < 0) return;
    info.append(el("h3", "", D.nodes[v]));
    if (NC[v] >= 0) info.append(el("p", "hint", "in " + CL[NC[v]].title));
    const a = adjacency();
    for (const [list, end, arrow, title] of [[a.out[v], ET, "→", "outgoing"], [a.inc[v], EF, "←", "incoming"]]) {
      const ul = el("ul");
      let n = 0;
      for (const e of list) {
        if (!edgeState(e)) continue;
        if (++n > 500) { ul.append(el("li", "lab", "…")); break; }
        ul.append(edgeItem(e, end[e], arrow));
        if (arrow === "→" && CHECK[e] >= 0) {
          const li = el("li", "lab", "   checks from " + D.nodes[CHECK[e]]);
          li.onclick = () => goTo(CHECK[e], false);
          ul.append(li);
        }
      }
      info.append(el("h3", "", title + " (" + n + ")"), ul);
    }
  }
  function goTo(v, keep) {
    if (v < 0) return;
    if (NC[v] >= 0 && CL[NC[v]].collapsed) { CL[NC[v]].collapsed = false; recollapse(); }
    selected = v;
    if (!keep || scale < 0.8) scale = Math.max(scale, 1);
    tx = cw / 2 - X[v] * scale; ty = ch / 2 - Y[v] * scale;
    showInfo(v);
    schedule();
  }
  const search = document.getElementById("search");
  let matches = [];
  function runSearch() {
    const q = search.value.trim().toLowerCase();
    found = new Set(); matches = [];
    results.replaceChildren();
    if (!q) { results.hidden = true; schedule(); return; }
    for (let v = 0; v < N; v++) {
      if (D.nodes[v].toLowerCase().includes(q)) { matches.push(v); found.add(v); }
    }
    results.hidden = false;
    results.append(el("h3", "", matches.length + " node" + (matches.length === 1 ? "" : "s") + " match"));
    const ul = el("ul");
    for (const v of matches.slice(0, 200)) { const li = el("li", "", D.nodes[v]); li.onclick = () => goTo(v, true); ul.append(li); }
    if (matches.length > 200) ul.append(el("li", "lab", "… " + (matches.length - 200) + " more"));
    results.append(ul);
    schedule();
  }
  let searchTimer = 0;
  search.addEventListener("input", () => { clearTimeout(searchTimer); searchTimer = setTimeout(runSearch, 150); });
  search.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") { clearTimeout(searchTimer); runSearch(); if (matches.length) goTo(matches[0], true); }
  });

  function renderSteps() {
    if (STEPS.length < 2) return;
    stepsEl.hidden = false;
    stepsEl.replaceChildren();
    const h = el("h3", "", "steps (← → keys; step " + (step + 1) + " of " + STEPS.length + ")");
    const btn = el("button", "", "zoom to the changes");
    btn.onclick = zoomToChanges;
    const ul = el("ul");
    STEPS.forEach((s, i) => {
      const li = el("li", i === step ? "current" : "");
      li.append(el("span", "", (i + 1) + ". " + s.title + " "));
      li.append(el("span", "lab", s.nodes + " nodes, " + s.edges + " edges "));
      if (i > 0) { li.append(el("span", "add", "+" + count(s.add) + " ")); li.append(el("span", "del", "−" + count(s.del))); }
      li.onclick = () => setStep(i);
      ul.append(li);
    });
    stepsEl.append(h, btn, ul);
    if (selected >= 0) showInfo(selected);
  }
  function count(r) { let n = 0; for (let i = 0; i < r.length; i += 2) n += r[i + 1] - r[i]; return n; }
  function zoomToChanges() {
    if (step === 0) { fit(); return; }
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    const r = STEPS[step].add.concat(STEPS[step].del);
    for (let i = 0; i < r.length; i += 2) for (let e = r[i]; e < r[i + 1]; e++) {
      for (const v of [EF[e], ET[e]]) {
        x0 = Math.min(x0, PX[v] - W[v] / 2); x1 = Math.max(x1, PX[v] + W[v] / 2);
        y0 = Math.min(y0, PY[v] - H); y1 = Math.max(y1, PY[v] + H);
      }
    }
    if (isFinite(x0)) fitTo(x0, y0, x1, y1, 1.5);
  }

  // Interaction.
  let drag = null;
  const world = (ev) => {
    const r = canvas.getBoundingClientRect();
    const sx = ev.clientX - r.left, sy = ev.clientY - r.top;
    return [sx, sy, (sx - tx) / scale, (sy - ty) / scale];
  };
  canvas.addEventListener("mousedown", (ev) => {
    const [sx, sy] = world(ev);
    drag = { sx, sy, tx, ty, moved: false };
    canvas.classList.add("dragging");
  });
  window.addEventListener("mouseup", (ev) => {
    if (!drag) return;
    const moved = drag.moved;
    drag = null;
    canvas.classList.remove("dragging");
    if (moved || ev.target !== canvas) return;
    const [, , wx, wy] = world(ev);
    const c = clusterHeaderAt(wx, wy);
    if (c >= 0) { CL[c].collapsed = !CL[c].collapsed; recollapse(); return; }
    const v = nodeAt(wx, wy);
    selected = v;
    showInfo(v);
    schedule();
  });
  let hoverPending = null;
  canvas.addEventListener("mousemove", (ev) => {
    const [sx, sy, wx, wy] = world(ev);
    if (drag) {
      if (Math.abs(sx - drag.sx) + Math.abs(sy - drag.sy) > 3) drag.moved = true;
      tx = drag.tx + sx - drag.sx; ty = drag.ty + sy - drag.sy;
      tip.hidden = true;
      schedule();
      return;
    }
    if (hoverPending) { hoverPending = [sx, sy, wx, wy]; return; }
    hoverPending = [sx, sy, wx, wy];
    requestAnimationFrame(() => {
      const [hx, hy, hwx, hwy] = hoverPending;
      hoverPending = null;
      const v = nodeAt(hwx, hwy);
      const e = v >= 0 ? -1 : edgeAt(hwx, hwy);
      const c = v >= 0 || e >= 0 ? -1 : clusterHeaderAt(hwx, hwy);
      let text = "";
      if (v >= 0) text = D.nodes[v] + (NC[v] >= 0 ? "\nin " + CL[NC[v]].title : "");
      else if (e >= 0) {
        const st = edgeState(e);
        text = (D.labels[EL[e]] || "(skip)") + "\n" + D.nodes[EF[e]] + " → " + D.nodes[ET[e]] + (st === 2 ? "\nadded in this step" : st === 3 ? "\nremoved in this step" : "");
      } else if (c >= 0) text = CL[c].title + ": " + CL[c].size + " nodes\nclick to " + (CL[c].collapsed ? "expand" : "collapse");
      tip.hidden = !text;
      tip.textContent = text;
      tip.style.left = Math.min(hx + 14, cw - 200) + "px"; tip.style.top = (hy + 14) + "px";
      if (e !== hoverEdge || v !== hoverNode) { hoverEdge = e; hoverNode = v; schedule(); }
    });
  });
  canvas.addEventListener("mouseleave", () => { tip.hidden = true; });
  canvas.addEventListener("wheel", (ev) => {
    ev.preventDefault();
    const [sx, sy, wx, wy] = world(ev);
    const f = Math.exp(-ev.deltaY * (ev.deltaMode === 1 ? 0.05 : 0.0015));
    scale = Math.min(8, Math.max(1e-5, scale * f));
    tx = sx - wx * scale; ty = sy - wy * scale;
    schedule();
  }, { passive: false });
  canvas.addEventListener("dblclick", fit);
  window.addEventListener("resize", () => { resize(); schedule(); });
  window.addEventListener("keydown", (ev) => {
    if (ev.target === search) return;
    if (ev.key === "ArrowRight") setStep(step + 1);
    else if (ev.key === "ArrowLeft") setStep(step - 1);
    else if (ev.key === "f") fit();
    else if (ev.key === "+" || ev.key === "=") { scale *= 1.25; tx = cw / 2 - (cw / 2 - tx) * 1.25; ty = ch / 2 - (ch / 2 - ty) * 1.25; schedule(); }
    else if (ev.key === "-") { scale /= 1.25; tx = cw / 2 - (cw / 2 - tx) / 1.25; ty = ch / 2 - (ch / 2 - ty) / 1.25; schedule(); }
  });
  document.getElementById("fit").onclick = fit;
  document.getElementById("collapse").onclick = () => { for (const c of CL) c.collapsed = true; recollapse(); };
  document.getElementById("expand").onclick = () => { for (const c of CL) c.collapsed = false; recollapse(); };
  document.getElementById("labels").onchange = schedule;

  // First drawing, synchronously, so a headless browser sees the finished page.
  // The address may name a step, a node and a zoom: page.html#step=3&changes (zoomed to the
  // step's changes), page.html#node=begin&zoom=0.8
  const want = new URLSearchParams(location.hash.slice(1));
  resize();
  recollapse();
  if (want.has("step")) step = Math.max(0, parseInt(want.get("step"), 10) - 1 || 0);
  setStep(step);
  fit();
  if (want.has("changes")) zoomToChanges();
  if (want.has("node")) {
    const name = want.get("node");
    const v = D.nodes.indexOf(name);
    if (v >= 0) { goTo(v, false); if (want.has("zoom")) { scale = parseFloat(want.get("zoom")) || 1; tx = cw / 2 - X[v] * scale; ty = ch / 2 - Y[v] * scale; } }
  }
  draw();
  pending = false;
  const ms = Math.round(performance.now() - t0);
  status.textContent = N + " nodes, " + E + " edges" + (STEPS.length > 1 ? ", " + STEPS.length + " steps" : "") + " (drawn in " + ms + " ms)";
  status.dataset.rendered = "ok";
})();
