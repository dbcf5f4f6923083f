// menagerie's board page: draws the server's state (the viewed position of
// the game), turns clicks into moves from the engine's legal-move list,
// steps through the game, shows the clocks, the evaluation bar, the graph of
// an analysed game and the legend of the pieces, and follows the
// server-sent events. Men move by clicks or by drag and drop. Premoves
// (premove.js), the drawings on the board (arrows.js), the sounds
// (sounds.js) and the game in the address (share.js) have files of their own,
// served joined before this one as app.js (src/gui/assets.rs).
"use strict";

const ui = {
  variants: [],
  variant: null, // the current variant's description
  state: null,
  selected: null, // {square} or {hand: letter}
  flipped: false,
  mode: "none", // which colour the person plays against the engine
  engineBusy: false,
  lines: new Map(),
  review: null, // the last "Analyse game" answer
  reviewing: false,
  clockAt: 0, // when the state's clock readings were taken (performance.now())
  flagSent: -1, // the version a flag claim was sent for
  drag: null, // a man held by the pointer: {source, x, y, ghost}
  dropped: 0, // when a drag ended (the click that follows it is not a click)
};

const $ = (id) => document.getElementById(id);

async function api(method, path, body) {
  // JSON bodies only: the server refuses other types from anything but GET.
  const options = { method, headers: { "Content-Type": "application/json" } };
  if (body !== undefined) options.body = JSON.stringify(body);
  const response = await fetch(path, options);
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

function showError(message) {
  $("error").textContent = message || "";
}

async function call(method, path, body) {
  try {
    const data = await api(method, path, body);
    showError("");
    return data;
  } catch (e) {
    showError(e.message);
    return null;
  }
}

function escapeHtml(text) {
  return String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}

function pieceInfo(letter) {
  const upper = letter.toUpperCase();
  const def = ui.variant && ui.variant.pieces.find((p) => p.letter === upper);
  return { name: def ? def.name : "?", title: def ? def.title : "?", white: letter === upper };
}

function pieceHtml(letter, white) {
  const info = pieceInfo(letter);
  return pieceSvg(info.name, letter, white === undefined ? info.white : white);
}

/** "white nc rook (U)": the name shown on hover. */
function pieceTitle(letter) {
  const info = pieceInfo(letter);
  return `${info.white ? "white" : "black"} ${info.title} (${letter.toUpperCase()})`;
}

/** Square name of a file and rank index (0-based). */
function squareName(file, rank) {
  return String.fromCharCode(97 + file) + (rank + 1);
}

function squaresOf(uci) {
  return uci ? uci.match(/[a-z](10|[1-9])/g) || [] : [];
}

function atEnd() {
  return ui.state && ui.state.ply === ui.state.moves.length;
}

function setState(state) {
  // Answers may arrive out of order; the game's version only grows.
  if (!state || (ui.state && state.version < ui.state.version)) return;
  if (ui.state && state.version === ui.state.version) {
    // The same game: keep the selection, take the engine's switches.
    ui.state.analysing = state.analysing;
    ui.state.thinking = state.thinking;
    $("analyse").checked = state.analysing !== null;
    renderStatus();
    renderShapes();
    return;
  }
  const variantChanged = !ui.state || ui.state.variant !== state.variant;
  const before = ui.state;
  ui.state = state;
  const sound = soundOf(before, state);
  if (sound) playSound(sound);
  if (!before || before.fen !== state.fen) clearShapes();
  writeGameLink(state);
  ui.clockAt = performance.now();
  if (variantChanged) {
    ui.variant = ui.variants.find((v) => v.name === state.variant) || null;
    $("variant").value = state.variant;
    ui.lines.clear();
    renderLegend();
  }
  if (ui.linesVersion !== state.version) {
    ui.lines.clear();
    ui.linesVersion = state.version;
  }
  if (ui.review && !reviewFits()) ui.review = null;
  ui.selected = null;
  $("fen").value = state.fen;
  $("analyse").checked = state.analysing !== null;
  render();
  if (!playPremove()) maybeEngineMove();
}

function render() {
  renderBoard();
  renderHands();
  renderClocks();
  renderStatus();
  renderMoves();
  renderLines();
  renderNav();
  renderEvalBar();
  renderGraph();
}

function boardSize() {
  const s = ui.state;
  // A narrow window (a phone) gives the board its whole width, the panel below it.
  const narrow = window.innerWidth < 760;
  const room = narrow ? window.innerWidth - 80 : Math.min(window.innerWidth - 470, window.innerHeight - 260);
  return Math.max(narrow ? 24 : 36, Math.min(72, Math.floor(room / Math.max(s.files, s.ranks))));
}

function targetsOf(selected) {
  if (!selected) return [];
  return ui.state.legal.filter((m) =>
    selected.hand ? m.kind === "drop" && m.piece === selected.hand : m.from === selected.square && m.to
  );
}

function renderBoard() {
  const s = ui.state;
  const board = $("board");
  board.style.setProperty("--size", boardSize() + "px");
  document.documentElement.style.setProperty("--size", boardSize() + "px");
  board.style.gridTemplateColumns = `repeat(${s.files}, var(--size))`;
  const targets = targetsOf(ui.selected);
  const last = squaresOf(s.last);
  const html = [];
  for (let row = 0; row < s.ranks; row++) {
    for (let col = 0; col < s.files; col++) {
      const rank = ui.flipped ? row : s.ranks - 1 - row;
      const file = ui.flipped ? s.files - 1 - col : col;
      const name = squareName(file, rank);
      const letter = s.board[s.ranks - 1 - rank][file];
      const classes = ["sq", (file + rank) % 2 === 0 ? "dark" : "light"];
      if (last.includes(name)) classes.push("last");
      if (ui.selected && ui.selected.square === name) classes.push("sel");
      if (s.check === name) classes.push("check");
      classes.push(...premoveClasses(name));
      const here = targets.filter((m) => m.to === name);
      if (here.length) {
        classes.push("target");
        if (letter) classes.push("occupied");
        if (here.some((m) => m.kind === "swap" || m.kind === "castle")) classes.push("swap");
      }
      let inner = letter ? pieceHtml(letter) : "";
      if (col === 0) inner += `<span class="coord rank">${rank + 1}</span>`;
      if (row === s.ranks - 1) inner += `<span class="coord file">${String.fromCharCode(97 + file)}</span>`;
      const title = letter ? ` title="${escapeHtml(pieceTitle(letter))}"` : "";
      html.push(`<div class="${classes.join(" ")}" data-square="${name}" data-piece="${letter}"${title}>${inner}</div>`);
    }
  }
  board.innerHTML = html.join("");
  const setup = s.setup && s.legal.some((m) => m.kind === "pass" || m.kind === "swap");
  $("setup-bar").hidden = !setup;
  $("keep").hidden = !s.legal.some((m) => m.kind === "pass");
  renderShapes();
}

function renderHands() {
  const s = ui.state;
  const hasHands = ui.variant && ui.variant.hands;
  const top = ui.flipped ? "white" : "black";
  const bottom = ui.flipped ? "black" : "white";
  for (const [id, color] of [["hand-top", top], ["hand-bottom", bottom]]) {
    const el = $(id);
    el.hidden = !hasHands;
    el.dataset.color = color;
    const held = s.hands[color]
      .map((h) => {
        const letter = color === "white" ? h.piece : h.piece.toLowerCase();
        const sel = ui.selected && ui.selected.hand === h.piece && s.side === color ? " sel" : "";
        const name = escapeHtml(pieceInfo(letter).title);
        return `<div class="held${sel}" data-hand="${color}" data-piece="${h.piece}" title="${escapeHtml(pieceTitle(letter))}">${pieceHtml(letter)}<span class="count">${h.count}</span><span class="hname">${name}</span></div>`;
      })
      .join("");
    el.innerHTML = `<span class="label">${color}</span>${held}`;
  }
}

// ---- clocks ----

function clockLeft(color) {
  const c = ui.state && ui.state.clock;
  if (!c) return null;
  const base = c[color + "_ms"];
  const running = c.running === color && !ui.state.game_result;
  return Math.max(0, running ? base - (performance.now() - ui.clockAt) : base);
}

function clockText(ms) {
  const tenths = Math.floor(ms / 100);
  const minutes = Math.floor(tenths / 600);
  const seconds = Math.floor(tenths / 10) % 60;
  const text = `${minutes}:${String(seconds).padStart(2, "0")}`;
  return ms < 10000 ? `${text}.${tenths % 10}` : text;
}

function renderClocks() {
  const c = ui.state && ui.state.clock;
  const top = ui.flipped ? "white" : "black";
  const bottom = ui.flipped ? "black" : "white";
  for (const [id, color] of [["clock-top", top], ["clock-bottom", bottom]]) {
    const el = $(id);
    el.hidden = !c;
    if (!c) continue;
    const left = clockLeft(color);
    el.dataset.color = color;
    el.textContent = `${color === "white" ? "White" : "Black"} ${clockText(left)}`;
    el.classList.toggle("running", c.running === color && !ui.state.game_result);
    el.classList.toggle("low", left < 10000);
    el.classList.toggle("paused", !!c.paused && !ui.state.game_result);
    el.title = c.paused ? "Stopped while the game is reviewed" : "";
    if (left <= 0 && c.running === color && !ui.state.game_result && ui.flagSent !== ui.state.version) {
      // The flag has fallen on this page: the server's clock decides.
      ui.flagSent = ui.state.version;
      call("POST", "/api/flag").then((state) => state && setState(state));
    }
  }
}

// ---- status, moves, navigation ----

function renderStatus() {
  const s = ui.state;
  let text;
  if (s.result) text = `${s.result.result}: ${s.result.reason}`;
  else {
    text = `${s.side === "white" ? "White" : "Black"} to move`;
    if (s.setup) text += " (setup: swap or keep)";
    if (s.check) text += ", in check";
    if (s.thinking || ui.engineBusy) text += " - the engine is thinking";
    if (!atEnd()) {
      text += ` (viewing move ${s.ply} of ${s.moves.length}`;
      if (s.game_result) text += `; the game ended ${s.game_result.result}`;
      text += ")";
    }
  }
  $("status").textContent = text;
}

function markOf(ply) {
  const r = ui.review;
  if (!r || ply < 1 || ply > r.moves.length) return null;
  return r.moves[ply - 1].mark;
}

const MARK_CLASS = { "?!": "m-inaccuracy", "?": "m-mistake", "??": "m-blunder" };

function renderMoves() {
  const items = [];
  let current = null;
  ui.state.moves.forEach((m, i) => {
    const ply = i + 1;
    const entry = { ply, san: m.san };
    if (m.white || !current || current.number !== m.number || current.black !== null) {
      current = { number: m.number, white: m.white ? entry : null, black: null };
      items.push(current);
      if (m.white) return;
    }
    current.black = entry;
  });
  const span = (e) => {
    if (!e) return "<span>...</span>";
    const mark = markOf(e.ply);
    const classes = [];
    if (e.ply === ui.state.ply) classes.push("cur");
    if (mark) classes.push(MARK_CLASS[mark]);
    return `<span data-ply="${e.ply}" class="${classes.join(" ")}">${escapeHtml(e.san)}${mark || ""}</span>`;
  };
  $("moves").innerHTML = items
    .map((i) => `<li value="${i.number}">${span(i.white)}${i.black ? span(i.black) : "<span></span>"}</li>`)
    .join("");
  // Only the list scrolls to the current move, never the page (a narrow window's page is long).
  const list = $("moves");
  const cur = list.querySelector("span.cur");
  if (cur) {
    const [r, l] = [cur.getBoundingClientRect(), list.getBoundingClientRect()];
    if (r.top < l.top || r.bottom > l.bottom) list.scrollTop += r.top - l.top - l.height / 2;
  } else if (atEnd()) list.scrollTop = list.scrollHeight;
}

function renderNav() {
  const s = ui.state;
  const n = s.moves.length;
  $("nav-ply").textContent = s.ply === 0 ? `start / ${n}` : `move ${s.ply} / ${n}`;
  $("nav-start").disabled = $("nav-prev").disabled = s.ply === 0;
  $("nav-end").disabled = $("nav-next").disabled = s.ply === n;
}

async function viewPly(ply) {
  const s = ui.state;
  if (!s || ui.engineBusy) return;
  ply = Math.max(0, Math.min(s.moves.length, ply));
  if (ply === s.ply) return;
  const state = await call("POST", "/api/view", { ply });
  if (state) setState(state);
}

// ---- scores: the analysis lines, the bar, the graph ----

function scoreText(score) {
  if (!score) return "";
  if (score.mate !== undefined) return (score.mate > 0 ? "#" : "#-") + Math.abs(score.mate);
  if (score.result !== undefined) return score.result;
  return (score.cp >= 0 ? "+" : "") + (score.cp / 100).toFixed(2);
}

/** White's winning chances (-1..1) of a score, as lichess draws them. */
function chancesOf(score) {
  if (!score) return 0;
  if (score.result !== undefined) return score.result === "1-0" ? 1 : score.result === "0-1" ? -1 : 0;
  const cp = score.mate !== undefined ? (score.mate > 0 ? 1000 : -1000) : Math.max(-1000, Math.min(1000, score.cp));
  return 2 / (1 + Math.exp(-0.00368208 * cp)) - 1;
}

function renderLines() {
  const rows = [...ui.lines.values()].sort((a, b) => a.multipv - b.multipv);
  $("lines").querySelector("tbody").innerHTML = rows
    .map(
      (l) =>
        `<tr><td>${scoreText(l.white_score)}</td><td>${l.depth}/${l.seldepth}</td><td>${l.nodes}</td><td class="pv">${l.san.join(" ")}</td></tr>`
    )
    .join("");
}

/** The score the bar shows: the live analysis, else the game analysis at the viewed move. */
function barScore() {
  const live = ui.lines.get(1);
  if (live && ui.state && ui.state.analysing !== null) return live.white_score;
  const r = ui.review;
  if (r && ui.state) return ui.state.ply === 0 ? r.start_eval : r.moves[ui.state.ply - 1].eval;
  return null;
}

function renderEvalBar() {
  const score = barScore();
  const white = 50 + 50 * chancesOf(score);
  $("evalbar-white").style.height = `${white}%`;
  $("evalbar").classList.toggle("flipped", ui.flipped);
  // The label stands at White's end of the bar.
  $("eval-col").classList.toggle("flipped", ui.flipped);
  $("eval-text").textContent = score ? scoreText(score) : "-";
}

/** True when the review belongs to the game shown (the same moves). */
function reviewFits() {
  const r = ui.review;
  const moves = ui.state.moves;
  return r && r.uci.length === moves.length && r.uci.every((u, i) => u === moves[i].uci);
}

const GRAPH = { w: 600, h: 140 };

function renderGraph() {
  const r = ui.review;
  const box = $("graph-box");
  box.hidden = !r;
  if (!r) return;
  const n = r.moves.length;
  const x = (ply) => (n === 0 ? 0 : (ply / n) * GRAPH.w);
  const y = (chances) => GRAPH.h / 2 - (chances * GRAPH.h) / 2;
  const points = [[0, r.start_white_chances]].concat(r.moves.map((m) => [m.ply, m.white_chances]));
  const line = points.map(([p, c]) => `${x(p).toFixed(1)},${y(c).toFixed(1)}`).join(" L");
  const whiteArea = `M0,${GRAPH.h} L${line} L${GRAPH.w},${GRAPH.h} Z`;
  const marks = r.moves
    .filter((m) => m.mark)
    .map((m) => {
      const who = m.white ? `${m.number}.` : `${m.number}...`;
      const name = { "?!": "Inaccuracy", "?": "Mistake", "??": "Blunder" }[m.mark];
      const best = m.best_san ? `; ${m.best_san} was best` : "";
      return `<circle class="${MARK_CLASS[m.mark]}" data-ply="${m.ply}" cx="${x(m.ply).toFixed(1)}" cy="${y(m.white_chances).toFixed(1)}" r="5"><title>${escapeHtml(`${who} ${m.san}${m.mark} ${name} (${m.eval_text})${best}`)}</title></circle>`;
    })
    .join("");
  const cursor = x(ui.state.ply).toFixed(1);
  $("graph").innerHTML =
    `<rect class="black-area" x="0" y="0" width="${GRAPH.w}" height="${GRAPH.h}"/>` +
    `<path class="white-area eval-area" d="${whiteArea}"/>` +
    `<line class="mid" x1="0" y1="${GRAPH.h / 2}" x2="${GRAPH.w}" y2="${GRAPH.h / 2}"/>` +
    `<line class="cursor" x1="${cursor}" y1="0" x2="${cursor}" y2="${GRAPH.h}"/>` +
    marks;
  const accuracy = (s) => (s.accuracy === null || s.accuracy === undefined ? "" : `accuracy ${Math.round(s.accuracy)}%, `);
  const side = (name, s) => `${name}: ${accuracy(s)}average centipawn loss ${Math.round(s.acpl)}, ${s.inaccuracies} ?!, ${s.mistakes} ?, ${s.blunders} ??`;
  renderGraphScales(r, x, y);
  $("review-summary").textContent =
    `${side("White", r.summary.white)}. ${side("Black", r.summary.black)}. ` +
    "The line is White's winning chances: the light area under it is White's share, the dark area above it Black's " +
    "(the higher the line, the better for White); the evaluation in pawns is marked up the side, the move numbers along the bottom. Click to view a move.";
}

/** The graph's scales: evaluations in pawns up the side, at the heights
 * their winning chances stand, and move numbers along the bottom. */
function renderGraphScales(r, x, y) {
  const at = (px, whole) => `${((px / whole) * 100).toFixed(1)}%`;
  $("graph-y").innerHTML = [5, 2, 0, -2, -5]
    .map((p) => `<span style="top:${at(y(chancesOf({ cp: p * 100 })), GRAPH.h)}">${p > 0 ? "+" : ""}${p}</span>`)
    .join("");
  const numbers = r.moves.map((m) => m.number);
  const span = numbers.length ? numbers[numbers.length - 1] - numbers[0] + 1 : 1;
  const step = [1, 2, 5, 10, 20, 50, 100, 200, 500].find((s) => span / s <= 10) || 1000;
  const shown = new Set();
  $("graph-x").innerHTML = r.moves
    .filter((m) => m.number % step === 0 && !shown.has(m.number) && shown.add(m.number))
    .map((m) => `<span style="left:${at(x(m.ply), GRAPH.w)}">${m.number}</span>`)
    .join("");
}

function onGraphClick(event) {
  const r = ui.review;
  if (!r) return;
  const mark = event.target.closest("circle");
  if (mark) return viewPly(parseInt(mark.dataset.ply, 10));
  const rect = $("graph").getBoundingClientRect();
  const ply = Math.round(((event.clientX - rect.left) / rect.width) * r.moves.length);
  viewPly(ply);
}

async function analyseGame() {
  if (ui.reviewing || !ui.state) return;
  if (ui.state.moves.length === 0) return showError("no moves to analyse");
  ui.reviewing = true;
  $("review").disabled = true;
  $("review-status").textContent = "analysing...";
  const movetime = parseInt($("review-time").value, 10) || 300;
  const reply = await call("POST", "/api/review", { movetime });
  ui.reviewing = false;
  $("review").disabled = false;
  $("review-status").textContent = reply ? "" : "failed";
  if (!reply) return;
  ui.review = reply;
  if (!reviewFits()) {
    ui.review = null;
    $("review-status").textContent = "the game changed during the analysis";
  }
  render();
}

// ---- the legend ----

function renderLegend() {
  const v = ui.variant;
  const rows = v
    ? v.legend.map((p) => {
        const notes = p.notes.length ? `<div class="notes">${p.notes.map(escapeHtml).join(" ")}</div>` : "";
        return `<tr data-piece="${p.letter}"><td class="pic" title="${escapeHtml(p.name)}">${pieceSvg(v.pieces.find((q) => q.letter === p.letter).name, p.letter, true)}</td><td class="letter">${p.letter}</td><td><div class="name">${escapeHtml(p.name)}</div><div class="moves">${escapeHtml(p.moves)}</div>${notes}</td></tr>`;
      })
    : [];
  $("legend").querySelector("tbody").innerHTML = rows.join("");
}

// ---- clicks ----

function onBoardClick(event) {
  if (performance.now() - ui.dropped < 300) return;
  const square = event.target.closest(".sq");
  if (square && ui.state && premoveTime()) return premoveBoardClick(square.dataset.square, square.dataset.piece);
  if (!square || !ui.state || ui.state.result || engineToMove()) return;
  const name = square.dataset.square;
  const chosen = targetsOf(ui.selected).filter((m) => m.to === name);
  if (chosen.length === 1) return play(chosen[0].uci);
  if (chosen.length > 1) return choosePromotion(chosen);
  const own = ui.state.legal.some((m) => m.from === name && m.to);
  ui.selected = own && !(ui.selected && ui.selected.square === name) ? { square: name } : null;
  render();
}

function onHandClick(event) {
  if (performance.now() - ui.dropped < 300) return;
  const held = event.target.closest(".held");
  if (held && ui.state && premoveTime()) return premoveHandClick(held);
  if (!held || !ui.state || ui.state.result || engineToMove()) return;
  const letter = held.dataset.piece;
  const canDrop = held.dataset.hand === ui.state.side && ui.state.legal.some((m) => m.kind === "drop" && m.piece === letter);
  ui.selected = canDrop && !(ui.selected && ui.selected.hand === letter) ? { hand: letter } : null;
  render();
}

// ---- drag and drop ----

/** The selection a pointer pressed on a man may start: a square or a man in hand with legal moves. */
function dragSource(target) {
  const s = ui.state;
  if (s && premoveTime()) return premoveDragSource(target);
  if (!s || s.result || engineToMove()) return null;
  const square = target.closest("#board .sq");
  if (square && s.legal.some((m) => m.from === square.dataset.square && m.to)) return { square: square.dataset.square, letter: square.dataset.piece };
  const held = target.closest(".held");
  if (held && held.dataset.hand === s.side && s.legal.some((m) => m.kind === "drop" && m.piece === held.dataset.piece)) {
    return { hand: held.dataset.piece, letter: s.side === "white" ? held.dataset.piece : held.dataset.piece.toLowerCase() };
  }
  return null;
}

function onPointerDown(event) {
  if (event.button !== 0) return;
  const source = dragSource(event.target);
  if (source) ui.drag = { source, x: event.clientX, y: event.clientY, ghost: null };
}

function onPointerMove(event) {
  const d = ui.drag;
  if (!d) return;
  if (!d.ghost) {
    // A press that moves a few pixels is a drag: the man follows the pointer, its targets marked.
    if (Math.hypot(event.clientX - d.x, event.clientY - d.y) < 5) return;
    const picked = d.source.square ? { square: d.source.square } : { hand: d.source.hand };
    if (d.source.premove) premove.picked = picked;
    else ui.selected = picked;
    render();
    d.ghost = document.createElement("div");
    d.ghost.className = "drag-ghost";
    d.ghost.innerHTML = pieceHtml(d.source.letter);
    document.body.appendChild(d.ghost);
    if (d.source.square) document.querySelector(`[data-square="${d.source.square}"]`).classList.add("dragged");
  }
  d.ghost.style.left = `${event.clientX}px`;
  d.ghost.style.top = `${event.clientY}px`;
  event.preventDefault();
}

function onPointerUp(event) {
  const d = ui.drag;
  ui.drag = null;
  if (!d || !d.ghost) return;
  d.ghost.remove();
  ui.dropped = performance.now();
  const under = document.elementFromPoint(event.clientX, event.clientY);
  const square = under && under.closest("#board .sq");
  if (d.source.premove) return premoveDrop(d.source, square);
  const chosen = square ? targetsOf(ui.selected).filter((m) => m.to === square.dataset.square) : [];
  if (chosen.length === 1) return play(chosen[0].uci);
  if (chosen.length > 1) return choosePromotion(chosen);
  // Dropped anywhere else: the man goes back, still selected for a click.
  render();
}

function onMovesClick(event) {
  const span = event.target.closest("span[data-ply]");
  if (span) viewPly(parseInt(span.dataset.ply, 10));
}

function choosePromotion(moves) {
  const box = $("promotion");
  const white = ui.state.side === "white";
  box.innerHTML = moves
    .map((m) => {
      const letter = m.piece ? (white ? m.piece : m.piece.toLowerCase()) : null;
      const face = letter ? pieceHtml(letter) : "no promotion";
      return `<button data-uci="${m.uci}" title="${m.san}">${face}</button>`;
    })
    .join("");
  box.hidden = false;
}

/** Asks in the page; resolves to true when the person agrees. */
function askConfirm(text) {
  return new Promise((resolve) => {
    $("confirm-text").textContent = text;
    $("confirm").hidden = false;
    const done = (answer) => {
      $("confirm").hidden = true;
      $("confirm-yes").onclick = $("confirm-no").onclick = null;
      resolve(answer);
    };
    $("confirm-yes").onclick = () => done(true);
    $("confirm-no").onclick = () => done(false);
  });
}

/** From an earlier position, a move other than the game's own drops the
 * rest of the game: ask first. Resolves to the `truncate` flag, or null
 * when the person declines. */
async function dropLaterMoves(uci, what) {
  const s = ui.state;
  const later = s.moves.length - s.ply;
  if (later === 0 || (uci && s.moves[s.ply].uci === uci)) return false;
  const ok = await askConfirm(`${what} here drops the ${later} later move${later === 1 ? "" : "s"} of the game.`);
  return ok ? true : null;
}

async function play(uci) {
  $("promotion").hidden = true;
  ui.selected = null;
  const san = (ui.state.legal.find((m) => m.uci === uci) || { san: uci }).san;
  const truncate = await dropLaterMoves(uci, `Playing ${san}`);
  if (truncate === null) return render();
  const state = await call("POST", "/api/move", { move: uci, truncate });
  if (state) setState(state);
  else render();
}

// ---- the engine ----

function engineToMove() {
  const s = ui.state;
  return ui.mode !== "none" && s && atEnd() && !s.result && s.side !== ui.mode;
}

async function engineMove(truncate) {
  if (ui.engineBusy || !ui.state || ui.state.result) return;
  ui.engineBusy = true;
  renderStatus();
  const s = ui.state;
  const body = { play: true, truncate: !!truncate };
  if (s.clock && s.clock.running) body.clock = true;
  else body.movetime = Math.max(1, Math.min(600000, parseInt($("movetime").value, 10) || 1000));
  const reply = await call("POST", "/api/go", body);
  ui.engineBusy = false;
  if (reply) setState(reply.state);
  else {
    // A refusal (a flag fell, the game changed) comes with a new state.
    setState(await call("GET", "/api/state"));
    renderStatus();
  }
}

function maybeEngineMove() {
  if (engineToMove() && !ui.engineBusy) setTimeout(engineMove, 50);
}

// ---- events ----

function listen() {
  const events = new EventSource("/api/events");
  // A change made before the stream connected (or while it reconnected)
  // sent its event to no one: read the state again on every connect.
  events.addEventListener("open", async () => {
    if (!ui.engineBusy) setState(await call("GET", "/api/state"));
  });
  events.addEventListener("state", async (e) => {
    const { version } = JSON.parse(e.data);
    if (ui.state && version < ui.state.version) return;
    if (!ui.engineBusy) setState(await call("GET", "/api/state"));
  });
  events.addEventListener("info", (e) => {
    const info = JSON.parse(e.data);
    if (!ui.state || info.version !== ui.state.version) return;
    ui.lines.set(info.multipv, info);
    renderLines();
    if (info.multipv === 1) renderShapes();
    renderEvalBar();
  });
  events.addEventListener("review", (e) => {
    const p = JSON.parse(e.data);
    if (ui.reviewing) $("review-status").textContent = `analysing: position ${p.done} of ${p.total}`;
  });
}

// ---- controls ----

async function newGame(fen) {
  const body = { variant: $("variant").value };
  if (fen) body.fen = fen;
  const names = { none: ["?", "?"], white: ["Human", "menagerie"], black: ["menagerie", "Human"] }[ui.mode];
  body.white = names[0];
  body.black = names[1];
  const clock = $("clock").value.trim();
  if (clock) body.clock = clock;
  premove.chosen = premove.picked = null;
  const state = await call("POST", "/api/new", body);
  if (state) {
    ui.review = null;
    setState(state);
  }
}

function onKey(event) {
  const tag = event.target.tagName;
  if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || !ui.state || !$("confirm").hidden) return;
  const moves = {
    ArrowLeft: ui.state.ply - 1,
    ArrowRight: ui.state.ply + 1,
    Home: 0,
    End: ui.state.moves.length,
  };
  if (event.key in moves) {
    event.preventDefault();
    viewPly(moves[event.key]);
  }
}

function bind() {
  $("board").addEventListener("click", onBoardClick);
  bindShapes();
  bindSounds();
  document.addEventListener("pointerdown", onPointerDown);
  document.addEventListener("pointermove", onPointerMove);
  document.addEventListener("pointerup", onPointerUp);
  document.addEventListener("pointercancel", () => {
    if (ui.drag && ui.drag.ghost) ui.drag.ghost.remove();
    ui.drag = null;
    if (ui.state) render();
  });
  $("hand-top").addEventListener("click", onHandClick);
  $("hand-bottom").addEventListener("click", onHandClick);
  $("moves").addEventListener("click", onMovesClick);
  $("graph").addEventListener("click", onGraphClick);
  document.addEventListener("keydown", onKey);
  $("nav-start").addEventListener("click", () => viewPly(0));
  $("nav-prev").addEventListener("click", () => viewPly(ui.state.ply - 1));
  $("nav-next").addEventListener("click", () => viewPly(ui.state.ply + 1));
  $("nav-end").addEventListener("click", () => viewPly(ui.state.moves.length));
  $("promotion").addEventListener("click", (e) => {
    const button = e.target.closest("button");
    if (button) play(button.dataset.uci);
  });
  $("new").addEventListener("click", () => newGame(null));
  $("variant").addEventListener("change", () => newGame(null));
  $("set-fen").addEventListener("click", () => newGame($("fen").value.trim() || null));
  $("fen").addEventListener("keydown", (e) => {
    if (e.key === "Enter") newGame($("fen").value.trim() || null);
  });
  $("keep").addEventListener("click", () => {
    const pass = ui.state.legal.find((m) => m.kind === "pass");
    if (pass) play(pass.uci);
  });
  $("flip").addEventListener("click", () => {
    ui.flipped = !ui.flipped;
    render();
  });
  $("undo").addEventListener("click", async () => {
    // Against the engine, take back to the person's own turn.
    const s = ui.state;
    let plies = 1;
    if (ui.mode !== "none" && s.side === ui.mode && s.ply >= 2) plies = 2;
    if (s.ply === 0) return showError("no move to take back");
    const state = await call("POST", "/api/undo", { plies });
    if (state) setState(state);
  });
  $("engine-move").addEventListener("click", async () => {
    if (ui.engineBusy || (ui.state && ui.state.thinking)) return call("POST", "/api/stop");
    const truncate = await dropLaterMoves(null, "The engine's move");
    if (truncate !== null) engineMove(truncate);
  });
  $("resign").addEventListener("click", async () => {
    const s = ui.state;
    const side = ui.mode === "none" ? s.side : ui.mode;
    const state = await call("POST", "/api/resign", { side });
    if (state) setState(state);
  });
  $("draw").addEventListener("click", async () => {
    const s = ui.state;
    const engine = ui.mode !== "none";
    const by = engine ? ui.mode : s.side;
    const reply = await call("POST", "/api/draw", { by, engine });
    if (!reply) return;
    setState(reply.state);
    if (!reply.accepted) showError("The engine declines the draw.");
  });
  for (const radio of document.querySelectorAll('input[name="mode"]')) {
    radio.addEventListener("change", () => {
      ui.mode = radio.value;
      if (ui.mode !== "none") {
        ui.flipped = ui.mode === "black";
        if (ui.state && ui.state.analysing !== null) call("POST", "/api/stop");
      }
      render();
      maybeEngineMove();
    });
  }
  $("analyse").addEventListener("change", async () => {
    const on = $("analyse").checked;
    const state = on ? await call("POST", "/api/analyse", { multipv: parseInt($("multipv").value, 10) }) : await call("POST", "/api/stop");
    if (state) setState(state);
  });
  $("multipv").addEventListener("change", async () => {
    ui.lines.clear();
    if ($("analyse").checked) {
      const state = await call("POST", "/api/analyse", { multipv: parseInt($("multipv").value, 10) });
      if (state) setState(state);
    }
  });
  $("review").addEventListener("click", analyseGame);
  $("export").addEventListener("click", async () => {
    const reply = await call("GET", "/api/pgn");
    if (!reply) return;
    $("pgn").value = reply.pgn;
    const link = $("download");
    link.href = URL.createObjectURL(new Blob([reply.pgn], { type: "application/x-chess-pgn" }));
    link.hidden = false;
  });
  $("import").addEventListener("click", async () => {
    const state = await call("POST", "/api/pgn", { pgn: $("pgn").value });
    if (state) setState(state);
  });
  window.addEventListener("resize", () => ui.state && render());
  // The clocks tick on the page between the server's readings.
  setInterval(() => ui.state && ui.state.clock && renderClocks(), 100);
}

async function start() {
  const linked = linkedGame(location.search);
  // The server keeps the token of the address printed at start in a cookie,
  // which every request of this page carries: keep it out of the address bar.
  if (new URLSearchParams(location.search).has("token")) history.replaceState(null, "", location.pathname);
  bind();
  ui.variants = (await call("GET", "/api/variants")) || [];
  $("variant").innerHTML = ui.variants.map((v) => `<option value="${v.name}" title="${v.description}">${v.name}</option>`).join("");
  let state = await call("GET", "/api/state");
  // An address naming a game (a reload, a shared link) opens that game.
  if (state && linked) state = (await openLinkedGame(state, linked)) || (await api("GET", "/api/state").catch(() => null));
  setState(state);
  listen();
}

start();
